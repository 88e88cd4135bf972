"""ε(δ), Rényi divergences and zCDP ρ of programs with unbounded noise, bracketed in windows, checked against closed
forms of the geometric mechanism's thresholds, Fraction sums over a wide box with an explicit tail bound, and
mpmath at 60 digits (never against numbers wmcdp printed)."""

from __future__ import annotations

import functools
import json
import math
from fractions import Fraction as F

import mpmath
import pytest

from wmcdp import (
    Bits,
    Program,
    WmcdpError,
    discrete_gaussian,
    geometric,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
)
from wmcdp.cli import main

mpmath.mp.dps = 60
HALF = F(1, 2)
ORDERS = [1 + 1e-9, 1.5, 2, 10, math.inf]


def mp(q: F | int) -> mpmath.mpf:
    q = F(q)
    return mpmath.mpf(q.numerator) / q.denominator


def threshold(a: object = "1/2") -> Program:
    return Program("threshold", Bits(1), lambda x: geometric(x[0].as_int(), alpha=a) >= 0)


def threshold_rows(a: F) -> list[list[mpmath.mpf]]:
    """``[P(False | x), P(True | x)]`` for x = 0, 1: ``P(Z >= 0) = 1 / (1 + a)``, ``P(Z >= -1) = 1 - a^2 / (1 + a)``
    (``P(Z <= -k) = a^k / (1 + a)`` for ``k >= 1``)."""
    a = mp(a)
    return [[a / (1 + a), 1 / (1 + a)], [a * a / (1 + a), 1 - a * a / (1 + a)]]


def renyi(p: list, q: list, alpha: float) -> mpmath.mpf:
    """``D_α(P‖Q)`` in mpmath."""
    if alpha == math.inf:
        return max(mpmath.log(x / y) for x, y in zip(p, q))
    al = mpmath.mpf(alpha)
    return mpmath.log(sum(x**al * y ** (1 - al) for x, y in zip(p, q))) / (al - 1)


def hockey(p: list, q: list, t: mpmath.mpf) -> mpmath.mpf:
    return sum(max(mpmath.mpf(0), x - t * y) for x, y in zip(p, q))


def epsilon_of_delta(rows: list[list], delta: float) -> mpmath.mpf:
    """ε(δ) over both ordered pairs of ``rows``, by bisection on ``t = e^ε`` (δ_p(t) is non-increasing)."""
    d = mpmath.mpf(delta)
    best = mpmath.mpf(0)
    for p, q in ((rows[0], rows[1]), (rows[1], rows[0])):
        if hockey(p, q, 1) <= d:
            continue
        lo, hi = mpmath.mpf(1), max(x / y for x, y in zip(p, q))
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if hockey(p, q, mid) > d else (lo, mid)
        best = max(best, mpmath.log(hi))
    return best


def within(i, value: mpmath.mpf) -> bool:
    return mpmath.mpf(i.lo) <= value <= mpmath.mpf(i.hi)


def narrow(i, width: float) -> bool:
    return i.narrowed and i.hi - i.lo <= width * max(abs(i.hi), width)


# -- epsilon(delta) --------------------------------------------------------------------------


@pytest.mark.parametrize("a, delta", [(HALF, 0.1), (HALF, 0.01), (F(1, 3), 0.05), (F(1, 3), 1e-5)])
def test_epsilon_of_delta_of_a_threshold_has_its_closed_form(a, delta):
    """The two outputs of ``x + Z >= 0``: for (x, x') = (0, 1) on the steep side ``δ = P(F|0) - t P(F|1)``, so
    ``ε(δ) = ln((a/(1+a) - δ) / (a²/(1+a))) = ln((a - δ(1+a)) / a²)`` (the larger of the two orders here); the
    bisection is the independent check of both orders."""
    r = synthesize_approximate(threshold(str(a)), delta=delta, width=1e-9)
    i, true = r.interval, epsilon_of_delta(threshold_rows(a), delta)
    closed = mpmath.log((mp(a) - mpmath.mpf(delta) * (1 + mp(a))) / mp(a) ** 2)
    assert abs(true - closed) < mpmath.mpf(10) ** -40
    assert i.of == "epsilon" and within(i, true) and narrow(i, 1e-9) and not i.reason
    assert not r.exact and r.delta == delta


def test_epsilon_at_delta_zero_is_the_pure_epsilon():
    """ε(0) = ln(1/a): the pure ε's upper end (Booleans, every output reached) bounds it; T > 0 never lets δ_hi
    reach 0."""
    i = synthesize_approximate(threshold(), delta=0, width=1e-9).interval
    p = synthesize_privacy(threshold(), width=1e-9).interval
    assert within(i, mpmath.log(2)) and narrow(i, 1e-9) and not i.reason
    assert within(p, mpmath.log(2)) and i.hi < 0.7


