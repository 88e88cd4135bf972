"""The triples ``(x, x', y)`` of a pure-ε run, one kind of object per kind of privacy set.

The kinds: the exhaustive set of a
neighbour relation (:class:`ExhaustiveTriples`), listed blocks (:class:`BlockTriples`), and the orbit sets of a
proved symmetry (:class:`OrbitTriples`). Each scans the ratios ``P(y | x) / P(y | x')`` of its triples into a
:class:`~wmcdp.count.scan.RatioScan` (Algorithm 2's maximum and first witness) and returns the function that
names the triple of a key the scan keeps: the notion (:func:`wmcdp.synthesize_privacy`) runs any of them the
same way.

With the exhaustive sets nothing is listed: the joint table of ``P(y | x)`` comes in stripes of outputs
(:meth:`wmcdp.count.probabilities.Counter.stripes`), and the neighbours of every input are found by index
arithmetic on input codes, one *direction* at a time (:meth:`wmcdp.lang.relations.Relation.directions`), so one
vectorised ratio per direction scans all inputs.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import WmcdpError
from ..base.limits import check
from ..count.distributed import local_only, worker_counter
from ..count.probabilities import (
    Counter,
    DenseTable,
    ProbabilityTable,
    explicit_rows,
    listed_support,
    memory_budget,
)
from ..count.scan import RatioScan, ScanState
from ..lang.program import Value
from ..lang.relations import Relation, neighbour_relation
from ..lang.sets import ExhaustiveInference, InferenceSet, PrivacySet
from .symmetry.group import InputIndex, OutputAction, PairOrbits
from .symmetry.runs import BATCH_CELLS, MAX_TRIPLES, AutoSets, PrivacyPlan

Triple = tuple[Value, Value, Value]
#: names the triple of a key a scan kept
Namer = Callable[[tuple[int, int]], Triple]


class ExhaustiveTriples:
    """Every neighbour pair of the domain under ``relation``, against every output."""

    report: AutoSets | None = None

    def __init__(self, relation: Relation, exact: Any = None) -> None:
        self.relation = relation
        self.exact = exact  # as the run was asked (workers rebuild its number system from it)

    def scan(self, counter: Counter, scan: Any, workers: Any = None) -> Namer:
        """Scan the joint table, in this process or spread over ``workers`` (stripes merged; a table over the
        listed support, at most :data:`~wmcdp.compile.support.SUPPORT_LIMIT` columns, is scanned in this process)."""
        if workers is not None and listed_support(counter.compiled) is None:  # a listed support is counted here
            if not self.relation.builtin:
                raise WmcdpError("a run over workers needs a built-in neighbour relation")
            compiled = counter.compiled
            for state in workers.stripes(compiled, self.exact, _stripes_task, self.relation.name):
                scan.merge(RatioScan.of_state(counter.arith, state))
        else:
            scan_exhaustive(counter, self.relation, scan)
        return lambda key: _exhaustive_triple(counter, self.relation, key)


class BlockTriples:
    """Listed blocks ``(x, x', ys)`` of a privacy set, over the rows of ``P(y | x)`` its inference set asks for."""

    report: AutoSets | None = None

    def __init__(self, C: PrivacySet, I: InferenceSet | ExhaustiveInference) -> None:
        self.C, self.I = C, I

    def scan(self, counter: Counter, scan: Any, workers: Any = None) -> Namer:
        local_only(workers, "C and I")
        table = (
            DenseTable(counter.compiled, counter.arith, counter.table())
            if isinstance(self.I, ExhaustiveInference)
            else ProbabilityTable(counter.arith, explicit_rows(counter, self.I))
        )
        _scan_blocks(table, self.C, scan)
        blocks = self.C.blocks
        return lambda key: (blocks[key[0]][0], blocks[key[0]][1], blocks[key[0]][2][key[1]])


class OrbitTriples:
    """One triple per orbit of a proved symmetry (:func:`wmcdp.plan.symmetry.privacy_plan`), each a batched count."""

    def __init__(self, plan: PrivacyPlan, force: bool = False) -> None:
        triples, _ = plan.sizes()
        if triples > MAX_TRIPLES and not force:
            raise WmcdpError(
                f"the automatic symmetry sets are too large (|C| = {triples} triples; limit {MAX_TRIPLES}): "
                "force the run (--force)"
            )
        self.plan = plan
        self.report: AutoSets | None = plan.report()

    def scan(self, counter: Counter, scan: Any, workers: Any = None) -> Namer:
        """Count ``P(y | x)`` on every input orbit of a batch of output orbits, then scan their pairs. A
        parametric run keeps every chunk (each pair's key may name a piece); otherwise only the witness."""
        local_only(workers, "C and I")
        symbolic = getattr(counter.arith, "interned", False)  # a parametric run: every pair's key is a witness
        chunks: list[tuple[int, Any, Any, Any]] = []
        compiled = counter.compiled
        domain, n = compiled.domain, compiled.domain.n
        k = len(domain.entry_values)
        batch = max(1, BATCH_CELLS // max(n, 1))
        group: list[tuple[np.ndarray, PairOrbits, InputIndex, np.ndarray]] = []
        state: dict[str, Any] = {"key": 0, "rows": 0, "witness": None}
        triples = self.plan.sizes()[0]  # (known since the plan was made): the scan's steps for a listener

        def scan_group() -> None:
            """Count P(y | x) on every input orbit of the outputs in ``group``, then scan their pairs."""
            if not group:
                return
            digits = np.concatenate([g[3] for g in group])
            offsets = np.concatenate([np.repeat(g[0][None, :], len(g[3]), axis=0) for g in group])
            values = counter.pairs(digits, offsets)
            start = 0
            for y, orbits, index, members in group:
                table = values[start : start + len(members)]
                start += len(members)
                for x, xp in orbits.chunks(batch):
                    check("privacy synthesis")
                    key0 = state["key"]
                    scan.offer(
                        table[index.rank(x, canonical=True)][:, None],
                        table[index.rank(xp)][:, None],
                        lambda j, k0=key0: (k0 + j, 0),
                        first_keys=(key0, key0),
                    )
                    if symbolic:
                        chunks.append((key0, x, xp, y))
                    elif scan.key is not None and key0 <= scan.key[0] < key0 + len(x):
                        row = scan.key[0] - key0
                        state["witness"] = (x[row], xp[row], y)
                    state["key"] = key0 + len(x)
                    progress.advance(state["key"], triples)
            group.clear()
            state["rows"] = 0

        for offsets, orbits in self.plan.items():
            index = InputIndex(n, k, orbits.blocks)
            group.append((offsets, orbits, index, index.members()))
            state["rows"] += len(index)
            if state["rows"] >= batch:
                scan_group()
        scan_group()
        act = OutputAction(compiled.shape, n)

        def triple(x: Any, xp: Any, y: Any) -> Triple:
            return (
                tuple(int(v) + domain.lo for v in x),
                tuple(int(v) + domain.lo for v in xp),
                compiled.shape.value_at(act.position(y)),
            )

        def name(key: tuple[int, int]) -> Triple:
            if not symbolic:
                assert key == scan.key and state["witness"] is not None
                return triple(*state["witness"])
            key0, x, xp, y = chunks[bisect.bisect_right([c[0] for c in chunks], key[0]) - 1]
            return triple(x[key[0] - key0], xp[key[0] - key0], y)

        return name


def scan_exhaustive(
    counter: Counter, relation: Relation, scan: RatioScan, fixed: int | None = None, only: list[int] | None = None
) -> None:
    """Scan every neighbour pair against every output some input can produce, one batch of outputs at a time
    (:meth:`Counter.columns`; with ``fixed`` and ``only``, chosen stripes of every output, see
    :meth:`Counter.stripes`). An output no input produces has ``P(y | x) = P(y | x') = 0``, a ``0/0`` triple
    the scan skips, so leaving it out changes neither the bound nor the witness.

    A built-in relation is a set of slices of the table viewed with one axis per input
    entry (no copies); a user relation's pairs are enumerated and gathered in chunks.
    """
    domain = counter.compiled.domain
    if domain.size == 1:  # (its grid would need one axis per entry, each of length 1)
        raise WmcdpError("the program has one input, so no neighbouring pair: there is no ratio to bound")
    k, n = len(domain.entry_values), domain.n
    places = [k ** (n - 1 - i) for i in range(n)]
    if not relation.builtin:
        src, dst = _enumerated_pairs(domain, relation)
    for outputs, table in counter.columns(fixed, only):
        width = table.shape[1]
        if not relation.builtin:
            rows = max(1, memory_budget() // (4 * counter.itemsize * width))
            for start in range(0, len(src), rows):
                check("privacy synthesis")
                part = slice(start, start + rows)
                scan.offer(
                    table[src[part]],
                    table[dst[part]],
                    lambda j, s=start, w=width, y=outputs: (s + j // w, int(y[j % w])),  # type: ignore[misc]
                    first_keys=(start, start),
                )
            continue
        grid = table.reshape((k,) * n + (width,))
        count = relation.direction_count(domain)
        for a_sel, b_sel, forward, backward in relation.pair_slices(domain):
            check("privacy synthesis")
            a, b = grid[a_sel], grid[b_sel]
            scan.offer(
                a,
                b,
                _positions(a_sel, a.shape, places, count, forward, outputs),
                _positions(b_sel, b.shape, places, count, backward, outputs),
                first_keys=(
                    _first_code(a_sel, places) * count + forward,
                    _first_code(b_sel, places) * count + backward,
                ),
            )


def _first_code(selection: tuple[int | slice, ...], places: list[int]) -> int:
    return sum((s if isinstance(s, int) else (s.start or 0)) * p for s, p in zip(selection, places))


def _positions(
    selection: tuple[int | slice, ...],
    shape: tuple[int, ...],
    places: list[int],
    count: int,
    rank: int,
    outputs: Sequence[int] | np.ndarray,
) -> Callable[[int], tuple[int, int]]:
    """``position(j)`` for a slice of the input grid: the pair key ``code(x) * count + rank`` and the output's
    position in the output shape (``outputs``: that of each column of the table)."""

    def position(j: int) -> tuple[int, int]:
        index = np.unravel_index(j, shape)
        code, axis = 0, 0
        for s, p in zip(selection, places):
            if isinstance(s, int):
                code += s * p
            else:
                code += (int(index[axis]) + (s.start or 0)) * p
                axis += 1
        return code * count + rank, int(outputs[int(index[-1])])

    return position


def _enumerated_pairs(domain: Any, relation: Relation) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs of a user relation, in the exhaustive set's order, as input codes."""
    src, dst = [], []
    for x in domain.values():
        check("listing neighbour pairs")
        code = domain.code(x)
        for xp in relation.neighbours(domain, x):
            src.append(code)
            dst.append(domain.code(xp))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def _exhaustive_triple(counter: Counter, relation: Relation, key: tuple[int, int]) -> Triple:
    domain, shape = counter.compiled.domain, counter.compiled.shape
    pair, y = key
    if relation.builtin:
        code, rank = divmod(pair, relation.direction_count(domain))
        x = domain.at(code)
        return x, relation.step(domain, x, rank), shape.value_at(y)
    src, dst = _enumerated_pairs(domain, relation)
    return domain.at(int(src[pair])), domain.at(int(dst[pair])), shape.value_at(y)


def _scan_blocks(table: DenseTable | ProbabilityTable, C: PrivacySet, scan: RatioScan, entries: int = 1 << 20) -> None:
    """Scan an explicit privacy set, consecutive blocks with one ``ys`` tuple at a time."""
    start = 0
    blocks = C.blocks
    while start < len(blocks):
        ys = blocks[start][2]
        stop = start + 1
        while stop < len(blocks) and blocks[stop][2] is ys and (stop - start) * len(ys) < entries:
            stop += 1
        check("privacy synthesis")
        a = np.stack([table.row(x, ys) for x, _, _ in blocks[start:stop]])
        b = np.stack([table.row(xp, ys) for _, xp, _ in blocks[start:stop]])
        width = len(ys)
        scan.offer(a, b, lambda j, s=start, w=width: (s + j // w, j % w), first_keys=(start, start))  # type: ignore[misc]
        start = stop


def _stripes_task(job: dict[str, Any], fixed: int, stripes: list[int], relation: str) -> ScanState:
    """On a worker (:meth:`wmcdp.count.distributed.Workers.stripes`): scan some stripes; the scan's state goes
    back."""
    counter = worker_counter(job)
    scan = RatioScan(counter.arith)
    scan_exhaustive(counter, neighbour_relation(relation), scan, fixed, stripes)
    return scan.state()


__all__ = ["ExhaustiveTriples", "BlockTriples", "OrbitTriples", "Triple", "scan_exhaustive"]
