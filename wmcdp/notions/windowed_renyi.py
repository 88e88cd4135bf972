"""Brackets of Rényi divergences and zCDP ρ of programs with unbounded noise, in doubling windows.

A windowed run (:mod:`wmcdp.notions.windowed`) gives the windowed program's probabilities ``p`` (within ``E`` of
exact rationals) and the tail mass ``T``; with ``T' = T / (1 - T)`` every output has (:mod:`wmcdp.base.windows`)

    (1 - T)(p_y - E) <= P(y | x) <= (1 - T)(p_y + E + T').                                             (W)

For ``α > 1`` the sum ``S(P, Q) = Σ_y P_y^α Q_y^(1 - α)`` increases with each ``P_y`` and decreases with each
``Q_y`` (``1 - α < 0``), and ``D_α = ln S / (α - 1)``.

* **Lower end.** Any pair bounds the maximum over the pairs from below; the windowed maximiser ``(x, x')``, with
  each ``P_y`` at its lowest and each ``Q_y`` at its highest in (W), gives
  ``S >= (1 - T) Σ_y (p_y - E)^α (q_y + E + T')^(1 - α)`` (the factors ``(1 - T)^α (1 - T)^(1 - α)``; outputs
  with ``p_y <= E`` left out, every term being at least 0). For ``α = ∞``, ``max_y ln((p_y - E) / (q_y + E + T'))``.
* **Upper end**, every pair at once. When every output is reached from every input at the window (outputs made of
  Booleans, or the outputs the program declares, as pure ε's finite upper end needs), every windowed probability
  is at least ``m`` (the smallest), so ``p_y + E + T' <= p_y (1 + (E + T') / m)`` and ``q_y - E >= q_y (1 - E / m)``;
  each pair's sum is then at most

      (1 - T) (1 + (E + T') / m)^α (1 - E / m)^(1 - α) Σ_y p_y^α q_y^(1 - α)
          <= (1 - T) (1 + (E + T') / m)^α (1 - E / m)^(1 - α) e^((α - 1) D_w)

  with ``D_w`` the windowed maximum over the pairs, so ``D_α <= D_w + (α ln(1 + (E + T') / m) + (1 - α)
  ln(1 - E / m) + ln(1 - T)) / (α - 1)`` (R); for ``α = ∞``, ``D_w + ln(1 + (E + T') / m) - ln(1 - E / m)``. An
  output some input does not reach at the window has an unknown ratio beyond it: the upper end is infinite and the
  bracket says why; an output whose integer range grows with the window releases an unbounded value and is
  refused (:func:`wmcdp.notions.windowed.reached`).

Every sum is an arb ball at :data:`PRECISION` bits (so near ``α = 1`` the ``ln`` of a sum near 1 keeps its
digits), each end rounded outwards; the windowed ``D_w`` (a float from the exact run) is widened by
:data:`~wmcdp.notions.certify.RENYI_MARGIN`. Near ``α = 1`` both ends move by about ``T / (α - 1)``: the windows
grow until that is below the width. zCDP's ρ is the maximum of ``D_α / α`` over the finite orders given, as for a
finite program (:func:`wmcdp.notions.renyi.synthesize_renyi`), and its bracket the maximum of the ends.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..base.certified import _fraction, arb_of, float_bracket
from ..base.windows import WindowBracket, narrow_to
from ..compile import Compiled
from ..count.probabilities import inference
from ..lang.program import Value
from ..lang.shape import witness_text
from .certify import RENYI_MARGIN
from .results import RenyiOrder, RenyiResult
from .windowed import CHECKED_TWICE, MAX_HALF_WIDTH, WindowRun, bracketed, declared_outputs, reached

#: bits of the arb balls of the Rényi sums
SUM_PRECISION = 256
#: one order's bracket: its ends, why the upper end is infinite, and the end the width is measured to
OrderEnds = tuple[float, float, str, float]


def _flint() -> Any:
    import flint  # deferred: python-flint costs 0.15 s at import; only Rényi brackets of unbounded noise need it

    return flint


def _down(q: Fraction) -> float:
    return float_bracket(q)[0]


def _up(q: Fraction) -> float:
    return float_bracket(q)[1]


def _ends(ball: Any) -> tuple[Fraction, Fraction]:
    """The rational ends of an arb ball."""
    mid, rad = _fraction(ball.mid()), _fraction(ball.rad())
    return mid - rad, mid + rad


def _rows(current: WindowRun, xs: tuple[Value, Value]) -> list[tuple[Fraction, Fraction]]:
    """The windowed ``(p_y, q_y)`` of the pair ``xs`` over every output value of the windowed program."""
    ys = list(current.compiled.shape.values())
    table = inference(current.compiled, [(x, y) for x in xs for y in ys], exact=True)
    return [(Fraction(table.probability(xs[0], y)), Fraction(table.probability(xs[1], y))) for y in ys]


def _lower(alpha: float, rows: list[tuple[Fraction, Fraction]], radius: Fraction, tail: Fraction) -> float:
    """The lower end of ``D_α`` from the pair's windowed rows (module docstring), at least 0."""
    spill = tail / (1 - tail)
    live = [(p - radius, q + radius + spill) for p, q in rows if p > radius]
    if not live:
        return 0.0
    if any(q == 0 for _, q in live):  # no tail and exact weights: an output the other input never gives
        return math.inf
    arb = _flint().arb
    logs = [(arb_of(p).log(), arb_of(q).log()) for p, q in live]
    if alpha == math.inf:
        return max(0.0, max(_down(_ends(lp - lq)[0]) for lp, lq in logs))
    a = arb_of(Fraction(alpha))
    total = sum(((a * lp + (1 - a) * lq).exp() for lp, lq in logs), arb(0))
    log_sum = arb_of(1 - tail).log() + total.log()
    return max(0.0, _down(_ends(log_sum)[0] / (Fraction(alpha) - 1)))


