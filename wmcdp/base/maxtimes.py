"""Max-times algebra over nonnegative ratios, and the eventual periodicity of a matrix's powers.

The semiring is ``([0, inf], max, *)``: a sum is a maximum and a product a product, so the largest product of
ratios along a path of ``j`` steps through a weighted graph is ``(P ⊗ M^j ⊗ S)``. Vectors and matrices are
sparse (an absent entry is 0, no path), their entries exact (Fractions or ints, ``math.inf`` for an infinite
ratio).

*The cyclicity theorem* (Cohen, Dubois, Quadrat, Viot 1983; Baccelli, Cohen, Olsder, Quadrat, *Synchronization
and Linearity*, 1992, Thm. 3.109): the powers of an irreducible max-times matrix are eventually periodic,
``M^(k + c) = λ^c ⊗ M^k`` for ``k >= T`` (``λ`` the largest cycle mean, ``c`` the cyclicity). A *period* of a
sequence of vectors here is the finite fact checked by :func:`find_period`: ``v_(T + c) = q ⊗ v_T`` exactly,
entry by entry, for the forward vectors ``v_j = P ⊗ M^j`` (or the backward ``u_j = M^j ⊗ S``). By linearity
it holds for every later ``j`` (``v_(j + 1 + c) = v_(j + c) ⊗ M = q ⊗ v_(j + 1)``), so

    P ⊗ M^j ⊗ S = q^((j - T) // c) * (P ⊗ M^(T + (j - T) % c) ⊗ S)    for every j >= T,

which is the closed form (:meth:`Period.value`). A reducible matrix whose parts grow at different rates may
have no period in either direction; :func:`find_period` then returns None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from .limits import check

#: an entry: an exact positive ratio or ``math.inf``
Ratio = Fraction | int | float
#: a sparse vector (index -> ratio; absent: 0)
Vector = Mapping[int, Ratio]
#: a sparse matrix (row -> column -> ratio; absent: 0)
Matrix = Mapping[int, Mapping[int, Ratio]]


def matrix_of(rows: tuple[tuple[tuple[int, Ratio], ...], ...]) -> dict[int, dict[int, Ratio]]:
    """The sparse matrix whose row ``i`` is ``rows[i]``, a tuple of ``(column, ratio)``."""
    return {i: dict(row) for i, row in enumerate(rows)}


def times(a: Ratio, b: Ratio) -> Ratio:
    """``a * b`` with ``inf`` absorbing (both positive)."""
    return math.inf if math.inf in (a, b) else a * b


def row_times(v: Vector, m: Matrix) -> dict[int, Ratio]:
    """The row vector ``v ⊗ M``: ``out[j] = max_i v[i] * M[i][j]``."""
    out: dict[int, Ratio] = {}
    for i, vi in v.items():
        for j, w in m.get(i, {}).items():
            check("max-times product")
            x = times(vi, w)
            if x > out.get(j, 0):
                out[j] = x
    return out


def times_column(m: Matrix, s: Vector) -> dict[int, Ratio]:
    """The column vector ``M ⊗ s``: ``out[i] = max_j M[i][j] * s[j]``."""
    out: dict[int, Ratio] = {}
    for i, row in m.items():
        for j, w in row.items():
            if j in s:
                x = times(w, s[j])
                if x > out.get(i, 0):
                    out[i] = x
    return out


def dot(v: Vector, s: Vector) -> Ratio:
    """``v ⊗ s = max_i v[i] * s[i]`` (0 when they share no index)."""
    return max((times(x, s[i]) for i, x in v.items() if i in s), default=0)


def scaled(v: Vector, q: Ratio) -> dict[int, Ratio]:
    """``q ⊗ v`` (``q`` finite and positive)."""
    return {i: times(x, q) for i, x in v.items()}


def factor(later: Vector, earlier: Vector) -> Ratio | None:
    """The ``q`` with ``later = q ⊗ earlier`` exactly, entry by entry, or None: both must have the same support,
    their infinite entries in the same places, and every finite entry in the same proportion (1 when every entry
    is infinite)."""
    if later.keys() != earlier.keys():
        return None
    finite = [(later[i], earlier[i]) for i in earlier if earlier[i] != math.inf]
    if any((later[i] == math.inf) != (earlier[i] == math.inf) for i in earlier):
        return None
    if not finite:
        return 1
    q = Fraction(finite[0][0]) / Fraction(finite[0][1])
    return q if all(Fraction(a) == q * Fraction(b) for a, b in finite) else None


@dataclass(frozen=True)
class Period:
    """``v_(T + c) = q ⊗ v_T`` of a sequence of vectors ``v_j`` (the module docstring): the ``transient`` ``T``,
    the ``period`` ``c``, the ``factor`` ``q``, and the readouts ``base[r] = v_(T + r) ⊗ S`` for ``0 <= r < c``."""

    transient: int
    period: int
    factor: Ratio
    base: tuple[Ratio, ...]

    def value(self, j: int) -> Ratio:
        """The readout at step ``j >= T``: ``q^((j - T) // c) * base[(j - T) % c]`` (the closed form)."""
        if j < self.transient:
            raise ValueError(f"the closed form holds from step {self.transient} on, not at {j}")
        k, r = divmod(j - self.transient, self.period)
        b = self.base[r]
        return b if k == 0 or b in (0, math.inf) else b * Fraction(self.factor) ** k


def sequence(start: Vector, step: Matrix, steps: int, forward: bool) -> list[dict[int, Ratio]]:
    """``[v_0, ..., v_steps]``: ``v_0 = start`` and ``v_(j + 1) = v_j ⊗ M`` (``forward``) or ``M ⊗ v_j``."""
    out = [dict(start)]
    for _ in range(steps):
        out.append(row_times(out[-1], step) if forward else times_column(step, out[-1]))
    return out


def find_period(
    start: Vector, step: Matrix, readout: Vector, forward: bool, longest: int, widest: int
) -> Period | None:
    """The first ``(T, c)`` (smallest ``T + c``, then smallest ``c``) with ``v_(T + c) = q ⊗ v_T``, ``T + c <=
    longest`` and ``c <= widest``, for ``v_j = start ⊗ M^j`` (``forward``, read out by ``⊗ readout``) or
    ``M^j ⊗ start`` (read out by ``readout ⊗``); None when none is found that soon."""
    seen = [dict(start)]
    for k in range(1, longest + 1):
        seen.append(row_times(seen[-1], step) if forward else times_column(step, seen[-1]))
        for c in range(1, min(k, widest) + 1):
            q = factor(seen[k], seen[k - c])
            if q is not None:
                t = k - c
                return Period(t, c, q, tuple(dot(seen[t + r], readout) for r in range(c)))
    return None


__all__ = [
    "Matrix",
    "Period",
    "Ratio",
    "Vector",
    "dot",
    "factor",
    "find_period",
    "matrix_of",
    "row_times",
    "scaled",
    "sequence",
    "times",
    "times_column",
]
