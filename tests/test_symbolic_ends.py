"""Symbolic pieces at their ends: where a weight of the parameter reaches 0 or 1 the support of the mechanism
changes, and the value there is the exact numeric run's (a pair with P(y|x) = P(y|x') = 0 skipped, one with
P(y|x) > 0 = P(y|x') infinite), not the limit of the neighbouring piece. Every piece of random small programs is
checked at its ends, its middle and random rationals against the exact numeric run at that point, which is itself
checked against an enumeration of every random choice (tests/brute.py); plus the command-line cases of the
symbolic runs (products with the parameter in one part, tiny bounds, unwritable plots)."""

from __future__ import annotations

import json
import math
import os
import random
from fractions import Fraction as F

import pytest
from brute import distribution, flip

from wmcdp import (IntVector, Parameter, Program, Bits, discrete, ite, synthesize_accuracy, synthesize_approximate,
                   synthesize_privacy)
from wmcdp import flip as dsl_flip
from wmcdp.base.envelope import piece_at
from wmcdp.base.roots import between, compare
from wmcdp.cli import main

# -- references by enumeration --------------------------------------------------------------------------------


def brute_ratio(fn, inputs, neighbours) -> F | float:
    """max P(y|x) / P(y|x') over neighbours and outputs (0/0 skipped, p/0 infinite), exactly."""
    dists = {x: distribution(fn, x) for x in inputs}
    best: F | float = F(0)
    for x in inputs:
        for xp in neighbours(x):
            for y in set(dists[x]) | set(dists[xp]):
                a, b = dists[x].get(y, F(0)), dists[xp].get(y, F(0))
                if a == 0 and b == 0:
                    continue
                best = max(best, math.inf if b == 0 else a / b)
    return best


def brute_delta(fn, inputs, neighbours, r: F) -> F:
    dists = {x: distribution(fn, x) for x in inputs}
    return max(
        sum((max(F(0), dists[x].get(y, F(0)) - r * dists[xp].get(y, F(0))) for y in set(dists[x]) | set(dists[xp])),
            F(0))
        for x in inputs
        for xp in neighbours(x)
    )


def brute_accuracy(fn, inputs, target, alpha) -> F:
    return min(sum((p for y, p in distribution(fn, x).items() if abs(y - target(x)) <= alpha), F(0)) for x in inputs)


def witness_ratio(w, fn) -> F | float:
    """``P(y|x) / P(y|x')`` of a witness triple by enumeration; the triple must be a real one (not 0/0)."""
    assert w.x_prime in hamming(w.x)
    a, b = distribution(fn, w.x).get(w.y, F(0)), distribution(fn, w.x_prime).get(w.y, F(0))
    assert (a, b) != (0, 0), w
    return math.inf if b == 0 else a / b


BITS2 = [(a, b) for a in (0, 1) for b in (0, 1)]


def hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(len(x))]


# -- random small programs with one parameter ------------------------------------------------------------------

#: weights of t, each in [0, 1] on [0, 1]; several reach 0 or 1 at an end
WEIGHTS = [
    lambda t: t,
    lambda t: 1 - t,
    lambda t: t * t,
    lambda t: t / 2,
    lambda t: 1 - t * t,
    lambda t: 2 * t * (1 - t),
    lambda t: (1 + t) / 3,
    lambda t: F(1, 3) + 0 * t,
]


def _component(kind, i, u, v, t, coin, pick, cond, x):
    """One output entry of a random program: ``coin`` is flip, ``pick`` discrete and ``cond(c, a, b)`` chooses
    the thunk ``a`` or ``b`` (ite in the DSL, a Python branch in the reference)."""
    w, w2 = WEIGHTS[u](t), WEIGHTS[v](t)
    if kind == "xor":
        return x[i] ^ coin(w)
    if kind == "and":
        return x[i] & coin(w)
    if kind == "ite":
        return cond(x[i], lambda: coin(w), lambda: coin(w2))
    return cond(x[i], lambda: pick({0: w / 2, 1: 1 - w, 2: w / 2}), lambda: pick({0: 1 - w2, 1: w2}))


