"""The data-centric ε of one database (``at=x0``) by the structured pure-ε plans (wmcdp.plan.structured_at).

Each plan that serves ``at`` (given-input, chain, hub) is forced at several databases — at the ends of the
range, in the middle, with ties — and its ratio must be the exhaustive ``at`` sets' (``C="exhaustive"``) and the
brute-force maximum over the pairs ``(x0, x')`` and ``(x', x0)`` of a plain-Python reference; its witness must be
one of those pairs, with the reference's probabilities. The planner takes a plan at x0 only where the exhaustive
at sets are not quick, and the command line answers a sparse vector of 20 entries (3^20 outputs) at a database in
seconds."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import random
import time
from fractions import Fraction

import brute
import pytest
import test_given_input as given
import test_hub as hubbed
from test_chain import neighbours
from test_geometric import tgeom_pmf
from test_peers_programs import prefix_sum_loop, smart_sum_loop

from programs.checkdp import bad_smart_sum, monotone_svt, prefix_sum, smart_sum
from programs.geometric import geometric_above_threshold
from programs.peers import geometric_parallel
from programs.suite import noisy_max, sparse_vector
from wmcdp import synthesize_privacy
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.plan.choose import HubPlan
from wmcdp.plan.protocol import registered

HALF = Fraction(1, 2)


def brute_at(reference, x0, of) -> Fraction | float:
    """``max P(y | x) / P(y | x')`` over the pairs ``(x0, x')`` and ``(x', x0)``, ``x'`` in ``of(x0)``, and every
    output (0/0 skipped, p/0 infinite), by enumeration."""
    p0 = brute.distribution(reference, x0)
    best: Fraction | float = Fraction(0)
    for xp in of(x0):
        q = brute.distribution(reference, xp)
        for a, b in ((p0, q), (q, p0)):
            for y, pa in a.items():
                pb = b.get(y, 0)
                best = max(best, math.inf if pb == 0 else pa / pb)
    return best


def check_at(program, plan, x0, reference=None, of=None, relation=None):
    """The plan forced at ``x0`` (under ``relation``, or the program's): its kind, its ratio the exhaustive at
    sets' (and brute force's), its witness a pair of ``x0`` whose probabilities are the reference's."""
    r = synthesize_privacy(program, at=x0, plan=plan, exact=True, neighbours=relation)
    expected = synthesize_privacy(program, "exhaustive", at=x0, exact=True, neighbours=relation)
    assert r.plan.kind == plan and "at x0" in r.plan.structure
    assert r.ratio == expected.ratio
    assert x0 in (r.witness.x, r.witness.x_prime)
    if r.ratio != math.inf:
        assert r.p_x / r.p_x_prime == r.ratio
    if reference is not None:
        assert r.ratio == brute_at(reference, x0, of)
        w = r.witness
        assert r.p_x == brute.distribution(reference, w.x).get(w.y, 0)
        assert r.p_x_prime == brute.distribution(reference, w.x_prime).get(w.y, 0)
    return r


# -- chain ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("relation", ["one-entry", "hamming", "all-entries", "monotone"])
@pytest.mark.parametrize("x0", [(0, 0, 0), (1, 1, 1), (0, 1, 0), (1, 0, 1)])
def test_prefix_sum_at(relation, x0):
    program = prefix_sum(3, 1, alpha=HALF)
    check_at(program, "chain", x0, prefix_sum_loop(1, 1, HALF), neighbours(relation, 0, 1), relation)


@pytest.mark.parametrize(
    "relation, x0", [("one-entry", (1, 1, 1, 1)), ("one-entry", (1, 0, 0, 1)), ("all-entries", (0, 1, 1, 0))]
)
def test_smart_sum_at(relation, x0):
    program = smart_sum(4, 1, M=2, alpha=HALF)
    check_at(program, "chain", x0, smart_sum_loop(1, 1, 2, HALF, True), neighbours(relation, 0, 1), relation)


@pytest.mark.parametrize("x0", [(0, 0, 0, 0), (1, 0, 1, 1)])
def test_bad_smart_sum_at_is_infinite(x0):
    r = check_at(bad_smart_sum(4, 1, M=2, alpha=HALF), "chain", x0, smart_sum_loop(1, 1, 2, HALF, False),
                 neighbours("all-entries", 0, 1))
    assert r.ratio == math.inf


# -- hub -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("x0", [(0, 0, 0, 0), (2, 2, 2, 2), (1, 1, 1, 1), (2, 0, 1, 2), (0, 2, 2, 0)])
def test_sparse_vector_at(x0):
    check_at(sparse_vector(4, 2, 1, 1, alpha=HALF), "hub", x0)


@pytest.mark.parametrize("relation", ["one-entry", "hamming", "all-entries", "monotone"])
@pytest.mark.parametrize("x0", [(0, 0, 0), (1, 0, 1), (1, 1, 0)])
def test_above_threshold_at(relation, x0):
    check_at(geometric_above_threshold(3, 1, 1, alpha=HALF), "hub", x0, relation=relation)


@pytest.mark.parametrize("x0", [(0, 0, 0), (1, 1, 0), (1, 0, 1)])
def test_monotone_svt_at(x0):
    check_at(monotone_svt(3, 1, 1, 1, alpha=HALF), "hub", x0)


@pytest.mark.parametrize("x0", [(0, 0, 0), (2, 2, 2), (2, 0, 1), (1, 1, 2)])
def test_noisy_max_at(x0):
    """The pinned winner's block: every entry's type also carries its value in x0."""
    program = noisy_max(3, 2, alpha=HALF)

    def reference(x, choose):
        vs = [choose(tgeom_pmf(q, -1, 3, HALF)) for q in x]
        return vs.index(max(vs))

    r = check_at(program, "hub", x0, reference, neighbours("all-entries", 0, 2))
    assert r.ratio == brute_at(reference, x0, neighbours("all-entries", 0, 2))


@pytest.mark.parametrize("seed", range(8))
def test_random_hubbed_programs_at(seed):
    recipe = hubbed._recipe(random.Random(seed), near=False)
    program = hubbed._program(recipe, exact=True)
    n, relation = recipe[0], recipe[4]
    for x0 in random.Random(seed).sample(list(itertools.product(range(3), repeat=n)), 2):
        check_at(program, "hub", x0, hubbed._reference(recipe), hubbed._neighbours(relation, n))


# -- given-input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("x0", [(0,), (1,), (2,)])
def test_geometric_parallel_at(x0):
    program = geometric_parallel(3, 2, margin=1, alpha=HALF)
    reference = given._parallel_reference(3, 2, 1, HALF)
    check_at(program, "given-input", x0, reference, given._neighbours_in(program.inputs, "one-entry"))


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 7])
def test_random_given_input_programs_at(seed):
    recipe = given._recipe(random.Random(seed), near=False)
    program = given._program(recipe, exact=True)
    n = recipe[0]
    for x0 in random.Random(seed).sample(list(itertools.product(range(3), repeat=n)), 2):
        check_at(program, "given-input", x0, given._reference(recipe), given._neighbours(recipe[2], n))


