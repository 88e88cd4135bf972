"""The hub plan's search: branch-and-bound over how many entries of each type take each choice."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...base.limits import check
from ...base.numbers import ratio_times
from .arith import Arith

#: prune a branch only when its bound is below the best log-ratio by more than this (float rounding of the bound)
MARGIN = 1e-9


@dataclass(frozen=True)
class Choice:
    """A pair of entry values ``(x_e, x'_e)`` (offsets into the entry's values; with outputs factored by entry,
    :mod:`.owned`, ``value * size + offset`` with the entry's own output value) and, per hub class, the part's
    probabilities under each (in the arithmetic of the run) and their float logs."""

    u: int
    u_prime: int
    a: tuple[Any, ...]
    b: tuple[Any, ...]
    la: np.ndarray
    lb: np.ndarray


@dataclass(frozen=True)
class Group:
    """``count`` entries (``entries``) that each take one of ``choices``; only how many take each matters."""

    entries: tuple[int, ...]
    choices: tuple[Choice, ...]


@dataclass
class LargestRatio:
    """The largest ratio found: its float log, its exact numerator and denominator, and its witness."""

    log: float = -math.inf
    num: Any = None
    den: Any = None
    x: dict[int, int] | None = None
    x_prime: dict[int, int] | None = None
    y: Any = None
    leaves: int = 0  # multisets evaluated

    def ratio(self) -> Any:
        """``num / den`` of the best ratio (inf for a zero denominator)."""
        return math.inf if self.den == 0 else self.num / self.den

    def beats(self, num: Any, den: Any, arith: Arith) -> bool:
        """Whether ``num / den`` is larger than the best (exactly; 0/0 never is)."""
        if self.num is None:
            return bool(num != arith.zero or den != arith.zero)
        if num == arith.zero:
            return False
        if arith.exact:
            return bool(self.den != 0 and (den == 0 or num * self.den > self.num * den))
        return bool(num - den > self.num - self.den)


def _log_ratio(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """``la - lb`` per hub class with ``-inf`` where the numerator is 0 and ``+inf`` where only the denominator is."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = la - lb
    out[la == -math.inf] = -math.inf
    return out


def _dominated(c: Choice, by: Choice, arith: Arith) -> bool:
    """Every part probability under ``x`` at most ``by``'s, under ``x'`` at least ``by``'s (per hub class)."""
    if arith.exact:
        return all(p <= q for p, q in zip(c.a, by.a)) and all(p >= q for p, q in zip(c.b, by.b))
    return bool(np.all(c.la <= by.la) and np.all(c.lb >= by.lb))


def undominated(choices: Sequence[Choice], arith: Arith) -> tuple[Choice, ...]:
    """The choices no other choice dominates (of equal ones, the first)."""
    out: list[Choice] = []
    for i, c in enumerate(choices):
        if not any(
            _dominated(c, d, arith) and (not _dominated(d, c, arith) or j < i) for j, d in enumerate(choices) if j != i
        ):
            out.append(c)
    return tuple(out)


class Search:
    """Branch-and-bound over how many entries of each group take each choice (module docstring)."""

    def __init__(self, weights: Sequence[Any], arith: Arith, best: LargestRatio) -> None:
        self.weights, self.arith, self.best = list(weights), arith, best
        self.log_weights = np.array([arith.log(w) for w in weights])

    def run(self, groups: Sequence[Group], y: Any) -> None:
        groups = [g for g in groups if g.entries]
        lr = [[_log_ratio(c.la, c.lb) for c in g.choices] for g in groups]
        suffix = [[np.maximum.reduce(row[j:]) for j in range(len(row))] for row in lr]
        tail = [np.zeros(len(self.weights)) for _ in range(len(groups) + 1)]
        for g in range(len(groups) - 1, -1, -1):
            tail[g] = _plus(tail[g + 1], _times(len(groups[g].entries), suffix[g][0]))
        self._groups, self._suffix, self._tail, self._y = groups, suffix, tail, y
        self._last = _spread(groups[-1]) if groups else None
        counts: list[list[int]] = [[0] * len(g.choices) for g in groups]
        self._visit(0, 0, len(groups[0].entries) if groups else 0, self.log_weights, self.log_weights, counts)

    def _visit(self, g: int, j: int, left: int, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        groups = self._groups
        if g == len(groups):
            self.best.leaves += 1
            self._leaf(la, lb, counts)
            return
        rest = _plus(_plus(_log_ratio(la, lb), _times(left, self._suffix[g][j])), self._tail[g + 1])
        if self._pruned(float(np.max(rest)), g, j, left, counts):
            return
        if g == len(groups) - 1 and j == 0 and self._last is not None:
            self._last_group(la, lb, counts)
            return
        choice = groups[g].choices[j]
        last = j == len(groups[g].choices) - 1
        for c in [left] if last else range(left, -1, -1):
            check("hub plan: search")
            counts[g][j] = c
            na, nb = la + _times(c, choice.la), lb + _times(c, choice.lb)
            if not last:
                self._visit(g, j + 1, left - c, na, nb, counts)
            elif g + 1 < len(groups):
                self._visit(g + 1, 0, len(groups[g + 1].entries), na, nb, counts)
            else:
                self._visit(g + 1, 0, 0, na, nb, counts)
        counts[g][j] = 0

    def _pruned(self, bound: float, g: int, j: int, left: int, counts: list[list[int]]) -> bool:
        """Whether no completion of ``counts`` (group ``g`` decided up to choice ``j``, ``left`` of its entries
        open) can beat the best ratio: its float bound (in logs) is below it by more than :data:`MARGIN`, or,
        within the margin, the bound computed exactly is at most the best (floats: the float bound)."""
        best = self.best
        if best.num is None or bound > best.log + MARGIN:
            return False
        if bound < best.log - MARGIN:
            return True
        if not self.arith.exact:
            return bound <= best.log
        return bool(self._exact_bound(g, j, left, counts) <= best.ratio())

    def _exact_bound(self, g: int, j: int, left: int, counts: list[list[int]]) -> Any:
        """``max_h (a_h / b_h) * prod_open max ratio_h``: the decided counts' ratio per hub class, each open entry
        at its group's largest ratio in that class (Fractions; inf where only a denominator is 0)."""
        out: Any = Fraction(0)
        for k, w in enumerate(self.weights):
            a, b = w, w
            for gi, (group, row) in enumerate(zip(self._groups[: g + 1], counts)):
                for ji, (choice, c) in enumerate(zip(group.choices, row)):
                    if c and (gi < g or ji < j):
                        a, b = a * choice.a[k] ** c, b * choice.b[k] ** c
            if a == 0:
                continue
            if b == 0:
                return math.inf
            value = ratio_times(a / b, _power(_most(self._groups[g].choices[j:], k), left))
            for group in self._groups[g + 1 :]:
                value = ratio_times(value, _power(_most(group.choices, k), len(group.entries)))
            out = max(out, value)
        return out

    def _last_group(self, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        """Every count vector of the last group at once (:func:`_spread`): their log-ratios in floats, and the
        vectors within :data:`MARGIN` of the best, largest first, counted as leaves (exactly in exact mode)."""
        assert self._last is not None
        rows, row_la, row_lb = self._last
        num, den = la + row_la, lb + row_lb  # logs: no +inf, so no nan
        logs = _log_ratio(np.logaddexp.reduce(num, axis=1), np.logaddexp.reduce(den, axis=1))
        self.best.leaves += len(rows)
        for i in np.argsort(-logs, kind="stable"):
            if self.best.num is not None and not logs[i] >= self.best.log - MARGIN:
                break
            counts[-1] = [int(c) for c in rows[i]]
            self._leaf(num[i], den[i], counts)
        counts[-1] = [0] * rows.shape[1]

    def _leaf(self, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        best, arith = self.best, self.arith
        log = _log_ratio(np.array([np.logaddexp.reduce(la)]), np.array([np.logaddexp.reduce(lb)]))[0]
        if best.num is not None and not log >= best.log - MARGIN:
            return
        num, den = self._totals(counts)
        if best.beats(num, den, arith):
            best.log, best.num, best.den, best.y = float(log), num, den, self._y
            best.x, best.x_prime = {}, {}
            for group, row in zip(self._groups, counts):
                entries = iter(group.entries)
                for choice, c in zip(group.choices, row):
                    for e in itertools.islice(entries, c):
                        best.x[e], best.x_prime[e] = choice.u, choice.u_prime

    def _totals(self, counts: list[list[int]]) -> tuple[Any, Any]:
        """``sum_h P(h) prod_e P_e(y | x_e, h)`` for x and for x' (exactly, or as logs)."""
        arith = self.arith
        num, den = arith.zero, arith.zero
        for k, w in enumerate(self.weights):
            a, b = w, w
            for group, row in zip(self._groups, counts):
                for choice, c in zip(group.choices, row):
                    if c:
                        a = arith.mul(a, arith.power(choice.a[k], c))
                        b = arith.mul(b, arith.power(choice.b[k], c))
            num, den = arith.add(num, a), arith.add(den, b)
        return num, den


#: the largest number of (count vector, choice, hub class) triples the last group is evaluated on at once
SPREAD = 1 << 22


def _spread(group: Group) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Every way ``group``'s entries take its choices (count vectors summing to its size, as rows) with the
    float logs of their parts' products per hub class under x and under x'; None when there are more than
    :data:`SPREAD` numbers to hold."""
    n, k = len(group.entries), len(group.choices)
    classes = len(group.choices[0].la)
    if math.comb(n + k - 1, k - 1) * k * classes > SPREAD:
        return None
    rows = np.array([_counts(bars, n, k) for bars in itertools.combinations(range(n + k - 1), k - 1)], dtype=np.int64)
    logs = []
    for side in (np.array([c.la for c in group.choices]), np.array([c.lb for c in group.choices])):
        with np.errstate(invalid="ignore"):
            terms = rows[:, :, None] * side[None, :, :]
        terms[np.broadcast_to(rows[:, :, None] == 0, terms.shape)] = 0.0  # 0 * log 0 = 0: a choice no entry takes
        logs.append(terms.sum(axis=1))
    return rows, logs[0], logs[1]


def _counts(bars: tuple[int, ...], n: int, k: int) -> list[int]:
    """The count vector of ``n`` entries over ``k`` choices that the bars at ``bars`` (stars and bars) give."""
    edges = [-1, *bars, n + k - 1]
    return [edges[i + 1] - edges[i] - 1 for i in range(k)]


def _most(choices: Sequence[Choice], k: int) -> Any:
    """The largest ratio ``a / b`` of ``choices`` in hub class ``k`` (0 for ``a = 0``, inf for ``a > 0 = b``)."""
    return max((math.inf if c.b[k] == 0 else c.a[k] / c.b[k]) if c.a[k] else Fraction(0) for c in choices)


def _power(r: Any, c: int) -> Any:
    """``r^c`` with ``inf^0 = 1``."""
    return 1 if c == 0 else (math.inf if r == math.inf else r**c)


def _times(c: int, v: np.ndarray) -> np.ndarray:
    """``c * v`` with ``0 * inf = 0``."""
    return np.zeros_like(v) if c == 0 else c * v


def _plus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` with ``-inf + inf = -inf`` (a class no completion reaches stays out of the bound)."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = a + b
    out[np.isnan(out)] = -math.inf
    return out