def _upper(alpha: float, windowed: float, smallest: Fraction, radius: Fraction, tail: Fraction) -> float:
    """The upper end (R) of ``D_α`` over every pair from the windowed maximum ``windowed`` (a float, widened)."""
    spill = tail / (1 - tail)
    grow, shrink = arb_of(1 + (radius + spill) / smallest).log(), arb_of(1 - radius / smallest).log()
    top = Fraction(windowed) * (1 + Fraction(RENYI_MARGIN))
    if alpha == math.inf:
        return _up(top + _ends(grow - shrink)[1])
    a = arb_of(Fraction(alpha))
    extra = (a * grow + (1 - a) * shrink + arb_of(1 - tail).log()) / arb_of(Fraction(alpha) - 1)
    return _up(top + max(Fraction(0), _ends(extra)[1]))


def _order(o: RenyiOrder, current: WindowRun, smallest: Fraction | None, reason: str) -> OrderEnds:
    """One order's bracket at the window; ``smallest`` and ``reason`` from :func:`wmcdp.notions.windowed.reached`."""
    radius, tail = current.radius, current.tail
    lo = _lower(o.order, _rows(current, (o.witness.x, o.witness.x_prime)), radius, tail)
    if o.epsilon == math.inf:
        x, x_prime = witness_text(o.witness.x), witness_text(o.witness.x_prime)
        return lo, math.inf, f"an output is reached from the input {x} and not from {x_prime} at the window", math.inf
    goal = _up(Fraction(o.epsilon) * (1 + Fraction(RENYI_MARGIN)))
    if smallest is None or smallest <= radius:
        if reason == CHECKED_TWICE:
            goal = math.inf
        return lo, math.inf, reason or "the smallest windowed probability is within the weights' radius", goal
    hi = _upper(o.order, o.epsilon, smallest, radius, tail)
    return lo, hi, "", hi


def _slack(end: OrderEnds, width: float) -> float:
    """How far an order's bracket is from narrow (the order the run narrows to is the widest)."""
    lo, hi, _, goal = end
    if narrow_to(lo, goal, width):
        return 0.0
    return math.inf if math.isinf(goal) else (goal - lo) / max(abs(lo), abs(goal), width)


def _rho(orders: list[float], brackets: list[WindowBracket]) -> WindowBracket | None:
    """zCDP's ρ = max over the finite orders of ``D_α / α``: the maximum of the ends over α, rounded outwards."""
    finite = [(alpha, b) for alpha, b in zip(orders, brackets) if math.isfinite(alpha)]
    if not finite:
        return None
    lo = max(_down(Fraction(b.lo) / Fraction(alpha)) for alpha, b in finite)
    top = max(finite, key=lambda ab: ab[1].hi / ab[0])[1]
    hi = top.hi if math.isinf(top.hi) else max(_up(Fraction(b.hi) / Fraction(alpha)) for alpha, b in finite)
    narrowed = all(b.narrowed for _, b in finite)
    return replace(top, lo=lo, hi=hi, of="zcdp rho", narrowed=narrowed, reason=top.reason if hi == math.inf else "")


def windowed_renyi(
    prog: Any,
    run: Callable[[Compiled], RenyiResult],
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> RenyiResult:
    """Rényi divergences of a program with unbounded noise: ``run(compiled)`` is the exact Rényi run of the
    windowed program; the result is the last window's, with ``intervals`` the bracket of each ``D_α`` (module
    docstring) and ``zcdp_interval`` that of ρ. The windows grow until every order's bracket is ``width`` narrow."""
    start = time.perf_counter()
    found: dict[int, list[OrderEnds]] = {}
    goal = width if width is not None else 1e-6
    declared = declared_outputs(prog)

    def ends(current: WindowRun, previous: WindowRun | None) -> tuple[Any, Any, str, Any]:
        smallest, reason = reached(current, previous, None, "D_alpha", declared)
        with _flint().ctx.workprec(SUM_PRECISION):
            each = [_order(o, current, smallest, reason) for o in current.result.orders]
        found[current.half_width] = each
        return max(each, key=lambda end: _slack(end, goal))

    current, bracket = bracketed(prog, backend, run, ends, "D_alpha", width, max_half_width)
    r = current.result
    intervals = [
        replace(bracket, lo=lo, hi=hi, of=f"D_{o.order:g}", narrowed=narrow_to(lo, end, goal), reason=why)
        for o, (lo, hi, why, end) in zip(r.orders, found[current.half_width])
    ]
    return replace(  # type: ignore[no-any-return]
        r,
        exact=False,
        intervals=tuple(intervals),
        zcdp_interval=_rho([o.order for o in r.orders], intervals),
        seconds=time.perf_counter() - start,
    )


__all__ = ["SUM_PRECISION", "windowed_renyi"]
