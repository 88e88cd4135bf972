"""Literal weights of random bits, each computed directly (paper Def. 3, ``w(v)`` and ``w(not v)``).

A random bit ``v`` carries both of its literal weights, ``w(v) = P(v)`` and
``w(not v) = P(not v)``. Neither is ever formed as ``1 - p`` of a rounded float: a flip of
a given float ``p`` has ``1 - p`` correctly rounded (so ``p = 1 - 1e-16`` keeps its tiny
complement), and a branch of ``discrete`` divides the exact or float partial sums of its
two halves by their total, each half on its own. Every weight is also kept as a natural
log, computed from the same parts, so weights far below the smallest float (the truncated
geometric with ``alpha = 1e-200``) are still exact enough to count with in log space.

Exact weights are :class:`fractions.Fraction`; float weights are ``float``; weights that are functions of
a symbolic parameter are :class:`wmcdp.lang.parameter.Function` values; a weight given as an exact real
(:class:`wmcdp.base.certified.Real`, such as ``exp(-1/2)``) is its correctly rounded float, or its midpoint
(a Fraction) in a certified run. A float weight
that underflows is ``0.0`` in linear form while its log stays finite; the counter then
chooses log-space arithmetic (see :mod:`wmcdp.count.wmc`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.certified import is_real, weight_pair
from ..base.numbers import Number, is_symbolic, log_fraction

NEG_INF = float("-inf")


@dataclass(frozen=True)
class BitWeight:
    """``P(v = 1)`` and ``P(v = 0)`` of one random bit, linear and as natural logs."""

    one: Number  # Fraction when exact, else float (0.0 if it underflows)
    zero: Number
    log_one: float  # ln P(v = 1), -inf when P(v = 1) = 0
    log_zero: float

    @property
    def exact(self) -> bool:
        return isinstance(self.one, Fraction) and isinstance(self.zero, Fraction)

    @property
    def is_false(self) -> bool:
        """The bit is never true (weight exactly 0)."""
        return self.log_one == NEG_INF

    @property
    def is_true(self) -> bool:
        """The bit is always true (its complement has weight exactly 0)."""
        return self.log_zero == NEG_INF


def _log(p: Number) -> float:
    if p == 0:
        return NEG_INF
    return log_fraction(p) if isinstance(p, Fraction) else math.log(p)


def flip_weight(p: Number) -> BitWeight:
    """The weights of a flip with ``P(true) = p`` (a validated probability in [0, 1]).

    Exact ``p`` gives ``1 - p`` exactly; a float ``p`` gives the correctly rounded
    ``1 - p`` (exact whenever ``p >= 1/2``) and ``ln(1 - p)`` through ``log1p``.
    """
    if isinstance(p, (int, Fraction)):
        p = Fraction(p)
        return BitWeight(p, 1 - p, _log(p), _log(1 - p))
    if is_symbolic(p):
        return _symbolic_weight(p, 1 - p)
    if is_real(p):
        return _real_weight(p, 1 - p)
    q = 1.0 - p
    return BitWeight(p, q, _log(p), math.log1p(-p) if p < 1 else NEG_INF)


def split_weight(upper: Sequence[Number], lower: Sequence[Number]) -> BitWeight:
    """``P(upper half | upper or lower half)`` for a node of ``discrete``'s tree of flips.

    ``upper`` and ``lower`` are the probabilities of the values in each half; each half's
    weight is its own sum divided by the total, so neither is ``1 - p`` of the other.
    """
    up, low = _sum(upper), _sum(lower)
    whole = up + low
    if whole == 0:  # an unreachable branch of the tree: any weights do; pick the lower half
        return BitWeight(Fraction(0), Fraction(1), NEG_INF, 0.0)
    if is_symbolic(whole):
        return _symbolic_weight(up / whole, low / whole)
    if is_real(whole):
        return _real_weight(up / whole, low / whole)
    if isinstance(whole, Fraction):
        return BitWeight(
            up / whole,
            low / whole,
            _log(up) - _log(whole) if up else NEG_INF,
            _log(low) - _log(whole) if low else NEG_INF,
        )
    return BitWeight(
        up / whole, low / whole, math.log(up / whole) if up else NEG_INF, math.log(low / whole) if low else NEG_INF
    )


def log_split_weight(log_upper: Sequence[float], log_lower: Sequence[float]) -> BitWeight:
    """:func:`split_weight` for float probabilities given as natural logs (they may underflow)."""
    up, low = log_sum(log_upper), log_sum(log_lower)
    whole = log_sum([up, low])
    lo1, lo0 = up - whole, low - whole
    return BitWeight(math.exp(lo1), math.exp(lo0), lo1, lo0)


def _symbolic_weight(one: Any, zero: Any) -> BitWeight:
    """The weights of a bit whose probability is a function of a symbolic parameter
    (:mod:`wmcdp.notions.piecewise`); its logs only say which weights are zero everywhere."""
    return BitWeight(one, zero, NEG_INF if not one else 0.0, NEG_INF if not zero else 0.0)


def _real_weight(one: Any, zero: Any) -> BitWeight:
    """The weights of a bit whose probability is an exact real (:class:`wmcdp.base.certified.Real`): its
    midpoint in a certified run, else both literals correctly rounded, each from the exact number."""
    a, b = weight_pair(one, zero)
    if isinstance(a, Fraction):
        return BitWeight(a, b, _log(a), _log(b))
    return BitWeight(a, b, _real_log(one), _real_log(zero))


def _real_log(x: Any) -> float:
    return NEG_INF if not x else float(x.log())


def _sum(values: Sequence[Number]) -> Number:
    if any(is_symbolic(v) for v in values):
        return sum(values, Fraction(0))
    if any(is_real(v) for v in values):
        return sum((v if is_real(v) else Fraction(v) for v in values), Fraction(0))
    if all(isinstance(v, (int, Fraction)) for v in values):
        return sum((Fraction(v) for v in values), Fraction(0))
    return math.fsum(float(v) for v in values)


def log_sum(logs: Sequence[float]) -> float:
    """``ln(sum(exp(l) for l in logs))`` without overflow or underflow."""
    finite = [x for x in logs if x != NEG_INF]
    if not finite:
        return NEG_INF
    m = max(finite)
    return m + math.log(math.fsum(math.exp(x - m) for x in finite))


__all__ = ["BitWeight", "flip_weight", "split_weight", "log_split_weight", "log_sum"]
