"""Algorithm 3 (Accuracy Bound Synthesis): the tight ``(alpha, beta)`` bound and the worst inputs.

``1 - beta = min over x in A of sum_{y in [V_x - alpha, V_x + alpha]} M(x, y)``
(paper Problem 2, Thm. 1, Def. 5). The reported ``1 - beta`` is the true minimum; the
witness is the first input of ``A`` attaining it (in float mode: within a relative
1e-12). ``beta`` is summed directly over the outputs outside the window where the
inference set has them (so a ``beta`` of 1e-13 is not lost to ``1 - 0.9999999999999``).
``top`` lists the ``k`` inputs with the lowest ``1 - beta`` (paper Table 3), lowest first;
values within the tolerance keep ``A``'s order.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import CoverageError, WmcdpError
from ..base.limits import check, limited
from ..base.numbers import Number, as_number, format_number, parse_number
from ..compile import Compiled
from ..count.distributed import check_workers, local_only
from ..count.probabilities import Counter, as_compiled, exhaustive_outputs, number_system
from ..count.scan import TOLERANCE
from ..lang.program import Program, Value
from ..lang.sets import (
    AccuracySet,
    ExhaustiveAccuracy,
    ExhaustiveInference,
    InferenceSet,
    accuracy_targets,
    check_exhaustive,
    describe_pair,
)
from ..lang.shape import format_value
from ..plan.forced import forced_plan
from ..plan.given_sets import find_sets
from ..plan.inputs import ExhaustiveInputs, ListedInputs, WindowInputs
from ..plan.planned import planned_accuracy
from ..plan.symmetry.runs import AccuracyPlan, accuracy_plan
from .notion import Notion, Option, register, swept_axis
from .results import AccuracyResult as AccuracyResult  # re-exported: its public path
from .rows import AccuracyRow
from .windowed import unbounded_branch, windowed_accuracy


def accuracy_window(outputs: Iterable[Value], target: Number, alpha: Number) -> tuple[Value, ...]:
    """The outputs ``y`` with ``|y - V_x| <= alpha``."""
    return tuple(y for y in outputs if abs(y - target) <= alpha)


def _window_bounds(lo: int, hi: int, target: Number, alpha: Number) -> tuple[int, int]:
    """Positions ``[first, last]`` of the outputs ``lo..hi`` within ``alpha`` of ``target`` (empty: first > last)."""
    first = max(lo, math.ceil(Fraction(target) - Fraction(alpha)))
    last = min(hi, math.floor(Fraction(target) + Fraction(alpha)))
    return first - lo, last - lo


def _in_windows(prog: Any, A: Any = None, V: Any = None, alpha: Number = 0, I: Any = None, **options: Any) -> Any:
    """:func:`synthesize_accuracy` of a program with unbounded noise (or given ``width``), in windows."""
    keep = {k: options[k] for k in ("top", "force", "plan") if k in options}
    backend = options.get("backend", "bdd")

    def run(c: Compiled) -> AccuracyResult:
        return synthesize_accuracy(c, A, V, alpha, I, backend=backend, exact=True, **keep)

    return windowed_accuracy(prog, run, backend, options.get("width"))


@limited
@unbounded_branch(_in_windows)
def synthesize_accuracy(
    prog: Program | Compiled,
    A: AccuracySet | ExhaustiveAccuracy | AccuracyPlan | Iterable[Value] | str | None = None,
    V: Callable[[Value], Number] | Mapping[Value, Number] | None = None,
    alpha: Number = 0,
    I: InferenceSet | ExhaustiveInference | Iterable[tuple[Value, Value]] | None = None,
    *,
    top: int = 0,
    backend: str = "bdd",
    exact: Any = None,
    force: bool = False,
    workers: Any = None,
    plan: str | None = None,
    width: float | None = None,
) -> AccuracyResult:
    """Algorithm 3. ``A`` and ``I`` default to the planner (:mod:`wmcdp.plan`; the result's ``plan`` reports
    it), ``V`` to the program's target; ``A="exhaustive"`` forces the exhaustive sets; ``A="auto"`` (with
    ``I`` left out) takes one input per orbit of the program's proved symmetries
    (:func:`wmcdp.plan.symmetry.accuracy_plan`; the result's ``sets`` reports them), as does an
    :class:`~wmcdp.plan.symmetry.AccuracyPlan` already made.

    ``exact`` and ``workers`` as for :func:`wmcdp.synthesize_privacy`; ``force`` runs
    exhaustive sets over the size limits; keyword arguments ``max_nodes``, ``timeout`` and
    ``max_memory`` apply :func:`wmcdp.resource_limits`. ``plan`` (``"symmetry"`` or ``"exhaustive"``) runs that
    plan of the planner even where the exhaustive sets are quick (:mod:`wmcdp.plan.forced`). A program with
    unbounded noise (:func:`wmcdp.geometric`, ...) always runs in windows and returns ``interval``, a bracket of
    ``1 - beta`` narrowed to ``width`` (:mod:`wmcdp.notions.windowed`).
    """
    start = time.perf_counter()
    plan = forced_plan(plan, "accuracy", A=A, I=I, workers=workers)
    alpha = _checked(alpha, top)
    check_workers(workers)
    if A is None and I is None and workers is None:
        planned: AccuracyResult = planned_accuracy(
            prog, V, alpha, top, backend, exact, force, synthesize_accuracy, plan
        )
        return planned
    if isinstance(A, str) and A == "exhaustive":
        A = None
    compiled = as_compiled(prog, backend, exact)
    if compiled.trace.circuit.merged:
        raise WmcdpError(
            f"accuracy of {compiled.program.name} is not defined on its merged tails "
            f"({', '.join(sorted(set(compiled.trace.circuit.merged)))}: its ends stand for every value beyond them); "
            "release with geometric() for accuracy"
        )
    if isinstance(A, (str, AccuracyPlan)):
        return _auto(compiled, A, V, alpha, I, top, exact, force, start)
    shape = compiled.shape
    if not shape.is_numeric:
        raise WmcdpError(f"accuracy needs a numeric output, but {compiled.program.name} returns a tuple")
    target = accuracy_targets(compiled.program, V)
    A, I = _sets(compiled, A, I, force, workers)
    listed = _inputs(compiled, A, I, exact)
    bounds = [_window_bounds(shape.lo, shape.lo + shape.size - 1, target(x), alpha) for x in listed.inputs]
    first, last = np.array(bounds, dtype=np.int64).reshape(-1, 2).T
    if isinstance(I, InferenceSet):
        _check_covered(I, listed.inputs, first, last, shape.lo, alpha)
    return _scan(compiled, listed, first, last, alpha, top, exact, workers, start)


def _checked(alpha: Number, top: int) -> Number:
    """``alpha``, a finite number ≥ 0, once ``top`` is checked to be a whole number ≥ 0."""
    alpha = as_number(alpha, "alpha")
    if alpha < 0 or (isinstance(alpha, float) and math.isinf(alpha)):
        raise WmcdpError(f"alpha must be a finite number >= 0, got {format_number(alpha)}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise WmcdpError(f"top must be a whole number >= 0, got {top!r}")
    return alpha


def _auto(
    compiled: Compiled,
    A: str | AccuracyPlan,
    V: Any,
    alpha: Number,
    I: Any,
    top: int,
    exact: Any,
    force: bool,
    start: float,
) -> AccuracyResult:
    """Algorithm 3 on one input per orbit of the proved symmetries (``A="auto"`` or an accuracy plan)."""
    if isinstance(A, str) and A != "auto":
        raise WmcdpError(f"A must be an accuracy set, None (the planner), 'exhaustive' or 'auto', got {A!r}")
    if I is not None:
        raise WmcdpError("sets 'auto' build their own inference set; leave I out")
    plan = accuracy_plan(compiled, V, force=force) if isinstance(A, str) else A
    assert plan is not None  # no fallback asked
    I = ExhaustiveInference(compiled.domain, compiled.shape)  # every output of the listed inputs
    r = synthesize_accuracy(compiled, plan.A, V, alpha, I, top=top, exact=exact, force=force)
    return replace(r, seconds=time.perf_counter() - start, sets=plan.report)


def _sets(
    compiled: Compiled, A: Any, I: Any, force: bool, workers: Any
) -> tuple[AccuracySet | ExhaustiveAccuracy, InferenceSet | ExhaustiveInference]:
    """The accuracy and inference sets as given (None: exhaustive, within the size limits unless ``force``)."""
    if I is None:
        outputs = exhaustive_outputs(compiled) if A is None else compiled.shape.size  # (listed support: A is all)
        check_exhaustive(compiled.domain, outputs, force=force)
        I = ExhaustiveInference(compiled.domain, compiled.shape)
    elif not isinstance(I, (InferenceSet, ExhaustiveInference)):
        I = InferenceSet.of(I)
    if A is None:
        A = ExhaustiveAccuracy(compiled.domain)
    elif not isinstance(A, (AccuracySet, ExhaustiveAccuracy)):
        A = AccuracySet.of(A)
    if len(A) == 0:
        raise WmcdpError("the accuracy set is empty")
    if not (isinstance(I, ExhaustiveInference) and isinstance(A, ExhaustiveAccuracy)):
        local_only(workers, "A and I")
    return A, I


def _check_covered(
    I: InferenceSet, inputs: list[Value], first: np.ndarray, last: np.ndarray, lo: int, alpha: Number
) -> None:
    """Every output within ``alpha`` of each input's target is in ``I``."""
    for x, f, l in zip(inputs, first, last):
        y = I.first_missing(x, tuple(range(lo + int(f), lo + int(l) + 1)))
        if y is not None:
            raise CoverageError(
                f"the inference set is missing the pair {describe_pair(x, y)} needed for the "
                f"accuracy of x={format_value(x)} (|y - V_x| <= {format_number(alpha)})"
            )


def _scan(
    compiled: Compiled,
    listed: Any,
    first: np.ndarray,
    last: np.ndarray,
    alpha: Number,
    top: int,
    exact: Any,
    workers: Any,
    start: float,
) -> AccuracyResult:
    """``1 - beta`` of each listed input over its window ``[first, last]`` of outputs; the lowest, its input and
    the ``top`` lowest (a parametric run: ``1 - beta`` as a function, :mod:`wmcdp.notions.piecewise`)."""
    lo = compiled.shape.lo
    counter = Counter(compiled, number_system(compiled, exact))
    arith = counter.arith
    inputs = listed.inputs
    if getattr(arith, "interned", False):
        if workers is not None:
            raise WmcdpError("a bound as a function of a symbolic parameter runs in one process; leave out workers")
        # deferred: python-flint (wmcdp.notions.piecewise) costs 0.2 s at import; only symbolic runs need it
        from .piecewise import piecewise_accuracy

        windows = listed.cells(counter, first, last, lo)
        return piecewise_accuracy(arith, alpha, inputs, windows, compiled.size, start)  # type: ignore[return-value]
    progress.phase("counting", "each input's window of outputs")
    inside, outside = listed.sums(counter, first, last, lo, workers)
    check("accuracy synthesis")
    order = _ranked(arith, inside, outside, top)
    worst = order[0]
    one_minus_beta = arith.probability(inside[worst])
    beta = 1 - one_minus_beta if outside is None else arith.probability(outside[worst])
    return AccuracyResult(
        alpha=alpha,
        one_minus_beta=one_minus_beta,
        beta=beta,
        witness=inputs[worst],
        top=tuple((inputs[k], arith.probability(inside[k])) for k in order[:top]),
        exact=arith.exact,
        diagram_size=compiled.size,
        seconds=time.perf_counter() - start,
    )


def _inputs(
    compiled: Compiled, A: AccuracySet | ExhaustiveAccuracy, I: InferenceSet | ExhaustiveInference, exact: Any
) -> ExhaustiveInputs | ListedInputs | WindowInputs:
    """The inputs to bound, as the counts their sets ask for."""
    if isinstance(A, ExhaustiveAccuracy) and isinstance(I, ExhaustiveInference):
        return ExhaustiveInputs(compiled, exact)
    inputs = (
        list(compiled.domain.values()) if isinstance(A, ExhaustiveAccuracy) else [compiled.domain.check(x) for x in A]
    )
    return ListedInputs(inputs) if isinstance(I, ExhaustiveInference) else WindowInputs(inputs)


def _ranked(arith: Any, inside: np.ndarray, outside: Any, top: int) -> list[int]:
    """Positions of the lowest ``1 - beta``, lowest first. The first is the first input (in ``A``'s order)
    attaining the minimum — in float mode within a relative :data:`TOLERANCE`, judged on ``beta`` (summed
    directly) when it is the smaller of the two so the tolerance never hides a small ``beta``; inputs
    within the tolerance of each other keep ``A``'s order."""
    if arith.exact:
        m = min(inside)
        first = next(k for k, v in enumerate(inside) if v == m)
        if top <= 1:
            return [first]
        return sorted(range(len(inside)), key=lambda k: (inside[k], k))[:top]
    low = arith.as_log(inside)
    by_beta = outside is not None and math.exp(float(low.min())) > 0.5
    key = -arith.as_log(outside) if by_beta else low  # ascending key = ascending 1 - beta
    m = float(key.min())
    first = int(np.flatnonzero(key <= m + TOLERANCE)[0])  # logs: an absolute tolerance is a relative one
    if top <= 1:
        return [first]
    order = list(np.argsort(key, kind="stable"))
    ranked: list[int] = []
    k = 0
    while k < len(order) and len(ranked) < top:
        base = float(key[order[k]])
        group = [order[j] for j in range(k, len(order)) if key[order[j]] <= base + TOLERANCE]
        ranked.extend(sorted(group))
        k += len(group)
    return ranked[:top]


# -- accuracy (Algorithm 3) ------------------------------------------------------------------


def _accuracy_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    alpha: Number,
    sets: str,
    backend: str,
    exact: Any,
) -> AccuracyRow:
    compiled = as_compiled(program, backend, exact)
    A, I = find_sets("accuracy", sets, program, alpha)
    r = synthesize_accuracy(compiled, A, None, alpha, I, exact=exact)
    return AccuracyRow.of(r, variant, parameter, value, seconds=compiled.compile_seconds + r.seconds)


ACCURACY = register(
    Notion(
        name="accuracy",
        command="accuracy",
        help="tight 1 - beta",
        run=synthesize_accuracy,
        result=AccuracyResult,
        row=AccuracyRow,
        point=_accuracy_point,
        options=(
            Option(
                "alpha",
                "accuracy radius alpha >= 0 (accuracy sweeps)",
                required=True,
                parse=lambda text: parse_number(text, exact=True),
            ),
        ),
        series=lambda r: (r.program, float(r.value), float(r.one_minus_beta)),
        axes=lambda rows: (
            f"tight 1 - beta at alpha = {format_number(rows[0].alpha)} (probability)",
            swept_axis(rows),
            f"tight accuracy bound vs {rows[0].parameter}",
        ),
    )
)
