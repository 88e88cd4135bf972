"""Outputs that factor by entry (wmcdp.plan.hub.owned) against brute-force enumeration.

Random programs draw a shared noisy threshold (the hub) and give each entry one or two *own* output leaves (its
answer above or below the threshold, the answer itself against it, a code with labels of its own, a coin on its
input), laid out in the output tuple in a shuffled order, among constant leaves; some entries give no output.
Hostile draws: a threshold noise with a gap in its support, tiny ratios, two entries with the same law but
different labels (so the witness's output must be read back per entry). The plan must take the factored path
(``owned > 0``: the test fails if it silently lists the outputs instead) and its exact ratio and witness must be
brute force's, for every relation and data-centrically at a database. Near-misses (a leaf that reads two entries'
answers, or the hub alone) must not factor, and the planner must still answer them."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import brute
import pytest
from test_geometric import tgeom_pmf

from programs.suite import isvt1, isvt2, sparse_vector
from wmcdp import IntVector, Program, discrete, flip, ite, synthesize_privacy, truncated_geometric
from wmcdp.plan.hub import find_blocks, hub_plan
from wmcdp.plan.hub.owned import owned_leaves

HALF = Fraction(1, 2)
KINDS = ["above", "below", "plain", "code", "coin"]
RELATIONS = ["all-entries", "one-entry", "hamming", "monotone"]


def _recipe(rng: random.Random, near: str | None = None):
    n = rng.choice([2, 3])
    leaves = [[rng.choice(KINDS) for _ in range(rng.choice([1, 1, 2]))] for _ in range(n)]
    if n == 3 and rng.random() < 0.3:
        leaves[rng.randrange(n)] = []  # an entry the output does not read
    ratios = [rng.choice([HALF, Fraction(1, 3), Fraction(1, 10**6)]) for _ in range(n)]
    if rng.random() < 0.4:  # two entries with the same law, told apart only by their labels
        ratios[1] = ratios[0]
    gap = rng.random() < 0.4  # the threshold never takes its middle value
    slots = [(e, k) for e in range(n) for k in range(len(leaves[e]))] + [("const", 7)] * rng.choice([0, 1, 2])
    rng.shuffle(slots)
    return {
        "n": n,
        "leaves": leaves,
        "ratios": ratios,
        "t": rng.choice([0, 1, 2]),
        "gap": gap,
        "slots": slots,
        "relation": rng.choice(RELATIONS),
        "near": near,
    }


def _threshold_law(r):
    if r["gap"]:
        return {0: Fraction(1, 3), 1: Fraction(0), 2: Fraction(2, 3)}
    return tgeom_pmf(r["t"], 0, 2, HALF)


def _program(r, exact: bool):
    w = (lambda p: p) if exact else float

    def body(x):
        law = _threshold_law(r)
        if r["gap"]:
            threshold = discrete({v: w(p) for v, p in law.items()})
        else:
            threshold = truncated_geometric(r["t"], 0, 2, alpha=w(HALF))
        own, answers = {}, []
        for e, (kinds, a) in enumerate(zip(r["leaves"], r["ratios"])):
            v = truncated_geometric(x[e], 0, 2, alpha=w(a))
            answers.append(v)
            for k, kind in enumerate(kinds):
                if kind == "above":
                    own[e, k] = v >= threshold
                elif kind == "below":
                    own[e, k] = v < threshold
                elif kind == "plain":
                    own[e, k] = x[e] > threshold
                elif kind == "code":
                    own[e, k] = ite(v >= threshold, 10 + e, 20)
                else:
                    own[e, k] = flip(w(a)) ^ (x[e] == 1)
        out = [7 if slot[0] == "const" else own[slot] for slot in r["slots"]]
        if r["near"] == "two entries":
            out.append((answers[0] >= threshold) ^ (answers[1] >= threshold))
        elif r["near"] == "hub alone":
            out.append(threshold >= 1)
        return tuple(out)

    return Program("owned", IntVector(r["n"], 0, 2), body, neighbours=r["relation"])


def _reference(r):
    def fn(x, choose):
        threshold = choose(_threshold_law(r))
        own, answers = {}, []
        for e, (kinds, a) in enumerate(zip(r["leaves"], r["ratios"])):
            v = choose(tgeom_pmf(x[e], 0, 2, a))
            answers.append(v)
            for k, kind in enumerate(kinds):
                if kind == "above":
                    own[e, k] = int(v >= threshold)
                elif kind == "below":
                    own[e, k] = int(v < threshold)
                elif kind == "plain":
                    own[e, k] = int(x[e] > threshold)
                elif kind == "code":
                    own[e, k] = 10 + e if v >= threshold else 20
                else:
                    own[e, k] = brute.flip(choose, a) ^ int(x[e] == 1)
        out = [7 if slot[0] == "const" else own[slot] for slot in r["slots"]]
        if r["near"] == "two entries":
            out.append(int(answers[0] >= threshold) ^ int(answers[1] >= threshold))
        elif r["near"] == "hub alone":
            out.append(int(threshold >= 1))
        return tuple(out)

    return fn


def _neighbours(relation: str, n: int):
    def allowed(x, xp):
        moves = [b - a for a, b in zip(x, xp) if a != b]
        if not moves:
            return False
        if relation == "all-entries":
            return all(abs(m) == 1 for m in moves)
        if relation == "one-entry":
            return len(moves) == 1 and abs(moves[0]) == 1
        if relation == "hamming":
            return len(moves) == 1
        return all(m == 1 for m in moves) or all(m == -1 for m in moves)  # monotone

    def of(x):
        return [xp for xp in itertools.product(range(3), repeat=n) if allowed(x, xp)]

    return of


def _brute(r, at=None):
    """The tight ratio over every neighbouring pair (or, at a database ``at``, the pairs with one side at it)."""
    n, fn = r["n"], _reference(r)
    inputs = list(itertools.product(range(3), repeat=n))
    dists = {x: brute.distribution(fn, x) for x in inputs}
    of = _neighbours(r["relation"], n)
    pairs = [(x, xp) for x in inputs for xp in of(x)]
    if at is not None:
        pairs = [(x, xp) for x, xp in pairs if at in (x, xp)]
    best: Fraction | float = Fraction(0)
    for x, xp in pairs:
        for y in set(dists[x]) | set(dists[xp]):
            a, b = dists[x].get(y, 0), dists[xp].get(y, 0)
            if a or b:
                best = max(best, math.inf if b == 0 else Fraction(a) / Fraction(b))
    return best, dists


def _witness(answer, n):
    best = answer.best
    x = tuple(best.x.get(e, 0) for e in range(n))
    xp = tuple(best.x_prime.get(e, 0) for e in range(n))
    return x, xp, best.y


@pytest.mark.parametrize("seed", range(16))
def test_random_owned_outputs_match_brute_force(seed):
    r = _recipe(random.Random(seed))
    program = _program(r, exact=True)
    trace = program.trace()
    answer = hub_plan(trace, 3, r["relation"], True, None)
    assert answer is not None and answer.owned > 0, "the outputs must factor by entry"
    want, dists = _brute(r)
    got = math.inf if answer.best.den == 0 else answer.best.num / answer.best.den
    assert got == want
    x, xp, y = _witness(answer, r["n"])
    assert (answer.best.num, answer.best.den) == (dists[x].get(y, 0), dists[xp].get(y, 0))
    floats = hub_plan(_program(r, exact=False).trace(), 3, r["relation"], False, None)
    assert floats is not None and floats.owned > 0
    if want == math.inf:
        assert floats.best.log == math.inf
    else:
        assert floats.best.log == pytest.approx(math.log(want), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_owned_outputs_at_a_database_match_brute_force(seed):
    rng = random.Random(1000 + seed)
    r = _recipe(rng)
    x0 = tuple(rng.randrange(3) for _ in range(r["n"]))
    answer = hub_plan(_program(r, exact=True).trace(), 3, r["relation"], True, None, at=x0)
    want, dists = _brute(r, at=x0)
    if want == 0:  # no neighbour of x0 under a monotone relation at an end, or every triple 0/0
        return
    assert answer is not None and answer.owned > 0
    got = math.inf if answer.best.den == 0 else answer.best.num / answer.best.den
    assert got == want
    x, xp, y = _witness(answer, r["n"])
    assert x0 in (x, xp)
    assert (answer.best.num, answer.best.den) == (dists[x].get(y, 0), dists[xp].get(y, 0))


@pytest.mark.parametrize("near", ["two entries", "hub alone"])
@pytest.mark.parametrize("seed", range(3))
def test_near_misses_do_not_factor_and_the_planner_still_answers(near, seed):
    r = _recipe(random.Random(2000 + seed), near=near)
    program = _program(r, exact=True)
    trace = program.trace()
    hub = find_blocks(trace)
    assert hub is None or owned_leaves(trace, hub) is None
    answer = hub_plan(trace, 3, r["relation"], True, None)
    assert answer is None or answer.owned == 0
    assert synthesize_privacy(program, exact=True).ratio == _brute(r)[0]


def test_sparse_vector_with_a_bound_does_not_factor():
    """A STOPPED code reads every earlier answer: the leaves are not their entries' own."""
    trace = sparse_vector(4, 1, 1, 1, alpha=HALF).trace()
    assert owned_leaves(trace, find_blocks(trace)) is None
    trace = isvt2(4, 1, 1, alpha=HALF).trace()
    assert owned_leaves(trace, find_blocks(trace)) == (0, 1, 2, 3)


