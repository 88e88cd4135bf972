"""Shuffles of any local randomizer with two reports, at scale: δ(ε) and ε(δ) over every dataset.

A local randomizer ``R`` written in the DSL takes one user's value ``w`` (any finite domain) and returns one of
two reports; ``π_w = P(R(w) = one)`` (exact rationals, by weighted model counting on the one-user program).
``n`` users apply ``R`` independently and a shuffler releases the multiset of reports, i.e. the count ``Y`` of
reports ``one``. Neighbouring datasets differ in one user's value. Write ``lo = min_w π_w``, ``hi = max_w π_w``
(attained at the values ``u_lo``, ``u_hi``, the first of each in the domain's order). The reductions are proved
here and tested against the enumeration of every pair of neighbouring datasets at small ``n``
(``tests/test_shuffled_binary.py``).

**5. Extreme values (convexity).** ``Y = Σ_i B_i`` with independent ``B_i ~ Bern(π_{x_i})``. Fix the pair's
differing user ``d`` and ``t = e^ε ≥ 1``. For a vector ``s`` of success probabilities of the other users and
the differing user's pair of probabilities ``(α, α')`` the hockey-stick sum
``H = Σ_y (P(y) − t P'(y))^+`` has ``P = Z_s ⊛ Bern(α)``, ``P' = Z_s ⊛ Bern(α')``; each ``P(y)``, ``P'(y)``
is affine in each single coordinate ``s_i`` (the others fixed) and jointly affine in ``(α, α')``, and
``(a, b) ↦ Σ_y (a_y − t b_y)^+`` is convex, so ``H`` is convex in each ``s_i`` over ``[lo, hi]`` and in
``(α, α')`` over ``[lo, hi]^2``. A convex function on a segment (a square) is largest at an end (a corner), so
moving the coordinates one at a time to an end never decreases ``H``: the maximum over every dataset is attained
with every other user at ``lo`` or ``hi`` and ``(α, α') ∈ {(lo, hi), (hi, lo)}`` (the corners ``(lo, lo)``,
``(hi, hi)`` give ``P = P'``, ``H = 0``). Each such configuration is a real pair of neighbouring datasets (the
values ``u_lo``, ``u_hi``), so the maximum over these configurations *is* the maximum over every dataset. By
exchangeability only the number ``j`` of others at ``hi`` matters.

**6. Two orientations.** ``(α, α') = (lo, hi)`` with ``j`` others at ``hi`` is :class:`Binary(lo, hi)
<wmcdp.plan.shuffled_rr.Binary>`'s configuration ``j``. ``(hi, lo)`` is, in the count ``n − Y`` of the other
report (a bijection of the outputs, so every hockey-stick sum is unchanged), the differing user reporting with
``1 − hi`` against ``1 − lo`` and the others with ``1 − lo`` (the ``j`` at ``hi``) or ``1 − hi``: configuration
``n − 1 − j`` of ``Binary(1 − hi, 1 − lo)``. δ(ε) is the larger of the two orientations' maxima, each computed by
reductions 3 and 4 of :mod:`wmcdp.plan.shuffled_rr` (one threshold per configuration since ``Z`` is
log-concave; best-first blocks bounded by post-processing), whose float error bounds carry over unchanged.
Binary RR is ``lo = λ``, ``hi = 1 − λ``, where the two orientations coincide (and are searched once).

Not reduced here: randomizers with three or more reports. Their per-user laws are points of a simplex, the
convexity argument leaves every vertex ``π_w`` (every value) in play, and for k-ary RR with ``k ≥ 3`` the worst
dataset of the others is neither "all at a third value" nor "all at the two values of the pair"
(``tests/test_shuffled_binary.py`` shows both by enumeration). :func:`ShuffledReports.of` refuses them; shuffled
k-ary RR keeps its listed pairs with rows by convolution (:mod:`wmcdp.plan.shuffle`, ``n ≤ 1000``; in about a minute
they reach k = 3 at n = 80 and k = 4 at n = 25).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..compile import Compiled
from ..count.probabilities import as_compiled, inference
from ..lang.program import Program
from ..lang.sets import ExhaustiveInference
from .costs import SCALED_BASE_SECONDS, SCALED_EVALUATION_SECONDS, SCALED_EVALUATIONS, SUM_TERM_SECONDS
from .shuffle import ShuffledInference
from .shuffled_rr import Binary, ShuffledBinary, ShuffledPoint


@dataclass(frozen=True)
class ShuffledReports(ShuffledBinary):
    """The pairs of ``n`` shuffled users of a two-report local randomizer, over every dataset: reductions 5 and 6
    (pass it as the pair set of :func:`wmcdp.synthesize_approximate` or :func:`wmcdp.privacy_profile`)."""

    n: int
    values: tuple[int, ...]  # the one-user domain's values, in order
    probabilities: tuple[Fraction, ...]  # π_w: the probability of the report ``one`` at each value
    one: Any  # the report counted
    diagram_size: int = 0
    label: str = "local randomizer"
    considered: tuple[tuple[Any, ...], ...] = ()  # the plans the planner weighed, when it chose this one
    estimate: float | None = None  # its estimated seconds (:func:`scaled_estimate`), when the planner chose it

    @classmethod
    def of(cls, local: Program | Compiled, n: int, backend: str = "bdd") -> ShuffledReports:
        """The shuffle of ``local`` (one user's value in, one of two reports out) over ``n`` users; the
        probabilities are computed exactly. Refuses a randomizer with more than two reports, and one whose
        report is certain for some value (``lo = 0`` or ``hi = 1``: use the listed pairs)."""
        if int(n) < 1:
            raise WmcdpError(f"n must be a positive number of users, got {n}")
        reports = _reports(local, backend)
        inference = ShuffledInference(local, int(n), (reports[-1],), backend)
        _, table = inference.local_distribution(True)
        compiled = inference.compiled(True)
        probabilities = tuple(Fraction(p) for p in table[:, 0])
        if len(set(probabilities)) > 1 and (0 in probabilities or 1 in probabilities):
            raise WmcdpError(
                f"{compiled.program.name} reports {reports[-1]!r} with probability 0 or 1 for some value; "
                "the scaled shuffle needs both reports possible at every value (use the listed pairs, n <= 1000)"
            )
        values = tuple(compiled.domain.entry_values)
        return cls(int(n), values, probabilities, reports[-1], inference.diagram_size, compiled.program.name)

    @property
    def lo(self) -> Fraction:
        return min(self.probabilities)

    @property
    def hi(self) -> Fraction:
        return max(self.probabilities)

    def orientations(self) -> tuple[Binary, ...]:
        """Reduction 6's two orientations, or one when ``lo + hi = 1`` (they are then the same ``Binary``)."""
        forward, backward = Binary(self.lo, self.hi), Binary(1 - self.hi, 1 - self.lo)
        return (forward,) if forward == backward else (forward, backward)

    @property
    def name(self) -> str:
        return f"{self.label} (two reports, counted {self.one!r})"

    proof = "wmcdp.plan.shuffled_binary"
    symmetry = "others at the values of extreme report probability; j of them at the larger"

    @property
    def claims(self) -> tuple[str, ...]:
        return (
            "the output law depends on the values' report probabilities only (independent reports, counted)",
            "the worst datasets hold only the values of smallest and largest probability (convexity)",
            "each pair's hockey-stick sum has one threshold (Z_j log-concave)",
            "a block of configurations is bounded by its common users' noise (post-processing)",
        )

    def witness(self, point: ShuffledPoint) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Reductions 5-6 mapped back: orientation 0, ``(u_lo, u_hi^j, u_lo^(n−1−j))`` against the same with the
        first user at ``u_hi``; orientation 1 (configuration ``j`` of the complement), ``(u_hi, u_lo^j,
        u_hi^(n−1−j))`` against the same with the first user at ``u_lo``."""
        u_lo = self.values[self.probabilities.index(self.lo)]
        u_hi = self.values[self.probabilities.index(self.hi)]
        first, other = (u_lo, u_hi) if point.orientation == 0 else (u_hi, u_lo)
        rest = (other,) * point.j + (first,) * (self.n - 1 - point.j)
        return (first,) + rest, (other,) + rest


def scaled_estimate(n: int, epsilon0: float, traced: bool = True) -> float:
    """Seconds of one scaled run over ``n`` users (reductions 5-6) of a randomizer with pure ε ``epsilon0``: a fixed
    cost, the ``n`` terms traced and split (as the count of reports, :data:`~.costs.SUM_TERM_SECONDS`; not with
    ``traced`` False, the hand-proved pairs of a built-in), and the
    block search's evaluations, about :data:`~.costs.SCALED_EVALUATIONS` ``sqrt(n / (e^ε0 − 1))`` (the
    configurations whose bounds stay above the best one span a band that narrows as the reports grow apart), each
    :data:`~.costs.SCALED_EVALUATION_SECONDS`."""
    spread = math.expm1(epsilon0) if epsilon0 < 700 else math.inf
    evaluations = max(math.log2(max(n, 2)), SCALED_EVALUATIONS * math.sqrt(n / spread) if spread > 0 else 0.0)
    return SCALED_BASE_SECONDS + (n * SUM_TERM_SECONDS if traced else 0.0) + evaluations * SCALED_EVALUATION_SECONDS


def _reports(local: Program | Compiled, backend: str) -> tuple[Any, ...]:
    """The reports ``local`` can return with positive probability at some value, sorted; at most two."""
    c = as_compiled(local, backend, True)
    table = inference(c, ExhaustiveInference(c.domain, c.shape), exact=True)
    reports = sorted({y for _, y, p in table.items() if p != 0})
    if len(reports) > 2:
        raise WmcdpError(
            f"{c.program.name} has {len(reports)} reports; the scaled shuffle takes two (a count of one of them); "
            "use the listed pairs of wmcdp.plan.shuffle (n <= 1000) for more"
        )
    if len(reports) < 2:
        reports = reports + reports  # one report: every dataset has the same output, δ = 0
    return tuple(reports)


__all__ = ["ShuffledReports", "scaled_estimate"]
