"""The built-in ``monotone`` relation (every entry moves by 0 or +1, or every entry by 0 or -1, not all by 0) and
the hub plan under it: CheckDP's MonotoneSVT and random programs with a shared threshold, against the exhaustive
plan and brute-force enumeration (tests/brute.py)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import brute
import numpy as np
import pytest
from test_hub import _check_witness, _program, _recipe, _reference, _value
from test_peers_programs import brute_ratio

from programs.checkdp import monotone
from wmcdp import IntVector, synthesize_privacy
from wmcdp.cli import main
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.hub import hub_plan
from wmcdp.programs import CHECKDP, monotone_svt

HALF = Fraction(1, 2)
MONOTONE_SVT = next(b for b in CHECKDP if b.name == "MonotoneSVT")


def _brute_neighbours(x, lo, hi):
    """Every x' in lo..hi whose moves from x are all in {0, +1} or all in {0, -1}, not all 0 (by definition)."""
    for xp in itertools.product(range(lo, hi + 1), repeat=len(x)):
        steps = {b - a for a, b in zip(x, xp)}
        if xp != x and (steps <= {0, 1} or steps <= {0, -1}):
            yield xp


# -- the relation -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, lo, hi", [(1, 0, 1), (2, 0, 2), (3, -1, 1), (3, 0, 3), (4, 0, 1)])
def test_the_builtin_relation_is_checkdps_and_the_definition(n, lo, hi):
    """The built-in relation lists, per input, CheckDP's monotone neighbours (the user relation, in its order) and
    exactly the x' of the definition; its pair count, directions, steps and slices agree with that listing."""
    domain = IntVector(n, lo, hi)
    builtin, user = neighbour_relation("monotone"), neighbour_relation(monotone)
    assert builtin.builtin and not builtin.per_entry
    pairs = []
    for x in domain.values():
        listed = list(builtin.neighbours(domain, x))
        assert listed == list(user.neighbours(domain, x))
        assert sorted(listed) == sorted(_brute_neighbours(x, lo, hi))
        pairs += [(x, xp) for xp in listed]
    assert builtin.count_pairs(domain) == len(pairs)
    directions = list(builtin.directions(domain))
    assert len(directions) == builtin.direction_count(domain)
    from_directions = []
    for rank, (src, dst) in enumerate(directions):
        assert list(src) == sorted(src)
        for code, code_prime in zip(src, dst):
            x, xp = domain.at(int(code)), domain.at(int(code_prime))
            assert builtin.step(domain, x, rank) == xp
            from_directions.append((int(code), rank, (x, xp)))
    assert [pair for _, _, pair in sorted(from_directions)] == pairs
    table = np.array(list(domain.values()), dtype=object).reshape((hi - lo + 1,) * n + (n,))
    from_slices = []
    for a, b, forward, backward in builtin.pair_slices(domain):
        xs, xps = table[a].reshape(-1, n), table[b].reshape(-1, n)
        for x, xp in zip(map(tuple, xs), map(tuple, xps)):
            assert builtin.step(domain, x, forward) == xp and builtin.step(domain, xp, backward) == x
            from_slices += [(x, xp), (xp, x)]
    assert sorted(from_slices) == sorted(pairs)


# -- MonotoneSVT ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3])
def test_monotone_svt_matches_brute_force_and_exhaustive(n):
    program, want = brute_ratio(MONOTONE_SVT, n, 1)
    assert program.neighbours == "monotone"
    answer = hub_plan(program.trace(), 2, "monotone", True, None)
    assert answer is not None
    assert _value(answer) == want == synthesize_privacy(program, "exhaustive", exact=True).ratio
    assert synthesize_privacy(program, exact=True).ratio == want  # (exhaustive: quick at this size)


def test_monotone_svt_at_ten_answers_takes_the_hub():
    """n = 10 is 4.6e9 triples: the hub plan answers, with a witness whose ratio the counter confirms."""
    program = monotone_svt(10, 1, 1, 1, alpha=HALF)
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "hub"
    assert r.p_x / r.p_x_prime == r.ratio
    steps = {b - a for a, b in zip(r.witness.x, r.witness.x_prime)}
    assert steps <= {0, 1} or steps <= {0, -1}


