"""The certified zCDP parameter of discrete distributions: ``ρ* = sup over α > 1 of D_α(P‖Q) / α``.

For finite discrete ``P``, ``Q`` (exact rationals or exact reals, :class:`~wmcdp.base.certified.Real`) let

    g(α) = ln Σ_y P(y)^α Q(y)^(1−α),     D_α = g(α) / (α − 1),     ρ* = sup_{α > 1} D_α / α = g(α) / (α (α − 1)).

``ρ*`` is a supremum over a continuum of orders, so no finite set of orders gives more than a lower bound. This
module encloses it by branch and bound over intervals of orders, every number an arb ball (python-flint), so each
end is rounded outwards:

* **lower bound**: ``D_m / m`` at every order ``m`` evaluated (the lower end of its ball), and the limit at
  ``α → 1``, the Kullback–Leibler divergence ``KL = Σ P ln(P / Q)`` (``D_α → KL`` and ``α → 1``);
* **upper bound on [a, b]**: ``g`` is convex (the log of a sum of exponentials linear in ``α``), so on ``[a, b]`` it
  lies under the chord through ``(a, g(a))`` and ``(b, g(b))``, and ``g(α) / (α (α − 1))`` is at most the chord's
  ``ℓ(α) / (α (α − 1))`` at ``a``, at ``b`` or at a root of ``c₁ α² + 2 c₀ α − c₀`` (``ℓ = c₀ + c₁ α``), its only
  stationary points; ``D_α`` is also nondecreasing in ``α``, so ``D_α / α <= D_b / a`` there (the smaller bound is
  kept; at ``a = 1``, where ``g(1) = 0``, both are ``D_b``);
* **large orders**: ``D_α <= D_∞ = ln max P/Q``, so ``D_α / α <= D_∞ / A`` for ``α >= A``; the search stops at the
  first power of two ``A`` where this is at most the lower bound.

Intervals are split at their midpoints, the one with the largest upper bound first (over every pair at once, so a
pair far below the best is never split), until the enclosure is narrower than :data:`RELATIVE_WIDTH` or the budget
of evaluations of ``g`` is spent: then the enclosure is still certified, only wider. An output with
``P(y) > 0 = Q(y)`` makes every ``D_α`` infinite, so ``ρ* = ∞`` with that pair; ``P = Q`` (the same rationals, or the
same objects) gives 0.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.certified import Real, _fraction, arb_of, outward
from ..base.errors import WmcdpError

#: the enclosure is narrow enough when its width is at most this, relative to its lower end
RELATIVE_WIDTH = Fraction(1, 2**40)
#: evaluations of ``g`` a search may spend (each is one sum over the outputs of one pair)
BUDGET = 20_000
#: bits of the arb balls
PRECISION = 160


@dataclass(frozen=True)
class ZcdpEnclosure:
    """``lo <= ρ* <= hi`` (floats rounded outwards, or exact dyadic Fractions out of the float range), the pair
    (its place in the list given) and the order ``alpha`` where the lower end is attained (1 for the KL limit,
    ``inf`` for an infinite ``ρ*``), and the evaluations of ``g`` spent."""

    lo: float | Fraction
    hi: float | Fraction
    pair: int
    alpha: float
    evaluations: int


def _flint() -> Any:
    import flint  # deferred: python-flint costs 0.15 s at import; only the certified zCDP bound needs it

    return flint


def _ball(p: Any) -> Any:
    """An exact rational or real as an arb ball at the working precision."""
    if isinstance(p, Real):
        return p.ball(_flint().ctx.prec)
    return arb_of(Fraction(p))


def _upper(b: Any) -> Fraction:

    return _fraction(b.mid()) + _fraction(b.rad())


def _lower(b: Any) -> Fraction:

    return _fraction(b.mid()) - _fraction(b.rad())


def _check(p: Sequence[Any], q: Sequence[Any]) -> None:
    if len(p) != len(q):
        raise WmcdpError(f"two distributions over {len(p)} and {len(q)} outputs")
    if any(a < 0 for a in p) or any(b < 0 for b in q):
        raise WmcdpError("a probability below 0")


def _identical(a: Any, b: Any) -> bool:
    """The same object, or equal rationals (exact reals are compared only by identity: equality may be undecidable)."""
    return a is b or not (isinstance(a, Real) or isinstance(b, Real)) and a == b


class _Pair:
    """One ordered pair ``(P, Q)`` of distributions on the same outputs: the logs of the masses where ``P > 0``."""

    def __init__(self, p: Sequence[Any], q: Sequence[Any]) -> None:
        _check(p, q)
        self.infinite = any(a != 0 and b == 0 for a, b in zip(p, q))
        self.logs = [(_ball(a).log(), _ball(b).log()) for a, b in zip(p, q) if a != 0 and b != 0]
        self.same = all(_identical(a, b) for a, b in zip(p, q))

    def g(self, alpha: Fraction) -> Any:
        """The ball of ``g(α) = ln Σ exp(α ln P + (1 − α) ln Q)``."""
        a = arb_of(alpha)
        total = sum(((a * lp + (1 - a) * lq).exp() for lp, lq in self.logs), _flint().arb(0))
        return total.log()

    def kl(self) -> Any:
        """The ball of ``Σ P ln(P / Q)``, the limit of ``D_α`` as ``α → 1``."""
        return sum((lp.exp() * (lp - lq) for lp, lq in self.logs), _flint().arb(0))

    def d_infinity(self) -> Fraction:
        """An upper bound of ``D_∞ = max ln(P / Q)``."""
        return max(_upper(lp - lq) for lp, lq in self.logs)


def _ratio_upper(g: Fraction, alpha: Fraction) -> Fraction:
    """``g / (α (α − 1))`` for an upper end ``g`` (an upper bound of ``D_α / α``)."""
    return g / (alpha * (alpha - 1))


def _chord_bound(a: Fraction, b: Fraction, ga: Fraction, gb: Fraction) -> Fraction:
    """An upper bound of ``g(α) / (α (α − 1))`` on ``[a, b]`` (``a > 1``) from the convexity of ``g``, whose upper
    ends at ``a`` and ``b`` are ``ga`` and ``gb``: the largest of the chord's ratio at ``a``, at ``b``, and at the
    stationary points of ``(c₀ + c₁ α) / (α² − α)`` (the roots of ``c₁ α² + 2 c₀ α − c₀``) that may lie in
    ``[a, b]``, each root enclosed by a ball and the ratio evaluated over it."""
    c1 = (gb - ga) / (b - a)
    c0 = ga - c1 * a
    best = max(_ratio_upper(ga, a), _ratio_upper(gb, b))
    if c1 == 0:
        return best  # the only stationary point is 1/2
    disc = arb_of(c0 * c0 + c1 * c0)
    if disc < 0:
        return best
    root = disc.nonnegative_part().sqrt()
    for sign in (1, -1):
        alpha = (arb_of(-c0) + sign * root) / arb_of(c1)
        if not alpha.is_finite():
            return _monotone_bound(a, b, gb)
        if alpha.overlaps(arb_of(a).union(arb_of(b))):
            value = (arb_of(c0) + arb_of(c1) * alpha) / (alpha * (alpha - 1))
            if not value.is_finite():
                return _monotone_bound(a, b, gb)
            best = max(best, _upper(value))
    return best


def _monotone_bound(a: Fraction, b: Fraction, gb: Fraction) -> Fraction:
    """``D_b / a``: ``D_α`` is nondecreasing, so ``D_α / α <= D_b / a`` on ``[a, b]``."""
    return gb / ((b - 1) * a)


def _bound(a: Fraction, b: Fraction, ga: Fraction, gb: Fraction) -> Fraction:
    """The upper bound of ``D_α / α`` on ``[a, b]`` (the smaller of the chord's and the monotone one)."""
    if a == 1:
        return _monotone_bound(a, b, gb)
    return min(_chord_bound(a, b, ga, gb), _monotone_bound(a, b, gb))


def certified_zcdp(
    pairs: Sequence[tuple[Sequence[Any], Sequence[Any]]], budget: int = BUDGET, precision: int = PRECISION
) -> ZcdpEnclosure:
    """A certified enclosure of ``max over pairs of sup over α > 1 of D_α(P‖Q) / α`` (the module docstring), each
    pair ``(P, Q)`` two distributions on the same outputs (ordered: give both orders for a symmetric relation)."""
    if not pairs:
        raise WmcdpError("no pair of distributions to bound")
    with _flint().ctx.workprec(precision):
        return _search([_Pair(p, q) for p, q in pairs], budget)


#: an interval of orders on the search's heap: (-its upper bound, a tie-break, pair, a, b, g(a)'s and g(b)'s upper ends)
_Interval = tuple[Fraction, int, int, Fraction, Fraction, Fraction, Fraction]


class _Search:
    """The branch and bound of the module docstring over the pairs that are neither equal nor infinitely apart."""

    def __init__(self, pairs: list[_Pair], live: list[int]) -> None:
        self.pairs, self.live = pairs, live
        self.low, self.where, self.spent = Fraction(0), (live[0], 1.0), 0
        self.heap: list[_Interval] = []
        self.count = itertools.count()

    def offer(self, value: Fraction, k: int, alpha: float) -> None:
        """A lower bound of pair ``k``'s ``D_α / α`` at ``alpha`` (1 for the limit there)."""
        if value > self.low:
            self.low, self.where = value, (k, alpha)

    def evaluate(self, k: int, alpha: Fraction) -> Fraction:
        """``g(α)`` of pair ``k``: the lower end offered as ``D_α / α``, the upper end returned."""
        ball = self.pairs[k].g(alpha)
        self.spent += 1
        self.offer(_lower(ball) / (alpha * (alpha - 1)), k, float(alpha))
        return _upper(ball)

    def push(self, k: int, a: Fraction, b: Fraction, ga: Fraction, gb: Fraction) -> None:
        bound = _bound(a, b, ga, gb)
        if bound > self.low:
            heapq.heappush(self.heap, (-bound, next(self.count), k, a, b, ga, gb))

    def seed(self, first: dict[int, Fraction]) -> None:
        """Each pair's intervals ``[1, 2], [2, 4], ...`` up to the order ``A`` where ``D_∞ / A <= low``."""
        for k in self.live:
            a, ga, b, gb = Fraction(1), Fraction(0), Fraction(2), first[k]
            self.push(k, a, b, ga, gb)
            d_inf = self.pairs[k].d_infinity()
            while d_inf > self.low * b:
                if b > 2**64:
                    raise WmcdpError("the order where D_inf / alpha falls below the lower bound is past 2^64")
                a, ga, b = b, gb, 2 * b
                gb = self.evaluate(k, b)
                self.push(k, a, b, ga, gb)

    def high(self) -> Fraction:
        return max(self.low, -self.heap[0][0]) if self.heap else self.low

    def refine(self, budget: int) -> None:
        """Split the interval of the largest upper bound until the enclosure is narrow or the budget is spent."""
        while self.heap and self.high() - self.low > RELATIVE_WIDTH * self.low and self.spent < budget:
            _, _, k, a, b, ga, gb = heapq.heappop(self.heap)
            m = (a + b) / 2
            gm = self.evaluate(k, m)
            self.push(k, a, m, ga, gm)
            self.push(k, m, b, gm, gb)


def _search(pairs: list[_Pair], budget: int) -> ZcdpEnclosure:
    for k, pair in enumerate(pairs):
        if pair.infinite:
            return ZcdpEnclosure(math.inf, math.inf, k, math.inf, 0)
    live = [k for k, pair in enumerate(pairs) if pair.logs and not pair.same]
    if not live:  # every pair P = Q exactly
        return ZcdpEnclosure(0.0, 0.0, 0, 1.0, 0)
    search = _Search(pairs, live)
    first = {}
    for k in live:  # the alpha -> 1 limits and the order 2: a lower bound before any pair is searched
        search.offer(_lower(pairs[k].kl()), k, 1.0)
        first[k] = search.evaluate(k, Fraction(2))
    if search.low <= 0:  # every pair equal up to the balls' radii: D_alpha / alpha <= D_inf
        hi = max(pairs[k].d_infinity() for k in live)
        return ZcdpEnclosure(0.0, outward(hi, True), live[0], 1.0, search.spent)
    search.seed(first)
    search.refine(budget)
    low, high = search.low, search.high()
    return ZcdpEnclosure(outward(low, False), outward(high, True), search.where[0], search.where[1], search.spent)


__all__ = ["BUDGET", "PRECISION", "RELATIVE_WIDTH", "ZcdpEnclosure", "certified_zcdp"]
