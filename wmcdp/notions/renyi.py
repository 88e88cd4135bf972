"""Rényi DP and zero-concentrated DP: the tight ``D_α`` of a program over its neighbouring pairs.

For a set of neighbouring pairs, in both orders (docs/beyond.md):

    D_α = max over pairs (x, x') of  1/(α − 1) · ln Σ_y P(y|x)^α P(y|x')^(1−α)      (α > 1)
    D_∞ = max over pairs and outputs of ln(P(y|x) / P(y|x'))                       (the pure ε)
    ρ   = max over the given finite orders of D_α / α                            (zCDP, with its order)

An output with ``P(y|x) > 0 = P(y|x')`` makes ``D_α`` infinite; outputs with ``P(y|x) = 0``
add nothing. Each value comes with the first pair (in the set's order) that attains it.
Float mode sums in logs (``ln Σ exp(α ln a + (1 − α) ln b)``), so masses far below the
float range count. Exact mode runs the same float pass to find the candidate pairs (those
within a relative 1e-9 of the maximum, far above float error) and evaluates each
candidate from its exact masses (:func:`wmcdp.base.numbers.renyi_log_sum`: at 256 bits, and
without cancellation where the two distributions nearly agree); D_∞ of a candidate is its exact
largest ratio. The sums of orders that are not integers are irrational, so ``D_α`` is a
float in both modes, with its log (``log_epsilon``) where an exact evaluation formed it: a ``D_α``
of 1e-600 underflows a float, its log does not. A float answer small enough to have lost digits to
cancellation is recounted exactly (:mod:`wmcdp.notions.recount`).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import limited
from ..base.numbers import (
    RENYI_BITS,
    Number,
    as_number,
    format_number,
    ln_ratio,
    log_of_log,
    parse_number,
    renyi_log_sum,
)
from ..compile import Compiled
from ..lang.program import Program, Value
from ..plan.forced import forced_plan
from ..plan.given_sets import find_sets
from ..plan.pairs import Best, Combine, PairSource, Partial, logsumexp
from ..plan.planned import pair_witness, sum_witness
from ..plan.planner import combine_max
from .certify import certified_renyi
from .notion import NEIGHBOURS, Notion, Option, register, relation, swept_axis
from .orchestrate import Pairs, over_pairs
from .recount import noted, prone_epsilon, recountable, recounted
from .results import RenyiOrder, RenyiResult
from .rows import RenyiRow
from .windowed import unbounded_branch
from .windowed_renyi import windowed_renyi

#: float values within this relative distance of the maximum count as ties (for the witness only)
TOLERANCE = 1e-12
#: exact mode re-evaluates the pairs within this relative distance of the float maximum
EXACT_FILTER = 1e-9
#: bits of precision of exact mode's evaluation of a candidate pair
PRECISION = RENYI_BITS
#: the largest finite Rényi order: (alpha - 1) times a log-ratio must stay far inside the float range
MAX_ORDER = 1e12


def parse_orders(orders: Iterable[Any] | str) -> list[float]:
    """Rényi orders: numbers > 1 or ``inf`` (a string ``"1.5,2,inf"`` or an iterable)."""
    items = orders.split(",") if isinstance(orders, str) else list(orders)
    out: list[float] = []
    for item in items:
        text = item.strip() if isinstance(item, str) else item
        if isinstance(text, str) and text.lower() in ("inf", "infinity", "∞"):
            value: Any = math.inf
        else:
            value = parse_number(text) if isinstance(text, str) else as_number(text, "a Rényi order")
        if not value > 1:
            raise WmcdpError(f"Rényi orders must be > 1 (or inf), got {format_number(value)}")
        if math.isfinite(value) and value > MAX_ORDER:
            raise WmcdpError(
                f"Rényi orders must be at most {MAX_ORDER:g} (or inf: D_inf, their limit, is the pure "
                f"epsilon), got {format_number(value)}"
            )
        out.append(float(value))
    if not out:
        raise WmcdpError("give at least one Rényi order")
    return out


# -- D_∞: the largest log-ratio of each pair ------------------------------------------------


def _max_partial(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray]:
    with np.errstate(invalid="ignore"):
        d = np.where(la == -np.inf, -np.inf, la - lb)
    return (np.max(d, axis=1, initial=-np.inf),)


def _float_candidates(source: PairSource, partial: Any, combine: Any, count: int, cells: int) -> list[Best]:
    """The float pass: per quantity, the running maximum over pairs (with the first key)."""
    best = [Best(TOLERANCE) for _ in range(count)]
    for keys, totals in source.totals(partial, combine, cells=cells, logs=source.arith.exact):
        for g, b in enumerate(best):
            b.update(totals[0][:, g] if totals[0].ndim == 2 else totals[0], keys)
    return best


def _near(source: PairSource, partial: Any, combine: Any, g: int, value: float, cells: int) -> list[int]:
    """Keys of the pairs whose float value of quantity ``g`` lies within the exact filter of ``value``."""
    floor = value - EXACT_FILTER * max(1.0, abs(value)) if math.isfinite(value) else value
    keys_out: list[int] = []
    for keys, totals in source.totals(partial, combine, cells=cells, logs=True):
        column = totals[0][:, g] if totals[0].ndim == 2 else totals[0]
        keys_out.extend(int(k) for k in keys[column >= floor])
    return sorted(keys_out)


def max_log_ratio(source: PairSource) -> tuple[float, float | Fraction, int]:
    """``(D_∞, e^D_∞, key)``: the pure ε over the pairs (the ratio exact in exact mode)."""
    combine = lambda x, y: (np.maximum(x[0], y[0]),)  # noqa: E731
    (best,) = _float_candidates(source, _max_partial, combine, 1, cells=3)
    if not source.arith.exact:
        eps = float(best.value)
        return eps, (math.exp(eps) if eps < 709.78 else math.inf), best.key  # type: ignore[return-value]
    top: tuple[int, int] | None = None
    top_key = -1
    for key, a, b in source.rows(_near(source, _max_partial, combine, 0, best.value, 3)):
        for x, y in zip(a, b):
            x, y = int(x), int(y)
            if x and (top is None or x * top[1] > top[0] * y):
                top, top_key = (x, y), key
    assert top is not None
    if top[1] == 0:
        return math.inf, math.inf, int(top_key)
    return ln_ratio(*top), Fraction(*top), int(top_key)


# -- finite orders ------------------------------------------------------------------------------


def _renyi_partial(orders: Sequence[float]) -> tuple[Partial, Combine]:
    def partial(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray]:
        out = np.empty((len(la), len(orders)))
        live = la > -np.inf
        for g, alpha in enumerate(orders):
            with np.errstate(invalid="ignore", over="ignore"):
                term = np.where(live, alpha * la + (1 - alpha) * lb, -np.inf)
            out[:, g] = logsumexp(term)
        return (out,)

    return partial, lambda x, y: (np.logaddexp(x[0], y[0]),)


def renyi_divergences(source: PairSource, orders: Sequence[float]) -> list[tuple[float, int, float | None]]:
    """``(D_α, key, ln D_α)`` per order over the pairs of ``source`` (``ln D_α`` None where the float pass gave
    ``D_α``; an exact evaluation gives it, as ``D_α`` itself can underflow)."""
    out: list[tuple[float, int, float | None] | None] = [None] * len(orders)
    finite = [g for g, alpha in enumerate(orders) if math.isfinite(alpha)]
    if len(finite) < len(orders):
        eps, ratio, key = max_log_ratio(source)
        for g, alpha in enumerate(orders):
            if not math.isfinite(alpha):
                out[g] = (eps, key, log_of_log(ratio) if source.arith.exact else None)
    if finite:
        alphas = [orders[g] for g in finite]
        partial, combine = _renyi_partial(alphas)
        best = _float_candidates(source, partial, combine, len(alphas), cells=4)
        for j, (g, alpha) in enumerate(zip(finite, alphas)):
            if source.arith.exact:
                out[g] = _exact_order(source, _near(source, partial, combine, j, best[j].value, 4), alpha)
            else:
                out[g] = (float(best[j].value) / (alpha - 1), int(best[j].key), None)  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def _exact_order(source: PairSource, keys: list[int], alpha: float) -> tuple[float, int, float | None]:
    """``(D_α, key, ln D_α)`` over the candidate pairs ``keys``, each evaluated from its exact masses without
    cancellation (:func:`wmcdp.base.numbers.renyi_log_sum`)."""
    top = Best()
    sums: dict[int, tuple[float, float]] = {}
    for k, a, b in source.rows(keys):
        sums[int(k)] = renyi_log_sum(a, b, alpha, source.arith.denominator)
        top.update(np.array([sums[int(k)][1]]), np.array([k]))
    key = int(top.key)  # type: ignore[arg-type]
    value, log = sums[key]
    log -= math.log(alpha - 1)
    if not value >= sys.float_info.min:  # below the normal floats: from the log, which holds every digit
        value = math.exp(log) * (alpha - 1)
    return max(0.0, value / (alpha - 1)), key, log


def _in_windows(
    prog: Any, orders: Iterable[Any] | str, pairs: Any = None, I: Any = None, **options: Any
) -> RenyiResult:
    """:func:`synthesize_renyi` of a program with unbounded noise (or given ``width``), in windows."""
    keep = {k: options[k] for k in ("at", "neighbours", "force", "plan") if k in options}
    backend, alphas = options.get("backend", "bdd"), parse_orders(orders)

    def run(c: Compiled) -> RenyiResult:
        return synthesize_renyi(c, alphas, pairs, I, backend=backend, exact=True, **keep)

    return windowed_renyi(prog, run, backend, options.get("width"))


@limited
@unbounded_branch(_in_windows)
def synthesize_renyi(
    prog: Program | Compiled,
    orders: Iterable[Any] | str,
    pairs: Iterable[tuple[Value, Value]] | None = None,
    I: Any = None,
    *,
    at: Value | None = None,
    neighbours: Any = None,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
    certified: bool = False,
    plan: str | None = None,
    width: float | None = None,
) -> RenyiResult:
    """Tight Rényi divergences ``D_α`` over the pairs (both orders) for each order, and zCDP's ρ.

    Pair sets as for :func:`wmcdp.notions.approximate.synthesize_approximate` (exhaustive by
    default, ``at=x0`` for one database, ``pairs`` and ``I`` for explicit sets). ``certified=True`` takes
    weights given as exact reals (:class:`wmcdp.Real`) and returns ``intervals``, a rigorous enclosure of
    each ``D_α`` (:mod:`wmcdp.base.certified`). ``plan`` as for
    :func:`~wmcdp.notions.approximate.synthesize_approximate`. A program with unbounded noise
    (:func:`wmcdp.geometric`, ...) always runs in windows and returns ``intervals``, a bracket of each ``D_α``
    narrowed to ``width``, and ``zcdp_interval``, one of ρ (:mod:`wmcdp.notions.windowed_renyi`); ``width`` also
    asks them of any other program.
    """
    start = time.perf_counter()
    plan = forced_plan(plan, "pairs", pairs=pairs, I=I, at=at, certified=certified or None)
    alphas = parse_orders(orders)
    if certified:

        def midpoint_run(c: Compiled) -> RenyiResult:
            return synthesize_renyi(
                c, alphas, pairs, I, at=at, neighbours=neighbours, backend=backend, exact=True, force=force
            )

        return certified_renyi(prog, midpoint_run, backend)

    def scan(source: PairSource, report: Callable[[], Any]) -> RenyiResult:
        values = renyi_divergences(source, alphas)
        results = [RenyiOrder(alpha, eps, source.witness(key), log) for alpha, (eps, key, log) in zip(alphas, values)]
        seconds = time.perf_counter() - start
        return _renyi_result(results, source.arith.exact, source.diagram_size, seconds, source.symmetry, report())

    result = over_pairs(
        prog,
        Pairs(pairs, I, at, neighbours, backend, exact, force, plan, logs=True),
        start,
        scan=scan,
        part=lambda c: synthesize_renyi(c, alphas, exact=exact, force=force),
        combine=lambda planned, parts: _product(planned, parts, alphas, start),
    )
    if result.exact or not recountable(prog, exact, result.diagram_size, result.plan):
        return result

    def again() -> RenyiResult:
        return synthesize_renyi(
            prog,
            alphas,
            pairs,
            I,
            at=at,
            neighbours=neighbours,
            backend=backend,
            exact="binary",
            force=force,
            plan=plan,
        )

    return recounted(result, any(map(_prone, result.orders)), again, lambda r: _floated(r, time.perf_counter() - start))


def _prone(o: RenyiOrder) -> bool:
    """Whether a float ``D_α`` is small enough that its sum's digits may have cancelled (its log-sum
    ``(α − 1) D_α`` near 0, or the pure ε near 0 for ``α = ∞``)."""
    return prone_epsilon(o.epsilon if math.isinf(o.order) else (o.order - 1) * o.epsilon)


def _floated(r: RenyiResult, seconds: float) -> RenyiResult:
    """An exact run's divergences in the form of a float run's (they are floats, with their logs, already)."""
    return replace(r, exact=False, seconds=seconds, plan=noted(r.plan))


def _product(planned: Any, parts: list[RenyiResult], alphas: list[float], start: float) -> RenyiResult:
    """A product's divergences from its parts': the worst part's (max rule) or their sum over the parts (sum
    rule: the Rényi divergence of a product is the sum of its parts')."""

    combined = []
    for g, alpha in enumerate(alphas):
        orders = [r.orders[g] for r in parts]
        if planned.rule == "max":
            c = combine_max([_log(o) for o in orders])
            witness = pair_witness(planned, planned.members[c][0], orders[c].witness)
            combined.append(replace(orders[c], witness=witness))
        else:
            total = sum(o.epsilon * len(m) for o, m in zip(orders, planned.members))
            log = None
            if any(o.log_epsilon is not None for o in orders):  # the sum in logs too: a part's D_α can underflow
                log = float(logsumexp(np.array([_log(o) + math.log(len(m)) for o, m in zip(orders, planned.members)])))
            witness = sum_witness(planned, [o.witness for o in orders])
            combined.append(RenyiOrder(alpha, total, witness, log))
    seconds = time.perf_counter() - start
    return _renyi_result(
        combined,
        all(r.exact for r in parts),
        sum(r.diagram_size or 0 for r in parts),
        seconds,
        "",
        planned.report([r.plan for r in parts], None, None, seconds),
    )


