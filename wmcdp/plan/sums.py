"""Counts of independent identical reports: the pairs of a program that sums one 0/1 report per entry.

A program whose output is ``y = sum_i t_i`` where the terms ``t_i`` (plus constants) are read off the traced
circuit (:meth:`wmcdp.lang.program.Program.trace` with ``terms=True``: the total is never formed) and

* the terms are independent parts (:func:`wmcdp.plan.parts.split`: their cones share no gate, random bit or
  input entry), each reading exactly one input entry, every entry read by one term;
* the terms have one canonical form (isomorphic circuits under a renaming of the entry and random bits that
  keeps every weight: one local mechanism ``R``) and take the values 0 and 1 only,

is the shuffle of ``R`` counted (:mod:`wmcdp.plan.shuffle`): ``P(. | x)`` is ``R``'s report distribution per
entry convolved over the entries, so it depends on ``x`` only through the histogram ``h`` of its entries'
values (constant terms shift every output by one amount, which no sum over outputs sees). A ``hamming``
neighbour moves one entry from a value ``a`` to a value ``b != a`` (``one-entry``: ``b = a +- 1``), so every
ordered neighbour pair has the rows of ``(v(h), v(h) with its first entry of value a set to b)`` for the sorted
input ``v(h)`` of some ``h`` with ``h_a >= 1`` and an allowed move ``a -> b``: a neighbour pair whose second
input has the histogram ``h - e_a + e_b``, so its row is that of the sorted input ``v(h - e_a + e_b)``. The notions
over pairs (δ(ε), ε(δ), Rényi, loss profiles) are maxima over pairs of sums over outputs, so they are the same
over these pairs, whose rows come by convolution (:class:`~wmcdp.plan.shuffle.ShuffledInference`) from one
compiled term, without the ``O(n^2)``-node diagram of the whole program.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator
from typing import Any

from ..base.errors import WmcdpError
from ..base.limits import reserve
from ..base.numbers import size_text
from ..compile import compile_trace
from ..lang.program import Program, Trace, Vector
from ..lang.relations import Relation
from ..lang.shape import IntShape, leaves
from .costs import (
    SUM_BASE_SECONDS,
    SUM_CONVOLVE_SECONDS,
    SUM_INPUT_CELL_SECONDS,
    SUM_PAIR_OUTPUT_SECONDS,
    SUM_TERM_SECONDS,
)
from .pairs import PairSet, RowPairs
from .parts import Part, classes, part_program, part_trace, split
from .planner import PlanReport
from .shuffle import ShuffledInference
from .symmetry.runs import MAX_PAIRS as ORBIT_MAX_PAIRS


def _hamming_moves(a: int, k: int) -> list[int]:
    return [b for b in range(k) if b != a]


def _one_entry_moves(a: int, k: int) -> list[int]:
    return [b for b in (a - 1, a + 1) if 0 <= b < k]


#: the moves of one entry's value that a built-in relation makes (``b`` from ``a``, among ``k`` values)
_MOVES = {"hamming": _hamming_moves, "one-entry": _one_entry_moves}


def _one_report_per_entry(parts: list[Part] | None, n: int) -> bool:
    """The parts are ``n`` single terms of one canonical form, each reading one entry, every entry read."""
    return (
        parts is not None
        and len(parts) == n
        and len(classes(parts)) == 1
        and all(len(p.entries) == 1 and len(p.leaves) == 1 for p in parts)
        and sorted(p.entries[0] for p in parts) == list(range(n))
    )


def counted_reports(program: Program, trace: Trace, backend: str) -> ShuffledInference | None:
    """The shuffle of one report per entry that ``trace`` (the terms of the program's sum) is, when it is one
    (module docstring): the terms independent, one entry each and every entry read, one canonical form, values
    0 and 1. None otherwise."""
    n = program.inputs.n
    terms = leaves(trace.shape)
    if len(terms) != n or any(term != IntShape(0, 1) for term in terms):
        return None
    parts = split(trace)
    if parts is None or not _one_report_per_entry(parts, n):
        return None
    local = part_program(program, parts[0], 0)
    compiled = compile_trace(local, part_trace(trace, parts[0]), backend, exact_floats=trace.circuit.exact_floats)
    return ShuffledInference(compiled, n, (1,), backend)


def _histograms(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """Every histogram of ``n`` entries over ``k`` values (``h_0 + ... + h_{k-1} = n``), lexicographically."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _histograms(n - first, k - 1):
            yield (first, *rest)


def _sorted_input(domain: Vector, h: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(itertools.chain.from_iterable((domain.lo + v,) * count for v, count in enumerate(h)))


def histogram_pairs(domain: Vector, relation: Relation) -> PairSet | None:
    """The neighbour pair ``(v(h), v(h) with its first entry of value a set to b)`` for every histogram ``h``, value
    ``a`` with ``h_a >= 1`` and move ``a -> b`` of the relation (module docstring); None for a relation without
    single-entry moves or past the pair limit. The inputs are refused (:func:`wmcdp.base.limits.reserve`) when
    they would not fit in the memory cap."""
    moves = _MOVES.get(relation.name) if relation.builtin else None
    k = len(domain.entry_values)
    histograms = math.comb(domain.n + k - 1, k - 1)
    if moves is None or histograms * k * (k - 1) > ORBIT_MAX_PAIRS:
        return None
    reserve(histograms * (domain.n + 8) * 8, f"the {histograms} sorted inputs of {domain.n} entries")
    inputs = {h: _sorted_input(domain, h) for h in _histograms(domain.n, k)}
    return PairSet(
        tuple(
            (x, _moved(x, sum(h[:a]), domain.lo + b))
            for h, x in inputs.items()
            for a in range(k)
            if h[a]
            for b in moves(a, k)
        )
    )


def _moved(x: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    """The input ``x`` with its entry ``i`` set to ``value``: one entry moved."""
    return (*x[:i], value, *x[i + 1 :])


def _sorted(x: Any) -> tuple[int, ...]:
    """The sorted input of ``x``'s histogram, whose row ``x`` has."""
    return tuple(sorted(x))


def counted_estimate(n: int, k: int, pairs: int) -> float:
    """Seconds of the plan: trace and split ``n`` terms, list the sorted inputs (``n`` cells per histogram),
    form the rows (``k`` chains of ``n`` steps of ``n + 1`` cells, and per histogram a convolution of each
    value's power into the row: ``(k - 1) C(n + k + 1, k + 1)`` multiply-adds in all, exact for ``k = 2``), and
    pass over the pairs' outputs."""
    histograms = math.comb(n + k - 1, k - 1)
    convolutions = k * n * (n + 1) + (k - 1) * math.comb(n + k + 1, k + 1)
    return (
        SUM_BASE_SECONDS
        + n * SUM_TERM_SECONDS
        + histograms * n * SUM_INPUT_CELL_SECONDS
        + convolutions * SUM_CONVOLVE_SECONDS
        + pairs * (n + 1) * SUM_PAIR_OUTPUT_SECONDS
    )


def counted_pairs(
    program: Program, trace: Trace, relation: Relation, exact: Any, backend: str
) -> tuple[RowPairs, PlanReport] | None:
    """The pair source of a program that counts independent identical reports (module docstring) and its plan,
    or None when the program is not one (or its relation moves more than one entry, or the rows would leave
    the range of extended floats)."""
    start = time.perf_counter()
    domain = program.inputs
    shuffled = counted_reports(program, trace, backend)
    pairs = histogram_pairs(domain, relation) if shuffled is not None else None
    detection = time.perf_counter() - start
    if shuffled is None or pairs is None:
        return None
    inputs = list(dict.fromkeys(x for x, _ in pairs))  # every sorted input v(h)
    try:
        arith, rows = shuffled.rows(inputs, exact)
    except WmcdpError:  # floats past the range of numpy.longdouble: the whole program's count decides
        return None
    source = RowPairs.of(arith, rows, inputs, pairs, shuffled.diagram_size, row_of=_sorted)
    n, k = domain.n, len(domain.entry_values)
    group = f"S_{n} on entries 0..{n - 1}, outputs unchanged"
    source.symmetry = f"{group}; {len(pairs)} pairs up to it"
    estimate = counted_estimate(n, k, len(pairs))
    claims = (
        (
            f"the output is a sum of {n} independent 0/1 reports, one per entry, one mechanism",
            "read off the traced circuit: the terms' cones share no gate, random bit or input entry, and their "
            "canonical forms are equal (isomorphic circuits, weights kept)",
        ),
        (
            "P(. | x) depends on x only through the histogram of its entries",
            "the count of independent identical reports is the convolution of one report's distribution per entry",
        ),
        (
            f"every {relation.name} pair has the rows of a listed pair",
            "by definition: a neighbour moves one entry from a value a to a value b, so the histogram loses a and "
            "gains b",
        ),
    )
    plan = PlanReport(
        "count-of-reports",
        f"{source.symmetry}; rows by convolution of one report",
        len(pairs),
        relation.count_pairs(domain),
        estimate,
        detection,
        considered=(
            ("exhaustive", None, f"not compiled: the whole diagram grows as n^2 = {size_text(n * n)} nodes"),
            ("count-of-reports", estimate, group),
        ),
        claims=claims,
        detection_work=len(trace.circuit.gates),
    )
    return source, plan


__all__ = ["counted_reports", "counted_pairs", "histogram_pairs", "counted_estimate"]
