"""The maximum likelihood ratio over chunks of a privacy set, and the witness that attains it.

:class:`RatioScan` is Algorithm 2's loop body, vectorised: it takes rows ``P(ys | x)`` and
``P(ys | x')`` for many pairs at once, each pair with its position in the privacy set's
order, and keeps

* the **value**: the true maximum of ``P(y|x) / P(y|x')`` over everything seen (exact in
  exact mode; the largest computed float otherwise). ``P(y|x) > 0 = P(y|x')`` is an
  infinite ratio; ``0/0`` triples are skipped;
* the **witness**: the first triple in the set's order whose ratio equals the value — in
  float mode, whose ratio is within a relative ``1e-12`` of it (:data:`TOLERANCE`), so
  that rounding noise does not move the witness. Tolerances choose witnesses, never values.

In exact mode a float pass filters the candidates (ratios within ``1e-9`` of the running
maximum, a bound far above float error) and exact integer cross-multiplication decides among
them: ``a/b > c/d`` exactly when ``a*d > c*b``. Numerators below ``2**26`` (``2**31``) are
multiplied in float64 (int64) without rounding; larger ones as Python integers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .numbers import ln_ratio

#: float ratios within this relative distance of the maximum count as ties (for the witness only)
TOLERANCE = 1e-12
#: the float filter of exact mode keeps ratios within this relative distance of the maximum
EXACT_FILTER = 1e-9


class RatioScan:
    """The running maximum ratio and its first witness; see the module docstring."""

    def __init__(self, arith: Any) -> None:
        self.arith = arith
        self.value: Any = None        # float ratio, float log-ratio, or an exact (a, b) pair
        self.key: tuple[int, int] | None = None   # (position of the pair, output position) of the witness
        self._ab: tuple[Any, Any] | None = None  # P(y|x), P(y|x') at the witness

    # -- float modes --------------------------------------------------------------------------
    def _float_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.arith.log:
                r = a - b
                r[(a == -np.inf) & (b == -np.inf)] = np.nan
            else:
                r = a / b
        return r

    def _threshold(self, best: float) -> float:
        if self.arith.log:
            return best - TOLERANCE * max(1.0, abs(best)) if math.isfinite(best) else best
        return best * (1 - TOLERANCE) if math.isfinite(best) else best

    def update(self, a: np.ndarray, b: np.ndarray, keys: np.ndarray, y0: int = 0) -> None:
        """Scan the triples ``(pair k, output y0 + j)`` with ``a[k, j] = P(y|x)`` and ``b[k, j] = P(y|x')``.

        ``keys[k]`` is pair ``k``'s position in the set's order (smaller comes first).
        """
        if a.size == 0:
            return
        if self.arith.exact:
            self._update_exact(a, b, keys, y0)
            return
        r = self._float_values(a, b)
        if np.isnan(r).all():
            return
        m = float(np.nanmax(r))
        if self.value is not None and m < self._threshold(self.value):
            return
        if self.value is None or m > self.value:
            if self.key is not None and self._witness_value() < self._threshold(m):
                self.key = None
            self.value = m
        with np.errstate(invalid="ignore"):
            mask = r >= self._threshold(self.value)
        self._take_first(mask, keys, y0, a, b)

    def _witness_value(self) -> float:
        a, b = self._ab  # type: ignore[misc]
        return float(self._float_values(np.array([a]), np.array([b]))[0])

    def _take_first(self, mask: np.ndarray, keys: np.ndarray, y0: int, a: np.ndarray, b: np.ndarray) -> None:
        """Make the first triple of ``mask`` (in the set's order) the witness if it comes before the current one."""
        rows = np.flatnonzero(mask.any(axis=1))
        if len(rows) == 0:
            return
        row = int(rows[np.argmin(keys[rows])])
        col = int(np.argmax(mask[row]))
        key = (int(keys[row]), y0 + col)
        if self.key is None or key < self.key:
            self.key = key
            self._ab = (a[row, col], b[row, col])

    # -- exact mode -------------------------------------------------------------------------
    def _filter(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Approximate log2 ratios (nan for 0/0, +inf for x/0)."""
        if a.dtype == object:
            la = _log2_ints(a)
            lb = _log2_ints(b)
        else:
            with np.errstate(divide="ignore"):
                la, lb = np.log2(a.astype(np.float64)), np.log2(b.astype(np.float64))
        with np.errstate(invalid="ignore"):
            r = la - lb
        r[(a == 0) & (b == 0)] = np.nan
        r[(a != 0) & (b == 0)] = np.inf
        return r

    def _update_exact(self, a: np.ndarray, b: np.ndarray, keys: np.ndarray, y0: int) -> None:
        r = self._filter(a, b)
        if np.isnan(r).all():
            return
        m = float(np.nanmax(r))
        best_log = None if self.value is None else _log2_pair(*self.value)
        floor = m if best_log is None else max(m, best_log)
        if best_log is not None and m < best_log - _slack(best_log):
            return
        with np.errstate(invalid="ignore"):
            candidates = np.argwhere(r >= floor - _slack(floor))
        ca = a[candidates[:, 0], candidates[:, 1]]
        cb = b[candidates[:, 0], candidates[:, 1]]
        if self.value is None:
            k = int(np.argmax(r[candidates[:, 0], candidates[:, 1]]))
            self.value = (ca[k], cb[k])
            self.key = None
        while True:  # the exact maximum among the candidates and the running one
            sign = _compare(ca, cb, *self.value)
            greater = np.flatnonzero(sign > 0)
            if len(greater) == 0:
                break
            k = int(greater[np.argmax(r[candidates[greater, 0], candidates[greater, 1]])])
            self.value = (ca[k], cb[k])
            self.key = None
        ties = candidates[sign == 0]
        if len(ties):
            mask = np.zeros(a.shape, dtype=bool)
            mask[ties[:, 0], ties[:, 1]] = True
            self._take_first(mask, keys, y0, a, b)

    # -- results --------------------------------------------------------------------------
    @property
    def found(self) -> bool:
        return self.value is not None

    def epsilon_and_ratio(self) -> tuple[float, float | Fraction]:
        """``(epsilon, ratio)``: the natural log of the maximum ratio (correctly rounded when exact) and the ratio."""
        if self.arith.exact:
            a, b = (int(v) for v in self.value)  # type: ignore[misc]
            if b == 0:
                return math.inf, math.inf
            if a == 0:
                return -math.inf, Fraction(0)
            return ln_ratio(a, b), Fraction(a, b)
        if self.arith.log:
            d = self.value
            return d, (math.exp(d) if d < 709.78 else math.inf)
        r = self.value
        if r == 0:
            return -math.inf, 0.0
        return (math.log(r) if math.isfinite(r) else math.inf), r

    def witness_probabilities(self) -> tuple[Any, Any]:
        a, b = self._ab  # type: ignore[misc]
        return self.arith.probability(a), self.arith.probability(b)


def _slack(log2_value: float) -> float:
    return EXACT_FILTER * max(1.0, abs(log2_value)) if math.isfinite(log2_value) else 0.0


def _log2_pair(a: Any, b: Any) -> float:
    a, b = int(a), int(b)
    if b == 0:
        return math.inf
    if a == 0:
        return -math.inf
    return math.log2(a) - math.log2(b)


def _log2_ints(values: np.ndarray) -> np.ndarray:
    flat = values.reshape(-1)
    out = np.fromiter((math.log2(int(v)) if v else -math.inf for v in flat), dtype=np.float64, count=len(flat))
    return out.reshape(values.shape)


def _compare(a: np.ndarray, b: np.ndarray, a_star: Any, b_star: Any) -> np.ndarray:
    """``sign(a/b - a*/b*)`` elementwise and exactly (``b`` or ``b*`` may be 0 with the numerator > 0: +inf)."""
    a_star, b_star = int(a_star), int(b_star)
    if a.dtype == np.float64 and max(a_star, b_star, *([0] if a.size == 0 else [a.max(), b.max()])) < 2 ** 26:
        return np.sign(a * float(b_star) - float(a_star) * b)
    if a.dtype == np.int64 and max(a_star, b_star, *([0] if a.size == 0 else [int(a.max()), int(b.max())])) < 2 ** 31:
        return np.sign(a * np.int64(b_star) - np.int64(a_star) * b)
    ia = a.astype(object)
    ib = b.astype(object)
    diff = ia * b_star - ib * a_star
    return np.fromiter(((d > 0) - (d < 0) for d in diff), dtype=np.int64, count=len(diff))


__all__ = ["RatioScan", "TOLERANCE"]
