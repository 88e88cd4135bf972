"""The hub plan's estimate: its seconds as a fixed function of the work it counted."""

from __future__ import annotations

from ..costs import HUB_SECONDS
from .worst import HubAnswer


def hub_estimate(answer: HubAnswer, size: int, nodes: int) -> float:
    """Seconds of the hub plan as a fixed function of the work it counted (:data:`~wmcdp.plan.costs.HUB_SECONDS`,
    the unit of the planner's estimates): the program's diagram of ``nodes`` nodes, the block nodes of the parts'
    tables times the ``size`` values of an entry (at the pinned rate for the share of output events with a pinned
    entry), the events restricted to hub values, the search's leaves, and the operations that formed the output
    events. Known once the plan ran (the leaves are counted by the search); the planner chooses by the terms known
    before it runs (:meth:`~wmcdp.plan.choose.HubPlan.estimate`), and ``experiments/hub_estimates.py`` sets this
    one beside measured seconds."""
    c = HUB_SECONDS
    pinned = answer.pinned / answer.outputs if answer.outputs else 0.0
    table = (1 - pinned) * c["table"] + pinned * c["table_pinned"]
    return (
        c["base"]
        + c["node"] * nodes
        + table * answer.work * size
        + c["cofactor"] * answer.cofactors
        + c["leaf"] * answer.best.leaves
        + c["operation"] * answer.operations
    )
