"""Audit IBM's diffprivlib 0.6.6: the epsilon each finite or integer mechanism claims against the exact one.

A diffprivlib mechanism draws one uniform double ``u = self._rng.random()`` and turns it into an output with
float arithmetic. The audit runs the library's own ``randomise`` with a stub generator (a
``secrets.SystemRandom``, which ``check_random_state`` hands back unchanged) that returns ``u = k * 2^-53``,
and :func:`wmcdp.lang.models.grid_model` finds the exact distribution over the grid by bisection (checked at
every run's ends and at 10 000 random ``k`` per segment). The distributions of all inputs become one wmcdp
program, ``discrete(lambda i: distribution[i], x)``, whose tight epsilon over the mechanism's neighbour
relation is computed exactly and compared with the claim (:func:`wmcdp.audit.core.verdict`). Each grid model
is checked exactly by :func:`run_end_check` (the public ``randomise`` at both ends of every run), and every
finding gets a standalone reproducer (:func:`reproducer`).

The models follow diffprivlib 0.6.6's source:

* ``Binary.randomise`` (``mechanisms/binary.py``, lines 83-92): ``u * (exp(eps) + 1) > exp(eps) + delta``
  flips the label;
* ``Geometric.randomise`` (``mechanisms/geometric.py``, lines 105-113): ``v = (u - 0.5) * (1 + exp(scale))``,
  output ``round(value + sgn(v) * floor(log(|v|) / scale))``; monotone in ``u`` on ``[0, 1/2)`` and on
  ``[1/2, 1)``, the two grid segments. Its output is ``value`` plus a noise that does not depend on
  ``value`` (integer additions are exact), so every neighbouring pair ``(v, v + 1)`` has the ratios of
  ``(0, 1)``: the audit takes that pair, and the grid makes the support finite (a noise of at most about
  ``37 / eps``), which is the stated argument for an unbounded output;
* ``GeometricTruncated.randomise`` and ``GeometricFolded.randomise`` (lines 168-172, 229-233): the same draw,
  then ``_truncate`` or ``_fold`` into ``[lower, upper]``; every input of the range, neighbours one apart;
* ``Exponential.randomise`` (``mechanisms/exponential.py``, lines 164-191): the first index whose cumulative
  probability is at least ``u``; the input is a utility vector, whose neighbours move every utility by at
  most the sensitivity: the base vector against each of the 3^n - 1 vectors around it, both ways (an exact
  epsilon over those pairs: a lower bound on the mechanism's worst case over all utility vectors);
* ``ExponentialCategorical.randomise`` (``mechanisms/exponential.py``, lines 456-468): ``u`` times the input's
  normalising constant against the running sum of ``exp(-eps * utility / factor / sensitivity)`` (factor 1
  when ``np.isclose`` finds every normalising constant equal, 2 otherwise: lines 389-411); monotone in ``u``.
  The input is a categorical value and every two values are neighbours (the sensitivity is the largest
  utility);
* ``ExponentialHierarchical`` (``mechanisms/exponential.py``, lines 473-562): ``ExponentialCategorical`` with
  the utility list its ``_build_utility_list`` makes (the hierarchy's height minus the common prefix of two
  leaves); the inputs are the leaves, every two neighbours;
* ``GaussianDiscrete.randomise`` (``mechanisms/gaussian.py``, lines 273-294) claims (epsilon, delta) at the scale
  ``_find_scale`` solves for: a loop of rounds, each a geometric count of ``bernoulli_neg_exp(tau)`` successes, a
  sign ``u < 0.5`` (a negative zero starts the round again) and an acceptance
  ``bernoulli_neg_exp((|y| - tau sigma^2)^2 / 2 / sigma^2)``; so ``P(y)`` is ``b^|y| a(y)`` normalised, with
  ``b`` and ``a(y)`` the grid probabilities of :func:`bernoulli_neg_exp_one` (exact reals). The inputs are 0 and
  1 (the output is the input plus a noise that does not depend on it); the outputs ``-W .. W + 1`` are kept and
  the rest merged (the same mass, below ``2^-200``, for both inputs), so the certified tight delta at the claimed
  epsilon of that model, and that plus ``2^-200``, enclose the mechanism's;
* ``PermuteAndFlip.randomise`` (``mechanisms/exponential.py``, lines 254-279) draws many uniforms: a
  candidate at ``int(u * len(candidate_ids))`` (its grid distribution found by :func:`grid_model`), then
  ``bernoulli_neg_exp(-log_probability)`` (``mechanisms/base.py``, lines 234-269), which subtracts 1 from
  ``gamma`` in floats while it exceeds 1 (each step a ``bernoulli_neg_exp(1)`` that must succeed) and then
  counts up while ``u <= gamma / counter``, returning the counter's parity. With ``P(u <= t)`` on the grid
  that parity is an infinite series; it is enclosed exactly (the partial sum plus the mass of the counter
  passing the last term, which falls below the working precision) as an exact real
  (:class:`wmcdp.Real`), and the audit's epsilon is a certified enclosure (:mod:`wmcdp.base.certified`); every
  candidate rejected is the outcome ``raises RuntimeError``. Inputs and neighbours as for ``Exponential``.

Needs the optional extra: ``pip install 'wmcdp[diffprivlib]'`` (diffprivlib 0.6.6 and scipy).
"""

from __future__ import annotations

import math
import secrets
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..base.certified import Real, arb_of
from ..base.errors import WmcdpError
from ..lang.models import GRID, GridModel, grid_model
from ..notions.approximate import synthesize_approximate
from ..notions.privacy import synthesize_privacy
from .core import (
    AuditCase,
    AuditedLibrary,
    AuditRow,
    ExactCheck,
    Mechanism,
    Modelled,
    certified_verdict,
    choice_program,
    library,
    verdict,
    with_tight_delta,
)
from .pureldp import TAIL

HALF = GRID // 2


def _diffprivlib() -> Any:
    return library("diffprivlib", "diffprivlib", "diffprivlib", "diffprivlib")


