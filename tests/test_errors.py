"""Bad input: one clear WmcdpError (a ValueError) naming the problem, never a wrong bound."""

import math

import pytest

from wmcdp.programs import randomized_response, rr_counting
from wmcdp import (Bits, CoverageError, IntVector, Program, WmcdpError, discrete, flip, inference,
                   synthesize_accuracy, synthesize_privacy, uniform)
from wmcdp.lang.relations import NEIGHBOURS
from wmcdp.lang.sets import exhaustive_privacy


def _run(body, domain=Bits(1)):
    return inference(Program("p", domain, body), [((0,) * domain.n, 0)])


@pytest.mark.parametrize("p, message", [(1.5, r"flip probability must be in \[0, 1\], got 1.5"),
                                        (-0.1, r"must be in \[0, 1\]"),
                                        (math.nan, "flip probability is NaN"),
                                        ("abc", "flip probability must be a number, got 'abc'"),
                                        (True, "must be a number")])
def test_flip_rejects_bad_probabilities(p, message):
    with pytest.raises(WmcdpError, match=message):
        _run(lambda x: flip(p))


def test_discrete_weights_must_sum_to_one():
    with pytest.raises(WmcdpError, match="sum to 9/10, not 1"):
        _run(lambda x: discrete(["1/2", "2/5"]))
    with pytest.raises(WmcdpError, match="sum to 0.9"):
        _run(lambda x: discrete([0.5, 0.4]))
    with pytest.raises(WmcdpError, match="at least one"):
        _run(lambda x: discrete([]))


def test_empty_or_reversed_ranges():
    with pytest.raises(WmcdpError, match=r"uniform\(3, 1\) is an empty range"):
        _run(lambda x: uniform(3, 1))
    with pytest.raises(WmcdpError, match="input range 2..1 is empty"):
        IntVector(2, 2, 1)


def test_program_parameters_are_validated():
    with pytest.raises(WmcdpError, match=r"lam must be in \[0, 1\], got 2"):
        randomized_response(3, 2)
    with pytest.raises(WmcdpError, match="n must be at least 1"):
        rr_counting(0, 0.2)
    with pytest.raises(WmcdpError, match="n must be a whole number"):
        rr_counting(2.5, 0.2)


def test_privacy_set_not_covered_names_the_pair():
    C = [((0, 0), (1, 0), (0, 0))]
    I = [((0, 0), (0, 0))]
    with pytest.raises(CoverageError, match=r"missing the pair \(x=10, y=00\)"):
        synthesize_privacy(randomized_response(2, 0.2), C, I)


def test_accuracy_set_not_covered_names_the_pair():
    with pytest.raises(CoverageError, match=r"missing the pair \(x=00, y=1\)"):
        synthesize_accuracy(rr_counting(2, 0.2), [(0, 0)], sum, 1, [((0, 0), 0)])


def test_input_outside_the_domain():
    with pytest.raises(WmcdpError, match=r"input \(0, 2\) is outside the domain \{0,1\}\^2"):
        inference(randomized_response(2, 0.2), [((0, 2), (0, 0))])


def test_non_symbolic_return_value():
    with pytest.raises(WmcdpError, match="returned NoneType None, not a symbolic value"):
        _run(lambda x: None)


def test_symbolic_values_have_no_truth_value():
    with pytest.raises(WmcdpError, match=r"program p failed at .*test_errors.py:\d+: TypeError: .*use ite"):
        _run(lambda x: 1 if x[0] else 0)


def test_exact_needs_rational_parameters():
    with pytest.raises(WmcdpError, match="exact arithmetic needs rational parameters"):
        synthesize_privacy(randomized_response(2, 0.2), exact=True)


def test_unknown_neighbour_relation_and_backend():
    with pytest.raises(WmcdpError, match="unknown neighbour relation 'adjacent'"):
        synthesize_privacy(randomized_response(2, 0.2), neighbours="adjacent")
    with pytest.raises(WmcdpError, match="unknown backend 'zdd'"):
        synthesize_privacy(randomized_response(2, 0.2), backend="zdd")


def test_accuracy_parameters():
    with pytest.raises(WmcdpError, match="alpha must be a finite number >= 0"):
        synthesize_accuracy(rr_counting(2, 0.2), alpha=-1)
    with pytest.raises(WmcdpError, match="accuracy needs a numeric output"):
        synthesize_accuracy(randomized_response(2, 0.2), alpha=1, V=sum)
    with pytest.raises(WmcdpError, match="declares no target"):
        synthesize_accuracy(Program("p", Bits(1), lambda x: x[0] + flip(0.5)), alpha=1)


def test_exhaustive_sets_refuse_huge_spaces():
    with pytest.raises(WmcdpError, match="use symmetry sets"):
        synthesize_privacy(randomized_response(20, 0.2), "exhaustive")


@pytest.mark.parametrize("relation, domain, x, expected", [
    ("hamming", IntVector(2, 0, 2), (0, 1), {(1, 1), (2, 1), (0, 0), (0, 2)}),
    ("one-entry", IntVector(2, 0, 2), (0, 1), {(1, 1), (0, 0), (0, 2)}),
    ("all-entries", IntVector(2, 0, 2), (0, 1), {(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)}),
])
def test_neighbour_relations(relation, domain, x, expected):
    assert set(NEIGHBOURS[relation](domain, x)) == expected
    C = exhaustive_privacy(domain, [0], relation)
    assert all(xp != xx for xx, xp, _ in C.blocks)
