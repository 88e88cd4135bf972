"""Plans: how a bound is computed.

The planner proves structure (independent parts, symmetries) and chooses
the cheapest exact plan (:mod:`.planner`); :mod:`.parts` finds independent parts, :mod:`.symmetry`
proves the program's symmetries and builds orbit sets, :mod:`.pairs` and :mod:`.shuffle`
give the neighbour pairs of the notions over whole distributions, and :mod:`.planned` runs each notion
under the planner (the notion itself comes in as a function: the planner chooses, the notion counts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .planner import PlanReport as PlanReport

__all__ = ["PlanReport"]


def __getattr__(name: str) -> Any:
    """``PlanReport`` loaded on first use: the command line reads :mod:`.forced`'s plan names for ``--help``
    without loading the planner (and numpy, dd, networkx with it)."""
    if name == "PlanReport":
        from .planner import PlanReport

        return PlanReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