#: the version of the library the models follow
MODELLED = "0.6.6"


class GridDraw(secrets.SystemRandom):
    """A generator whose ``random()`` returns the double it was set to (diffprivlib accepts any SystemRandom)."""

    u = 0.0

    def random(self) -> float:
        return self.u


@dataclass(frozen=True, kw_only=True)
class Sampler:
    """A case's mechanism (its :class:`~wmcdp.audit.core.AuditCase`'s ``spec``), declared with keywords: the claim,
    the inputs, their neighbours, and how to build and run it."""

    claimed: float
    inputs: tuple[Any, ...]
    neighbours: Callable[[Any, Any], bool]
    build: Callable[[Any, Any, Any], Any]  # (diffprivlib, random state, input or None) -> a mechanism
    randomise: Callable[[Any, Any], Hashable]  # (mechanism, input) -> output
    segments: tuple[tuple[int, int], ...] = ((0, GRID - 1),)
    per_input: bool = False  # build one mechanism per input (the input is the mechanism's data: utilities)
    d_in: int = 1
    post: Callable[[Any, Any], Hashable] | None = None  # (mechanism, draw's output) -> output, deterministic
    public: Callable[[Any, Any], Hashable] | None = None  # the library's own call, when ``randomise`` is a part
    exact_model: Callable[[Any], dict[Hashable, Any]] | None = None  # (mechanism) -> distribution, not a grid model
    script: str | None = None  # the reproducer's constructor as text (``random_state=draw``, the input ``item``)
    walked: str = "mechanism.randomise(item)"  # the reproducer's draw whose grid runs it walks, as text
    post_text: str = "o"  # and its post-processing of a run's output ``o``, as text
    delta: float | None = None  # an (epsilon, delta) claim's delta


#: how every diffprivlib model is validated
VALIDATION = (
    "the library's own randomise run at grid points (bisection, checked at every run's ends and 10 000 random "
    "points per segment); its public randomise at both ends of every run of the model (exact); its public "
    "randomise with its own generator against the model (chi-square)"
)


def _case(
    mechanism: str,
    params: str,
    spec: Sampler,
    claim: str = "the epsilon it is built with",
    model: Callable[[AuditCase], Modelled] | None = None,
) -> AuditCase:
    """A diffprivlib case: its model the grid model of the library's own draw (or ``model``), its draws the
    library's."""
    return AuditCase(
        library="diffprivlib",
        mechanism=mechanism,
        params=params,
        claim=claim,
        model=model or _row,
        draw=draw_counts,
        validation=VALIDATION,
        spec=spec,
    )


def _sampler(case: Sampler, lib: Any, x: Any) -> tuple[Callable[[float], Hashable], Any]:
    draw = GridDraw()
    mechanism = case.build(lib, draw, x if case.per_input else None)

    def sample(u: float) -> Hashable:
        draw.u = u
        return _outcome(case.randomise, mechanism, x)

    return sample, mechanism


def _outcome(call: Callable[[Any, Any], Hashable], mechanism: Any, x: Any) -> Hashable:
    """``call(mechanism, x)`` as an output; a failure of the library on this draw is the outcome
    ``raises ErrorType`` (log(0) at u = 1/2 is raised, not warned)."""
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _plain(call(mechanism, x))
    except (ArithmeticError, ValueError, RuntimeError) as exc:
        return f"raises {type(exc).__name__}"


def _plain(y: Any) -> Hashable:
    """numpy integers as Python ints (the outputs are compared and shown)."""
    return int(y) if isinstance(y, np.integer) else y


def _post(post: Callable[[Any, Any], Hashable], mechanism: Any) -> Callable[[Hashable], Hashable]:
    """The mechanism's post-processing of a draw's output (a failed draw stays a failure)."""
    return lambda y: y if isinstance(y, str) else post(mechanism, y)


def _binary(eps: float) -> AuditCase:
    return _case(
        "Binary",
        f"epsilon={eps!r}",
        Sampler(
            claimed=eps,
            inputs=("a", "b"),
            neighbours=lambda x, y: x != y,
            build=lambda lib, rng, _: lib.mechanisms.Binary(epsilon=eps, value0="a", value1="b", random_state=rng),
            randomise=lambda m, x: m.randomise(x),
            script=f"Binary(epsilon={eps!r}, value0='a', value1='b', random_state=draw)",
        ),
    )


def _geometric(eps: float) -> AuditCase:
    return _case(
        "Geometric",
        f"epsilon={eps!r}",
        Sampler(
            claimed=eps,
            inputs=(0, 1),
            neighbours=lambda x, y: abs(x - y) == 1,
            build=lambda lib, rng, _: lib.mechanisms.Geometric(epsilon=eps, sensitivity=1, random_state=rng),
            randomise=lambda m, x: m.randomise(x),
            segments=((0, HALF - 1), (HALF, GRID - 1)),
            script=f"Geometric(epsilon={eps!r}, sensitivity=1, random_state=draw)",
        ),
    )


def _bounded(kind: str, eps: float, upper: int) -> AuditCase:
    """Truncated: clipped (monotone in the draw). Folded: reflected at the bounds, not monotone, so the model
    is the inner Geometric draw (monotone on each half of the grid), then the library's own ``_fold``."""
    folded = kind == "GeometricFolded"
    return _case(
        kind,
        f"epsilon={eps!r}, lower=0, upper={upper}",
        Sampler(
            claimed=eps,
            inputs=tuple(range(upper + 1)),
            neighbours=lambda x, y: abs(x - y) == 1,
            build=lambda lib, rng, _: getattr(lib.mechanisms, kind)(
                epsilon=eps, sensitivity=1, lower=0, upper=upper, random_state=rng
            ),
            randomise=(lambda m, x: super(type(m), m).randomise(x)) if folded else (lambda m, x: m.randomise(x)),
            segments=((0, HALF - 1), (HALF, GRID - 1)),
            post=(lambda m, y: int(np.round(m._fold(y)))) if folded else None,
            public=(lambda m, x: m.randomise(x)) if folded else None,
            script=f"{kind}(epsilon={eps!r}, sensitivity=1, lower=0, upper={upper}, random_state=draw)",
            walked="Geometric.randomise(mechanism, item)" if folded else "mechanism.randomise(item)",
            post_text="int(np.round(mechanism._fold(o)))" if folded else "o",
        ),
    )


