"""Certified lower bounds of ``min over valid inputs x of P(y | x)`` for some outputs, in one pass over the diagram.

The count of paper eq. 4 with each input bit *minimised* instead of fixed: over ``phi' = phi OR NOT valid(x)``
(an input code outside the domain counts 1, so it never attains the minimum), a node on an input bit takes the
smaller of its children's values, a node on a random bit ``w(v) WMC(hi) + w(not v) WMC(lo)``, and a node on an
output bit the child that each output's bit selects (one column per output). For every valid ``x`` the count of
``phi' | x, y`` takes one child at each input node, so by induction from the terminals every node's value is at
most that count: the root's value is at most ``min_x P(y | x)``. It is that minimum when the input bits lie above
every random bit they meet (the input chosen before the noise); an input bit below a random bit is chosen knowing
it, which can only lower the value. Skipped variables contribute a factor 1 (two weights summing to one, or both
children of an input or output bit alike).

The values are floats rounded down: every weight and every product and sum moves one float towards 0 after its
round-to-nearest result (:func:`numpy.nextafter`), so every value is at most the exact one, whatever the rounding
did (underflow included: a result that rounds to 0 stays 0). Terms are never subtracted, so the bound loses a few
units in the last place per level, not digits.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.limits import check
from ..compile.support import valid_inputs
from ..lang.program import Value


def _down(x: np.ndarray) -> np.ndarray:
    """``x`` one float towards 0 (0 stays 0): below the exact value of the operation that rounded to ``x``."""
    out: np.ndarray = np.nextafter(x, 0.0)
    return out


def smallest_probabilities(compiled: Any, outputs: Sequence[Value]) -> list[Fraction]:
    """For each of ``outputs``, a lower bound of ``min over valid inputs x of P(y | x)`` (module docstring), exact
    when every input bit is above the random bits it meets. BDD backend only."""
    if compiled.backend.name != "bdd":
        raise ValueError("smallest_probabilities needs a BDD")
    be = compiled.backend
    flat = be.flatten(be.disj(compiled.phi, be.negate(valid_inputs(compiled))))
    columns = len(outputs)
    selects = _output_bits(compiled, outputs)
    inputs = {v for bits in compiled.trace.input_bits.values() for v in bits}
    values = np.zeros((len(flat), columns))
    values[flat.var == -1] = 1.0
    weights = compiled.weights
    for layer in flat.layers:
        check("smallest probabilities")
        v = int(flat.var[layer[0]])
        hi, lo = values[flat.hi[layer]], values[flat.lo[layer]]
        if v in selects:
            values[layer] = np.where(selects[v], hi, lo)
        elif v in inputs:
            values[layer] = np.minimum(hi, lo)
        else:
            one, zero = (_down(np.float64(float(p))) for p in (weights[v].one, weights[v].zero))
            values[layer] = _down(_down(one * hi) + _down(zero * lo))
    return [Fraction(float(p)) for p in values[-1]]


def _output_bits(compiled: Any, outputs: Sequence[Value]) -> dict[int, np.ndarray]:
    """Per output bit, its value in each of ``outputs`` (an output outside the shape is an error)."""
    rows = []
    for y in outputs:
        bits = compiled.shape.encode(y)
        if bits is None:
            raise ValueError(f"the output {y!r} is outside the program's output shape")
        rows.append(bits)
    table = np.array(rows, dtype=bool).reshape(len(outputs), len(compiled.output_vars))
    return {v: table[:, j] for j, v in enumerate(compiled.output_vars)}


__all__ = ["smallest_probabilities"]
