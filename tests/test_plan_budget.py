"""A structured plan chosen by its estimate runs on work in proportion to that estimate
(:func:`wmcdp.plan.choose._run_budget`), not only on what symmetry detection's budget has left: the plan that
answers is not abandoned at the detection share (before, unbounded sparse vector at n = 40 was refused so)."""

from __future__ import annotations

from fractions import Fraction

from wmcdp import synthesize_privacy
from wmcdp.plan import choose, planner
from wmcdp.plan.costs import PLAN_WORK_FACTOR, WORK_PER_SECOND
from wmcdp.plan.planner import Budget
from wmcdp.programs import PROGRAMS


def test_the_run_budget_is_the_larger_of_what_is_left_and_the_estimates_share():
    left = Budget(30 * WORK_PER_SECOND, WORK_PER_SECOND)
    own = choose._run_budget(left, 8.0)
    assert (own.work, own.spent) == (WORK_PER_SECOND + int(PLAN_WORK_FACTOR * 8.0 * WORK_PER_SECOND), WORK_PER_SECOND)
    assert own is not left and left.work == 30 * WORK_PER_SECOND  # the detection budget itself is not changed
    assert choose._run_budget(left, 0.5) is left  # what is left already allows it
    assert choose._run_budget(None, 8.0) is None and choose._run_budget(left, None) is left
    unlimited = Budget(None)
    assert choose._run_budget(unlimited, 8.0) is unlimited and choose._run_budget(left, float("inf")) is left


def _noisy_max():
    return PROGRAMS["noisy_max"](n=4, m=5, alpha=Fraction(1, 2))


def test_the_hub_plan_runs_past_a_spent_detection_budget(monkeypatch):
    """With detection's share made almost nothing the hub plan still answers, with the exhaustive bound; its work
    counts against the budget; with no share of its own estimate it is abandoned and another plan answers."""
    exhaustive = synthesize_privacy(_noisy_max(), plan="exhaustive")
    monkeypatch.setattr(planner, "DETECTION_SHARE", 1e-9)
    r = synthesize_privacy(_noisy_max())
    assert r.plan.kind == "hub" and r.ratio == exhaustive.ratio
    monkeypatch.setattr(choose, "PLAN_WORK_FACTOR", 0)
    fallback = synthesize_privacy(_noisy_max())
    assert fallback.plan.kind != "hub" and fallback.ratio == exhaustive.ratio
    assert any(kind == "hub" and "no hub proved" in note for kind, _, note in fallback.plan.considered)
