"""The chain plan: pure ε of a program that carries a state from entry to entry.

The output components are read off a state carried from entry to entry (running sums: CheckDP's PrefixSum,
SmartSum), by a forward pass over the entries and a max-product (Viterbi) search over pairs of states, never listing
the outputs.

*Blocks.* The compiled program's BDD of ``phi(x, y, r) = AND_j [o_j = A_j(x; r)]`` has its variables in order of
first use, each output component's bits ``o`` right after the last variable its circuit reads
(:func:`wmcdp.compile._variable_order`). Its levels fall into one block per entry ``k``: from entry ``k``'s first
input bit to entry ``k + 1``'s, i.e. the entry's input bits, the random bits drawn while it is processed, and the
bits of every output component whose circuit reads no later entry. A program that draws random bits before its
first entry is left to the hub plan (:mod:`.hub`).

*Claim* (proved on that diagram, exactly): for every assignment of the input and output bits, the paths over the
random bits cross every block boundary through at most one node (a cut of width one given ``(x, y)``). Then, with
``u_k`` that node at boundary ``k`` (``u_0`` the root, ``u_n`` TRUE),

    P(y | x) = WMC(phi | x, y) = prod_k w_k(u_{k-1}, x_k, y_k),

``w_k`` the weighted count of block ``k``'s random bits on the paths from ``u_{k-1}`` to ``u_k`` with ``x_k, y_k``
fixed (``y_k`` the components placed in block ``k``). Both are found by one forward pass over each block's levels
from each node ``u`` at its upper boundary, keyed by ``(x_k, y_k)``: the pass is the proof (two nodes reached
below the block under one key refuse the plan; the planner then runs another one).

*The worst triple.* ``e^ε = max over (x, x', y) of prod_k w_k(u_{k-1}, x_k, y_k) / w_k(u'_{k-1}, x'_k, y_k)`` is a
max-product over the automaton whose states are pairs ``(u, u')`` of boundary nodes, with a flag "some entry
moved" (``one-entry`` and ``hamming``: exactly one entry moves, by one or by any amount; ``all-entries``: every
entry takes ``|x_k - x'_k| <= 1`` freely, not all equal), each step choosing ``(x_k, x'_k, y_k)``. Only the
pairs reachable from the roots under a common ``y`` are visited. The best ratio into a state is kept: every
completion multiplies the ratio of each prefix by the same factors. A step with ``w' = 0 < w`` moves to a state
whose ``x'`` side is dead (an infinite ratio), kept only when the ``x`` side still reaches TRUE. Exact mode takes
the maximum in Fractions; float mode in natural logs (``e^ε`` is never formed), and the states' values are then
compared in floats: two prefixes into one state within rounding of each other differ by at most that rounding.
The bound reported is the witness recounted by the ordinary counter (:func:`chain_privacy`); in exact mode it must
equal the plan's value exactly, or the plan is dropped and the planner runs the next one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..base.limits import check
from ..compile import Compiled
from ..lang.program import Trace
from ..lang.shape import leaves
from .costs import CHAIN_EXACT_UNIT_SECONDS, CHAIN_FLOAT_UNIT_SECONDS
from .hub.arith import Arith, _Exact, _Logs
from .hub.events import _children
from .hub.moves import RELATIONS
from .hub.privacy import _exact_run
from .hub.worst import _output
from .planner import AT_NOTE, Budget, announce, answered, at_offsets, exhaustive_triples, recount

#: the x' side of a state pair when P(prefix | x') = 0 (the ratio is infinite from there on)
DEAD = -1
#: float mode: final states whose log-ratio is within this of the best are recounted by the ordinary counter (far
#: above the rounding of a sum of logs), at most FINALISTS of them
MARGIN = 1e-9
FINALISTS = 16


@dataclass(frozen=True)
class ChainBlock:
    """Entry ``entry``'s levels ``start <= level < end`` of the compiled diagram: its input bits (``inputs``, variable
    ids, most significant first), its random bits, and the bits of the output components ``outputs`` (leaf indices,
    in level order)."""

    entry: int
    start: int
    end: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


def find_chain(compiled: Compiled) -> tuple[ChainBlock, ...] | None:
    """The blocks of the module docstring on the compiled diagram's levels, or None: not a BDD, fewer than two
    entries, an entry unread, one Int output (its value guards are not components), or an entry's bits not
    contiguous before the next entry's first bit."""
    trace = compiled.trace
    bounds = _bounds(trace) if compiled.backend.name == "bdd" else None
    if bounds is None:
        return None
    level, first = compiled.backend.level_of, _leaf_bits(trace)
    starts = [0] + [level(v) for v in bounds[1:-1]] + [len(compiled.order)]
    placed: list[list[tuple[int, int]]] = [[] for _ in starts[:-1]]
    for j, (bit, leaf) in enumerate(first):  # a leaf of one value (no bits) in block 0
        top = level(compiled.output_vars[bit]) if leaf.width else 0
        placed[_block_of(top, starts)].append((top, j))
    return tuple(
        ChainBlock(e, starts[e], starts[e + 1], tuple(trace.input_bits[e]), tuple(j for _, j in sorted(placed[e])))
        for e in range(len(starts) - 1)
    )


