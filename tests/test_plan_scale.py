"""The default of δ(ε), ε(δ) and profiles of a count of two-report users: the shuffle at scale
(:func:`wmcdp.plan.planned.planned_scale`) when its estimate is below the count-of-reports plan's, else the count of
reports; either way the bound of the count of reports' listed pairs."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction as F

import pytest

from wmcdp import Bits, Program, flip, privacy_profile, synthesize_approximate
from wmcdp.base.errors import WmcdpError
from wmcdp.plan import planned
from wmcdp.plan.given_sets import find_sets
from wmcdp.plan.shuffled_rr import ShuffledCounting
from wmcdp.plan.shuffled_binary import scaled_estimate
from wmcdp.plan.sums import counted_estimate
from wmcdp.programs import PROGRAMS


def rr(n):
    return PROGRAMS["rr_counting"](n=n, lam=F(1, 4))


def traced_rr(n, lam=F(1, 4)):
    """The same mechanism under another name: no hand-proved pairs, so the planner traces its users."""
    return replace(PROGRAMS["rr_counting"](n=n, lam=lam), name="my_count")


def test_the_shuffle_at_scale_is_chosen_where_its_estimate_is_the_smaller():
    for n in (200, 1000, 2000):
        assert (scaled_estimate(n, math.log(3)) < counted_estimate(n, 2, 2 * n)) == (n >= 1000), n
    assert planned.planned_scale(rr(200), None, "bdd") is None
    reports = planned.planned_scale(traced_rr(2000), None, "bdd")
    considered = reports.considered
    assert (reports.lo, reports.hi, reports.n) == (F(1, 4), F(3, 4), 2000)
    assert [kind for kind, _, _ in considered] == ["count-of-reports", "symmetry"]
    assert considered[1][1] < considered[0][1] and reports.estimate == considered[1][1]
    assert reports.estimate == scaled_estimate(2000, reports.epsilon0) and math.isclose(reports.epsilon0, math.log(3))


def test_the_scaled_estimate_grows_with_the_users_and_falls_with_their_spread():
    """Tracing and splitting is linear in ``n``; the search evaluates about sqrt(n / (e^ε0 − 1)) bounds, at least
    log2 n; an infinite or zero ε0 is an estimate too (no search, or none needed)."""
    assert scaled_estimate(10**5, 0.5) > scaled_estimate(10**5, 4.0) > scaled_estimate(10**4, 4.0)
    assert scaled_estimate(10**5, 0.5) - scaled_estimate(10**5, 4.0) > 1.0  # the search: 2.1 s against 0.5 s
    assert math.isfinite(scaled_estimate(10**5, math.inf)) and math.isfinite(scaled_estimate(10**5, 0.0))
    assert scaled_estimate(10**5, 1e308) == scaled_estimate(10**5, math.inf)


def test_a_float_weight_is_the_rational_it_is():
    reports = planned.planned_scale(traced_rr(2000, 0.27), None, "bdd")
    assert reports.lo == F(0.27) and reports.hi == 1 - F(0.27)


@pytest.mark.parametrize("epsilon", [0.1, 0.5])
def test_the_route_gives_the_count_of_reports_bound(monkeypatch, epsilon):
    program = rr(40)
    listed = synthesize_approximate(program, epsilon=epsilon, plan="count-of-reports")
    monkeypatch.setattr(planned, "scaled_estimate", lambda n, epsilon0: 0.0)  # the route taken at a small n
    scaled = synthesize_approximate(program, epsilon=epsilon)
    assert scaled.plan.kind == "symmetry" and "shuffled" in scaled.plan.structure
    assert scaled.plan.estimated_seconds == 0.0  # the chosen plan's estimate is reported
    assert [kind for kind, _, _ in scaled.plan.considered] == ["count-of-reports", "symmetry"]
    assert math.isclose(scaled.delta, listed.delta, rel_tol=1e-9)
    assert scaled.interval.lo <= listed.delta * (1 + 1e-12) and listed.delta <= scaled.interval.hi * (1 + 1e-12)
    (point,) = privacy_profile(program, [epsilon])
    assert math.isclose(point.delta, listed.delta, rel_tol=1e-9) and point.plan.kind == "symmetry"


def test_a_small_count_keeps_the_count_of_reports():
    assert synthesize_approximate(rr(40), epsilon=0.1).plan.kind == "count-of-reports"
    assert planned.planned_scale(rr(40), None, "bdd") is None


def test_the_built_in_takes_its_hand_proved_pairs_without_tracing(monkeypatch):
    """Past SCALE_FROM users the built-in rr_counting (checked on its code, not its name) takes the pairs of
    wmcdp.symmetry_sets with no user traced; the bound is the traced route's on the same mechanism."""
    pairs = planned.planned_scale(rr(2000), None, "bdd")
    assert isinstance(pairs, ShuffledCounting) and pairs.builtin == "rr_counting"
    kinds = [note for _, _, note in pairs.considered]
    assert len(kinds) == 3 and "hand-proved" in kinds[2] and "traced" in kinds[1]
    assert pairs.estimate == min(e for _, e, _ in pairs.considered) < pairs.considered[1][1]

    def no_tracing(*args, **kwargs):
        raise AssertionError("the built-in's users were traced")

    with monkeypatch.context() as m:
        m.setattr(planned, "traced", no_tracing)
        scaled = synthesize_approximate(rr(2000), epsilon=0.1)
    traced = synthesize_approximate(traced_rr(2000), epsilon=0.1)
    assert math.isclose(scaled.delta, traced.delta, rel_tol=1e-9) and scaled.witness == traced.witness
    assert scaled.plan.claims[0][0] == "the program is the built-in rr_counting"
    assert "is_builtin" in scaled.plan.claims[0][1] and scaled.plan.estimated_seconds == pairs.estimate
    under_another_relation = replace(rr(2000), neighbours="all-entries")
    assert not isinstance(planned.planned_scale(under_another_relation, None, "bdd"), ShuffledCounting)


def test_a_program_that_takes_a_built_ins_name_gets_no_proved_sets():
    """The name is not the proof: a user's program named rr_counting with the built-in's parameters, and the built-in
    with a field replaced or a captured value changed, are refused the hand-proved sets and the planner's use of them."""
    params = {"n": 2000, "lam": F(1, 4)}
    impostor = Program("rr_counting", Bits(2000), lambda x: sum(b ^ flip(F(1, 3)) for b in x), params=params)
    changed = rr(2000)
    changed.params["lam"] = F(1, 3)  # the body still flips with 1/4
    for program in (impostor, changed, replace(rr(2000), neighbours="all-entries"), replace(rr(2000), target=None)):
        with pytest.raises(WmcdpError, match="proved for the built-in only"):
            find_sets("pairs", "symmetry", program)
        assert not isinstance(planned.planned_scale(program, None, "bdd"), ShuffledCounting)
    assert isinstance(find_sets("pairs", "symmetry", rr(2000))[0], ShuffledCounting)