def test_epsilon_at_delta_one_is_zero_and_tiny_delta_is_the_pure_one():
    assert (lambda i: (i.lo, i.hi))(synthesize_approximate(threshold(), delta=1).interval) == (0.0, 0.0)
    # δ at or above the total variation distance 1/6 also gives ε = 0
    assert synthesize_approximate(threshold(), delta="1/5").interval.hi == 0.0
    i = synthesize_approximate(threshold(), delta=1e-300, width=1e-9).interval
    true = mpmath.log(2 - 6 * mpmath.mpf("1e-300"))  # the closed form at a = 1/2
    assert within(i, true) and narrow(i, 1e-9) and i.tail > 1e-300  # the pure ε's end: T is still above δ


def test_epsilon_of_delta_of_an_unbounded_release():
    """``x + Z`` itself: for t < 1/a, δ_(0,1)(t) = P(Z <= 0)(1 - t a) (the outputs z <= 0 have ratio 1/a), so
    ε(δ) = ln((1 - δ (1 + a)) / a) (the other order is the same by symmetry)."""
    prog = Program("release", Bits(1), lambda x: geometric(x[0].as_int(), alpha="1/2"))
    i = synthesize_approximate(prog, delta=0.1, width=1e-9).interval
    assert within(i, mpmath.log((1 - mpmath.mpf("0.1") * 1.5) / 0.5)) and narrow(i, 1e-9)
    with pytest.raises(WmcdpError, match="range grows with the window.*epsilon.0. of an unbounded release"):
        synthesize_approximate(prog, delta=0)
    with pytest.raises(WmcdpError, match="compose=1"):
        synthesize_approximate(prog, delta=0.1, compose=2)


# -- a two-draw program: x0 + x1 + Z1 >= Z2 -------------------------------------------------


def comparison() -> Program:
    return Program("compare", Bits(2), lambda x: geometric(x[0] + x[1], alpha="1/2") >= geometric(0, alpha="1/2"))


@functools.cache
def comparison_rows(reach: int = 60) -> tuple[dict[int, tuple[F, F]], F]:
    """``P(s + Z1 >= Z2)`` for the sums s = 0, 1, 2, summed exactly over the box ``|z1|, |z2| <= reach``, and the
    mass outside, at most ``2 · 2 a^(reach + 1) / (1 + a)``: each probability lies in ``[box, box + tail]``."""
    a = HALF
    mass = {z: (1 - a) / (1 + a) * a ** abs(z) for z in range(-reach, reach + 1)}
    tail = 4 * a ** (reach + 1) / (1 + a)
    out = {}
    for s in range(3):
        box = sum(m1 * m2 for z1, m1 in mass.items() for z2, m2 in mass.items() if s + z1 >= z2)
        out[s] = (box, box + tail)
    return out, tail


