"""Parametric weighted model counting: every ``P(y | x)`` as a rational function of the parameter.

Write a random bit's weights as ``a_v(t)/d_v(t)`` and ``b_v(t)/d_v(t)`` with polynomials ``a_v + b_v = d_v``
(the exact scheme of :class:`wmcdp.count.exact.Scaled`, over polynomials). A pass over the diagram finds one
polynomial ``M`` and a degree ``K`` such that ``Q(t) = P(y | x)(t) * M(t)`` is a polynomial of degree at most
``K`` for every cell (:func:`_common_denominator`; ``M`` divides ``D = prod_v d_v``, and ``M = D`` with
``K = sum_v max(deg a_v, deg b_v, deg d_v)`` always holds: every path multiplies one of ``a_v``, ``b_v`` or,
a skipped bit, ``d_v`` per random bit). So ``Q`` is fixed by its
values at ``K + 1`` points, and those are exact counts: :class:`Parametric` counts the compiled diagram once
per point ``t_0 < ... < t_K`` of the interval (each an exact :class:`~wmcdp.count.exact.Scaled` count with the
weights at ``t_i``), stacks the counts, and gives every cell the *id* of its vector of values; equal vectors
are equal functions. The notions scan the id tables with the machinery of the numeric runs
(:class:`EnvelopeScan` in place of the running maximum collects the distinct ratio pairs), and only the
distinct functions are interpolated into polynomials (:meth:`Parametric.function`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..base.numbers import log_fraction
from ..base.polys import Poly, fmpq, fraction, poly_at
from ..lang.parameter import Function, Parameter
from ..lang.weights import BitWeight
from . import wmc
from .exact import Scaled
from .sdd import count_sdd


def _parts(w: Any) -> tuple[Poly, Poly]:
    """Numerator and denominator polynomials of a weight (a Function or a rational number)."""
    if isinstance(w, Function):
        return w.num, w.den
    q = Fraction(w)
    return Poly([fmpq(q.numerator)]), Poly([fmpq(q.denominator)])


def scaled_weight(w: BitWeight) -> tuple[Poly, Poly, Poly]:
    """``(a, b, d)``: polynomials with ``w(v) = a/d``, ``w(not v) = b/d`` and ``a + b = d``."""
    (n1, d1), (n0, d0) = _parts(w.one), _parts(w.zero)
    d = d1 * d0 // d1.gcd(d0)
    return n1 * (d // d1), n0 * (d // d0), d


@dataclass
class Point:
    """The weights of every random bit at one value ``t`` of the parameter, and the exact count's scales."""

    t: Fraction
    weights: dict[int, BitWeight]
    arith: Scaled
    prefix: list[int]  # products of the bits' denominators above each level (skipped bits)
    scale: Fraction  # M(t) / arith.denominator: turns a count's numerator into Q(t)

    def skip(self, a: int, b: int) -> int:
        """The factor of the random bits skipped from level ``a`` down to level ``b``."""
        return self.prefix[b] // self.prefix[a]


def _at(w: BitWeight, t: Fraction) -> BitWeight:
    if not isinstance(w.one, Function) and not isinstance(w.zero, Function):
        return w
    one, zero = (f(t) if isinstance(f, Function) else Fraction(f) for f in (w.one, w.zero))
    return BitWeight(one, zero, log_fraction(one) if one else -math.inf, log_fraction(zero) if zero else -math.inf)


