"""Algorithm 2 (Privacy Bound Synthesis): the tight pure-DP bound and its witness.

``e^eps = max over (x, x', y) in C of M(x, y) / M(x', y)`` (paper Problem 1, Def. 4).
A triple with ``M(x, y) > 0 = M(x', y)`` gives ``eps = inf``; 0/0 triples are skipped.
The reported value is the true maximum; the witness is the first triple of ``C`` that
attains it (in float mode: within a relative 1e-12, see :mod:`wmcdp.count.scan`), so it is the
same on every run. Exact runs give ``epsilon`` as the float nearest to ``ln(ratio)``.

With the exhaustive sets nothing is listed: the joint table of ``P(y | x)`` comes in
stripes of outputs (:meth:`wmcdp.count.probabilities.Counter.stripes`), and the neighbours of every
input are found by index arithmetic on input codes, one *direction* at a time
(:meth:`wmcdp.lang.relations.Relation.directions`), so one vectorised ratio per direction scans all
inputs.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import CoverageError, WmcdpError
from ..base.limits import check, limited
from ..compile import Compiled
from ..count.distributed import check_workers, worker_counter
from ..count.probabilities import (
    Counter,
    DenseTable,
    ProbabilityTable,
    as_compiled,
    explicit_rows,
    memory_budget,
    number_system,
)
from ..count.scan import RatioScan, ratio_scan
from ..lang.program import Program, Value
from ..lang.relations import Relation, check_relation, neighbour_relation
from ..lang.sets import (
    ExhaustiveInference,
    ExhaustivePrivacy,
    InferenceSet,
    PrivacySet,
    check_exhaustive,
    describe_pair,
)
from ..lang.shape import format_value
from ..plan.pairs import privacy_sets_at
from ..plan.symmetry.group import InputIndex, OutputAction, PairOrbits
from ..plan.symmetry.runs import BATCH_CELLS, MAX_TRIPLES, PrivacyPlan, privacy_plan


@dataclass(frozen=True)
class PrivacyWitness:
    """The worst-case triple: neighbouring inputs ``x``, ``x_prime`` and output ``y``."""

    x: Value
    x_prime: Value
    y: Value


@dataclass(frozen=True)
class PrivacyResult:
    """Tight ``epsilon`` (natural log) and ``ratio = e^epsilon``; exact runs give a Fraction ratio."""

    epsilon: float
    ratio: float | Fraction
    witness: PrivacyWitness
    p_x: float | Fraction  # P(y | x) at the witness
    p_x_prime: float | Fraction  # P(y | x') at the witness
    exact: bool
    diagram_size: int
    seconds: float
    sets: Any = None  # with C="auto": the symmetry found and the set sizes (wmcdp.plan.symmetry.AutoSets)
    plan: Any = None  # with C=None: the planner's report (wmcdp.plan.PlanReport)
    log_p_x: float | None = None  # float mode: ln P(y | x) and ln P(y | x') (p_x can underflow to 0.0)
    log_p_x_prime: float | None = None
    interval: Any = None  # a certified run: the enclosure of epsilon (wmcdp.base.certified.Enclosure)

    def _repr_markdown_(self) -> str:
        from .markdown import privacy_markdown

        return privacy_markdown(self)


def check_privacy_coverage(C: PrivacySet, I: InferenceSet) -> None:
    """Algorithm 2's precondition: ``(x, y)`` and ``(x', y)`` are in ``I`` for every triple of ``C``."""
    for x, xp, ys in C.blocks:
        for side in (x, xp):
            y = I.first_missing(side, ys)
            if y is not None:
                raise CoverageError(
                    f"the inference set is missing the pair {describe_pair(side, y)} needed by the "
                    f"privacy triple ({format_value(x)}, {format_value(xp)}, {format_value(y)})"
                )


def _check_exhaustive_covered(C: ExhaustivePrivacy, I: InferenceSet) -> None:
    """An exhaustive privacy set needs every ``(x, y)`` of inputs that have a neighbour."""
    ys = tuple(C.outputs.values()) if not isinstance(C.outputs, tuple) else C.outputs
    for x, xp in C.pairs():
        check("checking coverage")
        for side in (x, xp):
            y = I.first_missing(side, ys)
            if y is not None:
                raise CoverageError(
                    f"the inference set is missing the pair {describe_pair(side, y)} needed by the "
                    f"privacy triple ({format_value(x)}, {format_value(xp)}, {format_value(y)})"
                )


def scan_exhaustive(
    counter: Counter, relation: Relation, scan: RatioScan, fixed: int | None = None, only: list[int] | None = None
) -> None:
    """Scan every neighbour pair against every output, one stripe of outputs at a time
    (``fixed`` and ``only`` choose stripes, see :meth:`Counter.stripes`).

    A built-in relation is a set of slices of the table viewed with one axis per input
    entry (no copies); a user relation's pairs are enumerated and gathered in chunks.
    """
    domain = counter.compiled.domain
    k, n = len(domain.entry_values), domain.n
    places = [k ** (n - 1 - i) for i in range(n)]
    if not relation.builtin:
        src, dst = _enumerated_pairs(domain, relation)
    for y0, table in counter.stripes(fixed, only):
        width = table.shape[1]
        if not relation.builtin:
            rows = max(1, memory_budget() // (4 * counter.itemsize * width))
            for start in range(0, len(src), rows):
                check("privacy synthesis")
                part = slice(start, start + rows)
                scan.offer(
                    table[src[part]],
                    table[dst[part]],
                    lambda j, s=start, w=width, y=y0: (s + j // w, y + j % w),  # type: ignore[misc]
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
                _positions(a_sel, a.shape, places, count, forward, y0),
                _positions(b_sel, b.shape, places, count, backward, y0),
                first_keys=(
                    _first_code(a_sel, places) * count + forward,
                    _first_code(b_sel, places) * count + backward,
                ),
            )


def _first_code(selection: tuple, places: list[int]) -> int:
    return sum((s if isinstance(s, int) else (s.start or 0)) * p for s, p in zip(selection, places))


def _positions(selection: tuple, shape: tuple, places: list[int], count: int, rank: int, y0: int):
    """``position(j)`` for a slice of the input grid: the pair key ``code(x) * count + rank`` and the output."""

    def position(j: int) -> tuple[int, int]:
        index = np.unravel_index(j, shape)
        code, axis = 0, 0
        for s, p in zip(selection, places):
            if isinstance(s, int):
                code += s * p
            else:
                code += (int(index[axis]) + (s.start or 0)) * p
                axis += 1
        return code * count + rank, y0 + int(index[-1])

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


def witness_from_key(counter: Counter, relation: Relation, key: tuple[int, int]) -> PrivacyWitness:
    domain, shape = counter.compiled.domain, counter.compiled.shape
    pair, y = key
    if relation.builtin:
        code, rank = divmod(pair, relation.direction_count(domain))
        x = domain.at(code)
        return PrivacyWitness(x, relation.step(domain, x, rank), shape.value_at(y))
    src, dst = _enumerated_pairs(domain, relation)
    return PrivacyWitness(domain.at(int(src[pair])), domain.at(int(dst[pair])), shape.value_at(y))


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


def _result(
    scan: RatioScan, witness: PrivacyWitness, exact: bool, diagram_size: int, start: float, sets: Any = None
) -> PrivacyResult:
    """The result of a scan: its maximum ratio, the witness triple that attains it and its two probabilities."""
    epsilon, ratio = scan.epsilon_and_ratio()
    p_x, p_x_prime = scan.witness_probabilities()
    log_p_x, log_p_x_prime = scan.witness_logs()
    return PrivacyResult(
        epsilon=epsilon,
        ratio=ratio,
        witness=witness,
        p_x=p_x,
        p_x_prime=p_x_prime,
        exact=exact,
        diagram_size=diagram_size,
        seconds=time.perf_counter() - start,
        sets=sets,
        log_p_x=log_p_x,
        log_p_x_prime=log_p_x_prime,
    )


def orbit_privacy(compiled: Compiled, plan: PrivacyPlan, *, exact: Any = None, force: bool = False) -> PrivacyResult:
    """Algorithm 2 over the orbit sets of a proved symmetry (:func:`wmcdp.plan.symmetry.privacy_plan`): one triple
    per orbit, each a batched count; the result's ``sets`` is the plan's :class:`~wmcdp.plan.symmetry.AutoSets`
    report."""
    start = time.perf_counter()
    triples, _ = plan.sizes()
    if triples > MAX_TRIPLES and not force:
        raise WmcdpError(
            f"the automatic symmetry sets are too large (|C| = {triples} triples; limit {MAX_TRIPLES}): "
            "force the run (--force)"
        )
    counter = Counter(compiled, number_system(compiled, exact))
    scan = ratio_scan(counter.arith)
    symbolic = getattr(counter.arith, "interned", False)  # a parametric run: every pair's key is a witness
    chunks: list[tuple[int, Any, Any, Any]] = []
    domain, n = compiled.domain, compiled.domain.n
    k = len(domain.entry_values)
    batch = max(1, BATCH_CELLS // max(n, 1))
    group: list[tuple[np.ndarray, PairOrbits, InputIndex, np.ndarray]] = []
    state: dict[str, Any] = {"key": 0, "rows": 0, "witness": None}

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
        group.clear()
        state["rows"] = 0

    for offsets, orbits in plan.items():
        index = InputIndex(n, k, orbits.blocks)
        group.append((offsets, orbits, index, index.members()))
        state["rows"] += len(index)
        if state["rows"] >= batch:
            scan_group()
    scan_group()
    act = OutputAction(compiled.shape, n)

    def triple(x: Any, xp: Any, y: Any) -> Any:
        return PrivacyWitness(
            tuple(int(v) + domain.lo for v in x),
            tuple(int(v) + domain.lo for v in xp),
            compiled.shape.value_at(act.position(y)),
        )

    if symbolic and scan.found:
        from .piecewise import piecewise_privacy

        def witness_of(key: tuple[int, int]) -> Any:
            key0, x, xp, y = chunks[bisect.bisect_right([c[0] for c in chunks], key[0]) - 1]
            return triple(x[key[0] - key0], xp[key[0] - key0], y)

        r = piecewise_privacy(counter.arith, scan, witness_of, compiled.size, start)
        return replace(r, seconds=time.perf_counter() - start, sets=plan.report())  # type: ignore[return-value]
    if not scan.found or state["witness"] is None:
        raise WmcdpError("every triple of the privacy set has P(y|x) = P(y|x') = 0; there is no ratio to bound")
    return _result(scan, triple(*state["witness"]), counter.arith.exact, compiled.size, start, plan.report())


def _privacy_task(job: dict, fixed: int, stripes: list[int], relation: str) -> tuple:
    """On a worker (:meth:`wmcdp.count.distributed.Workers.stripes`): scan some stripes; the scan's state goes back."""
    counter = worker_counter(job)
    scan = RatioScan(counter.arith)
    scan_exhaustive(counter, neighbour_relation(relation), scan, fixed, stripes)
    return scan.state()


