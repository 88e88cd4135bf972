"""The chain plan (wmcdp.plan.chain): running-sum programs against brute-force enumeration and the exhaustive plan.

CheckDP's PrefixSum, SmartSum and BadSmartSum (their plain-Python references are in test_peers_programs), random
programs whose running state is updated by each entry's own noise and read by the outputs, and near-misses that
draw one coin while the first entry is processed and use it at the last one: no cut of width one, so the plan
must refuse them (and the planner's answer must still be the brute-force one)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf
from test_peers_programs import prefix_sum_loop, smart_sum_loop

from programs.checkdp import bad_partial_sum, bad_smart_sum, partial_sum, prefix_sum, smart_sum
from wmcdp import IntVector, Program, compile_program, flip, ite, synthesize_privacy, truncated_geometric
from wmcdp.cli import main
from wmcdp.lang.circuit import TRUE
from wmcdp.lang.values import Int
from wmcdp.plan.chain import chain_plan, find_chain

HALF = Fraction(1, 2)
RELATIONS = ["one-entry", "hamming", "all-entries", "monotone"]


def neighbours(relation: str, lo: int, hi: int):
    """``x -> the x'`` of a built-in relation, from its definition (docs/api.md)."""

    def of(x):
        for xp in itertools.product(range(lo, hi + 1), repeat=len(x)):
            steps = {b - a for a, b in zip(x, xp)}
            moved = [abs(a - b) for a, b in zip(x, xp) if a != b]
            if relation == "monotone":  # every answer by 0 or +1, or every answer by 0 or -1
                if moved and (steps <= {0, 1} or steps <= {0, -1}):
                    yield xp
            elif moved and {"one-entry": moved == [1], "hamming": len(moved) == 1}.get(relation, max(moved) <= 1):
                yield xp

    return of


_DISTS: dict = {}


def brute_ratio(key, reference, inputs, of) -> Fraction | float:
    """``max P(y|x) / P(y|x')`` over the neighbours ``of(x)`` and outputs, by brute force (the distributions of
    ``reference`` enumerated once per ``key``)."""
    dists = _DISTS.setdefault(key, {x: brute.distribution(reference, x) for x in inputs})
    best: Fraction | float = Fraction(0)
    for x in inputs:
        for xp in of(x):
            for y, a in dists[x].items():
                b = dists[xp].get(y, 0)
                best = max(best, math.inf if b == 0 else a / b)
    return best


def plan_ratio(program: Program, relation: str, exact: bool = True):
    """The chain plan's maximum ratio (exact) or log-ratio (floats), and its (first) answer."""
    answers = chain_plan(compile_program(program), relation, exact, None)
    assert answers
    assert len(answers) == 1 or not exact  # exact: the best alone; floats: those within rounding of it
    return answers[0].value, answers[0]


def check_witness(answer, program: Program, reference, value) -> None:
    """The witness triple's ratio, recounted by brute force, is the plan's value."""
    lo = program.inputs.lo
    x, xp = tuple(lo + u for u in answer.x), tuple(lo + u for u in answer.x_prime)
    a = brute.distribution(reference, x).get(answer.y, 0)
    b = brute.distribution(reference, xp).get(answer.y, 0)
    assert a > 0
    assert (math.inf if b == 0 else a / b) == value


# -- CheckDP's running sums at n = 2..4 under every relation ------------------------------------------------

BUILTINS = [
    (prefix_sum, {}, prefix_sum_loop, {}),
    (smart_sum, {"M": 2}, smart_sum_loop, {"M": 2, "block_noise": True}),
    (smart_sum, {"M": 3}, smart_sum_loop, {"M": 3, "block_noise": True}),
    (bad_smart_sum, {"M": 2}, smart_sum_loop, {"M": 2, "block_noise": False}),
]


