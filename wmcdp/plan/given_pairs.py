"""The notions over pairs of a program whose parts are independent given the input: δ(ε), ε(δ), profiles, Rényi.

The given-input plan (:mod:`.given_input`) splits the output into parts ``c`` that share input entries but no
random bit, so ``P(y | x) = prod_c P_c(y_c | x)``. Every notion over pairs sums, over the outputs of one pair
``(x, x')``, a term homogeneous of degree one in ``(P(y | x), P(y | x'))`` (``max(0, p - e^ε q)``,
``p^α q^(1-α)``, the mass ``p`` at the loss ``ln p/q``), so the outputs of equal ratio may be merged into one
group with both masses summed (:class:`~.losses.Groups`, the pair's privacy-loss distribution). The groups of a
pair are the products of its parts' groups (ratios multiply, masses multiply, equal ratios merge again:
:meth:`~.losses.Groups.compose`), exactly in exact runs (integer numerators over the product of the parts'
denominators) and as the loss code merges float logs in float runs. A part whose entries hold the same values in
``x`` and ``x'`` has one group of ratio 1 and contributes nothing but its total mass.

A pair's groups depend only on the rows ``(u, v)`` of the parts that move (a multiset of (class, u, v)): its
*signature*. Pairs of one signature have equal sums, so one per signature is evaluated, the first in the
exhaustive sets' order (the smallest code of ``x``, then the relation's rank of ``x'``), and the notion's scan
over these pairs (:class:`~.pairs.RowPairs`, each pair's groups as its row) gives the exhaustive sets' maximum
with the exhaustive sets' witness. Under a relation that moves one entry (hamming, one-entry) only the parts that
read the entry ``i`` move, so the signatures are listed from the values of the entries those parts read (the
other entries at their lowest value, which is the first pair of the signature); under the other relations every
neighbour pair is listed (:func:`~.pairs.pair_directions`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.limits import check
from ..base.numbers import size_text
from ..count.exact import Scaled
from ..count.probabilities import Logs, masses_arith, to_masses
from ..lang.relations import Relation, check_relation
from .given_parts import GivenInput
from .losses import Groups, TooManyLosses
from .pairs import PairWitness, RowPairs, check_some_pair, pair_directions
from .parts import Part
from .planner import PlanReport, announce

#: the relations under which a pair moves one entry, whose signatures are listed entry by entry
MOVES_ONE = ("hamming", "one-entry")
#: the most cells (pairs times groups) the table of the pairs' groups may hold
MAX_CELLS = 1 << 24
#: pairs listed per step
CHUNK = 1 << 16

Signature = tuple[int, ...]


def listed_pairs(relation: Relation, domain: Any) -> Callable[[list[Part]], int]:
    """The count of the pairs the plan lists for a notion over pairs, for :func:`~.given_input.given_input_of`:
    per entry ``i``, the values of the entries the parts reading ``i`` read times ``x_i``'s moves, under a
    relation that moves one entry; every neighbour pair under the others."""

    def count(parts: list[Part]) -> int:
        if not (relation.builtin and relation.name in MOVES_ONE):
            return relation.count_pairs(domain)
        k = len(domain.entry_values)
        if relation.name == "hamming":
            return sum(k ** len(near) * (k - 1) for near in _neighbourhoods(parts, domain.n))
        return sum(k ** (len(near) - 1) * 2 * (k - 1) for near in _neighbourhoods(parts, domain.n))

    return count


def _neighbourhoods(parts: list[Part], n: int) -> list[tuple[int, ...]]:
    """Per entry ``i``: ``i`` and every entry a part that reads ``i`` reads, in order."""
    return [tuple(sorted({i}.union(*(p.entries for p in parts if i in p.entries)))) for i in range(n)]


#: the bound of a notion over pairs, in the plan's words
BOUND = "max over neighbour pairs of the notion on the product of the parts' loss distributions"


@dataclass
class _Listing:
    """The first pair of each signature: its exhaustive order key and the digits of ``x`` and ``x'``."""

    first: dict[Signature, tuple[Any, np.ndarray, np.ndarray]]

    def add(self, signatures: np.ndarray, keys: Any, da: np.ndarray, db: np.ndarray) -> None:
        """The chunk's pairs (rows of ``signatures`` with their ``keys``), each signature's first kept."""
        order = np.argsort(keys, kind="stable")
        rows, first = np.unique(signatures[order], axis=0, return_index=True)
        for row, i in zip(rows, order[first]):
            sig, key = tuple(int(v) for v in row), keys[i]
            if sig not in self.first or key < self.first[sig][0]:
                self.first[sig] = (key, da[i], db[i])


def _signatures(given: GivenInput, da: np.ndarray, db: np.ndarray) -> np.ndarray:
    """Per pair (digits of ``x`` and ``x'``): per slot ``u * rows + v`` where its rows differ, else -1, sorted
    among the slots of one class and size (so the signature is the multiset of the moving parts' rows)."""
    columns = []
    for slot in given.slots:
        u, v = given.local(da, slot), given.local(db, slot)
        rows = len(given.tables[slot.table].logs)
        columns.append(np.where(u != v, u * rows + v, -1))
    out = np.stack(columns, axis=1)
    for group in _slot_groups(given):
        out[:, group] = np.sort(out[:, group], axis=1)
    return out


