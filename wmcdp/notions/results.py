"""The notions' result types: pure ε, accuracy, (ε, δ), a privacy profile's point and Rényi divergences.

They live here, below the notions' modules, :mod:`~wmcdp.notions.certify` and :mod:`~wmcdp.notions.rows`, so those
import them without a circle; :mod:`wmcdp.notions.privacy`, :mod:`~wmcdp.notions.accuracy`,
:mod:`~wmcdp.notions.approximate` and :mod:`~wmcdp.notions.renyi` re-export their own. Each result's fields
declare its Markdown (:func:`wmcdp.notions.markdown.shown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..base.numbers import Number, show
from ..lang.program import Value
from ..plan.pairs import PairWitness
from .markdown import code, shown
from .notion import Rendered


@dataclass(frozen=True)
class PrivacyWitness:
    """The worst-case triple: neighbouring inputs ``x``, ``x_prime`` and output ``y``."""

    x: Value
    x_prime: Value
    y: Value


@dataclass(frozen=True, repr=False)
class PrivacyResult(Rendered):
    """Tight ``epsilon`` (natural log) and ``ratio = e^epsilon``; exact runs give a Fraction ratio."""

    headline = ("epsilon", "ratio", "ratio_exact", "witness_x", "witness_x_prime", "witness_y")

    title = "**Tight privacy bound** ({mode})"

    epsilon: float = field(metadata=shown("ε", "g"))
    ratio: float | Fraction = field(metadata=shown("e^ε"))
    witness: PrivacyWitness = field(metadata=shown("witness x, x′, y", "code"))
    p_x: float | Fraction = field(metadata=shown("P(y \\| x)", log="log_p_x"))  # P(y | x) at the witness
    p_x_prime: float | Fraction = field(metadata=shown("P(y \\| x′)", log="log_p_x_prime"))  # P(y | x') at the witness
    exact: bool
    diagram_size: int
    seconds: float
    sets: Any = None  # with C="auto": the symmetry found and the set sizes (wmcdp.plan.symmetry.AutoSets)
    plan: Any = None  # with C=None: the planner's report (wmcdp.plan.PlanReport)
    log_p_x: float | None = None  # float mode: ln P(y | x) and ln P(y | x') (p_x can underflow to 0.0)
    log_p_x_prime: float | None = None
    log_epsilon: float | None = None  # ln ε of an exact ratio whose ε lies below the normal floats (it rounds there)
    interval: Any = None  # a certified run: the enclosure of epsilon (wmcdp.base.certified.Enclosure)
    #: the ratio is a supremum over outputs that none attains (a released gap that grows): how it is approached; the
    #: witness ``y`` then shows an output whose ratio is within a float's rounding of it
    approached: str | None = field(default=None, metadata=shown("approached", "text"))


@dataclass(frozen=True, repr=False)
class AccuracyResult(Rendered):
    """Tight ``1 - beta`` at accuracy ``alpha``, the worst input, and the ``top`` worst inputs."""

    headline = ("alpha", "one_minus_beta", "one_minus_beta_exact", "witness")

    title = "**Tight accuracy bound** ({mode})"

    alpha: Number = field(metadata=shown("α", "text"))
    one_minus_beta: float | Fraction = field(metadata=shown("1 − β"))
    beta: float | Fraction = field(metadata=shown("β"))
    witness: Value = field(metadata=shown("worst input x", "code"))
    top: tuple[tuple[Value, float | Fraction], ...]
    exact: bool
    diagram_size: int
    seconds: float
    sets: Any = None  # with A="auto": the symmetry found and the set sizes (wmcdp.plan.symmetry.AutoSets)
    plan: Any = None  # with A=None: the planner's report (wmcdp.plan.PlanReport)
    interval: Any = None  # unbounded noise: the bracket of 1 - beta (wmcdp.base.windows.WindowBracket)

    def markdown_rows(self) -> list[tuple[str, str]]:
        """The ``top`` list, one row per input."""
        return [(f"top {k}", f"{code(x)}: {show(v, self.exact)}") for k, (x, v) in enumerate(self.top, 1)]


@dataclass(frozen=True, repr=False)
class ApproximateResult(Rendered):
    """A point ``(epsilon, delta)`` on the tight privacy curve and the pair that attains it.

    Given ε: ``delta`` = δ(ε). Given δ: ``epsilon`` = ε(δ) and ``delta`` as given. ``ratio``
    is ``e^epsilon`` (a Fraction when exact and rational). Exact runs give ``delta`` as a
    Fraction when ``e^ε`` is rational. ``accountant`` says how ``compose`` runs were
    accounted (``"dp-accounting"`` results are upper bounds; see :mod:`wmcdp.notions.accounting`).
    """

    headline = ("epsilon", "delta", "delta_exact", "compose", "witness_x", "witness_x_prime")

    title = "**Tight (ε, δ)** ({mode})"

    epsilon: float = field(metadata=shown("ε", "g"))
    delta: float | Fraction = field(metadata=shown("δ", log="log_delta"))
    ratio: float | Fraction
    witness: PairWitness = field(metadata=shown("witness x, x′", "code"))
    compose: int
    exact: bool
    accountant: str
    diagram_size: int | None
    seconds: float
    symmetry: str = ""
    plan: Any = None  # with pairs=None: the planner's report (wmcdp.plan.PlanReport)
    log_delta: float | None = None  # given epsilon, delta a float: ln delta (delta itself can underflow to 0.0)
    interval: Any = None  # a certified run, or an exact one at an irrational e^eps: the enclosure of delta (given
    # epsilon) or of epsilon (given delta)
    exact_delta: Any = None  # an exact run at an irrational e^eps: delta as an exact real (base.certified.ExpGap)

    def markdown_rows(self) -> list[tuple[str, str]]:
        """The runs composed and their accountant, when more than one."""
        return [("runs composed", f"{self.compose} ({self.accountant})")] if self.compose > 1 else []


@dataclass(frozen=True)
class ProfilePoint:
    """One point of the privacy profile: ``delta`` = δ(``epsilon``) and the first pair that attains it
    (``log_delta``, ``interval`` and ``exact_delta`` as in :class:`ApproximateResult`)."""

    epsilon: float
    delta: float | Fraction
    witness: PairWitness
    epsilon_text: str
    plan: Any = None  # with pairs=None: the planner's report (the same for every point)
    log_delta: float | None = None
    interval: Any = None
    exact_delta: Any = None


@dataclass(frozen=True)
class RenyiOrder:
    """``epsilon`` = D_α at ``order`` (inf: the pure ε) and the first pair that attains it."""

    order: float
    epsilon: float
    witness: PairWitness
    log_epsilon: float | None = None  # ln D_α where an exact evaluation formed it (D_α can underflow to 0.0)


@dataclass(frozen=True, repr=False)
class RenyiResult(Rendered):
    """D_α per order; ``zcdp_rho`` = max over the finite orders of D_α/α, attained at ``zcdp_order``."""

    headline = ("zcdp_rho", "zcdp_order")
    title = "**Rényi divergences**"

    orders: list[RenyiOrder]
    zcdp_rho: float | None
    zcdp_order: float | None
    exact: bool
    diagram_size: int | None
    seconds: float
    symmetry: str = ""
    plan: Any = None  # with pairs=None: the planner's report (wmcdp.plan.PlanReport)
    intervals: tuple[Any, ...] | None = None  # a certified run: the enclosure of D_α per order
    log_zcdp_rho: float | None = None  # ln ρ where the order's D_α carries its log (ρ can underflow to 0.0)
    zcdp_interval: Any = None  # unbounded noise: the bracket of zcdp_rho (intervals: each D_α's)

    def record(self) -> dict[str, Any]:
        """The columns of :meth:`Rendered.record`, and ``D_α`` of each order as ``D_2``, ``D_inf``, ...."""
        return {**super().record(), **{f"D_{o.order:g}": o.epsilon for o in self.orders}}

    def _headline(self) -> Sequence[str]:
        return [*(f"D_{o.order:g}" for o in self.orders), *self.headline]

    def markdown_rows(self) -> list[tuple[str, str]]:
        """D_α per order with its pair, and zCDP ρ."""
        w = [
            (f"D_{o.order:g}", f"{o.epsilon:.10g} at {code(o.witness.x)}, {code(o.witness.x_prime)}")
            for o in self.orders
        ]
        if self.zcdp_rho is not None:
            w.append(("zCDP ρ", f"{self.zcdp_rho:.10g} (order {self.zcdp_order:g})"))
        return w


__all__ = [
    "PrivacyWitness",
    "PrivacyResult",
    "AccuracyResult",
    "ApproximateResult",
    "ProfilePoint",
    "RenyiOrder",
    "RenyiResult",
]