# -- random programs with a shared threshold under monotone --------------------------------------------------


def _monotone_recipe(seed: int, near: bool):
    recipe = _recipe(random.Random(seed), near)
    return (*recipe[:4], "monotone", recipe[5])


def _brute_ratio(recipe):
    n = recipe[0]
    inputs = list(itertools.product(range(3), repeat=n))
    return brute.tight_ratio(_reference(recipe), inputs, lambda x: _brute_neighbours(x, 0, 2))


@pytest.mark.parametrize("seed", range(10))
def test_random_hubbed_programs_under_monotone_match_brute_force(seed):
    recipe = _monotone_recipe(seed, near=False)
    program = _program(recipe, exact=True)
    answer = hub_plan(program.trace(), 3, "monotone", True, None)
    assert answer is not None
    value = _value(answer)
    assert value == _brute_ratio(recipe)
    _check_witness(answer, program, _reference(recipe), value)
    floats = hub_plan(_program(recipe, exact=False).trace(), 3, "monotone", False, None)
    assert floats is not None
    if value == float("inf"):
        assert floats.best.log == float("inf")
    else:
        assert floats.best.log == pytest.approx(float(brute.math.log(value)), rel=1e-12, abs=1e-12)


def _moved(x, sign):
    """The neighbours of ``x`` in 0..2 with every move in {0, sign}."""
    for step in itertools.product((0, 1), repeat=len(x)):
        xp = tuple(a + sign * s for a, s in zip(x, step))
        if any(step) and all(0 <= v <= 2 for v in xp):
            yield xp


def test_a_witness_moving_down_is_found():
    """Entry 1 says whether its answer is above the noisy threshold (no noise on the answer): its TRUE has
    probability 0 at x_1 = 0 with threshold 0, so the worst pair moves down to x'_1 = 0 (ratio inf); with x' above
    x only, brute force finds a finite ratio, so a search over moves up alone would be wrong."""
    recipe = (2, ["xor", "plain"], [HALF, HALF], 0, "monotone", None)
    inputs = list(itertools.product(range(3), repeat=2))
    assert brute.tight_ratio(_reference(recipe), inputs, lambda x: _moved(x, 1)) == 3
    assert brute.tight_ratio(_reference(recipe), inputs, lambda x: _moved(x, -1)) == float("inf")
    program = _program(recipe, exact=True)
    answer = hub_plan(program.trace(), 3, "monotone", True, None)
    assert answer is not None
    assert _value(answer) == _brute_ratio(recipe) == float("inf")
    _check_witness(answer, program, _reference(recipe), float("inf"))
    best = answer.best
    assert {best.x_prime.get(e, 0) - best.x.get(e, 0) for e in range(2)} <= {0, -1}


@pytest.mark.parametrize("seed", range(4))
def test_near_misses_under_monotone_are_refused_and_the_planner_still_answers(seed):
    """A coin shared by two entries' parts: no hub proves the split, and the planner (exhaustive: no symmetry plan
    takes a relation that is not a condition on each entry) gives the brute-force ratio."""
    recipe = _monotone_recipe(100 + seed, near=True)
    program = _program(recipe, exact=True)
    assert hub_plan(program.trace(), 3, "monotone", True, None) is None
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "exhaustive"
    assert r.ratio == _brute_ratio(recipe)


def test_no_symmetry_plan_takes_monotone(capsys):
    """Permuting entries keeps monotone, but reflecting one entry's value does not: the symmetry sets, built on
    per-entry pair types, refuse it (one line, no traceback) rather than answer for all-entries."""
    args = ["privacy", "monotone_svt", "-p", "n=3", "-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2"]
    assert main([*args, "--sets", "auto"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wmcdp: error: ") and "condition on each entry" in err and err.count("\n") == 1
