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
