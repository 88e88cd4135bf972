"""The hub plan (wmcdp.plan.hub): conditioned parts against the exhaustive plan and brute-force enumeration.

Random programs draw a shared noisy threshold (the hub) and then one part per entry; near-misses share one
more coin between two entries' parts, drawn after the inputs, so no hub makes their parts independent: the
plan must refuse them (and the planner's answer must still be the brute-force one)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf

from programs.checkdp import bad_gap_svt, gap_svt, num_svt, svt
from programs.geometric import geometric_above_threshold
from programs.suite import isvt1, isvt2, isvt3, isvt4, sparse_vector
from wmcdp import IntVector, Program, flip, ite, synthesize_privacy, truncated_geometric
from wmcdp.plan.hub import find_hub, hub_plan

HALF = Fraction(1, 2)


def _value(answer):
    """The plan's maximum ratio (exact) or log-ratio (float)."""
    best = answer.best
    if isinstance(best.num, Fraction):
        return float("inf") if best.den == 0 else best.num / best.den
    return best.log


def _check_witness(answer, program, reference, value):
    """The witness triple's ratio, recounted by brute force, is the plan's value (exact runs)."""
    best = answer.best
    n = program.inputs.n
    x = tuple(best.x.get(e, 0) for e in range(n))
    xp = tuple(best.x_prime.get(e, 0) for e in range(n))
    a = brute.distribution(reference, x).get(best.y, 0)
    b = brute.distribution(reference, xp).get(best.y, 0)
    assert (best.num, best.den) == (a, b)
    assert (float("inf") if b == 0 else a / b) == value


def _check_counted(answer, program, exact):
    """The witness's two probabilities are those the ordinary counter gives for that triple."""
    best = answer.best
    n = program.inputs.n
    x = tuple(program.inputs.lo + best.x.get(e, 0) for e in range(n))
    xp = tuple(program.inputs.lo + best.x_prime.get(e, 0) for e in range(n))
    r = synthesize_privacy(program, [(x, xp, best.y)], [(x, best.y), (xp, best.y)], exact=exact)
    if exact:
        assert (best.num, best.den) == (r.p_x, r.p_x_prime)
    else:
        assert (best.num, best.den) == pytest.approx((r.log_p_x, r.log_p_x_prime), rel=1e-12)


# -- the built-in sparse vector family and above-threshold against the exhaustive plan -------------------

BUILTINS = [
    (sparse_vector, (4, 2, 1, 1)),
    (sparse_vector, (3, 2, 1, 2)),
    (svt, (3, 2, 1, 1)),
    (gap_svt, (3, 1, 1, 1)),
    (num_svt, (3, 1, 0, 1)),
    (bad_gap_svt, (3, 1, 1, 1)),
    (isvt1, (3, 2, 1)),
    (isvt2, (3, 2, 1)),
    (isvt3, (3, 2, 1, 1)),
    (isvt4, (3, 1, 1, 1)),
]


