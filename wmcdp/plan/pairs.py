"""Neighbouring pairs ``(x, x')`` and per-pair sums over all outputs: the ground of every notion beyond pure ε.

Approximate DP, Rényi DP and privacy-loss distributions (docs/beyond.md) are
maxima over a set of neighbouring pairs, taken in both orders, of a sum over *every*
output ``y`` of a term in ``P(y | x)`` and ``P(y | x')``. A :class:`PairSource` delivers
those pairs with their masses, in one of two number systems (:func:`wmcdp.count.probabilities.masses_arith`):
natural logs in float64 (float mode; linear counts are converted) or integer numerators
over one common denominator (exact mode, :class:`wmcdp.count.exact.Scaled`).

* :class:`ExhaustivePairs`: every ordered neighbour pair of the program's domain, described,
  not listed — the joint table comes in stripes of outputs
  (:meth:`wmcdp.count.probabilities.Counter.stripes`) and neighbours by index arithmetic on input codes
  (:func:`wmcdp.notions.privacy.pair_directions`), as in Algorithm 2. A per-pair sum accumulates
  across stripes, so no more than one stripe is held (a single stripe is kept between
  passes).
* :class:`RowPairs`: an explicit pair set (:class:`PairSet`, e.g. a symmetry set, or the
  data-centric pairs of one database, :func:`pairs_at`) over the whole output distributions
  of its inputs.

:meth:`PairSource.totals` runs one pass: a *partial* function maps the masses of a chunk
of pairs over some outputs to per-pair partial sums, and *combine* adds partial sums of
the same pairs over different outputs. Each pair has a key: its position in the set's
order (the exhaustive order is inputs lexicographically, neighbours in the relation's
order), so maxima name the *first* pair that attains them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import CoverageError, WmcdpError
from ..base.limits import check
from ..compile import Compiled
from ..count.probabilities import (
    Counter,
    as_compiled,
    exhaustive_outputs,
    explicit_rows,
    masses_arith,
    memory_budget,
    number_system,
    to_masses,
)
from ..lang.program import Program, Value, Vector
from ..lang.relations import Relation, check_relation, neighbour_relation
from ..lang.sets import InferenceSet, PrivacySet, _freeze, all_outputs, check_exhaustive
from ..lang.shape import Shape, format_value
from .shuffle import ShuffledInference
from .shuffled_rr import SCALE_FROM, ShuffledBinary
from .symmetry import find_symmetry, pair_distributions

Partial = Callable[[np.ndarray, np.ndarray], tuple[Any, ...]]
Combine = Callable[[tuple[Any, ...], tuple[Any, ...]], tuple[Any, ...]]


@dataclass(frozen=True)
class PairWitness:
    """The neighbouring inputs ``x`` and ``x_prime`` that attain a bound (in this order)."""

    x: Value
    x_prime: Value


@dataclass(frozen=True)
class PairSet:
    """An explicit, ordered set of pairs ``(x, x')``; :meth:`of` adds each pair's reverse right after it."""

    pairs: tuple[tuple[Value, Value], ...]

    @classmethod
    def of(cls, pairs: Iterable[tuple[Value, Value]], *, both_orders: bool = True) -> PairSet:
        out: dict[tuple[Value, Value], None] = {}
        for item in pairs:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise WmcdpError(f"a pair set must hold (x, x') pairs, got {item!r:.80}")
            x, xp = _freeze(item[0]), _freeze(item[1])
            out[(x, xp)] = None
            if both_orders:
                out[(xp, x)] = None
        return cls(tuple(out))

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self) -> Iterator[tuple[Value, Value]]:
        return iter(self.pairs)


def pairs_at(domain: Vector, relation: Relation, x0: Value) -> PairSet:
    """The data-centric pairs of the database ``x0`` (the local paper, eq. 5).

    ``(x0, x')`` and ``(x', x0)`` for every neighbour ``x'`` of ``x0``, in the order of the
    exhaustive set (by the code of the first input, then by the neighbour's rank in the
    relation's list of the first input's neighbours).
    """
    x0 = domain.check(x0)
    keyed = []
    for rank, xp in enumerate(relation.neighbours(domain, x0)):
        keyed.append(((domain.code(x0), rank), (x0, xp)))
        back = next(r for r, z in enumerate(relation.neighbours(domain, xp)) if z == x0)
        keyed.append(((domain.code(xp), back), (xp, x0)))
    if not keyed:
        raise WmcdpError(f"the database {format_value(x0)} has no neighbours under the relation {relation.name}")
    return PairSet(tuple(pair for _, pair in sorted(keyed)))


def privacy_sets_at(domain: Vector, shape: Shape, relation: Relation, x0: Value) -> tuple[PrivacySet, InferenceSet]:
    """Algorithm 2's sets for the data-centric pairs of ``x0``: every ``(x, x', y)`` of :func:`pairs_at`,
    every ``y``."""
    ys = all_outputs(shape)
    pairs = pairs_at(domain, relation, x0)
    return PrivacySet(tuple((x, xp, ys) for x, xp in pairs)), InferenceSet({x: ys for x in inputs_of(pairs)})


# -- number systems -------------------------------------------------------------------------


def float_logs(arith: Any, values: np.ndarray) -> np.ndarray:
    """Natural logs (float64) of masses in ``arith`` (exact numerators are divided by the denominator)."""
    if not arith.exact:
        return values
    log_d = math.log(arith.denominator)
    if values.dtype == object:
        flat = values.reshape(-1)
        out = np.fromiter(
            (math.log(int(v)) - log_d if v else -math.inf for v in flat), dtype=np.float64, count=len(flat)
        )
        return out.reshape(values.shape)
    with np.errstate(divide="ignore"):
        return np.log(values.astype(np.float64)) - log_d


def pair_directions(
    domain: Vector, relation: Relation, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """All ordered neighbour pairs as ``(codes of x, codes of x', order keys)``, in chunks.

    A built-in relation gives its directions (index arithmetic on codes,
    :meth:`wmcdp.lang.relations.Relation.directions`); a user relation is enumerated input by input.
    The keys sort the pairs in the exhaustive set's order. A chunk gathers the pairs of consecutive directions
    (``all-entries`` has ``3^n - 1`` directions of few pairs each), so a pass costs a numpy step per chunk, not per
    direction.
    """
    if relation.builtin:
        yield from _gathered(_builtin_directions(domain, relation), chunk)
        return
    src: list[int] = []
    dst: list[int] = []
    for x in domain.values():
        code = domain.code(x)
        for xp in relation.neighbours(domain, x):
            src.append(code)
            dst.append(domain.code(xp))
    src_a, dst_a = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    keys = np.arange(len(src_a), dtype=np.int64)
    for start in range(0, len(src_a), chunk):
        yield src_a[start : start + chunk], dst_a[start : start + chunk], keys[start : start + chunk]


def _builtin_directions(domain: Vector, relation: Relation) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per direction of a built-in relation, its pairs as ``(codes of x, codes of x', order keys)``."""
    count = relation.direction_count(domain)
    for rank, (src, dst) in enumerate(relation.directions(domain)):
        yield src, dst, src * count + rank


def _gathered(
    parts: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]], chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The pairs of ``parts`` in chunks of ``chunk`` pairs (the last one shorter), in the same order: a chunk within
    one part is a view of it, and a pair is copied at most once (into a chunk that joins parts)."""
    held: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    size = 0
    for part in parts:
        if size + len(part[0]) < chunk:  # (most parts: a direction of few pairs)
            held.append(part)
            size += len(part[0])
            continue
        start = 0
        while start < len(part[0]):
            take = min(chunk - size, len(part[0]) - start)
            held.append((part[0][start : start + take], part[1][start : start + take], part[2][start : start + take]))
            size, start = size + take, start + take
            if size == chunk:
                yield _joined(held)
                held, size = [], 0
    if size:
        yield _joined(held)


def _joined(held: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(held) == 1:
        return held[0]
    src, dst, keys = (np.concatenate(column) for column in zip(*held))
    return src, dst, keys


# -- sources --------------------------------------------------------------------------------


class PairSource:
    """Ordered pairs with their output masses; see the module docstring."""

    arith: Any
    diagram_size: int | None
    symmetry: str = ""  # the proved group the pairs are taken up to (pairs="auto"), else ""
    compiled: Any = None  # the compiled program whose pairs these are (exhaustive and auto pairs), else None
    claims: tuple[tuple[str, str], ...] = ()  # (claim, how it was proved) of what a planned source relies on

    def totals(
        self, partial: Partial, combine: Combine, cells: int = 4, logs: bool = False
    ) -> Iterator[tuple[np.ndarray, tuple[Any, ...]]]:
        """One pass: ``(keys, per-pair totals)`` per chunk of pairs, each pair once, in no fixed order.

        ``cells`` is how many temporary array cells ``partial`` makes per mass (for chunk sizes). ``logs``:
        ``partial`` gets the masses as float logs (:func:`float_logs`), each input's converted once.
        """
        raise NotImplementedError

    def witness(self, key: int) -> PairWitness:
        raise NotImplementedError

    def rows(self, keys: Sequence[int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """The whole output masses ``(key, P(.|x), P(.|x'))`` of the pairs with these keys."""
        raise NotImplementedError

    def all_rows(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Every pair with its whole output masses, in chunks ``(keys, a, b)``."""
        raise NotImplementedError


def _chunk_rows(table: np.ndarray, arith: Any, cells: int) -> int:
    """How many pairs of ``table``'s rows one step of a pass takes: ``cells`` temporary cells a mass, within the
    memory budget. A cell of exact numerators (an object array) holds a pointer and the integer it points to, about
    the size of the common denominator."""
    item = int(table.itemsize) + (sys.getsizeof(arith.denominator) if table.dtype == object else 0)
    return max(1, int(memory_budget() // (max(cells, 1) * item * max(table.shape[1], 1))))


class ExhaustivePairs(PairSource):
    """Every ordered pair of neighbours of the domain, over the joint table in stripes (its columns: the producible
    outputs when they are listed, :meth:`Counter.columns`)."""

    def __init__(self, counter: Counter, relation: Relation) -> None:
        self.counter = counter
        self.compiled = counter.compiled
        self.relation = relation
        self.arith = masses_arith(counter.arith, counter.compiled)
        self.diagram_size = counter.compiled.size
        self._single: tuple[int, np.ndarray] | None = None  # the whole table, when it is one stripe
        self._listed: list[tuple[int, int]] | None = None  # the pairs of a user relation, in order

    def _stripes(self) -> Iterator[tuple[int, np.ndarray]]:
        if self._single is not None:
            yield self._single
            return
        size = self.counter.output_count()
        for outputs, table in self.counter.columns():  # the producible outputs only (the others add 0 to a sum)
            table = to_masses(self.counter.arith, table, self.counter.compiled)
            if table.shape[1] == size:
                self._single = (int(outputs[0]), table)
            yield int(outputs[0]), table

    def _pairs(self, chunk: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return pair_directions(self.counter.compiled.domain, self.relation, chunk)

    def totals(
        self, partial: Partial, combine: Combine, cells: int = 4, logs: bool = False
    ) -> Iterator[tuple[np.ndarray, tuple[Any, ...]]]:
        acc: dict[int, tuple[Any, ...]] = {}
        keys_of: dict[int, np.ndarray] = {}
        size = self.counter.output_count()
        for _y0, table in self._stripes():
            single = table.shape[1] == size
            table = float_logs(self.arith, table) if logs else table
            chunk = _chunk_rows(table, self.arith, cells)
            for cid, (src, dst, keys) in enumerate(self._pairs(chunk)):
                check("a pass over the neighbour pairs")
                part = partial(table[src], table[dst])
                if single:
                    yield keys, part
                else:
                    acc[cid] = part if cid not in acc else combine(acc[cid], part)
                    keys_of[cid] = keys
        for cid, total in acc.items():
            yield keys_of[cid], total

    def _codes(self, key: int) -> tuple[int, int]:
        domain = self.counter.compiled.domain
        if self.relation.builtin:
            code, rank = divmod(int(key), self.relation.direction_count(domain))
            return code, domain.code(self.relation.step(domain, domain.at(code), rank))
        if self._listed is None:
            self._listed = [
                (domain.code(x), domain.code(xp)) for x in domain.values() for xp in self.relation.neighbours(domain, x)
            ]
        return self._listed[int(key)]

    def witness(self, key: int) -> PairWitness:
        domain = self.counter.compiled.domain
        x, xp = self._codes(key)
        return PairWitness(domain.at(x), domain.at(xp))

    def rows(self, keys: Sequence[int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        domain = self.counter.compiled.domain
        keys = list(keys)
        for start in range(0, len(keys), 1 << 12):  # one batched count per block of pairs
            part = keys[start : start + (1 << 12)]
            codes = np.array([self._codes(key) for key in part], dtype=np.int64).reshape(-1)
            block = np.concatenate([b for _, b in self.counter.distributions(domain.digits(codes))])
            block = to_masses(self.counter.arith, block, self.counter.compiled)
            for i, key in enumerate(part):
                yield key, block[2 * i], block[2 * i + 1]

    def all_rows(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        tables = list(self._stripes())
        if len(tables) != 1:
            raise WmcdpError(
                "the joint table of all inputs and outputs does not fit in memory at once; "
                "give a smaller pair set (sets, or the data-centric pairs of one database)"
            )
        _, table = tables[0]
        chunk = _chunk_rows(table, self.arith, 2)
        for src, dst, keys in self._pairs(chunk):
            yield keys, table[src], table[dst]


class RowPairs(PairSource):
    """Pairs over whole output masses held in memory: pair ``k`` is ``(table[src[k]], table[dst[k]])``.

    ``keys[k]`` is its position in the set's order and ``name(key)`` its witness.
    """

    def __init__(
        self,
        arith: Any,
        table: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        keys: np.ndarray,
        name: Callable[[int], PairWitness],
        diagram_size: int | None,
    ) -> None:
        self.arith = arith
        self.table = table
        self.src, self.dst, self.keys = src, dst, keys
        self._name = name
        self._position = {int(k): i for i, k in enumerate(keys)}
        self.diagram_size = diagram_size

    @classmethod
    def of(
        cls,
        arith: Any,
        rows: np.ndarray,
        inputs: Sequence[Value],
        pairs: PairSet,
        diagram_size: int | None,
        row_of: Callable[[Value], Value] | None = None,
    ) -> RowPairs:
        """``rows[i]``: the masses of ``inputs[i]``; the pairs of ``pairs`` in its order. ``row_of(x)``: the input of
        ``inputs`` whose masses ``x`` has (``x`` itself by default)."""
        index = {x: i for i, x in enumerate(inputs)}

        def row(x: Value) -> int:
            return index[x if row_of is None else row_of(x)]

        src = np.array([row(x) for x, _ in pairs], dtype=np.int64)
        dst = np.array([row(xp) for _, xp in pairs], dtype=np.int64)
        return cls(
            arith,
            rows,
            src,
            dst,
            np.arange(len(pairs), dtype=np.int64),
            lambda key: PairWitness(*pairs.pairs[key]),
            diagram_size,
        )

    def _chunks(self, cells: int) -> Iterator[np.ndarray]:
        chunk = _chunk_rows(self.table, self.arith, cells)
        for start in range(0, len(self.src), chunk):
            check("a pass over the pairs")
            yield np.arange(start, min(start + chunk, len(self.src)), dtype=np.int64)

    def totals(
        self, partial: Partial, combine: Combine, cells: int = 4, logs: bool = False
    ) -> Iterator[tuple[np.ndarray, tuple[Any, ...]]]:
        table = float_logs(self.arith, self.table) if logs else self.table
        for part in self._chunks(cells):
            yield self.keys[part], partial(table[self.src[part]], table[self.dst[part]])

    def witness(self, key: int) -> PairWitness:
        return self._name(int(key))

    def rows(self, keys: Sequence[int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        for key in keys:
            i = self._position[int(key)]
            yield key, self.table[self.src[i]], self.table[self.dst[i]]

    def all_rows(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        for part in self._chunks(2):
            yield self.keys[part], self.table[self.src[part]], self.table[self.dst[part]]


class Best:
    """The running maximum of per-pair values and the first key (smallest) that attains it.

    ``tolerance`` (float values only): values within ``tolerance * max(1, |max|)`` of the
    maximum count as ties — it chooses the witness, never the value. With ``logs=True`` the
    values are logs of masses and ties lie within ``tolerance`` itself (a relative tolerance on
    the masses: ln δ ≈ −66 must not widen it to 7e-11). Exact values (ints, Fractions) compare exactly.
    """

    def __init__(self, tolerance: float = 0.0, logs: bool = False) -> None:
        self.tolerance = tolerance
        self.logs = logs
        self.value: Any = None
        self.key: int | None = None
        self._key_value: Any = None

    def _floor(self, value: Any) -> Any:
        if not self.tolerance or not isinstance(value, float) or not math.isfinite(value):
            return value
        return value - self.tolerance * (1.0 if self.logs else max(1.0, abs(value)))

    def update(self, values: np.ndarray, keys: np.ndarray) -> None:
        if len(values) == 0:
            return
        if values.dtype == object:
            m = max(values)
        else:
            if np.isnan(values).all():
                return
            m = float(np.nanmax(values))
        if self.value is None or m > self.value:
            self.value = m
            if self.key is not None and self._key_value < self._floor(m):
                self.key = None
        floor = self._floor(self.value)
        with np.errstate(invalid="ignore"):
            hits = (
                np.flatnonzero(values >= floor)
                if values.dtype != object
                else np.array([i for i, v in enumerate(values) if v >= floor], dtype=np.int64)
            )
        if len(hits):
            i = int(hits[np.argmin(keys[hits])])
            if self.key is None or int(keys[i]) < self.key:
                self.key, self._key_value = int(keys[i]), values[i]


# -- building a source from the API's arguments ---------------------------------------------


def inputs_of(pairs: PairSet) -> list[Value]:
    """The inputs of a pair set, each once, in order of first appearance."""
    return list(dict.fromkeys(v for pair in pairs for v in pair))


def engine_rows(counter: Counter, inputs: Sequence[Value]) -> np.ndarray:
    """The whole output distributions of ``inputs`` (rows in output-shape order) as masses."""
    domain = counter.compiled.domain
    digits = np.array(inputs, dtype=np.int64).reshape(len(inputs), domain.n) - domain.lo
    block = np.concatenate([b for _, b in counter.distributions(digits)])
    return to_masses(counter.arith, block, counter.compiled)


def inference_rows(counter: Counter, I: InferenceSet, inputs: Sequence[Value]) -> np.ndarray:
    """Rows of ``inputs`` over the outputs ``I`` lists (zero elsewhere), checked to hold all of each input's mass.

    The sums over outputs need every ``y`` with ``P(y | x) > 0``: an input whose listed
    outputs carry less than all of its probability (exactly 1 in exact mode, within 1e-9 in
    float mode) is an error.
    """
    missing = [x for x in inputs if x not in I.by_input]
    if missing:
        raise CoverageError(
            f"the inference set has no outputs of the input {format_value(missing[0])}, which a pair "
            "of the pair set needs"
        )
    sub = InferenceSet({x: I.by_input[x] for x in inputs})
    table = explicit_rows(counter, sub)
    columns: dict[Value, int] = {}
    for x in inputs:
        for y in I.by_input[x]:
            columns.setdefault(y, len(columns))
    arith = counter.arith
    rows = np.full((len(inputs), len(columns)), arith.zero, dtype=arith.dtype)
    for r, x in enumerate(inputs):
        ys, values = table[x]
        rows[r, [columns[y] for y in ys]] = values
        total = sum(arith.probability(v) for v in values)
        if (total != 1) if arith.exact else abs(total - 1) > 1e-9:
            raise CoverageError(
                f"the inference set lists outputs of x={format_value(x)} with total probability "
                f"{float(total):.10g}, not 1; sums over outputs need every y with P(y|x) > 0"
            )
    return to_masses(arith, rows, counter.compiled)


def check_pairs(domain: Vector, pairs: PairSet) -> None:
    """Every input of the pairs lies in the domain (each input checked once), and no input is paired with itself."""
    if len(pairs) == 0:
        raise WmcdpError("the pair set is empty")
    values = set(domain.entry_values)
    for x in inputs_of(pairs):
        if not (type(x) is tuple and len(x) == domain.n and all(type(v) is int and v in values for v in x)):
            domain.check(x)
    for x, xp in pairs:
        if x == xp:
            raise WmcdpError(f"the pair set holds the input {format_value(x)} paired with itself")


def auto_pairs(compiled: Compiled, neighbours: Any, exact: Any, budget: Any = None, symmetry: Any = None) -> RowPairs:
    """The ordered neighbour pairs up to the program's proved symmetry group (``pairs="auto"``).

    :func:`wmcdp.plan.symmetry.pair_distributions` gives one pair per orbit, with its outputs up to
    the pair's stabilizer and each output orbit's size ``m``. An orbit becomes one column whose
    masses are ``m·P(y|x)`` and ``m·P(y|x')``: every notion here sums a term that is
    homogeneous of degree one in the two masses (``max(0, p − t q)``, ``p^α q^(1−α)``, the mass
    ``p`` at the ratio ``p/q``), so the sums are those over every output. Rows of pairs with
    fewer orbits are padded with zero masses, which add nothing.
    """
    symmetry = symmetry if symmetry is not None else find_symmetry(compiled, budget=budget)
    items = list(pair_distributions(compiled, neighbours, exact=exact, symmetry=symmetry))
    arith = masses_arith(items[0].arith, compiled)
    width = max(len(d.outputs) for d in items)
    table = np.full((2 * len(items), width), arith.zero, dtype=object if arith.exact else np.float64)
    for i, d in enumerate(items):
        for row, values in ((2 * i, d.p_x), (2 * i + 1, d.p_x_prime)):
            masses = to_masses(d.arith, values, compiled)
            if arith.exact:
                table[row, : len(masses)] = [int(v) * int(m) for v, m in zip(masses, d.multiplicity)]
            else:
                table[row, : len(masses)] = masses + np.log(d.multiplicity.astype(np.float64))
    src = np.arange(0, 2 * len(items), 2, dtype=np.int64)
    source = RowPairs(
        arith,
        table,
        src,
        src + 1,
        np.arange(len(items), dtype=np.int64),
        lambda key: PairWitness(items[key].x, items[key].x_prime),
        compiled.size,
    )
    source.symmetry = f"{symmetry.describe()}; {len(items)} pairs up to it"
    source.compiled = compiled
    return source


def check_some_pair(relation: Relation, domain: Vector) -> None:
    """The relation has a neighbour pair in the domain (else every bound over its pairs would be a maximum over
    nothing): stops at the first pair, so only a relation without one costs a pass over the domain."""
    if not any(True for x in domain.values() for _ in relation.neighbours(domain, x)):
        raise WmcdpError(
            f"the neighbour relation {relation.name} gives no pair of neighbouring inputs of the program's domain "
            "(a neighbour outside the domain is none); there is nothing to bound"
        )


def pair_source(
    prog: Program | Compiled,
    pairs: Any = None,
    I: Any = None,
    *,
    at: Value | None = None,
    neighbours: Any = None,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
) -> PairSource:
    """The pairs of an API call: exhaustive (default), explicit ``pairs``, or the data-centric pairs ``at`` a database.

    ``pairs="auto"`` takes the pairs up to the program's proved symmetries (:func:`auto_pairs`).
    ``I`` gives the rows of an explicit pair set: None (each input's whole output
    distribution, counted on the compiled program), an inference set that lists every output
    each input can produce, or a :class:`~wmcdp.plan.shuffle.ShuffledInference` (then the program
    itself is never compiled).
    """
    if isinstance(pairs, ShuffledBinary):
        raise WmcdpError(
            f"shuffled RR counting past n = {SCALE_FROM} users (and any shuffle of one-bit reports at scale) gives "
            "delta(epsilon), epsilon(delta) and profiles of one run in float mode (no exact mode, Renyi, loss "
            "distribution, compose or at); use n <= 1000 for those"
        )
    if isinstance(pairs, str) and pairs == "exhaustive":
        pairs = None
    _check_arguments(pairs, I, at)
    if isinstance(pairs, str):
        return auto_pairs(as_compiled(prog, backend, exact), neighbours, exact)
    if pairs is not None:
        pairs = pairs if isinstance(pairs, PairSet) else PairSet.of(pairs)
        domain = prog.inputs if isinstance(prog, Program) else getattr(prog, "domain", None)
        if domain is not None:
            check_pairs(domain, pairs)
    if isinstance(I, ShuffledInference):
        inputs = inputs_of(pairs)
        arith, rows = I.rows(inputs, exact)
        return RowPairs.of(arith, rows, inputs, pairs, I.diagram_size)
    compiled = as_compiled(prog, backend, exact)
    counter = Counter(compiled, number_system(compiled, exact))
    relation = neighbour_relation(neighbours or compiled.program.neighbours)
    if at is not None:
        check_relation(relation, compiled.domain)
        pairs = pairs_at(compiled.domain, relation, at)
    if pairs is None:
        check_exhaustive(compiled.domain, exhaustive_outputs(compiled), relation, force)
        check_relation(relation, compiled.domain)
        check_some_pair(relation, compiled.domain)
        return ExhaustivePairs(counter, relation)
    inputs = inputs_of(pairs)
    if I is None:
        rows = engine_rows(counter, inputs)
    else:
        rows = inference_rows(counter, I if isinstance(I, InferenceSet) else InferenceSet.of(I), inputs)
    return RowPairs.of(masses_arith(counter.arith, compiled), rows, inputs, pairs, compiled.size)


def _check_arguments(pairs: Any, I: Any, at: Value | None) -> None:
    """Refuse the combinations :func:`pair_source` does not take: ``at`` beside explicit sets, an inference set
    without a pair set, a pair set named other than ``"auto"``, and ``"auto"`` beside ``I`` or ``at``."""
    if at is not None and (pairs is not None or I is not None):
        raise WmcdpError(
            "at (the data-centric pairs of one database) replaces the exhaustive sets; "
            "give at or explicit sets, not both"
        )
    if at is None and pairs is None and I is not None:
        raise WmcdpError("an inference set I needs an explicit pair set")
    if isinstance(pairs, str):
        if pairs != "auto":
            raise WmcdpError(f"pairs must be a pair set, None (the planner), 'exhaustive' or 'auto', got {pairs!r}")
        if I is not None or at is not None:
            raise WmcdpError("pairs 'auto' make their own rows; give no I and no at")


def logsumexp(x: np.ndarray) -> np.ndarray:
    """``ln Σ e^x`` along the last axis (-inf for an empty or all -inf row)."""
    m = np.max(x, axis=-1, initial=-np.inf)
    finite = np.isfinite(m)
    shift = np.where(finite, m, 0.0)
    # a row whose maximum is +inf keeps m and drops its sum, which may overflow: only that row's exp overflows
    with np.errstate(under="ignore", divide="ignore", over="ignore"):
        s = np.log(np.sum(np.exp(x - shift[..., None]), axis=-1))
    out: np.ndarray = np.where(finite, shift + s, m)
    return out


def log1mexp(z: np.ndarray) -> np.ndarray:
    """``ln(1 − e^z)`` for ``z ≤ 0``, accurately (``log(−expm1 z)`` near 0, ``log1p(−e^z)`` below −ln 2)."""
    out = np.empty_like(z)
    near = z > -math.log(2)
    with np.errstate(divide="ignore"):
        out[near] = np.log(-np.expm1(z[near]))
        out[~near] = np.log1p(-np.exp(z[~near]))
    return out


__all__ = [
    "log1mexp",
    "logsumexp",
    "pair_directions",
    "PairWitness",
    "PairSet",
    "PairSource",
    "ExhaustivePairs",
    "RowPairs",
    "Best",
    "pairs_at",
    "float_logs",
    "inputs_of",
    "engine_rows",
    "inference_rows",
    "check_pairs",
    "pair_source",
    "auto_pairs",
    "privacy_sets_at",
]
