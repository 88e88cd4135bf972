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

from ...lang.circuit import VAR
from .group import TUPLE, UNCHANGED, Block

#: colour refinement stops after this many rounds even when the number of colours still grows (colours only
#: choose candidates: fewer rounds can cost a proof, never its soundness)
MAX_ROUNDS = 8


class ColouredCircuit:
    """The cone of a compiled program's output roots as a DAG of local nodes (children before parents), with
    each node's starting colour (:meth:`refine` adds the labels of individualised entries and output roles)."""

    def __init__(self, prover: Any) -> None:
        trace = prover.compiled.trace
        circuit = trace.circuit
        self.prover = prover
        self.roots: list[int] = list(trace.output_roots)
        cone = sorted(_cone(circuit.gates, self.roots))
        self.local = {g: i for i, g in enumerate(cone)}
        self.kids: list[tuple[int, ...]] = []
        self.parents: list[list[int]] = [[] for _ in cone]
        self.start: list[Hashable] = []
        role = _variable_roles(prover)
        for i, g in enumerate(cone):
            gate = circuit.gates[g]
            if gate[0] in (VAR, "const"):
                self.kids.append(())
                self.start.append(role.get(gate[1], ("var",)) if gate[0] == VAR else gate)
                continue
            kids = tuple(self.local[c] for c in gate[1:])
            self.kids.append(kids)
            self.start.append(gate[0])
            for k in kids:
                self.parents[k].append(i)
        self.var_node = {gate_var: self.local[g] for gate_var, g in enumerate(circuit.var_node) if g in self.local}
        self.edges = sum(len(k) for k in self.kids)
        self.table: dict[Hashable, int] = {}  # signatures -> colours, shared by every refinement of this circuit

    def cost(self) -> int:
        """Work of one round of refinement: every node and edge visited twice (children first, parents first)."""
        return 2 * (len(self.kids) + self.edges)

    def refine(self, labels: dict[int, Hashable], rounds: int | None = None) -> tuple[list[int], int]:
        """The colours after refinement from the starting colours plus ``labels`` (local node -> label), and the
        rounds made: until the number of colours stops growing (at most :data:`MAX_ROUNDS`), or exactly
        ``rounds`` (so two refinements compare colour for colour: the colours of a round are the same function
        of the graph in both, through the shared table)."""
        table = self.table
        colour = [table.setdefault(("start", s, labels.get(i)), len(table)) for i, s in enumerate(self.start)]
        classes, made = len(set(colour)), 0
        while made < (MAX_ROUNDS if rounds is None else rounds):
            self.prover._charge(self.cost())
            down = [0] * len(colour)
            for i, kids in enumerate(self.kids):
                down[i] = table.setdefault(("down", colour[i], tuple(sorted(down[k] for k in kids))), len(table))
            up = [0] * len(colour)
            for i in range(len(colour) - 1, -1, -1):
                up[i] = table.setdefault(("up", down[i], tuple(sorted(up[p] for p in self.parents[i]))), len(table))
            made += 1
            now = len(set(up))
            colour = up
            if rounds is None and now == classes:
                break
            classes = now
        return colour, made


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

    def _cells(self, colour: list[int], done: set[int]) -> list[list[int]]:
        """Read entries grouped by the colours of their bits (cells of two or more, not yet in a block)."""
        g = self.graph
        cells: dict[tuple[int | None, ...], list[int]] = {}
        for e, bits in sorted(self.prover.bits.items()):
            if e not in done:
                key = tuple(colour[g.var_node[v]] if v in g.var_node else None for v in bits)
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

    def _holds(self, first: list[int], perm: dict[int, int], kind: str, rounds: int) -> bool:
        """Entry ``pi(e)`` individualised with ``e``'s label, random bits matched by colour, the renaming proved on
        the circuit (:meth:`~.proof.Prover._structural`)."""
        prover = self.prover
        moved = {perm.get(e, e): e for e in prover.bits}
        second, _ = self.graph.refine(self._labels(kind, moved), rounds)
        rho = self._matching(first, second)
        if rho is None:
            return False
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

    def _matching(self, first: list[int], second: list[int]) -> dict[int, int] | None:
        """Random bit ``v`` -> the random bit whose colour in the second refinement is ``v``'s in the first (classes
        of several matched in order); None when the classes differ in size (no automorphism maps them)."""
        g, weights = self.graph, self.prover.weights
        classes: dict[int, tuple[list[int], list[int]]] = {}
        for v in sorted(weights):
            if v in g.var_node:
                node = g.var_node[v]
                classes.setdefault(first[node], ([], []))[0].append(v)
                classes.setdefault(second[node], ([], []))[1].append(v)
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


__all__ = ["ColouredCircuit", "CircuitSymmetry", "MAX_ROUNDS"]
