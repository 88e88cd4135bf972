"""Float answers of distributions that nearly agree, recounted exactly.

A float run forms every ``P(y | x)`` to a few ulp. Where two output distributions nearly agree — a Poisson
subsample at a tiny rate (``P(y | x) = q P_M(y | x) + (1 − q) P_M(y | x0)``), randomized response with ``λ``
near 1/2 — the bound is a difference of such numbers (``ln(a / b)``, ``Σ max(a − e^ε b, 0)``, a Rényi sum
``Σ a^α b^(1−α)`` near 1), and the float answer keeps few of its digits or none (ε = 0 for 2e-300). A float
answer is therefore *prone* when it is below :data:`CANCELLATION` (ε, ``(α − 1) D_α``) or below
:data:`CANCELLATION` times the masses it subtracts (δ(ε) against ``1 + e^ε``); a prone answer of a small
program (:func:`recountable`) is recounted with every float read as its exact binary64 value
(``exact="binary"``), where ε is the correctly rounded ``ln`` of an exact ratio, δ an exact rational and
``D_α`` a sum formed without cancellation (:func:`wmcdp.base.numbers.renyi_log_sum`), and its float form
(:func:`floated`) is the answer. The exact counts are of the float weights as given (``1 − p`` exactly, not
``1 − p`` rounded), so the recounted answer agrees with ``--exact-floats`` to its last digits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeGuard, TypeVar

from ..base import progress
from ..base.errors import WmcdpError
from ..base.numbers import log_fraction
from ..compile import Compiled
from ..lang.program import Program

R = TypeVar("R")

#: a float answer below this (relative to the masses it subtracts) may have lost digits to cancellation
CANCELLATION = 1e-2
#: a prone float answer is recounted exactly when the planner estimated the float run at most this many seconds
#: (an exact count of binary64 weights costs some ten times the float one)
RECOUNT_MAX_SECONDS = 0.25
#: ... or, run without a plan, when the program has at most this many inputs
RECOUNT_MAX_INPUTS = 1 << 12
#: ... and its diagram at most this many nodes
RECOUNT_MAX_NODES = 20000
#: ... and, composed exactly, of at most this many runs (an exact composition's numbers grow with the runs)
RECOUNT_MAX_COMPOSE = 64
#: a larger pure-ε run recounts its witness triple alone when its whole diagram has at most this many nodes (the
#: exact count compiles the program again)
WITNESS_MAX_NODES = 1 << 20


def recountable(prog: Program | Compiled, exact: Any, diagram_size: int | None = None, plan: Any = None) -> bool:
    """Whether a float run of ``prog`` (``exact`` as the caller gave it) may be recounted exactly: the caller
    asked for no number system (``exact`` None or False), ``prog`` is a program (its weights can be read
    again), the planner estimated the float run at most :data:`RECOUNT_MAX_SECONDS` (the cost model's
    estimate, the same on every machine; without a plan, a domain of at most :data:`RECOUNT_MAX_INPUTS`
    inputs) and its diagram has at most :data:`RECOUNT_MAX_NODES` nodes."""
    if not _rereadable(prog, exact) or (diagram_size or 0) > RECOUNT_MAX_NODES:
        return False
    if plan is not None:
        seconds = _estimate(plan)
        return seconds is not None and seconds <= RECOUNT_MAX_SECONDS
    domain = prog.inputs  # its size only for few entries: 2^n of a huge n is never formed
    return domain.n < RECOUNT_MAX_INPUTS.bit_length() and domain.size <= RECOUNT_MAX_INPUTS


def witness_recountable(prog: Program | Compiled, exact: Any, diagram_size: int | None, plan: Any) -> bool:
    """Whether the witness triple of a float run of pure ε too large to recount whole may be recounted alone: a
    program (its weights can be read again) in the caller's float mode, whose whole diagram of at most
    :data:`WITNESS_MAX_NODES` nodes was compiled (not a product, whose whole diagram is never formed)."""
    if not _rereadable(prog, exact) or getattr(plan, "kind", None) == "product":
        return False
    return 0 < (diagram_size or 0) <= WITNESS_MAX_NODES


def composition_recountable(compose: int, accountant: str) -> bool:
    """Whether ``compose`` runs accounted by ``accountant`` may be recounted: composed exactly, at most
    :data:`RECOUNT_MAX_COMPOSE` of them (an accountant's answer is its own approximation)."""
    return compose <= RECOUNT_MAX_COMPOSE and accountant == "exact"


def _rereadable(prog: Program | Compiled, exact: Any) -> TypeGuard[Program]:
    """A float run (``exact`` None or False, as the caller gave it) of a program, whose weights can be read again."""
    return exact in (None, False) and isinstance(prog, Program)


def _estimate(plan: Any) -> float | None:
    """A plan's estimated seconds: its own, or its distinct parts' (a product); None if some part has none."""
    seconds = getattr(plan, "estimated_seconds", None)
    if seconds is not None:
        return float(seconds)
    parts = [_estimate(p) for p in getattr(plan, "part_plans", ())]
    return sum(parts) if parts and None not in parts else None  # type: ignore[arg-type]


def recounted(result: R, prone: bool, run: Callable[[], R], floated: Callable[[R], R]) -> R:
    """``result``, or, when it is ``prone`` to cancellation, ``floated(run())``: the float form of the same
    run with every float read as its exact binary64 value. A recount the exact number system refuses (an
    exact composition past its limits, a plan without an exact mode) leaves ``result`` as it is."""
    if not prone:
        return result
    progress.phase("recount", "exactly, from the binary64 weights (the float answer may have cancelled)")
    try:
        again = run()
    except WmcdpError:
        return result
    return floated(again)


#: the claim a recounted answer's plan report lists, with how it was found
RECOUNTED = (
    "recounted exactly from the binary64 weights",
    f"the float answer was below {CANCELLATION:g} of the masses it subtracts (its digits may cancel)",
)


def noted(plan: Any) -> Any:
    """The plan report of a recounted answer: the exact run's, listing :data:`RECOUNTED` among its claims."""
    return plan if plan is None else replace(plan, claims=(*plan.claims, RECOUNTED))


#: the claim of a float answer whose witness triple alone was recounted
WITNESS_RECOUNTED = (
    "the witness triple recounted exactly from the binary64 weights",
    f"the float ε was below {CANCELLATION:g} (its digits may cancel) and the run too large to recount whole: ε is "
    "the correctly rounded log of the exact ratio at the float run's maximiser",
)


def noted_witness(plan: Any) -> Any:
    """The plan report of a float answer whose witness was recounted: listing :data:`WITNESS_RECOUNTED`."""
    return plan if plan is None else replace(plan, claims=(*plan.claims, WITNESS_RECOUNTED))


def prone_epsilon(epsilon: float) -> bool:
    """Whether a float ε (a log-ratio, or ``(α − 1) D_α``) is small enough that its digits may have cancelled."""
    return epsilon < CANCELLATION


def prone_delta(delta: float, epsilon: float) -> bool:
    """Whether a float δ(ε) is small against the masses ``a`` and ``e^ε b`` it subtracts (about ``1 + e^ε``)."""
    return delta < CANCELLATION * (1 + math.exp(min(epsilon, 700.0)))


def float_of(value: Any) -> float:
    """An exact answer (a Fraction, or a float already) as the nearest float (infinity past the range)."""
    if isinstance(value, Fraction):
        try:
            return float(value)
        except OverflowError:
            return math.inf
    return float(value)


def log_of(value: Any, log: float | None = None) -> float:
    """``ln value`` of an exact answer ``>= 0`` (``-inf`` for 0): it holds a value that underflows a float. ``log``:
    the log the exact run carried with a float ``value`` (a δ at an irrational ``e^ε``, whose float may be 0.0)."""
    if log is not None:
        return log
    if isinstance(value, Fraction):
        return log_fraction(value) if value > 0 else -math.inf
    value = float(value)
    return math.log(value) if value > 0 else -math.inf


def ratio_of(epsilon: float) -> float:
    """``e^ε`` as a float run gives it (infinity past the float range)."""
    return math.exp(epsilon) if epsilon < 709.78 else math.inf


__all__ = [
    "CANCELLATION",
    "RECOUNT_MAX_SECONDS",
    "RECOUNT_MAX_INPUTS",
    "RECOUNT_MAX_NODES",
    "RECOUNT_MAX_COMPOSE",
    "composition_recountable",
    "WITNESS_MAX_NODES",
    "WITNESS_RECOUNTED",
    "witness_recountable",
    "noted_witness",
    "recountable",
    "recounted",
    "noted",
    "RECOUNTED",
    "prone_epsilon",
    "prone_delta",
    "float_of",
    "log_of",
    "ratio_of",
]