def _bounds(trace: Trace) -> list[int] | None:
    """Each entry's first circuit variable, then the number of variables; None when the entries are not read in
    order from variable 0 on (random bits drawn before the first one: a hub, :mod:`.hub`), each within its block,
    or the output is one Int."""
    firsts = sorted((min(bits), e) for e, bits in trace.input_bits.items() if bits)
    if len(firsts) < 2 or firsts[0][0] != 0 or trace.output_guards is not None:
        return None
    bounds = [start for start, _ in firsts] + [trace.circuit.num_vars]
    return bounds if all(e == k and _inside(trace, e, bounds) for k, (_, e) in enumerate(firsts)) else None


def _inside(trace: Trace, e: int, bounds: list[int]) -> bool:
    """Whether entry ``e``'s input bits all lie in its block."""
    return all(bounds[e] <= v < bounds[e + 1] for v in trace.input_bits[e])


def _leaf_bits(trace: Trace) -> list[tuple[int, Any]]:
    """``(first output bit, leaf)`` of every output leaf."""
    out, bit = [], 0
    for leaf in leaves(trace.shape):
        out.append((bit, leaf))
        bit += leaf.width
    return out


def _block_of(level: int, starts: list[int]) -> int:
    """The block that holds ``level`` (``starts``: the blocks' first levels, then the number of levels)."""
    return max(e for e in range(len(starts) - 1) if starts[e] <= level)


# -- the diagram of phi and the forward pass over a block -------------------------------------------------

#: the states of a forward pass: (node id, input offset, output bits so far) -> (the node, the probability mass)
Frontier = dict[tuple[int, int, int], tuple[Any, Any]]


