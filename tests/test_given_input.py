"""The given-input plan (wmcdp.plan.given_input): parts that read shared input entries with disjoint random bits,
against brute-force enumeration, the exhaustive plan and the peers' closed forms.

Random programs release several parts, each reading a few (overlapping) entries through gates over the input
and drawing its own noise; near-misses let one shared coin change both of their two parts (xor, or a sentinel
value), so they are one part and the plan must not be taken (the planner's answer must still be the brute-force one)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf

from programs.peers import bloom_bits, geometric_parallel, one_time_rappor, rappor, rappor_claim
from wmcdp import IntVector, Program, flip, ite, synthesize_privacy, truncated_geometric
from wmcdp.cli import main
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.given_input import given_input_of
from wmcdp.plan.parts import split_given_input

HALF = Fraction(1, 2)


def _check(program, reference, inputs, neighbours, exact=True):
    """The planner takes the given-input plan; its ratio is brute force's and the exhaustive plan's, and its
    witness's probabilities are brute force's."""
    r = synthesize_privacy(program, exact=exact)
    assert r.plan.kind == "given-input"
    expected = brute.tight_ratio(reference, inputs, neighbours)
    if exact:
        assert r.ratio == expected
        assert r.ratio == synthesize_privacy(program, "exhaustive", exact=True, force=True).ratio
        w = r.witness
        assert r.p_x == brute.distribution(reference, w.x).get(w.y, 0)
        assert r.p_x_prime == brute.distribution(reference, w.xp if hasattr(w, "xp") else w.x_prime).get(w.y, 0)
    else:
        assert r.epsilon == pytest.approx(math.log(expected) if expected != math.inf else math.inf, rel=1e-12)
    return r


# -- the peers' programs ------------------------------------------------------------------------------------


def _parallel_reference(n, m, margin, a):
    return lambda x, choose: tuple(choose(tgeom_pmf(x[0], -margin, m + margin, a)) for _ in range(n))


def _neighbours_in(domain, relation):
    rel = neighbour_relation(relation)
    return lambda x: list(rel(domain, x))


@pytest.mark.parametrize("n, m, margin", [(2, 1, 1), (3, 2, 1), (3, 1, 0)])
def test_geometric_parallel_matches_brute_force(n, m, margin):
    program = geometric_parallel(n, m, margin=margin, alpha=HALF)
    inputs = list(program.inputs.values())
    r = _check(program, _parallel_reference(n, m, margin, HALF), inputs, _neighbours_in(program.inputs, "one-entry"))
    assert r.ratio == HALF**-n


@pytest.mark.parametrize("n", [10, 40])
def test_geometric_parallel_is_n_ln_one_over_alpha(n):
    """DP-Sniper's LaplaceParallel: n releases of ratio alpha compose to n ln(1/alpha), exactly."""
    r = synthesize_privacy(geometric_parallel(n, 1, margin=1, alpha=HALF), exact=True)
    assert r.plan.kind == "given-input" and r.ratio == 2**n
    floats = synthesize_privacy(geometric_parallel(n, 1, margin=1, alpha=0.5))
    assert floats.plan.kind == "given-input"
    assert floats.epsilon == pytest.approx(n * math.log(2), rel=1e-12)


def _rappor_reference(size, h, f, lo, hi, p=None, q=None):
    filters = {v: bloom_bits(v, h, size) for v in range(lo, hi + 1)}

    def fn(x, choose):
        out = []
        for j in range(size):
            b = brute.flip(choose, 1 - f / 2 if j in filters[x[0]] else f / 2)
            out.append(b if p is None else brute.flip(choose, q if b else p))
        return tuple(out)

    return fn


@pytest.mark.parametrize("kind", ["rappor", "one_time_rappor"])
@pytest.mark.parametrize("size, lo, hi", [(4, -2, 2), (5, 0, 3)])
def test_rappor_matches_brute_force(kind, size, lo, hi):
    if kind == "rappor":
        program = rappor(size, 2, lo=lo, hi=hi)
        reference = _rappor_reference(size, 2, Fraction(3, 4), lo, hi, Fraction(9, 20), Fraction(11, 20))
    else:
        program = one_time_rappor(size, 2, lo=lo, hi=hi)
        reference = _rappor_reference(size, 2, Fraction(19, 20), lo, hi)
    inputs = [(v,) for v in range(lo, hi + 1)]
    _check(program, reference, inputs, lambda x: [y for y in inputs if y != x])


