"""Conditioned parts: a program whose output event splits into independent parts once a small hub of random bits
is fixed (the noisy threshold of sparse vector and above-threshold).

For an output ``y`` let ``f_y(x, r) = [A(x; r) = y]`` over input bits ``x`` and random bits ``r``. The *hub*
``H`` is the set of random bits (that an output reads) the program draws before it reads any input entry, and
those it draws after every entry was read that meet every entry's input (the threshold of a second loop over
the same answers, as in DP-Sniper's SVT34Parallel). The other variables fall into one *block* per input entry
``e``: the entry's bits and the random bits whose lowest gates that read an input read ``e``'s alone (its
answer's noise, in every loop), or else the random bits drawn after ``e``'s first bit, up to the next entry's
(:func:`find_blocks`). Fix ``H = h`` and write ``f_{y,h}`` as a BDD with the variables in that order (the hub,
then the blocks in the order their entries are first read). When at every block boundary every edge that
crosses it reaches FALSE or one and the same node ``g`` (a cut of width one), then ``f_{y,h} = u ∧ g`` with ``u``
over the upper blocks only (``u`` is ``f_{y,h}`` with ``g`` read as TRUE: every path that crosses the cut reaches
FALSE, in both, or ``g``). Cut at every boundary, ``f_{y,h} = AND_e u_e`` with ``u_e`` over block ``e`` alone;
the parts share no input entry and no random bit (the criterion of :mod:`.parts`), so the random bits of the
blocks are independent and

    P(y | x) = sum_h P(H = h) * prod_e P_e(y | x_e, h),    P_e(y | x_e, h) = WMC(u_e | x_e).

When no bits are drawn before the inputs, one entry's block ``p`` may serve as the hub of an output (the *pinned*
entry: the winner of noisy max, given whose input and noise the others are independent). Its assignments ``b``
fall into classes ``k``, those that send every node where a path of ``f_y`` enters the block to the same nodes
below it (a forward pass over the block's levels); ``f_y`` restricted to any ``b`` of a class is one BDD, cut
as above, and ``P(y | x) = sum_k P_p(k | x_p) prod_{e != p} P_e(y | x_e, k)`` with ``P_p(k | x_p)`` the
probability of the class's random bits with ``p``'s input bits at ``x_p``: the pinned entry is one more part.
This is proved on the diagram of each ``(y, h)``, never sampled: a cut wider than one (a coin shared by two
entries' blocks, a state the output does not pin down) refuses the plan, and the planner runs another one.
The output events are found breadth first over the output leaves, keeping only prefixes whose event is
satisfiable (sparse vector with ``N`` TRUE answers has about ``n^N`` outputs, not ``3^n``); more than 1024 prefixes
at any depth hand the program on.

The worst triple ``(x, x', y)`` is searched without listing every pair: per output, entries whose tables
``P_e(y | ., h)`` are equal for every ``h`` are one *type*, and only how many entries of a type take each
choice ``(x_e, x'_e)`` matters (a multiset). Under ``monotone`` (every entry moves by 0 or +1, or every one by 0
or -1) the search runs twice, once per direction, each as under ``all-entries`` with that direction's moves only.
Under ``all-entries`` a choice ``d`` whose tables satisfy
``P(.| x_d, h) <= P(.| x_e, h)`` and ``P(.| x'_d, h) >= P(.| x'_e, h)`` for every ``h`` is dominated by ``e``
(numerator up, denominator down) and dropped. A branch-and-bound over the counts prunes a branch when its
bound, ``sum_h a_h / sum_h b_h <= max_h a_h / b_h`` with each undecided entry at its largest per-``h`` ratio,
is below the best ratio found (the bound in floats with a margin far above their rounding, so it only skips
branches that cannot win); the last group's count vectors are evaluated at once in floats and only those
within the same margin of the best are kept; every ratio kept is computed exactly (Fractions in exact mode, logs
in float mode).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import WmcdpError
from ..base.limits import check
from ..base.numbers import ln, ratio_times
from ..compile import _compile_gates
from ..compile.bdd import BDDBackend
from ..count.probabilities import number_system
from ..lang.circuit import VAR
from ..lang.program import Trace
from ..lang.shape import IntShape, leaves
from .planner import AT_NOTE, Budget, PlanReport, announce, at_offsets, exhaustive_triples, recount

#: the hub's largest number of random bits (its values are enumerated)
HUB_BITS = 12
#: output events the plan lists at most (all before any is counted) before it gives up (then another plan runs)
MAX_OUTPUTS = 1024
#: prune a branch only when its bound is below the best log-ratio by more than this (float rounding of the bound)
MARGIN = 1e-9
#: seconds per unit of the plan's counted work (:func:`hub_estimate`), fitted (non-negative least squares on the
#: relative error) to the in-process seconds of the plan on a compiled program (best of 2, a quiet machine): sparse
#: vector n = 10-80, above-threshold n = 20, 60, 120, noisy max m = 5 n = 6-12 and m = 2 n = 8, 12, CheckDP's SVT,
#: GapSVT, NumSVT, AdaptiveSVT and MonotoneSVT, iSVT1-4 and SVT34Parallel at n = 10 (all within 2.5x): a run's
#: fixed cost, a node of the program's diagram (counting the witness), a block node per entry value (the parts'
#: tables; those of a pinned entry's classes are cheaper, a forward pass over one block), a restriction of an event
#: to one hub bit, and a type-count multiset evaluated; and a node of a prefix event conjoined while the output
#: events are formed (:attr:`Diagrams.operations`: 0.27-0.32 us a node on sparse vector, n = 40 and 80, where these
#: conjunctions, one per prefix and leaf value, took a quarter to a half of the plan and were not counted before)
HUB_SECONDS = {
    "base": 0.018,
    "node": 2.4e-6,
    "table": 4.7e-6,
    "table_pinned": 2.4e-6,
    "cofactor": 1.3e-6,
    "leaf": 3.1e-6,
    "operation": 3e-7,
}


@dataclass(frozen=True)
class Block:
    """One input entry's variables: levels ``start <= level < end`` (its bits, then the random bits drawn after)."""

    entry: int
    start: int
    end: int