class ChainDiagram:
    """The compiled ``phi(x, y, r)`` and each block's steps from each node at its top."""

    def __init__(self, compiled: Compiled, blocks: tuple[ChainBlock, ...], arith: Arith) -> None:
        self.trace, self.blocks, self.arith = compiled.trace, blocks, arith
        self.size = len(compiled.domain.entry_values)
        self.be, self.root = compiled.backend, compiled.phi
        self.work = 0  # frontier states visited
        self._steps: dict[tuple[int, int], Any] = {}  # (block start, top node) -> steps (one pass per direction)
        self.leaves = _leaf_bits(compiled.trace)
        n = compiled.trace.circuit.num_vars
        #: per level: ("x", the bit's place value in the entry's offset), ("y", 0) or ("r", the variable)
        self.kind = [("y", 0) if v >= n else ("r", v) for v in compiled.order]
        for block in blocks:
            for k, v in enumerate(block.inputs):
                self.kind[self.be.level_of(v)] = ("x", len(block.inputs) - 1 - k)

    def steps(self, block: ChainBlock, top: Any) -> dict[tuple[Any, ...], dict[int, tuple[Any, Any]]] | None:
        """``{y_k: {x_k: (w, u)}}``: the block's weight ``w`` from ``top`` to the one node ``u`` below it (or TRUE)
        under each input offset ``x_k`` and values ``y_k`` of its output components; None when some ``(x_k, y_k)``
        reaches two nodes below the block (the claim fails). Computed once per block and node: a relation with two
        directions (monotone) searches the same diagram twice."""
        key = (block.start, int(top))
        if key not in self._steps:
            self._steps[key] = self._forward(block, top)
        table: dict[tuple[Any, ...], dict[int, tuple[Any, Any]]] | None = self._steps[key]
        return table

    def _forward(self, block: ChainBlock, top: Any) -> dict[tuple[Any, ...], dict[int, tuple[Any, Any]]] | None:
        """The forward pass of :meth:`steps` over the block's levels."""
        frontier: Frontier = {(int(top), 0, 0): (top, self.arith.one)}
        for level in range(block.start, block.end):
            out: Frontier = {}
            for (_, x, y), (node, mass) in frontier.items():
                check("chain plan: forward pass")
                self._step(out, level, node, x, y, mass)
            self.work += len(frontier)
            frontier = out
        return self._table(block, frontier)

    def _step(self, out: Frontier, level: int, node: Any, x: int, y: int, mass: Any) -> None:
        """Move one frontier state ``(node, x, y)`` over ``level``: a random bit adds its weight (both values, summing
        to one, where ``node`` skips it), an input bit its place value to ``x``, an output bit its value to ``y``."""
        arith = self.arith
        kind, ref = self.kind[level]
        tested = node.var is not None and node.level == level
        if kind == "r" and not tested:
            _add(out, node, x, y, mass, arith)
            return
        children = _children(node) if tested else (node, node)
        for bit in (0, 1):
            child = children[bit]
            if child == self.be.false:
                continue
            if kind == "r":
                _add(out, child, x, y, arith.mul(mass, arith.weight(self.trace.circuit.weights[ref], bool(bit))), arith)
            elif kind == "x":
                _add(out, child, x | (bit << ref), y, mass, arith)
            else:
                _add(out, child, x, (y << 1) | bit, mass, arith)

    def _table(self, block: ChainBlock, frontier: Frontier) -> dict[tuple[Any, ...], dict[int, tuple[Any, Any]]] | None:
        """The frontier below a block as ``{y_k: {x_k: (w, u)}}`` (offsets past the entry's values and paths of
        probability 0 left out), or None when a key reaches two nodes."""
        table: dict[tuple[Any, ...], dict[int, tuple[Any, Any]]] = {}
        for (_, x, code), (node, mass) in frontier.items():
            if x >= self.size or mass == self.arith.zero:
                continue
            row = table.setdefault(self._values(block, code), {})
            if x in row:
                return None
            row[x] = (mass, node)
        return table

    def _values(self, block: ChainBlock, code: int) -> tuple[Any, ...]:
        """The values of the block's output components whose bits (in order) are ``code``."""
        parts = [self.leaves[j][1] for j in block.outputs]
        width = sum(leaf.width for leaf in parts)
        out, shift = [], width
        for leaf in parts:
            shift -= leaf.width
            out.append(leaf.decode([(code >> (shift + leaf.width - 1 - k)) & 1 for k in range(leaf.width)]))
        return tuple(out)


def _add(out: Frontier, node: Any, x: int, y: int, mass: Any, arith: Arith) -> None:
    """Add ``mass`` to the frontier's state ``(node, x, y)``."""
    key = (int(node), x, y)
    old = out.get(key)
    out[key] = (node, mass) if old is None else (node, arith.add(old[1], mass))


# -- the worst triple: max-product over pairs of boundary nodes ---------------------------------------------


@dataclass
class ChainAnswer:
    """A worst triple of the chain plan (``x``, ``x'`` as entry offsets, ``y``), its ratio (exact: a Fraction or inf)
    or log-ratio (floats), the number of nodes at each block's upper boundary, the largest number of state pairs
    below a block, and the work counted."""

    x: list[int]
    x_prime: list[int]
    y: Any
    value: Any
    widths: list[int]
    pairs: int
    work: int


#: a state of the search: (node id on the x side, node id on the x' side or DEAD, "some entry moved")
State = tuple[int, int, bool]
#: per state: (the best ratio into it, the state before, the step (x_k, x'_k, y_k) taken)
Column = dict[State, tuple[Any, State | None, tuple[int, int, tuple[Any, ...]] | None]]


