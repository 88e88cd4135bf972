"""The default of δ(ε), ε(δ) and profiles of a count of two-report users: the shuffle at scale
(:func:`wmcdp.plan.planned.planned_scale`) when its estimate is below the count-of-reports plan's, else the count of
reports; either way the bound of the count of reports' listed pairs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from wmcdp import privacy_profile, synthesize_approximate
from wmcdp.plan import planned
from wmcdp.plan.shuffled_binary import scaled_estimate
from wmcdp.plan.sums import counted_estimate
from wmcdp.programs import PROGRAMS


def rr(n):
    return PROGRAMS["rr_counting"](n=n, lam=F(1, 4))


def test_the_shuffle_at_scale_is_chosen_where_its_estimate_is_the_smaller():
    for n in (200, 1000, 2000):
        assert (scaled_estimate(n, math.log(3)) < counted_estimate(n, 2, 2 * n)) == (n >= 1000), n
    assert planned.planned_scale(rr(200), None, "bdd") is None
    reports = planned.planned_scale(rr(2000), None, "bdd")
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
    reports = planned.planned_scale(PROGRAMS["rr_counting"](n=2000, lam=0.27), None, "bdd")
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