def _isvt2_by_counts(n: int, a: Fraction) -> Fraction:
    """iSVT2 (m = 1, threshold 1, both noises ``TGeom_a`` clamped to -1..2 (margin 1), answers in {0, 1}) under
    all-entries, from its law: P(y | x) = sum_h P(T = h) prod_i P(y_i | x_i, h), identical entries, so the worst
    triple is a multiset of per-entry choices (y_i, x_i, x'_i), every multiset enumerated."""
    thr, values = tgeom_pmf(1, -1, 2, a), range(-1, 3)
    part = {
        (v, u, h): sum(p for z, p in tgeom_pmf(u, -1, 2, a).items() if (z >= h) == v)
        for v in (0, 1)
        for u in (0, 1)
        for h in values
    }
    scale = math.lcm(*(p.denominator for p in [*part.values(), *thr.values()]))  # whole numbers: fast products
    part = {key: int(p * scale) for key, p in part.items()}
    thr = {h: int(p * scale) for h, p in thr.items()}
    choices = [(v, u, up) for v in (0, 1) for u in (0, 1) for up in (0, 1)]
    best = Fraction(0)
    for counts in itertools.combinations_with_replacement(range(len(choices)), n):
        if all(choices[c][1] == choices[c][2] for c in counts):
            continue
        num = sum(thr[h] * math.prod(part[choices[c][0], choices[c][1], h] for c in counts) for h in values)
        den = sum(thr[h] * math.prod(part[choices[c][0], choices[c][2], h] for c in counts) for h in values)
        best = max(best, math.inf if den == 0 else Fraction(num, den))
    return best