@pytest.mark.parametrize("factory, args", BUILTINS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("exact", [True, False])
def test_sparse_vector_family_matches_exhaustive(factory, args, exact):
    program = factory(*args, alpha=HALF) if exact else factory(*args, eps0=1)
    answer = hub_plan(program.trace(), args[1] + 1, program.neighbours, exact, None)
    assert answer is not None
    expected = synthesize_privacy(program, "exhaustive", exact=exact)
    _check_counted(answer, program, exact)
    if exact:
        assert _value(answer) == expected.ratio
    else:
        assert _value(answer) == pytest.approx(expected.epsilon, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("n, k, t", [(4, 2, 1), (3, 3, 2), (5, 1, 0)])
def test_above_threshold_matches_exhaustive(n, k, t):
    program = geometric_above_threshold(n, k, t, alpha=HALF)
    answer = hub_plan(program.trace(), k + 1, "one-entry", True, None)
    assert answer is not None
    assert _value(answer) == synthesize_privacy(program, "exhaustive", exact=True).ratio
    _check_counted(answer, program, True)


def test_the_planner_takes_the_hub_and_names_it():
    program = sparse_vector(5, 2, 1, 1, alpha=HALF)
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "hub"
    assert "4 random bits drawn before any input (variables 0-3)" in r.plan.structure
    assert "5 parts" in r.plan.structure
    assert r.ratio == synthesize_privacy(program, "exhaustive", exact=True).ratio
    assert r.p_x / r.p_x_prime == r.ratio


def test_the_hub_is_the_noisy_threshold():
    trace = sparse_vector(6, 2, 1, 1, eps0=1).trace()
    hub = find_hub(trace)
    assert hub is not None
    threshold = [v for v in sorted(trace.circuit.weights) if v < min(min(b) for b in trace.input_bits.values())]
    assert hub.bits == tuple(threshold) and len(threshold) == 4
    assert [b.entry for b in hub.blocks] == list(range(6))


# -- random programs with a shared threshold, and near-misses ----------------------------------------------

KINDS = ["above", "below", "plain", "xor", "stop"]


def _recipe(rng: random.Random, near: bool):
    n = rng.choice([2, 3])
    kinds = [rng.choice(KINDS) for _ in range(n)]
    if near:  # parts whose output does not give the shared coin away (a stopped part's code would)
        kinds[0], kinds[-1] = rng.choice(KINDS[:2]), rng.choice(["above", "below", "xor"])
    ratios = [rng.choice([HALF, Fraction(1, 3)]) for _ in range(n)]
    shared = (0, n - 1) if near else None
    return n, kinds, ratios, rng.choice([0, 1, 2]), rng.choice(["all-entries", "one-entry", "hamming"]), shared


def _program(recipe, exact: bool):
    n, kinds, ratios, t, relation, shared = recipe
    w = (lambda p: p) if exact else float

    def body(x):
        threshold = truncated_geometric(t, 0, 2, alpha=w(HALF))
        out, stopped, coin = [], None, None
        for i, (kind, a) in enumerate(zip(kinds, ratios)):
            v = truncated_geometric(x[i], 0, 2, alpha=w(a))
            if shared is not None and i == shared[0]:
                coin = flip(w(Fraction(1, 3)))
            if kind == "above":
                o = v >= threshold
            elif kind == "below":
                o = v < threshold
            elif kind == "plain":
                o = x[i] > threshold
            elif kind == "xor":
                o = (v >= threshold) ^ flip(w(a))
            else:  # sparse vector's state: a TRUE stops every later "stop" part
                above = v >= threshold
                o = ite(stopped, 2, ite(above, 1, 0)) if stopped is not None else ite(above, 1, 0)
                stopped = above if stopped is None else stopped | above
            if shared is not None and i in shared:
                o = o ^ coin
            out.append(o)
        return tuple(out)

    return Program("hubbed", IntVector(n, 0, 2), body, neighbours=relation)


def _reference(recipe):
    n, kinds, ratios, t, relation, shared = recipe

    def fn(x, choose):
        threshold = choose(tgeom_pmf(t, 0, 2, HALF))
        out, stopped, coin = [], None, None
        for i, (kind, a) in enumerate(zip(kinds, ratios)):
            v = choose(tgeom_pmf(x[i], 0, 2, a))
            if shared is not None and i == shared[0]:
                coin = brute.flip(choose, Fraction(1, 3))
            if kind == "above":
                o = int(v >= threshold)
            elif kind == "below":
                o = int(v < threshold)
            elif kind == "plain":
                o = int(x[i] > threshold)
            elif kind == "xor":
                o = int(v >= threshold) ^ brute.flip(choose, a)
            else:
                above = v >= threshold
                o = (2 if stopped else int(above)) if stopped is not None else int(above)
                stopped = above if stopped is None else (stopped or above)
            if shared is not None and i in shared:
                o = o ^ coin
            out.append(o)
        return tuple(out)

    return fn


def _neighbours(relation: str, n: int):
    allowed = {
        "all-entries": lambda moved: max(moved) <= 1,
        "one-entry": lambda moved: moved == [1],
        "hamming": lambda moved: len(moved) == 1,
    }[relation]

    def of(x):
        for xp in itertools.product(range(3), repeat=n):
            moved = [abs(a - b) for a, b in zip(x, xp) if a != b]
            if moved and allowed(moved):
                yield xp

    return of


def _brute_ratio(recipe):
    n, relation = recipe[0], recipe[4]
    inputs = list(itertools.product(range(3), repeat=n))
    return brute.tight_ratio(_reference(recipe), inputs, _neighbours(relation, n))


@pytest.mark.parametrize("seed", range(12))
def test_random_hubbed_programs_match_brute_force(seed):
    recipe = _recipe(random.Random(seed), near=False)
    program = _program(recipe, exact=True)
    answer = hub_plan(program.trace(), 3, recipe[4], True, None)
    assert answer is not None
    value = _value(answer)
    assert value == _brute_ratio(recipe)
    _check_witness(answer, program, _reference(recipe), value)
    floats = hub_plan(_program(recipe, exact=False).trace(), 3, recipe[4], False, None)
    assert floats is not None
    if value == float("inf"):
        assert floats.best.log == float("inf")
    else:
        assert floats.best.log == pytest.approx(float(brute.math.log(value)), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_near_misses_are_refused_and_the_planner_still_answers(seed):
    recipe = _recipe(random.Random(100 + seed), near=True)
    program = _program(recipe, exact=True)
    assert hub_plan(program.trace(), 3, recipe[4], True, None) is None
    assert synthesize_privacy(program, exact=True).ratio == _brute_ratio(recipe)


def test_a_shared_coin_drawn_before_the_inputs_joins_the_hub():
    """A coin both parts read, drawn before any input, is part of the hub: the decomposition then holds."""

    def body(x):
        threshold = truncated_geometric(1, 0, 2, alpha=HALF)
        coin = flip(Fraction(1, 3))
        return tuple(((truncated_geometric(x[i], 0, 2, alpha=HALF) >= threshold) ^ coin) for i in range(3))

    def reference(x, choose):
        threshold = choose(tgeom_pmf(1, 0, 2, HALF))
        coin = brute.flip(choose, Fraction(1, 3))
        return tuple(int(choose(tgeom_pmf(x[i], 0, 2, HALF)) >= threshold) ^ coin for i in range(3))

    program = Program("coin", IntVector(3, 0, 2), body, neighbours="all-entries")
    answer = hub_plan(program.trace(), 3, "all-entries", True, None)
    assert answer is not None and len(answer.hub.bits) == 3
    inputs = list(itertools.product(range(3), repeat=3))
    assert _value(answer) == brute.tight_ratio(reference, inputs, _neighbours("all-entries", 3))


def test_the_plan_reports_an_estimate_from_its_counted_work():
    """The estimate is a fixed function of counted work (so two runs give the same one, on any machine), and grows
    with the work: sparse vector at 12 answers has more outputs, block nodes and leaves than at 6."""
    from wmcdp.plan.hub import HUB_SECONDS

    small = synthesize_privacy(sparse_vector(6, 2, 1, 1, alpha=HALF), exact=True).plan
    again = synthesize_privacy(sparse_vector(6, 2, 1, 1, alpha=HALF), exact=True).plan
    large = synthesize_privacy(sparse_vector(12, 2, 1, 1, alpha=HALF), exact=True).plan
    assert small.kind == large.kind == "hub"
    assert small.estimated_seconds == again.estimated_seconds
    assert HUB_SECONDS["base"] < small.estimated_seconds < large.estimated_seconds
    # the planner chose by the estimate it lists; the report adds the tracing and compiling every plan shares
    (listed,) = [e for kind, e, _ in small.considered if kind == "hub"]
    assert 0 < listed <= small.estimated_seconds


@pytest.mark.parametrize("half_width", [8, 16])
def test_a_hub_of_many_bits_matches_exhaustive(half_width):
    """Sparse vector with its threshold drawn on a window of half-width W (2W random bits, past 12): the hub's
    values are found by a forward pass over its levels, and the plan's exact ratio is the exhaustive one."""
    from wmcdp.compile import compile_program
    from wmcdp.lang.unbounded import window

    prog = svt(n=3, m=1, T=1, N=1, alpha=HALF, noise="unbounded")
    with window(half_width):
        compiled = compile_program(prog, "bdd")
        hub = synthesize_privacy(compiled, plan="hub")
        exhaustive = synthesize_privacy(compiled, "exhaustive")
    assert hub.plan.kind == "hub" and "random bits" in hub.plan.structure
    assert hub.exact and hub.ratio == exhaustive.ratio
