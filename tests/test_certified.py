"""Certified runs: exact reals, their enclosures of epsilon, delta(epsilon) and epsilon(delta) against
independent 60-digit enumerations (mpmath), the float runs inside the enclosures, and the refusals."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction as F

import mpmath
import pytest

from wmcdp import (
    Bits,
    IntVector,
    Program,
    Real,
    WmcdpError,
    discrete,
    flip,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
)
from wmcdp.cli import main

mpmath.mp.dps = 60


@pytest.mark.parametrize("text", ["exp(-1/2)", "sqrt(2)/2", "log(3) - 1", "1/(1+exp(40))", "exp(-700)", "2**-3"])
def test_reals_round_correctly(text):
    # every integer quotient in these texts is a binary fraction, so Python's / is exact here
    with mpmath.workdps(60):  # (another module may have changed mpmath's global precision since the import)
        value = mpmath.mpf(eval(text, {"exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt}))
        x = Real(text)
        assert float(x) == float(value)  # mpmath's float() rounds to nearest too
        mid, rad = x.enclosure(200)
        assert abs(mpmath.mpf(mid.numerator) / mid.denominator - value) <= mpmath.mpf(rad.numerator) / rad.denominator


def test_reals_combine_and_compare():
    q = Real("exp(-1)")
    assert 0 < q < F(1, 2) and (1 - q) > F(1, 2) and float(q * 2) == float(2 * mpmath.exp(-1))
    with pytest.raises(WmcdpError, match="only numbers"):
        Real("__import__('os')")
    with pytest.raises(WmcdpError, match="cannot decide the sign"):
        bool(Real("exp(1/2) - exp(1/2)"))
    for text in ("exp(1/0)", "log(-1)", "sqrt(-2)"):
        with pytest.raises(WmcdpError, match="is not a finite real number"):
            float(Real(text))


LAM = "1/(1+exp(1/2))"


def rr(n: int, lam: object) -> Program:
    return Program("rr", Bits(n), lambda x: tuple(b ^ flip(lam) for b in x), neighbours="hamming")


def rr_distributions(n: int, lam: mpmath.mpf):
    xs = list(itertools.product((0, 1), repeat=n))

    def p(y, x):
        return mpmath.fprod(lam if a != b else 1 - lam for a, b in zip(x, y))

    pairs = [(x, z) for x in xs for z in xs if sum(a != b for a, b in zip(x, z)) == 1]
    return xs, p, pairs


def brute_delta(n: int, lam: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    xs, p, pairs = rr_distributions(n, lam)
    t = mpmath.exp(eps)
    return max(mpmath.fsum(max(0, p(y, x) - t * p(y, z)) for y in xs) for x, z in pairs)


def inside(value: mpmath.mpf, interval) -> bool:
    return mpmath.mpf(interval.lo) <= value <= mpmath.mpf(interval.hi)


def test_pure_epsilon_encloses_the_closed_form():
    lam = 1 / (1 + mpmath.exp(mpmath.mpf(1) / 2))
    r = synthesize_privacy(rr(2, Real(LAM)), "exhaustive", certified=True)
    assert inside(mpmath.log((1 - lam) / lam), r.interval) and r.interval.of == "epsilon"
    assert r.interval.hi - r.interval.lo <= 2**-50 * r.interval.hi and not r.exact
    assert r.interval.lo <= synthesize_privacy(rr(2, Real(LAM)), "exhaustive").epsilon <= r.interval.hi


def test_delta_and_epsilon_enclose_an_enumeration():
    lam = 1 / (1 + mpmath.exp(mpmath.mpf(1) / 2))
    d = synthesize_approximate(rr(2, Real(LAM)), epsilon=0.25, certified=True)
    assert inside(brute_delta(2, lam, mpmath.mpf(0.25)), d.interval) and d.interval.of == "delta"
    assert d.interval.lo <= synthesize_approximate(rr(2, Real(LAM)), epsilon=0.25).delta <= d.interval.hi
    e = synthesize_approximate(rr(2, Real(LAM)), delta=F(1, 10), certified=True)
    true = mpmath.findroot(lambda x: brute_delta(2, lam, x) - mpmath.mpf(1) / 10, (0.3, 0.35), solver="bisect")
    assert inside(true, e.interval) and e.interval.of == "epsilon"


def brute_renyi(n: int, lam: mpmath.mpf, alpha: mpmath.mpf) -> mpmath.mpf:
    xs, p, pairs = rr_distributions(n, lam)
    return max(
        mpmath.log(mpmath.fsum(p(y, x) ** alpha * p(y, z) ** (1 - alpha) for y in xs)) / (alpha - 1) for x, z in pairs
    )


def test_renyi_encloses_an_enumeration():
    lam = 1 / (1 + mpmath.exp(mpmath.mpf(1) / 2))
    r = synthesize_renyi(rr(2, Real(LAM)), [2, 1.5, 7, "inf"], certified=True)
    for order, interval in zip([2, 1.5, 7], r.intervals):
        assert inside(brute_renyi(2, lam, mpmath.mpf(order)), interval) and interval.hi - interval.lo < 2**-42 * interval.hi
    assert inside(mpmath.mpf(1) / 2, r.intervals[3])
    plain = synthesize_renyi(rr(2, Real(LAM)), [2, 1.5, 7, "inf"])
    assert all(i.lo <= o.epsilon <= i.hi for o, i in zip(plain.orders, r.intervals))


def test_tiny_weights_raise_the_precision():
    """Weights near e^-700 need more than the first 64 bits: the enclosure still holds the closed form."""
    lam = mpmath.exp(-700)
    r = synthesize_privacy(rr(3, Real("exp(-700)")), "exhaustive", certified=True)
    assert inside(mpmath.log((1 - lam) / lam), r.interval) and r.interval.precision > 64


def test_radii_near_the_smallest_path_weight_raise_the_precision():
    """A path weight within two radii of the precision (relative error rho >= 1) gives no enclosure: the
    precision rises. Two inputs draw y in 0..8 with weights q^|y - 2x| / Z_x (q = e^-10.3): at 128 bits the radii
    are 0.8 of the smallest path weight's bound (rho near 4), where the pure-epsilon bounds (1 -+ rho) / (1 +- rho)
    are meaningless. The closed form is e^20.6 Z_1 / Z_0, attained at y = 0."""
    q = Real("exp(-103/10)")
    z = [sum((q ** abs(y - 2 * x) for y in range(1, 9)), q ** (2 * x)) for x in (0, 1)]
    weights = [{y: q ** abs(y - 2 * x) / z[x] for y in range(9)} for x in (0, 1)]
    prog = Program("two", IntVector(1, 0, 1), lambda x: discrete(lambda i: weights[i], x[0]))
    r = synthesize_privacy(prog, "exhaustive", certified=True)
    t = mpmath.mpf(103) / 10
    zs = [mpmath.fsum(mpmath.exp(-t * abs(y - 2 * x)) for y in range(9)) for x in (0, 1)]
    assert inside(2 * t + mpmath.log(zs[1] / zs[0]), r.interval) and r.interval.precision > 128


def test_input_dependent_real_weights():
    """The exponential mechanism on {0, 1, 2} with weights exp(-|x - y|) (given as exact reals), neighbours one apart, against a
    60-digit enumeration of its ratios over neighbouring x."""
    weights = {d: Real(f"exp(-{d})") for d in range(3)}

    def probs(v):
        return {y: weights[abs(v - y)] / sum((weights[abs(v - z)] for z in range(3)), F(0)) for y in range(3)}

    prog = Program("expmech", IntVector(1, 0, 2), lambda x: discrete(probs, x[0]), neighbours="one-entry")

    def p(y, x):
        return mpmath.exp(-abs(x - y)) / mpmath.fsum(mpmath.exp(-abs(x - z)) for z in range(3))

    best = max(mpmath.log(p(y, x) / p(y, z)) for x in range(3) for z in range(3) if abs(x - z) == 1 for y in range(3))
    r = synthesize_privacy(prog, "exhaustive", certified=True)
    assert inside(best, r.interval)


def test_refusals():
    prog = rr(1, Real(LAM))
    with pytest.raises(WmcdpError, match="certified=True"):
        synthesize_privacy(prog, "exhaustive", exact=True)
    with pytest.raises(WmcdpError, match="compose=1"):
        synthesize_approximate(prog, epsilon=0.1, compose=2, certified=True)
    with pytest.raises(WmcdpError, match=r"flip probability must be in \[0, 1\]"):
        synthesize_privacy(rr(1, Real("exp(1/2)")), "exhaustive")


def test_command_line(capsys):
    assert main(["privacy", "randomized_response", "-p", "n=2", "-p", f"lam={LAM}", "--certified", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi = out["epsilon_interval"]
    assert lo <= 0.5 <= hi and out["precision"] == 64
    assert (
        main(["approx", "randomized_response", "-p", "n=2", "-p", f"lam={LAM}", "--certified", "--epsilon", "0.25"])
        == 0
    )
    assert "delta (certified)" in capsys.readouterr().out
    assert math.isfinite(lo)
