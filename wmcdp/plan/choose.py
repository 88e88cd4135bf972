"""The plans of the whole compiled program behind the plan protocol, and the planner's choice among them by estimate.

:class:`ChainPlan`, :class:`HubPlan`, :class:`SymmetryPlan` and :class:`ExhaustivePlan` implement
:class:`~.protocol.Plan` for pure ε (:mod:`.protocol`); :func:`choose_privacy` proves every plan that may apply,
estimates each from counted work before any runs, and runs the cheapest first (module docstring of
:mod:`.planner`, "How it chooses").
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..base.numbers import size_text
from ..count.probabilities import exhaustive_outputs
from ..lang.sets import MAX_PAIRS, MAX_TRIPLES
from .chain import chain_privacy, find_chain
from .costs import (
    CHAIN_EXACT_UNIT_SECONDS,
    CHAIN_FLOAT_UNIT_SECONDS,
    CHAIN_NODE_UNITS,
    ORBIT_BASE_SECONDS,
    PLAN_WORK_FACTOR,
    WORK_PER_SECOND,
)
from .forced import no_symmetry
from .hub import hub_privacy
from .hub.blocks import find_blocks
from .hub.estimate import planned_estimate
from .hub.moves import RELATIONS
from .hub.privacy import _exact_run
from .planner import Budget, announce, answered, orbit_estimate, with_detection
from .protocol import Plan, Proof, Refused, Setting, registered_plans
from .symmetry.runs import MAX_TRIPLES as ORBIT_MAX_TRIPLES
from .symmetry.runs import privacy_plan, refuse_default


def exhaustive_privacy(setting: Setting, reason: str, estimate: Any, detection: float) -> Any:
    """Algorithm 2 on the exhaustive sets (every neighbouring pair, every output), its plan reported with
    ``reason`` (``detection``: seconds spent seeking a symmetry)."""
    s = setting
    announce("exhaustive sets", estimate)
    r = s.run(s.whole, "exhaustive", neighbours=s.relation, exact=s.exact, force=s.force)
    return exhaustive_report(r, reason, s.exhaustive_size, estimate, detection, s.start, s.considered)


def exhaustive_report(
    r: Any, reason: str, size: int | None, estimate: Any, detection: float, start: float, considered: list[Any]
) -> Any:
    """The result ``r`` of a run on the exhaustive sets with its plan: ``reason``, the ``size`` inputs, the
    ``estimate``, ``detection`` seconds spent seeking a symmetry, and the options ``considered``."""
    return answered(r, "exhaustive", reason, (size, size), estimate, start, considered, detection=(detection, 0))


class _Structured(Plan):
    """A plan that reads one factorization off the compiled program and recounts its witness: the chain and the
    hub plan, whose entry points (:func:`~.chain.chain_privacy`, :func:`~.hub.hub_privacy`) prove the rest and
    search (their own notes go to a scratch list: the planner lists each plan once, with its estimate)."""

    def _entry(self, s: Setting, notes: list[tuple[Any, ...]]) -> Any | None:
        """The plan's entry point run on ``s``, its notes added to ``notes``."""
        raise NotImplementedError

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        s, notes = setting, list(setting.considered)
        own = _run_budget(s.budget, estimate)
        try:
            r = self._entry(s if own is s.budget else replace(s, budget=own), notes)
        finally:
            if own is not s.budget:
                s.budget.charge(own.spent - s.budget.spent)  # what the run spent counts against the rest
        if r is None:
            why = notes[-1][2] if len(notes) > len(s.considered) else f"no {self.name} proved"
            return None, why
        plan = replace(r.plan, estimated_seconds=estimate, considered=tuple(s.considered))
        return replace(r, plan=plan), ""

    def privacy_at(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        """At ``setting.at`` the entry point's search keeps one side of every pair at ``x0``'s entries."""
        return self.privacy(setting, proof, estimate)

    @staticmethod
    def _numeric(setting: Setting) -> bool | None:
        """Whether the run is exact (None: the plan does not look: a user relation, symbolic or irrational exact
        weights)."""
        if not setting.relation.builtin or setting.relation.name not in RELATIONS:
            return None
        return _exact_run(setting.whole, setting.exact)


def _run_budget(budget: Any, estimate: float | None) -> Any:
    """The work a structured plan chosen by its ``estimate`` may spend: what detection's budget has left, or at
    least :data:`~.costs.PLAN_WORK_FACTOR` times the estimate at :data:`~.costs.WORK_PER_SECOND` (counted work, as
    every budget): the plan the estimates chose is not abandoned at the detection share when it is the one that
    answers (at n = 40 the hub plan of unbounded sparse vector needs 3.4e7 nodes, over the 3e7 of a program whose
    exhaustive sets do not fit). ``budget`` itself when it already allows that much (or has no limit)."""
    if budget is None or budget.work is None or estimate is None or not math.isfinite(estimate):
        return budget
    wanted = budget.spent + int(PLAN_WORK_FACTOR * estimate * WORK_PER_SECOND)
    return budget if wanted <= budget.work else Budget(wanted, budget.spent)


class ChainPlan(_Structured):
    """The chain plan (:mod:`.chain`): a state carried from entry to entry, a max-product over pairs of states."""

    name = "chain"

    def _entry(self, s: Setting, notes: list[tuple[Any, ...]]) -> Any | None:
        return chain_privacy(s.whole, s.relation, s.exact, s.run, s.budget, s.start, notes, at=s.at)

    def prove(self, setting: Setting) -> Proof | Refused:
        whole = setting.whole
        if self._numeric(setting) is None or len(whole.trace.input_bits) != whole.domain.n:
            return Refused("")
        chain = find_chain(whole)
        if chain is None:
            return Refused("no chain proved")
        return Proof(chain, f"{len(chain)} blocks (one per entry)")

    def estimate(self, setting: Setting, proof: Proof) -> float:
        """:data:`~.costs.CHAIN_NODE_UNITS` frontier states per diagram node and pair of entry values, at the
        plan's unit (exact or float)."""
        whole = setting.whole
        unit = CHAIN_EXACT_UNIT_SECONDS if self._numeric(setting) else CHAIN_FLOAT_UNIT_SECONDS
        return float(CHAIN_NODE_UNITS * whole.size * len(whole.domain.entry_values) ** 2 * unit)


class HubPlan(_Structured):
    """The hub plan (:mod:`.hub`): parts independent once a hub of random bits is fixed."""

    name = "hub"

    def _entry(self, s: Setting, notes: list[tuple[Any, ...]]) -> Any | None:
        return hub_privacy(s.whole, s.relation, s.exact, s.run, s.budget, s.start, notes, at=s.at)

    def prove(self, setting: Setting) -> Proof | Refused:
        if self._numeric(setting) is None:
            return Refused("")
        hub = find_blocks(setting.whole.trace)
        if hub is None:
            return Refused("no hub proved")
        return Proof(hub, hub.describe())

    def estimate(self, setting: Setting, proof: Proof) -> float:
        """The work :func:`~.hub.estimate.planned_terms` counts before the plan runs (the output events some input
        produces, the blocks' levels, the program's diagram) at :data:`~.costs.HUB_PLANNED_SECONDS`."""
        return planned_estimate(setting.whole, proof.structure)


class SymmetryPlan(Plan):
    """Orbit sets of the program's proved symmetry (:mod:`.symmetry`), proved under the detection budget."""

    name = "symmetry"

    def prove(self, setting: Setting) -> Proof | Refused:
        """The proved group and its orbit sets (:func:`~.symmetry.runs.privacy_plan`); refuses in one line, without
        ``force``, when neither the exhaustive nor the orbit sets fit the limits."""
        s = setting
        if not s.relation.per_entry:  # symmetry orbits are built on per-entry pair types (Relation.per_entry)
            return Refused(no_symmetry(s.relation))
        unsized = s.exhaustive_estimate is None and not s.force
        sym = privacy_plan(s.whole, s.relation, budget=s.budget, limit=ORBIT_MAX_TRIPLES if unsized else None)
        triples, _ = sym.sizes()
        if unsized and triples > ORBIT_MAX_TRIPLES:
            whole = s.whole
            outputs = exhaustive_outputs(whole)  # (the producible ones when they are listed)
            refuse_default(
                f"|I| = {size_text(whole.domain.size * outputs)} pairs and "
                f"|C| = {size_text(s.relation.count_pairs(whole.domain) * outputs)} "
                f"triples (limits {MAX_PAIRS} pairs, {MAX_TRIPLES} triples)",
                f"|C| = {size_text(triples)} triples (limit {ORBIT_MAX_TRIPLES})",
                sym.symmetry.describe(),
            )
        return Proof(sym, sym.symmetry.describe(), sym.claims)

    def estimate(self, setting: Setting, proof: Proof) -> float:
        return orbit_run_estimate(setting.whole, proof.structure, setting.exact)

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        s, sym = setting, proof.structure
        announce("symmetry", estimate, proof.words)
        r = s.run(s.whole, sym, neighbours=s.relation, exact=s.exact, force=s.force)
        structure = f"{proof.words}; per output: {sym.per_output}"
        sizes = (sym.sizes()[0], s.exhaustive_size)
        detection = (sym.seconds, s.budget.spent)
        estimated = with_detection(estimate, s.budget)
        return answered(r, "symmetry", structure, sizes, estimated, s.start, s.considered, sym.claims, detection), ""


def orbit_run_estimate(whole: Any, sym: Any, exact: Any) -> float:
    """Seconds of a pure-ε run on the orbit sets ``sym`` of the compiled program ``whole``
    (:func:`~.symmetry.runs.privacy_plan`): :data:`~.costs.ORBIT_BASE_SECONDS`, then its (input, output) pairs
    counted and its triples scanned (:func:`~.planner.orbit_estimate`)."""
    triples, pairs = sym.sizes()
    return ORBIT_BASE_SECONDS + orbit_estimate(whole, pairs, triples, exact=exact)


class ExhaustivePlan(Plan):
    """Every neighbouring pair and every output (Algorithm 2 on the exhaustive sets): always applies."""

    name = "exhaustive"

    def prove(self, setting: Setting) -> Proof | Refused:
        return Proof(None, "" if setting.exhaustive_estimate is not None else "over the size limits")

    def estimate(self, setting: Setting, proof: Proof) -> float | None:
        return setting.exhaustive_estimate

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        """The exhaustive sets, named by the caller (the planner runs them by :func:`exhaustive_privacy` with the
        reason they were left)."""
        return exhaustive_privacy(setting, "forced (plan 'exhaustive')", estimate, 0.0), ""


#: the plans of the whole compiled program, in the order they are proved (symmetry's proof is sought only when it
#: may pay: :func:`choose_privacy`)
CHAIN, HUB, SYMMETRY, EXHAUSTIVE = ChainPlan(), HubPlan(), SymmetryPlan(), ExhaustivePlan()
WHOLE_PLANS: dict[str, Plan] = {p.name: p for p in (CHAIN, HUB, SYMMETRY, EXHAUSTIVE)}


#: a proved plan: the plan, its proof, its estimate and the place of its line in ``considered``
Proved = tuple[Plan, Proof, float | None, int]


def _key(item: Proved) -> float:
    """Sorting key of a proved plan: its estimate, no estimate last (ties in the order they were proved)."""
    return float("inf") if item[2] is None else item[2]


def prove_each(setting: Setting, plans: tuple[Plan, ...]) -> list[Proved]:
    """Each of ``plans`` proved and estimated on ``setting`` before any runs: its line in ``setting.considered``
    with its estimate, or why it does not apply (nothing when it did not look)."""
    s, proved = setting, []
    for plan in plans:
        proof = plan.prove(s)
        if isinstance(proof, Refused):
            if proof.why:
                s.considered.append((plan.name, None, proof.why))
            continue
        estimate = plan.estimate(s, proof)
        proved.append((plan, proof, estimate, len(s.considered)))
        s.considered.append((plan.name, estimate, proof.words))
    return proved


def run_cheapest(setting: Setting, proved: list[Proved], limit: float | None) -> Any | None:
    """The proved plans run cheapest first (pure ε, or with ``setting.at`` the ε of that database), each only while
    its estimate is below ``limit`` (None: no limit): the first result, or None. A plan whose witness's recount does
    not bear it out has its line say why, and the next one runs."""
    s = setting
    for plan, proof, estimate, line in sorted(proved, key=_key):
        if limit is not None and (estimate is None or estimate >= limit):
            break
        r, why = plan.privacy(s, proof, estimate) if s.at is None else plan.privacy_at(s, proof, estimate)
        if r is not None:
            return r
        s.considered[line] = (plan.name, estimate, why)  # its line says why it was dropped
    return None


def choose_privacy(setting: Setting) -> Any:
    """Pure ε on the whole compiled program by the cheapest proved plan: the chain, the hub and every registered
    plan are proved and estimated (their estimates in ``considered``, with the reasons of those that do not
    apply) beside the exhaustive estimate ``E``; they run cheapest first, each taken only while its estimate is
    below ``E`` (or ``E`` is None: the exhaustive sets do not fit). When that leaves the exhaustive sets, a
    symmetry is sought (its proof spends the detection budget) and its orbit sets run when their estimate is below
    ``E``; else the exhaustive sets run. A plan whose witness's recount does not bear it out is noted and the next
    one runs."""
    proved = prove_each(setting, (CHAIN, HUB, *registered_plans()))
    r = run_cheapest(setting, proved, setting.exhaustive_estimate)
    return r if r is not None else _symmetry_or_exhaustive(setting)


def _symmetry_or_exhaustive(s: Setting) -> Any:
    """The orbit sets of a proved symmetry when their estimate is below the exhaustive estimate (or it is None),
    else the exhaustive sets."""
    if not s.relation.per_entry:
        reason = f"no symmetry sought (the {s.relation.name} relation is not a condition on each entry)"
        return exhaustive_privacy(s, reason, s.exhaustive_estimate, 0.0)
    proof = SYMMETRY.prove(s)
    assert isinstance(proof, Proof)  # a relation that is a condition on each entry
    orbit = SYMMETRY.estimate(s, proof)
    s.considered.append(("symmetry", orbit, proof.words))
    E = s.exhaustive_estimate
    if E is not None and orbit >= E:
        reason = f"symmetry {proof.words} does not pay"
        r = exhaustive_privacy(s, reason, with_detection(E, s.budget), proof.structure.seconds)
        return replace(r, plan=replace(r.plan, detection_work=s.budget.spent))
    return SYMMETRY.privacy(s, proof, orbit)[0]


__all__ = [
    "ChainPlan",
    "HubPlan",
    "SymmetryPlan",
    "ExhaustivePlan",
    "WHOLE_PLANS",
    "Proved",
    "prove_each",
    "run_cheapest",
    "choose_privacy",
    "exhaustive_privacy",
    "exhaustive_report",
    "orbit_run_estimate",
]
