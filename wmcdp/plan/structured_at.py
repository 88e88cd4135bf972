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
a witness that does not bear its plan out drops the plan, as without ``at``. The plans are those of the plan
protocol that offer the question (:func:`~.protocol.offers_at`: these three and every registered plan that
overrides :meth:`~.protocol.Plan.privacy_at`). When the exhaustive ``at`` sets are not quick (:func:`at_budget`)
each is proved and estimated at ``x0`` before any runs (``considered`` lists them with their estimates), and they
run cheapest first under a budget of counted work that is a share of the exhaustive estimate (the structured route
must pay); otherwise, and when none answers, the exhaustive ``at`` sets answer. A plan forced by name (``plan=``)
runs at ``x0`` whatever the estimate, or is refused in one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import is_symbolic, size_text
from ..compile import Compiled
from ..lang.program import Program, Value
from ..lang.relations import Relation, neighbour_relation
from ..lang.sets import MAX_TRIPLES
from .choose import CHAIN, HUB, prove_each, run_cheapest
from .costs import (
    AT_ROW_NODE_SECONDS,
    AT_TRIPLE_SECONDS,
    DETECTION_SHARE,
    QUICK_SECONDS,
    UNFIT_DETECTION_WORK,
    WORK_PER_SECOND,
)
from .forced import NOT_WEIGHED, refuse
from .planned import GIVEN_INPUT
from .planner import (
    Budget,
    compiled_whole,
    exhaustive_triples,
    traced,
    triple_seconds,
)
from .protocol import Plan, Refused, Setting, offers_at, registered_plans


def at_plans() -> tuple[Plan, ...]:
    """The plans that answer at one database, in the order they are proved: given-input, chain, hub, then every
    registered plan that offers it (:func:`~.protocol.offers_at`)."""
    return (GIVEN_INPUT, CHAIN, HUB, *(p for p in registered_plans() if offers_at(p)))


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
    """The data-centric pure ε of ``at`` by the cheapest of :func:`at_plans` that applies and bears its witness out
    (module docstring), or by the one ``plan`` named; None when the exhaustive at sets are to answer (they are
    quick, the program has a symbolic parameter, or no plan answers). ``run`` is :func:`wmcdp.synthesize_privacy`
    (the witness's recount). When no plan answers and the exhaustive at sets are over the triples' limit, the run
    is refused in one line unless ``force``."""
    start = time.perf_counter()
    program, trace, compiled = traced(prog, exact)
    x0 = program.inputs.check(at)
    relation = neighbour_relation(neighbours or program.neighbours)
    plans = {p.name: p for p in at_plans()}
    if plan is not None and plan not in plans:
        names = ", ".join(plans)
        refuse(plan, f"at (the data-centric pairs of one database) runs the product, {names} or exhaustive plans")
    if any(is_symbolic(w.one) for w in trace.circuit.weights.values()):
        if plan is not None:
            refuse(plan, "a weight is a function of a symbolic parameter (at a database the plans need numbers)")
        return None
    backend = compiled.backend.name if compiled is not None else backend
    whole = compiled_whole(program, trace, compiled, backend)
    if plan is not None:
        budget: Budget | None = Budget(None)
        estimate: float | None = None
        considered: list[tuple[Any, ...]] = [NOT_WEIGHED]
    else:
        budget, estimate = at_budget(whole, relation, x0, exact)
        if budget is None:
            return None
        why = "" if estimate is not None else f"{size_text(exhaustive_triples(whole, relation, x0))} triples at x0"
        considered = [("exhaustive", estimate, why)]
    size = exhaustive_triples(whole, relation, x0)
    setting = Setting(whole, relation, exact, force, run, budget, estimate, size, start, considered)
    setting.program, setting.trace, setting.compiled, setting.backend, setting.at = program, trace, whole, backend, x0
    if plan is not None:
        return _forced_at(plans[plan], setting)
    r = run_cheapest(setting, prove_each(setting, tuple(plans.values())), None)
    if r is not None:
        return r
    if estimate is None and not force:
        notes = "; ".join(f"{kind}: {why}" for kind, _, why in considered[1:]) or "none applies"
        raise WmcdpError(
            f"at x0 the default plan finds no run within the limits: exhaustive at sets {considered[0][2]} (limit "
            f"{MAX_TRIPLES}), use --force; the plans at x0: {notes}"
        )
    return None


def _forced_at(plan: Plan, setting: Setting) -> Any:
    """The one plan forced at ``setting.at``, proved and run whatever its estimate, or refused in one line."""
    proof = plan.prove(setting)
    if isinstance(proof, Refused):
        refuse(plan.name, proof.why or _UNSTRUCTURED)
    estimate = plan.estimate(setting, proof)
    setting.considered.append((plan.name, estimate, proof.words))
    r, why = plan.privacy_at(setting, proof, estimate)
    if r is None:
        refuse(plan.name, why)
    return r


#: why a forced plan did not look at a program at all
_UNSTRUCTURED = "it needs a built-in relation and numeric weights (rational ones in an exact run)"


__all__ = ["at_plans", "at_budget", "structured_privacy_at"]
