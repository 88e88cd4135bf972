"""Programs: declared input domains, a body written in the DSL, and tracing.

A :class:`Program` couples a Python function (the mechanism) with the finite domain of
its inputs, its parameters, its natural neighbour relation and, for accuracy, its target
``V_x``. :meth:`Program.trace` runs the body once on *symbolic* inputs and returns the
weighted Boolean formula of the mechanism together with the encodings of inputs and
outputs.
"""

from __future__ import annotations

import itertools
import math
import random
import sysconfig
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..base import progress
from ..base.errors import USER_FAILURES, WmcdpError, brief, suggest
from ..base.limits import LimitExceeded
from ..base.numbers import Number
from .circuit import FALSE, TRUE, Circuit
from .domain import MAX_ENTRIES as MAX_ENTRIES  # re-exported: its home before domain.py
from .domain import Vector
from .relations import NEIGHBOURS, Relation
from .releases import increments
from .shape import Shape, shape_of
from .unbounded import UnboundedDraw
from .values import Bool, Int, tracing

Value = Any  # a concrete input or output: int, or a tuple of them


@dataclass(frozen=True)
class OutputProduct:
    """A declaration of outputs (:attr:`Program.outputs`) never listed: every tuple whose part ``j`` takes one of
    ``values[j]`` (``OutputProduct(((0, 1),) * n)``: every sequence of n codes 0 and 1). Iterating it lists the
    tuples; a windowed run checks it part by part and, past a few thousand tuples, bounds its smallest probability
    without listing it when the outputs factor by entry (:mod:`wmcdp.plan.hub.smallest`)."""

    values: tuple[tuple[Value, ...], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(tuple(v) for v in self.values))

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        return iter(itertools.product(*self.values))

    def __len__(self) -> int:
        return math.prod(len(v) for v in self.values)


def _width(size: int) -> int:
    """Bits needed to number ``size`` values (0 for a single value)."""
    return max(size - 1, 0).bit_length()


def Bits(n: int) -> Vector:
    """Input domain ``{0,1}^n``."""
    return Vector(n, 0, 1)


def IntVector(n: int, lo: int, hi: int) -> Vector:
    """Input domain ``{lo..hi}^n``."""
    return Vector(n, lo, hi)


class SymbolicInput(Sequence[Any]):
    """The program's input during tracing; entry ``i`` gets its variables when first read.

    Creating input variables on first use interleaves each entry with the noise drawn for
    it, the variable order that keeps diagrams of per-entry mechanisms linear.
    """

    def __init__(self, domain: Vector, circuit: Circuit) -> None:
        self._domain = domain
        self._circuit = circuit
        self._entries: dict[int, Bool | Int] = {}
        self.entry_nodes: dict[int, list[int]] = {}  # entry -> its input variable nodes, MSB first

    def __len__(self) -> int:
        return self._domain.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        if not -len(self) <= i < len(self):
            raise IndexError(f"input index {i} out of range for {len(self)} entries")
        i %= len(self)
        if i not in self._entries:
            self._entries[i] = self._make_entry(i)
        return self._entries[i]

    def _make_entry(self, i: int) -> Bool | Int:
        d, c = self._domain, self._circuit
        nodes = [c.input_var() for _ in range(_width(len(d.entry_values)))]
        self.entry_nodes[i] = nodes
        if d.is_bits:
            return Bool(nodes[0])
        guards = {}
        for offset, v in enumerate(d.entry_values):
            bits = [(offset >> (len(nodes) - 1 - k)) & 1 for k in range(len(nodes))]
            guards[v] = c.all(node if b else c.negate(node) for node, b in zip(nodes, bits))
        return Int(guards)


@dataclass
class Trace:
    """What tracing a program yields: the WBF and how inputs and outputs are encoded."""

    circuit: Circuit
    input_bits: dict[int, list[int]]  # entry index -> input variable ids, MSB first
    shape: Shape
    output_roots: list[int]  # circuit node of each output bit, in shape order
    #: for a program whose output is one Int: its guard node per value code (value - lo); else None
    output_guards: dict[int, int] | None = None
    #: set when this trace's output leaves are the terms of the sum the program returns, but for constant
    #: terms (each term traced alone, their total never formed, :meth:`Program.trace` with ``terms=True``):
    #: gives the program's own trace, in the same circuit
    total: Callable[[], Trace] | None = None

    def input_assignment(self, domain: Vector, x: tuple[int, ...]) -> dict[int, bool]:
        """Variable id -> value for the input ``x`` (only entries the program read)."""
        if domain.is_bits:
            return {var_ids[0]: x[i] == 1 for i, var_ids in self.input_bits.items()}
        out: dict[int, bool] = {}
        for i, var_ids in self.input_bits.items():
            offset = x[i] - domain.lo
            for k, v in enumerate(var_ids):
                out[v] = bool((offset >> (len(var_ids) - 1 - k)) & 1)
        return out


