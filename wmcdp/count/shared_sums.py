"""Sums over a shared noisy value in closed form: a declared law's output probabilities with unbounded noise, exactly.

Given the shared value ``t`` (a sparse vector's noisy threshold, a noisy maximum's winning value), the output of a
declared shared-noise law (:mod:`wmcdp.lang.shared_noise`) is a product of *factors*, each a function of ``t``
through one two-sided geometric noise ``ν`` of ratio ``a`` (``P(ν = z) = (1 - a)/(1 + a) a^|z|``):

* ``("pmf", a, c)``: ``P(c + ν = t)``, the shared value's own law (or a winner's);
* ``("ge", a, x)``: ``P(x + ν >= t)``, an answer at or above it; ``("lt", a, x)``: ``P(x + ν < t)``, one below it
  (``P(x + ν <= t)`` is ``("lt", a, x - 1)``).

So ``P(y | x) = sum over t in Z of prod_f f(t)^count_f``. Every factor is a sum of geometric terms on each side of
its center: with ``G(k) = P(ν >= k) = a^k / (1 + a)`` for ``k >= 1`` and ``1 - a^(1 - k) / (1 + a)`` for ``k <= 0``,

* for ``t >= c`` (``pmf``) or ``t >= x + 1`` (``ge``, ``lt``) it is ``sum_j c_j r_j^t``: ``pmf = (1-a)/(1+a) a^-c a^t``,
  ``ge = a^-x/(1+a) a^t``, ``lt = 1 - a^-x/(1+a) a^t``;
* for ``t <= c`` (``pmf``) or ``t <= x`` (``ge``, ``lt``) it is ``sum_j c_j r_j^-t``: ``pmf = (1-a)/(1+a) a^c a^-t``,
  ``ge = 1 - a^(1+x)/(1+a) a^-t``, ``lt = a^(1+x)/(1+a) a^-t``.

Beyond every factor's center the product is again such a sum (the ratios multiply), and
``sum_(t >= R) r^t = r^R / (1 - r)``, ``sum_(t <= L) r^-t = r^-L / (1 - r)``; between the two ends the terms are
added one by one. A ``pmf`` factor puts a ratio below 1 on every term, so both series converge; with rational
ratios the sum is an exact rational (:func:`shared_sum`), with no window and no tail left out. The same sum with
every noise conditioned on ``|ν| <= W`` (:func:`windowed_sum`, a finite sum term by term) is what a program
compiled in windows of half-width ``W`` gives, the check a declared law meets before it is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

#: a factor ``(kind, ratio, center)``: kind ``"pmf"``, ``"ge"`` or ``"lt"`` (module docstring)
Factor = tuple[str, Fraction, int]
#: a side's geometric sum ``sum_j c_j r_j^(+-t)`` as ``{key(r_j): c_j}``: each ``r_j`` a product of powers of the
#: ratios met so far, its key those powers packed into one int (:func:`_key`), so multiplying ratios adds keys
Series = dict[int, Fraction]
#: factors with their counts
Counted = Sequence[tuple[Factor, int]]

KINDS = ("pmf", "ge", "lt")


def value(factor: Factor, t: int) -> Fraction:
    """The factor at ``t``, from its law's closed form."""
    kind, a, c = factor
    k = t - c
    if kind == "pmf":
        return (1 - a) / (1 + a) * a ** abs(k)
    ge = a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)
    return ge if kind == "ge" else 1 - ge


def _starts(factor: Factor) -> tuple[int, int]:
    """The last ``t`` of the left form and the first of the right form."""
    kind, _, c = factor
    return (c, c) if kind == "pmf" else (c, c + 1)


#: the ratios given a slot of the packed keys, in the order met; the bits of one slot
_SLOTS: dict[Fraction, int] = {}
SLOT_BITS = 32


def _key(a: Fraction) -> int:
    """The packed key of the ratio ``a`` (its slot's power 1)."""
    slot = _SLOTS.setdefault(a, len(_SLOTS))
    return 1 << (SLOT_BITS * slot)


def _ratio(key: int) -> Fraction:
    """The ratio a packed key stands for."""
    r = Fraction(1)
    mask = (1 << SLOT_BITS) - 1
    for a, slot in _SLOTS.items():
        r *= a ** ((key >> (SLOT_BITS * slot)) & mask)
    return r


@lru_cache(maxsize=1 << 16)
def _series(factor: Factor, right: bool) -> tuple[tuple[int, Fraction], ...]:
    """The factor's geometric sum on one side (module docstring), as ``((key(r), c), ...)``."""
    kind, a, c = factor
    if kind == "pmf":
        return ((_key(a), (1 - a) / (1 + a) * a ** (-c if right else c)),)
    scale = a**-c / (1 + a) if right else a ** (1 + c) / (1 + a)
    rising = (kind == "ge") == right  # the side on which the factor is the bare geometric term
    return ((_key(a), scale),) if rising else ((0, Fraction(1)), (_key(a), -scale))