def _renyi_result(
    results: list[RenyiOrder], exact: bool, diagram_size: int | None, seconds: float, symmetry: str, plan: Any
) -> RenyiResult:
    """The result with zCDP's ρ = max over the finite orders of D_α / α."""
    finite = [r for r in results if math.isfinite(r.order)]
    if not finite:
        return RenyiResult(results, None, None, exact, diagram_size, seconds, symmetry, plan)
    top = max(finite, key=_rho_log)
    log_rho = None if top.log_epsilon is None else top.log_epsilon - math.log(top.order)
    rho = top.epsilon / top.order
    return RenyiResult(results, rho, top.order, exact, diagram_size, seconds, symmetry, plan, log_zcdp_rho=log_rho)


def _rho_log(r: RenyiOrder) -> float:
    """``ln(D_α / α)`` of a finite order."""
    return _log(r) - math.log(r.order)


def _log(r: RenyiOrder) -> float:
    """``ln D_α``: the one the order carries, else the log of its float (D_α may underflow)."""
    if r.log_epsilon is not None:
        return r.log_epsilon
    return math.log(r.epsilon) if r.epsilon > 0 else -math.inf


# -- Renyi -----------------------------------------------------------------------------------


def _renyi_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    orders: Any,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> list[RenyiRow]:
    P, I = find_sets("pairs", sets, program)
    r = synthesize_renyi(program, orders, P, I, neighbours=relation(neighbours), backend=backend, exact=exact)
    shared = {"exact": r.exact, "diagram_size": r.diagram_size, "seconds": r.seconds}
    return [RenyiRow.of(o, variant, parameter, value, **shared) for o in r.orders]


RENYI = register(
    Notion(
        name="renyi",
        command="renyi",
        help="tight Rényi divergences",
        run=synthesize_renyi,
        result=RenyiResult,
        row=RenyiRow,
        point=_renyi_point,
        options=(Option("orders", "renyi sweeps: Rényi orders > 1, e.g. 1.5,2,inf", required=True), NEIGHBOURS),
        series=lambda r: (f"{r.program}, alpha = {format_number(r.order)}", float(r.value), float(r.epsilon)),
        axes=lambda rows: (
            "tight Renyi divergence D_alpha (nats)",
            swept_axis(rows),
            f"tight Renyi DP vs {rows[0].parameter}",
        ),
    )
)


__all__ = [
    "RENYI",
    "synthesize_renyi",
    "RenyiResult",
    "RenyiOrder",
    "renyi_divergences",
    "max_log_ratio",
    "parse_orders",
]