@dataclass
class Program:
    """A mechanism ``A : X -> Y`` written in the DSL.

    ``body`` receives the symbolic input (a sequence of Bools for bit vectors, of Ints
    otherwise) and returns a Bool, an Int, or a tuple/list of them.
    """

    name: str
    inputs: Vector
    body: Callable[[Sequence[Any]], object]
    params: Mapping[str, Any] = field(default_factory=dict)
    neighbours: Any = "hamming"  # a relation's name, a wmcdp.lang.relations.Relation, or a function
    target: Callable[[tuple[int, ...]], Number] | None = None
    description: str = ""
    source: str = ""  # how to build it again: a built-in name or FILE.py:FUNC (set by the registry)
    #: every output the program can give on any input at any noise value (a superset is fine), or None: the
    #: author's claim, argued from the program's logic, that the others are impossible, so a windowed pure-ε
    #: bracket needs only these reached (each window checks that they hold all of its probability); an
    #: :class:`OutputProduct` declares a product of per-part values without listing it
    outputs: Callable[[], Iterable[Value]] | None = None
    #: the law of a shared-noise program, as its author declares it (:mod:`wmcdp.lang.shared_noise`): a sparse
    #: vector's noisy threshold shared by every entry's noisy comparison, or a report noisy max; checked against the
    #: program in windows before an alignment bound for every n is made from it (:mod:`wmcdp.notions.alignment`)
    shared_noise: Any = None

    def __post_init__(self) -> None:

        if isinstance(self.neighbours, str) and self.neighbours not in NEIGHBOURS:
            near = suggest(self.neighbours, NEIGHBOURS)
            raise WmcdpError(
                f"program {self.name} declares the unknown neighbour relation {brief(repr(self.neighbours))}; "
                f"{near + ' ' if near else ''}choose one of {', '.join(NEIGHBOURS)}"
            )
        if not isinstance(self.neighbours, (str, Relation)) and not callable(self.neighbours):
            raise WmcdpError(
                f"program {self.name}: neighbours must be a relation's name, a Relation or a function, "
                f"got {self.neighbours!r}"
            )
        if not isinstance(self.inputs, Vector):
            raise WmcdpError(f"program {self.name}: inputs must be Bits(n) or IntVector(n, lo, hi)")

    def trace(self, *, exact_floats: bool = False, terms: bool = False) -> Trace:
        """Run the body on symbolic inputs; ``exact_floats`` reads float probabilities as exact binary64 values.

        With ``terms``, a body that returns a sum of Ints whose total it never read, at least two of them not
        constant, gives the trace of the tuple of those terms instead (constant terms left out: they shift
        the total by one amount; the total not formed: a sum of ``n`` terms costs ``O(n^2)`` gates), with
        :attr:`Trace.total` to form the program's own trace when it is needed."""
        progress.phase("tracing", self.name)
        circuit = Circuit(exact_floats=exact_floats)
        x = SymbolicInput(self.inputs, circuit)
        with tracing(circuit):
            result = self._call(x)
        summands = result.terms if terms and isinstance(result, Int) else None
        varying = tuple(t for t in summands or () if len(t.guards) > 1)
        if len(varying) > 1:
            return replace(_traced(circuit, x, varying), total=lambda: _traced(circuit, x, result))
        return _traced(circuit, x, result)

    def run(self, x: tuple[int, ...], rng: random.Random) -> Value:
        """One concrete execution on input ``x``, drawing random choices from ``rng``.

        The body runs under the same DSL semantics as compilation, on constants: every
        gate folds, and the output decodes from its constant bits.
        """
        x = self.inputs.check(x)
        circuit = Circuit(rng)
        with tracing(circuit):
            entries = [Bool(TRUE if v else FALSE) if self.inputs.is_bits else Int.const(v) for v in x]
            shape, roots = shape_of(self._call(tuple(entries)), circuit)
        return shape.decode([1 if r == TRUE else 0 for r in roots])

    def _call(self, x: Sequence[Any]) -> object:
        """The body on ``x``; any error it raises becomes one line naming the program and the line of its code."""
        try:
            return self.body(x)
        except (LimitExceeded, KeyboardInterrupt, MemoryError, UnboundedDraw):  # a windowed run takes over
            raise
        except USER_FAILURES as exc:
            where = _user_frame(exc)
            problem = str(exc) if isinstance(exc, WmcdpError) else f"{type(exc).__name__}: {exc}"
            raise WmcdpError(f"program {self.name} failed{where}: {problem}") from None

    def label(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({args})"


def _traced(circuit: Circuit, x: SymbolicInput, result: object) -> Trace:
    """The trace of a body's ``result`` in ``circuit`` (``x``: the symbolic input the body read)."""
    with tracing(circuit):
        result = increments(result)
        shape, roots = shape_of(result, circuit)
    var_of = {node: v for v, node in enumerate(circuit.var_node)}
    input_bits = {i: [var_of[n] for n in nodes] for i, nodes in sorted(x.entry_nodes.items())}
    guards = {v - result.lo: g for v, g in result.guards.items()} if isinstance(result, Int) else None
    return Trace(circuit, input_bits, shape, roots, guards)


_PACKAGE = Path(__file__).resolve().parent.parent
_LIBRARIES = tuple(
    Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib") if (p := sysconfig.get_paths().get(key))
)


def _user_frame(exc: BaseException) -> str:
    """`` at file:line`` of the innermost frame of the traceback in the user's code ('' if none).

    The user's code is what is neither wmcdp nor the standard library (its frozen modules too) nor an installed
    package; failing that, the innermost frame outside wmcdp.
    """
    user = outside = ""
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename.startswith("<frozen "):  # the standard library's frozen modules
            continue
        path = Path(frame.f_code.co_filename).resolve()
        if path.is_relative_to(_PACKAGE):
            continue
        outside = f" at {frame.f_code.co_filename}:{line}"
        if not any(path.is_relative_to(lib) for lib in _LIBRARIES):
            user = outside
    return user or outside


__all__ = ["Bits", "IntVector", "Vector", "Program", "Trace", "SymbolicInput"]