# -- float runs, refusals, the planner's choice, the command line --------------------------------------------


def test_float_runs_match_the_exhaustive_at_sets():
    for program, plan, x0 in [
        (sparse_vector(4, 2, 1, 1, eps0=1), "hub", (2, 0, 1, 2)),
        (prefix_sum(4, 1, eps0=1), "chain", (1, 0, 0, 1)),
    ]:
        r = synthesize_privacy(program, at=x0, plan=plan)
        expected = synthesize_privacy(program, "exhaustive", at=x0)
        assert r.plan.kind == plan and x0 in (r.witness.x, r.witness.x_prime)
        assert r.epsilon == pytest.approx(expected.epsilon, rel=1e-12)


def test_a_forced_plan_at_x0_that_does_not_apply_is_refused():
    with pytest.raises(WmcdpError, match="plan 'chain' does not apply"):
        synthesize_privacy(sparse_vector(3, 2, 1, 1, alpha=HALF), at=(0, 0, 0), plan="chain")
    with pytest.raises(WmcdpError, match="plan 'symmetry' does not apply: at"):
        synthesize_privacy(sparse_vector(3, 2, 1, 1, alpha=HALF), at=(0, 0, 0), plan="symmetry")
    forced = synthesize_privacy(sparse_vector(3, 2, 1, 1, alpha=HALF), at=(0, 1, 2), plan="exhaustive")
    assert forced.plan.kind == "exhaustive"
    assert forced.ratio == synthesize_privacy(sparse_vector(3, 2, 1, 1, alpha=HALF), "exhaustive", at=(0, 1, 2)).ratio


