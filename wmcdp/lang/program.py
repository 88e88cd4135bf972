"""Programs: declared input domains, a body written in the DSL, and tracing.

A :class:`Program` couples a Python function (the mechanism) with the finite domain of
its inputs, its parameters, its natural neighbour relation and, for accuracy, its target
``V_x``. :meth:`Program.trace` runs the body once on *symbolic* inputs and returns the
weighted Boolean formula of the mechanism together with the encodings of inputs and
outputs.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..errors import WmcdpError
from ..numbers import Number
from .circuit import FALSE, TRUE, Circuit
from .shape import Shape, format_value, shape_of
from .values import Bool, Int, tracing

Value = Any  # a concrete input or output: int, or a tuple of them


def _width(size: int) -> int:
    """Bits needed to number ``size`` values (0 for a single value)."""
    return max(size - 1, 0).bit_length()


@dataclass(frozen=True)
class Vector:
    """Input domain ``{lo..hi}^n``; with ``lo, hi = 0, 1`` the entries are Bools (bits)."""

    n: int
    lo: int = 0
    hi: int = 1

    def __post_init__(self) -> None:
        if self.n < 1:
            raise WmcdpError(f"an input vector needs at least one entry, got n = {self.n}")
        if self.lo > self.hi:
            raise WmcdpError(f"input range {self.lo}..{self.hi} is empty")

    @property
    def is_bits(self) -> bool:
        return (self.lo, self.hi) == (0, 1)

    @property
    def entry_values(self) -> range:
        return range(self.lo, self.hi + 1)

    @property
    def size(self) -> int:
        return len(self.entry_values) ** self.n

    def values(self) -> Iterator[tuple[int, ...]]:
        """Every input, in lexicographic order."""
        return itertools.product(self.entry_values, repeat=self.n)

    def check(self, x: object) -> tuple[int, ...]:
        """``x`` as a tuple in this domain, or a clear error."""
        try:
            t = tuple(int(v) for v in x)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise WmcdpError(f"input {x!r} is not a sequence of {self.n} integers") from None
        if len(t) != self.n or any(not self.lo <= v <= self.hi for v in t):
            raise WmcdpError(f"input {format_value(t)} is outside the domain {self.describe()}")
        return t

    def describe(self) -> str:
        return f"{{0,1}}^{self.n}" if self.is_bits else f"{{{self.lo}..{self.hi}}}^{self.n}"


def Bits(n: int) -> Vector:
    """Input domain ``{0,1}^n``."""
    return Vector(n, 0, 1)


def IntVector(n: int, lo: int, hi: int) -> Vector:
    """Input domain ``{lo..hi}^n``."""
    return Vector(n, lo, hi)


class SymbolicInput(Sequence):
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

    def __getitem__(self, i):  # type: ignore[override]
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
    input_bits: dict[int, list[int]]     # entry index -> input variable ids, MSB first
    shape: Shape
    output_roots: list[int]              # circuit node of each output bit, in shape order

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
    body: Callable[[Sequence], object]
    params: Mapping[str, Any] = field(default_factory=dict)
    neighbours: str = "hamming"
    target: Callable[[tuple[int, ...]], Number] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        from ..sets import NEIGHBOURS  # sets builds on programs' domains

        if self.neighbours not in NEIGHBOURS:
            raise WmcdpError(f"program {self.name} declares the unknown neighbour relation {self.neighbours!r}; "
                             f"choose one of {', '.join(NEIGHBOURS)}")
        if not isinstance(self.inputs, Vector):
            raise WmcdpError(f"program {self.name}: inputs must be Bits(n) or IntVector(n, lo, hi)")

    def trace(self) -> Trace:
        circuit = Circuit()
        x = SymbolicInput(self.inputs, circuit)
        with tracing(circuit):
            result = self.body(x)
            shape, roots = shape_of(result, circuit)
        var_of = {node: v for v, node in enumerate(circuit.var_node)}
        input_bits = {i: [var_of[n] for n in nodes] for i, nodes in sorted(x.entry_nodes.items())}
        return Trace(circuit, input_bits, shape, roots)

    def run(self, x: tuple[int, ...], rng: random.Random) -> Value:
        """One concrete execution on input ``x``, drawing random choices from ``rng``.

        The body runs under the same DSL semantics as compilation, on constants: every
        gate folds, and the output decodes from its constant bits.
        """
        x = self.inputs.check(x)
        circuit = Circuit(rng)
        with tracing(circuit):
            entries = [Bool(TRUE if v else FALSE) if self.inputs.is_bits else Int.const(v) for v in x]
            shape, roots = shape_of(self.body(tuple(entries)), circuit)
        return shape.decode([1 if r == TRUE else 0 for r in roots])

    def label(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({args})"


__all__ = ["Bits", "IntVector", "Vector", "Program", "Trace", "SymbolicInput"]
