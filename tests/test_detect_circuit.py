"""Symmetry detection in near-linear time: colour refinement of the traced circuit with proofs on the circuit, and
the local check of adjacent entries on the diagram.

Every group is checked against an enumeration of every random choice (:func:`brute.distribution`): each proved
block's transposition and cycle keep ``P(y | x)`` (outputs unchanged) or ``P(pi y | pi x)`` (parts permuted) on
every input and output. The groups are those the diagram-renaming search finds (:meth:`Prover.blocks`), near
misses (one coin of another weight, one gate of another operation) are not declared symmetric, and the bounds on
the orbit sets are the brute-force ones.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from brute import distribution
from brute import flip as bflip
from fuzz_plans import RandomDraw, distributions, program, spec_of

from wmcdp import Bits, Program, compile_program, flip, synthesize_approximate, synthesize_privacy
from wmcdp.lang.registry import builtin_programs
from wmcdp.plan.symmetry.group import INDEX, TUPLE, UNCHANGED, Block, OutputAction, PairOrbits, Symmetry
from wmcdp.plan.symmetry.proof import Prover
from wmcdp.plan.symmetry.runs import privacy_plan, proved_symmetry

B = builtin_programs()
QUARTER, THIRD, FIFTH = Fraction(1, 4), Fraction(1, 3), Fraction(1, 5)


orbit_count = PairOrbits.count


def searched_blocks(prog):
    """The blocks the diagram-renaming search alone finds (the detection before circuit colours and windows)."""
    prover = Prover(compile_program(prog))
    kinds = [k for k in (TUPLE, INDEX, UNCHANGED) if prover.action.applicable(k)]
    return {(b.entries, b.kind) for b in prover.blocks(sorted(prover.bits), kinds)}


def proved_blocks(prog):
    sym, prover = proved_symmetry(compile_program(prog))
    read = set(prover.bits)
    return {(b.entries, b.kind) for b in sym.blocks if set(b.entries) <= read}, prover


def count_program(lams, gate=None):
    """RR counting with coin ``lams[i]`` on entry ``i`` (summed last response first, as the built-in); ``gate``:
    an entry whose response is ``x_i | coin`` instead of ``x_i ^ coin``."""
    n = len(lams)

    def body(x):
        return sum(reversed([(x[i] | flip(lams[i])) if i == gate else x[i] ^ flip(lams[i]) for i in range(n)]))

    def reference(x, choose):
        return sum((x[i] | bflip(choose, lams[i])) if i == gate else x[i] ^ bflip(choose, lams[i]) for i in range(n))

    return Program("count", Bits(n), body), reference


def rr_program(lams, gate=None):
    """Randomized response with coin ``lams[i]`` on entry ``i``; ``gate`` as :func:`count_program`."""
    n = len(lams)

    def body(x):
        return tuple((x[i] | flip(lams[i])) if i == gate else x[i] ^ flip(lams[i]) for i in range(n))

    def reference(x, choose):
        return tuple((x[i] | bflip(choose, lams[i])) if i == gate else x[i] ^ bflip(choose, lams[i]) for i in range(n))

    return Program("rr", Bits(n), body), reference


def moved(perm, x):
    """``pi x``: entry ``pi(e)`` of the result holds ``x_e``."""
    out = list(x)
    for e, f in perm.items():
        out[f] = x[e]
    return tuple(out)


def assert_block_holds(dists, block):
    """The block's transposition and cycle keep the distribution (brute force), under the block's action."""
    entries = list(block.entries)
    for perm in (
        {entries[0]: entries[1], entries[1]: entries[0]},
        {e: entries[(k + 1) % len(entries)] for k, e in enumerate(entries)},
    ):
        for x, px in dists.items():
            image = dists[moved(perm, x)]
            want = {moved(perm, y): p for y, p in px.items()} if block.kind == TUPLE else px
            assert image == want, (block, perm, x)


def all_inputs(n):
    return list(itertools.product((0, 1), repeat=n))


# -- the built-ins ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prog",
    [
        B["randomized_response"](6, FIFTH),
        B["randomized_response"](5, 0.2),
        B["rr_counting"](7, QUARTER),
        B["rr_counting"](7, 0.25),
        B["histogram"](4, 2, 1),
        B["histogram"](3, 2, None, 1, Fraction(1, 2)),
        B["kary_rr"](4, 3, ratio=3),
        B["noisy_max"](4, 1, None, 1, Fraction(1, 2)),
        B["sparse_vector"](4, 2, 1, 1, None, 1, Fraction(1, 2)),
    ],
    ids=lambda p: p.name,
)
def test_same_groups_as_the_diagram_search_without_renaming_the_diagram(prog):
    """The groups are those the diagram-renaming search finds, and no whole-diagram renaming proves them: each
    generator is proved on the circuit or by the local check of adjacent entries."""
    found, prover = proved_blocks(prog)
    assert found == searched_blocks(prog)
    assert prover.diagram == 0
    if found:
        assert prover.structural + prover.windows > 0


def test_rr_counting_proved_by_adjacent_windows_in_one_pass():
    """RR counting's sum is built as a chain, so its circuit has no automorphism moving most entries: its S_n is
    proved by n - 1 local checks of adjacent entries (it took two renamings of the whole diagram)."""
    sym, prover = proved_symmetry(compile_program(B["rr_counting"](40, 0.25)))
    assert sym.describe() == "S_40 on entries 0..39, outputs unchanged"
    assert prover.windows == 39 and prover.diagram == 0
    assert "adjacent transpositions by a local check of the diagram" in prover.how()


def test_randomized_response_proved_by_colour_refinement():
    sym, prover = proved_symmetry(compile_program(B["randomized_response"](8, FIFTH)))
    assert sym.blocks[0].entries == tuple(range(8)) and sym.blocks[0].kind == TUPLE
    assert prover.refined == 2 and prover.diagram == 0
    assert "found by colour refinement of the circuit" in prover.how()


# -- near misses --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [count_program, rr_program], ids=["count", "rr"])
@pytest.mark.parametrize(
    "lams, gate",
    [
        ([QUARTER] * 5, None),
        ([QUARTER, QUARTER, THIRD, QUARTER, QUARTER], None),
        ([QUARTER, QUARTER, QUARTER, QUARTER, THIRD], None),
        ([THIRD, QUARTER, QUARTER, QUARTER, QUARTER], None),
        ([QUARTER] * 5, 2),
        ([QUARTER] * 5, 0),
        ([QUARTER, 0.25000000000000006, QUARTER, QUARTER, QUARTER], None),
    ],
    ids=["symmetric", "coin-2", "coin-last", "coin-first", "gate-2", "gate-first", "float-coin-one-ulp-off"],
)
def test_near_misses_are_not_symmetric(make, lams, gate):
    """One coin of another weight or one gate of another operation keeps that entry out of every block; every
    block proved holds by brute force, and the entries left out are those that differ."""
    prog, reference = make(lams, gate)
    n = len(lams)
    dists = {x: distribution(reference, x) for x in all_inputs(n)}
    sym, prover = proved_symmetry(compile_program(prog))
    for block in sym.blocks:
        assert_block_holds(dists, block)
    odd = {i for i in range(n) if lams[i] != QUARTER or i == gate}
    covered = {e for b in sym.blocks for e in b.entries}
    assert covered == set(range(n)) - odd
    assert prover.windows + prover.refined > 0  # the fast proofs found the entries that are alike


# -- random programs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["product", "reflection", "count", "near_product"])
@pytest.mark.parametrize("seed", range(6))
def test_random_programs_same_groups_and_true_by_brute_force(family, seed):
    spec = spec_of(RandomDraw(seed), family)
    prog = program(spec)
    found, _ = proved_blocks(prog)
    assert found == searched_blocks(prog)
    dists = {
        tuple(x): {tuple(y) if isinstance(y, tuple) else y: p for y, p in d.items()}
        for x, d in distributions(spec).items()
    }
    for entries, kind in found:
        assert_block_holds(dists, Block(entries, kind))


# -- bounds against brute force -----------------------------------------------------------------------------


def brute_delta(dists, n, eps):
    """max over hamming neighbours of sum_y max(0, P(y|x) - e^eps P(y|x')), in floats from exact Fractions."""
    best = 0.0
    for x, px in dists.items():
        for i in range(n):
            xp = x[:i] + (1 - x[i],) + x[i + 1 :]
            q = dists[xp]
            best = max(best, sum(max(0.0, float(p) - math.exp(eps) * float(q.get(y, 0))) for y, p in px.items()))
    return best


@pytest.mark.parametrize(
    "lams", [[QUARTER] * 6, [QUARTER, QUARTER, THIRD, QUARTER, QUARTER, QUARTER]], ids=["symmetric", "near-miss"]
)
def test_orbit_bounds_equal_brute_force(lams):
    """Pure ε and δ(ε) of counting programs on the orbit sets of the fast detection equal the enumeration's."""
    prog, reference = count_program(lams)
    n = len(lams)
    dists = {x: distribution(reference, x) for x in all_inputs(n)}
    ratio = max(
        px[y] / dists[x[:i] + (1 - x[i],) + x[i + 1 :]][y] for x, px in dists.items() for i in range(n) for y in px
    )
    assert synthesize_privacy(prog, "auto").ratio == ratio == synthesize_privacy(prog, "exhaustive").ratio
    for eps in (0.1, 0.5):
        got = synthesize_approximate(prog, "auto", epsilon=eps).delta
        assert math.isclose(got, brute_delta(dists, n, eps), rel_tol=1e-9, abs_tol=1e-15)


# -- sizes, batched counts, reported work ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "prog",
    [
        B["sparse_vector"](4, 2, 1, 1, None, 1, Fraction(1, 2)),
        B["histogram"](3, 2, 1),
        B["kary_rr"](4, 3, ratio=3),
        B["rr_counting"](6, QUARTER),
        B["randomized_response"](4, FIFTH),
    ],
    ids=lambda p: p.name,
)
def test_listed_sizes_equal_the_sum_over_every_listed_output(prog, monkeypatch):
    """Sizes over the listed outputs counted by stabilizer shape equal the sum of each output's own pair orbits."""
    from dataclasses import replace

    import wmcdp.plan.symmetry.runs as runs

    plan = replace(privacy_plan(prog), outputs=None, listed=True, _sizes=None)
    k = len(plan.compiled.domain.entry_values)
    want, outputs = [0, 0], 0
    for _, orbits in plan.items():
        want[0] += orbits.count()
        want[1] += orbits.inputs(k)
        outputs += 1
    counted = []
    monkeypatch.setattr(runs.PairOrbits, "count", lambda self: counted.append(1) or orbit_count(self))
    assert plan.sizes() == tuple(want)
    shapes = {
        tuple(sorted(map(len, plan.symmetry_blocks(OutputAction(plan.compiled.shape, plan.symmetry.n), y))))
        for chunk in plan.output_reps()
        for y in chunk
    }
    assert len(counted) == len(shapes) <= outputs  # one count per stabilizer shape, not one per output


def test_stabilizer_shapes_of_an_index_action():
    """Index outputs: an output naming an entry of the block leaves that entry alone, the others form one block."""
    from wmcdp.lang.shape import IntShape
    from wmcdp.plan.symmetry.runs import _stabilizer_shapes

    act = OutputAction(IntShape(0, 6), 6)
    sym = Symmetry(6, (Block((0, 1, 2, 3), INDEX), Block((4, 5), UNCHANGED)))
    offsets = np.arange(7, dtype=np.int64)[:, None]
    shapes = _stabilizer_shapes(act, sym, offsets)
    want: dict = {}
    for row in offsets:
        blocks = act.stabilizer(sym, row)
        sizes = sorted([len(b) for b in blocks] + [1] * (6 - sum(map(len, blocks))), reverse=True)
        want[tuple(sizes)] = want.get(tuple(sizes), 0) + 1
    assert shapes == want == {(3, 2, 1): 4, (4, 2): 3}


@pytest.mark.parametrize("prog", [B["kary_rr"](3, 3, ratio=3), B["rr_counting"](5, QUARTER)], ids=lambda p: p.name)
def test_batched_pair_counts_equal_one_pair_at_a_time(monkeypatch, prog):
    """The pairs' probabilities read off whole distributions (inputs sorted within the blocks whose outputs are
    unchanged) equal those counted pair by pair."""
    import wmcdp.plan.symmetry.runs as runs

    batched = list(runs.pair_distributions(prog, exact=True))
    monkeypatch.setattr(runs, "DISTRIBUTION_OUTPUTS", 0)
    single = list(runs.pair_distributions(prog, exact=True))
    assert len(batched) == len(single) > 0
    for a, b in zip(batched, single):
        assert (a.x, a.x_prime) == (b.x, b.x_prime)
        assert list(a.p_x) == list(b.p_x) and list(a.p_x_prime) == list(b.p_x_prime)


def test_detection_work_reported_and_the_same_every_run():
    """The default plan reports the work detection spent (counted, not timed): the same on every run."""
    prog = B["rr_counting"](60, 0.25)
    plans = [synthesize_approximate(prog, epsilon=0.3).plan for _ in range(2)]
    assert plans[0].kind == "count-of-reports" and plans[0].detection_work > 0
    assert plans[0].detection_work == plans[1].detection_work
    assert plans[0].as_dict()["detection_work"] == plans[0].detection_work