@dataclass(frozen=True)
class Hub:
    """The hub's random bits (variable ids) and the blocks of the other entries, in the diagram's variable order
    ``order`` (level -> variable id: the hub's bits, then each block's); ``late``, the hub's bits drawn after
    every entry was first read (:func:`find_blocks`); ``pinned``, an entry's block whose variables (its input bits
    and random bits) join the hub for one output."""

    bits: tuple[int, ...]
    blocks: tuple[Block, ...]
    order: tuple[int, ...]
    late: tuple[int, ...] = ()
    pinned: Block | None = None

    def describe(self) -> str:
        early = [v for v in self.bits if v not in self.late]
        text = f"{len(early)} random bits drawn before any input (variables {_ranges(early)})"
        if self.late:
            text += (
                f" and {len(self.late)} drawn after every entry was read, read with every entry's answer "
                f"(variables {_ranges(self.late)})"
            )
        return text

    def pin(self, block: Block) -> Hub:
        """The hub joined by ``block``'s variables; the other blocks stay parts."""
        return Hub(self.bits, tuple(b for b in self.blocks if b != block), self.order, self.late, block)


def _ranges(ids: Sequence[int]) -> str:
    """``0-3, 7`` for the ids 0, 1, 2, 3, 7."""
    out: list[str] = []
    for _, run in itertools.groupby(enumerate(ids), key=lambda p: p[1] - p[0]):
        values = [v for _, v in run]
        out.append(str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}")
    return ", ".join(out)


def find_hub(trace: Trace) -> Hub | None:
    """The hub and the entries' blocks (module docstring), or None: no hub, a hub over :data:`HUB_BITS`, or an
    entry whose bits are not contiguous before the next entry's."""
    hub = find_blocks(trace)
    return hub if hub is not None and hub.bits else None


def find_blocks(trace: Trace) -> Hub | None:
    """As :func:`find_hub`, with a hub of no bits allowed (an entry's block may still be pinned per output).

    Each random bit the output reads goes to the hub or to one entry's block (:func:`_owners`): the hub takes the
    bits drawn before any input, and those drawn after every entry was first read that meet every entry's input
    (the threshold of a second loop over the same answers); a bit that meets one entry's input joins that entry's
    block (the noise of its answer, in every loop); any other bit (a coin shared by some entries) joins the block
    of the entry first read last before it was drawn. The order is only a heuristic: the cut check proves the
    split, output by output."""
    firsts = sorted((min(bits), e) for e, bits in trace.input_bits.items() if bits)
    if len(firsts) < 2:
        return None
    read = _read_variables(trace)
    owners = _owners(trace, read)
    hub, late, members = [], [], {e: list(trace.input_bits[e]) for _, e in firsts}
    for v in sorted(read & set(trace.circuit.weights)):
        owner = _owner(v, owners.get(v, 0), firsts)
        if owner is None:
            hub.append(v)
            late += [v] if v > firsts[0][0] else []
        else:
            members[owner].append(v)
    if len(hub) > HUB_BITS:
        return None
    return _laid_out(trace, hub, late, [(e, members[e]) for _, e in firsts])


def _laid_out(trace: Trace, hub: list[int], late: list[int], members: list[tuple[int, list[int]]]) -> Hub:
    """The hub with the variable order: its bits, then each entry's block (its ``members``, in the order given),
    then the variables the output does not read."""
    order, blocks = list(hub), []
    for e, variables in members:
        blocks.append(Block(e, len(order), len(order) + len(variables)))
        order += sorted(variables)
    placed = set(order)
    order += [v for v in range(trace.circuit.num_vars) if v not in placed]
    return Hub(tuple(hub), tuple(blocks), tuple(order), tuple(late))


def _owner(v: int, met: int, firsts: list[tuple[int, int]]) -> int | None:
    """The entry whose block takes random bit ``v``, or None for the hub (:func:`find_blocks`); ``met``: the
    entries (a bit mask) whose inputs the bit meets, ``firsts``: (first input bit, entry), sorted."""
    start = [first for first, _ in firsts]
    if v < start[0] or (met == sum(1 << e for _, e in firsts) and v > start[-1]):
        return None
    if met and met & (met - 1) == 0:  # one entry
        return met.bit_length() - 1
    return firsts[bisect.bisect_right(start, v) - 1][1]


def _owners(trace: Trace, read: set[int]) -> dict[int, int]:
    """Per random bit the output reads, the entries (a bit mask) whose inputs it first meets: those read by the
    lowest gates above the bit (among the gates the output needs) that read any input."""
    mask, parents = _entry_masks(trace)
    out: dict[int, int] = {}
    var_node = trace.circuit.var_node
    for v in read & set(trace.circuit.weights):
        met, seen, stack = 0, set(), [var_node[v]]
        while stack:
            node = stack.pop()
            check("hub plan: blocks")
            for parent in parents.get(node, ()):
                if mask[parent]:
                    met |= mask[parent]
                elif parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        out[v] = met
    return out


