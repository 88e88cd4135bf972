"""The typed plan protocol: what every plan of the planner proves, relies on, estimates and runs.

A plan (:class:`Plan`) is looked at in three steps, on one :class:`Setting` (the compiled program, its relation,
the run's numbers and the detection budget):

1. :meth:`Plan.prove` proves the plan's factorization of the program, or refuses it: a :class:`Proof` (the
   structure found, in words, and the claims it relies on, each with how it was proved), or a :class:`Refused`
   with the reason the plan does not apply. Proving reads the program (its circuit, its diagram) and may spend
   the detection budget; it never lists triples.
2. :meth:`Plan.estimate` gives the seconds of the plan's run from work counted before it runs (cells, diagram
   nodes, blocks, orbits: the constants of :mod:`.costs`, seconds only as a unit). The planner compares these
   estimates and runs the cheapest first (:func:`~.choose.choose_privacy`).
3. :meth:`Plan.privacy` runs the plan for pure ε: the result, or ``(None, why)`` when the plan's witness, recounted
   on the whole program, does not bear it out (the planner then runs the next plan by estimate).

At one database ``x0`` (``at=x0``, ``--at``) the same three steps answer the data-centric question: the setting's
:attr:`Setting.at` is ``x0``, :meth:`Plan.prove` and :meth:`Plan.estimate` read it, and :meth:`Plan.privacy_at`
runs the plan on the pairs of ``x0`` only (:mod:`.structured_at`). A plan offers it by overriding
:meth:`Plan.privacy_at` (:func:`offers_at`); the default raises :class:`NotOffered`.

The other notions come one by one: :meth:`Plan.approximate`, :meth:`Plan.renyi` and :meth:`Plan.accuracy` raise
:class:`NotOffered` unless a plan overrides them, and the planner reads that as "this plan does not offer the
notion" (it is skipped, never an error). A plan is known to the planner by its :attr:`Plan.name` once it is in the
registry (:func:`register`); a registered plan is weighed by the planner and may be forced by name (``plan=``,
``--plan``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: a claim a plan relies on and how it was proved
Claim = tuple[str, str]


@dataclass
class Setting:
    """What every plan of one pure-ε call sees: the compiled program ``whole`` (None for the plans that split the
    program before it is compiled), its ``relation``, the run's numbers
    (``exact``, ``force``), the notion's entry point ``run`` (:func:`wmcdp.synthesize_privacy` on given sets), the
    detection ``budget`` proofs spend (:class:`~.planner.Budget`), the exhaustive estimate ``E`` (None: the
    exhaustive sets do not fit), the size of the exhaustive sets, when the call began, and the plans ``considered``
    so far (``(kind, estimated seconds, note)``, the plan report's list)."""

    whole: Any
    relation: Any
    exact: Any
    force: bool
    run: Callable[..., Any]
    budget: Any
    exhaustive_estimate: float | None
    exhaustive_size: int | None
    start: float
    considered: list[tuple[Any, ...]] = field(default_factory=list)
    #: the plans that split the program before it is compiled (product, given-input) read its trace: the
    #: program, its trace, its compilation when the caller gave one, and the backend
    program: Any = None
    trace: Any = None
    compiled: Any = None
    backend: str = "bdd"
    #: the database ``x0`` of a data-centric call (``at=x0``: only the pairs ``(x0, x')`` and ``(x', x0)``), or
    #: None for every neighbouring pair
    at: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Proof:
    """A plan's proved factorization: ``structure`` (the plan's own object: a chain, a hub, a group), its
    ``describe``-d words, and the claims it relies on with how each was proved."""

    structure: Any
    words: str
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Refused:
    """Why a plan does not apply to the program (a line for the plan report's ``considered`` list; ``""``: the plan
    did not look, e.g. it needs another relation, and is not listed)."""

    why: str


class NotOffered(Exception):
    """A plan does not offer this notion (yet): the planner skips it. Raised by the default :class:`Plan` methods
    of the notions other than pure ε."""


class Plan(ABC):
    """One plan of the planner (module docstring). Subclasses set :attr:`name` and implement :meth:`prove`,
    :meth:`estimate` and :meth:`privacy`; the notions other than pure ε refuse with :class:`NotOffered` until a
    plan overrides them."""

    #: the kind its reports give, and the name ``plan=`` / ``--plan`` force it by
    name: str = ""

    @abstractmethod
    def prove(self, setting: Setting) -> Proof | Refused:
        """The plan's factorization of ``setting.whole``, proved, or why it does not apply."""

    @abstractmethod
    def estimate(self, setting: Setting, proof: Proof) -> float | None:
        """Seconds of the plan's run, from work counted before it runs (None: no estimate, the run is too large
        to size; the planner then weighs it last)."""

    @abstractmethod
    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        """Pure ε by the plan: ``(result with its plan report, "")``, or ``(None, why)`` when its witness's recount
        does not bear it out (``why`` starts with ``"dropped: "``)."""

    def privacy_at(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        """Pure ε of the database ``setting.at`` by the plan (as :meth:`privacy`, its witness a pair of ``x0``): not
        offered unless a plan overrides it, and then its :meth:`prove` and :meth:`estimate` read ``setting.at``."""
        raise NotOffered(f"plan {self.name!r} does not offer the epsilon of one database (at) yet")

    def approximate(self, setting: Setting, proof: Proof) -> Any:
        """(ε, δ) by the plan: not offered unless a plan overrides it."""
        raise NotOffered(f"plan {self.name!r} does not offer (epsilon, delta) yet")

    def renyi(self, setting: Setting, proof: Proof) -> Any:
        """Rényi DP by the plan: not offered unless a plan overrides it."""
        raise NotOffered(f"plan {self.name!r} does not offer Renyi DP yet")

    def accuracy(self, setting: Setting, proof: Proof) -> Any:
        """Accuracy by the plan: not offered unless a plan overrides it."""
        raise NotOffered(f"plan {self.name!r} does not offer accuracy yet")


_REGISTRY: dict[str, Plan] = {}


def register(plan: Plan) -> Plan:
    """Make ``plan`` known to the planner (weighed by estimate for pure ε, and forced by its name); returns it."""
    if not plan.name:
        raise ValueError("a plan needs a name")
    _REGISTRY[plan.name] = plan
    return plan


def unregister(name: str) -> None:
    """Forget the registered plan ``name`` (nothing when it is not registered)."""
    _REGISTRY.pop(name, None)


@contextmanager
def registered(plan: Plan) -> Iterator[Plan]:
    """``plan`` registered for the block's duration (tests, experiments)."""
    register(plan)
    try:
        yield plan
    finally:
        unregister(plan.name)


def registered_plans() -> tuple[Plan, ...]:
    """Every registered plan, in the order of registration."""
    return tuple(_REGISTRY.values())


def registered_plan(name: str) -> Plan | None:
    return _REGISTRY.get(name)


def offers_at(plan: Plan) -> bool:
    """Whether ``plan`` answers at one database: it overrides :meth:`Plan.privacy_at` (the planner then proves it at
    ``x0``; the others are not looked at, as a call of their :meth:`Plan.privacy_at` would raise
    :class:`NotOffered`)."""
    return type(plan).privacy_at is not Plan.privacy_at


__all__ = [
    "Claim",
    "Setting",
    "Proof",
    "Refused",
    "NotOffered",
    "Plan",
    "register",
    "unregister",
    "registered",
    "registered_plans",
    "registered_plan",
    "offers_at",
]
