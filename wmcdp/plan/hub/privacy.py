"""The hub plan's entry point: pure ε by conditioned parts, its witness recounted on the whole program."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...count.probabilities import number_system
from ..planner import AT_NOTE, announce, answered, at_offsets, exhaustive_triples, recount
from .estimate import hub_estimate
from .search import MARGIN
from .worst import HubAnswer, hub_plan


def hub_privacy(
    whole: Any,
    relation: Any,
    exact: Any,
    run: Callable[..., Any],
    budget: Any,
    start: float,
    considered: list[tuple[Any, ...]],
    at: tuple[int, ...] | None = None,
) -> Any | None:
    """Pure ε by the hub plan (:func:`hub_plan`) when it applies, else None; with ``at`` (a database ``x0`` of the
    domain) the data-centric ε of ``x0``. ``whole`` is the compiled program; the witness triple is then counted by
    ``run`` (Algorithm 2 on that one triple, the ordinary counter), and its ratio is the bound: in exact mode it
    must equal the plan's exactly. When the count does not bear the plan out (:func:`~.planner.recount`) the plan
    is dropped, noted in ``considered``, and None returned."""
    exact_run = _exact_run(whole, exact)
    if exact_run is None or not relation.builtin:
        return None
    announce("hub", None, "searching each output event")
    offsets = at_offsets(whole, at)
    answer = hub_plan(whole.trace, len(whole.domain.entry_values), relation.name, exact_run, budget, offsets, whole)
    if answer is None:
        considered.append(("hub", None, "no hub proved"))
        return None
    lo, sides = whole.domain.lo, (answer.best.x or {}, answer.best.x_prime or {})
    unread = offsets or (0,) * whole.domain.n  # entries no part reads: at x0's value, or the lowest
    x, xp = ([lo + side.get(e, unread[e]) for e in range(whole.domain.n)] for side in sides)
    y = answer.best.y
    estimate = hub_estimate(answer, len(whole.domain.entry_values), whole.size)
    triple = (tuple(x), tuple(xp), y)
    r, why = recount(run, whole, relation, exact, triple, answer.best.ratio() if exact_run else None, at=at)
    if r is None:
        considered.append(("hub", estimate, why))
        return None
    considered.append(("hub", estimate, answer.describe()))
    events = (
        f"outputs factored by entry (each output leaf reads the hub and one entry's block; at most {answer.owned} "
        "own values per entry), searched once"
        if answer.owned
        else f"{answer.outputs} output events"
    )
    structure = (
        f"hub: {answer.describe()}; {len(answer.hub.blocks)} parts (one per entry), at most {answer.types} "
        f"types per output; {events}; {answer.best.leaves} type-count multisets evaluated"
        f"{AT_NOTE if at is not None else ''}"
    )
    sizes = (answer.best.leaves, exhaustive_triples(whole, relation, at))
    return answered(r, "hub", structure, sizes, estimate, start, considered, _claims(answer), (0.0, budget.spent))


def _exact_run(whole: Any, exact: Any) -> bool | None:
    """Whether the run counts exactly (every weight a Fraction); None for a symbolic parameter, or an exact run
    whose weights are not all rational."""
    arith = number_system(whole, exact)
    if getattr(arith, "interned", False):
        return None
    exact_weights = all(w.exact for w in whole.trace.circuit.weights.values())
    if arith.exact and not exact_weights:
        return None
    return bool(arith.exact)


def _claims(answer: HubAnswer) -> tuple[tuple[str, str], ...]:
    split = (
        (
            f"given the hub ({answer.describe()}) each output is one own value per entry, each entry's part "
            "independent of the others",
            "read off the traced circuit: the gates of every output leaf read the hub's bits and one entry's block "
            "alone, so with the hub fixed the leaves of different entries share no variable; the entry's own value "
            "(x_e, x'_e and y_e) is searched with its input",
        )
        if answer.owned
        else (
            f"given the hub ({answer.describe()}) each output event is the conjunction of one part per entry",
            f"read off the BDD of each of the {answer.outputs} output events under each hub value: at every "
            "entry's boundary all crossing edges reach FALSE or one node (a cut of width one), so the parts share "
            "no input entry and no random bit (a pinned entry's block is fixed with the hub, class by class)",
        )
    )
    return (
        split,
        (
            "entries with equal part tables are interchangeable, and dominated moves never attain the maximum",
            "the ratio of an output depends only on how many entries of each type take each (x_e, x'_e); a move "
            "whose probabilities are at most another's under x and at least under x' for every hub value cannot "
            "raise it",
        ),
        (
            "branches pruned by the bound cannot attain the maximum",
            "sum_h a_h / sum_h b_h <= max_h a_h / b_h, each open entry at its largest ratio per hub value; pruned "
            f"only below the best ratio found by more than {MARGIN} in logs",
        ),
    )
