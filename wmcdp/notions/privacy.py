"""Algorithm 2 (Privacy Bound Synthesis): the tight pure-DP bound and its witness.

``e^eps = max over (x, x', y) in C of M(x, y) / M(x', y)`` (paper Problem 1, Def. 4).
A triple with ``M(x, y) > 0 = M(x', y)`` gives ``eps = inf``; 0/0 triples are skipped.
The reported value is the true maximum; the witness is the first triple of ``C`` that
attains it (in float mode: within a relative 1e-12, see :mod:`wmcdp.count.scan`), so it is the
same on every run. Exact runs give ``epsilon`` as the float nearest to ``ln(ratio)``.

Whatever the sets — the exhaustive ones, listed blocks, orbit sets of a proved symmetry, or the planner's
choice among them — the run is the same: the sets become their triples (:mod:`wmcdp.plan.triples`), which
scan their ratios into one running maximum and name the triple of its witness.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..base import progress
from ..base.errors import CoverageError, NoRatioError, WmcdpError
from ..base.limits import check, limited
from ..base.numbers import Number, log_of_log
from ..compile import Compiled
from ..count.distributed import check_workers
from ..count.probabilities import (
    Counter,
    as_compiled,
    exhaustive_outputs,
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
from ..plan.at import likeliest_at, product_at
from ..plan.forced import NOT_WEIGHED, forced_plan, no_product, refuse
from ..plan.given_sets import find_sets
from ..plan.pairs import privacy_sets_at
from ..plan.planned import planned_privacy
from ..plan.planner import PlanReport, combine_max
from ..plan.structured_at import structured_privacy_at
from ..plan.symmetry.runs import PrivacyPlan, privacy_plan
from ..plan.triples import BlockTriples, ExhaustiveTriples, OrbitTriples
from .certify import certified_privacy
from .declared import declared_route
from .notion import NEIGHBOURS, Notion, register, relation, swept_axis
from .recount import (
    float_of,
    log_of,
    noted,
    noted_witness,
    prone_epsilon,
    ratio_of,
    recountable,
    recounted,
    witness_recountable,
)
from .results import PrivacyResult as PrivacyResult  # re-exported: its public path
from .results import PrivacyWitness as PrivacyWitness
from .rows import PrivacyRow
from .windowed import unbounded_branch, windowed_privacy


def check_privacy_coverage(C: PrivacySet, I: InferenceSet) -> None:
    """Algorithm 2's precondition: ``(x, y)`` and ``(x', y)`` are in ``I`` for every triple of ``C``."""
    for x, xp, ys in C.blocks:
        _check_covered(I, x, xp, ys)


def _check_exhaustive_covered(C: ExhaustivePrivacy, I: InferenceSet) -> None:
    """An exhaustive privacy set needs every ``(x, y)`` of inputs that have a neighbour."""
    ys = tuple(C.outputs.values()) if not isinstance(C.outputs, tuple) else C.outputs
    for x, xp in C.pairs():
        check("checking coverage")
        _check_covered(I, x, xp, ys)


def _check_covered(I: InferenceSet, x: Value, xp: Value, ys: Sequence[Any]) -> None:
    """``(x, y)`` and ``(x', y)`` are in ``I`` for every ``y`` of ``ys``."""
    for side in (x, xp):
        y = I.first_missing(side, ys)
        if y is not None:
            raise CoverageError(
                f"the inference set is missing the pair {describe_pair(side, y)} needed by the "
                f"privacy triple ({format_value(x)}, {format_value(xp)}, {format_value(y)})"
            )


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


def _in_windows(prog: Any, C: Any = None, I: Any = None, **options: Any) -> PrivacyResult:
    """:func:`synthesize_privacy` of a program with unbounded noise (or given ``width``), in windows."""
    keep = {k: options[k] for k in ("neighbours", "force", "at", "plan") if k in options}
    backend = options.get("backend", "bdd")
    if C is not None and not isinstance(C, (str, PrivacySet, ExhaustivePrivacy, PrivacyPlan)):
        C = PrivacySet.of(C)  # explicit triples: the upper end needs only theirs reached

    def run(c: Compiled) -> PrivacyResult:
        return synthesize_privacy(c, C, I, backend=backend, exact=True, **keep)

    triples = C if isinstance(C, PrivacySet) else None
    plain = not any(options.get(k) for k in ("force", "at", "plan", "width", "certified", "workers"))
    why = ""
    if C is None and I is None and plain and getattr(prog, "shared_noise", None) is not None:
        declared, why = declared_route(prog, options.get("neighbours") or prog.neighbours, options.get("exact"))
        if declared is not None:
            return declared
    r = windowed_privacy(prog, run, backend, options.get("width"), triples=triples)
    if why and r.plan is not None:  # the declared law was not used: the report says why
        r = replace(r, plan=replace(r.plan, considered=(*r.plan.considered, ("declared", None, why))))
    return r


@limited
@unbounded_branch(_in_windows)
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
    plan: str | None = None,
    width: float | None = None,
) -> PrivacyResult:
    """Algorithm 2. ``C`` and ``I`` default to the planner (:mod:`wmcdp.plan`): it proves the program's
    structure (independent parts, symmetries) and runs the cheapest plan that gives the bound of the
    exhaustive sets; the result's ``plan`` reports it. ``C="exhaustive"`` forces the exhaustive sets of the
    program's domain; ``C="auto"`` (with ``I`` left out) finds and proves the program's symmetries and scans
    one triple per orbit (:class:`~wmcdp.plan.triples.OrbitTriples`; the result's ``sets`` reports them), as does a
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
    ``plan`` runs one plan of the planner by name, even where the exhaustive sets are quick (``"product"``,
    ``"given-input"``, ``"chain"``, ``"hub"``, ``"symmetry"`` or ``"exhaustive"``; :mod:`wmcdp.plan.forced`): a
    plan that does not apply to the program is refused in one line. A program with unbounded noise
    (:func:`wmcdp.geometric`, ...) always runs in windows and returns ``interval``, a bracket of epsilon narrowed to
    ``width`` (:mod:`wmcdp.notions.windowed`); ``width`` also asks it of any other program.
    Keyword arguments ``max_nodes``, ``timeout`` and ``max_memory`` apply :func:`wmcdp.resource_limits`.
    """
    start = time.perf_counter()
    plan = forced_plan(plan, "privacy", C=C, I=I, workers=workers, certified=certified or None)
    if certified:

        def midpoint_run(c: Compiled) -> PrivacyResult:
            return synthesize_privacy(
                c,
                C,
                I,
                neighbours=neighbours,
                backend=backend,
                exact=True,
                force=force,
                at=at,
                workers=workers,
                plan=plan,
            )

        return certified_privacy(prog, midpoint_run, backend)
    result = _with_log(_privacy(prog, C, I, neighbours, backend, exact, force, at, workers, plan, start))
    if not isinstance(result, PrivacyResult) or result.exact:
        return result  # an exact run, or a bound as a function of a symbolic parameter
    if not recountable(prog, exact, result.diagram_size, result.plan):
        if prone_epsilon(result.epsilon) and witness_recountable(prog, exact, result.diagram_size, result.plan):
            return _witness_recounted(prog, result, neighbours, backend, start)
        return result  # a large program

    def again() -> PrivacyResult:
        return synthesize_privacy(
            prog,
            C,
            I,
            neighbours=neighbours,
            backend=backend,
            exact="binary",
            force=force,
            at=at,
            workers=workers,
            plan=plan,
        )

    return recounted(
        result,
        prone_epsilon(result.epsilon),
        again,
        lambda r: replace(_floated(r), seconds=time.perf_counter() - start),
    )