@limited
def synthesize_privacy(
    prog: Program | Compiled,
    C: PrivacySet | ExhaustivePrivacy | PrivacyPlan | Iterable[tuple[Value, Value, Value]] | str | None = None,
    I: InferenceSet | ExhaustiveInference | Iterable[tuple[Value, Value]] | None = None,
    *,
    neighbours: str | Relation | None = None,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
    at: Value | None = None,
    workers: Any = None,
    certified: bool = False,
) -> PrivacyResult:
    """Algorithm 2. ``C`` and ``I`` default to the planner (:mod:`wmcdp.plan`): it proves the program's
    structure (independent parts, symmetries) and runs the cheapest plan that gives the bound of the
    exhaustive sets; the result's ``plan`` reports it. ``C="exhaustive"`` forces the exhaustive sets of the
    program's domain; ``C="auto"`` (with ``I`` left out) finds and proves the program's symmetries and scans
    one triple per orbit (:func:`orbit_privacy`; the result's ``sets`` reports them), as does a
    :class:`~wmcdp.plan.symmetry.PrivacyPlan` already made.

    ``at=x0`` restricts the exhaustive sets to the data-centric pairs of the database ``x0``
    (:func:`wmcdp.plan.pairs.pairs_at`: ``(x0, x')`` and ``(x', x0)`` for its neighbours ``x'``,
    every output). ``neighbours`` (for the exhaustive ``C``) defaults to the program's declared relation;
    ``exact`` is None (exact when every weight is rational), True, False or ``"binary"``
    (float probabilities read as their exact binary64 values); ``force`` runs exhaustive
    sets over the size limits of :func:`wmcdp.lang.sets.check_exhaustive`; ``workers`` (a
    :class:`wmcdp.count.distributed.Workers`) spreads the stripes of exhaustive sets over a Dask
    cluster. ``certified=True`` takes weights given as exact reals (:class:`wmcdp.Real`, such as
    ``exp(-1/2)``) and returns ``interval``, a rigorous enclosure of epsilon (:mod:`wmcdp.base.certified`).
    Keyword arguments ``max_nodes``, ``timeout`` and ``max_memory`` apply :func:`wmcdp.resource_limits`.
    """
    start = time.perf_counter()
    if certified:
        from .certify import certified_privacy

        def midpoint_run(c: Compiled) -> PrivacyResult:
            return synthesize_privacy(
                c, C, I, neighbours=neighbours, backend=backend, exact=True, force=force, at=at, workers=workers
            )

        return certified_privacy(prog, midpoint_run, backend)
    check_workers(workers)
    if C is None and I is None and at is None and workers is None:
        from ..plan.planned import planned_privacy

        return planned_privacy(prog, neighbours, backend, exact, force, synthesize_privacy)
    if isinstance(C, str) and C == "exhaustive":
        C = None
    compiled = as_compiled(prog, backend, exact)
    if isinstance(C, (str, PrivacyPlan)):
        if isinstance(C, str) and C != "auto":
            raise WmcdpError(f"C must be a privacy set, None (the planner), 'exhaustive' or 'auto', got {C!r}")
        if I is not None:
            raise WmcdpError("sets 'auto' build their own inference set; leave I out")
        if at is not None:
            raise WmcdpError("at (the data-centric pairs of one database) takes the exhaustive sets, not orbit sets")
        plan = privacy_plan(compiled, neighbours) if isinstance(C, str) else C
        return orbit_privacy(compiled, plan, exact=exact, force=force)
    relation = neighbour_relation(neighbours or compiled.program.neighbours)
    if at is not None:
        if C is not None or I is not None:
            raise WmcdpError(
                "at (the data-centric pairs of one database) replaces the exhaustive sets; "
                "give at or explicit sets, not both"
            )
        check_relation(relation, compiled.domain)
        C, I = privacy_sets_at(compiled.domain, compiled.shape, relation, at)
    if C is None:
        check_exhaustive(compiled.domain, compiled.shape.size, relation, force)
        check_relation(relation, compiled.domain)
        C = ExhaustivePrivacy(compiled.domain, compiled.shape, relation)
    elif not isinstance(C, (PrivacySet, ExhaustivePrivacy)):
        C = PrivacySet.of(C)
    if I is None:
        if not isinstance(C, ExhaustivePrivacy):
            check_exhaustive(compiled.domain, compiled.shape.size, None, force)
        I = ExhaustiveInference(compiled.domain, compiled.shape)
    elif not isinstance(I, (InferenceSet, ExhaustiveInference)):
        I = InferenceSet.of(I)
    if isinstance(C, PrivacySet):
        if len(C.blocks) == 0:
            raise WmcdpError("the privacy set is empty")
        for x, xp, _ys in C.blocks:
            compiled.domain.check(x), compiled.domain.check(xp)
        if isinstance(I, InferenceSet):
            check_privacy_coverage(C, I)
    elif isinstance(I, InferenceSet):
        _check_exhaustive_covered(C, I)
    counter = Counter(compiled, number_system(compiled, exact))
    if workers is not None and getattr(counter.arith, "interned", False):
        raise WmcdpError("a bound as a function of a symbolic parameter runs in one process; leave out workers")
    scan = ratio_scan(counter.arith)
    table: DenseTable | ProbabilityTable | None = None
    if isinstance(C, ExhaustivePrivacy) and isinstance(I, ExhaustiveInference):
        if workers is not None:
            if not C.relation.builtin:
                raise WmcdpError("a run over workers needs a built-in neighbour relation")
            for state in workers.stripes(compiled, exact, _privacy_task, C.relation.name):
                scan.merge(RatioScan.of_state(counter.arith, state))
        else:
            scan_exhaustive(counter, C.relation, scan)
    elif workers is not None:
        raise WmcdpError("workers spread exhaustive sets only; give no C and I (or the exhaustive ones)")
    else:
        table = (
            DenseTable(compiled, counter.arith, counter.table())
            if isinstance(I, ExhaustiveInference)
            else ProbabilityTable(counter.arith, explicit_rows(counter, I))
        )
        if isinstance(C, ExhaustivePrivacy):
            C = PrivacySet(tuple(C.blocks))
        _scan_blocks(table, C, scan)
    if not scan.found:
        raise WmcdpError("every triple of the privacy set has P(y|x) = P(y|x') = 0; there is no ratio to bound")

    def witness_of(key: tuple[int, int]) -> PrivacyWitness:
        if table is None:
            return witness_from_key(counter, C.relation, key)  # type: ignore[union-attr]
        block = C.blocks[key[0]]  # type: ignore[index]
        return PrivacyWitness(block[0], block[1], block[2][key[1]])

    if getattr(counter.arith, "interned", False):
        from .piecewise import piecewise_privacy

        return piecewise_privacy(counter.arith, scan, witness_of, compiled.size, start)  # type: ignore[return-value]
    return _result(scan, witness_of(scan.key), counter.arith.exact, compiled.size, start)
