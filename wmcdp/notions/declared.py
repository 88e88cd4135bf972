"""Pure ε at one n of a program that declares its shared-noise law: exact with unbounded noise, no window.

A program with unbounded noise runs in windows (:mod:`.windowed`), which costs what a wide margin costs and gives a
bracket. One that declares its law (:attr:`wmcdp.lang.Program.shared_noise`: a sparse vector's shared threshold,
codes only or a fresh release with each TRUE, or report noisy max's index) is answered first from that law, exactly
(:mod:`wmcdp.plan.declared`): the ratio is an exact rational in the noise ratios, the witness a triple of the
program. The declaration is its author's claim, so before the answer is given it is compared with the program
itself, exactly, with every draw in windows of half-width 2: on every input and output at ``n = 1, 2, 3``
(:func:`~wmcdp.notions.alignment.model_problems`, the family rebuilt from the program's source and parameters) and
at the witness pair at this ``n`` (:func:`~wmcdp.plan.declared.witness_problems`). Where the law is not one the
plan answers (a released gap or maximum, an adaptive threshold), the relation has no moves, the search would pass
:data:`~wmcdp.plan.declared.MAX_COMBINATIONS`, the family cannot be rebuilt, or a comparison fails, the program runs
in windows as before and the plan report's ``considered`` says why the declared law was not used.
"""

from __future__ import annotations

import functools
import math
import time
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import ln
from ..lang.program import Program
from ..lang.registry import builtin_programs, find_program, rebuilds
from ..lang.shared_noise import SharedMax
from ..plan.costs import DECLARED_SECONDS
from ..plan.declared import (
    CHECKED_HALF_WIDTH,
    MAX_COMBINATIONS,
    DeclaredAnswer,
    count_work,
    declared_privacy,
    supported,
    witness_problems,
)
from ..plan.planner import PlanReport
from .alignment import CHECKED_SIZES, model_problems
from .results import PrivacyResult, PrivacyWitness

#: the plan's name in its report
KIND = "declared"
#: how a supremum over a released gap that no gap attains is approached
APPROACHED = "as the gap released with the TRUE answer grows (no gap attains the ratio)"


def _approached(answer: DeclaredAnswer) -> str:
    """How the answer's supremum is approached, and how near the witness's output comes to it."""
    shown = float(answer.p_x / answer.p_x_prime)
    near = math.isclose(shown, float(answer.ratio or math.inf), rel_tol=2**-52)
    return f"{APPROACHED}; " + (
        "the witness's gap comes within a float's rounding of it"
        if near
        else f"at the witness's gap it is {shown:.10g}"
    )


