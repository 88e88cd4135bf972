"""The hub's random bits and the input entries' blocks, read off the traced circuit."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ...base.limits import check
from ...lang.circuit import VAR
from ...lang.program import Trace

#: the hub's largest number of random bits (its values are found level by level: .conditioned._hub_cofactors)
HUB_BITS = 1 << 14


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