def _slot_groups(given: GivenInput) -> list[list[int]]:
    """The slots of one class with as many members, each group in order."""
    groups: dict[tuple[int, int], list[int]] = {}
    for j, slot in enumerate(given.slots):
        groups.setdefault((slot.table, len(slot.members)), []).append(j)
    return list(groups.values())


def _keys(digits: np.ndarray, k: int, directions: int, rank: int) -> np.ndarray:
    """The exhaustive order keys ``code(x) * directions + rank`` of inputs given by their digits, as Python ints
    (object) when they may pass int64."""
    n = digits.shape[1]
    big = n * math.log2(max(k, 2)) + math.log2(directions) > 62
    place = np.array([k ** (n - 1 - i) for i in range(n)], dtype=object if big else np.int64)
    codes: np.ndarray = (digits.astype(object) if big else digits) @ place
    return codes * directions + rank


def _local_pairs(given: GivenInput, relation: Relation) -> Iterator[tuple[Any, np.ndarray, np.ndarray]]:
    """Under a relation that moves one entry: per entry ``i``, every value of the entries the parts reading ``i``
    read and every move of ``x_i``, the other entries at their lowest value, as ``(keys, digits of x, of x')``."""
    domain = given.program.inputs
    n, k = domain.n, len(domain.entry_values)
    directions = relation.direction_count(domain)
    for i, near in enumerate(_neighbourhoods(given.parts, n)):
        for start in range(0, k ** len(near), CHUNK):
            check("given-input plan: pairs")
            local = _local_digits(np.arange(start, min(start + CHUNK, k ** len(near)), dtype=np.int64), near, k)
            da = np.zeros((len(local), n), dtype=np.int64)
            da[:, near] = local
            for rank, moved in _moves_of(relation, i, k, da[:, i]):
                db = da[moved].copy()
                db[:, i] = _moved_value(relation, rank, k, db[:, i])
                yield _keys(da[moved], k, directions, rank), da[moved], db


