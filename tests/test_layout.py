"""The one-Int output layout, the level-at-a-time count and the diagram's flat form.

A program whose output is one Int compiles as the decision tree over its output bits with
the value guards as leaves (:func:`wmcdp.compile._value_tree`); counts below the last group
bit run a level at a time (``wmcdp.count.region.Region``), in 80-bit floats for Extended counts
where numpy has them; the flat form is read from CUDD's DDDMP dump. Each is checked here
against an independent formula or evaluation.
"""

import importlib
import math
import random
from fractions import Fraction

import numpy as np
import pytest

import brute

from wmcdp.programs import randomized_response, rr_counting, truncated_geometric
from wmcdp.programs.suite import noisy_max
from wmcdp import Bits, Program, flip, ite, uniform
from wmcdp.count import floats, wmc
from wmcdp.compile import compile_program
from wmcdp.count.probabilities import count, number_system


def _binomial_count(n: int, ones: int, lam: Fraction) -> list[Fraction]:
    """``P(#ones(RR(x)) = y)`` for ``x`` with ``ones`` ones: ones stay 1 w.p. 1 - lam, zeros become 1 w.p. lam."""
    stay = [math.comb(ones, a) * (1 - lam) ** a * lam ** (ones - a) for a in range(ones + 1)]
    move = [math.comb(n - ones, b) * lam ** b * (1 - lam) ** (n - ones - b) for b in range(n - ones + 1)]
    out = [Fraction(0)] * (n + 1)
    for a, p in enumerate(stay):
        for b, q in enumerate(move):
            out[a + b] += p * q
    return out


def _one_int_programs():
    yield rr_counting(5, 0.2)
    yield truncated_geometric(6, scale=1.5)
    yield noisy_max(3, 2, 0.7)
    yield Program("offset sum", Bits(3), lambda x: x[0] + x[1] * 2 + uniform(0, 2) - flip(0.3))


@pytest.mark.parametrize("prog", list(_one_int_programs()), ids=lambda p: p.name)
def test_value_tree_is_the_output_bit_formula(prog):
    """phi built from the value guards is the same function as AND_j (y_j <-> o_j) (paper Def. 3)."""
    c = compile_program(prog)
    assert c.trace.output_guards is not None
    be = c.backend
    expected = be.true
    for v, o in zip(c.output_vars, c.outputs):
        expected = be.conj(expected, be.negate(be.xor(be.var(v), o)))
    for x in prog.inputs.values():  # (input bit patterns outside the domain encode no input)
        a = c.input_assignment(x)
        assert be.condition(c.phi, a) == be.condition(expected, a), x
    # the output bits sit together, most significant first, above every variable the output reads
    levels = [be.level_of(v) for v in c.output_vars]
    assert levels == list(range(levels[0], levels[0] + len(levels)))
    assert levels[-1] < min(be.level_of(v) for v in c.flat.support if v not in c.output_vars)


def test_tuple_outputs_keep_their_bits_below_what_they_read():
    c = compile_program(randomized_response(3, 0.2))
    assert c.trace.output_guards is None
    for v in c.output_vars:  # y_i right below the input bit and the coin it reads
        assert c.backend.level_of(v) % 3 == 2


def _distributions(compiled, xs, arith):
    """Whole output distributions of the inputs ``xs`` in one batch (the count's level-at-a-time region)."""
    counter = importlib.import_module("wmcdp.count.probabilities").Counter(compiled, arith)
    plan = wmc.Plan(compiled.weights, compiled.output_groups, counter.input_batch(np.array(xs)), len(xs))
    return count(compiled, compiled.phi, plan, arith).reshape(len(xs), -1)