def _pair_brackets(rows: dict[int, tuple[F, F]], alpha: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The reference bracket of D_α over the neighbours (sums differing by 1, both orders), from the monotonicity of
    the Rényi sum in each probability (True with [lo, hi], False with [1 - hi, 1 - lo])."""
    lows, highs = [], []
    for s, t in ((0, 1), (1, 0), (1, 2), (2, 1)):
        (pl, ph), (ql, qh) = rows[s], rows[t]
        p_lo, p_hi = [1 - mp(ph), mp(pl)], [1 - mp(pl), mp(ph)]
        q_lo, q_hi = [1 - mp(qh), mp(ql)], [1 - mp(ql), mp(qh)]
        lows.append(max(renyi([p_lo[0], p_hi[1]], [q_hi[0], q_lo[1]], alpha),
                        renyi([p_hi[0], p_lo[1]], [q_lo[0], q_hi[1]], alpha), 0))
        highs.append(renyi([p_hi[0], p_hi[1]], [q_lo[0], q_lo[1]], alpha))
    return max(lows), max(highs)


def test_renyi_of_a_two_draw_comparison_against_a_box_sum():
    rows, tail = comparison_rows()
    assert tail < 1e-17
    r = synthesize_renyi(comparison(), [1.5, 2, math.inf], width=1e-6)
    for o, i in zip(r.orders, r.intervals):
        lo, hi = _pair_brackets(rows, o.order)
        assert hi - lo < 1e-12 and mpmath.mpf(i.lo) <= hi and lo <= mpmath.mpf(i.hi), o.order
        assert narrow(i, 1e-6) and i.draws == 2 and not i.reason
    z = r.zcdp_interval
    assert z.of == "zcdp rho" and z.lo == max(i.lo / o.order for o, i in zip(r.orders[:2], r.intervals[:2]))
    assert z.lo <= z.hi and r.zcdp_order in (1.5, 2)


def test_epsilon_of_delta_of_the_two_draw_comparison():
    """The box sums are within 1e-17 of the truth, far inside the bracket's width."""
    rows, _ = comparison_rows()
    delta, slack = 0.05, mpmath.mpf(10) ** -15

    def two(s: int) -> list:
        return [1 - mp(rows[s][0]), mp(rows[s][0])]

    true = max(epsilon_of_delta([two(s), two(t)], delta) for s, t in ((0, 1), (1, 2)))
    i = synthesize_approximate(comparison(), delta=delta, width=1e-6).interval
    assert narrow(i, 1e-6) and mpmath.mpf(i.lo) - slack <= true <= mpmath.mpf(i.hi) + slack and i.draws == 2


# -- Rényi and zCDP of the threshold ---------------------------------------------------------


@pytest.mark.parametrize("a", [HALF, F(1, 5)])
def test_renyi_of_a_threshold_has_its_closed_form(a):
    """Both orders of the pair, each output's probability in closed form; α = 1 + 1e-9 keeps its digits (a sum
    near 1 in 256-bit balls) and is close to the KL divergence."""
    rows = threshold_rows(a)
    r = synthesize_renyi(threshold(str(a)), ORDERS, width=1e-6)
    for o, i in zip(r.orders, r.intervals):
        true = max(renyi(rows[0], rows[1], o.order), renyi(rows[1], rows[0], o.order))
        assert within(i, true) and narrow(i, 1e-6) and i.of == f"D_{o.order:g}", o.order
    kl = max(sum(p * mpmath.log(p / q) for p, q in zip(x, y)) for x, y in ((rows[0], rows[1]), (rows[1], rows[0])))
    assert abs(r.intervals[0].lo - kl) < 1e-6 * kl
    rho = max(max(renyi(rows[0], rows[1], al), renyi(rows[1], rows[0], al)) / al for al in ORDERS[:4])
    assert within(r.zcdp_interval, rho) and not r.exact


def test_renyi_of_the_discrete_gaussian_threshold():
    """Exact-real weights (radius E > 0): ``P(Z >= k)`` summed in mpmath over |z| <= 200 (the rest below 1e-4000)."""
    gauss = Program("gauss", Bits(1), lambda x: discrete_gaussian(x[0].as_int(), 2) >= 1)
    weights = {z: mpmath.exp(-mpmath.mpf(z) ** 2 / 4) for z in range(-200, 201)}
    total = sum(weights.values())
    up = [sum(w for z, w in weights.items() if z >= k) / total for k in (1, 0)]  # P(True | x) at x = 0, 1
    rows = [[1 - u, u] for u in up]
    r = synthesize_renyi(gauss, [2, math.inf], width=1e-6)
    for o, i in zip(r.orders, r.intervals):
        true = max(renyi(rows[0], rows[1], o.order), renyi(rows[1], rows[0], o.order))
        assert within(i, true) and narrow(i, 1e-6), o.order
    i = synthesize_approximate(gauss, delta=0.05, width=1e-6).interval
    assert within(i, epsilon_of_delta(rows, 0.05)) and narrow(i, 1e-6)


def test_renyi_with_an_output_not_reached_has_an_infinite_upper_end():
    """Sparse vector (n = 2): the output 11 is impossible, so not reached at any window: the lower ends are finite
    and the upper ends infinite, with the reason."""

    def body(x):
        t = geometric(0, alpha="1/2")
        first = geometric(x[0].as_int(), alpha="1/2") >= t
        return first, ~first & (geometric(x[1].as_int(), alpha="1/2") >= t)

    r = synthesize_renyi(Program("svt", Bits(2), body), [2], width=1e-3)
    i = r.intervals[0]
    assert 0 < i.lo < math.inf == i.hi and "not reached" in i.reason and r.zcdp_interval.hi == math.inf


# -- the command line ----------------------------------------------------------------------------

PROGRAMS = "docs/unbounded_noise.py"


def test_the_cli_prints_and_writes_the_brackets(capsys):
    assert main(["approx", f"{PROGRAMS}:threshold", "-p", "alpha=1/2", "--delta", "0.1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lo, hi = data["epsilon_interval"]
    assert lo <= mpmath.log(2 - 6 * mpmath.mpf("0.1")) <= hi
    assert data["window"]["narrowed"] is True and data["delta"] == 0.1
    argv = ["renyi", f"{PROGRAMS}:threshold", "-p", "alpha=1/2", "--orders", "2,inf", "--width", "1e-3"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = threshold_rows(HALF)
    for o in data["orders"]:
        order = math.inf if o["order"] == "inf" else o["order"]
        true = max(renyi(rows[0], rows[1], order), renyi(rows[1], rows[0], order))
        lo, hi = o["epsilon_interval"]
        assert lo <= true <= hi and o["window"]["draws"] == 1
    lo, hi = data["zcdp_rho_interval"]
    assert lo <= renyi(rows[0], rows[1], 2) / 2 <= hi
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "certified [" in out and "windows of half-width" in out and "zCDP rho" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["approx", "release", "--delta", "2"], "delta must be in [0, 1]"),
        (["approx", "threshold", "--delta", "0.1", "--width", "0"], "width must be a number in (0, 1)"),
        (["renyi", "threshold", "--orders", "1"], "Rényi orders must be > 1"),
        (["renyi", "release", "--orders", "2"], "D_alpha of an unbounded release is not bracketed"),
        (["approx", "release", "--delta", "0"], "epsilon(0) of an unbounded release is not bracketed"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    command, name, *rest = argv
    assert main([command, f"{PROGRAMS}:{name}", "-p", "alpha=1/2", *rest]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and len(err) < 200 + len("wmcdp: error: ")
