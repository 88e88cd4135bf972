"""Certified runs: the notions' bounds as rigorous enclosures when weights are exact reals.

The exact reals are those of :mod:`wmcdp.base.certified`.

Each function compiles the program with every :class:`~wmcdp.base.certified.Real` weight at its midpoint at a
precision, runs the exact count of that program, and widens the answer by the bound of
:mod:`wmcdp.base.certified` (``E``, the sum of the weights' radii, and ``ρ = E / (w − E)``); the precision doubles
from :data:`~wmcdp.base.certified.START_PRECISION` until the enclosure is narrow enough.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

from ..base.certified import (
    MAX_PRECISION,
    START_PRECISION,
    Enclosure,
    exp_bound,
    float_bracket,
    log_down,
    log_up,
    narrow,
    relative_error,
    weights_at,
)
from ..base.errors import WmcdpError
from ..compile import Compiled, compile_program
from ..lang.program import Program
from .results import ApproximateResult, PrivacyResult, RenyiResult

#: a result a certified run widens (a dataclass with ``exact`` and ``interval``)
Result = TypeVar("Result", PrivacyResult, ApproximateResult)


def _program(prog: Any) -> Program:
    if isinstance(prog, Compiled):
        raise WmcdpError("a certified run compiles the program at several precisions: pass the Program, not a Compiled")
    program: Program = prog
    return program


def _runs(prog: Program, backend: str) -> Any:
    """``(precision, compiled midpoint program, E, ρ)`` at doubling precisions, from the first at which the
    radii are below half the smallest path weight (``ρ < 1``)."""
    precision = START_PRECISION
    while precision <= MAX_PRECISION:
        with weights_at(precision) as run:
            compiled = compile_program(prog, backend, exact_floats=True)
        rho = relative_error(run.radius, compiled.min_path_log2)
        if rho is not None:
            yield precision, compiled, run.radius, rho
        precision *= 2
    raise WmcdpError(f"the certified enclosure did not become narrow enough by {MAX_PRECISION} bits of precision")


def certified_privacy(prog: Any, run: Callable[[Compiled], PrivacyResult], backend: str = "bdd") -> PrivacyResult:
    """Pure ε: ``run(compiled)`` is the exact privacy run; its ratio ``R`` widens to
    ``[R (1 − ρ)/(1 + ρ), R (1 + ρ)/(1 − ρ)]``."""
    for precision, compiled, _, rho in _runs(_program(prog), backend):
        r = run(compiled)
        if r.ratio == math.inf:
            interval = Enclosure(math.inf, math.inf, precision)
        else:
            ratio = Fraction(r.ratio)
            interval = Enclosure(
                log_down(ratio * (1 - rho) / (1 + rho)), log_up(ratio * (1 + rho) / (1 - rho)), precision
            )
        if narrow(interval.lo, interval.hi):
            return _certified(r, interval, ratio=float(r.ratio), p_x=float(r.p_x), p_x_prime=float(r.p_x_prime))
    raise AssertionError("unreachable")


def certified_delta(
    prog: Any, run: Callable[[Compiled], ApproximateResult], ratio: Fraction, backend: str = "bdd"
) -> ApproximateResult:
    """δ at ε: the exact run's δ (correctly rounded, or exact at a rational ``e^ε``) widened by
    ``2E (1 + e^ε)``, floored at 0; ``ratio`` is at least ``e^ε``."""
    for precision, compiled, radius, _ in _runs(_program(prog), backend):
        r = run(compiled)
        eta = 2 * radius * (1 + ratio)
        d = r.delta
        low, high = (Fraction(d), Fraction(d)) if isinstance(d, Fraction) else _around(d)
        lo, hi = max(Fraction(0), low - eta), high + eta
        interval = Enclosure(float_bracket(lo)[0], float_bracket(hi)[1], precision, "delta")
        if narrow(interval.lo, interval.hi):
            return _certified(r, interval, delta=float(d))
    raise AssertionError("unreachable")


def certified_epsilon(
    prog: Any, run: Callable[[Compiled, Fraction], ApproximateResult], delta: Fraction, backend: str = "bdd"
) -> ApproximateResult:
    """ε at δ: ``[ε_mid(δ + η), ε_mid(δ − η)]`` with ``η = 2E (1 + T)`` and ``T`` bounding ``e^ε`` over the
    interval (the midpoint run's ε at δ, plus 1); infinite when the midpoint run's ε at ``δ + E`` is. At δ = 0, the
    pure ε: the midpoint run's ratio ``R`` widens to ``[R (1 − ρ)/(1 + ρ), R (1 + ρ)/(1 − ρ)]`` (an infinite ratio
    is exact: zeros stay zeros)."""
    for precision, compiled, radius, rho in _runs(_program(prog), backend):
        middle = run(compiled, delta)
        if delta == 0:
            if middle.ratio == math.inf:
                return _certified(middle, Enclosure(math.inf, math.inf, precision), ratio=math.inf)
            ratio = Fraction(middle.ratio)
            lo, hi = log_down(ratio * (1 - rho) / (1 + rho)), log_up(ratio * (1 + rho) / (1 - rho))
            if narrow(max(lo, 0.0), hi):
                return _certified(middle, Enclosure(max(lo, 0.0), hi, precision), ratio=float(ratio))
            continue
        if middle.epsilon == math.inf:
            # infinite: some pair puts more than delta on outputs the other input never gives (exact zeros);
            # that mass moves by at most E, so it is certain once the midpoint's exceeds delta + E
            if run(compiled, min(delta + radius, Fraction(1))).epsilon == math.inf:
                return _certified(middle, Enclosure(math.inf, math.inf, precision), ratio=math.inf)
            continue
        top = middle.epsilon + 1
        eta = 2 * radius * (1 + exp_bound(top))
        if eta >= delta:
            continue
        upper, lower = run(compiled, delta - eta), run(compiled, min(delta + eta, Fraction(1)))
        hi = math.inf if upper.ratio == math.inf else log_up(Fraction(upper.ratio))
        lo = math.inf if lower.ratio == math.inf else log_down(Fraction(lower.ratio))
        if hi > top:
            continue
        if narrow(lo, hi):
            return _certified(middle, Enclosure(lo, hi, precision), ratio=float(middle.ratio))
    raise AssertionError("unreachable")


#: a Rényi enclosure also covers exact mode's float D_α (rounded from 256 bits, summed over a product's parts)
RENYI_MARGIN = 2.0**-44
#: and stops when it is this narrow, relative (or below 2^-100 absolute, for a D_α of 0)
RENYI_WIDTH = 2.0**-42


def certified_renyi(prog: Any, run: Callable[[Compiled], RenyiResult], backend: str = "bdd") -> RenyiResult:
    """Rényi divergences: ``Σ p^α q^(1−α)`` moves by a factor within ``(1 − ρ)^{±(2α − 1)}``, so ``D_α`` by
    at most ``(2α − 1) L / (α − 1)`` with ``L = ln(1/(1 − ρ))``; D_∞ (the pure ε) by ``2L``. Each end also
    moves out by :data:`RENYI_MARGIN` relative for the rounding of the exact run's float ``D_α``."""
    for precision, compiled, _, rho in _runs(_program(prog), backend):
        r = run(compiled)
        slack = log_up(1 / (1 - rho)) * (1 + 2.0**-40)
        intervals = []
        for o in r.orders:
            if o.epsilon == math.inf:
                intervals.append(Enclosure(math.inf, math.inf, precision, f"D_{o.order:g}"))
                continue
            move = 2 * slack if o.order == math.inf else (2 * o.order - 1) * slack / (o.order - 1) * (1 + 2.0**-40)
            margin = abs(o.epsilon) * RENYI_MARGIN + move
            lo = max(0.0, math.nextafter(o.epsilon - margin, -math.inf))
            hi = math.nextafter(o.epsilon + margin, math.inf)
            intervals.append(Enclosure(lo, hi, precision, f"D_{o.order:g}"))
        if all(i.hi - i.lo <= max(RENYI_WIDTH * i.hi, 2.0**-100) for i in intervals if math.isfinite(i.hi)):
            return replace(r, exact=False, intervals=tuple(intervals))
    raise AssertionError("unreachable")


def _certified(result: Result, interval: Enclosure, **fields: Any) -> Result:
    return replace(result, exact=False, interval=interval, **fields)


def _around(x: float) -> tuple[Fraction, Fraction]:
    """The rationals between the floats next to ``x`` (a correctly rounded value lies within)."""
    return Fraction(math.nextafter(x, -math.inf)) if x > 0 else Fraction(0), Fraction(math.nextafter(x, math.inf))


__all__ = [
    "RENYI_MARGIN",
    "RENYI_WIDTH",
    "certified_delta",
    "certified_epsilon",
    "certified_privacy",
    "certified_renyi",
]
