"""CONTRIBUTING.md's recipe "Adding a DSL primitive", followed: its ``binomial(n, p)`` (the code of the recipe,
run as it stands there) in the binomial mechanism ``sum(x) + Binomial(m, p)``, against the definition
``P(k) = C(m, k) p^k (1 - p)^(m - k)`` enumerated by tests/brute.py, in exact Fractions."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import brute
import pytest

from wmcdp import (
    Bits,
    Program,
    WmcdpError,
    exhaustive_inference,
    inference,
    synthesize_approximate,
    synthesize_privacy,
)

RECIPE = (Path(__file__).parent.parent / "CONTRIBUTING.md").read_text()


def _recipe_code() -> str:
    section = RECIPE.split("## Adding a DSL primitive", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


namespace: dict = {}
exec(compile(_recipe_code(), "CONTRIBUTING.md", "exec"), namespace)
binomial = namespace["binomial"]

N = 3  # input bits


def mechanism(m, p) -> Program:
    return Program("binomial_count", Bits(N), lambda x: sum(x) + binomial(m, p))


def reference(m, p):
    """The definition, not the lowering: one choice of k with its binomial probability."""
    p = Fraction(p)
    pmf = {k: math.comb(m, k) * p**k * (1 - p) ** (m - k) for k in range(m + 1)}
    return lambda x, choose: sum(x) + choose(pmf)


INPUTS = [tuple((code >> (N - 1 - i)) & 1 for i in range(N)) for code in range(2**N)]


def neighbours(x):
    return [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(N)]


@pytest.mark.parametrize("m, p", [(0, "1/3"), (1, "1/3"), (4, "1/3"), (3, 0), (3, 1), (5, "2/7")])
def test_the_distribution_is_the_definition(m, p):
    p = Fraction(p)
    outputs = list(range(N + m + 1))
    table = inference(mechanism(m, p), exhaustive_inference(Bits(N), outputs))
    for x in INPUTS:
        expected = brute.distribution(reference(m, p), x)
        got = {y: table.probability(x, y) for y in outputs}
        assert {y: q for y, q in got.items() if q} == {y: q for y, q in expected.items() if q}
        assert all(isinstance(q, (Fraction, int)) for q in got.values())


def test_pure_epsilon_is_infinite_with_its_witness():
    """The binomial mechanism shifts its support with the count: pure ε is ∞, at an output x' never gives."""
    r = synthesize_privacy(mechanism(4, Fraction(1, 2)))
    assert r.ratio == brute.tight_ratio(reference(4, Fraction(1, 2)), INPUTS, neighbours) == math.inf
    x, x_prime, y = r.witness.x, r.witness.x_prime, r.witness.y
    assert x_prime in neighbours(x)
    assert brute.distribution(reference(4, Fraction(1, 2)), x).get(y, 0) > 0
    assert brute.distribution(reference(4, Fraction(1, 2)), x_prime).get(y, 0) == 0


@pytest.mark.parametrize("m, p", [(4, "1/2"), (6, "1/3")])
def test_delta_and_epsilon_are_the_definitions(m, p):
    p = Fraction(p)
    dists = {x: brute.distribution(reference(m, p), x) for x in INPUTS}
    delta, _ = brute.max_over_pairs(dists, neighbours, lambda a, b: brute.hockey(a, b, 2))
    assert synthesize_approximate(mechanism(m, p), epsilon="ln:2").delta == delta  # exact: e^ε = 2
    target = Fraction(1, 10)
    ratio, _ = brute.max_over_pairs(dists, neighbours, lambda a, b: brute.ratio_for_delta(a, b, target))
    assert synthesize_approximate(mechanism(m, p), delta=target).ratio == ratio


def test_a_float_probability_is_its_binary64_value():
    dists = {x: brute.distribution(reference(4, Fraction(0.3)), x) for x in INPUTS}
    delta, _ = brute.max_over_pairs(dists, neighbours, lambda a, b: brute.hockey(a, b, 2))
    got = synthesize_approximate(mechanism(4, 0.3), epsilon="ln:2").delta
    assert isinstance(got, float) and got == pytest.approx(float(delta), rel=1e-12)


@pytest.mark.parametrize(
    "m, p, message",
    [(-1, "1/2", "binomial n must be at least 0"), (2.5, "1/2", "binomial n must be a whole number"),
     (3, "3/2", "binomial p must be in \\[0, 1\\]")],
)
def test_refused_arguments_are_user_errors(m, p, message):
    with pytest.raises(WmcdpError, match=message):
        synthesize_privacy(mechanism(m, p))