def _moves(one: bool, step: Callable[[int, int], bool], size: int) -> Callable[[int, bool], Iterator[tuple[int, bool]]]:
    """``moves(x, moved)``: each ``x'_k`` an entry at ``x_k`` may take (``step(x_k, x'_k)``; under a one-entry
    relation (``one``) only while no entry has moved) with whether an entry has then moved."""

    def moves(x: int, moved: bool) -> Iterator[tuple[int, bool]]:
        yield x, moved
        if one and moved:
            return
        for xp in range(size):
            if xp != x and step(x, xp):
                yield xp, True

    return moves


#: the moves of each block (by its entry): ``moves(k)(x, moved)`` as :func:`_moves` gives them
Moves = Callable[[int], Callable[[int, bool], Iterator[tuple[int, bool]]]]


def _everywhere(moves: Callable[[int, bool], Iterator[tuple[int, bool]]]) -> Moves:
    """The same moves in every block (every neighbour pair)."""
    return lambda k: moves


def _at(moves: Callable[[int, bool], Iterator[tuple[int, bool]]], at: tuple[int, ...], side: int) -> Moves:
    """The moves of the data-centric pairs of the database whose entry offsets are ``at``: on ``side`` 0 the
    ``x`` side is ``at`` (pairs ``(x0, x')``), on side 1 the ``x'`` side is (pairs ``(x', x0)``)."""

    def of_block(k: int) -> Callable[[int, bool], Iterator[tuple[int, bool]]]:
        def fixed(x: int, moved: bool) -> Iterator[tuple[int, bool]]:
            if side == 0:
                return moves(x, moved) if x == at[k] else iter(())
            return ((xp, now) for xp, now in moves(x, moved) if xp == at[k])

        return fixed

    return of_block


def chain_plan(
    compiled: Compiled, relation: str, exact: bool, budget: Budget | None, at: tuple[int, ...] | None = None
) -> list[ChainAnswer] | None:
    """The worst triples of pure ε over the chain (module docstring) of the ``compiled`` program (:func:`_witnesses`);
    with ``at`` (the entry offsets of a database ``x0``) over the data-centric pairs ``(x0, x')`` and ``(x', x0)``
    only: the same search with one side's steps fixed to ``x0``'s entries, once per side. None when it has no chain,
    a cut is wider than one, or the work passes the ``budget`` (charged to it)."""
    chain = find_chain(compiled) if relation in RELATIONS else None
    if chain is None:
        return None
    d = ChainDiagram(compiled, chain, _Exact if exact else _Logs)
    one, steps = RELATIONS[relation]
    answers: list[ChainAnswer] = []
    try:
        for step in steps:  # one search per direction (monotone: every entry up, or every entry down)
            moves = _moves(one, step, d.size)
            searches = [_everywhere(moves)] if at is None else [_at(moves, at, side) for side in (0, 1)]
            for of_block in searches:
                found = _search(d, of_block, budget)
                if found is None:
                    return None
                answers += found
        return _best(answers, exact)
    finally:
        if budget is not None:
            budget.charge(d.work)


def _search(d: ChainDiagram, moves: Moves, budget: Budget | None) -> list[ChainAnswer] | None:
    """The max-product over the blocks: one column of states per boundary, then the witnesses read back."""
    arith, nodes = d.arith, {int(d.root): d.root}
    columns: list[Column] = [{(int(d.root), int(d.root), False): (arith.one, None, None)}]
    widths, pairs = [], 0
    for block in d.blocks:
        tables: dict[int, dict[tuple[Any, ...], dict[int, tuple[Any, Any]]]] = {}
        for u in {s[0] for s in columns[-1]} | {s[1] for s in columns[-1] if s[1] != DEAD}:
            table = d.steps(block, nodes[u])
            if table is None or (budget is not None and not budget.affords(d.work)):
                return None
            tables[u] = table
        widths.append(len(tables))
        columns.append(_column(columns[-1], tables, moves(block.entry), arith, nodes))
        pairs = max(pairs, len(columns[-1]))
        d.work += len(columns[-1])
    return _witnesses(d, columns, widths, pairs)


