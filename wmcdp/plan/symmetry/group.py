"""Symmetry groups of a program and their orbits, as numpy arrays.

Every group wmcdp proves is a product of symmetric groups on disjoint *blocks* of input
entries (the group that a set of transpositions generates: ``S_B`` for each connected
component ``B``). Each block carries the *action on outputs* that goes with permuting its
entries:

* ``unchanged``: the output is untouched (counting, sums): ``P(y | pi x) = P(y | x)``;
* ``tuple``: the output is a tuple of one part per entry and the parts move with the
  entries (randomized response, histogram, k-ary RR);
* ``index``: the output is an entry's index and is relabelled with the entries (values
  that are no entry's index, such as "nothing above", stay fixed).

Orbits of objects made of one *type* per entry (an input value, an (x_i, x'_i) pair, an
(x_i, output part) pair) under such a group are multisets of types per block; each orbit
is listed once, by its representative whose types are sorted within every block (for
inputs: the lexicographically smallest member of the orbit). Nothing is enumerated as a
Python tuple per element: orbits come as arrays of entry digits ``x_i - lo`` and of output
leaf offsets (the positions :meth:`wmcdp.lang.shape.Shape.offsets` gives).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...base.limits import check
from ...lang.shape import BoolShape, IntShape, Shape, TupleShape, leaves

UNCHANGED, TUPLE, INDEX = "unchanged", "tuple", "index"
ACTIONS = {
    UNCHANGED: "outputs unchanged",
    TUPLE: "outputs permuted with inputs",
    INDEX: "output index relabelled with inputs",
}


@dataclass(frozen=True)
class Block:
    """The symmetric group on ``entries`` (sorted), acting on outputs as ``kind`` says.

    ``flips``: (kind ``tuple``, entries with one output part each) the group also reflects any entry
    together with its output part, ``x_i -> lo + hi - x_i`` and ``y_i -> lo_y + hi_y - y_i`` (a value
    symmetry; for bits with Bool parts the flips ``x_i -> 1 - x_i``, ``y_i -> 1 - y_i``; with the
    permutations, the hyperoctahedral group on the block). In codes, the reflection maps ``c`` to
    ``size - 1 - c``, so every orbit has a member whose codes are in the lower half, ``c <= size - 1 - c``.
    """

    entries: tuple[int, ...]
    kind: str
    flips: bool = False


@dataclass(frozen=True)
class Symmetry:
    """A proved group: a product of symmetric groups on disjoint blocks of the ``n`` input entries."""

    n: int
    blocks: tuple[Block, ...]
    proofs: int = 0  # generators proved (diagram equalities that held)
    attempts: int = 0  # candidate generators tried
    note: str = ""  # e.g. "proved on a BDD compilation" for SDD programs

    @property
    def order(self) -> int:
        return math.prod(math.factorial(len(b.entries)) * (2 ** len(b.entries) if b.flips else 1) for b in self.blocks)

    def describe(self) -> str:
        """``"S_10 on entries 0..9, outputs permuted with inputs"``, blocks joined by ``x``."""
        if not self.blocks:
            return "trivial (no symmetry proved)"
        return " x ".join(
            f"S_{len(b.entries)} on entries {_entries_text(b.entries)}, {ACTIONS[b.kind]}"
            + (", each entry's value reflected with its output" if b.flips else "")
            for b in self.blocks
        )

    def covering(self, entries: Sequence[int] | None = None) -> list[list[int]]:
        """The blocks as entry lists, plus a singleton for every other entry of ``entries`` (default: all)."""
        keep = set(range(self.n) if entries is None else entries)
        out = [[e for e in b.entries if e in keep] for b in self.blocks]
        covered = {e for b in out for e in b}
        return [b for b in out if b] + [[e] for e in sorted(keep - covered)]


def _entries_text(entries: Sequence[int]) -> str:
    if len(entries) > 2 and list(entries) == list(range(entries[0], entries[-1] + 1)):
        return f"{entries[0]}..{entries[-1]}"
    return ", ".join(map(str, entries))


# -- multisets and products ------------------------------------------------------------------


def multisets(size: int, types: int) -> np.ndarray:
    """Every multiset of ``size`` types out of ``0..types-1``, as sorted rows ``(count, size)``."""
    if size == 0:
        return np.zeros((1, 0), dtype=np.int64)
    rows = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations_with_replacement(range(types), size)), dtype=np.int64
    )
    return rows.reshape(-1, size)


def multiset_count(size: int, types: int) -> int:
    """``C(size + types - 1, size)``: the number of rows of :func:`multisets`."""
    return math.comb(size + types - 1, size) if types else int(size == 0)


def product_rows(parts: Sequence[np.ndarray], chunk: int) -> Iterator[np.ndarray]:
    """The rows of the Cartesian product of ``parts`` (each ``(rows, width)``), concatenated, in chunks.

    The last part varies fastest.
    """
    sizes = [len(p) for p in parts]
    total = math.prod(sizes)
    for start in range(0, total, chunk):
        index = np.arange(start, min(total, start + chunk), dtype=np.int64)
        columns = []
        for part, size in zip(reversed(parts), reversed(sizes)):
            index, digit = np.divmod(index, size)
            columns.append(part[digit])
        yield np.concatenate(columns[::-1], axis=1) if columns else np.zeros((len(index), 0), dtype=np.int64)


# -- neighbour pairs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairTypes:
    """Per-entry types ``(x_i, x'_i)`` of a built-in relation on entry digits ``0..k-1``, sorted by ``(x_i, x'_i)``.

    ``exactly_one``: exactly one entry moves (hamming, one-entry); otherwise at least one
    (all-entries).
    """

    x: np.ndarray
    x_prime: np.ndarray
    still: np.ndarray  # type ids with x_i = x'_i
    moved: np.ndarray  # type ids with x_i != x'_i
    exactly_one: bool

    @classmethod
    def of(cls, relation: str, k: int) -> PairTypes:
        pairs = []
        for v in range(k):
            for u in range(k):
                if u == v or (relation == "hamming") or abs(u - v) == 1:
                    pairs.append((v, u))
        x = np.array([p[0] for p in pairs], dtype=np.int64)
        xp = np.array([p[1] for p in pairs], dtype=np.int64)
        return cls(x, xp, np.flatnonzero(x == xp), np.flatnonzero(x != xp), relation != "all-entries")

    def x_lower_half(self) -> PairTypes:
        """The types with ``x_i`` in the lower half of the digits, ``x_i <= k - 1 - x_i`` (entries whose value a
        reflection symmetry moves there in ``x``; for bits, ``x_i = 0``)."""
        k = int(max(self.x.max(), self.x_prime.max())) + 1
        keep = self.x <= k - 1 - self.x
        x, xp = self.x[keep], self.x_prime[keep]
        return PairTypes(x, xp, np.flatnonzero(x == xp), np.flatnonzero(x != xp), self.exactly_one)


@dataclass
class PairOrbits:
    """Orbits of neighbour pairs ``(x, x')`` under the symmetric groups on ``blocks`` (entry lists).

    Entries outside every block are ``fixed``: they read as digit 0 in ``x`` and ``x'``
    (entries the count does not depend on). With no block at all, the one orbit moves the
    first fixed entry (its ratio is 1).
    """

    n: int
    blocks: list[list[int]]
    types: PairTypes
    fixed: list[int] = field(default_factory=list)
    flipped: frozenset[int] = frozenset()  # blocks (by index) whose entries a reflection moved to the lower half in x

    def _types(self, b: int) -> PairTypes:
        return self.types.x_lower_half() if b in self.flipped else self.types

    def _per_block(self, b: int, moved: str) -> np.ndarray:
        """Sorted type rows of block ``b`` with no moved entry ("none"), one ("one") or at least one ("some")."""
        t, size = self._types(b), len(self.blocks[b])
        if moved == "none":
            still: np.ndarray = t.still[multisets(size, len(t.still))]
            return still
        if moved == "one":
            rest = t.still[multisets(size - 1, len(t.still))]
            rows = np.concatenate([np.repeat(t.moved, len(rest))[:, None], np.tile(rest, (len(t.moved), 1))], axis=1)
            return np.sort(rows, axis=1)
        every = multisets(size, len(t.x))
        if moved == "all":
            return every
        return every[np.isin(every, t.moved).any(axis=1)]

    def _counts(self, b: int) -> dict[str, int]:
        t, size = self._types(b), len(self.blocks[b])
        none = multiset_count(size, len(t.still))
        one = len(t.moved) * multiset_count(size - 1, len(t.still))
        return {"none": none, "one": one, "some": multiset_count(size, len(t.x)) - none}

    def _layouts(self) -> Iterator[list[str]]:
        """Which rows each block contributes; the layouts are disjoint and cover every orbit."""
        m = len(self.blocks)
        for star in range(m):
            if self.types.exactly_one:
                yield ["none"] * star + ["one"] + ["none"] * (m - star - 1)
            else:
                yield ["none"] * star + ["some"] + ["all"] * (m - star - 1)

    def __len__(self) -> int:
        return self.count()

    def count(self) -> int:
        """The number of orbits, a Python int of any size (``len`` stops at the size of an index)."""
        if not self.blocks:
            return 1 if self.fixed else 0
        counts = [self._counts(b) for b in range(len(self.blocks))]
        total = 0
        for layout in self._layouts():
            total += math.prod(c["none"] + c["some"] if kind == "all" else c[kind] for c, kind in zip(counts, layout))
        return total

    def inputs(self, k: int) -> int:
        """The number of input orbits (inputs up to the group) among the blocks' entries, ``k`` values each."""
        return math.prod(multiset_count(len(b), k) for b in self.blocks)

    def chunks(self, chunk: int = 1 << 18) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(x digits, x' digits)`` arrays ``(rows, n)``, each row one orbit's representative."""
        if not self.blocks:
            if self.fixed:
                x = np.zeros((1, self.n), dtype=np.int64)
                xp = x.copy()
                xp[0, self.fixed[0]] = 1
                yield x, xp
            return
        for layout in self._layouts():
            parts = [self._per_block(b, kind) for b, kind in enumerate(layout)]
            if any(len(p) == 0 for p in parts):
                continue
            for rows in product_rows(parts, chunk):
                x = np.zeros((len(rows), self.n), dtype=np.int64)
                xp = np.zeros((len(rows), self.n), dtype=np.int64)
                start = 0
                for b, block in enumerate(self.blocks):  # each block's rows index its own types
                    t = self._types(b)
                    part = rows[:, start : start + len(block)]
                    x[:, block] = t.x[part]
                    xp[:, block] = t.x_prime[part]
                    start += len(block)
                yield x, xp


def _series_power(p: Sequence[int], a: int, degree: int) -> list[int]:
    """The coefficients of ``P(z)^a`` up to ``z^degree``, for a power series with ``P(0) = 1`` and integer
    coefficients (J. C. P. Miller's recurrence ``q_m = (1/m) sum_{j=1..m} ((a + 1) j - m) p_j q_{m-j}``:
    ``O(degree^2)`` whatever ``a``)."""
    q = [1] + [0] * degree
    if a == 0:
        return q
    if a == 1:
        return list(p[: degree + 1]) + [0] * (degree + 1 - len(p))
    for m in range(1, degree + 1):
        check("sizing the symmetry sets")
        total = sum(((a + 1) * j - m) * p[j] * q[m - j] for j in range(1, min(m, len(p) - 1) + 1))
        q[m] = total // m
    return q


@dataclass(frozen=True)
class _Unit:
    """Sums over the choices of one unit's part of the output orbit (a tuple block's multiset of codes, or
    nothing) of the products, over the stabilizer's blocks within the unit, of each block's number of pair
    types: with no entry moved (``none``), every pair (``all``), one entry moved somewhere in the unit
    (``moved``), and inputs (``inputs``)."""

    none: int
    moved: int
    all: int
    inputs: int


class _BlockCounts:
    """Per block size ``m``: the multisets of still pair types, of pairs with one moved entry, of every pair
    type, and of input values (``k`` of them), as :meth:`PairOrbits.count` counts them."""

    def __init__(self, types: PairTypes, k: int) -> None:
        self.types, self.k = types, k

    def of(self, m: int) -> tuple[int, int, int, int]:
        t = self.types
        still = multiset_count(m, len(t.still))
        moved = len(t.moved) * multiset_count(m - 1, len(t.still)) if m else 0
        return still, moved, multiset_count(m, len(t.x)), multiset_count(m, self.k)

    def fixed(self, m: int, weight: int = 1) -> _Unit:
        """A unit whose block of ``m`` entries the output never splits, over ``weight`` output choices."""
        none, moved, every, inputs = self.of(m)
        return _Unit(weight * none, weight * moved, weight * every, weight * inputs)

    def tuple_block(self, s: int, codes: int) -> _Unit:
        """A tuple block of ``s`` entries whose output parts take ``codes`` codes: the output orbit's part is a
        multiset of codes and the stabilizer splits the block by equal codes, so each sum over the multisets
        is the coefficient of ``z^s`` in ``F(z)^codes``, ``F(z) = sum_m f(m) z^m`` (``f(0) = 1``); a moved
        entry sits in one code's block: ``codes [z^s] G(z) F_none(z)^(codes - 1)``."""
        rows = [self.of(m) for m in range(s + 1)]
        series = [[1] + [row[i] for row in rows[1:]] for i in range(4)]
        none, every, inputs = (_series_power(series[i], codes, s)[s] for i in (0, 2, 3))
        rest = _series_power(series[0], codes - 1, s)
        moved = codes * sum(rows[j][1] * rest[s - j] for j in range(1, s + 1))
        return _Unit(none, moved, every, inputs)


def _combined(units: Sequence[_Unit], exactly_one: bool) -> tuple[int, int]:
    """``(pair orbits, input orbits)`` summed over the output orbits made of independent choices per unit:
    with exactly one moved entry, ``sum_U moved_U prod_{U' != U} none_U'``; with at least one (all-entries),
    ``prod all - prod none`` (the layouts of :meth:`PairOrbits._layouts` telescope)."""
    none, moved, every, inputs = 1, 0, 1, 1
    for u in units:
        none, moved = none * u.none, moved * u.none + none * u.moved
        every, inputs = every * u.all, inputs * u.inputs
    return (moved if exactly_one else every - none), inputs


def orbit_set_sizes(sym: Symmetry, act: OutputAction, types: PairTypes, k: int) -> tuple[int, int]:
    """``(|C| triples, |I| pairs)`` of the orbit sets that take every output orbit of ``sym``
    (:meth:`OutputAction.orbits`) with the neighbour-pair orbits of its stabilizer
    (:meth:`OutputAction.stabilizer`, other entries alone), counted in closed form: Python ints of any size,
    without listing the outputs."""
    counts = _BlockCounts(types, k)
    tuples = [b for b in sym.blocks if b.kind == TUPLE]
    if tuples:
        units: list[_Unit] = []
        covered: set[int] = set()
        for b in sym.blocks:
            covered.update(b.entries)
            if b.kind == TUPLE:
                units.append(counts.tuple_block(len(b.entries), act.orbit_codes(b.entries[0], b.flips)))
            else:
                units.append(counts.fixed(len(b.entries), math.prod(act.part_size(e) for e in b.entries)))
        units += [counts.fixed(1, act.part_size(e)) for e in range(act.n) if e not in covered]
        return _combined(units, types.exactly_one)
    covered = {e for b in sym.blocks for e in b.entries}
    free = [counts.fixed(1) for e in range(act.n) if e not in covered]
    base = [counts.fixed(len(b.entries)) for b in sym.blocks]
    triples, pairs = _combined(base + free, types.exactly_one)
    outputs = act.count_orbits(sym)
    split = [  # an output labelled with a block's first entry: the stabilizer leaves that entry alone
        j for j, b in enumerate(sym.blocks) if b.kind == INDEX and act.index_offset(b.entries[0]) is not None
    ]
    total_triples, total_pairs = (outputs - len(split)) * triples, (outputs - len(split)) * pairs
    for j in split:
        m = len(sym.blocks[j].entries)
        t, p = _combined(base[:j] + [counts.fixed(m - 1), counts.fixed(1)] + base[j + 1 :] + free, types.exactly_one)
        total_triples, total_pairs = total_triples + t, total_pairs + p
    return total_triples, total_pairs


class InputIndex:
    """Numbers the input orbits of the symmetric groups on ``blocks`` (entries outside them are fixed).

    An orbit's number mixes, block by block (the last fastest), the colexicographic rank of
    its multiset of digits: for sorted digits ``a_0 <= a_1 <= ...``, ``sum_i C(a_i + i, i + 1)``.
    """

    def __init__(self, n: int, k: int, blocks: Sequence[Sequence[int]]) -> None:
        self.n, self.k = n, k
        self.blocks = [list(b) for b in blocks]
        self.counts = [multiset_count(len(b), k) for b in self.blocks]
        self.strides = [math.prod(self.counts[j + 1 :]) for j in range(len(self.blocks))]
        self.binomials = [
            np.array([[math.comb(a + i, i + 1) for a in range(k)] for i in range(len(b))], dtype=np.int64)
            for b in self.blocks
        ]

    def __len__(self) -> int:
        return math.prod(self.counts)

    def rank(self, digits: np.ndarray, canonical: bool = False) -> np.ndarray:
        """The orbit number of each row of ``digits`` (any member of the orbit; ``canonical``: rows
        already sorted within every block)."""
        out = np.zeros(len(digits), dtype=np.int64)
        for block, stride, table in zip(self.blocks, self.strides, self.binomials):
            part = digits[:, block] if canonical or len(block) == 1 else np.sort(digits[:, block], axis=1)
            r = np.zeros(len(digits), dtype=np.int64)
            for i in range(len(block)):
                r += table[i][part[:, i]]
            out += r * stride
        return out

    def members(self) -> np.ndarray:
        """One input per orbit, as digit rows, row ``r`` of orbit number ``r``."""
        parts = [multisets(len(b), self.k) for b in self.blocks]
        columns = [e for b in self.blocks for e in b]
        out = np.zeros((len(self), self.n), dtype=np.int64)
        for rows in product_rows(parts, len(self) or 1):
            x = np.zeros((len(rows), self.n), dtype=np.int64)
            x[:, columns] = rows
            out[self.rank(x)] = x
        return out


def canonical_inputs(digits: np.ndarray, blocks: Sequence[Sequence[int]]) -> np.ndarray:
    """Each row's orbit representative: digits sorted ascending within every block (in place)."""
    for block in blocks:
        if len(block) > 1:
            cols = list(block)
            digits[:, cols] = np.sort(digits[:, cols], axis=1)
    return digits


def input_orbits(n: int, k: int, blocks: Sequence[Sequence[int]]) -> np.ndarray:
    """Every input orbit's representative (its lexicographically smallest member), as digit rows in
    lexicographic order. ``blocks`` must cover the entries (singletons included)."""
    parts = [multisets(len(b), k) for b in blocks]
    columns = [e for b in blocks for e in b]
    x = np.zeros((math.prod(len(p) for p in parts), n), dtype=np.int64)
    start = 0
    for rows in product_rows(parts, 1 << 20):
        x[start : start + len(rows), columns] = rows
        start += len(rows)
    return x[np.lexsort(x.T[::-1])]


# -- outputs --------------------------------------------------------------------------------


class OutputAction:
    """How a symmetry moves the outputs of a program of output shape ``shape`` with ``n`` input entries.

    Outputs are rows of leaf offsets. For the ``tuple`` action, part ``e`` of the output
    tuple (its leaves ``parts[e]``) belongs to entry ``e``; a part's *code* numbers its values
    in mixed radix over its leaves.
    """

    def __init__(self, shape: Shape, n: int) -> None:
        self.shape = shape
        self.n = n
        self.leaves = leaves(shape)
        self.sizes = [leaf.size for leaf in self.leaves]
        self.parts: list[tuple[int, int]] | None = None
        if isinstance(shape, TupleShape) and len(shape.parts) == n:
            self.parts, j = [], 0
            for part in shape.parts:
                width = len(leaves(part))
                self.parts.append((j, j + width))
                j += width

    def applicable(self, kind: str) -> bool:
        if kind == TUPLE:
            return self.parts is not None
        if kind == INDEX:
            return len(self.leaves) == 1 and isinstance(self.leaves[0], (IntShape, BoolShape))
        return True

    def same_part(self, a: int, b: int) -> bool:
        """Parts ``a`` and ``b`` have the same shape (a tuple transposition may swap them)."""
        assert self.parts is not None
        return isinstance(self.shape, TupleShape) and self.shape.parts[a] == self.shape.parts[b]

    def index_offset(self, label: int) -> int | None:
        """The offset of the output value ``label`` (an entry index) in the single leaf, if it is in range."""
        leaf = self.leaves[0]
        offset = label - leaf.lo
        return offset if 0 <= offset < leaf.size else None

    # -- part codes -------------------------------------------------------------------------
    def part_codes(self, offsets: np.ndarray) -> np.ndarray:
        """``(rows, n)``: each entry's part code."""
        assert self.parts is not None
        codes = np.zeros((len(offsets), self.n), dtype=np.int64)
        for e, (a, b) in enumerate(self.parts):
            for j in range(a, b):
                codes[:, e] = codes[:, e] * self.sizes[j] + offsets[:, j]
        return codes

    def part_size(self, e: int) -> int:
        assert self.parts is not None
        a, b = self.parts[e]
        return math.prod(self.sizes[a:b])

    def orbit_codes(self, e: int, reflected: bool) -> int:
        """How many part codes of entry ``e`` represent its orbits: all of them, or with reflections the lower
        half ``0..ceil(size / 2) - 1``."""
        size = self.part_size(e)
        return (size + 1) // 2 if reflected else size

    def from_part_codes(self, codes: np.ndarray) -> np.ndarray:
        assert self.parts is not None
        offsets = np.zeros((len(codes), len(self.leaves)), dtype=np.int64)
        for e, (a, b) in enumerate(self.parts):
            rest = codes[:, e].copy()
            for j in reversed(range(a, b)):
                rest, offsets[:, j] = np.divmod(rest, self.sizes[j])
        return offsets

    # -- orbits under a symmetry ------------------------------------------------------------
    def canonical(self, offsets: np.ndarray, sym: Symmetry) -> np.ndarray:
        """Each output's orbit representative under ``sym`` (part codes reflected into their lower half, then
        sorted; smallest index label)."""
        out: np.ndarray = offsets.copy()
        tuples = [b.entries for b in sym.blocks if b.kind == TUPLE]
        if tuples:
            codes = self.part_codes(out)
            for block in sym.blocks:
                for e in block.entries if block.flips else ():
                    codes[:, e] = np.minimum(codes[:, e], self.part_size(e) - 1 - codes[:, e])
            out = self.from_part_codes(canonical_inputs(codes, tuples))
        for block in sym.blocks:
            if block.kind == INDEX:
                labels = [self.index_offset(e) for e in block.entries]
                first = labels[0]
                out[np.isin(out[:, 0], labels), 0] = first  # type: ignore[arg-type]
        return out

    def count_orbits(self, sym: Symmetry) -> int:
        """The number of output orbits (over the whole output shape) under ``sym``."""
        if any(b.kind == TUPLE for b in sym.blocks):
            in_blocks = {e for b in sym.blocks if b.kind == TUPLE for e in b.entries}
            total = math.prod(
                multiset_count(len(b.entries), self.orbit_codes(b.entries[0], b.flips))
                for b in sym.blocks
                if b.kind == TUPLE
            )
            return total * math.prod(self.part_size(e) for e in range(self.n) if e not in in_blocks)
        size = math.prod(self.sizes)
        for block in sym.blocks:
            if block.kind == INDEX:
                size -= len(block.entries) - 1
        return size

    def orbits(self, sym: Symmetry, chunk: int = 1 << 16) -> Iterator[np.ndarray]:
        """Every output orbit's representative under ``sym``, as rows of leaf offsets."""
        if any(b.kind == TUPLE for b in sym.blocks):
            flipped = {b.entries[0] for b in sym.blocks if b.flips}
            blocks = [list(b.entries) for b in sym.blocks if b.kind == TUPLE]
            covered = {e for b in blocks for e in b}
            blocks += [[e] for e in range(self.n) if e not in covered]
            blocks.sort(key=min)
            parts = [multisets(len(b), self.orbit_codes(b[0], b[0] in flipped)) for b in blocks]
            columns = [e for b in blocks for e in b]
            for rows in product_rows(parts, chunk):
                codes = np.zeros((len(rows), self.n), dtype=np.int64)
                codes[:, columns] = rows
                yield self.from_part_codes(codes)
            return
        total = math.prod(self.sizes)
        dropped = {self.index_offset(e) for b in sym.blocks if b.kind == INDEX for e in b.entries[1:]}
        for start in range(0, total, chunk):
            positions = np.arange(start, min(total, start + chunk), dtype=np.int64)
            offsets = self.offsets_of(positions)
            if dropped:
                offsets = offsets[~np.isin(offsets[:, 0], list(dropped))]  # type: ignore[arg-type]
            yield offsets

    def offsets_of(self, positions: np.ndarray) -> np.ndarray:
        """Leaf offsets of outputs given by their positions in ``shape.values()`` order."""
        offsets = np.zeros((len(positions), len(self.leaves)), dtype=np.int64)
        rest = positions.copy()
        for j in reversed(range(len(self.leaves))):
            rest, offsets[:, j] = np.divmod(rest, self.sizes[j])
        return offsets

    def position(self, offsets: Sequence[int]) -> int:
        """The position (a Python int, any size) of one output in ``shape.values()`` order."""
        index = 0
        for size, offset in zip(self.sizes, offsets):
            index = index * size + int(offset)
        return index

    def stabilizer(self, sym: Symmetry, offsets: np.ndarray) -> list[list[int]]:
        """The blocks of the subgroup of ``sym`` that fixes the output ``offsets`` (one row)."""
        out: list[list[int]] = []
        for block in sym.blocks:
            if block.kind == UNCHANGED:
                out.append(list(block.entries))
            elif block.kind == TUPLE:
                codes = self.part_codes(offsets[None, :])[0]
                by_code: dict[int, list[int]] = {}
                for e in block.entries:
                    by_code.setdefault(int(codes[e]), []).append(e)
                out.extend(by_code.values())
            else:
                label = int(offsets[0])
                out.append([e for e in block.entries if self.index_offset(e) != label])
        return [b for b in out if len(b) > 1]


__all__ = [
    "Block",
    "Symmetry",
    "UNCHANGED",
    "TUPLE",
    "INDEX",
    "multisets",
    "multiset_count",
    "product_rows",
    "PairTypes",
    "PairOrbits",
    "OutputAction",
    "InputIndex",
    "canonical_inputs",
    "input_orbits",
    "orbit_set_sizes",
]
