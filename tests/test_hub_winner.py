"""The hub plan with the winner's block pinned per output (noisy max): against brute-force enumeration.

For noisy max the output ``y = i`` is ``AND_j [v_j below v_i]``: given entry ``i``'s block (its input bits and
its noise) the other entries are independent parts. A near-miss adds one coin to the noise of two entries
that do not win: no single block then splits the event, and the plan must refuse it."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf
from test_hub import _check_counted, _check_witness, _neighbours, _value

from programs.suite import noisy_max, noisy_max_value
from wmcdp import IntVector, Program, flip, ite, synthesize_privacy, truncated_geometric
from wmcdp.compile import compile_program
from wmcdp.plan.hub import MAX_OUTPUTS, Diagrams, _decompose, _Exact, find_blocks, hub_plan

HALF = Fraction(1, 2)
M = 2  # entry values 0..2, noise on -1..3 (margin 1), as noisy_max(n, 2)


def _noisy_max_reference(n: int, report_value: bool, a=HALF):
    def fn(x, choose):
        values = [choose(tgeom_pmf(x[i], -1, M + 1, a)) for i in range(n)]
        top = max(values)
        return top if report_value else values.index(top)  # lowest index on ties

    return fn


def _brute(fn, n: int):
    inputs = list(itertools.product(range(M + 1), repeat=n))
    return brute.tight_ratio(fn, inputs, _neighbours("all-entries", n))


@pytest.mark.parametrize("n", [2, 3])
def test_noisy_max_matches_brute_force(n):
    program = noisy_max(n, M, alpha=HALF)
    answer = hub_plan(program.trace(), M + 1, "all-entries", True, None)
    assert answer is not None and answer.pinned == answer.outputs == n
    reference = _noisy_max_reference(n, False)
    value = _value(answer)
    assert value == _brute(reference, n)
    _check_witness(answer, program, reference, value)
    _check_counted(answer, program, True)


@pytest.mark.parametrize("factory", [noisy_max, noisy_max_value])
def test_value_guards_taken_from_the_compiled_diagram_match_brute_force(factory):
    """Given the compiled program, one Int output's value guards are its diagram restricted to each value and
    moved into the hub's manager, not compiled again: the same events, so the same worst triple."""
    n = 2
    program = factory(n, M, alpha=HALF)
    compiled = compile_program(program, "bdd")
    assert compiled.trace.output_guards is not None  # one Int output: its value guards are the events
    answer = hub_plan(compiled.trace, M + 1, "all-entries", True, None, source=compiled)
    again = hub_plan(program.trace(), M + 1, "all-entries", True, None)
    assert answer is not None and again is not None
    assert (answer.best.num, answer.best.den, answer.best.y) == (again.best.num, again.best.den, again.best.y)
    reference = _noisy_max_reference(n, factory is noisy_max_value)
    assert _value(answer) == _brute(reference, n)
    _check_witness(answer, program, reference, _value(answer))


@pytest.mark.parametrize("n", [2, 3])
def test_noisy_max_in_floats_matches_brute_force(n):
    program = noisy_max(n, M, eps0=1)
    answer = hub_plan(program.trace(), M + 1, "all-entries", False, None)
    assert answer is not None
    expected = _brute(_noisy_max_reference(n, False, Fraction(math.exp(-0.5))), n)
    assert answer.best.log == pytest.approx(math.log(expected), rel=1e-12)
    _check_counted(answer, program, False)


def test_noisy_max_value_of_two_entries_is_pinned_and_exact():
    """With two entries, pinning one leaves one part: the reported maximum splits too."""
    program = noisy_max_value(2, M, alpha=HALF)
    answer = hub_plan(program.trace(), M + 1, "all-entries", True, None)
    assert answer is not None
    reference = _noisy_max_reference(2, True)
    assert _value(answer) == _brute(reference, 2)
    _check_witness(answer, program, reference, _value(answer))


def test_noisy_max_value_of_three_entries_is_refused_and_the_planner_still_answers():
    """``max = c`` needs some entry at ``c``: given any one block, the others carry whether one was (width two)."""
    program = noisy_max_value(3, M, alpha=HALF)
    assert hub_plan(program.trace(), M + 1, "all-entries", True, None) is None
    assert synthesize_privacy(program, exact=True).ratio == _brute(_noisy_max_reference(3, True), 3)


