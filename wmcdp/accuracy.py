"""Algorithm 3 (Accuracy Bound Synthesis): the tight ``(alpha, beta)`` bound and the worst inputs.

``1 - beta = min over x in A of sum_{y in [V_x - alpha, V_x + alpha]} M(x, y)``
(paper Problem 2, Thm. 1, Def. 5). ``top`` lists the ``k`` inputs with the lowest
``1 - beta`` (paper Table 3), lowest first; ties keep ``A``'s order (float values whose logs agree
to 12 decimals count as ties).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Mapping

from .compile import Compiled
from .errors import CoverageError, WmcdpError
from .inference import as_compiled, inference
from .lang.program import Program, Value
from .lang.shape import format_value
from .numbers import Number, as_number, format_number
from .limits import limited
from .sets import (AccuracySet, InferenceSet, all_outputs, check_exhaustive, describe_pair, exhaustive_accuracy,
                   exhaustive_inference)


@dataclass(frozen=True)
class AccuracyResult:
    """Tight ``1 - beta`` at accuracy ``alpha``, the worst input, and the ``top`` worst inputs."""

    alpha: Number
    one_minus_beta: float | Fraction
    beta: float | Fraction
    witness: Value
    top: tuple[tuple[Value, float | Fraction], ...]
    exact: bool
    diagram_size: int
    seconds: float


def _targets(compiled: Compiled, V: Callable | Mapping | None) -> Callable[[Value], Number]:
    if V is None:
        V = compiled.program.target
        if V is None:
            raise WmcdpError(f"program {compiled.program.name} declares no target V_x; pass V")
    if isinstance(V, Mapping):
        mapping = V
        return lambda x: mapping[x]
    return V


def accuracy_window(outputs: Iterable[Value], target: Number, alpha: Number) -> tuple:
    """The outputs ``y`` with ``|y - V_x| <= alpha``."""
    return tuple(y for y in outputs if abs(y - target) <= alpha)


@limited
def synthesize_accuracy(prog: Program | Compiled,
                        A: AccuracySet | Iterable[Value] | None = None,
                        V: Callable[[Value], Number] | Mapping | None = None,
                        alpha: Number = 0,
                        I: InferenceSet | Iterable[tuple[Value, Value]] | None = None, *,
                        top: int = 0, backend: str = "bdd", exact: bool | None = None,
                        force: bool = False) -> AccuracyResult:
    """Algorithm 3. ``A`` and ``I`` default to exhaustive sets, ``V`` to the program's target.

    ``force`` runs exhaustive sets over the size limits; keyword arguments ``max_nodes``
    and ``timeout`` apply :func:`wmcdp.limits.limits`.
    """
    start = time.perf_counter()
    alpha = as_number(alpha, "alpha")
    if alpha < 0 or (isinstance(alpha, float) and math.isinf(alpha)):
        raise WmcdpError(f"alpha must be a finite number >= 0, got {format_number(alpha)}")
    if top < 0:
        raise WmcdpError(f"top must be >= 0, got {top}")
    compiled = as_compiled(prog, backend)
    if not compiled.shape.is_numeric:
        raise WmcdpError(f"accuracy needs a numeric output, but {compiled.program.name} returns a tuple")
    if I is None:
        check_exhaustive(compiled.domain, compiled.shape.size, force=force)
    outputs = all_outputs(compiled.shape)
    target = _targets(compiled, V)
    A = exhaustive_accuracy(compiled.domain) if A is None else A if isinstance(A, AccuracySet) else AccuracySet.of(A)
    if len(A) == 0:
        raise WmcdpError("the accuracy set is empty")
    if I is None:
        I = exhaustive_inference(compiled.domain, outputs, force=True)
    elif not isinstance(I, InferenceSet):
        I = InferenceSet.of(I)
    windows = []
    for x in A:
        ys = accuracy_window(outputs, target(x), alpha)
        y = I.first_missing(x, ys)
        if y is not None:
            raise CoverageError(f"the inference set is missing the pair {describe_pair(x, y)} needed for the "
                                f"accuracy of x={format_value(x)} (|y - V_x| <= {format_number(alpha)})")
        windows.append(ys)
    M = inference(compiled, I, exact=exact)
    sr = M.semiring
    scores = [sr.total(M.row(x, ys)) for x, ys in zip(A, windows)]
    ranked = sorted(range(len(scores)), key=lambda k: (sr.rank_key(scores[k]), k))
    worst = ranked[0]
    one_minus_beta = sr.to_prob(scores[worst])
    return AccuracyResult(alpha=alpha, one_minus_beta=one_minus_beta, beta=1 - one_minus_beta,
                          witness=A.inputs[worst],
                          top=tuple((A.inputs[k], sr.to_prob(scores[k])) for k in ranked[:top]),
                          exact=sr.exact, diagram_size=compiled.size, seconds=time.perf_counter() - start)
