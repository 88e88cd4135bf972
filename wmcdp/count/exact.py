"""The exact number systems of a weighted model count (:mod:`wmcdp.count.wmc`): scaled integers and rationals.

* :class:`Scaled`: each random bit's weights are ``a/d`` and ``b/d`` with integers
  ``a + b = d``; a node at level ``l`` holds ``WMC * prod(d of the random bits at levels >= l)``,
  an integer, and a skipped random bit multiplies by its ``d``. Every probability is then a
  numerator over one common denominator ``D`` (the product of all ``d``); numerators are
  float64 when ``D <= 2**26`` (every intermediate is an integer below ``D``, so float64 is
  exact, and so are products of two numerators), int64 when ``D < 2**62``, and Python
  integers otherwise.
* :class:`Rational`: gmpy2 rationals, when ``D`` has more than :data:`SCALED_MAX_BITS` bits.

With Fraction weights every probability either returns is an exact rational.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..base.numbers import ln_ratio
from ..lang.weights import BitWeight
from .floats import NEG_INF, Sums


@dataclass
class Scaled(Sums):
    """Exact probabilities as integer numerators over the common denominator ``denominator``."""

    denominator: int
    dtype: Any = field(init=False)

    name = "exact"
    exact = True
    zero = 0
    one = 1

    def __post_init__(self) -> None:
        bits = self.denominator.bit_length()
        # float64 while products of two numerators stay exact (the scan compares a*d with c*b),
        # int64 up to 62 bits (exact counts; products exact below 31 bits), Python ints beyond
        self.dtype = np.float64 if bits <= 26 else np.int64 if bits <= 62 else object

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[int, int, int]:
        """``(a, b, d)`` with ``w(v) = a/d`` and ``w(not v) = b/d``."""
        d = math.lcm(w.one.denominator, w.zero.denominator)  # type: ignore[union-attr]
        return w.one.numerator * (d // w.one.denominator), w.zero.numerator * (d // w.zero.denominator), d  # type: ignore[union-attr]

    def as_log(self, v: Any) -> np.ndarray:
        """Values as natural logs (approximate; -inf for 0)."""
        a = np.asarray(v)
        out = [math.log(int(x)) - math.log(self.denominator) if x else NEG_INF for x in a.reshape(-1)]
        return np.array(out, dtype=np.float64).reshape(a.shape)

    def coefficient(self, m: int) -> Any:
        """An integer coefficient in the numerators' dtype."""
        return float(m) if self.dtype is np.float64 else m if self.dtype is object else np.int64(m)

    def as_float(self, v: Any) -> np.ndarray:
        """Values as float64 probabilities (rounded)."""
        a = np.asarray(v)
        if a.dtype != object and self.denominator.bit_length() < 1000:
            return a.astype(np.float64) / float(self.denominator)
        return np.array([float(Fraction(int(x), self.denominator)) for x in a.reshape(-1)]).reshape(a.shape)

    def probability(self, v: Any) -> Fraction:
        return Fraction(int(v), self.denominator)

    def log_probability(self, v: Any) -> float:
        return ln_ratio(int(v), self.denominator) if v > 0 else NEG_INF


class Rational(Sums):
    """Exact probabilities as rationals (gmpy2 ``mpq``), for diagrams whose common denominator
    :class:`Scaled` would need is too large to carry in every cell (many random bits with
    large denominators, most of them skipped by any one path)."""

    name = "exact"
    exact = True
    dtype = object
    zero = gmpy2.mpq(0)
    one = gmpy2.mpq(1)

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[Any, Any]:
        return gmpy2.mpq(w.one), gmpy2.mpq(w.zero)

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        a = np.asarray(v, dtype=object)
        out = [_log_exact(x) for x in a.reshape(-1)]
        return np.array(out, dtype=np.float64).reshape(a.shape)

    @staticmethod
    def as_float(v: Any) -> np.ndarray:
        a = np.asarray(v, dtype=object)
        return np.array([float(Fraction(int(x.numerator), int(x.denominator))) for x in a.reshape(-1)]).reshape(a.shape)

    @staticmethod
    def probability(v: Any) -> Fraction:
        v = gmpy2.mpq(v)
        return Fraction(int(v.numerator), int(v.denominator))

    @staticmethod
    def log_probability(v: Any) -> float:
        v = gmpy2.mpq(v)
        return ln_ratio(int(v.numerator), int(v.denominator)) if v > 0 else NEG_INF


def _log_exact(v: Any) -> float:
    """Natural log of an exact nonnegative number (int or mpq), approximately; -inf for 0."""
    if not v:
        return NEG_INF
    v = gmpy2.mpq(v)
    return math.log(int(v.numerator)) - math.log(int(v.denominator))


#: a common denominator above this many bits makes exact counts use :class:`Rational`
SCALED_MAX_BITS = 4096


__all__ = ["Scaled", "Rational", "SCALED_MAX_BITS"]