def _times(p: Series, q: Iterable[tuple[int, Fraction]]) -> Series:
    out: Series = {}
    for r, c in p.items():
        for s, d in q:
            out[r + s] = out.get(r + s, 0) + c * d
    return {r: c for r, c in out.items() if c}


#: the powers of each factor's series made so far, ``(factor, right) -> [series^0, series^1, ...]``
_POWERS: dict[tuple[Factor, bool], list[Series]] = {}
#: the factors whose powers are kept, at most
KEPT_FACTORS = 1 << 10


def _power(factor: Factor, right: bool, count: int) -> Series:
    """``_series(factor, right) ** count``, each power made from the one below it (kept for the next)."""
    if len(_POWERS) > KEPT_FACTORS:
        _POWERS.clear()
    powers = _POWERS.setdefault((factor, right), [{0: Fraction(1)}])
    while len(powers) <= count:
        powers.append(_times(powers[-1], _series(factor, right)))
    return powers[count]


@lru_cache(maxsize=1 << 10)
def _product(counted: tuple[tuple[Factor, int], ...], right: bool) -> tuple[tuple[int, Fraction], ...]:
    """The product of the factors' series on one side (kept: sums that differ only in their ``pmf`` factor, a
    winner's value, share it)."""
    series: Series = {0: Fraction(1)}
    for factor, count in counted:
        series = _times(series, _power(factor, right, count).items())
    return tuple(series.items())


def _tail(counted: Counted, right: bool, end: int) -> Fraction:
    """``sum over t >= end`` (right) or ``t <= end`` (left) of the product, from its geometric sum."""
    hubs = [(f, k) for f, k in counted if f[0] == "pmf"]
    rest = tuple(sorted((f, k) for f, k in counted if f[0] != "pmf"))
    series = dict(_product(rest, right))
    for factor, count in hubs:
        series = _times(series, _power(factor, right, count).items())
    total = Fraction(0)
    for key, c in series.items():
        r = _ratio(key)
        if r >= 1:
            raise ValueError("a shared sum needs a pmf factor: its terms do not decay")
        total += c * r ** (end if right else -end) / (1 - r)
    return total


def shared_sum(counted: Counted) -> Fraction:
    """``sum over t in Z of prod f(t)^count`` exactly (module docstring); ``counted`` has a ``pmf`` factor."""
    counted = [(f, k) for f, k in counted if k]
    if not any(f[0] == "pmf" for f, _ in counted):
        raise ValueError("a shared sum needs a pmf factor: its terms do not decay")
    left = min(_starts(f)[0] for f, _ in counted)
    right = max(max(_starts(f)[1] for f, _ in counted), left + 1)
    middle = Fraction(0)
    for t in range(left + 1, right):
        term = Fraction(1)
        for f, k in counted:
            term *= value(f, t) ** k
        middle += term
    return middle + _tail(counted, True, right) + _tail(counted, False, left)


def _conditioned(a: Fraction, W: int) -> list[Fraction]:
    """``P(ν = z | |ν| <= W)`` for ``z = -W .. W``."""
    weights = [(1 - a) / (1 + a) * a ** abs(z) for z in range(-W, W + 1)]
    inside = sum(weights)
    return [w / inside for w in weights]


def windowed_value(factor: Factor, t: int, W: int) -> Fraction:
    """The factor at ``t`` with its noise conditioned on ``|ν| <= W``."""
    kind, a, c = factor
    law = _conditioned(a, W)
    k = t - c
    if kind == "pmf":
        return law[k + W] if -W <= k <= W else Fraction(0)
    ge = sum(law[max(k, -W) + W :], Fraction(0)) if k <= W else Fraction(0)
    return ge if kind == "ge" else 1 - ge


def windowed_sum(counted: Counted, W: int) -> Fraction:
    """:func:`shared_sum` with every noise conditioned on ``|ν| <= W``: the terms of the ``pmf`` factors' windows."""
    counted = [(f, k) for f, k in counted if k]
    hub = next(f for f, _ in counted if f[0] == "pmf")
    total = Fraction(0)
    for t in range(hub[2] - W, hub[2] + W + 1):
        term = Fraction(1)
        for f, k in counted:
            term *= windowed_value(f, t, W) ** k
        total += term
    return total


