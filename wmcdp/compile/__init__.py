"""Knowledge compilation: a traced program becomes one decision diagram, compiled once.

The compiled diagram is the weighted Boolean formula of paper Def. 3,

    phi(x, y, theta) = AND_j ( y_j <-> o_j(x, theta) ),

over unweighted input bits ``x``, output bits ``y`` and weighted random bits ``theta``,
so that ``WMC(phi | x, y) = P(A(x) = y)``. Inputs stay symbolic: each concrete input is
a cofactor of the same diagram. Variables follow the program's order of first use; each
output bit ``y_j`` sits right below the last variable its function ``o_j`` reads.

Backends (:mod:`.bdd`, :mod:`.sdd`) share one small interface: ``var``, ``conj``,
``disj``, ``negate``, ``xor``, ``condition``, ``size``, ``shared_size``, ``node_count`` and
``wmc``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import WmcdpError
from ..lang.circuit import AND, FALSE, NOT, OR, TRUE, VAR, XOR
from ..lang.program import Program, Trace
from ..limits import check, watching_nodes
from .bdd import BDDBackend
from .sdd import SDDBackend

BACKENDS = {"bdd": BDDBackend, "sdd": SDDBackend}


@dataclass
class Compiled:
    """A program compiled once: its diagram ``phi`` and how to condition it."""

    program: Program
    trace: Trace
    backend: Any
    phi: Any
    output_vars: list[int]          # variable id of each output bit y_j
    outputs: list[Any]              # the output-bit functions o_j(x, theta)
    order: list[int]                # variable ids from the top level down
    compile_seconds: float = 0.0
    _size: int | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        """Node count of ``phi`` (symbolic inputs), as the backend counts nodes."""
        if self._size is None:
            self._size = self.backend.size(self.phi)
        return self._size

    def output_size(self, x: tuple[int, ...]) -> int:
        """Nodes of the output bits ``o_j(x, theta)`` for one concrete input ``x``, shared nodes once.

        This is what a compiler that builds one program per concrete input reports (the
        paper's Dice sizes: n + 2 for randomized response, counting both terminals; CUDD
        keeps one terminal and complemented edges, so wmcdp reports n + 1).
        """
        assignment = self.input_assignment(self.domain.check(x))
        return self.backend.shared_size([self.backend.condition(o, assignment) for o in self.outputs])

    @property
    def shape(self):
        return self.trace.shape

    @property
    def domain(self):
        return self.program.inputs

    def input_assignment(self, x: tuple[int, ...]) -> dict[int, bool]:
        return self.trace.input_assignment(self.program.inputs, x)

    def output_assignment(self, bits: list[int]) -> dict[int, bool]:
        return {v: bool(b) for v, b in zip(self.output_vars, bits)}


def _variable_order(trace: Trace, output_vars: list[int]) -> list[int]:
    """Program variables in order of first use; ``y_j`` right after the last variable of ``o_j``."""
    last = trace.circuit.last_var(trace.output_roots)
    keys = {v: (v, 0, 0) for v in range(trace.circuit.num_vars)}
    for j, (y, after) in enumerate(zip(output_vars, last)):
        keys[y] = (after, 1, j)
    return sorted(keys, key=keys.__getitem__)


def _compile_gates(trace: Trace, be: Any) -> list[Any]:
    """Backend nodes for the output bits, built gate by gate (children before parents)."""
    gates = trace.circuit.gates
    needed: set[int] = set()
    stack = list(trace.output_roots)
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        if gates[node][0] in (NOT, AND, OR, XOR):
            stack.extend(gates[node][1:])
    built: dict[int, Any] = {FALSE: be.false, TRUE: be.true}
    for count, node in enumerate(sorted(needed)):
        if count % 256 == 0:
            check("compilation", be.node_count() if watching_nodes() else None)
        if node in built:
            continue
        gate = gates[node]
        op = gate[0]
        if op == VAR:
            built[node] = be.var(gate[1])
        elif op == NOT:
            built[node] = be.negate(built[gate[1]])
        elif op == AND:
            built[node] = be.conj(built[gate[1]], built[gate[2]])
        elif op == OR:
            built[node] = be.disj(built[gate[1]], built[gate[2]])
        elif op == XOR:
            built[node] = be.xor(built[gate[1]], built[gate[2]])
        else:  # pragma: no cover - the circuit only makes the gates above
            raise AssertionError(f"unknown gate {gate!r}")
    return [built[r] for r in trace.output_roots]


def compile_program(program: Program, backend: str = "bdd") -> Compiled:
    """Trace ``program`` and compile its WBF ``phi`` into a BDD (default) or an SDD."""
    if backend not in BACKENDS:
        raise WmcdpError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    start = time.perf_counter()
    trace = program.trace()
    first_output = trace.circuit.num_vars
    output_vars = [first_output + j for j in range(len(trace.output_roots))]
    order = _variable_order(trace, output_vars)
    be = BACKENDS[backend](order)
    outputs = _compile_gates(trace, be)
    level = {v: i for i, v in enumerate(order)}
    phi = be.true
    for j in sorted(range(len(outputs)), key=lambda j: level[output_vars[j]], reverse=True):
        phi = be.conj(phi, be.negate(be.xor(be.var(output_vars[j]), outputs[j])))
        check("compilation", be.node_count() if watching_nodes() else None)
    return Compiled(program, trace, be, phi, output_vars, outputs, order, time.perf_counter() - start)


__all__ = ["Compiled", "compile_program", "BACKENDS"]