def _witness_recounted(
    prog: Program | Compiled, result: PrivacyResult, neighbours: Any, backend: str, start: float
) -> PrivacyResult:
    """A prone float answer of a run too large to recount whole (:func:`~.recount.witness_recountable`): its
    witness triple counted again with every float read as its exact binary64 value (two weighted counts), so that
    ε is the correctly rounded ``ln`` of that triple's exact ratio (Eq. 1 at the float run's maximiser). A
    recount the exact number system refuses leaves ``result`` as it is."""
    w = result.witness
    try:
        again = synthesize_privacy(
            prog,
            [(w.x, w.x_prime, w.y)],
            [(w.x, w.y), (w.x_prime, w.y)],
            neighbours=neighbours,
            backend=backend,
            exact="binary",
        )
    except WmcdpError:
        return result
    floated = _floated(again)
    return replace(
        result,
        epsilon=floated.epsilon,
        ratio=floated.ratio,
        p_x=floated.p_x,
        p_x_prime=floated.p_x_prime,
        log_p_x=floated.log_p_x,
        log_p_x_prime=floated.log_p_x_prime,
        log_epsilon=_with_log(again).log_epsilon,
        plan=noted_witness(result.plan),
        seconds=time.perf_counter() - start,
    )


def _with_log(r: PrivacyResult) -> PrivacyResult:
    """``r`` with ``log_epsilon`` when its ratio is exact and its ε below the normal floats: a float holds such an
    ε with fewer digits (ε = 2e-400 rounds to the smallest subnormal), its log holds them all."""
    if isinstance(r, PrivacyResult) and isinstance(r.ratio, Fraction) and 0 < r.epsilon < sys.float_info.min:
        return replace(r, log_epsilon=log_of_log(r.ratio))
    return r


