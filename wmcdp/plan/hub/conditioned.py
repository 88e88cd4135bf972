"""The parts of one output event per hub value: its BDD cut at every block boundary into one table per entry."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...base.limits import check
from .arith import Arith
from .blocks import Block, Hub
from .events import Diagrams, _children


def _decompose(
    d: Diagrams, hub: Hub, event: Any, size: int, arith: Arith
) -> tuple[Hub, list[Any], list[list[tuple[Any, ...]]]] | None:
    """The hub that splits one output event into parts, with its classes (:func:`_conditioned`): the bits drawn
    before any input, or when there are none, an entry's block that leaves the other entries' parts independent
    (the winner's block of noisy max), tried in variable order from the block after the one that split the event
    before (any block that splits it gives the same probabilities); None when there is none."""
    if hub.bits:
        split = _conditioned(d, hub, event, size, arith)
        return None if split is None else (hub, *split)
    k = len(hub.blocks)
    for i in range(d.next_pin, d.next_pin + k):  # from the block after the last that split an event (the winners
        candidate = hub.pin(hub.blocks[i % k])  # of consecutive output values are consecutive entries)
        split = _conditioned(d, candidate, event, size, arith)
        if split is not None:
            d.next_pin = (i + 1) % k
            return (candidate, *split)
    return None


def _types(
    hub: Hub, tables: list[list[tuple[Any, ...]]], at: tuple[int, ...] | None = None
) -> dict[tuple[Any, ...], list[int]]:
    """The entries grouped by their parts' tables in every hub class (``tables[k][i]`` for the ``i``-th of the
    hub's blocks, the pinned entry last) and, with ``at``, by their offsets there: keys ``(tables, offset or
    None)``."""
    types: dict[tuple[Any, ...], list[int]] = {}
    pinned = [hub.pinned] if hub.pinned is not None else []
    for i, block in enumerate([*hub.blocks, *pinned]):
        key = (tuple(t[i] for t in tables), None if at is None else at[block.entry])
        types.setdefault(key, []).append(block.entry)
    return types


def _conditioned(
    d: Diagrams, hub: Hub, event: Any, size: int, arith: Arith
) -> tuple[list[Any], list[list[tuple[Any, ...]]]] | None:
    """The hub classes of one output event (hub values with the same conditioned diagram), their probabilities
    and the parts' tables of each; None when a cut is wider than one. With a pinned entry ``p``, a class's weight
    is one and its table for ``p`` is ``u -> P(the class's random bits)`` over the hub values whose input bits
    are ``x_p = lo + u`` (:func:`_pinned_cofactors`), so that ``P(y | x) = sum_k P_p(k | x_p) prod_e P_e(y | x_e,
    k)`` as without one."""
    width = size if hub.pinned is not None else 1
    classes: dict[int, tuple[Any, list[tuple[Any, ...]], list[Any]]] = {}
    for f, w in _hub_cofactors(d, hub, event, arith):
        pinned = [(f, 0, arith.one)] if hub.pinned is None else _pinned_cofactors(d, f, hub.pinned, size, arith)
        for g, u, p in pinned:
            if g == d.be.false:
                continue
            if int(g) not in classes:  # the node is kept with its class: a live node keeps its id
                tables = split_event(d, g, hub, size, arith)
                if tables is None:
                    return None
                classes[int(g)] = (g, tables, [arith.zero] * width)
            mass = classes[int(g)][2]
            mass[u] = arith.add(mass[u], arith.mul(w, p))
    if hub.pinned is None:
        return [mass[0] for _, _, mass in classes.values()], [tables for _, tables, _ in classes.values()]
    return [arith.one] * len(classes), [[*tables, tuple(mass)] for _, tables, mass in classes.values()]


def split_event(d: Diagrams, f: Any, hub: Hub, size: int, arith: Arith) -> list[tuple[Any, ...]] | None:
    """Per block, the table ``u -> WMC(u_e | x_e = lo + u)`` of ``f`` (a BDD with the hub fixed) cut at every
    block boundary (module docstring); None when a cut is wider than one."""
    tables: list[tuple[Any, ...]] = []
    current = f
    for block in hub.blocks:
        if current == d.be.true or current.level >= block.end:
            tables.append((arith.one,) * size)
            continue
        cut = _cut(d, block, current, size, arith)
        if cut is None:
            return None
        tables.append(cut[0])
        current = cut[1]
    return tables if current == d.be.true else None


def _cut(d: Diagrams, block: Block, top: Any, size: int, arith: Arith) -> tuple[tuple[Any, ...], Any] | None:
    """:func:`_block_table` of ``top``, remembered per (entry, node) in ``d.cuts`` (the node is kept with its cut:
    a live node keeps its id)."""
    key = (block.entry, int(top))
    if key not in d.cuts:
        d.cuts[key] = (_block_table(d, block, top, size, arith), top)
    return d.cuts[key][0]


def _block_table(d: Diagrams, block: Block, top: Any, size: int, arith: Arith) -> tuple[tuple[Any, ...], Any] | None:
    """``(table, g)``: the paths from ``top`` through the block reach FALSE or the one node ``g`` below it, and
    ``table[u]`` is their weighted count with the entry's bits at ``u`` (``g`` counts 1); None for a wider cut."""
    weights, false = d.trace.circuit.weights, d.be.false
    nodes, exits = _block_nodes(top, block.end, false)
    d.work += len(nodes)
    if len(exits) != 1:
        return None
    (nxt,) = exits.values()
    bits = d.trace.input_bits[block.entry]
    position = {v: len(bits) - 1 - k for k, v in enumerate(bits)}  # the bit's place value in the entry's offset
    var, tokens = d.order, d.weight_tokens
    if any(var[node.level] not in position and var[node.level] not in weights for node in nodes):
        return None  # an input bit of another entry inside this block

    def role(level: int) -> tuple[str, int]:
        v = var[level]
        return ("x", position[v]) if v in position else ("w", tokens[v])

    shape = _shape(nodes, nxt, false, role)
    known = d.tables.get((size, shape))
    if known is not None:  # the same roles and edges inside the block (any entry's): the same counts
        return known, nxt
    row = []
    for u in range(size):
        memo: dict[int, Any] = {int(nxt): arith.one, int(false): arith.zero}
        for node in reversed(nodes):  # children after parents in ``nodes``: count from the bottom up
            lo, hi = _children(node)
            v = var[node.level]
            if v in position:
                memo[int(node)] = memo[int(hi)] if (u >> position[v]) & 1 else memo[int(lo)]
            else:
                one = arith.mul(arith.weight(weights[v], True), memo[int(hi)])
                memo[int(node)] = arith.add(one, arith.mul(arith.weight(weights[v], False), memo[int(lo)]))
        row.append(memo[int(top)])
    d.tables[size, shape] = tuple(row)
    return tuple(row), nxt


def _shape(
    nodes: list[Any], exit: Any, false: Any, role: Callable[[int], tuple[str, int]]
) -> tuple[tuple[Any, Any, Any], ...]:
    """The block's nodes as ``(role, low, high)`` with each child named by its place in ``nodes``, ``"g"`` for
    the node below the block and ``"f"`` for FALSE, and each node's level by its role: ``("x", place value)`` for
    a bit of the entry's input, ``("w", token)`` for a random bit (its weight's token, equal exactly for equal
    weights, :func:`~wmcdp.plan.parts._weight_tokens`). The block's counts are a function of this alone, whatever
    lies below ``g`` and whichever entry the block reads: identical entries share their tables."""
    place = {int(node): k for k, node in enumerate(nodes)}
    below, no = int(exit), int(false)

    def name(child: Any) -> Any:
        key = int(child)
        return "g" if key == below else "f" if key == no else place[key]

    return tuple((role(node.level), *map(name, _children(node))) for node in nodes)


def _block_nodes(top: Any, end: int, false: Any) -> tuple[list[Any], dict[int, Any]]:
    """The nodes reachable from ``top`` above level ``end`` (parents before children) and the nodes the paths
    leave them to (at level ``end`` or below, or TRUE; FALSE left out), by id."""
    order: list[Any] = []
    seen: set[int] = set()
    exits: dict[int, Any] = {}

    def visit(node: Any) -> None:
        stack = [(node, False)]
        while stack:
            f, done = stack.pop()
            key = int(f)
            if done:
                order.append(f)
                continue
            if key in seen:
                continue
            if f == false:
                continue
            if f.var is None or f.level >= end:
                exits[key] = f
                continue
            seen.add(key)
            stack.append((f, True))
            stack.extend((c, False) for c in _children(f))

    visit(top)
    order.reverse()  # post-order reversed: every parent before its children
    return order, exits


def _hub_cofactors(d: Diagrams, hub: Hub, event: Any, arith: Arith) -> Iterator[tuple[Any, Any]]:
    """``(event restricted to a class of hub values, the class's probability)`` for every class whose restriction
    is satisfiable: a forward pass over the hub's levels (its bits are the diagram's top levels, in order). Each
    node reached is visited once, with the probability mass of the hub prefixes that reach it; a node below the
    hub's levels is one class (the hub bits its paths skip have weights summing to one), so a draw of ``2W`` bits
    whose values the event tells apart costs about ``2W`` visits, not ``2^(2W)`` values."""
    weights, false, depth = d.trace.circuit.weights, d.be.false, len(hub.bits)
    waiting: dict[int, dict[int, tuple[Any, Any]]] = {}  # level -> node id -> (node, mass)
    classes: dict[int, tuple[Any, Any]] = {}

    def reach(f: Any, w: Any) -> None:
        if f == false:
            return
        bucket = classes if f.var is None or f.level >= depth else waiting.setdefault(f.level, {})
        old = bucket.get(int(f))
        bucket[int(f)] = (f, w) if old is None else (f, arith.add(old[1], w))

    reach(event, arith.one)
    for level in range(depth):
        v = d.order[level]  # the hub's bits are the top levels
        for f, w in waiting.pop(level, {}).values():
            check("hub plan: hub values")
            d.cofactors += 1
            low, high = _children(f)
            reach(high, arith.mul(w, arith.weight(weights[v], True)))
            reach(low, arith.mul(w, arith.weight(weights[v], False)))
    yield from classes.values()


#: a forward pass's states: (node ids, offset) -> (the nodes, their levels, the probability mass, one assignment
#: that reaches it)
Frontier = dict[tuple[tuple[int, ...], int], tuple[tuple[Any, ...], tuple[int, ...], Any, dict[int, bool]]]


def _pinned_cofactors(d: Diagrams, f: Any, block: Block, size: int, arith: Arith) -> Iterator[tuple[Any, int, Any]]:
    """``(f restricted to b, u, mass)`` over the assignments ``b`` of ``block``'s variables, grouped: ``mass`` is
    the probability of the block's random bits over the ``b`` whose input bits encode the offset ``u`` and that
    send every node where a path of ``f`` enters the block's levels to the same nodes below it (those ``b``
    restrict ``f`` alike). A forward pass over the block's levels on the tuple of those nodes."""
    bits = d.trace.input_bits[block.entry]
    place = {v: len(bits) - 1 - k for k, v in enumerate(bits)}
    _, entering = _block_nodes(f, block.start, d.be.false)
    nodes = tuple(entering.values())
    frontier: Frontier = {(tuple(entering), 0): (nodes, _levels(nodes), arith.one, {})}
    for level in range(block.start, block.end):
        v = d.order[level]
        frontier = _step(frontier, level, v, place.get(v), d.trace.circuit.weights, arith)
        d.work += len(frontier)
    for (_, u), (nodes, _, mass, path) in frontier.items():
        if u < size and any(node != d.be.false for node in nodes):
            d.cofactors += 1
            yield d.be.condition(f, path), u, mass


def _levels(nodes: tuple[Any, ...]) -> tuple[int, ...]:
    """Each node's level (-1 for a terminal, which is at no level)."""
    return tuple(-1 if node.var is None else node.level for node in nodes)


def _step(frontier: Frontier, level: int, v: int, place: int | None, weights: dict[int, Any], arith: Arith) -> Frontier:
    """The forward pass over variable ``v`` (at ``level``): each state's nodes at that level move to their child,
    with the bit's weight (a random bit) or its ``place`` value added to the offset (an input bit); states that
    meet add their masses."""
    out: Frontier = {}
    for key, state in frontier.items():
        check("hub plan: pinned block")
        nodes, levels, mass, path = state
        u = key[1]
        if place is None and level not in levels:  # both values: weights summing to one, the same nodes
            old = out.get(key)
            out[key] = state if old is None else (old[0], old[1], arith.add(old[2], mass), old[3])
            continue
        for bit in (False, True):
            moved = tuple(_children(node)[bit] if at == level else node for node, at in zip(nodes, levels))
            w = mass if place is not None else arith.mul(mass, arith.weight(weights[v], bit))
            _meet(out, moved, u if place is None else u + (bit << place), w, {**path, v: bit}, arith)
    return out


def _meet(out: Frontier, nodes: tuple[Any, ...], u: int, mass: Any, path: dict[int, bool], arith: Arith) -> None:
    """Add ``mass`` to the state ``(nodes, u)`` of ``out`` (the first path that reaches a state stays its own)."""
    key = (tuple(map(int, nodes)), u)
    old = out.get(key)
    out[key] = (nodes, _levels(nodes), mass, path) if old is None else (old[0], old[1], arith.add(old[2], mass), old[3])