def _exponential(eps: float, utility: Sequence[float]) -> AuditCase:
    """The utility vector as the data: its neighbours move every utility by at most the sensitivity (1)."""
    moved: list[tuple[float, ...]] = [()]
    for u in utility:
        moved = [m + (u + d,) for m in moved for d in (0, -1, 1)]
    base = moved[0]
    return _case(
        "Exponential",
        f"epsilon={eps!r}, sensitivity=1, utility={list(utility)!r}",
        Sampler(
            claimed=eps,
            inputs=tuple(moved),
            neighbours=lambda x, y: (x == base) != (y == base),
            build=lambda lib, rng, utility: lib.mechanisms.Exponential(
                epsilon=eps, sensitivity=1, utility=list(utility), random_state=rng
            ),
            randomise=lambda m, _: m.randomise(),
            per_input=True,
            script=f"Exponential(epsilon={eps!r}, sensitivity=1, utility=list(item), random_state=draw)",
            walked="mechanism.randomise()",
        ),
    )


def _permute_and_flip(eps: float, utility: Sequence[float]) -> AuditCase:
    base = _exponential(eps, utility)
    spec = replace(
        base.spec,
        build=lambda lib, rng, utility: lib.mechanisms.PermuteAndFlip(
            epsilon=eps, sensitivity=1, utility=list(utility), random_state=rng
        ),
        exact_model=permute_and_flip_distribution,
        script=f"PermuteAndFlip(epsilon={eps!r}, sensitivity=1, utility=list(item))",
    )
    return replace(base, mechanism="PermuteAndFlip", spec=spec)


def grid_at_most(t: float) -> Fraction:
    """``P(u <= t)`` for ``u = k 2^-53`` uniform on the grid."""
    if t >= 1:
        return Fraction(1)
    if t < 0:
        return Fraction(0)
    return Fraction(min(math.floor(Fraction(t) * GRID) + 1, GRID), GRID)


@lru_cache(maxsize=4096)
def _parity_terms(gamma: float, bits: int) -> tuple[Fraction, Fraction]:
    """``(P(the counter stops at an odd value by the last term), P(it goes on))`` for base.py lines 264-268
    (``gamma <= 1``), summed until the second is below ``2^-bits``."""
    odd, through, counter = Fraction(0), Fraction(1), 1
    while through > Fraction(1, 1 << bits):
        p = grid_at_most(gamma / counter)
        if counter % 2 == 1:
            odd += through * (1 - p)
        through *= p
        counter += 1
    return odd, through


def _parity(gamma: float) -> Real:
    """``P(bernoulli_neg_exp(gamma) = 1)`` for ``gamma <= 1`` on the grid, as an exact real: at precision
    ``P`` the partial sum plus half of what is left, with that half as the radius (below ``2^-(P+8)``)."""

    def ball() -> Any:
        import flint  # deferred: python-flint (77 ms to import) only when a ball is computed

        odd, through = _parity_terms(gamma, flint.ctx.prec + 8)
        half = arb_of(through / 2)
        return flint.arb(arb_of(odd + through / 2), half.mid() + half.rad())

    return Real(f"P(bernoulli_neg_exp({gamma!r}) = 1)", ball=ball)


def bernoulli_neg_exp_one(gamma: float) -> Real:
    """``P(bernoulli_neg_exp(gamma) = 1)``: base.py lines 259-262 subtract 1 in floats while ``gamma > 1``,
    each step needing ``bernoulli_neg_exp(1) = 1``; then lines 264-269 at what is left."""
    steps = 0
    while gamma > 1:
        gamma -= 1
        steps += 1
    return _parity(1.0) ** steps * _parity(gamma)


@lru_cache(maxsize=64)
def _positions(length: int) -> tuple[Fraction, ...]:
    """``P(int(u * length) = i)`` on the grid (exponential.py line 273), from its grid model."""
    dist = grid_model(lambda u: int(u * length), checks=1000).distribution()
    return tuple(dist.get(i, Fraction(0)) for i in range(length))


def permute_and_flip_distribution(mechanism: Any) -> dict[Hashable, Any]:
    """The exact output distribution of ``PermuteAndFlip.randomise`` (lines 270-279): every order in which
    candidates are drawn (removed from the list as the library does) and each one's acceptance."""
    accept = [bernoulli_neg_exp_one(float(-lp)) for lp in mechanism._probabilities]
    out: dict[Hashable, Any] = {}

    def walk(remaining: list[int], weight: Any) -> None:
        if not remaining:
            out["raises RuntimeError"] = out.get("raises RuntimeError", Fraction(0)) + weight
            return
        for position, chance in enumerate(_positions(len(remaining))):
            if chance == 0:
                continue
            idx = remaining[position]
            w = weight * chance
            out[idx] = out.get(idx, Fraction(0)) + w * accept[idx]
            walk([c for c in remaining if c != idx], w * (1 - accept[idx]))

    walk(list(range(len(mechanism._probabilities))), Fraction(1))
    return out


def _categorical(eps: float, utility: Sequence[tuple[str, str, float]]) -> AuditCase:
    """Every two values of the domain are neighbours; the utilities between them are the metric."""
    domain = tuple(sorted({v for a, b, _ in utility for v in (a, b)}))
    return _case(
        "ExponentialCategorical",
        f"epsilon={eps!r}, utility_list={list(utility)!r}",
        Sampler(
            claimed=eps,
            inputs=domain,
            neighbours=lambda x, y: x != y,
            build=lambda lib, rng, _: lib.mechanisms.ExponentialCategorical(
                epsilon=eps, utility_list=list(utility), random_state=rng
            ),
            randomise=lambda m, x: m.randomise(x),
            script=f"ExponentialCategorical(epsilon={eps!r}, utility_list={list(utility)!r}, random_state=draw)",
        ),
    )