@pytest.mark.parametrize("kind", ["rappor", "one_time_rappor"])
def test_rappor_at_dp_snipers_size_is_its_claim(kind):
    """With 20 bits and 4 hashes two of the values -10..10 have disjoint filters of 4 bits each: the exact ratio
    is RAPPOR's claimed e^eps (each bit of the symmetric difference contributes its own largest ratio)."""
    params = {"h": 4, "f": Fraction(3, 4), "p": Fraction(9, 20), "q": Fraction(11, 20)}
    if kind == "one_time_rappor":
        params = {"h": 4, "f": Fraction(19, 20)}
    filters = [bloom_bits(v, 4, 20) for v in range(-10, 11)]
    assert any(len(a) == len(b) == 4 and not a & b for a, b in itertools.combinations(filters, 2))
    program = (rappor if kind == "rappor" else one_time_rappor)(20, **params)
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "given-input"
    assert r.ratio == rappor_claim(params["h"], params["f"], params.get("p"), params.get("q"))


# -- random programs: parts over shared entries, each with its own noise --------------------------------------

KINDS = ["geo", "flip", "sum", "xor", "pair"]
RELATIONS = ["hamming", "one-entry", "all-entries", "user"]


def _sum_is_one_apart(x, xp):
    """A user relation: the inputs' sums differ by exactly one."""
    return abs(sum(x) - sum(xp)) == 1


def _recipe(rng: random.Random, near: bool):
    n = rng.choice([2, 3])
    common = rng.randrange(n)  # every part reads it (else parts on disjoint entries are a product)
    parts = []
    for _ in range(2 if near else rng.choice([2, 3])):
        kind = rng.choice(KINDS)
        entries = (common, rng.choice([i for i in range(n) if i != common]))
        if kind in ("sum", "xor", "pair") and rng.random() < 0.5:
            entries = entries[::-1]
        probs = tuple(rng.choice([Fraction(1, 5), Fraction(1, 2), Fraction(2, 3), 0, 1]) for _ in range(3))
        parts.append((kind, entries, rng.choice([HALF, Fraction(1, 3)]), probs))
    return n, parts, rng.choice(RELATIONS), near, rng.random() < 0.3


def _program(recipe, exact: bool):
    n, parts, relation, near, plain = recipe
    w = (lambda p: p) if exact else float

    def body(x):
        out = []
        coin = flip(w(Fraction(1, 3))) if near else None
        for kind, (e, d), a, probs in parts:
            if kind == "geo":
                o = truncated_geometric(x[e], 0, 2, alpha=w(a))
            elif kind == "flip":
                o = flip(lambda v, probs=probs: w(probs[v]), x[e])
            elif kind == "sum":
                o = truncated_geometric(x[e] + x[d], 0, 4, alpha=w(a))
            elif kind == "xor":
                o = flip(lambda v, probs=probs: w(probs[v]), x[e]) ^ (x[d] >= 1)
            else:
                o = ite(x[d] > x[e], truncated_geometric(x[e], 0, 2, alpha=w(a)), 3)
            out.append((o ^ coin if kind in ("flip", "xor") else ite(coin, o, 5)) if near else o)
        if plain:
            out.append(x[0] >= 1)  # a function of the input alone
        return tuple(out)

    neighbours = _sum_is_one_apart if relation == "user" else relation
    return Program("given", IntVector(n, 0, 2), body, neighbours=neighbours)


def _reference(recipe):
    n, parts, relation, near, plain = recipe

    def fn(x, choose):
        out = []
        coin = brute.flip(choose, Fraction(1, 3)) if near else None
        for kind, (e, d), a, probs in parts:
            if kind == "geo":
                o = choose(tgeom_pmf(x[e], 0, 2, a))
            elif kind == "flip":
                o = brute.flip(choose, probs[x[e]])
            elif kind == "sum":
                o = choose(tgeom_pmf(x[e] + x[d], 0, 4, a))
            elif kind == "xor":
                o = brute.flip(choose, probs[x[e]]) ^ int(x[d] >= 1)
            else:
                o = choose(tgeom_pmf(x[e], 0, 2, a)) if x[d] > x[e] else 3
            out.append((o ^ coin if kind in ("flip", "xor") else o if coin else 5) if near else o)
        if plain:
            out.append(int(x[0] >= 1))
        return tuple(out)

    return fn


def _neighbours(relation: str, n: int):
    allowed = {
        "all-entries": lambda x, xp, moved: max(moved) <= 1,
        "one-entry": lambda x, xp, moved: moved == [1],
        "hamming": lambda x, xp, moved: len(moved) == 1,
        "user": lambda x, xp, moved: _sum_is_one_apart(x, xp),
    }[relation]

    def of(x):
        for xp in itertools.product(range(3), repeat=n):
            moved = [abs(a - b) for a, b in zip(x, xp) if a != b]
            if moved and allowed(x, xp, moved):
                yield xp

    return of


