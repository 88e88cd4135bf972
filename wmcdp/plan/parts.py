"""Independence: a mechanism whose output splits into parts that share no input entry and no random bit.

If the output tuple of a program splits into parts ``y = (y_1, ..., y_m)`` (each a set of
its Bool and Int leaves) such that part ``c`` is computed from input entries ``E_c`` and
random bits ``R_c``, with the ``E_c`` pairwise disjoint and the ``R_c`` pairwise disjoint,
then the random bits of different parts are independent and

    P(y | x) = prod_c P_c(y_c | x_{E_c}),

so the mechanism is the product of its parts. This is read off the traced circuit, never
sampled: two output leaves are in one part when the cones of their circuit nodes share any
gate or variable (hash-consing makes equal subformulas one gate), and the bits of one input
entry are one variable group. A part that shares even one random bit, gate or entry with
another is merged with it. Leaves that read no input entry (constants, or randomness alone)
have the same distribution under every input; they join the first part that reads an entry.

*Given the input* (:func:`split_given_input`), parts may share input entries and gates over input bits alone,
but no random bit: for every input ``x`` their random bits are still disjoint, so
``P(y | x) = prod_c P_c(y_c | x_{E_c})`` with the ``E_c`` overlapping (several releases of one count).

Parts that are the same mechanism up to renaming are analysed once: a part's *canonical
form* lists its gates in a depth-first order in which children are visited by a structural
hash and variables are numbered on first visit (input bits as (entry, bit position), random
bits with their literal weights), and each output leaf with its shape (a Bool, or an Int with
its range ``lo..hi``: the leaf's bits are the code of ``value - lo``). Two parts with equal
canonical forms are isomorphic circuits under a renaming of entries and random bits that keeps
every weight, and their leaves decode the same bits to the same values, hence the same mechanism
with the same outputs: ``x + d`` and ``x + d + 1`` (one circuit, ranges one apart) are two classes,
and a witness decoded with a class's representative's shape is a value every member can output.
(Unequal forms may still be isomorphic: that only costs a repeated analysis.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base.limits import check
from ..base.partition import Partition
from ..lang.circuit import AND, FALSE, NOT, OR, TRUE, VAR, XOR, Circuit, Gate
from ..lang.program import Program, Trace, Vector
from ..lang.shape import Leaf, Shape, TupleShape, leaves


@dataclass(frozen=True)
class Part:
    """One independent part: output leaves ``leaves`` (positions in the output's leaf order), read
    from input entries ``entries`` (in the part's local order), and its canonical form ``form``."""

    leaves: tuple[int, ...]
    entries: tuple[int, ...]
    form: tuple[Any, ...]


@dataclass(frozen=True)
class PartClass:
    """Parts with one canonical form: ``members`` (indices into the list of parts), analysed once."""

    members: tuple[int, ...]


def _reachable(circuit: Circuit, roots: list[int]) -> bytearray:
    """Which gates the output roots read (children are created before their parents)."""
    gates = circuit.gates
    top = max(roots + [TRUE])
    needed = bytearray(top + 1)
    for r in roots:
        needed[r] = 1
    for node in range(top, TRUE, -1):
        if needed[node]:
            gate = gates[node]
            if gate[0] != VAR:
                for child in gate[1:]:
                    needed[child] = 1
    needed[FALSE] = needed[TRUE] = 0
    return needed


def _leaf_roots(trace: Trace) -> list[list[int]]:
    """The circuit nodes of each output leaf's bits."""
    out, j = [], 0
    for leaf in leaves(trace.shape):
        out.append(trace.output_roots[j : j + leaf.width])
        j += leaf.width
    return out


def _joined(gates: list[Gate], member: bytearray) -> Partition:
    """Every gate of ``member`` joined with its children in ``member`` (constants never are)."""
    components = Partition(len(member))
    for node in range(2, len(member)):
        if node % 65536 == 0:
            check("independence analysis")
        if member[node] and gates[node][0] != VAR:
            for child in gates[node][1:]:
                if child > TRUE and member[child]:
                    components.union(node, child)
    return components


def _connect(trace: Trace, needed: bytearray, leaf_roots: list[list[int]]) -> Partition:
    """The reachable gates joined into parts: a gate with its children, the bits of one input entry,
    and the bits of one output leaf (module docstring)."""
    circuit = trace.circuit
    components = _joined(circuit.gates, needed)
    for var_ids in trace.input_bits.values():
        components.join(
            [node for node in (circuit.var_node[v] for v in var_ids) if node < len(needed) and needed[node]]
        )
    for roots in leaf_roots:
        components.join([r for r in roots if r > TRUE])
    return components


def _leaf_groups(
    trace: Trace, needed: bytearray, leaf_roots: list[list[int]], components: Partition, entry_of: dict[int, int]
) -> list[list[int]] | None:
    """The output leaves of each part, ordered by first leaf; leaves whose component reads no input entry
    join the first part. None when fewer than two components read an entry."""
    gates = trace.circuit.gates
    reads = {
        components.find(node)
        for node in range(2, len(needed))
        if needed[node] and gates[node][0] == VAR and gates[node][1] in entry_of
    }
    by_component: dict[int, list[int]] = {}
    loose: list[int] = []
    for k, roots in enumerate(leaf_roots):
        live = [r for r in roots if r > TRUE]
        comp = components.find(live[0]) if live else None
        if comp is None or comp not in reads:
            loose.append(k)
        else:
            by_component.setdefault(comp, []).append(k)
    if len(by_component) < 2:
        return None
    groups = sorted(by_component.values(), key=lambda ks: ks[0])
    groups[0] = sorted(groups[0] + loose)
    return groups


def split(trace: Trace) -> list[Part] | None:
    """The independent parts of a traced program (module docstring), or None when there are fewer than two."""
    leaf_roots = _leaf_roots(trace)
    if len(leaf_roots) < 2:
        return None
    circuit = trace.circuit
    needed = _reachable(circuit, trace.output_roots)
    entry_of = {v: entry for entry, var_ids in trace.input_bits.items() for v in var_ids}
    groups = _leaf_groups(trace, needed, leaf_roots, _connect(trace, needed, leaf_roots), entry_of)
    return None if groups is None else _with_forms(trace, needed, leaf_roots, groups)


def _with_forms(trace: Trace, needed: bytearray, leaf_roots: list[list[int]], groups: list[list[int]]) -> list[Part]:
    """One part per group of output leaves, with its canonical form and the entries it reads."""
    circuit = trace.circuit
    entry_of = {v: entry for entry, var_ids in trace.input_bits.items() for v in var_ids}
    position = {v: b for bits in trace.input_bits.values() for b, v in enumerate(bits)}
    tokens = _weight_tokens(circuit)
    hashes = _structure_hashes(circuit, needed, position, tokens)
    shapes = leaves(trace.shape)
    parts = []
    for ks in groups:
        outputs = [(leaf_roots[k], shapes[k]) for k in ks]
        form, entries = _canonical(circuit, outputs, hashes, entry_of, position, tokens)
        parts.append(Part(tuple(ks), tuple(entries), form))
    return parts


def _random_gates(circuit: Circuit, needed: bytearray) -> bytearray:
    """Which reachable gates read a random bit (children are created before their parents)."""
    gates, weights = circuit.gates, circuit.weights
    out = bytearray(len(needed))
    for node in range(2, len(needed)):
        if needed[node]:
            gate = gates[node]
            out[node] = gate[1] in weights if gate[0] == VAR else any(out[c] for c in gate[1:])
    return out


def split_given_input(trace: Trace) -> list[Part] | None:
    """The parts of a traced program that are independent *given the input* (module docstring), or None when
    fewer than two of them read an input entry.

    Two output leaves are in one part when their circuits share a gate that reads a random bit (a random bit
    itself is such a gate); gates over input bits alone may be shared. A random bit in a leaf's circuit is
    reached from the leaf's roots through gates that read it, all in the leaf's part, so the parts' random bits
    are disjoint: for every input ``x``, ``P(y | x) = prod_c P_c(y_c | x_{E_c})`` with ``E_c`` the entries part
    ``c`` reads (entries may be shared). A leaf that reads no random bit (a function of the input: ``P_c`` is 0 or
    1) is a part of its own, and parts that read no entry join the first part that reads one: a deterministic
    leaf joined to a part would make that part read every entry the leaf reads (BadSmartSum's exact block sums,
    every entry), and its table grow with all of them."""
    leaf_roots = _leaf_roots(trace)
    if len(leaf_roots) < 2:
        return None
    needed = _reachable(trace.circuit, trace.output_roots)
    groups, loose = _random_components(trace, needed, leaf_roots)
    if len(groups) < 2:  # one part (a noise every leaf reads): no canonical forms to build
        return None
    parts = _with_forms(trace, needed, leaf_roots, sorted(groups + [[k] for k in loose], key=lambda ks: ks[0]))
    reading = [p.leaves for p in parts if p.entries]
    if len(reading) < 2:
        return None
    unread = tuple(k for p in parts if not p.entries for k in p.leaves)
    if not unread:
        return parts
    reading[0] = tuple(sorted(reading[0] + unread))
    return _with_forms(trace, needed, leaf_roots, [list(ks) for ks in reading])


def _random_components(
    trace: Trace, needed: bytearray, leaf_roots: list[list[int]]
) -> tuple[list[list[int]], list[int]]:
    """``(the output leaves of each part, ordered by first leaf; the leaves that read no random bit)``: a gate that
    reads a random bit joined with its children that do, and the bits of one output leaf joined."""
    random = _random_gates(trace.circuit, needed)
    components = _joined(trace.circuit.gates, random)
    for roots in leaf_roots:
        components.join([r for r in roots if random[r]])
    groups: dict[int, list[int]] = {}
    loose: list[int] = []
    for k, roots in enumerate(leaf_roots):
        live = [r for r in roots if random[r]]
        if live:
            groups.setdefault(components.find(live[0]), []).append(k)
        else:
            loose.append(k)
    return sorted(groups.values(), key=lambda ks: ks[0]), loose


def _weight_tokens(circuit: Circuit) -> dict[int, int]:
    """Each random variable's weight as a number, equal for two variables exactly when their weights are equal
    (``P(true)`` and ``P(false)`` both): the forms of one split compare weights by it. Weights are compared by
    value once per distinct weight object (a program's flips of one probability share one)."""
    by_object: dict[int, int] = {}
    by_value: dict[tuple[Any, Any], int] = {}
    out: dict[int, int] = {}
    for v, w in circuit.weights.items():
        token = by_object.get(id(w))
        if token is None:
            token = by_object[id(w)] = by_value.setdefault((w.one, w.zero), len(by_value))
        out[v] = token
    return out


def _structure_hashes(
    circuit: Circuit, needed: bytearray, position: dict[int, int], tokens: dict[int, int]
) -> dict[int, int]:
    """A hash per reachable gate from its kind and its children's hashes (variables by kind, bit
    position and weight (its token) only; ``position``: each input bit's place in its entry). It orders children
    canonically; it proves nothing."""
    out: dict[int, int] = {FALSE: hash("false"), TRUE: hash("true")}
    for node in range(2, len(needed)):
        if not needed[node]:
            continue
        gate = circuit.gates[node]
        if gate[0] == VAR:
            v = gate[1]
            w = tokens.get(v)
            out[node] = hash(("in", position.get(v, -1))) if w is None else hash(("r", w))
        else:
            out[node] = hash((gate[0], *sorted(out[c] for c in gate[1:])))
    return out


def _canonical(
    circuit: Circuit,
    outputs: list[tuple[list[int], Leaf]],
    hashes: dict[int, int],
    entry_of: dict[int, int],
    position: dict[int, int],
    tokens: dict[int, int],
) -> tuple[tuple[Any, ...], list[int]]:
    """``(canonical form, entries in local order)`` of the part with these output leaves (each leaf's roots and
    its shape, module docstring): each leaf's entry names its shape (Bool, or Int with its range), so parts whose
    circuits agree but whose values differ (``x`` and ``x + 1``) have different forms."""
    gates = circuit.gates
    local: dict[int, int] = {FALSE: 0, TRUE: 1}
    entries: dict[int, int] = {}
    randoms: dict[int, int] = {}
    form: list[tuple[Any, ...]] = []
    for leaf, shape in outputs:
        for root in leaf:
            stack = [(root, False)]
            while stack:
                node, expanded = stack.pop()
                if node in local:
                    continue
                gate = gates[node]
                if gate[0] == VAR:
                    v = gate[1]
                    if v in entry_of:
                        e = entries.setdefault(entry_of[v], len(entries))
                        form.append(("in", e, position[v]))
                    else:
                        form.append(("r", randoms.setdefault(v, len(randoms)), tokens[v]))
                    local[node] = len(local)
                    continue
                children = gate[1:] if len(gate) == 2 else sorted(gate[1:], key=lambda c: (hashes[c], c))
                if expanded:
                    form.append((gate[0], *(local[c] for c in children)))
                    local[node] = len(local)
                else:
                    stack.append((node, True))
                    stack.extend((c, False) for c in reversed(children) if c not in local)
        form.append(("out", shape, *(local[r] for r in leaf)))
    return tuple(form), list(entries)


def classes(parts: list[Part]) -> list[PartClass]:
    """Parts grouped by canonical form, in order of first appearance."""
    by_form: dict[tuple[Any, ...], list[int]] = {}
    for i, part in enumerate(parts):
        by_form.setdefault(part.form, []).append(i)
    return [PartClass(tuple(members)) for members in by_form.values()]


def _copy_variables(
    trace: Trace, sub: Circuit, variables: list[int], part: Part
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Create the part's variables in ``sub`` in their original relative order: ``(new variable of each old
    one, bits of each local entry)``. An entry's bits are created together, at the place of its first bit
    (as SymbolicInput does)."""
    local_entry = {e: i for i, e in enumerate(part.entries)}
    entry_of = {v: e for e, bits in trace.input_bits.items() for v in bits}
    new_var: dict[int, int] = {}
    input_bits: dict[int, list[int]] = {}
    for v in variables:
        if v in new_var:
            continue
        if v in entry_of:
            e = entry_of[v]
            input_bits[local_entry[e]] = []
            for b in trace.input_bits[e]:
                new_var[b] = sub.gates[sub.input_var()][1]
                input_bits[local_entry[e]].append(new_var[b])
        else:
            new_var[v] = sub.gates[sub.random_var(trace.circuit.weights[v])][1]
    return new_var, input_bits


def _copy_gates(circuit: Circuit, sub: Circuit, needed: bytearray, new_var: dict[int, int]) -> dict[int, int]:
    """The reachable gates rebuilt in ``sub`` over the renamed variables: old gate -> new gate."""
    built: dict[int, int] = {FALSE: FALSE, TRUE: TRUE}
    ops = {AND: sub.conj, OR: sub.disj, XOR: sub.xor}
    for node in range(2, len(needed)):
        if not needed[node]:
            continue
        gate = circuit.gates[node]
        if gate[0] == VAR:
            built[node] = sub.var_node[new_var[gate[1]]]
        elif gate[0] == NOT:
            built[node] = sub.negate(built[gate[1]])
        else:
            built[node] = ops[gate[0]](built[gate[1]], built[gate[2]])
    return built


def part_trace(trace: Trace, part: Part) -> Trace:
    """The sub-circuit of one part as a trace of its own: entries renumbered ``0..len(part.entries)-1``
    in the part's local order, variables created in their original relative order (so the variable
    order that kept the whole diagram small keeps the part's small), output the part's leaves."""
    circuit = trace.circuit
    leaf_roots = _leaf_roots(trace)
    roots = [r for k in part.leaves for r in leaf_roots[k]]
    needed = _reachable(circuit, roots)
    sub = Circuit(exact_floats=circuit.exact_floats)
    variables = sorted(
        gate[1] for node, gate in enumerate(circuit.gates[: len(needed)]) if needed[node] and gate[0] == VAR
    )
    new_var, input_bits = _copy_variables(trace, sub, variables, part)
    built = _copy_gates(circuit, sub, needed, new_var)
    shapes = leaves(trace.shape)
    part_shapes = [shapes[k] for k in part.leaves]
    shape: Shape = TupleShape(tuple(part_shapes)) if len(part_shapes) > 1 else part_shapes[0]
    return Trace(sub, dict(sorted(input_bits.items())), shape, [built[r] for r in roots], None)


def grouped_trace(trace: Trace, parts: list[Part]) -> Trace:
    """The whole program's circuit with its variables renumbered: the input bits first (entry by entry), then
    each part's random bits together, part by part (each in its original relative order). The same formula and
    weights, so the same counts; output bits then follow their own part's bits (:func:`~wmcdp.compile.compile_trace`),
    so a diagram of parts that share no random bit stays as small as theirs together."""
    circuit = trace.circuit
    leaf_roots = _leaf_roots(trace)
    needed = _reachable(circuit, trace.output_roots)
    sub = Circuit(exact_floats=circuit.exact_floats)
    new_var: dict[int, int] = {}
    input_bits: dict[int, list[int]] = {}
    for e, bits in sorted(trace.input_bits.items()):
        input_bits[e] = []
        for b in bits:
            new_var[b] = sub.gates[sub.input_var()][1]
            input_bits[e].append(new_var[b])
    unvisited = bytearray(needed)
    for part in parts:
        roots = [r for k in part.leaves for r in leaf_roots[k]]
        for v in sorted(_variables(circuit, roots, unvisited)):
            if v not in new_var:
                new_var[v] = sub.gates[sub.random_var(circuit.weights[v])][1]
    built = _copy_gates(circuit, sub, needed, new_var)
    return Trace(sub, input_bits, trace.shape, [built[r] for r in trace.output_roots], None)


def _variables(circuit: Circuit, roots: list[int], unvisited: bytearray) -> list[int]:
    """The variables below ``roots`` among the gates still marked in ``unvisited`` (which it clears)."""
    out, stack = [], [r for r in roots if r > TRUE]
    while stack:
        node = stack.pop()
        if not unvisited[node]:
            continue
        unvisited[node] = 0
        gate = circuit.gates[node]
        if gate[0] == VAR:
            out.append(gate[1])
        else:
            stack.extend(c for c in gate[1:] if c > TRUE)
    return out


def part_program(program: Program, part: Part, index: int) -> Program:
    """A program standing for one part (its domain: the part's entries; never traced itself)."""
    domain = program.inputs
    return Program(
        f"{program.name}[part {index}]",
        Vector(len(part.entries), domain.lo, domain.hi),
        _no_body,
        params=dict(program.params),
        neighbours=program.neighbours if isinstance(program.neighbours, str) else "hamming",
        description=f"entries {_entries_text(part.entries)} of {program.name}",
    )


def _no_body(x: Any) -> Any:
    raise RuntimeError("a part of a program is compiled from the program's trace, never traced itself")


def _entries_text(entries: tuple[int, ...]) -> str:
    ordered = sorted(entries)
    if len(ordered) > 3 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}..{ordered[-1]}"
    return ", ".join(map(str, ordered))


__all__ = ["Part", "PartClass", "split", "split_given_input", "grouped_trace", "classes", "part_trace", "part_program"]