def _hierarchical(eps: float, hierarchy: list[Any]) -> AuditCase:
    """``ExponentialHierarchical``: ``ExponentialCategorical`` over the leaves, its utilities the hierarchy's
    distances (exponential.py lines 499-562); every two leaves are neighbours."""

    def leaves(node: Any) -> list[str]:
        return [node] if isinstance(node, str) else [leaf for child in node for leaf in leaves(child)]

    return _case(
        "ExponentialHierarchical",
        f"epsilon={eps!r}, hierarchy={hierarchy!r}",
        Sampler(
            claimed=eps,
            inputs=tuple(sorted(leaves(hierarchy))),
            neighbours=lambda x, y: x != y,
            build=lambda lib, rng, _: lib.mechanisms.ExponentialHierarchical(
                epsilon=eps, hierarchy=hierarchy, random_state=rng
            ),
            randomise=lambda m, x: m.randomise(x),
            script=f"ExponentialHierarchical(epsilon={eps!r}, hierarchy={hierarchy!r}, random_state=draw)",
        ),
    )


def _gaussian_discrete(eps: float, delta: float) -> AuditCase:
    """``GaussianDiscrete`` at sensitivity 1: its own certified model (:func:`_gaussian_row`), inputs 0 and 1."""
    spec = Sampler(
        claimed=eps,
        inputs=(0, 1),
        neighbours=lambda x, y: x != y,
        build=lambda lib, rng, _: lib.mechanisms.GaussianDiscrete(
            epsilon=eps, delta=delta, sensitivity=1, random_state=rng
        ),
        randomise=lambda m, x: m.randomise(x),
        public=lambda m, x: _gauss_code(int(m.randomise(x)), _gauss_window(m)),
        delta=delta,
    )
    claim = "(epsilon, delta)-DP at the epsilon and delta it is built with"
    return _case("GaussianDiscrete", f"epsilon={eps!r}, delta={delta!r}", spec, claim, _gaussian_row)


