"""Symmetries found on the traced circuit as a coloured graph, and proved on the circuit itself.

The gates below the output roots form a DAG. Each node starts with a colour that every circuit automorphism
keeps: its operation (AND, OR and XOR see their two children as a multiset, as the hash-consed circuit builds
them), a random bit's literal weights (equal :class:`~wmcdp.lang.weights.BitWeight`), an input bit's position
in its entry, and an output root's role under the output action (bit ``j`` of the output, or bit ``j`` of the
tuple part of whichever entry; a root may carry several roles). **Colour refinement** (1-dimensional
Weisfeiler-Leman, as nauty and Traces refine) then gives each node a new colour from its colour, the multiset of
its children's colours (one pass, children first) and the multiset of its parents' (one pass, parents first),
round after round until the number of colours stops growing. Each round costs one visit of every node and
edge, charged to the detection budget as work. Automorphisms keep every round's colours, so entries whose bits
end in different colours are in no common orbit of circuit automorphisms: the cells of equal colour are the only
candidates for blocks proved here (semantic symmetries the circuit does not show, such as those of a sum built
as a chain, are left to the diagram proofs of :mod:`.proof`).

**Individualisation.** A candidate permutation ``pi`` of a cell is given its map of random bits by refining
twice: once with every entry's bits (and, for the tuple action, its output part's roots) carrying the entry's
own label, once with entry ``pi(e)`` carrying ``e``'s label. Random bits of equal final colour are matched
(within a class of several, in order); the candidate is then **proved** only by
:meth:`~.proof.Prover._structural`: the renaming maps the circuit of every output bit onto the very gate of
its image, so ``P(sigma(y) | pi(x)) = P(y | x)`` exactly. Colours only choose candidates; a candidate that is not
proved is dropped, and whatever is not proved here goes to the existing proofs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ...lang.circuit import VAR
from .group import TUPLE, UNCHANGED, Block

#: colour refinement stops after this many rounds even when the number of colours still grows (colours only
#: choose candidates: fewer rounds can cost a proof, never its soundness)
MAX_ROUNDS = 8


class ColouredCircuit:
    """The cone of a compiled program's output roots as a DAG of local nodes (children before parents), with
    each node's starting colour (:meth:`refine` adds the labels of individualised entries and output roles).

    Colours are 64-bit hashes of their signatures (a fixed mixing function), so every refinement of this circuit
    colours alike what it sees alike, and one round is a few array operations per level of the DAG: a node's
    children lie on lower levels (depth from the leaves), its parents on higher ones (height from the roots). A
    collision of hashes could only merge colours, which proposes a candidate the proof then refutes."""

    def __init__(self, prover: Any) -> None:
        trace = prover.compiled.trace
        gates = trace.circuit.gates
        self.prover = prover
        self.roots: list[int] = list(trace.output_roots)
        cone = sorted(_cone(gates, self.roots))
        self.local = {g: i for i, g in enumerate(cone)}
        role = _variable_roles(prover)
        self.names: dict[Hashable, int] = {}  # starting signatures -> numbers (few: operations and roles)
        start, kids, depth = [], [], []
        for g in cone:
            gate = gates[g]
            if gate[0] in (VAR, "const"):
                kids.append((-1, -1))
                start.append(self._name(role.get(gate[1], ("var",)) if gate[0] == VAR else gate))
                depth.append(0)
                continue
            pair = tuple(self.local[c] for c in gate[1:])
            kids.append((pair[0], pair[-1] if len(pair) == 2 else -1))
            start.append(self._name(gate[0]))
            depth.append(1 + max(depth[k] for k in pair))
        self.start = np.array(start, dtype=np.uint64)
        self.kids = np.array(kids, dtype=np.int64).reshape(len(cone), 2)
        self.var_node = {v: self.local[g] for v, g in enumerate(trace.circuit.var_node) if g in self.local}
        edges = [(i, k) for i, pair in enumerate(kids) for k in pair if k >= 0]
        self.parent = np.array([p for p, _ in edges], dtype=np.int64)
        self.child = np.array([k for _, k in edges], dtype=np.int64)
        self.down_levels = _levels(np.array(depth, dtype=np.int64))
        self.up_levels = _edge_levels(self._heights(kids), self.child)

    def _name(self, signature: Hashable) -> int:
        return self.names.setdefault(signature, len(self.names) + 1)

    def _heights(self, kids: list[tuple[int, int]]) -> np.ndarray:
        """Each node's longest path from a node without parents (parents before children: reverse local order)."""
        height = [0] * len(kids)
        for i in range(len(kids) - 1, -1, -1):
            for k in kids[i]:
                if k >= 0 and height[k] <= height[i]:
                    height[k] = height[i] + 1
        return np.array(height, dtype=np.int64)

    def cost(self) -> int:
        """Work of one round of refinement: every node and edge visited twice (children first, parents first)."""
        return 2 * (len(self.start) + len(self.parent))

    def refine(self, labels: dict[int, Hashable], rounds: int | None = None) -> tuple[np.ndarray, int]:
        """The colours after refinement from the starting colours plus ``labels`` (local node -> label), and the
        rounds made: until the number of colours stops growing (at most :data:`MAX_ROUNDS`), or exactly
        ``rounds`` (so two refinements compare colour for colour)."""
        extra = np.zeros(len(self.start), dtype=np.uint64)
        for node, label in labels.items():
            extra[node] = self._name(label)
        colour = _mix(self.start, extra)
        classes, made = len(np.unique(colour)), 0
        while made < (MAX_ROUNDS if rounds is None else rounds):
            self.prover._charge(self.cost())
            colour = self._up(self._down(colour))
            made += 1
            now = len(np.unique(colour))
            if rounds is None and now == classes:
                break
            classes = now
        return colour, made

    def _down(self, colour: np.ndarray) -> np.ndarray:
        """Each node's colour with the multiset of its children's new colours (level by level from the leaves)."""
        down: np.ndarray = colour.copy()
        for nodes in self.down_levels[1:]:
            a, b = self.kids[nodes, 0], self.kids[nodes, 1]
            ca = down[a]
            cb = np.where(b >= 0, down[np.maximum(b, 0)], np.uint64(0))
            down[nodes] = _mix(colour[nodes], np.minimum(ca, cb), np.maximum(ca, cb))
        return down

    def _up(self, down: np.ndarray) -> np.ndarray:
        """Each node's colour with the multiset of its parents' new colours (a sum of their hashes, level by level
        from the roots)."""
        up: np.ndarray = down.copy()
        for nodes, edges, at in self.up_levels:
            total = np.zeros(len(nodes), dtype=np.uint64)
            np.add.at(total, at, _mix(up[self.parent[edges]]))
            up[nodes] = _mix(down[nodes], total)
        return up