def _entry_masks(trace: Trace) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Per gate the output needs, the entries (a bit mask) whose input bits it reads, and each gate's parents."""
    gates, inputs = trace.circuit.gates, {v: e for e, bits in trace.input_bits.items() for v in bits}
    needed = _needed(trace)
    mask = dict.fromkeys(needed, 0)
    parents: dict[int, list[int]] = {}
    for node in sorted(needed):  # children before parents
        gate = gates[node]
        if gate[0] == VAR:
            mask[node] = 1 << inputs[gate[1]] if gate[1] in inputs else 0
            continue
        for child in gate[1:]:
            if child >= 2:
                mask[node] |= mask[child]
                parents.setdefault(child, []).append(node)
    return mask, parents


def _needed(trace: Trace) -> set[int]:
    """The circuit's gates the output bits read (constants left out)."""
    gates = trace.circuit.gates
    seen, stack = set(), list(trace.output_roots)
    if trace.output_guards is not None:
        stack += list(trace.output_guards.values())
    while stack:
        node = stack.pop()
        if node in seen or node < 2:
            continue
        seen.add(node)
        if gates[node][0] != VAR:
            stack.extend(gates[node][1:])
    return seen


def _read_variables(trace: Trace) -> set[int]:
    """The variables the output bits read."""
    gates = trace.circuit.gates
    return {gates[node][1] for node in _needed(trace) if gates[node][0] == VAR}


# -- numbers: exact Fractions, or natural logs of floats --------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def _exact_log(a: Fraction) -> float:
    """``ln a`` of a probability (``-inf`` for 0), remembered: the parts' tables repeat few distinct values."""
    return ln(a) if a > 0 else -math.inf


class _Exact:
    """Probabilities as Fractions."""

    exact = True
    zero: Any = Fraction(0)
    one: Any = Fraction(1)

    @staticmethod
    def weight(w: Any, bit: bool) -> Any:
        return w.one if bit else w.zero

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def log(a: Any) -> float:
        return _exact_log(a)

    @staticmethod
    def power(a: Any, c: int) -> Any:
        return a**c


class _Logs:
    """Probabilities as their natural logs (float mode: products never underflow)."""

    exact = False
    zero: Any = -math.inf
    one: Any = 0.0

    @staticmethod
    def weight(w: Any, bit: bool) -> Any:
        return w.log_one if bit else w.log_zero

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        if a < b:
            a, b = b, a
        return a if b == -math.inf else a + math.log1p(math.exp(b - a))

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def log(a: Any) -> float:
        return float(a)

    @staticmethod
    def power(a: Any, c: int) -> Any:
        return a * c if c else 0.0


Arith = type[_Exact] | type[_Logs]


# -- output events and their decomposition ----------------------------------------------------------------


class Diagrams:
    """The output bits as BDDs over the program's variables in the hub's order (``order[level]`` is the variable
    at a level)."""

    def __init__(self, trace: Trace, order: Sequence[int]) -> None:
        self.trace = trace
        self.order = list(order)
        self.be = BDDBackend(self.order)
        self.work = 0  # BDD nodes visited
        self.operations = 0  # nodes of the prefix events conjoined while the output events were formed
        self.cofactors = 0  # restrictions of events to one hub bit (or to a pinned block's class)
        #: per (entry, node at the top of its block): the block's table and the node below it, and the node
        self.cuts: dict[tuple[int, int], tuple[tuple[tuple[Any, ...], Any] | None, Any]] = {}

    def events(self, most: int, work: int | None = None) -> list[tuple[tuple[Any, ...], Any]] | None:
        """Every output value (as the tuple of its leaf values) whose event is satisfiable, with its event; None
        when there are more than ``most``, when compiling the output bits in the hub's order is extrapolated past
        ``work`` (diagram operations, :func:`~wmcdp.compile._compile_gates`), or when forming the events passes it
        (:attr:`operations`, the nodes of the events conjoined, checked at every conjunction)."""
        trace, be = self.trace, self.be
        codes = sorted(trace.output_guards) if trace.output_guards is not None else []
        roots = [trace.output_guards[c] for c in codes] if trace.output_guards is not None else trace.output_roots
        try:  # the output bits (or value guards) in the hub's order, refused when extrapolated past ``work``
            built = _compile_gates(trace, be, roots, work)
        except WmcdpError:
            return None
        if trace.output_guards is not None:  # one Int output: its value guards are the events
            shape = trace.shape
            assert isinstance(shape, IntShape)
            out = [((shape.lo + offset,), guard) for offset, guard in zip(codes, built) if guard != be.false]
            return out if len(out) <= most else None
        bits, conditions = built, []
        for leaf in leaves(trace.shape):
            conditions.append(self._leaf_values(leaf, bits[: leaf.width]))
            bits = bits[leaf.width :]
        return self._prefixes(conditions, most, work)

    def _leaf_values(self, leaf: Any, bits: list[Any]) -> list[tuple[Any, Any]]:
        """Each value of one output leaf whose event ``[leaf = value]`` (over the leaf's ``bits``) is satisfiable."""
        out = []
        for value in leaf.values():
            cond = self.be.true
            for o, b in zip(bits, leaf.encode(value) or ()):
                cond = cond & (o if b else ~o)
            if cond != self.be.false:
                out.append((value, cond))
        return out

    def _prefixes(
        self, conditions: list[list[tuple[Any, Any]]], most: int, work: int | None
    ) -> list[tuple[tuple[Any, ...], Any]] | None:
        """The satisfiable prefixes of the output leaves, one leaf deeper per round (breadth first): each
        satisfiable prefix extends to at least one output, so more than ``most`` of them at any depth means more
        than ``most`` outputs, found while the prefixes' events are still small. Each conjunction is charged the
        nodes of the prefix's event (:attr:`operations`; a chain's grow with the depth, so the rounds cost about
        the cube of the leaves); None as soon as the charge passes ``work``."""
        prefixes: list[tuple[tuple[Any, ...], Any]] = [((), self.be.true)]
        for values in conditions:
            deeper = []
            for prefix, event in prefixes:
                size = event.dag_size
                for value, cond in values:
                    check("hub plan: output events")
                    self.operations += size
                    if work is not None and self.operations > work:
                        return None
                    joint = event & cond
                    if joint != self.be.false:
                        deeper.append(((*prefix, value), joint))
                if len(deeper) > most:
                    return None
            prefixes = deeper
        return prefixes