def _floated(r: PrivacyResult) -> PrivacyResult:
    """An exact run's result in the form of a float run's: its numbers as the nearest floats, with logs."""
    return replace(
        r,
        ratio=ratio_of(r.epsilon),
        p_x=float_of(r.p_x),
        p_x_prime=float_of(r.p_x_prime),
        exact=False,
        log_p_x=log_of(r.p_x),
        log_p_x_prime=log_of(r.p_x_prime),
        plan=noted(r.plan),
    )


def _privacy(
    prog: Program | Compiled,
    C: Any,
    I: Any,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    at: Value | None,
    workers: Any,
    plan: str | None,
    start: float,
) -> PrivacyResult:
    """:func:`synthesize_privacy` past its certified branch, in the number system ``exact`` (``plan``: the plan
    forced, or None)."""
    check_workers(workers)
    if C is None and I is None and at is not None and workers is None and plan != "exhaustive":
        planned_at = _planned_at(prog, at, neighbours, backend, exact, force, plan, start)
        if planned_at is not None:
            return planned_at
    if C is None and I is None and at is None and workers is None:
        planned: PrivacyResult = planned_privacy(prog, neighbours, backend, exact, force, synthesize_privacy, plan)
        return planned
    if isinstance(C, str) and C == "exhaustive":
        C = None
    compiled = as_compiled(prog, backend, exact)
    triples = _triples(compiled, C, I, neighbours, at, exact, force)
    counter = Counter(compiled, number_system(compiled, exact))
    symbolic = getattr(counter.arith, "interned", False)  # a parametric run (wmcdp.notions.piecewise)
    if workers is not None and symbolic:
        raise WmcdpError("a bound as a function of a symbolic parameter runs in one process; leave out workers")
    scan = ratio_scan(counter.arith)
    progress.phase("counting", "the privacy triples")
    name = triples.scan(counter, scan, workers)
    if not scan.found:
        raise NoRatioError("every triple of the privacy set has P(y|x) = P(y|x') = 0; there is no ratio to bound")

    def witness_of(key: tuple[int, int]) -> PrivacyWitness:
        return PrivacyWitness(*name(key))

    if symbolic:
        # deferred: python-flint (wmcdp.notions.piecewise) costs 0.2 s at import; only symbolic runs need it
        from .piecewise import piecewise_privacy

        r = piecewise_privacy(counter.arith, scan, witness_of, compiled.size, start)
        return replace(r, seconds=time.perf_counter() - start, sets=triples.report)  # type: ignore[return-value]
    result = _result(scan, witness_of(scan.key), counter.arith.exact, compiled.size, start, triples.report)
    return result if plan is None else _forced_exhaustive(result, start)