def test_the_planner_answers_small_programs_at_x0_on_the_exhaustive_sets():
    r = synthesize_privacy(prefix_sum(3, 1, alpha=HALF), at=(0, 1, 0), exact=True)
    assert r.plan is None  # the exhaustive at sets: quick


def test_the_planner_takes_the_hub_at_x0_where_the_exhaustive_at_sets_do_not_pay():
    program = sparse_vector(12, 2, 1, 1, alpha=HALF)  # 3^12 outputs, 2 (3^12 - 1) pairs of x0
    x0 = (2, 0, 1) * 4
    r = synthesize_privacy(program, at=x0, exact=True)
    assert r.plan.kind == "hub" and x0 in (r.witness.x, r.witness.x_prime)
    assert r.ratio <= synthesize_privacy(program, exact=True).ratio


def test_the_command_line_answers_a_large_sparse_vector_at_x0():
    """n = 20: 3^20 outputs, past any listing. The hub at x0 answers in seconds; its ε is below the all-pairs ε (x0
    is not the worst database), and at n = 5 the same command's ε is the exhaustive at sets'."""
    args = ["privacy", "sparse_vector", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2", "--json"]

    def run(*extra):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([*args, *extra]) == 0
        return json.loads(out.getvalue())

    x0 = [0, 1, 2] * 6 + [0, 1]
    start = time.perf_counter()
    at = run("-p", "n=20", "--at", "".join(map(str, x0)))
    assert time.perf_counter() - start < 20
    assert at["plan"]["kind"] == "hub"
    assert x0 in (at["witness"]["x"], at["witness"]["x_prime"])
    everywhere = synthesize_privacy(sparse_vector(20, 2, 1, 1, alpha=HALF), exact=True)
    assert everywhere.plan.kind == "hub"
    assert Fraction(at["ratio_exact"]) < everywhere.ratio
    small = run("-p", "n=5", "--at", "20120", "--plan", "hub")
    program = sparse_vector(5, 2, 1, 1, alpha=HALF)
    assert Fraction(small["ratio_exact"]) == synthesize_privacy(program, "exhaustive", at=(2, 0, 1, 2, 0)).ratio


@pytest.mark.parametrize("relation", ["hamming", "one-entry", "all-entries", "monotone"])
def test_the_neighbours_of_a_database_are_counted_as_listed(relation):
    """``Relation.count_neighbours`` (the size of the at sets, without listing all-entries' 3^n - 1) is the number of
    neighbours the relation lists, at the ends of the range and inside it."""
    from wmcdp.lang.program import IntVector
    from wmcdp.lang.relations import neighbour_relation

    rel, domain = neighbour_relation(relation), IntVector(3, -1, 2)
    for x in [(-1, -1, -1), (2, 2, 2), (-1, 0, 2), (1, 1, 0)]:
        assert rel.count_neighbours(domain, x) == sum(1 for _ in rel.neighbours(domain, x))


# -- the plan protocol at x0: every plan that offers it proved and estimated, the cheapest run ----------------


def test_registered_plans_at_x0_are_weighed_by_estimate_and_the_cheapest_runs():
    class Priced(HubPlan):
        """The hub plan under another name and a fixed estimate, counting its runs at x0."""

        def __init__(self, name, seconds):
            self.name, self.seconds, self.runs = name, seconds, 0

        def estimate(self, setting, proof):
            return self.seconds

        def privacy_at(self, setting, proof, estimate):
            self.runs += 1
            return super().privacy_at(setting, proof, estimate)

    program, x0 = sparse_vector(12, 2, 1, 1, alpha=HALF), (2, 0, 1) * 4
    cheap, dear = Priced("cheap-hub", 0.0), Priced("dear-hub", 1e9)
    with registered(cheap), registered(dear):
        r = synthesize_privacy(program, at=x0, exact=True)
    assert (cheap.runs, dear.runs) == (1, 0)
    estimates = {kind: seconds for kind, seconds, _ in r.plan.considered}
    assert estimates["cheap-hub"] == 0.0 and estimates["dear-hub"] == 1e9 and 0 < estimates["hub"] < 1e9
    assert r.ratio == synthesize_privacy(program, at=x0, exact=True).ratio  # the hub's own answer
    assert x0 in (r.witness.x, r.witness.x_prime)
