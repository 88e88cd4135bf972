"""Approximate DP: the tight δ(ε) and ε(δ) of a program, with the pair that attains them.

For a set of neighbouring pairs, in both orders (docs/beyond.md):

    δ(ε) = max over pairs (x, x') of  Σ_y max(0, P(y|x) − e^ε P(y|x'))      (the hockey-stick divergence)
    ε(δ) = the smallest ε ≥ 0 with δ(ε) ≤ δ

The maximum runs over *every* pair: the pair that attains the pure ε is not in general
the worst one for (ε, δ). The witness is the first pair (in the set's order) that attains
δ(ε) — at ε(δ) > 0 it is the first pair whose own ε(δ) is the maximum (:func:`_attaining`; at ε(δ) = 0,
every pair's, the first pair attaining δ(0)).

**ε(δ) from the piecewise form.** Write ``t = e^ε``. For one pair,
``δ_p(t) = Σ_y max(0, a_y − t b_y)`` is convex and piecewise linear in ``t``: on each piece
``δ_p(t) = A − t B`` with ``A = Σ_{y∈S} a_y``, ``B = Σ_{y∈S} b_y`` over ``S = {y : a_y > t b_y}``,
the breakpoints being the ratios ``a_y / b_y`` (``ε = ln(P(y|x)/P(y|x'))``). ``δ(t)``, a maximum
of convex functions, is convex too, and its tangent at ``t_k`` for a pair with
``δ_p(t_k) > δ`` has its root at ``(A − δ)/B``, never past that pair's own ε(δ). The
iteration takes the largest of those roots over all pairs (Newton's method on a convex
piecewise-linear function): it increases strictly, never passes ε(δ), and ends when no pair
exceeds δ — after finitely many pieces, exactly on the root of the last one. Each step is
one pass over the pairs. In exact mode the ``t_k`` are rationals and ε(δ) = ln of the exact
rational ``(A − δ)/B`` (``ratio``); in float mode the sums are log-sum-exps with each term
``a − t b`` formed as ``a·(1 − e^{ln b + ln t − ln a})``, so ε(δ) is accurate to about 1e-13
relative. A pair with mass ``a > 0 = b`` beyond δ makes ε(δ) infinite; δ = 0 asks for the
pure ε (:func:`wmcdp.notions.renyi.max_log_ratio`); δ ≥ 1 gives ε = 0 at once, δ(0) being a total
variation distance.

**δ(ε).** One pass. An ε given as the natural log of a rational (``"ln:3/2"``, or 0) is
exact in exact mode: with ``t = p/q`` and integer numerators over ``D``,
``Σ max(0, q·a − p·b)`` over ``q·D`` is an exact rational. Any other finite ε has an irrational
``e^ε``; exact mode then decides each ``a > e^ε b`` by comparing ``ln(a/b)`` with ε at increasing
precision (:func:`wmcdp.base.certified.exp_sign`: no ``e^ε`` is formed, so ε = 1e308 costs nothing),
keeps each pair's δ as the exact real ``(A − e^ε B)/D`` (:class:`wmcdp.base.certified.ExpGap`), and
picks the maximiser by exact comparisons. δ is then rational (``B = 0``: the outputs above ``e^ε`` are
those ``x'`` never produces) and returned as a Fraction, or irrational and returned as its nearest float
with ``ln δ`` and a certified enclosure (a positive δ below the float range is never 0 there). At
ε = ∞, δ is the mass of the outputs that ``x'`` never produces.

**Composition** (``compose=K``): the tight δ(ε) / ε(δ) of ``K`` independent runs of the
mechanism on the *same* pair of databases, i.e. of the K-fold product distributions
``P(.|x)^K`` and ``P(.|x')^K``, maximised over the pairs. ``accountant="exact"`` convolves
each pair's privacy-loss distribution exactly (:mod:`wmcdp.notions.loss`); ``"dp-accounting"``
hands each pair to Google's dp-accounting PLD (:mod:`wmcdp.notions.accounting`; pessimistic, an
upper bound within its discretisation). This is *not* adaptive composition of different
mechanisms, which needs a dominating pair for every mechanism involved.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from typing import Any, TypeGuard

import numpy as np

from ..base.certified import Enclosure, ExpGap, exp_bound, exp_outward, exp_sign
from ..base.errors import WmcdpError
from ..base.limits import check, limited
from ..base.numbers import Number, as_number, format_number, ln, parse_number
from ..compile import Compiled
from ..lang.program import Program, Value
from ..plan.forced import forced_plan
from ..plan.given_sets import find_sets
from ..plan.pairs import Best, Combine, PairSource, PairWitness, Partial, float_logs, log1mexp, logsumexp
from ..plan.planned import pair_witness, planned_pairs, planned_scale, sum_witness
from ..plan.planner import PlanReport, Product, combine_max
from ..plan.shuffled_rr import ShuffledBinary
from .accounting import composed_bound, composed_profile
from .certify import certified_delta, certified_epsilon
from .loss import compose_count, composed_pairs, product_pairs
from .notion import NEIGHBOURS, Notion, Option, register, relation, swept_axis
from .orchestrate import Pairs, over_pairs, worst_part
from .recount import (
    composition_recountable,
    float_of,
    log_of,
    noted,
    prone_delta,
    prone_epsilon,
    ratio_of,
    recountable,
    recounted,
)
from .renyi import max_log_ratio
from .results import ApproximateResult, ProfilePoint
from .rows import ApproximateRow, ProfileRow
from .threshold import Threshold as Threshold  # re-exported: its public path
from .windowed import unbounded_branch, windowed_delta, windowed_epsilon

#: float δ within this relative distance of the maximum count as ties (for the witness only; ln δ within it)
TOLERANCE = 1e-12
ACCOUNTANTS = ("exact", "dp-accounting")


def parse_delta(value: Any, exact: bool) -> float | Fraction:
    """δ in [0, 1]: a Fraction in exact mode (a float is read as the decimal it prints as), else a float."""
    d = as_number(value, "delta") if not isinstance(value, str) else parse_number(value, exact=exact)
    if not 0 <= d <= 1:
        raise WmcdpError(f"delta must be in [0, 1], got {format_number(d)}")
    if exact:
        return Fraction(repr(d)) if isinstance(d, float) else Fraction(d)
    return float(d)


# -- per-pair sums at thresholds -------------------------------------------------------------


def _float_hockey(log_ts: Sequence[float], left: bool = False) -> tuple[Partial, Combine]:
    """Partial sums in logs per threshold: ``ln Σ_S (a − t b)`` and ``ln Σ_S b`` over ``S = {a > t b}`` (at
    ``t = ∞``: ``S = {b = 0 < a}``); ``left``: over ``S = {a ≥ t b}`` (the same first sum, the ties adding 0; the
    second is the slope of δ_p just left of ``t``)."""

    def partial(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore"):
            d = la - lb
        h = np.empty((len(la), len(log_ts)))
        b = np.empty_like(h)
        for g, lt in enumerate(log_ts):
            with np.errstate(invalid="ignore"):
                s = (d >= lt if left else d > lt) if lt < math.inf else d == math.inf  # ε = ∞: x' never produces
            term = np.full(la.shape, -np.inf)
            term[s] = la[s] if lt == math.inf else la[s] + log1mexp(lb[s] + lt - la[s])
            h[:, g] = logsumexp(term)
            b[:, g] = logsumexp(np.where(s, lb, -np.inf))
        return h, b

    return partial, lambda x, y: (np.logaddexp(x[0], y[0]), np.logaddexp(x[1], y[1]))


def _above_irrational(
    a: np.ndarray, b: np.ndarray, eps: float, denominator_logs: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """``a > e^eps · b`` elementwise and rigorously for integer arrays (``e^eps`` irrational: no ties; ``eps = ∞``:
    the outputs with ``b = 0 < a``)."""
    if eps == math.inf:
        above: np.ndarray = (b == 0) & (a > 0)
        return above
    la, lb = denominator_logs
    with np.errstate(invalid="ignore"):
        d = la - lb
    out: np.ndarray = d > eps
    unsure = np.flatnonzero(np.abs(d.ravel() - eps) <= 1e-9 * max(1.0, eps))
    flat_out = out.reshape(-1)
    fa, fb = a.reshape(-1), b.reshape(-1)
    for i in unsure:
        flat_out[i] = exp_sign(int(fa[i]), int(fb[i]), eps) > 0
    return out


def _exact_hockey(arith: Any, thresholds: Sequence[Threshold], left: bool = False) -> tuple[Partial, Combine]:
    """Partial sums in integers per threshold: ``Σ_S a`` and ``Σ_S b`` over ``S = {a > t b}``; ``left`` (rational
    ``t``): over ``S = {a ≥ t b}``, as in :func:`_float_hockey`."""

    def partial(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        A = np.empty((len(a), len(thresholds)), dtype=object)
        B = np.empty_like(A)
        ia, ib = a.astype(object), b.astype(object)
        logs = None
        for g, th in enumerate(thresholds):
            if th.ratio is not None:
                p, q = th.ratio.numerator, th.ratio.denominator
                s = ia * q >= ib * p if left else ia * q > ib * p
            else:
                if logs is None:
                    logs = (float_logs(arith, a), float_logs(arith, b))
                s = _above_irrational(a, b, th.epsilon, logs)
            A[:, g] = np.where(s, ia, 0).sum(axis=1)
            B[:, g] = np.where(s, ib, 0).sum(axis=1)
        return A, B

    return partial, lambda x, y: (x[0] + y[0], x[1] + y[1])


@dataclass(frozen=True)
class Delta:
    """δ(ε) at one threshold and ``key``, the first pair attaining it.

    ``value``: a Fraction when exact and rational (``e^ε`` rational, or the maximiser's outputs above ``e^ε``
    are exactly those that ``x'`` never produces), else a float. ``log``: ``ln δ`` where ``value`` is a float (it
    may underflow to 0.0; the log does not). An exact run at an irrational ``e^ε`` also gives ``exact``, δ as an
    exact real that compares exactly (:class:`wmcdp.base.certified.ExpGap`), and ``interval``, its enclosure.
    """

    value: float | Fraction
    key: int
    log: float | None = None
    interval: Enclosure | None = None
    exact: ExpGap | None = None


def deltas(source: PairSource, thresholds: Sequence[Threshold]) -> list[Delta]:
    """δ(ε) per threshold with the first pair attaining it, in one pass over the pairs.

    The maximiser is decided exactly in exact mode: at an irrational ``e^ε`` each pair's δ is the exact real
    ``(A − e^ε B) / D`` and pairs compare by :func:`wmcdp.base.certified.exp_sign` (never by rounded values)."""
    arith = source.arith
    if not arith.exact:
        partial, combine = _float_hockey([th.epsilon for th in thresholds])
        best = [Best(TOLERANCE, logs=True) for _ in thresholds]
        for keys, (h, _) in source.totals(partial, combine, cells=6):
            for g, b in enumerate(best):
                b.update(h[:, g], keys)
        return [Delta(math.exp(b.value), b.key, b.value) for b in best]  # type: ignore[arg-type]
    partial, combine = _exact_hockey(arith, thresholds)
    best = [Best() for _ in thresholds]
    D = arith.denominator
    for keys, (A, B) in source.totals(partial, combine, cells=8):
        for g, th in enumerate(thresholds):
            if th.ratio is not None:
                p, q = th.ratio.numerator, th.ratio.denominator
                values = A[:, g] * q - B[:, g] * p  # δ · q · D, exactly
            else:
                gaps = [ExpGap(int(x), int(y), D, th.epsilon) for x, y in zip(A[:, g], B[:, g])]
                values = np.array(gaps, dtype=object)
            best[g].update(values, keys)
    return [_exact_delta(th, b.value, b.key, D) for th, b in zip(thresholds, best)]  # type: ignore[arg-type]


def _exact_delta(th: Threshold, value: Any, key: int, D: int) -> Delta:
    if th.ratio is not None:
        return Delta(Fraction(int(value), th.ratio.denominator * D), key)
    if value.rational is not None:
        return Delta(value.rational, key)
    nearest, log, interval = value.settle()
    return Delta(nearest, key, log, interval, value)


def epsilon_for_delta(source: PairSource, delta: float | Fraction) -> tuple[float, float | Fraction, int]:
    """``(ε(δ), e^ε(δ), key of its pair)`` by the tangent iteration of the module docstring.

    ``δ ≥ 1`` gives ε = 0 at once: δ(0) is a total variation distance, at most 1 (the key is the pair attaining
    δ(0), whose ε(δ) is 0 like every pair's)."""
    if delta >= 1:
        key = deltas(source, [Threshold(0.0, Fraction(1))])[0].key
        return 0.0, Fraction(1) if source.arith.exact else 1.0, key
    if delta == 0:
        return max_log_ratio(source)
    if source.arith.exact:
        return _exact_newton(source, Fraction(delta))
    return _float_newton(source, float(delta))


def _float_newton(source: PairSource, delta: float) -> tuple[float, float, int]:
    ld = math.log(delta)
    lt = 0.0
    while True:
        check("epsilon for delta")
        partial, combine = _float_hockey([lt])
        top, infinite, step = Best(TOLERANCE, logs=True), None, -math.inf
        for keys, (h, b) in source.totals(partial, combine, cells=6):
            h, b = h[:, 0], b[:, 0]
            top.update(h, keys)
            over = h > ld
            flat = over & (b == -np.inf)
            if flat.any():
                infinite = min(int(keys[flat].min()), infinite if infinite is not None else math.inf)
            go = over & ~flat
            if go.any():  # the tangent's root, in logs: ln t' = lt + ln(1 + e^(h - lt - b) (1 - e^(ld - h)))
                log_rise = h[go] - lt - b[go] + np.log(-np.expm1(ld - h[go]))
                step = max(step, float(np.max(lt + np.logaddexp(0.0, log_rise))))
        if infinite is not None:
            return math.inf, math.inf, infinite  # type: ignore[return-value]
        if top.value <= ld or not step > lt:
            key = top.key if lt == 0 else _attaining(source, Threshold(lt), top.key, delta)
            return lt, math.exp(lt) if lt < 709.78 else math.inf, key  # type: ignore[return-value]
        if step - lt <= 4e-16 * max(step, 1.0):  # below ε = 1 a smaller step is float noise of the masses
            lt = step
            key = _attaining(source, Threshold(lt), top.key, delta)
            return lt, math.exp(lt) if lt < 709.78 else math.inf, key  # type: ignore[return-value]
        lt = step


def _exact_newton(source: PairSource, delta: Fraction) -> tuple[float, Fraction | float, int]:
    D = source.arith.denominator
    t = Fraction(1)
    while True:
        check("epsilon for delta")
        partial, combine = _exact_hockey(source.arith, [Threshold(0.0, t)])
        p, q = t.numerator, t.denominator
        top, infinite = Best(), None
        step: Fraction | None = None
        for keys, (A, B) in source.totals(partial, combine, cells=8):
            A, B = A[:, 0], B[:, 0]
            excess = A * q - B * p  # δ_p(t) · q · D
            top.update(excess, keys)
            over = np.array([e * delta.denominator > delta.numerator * q * D for e in excess], dtype=bool)
            for i in np.flatnonzero(over):
                if B[i] == 0:
                    infinite = min(int(keys[i]), infinite if infinite is not None else math.inf)
                else:
                    root = Fraction(int(A[i]) * delta.denominator - delta.numerator * D, int(B[i]) * delta.denominator)
                    step = root if step is None else max(step, root)
        if infinite is not None:
            return math.inf, math.inf, infinite  # type: ignore[return-value]
        if step is None:
            key = top.key if t == 1 else _attaining(source, Threshold(ln(t), t), top.key)
            return ln(t), t, key  # type: ignore[return-value]
        t = step


def _attaining(source: PairSource, threshold: Threshold, fallback: int | None, delta: float = 0.0) -> int | None:
    """The first pair whose own ε(δ) is the answer ε = ln t > 0 of the tangent iteration (``fallback`` if none).

    Every pair has ``δ_p(t) ≤ δ`` there, and those with ``ε_p(δ) = ln t`` have ``δ_p(t) = δ`` and fall just
    left of ``t``: the left slope ``Σ b`` over ``{a ≥ t b}`` is positive. A pair at ``δ_p(t) = δ`` on a flat
    piece (``B = 0``: δ is the mass that ``x'`` never produces) reached δ at a smaller ``t``, so its own ε(δ) is
    smaller: the largest ``δ_p(t)`` over the pairs with a positive left slope picks the witness. Float runs
    compare the pairs' own ``ε_p(δ) = ln(A_p − δ) − ln B_p`` on their pieces at ``t`` instead (ties within
    :data:`TOLERANCE` of ε): a pair whose ``δ_p(t)`` rounds to δ on an almost flat piece is then not taken
    for one whose own ε(δ) is the answer."""
    none = -math.inf  # a pair without a left slope
    if source.arith.exact:
        partial, combine = _exact_hockey(source.arith, [threshold], left=True)
        p, q = threshold.ratio.numerator, threshold.ratio.denominator  # type: ignore[union-attr]
        best = Best()
        for keys, (A, B) in source.totals(partial, combine, cells=8):
            best.update(np.where(B[:, 0] > 0, A[:, 0] * q - B[:, 0] * p, none), keys)
    else:  # each pair's own ε_p(δ) = ln(A_p − δ) − ln B_p on its piece at t (A_p = δ_p(t) + t B_p, a mass)
        lt, ld = threshold.epsilon, math.log(delta)
        partial, combine = _float_hockey([lt], left=True)
        best = Best(TOLERANCE)
        for keys, (h, b) in source.totals(partial, combine, cells=6):
            h, b = h[:, 0], b[:, 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                la = np.logaddexp(h, lt + b)
                own = np.where((b > -np.inf) & (la > ld), la + log1mexp(np.minimum(ld - la, 0.0)) - b, none)
            best.update(own, keys)
    return fallback if best.value is None or best.value == none else best.key


def _accountant(accountant: str, compose: int) -> str:
    """The accountant of ``compose`` runs, checked: one run needs none and is computed (and reported) exactly."""
    if accountant not in ACCOUNTANTS:
        raise WmcdpError(f"unknown accountant {accountant!r}; choose one of {', '.join(ACCOUNTANTS)}")
    return "exact" if compose == 1 else accountant


def _composed_source(source: PairSource, compose: int, accountant: str) -> PairSource:
    if compose == 1 or accountant != "exact":
        return source
    return composed_pairs(source, compose)


def planned_sources(prog: Any, which: Pairs, part: Callable[[Any], Any], symbolic: Any = None) -> tuple[Any, Any]:
    """The planner's pairs for δ(ε), ε(δ) and profiles (:func:`wmcdp.plan.planned.planned_pairs`):
    ``(Product, per-part results of part)`` when the worst pair is the worst part's (hamming, one-entry), or
    ``(source, plan)``. Under all-entries every part may move at once: when each part has a dominant pair the
    source is that one composed pair (:func:`wmcdp.notions.loss.product_pairs`), else the whole program's."""

    args = (which.neighbours, which.backend, which.exact, which.force)

    def run(c: Any, rule: str) -> Any:
        return part(c) if rule == "max" else planned_pairs(c, None, which.backend, which.exact, which.force, (), None)

    planned, extra = planned_pairs(prog, *args, ("max", "sum"), run, symbolic, which.plan)
    if not isinstance(planned, Product) or planned.rule == "max":
        return planned, extra
    source = product_pairs(
        [(src, len(members)) for (src, _), members in zip(extra, planned.members)],
        lambda witnesses: sum_witness(planned, witnesses),
    )
    if source is None:  # some part has no dominant pair: the whole program
        return planned_pairs(prog, *args, ("max",), run, symbolic, which.plan)
    bound = "each part's dominant pair, their loss distributions composed"
    return source, planned.report([q for _, q in extra], None, None, 0.0, bound=bound, claims=source.claims)


def _in_windows(prog: Any, pairs: Any = None, I: Any = None, **options: Any) -> ApproximateResult:
    """:func:`synthesize_approximate` of a program with unbounded noise (or given ``width``), in windows."""
    keep = {k: options[k] for k in ("at", "neighbours", "force") if k in options}
    backend, epsilon, delta = options.get("backend", "bdd"), options.get("epsilon"), options.get("delta")
    if (epsilon is None) == (delta is None):
        raise WmcdpError("give exactly one of epsilon (for delta(epsilon)) and delta (for epsilon(delta))")
    if compose_count(options.get("compose", 1)) != 1:
        raise WmcdpError("a program with unbounded noise is bracketed for one run of the mechanism (compose=1)")
    if delta is not None:

        def at(c: Compiled, d: Fraction) -> ApproximateResult:
            return synthesize_approximate(c, pairs, I, delta=d, backend=backend, exact=True, **keep)

        return windowed_epsilon(prog, at, Fraction(parse_delta(delta, True)), backend, options.get("width"))

    def run(c: Compiled) -> ApproximateResult:
        return synthesize_approximate(c, pairs, I, epsilon=epsilon, backend=backend, exact=True, **keep)

    return windowed_delta(prog, run, Threshold.of(epsilon), backend, options.get("width"))


@limited
@unbounded_branch(_in_windows)
def synthesize_approximate(
    prog: Program | Compiled,
    pairs: Iterable[tuple[Value, Value]] | None = None,
    I: Any = None,
    *,
    epsilon: Any = None,
    delta: Any = None,
    compose: int = 1,
    at: Value | None = None,
    neighbours: Any = None,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
    accountant: str = "exact",
    interval: float = 1e-4,
    certified: bool = False,
    plan: str | None = None,
    width: float | None = None,
) -> ApproximateResult:
    """Tight δ(ε) (given ``epsilon``) or ε(δ) (given ``delta``) over the pairs, both orders, and its witness pair.

    ``pairs`` defaults to every ordered pair of neighbours (``neighbours``: the program's
    relation by default); ``at=x0`` takes the data-centric pairs of one database instead;
    ``I`` supplies the rows of explicit pairs (see :func:`wmcdp.plan.pairs.pair_source`).
    ``epsilon`` is a number ≥ 0 or ``"ln:R"`` (ε = ln R, exact when R is rational);
    ``delta`` is in [0, 1]. ``compose=K`` accounts K runs on the same pair
    (``accountant="exact"`` convolves exactly; ``"dp-accounting"`` uses Google's PLD with
    discretisation ``interval``). ``certified=True`` takes weights given as exact reals
    (:class:`wmcdp.Real`) and returns ``interval``, a rigorous enclosure of δ(ε) or ε(δ)
    (:mod:`wmcdp.base.certified`). ``plan`` runs one plan of the planner by name, even where the exhaustive
    sets are quick (``"product"``, ``"given-input"``, ``"count-of-reports"``, ``"symmetry"`` or ``"exhaustive"``;
    :mod:`wmcdp.plan.forced`). A program with unbounded noise (:func:`wmcdp.geometric`, ...) always runs in
    windows and returns ``interval``, a bracket of δ(ε) or ε(δ) narrowed to ``width`` (:mod:`wmcdp.notions.windowed`);
    ``width`` also asks it of any other program. Keyword arguments ``max_nodes``, ``timeout`` and
    ``max_memory`` apply :func:`wmcdp.resource_limits`.
    """
    start = time.perf_counter()
    plan = forced_plan(plan, "pairs", pairs=pairs, I=I, at=at, certified=certified or None)
    if (epsilon is None) == (delta is None):
        raise WmcdpError("give exactly one of epsilon (for delta(epsilon)) and delta (for epsilon(delta))")
    if certified:
        return _certified(prog, pairs, I, epsilon, delta, compose, at, neighbours, backend, force)
    k = compose_count(compose)
    accountant = _accountant(accountant, k)
    threshold = Threshold.of(epsilon) if epsilon is not None else None
    if delta is not None:
        parse_delta(delta, False)

    def part(c: Any) -> ApproximateResult:
        return synthesize_approximate(
            c,
            epsilon=epsilon,
            delta=delta,
            compose=compose,
            exact=exact,
            force=force,
            accountant=accountant,
            interval=interval,
        )

    pairs = _planned_scale(prog, pairs, I, k, at, exact, plan, neighbours, backend)
    if _at_scale(pairs, k, at, exact):
        return _shuffled(pairs, threshold, delta, start)

    result: ApproximateResult = over_pairs(  # a symbolic parameter: a PiecewiseDeltaResult
        prog,
        Pairs(pairs, I, at, neighbours, backend, exact, force, plan),
        start,
        scan=lambda source, report: _scan(source, threshold, delta, k, accountant, interval, start, report),
        part=part,
        combine=lambda planned, results: _worst_part(planned, results, threshold is not None, start),
        symbolic=lambda c: _piecewise(c, pairs, I, threshold, delta, k, at, neighbours, backend, start),
        planner=planned_sources,
    )
    again = partial(  # the same run with every float read as its exact binary64 value
        synthesize_approximate,
        prog,
        pairs,
        I,
        epsilon=epsilon,
        delta=None if delta is None else Fraction(parse_delta(delta, False)),  # the float run's δ, as it is
        compose=k,
        at=at,
        neighbours=neighbours,
        backend=backend,
        exact="binary",
        force=force,
        plan=plan,
    )
    return _recounted(prog, result, threshold is not None, exact, composition_recountable(k, accountant), again, start)


def _piecewise(c: Any, *args: Any) -> Any:
    """:func:`wmcdp.notions.piecewise.piecewise_approximate` of ``c``, a program with a symbolic parameter."""
    # deferred: python-flint (wmcdp.notions.piecewise) costs 0.2 s at import; only symbolic runs need it
    from .piecewise import piecewise_approximate

    return piecewise_approximate(c, *args)


def _recounted(
    prog: Program | Compiled,
    result: ApproximateResult,
    by_epsilon: bool,
    exact: Any,
    composed: bool,
    again: Callable[[], ApproximateResult],
    start: float,
) -> ApproximateResult:
    """A float run's result, recounted by ``again`` when its δ (given ε) or ε (given δ) is prone to cancellation
    (:func:`~.recount.recounted`); ``composed``: the composition is one an exact run recounts."""
    if (
        not isinstance(result, ApproximateResult)
        or result.exact
        or not composed
        or not recountable(prog, exact, result.diagram_size, result.plan)
    ):
        return result  # an exact run, a long or accountant's composition, a bound as a function of a symbolic
        # parameter, a large program
    prone = prone_delta(float(result.delta), result.epsilon) if by_epsilon else prone_epsilon(result.epsilon)
    return recounted(result, prone, again, lambda r: _floated(r, time.perf_counter() - start, by_epsilon))


def _floated(r: ApproximateResult, seconds: float, by_epsilon: bool) -> ApproximateResult:
    """An exact run's (ε, δ) in the form of a float run's: the nearest floats, δ with its log when ε was given."""
    return replace(
        r,
        delta=float_of(r.delta),
        ratio=ratio_of(r.epsilon),
        exact=False,
        seconds=seconds,
        log_delta=log_of(r.delta, r.log_delta) if by_epsilon else None,
        interval=None,
        exact_delta=None,
        plan=noted(r.plan),
    )


def _worst_part(planned: Any, results: list[ApproximateResult], by_delta: bool, start: float) -> ApproximateResult:
    """A product's (ε, δ) under the max rule: the part with the largest δ (given ε) or ε (given δ)."""
    exact_all = all(r.exact for r in results)
    values = [_comparable(r) if by_delta else (r.ratio if exact_all else r.epsilon) for r in results]
    return worst_part(planned, results, values, start)


def _scan(
    source: PairSource,
    threshold: Threshold | None,
    delta: Any,
    k: int,
    accountant: str,
    interval: float,
    start: float,
    report: Callable[[], Any],
) -> ApproximateResult:
    """δ(ε) (given ``threshold``) or ε(δ) of ``k`` runs over the pairs of ``source``."""
    exact_run = source.arith.exact and accountant == "exact"
    point = None
    ratio: float | Fraction
    if accountant == "dp-accounting":
        d = None if delta is None else parse_delta(delta, False)
        value, key = composed_bound(source, k, epsilon=threshold, delta=d, interval=interval)  # type: ignore[arg-type]
        eps = threshold.epsilon if threshold is not None else value
        d = value if threshold is not None else d
        ratio = _ratio_of(eps)
    else:
        source = _composed_source(source, k, accountant)
        if threshold is not None:
            (point,) = deltas(source, [threshold])
            d, key, eps = point.value, point.key, threshold.epsilon
            ratio = threshold.ratio if exact_run and threshold.ratio is not None else _ratio_of(eps)
        else:
            d = parse_delta(delta, exact_run)
            eps, ratio, key = epsilon_for_delta(source, d)
    return ApproximateResult(
        epsilon=eps,
        delta=d,  # type: ignore[arg-type]
        ratio=ratio,
        witness=source.witness(key),
        compose=k,
        exact=exact_run,
        accountant=accountant,
        diagram_size=source.diagram_size,
        seconds=time.perf_counter() - start,
        symmetry=source.symmetry,
        plan=report(),
        log_delta=None if point is None else point.log,
        interval=None if point is None else point.interval,
        exact_delta=None if point is None else point.exact,
    )


def _certified(
    prog: Any,
    pairs: Any,
    I: Any,
    epsilon: Any,
    delta: Any,
    compose: Any,
    at: Any,
    neighbours: Any,
    backend: str,
    force: bool,
) -> ApproximateResult:
    """:func:`synthesize_approximate` with ``certified=True`` (one run, the exact accountant)."""

    if compose_count(compose) != 1:
        raise WmcdpError("a certified run accounts one run of the mechanism (compose=1)")

    def run(c: Compiled, **point: Any) -> ApproximateResult:
        return synthesize_approximate(
            c, pairs, I, at=at, neighbours=neighbours, backend=backend, exact=True, force=force, **point
        )

    if epsilon is not None:
        threshold = Threshold.of(epsilon)
        if threshold.epsilon == math.inf:
            raise WmcdpError("a certified run needs a finite epsilon (its enclosure widens with e^epsilon)")
        bound = threshold.ratio if threshold.ratio is not None else exp_bound(threshold.epsilon)
        return certified_delta(prog, lambda c: run(c, epsilon=threshold), bound, backend)
    d = parse_delta(delta, True)
    return certified_epsilon(prog, lambda c, at_delta: run(c, delta=at_delta), Fraction(d), backend)


def _at_scale(pairs: Any, compose: int, at: Any, exact: Any) -> TypeGuard[ShuffledBinary]:
    """A shuffle of one-bit reports at scale (binary RR past :data:`wmcdp.plan.shuffled_rr.SCALE_FROM` users, a
    binary-report local randomizer, :mod:`wmcdp.plan.shuffled_binary`), one run, float mode: its own reductions
    (other requests reach :func:`wmcdp.plan.pairs.pair_source`, which refuses them in one line)."""
    return isinstance(pairs, ShuffledBinary) and compose == 1 and at is None and not exact


def _planned_scale(prog: Any, pairs: Any, I: Any, k: int, at: Any, exact: Any, plan: Any, *where: Any) -> Any:
    """The planner's shuffle at scale (:func:`wmcdp.plan.planned.planned_scale`) for one float run it plans, else
    ``pairs`` as given."""
    planned = pairs is None and I is None and at is None and plan is None and k == 1 and not exact
    scaled = planned_scale(prog, *where) if planned else None
    return pairs if scaled is None else scaled


def _shuffled_profile(pairs: ShuffledBinary, thresholds: Sequence[Threshold], start: float) -> list[ProfilePoint]:
    results = [_shuffled(pairs, th, None, start) for th in thresholds]
    return [
        ProfilePoint(th.epsilon, r.delta, r.witness, th.text(), r.plan, r.log_delta, r.interval)
        for th, r in zip(thresholds, results)
    ]


#: how the planner's use of a built-in's hand-proved pairs is justified, as the plan lists it
_BUILTIN_CHECK = (
    "the same code and captured values as the built-in builds from its parameters (wmcdp.lang.registry.is_builtin), "
    "so the hand-proved pairs of wmcdp.symmetry_sets hold"
)


def _shuffled(pairs: ShuffledBinary, threshold: Threshold | None, delta: Any, start: float) -> ApproximateResult:
    """One point of a shuffle of one-bit reports at scale (:mod:`wmcdp.plan.shuffled_rr`), its enclosure as
    ``interval``."""

    if threshold is not None:
        point = pairs.delta(threshold.epsilon)
        interval = Enclosure(exp_outward(point.lo, False), exp_outward(point.hi, True), 53, "delta")
    else:
        point = pairs.epsilon(float(parse_delta(delta, False)))
        interval = Enclosure(point.lo, point.hi, 53, "epsilon")
    x, x_prime = pairs.witness(point)
    how = f"proved in {pairs.proof}; tested against every neighbouring pair at small n"
    claims = tuple((claim, how) for claim in pairs.claims)
    builtin = getattr(pairs, "builtin", "")
    if builtin:  # the planner took a built-in's hand-proved pairs
        claims = ((f"the program is the built-in {builtin}", _BUILTIN_CHECK),) + claims
    seconds = time.perf_counter() - start
    plan = PlanReport(
        "symmetry",
        f"shuffled {pairs.name}: {point.evaluations} block and configuration bounds over the {pairs.n} configurations "
        "of the other users",
        point.evaluations,
        2 * pairs.n,
        getattr(pairs, "estimate", None),
        seconds=seconds,
        considered=getattr(pairs, "considered", ()),
        claims=claims,
    )
    return ApproximateResult(
        epsilon=point.epsilon,
        delta=point.delta,
        ratio=_ratio_of(point.epsilon),
        witness=PairWitness(x, x_prime),
        compose=1,
        exact=False,
        accountant="exact",
        diagram_size=pairs.diagram_size,
        seconds=seconds,
        symmetry=pairs.symmetry,
        plan=plan,
        log_delta=point.log_delta if threshold is not None else None,
        interval=interval,
    )


def _comparable(r: ApproximateResult | ProfilePoint) -> Any:
    """δ of a part's result, to maximise over the parts: exact whenever the run is."""
    return r.delta if r.exact_delta is None else r.exact_delta


def _ratio_of(eps: float) -> float:
    return math.exp(eps) if eps < 709.78 else math.inf


@limited
def privacy_profile(
    prog: Program | Compiled,
    epsilons: Iterable[Any],
    pairs: Iterable[tuple[Value, Value]] | None = None,
    I: Any = None,
    *,
    compose: int = 1,
    at: Value | None = None,
    neighbours: Any = None,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
    accountant: str = "exact",
    interval: float = 1e-4,
    plan: str | None = None,
) -> list[ProfilePoint]:
    """δ(ε) at every ε of ``epsilons`` (one pass over the pairs), each with the first pair that attains it.

    Arguments as for :func:`synthesize_approximate`.
    """
    plan = forced_plan(plan, "pairs", pairs=pairs, I=I, at=at)
    thresholds = [Threshold.of(e) for e in epsilons]
    if not thresholds:
        raise WmcdpError("the privacy profile needs at least one epsilon")
    k = compose_count(compose)
    accountant = _accountant(accountant, k)
    start = time.perf_counter()
    pairs = _planned_scale(prog, pairs, I, k, at, exact, plan, neighbours, backend)
    if _at_scale(pairs, k, at, exact):
        return _shuffled_profile(pairs, thresholds, start)

    def part(c: Any) -> list[ProfilePoint]:
        return privacy_profile(
            c, thresholds, compose=compose, exact=exact, force=force, accountant=accountant, interval=interval
        )

    def scan(source: PairSource, report: Callable[[], Any]) -> list[ProfilePoint]:
        if accountant == "dp-accounting":
            points = [Delta(d, key) for d, key in composed_profile(source, k, thresholds, interval=interval)]
        else:
            source = _composed_source(source, k, accountant)
            points = deltas(source, thresholds)
        plan = report()
        return [
            ProfilePoint(th.epsilon, p.value, source.witness(p.key), th.text(), plan, p.log, p.interval, p.exact)
            for th, p in zip(thresholds, points)
        ]

    points: list[ProfilePoint] = over_pairs(
        prog,
        Pairs(pairs, I, at, neighbours, backend, exact, force, plan),
        start,
        scan=scan,
        part=part,
        combine=lambda planned, parts: _worst_parts(planned, parts, len(thresholds), start),
        planner=planned_sources,
    )
    floats = all(isinstance(p, ProfilePoint) and p.exact_delta is None and isinstance(p.delta, float) for p in points)
    composed = composition_recountable(k, accountant)  # one run, or an exact composition of few
    if not floats or not composed or not recountable(prog, exact, None, points[0].plan if points else None):
        return points  # an exact run, a long or accountant's composition, a symbolic parameter, a large program

    def again() -> list[ProfilePoint]:
        return privacy_profile(
            prog,
            thresholds,
            pairs,
            I,
            compose=k,
            at=at,
            neighbours=neighbours,
            backend=backend,
            exact="binary",
            force=force,
            plan=plan,
        )

    prone = any(prone_delta(float(p.delta), p.epsilon) for p in points)
    return recounted(points, prone, again, lambda exact_points: [_floated_point(p) for p in exact_points])


def _floated_point(p: ProfilePoint) -> ProfilePoint:
    """An exact run's point of the profile in the form of a float run's: δ the nearest float, with its log."""
    return replace(
        p,
        delta=float_of(p.delta),
        log_delta=log_of(p.delta, p.log_delta),
        interval=None,
        exact_delta=None,
        plan=noted(p.plan),
    )


def _worst_parts(planned: Any, parts: list[list[ProfilePoint]], count: int, start: float) -> list[ProfilePoint]:
    """A product's profile under the max rule: at each ε, the part with the largest δ(ε)."""

    report = planned.report([r[0].plan for r in parts], None, None, time.perf_counter() - start)
    out = []
    for g in range(count):
        c = combine_max([_comparable(r[g]) for r in parts])
        point = parts[c][g]
        out.append(replace(point, witness=pair_witness(planned, planned.members[c][0], point.witness), plan=report))
    return out


# -- approximate (epsilon, delta) ------------------------------------------------------------


def _approximate_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    epsilon: Any,
    delta: Any,
    compose: int,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> ApproximateRow:
    P, I = find_sets("pairs", sets, program)
    r = synthesize_approximate(
        program,
        P,
        I,
        epsilon=epsilon,
        delta=delta,
        compose=compose,
        neighbours=relation(neighbours),
        backend=backend,
        exact=exact,
    )
    return ApproximateRow.of(r, variant, parameter, value, given="delta" if delta is not None else "epsilon")


def _approximate_axes(rows: Sequence[Any]) -> tuple[str, str, str]:
    r0 = rows[0]
    title = f"tight (epsilon, delta) vs {r0.parameter}"
    if r0.given == "delta":
        return f"tight epsilon at delta = {format_number(r0.delta)} (nats)", swept_axis(rows), title
    return f"tight delta at epsilon = {format_number(r0.epsilon)} (probability)", swept_axis(rows), title


APPROXIMATE = register(
    Notion(
        name="approximate",
        command="approx",
        help="tight (epsilon, delta)",
        run=synthesize_approximate,
        result=ApproximateResult,
        row=ApproximateRow,
        point=_approximate_point,
        options=(
            Option("delta", "approx sweeps: epsilon(delta) at this delta"),
            Option("epsilon", "approx sweeps: delta(epsilon) at this epsilon (ln:3/2 is exact)"),
            Option("compose", "approx sweeps: K runs on the same pair", default=1, metavar="K", type=int),
            NEIGHBOURS,
        ),
        series=lambda r: (r.program, float(r.value), float(r.epsilon if r.given == "delta" else r.delta)),
        axes=_approximate_axes,
    )
)


# -- the privacy profile (delta against epsilon; `wmcdp profile`) -----------------------------


PROFILE = register(
    Notion(
        name="profile",
        run=privacy_profile,
        result=ProfilePoint,
        row=ProfileRow,
        series=lambda r: (r.program, float(r.epsilon), float(r.delta)),
        axes=lambda rows: ("tight delta(epsilon) (probability)", "epsilon (nats, natural log)", "privacy profile"),
    )
)


__all__ = [
    "APPROXIMATE",
    "PROFILE",
    "synthesize_approximate",
    "privacy_profile",
    "ApproximateResult",
    "ProfilePoint",
    "Threshold",
    "parse_delta",
    "deltas",
    "Delta",
    "epsilon_for_delta",
    "ACCOUNTANTS",
]
