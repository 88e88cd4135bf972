"""Algorithm 1 (INFERENCE): ``M(x, y) = WMC(phi | (x, y))`` for every pair of an inference set.

The program is compiled once (:func:`wmcdp.compile.compile_program`); every count is a
traversal of ``phi`` (or of a cofactor) that treats the input and output bits as one of
(see :mod:`wmcdp.count.wmc`):

* *group axes*: for the exhaustive set, every input entry and every output value is an
  axis and one traversal yields ``P(y | x)`` for all inputs and outputs at once — the
  *joint* table ``(|X|, |Y|)``, over output values, not bit patterns. When that table (or
  the arrays that build it) would exceed the memory budget, the leading output values are
  fixed by a cofactor and the table comes in *stripes* of outputs
  (:meth:`Counter.stripes`), each consumed before the next is made;
* a *batch*: for an explicit set, the inputs it names are one batch axis (their bits are
  0/1 vectors) and the outputs are axes — one traversal gives whole output distributions
  of many inputs; or, when the set asks for few outputs per input, the (input, output)
  pairs themselves are the batch and one traversal gives ``P(y | x)`` for all of them.

Batches are cut to the memory budget (:func:`memory_budget`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import WmcdpError
from ..base.limits import check, memory_cap
from ..base.numbers import format_number
from ..compile import Compiled, compile_program
from ..compile.flat import Group
from ..compile.support import SUPPORT_LIMIT, Support
from ..lang.program import Program, Value
from ..lang.sets import ExhaustiveInference, InferenceSet
from . import wmc
from .exact import SCALED_MAX_BITS, Rational, Scaled
from .floats import LINEAR_MIN_LOG2, WIDE_MIN_LOG2, Extended, Linear
from .sdd import count_sdd
from .steps import Pool

#: batch the (input, output) pairs themselves when |Y| > DENSE_RATIO * (outputs asked per input): both
#: ways traverse all of phi, with arrays of |Y| cells per input or of one cell per pair (unless the
#: output bits are on top of phi: then a whole distribution costs one cell per input below them)
DENSE_RATIO = 2


def memory_budget() -> int:
    """Bytes the arrays of one count may hold: a quarter of the memory cap, at most 1 GiB."""
    return min(1 << 30, memory_cap() // 4)


def as_compiled(prog: Program | Compiled, backend: str = "bdd", exact: Any = None) -> Compiled:
    """Accept a program or an already compiled one (``exact="binary"`` compiles with exact floats)."""
    binary = exact == "binary"
    if isinstance(prog, Compiled):
        if binary and not prog.exact_floats:
            raise WmcdpError(
                "exact='binary' needs the program compiled with exact_floats=True "
                "(pass the Program itself, or compile_program(prog, exact_floats=True))"
            )
        return prog
    if isinstance(prog, Program):
        return compile_program(prog, backend, exact_floats=binary)
    raise WmcdpError(f"expected a wmcdp Program, got {type(prog).__name__}")


def number_system(compiled: Compiled, exact: Any) -> Any:
    """The arithmetic of a run: ``exact`` is True, False, None (exact when every weight is rational) or "binary".

    Exact when asked (or when every weight is rational and ``exact`` is None): integer numerators over the
    diagram's common denominator (:class:`wmcdp.count.exact.Scaled`), or rationals when that denominator is too
    large; else linear floats when no path weight is below 2**-1000, else floats with a separate exponent per
    cell (:class:`wmcdp.count.floats.Extended`). A program with a symbolic parameter counts functions of it
    (:class:`wmcdp.count.parametric.Parametric`).
    """
    if exact not in (True, False, None, "binary"):
        raise WmcdpError(f"exact must be True, False, None or 'binary', got {exact!r}")
    if compiled.symbolic is not None:
        if exact is False:
            raise WmcdpError(f"a run with the symbolic parameter {compiled.symbolic.name} is exact; leave exact unset")
        from .parametric import Parametric  # deferred: loads python-flint (0.5 s), for a symbolic parameter only

        return Parametric(compiled, compiled.symbolic)
    floats = [w for w in compiled.weights.values() if not w.exact]
    if exact is None:
        exact = not floats
    if exact:
        if floats:
            w = floats[0]
            raise WmcdpError(
                f"exact arithmetic needs rational parameters, not the float probability {format_number(w.one)}: "
                "give fractions ('1/5'), --exact-floats for binary64, or certified=True (--certified) for exp, "
                "log, sqrt"
            )
        if compiled._denominator_bits() > SCALED_MAX_BITS:
            return Rational
        return Scaled(compiled.denominator)
    return Linear if compiled.min_path_log2 >= LINEAR_MIN_LOG2 else Extended


def count(compiled: Compiled, u: Any, plan: wmc.Plan, arith: Any, pool: Pool | None = None) -> np.ndarray:
    """``WMC(u)`` (``u``: ``phi`` or one of its cofactors) as an array ``(B, size_0, size_1, ...)``.

    Exact counts are numerators over the diagram's :attr:`~wmcdp.compile.Compiled.denominator`.
    """
    if compiled.backend.name == "sdd":
        return count_sdd(u, plan, arith, compiled.denominator if isinstance(arith, Scaled) else None)
    flat = compiled.flat if u is compiled.phi else compiled.backend.flatten(u)
    skip = None
    if isinstance(arith, Scaled):
        prefix = compiled._skip_products
        skip = lambda a, b: prefix[b] // prefix[a]  # noqa: E731
    wide = arith is Extended and compiled.min_path_log2 >= WIDE_MIN_LOG2
    return wmc.evaluate(flat, plan, arith, compiled.backend.level_of, skip=skip, pool=pool, wide=wide)


class Counter:
    """Counts on one compiled program in one number system."""

    def __init__(self, compiled: Compiled, arith: Any) -> None:
        self.compiled = compiled
        self.arith = arith
        self.itemsize = 16 if arith.dtype in (object, np.complex128) else 8
        self.pool = Pool()  # buffers shared by the counts of one run (the stripes of a table)

    # -- variables as batches -------------------------------------------------------------
    def input_batch(self, digits: np.ndarray) -> dict[int, np.ndarray]:
        """Per input variable, its value in each input of the batch (``digits[b, i] = x_i - lo``)."""
        return _group_bits(self.compiled.input_groups, digits)

    def output_batch(self, offsets: np.ndarray) -> dict[int, np.ndarray]:
        """Per output variable, its value in each output of the batch (``offsets[b, g]``: position in group g)."""
        return _group_bits(self.compiled.output_groups, offsets)

    def _count(self, u: Any, plan: wmc.Plan) -> np.ndarray:
        check("inference")
        if 1 + len(plan.groups) > wmc.MAX_AXES:
            raise WmcdpError(
                f"a count over {len(plan.groups)} input entries and output parts at once needs more array axes "
                f"than {wmc.MAX_AXES}; use symmetry sets or explicit sets"
            )
        if getattr(self.arith, "interned", False):  # a parametric run: ids of functions (wmcdp.notions.piecewise)
            counts: np.ndarray = self.arith.count(u, plan)
            return counts
        return count(self.compiled, u, plan, self.arith, self.pool)

    def _fits(self, plan: wmc.Plan, u: Any = None) -> bool:
        c = self.compiled
        if 1 + len(plan.groups) > wmc.MAX_AXES:
            return False
        if c.backend.name == "bdd":
            flat = c.flat if u is None or u is c.phi else c.backend.flatten(u)
            cells = wmc.peak_cells(flat, plan, c.backend.level_of)
        else:
            cells = 4 * plan.batch_size * math.prod(g.size for g in plan.groups)
        return 3 * cells * self.itemsize <= memory_budget()

    # -- the exhaustive table ---------------------------------------------------------------
    def fixed_groups(self, at_least: int = 1) -> int:
        """How many leading output groups a stripe fixes: as few as the memory budget allows, and
        enough for ``at_least`` stripes where the outputs allow (work for ``at_least`` workers)."""
        c = self.compiled
        groups = c.output_groups
        fixed = 0
        while fixed < len(groups) and (
            math.prod(g.size for g in groups[:fixed]) < at_least
            or not self._fits(wmc.Plan(c.weights, c.input_groups + groups[fixed:]))
        ):
            fixed += 1
        return fixed

    def stripes(self, fixed: int | None = None, only: Sequence[int] | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """The joint table ``P(y | x)`` over all inputs (rows, in code order) and all outputs, in stripes.

        Yields ``(first output position, array (|X|, stripe width))``. A stripe fixes the
        values of the first ``fixed`` output groups (default: :meth:`fixed_groups`) and counts
        the cofactor of ``phi`` with every input entry and every other output value as an axis;
        ``only`` picks stripes by number. Consume each stripe before asking for the next.
        """
        c = self.compiled
        groups = c.output_groups
        if fixed is None:
            fixed = self.fixed_groups()
        head = groups[:fixed]
        width = math.prod(g.size for g in groups[fixed:])
        plan = wmc.Plan(c.weights, c.input_groups + groups[fixed:])
        stripes = range(math.prod(g.size for g in head)) if only is None else only
        for s in progress.steps(stripes, len(stripes)):
            assignment: dict[int, bool] = {}
            rest = s
            for group in reversed(head):
                rest, offset = divmod(rest, group.size)
                w = len(group.variables)
                assignment.update({v: bool((offset >> (w - 1 - b)) & 1) for b, v in enumerate(group.variables)})
            u = c.backend.condition(c.phi, assignment) if assignment else c.phi
            table = self._count(u, plan).reshape(c.domain.size, width)
            yield s * width, table

    # -- the exhaustive table over the producible outputs --------------------------------------
    def output_count(self) -> int:
        """How many outputs the exhaustive table has (:func:`exhaustive_outputs`)."""
        return exhaustive_outputs(self.compiled)

    def columns(
        self, fixed: int | None = None, only: Sequence[int] | None = None
    ) -> Iterator[tuple[Sequence[int] | np.ndarray, np.ndarray]]:
        """The joint table ``P(y | x)`` over all inputs (rows, in code order) and the outputs some input can
        produce, in batches of columns: ``(the columns' positions in the output shape, array (|X|, width))``.

        When the support is listed (:meth:`output_count`), each batch of its outputs is one count with the outputs
        as the batch and every input entry an axis; the outputs left out have ``P(y | x) = 0`` for every ``x``.
        Otherwise, or when ``fixed`` or ``only`` choose stripes (a worker's share), the columns are the stripes of
        every output (:meth:`stripes`)."""
        support = listed_support(self.compiled) if fixed is None and only is None else None
        if support is None:
            for y0, table in self.stripes(fixed, only):
                yield range(y0, y0 + table.shape[1]), table
            return
        c = self.compiled
        rows = support.rows()
        positions = support.positions(rows)
        peak = wmc.peak_cells(c.flat, _support_plan(c, rows), c.backend.level_of)
        batches = -(-3 * peak * self.itemsize // memory_budget())  # (ceilings: at least one batch of one output)
        batch = -(-len(rows) // max(1, batches))
        starts = range(0, len(rows), batch)
        for start in progress.steps(starts, len(starts)):
            part = rows[start : start + batch]
            counts = self._count(c.phi, _support_plan(c, part)).reshape(len(part), c.domain.size)
            yield positions[start : start + batch], np.ascontiguousarray(counts.T)

    def table(self) -> np.ndarray:
        """The whole joint table ``(|X|, |Y|)`` (for callers that keep it)."""
        parts = [t for _, t in self.stripes()]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    # -- batches ----------------------------------------------------------------------------
    def distributions(self, digits: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
        """Whole output distributions of many inputs (``digits[b, i] = x_i - lo``): ``(start, array (b, |Y|))``."""
        c = self.compiled
        ny = math.prod(g.size for g in c.output_groups)
        size = len(digits)
        per_row = max(
            1,
            wmc.peak_cells(c.flat, wmc.Plan(c.weights, c.output_groups, {}, 2), c.backend.level_of)
            if c.backend.name == "bdd"
            else 4 * ny,
        )
        batch = max(1, min(size, memory_budget() // (3 * self.itemsize * per_row)))
        starts = range(0, size, batch)
        for start in progress.steps(starts, len(starts)):
            part = digits[start : start + batch]
            plan = wmc.Plan(c.weights, c.output_groups, self.input_batch(part), len(part))
            yield start, self._count(c.phi, plan).reshape(len(part), ny)

    def pairs(self, digits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """``P(y | x)`` for the pairs ``(digits[k], offsets[k])`` (input digits, output group positions), as a batch."""
        c = self.compiled
        out = np.empty(len(digits), dtype=self.arith.dtype)
        per_pair = (
            wmc.peak_cells(c.flat, wmc.Plan(c.weights, (), {}, 2), c.backend.level_of) if c.backend.name == "bdd" else 4
        )
        batch = max(1, memory_budget() // (3 * self.itemsize * max(per_pair, 1)))
        for start in range(0, len(digits), batch):
            xs, ys = digits[start : start + batch], offsets[start : start + batch]
            bits = {**self.input_batch(xs), **self.output_batch(ys)}
            out[start : start + len(xs)] = self._count(c.phi, wmc.Plan(c.weights, (), bits, len(xs))).reshape(-1)
        return out


def exhaustive_outputs(compiled: Compiled) -> int:
    """How many outputs the exhaustive table has: the producible ones when they are listed (:func:`listed_support`),
    else the whole output shape. Counted on the support's diagram, nothing listed."""
    support = listed_support(compiled)
    return compiled.shape.size if support is None else support.size


def exhaustive_work(compiled: Compiled) -> tuple[int, tuple[int, int, int]]:
    """The outputs of the exhaustive table (:func:`exhaustive_outputs`) and the dry run of its count
    (:func:`wmcdp.count.wmc.work`: array cells, diagram entries, levels counted a level at a time), over the listed
    support when the table lists it. A BDD program."""
    c = compiled
    support = listed_support(c)
    if support is None:
        return c.shape.size, wmc.work(c.flat, wmc.Plan(c.weights, c.input_groups + c.output_groups), c.backend.level_of)
    rows = np.zeros((support.size, len(c.output_groups)), dtype=np.int64)  # the dry run reads the batch's size only
    return support.size, wmc.work(c.flat, _support_plan(c, rows), c.backend.level_of)


def listed_support(compiled: Compiled) -> Support | None:
    """The support (:attr:`wmcdp.compile.Compiled.support`) when the exhaustive table lists it instead of every
    output: it has at most :data:`~wmcdp.compile.support.SUPPORT_LIMIT` outputs, fewer than the shape, and its count
    makes no more array cells than the whole table's (both from dry runs of the count). Decided once per program."""
    if "listed_support" not in compiled.memo:
        compiled.memo["listed_support"] = _support_decision(compiled)
    listed: Support | None = compiled.memo["listed_support"]
    return listed


def _support_decision(compiled: Compiled) -> Support | None:
    c = compiled
    support = c.support
    if support is None or support.size == 0 or support.size >= c.shape.size or support.size > SUPPORT_LIMIT:
        return None
    whole = wmc.Plan(c.weights, c.input_groups + c.output_groups)
    full = wmc.work(c.flat, whole, c.backend.level_of)[0] if 1 + len(whole.groups) <= wmc.MAX_AXES else math.inf
    rows = np.zeros((support.size, len(c.output_groups)), dtype=np.int64)  # the dry run reads the batch's size only
    listed = wmc.work(c.flat, _support_plan(c, rows), c.backend.level_of)[0]
    return support if listed <= full else None


def _support_plan(compiled: Compiled, rows: np.ndarray) -> wmc.Plan:
    """A count with every input entry an axis and the outputs ``rows`` (leaf offsets) the batch."""
    return wmc.Plan(compiled.weights, compiled.input_groups, _group_bits(compiled.output_groups, rows), len(rows))


def _group_bits(groups: Sequence[Group], positions: np.ndarray) -> dict[int, np.ndarray]:
    """Per variable of the groups, its bit (most significant first) of each row's position in the group."""
    out: dict[int, np.ndarray] = {}
    for g, group in enumerate(groups):
        w = len(group.variables)
        for b, v in enumerate(group.variables):
            out[v] = ((positions[:, g] >> (w - 1 - b)) & 1).astype(bool)
    return out


# -- tables ---------------------------------------------------------------------------------


class DenseTable:
    """``M`` over all inputs and outputs: ``values[code(x), index(y)]`` in the number system ``arith``."""

    def __init__(self, compiled: Compiled, arith: Any, values: np.ndarray) -> None:
        self.compiled = compiled
        self.arith = arith
        self.values = values

    def row(self, x: Value, ys: Sequence[Value]) -> np.ndarray:
        c = self.compiled
        row = self.values[c.domain.code(c.domain.check(x))]
        return _pick(self.arith, row, [c.shape.index(y) for y in ys])

    def probability(self, x: Value, y: Value) -> Any:
        """``P(y | x)`` as a float or Fraction."""
        return self.arith.probability(self.row(x, [y])[0])

    def items(self) -> Iterator[tuple[Value, Value, Any]]:
        c = self.compiled
        for code, x in enumerate(c.domain.values()):
            for k, y in enumerate(c.shape.values()):
                yield x, y, self.arith.probability(self.values[code, k])


@dataclass
class ProbabilityTable:
    """The matrix ``M`` of Algorithm 1 for an explicit inference set: per input, its outputs and values."""

    arith: Any
    rows: dict[Value, tuple[tuple[Value, ...], np.ndarray]]

    def row(self, x: Value, ys: Sequence[Value]) -> np.ndarray:
        """``M(x, y)`` for ``y`` in ``ys`` (all must be in the inference set)."""
        have, values = self.rows[x]
        if have is ys or have == ys:
            return values
        index = {y: k for k, y in enumerate(have)}
        return values[[index[y] for y in ys]]

    def probability(self, x: Value, y: Value) -> Any:
        """``P(y | x)`` as a float or Fraction."""
        return self.arith.probability(self.row(x, (y,))[0])

    def items(self) -> Iterator[tuple[Value, Value, Any]]:
        for x, (ys, values) in self.rows.items():
            for y, v in zip(ys, values):
                yield x, y, self.arith.probability(v)


def _pick(arith: Any, row: np.ndarray, indices: Sequence[int | None]) -> np.ndarray:
    """``row[index]`` for each index, and zero where the program cannot output the value (None)."""
    known = np.array([-1 if i is None else i for i in indices], dtype=np.int64)
    out: np.ndarray = row[np.where(known < 0, 0, known)].copy()
    out[known < 0] = arith.zero
    return out


def explicit_rows(counter: Counter, I: InferenceSet) -> dict[Value, tuple[tuple[Value, ...], np.ndarray]]:
    """Algorithm 1 over an explicit set: the rows ``M(x, ys)`` for each input of ``I``."""
    c = counter.compiled
    xs = [c.domain.check(x) for x in I.by_input]
    if not xs:
        return {}
    digits = c.domain.digit_array(xs)
    groups = c.output_groups
    known: dict[int, tuple[object, list[int] | None]] = {}  # id of an output -> (it, its offsets): sets repeat outputs

    def offsets_of(y: Value) -> list[int] | None:
        hit = known.get(id(y))
        if hit is None or hit[0] is not y:
            hit = known[id(y)] = (y, c.shape.offsets(y))
        return hit[1]

    offsets = {x: [offsets_of(y) for y in ys] for x, ys in I.by_input.items()}
    ny = math.prod(g.size for g in groups)
    rows: dict[Value, tuple[tuple[Value, ...], np.ndarray]] = {}
    if c.outputs_on_top or ny <= DENSE_RATIO * len(I) / len(xs):
        for start, block in counter.distributions(digits):
            for k in range(len(block)):
                x = xs[start + k]
                rows[x] = (I.by_input[x], _pick(counter.arith, block[k], [_index(groups, o) for o in offsets[x]]))
        return rows
    pair_x, pair_y, slots = [], [], []
    for row, x in enumerate(I.by_input):
        for k, offset in enumerate(offsets[x]):
            if offset is not None:
                pair_x.append(row)
                pair_y.append(offset)
                slots.append((x, k))
    for x, ys in I.by_input.items():
        rows[x] = (ys, np.full(len(ys), counter.arith.zero, dtype=counter.arith.dtype))
    if pair_x:
        offsets_array = np.array(pair_y, dtype=np.min_scalar_type(max(g.size for g in groups) - 1))
        values = counter.pairs(digits[np.array(pair_x)], offsets_array.reshape(len(pair_y), -1))
        for (x, k), value in zip(slots, values):
            rows[x][1][k] = value
    return rows


def _index(groups: Sequence[Group], offsets: list[int] | None) -> int | None:
    if offsets is None:
        return None
    index = 0
    for group, offset in zip(groups, offsets):
        index = index * group.size + offset
    return index


def inference(
    prog: Program | Compiled,
    I: ExhaustiveInference | InferenceSet | Iterable[tuple[Value, Value]],
    *,
    backend: str = "bdd",
    exact: Any = None,
) -> DenseTable | ProbabilityTable:
    """Algorithm 1: ``M(x, y) <- WMC(phi | (x, y))`` for every ``(x, y)`` in ``I``.

    ``exact``: None (exact when every weight is rational), True, False, or ``"binary"``
    (float probabilities read as their exact binary64 values).
    """
    compiled = as_compiled(prog, backend, exact)
    counter = Counter(compiled, number_system(compiled, exact))
    if isinstance(I, ExhaustiveInference):
        return DenseTable(compiled, counter.arith, counter.table())
    if not isinstance(I, InferenceSet):
        I = InferenceSet.of(I)
    return ProbabilityTable(counter.arith, explicit_rows(counter, I))


class Logs:
    """Pair masses in float mode: natural logs in float64 (``-inf`` for 0)."""

    name = "float"
    exact = False
    dtype = np.float64
    zero = -math.inf
    one = 0.0


def masses_arith(arith: Any, compiled: Compiled | None = None) -> Any:
    """The number system pair masses are given in: :class:`Logs` for float counts; exact counts
    as integer numerators over one denominator (:class:`wmcdp.count.exact.Scaled`; rational counts are
    put over the common denominator of ``compiled``)."""
    if not arith.exact:
        return Logs
    return arith if isinstance(arith, Scaled) else Scaled(compiled.denominator)  # type: ignore[union-attr]


def to_masses(arith: Any, values: np.ndarray, compiled: Compiled | None = None) -> np.ndarray:
    """Counts in ``arith`` as masses in :func:`masses_arith`: float counts become natural logs, exact ones
    integer numerators (int64 or Python ints)."""
    if not arith.exact:
        logs: np.ndarray = arith.as_log(values)
        return logs
    if isinstance(arith, Scaled):  # numerators as integers (small denominators count in exact float64)
        return values.astype(np.int64) if values.dtype == np.float64 else values
    denominator = compiled.denominator  # type: ignore[union-attr]
    out = np.empty(values.shape, dtype=object)  # rationals: numerators over the common denominator
    out.reshape(-1)[:] = [int(v.numerator) * (denominator // int(v.denominator)) for v in values.reshape(-1)]
    return out


__all__ = [
    "count",
    "Logs",
    "masses_arith",
    "to_masses",
    "inference",
    "ProbabilityTable",
    "DenseTable",
    "Counter",
    "as_compiled",
    "number_system",
    "memory_budget",
    "exhaustive_outputs",
    "exhaustive_work",
    "listed_support",
    "explicit_rows",
]
