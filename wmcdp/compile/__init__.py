"""Knowledge compilation: a traced program becomes one decision diagram, compiled once.

The compiled diagram is the weighted Boolean formula of paper Def. 3,

    phi(x, y, theta) = AND_j ( y_j <-> o_j(x, theta) ),

over unweighted input bits ``x``, output bits ``y`` and weighted random bits ``theta``,
so that ``WMC(phi | x, y) = P(A(x) = y)``. Inputs stay symbolic: each concrete input is
a cofactor of the same diagram, or one element of a batch counted in one traversal.
Variables follow the program's order of first use. The bits of each output value sit
together, most significant first, right below the last variable any of them reads —
except when the whole output is one Int: then its bits sit on top, above every
variable it reads, and ``phi`` is the decision tree over the output bits whose leaf for
value ``v`` is the guard ``[A(x, theta) = v]`` (:func:`_value_tree`). The guards of a
sum share their sub-diagrams, so the sum of n bits compiles in O(n^2) operations and
every node below the output bits counts one number per input instead of a vector over
all outputs.

Backends (:mod:`.bdd`, :mod:`.sdd`) share one small interface: ``var``, ``conj``,
``disj``, ``negate``, ``xor``, ``condition``, ``size``, ``shared_size``, ``node_count`` and
``min_path_log2``. Counting the compiled diagram is the next layer's (:mod:`wmcdp.count.probabilities`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..base import progress
from ..base.errors import WmcdpError
from ..base.limits import check, watching_nodes
from ..base.numbers import is_symbolic
from ..lang.circuit import FALSE, NOT, TRUE, VAR
from ..lang.program import Program, Trace, Vector
from ..lang.shape import leaves
from .bdd import BDDBackend
from .flat import Flat, Group, min_path_log2
from .sdd import SDDBackend
from .support import Support, output_support

#: the knowledge compilers by name; both offer the same duck-typed node operations
BACKENDS: dict[str, Any] = {"bdd": BDDBackend, "sdd": SDDBackend}


@dataclass
class Compiled:
    """A program compiled once: its diagram ``phi`` and how to condition it."""

    program: Program
    trace: Trace
    backend: Any
    phi: Any
    output_vars: list[int]  # variable id of each output bit y_j
    order: list[int]  # variable ids from the top level down
    compile_seconds: float = 0.0
    exact_floats: bool = False  # float probabilities were read as their exact binary64 values
    _size: int | None = field(default=None, repr=False)
    memo: dict[str, Any] = field(default_factory=dict, repr=False)  # facts later layers derive once per program

    @cached_property
    def outputs(self) -> list[Any]:
        """The output-bit functions ``o_j(x, theta)`` (built on first use when ``phi`` came from the value guards)."""
        return _compile_gates(self.trace, self.backend, self.trace.output_roots)

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
        size: int = self.backend.shared_size([self.backend.condition(o, assignment) for o in self.outputs])
        return size

    @property
    def outputs_on_top(self) -> bool:
        """True when the output bits are the top levels of ``phi`` (one Int output, :func:`_value_tree`)."""
        return self.trace.output_guards is not None

    @property
    def shape(self) -> Any:  # a Shape; callers read the fields of its kind (an IntShape's lo, ...)
        return self.trace.shape

    @property
    def domain(self) -> Vector:
        return self.program.inputs

    def input_assignment(self, x: tuple[int, ...]) -> dict[int, bool]:
        return self.trace.input_assignment(self.program.inputs, x)

    def output_assignment(self, bits: list[int]) -> dict[int, bool]:
        return {v: bool(b) for v, b in zip(self.output_vars, bits)}

    # -- groups: the bits of each input entry and of each output value --------------------
    @cached_property
    def input_groups(self) -> list[Group]:
        """One group per input entry (no variables for an entry the program never reads)."""
        k = len(self.domain.entry_values)
        return [Group(tuple(self.trace.input_bits.get(i, ())), k) for i in range(self.domain.n)]

    @cached_property
    def output_groups(self) -> list[Group]:
        """One group per Bool or Int part of the output, in output order."""
        groups, j = [], 0
        for leaf in leaves(self.shape):
            groups.append(Group(tuple(self.output_vars[j : j + leaf.width]), leaf.size))
            j += leaf.width
        return groups

    # -- counting ---------------------------------------------------------------------------
    @property
    def weights(self) -> dict[int, Any]:  # variable -> BitWeight (numbers, reals or functions of a parameter)
        return self.trace.circuit.weights

    @cached_property
    def flat(self) -> Flat:
        """``phi`` flattened (BDD backend only)."""
        flat: Flat = self.backend.flatten(self.phi)
        return flat

    @cached_property
    def support(self) -> Support | None:
        """The outputs some valid input can produce (:func:`.support.output_support`: counted on first use, not
        listed); None for an SDD."""
        return output_support(self)

    @cached_property
    def random_support(self) -> list[int]:
        """The random variables ``phi`` depends on, from the top level down."""
        support = self.flat.support if self.backend.name == "bdd" else set(self.weights)
        return [v for v in self.order if v in support and v in self.weights]

    def refuse_symbolic(self) -> None:
        """A run that needs numbers for the weights refuses a symbolic parameter in one clear line."""
        if self.symbolic is not None:
            raise WmcdpError(
                f"a bound as a function of {self.symbolic.name} is computed for pure epsilon, accuracy and delta "
                "at a rational e^epsilon; this run needs a number for the parameter"
            )

    @cached_property
    def _denominators(self) -> list[int]:
        self.refuse_symbolic()
        return [
            math.lcm(w.one.denominator, w.zero.denominator) for w in map(self.weights.__getitem__, self.random_support)
        ]

    @cached_property
    def denominator(self) -> int:
        """``D``: the product of the denominators of the random bits of ``phi`` (exact counts are numerators over D)."""
        return math.prod(self._denominators)

    def _denominator_bits(self) -> int:
        """About the bit length of :attr:`denominator`, without forming it."""
        return sum(d.bit_length() for d in self._denominators)

    @cached_property
    def min_path_log2(self) -> float:
        self.refuse_symbolic()
        if self.backend.name == "bdd":
            return min_path_log2(self.flat, self.weights)
        log2: float = self.backend.min_path_log2(self.phi, self.weights)
        return log2

    @cached_property
    def symbolic(self) -> Any:
        """The symbolic parameter some weight depends on (:mod:`wmcdp.notions.piecewise`), or None."""
        for w in self.weights.values():
            for f in (w.one, w.zero):
                if is_symbolic(f):
                    return f.parameter
        return None

    @cached_property
    def _skip_products(self) -> list[int]:
        """``prefix[l]``: the product of the denominators of the random bits of ``phi`` above level ``l``."""
        level_d = {self.backend.level_of(v): d for v, d in zip(self.random_support, self._denominators)}
        prefix, d = [], 1
        for level in range(self.backend.levels + 1):
            prefix.append(d)
            d *= level_d.get(level, 1)
        return prefix


def _variable_order(trace: Trace, output_vars: list[int]) -> list[int]:
    """Program variables in order of first use (a variable drawn after its place, in its place:
    :meth:`wmcdp.lang.circuit.Circuit.rank`); the bits of each output value together, most
    significant first, right after the last variable any of them reads (on top when the output is
    one Int, see :func:`_value_tree`)."""
    if trace.output_guards is not None:  # above every variable phi reads (the others are not in phi)
        return output_vars + list(range(trace.circuit.num_vars))
    rank = trace.circuit.rank
    keys = {v: rank(v) for v in range(trace.circuit.num_vars)}
    last = trace.circuit.last_var(trace.output_roots)
    j = 0
    for leaf in leaves(trace.shape):
        after = max(last[j : j + leaf.width], default=-1, key=rank)
        for k in range(j, j + leaf.width):
            keys[output_vars[k]] = (*rank(after), -1, k)
        j += leaf.width
    return sorted(keys, key=keys.__getitem__)


def _value_tree(be: Any, guards: dict[int, Any], output_vars: list[int]) -> Any:
    """``phi`` of a program whose output is one Int, from its value guards (paper Def. 3 regrouped):

        phi = OR_v ( [y = code(v)] AND [A(x, theta) = v] ),

    built as the decision tree over the output bits (most significant first), whose leaf for
    code ``c`` is the guard of that value (FALSE for codes no value has). The guards are
    mutually exclusive and exhaustive, so this is the same function as ``AND_j (y_j <-> o_j)``.
    """
    nodes = [guards.get(code, be.false) for code in range(1 << len(output_vars))]
    for v in reversed(output_vars):  # one output bit at a time, from the least significant up
        y, not_y = be.var(v), be.negate(be.var(v))
        nodes = [
            be.false if high is be.false and low is be.false else be.disj(be.conj(y, high), be.conj(not_y, low))
            for low, high in zip(nodes[0::2], nodes[1::2])
        ]
    return nodes[0]


#: the most operations (CUDD computed-table lookups, about a microsecond each: 0.7-0.9 us on sparse vector,
#: n = 100 and 200, 1.5 us on RR counting, n = 1000) a compilation may be estimated to take: about a minute
MAX_COMPILE_LOOKUPS = 1 << 26
#: gates below which a compilation is never extrapolated (its work is small whatever it grows like)
EXTRAPOLATED_GATES = 1 << 12


class _Extrapolation:
    """The work a gate-by-gate compilation will take, extrapolated from the operations counted so far
    (:meth:`~wmcdp.compile.base.OperatorBackend.lookups`) each time the gates built double from 1/32 of them:
    ``W(1) = W(f) (1/f)^p`` with ``p = log2(W(f) / W(f/2))`` clamped to ``[1, 2]`` (work linear in the gates
    built, up to a chain whose every gate's diagram spans the entries before it). A compilation estimated past
    its ``limit`` (:data:`MAX_COMPILE_LOOKUPS` unless the caller gives less) is refused (a :class:`WmcdpError`
    naming the sizes) after 1/256 or less of its work on such a chain; backends that count no operations are
    never refused. CUDD's count varies a little between runs (its cache is hashed on node addresses), so a
    compilation estimated within a few percent of the limit may be refused in one run and not in another."""

    def __init__(self, trace: Trace, be: Any, gates: int, limit: int | None = None) -> None:
        self.trace, self.be, self.gates = trace, be, gates
        self.limit = MAX_COMPILE_LOOKUPS if limit is None else limit
        start = be.lookups() if gates >= EXTRAPOLATED_GATES else None
        self.start: int | None = start
        self.last: int | None = None  # the work at the previous checkpoint
        self.next = gates // 32  # the gates built at the next checkpoint

    def at(self, built: int) -> None:
        """Check the estimate once ``built`` gates are built, when that passes the next checkpoint."""
        if self.start is None or built < self.next or self.next * 2 > self.gates:
            return
        done = self.be.lookups() - self.start
        fraction = built / self.gates
        if self.last is not None and self.last > 0 and done > 0:
            power = min(2.0, max(1.0, math.log2(done / self.last)))
            estimate = done * fraction**-power
            if estimate > self.limit:
                entries = len(self.trace.input_bits)
                raise WmcdpError(
                    f"compiling this program ({entries} entries read, {self.gates} gates) would take about "
                    f"{estimate:.2g} diagram operations (limit {self.limit:.2g}); use fewer entries"
                )
        self.last, self.next = done, built * 2


def _compile_gates(trace: Trace, be: Any, roots: list[int], limit: int | None = None) -> list[Any]:
    """Backend nodes for the circuit nodes ``roots``, built gate by gate (children before parents); refused
    early when the work extrapolated from the first gates is past ``limit`` (default :data:`MAX_COMPILE_LOOKUPS`,
    :class:`_Extrapolation`)."""
    gates = trace.circuit.gates
    top = max(roots, default=TRUE)
    needed = bytearray(top + 1)  # marked from the roots down (a gate's children come before it)
    for r in roots:
        needed[r] = 1
    for node in range(top, TRUE, -1):
        if needed[node] and gates[node][0] != VAR:
            for child in gates[node][1:]:
                needed[child] = 1
    built: dict[int, Any] = {FALSE: be.false, TRUE: be.true}
    operators, negate, var = be.operators(), be.negate, be.var
    order = [i for i in range(2, top + 1) if needed[i]]
    work = _Extrapolation(trace, be, len(order), limit)
    with be.guarded():
        for count, node in enumerate(order):
            if count % 256 == 0:
                check("compilation", be.node_count() if watching_nodes() else None)
                work.at(count)
            gate = gates[node]
            if gate[0] == VAR:
                built[node] = var(gate[1])
            elif gate[0] == NOT:
                built[node] = negate(built[gate[1]])
            else:
                built[node] = operators[gate[0]](built[gate[1]], built[gate[2]])
    return [built[r] for r in roots]


def compile_program(program: Program, backend: str = "bdd", *, exact_floats: bool = False) -> Compiled:
    """Trace ``program`` and compile its WBF ``phi`` into a BDD (default) or an SDD.

    ``exact_floats`` reads every float probability as the exact rational value of its
    binary64 (a mechanism that samples ``Bernoulli(0.8)`` exactly on the stored double).
    """
    if backend not in BACKENDS:
        raise WmcdpError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if not isinstance(program, Program):
        raise WmcdpError(f"expected a wmcdp Program, got {type(program).__name__}")
    start = time.perf_counter()
    trace = program.trace(exact_floats=exact_floats)
    return compile_trace(program, trace, backend, exact_floats=exact_floats, start=start)


def compile_trace(
    program: Program,
    trace: Trace,
    backend: str = "bdd",
    *,
    exact_floats: bool = False,
    start: float | None = None,
    limit: int | None = None,
) -> Compiled:
    """Compile an already traced program (``trace``; e.g. one independent part of a program's trace), refused
    early when its diagram operations are estimated past ``limit`` (default :data:`MAX_COMPILE_LOOKUPS`,
    :class:`_Extrapolation`)."""
    if backend not in BACKENDS:
        raise WmcdpError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    start = time.perf_counter() if start is None else start
    progress.phase("compiling", f"{program.name}, {trace.circuit.num_vars} variables, {backend}")
    first_output = trace.circuit.num_vars
    output_vars = [first_output + j for j in range(len(trace.output_roots))]
    order = _variable_order(trace, output_vars)
    be = BACKENDS[backend](order)
    if trace.output_guards is not None:
        codes = list(trace.output_guards)
        built = _compile_gates(trace, be, [trace.output_guards[c] for c in codes], limit)
        phi = _value_tree(be, dict(zip(codes, built)), output_vars)
        check("compilation", be.node_count() if watching_nodes() else None)
        return Compiled(program, trace, be, phi, output_vars, order, time.perf_counter() - start, exact_floats)
    outputs = _compile_gates(trace, be, trace.output_roots, limit)
    level = {v: i for i, v in enumerate(order)}
    phi = be.true
    for j in sorted(range(len(outputs)), key=lambda j: level[output_vars[j]], reverse=True):
        phi = be.conj(phi, be.negate(be.xor(be.var(output_vars[j]), outputs[j])))
        check("compilation", be.node_count() if watching_nodes() else None)
    compiled = Compiled(program, trace, be, phi, output_vars, order, time.perf_counter() - start, exact_floats)
    compiled.outputs = outputs  # already built: the cached property takes them
    return compiled


__all__ = ["Compiled", "compile_program", "compile_trace", "BACKENDS", "MAX_COMPILE_LOOKUPS"]