def _shared_coin_max(n: int):
    """Noisy max whose entries 1 and 2 both add one coin (drawn with entry 1's noise) to their noisy answer."""

    def body(x):
        best_index, best, coin = 0, truncated_geometric(x[0], -1, M + 1, alpha=HALF), None
        for i in range(1, n):
            v = truncated_geometric(x[i], -1, M + 1, alpha=HALF)
            if i == 1:
                coin = flip(Fraction(1, 3))
            if i in (1, 2):
                v = ite(coin, v + 1, v)
            better = v > best
            best_index, best = ite(better, i, best_index), ite(better, v, best)
        return best_index

    def reference(x, choose):
        values, coin = [], 0
        for i in range(n):
            v = choose(tgeom_pmf(x[i], -1, M + 1, HALF))
            if i == 1:
                coin = brute.flip(choose, Fraction(1, 3))
            values.append(v + coin if i in (1, 2) else v)
        return values.index(max(values))

    return Program("shared_coin_max", IntVector(n, 0, M), body, neighbours="all-entries"), reference


def test_a_coin_shared_by_two_losers_is_refused_and_the_planner_still_answers():
    program, reference = _shared_coin_max(3)
    assert hub_plan(program.trace(), M + 1, "all-entries", True, None) is None
    assert synthesize_privacy(program, exact=True).ratio == _brute(reference, 3)


def _closed_form_ratio(n: int, m: int, a) -> Fraction:
    """max P(i | x) / P(i | x') of noisy max over all-entries neighbours (every entry moves by at most one), from
    ``P(i | x) = sum_c P(v_i = c) prod_{j < i} P(v_j < c) prod_{j > i} P(v_j <= c)`` with the closed-form noise."""
    pmf = {q: tgeom_pmf(q, -1, m + 1, a) for q in range(m + 1)}
    below = {q: {c: sum(p for z, p in pmf[q].items() if z < c) for c in range(-1, m + 2)} for q in range(m + 1)}

    def prob(x, i):
        total = Fraction(0)
        for c, p in pmf[x[i]].items():
            for j in range(n):
                if j != i:
                    p *= below[x[j]][c] + (pmf[x[j]][c] if j > i else 0)
            total += p
        return total

    inputs = list(itertools.product(range(m + 1), repeat=n))
    table = {x: [prob(x, i) for i in range(n)] for x in inputs}
    best = Fraction(0)
    for x in inputs:
        steps = [[v for v in (u - 1, u, u + 1) if 0 <= v <= m] for u in x]
        for xp in itertools.product(*steps):
            for p, q in zip(table[x], table[xp]):
                best = max(best, p / q)
    return best


def test_closed_form_agrees_with_brute_force():
    assert _closed_form_ratio(3, M, HALF) == _brute(_noisy_max_reference(3, False), 3)


@pytest.mark.parametrize("n, m", [(5, 2), (3, 5)])
def test_noisy_max_matches_the_closed_form(n, m):
    program = noisy_max(n, m, alpha=HALF)
    answer = hub_plan(program.trace(), m + 1, "all-entries", True, None)
    assert answer is not None
    assert _value(answer) == _closed_form_ratio(n, m, HALF)
    _check_counted(answer, program, True)


def test_the_planner_pins_the_winner_and_names_it():
    program = noisy_max(4, 5, alpha=HALF)
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "hub"
    assert "per output one entry's block (its input and random bits) for 4 of 4 output events" in r.plan.structure
    assert r.ratio == _closed_form_ratio(4, 5, HALF)
    assert r.p_x / r.p_x_prime == r.ratio


@pytest.mark.parametrize("factory", [noisy_max, noisy_max_value])
def test_every_probability_of_the_pinned_parts_is_the_brute_force_one(factory):
    """``P(y | x) = sum_k P_p(k | x_p) prod_e P_e(y | x_e, k)`` for every input and output (not only the witness)."""
    n = 2 if factory is noisy_max_value else 3
    trace = factory(n, M, alpha=HALF).trace()
    blocks = find_blocks(trace)
    assert blocks is not None
    d = Diagrams(trace, blocks.order)
    reference = _noisy_max_reference(n, factory is noisy_max_value)
    for values, event in d.events(MAX_OUTPUTS):
        used, weights, tables = _decompose(d, blocks, event, M + 1, _Exact)
        entries = [b.entry for b in used.blocks] + [used.pinned.entry]
        for x in itertools.product(range(M + 1), repeat=n):
            p = sum(w * math.prod(t[i][x[e]] for i, e in enumerate(entries)) for w, t in zip(weights, tables))
            assert p == brute.distribution(reference, x).get(values[0], 0)
