"""The float number systems of a weighted model count (:mod:`wmcdp.count.wmc`): float64 and extended floats.

Both implement the interface the traversal uses (``coefficients``, ``mul``, ``add``, ``total``,
``probability``, ``log_ratio``, ...):

* :class:`Linear`: float64 probabilities, the fast default. It is used only when every
  path of the diagram has weight at least ``2**-1000`` (:data:`LINEAR_MIN_LOG2`, see
  :func:`wmcdp.compile.flat.min_path_log2`), so no value the traversal forms can underflow and
  every operation rounds by at most half an ulp.
* :class:`Extended`: floats with a separate exponent per cell (a float64 mantissa in
  [1/2, 1) and an integer exponent, kept as the real and imaginary parts of a complex128),
  for diagrams with smaller path weights: randomized response with n = 1000 has
  probabilities near 0.2^1000, and 3000 flips at 0.5 against 0.5000000000000001 differ by
  a factor of 1 + 6.7e-13 that a sum of logs (error about 1e-12 at that size) would lose.
  The nodes below every group bit may instead count in :data:`WIDE` floats (80-bit long
  doubles) where the platform has them and every path weighs at least ``2**WIDE_MIN_LOG2``
  (:class:`wmcdp.count.region.Region`).

No float path forms ``1 - p`` of a rounded float: the weights come from
:class:`~wmcdp.lang.weights.BitWeight` with their logs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lang.weights import BitWeight

NEG_INF = float("-inf")
LN2 = math.log(2)
#: Linear arithmetic is used when every path weight is at least 2**LINEAR_MIN_LOG2
#: (see :func:`wmcdp.compile.flat.min_path_log2`)
LINEAR_MIN_LOG2 = -1000.0


class Sums:
    """The arithmetic of the number systems whose values are the probabilities themselves (float64, integer
    numerators, rationals): a conjunction multiplies, a disjunction adds, and a total sums along an axis."""

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def total(v: np.ndarray, axis: int) -> np.ndarray:
        return np.asarray(v.sum(axis=axis))


class Linear(Sums):
    """Probabilities as float64."""

    name = "float"
    exact = False
    dtype = np.float64
    zero = 0.0
    one = 1.0

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[float, float]:
        return float(w.one), float(w.zero)

    @staticmethod
    def as_float(v: Any) -> Any:
        """Values as float64 probabilities."""
        return np.asarray(v, dtype=np.float64)

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        """Values as natural logs (-inf for 0)."""
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(v, dtype=np.float64))

    @staticmethod
    def log_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``ln(a/b)``: +inf for x/0, -inf for 0/x, nan for 0/0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.log(a / b))

    @staticmethod
    def probability(v: Any) -> float:
        return float(v)

    @staticmethod
    def log_probability(v: Any) -> float:
        return math.log(v) if v > 0 else NEG_INF


class Extended:
    """Probabilities as ``mantissa * 2**exponent`` per cell: complex128 with the mantissa in the real
    part (0 or in [1/2, 1)) and the integer exponent in the imaginary part (:data:`ZERO` for 0)."""

    name = "float"
    exact = False
    dtype = np.complex128
    ZERO_EXPONENT = -float(2**60)
    zero = complex(0.0, ZERO_EXPONENT)
    one = complex(0.5, 1.0)

    @staticmethod
    def _number(p: float, log_p: float) -> complex:
        if p == 0 and log_p == NEG_INF:
            return Extended.zero
        if p > 0:
            m, e = math.frexp(p)
            return complex(m, e)
        e = math.floor(log_p / LN2) + 1  # a weight below the smallest float: from its log
        return complex(math.exp(log_p - e * LN2), e)

    @classmethod
    def coefficients(cls, w: BitWeight) -> tuple[complex, complex]:
        return cls._number(float(w.one), w.log_one), cls._number(float(w.zero), w.log_zero)

    @classmethod
    def _normal(cls, m: np.ndarray, e: np.ndarray) -> np.ndarray:
        mantissa, shift = np.frexp(m)
        out = np.empty(np.shape(m), dtype=np.complex128)
        out.real = mantissa
        out.imag = np.where(mantissa == 0, cls.ZERO_EXPONENT, e + shift)
        return out

    @classmethod
    def mul(cls, a: Any, b: Any) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        return cls._normal(a.real * b.real, a.imag + b.imag)

    @classmethod
    def from_wide(cls, v: np.ndarray) -> np.ndarray:
        """Wide floats (numpy long double) as mantissa and exponent, the mantissa rounded to float64."""
        m, e = np.frexp(v)
        return cls._normal(m.astype(np.float64), e.astype(np.float64))

    @classmethod
    def add(cls, a: Any, b: Any) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        return cls._sum(a.real, a.imag, b.real, b.imag)

    @classmethod
    def _sum(cls, ma: np.ndarray, ea: np.ndarray, mb: np.ndarray, eb: np.ndarray) -> np.ndarray:
        """``ma 2^ea + mb 2^eb``, normalized (mantissas may be unnormalized, in (0, 1))."""
        e = np.maximum(ea, eb)
        m = np.ldexp(ma, (ea - e).astype(np.int64))
        m += np.ldexp(mb, (eb - e).astype(np.int64))
        return cls._normal(m, e)

    @classmethod
    def combine(cls, m1: complex, h: np.ndarray, m0: complex, lo: np.ndarray) -> np.ndarray:
        """``m1 * h + m0 * lo`` with one normalization: a product of two mantissas in [1/2, 1) is still
        well inside the float range, so only the sum is brought back to [1/2, 1)."""
        h, lo = np.asarray(h), np.asarray(lo)
        return cls._sum(h.real * m1.real, h.imag + m1.imag, lo.real * m0.real, lo.imag + m0.imag)

    @classmethod
    def total(cls, v: np.ndarray, axis: int) -> np.ndarray:
        """Sums along ``axis``, each cell scaled to the largest exponent of its line first."""
        e = v.imag.max(axis=axis, keepdims=True)
        m = np.ldexp(v.real, (v.imag - e).astype(np.int64)).sum(axis=axis)
        return cls._normal(m, np.squeeze(e, axis=axis))

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        """Values as natural logs (-inf for 0)."""
        a = np.asarray(v)
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(a.real) + np.where(a.real > 0, a.imag, 0) * LN2)

    @staticmethod
    def as_float(v: Any) -> np.ndarray:
        """Values as float64 probabilities (those below the smallest float become 0)."""
        a = np.asarray(v)
        return np.asarray(np.ldexp(a.real, np.clip(a.imag, -2000, 2000).astype(np.int64)))

    @staticmethod
    def log_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``ln(a/b)`` from mantissas and exponents (the exponents subtract exactly)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.asarray(np.log(a.real / b.real) + (a.imag - b.imag) * LN2)
        r[(a.real == 0) & (b.real > 0)] = NEG_INF
        r[(a.real > 0) & (b.real == 0)] = np.inf
        r[(a.real == 0) & (b.real == 0)] = np.nan
        return r

    @classmethod
    def probability(cls, v: Any) -> float:
        return float(cls.as_float(v))

    @staticmethod
    def log_probability(v: Any) -> float:
        v = complex(v)
        return math.log(v.real) + v.imag * LN2 if v.real > 0 else NEG_INF


#: numpy's long double where it is the 80-bit x87 format (64-bit mantissa, exponents down to 2**-16382), else None
WIDE = np.longdouble if np.finfo(np.longdouble).minexp <= -16000 else None
#: an Extended count may run in WIDE floats when every path weight is at least 2**WIDE_MIN_LOG2
WIDE_MIN_LOG2 = -16000.0


def widen(c: complex) -> Any:
    """An :class:`Extended` number as a wide float."""
    return np.ldexp(WIDE(c.real), int(c.imag))  # type: ignore[misc]


__all__ = ["Linear", "Extended", "LINEAR_MIN_LOG2", "WIDE", "WIDE_MIN_LOG2", "NEG_INF", "LN2", "widen"]
