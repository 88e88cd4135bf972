"""Plans: how a bound is computed. The planner proves structure (independent parts, symmetries) and chooses
the cheapest exact plan (:mod:`.planner`); :mod:`.parts` finds independent parts, :mod:`.symmetry`
proves the program's symmetries and builds orbit sets, :mod:`.pairs` and :mod:`.shuffle`
give the neighbour pairs of the notions over whole distributions, and :mod:`.planned` runs each notion
under the planner (the notion itself comes in as a function: the planner chooses, the notion counts)."""

from .planner import PlanReport

__all__ = ["PlanReport"]