def test_isvt2_past_the_listed_outputs():
    """iSVT2 at n = 11 has 2048 outputs, past the 1024 output events the plan lists: it is searched by entry
    instead, and its exact ratio is the one every multiset of per-entry choices gives."""
    program = isvt2(11, 1, 1, alpha=HALF)
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind == "hub" and "factored by entry" in r.plan.structure
    assert r.ratio == _isvt2_by_counts(11, HALF)


def test_isvt1_over_fifty_entries_is_infinite_with_a_witness_brute_force_confirms():
    """iSVT1 (no query noise) over 50 entries, 2^50 outputs: the hub plan's witness output has probability 0 from
    x' and not from x, as the enumeration of the threshold's noise (the program's only random choice) shows."""
    r = synthesize_privacy(isvt1(50, 10, 5, 1))
    assert r.plan.kind == "hub" and "factored by entry" in r.plan.structure and r.ratio == math.inf
    thr = tgeom_pmf(5, -1, 11, Fraction(math.exp(-1)))  # TGeom(T = 5) clamped to -1..m + 1, a = e^(-eps0)

    def reference(x, choose):
        t = choose(thr)
        return tuple(int(v >= t) for v in x)

    x, xp, y = r.witness.x, r.witness.x_prime, r.witness.y
    assert brute.distribution(reference, x).get(y, 0) > 0 and brute.distribution(reference, xp).get(y, 0) == 0