class Parametric:
    """The number system of a parametric run: cells hold ids of functions (see the module docstring)."""

    name = "symbolic"
    exact = True
    interned = True
    dtype = np.int64
    zero = 0  # the id of the zero function

    def __init__(self, compiled: Any, parameter: Parameter) -> None:
        self.compiled = compiled
        self.parameter = parameter
        support = compiled.random_support
        triples = [scaled_weight(compiled.weights[v]) for v in support]
        self.denominator, self.degree = _common_denominator(compiled, dict(zip(support, triples)))  # M(t), K
        denominator = self.denominator
        lo, hi, k = parameter.lo, parameter.hi, self.degree
        ts = [lo + (hi - lo) * Fraction(i, max(k, 1)) for i in range(k + 1)]
        bdd = compiled.backend.name == "bdd"  # an SDD count takes the denominator and skips bits itself
        self.points = []
        for t in ts:
            weights = {v: _at(w, t) for v, w in compiled.weights.items()}
            ds = [Scaled.coefficients(weights[v])[2] for v in support]
            prefix: list[int] = []
            if bdd:
                level_d = {compiled.backend.level_of(v): d for v, d in zip(support, ds)}
                acc = 1
                for level in range(compiled.backend.levels + 1):
                    prefix.append(acc)
                    acc *= level_d.get(level, 1)
            arith = Scaled(math.prod(ds))
            self.points.append(Point(t, weights, arith, prefix, poly_at(denominator, t) / arith.denominator))
        self._basis = _lagrange_basis([p.t for p in self.points])
        self._ids: dict[tuple[int, ...], int] = {}
        self._vectors: list[tuple[int, ...]] = []
        self._functions: dict[int, Poly] = {}
        self._id((0,) * len(self.points))  # id 0: the zero function

    # -- counting ----------------------------------------------------------------------------
    def count(self, u: Any, plan: wmc.Plan) -> np.ndarray:
        """The ids of ``WMC(u)`` at every point, in the shape of one numeric count."""
        c = self.compiled
        flat = None if c.backend.name == "sdd" else (c.flat if u is c.phi else c.backend.flatten(u))
        counts = []
        for p in self.points:
            at = wmc.Plan(p.weights, plan.groups, plan.batch, plan.batch_size)
            if flat is None:
                counts.append(np.asarray(count_sdd(u, at, p.arith, p.arith.denominator)))
            else:
                counts.append(np.asarray(wmc.evaluate(flat, at, p.arith, c.backend.level_of, skip=p.skip)))
        shape = counts[0].shape
        return self._intern([np.asarray(x).reshape(-1) for x in counts]).reshape(shape)

    def _intern(self, columns: list[np.ndarray]) -> np.ndarray:
        """Ids of the cells, given one column of exact integers per point: equal rows, equal ids."""
        if all(c.dtype != object for c in columns):  # float64 numerators are exact integers below 2^53
            columns = [c.astype(np.int64) for c in columns]
            first, inverse = _groups(columns)
            ids = np.array([self._id(tuple(int(c[k]) for c in columns)) for k in first], dtype=np.int64)
            cell_ids: np.ndarray = ids[inverse]
            return cell_ids
        return np.array([self._id(tuple(int(v) for v in row)) for row in zip(*columns)], dtype=np.int64)

    def _id(self, vector: tuple[int, ...]) -> int:
        found = self._ids.get(vector)
        if found is None:
            found = self._ids[vector] = len(self._vectors)
            self._vectors.append(vector)
        return found

    # -- functions ---------------------------------------------------------------------------
    def function(self, i: int) -> Poly:
        """``Q`` of the id ``i``: the polynomial with ``P(y | x)(t) = Q(t) / M(t)``."""
        f = self._functions.get(int(i))
        if f is None:
            values = [fmpq(int(v) * p.scale) for v, p in zip(self._vectors[int(i)], self.points)]
            f = Poly([])
            for y, basis in zip(values, self._basis):
                if y != 0:
                    f += basis * y
            self._functions[int(i)] = f
        return f

    def probability(self, i: int) -> Function:
        return Function(self.function(i), self.denominator, self.parameter)

    def scan(self) -> EnvelopeScan:
        return EnvelopeScan(self)

    def _numeric(self, *args: Any, **kwargs: Any) -> Any:
        """What a run over numbers asks of its arithmetic (sums, logs, floats) has no meaning on ids."""
        raise WmcdpError(
            f"a bound as a function of {self.parameter.name} is computed for pure epsilon, accuracy and delta at "
            "a rational e^epsilon; this run needs a number for the parameter"
        )

    total = add = mul = as_log = as_float = log_ratio = coefficients = log_probability = coefficient = _numeric

    def sum_function(self, ids: np.ndarray) -> Poly:
        """``Q`` of a sum of cells (an accuracy window): the sum of their functions, each distinct id once
        per occurrence."""
        values, counts = np.unique(np.asarray(ids).reshape(-1), return_counts=True)
        out = Poly([])
        for i, k in zip(values, counts):
            if i != self.zero:
                out += self.function(int(i)) * int(k)
        return out


#: odd multipliers of the row hash (fixed: runs are reproducible)
_MIX = np.random.default_rng(20261124).integers(1, 2**63, size=64, dtype=np.int64) | 1


