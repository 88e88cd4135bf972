"""The hub plan's estimates: its seconds as a fixed function of the work it counts, before and after it runs."""

from __future__ import annotations

import math
from typing import Any

from ...lang.shape import leaves
from ..costs import HUB_PLANNED_SECONDS, HUB_SECONDS
from .blocks import Hub
from .events import MAX_OUTPUTS
from .owned import owned_leaves
from .worst import HubAnswer


def hub_estimate(answer: HubAnswer, size: int, nodes: int) -> float:
    """Seconds of the hub plan as a fixed function of the work it counted (:data:`~wmcdp.plan.costs.HUB_SECONDS`,
    the unit of the planner's estimates): the program's diagram of ``nodes`` nodes, the block nodes of the parts'
    tables times the ``size`` values of an entry (at the pinned rate for the share of output events with a pinned
    entry), the events restricted to hub values, the search's leaves, and the operations that formed the output
    events. Known once the plan ran (the leaves are counted by the search); the planner chooses by
    :func:`planned_estimate`, made before it runs."""
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


def planned_terms(whole: Any, hub: Hub) -> dict[str, int]:
    """The hub plan's work counted before it runs, keyed as :data:`~wmcdp.plan.costs.HUB_PLANNED_SECONDS`, on the
    compiled program ``whole`` and its ``hub`` (:func:`~.blocks.find_blocks`). Every term is a count the program
    gives before any output event is formed: ``O``, the outputs some input produces (the support's model count, at
    most :data:`~.events.MAX_OUTPUTS` + 1: past that the plan gives up), ``L`` the levels of the entries' blocks,
    ``k`` the values of an entry, ``D`` the output leaves whose values form the events one leaf at a time (none for
    one Int output: its value guards are the events). The terms: a run, the diagram's nodes, ``O``,
    ``O L k`` (the parts' tables: each block level once per event and entry value), ``O D L`` (the prefixes
    conjoined into the events) and, when no bit is drawn before the inputs (an entry's block is pinned per event),
    ``O`` times the multisets of the other entries' values, ``C(n + k - 2, k - 1)`` (the search's count vectors).
    The hub's bits are not counted apart: the events restricted to each hub value cost in proportion to the
    tables they are split into. The search's pruning is not known before it runs; the fitted constants price it.
    When the outputs factor by entry (:mod:`.owned`) there is one search: ``O = 1``, the tables are
    ``(h + 1) V L k`` (``h`` the hub's bits, about its classes; ``V`` the most own values of an entry) and the
    leaves are conjoined once, ``D L``."""
    size, entries = len(whole.domain.entry_values), len(hub.blocks)
    levels = sum(b.end - b.start for b in hub.blocks)
    depth = 0 if whole.trace.output_guards is not None else len(leaves(whole.trace.shape))
    owners = owned_leaves(whole.trace, hub)
    if owners is not None:  # outputs factored by entry (.owned): one search, a table per hub class and own value
        own = [
            math.prod(leaf.size for leaf, o in zip(leaves(whole.trace.shape), owners) if o == i) for i in range(entries)
        ]
        classes = len(hub.bits) + 1
        return {
            "base": 1,
            "node": whole.size,
            "output": 1,
            "table": classes * max(own, default=1) * levels * size,
            "operation": depth * levels,
            "multiset": 0,
        }
    support = whole.support  # counted once per program (the exhaustive estimate counts it too)
    outputs = min(support.size if support is not None else whole.shape.size, MAX_OUTPUTS + 1)
    return {
        "base": 1,
        "node": whole.size,
        "output": outputs,
        "table": outputs * levels * size,
        "operation": outputs * depth * levels,
        "multiset": outputs * math.comb(entries + size - 2, size - 1) if not hub.bits else 0,
    }


def planned_estimate(whole: Any, hub: Hub) -> float:
    """Seconds of the hub plan before it runs: each count of :func:`planned_terms` times its constant of
    :data:`~wmcdp.plan.costs.HUB_PLANNED_SECONDS` (the planner chooses by it:
    :meth:`~wmcdp.plan.choose.HubPlan.estimate`)."""
    c = HUB_PLANNED_SECONDS
    return float(sum(c[name] * count for name, count in planned_terms(whole, hub).items()))
