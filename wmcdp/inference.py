"""Algorithm 1 (INFERENCE): ``M(x, y) = WMC(phi | (x, y))`` for every pair of an inference set.

The program is compiled once (:func:`wmcdp.compile.compile_program`). Then, by how
much of the joint space ``X x Y`` the inference set asks for:

* *joint*: one traversal of ``phi`` with every input and output bit as a numpy axis
  yields ``P(y | x)`` for all inputs and outputs at once (small programs, large ``I``);
* *per input*: the diagram is conditioned on ``x`` once and one traversal with the
  output bits as axes yields the whole output distribution of ``x``; or
* *per pair*: ``phi`` conditioned on ``y`` (kept for reuse) is conditioned on ``x`` and
  counted as a scalar (large outputs, few pairs: symmetry sets).

All share one cache of the counts of sub-diagrams without free variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .compile import Compiled, compile_program
from .errors import WmcdpError
from .lang.program import Program, Value
from .limits import check
from .numbers import format_number, is_exact
from .sets import InferenceSet
from .wmc import CountContext, ExactSemiring, LogSemiring, Semiring

#: a whole-distribution pass is used when 2^bits <= DENSE_RATIO * (entries asked for)
DENSE_RATIO = 64
#: the joint pass over inputs and outputs is used up to this many free bits (float, exact) ...
JOINT_MAX_BITS = {False: 24, True: 14}
#: ... and, past 20 bits, only when the backend estimates its arrays at most this many bytes
JOINT_MAX_BYTES = 1 << 29
#: ... and the output has at most this many bits
DENSE_MAX_BITS = 22


def as_compiled(prog: Program | Compiled, backend: str = "bdd") -> Compiled:
    """Accept a program or an already compiled one."""
    if isinstance(prog, Compiled):
        return prog
    if isinstance(prog, Program):
        return compile_program(prog, backend)
    raise WmcdpError(f"expected a wmcdp Program, got {type(prog).__name__}")


def choose_semiring(compiled: Compiled, exact: bool | None) -> Semiring:
    """Exact rationals when every random choice has a rational weight (or when asked)."""
    floats = [p for p in compiled.trace.circuit.weights.values() if not is_exact(p)]
    if exact is None:
        return LogSemiring if floats else ExactSemiring
    if exact and floats:
        raise WmcdpError(f"exact arithmetic needs rational parameters, but a random choice has the float "
                         f"probability {format_number(floats[0])}; give parameters as fractions such as '1/5'")
    return ExactSemiring if exact else LogSemiring


@dataclass
class ProbabilityTable:
    """The matrix ``M`` of Algorithm 1, in the semiring's representation (logs or fractions)."""

    semiring: Semiring
    rows: dict[Value, tuple[tuple, np.ndarray]]

    def row(self, x: Value, ys: tuple) -> np.ndarray:
        """``M(x, y)`` for ``y`` in ``ys`` (all must be in the inference set)."""
        have, values = self.rows[x]
        if have is ys or have == ys:
            return values
        index = {y: k for k, y in enumerate(have)}
        return values[[index[y] for y in ys]]

    def probability(self, x: Value, y: Value) -> Any:
        """``P(y | x)`` as a float or Fraction."""
        return self.semiring.to_prob(self.row(x, (y,))[0])

    def items(self) -> Iterable[tuple[Value, Value, Any]]:
        for x, (ys, values) in self.rows.items():
            for y, v in zip(ys, values):
                yield x, y, self.semiring.to_prob(v)