def _groups(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the first row of each group of equal rows, and each row's group, for the rows
    whose entries are the int64 ``columns``. Rows are grouped by a 64-bit hash (one sort of integers, not of
    rows), then every row is compared with its group's first row; a collision, which the comparison would
    show, falls back to sorting the rows themselves."""
    h = np.zeros(len(columns[0]), dtype=np.int64)
    with np.errstate(over="ignore"):
        for j, column in enumerate(columns):
            h += column * _MIX[j % len(_MIX)]
        h ^= (h >> np.int64(29)) * np.int64(0x5851F42D4C957F2D)
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    representative = first[inverse]
    if not all((column == column[representative]).all() for column in columns):
        _, first, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return first, inverse


def _common_denominator(compiled: Any, polys: dict[int, tuple[Poly, Poly, Poly]]) -> tuple[Poly, int]:
    """``(M, K)``: a polynomial ``M`` with ``P(y | x) * M`` a polynomial of degree at most ``K`` for every cell.

    On a BDD, one pass over the diagram, children first, bounds each entry's function of ``t`` (for every
    assignment of the input and output bits) as ``N / M_e`` with ``deg N - deg M_e <= x_e``. A random bit
    with weights ``a/d``, ``b/d`` over children ``(N_h/M_h, N_l/M_l)`` gives
    ``M_e = d * lcm(M_h / gcd(a, M_h), M_l / gcd(b, M_l))`` and ``x_e = max(deg a - deg d + x_h,
    deg b - deg d + x_l)``; an input or output bit gives ``lcm(M_h, M_l)`` and ``max(x_h, x_l)``; a bit a path
    skips weighs ``a/d + b/d = 1``. The gcds cancel what the weights' numerators share with the denominators
    below them: the flips of a ``discrete`` split the mass of a subtree into its two halves, so along a path
    their products telescope to the leaf's probability and the bound keeps only the root's denominator (the
    product ``D`` of every bit's ``d`` would carry each internal node's). ``K = deg M + x`` at the root. On an
    SDD, ``M = D`` and ``K`` is the sum over the bits of their largest degree.
    """
    if compiled.backend.name != "bdd":
        denominator = Poly([1])
        for _, _, d in polys.values():
            denominator *= d
        return denominator, sum(max(a.degree(), b.degree(), d.degree(), 0) for a, b, d in polys.values())
    flat = compiled.flat
    one = Poly([1])
    bounds: list[tuple[Poly, int] | None] = [None] * len(flat.var)  # None: the zero function (FALSE)
    for i in np.flatnonzero(flat.var == -1).tolist():
        bounds[i] = (one, 0)
    for layer in flat.layers:
        for i in layer.tolist():
            v = int(flat.var[i])
            children = (bounds[int(flat.hi[i])], bounds[int(flat.lo[i])])
            if v in polys:
                a, b, d = polys[v]
                terms = []
                for c, child in zip((a, b), children):
                    if child is not None and not c.is_zero():
                        m, x = child
                        terms.append((m // m.gcd(c), c.degree() - d.degree() + x))
                if terms:
                    m = terms[0][0] if len(terms) == 1 else _lcm(terms[0][0], terms[1][0])
                    bounds[i] = (d * m, max(x for _, x in terms))
            else:
                present = [child for child in children if child is not None]
                if present:
                    m = present[0][0] if len(present) == 1 else _lcm(present[0][0], present[1][0])
                    bounds[i] = (m, max(x for _, x in present))
    root = bounds[len(flat.var) - 1]  # children come before parents: the root is the last entry
    if root is None:
        return one, 0  # no path: every count is 0
    m, x = root
    m = m * fmpq(1) / m[m.degree()]  # monic
    return m, max(m.degree() + x, 0)


def _lcm(p: Poly, q: Poly) -> Poly:
    return p * (q // p.gcd(q))


def _lagrange_basis(ts: list[Fraction]) -> list[Poly]:
    """``L_i`` with ``L_i(t_j) = [i == j]``."""
    out = []
    for i, ti in enumerate(ts):
        basis = Poly([1])
        for j, tj in enumerate(ts):
            if j != i:
                basis *= Poly([fmpq(-tj), 1]) * fmpq(1 / (ti - tj))
        out.append(basis)
    return out


class EnvelopeScan:
    """Collects the distinct pairs ``(id of P(y|x), id of P(y|x'))`` of a privacy set with the first key of each
    (the interface of :class:`wmcdp.count.scan.RatioScan`)."""

    def __init__(self, arith: Parametric) -> None:
        self.arith = arith
        self.first: dict[tuple[int, int], tuple[int, int]] = {}

    def offer(self, a: np.ndarray, b: np.ndarray, position: Any, reverse: Any = None, first_keys: Any = None) -> None:
        if a.size == 0:
            return
        self._offer(np.asarray(a), np.asarray(b), position)
        if reverse is not None:
            self._offer(np.asarray(b), np.asarray(a), reverse)

    def _offer(self, a: np.ndarray, b: np.ndarray, position: Any) -> None:
        a, b = a.reshape(-1).astype(np.int64), b.reshape(-1).astype(np.int64)
        n = len(self.arith._vectors)  # ids so far: a pair of ids is one code below n^2
        codes = a * n + b
        present = np.flatnonzero(np.bincount(codes, minlength=n * n)) if n * n <= 1 << 24 else np.unique(codes)
        if len(present) <= 64:  # few distinct pairs (the usual case): their first places, one pass each
            index = np.array([int(np.argmax(codes == c)) for c in present], dtype=np.int64)
        else:
            present, index = np.unique(codes, return_index=True)
        for code, j in zip(present.tolist(), index.tolist()):
            pair = divmod(int(code), n)
            if pair == (0, 0):
                continue  # 0/0: skipped, as in the numeric runs
            key = position(int(j))
            known = self.first.get(pair)
            if known is None or key < known:
                self.first[pair] = key

    @property
    def found(self) -> bool:
        return bool(self.first)

    def candidates(self) -> list[tuple[Poly, Poly, tuple[int, int]]]:
        """``(Q of P(y|x), Q of P(y|x'), first key)`` of every distinct pair, in key order."""
        out = []
        for (a, b), key in sorted(self.first.items(), key=lambda item: item[1]):
            out.append((self.arith.function(a), self.arith.function(b), key))
        return out


__all__ = ["Parametric", "EnvelopeScan", "scaled_weight", "fraction"]
