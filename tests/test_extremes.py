"""The smallest probability of each output over every valid input (wmcdp.count.extremes), against brute force.

The bound must never exceed the brute-force minimum (it is used as a lower bound in the windowed pure-ε upper
end), on hubbed programs whose domain {0..2} leaves one code of two bits invalid, and with weights so small that
their floats underflow; where the inputs are chosen before the noise they meet (independent parts), it is the
minimum itself."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import brute
import pytest
from test_hub import _program, _recipe, _reference

from wmcdp import Bits, IntVector, Program, flip, truncated_geometric
from wmcdp.compile import compile_program
from wmcdp.count.extremes import smallest_probabilities


def _brute_minimum(reference, inputs, outputs):
    dists = [brute.distribution(reference, x) for x in inputs]
    return [min(d.get(y, Fraction(0)) for d in dists) for y in outputs]


@pytest.mark.parametrize("seed", range(10))
def test_hubbed_programs_never_exceed_the_minimum(seed):
    """Shared-threshold programs (the adversary of the bound sees the threshold): at most the minimum, equal to
    it when every part is monotone in its entry (above or below the threshold)."""
    recipe = _recipe(random.Random(seed), near=seed % 3 == 0)
    compiled = compile_program(_program(recipe, exact=True), "bdd")
    n, kinds = recipe[0], recipe[1]
    inputs = list(itertools.product(range(3), repeat=n))
    outputs = sorted({y for x in inputs for y in brute.distribution(_reference(recipe), x)})
    bound = smallest_probabilities(compiled, outputs)
    exact = _brute_minimum(_reference(recipe), inputs, outputs)
    for b, m in zip(bound, exact):
        assert 0 <= b <= m
        if set(kinds) <= {"above", "below"} and recipe[5] is None:
            assert b >= m * (1 - Fraction(1, 10**12))


def _independent(weights):
    """Per entry, the entry's bit xor a coin of its weight, and a truncated geometric count above 1."""

    def body(x):
        return tuple(
            (x[i] ^ flip(p), truncated_geometric(x[i] + 0, 0, 3, alpha=p) > 1) for i, p in enumerate(weights)
        )

    def reference(x, choose):
        out = []
        for i, p in enumerate(weights):
            coin = brute.flip(choose, p)
            g = choose(_tgeom(x[i], p))
            out.append((x[i] ^ coin, int(g > 1)))
        return tuple(out)

    return Program("independent", Bits(len(weights)), body), reference


def _tgeom(center, a):
    from test_geometric import tgeom_pmf

    return tgeom_pmf(center, 0, 3, a)


@pytest.mark.parametrize(
    "weights",
    [
        (Fraction(1, 3), Fraction(1, 5)),
        (Fraction(1, 2), Fraction(1, 7), Fraction(2, 3)),
        (Fraction(1, 10**300), Fraction(1, 2)),
        (Fraction(1, 2**1100), Fraction(1, 3)),
        (1 - Fraction(1, 10**16), Fraction(1, 4)),
    ],
)
def test_independent_parts_give_the_minimum_and_tiny_weights_stay_below_it(weights):
    prog, reference = _independent(weights)
    compiled = compile_program(prog, "bdd")
    inputs = list(itertools.product((0, 1), repeat=len(weights)))
    outputs = sorted({y for x in inputs for y in brute.distribution(reference, x)})
    bound = smallest_probabilities(compiled, outputs)
    exact = _brute_minimum(reference, inputs, outputs)
    for b, m in zip(bound, exact):
        assert 0 <= b <= m
        if m > Fraction(1, 2**1000):  # far above the floats' range end, the bound loses only rounding
            assert b >= m * (1 - Fraction(1, 10**12))


def test_an_invalid_input_code_never_attains_the_minimum():
    """Domain {0..2}: the code 3 of two bits would give the output probability 0 (the noise is centred there,
    out of range); the bound is the minimum over 0..2."""

    def body(x):
        return truncated_geometric(x[0], 0, 2, alpha=Fraction(1, 2)) == 0

    compiled = compile_program(Program("code", IntVector(1, 0, 2), body), "bdd")
    from test_geometric import tgeom_pmf

    exact = min(tgeom_pmf(x, 0, 2, Fraction(1, 2))[0] for x in range(3))
    (b,) = smallest_probabilities(compiled, [True])
    assert exact * (1 - Fraction(1, 10**12)) <= b <= exact
