"""The data-centric ε of one database ``x0`` (``at=x0``) by the structured pure-ε plans.

The exhaustive ``at`` sets (:func:`~.pairs.privacy_sets_at`) list every output for each pair ``(x0, x')`` and
``(x', x0)``: a few pairs, but sparse vector's ``3^n`` outputs put them out of reach. The plans that maximise
``P(y | x) / P(y | x')`` over every output without listing the outputs answer the data-centric question when
their search is restricted to the pairs of ``x0`` (both orders, as :func:`~.pairs.pairs_at` lists them):

* ``given-input`` (:mod:`.given_input`): its scan runs over the pairs of ``x0`` only;
* ``chain`` (:mod:`.chain`): the max-product search runs twice, once with every block's ``x_k`` fixed to ``x0``'s
  entry and once with every ``x'_k`` fixed to it;
* ``hub`` (:mod:`.hub`): entries are typed by their part's tables and their value in ``x0``, and each type's
  choices ``(x_e, x'_e)`` keep ``x_e = x0_e`` (then, in a second search, ``x'_e = x0_e``).

Each plan's witness is recounted on the whole program (:func:`~.planner.recount`) and must be a pair of ``x0``;
a witness that does not bear its plan out drops the plan, as without ``at``. The plans are tried in the planner's
order (given-input, chain, hub) when the exhaustive ``at`` sets are not quick (:func:`at_budget`), under a budget
of counted work that is a share of the exhaustive estimate (the structured route must pay); otherwise, and when
none applies, the exhaustive ``at`` sets answer. A plan forced by name (``plan=``) runs at ``x0`` whatever the
estimate, or is refused in one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import is_symbolic, size_text
from ..compile import Compiled
from ..lang.program import Program, Value
from ..lang.relations import Relation, neighbour_relation
from ..lang.sets import MAX_TRIPLES
from .chain import chain_privacy
from .costs import (
    AT_ROW_NODE_SECONDS,
    AT_TRIPLE_SECONDS,
    DETECTION_SHARE,
    QUICK_SECONDS,
    UNFIT_DETECTION_WORK,
    WORK_PER_SECOND,
)
from .forced import NOT_WEIGHED, refuse
from .given_input import given_input_privacy
from .hub import hub_privacy
from .planner import (
    Budget,
    compiled_whole,
    exhaustive_triples,
    traced,
    triple_seconds,
)

#: the plans of this module, in the order they are tried
AT_PLANS = ("given-input", "chain", "hub")


def at_budget(
    whole: Compiled, relation: Relation, x0: tuple[int, ...], exact: Any
) -> tuple[Budget | None, float | None]:
    """``(budget of the structured plans, estimate of the exhaustive at sets)``; a None budget: the exhaustive at
    sets are quick (below :data:`~.costs.QUICK_SECONDS`) and run at once. Over the triples' limit the estimate is
    None and the budget that of programs whose exhaustive sets do not fit."""
    triples = exhaustive_triples(whole, relation, x0)
    if triples > MAX_TRIPLES:
        return Budget(UNFIT_DETECTION_WORK), None
    rows = relation.count_neighbours(whole.domain, x0) + 1
    estimate = triples * (AT_TRIPLE_SECONDS + triple_seconds(whole, exact)) + rows * whole.size * AT_ROW_NODE_SECONDS
    if estimate < QUICK_SECONDS:
        return None, estimate
    return Budget(int(DETECTION_SHARE * estimate * WORK_PER_SECOND)), estimate


def structured_privacy_at(
    prog: Program | Compiled,
    at: Value,
    neighbours: Any,
    backend: str,
    exact: Any,
    run: Callable[..., Any],
    plan: str | None = None,
    force: bool = False,
) -> Any | None:
    """The data-centric pure ε of ``at`` by the first of :data:`AT_PLANS` that applies and pays (module docstring),
    or by the one ``plan`` named; None when the exhaustive at sets are to answer (they are quick, the program has a
    symbolic parameter, or no plan applies). ``run`` is :func:`wmcdp.synthesize_privacy` (the
    witness's recount). When no plan applies and the exhaustive at sets are over the triples' limit, the run is
    refused in one line unless ``force``."""
    start = time.perf_counter()
    program, trace, compiled = traced(prog, exact)
    x0 = program.inputs.check(at)
    relation = neighbour_relation(neighbours or program.neighbours)
    if plan is not None and plan not in AT_PLANS:
        refuse(
            plan,
            "at (the data-centric pairs of one database) runs the product, given-input, chain, hub or exhaustive plans",
        )
    if any(is_symbolic(w.one) for w in trace.circuit.weights.values()):
        if plan is not None:
            refuse(plan, "a weight is a function of a symbolic parameter (at a database the plans need numbers)")
        return None
    backend = compiled.backend.name if compiled is not None else backend
    whole = compiled_whole(program, trace, compiled, backend)
    if plan is not None:
        budget: Budget | None = Budget(None)
        considered: list[tuple[Any, ...]] = [NOT_WEIGHED]
    else:
        budget, estimate = at_budget(whole, relation, x0, exact)
        if budget is None:
            return None
        why = "" if estimate is not None else f"{size_text(exhaustive_triples(whole, relation, x0))} triples at x0"
        considered = [("exhaustive", estimate, why)]
    for name in AT_PLANS if plan is None else (plan,):
        r = _run_plan(name, program, trace, whole, relation, exact, run, budget, start, considered, x0)
        if r is not None:
            return r
    if plan is not None:
        refuse(plan, considered[-1][2] if len(considered) > 1 else _UNSTRUCTURED)
    if considered[0][1] is None and not force:
        notes = "; ".join(f"{kind}: {why}" for kind, _, why in considered[1:]) or "none applies"
        raise WmcdpError(
            f"at x0 the default plan finds no run within the limits: exhaustive at sets {considered[0][2]} (limit "
            f"{MAX_TRIPLES}), use --force; the plans at x0: {notes}"
        )
    return None


#: why a forced chain or hub plan did not look at a program at all
_UNSTRUCTURED = "it needs a built-in relation and numeric weights (rational ones in an exact run)"


def _run_plan(
    name: str,
    program: Program,
    trace: Any,
    whole: Compiled,
    relation: Relation,
    exact: Any,
    run: Callable[..., Any],
    budget: Budget | None,
    start: float,
    considered: list[tuple[Any, ...]],
    x0: tuple[int, ...],
) -> Any | None:
    """One plan of :data:`AT_PLANS` at ``x0``: its result, or None with why not added to ``considered``."""
    if name == "given-input":
        given, notes = given_input_privacy(program, trace, whole, relation, whole.backend.name, exact, run, start, x0)
        if given is None:
            considered += notes
            return None
        return replace(given, plan=replace(given.plan, considered=(*considered, *given.plan.considered)))
    structured = chain_privacy if name == "chain" else hub_privacy
    return structured(whole, relation, exact, run, budget, start, considered, at=x0)


__all__ = ["AT_PLANS", "at_budget", "structured_privacy_at"]
