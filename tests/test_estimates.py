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
    """A plan's estimate: the tracing and compiling it did, its detection's work, and its run."""
    from wmcdp.plan.planner import preparation_estimate

    r = synthesize_privacy(program)
    chosen = [e for kind, e, _ in r.plan.considered if kind == r.plan.kind]
    assert r.plan.detection_work > 0 and chosen and chosen[-1] is not None
    preparation = preparation_estimate(compile_program(program), True)
    assert preparation > 0
    spent = preparation + chosen[-1] + r.plan.detection_work * DETECTION_UNIT_SECONDS
    assert r.plan.estimated_seconds == pytest.approx(spent)
    given = synthesize_privacy(compile_program(program))  # compiled by the caller: no preparation in the plan
    assert given.plan.estimated_seconds == pytest.approx(spent - preparation)


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
    from wmcdp.plan.costs import USER_PAIR_SECONDS
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


def test_a_group_node_never_nests_halves():
    """A group bit over a zero child and a child kept as halves writes the child out: values hold at most two
    arrays (nested halves made LaplaceParallel's count, n = 4, m = 4, take 1 s in 86,520 steps on tiny pieces)."""
    import numpy as np

    from wmcdp.count.floats import Linear
    from wmcdp.count.steps import Halves, Pool, Steps, arrays_of

    zero = np.zeros((1, 1, 1))
    steps = Steps(Linear, Pool(), zero)
    inner = steps.group(zero, np.full((1, 2, 1), 0.5), 1, 2, 3)  # one side zero: halves along axis 1
    assert isinstance(inner, Halves)
    outer = steps.group(inner, zero, 2, 1, 2)  # halves along axis 2 over the halves along axis 1
    assert isinstance(outer, Halves) and not isinstance(outer.low, Halves)
    assert len(arrays_of(outer)) == 1
    np.testing.assert_array_equal(steps.dense(outer), [[[0.0, 0.0], [0.0, 0.0], [0.5, 0.0]]])


def test_a_count_is_charged_per_level_it_counts_at_a_time():
    """A truncated geometric on 0..m draws m random bits for each of its m + 1 inputs, all below every group bit:
    its count steps m (m + 1) levels a level at a time, each charged (at m = 200 the 40,200 levels took 6 s of a run
    estimated at 1.9 s in all). The estimate grows with them, about fourfold from m to 2m."""
    from wmcdp.count import wmc
    from wmcdp.lang.relations import neighbour_relation
    from wmcdp.plan.costs import LAYER_SECONDS
    from wmcdp.plan.planner import exhaustive_estimate
    from wmcdp.programs import truncated_geometric

    estimates = []
    for m in (10, 20):
        compiled = compile_program(truncated_geometric(m, scale=2))
        plan = wmc.Plan(compiled.weights, compiled.input_groups + compiled.output_groups)
        _, _, layers = wmc.work(compiled.flat, plan, compiled.backend.level_of)
        assert layers == len(compiled.weights) == m * (m + 1)
        estimates.append(exhaustive_estimate(compiled, neighbour_relation("hamming")))
        assert estimates[-1] > layers * LAYER_SECONDS
    assert estimates[1] > 3 * estimates[0]


def test_a_trivial_group_in_python_numbers_does_not_look_cheaper_than_exhaustive():
    """One-time RAPPOR (n = 7) counts in Python-int numerators; its orbit sets under the trivial group are every
    triple, counted pair by pair and scanned in Python numbers (0.9 s against 0.6 s exhaustive): the estimate
    charges them so, and the planner never runs the trivial group (it takes the given-input plan, else exhaustive)."""
    from wmcdp.lang.relations import neighbour_relation
    from wmcdp.plan.planner import exhaustive_estimate, orbit_estimate
    from wmcdp.plan.symmetry.runs import privacy_plan
    from wmcdp.programs import one_time_rappor

    program = one_time_rappor(7)
    compiled = compile_program(program)
    relation = neighbour_relation(program.neighbours)
    trivial = privacy_plan(compiled, relation, budget=Budget(0))
    triples, pairs = trivial.sizes()
    assert triples == relation.count_pairs(compiled.domain) * compiled.shape.size  # nothing proved: every triple
    assert orbit_estimate(compiled, pairs, triples) > exhaustive_estimate(compiled, relation)
    assert synthesize_privacy(program).plan.kind in ("given-input", "exhaustive")


def test_an_exhaustive_table_over_the_listed_support_is_estimated_by_its_outputs():
    """Sparse vector (n = 6, N = 1) has 486 outputs of which 7 occur; the exhaustive table lists those 7, and the
    estimate counts the triples and cells of the table it runs: below the whole shape's by the ratio of outputs
    (the whole shape's estimate was 4.1 s for a 0.17 s run)."""
    from wmcdp.count.probabilities import exhaustive_work, listed_support
    from wmcdp.lang.relations import neighbour_relation
    from wmcdp.plan.planner import exhaustive_estimate

    compiled = compile_program(sparse_vector(6, 2, 1, 1, eps0=1))
    support = listed_support(compiled)
    assert support is not None and support.size == 7 < compiled.shape.size == 486
    assert exhaustive_work(compiled)[0] == 7
    assert exhaustive_estimate(compiled, neighbour_relation("all-entries"), pairs=True) < 0.5


def test_a_pass_in_float_logs_is_estimated_as_floats_in_exact_mode_too():
    """Rényi DP's pass over pairs runs in float logs whatever the number system (its exact candidates recounted
    apart), so an exact run's estimate charges float triples; (ε, δ)'s exact pass charges Python-int triples."""
    from wmcdp.lang.relations import neighbour_relation
    from wmcdp.plan import costs
    from wmcdp.plan.planner import exhaustive_estimate, exhaustive_terms
    from wmcdp.programs import svt

    compiled = compile_program(svt(n=10, m=1, T=1, N=1, alpha=Fraction(1, 2)))
    relation = neighbour_relation("all-entries")
    exact = exhaustive_terms(compiled, relation, True)
    logs = exhaustive_terms(compiled, relation, True, logs=True)
    assert "OBJECT_TRIPLE_SECONDS" in exact and "OBJECT_TRIPLE_SECONDS" not in logs
    assert logs["PAIR_TRIPLE_SECONDS"] == exact["OBJECT_TRIPLE_SECONDS"] == relation.count_pairs(compiled.domain) * 11
    assert exhaustive_estimate(compiled, relation, True, logs=True) < exhaustive_estimate(compiled, relation, True)
    assert costs.PAIR_TRIPLE_SECONDS < costs.OBJECT_TRIPLE_SECONDS
    assert exhaustive_terms(compiled, relation, False, logs=True) == exhaustive_terms(compiled, relation, False)
