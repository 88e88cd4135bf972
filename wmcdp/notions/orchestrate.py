"""The one sequence every notion over neighbouring pairs runs: planner → pair source → scan.

A notion over pairs ((ε, δ), the privacy profile, Rényi, ...) is a maximum over a set of ordered neighbouring
pairs ``(x, x')`` of a sum over every output. :func:`over_pairs` decides where the pairs come from — the planner
(:func:`wmcdp.plan.planned.planned_pairs`) when the caller gives no pairs, else the pairs it gives
(:func:`wmcdp.plan.pairs.pair_source`) — and hands them to the notion's own math:

* ``scan(source, report)``: the bound over one :class:`~wmcdp.plan.pairs.PairSource`; ``report()`` is the plan
  that chose the source (None for the caller's pairs), its time taken when called;
* ``combine(product, parts)``: a product plan's per-part results into the product's (the planner ran ``part`` on
  one representative of each class of independent parts);
* ``symbolic(program)``: the notion as a function of a symbolic parameter (:mod:`wmcdp.notions.piecewise`);
  without it such a program is refused in one line.

A certified run (weights given as exact reals, :mod:`wmcdp.notions.certify`) encloses the exact runs this
sequence makes, so the notion branches to it before calling :func:`over_pairs`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..compile import Compiled
from ..lang.program import Program, Value
from ..plan.pairs import PairSource, pair_source

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


def planned_pairs(prog: Any, which: Pairs, part: Callable[[Any], Any], symbolic: Any) -> tuple[Any, Any]:
    """The planner's pairs when a product's bound is the maximum or the sum of its parts' bounds
    (:func:`wmcdp.plan.planned.planned_pairs`; ``part(c)`` runs the notion on a part under either rule)."""
    from ..plan.planned import planned_pairs as planned

    return planned(
        prog,
        which.neighbours,
        which.backend,
        which.exact,
        which.force,
        ("max", "sum"),
        lambda c, rule: part(c),
        symbolic,
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
    planner: Planner = planned_pairs,
) -> R:
    """The notion whose steps are ``scan``, ``part``, ``combine`` and ``symbolic`` (see the module docstring) on
    the pairs ``which`` of ``prog``; ``start`` is when the call began (the plan's time counts from it)."""
    if symbolic is not None:
        from .piecewise import symbolic_parameter

        if symbolic_parameter(prog) is not None:
            return symbolic(prog)
    if not which.planned:
        return scan(which.source(prog), lambda: None)
    from ..plan.planned import finish
    from ..plan.planner import Product

    planned, extra = planner(prog, which, part, symbolic)
    if isinstance(planned, str):  # the planner found a symbolic parameter: the notion as a function
        return extra  # type: ignore[no-any-return]
    if isinstance(planned, Product):
        return combine(planned, extra)
    return scan(planned, lambda: finish(extra, start))


__all__ = ["Pairs", "over_pairs", "planned_pairs"]