#: utilities of three categories: balanced (every normalising constant equal, the factor 2 dropped), a hair
#: from balanced (np.isclose still says balanced), and unbalanced
CATEGORIES = (
    (("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0)),
    (("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0 + 1e-9)),
    (("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 2.0)),
)


def _cases() -> list[AuditCase]:
    out = [_binary(eps) for eps in (0.01, 0.5, 1.0, 5.0, 20.0, 36.0, 40.0)]
    out += [_geometric(eps) for eps in (0.5, 1.0, 5.0)]
    for kind in ("GeometricTruncated", "GeometricFolded"):
        out += [_bounded(kind, eps, 4) for eps in (0.1, 1.0, 5.0, 40.0)]
    out += [_exponential(eps, (0.0, 1.0, 2.0)) for eps in (0.5, 1.0, 5.0)]
    out += [_exponential(1.0, (0.0, 1e-9, 1.0))]  # utilities a hair from a tie
    out += [_categorical(eps, u) for u in CATEGORIES for eps in (0.1, 1.0, 40.0)]
    out += [_permute_and_flip(eps, (0.0, 1.0, 2.0)) for eps in (1.0, 5.0, 40.0)]
    out += [_hierarchical(eps, [["a", "b"], ["c", "d"]]) for eps in (0.5, 1.0, 5.0)]
    out += [_hierarchical(1.0, [["a", "b"], ["c"]])]
    out += [_gaussian_discrete(eps, delta) for eps, delta in ((1.0, 1e-5), (0.5, 1e-3), (2.0, 1e-6), (1.0, 0.01))]
    return out


#: every public mechanism of ``diffprivlib.mechanisms``, described once
MECHANISMS = (
    Mechanism(
        "Binary", "audited", "the two labels, neighbours; flip when `u·(e^ε + 1) > e^ε + δ`: one threshold on the grid"
    ),
    Mechanism(
        "Geometric",
        "audited",
        "inputs 0 and 1 (the output is the input plus a noise that does not depend "
        "on it, so every neighbouring pair has these ratios); the inverse CDF, monotone on each half of the "
        "grid; the grid makes its support finite",
    ),
    Mechanism(
        "GeometricTruncated",
        "audited",
        "every value of `[lower, upper]`, one apart; the Geometric draw, then the library's `_truncate`",
    ),
    Mechanism(
        "GeometricFolded",
        "audited",
        "every value of `[lower, upper]`, one apart; the Geometric draw (on "
        "the grid), then the library's `_fold` (folding is not monotone, the draw is)",
    ),
    Mechanism(
        "Exponential",
        "audited",
        "a utility vector and the 3^n − 1 vectors around it (every utility moved "
        "by at most the sensitivity); the first cumulative probability at least `u`; an exact ε over these "
        "pairs, a lower bound on the worst case",
    ),
    Mechanism(
        "ExponentialCategorical",
        "audited",
        "every value of the domain, every two neighbours; `u` times the "
        "input's normalising constant against the running sums of `exp(−ε·utility/factor/sensitivity)`",
    ),
    Mechanism(
        "PermuteAndFlip",
        "audited",
        "inputs as `Exponential`; many draws: a candidate at `int(u · len)`, "
        "accepted by `bernoulli_neg_exp`, a loop of draws `u <= γ/k` with no bound on their number; its grid "
        "probability is an infinite series enclosed as an exact real, so the verdict comes from a certified "
        "enclosure; every candidate rejected is the outcome `raises RuntimeError`",
    ),
    Mechanism(
        "ExponentialHierarchical",
        "audited",
        "`ExponentialCategorical` over the leaves, every two "
        "neighbours, its utilities the hierarchy's distances (height minus the common prefix)",
    ),
    Mechanism(
        "GaussianDiscrete",
        "audited",
        "claims (ε, δ); Canonne, Kamath and Steinke's rejection sampler: a "
        "geometric count of `bernoulli_neg_exp(tau)` successes, a sign `u < 0.5` (a negative zero rejected), "
        "accepted by `bernoulli_neg_exp((|y| − tau σ²)² / 2 / σ²)`, each a series enclosed as an exact real; "
        "inputs 0 and 1, outputs within a window and the rest merged (equal for both inputs, under "
        "2^-200); the tight δ at the claimed ε is certified",
    ),
    Mechanism("Laplace", "not auditable", "continuous output (a float noise: every output has probability 0)"),
    Mechanism("LaplaceTruncated", "not auditable", "continuous output inside the bounds"),
    Mechanism("LaplaceFolded", "not auditable", "continuous output inside the bounds"),
    Mechanism("LaplaceBoundedDomain", "not auditable", "continuous output inside the bounds"),
    Mechanism("LaplaceBoundedNoise", "not auditable", "continuous output; claims (ε, δ) for bounded noise"),
    Mechanism("Gaussian", "not auditable", "continuous output"),
    Mechanism("GaussianAnalytic", "not auditable", "continuous output"),
    Mechanism(
        "Snapping",
        "not auditable",
        "continuous output rounded to a power-of-two grid of the noise's scale: a float per input, no finite model",
    ),
    Mechanism("Staircase", "not auditable", "continuous output"),
    Mechanism("Uniform", "not auditable", "continuous output"),
    Mechanism("Vector", "not auditable", "a continuous random vector added to an objective function"),
    Mechanism("Bingham", "not auditable", "a continuous unit vector"),
)

#: diffprivlib as an audited library
#: the neighbouring notion of each mechanism's cases (diffprivlib's sensitivity over the mechanism's domain)
NEIGHBOURS = {
    "Binary": "the two labels",
    "Geometric": "two integers one apart (sensitivity 1)",
    "GeometricTruncated": "two integers of [lower, upper] one apart (sensitivity 1)",
    "GeometricFolded": "two integers of [lower, upper] one apart (sensitivity 1)",
    "Exponential": "two utility vectors, every utility moved by at most the sensitivity",
    "PermuteAndFlip": "two utility vectors, every utility moved by at most the sensitivity",
    "ExponentialCategorical": "any two values of the domain (the utilities are the metric)",
    "ExponentialHierarchical": "any two leaves of the hierarchy (its distances are the metric)",
    "GaussianDiscrete": "two integers one apart (sensitivity 1)",
}

#: the library's source line behind each violated mechanism (diffprivlib 0.6.6)
SOURCES = (
    (
        "PermuteAndFlip",
        "diffprivlib/mechanisms/base.py:266, bernoulli_neg_exp: `while rng.random() <= gamma / counter:` holds for "
        "a draw of exactly 0, so at gamma = 0 (the best candidate) Bernoulli(e^0) is 0 with probability about 2^-53 "
        "and every candidate can be rejected (RuntimeError)",
    ),
)


def _neighbours(case: AuditCase) -> str:
    return NEIGHBOURS.get(case.mechanism, "neighbouring values of the mechanism's domain")


LIBRARY = AuditedLibrary(
    "diffprivlib",
    "diffprivlib",
    "diffprivlib",
    "diffprivlib",
    __name__,
    _diffprivlib,
    _cases,
    MECHANISMS,
    _neighbours,
    SOURCES,
)
cases = LIBRARY.cases
audit_diffprivlib = LIBRARY.audit
diffprivlib_version = LIBRARY.version


def models(case: AuditCase) -> list[GridModel]:
    """The grid model of the mechanism on every input of the case."""
    return _models(case.spec)


def _models(case: Sampler) -> list[GridModel]:
    lib = _diffprivlib()
    out = []
    for x in case.inputs:
        sample, mechanism = _sampler(case, lib, x)
        model = grid_model(sample, segments=case.segments)
        if case.post is not None:
            model = model.mapped(_post(case.post, mechanism))
        out.append(model)
    return out


def run_end_check(spec: Sampler, x: Any, model: GridModel) -> ExactCheck:
    """The exact differential check of a grid model on the input ``x``: the library's public ``randomise`` (the
    call the sampling checks draw from: for ``GeometricFolded`` the fold included) at both ends of every run of
    the model, with the stub generator at ``u = k 2^-53``, must give the run's output. A model whose run ends
    are moved by a single grid point fails it (its own ends differ from the library's there)."""
    draw = GridDraw()
    mechanism = spec.build(_diffprivlib(), draw, x if spec.per_input else None)
    points = 0
    for run in model.runs:
        for k in sorted({run.start, run.end}):
            draw.u = k / GRID
            got = _outcome(spec.public or spec.randomise, mechanism, x)
            points += 1
            if got != run.output:
                return ExactCheck(
                    repr(x), points, f"at u = {k} * 2^-53 the library gives {got!r}, the model {run.output!r}"
                )
    return ExactCheck(repr(x), points)


def distributions(case: AuditCase) -> list[dict[Hashable, Any]]:
    """The exact output distribution on every input of the case: from grid models, or the case's own
    exact model (whose probabilities may be exact reals)."""
    spec: Sampler = case.spec
    if spec.exact_model is None:
        return [g.distribution() for g in _models(spec)]
    lib = _diffprivlib()
    return [spec.exact_model(spec.build(lib, GridDraw(), x if spec.per_input else None)) for x in spec.inputs]


def draw_counts(case: AuditCase, x: Any, draws: int) -> Counter[Any]:
    """``draws`` outputs of the mechanism on ``x``: its public ``randomise`` with diffprivlib's own (secure)
    generator, whatever part of it the model follows."""
    lib, spec = _diffprivlib(), case.spec
    rng = secrets.SystemRandom()
    mechanism = spec.build(lib, rng, x if spec.per_input else None)
    out: Counter[Any] = Counter()
    for _ in range(draws):
        out[_outcome(spec.public or spec.randomise, mechanism, x)] += 1
    return out


def _shown_probability(p: Any) -> str:
    """A probability as a report shows it: a fraction, or an exact real as the midpoint of a 400-bit enclosure
    (17 significant digits)."""
    if isinstance(p, Real):
        mid, _ = p.enclosure(400)
        return "0" if mid == 0 else _significant(mid)
    return str(p)


def _significant(q: Fraction) -> str:
    """A positive rational in scientific notation with 17 significant digits (however small: no float)."""
    exponent = math.floor(math.log10(q.numerator) - math.log10(q.denominator))
    digits = round(q * Fraction(10) ** (16 - exponent))
    if digits >= 10**17:
        digits, exponent = round(Fraction(digits, 10)), exponent + 1
    text = str(digits)
    return f"{text[0]}.{text[1:]}e{exponent}"


def _judged(claimed: float, r: Any, certified: bool) -> tuple[float, str | None, str]:
    """``(epsilon, exact ratio, verdict)`` of a privacy result: a certified enclosure's upper end and its verdict,
    or the exact ratio's."""
    if certified:
        return r.interval.hi, None, certified_verdict(claimed, claimed, r.interval.lo, r.interval.hi)
    return r.epsilon, "inf" if r.ratio == math.inf else str(r.ratio), verdict(claimed, r.ratio, r.epsilon, True)


def _row(case: AuditCase) -> Modelled:
    """The case's row (a certified enclosure when the model's probabilities are exact reals) with the witness's
    two probabilities, the reproducer and, for grid models, the exact check of every input's model
    (:func:`run_end_check`); and the witness's two inputs to sample with the model's distributions there."""
    spec: Sampler = case.spec
    certified = spec.exact_model is not None
    grids = [] if certified else _models(spec)
    dists = distributions(case) if certified else [g.distribution() for g in grids]
    prog, outputs, relation = choice_program(case.mechanism, spec.inputs, spec.neighbours, dists)
    r = synthesize_privacy(
        prog, "exhaustive", neighbours=relation, force=True, exact=None if certified else True, certified=certified
    )
    i, j = r.witness.x[0], r.witness.x_prime[0]
    x, xp, y = spec.inputs[i], spec.inputs[j], outputs[r.witness.y]
    row = AuditRow(
        case.mechanism,
        case.params,
        spec.d_in,
        spec.claimed,
        *_judged(spec.claimed, r, certified),
        (repr(x), repr(xp), repr(y)),
        0.0,
        witness_probabilities=(_shown_probability(dists[i].get(y, 0)), _shown_probability(dists[j].get(y, 0))),
        reproducer=reproducer(case, LIBRARY.version(), x, xp, y),
        exact=tuple(run_end_check(spec, v, g) for v, g in zip(spec.inputs, grids)),
    )
    row = with_tight_delta(row, prog, relation, **({"certified": True} if certified else {"exact": True}))
    inputs = [(i, x), (j, xp)]
    return row, [(repr(v), {y: float(p) for y, p in dists[i].items()}, v) for i, v in inputs]


__all__ = [
    "MODELLED",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "Sampler",
    "GridDraw",
    "audit_diffprivlib",
    "bernoulli_neg_exp_one",
    "cases",
    "diffprivlib_version",
    "distributions",
    "draw_counts",
    "gaussian_discrete_outputs",
    "grid_at_most",
    "models",
    "permute_and_flip_distribution",
    "reproducer",
    "run_end_check",
]


# -- reproducers: a script per finding that needs diffprivlib alone -------------------------------------

_HEAD = '''"""{label}: diffprivlib {version} claims epsilon = {claim!r}, yet the output y = {y!r} is more likely
under x = {x!r} than e^epsilon times its probability under x' = {xp!r}.
Needs only diffprivlib. '''

_GRID = (
    _HEAD
    + '''The mechanism draws one double u = self._rng.random(), k / 2**53 for k uniform
in 0 .. 2**53 - 1 (CPython's and numpy's 53-bit doubles), and on each segment of k below its draw is a monotone
step function of k (an inverse CDF, a threshold, a running sum): the script walks the runs of each segment by
bisection, calling the library itself with a generator that returns the chosen u, and counts the k giving y."""
import secrets
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
from diffprivlib.mechanisms import *

GRID = 2**53


class Draw(secrets.SystemRandom):  # check_random_state hands a SystemRandom back unchanged
    u = 0.0

    def random(self):
        return self.u


draw = Draw()
claim = {claim!r}
x, x_prime, y = {x!r}, {xp!r}, {y!r}
segments = {segments!r}


def build(item):
    return {script}


def output(mechanism, item, k):  # the draw at u = k / 2**53; a failure of the library is an outcome too
    draw.u = k / GRID
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            o = {walked}
    except (ArithmeticError, ValueError, RuntimeError) as exc:
        return f"raises {{type(exc).__name__}}"
    o = int(o) if isinstance(o, np.integer) else o
    return o if isinstance(o, str) else {post}


def prob(item):
    mechanism, count = build(item), 0
    for lo, hi in segments:
        while lo <= hi:
            here, a, b = output(mechanism, item, lo), lo, hi  # the run from lo: its last k by bisection
            while a < b:
                mid = (a + b + 1) // 2
                a, b = (mid, b) if output(mechanism, item, mid) == here else (a, mid - 1)
            count += (a - lo + 1) if here == y else 0
            lo = a + 1
    return Fraction(count, GRID)

'''
)

_PERMUTE_AND_FLIP = (
    _HEAD
    + '''PermuteAndFlip.randomise (mechanisms/exponential.py) tries every candidate
once, in a random order, accepting it when bernoulli_neg_exp(-log probability) is 1 (mechanisms/base.py), and
raises RuntimeError when it accepts none: the order does not matter, so P(RuntimeError) is the product over the
candidates of P(bernoulli_neg_exp(gamma) = 0). bernoulli_neg_exp subtracts 1 from gamma in floats while it
exceeds 1 (each step a bernoulli_neg_exp(1) that must be 1), then counts up while u <= gamma / counter and
returns the counter's parity; u = k / 2**53 (CPython's doubles), so P(u <= t) is a count of grid points.
The series are summed with exact fractions until what is left is below 2**-400 (the printed ratio is exact
to about 2**-240 relative)."""
import math
from decimal import Decimal, getcontext
from fractions import Fraction

from diffprivlib.mechanisms import PermuteAndFlip

GRID = 2**53
claim = {claim!r}
x, x_prime, y = {x!r}, {xp!r}, {y!r}


def at_most(t):  # P(u <= t)
    return Fraction(min(max(math.floor(Fraction(t) * GRID) + 1, 0), GRID), GRID)


def parity(gamma):  # P(the counter stops at an odd value), gamma <= 1 (base.py lines 264-269)
    odd, through, counter = Fraction(0), Fraction(1), 1
    while through > Fraction(1, 2**400):
        p = at_most(gamma / counter)
        odd += through * (1 - p) if counter % 2 else 0
        through *= p
        counter += 1
    return odd


def accepts(gamma):  # P(bernoulli_neg_exp(gamma) = 1) (base.py lines 259-269)
    out = Fraction(1)
    while gamma > 1:
        gamma -= 1
        out *= parity(1.0)
    return out * parity(gamma)


def prob(item):  # P(RuntimeError): every candidate rejected
    mechanism = {script}
    out = Fraction(1)
    for log_probability in mechanism._probabilities:
        out *= 1 - accepts(float(-log_probability))
    return out

'''
)


def reproducer(case: AuditCase, version: str, x: Any, xp: Any, y: Hashable) -> str | None:
    """A standalone script (diffprivlib alone) that computes ``P(y | x)`` and ``P(y | x')`` with the library's own
    code and prints them, the exact ratio and the verdict: the grid runs of its ``randomise`` found by bisection,
    or (``PermuteAndFlip``, whose witness is ``raises RuntimeError``) the product of its acceptance series."""
    spec: Sampler = case.spec
    if spec.script is None:
        return None
    fields = {"label": case.label, "version": version, "claim": spec.claimed, "x": x, "xp": xp, "y": y}
    if spec.exact_model is not None:
        return _PERMUTE_AND_FLIP.format(**fields, script=spec.script) + TAIL
    segments = [tuple(s) for s in spec.segments]
    text = _GRID.format(**fields, segments=segments, script=spec.script, walked=spec.walked, post=spec.post_text)
    return text + TAIL


# -- GaussianDiscrete: a certified model of an infinite rejection sampler ---------------------------

#: the mass outside the discrete Gaussian model's output window is below 2^-GAUSS_TAIL_BITS
GAUSS_TAIL_BITS = 200
#: a bound on P(bernoulli_neg_exp(1) = 1) on the grid (e^-1 moved by a few 2^-53; checked when used)
P1_BOUND = 0.37


def _gauss_parameters(mechanism: Any) -> tuple[float, float]:
    """``(tau, sigma2)`` as ``GaussianDiscrete.randomise`` computes them (gaussian.py lines 279-280)."""
    return float(1 / (1 + np.floor(mechanism._scale))), float(mechanism._scale**2)


def _gamma(y: int, tau: float, sigma2: float) -> float:
    """The acceptance's ``gamma`` for the draw ``y`` (gaussian.py line 292), in the library's float operations."""
    return float((abs(y) - tau * sigma2) ** 2 / 2 / sigma2)


def _window_for(tau: float, sigma2: float, bits: int) -> int:
    """``W >= tau sigma2 + sigma2`` with ``gamma(W + 1) >= 2 + (bits + 4) / log2(1 / P1_BOUND)``. Past ``W`` each
    step of ``|y|`` adds at least 0.9 to ``gamma`` (``(2(|y| - tau sigma2) + 1) / (2 sigma2) > 1``), the acceptance
    needs ``ceil(gamma) - 1`` successes of ``bernoulli_neg_exp(1)``, so ``q(y) <= P1_BOUND^(gamma - 1)`` and both
    tails together hold less than ``2 P1_BOUND^(gamma(W + 1) - 1) / (1 - P1_BOUND^0.9) < 2^-bits``."""
    need = 2 + (bits + 4) / math.log2(1 / P1_BOUND)
    w = math.ceil(tau * sigma2 + sigma2)
    while _gamma(w + 1, tau, sigma2) < need:
        w += 1
    return w


def _gauss_window(mechanism: Any) -> int:
    return _window_for(*_gauss_parameters(mechanism), GAUSS_TAIL_BITS)


def _gauss_code(o: int, w: int) -> int:
    """An output's code: ``o + w`` for ``o`` in ``-w .. w + 1``, and ``2w + 2`` for every other output."""
    return o + w if -w <= o <= w + 1 else 2 * w + 2


def _gauss_weights(mechanism: Any) -> tuple[Callable[[int], Real], Callable[[int], Real]]:
    """``(q, tail)``: ``q(y)``, the chance that one round of the loop returns ``y`` up to the factor
    ``(1 - b)/2`` common to every ``y`` (``b^|y|`` from the geometric count, times the acceptance), and
    ``tail(m) = sum over y >= m of q(y)`` as an exact real (a partial sum to a depth fixed by the working
    precision and the bound of :func:`_window_for` past it)."""
    tau, sigma2 = _gauss_parameters(mechanism)
    if not bernoulli_neg_exp_one(1.0).enclosure(64)[1] < P1_BOUND:
        raise WmcdpError("P(bernoulli_neg_exp(1) = 1) on the grid is not below the bound the tails use")
    b = bernoulli_neg_exp_one(tau)
    memo: dict[int, Real] = {}

    def q(y: int) -> Real:
        if abs(y) not in memo:
            memo[abs(y)] = b ** abs(y) * bernoulli_neg_exp_one(_gamma(abs(y), tau, sigma2))
        return memo[abs(y)]

    def tail(m: int) -> Real:
        def ball() -> Any:
            import flint  # deferred: python-flint (77 ms to import) only when a ball is computed

            # q(m) >= 2^-(1.5 (m + gamma(m)) + 2) (b and the acceptance are at least e^-1 per step and e^-gamma
            # less a vanishing part), so a rest below 2^-bits is 2^-(prec + 8) relative to the sum
            prec = flint.ctx.prec
            bits = prec + 12 + math.ceil(1.5 * (m + _gamma(m, tau, sigma2)))
            depth = max(_window_for(tau, sigma2, bits), m)
            total = sum((q(y).ball(prec) for y in range(m, depth + 1)), flint.arb(0))
            rest = flint.arb(2) ** (-bits)
            return total + flint.arb(0, rest.mid() + rest.rad())

        return Real(f"sum of the discrete Gaussian's weights from {m}", ball=ball)

    return q, tail


def gaussian_discrete_outputs(mechanism: Any) -> list[dict[Hashable, Any]]:
    """The output distributions of ``randomise(0)`` and ``randomise(1)`` in the codes of :func:`_gauss_code`:
    each output of the window ``-W .. W + 1`` exactly, the rest merged (the same mass for both inputs)."""
    w = _gauss_window(mechanism)
    q, tail = _gauss_weights(mechanism)
    z = q(0) + 2 * tail(1)
    outside = 2 * tail(w + 1) / z  # y < -w or y > w + 1 for input 0; y < -w - 1 or y > w for input 1
    return [{**{o + w: q(o - x) / z for o in range(-w, w + 2)}, 2 * w + 2: outside} for x in (0, 1)]


def _gaussian_row(case: AuditCase) -> Modelled:
    """The tight delta at the claimed epsilon of the windowed model (a lower bound on the mechanism's: merging
    outputs lowers it), up to the merged mass (its upper bound), against the claimed delta; the tight epsilon at
    the claimed delta; and the two inputs to sample."""
    spec: Sampler = case.spec
    eps, delta = spec.claimed, float(spec.delta or 0)
    mechanism = spec.build(_diffprivlib(), GridDraw(), None)
    w = _gauss_window(mechanism)
    dists = gaussian_discrete_outputs(mechanism)
    prog, _, _ = choice_program(case.mechanism, (0, 1), lambda a, b: a != b, dists)
    at_eps = synthesize_approximate(prog, epsilon=eps, certified=True, force=True)
    at_delta = synthesize_approximate(prog, delta=Fraction(delta), certified=True, force=True)
    lo, hi = at_eps.interval.lo, at_eps.interval.hi + 2.0**-GAUSS_TAIL_BITS
    x, xp = at_eps.witness.x[0], at_eps.witness.x_prime[0]
    event, probabilities = _gauss_event(dists[x], dists[xp], eps, w)
    row = AuditRow(
        case.mechanism,
        case.params + f" (scale={mechanism._scale!r}, outputs -{w}..{w + 1} and the rest merged)",
        1,
        eps,
        at_delta.interval.hi,
        None,
        certified_verdict(delta, delta, lo, hi),
        (str(x), str(xp), ""),
        0.0,
        claimed_delta=delta,
        delta=hi,
        witness_probabilities=probabilities,
        witness_event=event,
        reproducer=_GAUSSIAN.format(label=case.label, version=LIBRARY.version(), epsilon=eps, delta=delta),
    )
    return row, [(str(v), {y: float(p) for y, p in dists[v].items()}, v) for v in (x, xp)]


def _gauss_event(p: dict[Hashable, Any], q: dict[Hashable, Any], eps: float, w: int) -> tuple[str, tuple[str, str]]:
    """The event of the window's outputs ``o`` with ``P(o | x) > e^eps P(o | x')`` (chosen on 64-bit midpoints: the
    event is a witness, its probabilities are exact reals) as text, and ``(P(E | x), P(E | x'))`` as the report
    shows them; ``P(E | x) - e^eps P(E | x')`` is the tight delta of the windowed model."""
    bound = Fraction(math.exp(eps))
    codes = [c for c in range(2 * w + 2) if p[c].enclosure(64)[0] > bound * q[c].enclosure(64)[0]]
    outputs = [c - w for c in codes]
    if outputs and outputs == list(range(-w, outputs[-1] + 1)):
        text = f"randomise(x) <= {outputs[-1]}"
    elif outputs and outputs == list(range(outputs[0], w + 2)):
        text = f"randomise(x) >= {outputs[0]}"
    else:
        text = f"randomise(x) in {outputs}"
    total_p = sum((p[c] for c in codes), Fraction(0))
    total_q = sum((q[c] for c in codes), Fraction(0))
    return text, (_shown_probability(total_p), _shown_probability(total_q))


_GAUSSIAN = '''"""{label}: diffprivlib {version} claims (epsilon, delta) = ({epsilon!r}, {delta!r}), yet at the
scale its _find_scale chose the sampler's delta at that epsilon is larger. randomise is Canonne, Kamath and Steinke's
rejection sampler (mechanisms/gaussian.py lines 273-294): its output is value + Y with P(Y = y) proportional to
exp(-y^2 / (2 scale^2)) (the 2^-53 grid of its uniform draws moves this by about 2^-53 relative), so between the
inputs 0 and 1, delta(epsilon) = sum over o of max(0, P(Y = o) - e^epsilon P(Y = o - 1)), computed here at 50
digits with diffprivlib alone."""
from decimal import Decimal, getcontext

from diffprivlib.mechanisms import GaussianDiscrete

getcontext().prec = 50
epsilon, delta = {epsilon!r}, {delta!r}
mechanism = GaussianDiscrete(epsilon=epsilon, delta=delta)
s = Decimal(mechanism._scale)
W = int(40 * mechanism._scale) + 10  # the weights past W are below e^-800
w = {{y: (-(Decimal(y) ** 2) / (2 * s * s)).exp() for y in range(-W - 1, W + 2)}}
z = sum(w.values())
e = Decimal(epsilon).exp()
exact = sum(max(Decimal(0), (w[o] - e * w[o - 1]) / z) for o in range(-W, W + 2))
print(f"scale = {{mechanism._scale!r}}")
print(f"delta(epsilon) = {{exact:.20e}}")
print(f"claimed delta  = {{Decimal(delta):.20e}}")
print("VIOLATED" if exact > Decimal(delta) else "holds")
'''
