"""Distributions that nearly agree keep every digit: subsampled randomized response at rates down to 1e-300 and
randomized response with λ within 1e-12 of 1/2, in every notion (pure ε, δ(ε), ε(δ), Rényi and zCDP's ρ, the
privacy profile), through the API and the command line.

The truth is independent of wmcdp: each output distribution written out with exact Fractions of the binary64
parameters (``P(y | x) = q P_RR(y | x) + (1 − q) P_RR(y | 0)`` for Poisson sampling at rate ``q`` under
add/remove, the empty slot being 0), and every bound formed from them by mpmath at 700 digits (a Rényi
divergence of 1e-600 is a sum near 1 that differs from 1 in its 600th digit). A value below the float range is
compared through the log the result carries.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from fractions import Fraction as F

import brute
import mpmath
import pytest

from wmcdp import privacy_profile, subsample, synthesize_approximate, synthesize_privacy, synthesize_renyi
from wmcdp.cli import main
from wmcdp.lang.registry import build_program
from wmcdp.notions.recount import RECOUNTED, recountable
from wmcdp.plan.planner import PlanReport

REL = 1e-12
DIGITS = 700
ORDERS = [1.5, 2.0, 3.0, math.inf]


# -- the truth ---------------------------------------------------------------------------------


def rr_dist(x: int, lam: F) -> dict:
    """One randomized-response bit: the record with probability ``1 − λ``, flipped with probability ``λ``."""
    return {(x,): 1 - lam, (1 - x,): lam}


def dists(lam: object, q: object | None) -> dict:
    """``{x: {y: P(y | x)}}`` of RR with ``n = 1`` (on a Poisson subsample at rate ``q`` when given), exactly."""
    lam = F(lam)
    if q is None:
        return {(x,): rr_dist(x, lam) for x in (0, 1)}
    q = F(q)
    out = {}
    for x in (0, 1):
        kept, empty = rr_dist(x, lam), rr_dist(0, lam)
        out[(x,)] = {y: q * kept[y] + (1 - q) * empty[y] for y in kept}
    return out


PAIRS = [((0,), (1,)), ((1,), (0,))]  # n = 1: hamming and add-remove give the same two ordered pairs


def mp(v: F) -> mpmath.mpf:
    return mpmath.mpf(v.numerator) / v.denominator


def truth_epsilon(d: dict) -> mpmath.mpf:
    with mpmath.workdps(DIGITS):
        return max(mpmath.log1p(mp(d[x][y] / d[xp][y] - 1)) for x, xp in PAIRS for y in d[x])


def truth_delta(d: dict, epsilon: float) -> mpmath.mpf:
    with mpmath.workdps(DIGITS):
        t = mpmath.exp(mp(F(epsilon)))
        return max(sum(max(mpmath.mpf(0), mp(d[x][y]) - t * mp(d[xp][y])) for y in d[x]) for x, xp in PAIRS)


def truth_epsilon_for_delta(d: dict, delta: float) -> mpmath.mpf:
    with mpmath.workdps(DIGITS):
        return max(mpmath.log(mp(F(brute.ratio_for_delta(d[x], d[xp], F(delta))))) for x, xp in PAIRS)


def truth_renyi(d: dict, alpha: float) -> mpmath.mpf:
    if math.isinf(alpha):
        return truth_epsilon(d)
    with mpmath.workdps(DIGITS):
        a = mpmath.mpf(alpha)
        sums = [sum(mp(d[x][y]) ** a * mp(d[xp][y]) ** (1 - a) for y in d[x]) for x, xp in PAIRS]
        return max(mpmath.log(s) for s in sums) / (a - 1)


def assert_close(value: float, log: float | None, truth: mpmath.mpf, what: str) -> None:
    """``value`` within a relative :data:`REL` of ``truth``; below the normal floats (where a float has fewer
    digits) its ``log`` within :data:`REL`, or, for a result without a log, ``value`` correctly rounded (within
    the smallest subnormal, 2^-1074)."""
    shown = (what, value, log, mpmath.nstr(truth, 17))
    with mpmath.workdps(DIGITS):
        if truth == 0:
            assert value == 0, shown
        elif truth >= sys.float_info.min:
            assert abs(mpmath.mpf(value) - truth) <= REL * truth, shown
        elif log is not None:
            assert abs(mpmath.mpf(log) - mpmath.log(truth)) <= REL, shown
        else:
            assert abs(mpmath.mpf(value) - truth) <= mpmath.mpf(2) ** -1074, shown


def program(lam: object, q: object | None):
    rr = build_program("randomized_response", {"n": 1, "lam": lam})
    return rr if q is None else subsample(rr, q)


# -- the reproducers, through the API and the command line --------------------------------------


def test_epsilon_of_a_subsample_at_rate_1e_300():
    """Printed ε = 0; the truth is ln(1 + 2q) = 2e-300, at the pair (1, 0) and the output 1."""
    r = synthesize_privacy(program(F(1, 4), 1e-300))
    assert_close(r.epsilon, None, truth_epsilon(dists(F(1, 4), 1e-300)), "epsilon")
    assert (r.witness.x, r.witness.x_prime, r.witness.y) == ((1,), (0,), (1,)) and not r.exact
    assert RECOUNTED in r.plan.claims  # the report says the answer was recounted


@pytest.mark.parametrize("q", [1e-300, 1e-10])
def test_delta_at_zero_of_a_subsample(q):
    """δ(0) = q/2 (printed 0 at 1e-300 and 5.000000414e-11 at 1e-10)."""
    r = synthesize_approximate(program(F(1, 4), q), epsilon=0)
    truth = truth_delta(dists(F(1, 4), q), 0.0)
    assert_close(r.delta, r.log_delta, truth, "delta")
    assert math.isclose(r.log_delta, float(mpmath.log(truth)), rel_tol=REL)


def test_renyi_of_a_subsample_at_rate_1e_20():
    """D_2 ≈ (4/3) q² = 1.3e-40 (printed 1.11e-16)."""
    r = synthesize_renyi(program(F(1, 4), 1e-20), [2])
    assert_close(r.orders[0].epsilon, r.orders[0].log_epsilon, truth_renyi(dists(F(1, 4), 1e-20), 2.0), "D_2")


def test_renyi_of_randomized_response_near_one_half():
    """λ = 0.4999999999: D_2, D_3, D_1.5 ≈ 1.6e-19, 2.4e-19, 1.2e-19 and ρ ≈ 8e-20 (printed 0, 5.55e-17,
    2.2e-16 and ρ 1.48e-16)."""
    d = dists(0.4999999999, None)
    r = synthesize_renyi(program(0.4999999999, None), [2, 3, 1.5])
    for o in r.orders:
        assert_close(o.epsilon, o.log_epsilon, truth_renyi(d, o.order), f"D_{o.order}")
    rho = max(truth_renyi(d, a) / a for a in (2, 3, 1.5))
    assert_close(r.zcdp_rho, r.log_zcdp_rho, rho, "rho")


def _cli(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


RR_QUARTER = ["randomized_response", "-p", "n=1", "-p", "lam=1/4"]


def test_the_reproducers_on_the_command_line(capsys):
    sub = dists(F(1, 4), 1e-300)
    out = _cli(capsys, "privacy", *RR_QUARTER, "--subsample", "1e-300")
    assert_close(out["epsilon"], None, truth_epsilon(sub), "privacy")
    for q in (1e-300, 1e-10):
        out = _cli(capsys, "approx", *RR_QUARTER, "--subsample", repr(q), "--epsilon", "0")
        assert_close(out["delta"], None, truth_delta(dists(F(1, 4), q), 0.0), f"approx at {q}")
    out = _cli(capsys, "renyi", *RR_QUARTER, "--subsample", "1e-20", "--orders", "2")
    assert_close(out["orders"][0]["epsilon"], None, truth_renyi(dists(F(1, 4), 1e-20), 2.0), "renyi")
    half = dists(0.4999999999, None)
    out = _cli(capsys, "renyi", "randomized_response", "-p", "n=1", "-p", "lam=0.4999999999", "--orders", "2,3,1.5")
    for o in out["orders"]:
        assert_close(o["epsilon"], None, truth_renyi(half, o["order"]), f"renyi {o['order']}")
    assert_close(out["zcdp_rho"], None, max(truth_renyi(half, a) / a for a in (2, 3, 1.5)), "rho")


def test_a_renyi_divergence_below_the_float_range_is_printed_from_its_log(capsys):
    """D_2 at q = 1e-300 is about 1.3e-600: no float holds it, its log does (text and JSON alike)."""
    truth = truth_renyi(dists(F(1, 4), 1e-300), 2.0)
    out = _cli(capsys, "renyi", *RR_QUARTER, "--subsample", "1e-300", "--orders", "2")
    printed = mpmath.mpf(out["orders"][0]["epsilon"])
    assert isinstance(out["orders"][0]["epsilon"], str) and abs(printed / truth - 1) < 1e-9
    assert main(["renyi", *RR_QUARTER, "--subsample", "1e-300", "--orders", "2"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.split()[:1] == ["2"])
    assert abs(mpmath.mpf(line.split()[1]) / truth - 1) < 1e-9, line


# -- the sweep: every notion at every rate and λ ---------------------------------------------------

RATES = [1e-300, 1e-200, 1e-100, 1e-20, 1e-10, 1e-3, 0.5, 1, None]  # None: RR itself, under hamming
LAMS = [0.5 - 1e-12, 0.5 - 1e-9, F(1, 4)]


@pytest.mark.parametrize("lam", LAMS, ids=["half-1e-12", "half-1e-9", "quarter"])
@pytest.mark.parametrize("q", RATES)
def test_every_notion_keeps_its_digits(q, lam):
    d = dists(lam, q)
    prog = program(lam, q)
    eps = truth_epsilon(d)
    assert_close(synthesize_privacy(prog).epsilon, None, eps, "epsilon")
    zero = truth_delta(d, 0.0)
    r = synthesize_approximate(prog, epsilon=0)
    assert_close(r.delta, r.log_delta, zero, "delta(0)")
    half = float(eps) / 2  # a threshold inside the curve: δ(ε/2) > 0
    r = synthesize_approximate(prog, epsilon=half)
    assert_close(r.delta, r.log_delta, truth_delta(d, half), "delta(eps/2)")
    target = float(zero) / 2  # δ(0)/2: an ε(δ) strictly between 0 and the pure ε
    assert_close(synthesize_approximate(prog, delta=target).epsilon, None, truth_epsilon_for_delta(d, target), "eps")
    renyi = synthesize_renyi(prog, ORDERS)
    for o in renyi.orders:
        assert_close(o.epsilon, o.log_epsilon, truth_renyi(d, o.order), f"D_{o.order}")
    rho = max(truth_renyi(d, a) / mpmath.mpf(a) for a in ORDERS if math.isfinite(a))
    assert_close(renyi.zcdp_rho, renyi.log_zcdp_rho, rho, "rho")
    for point in privacy_profile(prog, [0, half]):
        assert_close(point.delta, point.log_delta, truth_delta(d, point.epsilon), f"profile at {point.epsilon}")


@pytest.mark.parametrize("q", [0, 1, 1e-300, 1 - 1e-16])
def test_the_ends(q):
    """q = 0 gives 0 everywhere; q = 1 is RR itself; δ = 0 is the pure ε and δ = 1 gives ε = 0."""
    d = dists(F(1, 4), q)
    prog = program(F(1, 4), float(q))
    eps = truth_epsilon(d)
    assert_close(synthesize_privacy(prog).epsilon, None, eps, "epsilon")
    assert_close(synthesize_approximate(prog, delta=0.0).epsilon, None, eps, "epsilon(0)")
    assert synthesize_approximate(prog, delta=1.0).epsilon == 0
    r = synthesize_approximate(prog, epsilon=0)
    assert_close(r.delta, r.log_delta, truth_delta(d, 0.0), "delta(0)")
    for o in synthesize_renyi(prog, ORDERS).orders:
        assert_close(o.epsilon, o.log_epsilon, truth_renyi(d, o.order), f"D_{o.order}")


def test_exact_mode_stays_exact_and_forms_renyi_without_cancellation():
    """With Fraction parameters δ is an exact rational and ε the correctly rounded log of an exact ratio; the
    Rényi sum of distributions that agree to 300 digits keeps its 600th digit."""
    q = F(1, 10**300)
    d = dists(F(1, 4), q)
    prog = program(F(1, 4), q)
    r = synthesize_approximate(prog, epsilon=0)
    assert (
        r.exact and r.delta == brute.max_over_pairs(d, lambda x: [(1 - x[0],)], lambda p, p2: brute.hockey(p, p2, 1))[0]
    )
    assert_close(synthesize_privacy(prog).epsilon, None, truth_epsilon(d), "epsilon")
    renyi = synthesize_renyi(prog, ORDERS)
    assert renyi.exact
    for o in renyi.orders:
        assert_close(o.epsilon, o.log_epsilon, truth_renyi(d, o.order), f"D_{o.order}")


def test_an_epsilon_below_the_normal_floats_carries_its_log(capsys):
    """ε = 2e-400 (exact q = 10^-400) rounds to the smallest subnormal as a float; its log holds every digit, and
    the command line prints it from the log. A float run whose ε is subnormal (4.4e-323) carries it too."""
    q = F(1, 10**400)
    truth = truth_epsilon(dists(F(1, 4), q))
    r = synthesize_privacy(program(F(1, 4), q))
    assert r.exact and r.log_epsilon is not None
    assert_close(r.epsilon, r.log_epsilon, truth, "exact epsilon")
    out = _cli(capsys, "privacy", *RR_QUARTER, "--subsample", f"1/{10**400}")
    with mpmath.workdps(DIGITS):
        assert abs(mpmath.mpf(out["epsilon"]) / truth - 1) < 1e-9, out["epsilon"]
    lam = 0.49999999999999994  # the float just below 1/2
    r = synthesize_privacy(program(lam, 1e-307))
    assert not r.exact and r.log_epsilon is not None
    assert_close(r.epsilon, r.log_epsilon, truth_epsilon(dists(lam, 1e-307)), "float epsilon")


def test_only_answers_prone_to_cancellation_are_recounted():
    """ε = ln 3 keeps its digits in floats: no recount. A prone answer of a float run the planner estimates past
    the recount budget keeps its float value (rr_counting n = 50: an exact recount costs ten times the run)."""
    r = synthesize_privacy(program(F(1, 4), None))
    assert RECOUNTED not in r.plan.claims and r.epsilon == pytest.approx(math.log(3), rel=1e-15)
    prone = synthesize_privacy(program(0.4999999999, 0.5))
    assert RECOUNTED in prone.plan.claims
    estimated = PlanReport("symmetry", "orbits", estimated_seconds=1.8)  # rr_counting n = 50's float plan
    assert not recountable(build_program("rr_counting", {"n": 50, "lam": 0.4999}), None, 4024, estimated)
    small = replace(estimated, estimated_seconds=0.03)
    assert recountable(build_program("rr_counting", {"n": 10, "lam": 0.4999}), None, 203, small)


def test_a_run_too_large_to_recount_whole_recounts_its_witness(monkeypatch):
    """A prone float ε of a run past the recount budget is the correctly rounded log of its witness's exact ratio:
    rr_counting with λ = 1/2 − 1e-12 (binary64), whose ε is ln((1 − λ)/λ) at the output count 0 (a report of 1
    seen as 0 has probability λ, of 0 has 1 − λ; every other count mixes both, its ratio is smaller)."""
    import wmcdp.notions.recount as recount

    monkeypatch.setattr(recount, "RECOUNT_MAX_SECONDS", -1.0)  # every run is past the whole-run recount budget
    monkeypatch.setattr(recount, "RECOUNT_MAX_INPUTS", 0)
    lam = 0.5 - 1e-12
    b = F(lam)
    with mpmath.workdps(DIGITS):
        truth = mpmath.log(mp((1 - b) / b))
    r = synthesize_privacy(build_program("rr_counting", {"n": 8, "lam": lam}))
    assert recount.WITNESS_RECOUNTED in r.plan.claims and RECOUNTED not in r.plan.claims
    assert_close(r.epsilon, None, truth, "witness-recounted epsilon")
    assert r.witness.y == 0 and sum(r.witness.x) + sum(r.witness.x_prime) == 1
    assert r.p_x == pytest.approx(float(mp((1 - b) ** 8)), rel=1e-15)


def test_which_runs_recount_their_witness():
    """Only a program's float run with a compiled whole diagram within the limit: never a product (its whole
    diagram is never formed), an exact run or a compiled program (its weights cannot be read again)."""
    from wmcdp import compile_program
    from wmcdp.notions.recount import WITNESS_MAX_NODES, witness_recountable

    prog = build_program("rr_counting", {"n": 8, "lam": 0.4999})
    plan = PlanReport("symmetry", "orbits", estimated_seconds=9.0)
    assert witness_recountable(prog, None, WITNESS_MAX_NODES, plan)
    assert not witness_recountable(prog, None, WITNESS_MAX_NODES + 1, plan)
    assert not witness_recountable(prog, None, 100, replace(plan, kind="product"))
    assert not witness_recountable(prog, True, 100, plan) and not witness_recountable(prog, "binary", 100, plan)
    assert not witness_recountable(compile_program(prog), None, 100, plan)


@pytest.mark.parametrize("k", [10, 64])
def test_a_composition_of_nearly_agreeing_runs_keeps_its_digits(k):
    """δ(0) of K runs of randomized response with λ = 1/2 − 1e-12 (binary64) is the total variation between the K-fold
    products, Σ_j C(K, j) [(1 − λ)^j λ^(K−j) − λ^j (1 − λ)^(K−j)]_+ over the count j of outputs equal to the input
    (floats lost five digits of it at K = 10); the profile at ε = 0 agrees."""
    lam = 0.5 - 1e-12
    b = F(lam)
    terms = [math.comb(k, j) * ((1 - b) ** j * b ** (k - j) - b**j * (1 - b) ** (k - j)) for j in range(k + 1)]
    with mpmath.workdps(DIGITS):
        truth = mp(sum(t for t in terms if t > 0))
    prog = build_program("randomized_response", {"n": 1, "lam": lam})
    r = synthesize_approximate(prog, epsilon=0, compose=k)
    assert RECOUNTED in r.plan.claims
    assert_close(r.delta, r.log_delta, truth, f"delta(0) of {k} runs")
    (point,) = privacy_profile(prog, [0], compose=k)
    assert_close(point.delta, point.log_delta, truth, f"profile at 0 of {k} runs")
