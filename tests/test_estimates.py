"""The planner's cost model: work that detection does is counted, a plan's estimate includes its detection work,
and a pair run over orbits is charged per pair it lists (so a trivial group never stands in for exhaustive)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from wmcdp import Bits, Program, flip
from wmcdp.compile import compile_program
from wmcdp.notions.privacy import synthesize_privacy
from wmcdp.plan.planned import planned_pairs
from wmcdp.plan.planner import DETECTION_UNIT_SECONDS, Budget
from wmcdp.plan.symmetry.group import UNCHANGED
from wmcdp.plan.symmetry.proof import Prover
from wmcdp.programs import noisy_max_value, rr_counting, sparse_vector


def lopsided() -> Program:
    """``x_0 and not x_1``, flipped with probability 1/4: swapping the two entries is no symmetry."""
    return Program("lopsided", Bits(2), lambda x: (x[0] & ~x[1]) ^ flip(Fraction(1, 4)))


def test_a_refuted_candidate_is_charged_its_work():
    budget = Budget(None)
    prover = Prover(compile_program(lopsided()), budget)
    assert not prover.prove({0: 1, 1: 0}, UNCHANGED)
    assert budget.spent > 0  # the circuit renaming that failed and the samples that refuted it


@pytest.mark.parametrize(
    "program",
    [rr_counting(30, Fraction(1, 4)), noisy_max_value(6, 5, 1)],
    ids=["rr_counting (symmetry)", "noisy_max_value (symmetry)"],
)
def test_the_estimate_of_a_plan_includes_its_detection_work(program):
    r = synthesize_privacy(program)
    chosen = [e for kind, e, _ in r.plan.considered if kind == r.plan.kind]
    assert r.plan.detection_work > 0 and chosen and chosen[-1] is not None
    assert r.plan.estimated_seconds == pytest.approx(chosen[-1] + r.plan.detection_work * DETECTION_UNIT_SECONDS)


def test_a_trivial_group_does_not_list_every_pair_in_place_of_exhaustive():
    """Sparse vector (n = 6, all-entries) has no symmetry: its orbit pairs are all 116,920 pairs, each listed with its
    output orbits one at a time; the planner runs the exhaustive pairs instead."""
    source, plan = planned_pairs(sparse_vector(6, 2, 1, 1, 1), None, "bdd", None, False, ("max", "sum"), None)
    assert plan.kind == "exhaustive" and plan.detection_work > 0
    symmetric = [e for kind, e, _ in plan.considered if kind == "symmetry"]
    exhaustive = [e for kind, e, _ in plan.considered if kind == "exhaustive"]
    assert symmetric and symmetric[0] >= exhaustive[0]


def test_a_user_relation_is_estimated_by_its_pairs():
    """CheckDP's monotone SVT with its relation written by a user, whose pairs every pass lists in Python: the estimate counts them
    (the domain's size times the first input's neighbours), within 2x of the pairs an enumeration finds."""
    from dataclasses import replace

    from wmcdp.lang.relations import neighbour_relation
    from wmcdp.plan.planner import USER_PAIR_SECONDS
    from wmcdp.programs import monotone_svt
    from wmcdp.programs.checkdp import monotone

    program = replace(monotone_svt(4, 2, 1, 1, 1), neighbours=monotone)  # the built-in "monotone" as a user's
    relation = neighbour_relation(program.neighbours)
    listed = sum(1 for x in program.inputs.values() for _ in relation.neighbours(program.inputs, x))
    r = synthesize_privacy(program)
    assert r.plan.kind == "exhaustive"
    assert listed * USER_PAIR_SECONDS / 2 <= r.plan.estimated_seconds <= 2 * listed * USER_PAIR_SECONDS + 0.1


def test_the_outputs_cofactors_are_charged_their_nodes():
    """Per-output groups read each output's cofactor of the diagram and its support: both are charged (a truncated
    geometric on 0..200 spent 6 s there, uncharged, before finding no symmetry)."""
    from wmcdp.plan.symmetry.proof import read_entries
    from wmcdp.programs import truncated_geometric

    compiled = compile_program(truncated_geometric(20, alpha=Fraction(1, 2)))
    budget = Budget(None)
    prover = Prover(compiled, budget)
    assert read_entries(prover, [3]) is not None
    assert budget.spent >= compiled.size
