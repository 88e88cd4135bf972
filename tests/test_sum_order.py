"""A sum of many terms compiles the same whichever order it is written in (the DSL adds the most recently
traced term first), and counts the same probabilities as brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction

import brute
from wmcdp import Bits, Program, compile_program, flip, inference
from wmcdp.lang.sets import exhaustive_inference

P = Fraction(1, 5)


def forward(n):
    return Program("forward", Bits(n), lambda x: sum(xi ^ flip(P) for xi in x), target=sum)


def backward(n):
    return Program("backward", Bits(n), lambda x: sum(reversed([xi ^ flip(P) for xi in x])), target=sum)


def test_either_order_traces_the_same_circuit_and_diagram():
    a, b = forward(60), backward(60)
    ta, tb = a.trace(), b.trace()
    # both add the last response first: the same gates, so the O(n^2) compilation of the built-in rr_counting
    assert len(ta.circuit.gates) == len(tb.circuit.gates)
    assert compile_program(a).size == compile_program(b).size


def test_sums_count_as_brute_force():
    ref = lambda x, c: sum(xi ^ brute.flip(c, P) for xi in x)  # noqa: E731
    for prog in (forward(4), backward(4)):
        compiled = compile_program(prog)
        table = inference(compiled, exhaustive_inference(prog.inputs, compiled.shape))
        for x in itertools.product((0, 1), repeat=4):
            dist = brute.distribution(ref, x)
            assert all(table.probability(x, y) == dist.get(y, 0) for y in range(5))


def test_a_sum_keeps_its_terms_as_each_part_joined():
    """``+`` is O(1): a sum refers to its parts. A part that was a sum not yet formed when it joined counts as its
    terms (even if its total is formed later); one whose total was formed first counts as one term."""
    from wmcdp.lang.circuit import Circuit
    from wmcdp.lang.values import tracing

    with tracing(Circuit()):
        a, b, c, d = (flip(P).as_int() for _ in range(4))
        s = a + b
        t = s + c  # s not formed yet: t's terms are a, b, c
        assert s.guards  # s formed after it joined t
        assert len(t.terms) == 3 and all(term.guards.keys() == {0, 1} for term in t.terms)
        u = s + d  # s formed before it joined: u's terms are s's total and d
        assert len(u.terms) == 2 and u.terms[0].guards == s.guards and u.terms[0] is not s
        assert t.guards == (a + b + c).guards and s.terms is None
        long = sum(flip(P).as_int() for _ in range(20000))  # linear: a copy per + was quadratic (seconds here)
        assert len(long.terms) == 20001  # the start value 0 is a term