def _local_digits(codes: np.ndarray, near: tuple[int, ...], k: int) -> np.ndarray:
    m = len(near)
    return np.stack([(codes // k ** (m - 1 - j)) % k for j in range(m)], axis=1).reshape(len(codes), m)


def _moves_of(relation: Relation, i: int, k: int, values: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """The directions that move entry ``i`` (digits ``values``): ``(rank, which inputs have it)``."""
    if relation.name == "hamming":
        for v in range(k):
            yield i * k + v, values != v
    else:
        yield 2 * i, values > 0
        yield 2 * i + 1, values < k - 1


def _moved_value(relation: Relation, rank: int, k: int, values: np.ndarray) -> np.ndarray:
    if relation.name == "hamming":
        return np.full(len(values), rank % k, dtype=np.int64)
    return values + (1 if rank % 2 else -1)


def _listed_pairs(given: GivenInput, relation: Relation) -> Iterator[tuple[Any, np.ndarray, np.ndarray]]:
    """Every neighbour pair in the exhaustive sets' order keys, as ``(keys, digits of x, of x')``."""
    for src, dst, keys in pair_directions(given.program.inputs, relation, CHUNK):
        check("given-input plan: pairs")
        yield keys, given.digits(src), given.digits(dst)


class _Masses:
    """Each class's table as masses (integer numerators over its denominator, or natural logs) and its groups per
    pair of rows, formed once."""

    def __init__(self, given: GivenInput) -> None:
        self.given = given
        self.exact = all(t.values is not None for t in given.tables)
        self.ariths = [masses_arith(t.arith, t.compiled) if self.exact else Logs for t in given.tables]
        self.rows = [
            to_masses(t.arith, t.values, t.compiled) if self.exact and t.values is not None else t.logs
            for t in given.tables
        ]  # a float part makes the whole run float: every part's masses as logs
        self.cache: dict[tuple[int, int, int], Groups] = {}

    def groups(self, table: int, u: int, v: int) -> Groups:
        key = (table, u, v)
        if key not in self.cache:
            rows = self.rows[table]
            self.cache[key] = Groups.of(self.ariths[table], rows[u], rows[v])
        return self.cache[key]

    @property
    def denominator(self) -> int:
        """The denominator of a pair's masses: the product over every part of its class's denominator."""
        ariths: list[Any] = self.ariths
        return math.prod(ariths[s.table].denominator ** len(s.members) for s in self.given.slots)

    def of(self, signature: Signature) -> Groups | None:
        """The groups of a pair of this signature (its moving parts' groups composed), None when no part moves."""
        out: Groups | None = None
        for j, code in zip(self._slot_order(), signature):
            if code < 0:
                continue
            slot = self.given.slots[j]
            rows = len(self.rows[slot.table])
            part = self.groups(slot.table, code // rows, code % rows)
            for _ in slot.members:
                check("given-input plan: loss distributions")
                out = part if out is None else out.compose(part)
        return out

    def _slot_order(self) -> list[int]:
        """The slot whose class and size each signature column is (the columns of a group are sorted)."""
        order = [0] * len(self.given.slots)
        for group in _slot_groups(self.given):
            for j in group:
                order[j] = group[0]
        return order


def _rows(masses: _Masses, signatures: list[Signature]) -> tuple[Any, np.ndarray]:
    """The arithmetic of the pairs' masses and their table: rows ``2 s`` and ``2 s + 1`` the masses under ``x`` and
    ``x'`` of signature ``s``'s groups (zero-padded: zero masses add nothing to any sum)."""
    groups = [masses.of(sig) for sig in signatures]
    width = max(1 if g is None else len(g.a) for g in groups)
    if 2 * len(groups) * width > MAX_CELLS:
        raise TooManyLosses(
            f"{size_text(len(groups))} distinct pairs of {width} losses (limit {size_text(MAX_CELLS)} cells)"
        )
    if masses.exact:
        denominator = masses.denominator
        arith: Any = Scaled(denominator)
        table = np.zeros((2 * len(groups), width), dtype=object)
        for s, g in enumerate(groups):
            if g is None:
                table[2 * s, 0] = table[2 * s + 1, 0] = denominator
                continue
            factor = denominator // g.arith.denominator  # the parts that do not move: their whole mass each
            table[2 * s, : len(g.a)] = [a * factor for a in g.a]
            table[2 * s + 1, : len(g.b)] = [b * factor for b in g.b]
        return arith, table
    table = np.full((2 * len(groups), width), -np.inf)
    for s, g in enumerate(groups):
        if g is None:
            table[2 * s, 0] = table[2 * s + 1, 0] = 0.0
            continue
        table[2 * s, : len(g.a)] = g.a
        table[2 * s + 1, : len(g.b)] = g.b
    return Logs, table


def given_pairs(given: GivenInput, relation: Relation, start: float) -> tuple[RowPairs | None, Any]:
    """The pairs of the proved parts ``given`` (one per signature, module docstring) with their groups as rows,
    and the plan report; ``(None, why)`` when their loss distributions multiply past the limits."""
    domain = given.program.inputs
    if not relation.builtin:
        check_relation(relation, domain)
    check_some_pair(relation, domain)
    announce("given-input", given.estimate, given.describe(BOUND))
    local = relation.builtin and relation.name in MOVES_ONE
    listing = _Listing({})
    for keys, da, db in _local_pairs(given, relation) if local else _listed_pairs(given, relation):
        if len(keys):
            listing.add(_signatures(given, da, db), keys, da, db)
    signatures = sorted(listing.first, key=lambda sig: listing.first[sig][0])
    masses = _Masses(given)
    try:
        arith, table = _rows(masses, signatures)
    except TooManyLosses as e:
        return None, f"the parts' loss distributions multiply past the limits ({e})"
    witnesses = [_witness(domain, *listing.first[sig][1:]) for sig in signatures]
    src = np.arange(0, 2 * len(signatures), 2, dtype=np.int64)
    size = sum(t.compiled.size for t in given.tables)
    source = RowPairs(arith, table, src, src + 1, np.arange(len(signatures)), lambda key: witnesses[key], size)
    source.claims = given.claims(masses.exact, _claims(local, relation))
    report = PlanReport(
        "given-input",
        given.describe(BOUND),
        len(signatures),
        relation.count_pairs(domain) if relation.builtin else None,
        given.estimate,
        given.seconds,
        time.perf_counter() - start,
        len(given.parts),
        len(given.tables),
        considered=(("given-input", given.estimate, given.describe(BOUND)),),
        claims=source.claims,
    )
    return source, report


def _witness(domain: Any, da: np.ndarray, db: np.ndarray) -> PairWitness:
    return PairWitness(tuple(int(d) + domain.lo for d in da), tuple(int(d) + domain.lo for d in db))


def _claims(local: bool, relation: Relation) -> tuple[tuple[str, str], tuple[str, str]]:
    """How a pair's parts combine, and how the bound covers every neighbour pair."""
    combined = (
        "a pair's privacy-loss distribution is the product of its parts' (ratios multiply, masses multiply, equal "
        "ratios merged)",
        "the parts are independent given the input; every notion over pairs sums a term homogeneous of degree one "
        "in (P(y | x), P(y | x')), so merging the outputs of equal ratio changes no sum",
    )
    listed = (
        f"under {relation.name} a pair moves one entry, and only the parts that read it: every value of the entries "
        "those parts read and every move listed, the other entries at their lowest value"
        if local
        else "every neighbour pair listed"
    )
    covered = (
        "the bound is the largest over every neighbour pair, with the first pair attaining it",
        f"{listed}; pairs whose moving parts have the same rows have the same sums, so the first pair of each such "
        "signature (in the exhaustive sets' order) is evaluated",
    )
    return combined, covered


__all__ = ["BOUND", "MAX_CELLS", "given_pairs", "listed_pairs"]