@pytest.mark.parametrize("factory, params, loop, loop_params", BUILTINS, ids=["prefix", "smart2", "smart3", "bad2"])
@pytest.mark.parametrize("n, m", [(2, 2), (3, 1), (4, 1)])
@pytest.mark.parametrize("relation", RELATIONS)
def test_running_sums_match_brute_force_and_exhaustive(factory, params, loop, loop_params, n, m, relation):
    if factory is smart_sum and params["M"] > n:
        pytest.skip("no block ends")
    if relation == "hamming" and m == 1:
        pytest.skip("with two values per entry hamming is one-entry")
    program = factory(n, m, alpha=HALF, **params)
    reference = loop(m=m, margin=1, a=HALF, **loop_params)
    value, answer = plan_ratio(program, relation)
    key = (factory.__name__, tuple(params.items()), n, m)
    assert value == brute_ratio(key, reference, list(program.inputs.values()), neighbours(relation, 0, m))
    assert value == synthesize_privacy(program, "exhaustive", neighbours=relation, exact=True).ratio
    check_witness(answer, program, reference, value)
    if factory is bad_smart_sum:
        assert value == math.inf


@pytest.mark.parametrize("relation", RELATIONS)
def test_float_mode_gives_the_log_of_the_exact_ratio(relation):
    program = smart_sum(4, 1, M=2, eps0=Fraction(1, 3))
    value, answer = plan_ratio(program, relation, exact=False)
    expected = synthesize_privacy(program, "exhaustive", neighbours=relation)
    assert value == pytest.approx(expected.epsilon, rel=1e-12)
    counted = synthesize_privacy(
        program,
        [(tuple(answer.x), tuple(answer.x_prime), answer.y)],
        [(tuple(answer.x), answer.y), (tuple(answer.x_prime), answer.y)],
        neighbours=relation,
    )
    assert counted.epsilon == pytest.approx(value, rel=1e-12)


def test_the_blocks_hold_each_entry_and_the_outputs_it_completes():
    compiled = compile_program(smart_sum(4, 1, M=2, alpha=HALF))
    blocks = find_chain(compiled)
    assert blocks is not None
    assert [b.entry for b in blocks] == [0, 1, 2, 3]
    assert [b.outputs for b in blocks] == [(0,), (1,), (2,), (3,)]
    for b in blocks[1:]:  # each block opens with its entry's bits
        assert compiled.order[b.start] == compiled.trace.input_bits[b.entry][0]
    assert blocks[-1].end == len(compiled.order)


def test_a_component_of_one_value_is_in_the_witness():
    """An Int output of one value takes no bits: the witness still names it."""

    def body(x):
        s = truncated_geometric(x[0], 0, 2, alpha=HALF)
        return (s, Int({3: TRUE}), s + truncated_geometric(x[1], 0, 2, alpha=Fraction(1, 3)))

    def reference(x, choose):
        s = choose(tgeom_pmf(x[0], 0, 2, HALF))
        return (s, 3, s + choose(tgeom_pmf(x[1], 0, 2, Fraction(1, 3))))

    program = Program("one_value", IntVector(2, 0, 2), body, neighbours="one-entry")
    value, answer = plan_ratio(program, "one-entry")
    assert answer.y[1] == 3
    assert value == brute_ratio("one_value", reference, list(program.inputs.values()), neighbours("one-entry", 0, 2))
    check_witness(answer, program, reference, value)


def test_unread_answers_leave_the_chain_to_other_plans():
    program = smart_sum(5, 1, M=2, T=2, alpha=HALF)  # answers 3 and 4 are never read
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind != "chain"
    assert r.ratio == synthesize_privacy(program, "exhaustive", exact=True).ratio


def test_one_total_is_not_a_chain():
    """PartialSum releases one Int (the total): its output is not split into components per entry."""
    for factory in (partial_sum, bad_partial_sum):
        assert chain_plan(compile_program(factory(3, 1, alpha=HALF)), "one-entry", True, None) is None


# -- the planner at n = 10 and 20: closed forms (one answer moves one noise, or a noise and a block's noisy sum) --
# (SmartSum's blocks share no noise, so up to about n = 10 the given-input plan lists its pairs and answers first)