def _column(
    column: Column,
    tables: dict[int, dict[tuple[Any, ...], dict[int, tuple[Any, Any]]]],
    moves: Callable[[int, bool], Iterator[tuple[int, bool]]],
    arith: Arith,
    nodes: dict[int, Any],
) -> Column:
    """The states below a block: from each state every step ``(x_k, x'_k, y_k)`` the relation allows, the best
    ratio into each state kept (inf once the x' side is dead)."""
    out: Column = {}
    for state, (value, _, _) in column.items():
        for nxt, w, wp, step in transitions(state, tables, moves, nodes):
            new = math.inf if wp is None else _times(value, w, wp, arith)
            if nxt not in out or new > out[nxt][0]:
                out[nxt] = (new, state, step)
    return out


def transitions(
    state: State,
    tables: dict[int, dict[tuple[Any, ...], dict[int, tuple[Any, Any]]]],
    moves: Callable[[int, bool], Iterator[tuple[int, bool]]],
    nodes: dict[int, Any],
) -> Iterator[tuple[State, Any, Any, tuple[int, int, tuple[Any, ...]]]]:
    """Every step ``(x_k, x'_k, y_k)`` the relation allows from ``state`` through one block (``tables``: each
    upper node's :meth:`ChainDiagram.steps`): the state below, the block's weights ``w`` and ``w'`` of the two
    sides (``w'`` None once the x' side is dead: an infinite ratio), and the step. Each node reached is
    recorded in ``nodes``."""
    u, up, moved = state
    other = tables[up] if up != DEAD else {}
    for ys, row in tables[u].items():
        row_p = other.get(ys, {})
        for x, (w, v) in row.items():
            nodes[int(v)] = v
            for xp, now in moves(x, moved):
                check("chain plan: search")
                if up == DEAD or xp not in row_p:
                    yield (int(v), DEAD, now), w, None, (x, xp, ys)
                else:
                    wp, vp = row_p[xp]
                    nodes[int(vp)] = vp
                    yield (int(v), int(vp), now), w, wp, (x, xp, ys)


def _times(value: Any, w: Any, wp: Any, arith: Arith) -> Any:
    """``value * w / wp``: ratios as Fractions, or log-ratios (inf stays inf)."""
    if value == math.inf:
        return math.inf
    return value * w / wp if arith.exact else value + w - wp


def _witnesses(d: ChainDiagram, columns: list[Column], widths: list[int], pairs: int) -> list[ChainAnswer]:
    """The best final states (the x side at TRUE, the x' side at TRUE or dead, an entry moved), each with its steps
    back to the root: the best alone in exact mode; in float mode, every one within :data:`MARGIN` of the best (at
    most :data:`FINALISTS`), for the ordinary counter to decide among; none when no triple has a positive
    numerator (an empty list)."""
    true = int(d.be.true)
    finals = [(c[0], s) for s, c in columns[-1].items() if s[0] == true and s[1] in (true, DEAD) and s[2]]
    finals.sort(key=lambda item: item[0], reverse=True)
    if d.arith.exact:
        finals = finals[:1]
    elif finals:
        finals = [f for f in finals if f[0] >= finals[0][0] - MARGIN][:FINALISTS]
    return [_answer(d, _back(columns, state), value, widths, pairs) for value, state in finals]


def _best(answers: list[ChainAnswer], exact: bool) -> list[ChainAnswer]:
    """The answers of several searches (one per direction of the relation) cut as :func:`_witnesses` cuts one's."""
    answers = sorted(answers, key=lambda a: a.value, reverse=True)
    if exact or not answers:
        return answers[:1]
    return [a for a in answers if a.value >= answers[0].value - MARGIN][:FINALISTS]


def _answer(
    d: ChainDiagram, steps: list[tuple[int, int, tuple[Any, ...]]], value: Any, widths: list[int], pairs: int
) -> ChainAnswer:
    """The triple of a path's ``steps`` (the output from the components each block placed)."""
    values: list[Any] = [None] * len(d.leaves)
    for block, (_, _, ys) in zip(d.blocks, steps):
        for j, v in zip(block.outputs, ys):
            values[j] = v
    x, xp = [s[0] for s in steps], [s[1] for s in steps]
    return ChainAnswer(x, xp, _output(d.trace, tuple(values)), value, widths, pairs, d.work)