#: odd 64-bit constants of the mixing function (those of splitmix64)
_GOLDEN, _M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(*columns: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of ``columns`` (splitmix64 steps over the columns in order; wrapping arithmetic)."""
    h = np.full(len(columns[0]), _GOLDEN, dtype=np.uint64)
    for column in columns:
        h = h ^ column.astype(np.uint64)
        h = (h ^ (h >> np.uint64(30))) * _M1
        h = (h ^ (h >> np.uint64(27))) * _M2
        h = h ^ (h >> np.uint64(31))
    return h


def _levels(depth: np.ndarray) -> list[np.ndarray]:
    """The nodes of each depth, shallowest first."""
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max(initial=0)) + 2))
    return [order[bounds[d] : bounds[d + 1]] for d in range(len(bounds) - 1)]


def _edge_levels(height: np.ndarray, child: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per height from 1 on: its nodes (ascending), the edges into them from their parents (which all lie higher),
    and each such edge's child as a position among the level's nodes."""
    nodes = _levels(height)
    by_child = _levels(height[child]) if len(child) else []
    out = []
    for h in range(1, len(nodes)):
        edges = by_child[h] if h < len(by_child) else np.zeros(0, np.int64)
        out.append((nodes[h], edges, np.searchsorted(nodes[h], child[edges])))
    return out


def _cone(gates: Sequence[Any], roots: Sequence[int]) -> set[int]:
    """The gates the roots read (themselves included)."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        g = stack.pop()
        if g in seen:
            continue
        seen.add(g)
        gate = gates[g]
        if gate[0] not in (VAR, "const"):
            stack.extend(gate[1:])
    return seen


def _variable_roles(prover: Any) -> dict[int, Hashable]:
    """Each variable's starting colour: ``("in", b)`` for bit ``b`` of an input entry, ``("random", w)`` for a random
    bit of literal weights number ``w`` (equal weights, equal number)."""
    role: dict[int, Hashable] = {}
    for bits in prover.bits.values():
        for b, v in enumerate(bits):
            role[v] = ("in", b)
    numbers: list[Any] = []
    for v, weight in prover.weights.items():
        if weight not in numbers:
            numbers.append(weight)
        role[v] = ("random", numbers.index(weight))
    return role


def circuit_blocks(prover: Any, kinds: Sequence[str]) -> list[Block]:
    """:meth:`CircuitSymmetry.blocks`, when the budget can pay for building the coloured circuit (charged the
    circuit's gates twice, an upper bound of its cone's nodes and edges); none otherwise."""
    gates = len(prover.compiled.trace.circuit.gates)
    if prover.budget is not None and not prover.budget.affords(2 * gates):
        return []
    prover._charge(2 * gates)
    return CircuitSymmetry(prover).blocks(kinds)


class CircuitSymmetry:
    """Blocks of entries proved on the circuit: cells of colour refinement, each proved whole (a transposition
    and a cycle, random bits matched by individualised refinement, :meth:`~.proof.Prover._structural`)."""

    def __init__(self, prover: Any) -> None:
        self.prover = prover
        self.graph = ColouredCircuit(prover)
        self.out_vars = list(prover.compiled.output_vars)
        self.parts = _part_of_output(prover)

    def blocks(self, kinds: Sequence[str]) -> list[Block]:
        """The blocks proved, each under the first of ``kinds`` (tuple or unchanged) whose generators hold; entries
        in no proved block are left out. Nothing is tried once the budget cannot pay a round of refinement."""
        out: list[Block] = []
        done: set[int] = set()
        for kind in (k for k in kinds if k in (TUPLE, UNCHANGED)):
            if kind == TUPLE and self.parts is None:
                continue
            if not self._affords(1):
                break
            base, rounds = self.graph.refine(self._labels(kind, None))
            for cell in self._cells(base, done):
                if self._affords(3 * rounds) and self._proves(cell, kind, rounds):
                    out.append(Block(tuple(cell), kind))
                    done.update(cell)
        return sorted(out, key=lambda b: b.entries[0])

    def _affords(self, rounds: int) -> bool:
        budget = self.prover.budget
        return budget is None or budget.affords(rounds * self.graph.cost())

    def _labels(self, kind: str, label: dict[int, int] | None) -> dict[int, Hashable]:
        """Extra colours: output roots' roles under ``kind`` and, with ``label`` (entry -> label), each labelled
        entry's bits and (tuple action) its part's roots."""
        g = self.graph
        labels: dict[int, list[Hashable]] = {}
        for j, root in enumerate(g.roots):
            role: Hashable = ("out", j)
            if kind == TUPLE and self.parts is not None:
                entry, position = self.parts[self.out_vars[j]]
                role = ("part", position, None if label is None else label.get(entry))
            labels.setdefault(g.local[root], []).append(role)
        for e, name in (label or {}).items():
            for v in self.prover.bits.get(e, ()):
                if v in g.var_node:
                    labels.setdefault(g.var_node[v], []).append(("entry", name))
        return {node: tuple(sorted(roles, key=repr)) for node, roles in labels.items()}

    def _cells(self, colour: np.ndarray, done: set[int]) -> list[list[int]]:
        """Read entries grouped by the colours of their bits (cells of two or more, not yet in a block)."""
        g = self.graph
        cells: dict[tuple[int | None, ...], list[int]] = {}
        for e, bits in sorted(self.prover.bits.items()):
            if e not in done:
                key = tuple(int(colour[g.var_node[v]]) if v in g.var_node else None for v in bits)
                cells.setdefault(key, []).append(e)
        return [c for c in cells.values() if len(c) > 1]

    def _proves(self, cell: list[int], kind: str, rounds: int) -> bool:
        """Whether a transposition and a cycle of ``cell`` (which generate its symmetric group) both hold on the
        circuit under ``kind``."""
        own = {e: e for e in self.prover.bits}
        first, _ = self.graph.refine(self._labels(kind, own), rounds)
        swap = {cell[0]: cell[1], cell[1]: cell[0]}
        cycle = {e: cell[(k + 1) % len(cell)] for k, e in enumerate(cell)}
        return all(self._holds(first, perm, kind, rounds) for perm in ([swap] if len(cell) == 2 else [swap, cycle]))

    def _holds(self, first: np.ndarray, perm: dict[int, int], kind: str, rounds: int) -> bool:
        """Entry ``pi(e)`` individualised with ``e``'s label, random bits matched by colour, the renaming proved on
        the circuit (:meth:`~.proof.Prover._structural`)."""
        prover = self.prover
        moved = {perm.get(e, e): e for e in prover.bits}
        second, _ = self.graph.refine(self._labels(kind, moved), rounds)
        rho = self._matching(first, second)
        if rho is None or any(prover.weights[v] != prover.weights[w] for v, w in rho.items()):
            return False  # (colours hold the weights; a hash collision must not pair unequal ones)
        out_renaming = prover._output_renaming(perm, kind)
        if out_renaming is None:
            return False
        in_map = {v: w for e, f in perm.items() for v, w in zip(prover.bits[e], prover.bits[f])}
        renaming = {**in_map, **rho, **out_renaming}
        if set(renaming) != set(renaming.values()):
            return False
        prover.attempts += 1
        if not prover._structural(renaming, out_renaming):
            return False
        prover.proofs += 1
        prover.structural += 1
        prover.refined += 1
        return True

    def _matching(self, first: np.ndarray, second: np.ndarray) -> dict[int, int] | None:
        """Random bit ``v`` -> the random bit whose colour in the second refinement is ``v``'s in the first (classes
        of several matched in order); None when the classes differ in size (no automorphism maps them)."""
        g, weights = self.graph, self.prover.weights
        classes: dict[int, tuple[list[int], list[int]]] = {}
        for v in sorted(weights):
            if v in g.var_node:
                node = g.var_node[v]
                classes.setdefault(int(first[node]), ([], []))[0].append(v)
                classes.setdefault(int(second[node]), ([], []))[1].append(v)
        rho: dict[int, int] = {}
        for sources, targets in classes.values():
            if len(sources) != len(targets):
                return None
            rho.update((v, w) for v, w in zip(sources, targets) if v != w)
        return rho


def _part_of_output(prover: Any) -> dict[int, tuple[int, tuple[int, int]]] | None:
    """Output variable -> (its entry, (leaf within the part, bit within the leaf)) for the tuple action (None when
    the output is no tuple of one part per entry)."""
    act = prover.action
    if act.parts is None:
        return None
    groups = prover.compiled.output_groups
    out: dict[int, tuple[int, tuple[int, int]]] = {}
    for e, (a, b) in enumerate(act.parts):
        for leaf in range(a, b):
            for k, v in enumerate(groups[leaf].variables):
                out[v] = (e, (leaf - a, k))
    return out


__all__ = ["ColouredCircuit", "CircuitSymmetry", "circuit_blocks", "MAX_ROUNDS"]