def _children(f: Any) -> tuple[Any, Any]:
    """``(low, high)`` of a CUDD node with its complement applied."""
    lo, hi = f.low, f.high
    return (~lo, ~hi) if f.negated else (lo, hi)


def split_event(d: Diagrams, f: Any, hub: Hub, size: int, arith: Arith) -> list[tuple[Any, ...]] | None:
    """Per block, the table ``u -> WMC(u_e | x_e = lo + u)`` of ``f`` (a BDD with the hub fixed) cut at every
    block boundary (module docstring); None when a cut is wider than one."""
    tables: list[tuple[Any, ...]] = []
    current = f
    for block in hub.blocks:
        if current == d.be.true or current.level >= block.end:
            tables.append((arith.one,) * size)
            continue
        key = (block.entry, int(current))
        if key not in d.cuts:  # the node is kept with its cut: a live node keeps its id
            d.cuts[key] = (_block_table(d, block, current, size, arith), current)
        cut = d.cuts[key][0]
        if cut is None:
            return None
        tables.append(cut[0])
        current = cut[1]
    return tables if current == d.be.true else None


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
    var = d.order
    if any(var[node.level] not in position and var[node.level] not in weights for node in nodes):
        return None  # an input bit of another entry inside this block
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
    return tuple(row), nxt


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


# -- the worst triple: types of entries, choices, branch-and-bound over counts ----------------------------


@dataclass(frozen=True)
class Choice:
    """A pair of entry values ``(x_e, x'_e)`` (offsets into the entry's values) and, per hub class, the part's
    probabilities under each (in the arithmetic of the run) and their float logs."""

    u: int
    u_prime: int
    a: tuple[Any, ...]
    b: tuple[Any, ...]
    la: np.ndarray
    lb: np.ndarray


@dataclass(frozen=True)
class Group:
    """``count`` entries (``entries``) that each take one of ``choices``; only how many take each matters."""

    entries: tuple[int, ...]
    choices: tuple[Choice, ...]


@dataclass
class Best:
    """The largest ratio found: its float log, its exact numerator and denominator, and its witness."""

    log: float = -math.inf
    num: Any = None
    den: Any = None
    x: dict[int, int] | None = None
    x_prime: dict[int, int] | None = None
    y: Any = None
    leaves: int = 0  # multisets evaluated

    def beats(self, num: Any, den: Any, arith: Arith) -> bool:
        """Whether ``num / den`` is larger than the best (exactly; 0/0 never is)."""
        if self.num is None:
            return bool(num != arith.zero or den != arith.zero)
        if num == arith.zero:
            return False
        if arith.exact:
            return bool(self.den != 0 and (den == 0 or num * self.den > self.num * den))
        return bool(num - den > self.num - self.den)


