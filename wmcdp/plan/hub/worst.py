"""The hub plan's worst triple: every output event conditioned on the hub and searched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...base import progress
from ...lang.program import Trace
from ..planner import Budget
from .arith import Arith, _Exact, _Logs
from .blocks import Hub, find_blocks
from .conditioned import _decompose, _types
from .events import MAX_OUTPUTS, Diagrams
from .moves import RELATIONS, _alternatives
from .owned import Owned, owned_outputs
from .search import LargestRatio, Search


@dataclass
class HubAnswer:
    """What the hub plan found: the hub, the worst triple (entry offsets of x and x' by entry, and y), the
    number of output events, of part types (largest over the outputs), the work, and the number of output
    events whose hub was joined by an entry's block."""

    hub: Hub
    best: LargestRatio
    outputs: int
    types: int
    work: int
    pinned: int = 0
    cofactors: int = 0  # restrictions of output events to one hub bit (or to a pinned block's class)
    operations: int = 0  # nodes of the events conjoined while the output events were formed (Diagrams.operations)
    owned: int = 0  # outputs factored by entry (.owned): the most own values of an entry; 0: output events listed

    def describe(self) -> str:
        """The hub as the plan report names it."""
        drawn = [self.hub.describe()] if self.hub.bits else []
        if self.pinned:
            drawn.append(
                f"per output one entry's block (its input and random bits) for {self.pinned} of {self.outputs} "
                "output events"
            )
        return " and ".join(drawn)


def hub_plan(
    trace: Trace,
    size: int,
    relation: str,
    exact: bool,
    budget: Budget | None,
    at: tuple[int, ...] | None = None,
    source: Any = None,
) -> HubAnswer | None:
    """The worst triple of pure ε over the conditioned parts (module docstring); ``size`` values per entry; with
    ``at`` (the entry offsets of a database ``x0``) over its data-centric pairs only (entries of one type also
    share their offset in ``x0``); ``source``, the compiled program, gives one Int output's value guards
    (:meth:`~.events.Diagrams._guards`). None when the program has no hub, a cut is wider than one, or the analysis
    passes the ``budget``'s work (BDD nodes, charged to it) or :data:`MAX_OUTPUTS` output events (then another
    plan runs)."""
    hub = find_blocks(trace) if relation in RELATIONS else None
    if hub is None:
        return None
    d = Diagrams(trace, hub.order, source)
    try:
        return _worst(d, hub, size, relation, _Exact if exact else _Logs, budget, at)
    finally:
        if budget is not None:
            budget.charge(d.work + d.operations)


def _worst(
    d: Diagrams, hub: Hub, size: int, relation: str, arith: Arith, budget: Budget | None, at: tuple[int, ...] | None
) -> HubAnswer | None:
    """:func:`hub_plan` once the blocks are found: every output event conditioned and searched (the first event
    that does not split hands the program on)."""
    work = budget.left() if budget is not None else None
    owned = owned_outputs(d, hub, size, arith, work)
    if owned is not None:
        return _worst_owned(d, hub, owned, size, relation, arith, at)
    best, outputs, most, pinned = LargestRatio(), 0, 0, 0
    searched: set[tuple[Any, ...]] = set()
    events = d.events(MAX_OUTPUTS, work)
    if events is None:
        return None
    for values, event in progress.steps(events, len(events)):
        outputs += 1
        if budget is not None and not budget.affords(d.work + d.operations):
            return None
        split = _decompose(d, hub, event, size, arith)
        if split is None:
            return None
        used, weights, tables = split
        if not weights:  # no hub class within the domain: P(y | x) = 0 for every input (a value only codes past
            continue  # the domain's values reach, e.g. a noise value of weight zero or a gap in its support)
        pinned += used.pinned is not None
        types = _types(used, tables, at)
        most = max(most, len(types))
        signature = (tuple(weights), frozenset((t, len(es)) for t, es in types.items()))
        if signature in searched:  # the same types and counts: every ratio as for an output searched before
            continue
        searched.add(signature)
        search = Search(weights, arith, best)
        for groups in _alternatives(types, size, relation, arith, at is not None):
            search.run(groups, _output(d.trace, values))
    if best.num is None or best.x == best.x_prime:
        return None
    return HubAnswer(hub, best, outputs, most, d.work, pinned, d.cofactors, d.operations)


def _worst_owned(
    d: Diagrams, hub: Hub, owned: Owned, size: int, relation: str, arith: Arith, at: tuple[int, ...] | None
) -> HubAnswer | None:
    """:func:`_worst` for outputs that factor by entry (:mod:`.owned`): one search whose choices are each entry's
    ``(own value, x_e, x'_e)``, read back into the witness's output and offsets."""
    best = LargestRatio()
    types = _types(hub, owned.tables, at)
    search = Search(owned.weights, arith, best)
    for groups in _alternatives(types, size, relation, arith, at is not None):
        search.run(groups, None)
    if best.num is None or best.x is None or best.x_prime is None or best.x == best.x_prime:
        return None
    index = {block.entry: i for i, block in enumerate(hub.blocks)}
    chosen = {index[e]: k // size for e, k in best.x.items()}
    best.x = {e: k % size for e, k in best.x.items()}
    best.x_prime = {e: k % size for e, k in best.x_prime.items()}
    best.y = owned.output(d.trace, chosen)
    classes = [len(values) for values in owned.values]
    return HubAnswer(hub, best, 1, len(types), d.work, 0, d.cofactors, d.operations, owned=max(classes, default=1))


def _output(trace: Trace, values: tuple[Any, ...]) -> Any:
    """The program's output from its leaf values."""
    if trace.output_guards is not None:
        return values[0]
    return trace.shape._build(iter(values))