def random_spec(rng: random.Random) -> list[tuple]:
    kinds = ["xor", "and", "ite", "disc"]
    return [(rng.choice(kinds), rng.randrange(2), rng.randrange(len(WEIGHTS)), rng.randrange(len(WEIGHTS)))
            for _ in range(rng.randrange(1, 4))]


def build(spec, t, total=False) -> Program:
    """The program of ``spec`` with ``t`` a Parameter or a number; ``total``: the sum of its entries."""

    def body(x):
        out = [_component(*c, t, dsl_flip, discrete, lambda c, a, b: ite(c, a(), b()), x) for c in spec]
        return sum(out[1:], out[0]) if total else tuple(out)

    return Program("random", Bits(2), body, target=lambda x: x[0] + x[1])


def reference(spec, t, total=False):
    def fn(x, choose):
        out = [_component(*c, t, lambda p: flip(choose, p), choose, lambda c, a, b: a() if c else b(), x)
               for c in spec]
        return sum(out) if total else tuple(out)

    return fn


RANGES = [(F(0), F(1)), (F(0), F(1, 2)), (F(1, 3), F(1))]


def points_of(result, rng: random.Random) -> list[F]:
    """Each piece's ends (when rational), a rational strictly inside, and a random rational of the interval."""
    out = []
    for p in result.pieces:
        out += [e for e in (p.start, p.end) if isinstance(e, F)]
        if compare(p.start, p.end) < 0:
            out.append(between(p.start, p.end))
    lo, hi = result.parameter.lo, result.parameter.hi
    out.append(lo + (hi - lo) * F(rng.randrange(1, 97), 97))
    return sorted(set(out))


@pytest.mark.parametrize("seed", range(int(os.environ.get("SYMBOLIC_ENDS_SEEDS", 24))))
def test_every_piece_is_the_exact_numeric_run_at_its_ends(seed):
    """Privacy (planned and on the whole diagram), δ at e^ε = 5/4 and 1 − β at α = 1 of a random program, at the
    ends and inside every piece, against the exact numeric run at that point; the privacy witness of the piece
    that gives the value is a real triple attaining it. SYMBOLIC_ENDS_SEEDS=300 runs a longer profile."""
    rng = random.Random(seed)
    spec = random_spec(rng)
    lo, hi = RANGES[seed % len(RANGES)]
    t = Parameter("t", lo, hi)

    def privacy_at(s):
        numeric = synthesize_privacy(build(spec, s), exact=True)
        return numeric.ratio, numeric.epsilon

    def delta_at(s):
        return synthesize_approximate(build(spec, s), epsilon="ln:5/4", exact=True).delta

    def accuracy_at(s):
        return synthesize_accuracy(build(spec, s, total=True), alpha=1, exact=True).one_minus_beta

    runs = [
        (synthesize_privacy(build(spec, t)), lambda r, s: (r.ratio_at(s), r.epsilon_at(s)), privacy_at),
        (synthesize_privacy(build(spec, t), "exhaustive"), lambda r, s: (r.ratio_at(s), r.epsilon_at(s)), privacy_at),
        (synthesize_approximate(build(spec, t), epsilon="ln:5/4"), lambda r, s: r.delta_at(s), delta_at),
        (synthesize_accuracy(build(spec, t, total=True), alpha=1), lambda r, s: r.one_minus_beta_at(s), accuracy_at),
    ]
    for k, (result, symbolic, numeric) in enumerate(runs):
        for s in points_of(result, rng):
            assert symbolic(result, s) == numeric(s), (spec, k, s)
            if k < 2:
                assert witness_ratio(piece_at(result.pieces, s).witness, reference(spec, s)) == numeric(s)[0]
    for s in (lo, hi):  # the numeric runs themselves against the enumeration, at the ends
        fn = reference(spec, s)
        assert privacy_at(s)[0] == brute_ratio(fn, BITS2, hamming), (spec, s)
        assert delta_at(s) == brute_delta(fn, BITS2, hamming, F(5, 4)), (spec, s)
        assert accuracy_at(s) == brute_accuracy(reference(spec, s, True), BITS2, lambda x: x[0] + x[1], 1), (spec, s)
