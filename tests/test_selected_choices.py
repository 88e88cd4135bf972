"""Random choices whose weights depend on symbolic input values (``flip(fn, x)``, ``discrete(fn, x, y)``):
the exponential mechanism and input-dependent coins against an independent enumeration of the same
mechanism, in exact and float mode, and the errors."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from brute import distribution, flip as brute_flip, tight_epsilon

from wmcdp import Bits, IntVector, Program, WmcdpError, discrete, flip, synthesize_privacy
from wmcdp.lang.values import MAX_SELECTIONS


def exponential_weights(base, outputs, score):
    """P(r) proportional to base^(-score(r)): the exponential mechanism with e^(-eps/2) = base."""
    raw = {r: base ** score(r) for r in outputs}
    total = sum(raw.values())
    return {r: w / total for r, w in raw.items()}


def em_weights(base):
    return lambda a, b: exponential_weights(base, range(4), lambda r: abs(r - a) + abs(r - b))


def em_program(base):
    return Program("em", IntVector(2, 0, 2), lambda x: discrete(em_weights(base), x[0], x[1]), neighbours="one-entry")


def em_ref(base):
    return lambda x, choose: choose(em_weights(base)(*x))


def one_entry(x, k=2):
    return [x[:i] + (x[i] + d,) + x[i + 1 :] for i in range(len(x)) for d in (-1, 1) if 0 <= x[i] + d <= k]


def inputs(n, k):
    out = [()]
    for _ in range(n):
        out = [x + (v,) for x in out for v in range(k + 1)]
    return out


@pytest.mark.parametrize("base", [F(1, 2), F(9, 10), F(1, 1000)])
def test_exponential_mechanism_equals_enumeration(base):
    r = synthesize_privacy(em_program(base), "exhaustive")
    dists = {x: distribution(em_ref(base), x) for x in inputs(2, 2)}
    eps, _ = tight_epsilon(dists, one_entry)
    assert math.isclose(r.epsilon, eps, rel_tol=1e-12)
    best = max(F(dists[x][y]) / F(dists[xp][y]) for x in dists for xp in one_entry(x) for y in dists[x])
    assert r.ratio == best


def test_exponential_mechanism_in_float_mode():
    base = math.exp(-0.5)
    r = synthesize_privacy(em_program(base), "exhaustive")
    exact = synthesize_privacy(em_program(F(base)), "exhaustive")
    assert not r.exact and math.isclose(r.epsilon, exact.epsilon, rel_tol=1e-12)


def test_input_dependent_coins():
    """flip(fn, x0, x1): P(true) = 1/4 + (x0 + x1)/4; its tight epsilon is ln 2, by enumeration too."""
    prog = Program("coins", Bits(2), lambda x: flip(lambda a, b: F(1, 4) + F(a + b, 4), x[0], x[1]))

    def ref(x, choose):
        return brute_flip(choose, F(1, 4) + F(x[0] + x[1], 4))

    dists = {x: distribution(ref, x) for x in inputs(2, 1)}
    hamming = lambda x: [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(2)]  # noqa: E731
    assert synthesize_privacy(prog, "exhaustive").ratio == 2
    assert math.isclose(tight_epsilon(dists, hamming)[0], math.log(2))


def test_errors_name_the_choice():
    cases = [
        (lambda x: discrete({0: F(1, 2), 1: F(1, 2)}, x[0]), "discrete() takes values after its probabilities only"),
        (lambda x: flip(F(1, 2), x[0]), "flip() takes values after its probability only"),
        (lambda x: discrete(lambda v: {0: 1}, "x"), "discrete() takes symbolic Ints, Bools or whole numbers"),
        (lambda x: discrete(lambda v: {0: F(1, 2)}, x[0]), "discrete() probabilities sum to 1/2, not 1"),
    ]
    for body, message in cases:
        with pytest.raises(WmcdpError) as info:
            synthesize_privacy(Program("bad", Bits(1), body), "exhaustive")
        assert message in str(info.value)
    wide = Program("wide", IntVector(3, 0, 40), lambda x: discrete(lambda a, b, c: {0: 1}, x[0], x[1], x[2]))
    with pytest.raises(WmcdpError, match=f"68921 combinations \\(limit {MAX_SELECTIONS}\\)"):
        synthesize_privacy(wide, "exhaustive")
