"""Plans: how a bound is computed. The planner proves structure (independent parts, symmetries) and runs
the cheapest exact plan (:mod:`.planner`); :mod:`.parts` finds independent parts, :mod:`.notions` runs each
notion under the planner."""

from .planner import PlanReport

__all__ = ["PlanReport"]