def _frozen(params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


@functools.lru_cache(maxsize=64)
def _family_problems(source: str, params: tuple[tuple[str, Any], ...]) -> tuple[str, ...]:
    """:func:`~wmcdp.notions.alignment.model_problems` of the family built from ``source``, once per parameters."""
    _, family = find_program(source)
    return tuple(model_problems(family, dict(params)))


def _why_not(prog: Any, relation: Any) -> str:
    """Why the declared law is not used for ``prog`` (``""`` when it is, so far as is known before the search)."""
    model = prog.shared_noise
    if not isinstance(relation, str):
        return "the relation is not a built-in one"
    why = supported(model, relation)
    if why:
        return why
    params = dict(prog.params) if isinstance(prog.params, dict) else {}
    n = params.pop("n", None)
    source = prog.source or (prog.name if prog.name in builtin_programs() else "")
    if not source or not isinstance(n, int):
        return "the program's family cannot be rebuilt (not a built-in, no source, or no parameter n)"
    work = count_work(model, n, relation)
    if work > MAX_COMBINATIONS:
        return f"its search would evaluate {work} combinations (limit {MAX_COMBINATIONS})"
    try:
        _, family = find_program(source)
        if not rebuilds(prog, family):
            return "the program is not what its family builds at this n (a field or its declared law differs)"
        problems = _family_problems(source, _frozen(params))
    except (WmcdpError, TypeError) as exc:  # an unhashable parameter, a family that no longer builds
        return f"the program's family cannot be rebuilt: {exc}"
    return problems[0] if problems else ""


def declared_route(prog: Any, relation: Any, exact: Any) -> tuple[PrivacyResult | None, str]:
    """The declared law's exact pure ε of ``prog`` (module docstring), or ``(None, why it is not used)``; ``exact``
    False gives the same answer in floats."""
    start = time.perf_counter()
    if not isinstance(prog, Program) or prog.shared_noise is None:
        return None, "no law declared"
    why = _why_not(prog, relation)
    if why:
        return None, why
    model, n = prog.shared_noise, int(prog.params["n"])
    answer = declared_privacy(model, n, relation)
    problems, size = witness_problems(prog, model, answer)
    if problems:
        return None, problems[0]
    released = isinstance(model, SharedMax) and model.report == "value"
    return _result(answer, type(model).__name__, released, n, size, exact is False, start), ""


def _result(
    answer: DeclaredAnswer, law: str, released: bool, n: int, size: int, floats: bool, start: float
) -> PrivacyResult:
    """The answer as a privacy result with its plan report (``size``: the diagram the witness was compared on)."""
    ratio: Fraction | float = math.inf if answer.ratio is None else answer.ratio
    epsilon = math.inf if answer.ratio is None else ln(answer.ratio)
    seconds = time.perf_counter() - start
    structure = (
        f"the declared law ({law}) summed over the shared value in closed form; "
        f"{answer.classes} output classes, {answer.combinations} combinations of moves, {answer.evaluated} evaluated"
        if not released
        else f"the declared law ({law}, the maximum released): e^eps = a^-D in closed form, D = sum |x_i - x'_i|"
    )
    plan = PlanReport(
        KIND,
        structure,
        answer.combinations,
        None,
        DECLARED_SECONDS * answer.combinations * n,
        0.0,
        seconds,
        claims=_claims(released),
    )
    p_x, p_xp = answer.p_x, answer.p_x_prime
    return PrivacyResult(
        epsilon=epsilon,
        ratio=float(ratio) if floats else ratio,
        witness=PrivacyWitness(answer.x, answer.x_prime, answer.y),
        p_x=float(p_x) if floats else p_x,
        p_x_prime=float(p_xp) if floats else p_xp,
        exact=not floats,
        diagram_size=size,
        seconds=seconds,
        plan=plan,
        log_p_x=ln(p_x) if floats and p_x else None,
        log_p_x_prime=ln(p_xp) if floats and p_xp else None,
        approached=_approached(answer) if answer.approached else None,
    )


def _claims(released: bool) -> tuple[tuple[str, str], ...]:
    sizes = ", ".join(map(str, CHECKED_SIZES))
    declared = (
        "the program's law is the declared one",
        f"compared exactly with every draw in windows of half-width {CHECKED_HALF_WIDTH}: on every input and "
        f"output at n = {sizes}, and at the witness pair at this n; beyond the windows it is the author's claim",
    )
    if released:
        return (
            declared,
            (
                "every output's ratio is at most a^-D",
                "the law is a sum over the winner of products; a ratio of sums is at most the largest ratio of "
                "terms, each at most the winner's and the others' suprema (a^-|x_i - x'_i| each, by log-concavity)",
            ),
            (
                "below every entry's value the ratio is a^(sum x - sum x')",
                "there each distribution function is one geometric term: the witness output attains a^-D",
            ),
        )
    return (
        declared,
        (
            "each probability is exact with unbounded noise",
            "a sum over the shared value of products of two-sided geometric laws: between the factors' centers term "
            "by term, beyond them a finite sum of geometric series in closed form (no window, no tail left out)",
        ),
        (
            "the worst output is one of the classes, and dominated moves never attain the maximum",
            "given the shared value the entries are independent and the sum is symmetric in entries that give the "
            "same answer; a FALSE, TRUE or losing answer's probability is monotone in its entry at every shared "
            "value, so a move beaten on both sides cannot raise the ratio",
        ),
        (
            "combinations left unevaluated cannot beat the best ratio found",
            "sum_t A(t) / sum_t B(t) <= max_t A(t) / B(t), where the unmoved entries cancel: the product of the moved "
            "entries' suprema over t (closed forms, by log-concavity), skipped when at most the best ratio",
        ),
    )


__all__ = ["KIND", "declared_route"]
