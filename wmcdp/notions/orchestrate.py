"""The one sequence every notion over neighbouring pairs runs: planner → pair source → scan.

A notion over pairs ((ε, δ), the privacy profile, Rényi, ...) is a maximum over a set of ordered neighbouring
pairs ``(x, x')`` of a sum over every output. :func:`over_pairs` decides where the pairs come from — the planner
(:func:`wmcdp.plan.planned.planned_pairs`) when the caller gives no pairs, else the pairs it gives
(:func:`wmcdp.plan.pairs.pair_source`) — and hands them to the notion's own math:

* ``scan(source, report)``: the bound over one :class:`~wmcdp.plan.pairs.PairSource`; ``report()`` is the plan
  that chose the source (None for the caller's pairs), its time taken when called;
* ``combine(product, parts)``: a product plan's per-part results into the product's (the planner ran ``part`` on
  one representative of each class of independent parts; :func:`worst_part` under the max rule);
* ``symbolic(program)``: the notion as a function of a symbolic parameter (:mod:`wmcdp.notions.piecewise`);
  without it such a program is refused in one line.

A certified run (weights given as exact reals, :mod:`wmcdp.notions.certify`) encloses the exact runs this
sequence makes, so the notion branches to it before calling :func:`over_pairs`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..base import progress
from ..compile import Compiled
from ..lang.program import Program, Value
from ..plan.at import product_at
from ..plan.forced import refuse
from ..plan.pairs import PairSource, pair_source
from ..plan.planned import finish, pair_witness, planned_pairs
from ..plan.planner import Product, combine_max

R = TypeVar("R")
#: the planner of a notion: (program, pairs, part, symbolic) -> (Product, part results) | (source, plan) |
#: ("symbolic", result)
Planner = Callable[[Any, "Pairs", Callable[[Any], Any], Any], tuple[Any, Any]]


@dataclass(frozen=True)
class Pairs:
    """The pairs a notion runs over, as its caller asked: explicit ``pairs`` (with the rows ``I``), the
    data-centric pairs ``at`` one database, or neither (the planner, with the relation ``neighbours``)."""

    pairs: Any = None
    I: Any = None
    at: Value | None = None
    neighbours: Any = None
    backend: str = "bdd"
    exact: Any = None
    force: bool = False
    plan: str | None = None  # the one plan of the planner to run (:mod:`wmcdp.plan.forced`)
    logs: bool = False  # the notion's pass over pairs runs in float logs in exact mode too (its estimate's cost)

    @property
    def planned(self) -> bool:
        """Whether the planner chooses the pairs (the caller gave none)."""
        return self.pairs is None and self.I is None and self.at is None

    def source(self, prog: Program | Compiled) -> PairSource:
        """The caller's pairs of ``prog`` with their output masses."""
        return pair_source(
            prog,
            self.pairs,
            self.I,
            at=self.at,
            neighbours=self.neighbours,
            backend=self.backend,
            exact=self.exact,
            force=self.force,
        )


def by_rules(rules: tuple[str, ...] = ("max", "sum")) -> Planner:
    """The planner's pairs (:func:`wmcdp.plan.planned.planned_pairs`) for a notion whose bound over a product of
    independent parts is, under each of ``rules``, the maximum (``"max"``: the worst part's) or the sum (``"sum"``)
    of its parts' bounds; a product under another rule is planned as one program. ``part(c)`` runs the notion on
    one part."""

    def planner(prog: Any, which: Pairs, part: Callable[[Any], Any], symbolic: Any) -> tuple[Any, Any]:

        args = (which.neighbours, which.backend, which.exact, which.force)
        return planned_pairs(prog, *args, rules, lambda c, rule: part(c), symbolic, which.plan, which.logs)

    return planner


def worst_part(planned: Any, results: Sequence[R], values: Sequence[Any], start: float) -> R:
    """A product's result under the max rule: the result of the part with the largest of ``values`` (the first on
    ties), its witness pair written in the whole program's inputs, the parts' diagram sizes summed and the
    product's plan report. The result type has ``witness``, ``diagram_size``, ``seconds`` and ``plan``."""

    c = combine_max(list(values))
    seconds = time.perf_counter() - start
    best: Any = results[c]
    return replace(  # type: ignore[no-any-return]
        best,
        witness=pair_witness(planned, planned.members[c][0], best.witness),
        diagram_size=sum(getattr(r, "diagram_size", 0) or 0 for r in results),
        seconds=seconds,
        plan=planned.report([getattr(r, "plan", None) for r in results], None, None, seconds),
    )


def over_pairs(
    prog: Program | Compiled,
    which: Pairs,
    start: float,
    *,
    scan: Callable[[PairSource, Callable[[], Any]], R],
    part: Callable[[Any], Any],
    combine: Callable[[Any, Any], R],
    symbolic: Callable[[Any], R] | None = None,
    planner: Planner | None = None,
) -> R:
    """The notion whose steps are ``scan``, ``part``, ``combine`` and ``symbolic`` (see the module docstring) on
    the pairs ``which`` of ``prog``; ``start`` is when the call began (the plan's time counts from it). ``planner``
    defaults to :func:`by_rules` (a product's bound is the max or the sum of its parts')."""
    if symbolic is not None:
        # deferred: python-flint (wmcdp.notions.piecewise) costs 0.2 s at import; only symbolic runs need it
        from .piecewise import symbolic_parameter

        if symbolic_parameter(prog) is not None:
            if which.plan is not None:
                refuse(which.plan, "the program has a symbolic parameter (the notion as a function has its own plan)")
            return symbolic(prog)
    if which.at is not None and which.pairs is None and which.I is None:
        by_parts = _product_at(prog, which, start, scan, combine)
        if by_parts is not None:
            return by_parts
    if not which.planned:
        source = which.source(prog)
        progress.phase("counting", "the neighbouring pairs")
        return scan(source, lambda: None)

    planned, extra = (planner or by_rules())(prog, which, part, symbolic)
    if isinstance(planned, str):  # the planner found a symbolic parameter: the notion as a function
        return extra  # type: ignore[no-any-return]
    if isinstance(planned, Product):
        return combine(planned, extra)
    progress.phase("counting", "the neighbouring pairs")
    return scan(planned, lambda: finish(extra, start))


def _product_at(
    prog: Program | Compiled,
    which: Pairs,
    start: float,
    scan: Callable[[PairSource, Callable[[], Any]], R],
    combine: Callable[[Any, Any], R],
) -> R | None:
    """The notion at the database ``which.at`` of a product of parts under a relation that moves one part: each
    part's value at its entries of ``at`` (:mod:`wmcdp.plan.at`), combined by the max rule, the witness pair
    written with the other entries at ``at``'s values. None when ``prog`` is no such product."""

    found = product_at(prog, which.at, which.neighbours, which.backend, which.exact)
    if found is None:
        return None
    results = [
        scan(replace(which, at=local, neighbours=found.relation).source(c), lambda: None)
        for c, local in zip(found.compiled, found.local)
    ]
    return combine(found, results)


__all__ = ["Pairs", "Planner", "over_pairs", "by_rules", "worst_part"]