def _forced_exhaustive(r: PrivacyResult, start: float) -> PrivacyResult:
    """The result of the exhaustive at sets forced by name (``plan="exhaustive"`` with ``at``), with its plan."""

    seconds = time.perf_counter() - start
    report = PlanReport("exhaustive", "forced (plan 'exhaustive') at x0", seconds=seconds, considered=(NOT_WEIGHED,))
    return replace(r, seconds=seconds, plan=report)


def _planned_at(
    prog: Program | Compiled,
    at: Value,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    plan: str | None,
    start: float,
) -> PrivacyResult | None:
    """The data-centric ε at ``at`` by a plan: the parts of a product (:func:`_product_at`), else a structured
    pure-ε plan restricted to the pairs of ``at`` (:mod:`wmcdp.plan.structured_at`), or the one ``plan`` forced
    (other than ``"exhaustive"``). None: the exhaustive at sets answer."""
    if plan in (None, "product"):
        by_parts = _product_at(prog, at, neighbours, backend, exact, force, start)
        if by_parts is not None or plan is None:
            return by_parts or _structured_at(prog, at, neighbours, backend, exact, None, force)

        refuse("product", no_product(neighbour_relation(neighbours or _program_of(prog).neighbours), ("max",)))
    return _structured_at(prog, at, neighbours, backend, exact, plan, force)


def _structured_at(
    prog: Program | Compiled, at: Value, neighbours: Any, backend: str, exact: Any, plan: str | None, force: bool
) -> PrivacyResult | None:

    run = synthesize_privacy
    r: PrivacyResult | None = structured_privacy_at(prog, at, neighbours, backend, exact, run, plan, force)
    return r


def _program_of(prog: Program | Compiled) -> Program:
    return prog.program if isinstance(prog, Compiled) else prog


def _product_at(
    prog: Program | Compiled, at: Value, neighbours: Any, backend: str, exact: Any, force: bool, start: float
) -> PrivacyResult | None:
    """The data-centric ε at ``at`` of a product of parts under a relation that moves one part: the largest of
    the parts' data-centric ε at their entries of ``at`` (:mod:`wmcdp.plan.at`), with a witness of the whole
    program (every other part at ``at``'s entries and its likeliest output there, so ``P(y | x) > 0`` when the
    part's is). None when ``prog`` is no such product."""

    found = product_at(prog, at, neighbours, backend, exact)
    if found is None:
        return None
    results = [
        synthesize_privacy(c, neighbours=found.relation, exact=exact, force=force, at=local)
        for c, local in zip(found.compiled, found.local)
    ]
    exact_run = all(r.exact for r in results)
    best = combine_max([r.ratio if exact_run else r.epsilon for r in results])
    r, member = results[best], found.members[best][0]
    outputs, factor = {member: r.witness.y}, Fraction(1) if exact_run else 0.0  # the other parts' P(y_m | x0)
    for c, local, members in zip(found.compiled, found.local, found.members):
        y, p, _ = likeliest_at(c, local, exact)
        for m in (m for m in members if m != member):
            outputs[m] = y
            factor = factor * p if exact_run else factor + p
    witness = PrivacyWitness(
        found.embed_input({member: r.witness.x}),
        found.embed_input({member: r.witness.x_prime}),
        found.embed_output(outputs),
    )
    seconds = time.perf_counter() - start
    plan = found.report(
        [q.plan for q in results], None, None, seconds, bound="max over the parts at their entries of x0"
    )
    r = replace(r, witness=witness, diagram_size=sum(q.diagram_size for q in results), seconds=seconds, plan=plan)
    if exact_run:
        return replace(r, p_x=r.p_x * factor, p_x_prime=r.p_x_prime * factor)
    assert r.log_p_x is not None and r.log_p_x_prime is not None
    logs = (r.log_p_x + factor, r.log_p_x_prime + factor)
    return replace(r, p_x=math.exp(logs[0]), p_x_prime=math.exp(logs[1]), log_p_x=logs[0], log_p_x_prime=logs[1])