class Counter:
    """Conditioning and counting on one compiled program."""

    def __init__(self, compiled: Compiled, semiring: Semiring) -> None:
        self.compiled = compiled
        self.semiring = semiring
        weights = compiled.trace.circuit.weights
        self.scalar_ctx = CountContext(semiring, weights, {})
        self.dense_ctx = None
        if compiled.shape.width <= DENSE_MAX_BITS:
            axes = {v: j for j, v in enumerate(compiled.output_vars)}
            self.dense_ctx = CountContext(semiring, weights, axes, cache=self.scalar_ctx.cache)
        self._bits: dict[Value, list[int] | None] = {}
        self._phi_y: dict[Value, Any] = {}
        self._columns: dict[int, tuple[tuple, list, np.ndarray]] = {}

    def distribution(self, phi_x: Any) -> np.ndarray:
        """``P(y | x)`` for every output code ``y`` in one traversal (MSB of the code = y_0)."""
        ctx = self.dense_ctx
        value = self.compiled.backend.wmc(phi_x, ctx)
        ctx.clear_arrays()
        return ctx.full(value)

    def joint_rows(self, I: InferenceSet) -> dict[Value, tuple[tuple, np.ndarray]] | None:
        """Every row of ``I`` from one traversal over all input and output bits, when that is cheap."""
        c, sr = self.compiled, self.semiring
        inputs = sorted(v for bits in c.trace.input_bits.values() for v in bits)
        free = len(inputs) + c.shape.width
        if free > JOINT_MAX_BITS[sr.exact] or (1 << free) > DENSE_RATIO * len(I):
            return None
        if free > 20:
            cells = c.backend.array_cells(c.phi, inputs + c.output_vars)
            if cells is None or 16 * cells > JOINT_MAX_BYTES:  # two float64 arrays per node
                return None
        axes = {v: k for k, v in enumerate(inputs + c.output_vars)}
        ctx = CountContext(sr, c.trace.circuit.weights, axes, cache=self.scalar_ctx.cache)
        value = c.backend.wmc(c.phi, ctx)
        ctx.clear_arrays()
        table = ctx.full(value)
        rows = {}
        for x, ys in I.by_input.items():
            check("inference")
            assignment = c.input_assignment(c.domain.check(x))
            offset = _code_index([int(assignment[v]) for v in inputs]) << c.shape.width
            rows[x] = (ys, self._pick(table, self.columns(ys)[1], offset))
        return rows

    def _pick(self, table: np.ndarray, slots: np.ndarray, offset: int = 0) -> np.ndarray:
        """``table[offset + slot]`` for each slot, and zero where the slot is -1 (not an output)."""
        out = table[np.where(slots < 0, 0, slots + offset)]
        out[slots < 0] = self.semiring.zero
        return out

    def phi_given(self, y: Value, bits: list[int]) -> Any:
        """``phi | y``, kept for reuse across inputs."""
        phi_y = self._phi_y.get(y)
        if phi_y is None:
            c = self.compiled
            phi_y = self._phi_y[y] = c.backend.condition(c.phi, c.output_assignment(bits))
        return phi_y

    def columns(self, ys: tuple) -> tuple[list, np.ndarray]:
        """Output bits of each ``y`` (None: the program cannot output it) and its code, the slot
        in a whole-distribution vector (-1: not an output); cached per tuple."""
        cached = self._columns.get(id(ys))
        if cached is None or cached[0] is not ys:
            shape, known = self.compiled.shape, self._bits
            for y in ys:
                if y not in known:
                    known[y] = shape.encode(y)
            bits = [known[y] for y in ys]
            slots = np.array([-1 if b is None else _code_index(b) for b in bits], dtype=np.int64)
            cached = self._columns[id(ys)] = (ys, bits, slots)
        return cached[1], cached[2]

    def row(self, x: Value, ys: tuple) -> np.ndarray:
        """Algorithm 1's inner loop for one input: ``M(x, y)`` for each ``y`` in ``ys``."""
        c, sr = self.compiled, self.semiring
        check("inference")
        assignment = c.input_assignment(c.domain.check(x))
        bits, slots = self.columns(ys)
        if self.dense_ctx is not None and (1 << c.shape.width) <= DENSE_RATIO * len(ys):
            return self._pick(self.distribution(c.backend.condition(c.phi, assignment)), slots)
        out = np.empty(len(ys), dtype=sr.dtype)
        for k, (y, b) in enumerate(zip(ys, bits)):
            out[k] = sr.zero if b is None else c.backend.wmc(
                c.backend.condition(self.phi_given(y, b), assignment), self.scalar_ctx)
        return out


def _code_index(bits: list[int]) -> int:
    index = 0
    for b in bits:
        index = (index << 1) | b
    return index


def inference(prog: Program | Compiled, I: InferenceSet | Iterable[tuple[Value, Value]], *,
              backend: str = "bdd", exact: bool | None = None) -> ProbabilityTable:
    """Algorithm 1: ``M(x, y) <- WMC(phi | (x, y))`` for every ``(x, y)`` in ``I``."""
    compiled = as_compiled(prog, backend)
    if not isinstance(I, InferenceSet):
        I = InferenceSet.of(I)
    semiring = choose_semiring(compiled, exact)
    counter = Counter(compiled, semiring)
    rows = counter.joint_rows(I)
    if rows is None:
        rows = {x: (ys, counter.row(x, ys)) for x, ys in I.by_input.items()}
    return ProbabilityTable(semiring, rows)


__all__ = ["inference", "ProbabilityTable", "as_compiled", "choose_semiring"]