@dataclass(frozen=True)
class GapSupremum:
    """The supremum over a released gap ``g >= 0`` of ``P(y_g | x) / P(y_g | x')`` (:func:`gap_supremum`): the
    exact ``ratio``, whether some gap attains it, and the gap ``g`` shown with its probabilities ``p``, ``q``: the
    first that attains it, or else the first where the ratio is within a float's rounding of the limit it approaches
    (when none is within :data:`WITNESS_GAPS` of the closed form's start, the last of those)."""

    ratio: Fraction
    attained: bool
    g: int
    p: Fraction
    q: Fraction


#: the gaps tried past the closed form's start for a witness within a float's rounding of an approached limit
WITNESS_GAPS = 4096


def _two_terms(s0: Fraction, s1: Fraction, rho: Fraction, a: Fraction, g0: int) -> tuple[Fraction, Fraction]:
    """``(P, Q)`` with ``S(g) = P rho^g + Q a^g`` (``(P + Q g) a^g`` when ``rho = a``) through ``S(g0) = s0`` and
    ``S(g0 + 1) = s1``."""
    if rho == a:
        q = s1 / a ** (g0 + 1) - s0 / a**g0
        return s0 / a**g0 - q * g0, q
    p = (s1 - a * s0) / (rho**g0 * (rho - a))
    return p, (s0 - p * rho**g0) / a**g0


def _at(terms: tuple[Fraction, Fraction], rho: Fraction, a: Fraction, g: int) -> Fraction:
    p, q = terms
    return (p + q * g) * a**g if rho == a else p * rho**g + q * a**g


def gap_supremum(num: Counted, u: int, den: Counted, v: int, a: Fraction) -> GapSupremum:
    """``sup over g >= 0`` of ``S_x(g) / S_x'(g)``, ``S_x(g) = shared_sum(num + [("pmf", a, u - g)])``: the law of an
    output whose one TRUE answer releases its gap ``g = u + ν - t`` (its factor ``P(u + ν = t + g)``), the other
    factors ``num`` (``den`` on ``x'``, whose TRUE entry is ``v``).

    The other factors' product ``H(t)`` is one geometric term ``h rho^-t`` left of every center ``L`` (a ``pmf`` and
    ``lt`` factors are bare terms there; checked: else ValueError). For ``c = u - g <= L``, summing ``H(t) P(ν = t -
    c)`` over ``t < c``, ``c <= t <= L`` and ``t > L`` gives ``S_x(g) = P rho^g + Q a^g`` (``(P + Q g) a^g`` when
    ``rho = a``), fitted exactly from two gaps and checked at a third. A ratio of two such sums is a Möbius function
    of ``(rho / a)^g`` (of ``g``), monotone: past ``g0 = max(u, v) - L`` its supremum is the larger of its value at
    ``g0`` and its limit, ``Q_x / Q_x'`` (``P_x / P_x'`` when ``rho > a``); below ``g0`` every gap is counted."""
    left = [min(_starts(f)[0] for f, _ in counted) for counted in (num, den)]
    ends = [dict(_product(tuple(sorted(c)), False)) for c in (num, den)]
    if any(len(e) != 1 for e in ends) or len({*map(_ratio, (k for e in ends for k in e))}) != 1:
        raise ValueError("a released gap's other factors are not one geometric term on the left")
    rho = _ratio(next(iter(ends[0])))
    g0 = max(max(u, v) - min(left), 0)

    def side(counted: Counted, w: int, g: int) -> Fraction:
        return shared_sum([*counted, (("pmf", a, w - g), 1)])

    best: tuple[Fraction, int, Fraction, Fraction] | None = None
    for g in range(g0 + 1):
        p, q = side(num, u, g), side(den, v, g)
        if best is None or p / q > best[0]:
            best = (p / q, g, p, q)
    assert best is not None
    fits = []
    for counted, w in ((num, u), (den, v)):
        s = [side(counted, w, g0 + k) for k in range(3)]
        terms = _two_terms(s[0], s[1], rho, a, g0)
        if _at(terms, rho, a, g0 + 2) != s[2]:
            raise ValueError("a released gap's sum is not of the two-term form")
        fits.append(terms)
    (px, qx), (pxp, qxp) = fits
    limit = px / pxp if rho > a else qx / qxp
    if best[0] >= limit:
        return GapSupremum(best[0], True, best[1], best[2], best[3])
    for g in range(g0, g0 + WITNESS_GAPS):
        p, q = _at(fits[0], rho, a, g), _at(fits[1], rho, a, g)
        if p / q == limit:
            return GapSupremum(limit, True, g, p, q)
        if float(limit - p / q) <= 2**-53 * float(limit):
            break
    return GapSupremum(limit, False, g, p, q)


__all__ = ["KINDS", "Factor", "GapSupremum", "gap_supremum", "shared_sum", "value", "windowed_sum", "windowed_value"]