@pytest.mark.parametrize("wide", [True, False])
def test_extended_counts_match_the_binomial_closed_form_wide_and_per_cell(wide, monkeypatch):
    """P(y | x) down to lam^n = 1e-330 (below the smallest float), in log space to 1e-13, against exact sums."""
    if wide and floats.WIDE is None:
        pytest.skip("numpy's long double is float64 on this platform")
    if not wide:
        monkeypatch.setattr(floats, "WIDE", None)
    n, lam = 110, Fraction(1, 1000)
    c = compile_program(rr_counting(n, float(lam)))
    assert number_system(c, None) is floats.Extended and c.min_path_log2 < floats.LINEAR_MIN_LOG2
    xs = [[0] * n, [1] * 40 + [0] * (n - 40), [1] * n]
    values = _distributions(c, xs, floats.Extended)
    for x, row in zip(xs, values):
        want = _binomial_count(n, sum(x), lam)
        for y in range(n + 1):
            got = floats.Extended.log_probability(row[y])
            ln_want = math.log(want[y].numerator) - math.log(want[y].denominator)
            assert got == pytest.approx(ln_want, rel=1e-13, abs=1e-13), (sum(x), y)


def test_exact_counts_by_levels_with_skipped_coins_match_the_closed_form():
    """Exact numerators over the common denominator (skipped coins multiply by their denominators)."""
    n, lam = 9, Fraction(1, 5)
    c = compile_program(rr_counting(n, lam))
    arith = number_system(c, True)
    xs = [[0] * n, [1, 0, 1, 1, 0, 0, 1, 0, 1], [1] * n]
    values = _distributions(c, xs, arith)
    for x, row in zip(xs, values):
        want = _binomial_count(n, sum(x), lam)
        assert [arith.probability(v) for v in row] == want


def test_exact_counts_by_levels_with_skipped_coins_match_brute_force():
    """Paths that skip coins (children several levels down) multiply by the skipped denominators."""
    def body(x):
        return ite(flip(Fraction(1, 3)), x[0] + flip(Fraction(2, 7)) * 2, x[1] + ite(flip(Fraction(1, 5)), x[2], 1))

    def ref(x, choose):
        if brute.flip(choose, Fraction(1, 3)):
            return x[0] + brute.flip(choose, Fraction(2, 7)) * 2
        return x[1] + (x[2] if brute.flip(choose, Fraction(1, 5)) else 1)

    c = compile_program(Program("skips", Bits(3), body))
    arith = number_system(c, True)
    xs = [list(x) for x in c.domain.values()]
    values = _distributions(c, xs, arith)
    outputs = list(c.shape.values())
    for x, row in zip(xs, values):
        want = brute.distribution(ref, tuple(x))
        assert {y: arith.probability(v) for y, v in zip(outputs, row) if v} == want


def _holds(bdd, u, assignment):
    """``u`` under a full assignment, by CUDD's own substitution (independent of wmcdp's walks)."""
    return bdd.let(assignment, u) == bdd.true


def _flat_holds(flat, assignment):
    k = len(flat.var) - 1
    while flat.var[k] >= 0:
        k = flat.hi[k] if assignment[int(flat.var[k])] else flat.lo[k]
    return flat.var[k] == -1


@pytest.mark.parametrize("negate", [False, True])
def test_flat_form_and_path_walks_agree_with_cudd(negate):
    c = compile_program(Program("mixed", Bits(4), lambda x: (x[0] ^ flip(0.3)) + (x[1] & ~flip(0.6)) * 2
                                + (x[2] | x[3] | flip(0.5))))
    be = c.backend
    u = be.negate(c.phi) if negate else c.phi
    flat = be.flatten(u)
    assert (flat.var[-1] >= 0) and all(flat.hi[k] < k and flat.lo[k] < k for k in range(len(flat.var)) if flat.var[k] >= 0)
    variables = c.order
    rng = random.Random(7)
    for _ in range(200):
        a = {v: rng.random() < 0.5 for v in variables}
        truth = _holds(be.bdd, u, {be._name[v]: b for v, b in a.items()})
        assert _flat_holds(flat, a) == truth
        assert be.holds(u, a) == truth
    for _ in range(50):
        model = be.random_model(u, rng)
        for _ in range(4):  # variables the path skips may take any value
            full = {v: model.get(v, rng.random() < 0.5) for v in variables}
            assert _holds(be.bdd, u, {be._name[v]: b for v, b in full.items()})
    assert be.random_model(be.false, rng) is None and be.random_model(be.true, rng) == {}
    assert be.flatten(be.true).var.tolist() == [-1] and be.flatten(be.false).var.tolist() == [-2]
