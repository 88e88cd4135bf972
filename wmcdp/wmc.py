"""Weighted model counting (paper eq. 4), generic over the number type.

``WMC(phi, w) = sum over models m of phi of prod_{l in m} w(l)``.

Two semirings carry the numbers:

* :class:`LogSemiring` (floats, the fast default) holds natural logarithms of
  probabilities, so products of many small weights never underflow (randomized
  response with n = 1000 has probabilities near 0.2^1000) and ``epsilon`` is a plain
  difference of logs.
* :class:`ExactSemiring` holds :class:`fractions.Fraction` values: every probability
  and ratio is an exact rational.

Variables of a conditioned diagram are either random (weight ``p`` / ``1 - p``, which
sum to one, so a variable a path skips contributes a factor 1 and no smoothing is
needed) or free output bits. A free bit becomes a numpy axis: one traversal then yields
the whole output distribution of an input (``WMC(phi | x, y)`` for every ``y``).
:class:`CountContext` holds the weights, the axes and the cache shared across outputs.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from .numbers import Number

NEG_INF = float("-inf")


class LogSemiring:
    """Probabilities as natural logs in float64."""

    exact = False
    zero = NEG_INF
    one = 0.0
    dtype = np.float64
    #: ratios whose logs differ by at most this much count as ties (first one wins)
    tolerance = 1e-12

    @staticmethod
    def weight(p: Number) -> float:
        return math.log(p) if p > 0 else NEG_INF

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        if type(a) is float and type(b) is float:
            if a == NEG_INF:
                return b
            if b == NEG_INF:
                return a
            m = a if a > b else b
            return m + math.log1p(math.exp(-abs(a - b)))
        return np.logaddexp(a, b)

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def to_prob(v: Any) -> float:
        return math.exp(v)

    @staticmethod
    def total(values: np.ndarray) -> float:
        """Sum of probabilities, returned in log form."""
        if len(values) == 0:
            return NEG_INF
        m = float(np.max(values))
        if m == NEG_INF:
            return NEG_INF
        return m + math.log(float(np.sum(np.exp(values - m))))

    @classmethod
    def best_ratio(cls, a: np.ndarray, b: np.ndarray) -> tuple[int, float] | None:
        """First index of the largest ``a/b`` (as ``log a - log b``), skipping 0/0; None if all are 0/0."""
        valid = ~((a == NEG_INF) & (b == NEG_INF))
        if not valid.any():
            return None
        with np.errstate(invalid="ignore"):
            d = np.where(valid, a - b, NEG_INF)
        m = float(d[valid].max())
        idx = int(np.flatnonzero(valid & (d >= m - cls.tolerance))[0])
        return idx, m

    @classmethod
    def better(cls, new: float, old: float | None) -> bool:
        return old is None or new > old + cls.tolerance

    @staticmethod
    def rank_key(value: float) -> float:
        """Sort key for ranking: logs equal to 12 decimals tie."""
        return round(value, 12)

    @staticmethod
    def epsilon_and_ratio(key: float) -> tuple[float, float]:
        try:
            return key, math.exp(key)
        except OverflowError:
            return key, math.inf


def _log_fraction(q: Fraction) -> float:
    """Natural log of a positive rational, accurate even when it over/underflows a float."""
    return math.log(q.numerator) - math.log(q.denominator)


class ExactSemiring:
    """Probabilities as exact rationals."""

    exact = True
    zero = Fraction(0)
    one = Fraction(1)
    dtype = object

    @staticmethod
    def weight(p: Number) -> Fraction:
        return Fraction(p)

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def to_prob(v: Any) -> Fraction:
        return v

    @staticmethod
    def total(values: np.ndarray) -> Fraction:
        return sum(values, Fraction(0))

    @staticmethod
    def best_ratio(a: np.ndarray, b: np.ndarray) -> tuple[int, Fraction | float] | None:
        best: tuple[int, Fraction | float] | None = None
        for i, (p, q) in enumerate(zip(a, b)):
            if q == 0:
                if p == 0:
                    continue
                key: Fraction | float = math.inf
            else:
                key = p / q
            if best is None or key > best[1]:
                best = (i, key)
        return best

    @staticmethod
    def better(new: Any, old: Any) -> bool:
        return old is None or new > old

    @staticmethod
    def rank_key(value: Fraction) -> Fraction:
        return value

    @staticmethod
    def epsilon_and_ratio(key: Fraction | float) -> tuple[float, Fraction | float]:
        if key == math.inf:
            return math.inf, math.inf
        if key == 0:
            return -math.inf, Fraction(0)
        return _log_fraction(Fraction(key)), Fraction(key)


Semiring = type[LogSemiring] | type[ExactSemiring]


class CountContext:
    """Weights, free axes and caches for counting on one compiled diagram.

    ``probabilities`` maps each random variable id to ``P(v = 1)``; ``axes`` maps free
    output-bit variable ids to numpy axes. Counts of sub-diagrams without free variables
    are scalars and stay cached for the whole run (they belong to canonical nodes, valid
    for every input and output, and ``cache`` may be shared between contexts); array
    values are dropped by :meth:`clear_arrays` after each input to bound memory.
    """

    def __init__(self, semiring: Semiring, probabilities: Mapping[int, Number], axes: Mapping[int, int],
                 cache: dict[int, Any] | None = None) -> None:
        self.semiring = semiring
        self.literals: dict[int, tuple[Any, Any]] = {
            v: (semiring.weight(p), semiring.weight(1 - p)) for v, p in probabilities.items()}
        self.ndim = len(axes)
        for v, axis in axes.items():
            shape = [1] * self.ndim
            shape[axis] = 2
            pos = np.array([semiring.zero, semiring.one], dtype=semiring.dtype).reshape(shape)
            neg = np.array([semiring.one, semiring.zero], dtype=semiring.dtype).reshape(shape)
            self.literals[v] = (pos, neg)
        self.cache: dict[int, Any] = {} if cache is None else cache
        self._array_keys: list[int] = []
        self._alive: list[object] = []

    def store(self, key: int, value: Any, node: object) -> None:
        """Cache ``value`` for a node; ``node`` is kept alive so its key is never reused."""
        self.cache[key] = value
        first = value[0] if type(value) is tuple else value
        if isinstance(first, np.ndarray):
            self._array_keys.append(key)
        else:
            self._alive.append(node)

    def clear_arrays(self) -> None:
        for key in self._array_keys:
            del self.cache[key]
        self._array_keys.clear()

    def full(self, value: Any) -> np.ndarray:
        """A traversal's result as a flat vector over all output codes (MSB = axis 0)."""
        arr = np.asarray(value, dtype=self.semiring.dtype)
        return np.broadcast_to(arr, (2,) * self.ndim).reshape(-1)
