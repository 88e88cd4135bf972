"""``flip`` of a plain number keeps its weights for the next flip of it: the kept weights must be those a fresh
flip would get, in float and exact-float mode alike, and a refused probability is refused every time."""

from __future__ import annotations

from fractions import Fraction

import pytest

from wmcdp import WmcdpError, flip
from wmcdp.lang.circuit import Circuit
from wmcdp.lang.values import tracing
from wmcdp.lang.weights import flip_weight


def _weight(p, exact_floats):
    circuit = Circuit(exact_floats=exact_floats)
    with tracing(circuit):
        node = flip(p).node
    return circuit.weights[circuit.gates[node][1]]


@pytest.mark.parametrize("p", [0.5, Fraction(1, 2), 1e-300, 1 - 1e-16, Fraction(1, 3), 0.2])
def test_kept_weights_are_a_fresh_flips(p):
    for exact_floats in (False, True, False):  # each mode after the other has kept its weights
        w = _weight(p, exact_floats)
        expected = flip_weight(Fraction(p) if exact_floats and isinstance(p, float) else p)
        assert w == expected and type(w.one) is type(expected.one)
    assert _weight(0.5, False).one.__class__ is float and _weight(Fraction(1, 2), False).one == Fraction(1, 2)


def test_a_refused_probability_is_refused_each_time():
    for _ in range(2):
        with pytest.raises(WmcdpError, match="subnormal"):
            _weight(5e-324, False)
        with pytest.raises(WmcdpError, match=r"in \[0, 1\]"):
            _weight(1.5, True)
    assert _weight(5e-324, True).one == Fraction(5e-324)  # exact floats take it