@pytest.mark.parametrize("seed", range(16))
def test_random_programs_match_brute_force_and_exhaustive(seed):
    recipe = _recipe(random.Random(seed), near=False)
    n = recipe[0]
    inputs = list(itertools.product(range(3), repeat=n))
    program = _program(recipe, exact=True)
    parts = split_given_input(program.trace())
    random_parts = [kind for kind, _, _, probs in recipe[1] if kind in ("geo", "sum", "pair") or set(probs) - {0, 1}]
    assert len(random_parts) >= 2  # the seeds are chosen so (a flip of probability 0 or 1 draws no bit)
    # every recipe part is a part, a function of the input alone (a flip of probability 0 or 1, the plain leaf) too
    assert parts is not None and len(parts) == len(recipe[1]) + bool(recipe[4])
    _check(program, _reference(recipe), inputs, _neighbours(recipe[2], n))
    _check(_program(recipe, exact=False), _reference(recipe), inputs, _neighbours(recipe[2], n), exact=False)


def test_every_relation_and_kind_is_drawn():
    recipes = [_recipe(random.Random(seed), near=False) for seed in range(16)]
    assert {r[2] for r in recipes} == set(RELATIONS)
    assert {kind for r in recipes for kind, *_ in r[1]} == set(KINDS)


@pytest.mark.parametrize("seed", range(6))
def test_parts_sharing_a_coin_do_not_take_the_plan(seed):
    recipe = _recipe(random.Random(100 + seed), near=True)
    n = recipe[0]
    program = _program(recipe, exact=True)
    assert split_given_input(program.trace()) is None
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind != "given-input"
    inputs = list(itertools.product(range(3), repeat=n))
    assert r.ratio == brute.tight_ratio(_reference(recipe), inputs, _neighbours(recipe[2], n))


def test_a_shared_coin_merges_two_of_three_parts():
    """Parts 0 and 2 share a coin, part 1 does not: two parts, and the bound is still brute force's."""

    def body(x):
        coin = flip(Fraction(1, 3))
        return (
            flip(lambda v: Fraction(v + 1, 4), x[0]) ^ coin,
            truncated_geometric(x[0], 0, 2, alpha=HALF),
            flip(lambda v: Fraction(3 - v, 4), x[1]) ^ coin ^ (x[0] >= 1),
        )

    def reference(x, choose):
        coin = brute.flip(choose, Fraction(1, 3))
        a = brute.flip(choose, Fraction(x[0] + 1, 4)) ^ coin
        b = choose(tgeom_pmf(x[0], 0, 2, HALF))
        return a, b, brute.flip(choose, Fraction(3 - x[1], 4)) ^ coin ^ int(x[0] >= 1)

    program = Program("merged", IntVector(2, 0, 2), body, neighbours="hamming")
    parts = split_given_input(program.trace())
    assert parts is not None and [p.leaves for p in parts] == [(0, 2), (1,)]
    inputs = list(itertools.product(range(3), repeat=2))
    _check(program, reference, inputs, _neighbours("hamming", 2))


def test_an_infinite_ratio_has_a_witness():
    """A part that is certain for one input and impossible for its neighbour: infinite ratio, witnessed."""

    def body(x):
        return flip(lambda v: Fraction(v, 2), x[0]), truncated_geometric(x[0], 0, 2, alpha=HALF)

    program = Program("certain", IntVector(1, 0, 2), body, neighbours="one-entry")
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "given-input" and r.ratio == math.inf
    assert r.p_x > 0 and r.p_x_prime == 0


# -- limits and the command line --------------------------------------------------------------------------


def test_too_many_pairs_are_refused_with_the_reason():
    def body(x):
        return tuple(flip(HALF) ^ x[i] ^ x[i + 1] for i in range(23))

    program = Program("wide", IntVector(24, 0, 1), body, neighbours="hamming")
    given, why = given_input_of(program, program.trace(), neighbour_relation("hamming"), "bdd", True)
    assert given is None and "neighbour pairs (limit" in why


def test_the_command_line_reports_the_plan(capsys):
    code = main(["privacy", "geometric_parallel", "-p", "n=20", "-p", "m=1", "-p", "margin=1", "-p", "alpha=1/2"])
    out = capsys.readouterr().out
    assert code in (0, None)
    assert "given-input (20 parts independent given the input, 1 distinct (20 read entry 0)" in out
    assert "1048576" in out