def _back(columns: list[Column], state: State) -> list[tuple[int, int, tuple[Any, ...]]]:
    """The steps ``(x_k, x'_k, y_k)`` of the best path into ``state`` of the last column, first block first."""
    steps = []
    cur: State | None = state
    for column in reversed(columns[1:]):
        assert cur is not None
        _, cur, step = column[cur]
        assert step is not None
        steps.append(step)
    return steps[::-1]


# -- the plan ----------------------------------------------------------------------------------------------


def chain_privacy(
    whole: Any,
    relation: Any,
    exact: Any,
    run: Callable[..., Any],
    budget: Any,
    start: float,
    considered: list[tuple[Any, ...]],
    at: tuple[int, ...] | None = None,
) -> Any | None:
    """Pure ε by the chain plan (:func:`chain_plan`) when it applies, else None; with ``at`` (a database ``x0`` of
    the domain) the data-centric ε of ``x0``. The witness triple is counted by ``run`` (Algorithm 2 on that one
    triple, the ordinary counter) and its ratio is the bound: in exact mode it must equal the plan's exactly; in
    float mode the largest of the candidates' counts. When a candidate's count does not bear it out
    (:func:`~.planner.recount`) the plan is dropped, noted in ``considered``, and None returned."""
    exact_run = _exact_run(whole, exact)
    if exact_run is None or not relation.builtin or len(whole.trace.input_bits) != whole.domain.n:
        return None
    announce("chain", None, "searching along the chain")
    answers = chain_plan(whole, relation.name, exact_run, budget, at_offsets(whole, at))
    if not answers:
        considered.append(("chain", None, "no chain proved"))
        return None
    recounts = [(*_recount(whole, relation, exact, run, a, exact_run, at), a) for a in answers]
    counted = [(r, a) for r, _, a in recounts if r is not None]
    if len(counted) < len(recounts):
        considered.append(("chain", None, next(why for r, why, _ in recounts if r is None)))
        return None
    r, answer = max(counted, key=lambda c: c[0].epsilon)
    estimate = answer.work * (CHAIN_EXACT_UNIT_SECONDS if exact_run else CHAIN_FLOAT_UNIT_SECONDS)
    considered.append(("chain", estimate, _describe(answer)))
    structure = f"chain: {_describe(answer)}{AT_NOTE if at is not None else ''}"
    sizes = (answer.pairs, exhaustive_triples(whole, relation, at))
    return answered(r, "chain", structure, sizes, estimate, start, considered, _claims(answer), (0.0, budget.spent))


def _recount(
    whole: Any,
    relation: Any,
    exact: Any,
    run: Callable[..., Any],
    answer: ChainAnswer,
    exact_run: bool,
    at: tuple[int, ...] | None,
) -> tuple[Any | None, str]:
    """Algorithm 2 on the answer's triple alone (the ordinary counter, :func:`~.planner.recount`): its result, or
    None and why it does not bear the answer out (in exact mode its ratio must be the answer's; with ``at`` its
    pair must be one of ``at``'s)."""
    lo = whole.domain.lo
    x, xp = tuple(lo + u for u in answer.x), tuple(lo + u for u in answer.x_prime)
    claimed = answer.value if exact_run else None
    return recount(run, whole, relation, exact, (x, xp, answer.y), claimed, at=at)


def _describe(answer: ChainAnswer) -> str:
    return (
        f"{len(answer.widths)} blocks (one per entry), boundary widths {answer.widths} nodes (the state the output "
        f"pins down), at most {answer.pairs} state pairs searched"
    )


def _claims(answer: ChainAnswer) -> tuple[tuple[str, str], ...]:
    return (
        (
            "given (x, y), P(y | x) is the product over the entries of one block's weight between single boundary "
            "nodes",
            "read off the BDD of [A(x; r) = y] with each entry's input, random and output bits in one block: the "
            "forward pass from every boundary node under every (x_k, y_k) reaches at most one node below the block "
            f"(a cut of width one; {sum(answer.widths)} boundary nodes checked)",
        ),
        (
            "the best ratio into a state pair is all a completion needs",
            "every completion multiplies a prefix's ratio by the same factors (max-product over pairs of boundary "
            "nodes and the flag 'an entry moved')",
        ),
    )


__all__ = ["ChainAnswer", "ChainBlock", "chain_plan", "chain_privacy", "find_chain"]
