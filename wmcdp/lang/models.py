"""Exact models of floating-point samplers, found on the uniform grid.

Most samplers in DP libraries draw one uniform double ``u = k * 2^-53`` (``k`` in ``0 .. 2^53 - 1``) and turn it
into an output with float arithmetic: an inverse CDF, ``u * (e^eps + 1) > e^eps``, a search in cumulative sums.
The exact distribution such a sampler induces is the count of ``k`` per output over ``2^53``. A sampler that
draws a 64-bit integer instead (``draw="uint64"``) is given ``k`` itself, over ``2^64``. A
:class:`GridModel` finds it by calling the sampler itself (the library's own code, given the draw through a
stub generator) at chosen ``k``: on each declared *segment* of the grid the output is assumed to change
only where it moves on to a new value and never to come back (monotone in ``k``, as an inverse CDF is), so
the maximal runs of ``k`` with one output are found by bisection (about 53 calls per run).

The assumption is stated in the model and checked: both neighbours of every run's ends are evaluated
(a run's end and the next run's start differ), and ``checks`` random ``k`` per segment (10 000 by default,
from a fixed seed) must give the output of the run that holds them. A failed check is an error, never a
silent model. Several independent draws compose in the program that uses the models (one
:func:`wmcdp.discrete` per draw); a choice whose distribution depends on the input is
``discrete(lambda v: model_of(v).distribution(), x)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError

#: the grid of doubles in [0, 1) that libraries draw: k * 2^-GRID_BITS
GRID_BITS = 53
GRID = 1 << GRID_BITS
#: at most this many sampler calls to find the runs of one model
MAX_CALLS = 4_000_000
ASSUMPTION = (
    "the output is a monotone step function of k on each segment (it never returns to a value it left); "
    "checked at both neighbours of every run's ends and at random k"
)


def uniform(k: int) -> float:
    """The double ``k * 2^-53`` (exact for every ``k`` of the grid)."""
    return k / GRID


@dataclass(frozen=True)
class Run:
    """The ``k`` in ``start .. end`` (both included) give ``output``."""

    start: int
    end: int
    output: Hashable

    @property
    def count(self) -> int:
        return self.end - self.start + 1


#: what a sampler draws: the size of its grid, and the draw it is given at grid point k
DRAWS: dict[str, tuple[int, Callable[[int], Any]]] = {"double": (GRID, uniform), "uint64": (1 << 64, int)}


@dataclass(frozen=True)
class GridModel:
    """The exact distribution a sampler induces on the uniform grid, with the runs it was found from."""

    runs: tuple[Run, ...]
    segments: tuple[tuple[int, int], ...]
    calls: int
    checked: int  # random k checked against the runs
    assumption: str = field(default=ASSUMPTION)
    size: int = GRID  # the number of grid points (2^53 doubles, or 2^64 integers)

    def counts(self) -> dict[Hashable, int]:
        out: dict[Hashable, int] = {}
        for r in self.runs:
            out[r.output] = out.get(r.output, 0) + r.count
        return out

    def distribution(self) -> dict[Hashable, Fraction]:
        """``{output: count / size}`` (size 2^53, or 2^64 for integer draws), exactly."""
        return {y: Fraction(c, self.size) for y, c in self.counts().items()}

    def mapped(self, fn: Callable[[Hashable], Hashable]) -> GridModel:
        """The model of ``fn(sampler(u))`` for a deterministic ``fn`` (post-processing): the same runs, each
        output mapped (a sampler that folds or clips a monotone draw is modelled as that draw, then ``fn``)."""
        return replace(self, runs=tuple(Run(r.start, r.end, fn(r.output)) for r in self.runs))

    def output_at(self, k: int) -> Hashable:
        lo, hi = 0, len(self.runs) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.runs[mid].start <= k:
                lo = mid
            else:
                hi = mid - 1
        return self.runs[lo].output


def grid_model(
    sampler: Callable[[Any], Hashable],
    *,
    segments: Sequence[tuple[int, int]] | None = None,
    checks: int = 10_000,
    seed: int = 0,
    draw: str = "double",
) -> GridModel:
    """The :class:`GridModel` of ``sampler(u)`` over ``u = k * 2^-53`` (``draw="double"``), or of
    ``sampler(k)`` over the 64-bit integers ``k`` (``draw="uint64"``).

    ``segments`` are ``(first k, last k)`` ranges covering the grid in order (default: one segment, the whole
    grid), each one on which the sampler's output is a monotone step function of ``k``.
    """
    if draw not in DRAWS:
        raise WmcdpError(f"unknown draw {draw!r}; choose one of {', '.join(DRAWS)}")
    size, point = DRAWS[draw]
    segments = tuple(segments) if segments is not None else ((0, size - 1),)
    expected, whole = 0, f"0 .. 2^{size.bit_length() - 1} - 1"
    for lo, hi in segments:
        if lo != expected or hi < lo:
            raise WmcdpError(f"grid segments must cover {whole} in order; got {list(segments)}")
        expected = hi + 1
    if expected != size:
        raise WmcdpError(f"grid segments must cover {whole} in order; got {list(segments)}")
    calls = [0]

    def at(k: int) -> Hashable:
        calls[0] += 1
        if calls[0] > MAX_CALLS:
            raise WmcdpError(f"the sampler's grid model needs more than {MAX_CALLS} calls (too many distinct runs)")
        return sampler(point(k))

    runs: list[Run] = []
    for lo, hi in segments:
        runs += _merged(_runs(at, lo, hi))
    rng = random.Random(seed)
    model = GridModel(tuple(runs), segments, calls[0], 0, size=size)
    for lo, hi in segments:
        for k in [rng.randint(lo, hi) for _ in range(checks)]:
            got, want = at(k), model.output_at(k)
            if got != want:
                raise WmcdpError(
                    f"the sampler is not a monotone step function on the grid segment {lo} .. {hi}: at k = {k} it "
                    f"gives {got!r}, inside a run of {want!r}; declare finer segments"
                )
    return GridModel(tuple(runs), segments, calls[0], checks * len(segments), size=size)


def _runs(at: Callable[[int], Hashable], lo: int, hi: int) -> list[Run]:
    """The runs of ``at`` on ``lo .. hi`` by bisection, in order (equal ends of a range: one run)."""
    out: list[Run] = []
    stack = [(lo, hi, at(lo), at(hi))]
    while stack:
        a, b, fa, fb = stack.pop()
        if fa == fb:
            out.append(Run(a, b, fa))
            continue
        if b == a + 1:
            out += [Run(a, a, fa), Run(b, b, fb)]
            continue
        m = (a + b) // 2
        fm, fm1 = at(m), at(m + 1)
        stack.append((m + 1, b, fm1, fb))
        stack.append((a, m, fa, fm))
    return out


def _merged(runs: list[Run]) -> list[Run]:
    """Adjacent runs with one output as one; a value that comes back after another breaks the assumption."""
    out: list[Run] = []
    for r in runs:
        if out and out[-1].output == r.output:
            out[-1] = Run(out[-1].start, r.end, r.output)
        else:
            out.append(r)
    seen: set[Any] = set()
    for r in out:
        if r.output in seen:
            raise WmcdpError(
                f"the sampler returns to the output {r.output!r} at k = {r.start} after leaving it: it is not "
                "monotone on this grid segment; declare finer segments"
            )
        seen.add(r.output)
    return out


__all__ = ["DRAWS", "GRID", "GRID_BITS", "GridModel", "Run", "grid_model", "uniform", "ASSUMPTION"]
