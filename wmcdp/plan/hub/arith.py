"""The hub plan's numbers: exact Fractions, or natural logs of floats."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from ...base.numbers import ln


@functools.lru_cache(maxsize=1 << 16)
def _exact_log(a: Fraction) -> float:
    """``ln a`` of a probability (``-inf`` for 0), remembered: the parts' tables repeat few distinct values."""
    return ln(a) if a > 0 else -math.inf


class _Exact:
    """Probabilities as Fractions."""

    exact = True
    zero: Any = Fraction(0)
    one: Any = Fraction(1)

    @staticmethod
    def weight(w: Any, bit: bool) -> Any:
        return w.one if bit else w.zero

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def log(a: Any) -> float:
        return _exact_log(a)

    @staticmethod
    def power(a: Any, c: int) -> Any:
        return a**c


class _Logs:
    """Probabilities as their natural logs (float mode: products never underflow)."""

    exact = False
    zero: Any = -math.inf
    one: Any = 0.0

    @staticmethod
    def weight(w: Any, bit: bool) -> Any:
        return w.log_one if bit else w.log_zero

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        if a < b:
            a, b = b, a
        return a if b == -math.inf else a + math.log1p(math.exp(b - a))

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def log(a: Any) -> float:
        return float(a)

    @staticmethod
    def power(a: Any, c: int) -> Any:
        return a * c if c else 0.0


Arith = type[_Exact] | type[_Logs]