def _triples(
    compiled: Compiled, C: Any, I: Any, neighbours: Any, at: Any, exact: Any, force: bool
) -> ExhaustiveTriples | BlockTriples | OrbitTriples:
    """The triples to scan, from what the caller gave: orbit sets (``"auto"`` or a proved
    :class:`~wmcdp.plan.symmetry.PrivacyPlan`), the data-centric pairs of ``at``, the exhaustive sets, or
    explicit blocks; sizes, domains and coverage checked."""
    if isinstance(C, (str, PrivacyPlan)):
        return _orbit_triples(compiled, C, I, neighbours, at, force)
    relation = neighbour_relation(neighbours or compiled.program.neighbours)
    C, I = _sets(compiled, C, I, relation, at, force)
    if isinstance(C, PrivacySet):
        if len(C.blocks) == 0:
            raise WmcdpError("the privacy set is empty")
        for x, xp, _ys in C.blocks:
            compiled.domain.check(x), compiled.domain.check(xp)
        if isinstance(I, InferenceSet):
            check_privacy_coverage(C, I)
        return BlockTriples(C, I)
    if isinstance(I, InferenceSet):
        _check_exhaustive_covered(C, I)
        return BlockTriples(PrivacySet(tuple(C.blocks)), I)
    return ExhaustiveTriples(C.relation, exact)


def _orbit_triples(compiled: Compiled, C: Any, I: Any, neighbours: Any, at: Any, force: bool) -> OrbitTriples:
    """The orbit sets of ``C`` (``"auto"``: the program's proved plan), which build their own inference set."""
    if isinstance(C, str) and C != "auto":
        raise WmcdpError(f"C must be a privacy set, None (the planner), 'exhaustive' or 'auto', got {C!r}")
    if I is not None:
        raise WmcdpError("sets 'auto' build their own inference set; leave I out")
    if at is not None:
        raise WmcdpError("at (the data-centric pairs of one database) takes the exhaustive sets, not orbit sets")
    return OrbitTriples(privacy_plan(compiled, neighbours) if isinstance(C, str) else C, force)


def _sets(compiled: Compiled, C: Any, I: Any, relation: Any, at: Any, force: bool) -> tuple[Any, Any]:
    """The privacy and inference sets: the data-centric ones of ``at``, the exhaustive ones for a None (within
    the size limits unless ``force``), or the caller's, as :class:`PrivacySet` and :class:`InferenceSet`."""
    if at is not None:
        if C is not None or I is not None:
            raise WmcdpError(
                "at (the data-centric pairs of one database) replaces the exhaustive sets; "
                "give at or explicit sets, not both"
            )
        check_relation(relation, compiled.domain)
        C, I = privacy_sets_at(compiled.domain, compiled.shape, relation, at)
    if C is None:  # its table lists only the producible outputs when they are few (Counter.columns)
        check_exhaustive(compiled.domain, exhaustive_outputs(compiled), relation, force)
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
    return C, I


# -- pure epsilon (Algorithm 2) --------------------------------------------------------------


def _privacy_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> PrivacyRow:
    compiled = as_compiled(program, backend, exact)
    C, I = find_sets("privacy", sets, program)
    r = synthesize_privacy(compiled, C, I, neighbours=relation(neighbours), exact=exact)
    return PrivacyRow.of(r, variant, parameter, value, seconds=compiled.compile_seconds + r.seconds)


PRIVACY = register(
    Notion(
        name="privacy",
        command="privacy",
        help="tight epsilon",
        run=synthesize_privacy,
        result=PrivacyResult,
        row=PrivacyRow,
        point=_privacy_point,
        options=(NEIGHBOURS,),
        series=lambda r: (r.program, float(r.value), float(r.epsilon)),
        axes=lambda rows: (
            "tight epsilon (nats, natural log)",
            swept_axis(rows),
            f"tight privacy bound vs {rows[0].parameter}",
        ),
    )
)
