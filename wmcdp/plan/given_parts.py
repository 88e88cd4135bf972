"""The parts of a program independent given the input, with their tables: what the given-input plan's notions share.

:func:`~.given_input.given_input_of` proves the split and counts each class's table ``P_c(. | u)`` once; pure ε
scans the pairs' largest ratios (:mod:`.given_input`), the notions over pairs multiply the parts' loss
distributions (:mod:`.given_pairs`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.limits import check
from ..compile import Compiled
from ..lang.program import Program, Trace
from .parts import Part
from .protocol import Claim

#: exact mode re-evaluates exactly every pair whose float log-ratio is within this (times one plus the number of
#: parts) of the largest: far above the rounding of a sum of the parts' float logs
MARGIN = 1e-9


@dataclass
class Table:
    """One class of equal parts: its compiled representative, the arithmetic of its count, ``P_c(y_c | u)`` as
    natural logs (rows: the values ``u`` of the part's entries, first entry most significant) and, in exact mode,
    the counted values themselves."""

    compiled: Compiled
    arith: Any
    logs: np.ndarray
    values: np.ndarray | None

    def exact_max(self, u: int, v: int) -> tuple[Any, int]:
        """``(max_y P(y | u) / P(y | v) over y with P(y | u) > 0, the first maximiser)``, exactly (inf for p/0):
        over the outputs whose float log-ratio is within :data:`MARGIN` of the largest (far above its rounding,
        so the exact maximiser is among them)."""
        assert self.values is not None
        ratios = _log_ratio_row(self.logs[u], self.logs[v])
        best: Any = None
        at = 0
        for y in np.flatnonzero(ratios >= np.max(ratios) - MARGIN):
            p, q = self.arith.probability(self.values[u, y]), self.arith.probability(self.values[v, y])
            ratio = math.inf if q == 0 else p / q
            if best is None or ratio > best or (ratio == best and p > self.arith.probability(self.values[u, at])):
                best, at = ratio, int(y)
        return best, at


@dataclass(frozen=True)
class Slot:
    """The parts of one class that read the same entries (in their local order): ``count`` of them."""

    table: int
    entries: tuple[int, ...]
    members: tuple[int, ...]


def _log_ratio_row(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``ln P(y | u) - ln P(y | v)`` from the two sides' logs: ``-inf`` where ``P(y | u) = 0``, ``+inf`` where only
    ``P(y | v)`` is."""
    with np.errstate(invalid="ignore"):
        d: np.ndarray = a - b
    d[a == -math.inf] = -math.inf
    return d


def _log_ratios(logs: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair ``(u, v)`` of rows, ``max_y ln P(y | u) - ln P(y | v)`` over ``y`` with ``P(y | u) > 0`` (``+inf``
    where only the denominator is 0) and its maximiser: of equal float ratios, the likeliest under ``u``."""
    a = logs[u]
    d = _log_ratio_row(a, logs[v])
    top = np.max(d, axis=1)
    at = np.argmax(np.where(d >= top[:, None], a, -math.inf), axis=1)
    return top, at


@dataclass
class GivenInput:
    """A program split into parts independent given the input, with each class's table, its neighbour ``pairs``,
    the plan's ``estimate`` (seconds, from counted work) and the ``seconds`` its analysis and counts took."""

    program: Program
    trace: Trace
    parts: list[Part]
    tables: list[Table]
    slots: list[Slot]
    pairs: int
    estimate: float
    seconds: float

    @property
    def cells(self) -> int:
        """(pair, part output) cells the scan covers: the plan's size beside the exhaustive triples."""
        sizes: list[int] = [len(s.members) * self.tables[s.table].compiled.shape.size for s in self.slots]
        return self.pairs * sum(sizes)

    def describe(self, bound: str = "max over neighbour pairs of the product of the parts' largest ratios") -> str:
        """The parts, which entries each group of them reads, and the ``bound`` (pure ε's by default)."""
        readers: dict[tuple[int, ...], int] = {}
        for part in self.parts:
            entries = tuple(sorted(part.entries))
            readers[entries] = readers.get(entries, 0) + 1
        shared = "; ".join(
            f"{count} read {'entry' if len(es) == 1 else 'entries'} {_entries_text(es)}"
            for es, count in readers.items()
        )
        return (
            f"{len(self.parts)} parts independent given the input, {len(self.tables)} distinct ({shared}); "
            f"bound = {bound}"
        )

    def claims(self, exact_run: bool, pairs: tuple[Claim, Claim] | None = None) -> tuple[Claim, ...]:
        """What the bound relies on, with how each was proved: pure ε's, or with ``pairs`` a notion over pairs'
        (how a pair's parts combine, and how its bound covers every pair) in their place."""
        combined, covered = pairs or (
            (
                "the largest ratio of a pair (x, x') is the product of the parts' largest ratios",
                "each part's output is chosen on its own: max_y prod_c r_c(y_c) = prod_c max_y_c r_c(y_c) for "
                "nonnegative factors (outputs with P_c(y_c | x) = 0 left out)",
            ),
            (
                "the bound is the largest ratio over every neighbour pair",
                f"every pair's float log-ratio computed; every pair within {MARGIN * (1 + len(self.parts)):.3g} of "
                "the largest evaluated again exactly"
                if exact_run
                else "every pair's float log-ratio computed; the witness of the largest recounted",
            ),
        )
        out = [
            (
                f"given the input, the {len(self.parts)} output parts are independent (P(y | x) is the product of "
                "the parts' P_c(y_c | x))",
                "read off the traced circuit: the parts' cones share no random bit and no gate that reads one "
                "(only input entries and gates over input bits)",
            ),
            combined,
        ]
        if len(self.tables) < len(self.parts):
            out.append(
                (
                    f"the parts fall into {len(self.tables)} class(es), one mechanism each",
                    "equal canonical forms of the parts' sub-circuits and output shapes (isomorphic circuits, weights "
                    "kept, the same output values)",
                )
            )
        out.append(covered)
        return tuple(out)

    def digits(self, codes: np.ndarray) -> np.ndarray:
        """The digits ``x_i - lo`` of input codes, one column per entry."""
        return digits_of(codes, self.program.inputs.n, len(self.program.inputs.entry_values))

    def local(self, digits: np.ndarray, slot: Slot) -> np.ndarray:
        """The row of the slot's table for inputs given by their digits (the slot's entries in their order)."""
        k = len(self.program.inputs.entry_values)
        out = np.zeros(len(digits), dtype=np.int64)
        for e in slot.entries:
            out = out * k + digits[:, e]
        return out

    def scan(
        self, pairs: Iterator[tuple[np.ndarray, np.ndarray]], margin: float
    ) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
        """``(largest float log-ratio, the pairs (x, x') of input codes within margin of it)`` over ``pairs``."""
        best = -math.inf
        kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for xa, xb in pairs:
            check("given-input plan: pairs")
            total = self.log_ratios(xa, xb)
            if not len(total):
                continue
            best = max(best, float(np.max(total)))
            kept = [(a[t >= best - margin], b[t >= best - margin], t[t >= best - margin]) for a, b, t in kept]
            close = total >= best - margin
            kept.append((xa[close], xb[close], total[close]))
        return best, [(a, b) for a, b, _ in kept if len(a)]

    def log_ratios(self, xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
        """Per pair of input codes, the sum over the parts of their largest log-ratios."""
        total = np.zeros(len(xa))
        da, db = self.digits(xa), self.digits(xb)
        for slot in self.slots:
            total += len(slot.members) * self.slot_ratios(slot, da, db)[0]
        return total

    def slot_ratios(self, slot: Slot, da: np.ndarray, db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pair (digits), the slot's largest log-ratio and its maximiser, each distinct pair of rows once."""
        u, v = self.local(da, slot), self.local(db, slot)
        logs = self.tables[slot.table].logs
        keys, inverse = np.unique(u * len(logs) + v, return_inverse=True)
        ratios, at = _log_ratios(logs, keys // len(logs), keys % len(logs))
        return ratios[inverse], at[inverse]


def _entries_text(entries: tuple[int, ...]) -> str:
    """``0..9`` for a run of four or more entries, else the entries listed."""
    if len(entries) > 3 and entries == tuple(range(entries[0], entries[-1] + 1)):
        return f"{entries[0]}..{entries[-1]}"
    return ", ".join(map(str, entries))


def digits_of(codes: np.ndarray, n: int, k: int) -> np.ndarray:
    """The digits ``x_i - lo`` of input codes (first entry most significant), one column per entry."""
    return np.stack([(codes // k ** (n - 1 - i)) % k for i in range(n)], axis=1).reshape(len(codes), n)


__all__ = ["MARGIN", "GivenInput", "Slot", "Table", "digits_of"]