def _log_ratio(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """``la - lb`` per hub class with ``-inf`` where the numerator is 0 and ``+inf`` where only the denominator is."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = la - lb
    out[la == -math.inf] = -math.inf
    return out


def _dominated(c: Choice, by: Choice, arith: Arith) -> bool:
    """Every part probability under ``x`` at most ``by``'s, under ``x'`` at least ``by``'s (per hub class)."""
    if arith.exact:
        return all(p <= q for p, q in zip(c.a, by.a)) and all(p >= q for p, q in zip(c.b, by.b))
    return bool(np.all(c.la <= by.la) and np.all(c.lb >= by.lb))


def undominated(choices: Sequence[Choice], arith: Arith) -> tuple[Choice, ...]:
    """The choices no other choice dominates (of equal ones, the first)."""
    out: list[Choice] = []
    for i, c in enumerate(choices):
        if not any(
            _dominated(c, d, arith) and (not _dominated(d, c, arith) or j < i) for j, d in enumerate(choices) if j != i
        ):
            out.append(c)
    return tuple(out)


class Search:
    """Branch-and-bound over how many entries of each group take each choice (module docstring)."""

    def __init__(self, weights: Sequence[Any], arith: Arith, best: Best) -> None:
        self.weights, self.arith, self.best = list(weights), arith, best
        self.log_weights = np.array([arith.log(w) for w in weights])

    def run(self, groups: Sequence[Group], y: Any) -> None:
        groups = [g for g in groups if g.entries]
        lr = [[_log_ratio(c.la, c.lb) for c in g.choices] for g in groups]
        suffix = [[np.maximum.reduce(row[j:]) for j in range(len(row))] for row in lr]
        tail = [np.zeros(len(self.weights)) for _ in range(len(groups) + 1)]
        for g in range(len(groups) - 1, -1, -1):
            tail[g] = _plus(tail[g + 1], _times(len(groups[g].entries), suffix[g][0]))
        self._groups, self._suffix, self._tail, self._y = groups, suffix, tail, y
        self._last = _spread(groups[-1]) if groups else None
        counts: list[list[int]] = [[0] * len(g.choices) for g in groups]
        self._visit(0, 0, len(groups[0].entries) if groups else 0, self.log_weights, self.log_weights, counts)

    def _visit(self, g: int, j: int, left: int, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        groups = self._groups
        if g == len(groups):
            self.best.leaves += 1
            self._leaf(la, lb, counts)
            return
        rest = _plus(_plus(_log_ratio(la, lb), _times(left, self._suffix[g][j])), self._tail[g + 1])
        if self._pruned(float(np.max(rest)), g, j, left, counts):
            return
        if g == len(groups) - 1 and j == 0 and self._last is not None:
            self._last_group(la, lb, counts)
            return
        choice = groups[g].choices[j]
        last = j == len(groups[g].choices) - 1
        for c in [left] if last else range(left, -1, -1):
            check("hub plan: search")
            counts[g][j] = c
            na, nb = la + _times(c, choice.la), lb + _times(c, choice.lb)
            if not last:
                self._visit(g, j + 1, left - c, na, nb, counts)
            elif g + 1 < len(groups):
                self._visit(g + 1, 0, len(groups[g + 1].entries), na, nb, counts)
            else:
                self._visit(g + 1, 0, 0, na, nb, counts)
        counts[g][j] = 0

    def _pruned(self, bound: float, g: int, j: int, left: int, counts: list[list[int]]) -> bool:
        """Whether no completion of ``counts`` (group ``g`` decided up to choice ``j``, ``left`` of its entries
        open) can beat the best ratio: its float bound (in logs) is below it by more than :data:`MARGIN`, or,
        within the margin, the bound computed exactly is at most the best (floats: the float bound)."""
        best = self.best
        if best.num is None or bound > best.log + MARGIN:
            return False
        if bound < best.log - MARGIN:
            return True
        if not self.arith.exact:
            return bound <= best.log
        return bool(self._exact_bound(g, j, left, counts) <= _ratio(best))

    def _exact_bound(self, g: int, j: int, left: int, counts: list[list[int]]) -> Any:
        """``max_h (a_h / b_h) * prod_open max ratio_h``: the decided counts' ratio per hub class, each open entry
        at its group's largest ratio in that class (Fractions; inf where only a denominator is 0)."""
        out: Any = Fraction(0)
        for k, w in enumerate(self.weights):
            a, b = w, w
            for gi, (group, row) in enumerate(zip(self._groups[: g + 1], counts)):
                for ji, (choice, c) in enumerate(zip(group.choices, row)):
                    if c and (gi < g or ji < j):
                        a, b = a * choice.a[k] ** c, b * choice.b[k] ** c
            if a == 0:
                continue
            if b == 0:
                return math.inf
            value = ratio_times(a / b, _power(_most(self._groups[g].choices[j:], k), left))
            for group in self._groups[g + 1 :]:
                value = ratio_times(value, _power(_most(group.choices, k), len(group.entries)))
            out = max(out, value)
        return out

    def _last_group(self, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        """Every count vector of the last group at once (:func:`_spread`): their log-ratios in floats, and the
        vectors within :data:`MARGIN` of the best, largest first, counted as leaves (exactly in exact mode)."""
        assert self._last is not None
        rows, row_la, row_lb = self._last
        num, den = la + row_la, lb + row_lb  # logs: no +inf, so no nan
        logs = _log_ratio(np.logaddexp.reduce(num, axis=1), np.logaddexp.reduce(den, axis=1))
        self.best.leaves += len(rows)
        for i in np.argsort(-logs, kind="stable"):
            if self.best.num is not None and not logs[i] >= self.best.log - MARGIN:
                break
            counts[-1] = [int(c) for c in rows[i]]
            self._leaf(num[i], den[i], counts)
        counts[-1] = [0] * rows.shape[1]

    def _leaf(self, la: np.ndarray, lb: np.ndarray, counts: list[list[int]]) -> None:
        best, arith = self.best, self.arith
        log = _log_ratio(np.array([np.logaddexp.reduce(la)]), np.array([np.logaddexp.reduce(lb)]))[0]
        if best.num is not None and not log >= best.log - MARGIN:
            return
        num, den = self._totals(counts)
        if best.beats(num, den, arith):
            best.log, best.num, best.den, best.y = float(log), num, den, self._y
            best.x, best.x_prime = {}, {}
            for group, row in zip(self._groups, counts):
                entries = iter(group.entries)
                for choice, c in zip(group.choices, row):
                    for e in itertools.islice(entries, c):
                        best.x[e], best.x_prime[e] = choice.u, choice.u_prime

    def _totals(self, counts: list[list[int]]) -> tuple[Any, Any]:
        """``sum_h P(h) prod_e P_e(y | x_e, h)`` for x and for x' (exactly, or as logs)."""
        arith = self.arith
        num, den = arith.zero, arith.zero
        for k, w in enumerate(self.weights):
            a, b = w, w
            for group, row in zip(self._groups, counts):
                for choice, c in zip(group.choices, row):
                    if c:
                        a = arith.mul(a, arith.power(choice.a[k], c))
                        b = arith.mul(b, arith.power(choice.b[k], c))
            num, den = arith.add(num, a), arith.add(den, b)
        return num, den


#: the largest number of (count vector, choice, hub class) triples the last group is evaluated on at once
SPREAD = 1 << 22


def _spread(group: Group) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Every way ``group``'s entries take its choices (count vectors summing to its size, as rows) with the
    float logs of their parts' products per hub class under x and under x'; None when there are more than
    :data:`SPREAD` numbers to hold."""
    n, k = len(group.entries), len(group.choices)
    classes = len(group.choices[0].la)
    if math.comb(n + k - 1, k - 1) * k * classes > SPREAD:
        return None
    rows = np.array([_counts(bars, n, k) for bars in itertools.combinations(range(n + k - 1), k - 1)], dtype=np.int64)
    logs = []
    for side in (np.array([c.la for c in group.choices]), np.array([c.lb for c in group.choices])):
        with np.errstate(invalid="ignore"):
            terms = rows[:, :, None] * side[None, :, :]
        terms[np.broadcast_to(rows[:, :, None] == 0, terms.shape)] = 0.0  # 0 * log 0 = 0: a choice no entry takes
        logs.append(terms.sum(axis=1))
    return rows, logs[0], logs[1]


def _counts(bars: tuple[int, ...], n: int, k: int) -> list[int]:
    """The count vector of ``n`` entries over ``k`` choices that the bars at ``bars`` (stars and bars) give."""
    edges = [-1, *bars, n + k - 1]
    return [edges[i + 1] - edges[i] - 1 for i in range(k)]


def _most(choices: Sequence[Choice], k: int) -> Any:
    """The largest ratio ``a / b`` of ``choices`` in hub class ``k`` (0 for ``a = 0``, inf for ``a > 0 = b``)."""
    return max((math.inf if c.b[k] == 0 else c.a[k] / c.b[k]) if c.a[k] else Fraction(0) for c in choices)


def _power(r: Any, c: int) -> Any:
    """``r^c`` with ``inf^0 = 1``."""
    return 1 if c == 0 else (math.inf if r == math.inf else r**c)


def _times(c: int, v: np.ndarray) -> np.ndarray:
    """``c * v`` with ``0 * inf = 0``."""
    return np.zeros_like(v) if c == 0 else c * v


def _plus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` with ``-inf + inf = -inf`` (a class no completion reaches stays out of the bound)."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = a + b
    out[np.isnan(out)] = -math.inf
    return out


# -- the plan ----------------------------------------------------------------------------------------------


#: the relations the plan knows: whether exactly one entry moves, and the moves ``x_e -> x'_e`` one entry may make
#: (each of monotone's two directions is searched on its own, as all-entries with the moves of that direction)
RELATIONS: dict[str, tuple[bool, tuple[Callable[[int, int], bool], ...]]] = {
    "all-entries": (False, (lambda u, up: abs(u - up) == 1,)),
    "one-entry": (True, (lambda u, up: abs(u - up) == 1,)),
    "hamming": (True, (lambda u, up: True,)),
    "monotone": (False, (lambda u, up: up == u + 1, lambda u, up: up == u - 1)),
}


@dataclass
class HubAnswer:
    """What the hub plan found: the hub, the worst triple (entry offsets of x and x' by entry, and y), the
    number of output events, of part types (largest over the outputs), the work, and the number of output
    events whose hub was joined by an entry's block."""

    hub: Hub
    best: Best
    outputs: int
    types: int
    work: int
    pinned: int = 0
    cofactors: int = 0  # restrictions of output events to one hub bit (or to a pinned block's class)
    operations: int = 0  # nodes of the events conjoined while the output events were formed (Diagrams.operations)

    def describe(self) -> str:
        """The hub as the plan report names it."""
        drawn = [self.hub.describe()] if self.hub.bits else []
        if self.pinned:
            drawn.append(
                f"per output one entry's block (its input and random bits) for {self.pinned} of {self.outputs} "
                "output events"
            )
        return " and ".join(drawn)


def _hub_cofactors(d: Diagrams, hub: Hub, event: Any, arith: Arith) -> Iterator[tuple[Any, Any]]:
    """``(event restricted to h, P(H = h))`` for every value ``h`` of the hub's bits whose restriction is
    satisfiable: depth first, one bit restricted at a time, so a prefix that makes the event FALSE drops every
    value below it and each restriction starts from its parent's (smaller) diagram."""
    weights, false = d.trace.circuit.weights, d.be.false
    stack = [(event, arith.one, 0)]
    while stack:
        f, w, i = stack.pop()
        if i == len(hub.bits):
            yield f, w
            continue
        v = hub.bits[i]
        for bit in (True, False):
            d.cofactors += 1
            g = d.be.condition(f, {v: bit})
            if g != false:
                stack.append((g, arith.mul(w, arith.weight(weights[v], bit)), i + 1))


#: a forward pass's states: (node ids, offset) -> (the nodes, the probability mass, one assignment that reaches it)
Frontier = dict[tuple[tuple[int, ...], int], tuple[tuple[Any, ...], Any, dict[int, bool]]]


def _pinned_cofactors(d: Diagrams, f: Any, block: Block, size: int, arith: Arith) -> Iterator[tuple[Any, int, Any]]:
    """``(f restricted to b, u, mass)`` over the assignments ``b`` of ``block``'s variables, grouped: ``mass`` is
    the probability of the block's random bits over the ``b`` whose input bits encode the offset ``u`` and that
    send every node where a path of ``f`` enters the block's levels to the same nodes below it (those ``b``
    restrict ``f`` alike). A forward pass over the block's levels on the tuple of those nodes."""
    bits = d.trace.input_bits[block.entry]
    place = {v: len(bits) - 1 - k for k, v in enumerate(bits)}
    _, entering = _block_nodes(f, block.start, d.be.false)
    frontier: Frontier = {(tuple(entering), 0): (tuple(entering.values()), arith.one, {})}
    for level in range(block.start, block.end):
        v = d.order[level]
        frontier = _step(frontier, level, v, place.get(v), d.trace.circuit.weights, arith)
        d.work += len(frontier)
    for (_, u), (nodes, mass, path) in frontier.items():
        if u < size and any(node != d.be.false for node in nodes):
            d.cofactors += 1
            yield d.be.condition(f, path), u, mass


def _step(frontier: Frontier, level: int, v: int, place: int | None, weights: dict[int, Any], arith: Arith) -> Frontier:
    """The forward pass over variable ``v`` (at ``level``): each state's nodes at that level move to their child,
    with the bit's weight (a random bit) or its ``place`` value added to the offset (an input bit); states that
    meet add their masses."""
    out: Frontier = {}
    for (_, u), (nodes, mass, path) in frontier.items():
        check("hub plan: pinned block")
        if place is None and all(node.var is None or node.level != level for node in nodes):
            _meet(out, nodes, u, mass, path, arith)  # both values: weights summing to one
            continue
        for bit in (False, True):
            moved = tuple(
                _children(node)[bit] if node.var is not None and node.level == level else node for node in nodes
            )
            w = mass if place is not None else arith.mul(mass, arith.weight(weights[v], bit))
            _meet(out, moved, u if place is None else u + (bit << place), w, {**path, v: bit}, arith)
    return out


def _meet(out: Frontier, nodes: tuple[Any, ...], u: int, mass: Any, path: dict[int, bool], arith: Arith) -> None:
    """Add ``mass`` to the state ``(nodes, u)`` of ``out`` (the first path that reaches a state stays its own)."""
    key = (tuple(map(int, nodes)), u)
    old = out.get(key)
    out[key] = (nodes, mass, path) if old is None else (old[0], arith.add(old[1], mass), old[2])


def _choices(table: Sequence[tuple[Any, ...]], pairs: Sequence[tuple[int, int]], arith: Arith) -> list[Choice]:
    """The choices ``(u, u')`` of ``pairs`` for an entry whose part has ``table[k][u]`` in hub class ``k``; of
    choices with equal probabilities, the first."""
    out: dict[tuple[Any, ...], Choice] = {}
    for u, up in pairs:
        a, b = tuple(t[u] for t in table), tuple(t[up] for t in table)
        if (a, b) not in out:
            la, lb = (np.array([arith.log(p) for p in side]) for side in (a, b))
            out[(a, b)] = Choice(u, up, a, b, la, lb)
    return list(out.values())


def _alternatives(
    types: dict[tuple[Any, ...], list[int]], size: int, relation: str, arith: Arith, at: bool = False
) -> Iterator[list[Group]]:
    """The groups to search for one output: under ``all-entries`` every entry takes any undominated move or stays
    (under ``monotone`` the same, once with the moves up and once with the moves down); under a relation that
    moves one entry, for each type, its first entry moves and every other entry stays. A type is ``(tables, v)``:
    ``v`` is None, or (``at``) the offset of the type's entries in a database ``x0``, whose data-centric pairs are
    searched once with ``x = x0`` and once with ``x' = x0`` (:func:`_on_side`)."""
    one, directions = RELATIONS[relation]
    for allowed in directions:
        moves = [(u, up) for u, up in itertools.permutations(range(size), 2) if allowed(u, up)]
        for side in (0, 1) if at else (None,):
            yield from _groups(types, size, one, moves, side, arith)


def _on_side(v: int | None, pairs: Sequence[tuple[int, int]], side: int | None) -> list[tuple[int, int]]:
    """The pairs ``(u, u')`` of ``pairs`` an entry at ``x0``'s offset ``v`` takes on ``side`` (0: ``u = v``, 1:
    ``u' = v``; None: every pair)."""
    return list(pairs) if side is None else [p for p in pairs if p[side] == v]


def _groups(
    types: dict[tuple[Any, ...], list[int]],
    size: int,
    one: bool,
    moves: list[tuple[int, int]],
    side: int | None,
    arith: Arith,
) -> Iterator[list[Group]]:
    """The groups of :func:`_alternatives` for one direction's ``moves`` and one ``side`` of ``x0``."""
    stays = [(u, u) for u in range(size)]

    def own(key: tuple[Any, ...], pairs: list[tuple[int, int]]) -> list[Choice]:
        return _choices(key[0], _on_side(key[1], pairs, side), arith)

    if not one:
        yield [Group(tuple(es), undominated(own(t, stays + moves), arith)) for t, es in types.items()]
        return
    for moved in types:
        first = undominated(own(moved, moves), arith)
        if not first:  # x0's value at an end of the range under a direction that leaves it
            continue
        groups = [Group((types[moved][0],), first)]
        for t, es in types.items():
            groups.append(Group(tuple(es[1:] if t == moved else es), tuple(own(t, stays))))
        yield groups


def hub_plan(
    trace: Trace, size: int, relation: str, exact: bool, budget: Budget | None, at: tuple[int, ...] | None = None
) -> HubAnswer | None:
    """The worst triple of pure ε over the conditioned parts (module docstring); ``size`` values per entry; with
    ``at`` (the entry offsets of a database ``x0``) over its data-centric pairs only (entries of one type also
    share their offset in ``x0``). None when the program has no hub, a cut is wider than one, or the analysis
    passes the ``budget``'s work (BDD nodes, charged to it) or :data:`MAX_OUTPUTS` output events (then another
    plan runs)."""
    hub = find_blocks(trace) if relation in RELATIONS else None
    if hub is None:
        return None
    d = Diagrams(trace, hub.order)
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
    best, outputs, most, pinned = Best(), 0, 0, 0
    searched: set[tuple[Any, ...]] = set()
    events = d.events(MAX_OUTPUTS, budget.left() if budget is not None else None)
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


def _decompose(
    d: Diagrams, hub: Hub, event: Any, size: int, arith: Arith
) -> tuple[Hub, list[Any], list[list[tuple[Any, ...]]]] | None:
    """The hub that splits one output event into parts, with its classes (:func:`_conditioned`): the bits drawn
    before any input, or when there are none, the first entry's block (in variable order) that leaves the other
    entries' parts independent (the winner's block of noisy max); None when there is none."""
    candidates = [hub] if hub.bits else [hub.pin(b) for b in hub.blocks]
    for candidate in candidates:
        split = _conditioned(d, candidate, event, size, arith)
        if split is not None:
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


def _output(trace: Trace, values: tuple[Any, ...]) -> Any:
    """The program's output from its leaf values."""
    if trace.output_guards is not None:
        return values[0]
    return trace.shape._build(iter(values))


def hub_privacy(
    whole: Any,
    relation: Any,
    exact: Any,
    run: Callable[..., Any],
    budget: Any,
    start: float,
    considered: list[tuple[Any, ...]],
    at: tuple[int, ...] | None = None,
) -> Any | None:
    """Pure ε by the hub plan (:func:`hub_plan`) when it applies, else None; with ``at`` (a database ``x0`` of the
    domain) the data-centric ε of ``x0``. ``whole`` is the compiled program; the witness triple is then counted by
    ``run`` (Algorithm 2 on that one triple, the ordinary counter), and its ratio is the bound: in exact mode it
    must equal the plan's exactly. When the count does not bear the plan out (:func:`~.planner.recount`) the plan
    is dropped, noted in ``considered``, and None returned."""
    exact_run = _exact_run(whole, exact)
    if exact_run is None or not relation.builtin:
        return None
    announce("hub", None, "searching each output event")
    offsets = at_offsets(whole, at)
    answer = hub_plan(whole.trace, len(whole.domain.entry_values), relation.name, exact_run, budget, offsets)
    if answer is None:
        considered.append(("hub", None, "no hub proved"))
        return None
    lo, sides = whole.domain.lo, (answer.best.x or {}, answer.best.x_prime or {})
    unread = offsets or (0,) * whole.domain.n  # entries no part reads: at x0's value, or the lowest
    x, xp = ([lo + side.get(e, unread[e]) for e in range(whole.domain.n)] for side in sides)
    y = answer.best.y
    estimate = hub_estimate(answer, len(whole.domain.entry_values), whole.size)
    triple = (tuple(x), tuple(xp), y)
    r, why = recount(run, whole, relation, exact, triple, _ratio(answer.best) if exact_run else None, at=at)
    if r is None:
        considered.append(("hub", estimate, why))
        return None
    considered.append(("hub", estimate, answer.describe()))
    plan = PlanReport(
        "hub",
        f"hub: {answer.describe()}; {len(answer.hub.blocks)} parts (one per entry), at most {answer.types} "
        f"types per output; {answer.outputs} output events; {answer.best.leaves} type-count multisets evaluated"
        f"{AT_NOTE if at is not None else ''}",
        answer.best.leaves,
        exhaustive_triples(whole, relation, at),
        estimate,
        0.0,
        time.perf_counter() - start,
        considered=tuple(considered),
        claims=_claims(answer),
        detection_work=budget.spent,
    )
    return replace(r, seconds=plan.seconds, plan=plan)


def hub_estimate(answer: HubAnswer, size: int, nodes: int) -> float:
    """Seconds of the hub plan as a fixed function of the work it counted (:data:`HUB_SECONDS`, the unit of the
    planner's estimates): the program's diagram of ``nodes`` nodes, the block nodes of the parts' tables times the
    ``size`` values of an entry (at the pinned rate for the share of output events with a pinned entry), the
    events restricted to hub values, the search's leaves, and the operations that formed the output events. Known
    once the plan ran (the leaves are counted by the search), so it is reported, not used to choose the plan."""
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


def _exact_run(whole: Any, exact: Any) -> bool | None:
    """Whether the run counts exactly (every weight a Fraction); None for a symbolic parameter, or an exact run
    whose weights are not all rational."""
    arith = number_system(whole, exact)
    if getattr(arith, "interned", False):
        return None
    exact_weights = all(w.exact for w in whole.trace.circuit.weights.values())
    if arith.exact and not exact_weights:
        return None
    return bool(arith.exact)


def _ratio(best: Best) -> Any:
    return math.inf if best.den == 0 else best.num / best.den


def _claims(answer: HubAnswer) -> tuple[tuple[str, str], ...]:
    return (
        (
            f"given the hub ({answer.describe()}) each output event is the conjunction of one part per entry",
            f"read off the BDD of each of the {answer.outputs} output events under each hub value: at every "
            "entry's boundary all crossing edges reach FALSE or one node (a cut of width one), so the parts share "
            "no input entry and no random bit (a pinned entry's block is fixed with the hub, class by class)",
        ),
        (
            "entries with equal part tables are interchangeable, and dominated moves never attain the maximum",
            "the ratio of an output depends only on how many entries of each type take each (x_e, x'_e); a move "
            "whose probabilities are at most another's under x and at least under x' for every hub value cannot "
            "raise it",
        ),
        (
            "branches pruned by the bound cannot attain the maximum",
            "sum_h a_h / sum_h b_h <= max_h a_h / b_h, each open entry at its largest ratio per hub value; pruned "
            f"only below the best ratio found by more than {MARGIN} in logs",
        ),
    )
