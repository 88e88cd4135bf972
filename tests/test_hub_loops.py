"""The hub plan on two loops over the same answers (DP-Sniper's SVT34Parallel: Lyu et al.'s Alg. 3 and Alg. 4 side
by side, independent noise): the second loop's threshold, drawn after every answer was read, joins the hub, and
each answer's noise in both loops joins its entry's block. Checked against brute force (tests/brute.py) and the
exhaustive plan; a coin shared by two entries' parts in the second loop must still refuse the plan."""

from __future__ import annotations

import itertools
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf
from test_hub import _check_witness, _value
from test_peers_dpsniper import _run

from wmcdp import IntVector, Program, flip, synthesize_privacy, truncated_geometric
from wmcdp.plan.hub import find_blocks, hub_plan
from wmcdp.programs import PROGRAMS

HALF = Fraction(1, 2)


def _svt34(n: int) -> Program:
    return PROGRAMS["svt34_parallel"](n=n, m=1, T=1, N=1, alpha=HALF)


def test_the_second_threshold_joins_the_hub_and_each_answers_noise_its_block():
    trace = _svt34(3).trace()
    hub = find_blocks(trace)
    assert hub is not None
    first = min(min(bits) for bits in trace.input_bits.values())
    last = max(min(bits) for bits in trace.input_bits.values())
    early = [v for v in hub.bits if v < first]
    assert hub.late and all(v > last for v in hub.late) and len(early) + len(hub.late) == len(hub.bits)
    assert [b.entry for b in hub.blocks] == [0, 1, 2]
    for block in hub.blocks:  # the entry's input bits, then its noise in loop 1 and in loop 2 (not contiguous)
        variables = hub.order[block.start : block.end]
        assert set(trace.input_bits[block.entry]) <= set(variables)
        assert max(variables) - min(variables) >= len(variables)


def test_svt34_parallel_matches_brute_force_at_two_answers():
    program, reference, neighbours, inputs = _run("svt34_parallel", 2)
    answer = hub_plan(program.trace(), 2, "all-entries", True, None)
    assert answer is not None
    value = _value(answer)
    assert value == brute.tight_ratio(reference, inputs, neighbours)
    _check_witness(answer, program, reference, value)


@pytest.mark.parametrize("exact", [True, False])
def test_svt34_parallel_matches_exhaustive_at_three_answers(exact):
    program = _svt34(3) if exact else PROGRAMS["svt34_parallel"](n=3, m=1, T=1, N=1, eps0=1)
    answer = hub_plan(program.trace(), 2, "all-entries", exact, None)
    assert answer is not None
    expected = synthesize_privacy(program, "exhaustive", exact=exact)
    if exact:
        assert _value(answer) == expected.ratio
    else:
        assert _value(answer) == pytest.approx(expected.epsilon, rel=1e-12)


def test_svt34_parallel_at_ten_answers_takes_the_hub():
    """n = 10 is 1.7e21 triples: the hub plan answers, and the counter confirms its witness's ratio."""
    r = synthesize_privacy(_svt34(10), exact=True)
    assert r.plan.kind == "hub" and "drawn after every entry was read" in r.plan.structure
    assert r.p_x / r.p_x_prime == r.ratio


# -- two loops with a shared coin in the second: a near-miss ---------------------------------------------------


def _two_loops(n: int, shared: bool):
    """Answers in {0, 1}, noise on {0, 1}. Loop 1: ``TGeom(x_i) >= T1``; loop 2 (threshold ``T2`` drawn after loop 1): ``TGeom(x_i) < T2``, entries
    0 and n - 1 of loop 2 XOR'd with one coin drawn at entry 0 when ``shared``. The program and its reference."""

    def body(x):
        t1 = truncated_geometric(1, 0, 1, alpha=HALF)
        one = tuple(truncated_geometric(x[i], 0, 1, alpha=HALF) >= t1 for i in range(n))
        t2 = truncated_geometric(1, 0, 1, alpha=Fraction(1, 3))
        two, coin = [], None
        for i in range(n):
            o = truncated_geometric(x[i], 0, 1, alpha=Fraction(1, 3)) < t2
            if shared and i == 0:
                coin = flip(Fraction(1, 3))
            two.append(o ^ coin if shared and i in (0, n - 1) else o)
        return one, tuple(two)

    def reference(x, choose):
        t1 = choose(tgeom_pmf(1, 0, 1, HALF))
        one = tuple(int(choose(tgeom_pmf(x[i], 0, 1, HALF)) >= t1) for i in range(n))
        t2 = choose(tgeom_pmf(1, 0, 1, Fraction(1, 3)))
        two, coin = [], 0
        for i in range(n):
            o = int(choose(tgeom_pmf(x[i], 0, 1, Fraction(1, 3))) < t2)
            if shared and i == 0:
                coin = brute.flip(choose, Fraction(1, 3))
            two.append(o ^ coin if shared and i in (0, n - 1) else o)
        return one, tuple(two)

    return Program("two_loops", IntVector(n, 0, 1), body, neighbours="all-entries"), reference


def _all_entries(x):
    for xp in itertools.product(range(2), repeat=len(x)):
        if xp != x and all(abs(a - b) <= 1 for a, b in zip(x, xp)):
            yield xp


@pytest.mark.parametrize("n", [2, 3])
def test_two_loops_match_brute_force(n):
    program, reference = _two_loops(n, shared=False)
    answer = hub_plan(program.trace(), 2, "all-entries", True, None)
    assert answer is not None and answer.hub.late
    inputs = list(itertools.product(range(2), repeat=n))
    value = _value(answer)
    assert value == brute.tight_ratio(reference, inputs, _all_entries)
    _check_witness(answer, program, reference, value)


def test_a_coin_shared_in_the_second_loop_refuses_the_plan():
    program, reference = _two_loops(3, shared=True)
    assert hub_plan(program.trace(), 2, "all-entries", True, None) is None
    inputs = list(itertools.product(range(2), repeat=3))
    assert synthesize_privacy(program, exact=True).ratio == brute.tight_ratio(reference, inputs, _all_entries)
