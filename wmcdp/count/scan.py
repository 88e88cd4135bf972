"""The maximum likelihood ratio over blocks of a privacy set, and the witness that attains it.

:class:`RatioScan` is Algorithm 2's loop body, vectorised. It is offered *blocks*: two
arrays ``a[...] = P(y|x)`` and ``b[...] = P(y|x')`` of the same shape, whose positions in C
order follow the privacy set's order of triples, and it keeps

* the **value**: the true maximum of ``P(y|x) / P(y|x')`` over everything offered (exact in
  exact mode; the largest computed float otherwise). ``P(y|x) > 0 = P(y|x')`` is an
  infinite ratio; ``0/0`` triples are skipped;
* the **witness**: the first triple in the set's order whose ratio equals the value — in
  float mode, whose ratio is within a relative ``1e-12`` of it (:data:`TOLERANCE`), so
  that rounding noise does not move the witness. Tolerances choose witnesses, never values.

A block may be offered in both directions at once (``b/a`` for the pairs ``(x', x)``): one
division serves both, since ``max(b/a) = 1 / min(a/b)``.

In exact mode a float pass filters (ratios within ``1e-9`` of the running maximum, far above
float error) and integer cross-multiplication decides: ``a/b > c/d`` exactly when
``a*d > c*b``. Numerators below ``2**26`` (``2**31``) are multiplied in float64 (int64)
without rounding; larger ones as Python integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..base.numbers import ln_ratio
from .floats import Linear

#: what a :class:`RatioScan` sends back from a worker: its value, witness key and witness (P(y|x), P(y|x'))
ScanState = tuple[Any, tuple[int, int] | None, tuple[Any, Any] | None]

#: float ratios within this relative distance of the maximum count as ties (for the witness only)
TOLERANCE = 1e-12
#: the float filter of exact mode keeps ratios within this relative distance of the maximum
EXACT_FILTER = 1e-9

#: maps a position of a block (C order) to (key of the pair in the set's order, output position)
Position = Callable[[int], tuple[int, int]]


def ratio_scan(arith: Any) -> Any:
    """The scan of a run's number system: a :class:`RatioScan`, or for a parametric run the collector of its
    distinct ratio functions (:class:`wmcdp.count.parametric.EnvelopeScan`)."""
    return arith.scan() if getattr(arith, "interned", False) else RatioScan(arith)


class RatioScan:
    """The running maximum ratio and its first witness; see the module docstring."""

    def __init__(self, arith: Any) -> None:
        self.arith = arith
        self.value: Any = None  # float ratio, float log-ratio, or an exact (a, b) pair
        self.key: tuple[int, int] | None = None  # (pair key, output position) of the witness
        self._ab: tuple[Any, Any] | None = None  # P(y|x), P(y|x') at the witness (arith values)
        self._buffer: np.ndarray | None = None

    # -- offering blocks ------------------------------------------------------------------
    def offer(
        self,
        a: np.ndarray,
        b: np.ndarray,
        position: Position,
        reverse: Position | None = None,
        first_keys: tuple[int, int] = (-1, -1),
    ) -> None:
        """Scan the ratios ``a/b`` (pairs ``(x, x')`` at ``position``) and, with ``reverse``, ``b/a``.

        ``first_keys`` are the smallest pair keys of the two directions (a witness search is
        skipped when it cannot come before the current witness).
        """
        if a.size == 0:
            return
        if self.arith.exact:
            self._offer_exact(a, b, position, first_keys[0])
            if reverse is not None:
                self._offer_exact(b, a, reverse, first_keys[1])
            return
        log = self.arith is not Linear  # Extended: compare natural-log ratios (exponents subtract exactly)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if log:
                r = self.arith.log_ratio(a, b)
            else:  # 0/0 is nan: fmax and fmin skip it
                r = np.divide(a, b, out=self._scratch(np.broadcast_shapes(a.shape, b.shape)))
        top = np.fmax.reduce(r, axis=None)
        self._offer_float(top, lambda thr: r >= thr, position, first_keys[0], a, b)
        if reverse is not None:
            low = np.fmin.reduce(r, axis=None)
            if log:
                rev_top = -low
            else:
                with np.errstate(divide="ignore"):
                    rev_top = 1.0 / low if not np.isnan(low) else np.nan
            self._offer_float(
                rev_top, lambda thr: (-r >= thr) if log else _reverse_mask(r, thr), reverse, first_keys[1], b, a
            )

    def _scratch(self, shape: tuple[int, ...]) -> np.ndarray:
        """A buffer for the ratios of a block, reused from block to block (no fresh memory each time)."""
        if self._buffer is None or self._buffer.size < math.prod(shape):
            self._buffer = np.empty(math.prod(shape))
        return self._buffer[: math.prod(shape)].reshape(shape)

    @property
    def _logs(self) -> bool:
        return self.arith is not Linear

    def _threshold(self, best: float) -> float:
        if not math.isfinite(best):
            return best
        if self._logs:
            return best - TOLERANCE * max(1.0, abs(best))
        return best * (1 - TOLERANCE)

    def _offer_float(
        self,
        top: float,
        mask_at: Callable[[float], np.ndarray],
        position: Position,
        first_key: int,
        a: np.ndarray,
        b: np.ndarray,
    ) -> None:
        if math.isnan(top):  # every triple is 0/0
            return
        top = float(top)
        if self.value is not None and top < self._threshold(self.value):
            return
        if self.value is None or top > self.value:
            self.value = top
            if self.key is not None and self._witness_value() < self._threshold(top):
                self.key = None
        if self.key is not None and first_key > self.key[0]:
            return  # every tie here comes after the current witness
        with np.errstate(invalid="ignore", divide="ignore"):
            mask = mask_at(self._threshold(self.value))
        self._take_first(mask, position, a, b)

    def _witness_value(self) -> float:
        a, b = self._ab  # type: ignore[misc]
        if self._logs:
            return float(self.arith.log_ratio(np.array([a]), np.array([b]))[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.float64(a) / np.float64(b))

    def _take_first(self, mask: np.ndarray, position: Position, a: np.ndarray, b: np.ndarray) -> None:
        """Make the first marked triple (in C order = the set's order) the witness if it comes first."""
        flat = mask.reshape(-1)
        k = int(np.argmax(flat))
        if not flat[k]:
            return
        key = position(k)
        if self.key is None or key < self.key:
            self.key = key
            self._ab = (a.reshape(-1)[k], b.reshape(-1)[k])

    # -- exact mode -------------------------------------------------------------------------
    def _offer_exact(self, a: np.ndarray, b: np.ndarray, position: Position, first_key: int) -> None:
        if _products_exact(a, b):
            self._offer_products(a, b, position, first_key)
            return
        a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
        r = _log2_ratios(a, b)
        if np.isnan(r).all():
            return
        top = float(np.fmax.reduce(r))
        best = None if self.value is None else _log2_pair(*self.value)
        if best is not None and top < best - _slack(best):
            return
        floor = top if best is None else max(top, best)
        with np.errstate(invalid="ignore"):
            candidates = np.flatnonzero(r >= floor - _slack(floor))
        ca, cb = a[candidates], b[candidates]
        if self.value is None:
            k = int(np.argmax(r[candidates]))
            self.value = (ca[k], cb[k])
            self.key = None
        while True:  # the exact maximum among the candidates and the running one
            sign = _compare(ca, cb, *self.value)
            greater = np.flatnonzero(sign > 0)
            if len(greater) == 0:
                break
            k = int(greater[np.argmax(r[candidates[greater]])])
            self.value = (ca[k], cb[k])
            self.key = None
        if self.key is not None and first_key > self.key[0]:
            return
        ties = candidates[sign == 0]
        if len(ties):
            key = position(int(ties[0]))
            if self.key is None or key < self.key:
                self.key = key
                self._ab = (a[ties[0]], b[ties[0]])

    def _offer_products(self, a: np.ndarray, b: np.ndarray, position: Position, first_key: int) -> None:
        """Exact mode when every product of two numerators is exact in the array's dtype: compare
        the whole block with the running maximum by ``a * b* - a* * b`` (no filtering)."""
        both_zero = (a == 0) & (b == 0)
        if both_zero.all():
            return
        if self.value is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(both_zero, -np.inf, a / b)
            k = np.unravel_index(int(np.argmax(r)), r.shape)
            self.value = (a[k], b[k])
            self.key = None
        while True:
            best_a, best_b = self.value
            s = a * best_b - best_a * b
            s[both_zero] = -1
            top = s.max()
            if top <= 0:
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(s > 0, a / b, -np.inf)
            k = np.unravel_index(int(np.argmax(r)), r.shape)
            self.value = (a[k], b[k])
            self.key = None
        if self.key is not None and first_key > self.key[0]:
            return
        self._take_first(s == 0, position, a, b)

    def merge(self, other: RatioScan) -> None:
        """Take in a scan of other blocks (another worker's stripes): the larger value; among equal
        values (float: within the tolerance), the witness that comes first."""
        if other.value is None:
            return
        if self.value is None:
            self.value, self.key, self._ab = other.value, other.key, other._ab
            return
        if self.arith.exact:
            sign = int(
                _compare(
                    np.array([other.value[0]], dtype=object), np.array([other.value[1]], dtype=object), *self.value
                )[0]
            )
            if sign > 0 or (sign == 0 and other.key < self.key):  # type: ignore[operator]
                self.value, self.key, self._ab = other.value, other.key, other._ab
            return
        top = max(self.value, other.value)
        keep = [(s.key, s._ab) for s in (self, other) if s.value >= self._threshold(top)]
        self.value = top
        self.key, self._ab = min(keep, key=lambda item: item[0])  # type: ignore[arg-type, return-value]

    def state(self) -> ScanState:
        """What a worker sends back (plain values)."""
        return self.value, self.key, self._ab

    @classmethod
    def of_state(cls, arith: Any, state: ScanState) -> RatioScan:
        scan = cls(arith)
        scan.value, scan.key, scan._ab = state
        return scan

    # -- results --------------------------------------------------------------------------
    @property
    def found(self) -> bool:
        return self.key is not None

    def epsilon_and_ratio(self) -> tuple[float, float | Fraction]:
        """``(epsilon, ratio)``: the natural log of the maximum ratio (correctly rounded when exact) and the ratio."""
        if self.arith.exact:
            a, b = (_fraction(v) for v in self.value)
            if b == 0:
                return math.inf, math.inf
            if a == 0:
                return -math.inf, Fraction(0)
            ratio = a / b
            return ln_ratio(ratio.numerator, ratio.denominator), ratio
        if self._logs:
            d = self.value
            return d, (math.exp(d) if d < 709.78 else math.inf)
        r = self.value
        if r == 0:
            return -math.inf, 0.0
        return (math.log(r) if math.isfinite(r) else math.inf), r

    def witness_probabilities(self) -> tuple[Any, Any]:
        a, b = self._ab  # type: ignore[misc]
        return self.arith.probability(a), self.arith.probability(b)

    def witness_logs(self) -> tuple[float | None, float | None]:
        """Natural logs of the witness's probabilities in float mode (they may be far below the float range);
        None in exact mode (the probabilities themselves are exact)."""
        if self.arith.exact:
            return None, None
        a, b = self._ab  # type: ignore[misc]
        return self.arith.log_probability(a), self.arith.log_probability(b)


def _reverse_mask(r: np.ndarray, threshold: float) -> np.ndarray:
    """``b/a >= threshold`` from ``r = a/b`` (``a = 0 < b`` gives an infinite reverse ratio)."""
    mask: np.ndarray = r == 0 if threshold == math.inf else r <= 1.0 / threshold
    return mask


def _products_exact(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a * d - c * b`` is exact for numerators of these arrays: float64 below 2^26, int64 below 2^31."""
    if a.size == 0:
        return False
    if a.dtype == np.float64:
        return max(float(a.max()), float(b.max())) < 2**26
    if a.dtype == np.int64:
        return max(int(a.max()), int(b.max())) < 2**31
    return False


def _slack(log2_value: float) -> float:
    return EXACT_FILTER * max(1.0, abs(log2_value)) if math.isfinite(log2_value) else 0.0


def _fraction(v: Any) -> Fraction:
    """An exact value (an integer numerator, a float64 holding one, or an mpq) as a Fraction."""
    if isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and float(v).is_integer()):
        return Fraction(int(v))
    return Fraction(int(v.numerator), int(v.denominator))


def _log2_exact(v: Any) -> float:
    if not v:
        return -math.inf
    if isinstance(v, gmpy2.mpq(0).__class__):
        return math.log2(int(v.numerator)) - math.log2(int(v.denominator))
    return math.log2(int(v))


def _log2_pair(a: Any, b: Any) -> float:
    if not b:
        return math.inf
    if not a:
        return -math.inf
    return _log2_exact(a) - _log2_exact(b)


def _log2_ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Approximate ``log2(a/b)`` of exact numerators: nan for 0/0, +inf for x/0, -inf for 0/x."""
    if a.dtype == object:
        la = np.fromiter((_log2_exact(v) for v in a), dtype=np.float64, count=len(a))
        lb = np.fromiter((_log2_exact(v) for v in b), dtype=np.float64, count=len(b))
    else:
        with np.errstate(divide="ignore"):
            la, lb = np.log2(a.astype(np.float64)), np.log2(b.astype(np.float64))
    with np.errstate(invalid="ignore"):
        r = la - lb
    both = (a == 0) & (b == 0)
    r[both] = np.nan
    return r


def _compare(a: np.ndarray, b: np.ndarray, a_star: Any, b_star: Any) -> np.ndarray:
    """``sign(a/b - a*/b*)`` elementwise and exactly (a zero denominator with a positive numerator is +inf)."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype == np.float64 and max(float(a_star), float(b_star), float(a.max()), float(b.max())) < 2**26:
        return np.sign(a * float(b_star) - float(a_star) * b).astype(np.int64)
    if a.dtype == np.int64 and max(int(a_star), int(b_star), int(a.max()), int(b.max())) < 2**31:
        signs: np.ndarray = np.sign(a * np.int64(b_star) - np.int64(a_star) * b)
        return signs
    a_star, b_star = _exact(a_star), _exact(b_star)
    a = a.astype(np.int64) if a.dtype == np.float64 else a
    b = b.astype(np.int64) if b.dtype == np.float64 else b
    diff = [_exact(p) * b_star - _exact(q) * a_star for p, q in zip(a, b)]
    return np.fromiter((int(d > 0) - int(d < 0) for d in diff), dtype=np.int64, count=len(diff))


def _exact(v: Any) -> Any:
    """A Python int (or an mpq) for an exact value held as a numpy number, an int or an mpq."""
    if isinstance(v, (np.floating, float)):
        return int(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


__all__ = ["RatioScan", "TOLERANCE", "Position"]