@pytest.mark.parametrize(
    "program, ratio",
    [
        (prefix_sum(10, 1, alpha=HALF), 2),  # q_i enters one TGeom: ratio 1/a
        (smart_sum(20, 1, M=2, alpha=HALF), 4),  # and one block sum: 1/a^2
        (bad_smart_sum(20, 1, M=2, alpha=HALF), math.inf),  # the block sum released exactly
    ],
    ids=["prefix", "smart", "bad"],
)
def test_the_planner_takes_the_chain_at_n_10(program, ratio):
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "chain"
    assert r.ratio == ratio
    assert r.p_x > 0 and (r.p_x_prime == 0 if ratio == math.inf else r.p_x / r.p_x_prime == ratio)


@pytest.mark.parametrize("factory, params, power", [(prefix_sum, {}, 1), (smart_sum, {"M": 2}, 2)])
def test_the_planner_takes_the_chain_in_floats(factory, params, power):
    r = synthesize_privacy(factory(20, 1, eps0=0.25, **params))
    assert r.plan.kind == "chain"
    assert r.epsilon == pytest.approx(power * 0.25, rel=1e-12)


def test_the_cli_reports_the_chain(capsys):
    code = main(["privacy", "prefix_sum", "-p", "n=10", "-p", "m=1", "-p", "alpha=1/2", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert '"kind": "chain"' in out


# -- random chains and near-misses ----------------------------------------------------------------------------

UPDATES = ["add", "max", "restart", "flip"]


def _recipe(rng: random.Random, near: bool):
    n = rng.choice([2, 3])
    steps = [(rng.choice(UPDATES), rng.choice([HALF, Fraction(1, 3)]), rng.random() < 0.4) for _ in range(n)]
    return n, steps, rng.choice(RELATIONS), near


def _program(recipe, exact: bool) -> Program:
    n, steps, relation, near = recipe
    w = (lambda p: p) if exact else float

    def body(x):
        state, out, coin = 0, [], None
        for i, (update, a, extra) in enumerate(steps):
            z = truncated_geometric(x[i], 0, 2, alpha=w(a))
            if near and i == 0:
                coin = flip(w(Fraction(1, 3)))
            if update == "add":
                state = state + z
            elif update == "max":
                state = ite(z > state, z, state) if i else z
            elif update == "restart":
                state = z
            else:
                state = state + ite(flip(w(a)), x[i], 0)
            if near and i == n - 1:
                state = state + ite(coin, 1, 0)
            out.append(state)
            if extra:
                out.append((z >= 1) ^ flip(w(a)))
        return tuple(out)

    return Program("chained", IntVector(n, 0, 2), body, neighbours=relation)


def _reference(recipe):
    n, steps, relation, near = recipe

    def fn(x, choose):
        state, out, coin = 0, [], None
        for i, (update, a, extra) in enumerate(steps):
            z = choose(tgeom_pmf(x[i], 0, 2, a))
            if near and i == 0:
                coin = brute.flip(choose, Fraction(1, 3))
            if update == "add":
                state = state + z
            elif update == "max":
                state = max(z, state) if i else z
            elif update == "restart":
                state = z
            else:
                state = state + (x[i] if brute.flip(choose, a) else 0)
            if near and i == n - 1:
                state = state + coin
            out.append(state)
            if extra:
                out.append(int(z >= 1) ^ brute.flip(choose, a))
        return tuple(out)

    return fn


@pytest.mark.parametrize("seed", range(12))
def test_random_chains_match_brute_force(seed):
    recipe = _recipe(random.Random(seed), near=False)
    program, reference = _program(recipe, True), _reference(recipe)
    relation = recipe[2]
    value, answer = plan_ratio(program, relation)
    assert value == brute.tight_ratio(reference, list(program.inputs.values()), neighbours(relation, 0, 2))
    check_witness(answer, program, reference, value)
    floats = _program(recipe, False)
    log_value, _ = plan_ratio(floats, relation, exact=False)
    assert log_value == pytest.approx(math.log(value) if value != math.inf else math.inf, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_near_misses_refuse_the_plan_and_keep_the_right_epsilon(seed):
    recipe = _recipe(random.Random(100 + seed), near=True)
    program, relation = _program(recipe, True), recipe[2]
    assert chain_plan(compile_program(program), relation, True, None) is None
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind != "chain"
    expected = brute.tight_ratio(_reference(recipe), list(program.inputs.values()), neighbours(relation, 0, 2))
    assert r.ratio == expected
