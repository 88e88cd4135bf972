"""Outputs that factor by entry: each output leaf reads the hub and one entry's block alone.

An output leaf is entry ``e``'s *own* when the circuit gates of its bits read no variable outside the hub and
``e``'s block (:func:`owned_leaves`: its cone, read on the traced circuit, so the claim holds for the function the
leaf computes). When every leaf that reads a variable is some entry's own, the event of an output ``y`` is the
conjunction over entries of ``[own leaves of e = y_e]``, each over the hub and ``e``'s block; with the hub fixed at
``h`` the conjuncts share no variable, the blocks' random bits are independent, and

    P(y | x) = sum_h P(H = h) * prod_e P_e(y_e | x_e, h),    P_e(v | x_e, h) = WMC([own leaves of e = v] | h, x_e),

with no cut to check. So ``y_e`` is one more choice of entry ``e`` beside ``(x_e, x'_e)``: the search of
:mod:`.search` runs once, on tables over (own value, input value), and only how many entries of a type take each
``(y_e, x_e, x'_e)`` matters. A sparse vector with no bound on its TRUE answers has ``2^n`` outputs but, per type
of entry, only its count vectors over these choices: the outputs are searched up to their exchangeability.

The hub's classes are found as for one event (:func:`.conditioned._hub_cofactors`), on every own value's event at
once: a forward pass over the hub's levels on the tuple of those events (:func:`.conditioned._step`); hub values
that restrict every event alike are one class.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from ...lang.circuit import VAR
from ...lang.program import Trace
from ...lang.shape import leaves
from .arith import Arith
from .blocks import Hub
from .conditioned import Frontier, _cut, _levels, _step
from .events import Diagrams

#: the most values (combinations of its own leaves' values) one entry's own output may take
MAX_OWN_VALUES = 256


@dataclass(frozen=True)
class Owned:
    """The outputs factored by entry: ``owners[j]``, the block index (in ``hub.blocks``) owning output leaf ``j``,
    or None for a constant leaf (its one value in ``constants[j]``); per block, its own values (tuples of its
    leaves' values, in leaf order); the hub classes' probabilities; and per class, per block, the table over
    ``(own value, input offset)`` flattened as ``value * size + offset``."""

    owners: tuple[int | None, ...]
    constants: dict[int, Any]
    values: tuple[tuple[tuple[Any, ...], ...], ...]
    weights: list[Any]
    tables: list[list[tuple[Any, ...]]]

    def output(self, trace: Trace, chosen: dict[int, int]) -> Any:
        """The program's output whose block ``i`` takes its own value ``chosen[i]`` (index into its values)."""
        leaf_values, taken = [], [0] * len(self.values)
        for j, owner in enumerate(self.owners):
            if owner is None:
                leaf_values.append(self.constants[j])
                continue
            leaf_values.append(self.values[owner][chosen.get(owner, 0)][taken[owner]])
            taken[owner] += 1
        return trace.shape._build(iter(leaf_values))


def owned_leaves(trace: Trace, hub: Hub) -> tuple[int | None, ...] | None:
    """Per output leaf, the index in ``hub.blocks`` of the block whose own it is (module docstring), or None for
    a leaf that reads no variable; None when some leaf reads the hub alone or more than one block, or the output
    is one Int's value guards (one leaf: nothing to factor)."""
    if trace.output_guards is not None:
        return None
    level = {v: k for k, v in enumerate(hub.order)}
    depth = len(hub.bits)
    starts = [b.start for b in hub.blocks]
    gates, roots, out = trace.circuit.gates, list(trace.output_roots), []
    for leaf in leaves(trace.shape):
        mine, roots = roots[: leaf.width], roots[leaf.width :]
        owner: int | None = None
        read_any = False
        for v in _cone_variables(gates, mine):
            read_any = True
            at = level[v]
            if at < depth:
                continue
            block = _block_at(starts, at)
            if owner is not None and block != owner:
                return None
            owner = block
        if read_any and owner is None:  # the hub alone: not an entry's own
            return None
        out.append(owner)
    return tuple(out) if any(o is not None for o in out) else None


def _block_at(starts: list[int], level: int) -> int:
    """The index of the block holding ``level`` (the blocks are contiguous and in level order)."""
    return bisect.bisect_right(starts, level) - 1


def _cone_variables(gates: list[tuple[Any, ...]], roots: list[int]) -> set[int]:
    """The variables the gates below ``roots`` read."""
    seen, stack, out = set(), list(roots), set()
    while stack:
        node = stack.pop()
        if node < 2 or node in seen:
            continue
        seen.add(node)
        gate = gates[node]
        if gate[0] == VAR:
            out.add(gate[1])
        else:
            stack.extend(gate[1:])
    return out


def owned_outputs(d: Diagrams, hub: Hub, size: int, arith: Arith, work: int | None) -> Owned | None:
    """The factored outputs (:class:`Owned`) of a program whose leaves are entries' own (:func:`owned_leaves`);
    None when they are not, compiling the output bits is extrapolated past ``work``, an entry has more than
    :data:`MAX_OWN_VALUES` own values, or a restricted event leaves its block (it cannot: the claim is checked)."""
    owners = owned_leaves(d.trace, hub)
    if owners is None:
        return None
    bits = d.output_bits(work)
    if bits is None:
        return None
    conditions = d.leaf_conditions(bits)
    constants: dict[int, Any] = {}
    per_block: list[list[list[tuple[Any, Any]]]] = [[] for _ in hub.blocks]
    for j, (owner, values) in enumerate(zip(owners, conditions)):
        if owner is None:
            (constants[j],) = (value for value, _ in values)  # a leaf that reads nothing has one value
        else:
            per_block[owner].append(values)
    own: list[list[tuple[tuple[Any, ...], Any]]] = []
    for leaf_values in per_block:  # each entry's own values: the satisfiable combinations of its leaves' values
        found = d._prefixes(leaf_values, MAX_OWN_VALUES, None)
        if found is None:
            return None
        own.append(found)
    events = [event for block_values in own for _, event in block_values]
    weights, tables = [], []
    for nodes, mass in _joint_cofactors(d, hub, events, arith):
        if mass == arith.zero:
            continue
        rows, it = [], iter(nodes)
        for block, block_values in zip(hub.blocks, own):
            row: list[Any] = []
            for _ in block_values:
                part = _own_table(d, block, next(it), size, arith)
                if part is None:
                    return None
                row += part
            rows.append(tuple(row))
        weights.append(mass)
        tables.append(rows)
    labels = tuple(tuple(v for v, _ in block_values) for block_values in own)
    return Owned(owners, constants, labels, weights, tables)


def _joint_cofactors(d: Diagrams, hub: Hub, events: list[Any], arith: Arith) -> list[tuple[tuple[Any, ...], Any]]:
    """``(every event restricted to a class of hub values, the class's probability)``: a forward pass over the
    hub's levels on the tuple of ``events`` (:func:`.conditioned._step`)."""
    nodes = tuple(events)
    frontier: Frontier = {(tuple(map(int, nodes)), 0): (nodes, _levels(nodes), arith.one, {})}
    weights = d.trace.circuit.weights
    for level in range(len(hub.bits)):
        frontier = _step(frontier, level, d.order[level], None, weights, arith)
        d.cofactors += len(frontier)
    return [(state[0], state[2]) for state in frontier.values()]


def _own_table(d: Diagrams, block: Any, g: Any, size: int, arith: Arith) -> list[Any] | None:
    """``u -> WMC(g | x_e = lo + u)`` of an own value's event ``g`` with the hub fixed (over ``block``'s
    variables only); None when ``g`` reads a variable below the block."""
    if g == d.be.false:
        return [arith.zero] * size
    if g == d.be.true:
        return [arith.one] * size
    cut = _cut(d, block, g, size, arith)
    if cut is None or cut[1] != d.be.true or g.level < block.start:
        return None
    return list(cut[0])
