"""Random programs of the families that break plans, read by wmcdp and by a plain-Python reference.

A program here is a small spec (:class:`Spec`): a domain, a neighbour relation, a per-entry mechanism for each
entry (randomized response, an asymmetric coin, clamped ±1 noise, a noisy threshold), an optional coin shared by
several entries, and either the tuple of the entries' outputs or their sum (with an accuracy target). The same
spec is rendered twice: as a wmcdp DSL body (:func:`program`) and as a plain-Python function whose random
choices :func:`brute.distribution` enumerates with exact Fractions (:func:`reference`). Float weights enter the
reference as ``Fraction(w)``, the exact binary value of the float; a symbolic weight (a function of one
parameter ``t``) is evaluated at a rational point.

Families (:data:`FAMILIES`), the shapes that found plan bugs:

* ``product`` — independent per-entry mechanisms (often the same one: a symmetric program);
* ``near_product`` — a product whose entries (two or more) also share one coin;
* ``reflection`` — a symmetric program (a product or a count) broken on one entry or one value;
* ``count`` — the sum of per-entry mechanisms, with a target ``sum(x)`` broken on one input half the time;
* ``count_large`` — randomized-response counts over 13..17 bits (past the planner's exhaustive checks), a
  target broken on one input, accuracy only; its reference convolves the entries' enumerated distributions;
* ``symbolic`` — one of the above with weights ``t``, ``1 - t``, ``t/2``, ``t*t``, ... over a range whose ends
  are often 0 or 1, compared at points;
* ``extreme`` — one of the above with float weights from 1e-300 to 1 - 1e-16.

:func:`compare` runs every notion of a spec under the default plan and under the exhaustive sets and returns the
differences from the reference as :class:`Difference` records (an empty list: no difference). A draw is any
object with ``integer(lo, hi)`` and ``choice(seq)`` (:class:`RandomDraw` wraps :class:`random.Random`; the
test module wraps Hypothesis).

Tolerances of float runs, from the computation. A float P(y|x) is a sum of products of weights along the
paths of a small diagram (under 30 operations deep here), each weight within one rounding of its exact binary
value (wmcdp never forms ``1 - p`` of a rounded p), so its relative error is at most c·u with c·u ≤ 1e-13
(u = 2^-53, c ≤ 900). Hence, with TOL = 1e-12 (a margin of 10 over that bound):

* ε = ln P(y|x) − ln P(y|x') is within 2·c·u: compared in log space, ``|ε − ε*| ≤ TOL·max(1, |ε*|)``;
* δ(ε) = max Σ_y max(0, P(y|x) − e^ε P(y|x')) is within c·u·S, S = the largest Σ (P(y|x) + e^ε P(y|x')) over
  a pair's outputs with P(y|x) ≥ e^ε P(y|x')(1 − TOL): ``|δ − δ*| ≤ TOL·S`` (plus underflow, 2^-1074 per
  output);
* ε(δ) = ln(A − δ) − ln B on the segment holding the answer (A, B the masses above it) is within
  c·u·((A + δ)/(A − δ) + 1): ``|ε − ε*| ≤ TOL·((A + δ)/(A − δ) + 1 + |ε*|)``;
* a Rényi divergence D_α = ln(Σ p^α q^(1−α))/(α − 1) is within c·u·(2α − 1)/(α − 1) ≤ 4·c·u for α ≥ 3/2:
  ``|D − D*| ≤ TOL·max(1, |D*|)``; exact runs evaluate it at 256 bits: relative 1e-13;
* 1 − β is a sum of probabilities: relative TOL (plus underflow, 2^-1074 per output).

An exact run (Fraction weights, or ``exact="binary"`` on float weights) must equal the reference exactly:
ratios, δ at a rational e^ε, e^ε(δ), 1 − β, and the symbolic pieces at rational points; δ at an irrational
e^ε (ε a decimal) is a float rounded from the exact value (relative 1e-15) and never 0 when δ* > 0.
"""

from __future__ import annotations

import functools
import math
import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import brute
import mpmath

from wmcdp import (
    Bits,
    IntVector,
    Parameter,
    Program,
    discrete,
    flip,
    ite,
    privacy_profile,
    synthesize_accuracy,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
)
from wmcdp.base.errors import WmcdpError
from wmcdp.plan.forced import SERVES

TOL = 1e-12
EXACT_RENYI = 1e-13
IRRATIONAL_DELTA = 1e-15
TINY = 2.0**-1074

PROBS = [
    Fraction(0),
    Fraction(1),
    Fraction(1, 2),
    Fraction(1, 3),
    Fraction(1, 4),
    Fraction(1, 5),
    Fraction(2, 5),
    Fraction(3, 7),
    Fraction(9, 10),
    Fraction(1, 10**200),
]
EXTREME = [1e-300, 1e-200, 2.5e-100, 1e-20, 1e-9, 0.1, 0.3, 0.5, 1 - 1e-9, 1 - 1e-16]
#: symbolic weights: name -> (the function of t as wmcdp reads it, its value at a rational point)
SYMBOLIC: dict[str, Callable[[Any], Any]] = {
    "t": lambda t: t,
    "1-t": lambda t: 1 - t,
    "t/2": lambda t: t / 2,
    "(1-t)/2": lambda t: (1 - t) / 2,
    "t*t": lambda t: t * t,
    "1-t*t": lambda t: 1 - t * t,
}
RANGES = [
    (Fraction(0), Fraction(1)),
    (Fraction(0), Fraction(1, 2)),
    (Fraction(1, 2), Fraction(1)),
    (Fraction(1, 4), Fraction(3, 4)),
    (Fraction(0), Fraction(1, 3)),
    (Fraction(2, 3), Fraction(1)),
]
RELATIONS = ["hamming", "one-entry", "all-entries"]
FAMILIES = ["product", "near_product", "reflection", "count", "count_large", "symbolic", "extreme"]
EPSILONS = [0, "ln:3/2", "ln:2", "ln:5", 0.5, 1]
DELTAS = [Fraction(0), Fraction(1, 100), Fraction(1, 10), Fraction(1, 3), Fraction(1)]
ORDERS = [1.5, 2, 3, math.inf]


# -- specs -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """A random program. ``mechs[i]`` is entry i's mechanism (for an Int entry, "x" means x > lo):
    ``("rr", w)``: x ^ flip(w); ``("coin", w0, w1)``: flip(w1) if x else flip(w0); ``("noise", noise)``:
    (x + noise).clamp(lo, hi) with ``noise`` either ``("discrete", (a, b, c))`` (-1, 0, 1 with weights a, b, c) or
    ``("flips", a, c)`` (-1 with a, else +1 with c, else 0); ``("thresh", c, w)``: (x >= c) ^ flip(w);
    ``("both", w1, w2)``: x & flip(w1) & flip(w2); ``("free", w)``: flip(w), not reading x. ``shared``:
    ``(w, entries)``, one coin flip(w) xor-ed into (Bool) or added to (Int, then clamped) those entries' outputs.
    ``count``: the output is the sum of the entries' outputs, with the target ``sum(x)``, except ``sum(x) + bump``
    at the input ``special``."""

    family: str
    n: int
    lo: int
    hi: int
    relation: str
    mechs: tuple
    shared: tuple | None = None
    count: bool = False
    special: tuple | None = None
    bump: int = 0
    alphas: tuple = (0, 1)
    parameter: tuple | None = None  # (lo, hi) of t for a symbolic spec

    @property
    def bits(self) -> bool:
        return (self.lo, self.hi) == (0, 1)

    def target(self, x: Sequence[int]) -> int:
        return sum(x) + (self.bump if self.special is not None and tuple(x) == self.special else 0)

    def domain(self):
        return Bits(self.n) if self.bits else IntVector(self.n, self.lo, self.hi)

    def weights(self) -> list:
        """Every weight of the spec (floats, Fractions, or names of functions of t)."""
        out: list = []
        for m in self.mechs:
            out += _noise_weights(m[1]) if m[0] == "noise" else [m[2]] if m[0] == "thresh" else list(m[1:])
        return out + ([self.shared[0]] if self.shared is not None else [])

    def floats(self) -> bool:
        return any(isinstance(w, float) for w in self.weights())


def _noise_weights(noise: tuple) -> list:
    return list(noise[1]) if noise[0] == "discrete" else [noise[1], noise[2]]


class RandomDraw:
    """Draws from :class:`random.Random` (the long profile's runner)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence) -> Any:
        return seq[self.rng.randrange(len(seq))]


def _weight(d: Any, kind: str) -> Any:
    """A probability: an exact Fraction, a float from 1e-300 to 1 - 1e-16, or the name of a function of t."""
    if kind == "extreme":
        return d.choice(EXTREME)
    if kind == "symbolic" and d.integer(0, 2):
        return d.choice(sorted(SYMBOLIC))
    return d.choice(PROBS)


def _noise(d: Any, kind: str, symmetric: bool) -> tuple:
    """±1 noise: exact weights as a ``discrete`` (symmetric: a = c), floats as flips, symbolic as ``t/2, 1-t, t/2``
    (or flips of symbolic weights)."""
    if kind == "exact" or (kind == "symbolic" and d.integer(0, 1)):
        if kind == "symbolic":
            return ("discrete", ("t/2", "1-t", "t/2")) if symmetric else ("discrete", ("t/2", "1-t", "t/2", "skew"))
        a, b = d.integer(0, 3), d.integer(0, 3)
        c = a if symmetric else d.integer(0, 3)
        total = a + b + c or 1
        b = b if a + b + c else 1
        return ("discrete", (Fraction(a, total), Fraction(b, total), Fraction(c, total)))
    a = _weight(d, kind)
    if symmetric:
        return ("flips", a, a)  # -1 with a, else +1 with a (then 0): a near-reflection unless a is 0
    return ("flips", a, _weight(d, kind))


def _mechanism(d: Any, kind: str, spec_bits: bool, lo: int, hi: int, symmetric: bool) -> tuple:
    options = ["rr", "coin", "noise", "both", "free"] + ([] if spec_bits else ["thresh"])
    name = d.choice(options)
    if name == "rr":
        return ("rr", _weight(d, kind))
    if name == "coin":
        w0 = _weight(d, kind)
        return ("coin", w0, _complement(w0) if symmetric else _weight(d, kind))
    if name == "noise":
        return ("noise", _noise(d, kind, symmetric))
    if name == "both":
        return ("both", _weight(d, kind), _weight(d, kind))
    if name == "free":
        return ("free", _weight(d, kind))
    return ("thresh", d.integer(lo, hi), _weight(d, kind))


def _complement(w: Any) -> Any:
    """The weight 1 - w (a reflection-symmetric coin), kept in its own kind."""
    if isinstance(w, str):
        return {"t": "1-t", "1-t": "t", "t*t": "1-t*t", "1-t*t": "t*t"}.get(w, "1-t")
    return 1 - w if isinstance(w, Fraction) else w  # a float: 1 - w would be a rounded complement


def _broken(d: Any, kind: str, mech: tuple) -> tuple:
    """``mech`` broken on one value: its reflection symmetry (or its equality with the other entries) undone."""
    if mech[0] == "rr":
        return ("coin", mech[1], _weight(d, kind))
    if mech[0] == "coin":
        return ("coin", mech[1], _weight(d, kind))
    if mech[0] == "noise":
        return ("noise", _noise(d, kind, symmetric=False))
    if mech[0] in ("both", "free"):
        return ("coin", mech[1], _weight(d, kind))
    return ("thresh", mech[1], _weight(d, kind))


def draw_spec(d: Any, family: str) -> Spec:
    """A random spec of ``family`` (``symbolic`` and ``extreme`` dress one of the first four)."""
    if family == "count_large":
        n = d.integer(13, 17)
        special = tuple(d.integer(0, 1) for _ in range(n))
        w = d.choice([Fraction(1, 5), Fraction(1, 4), Fraction(2, 5)])
        return Spec(
            "count_large",
            n,
            0,
            1,
            "hamming",
            (("rr", w),) * n,
            count=True,
            special=special,
            bump=d.choice([1, 2, 22]),
            alphas=(0, 1),
        )
    kind = family if family in ("symbolic", "extreme") else "exact"
    shape = d.choice(["product", "near_product", "reflection", "count"]) if kind != "exact" else family
    n = d.integer(2, 3) if shape in ("near_product", "count") else d.integer(1, 3)
    lo, hi = d.choice([(0, 1), (0, 1), (0, 2), (-1, 1)] + ([(0, 3)] if n <= 2 else []))
    relation = d.choice(RELATIONS)
    symmetric = shape == "reflection" or d.integer(0, 1) == 1
    first = _mechanism(d, kind, (lo, hi) == (0, 1), lo, hi, symmetric)
    mechs = [first if symmetric else _mechanism(d, kind, (lo, hi) == (0, 1), lo, hi, False) for _ in range(n)]
    if shape == "reflection":
        j = d.integer(0, n - 1)
        mechs[j] = _broken(d, kind, mechs[j])
    shared = None
    if shape == "near_product":
        entries = [i for i in range(n) if d.integer(0, 1)]
        entries = entries if len(entries) >= 2 else [0, 1]
        shared = (_weight(d, kind), tuple(entries))
    count = shape == "count" or (shape == "reflection" and n > 1 and d.integer(0, 1) == 1)
    special, bump = None, 0
    if count and d.integer(0, 1):
        special, bump = tuple(d.integer(lo, hi) for _ in range(n)), d.choice([1, 2, -1, 22])
    alphas = (0, d.choice([1, 2, Fraction(1, 2)]))
    parameter = d.choice(RANGES) if kind == "symbolic" else None
    return Spec(family, n, lo, hi, relation, tuple(mechs), shared, count, special, bump, alphas, parameter)


def spec_of(d: Any, family: str) -> Spec:
    """:func:`draw_spec`, except that a symbolic spec that happens to use no function of t gets one on entry 0."""
    spec = draw_spec(d, family)
    if family == "symbolic" and not any(isinstance(w, str) for w in spec.weights()):
        mechs = (("rr", "t"),) + spec.mechs[1:]
        spec = Spec(**{**spec.__dict__, "mechs": mechs})
    return spec


# -- the two readings --------------------------------------------------------------------------------------


def _dsl_weight(w: Any, t: Any) -> Any:
    return SYMBOLIC[w](t) if isinstance(w, str) else w


def _ref_weight(w: Any, t: Fraction | None) -> Fraction:
    return Fraction(SYMBOLIC[w](t)) if isinstance(w, str) else Fraction(w)


def _discrete_weights(ws: tuple, value: Callable[[Any], Any]) -> dict:
    """-1, 0, 1 weights; ``skew`` (symbolic only) moves half of the -1 mass to +1: t/4, 1-t, 3t/4."""
    if len(ws) == 4:
        a = value("t/2")
        return {-1: a / 2, 0: value("1-t"), 1: a * 3 / 2}
    return {-1: value(ws[0]), 0: value(ws[1]), 1: value(ws[2])}


class _Dsl:
    """wmcdp's reading of a spec: one shared coin, drawn on first use."""

    def __init__(self, spec: Spec, t: Any) -> None:
        self.spec, self.t, self.coin = spec, t, None

    def w(self, w: Any) -> Any:
        return _dsl_weight(w, self.t)

    def shared(self) -> Any:
        if self.coin is None:
            self.coin = flip(self.w(self.spec.shared[0]))
        return self.coin

    def noise(self, noise: tuple) -> Any:
        if noise[0] == "discrete":
            return discrete(_discrete_weights(noise[1], self.w))
        return ite(flip(self.w(noise[1])), -1, ite(flip(self.w(noise[2])), 1, 0))

    def entry(self, i: int, x: Any) -> Any:
        m, s = self.spec.mechs[i], self.spec
        if m[0] == "rr":
            out = x ^ flip(self.w(m[1])) if s.bits else (x > s.lo) ^ flip(self.w(m[1]))
        elif m[0] == "coin":
            out = ite(x if s.bits else x > s.lo, flip(self.w(m[2])), flip(self.w(m[1])))
        elif m[0] == "noise":
            out = (x + self.noise(m[1])).clamp(s.lo, s.hi)
        elif m[0] == "both":
            out = (x if s.bits else x > s.lo) & flip(self.w(m[1])) & flip(self.w(m[2]))
        elif m[0] == "free":
            out = flip(self.w(m[1]))
        else:
            out = (x >= m[1]) ^ flip(self.w(m[2]))
        if s.shared is not None and i in s.shared[1]:
            out = out ^ self.shared() if m[0] != "noise" else (out + self.shared()).clamp(s.lo, s.hi)
        return out


def program(spec: Spec, t: Any = None) -> Program:
    """The spec as a wmcdp program (``t``: a :class:`wmcdp.Parameter` for a symbolic spec)."""
    if isinstance(spec, Shaped):
        return spec.program()

    def body(x):
        dsl = _Dsl(spec, t)
        outs = [dsl.entry(i, x[i]) for i in range(spec.n)]
        return sum(outs[1:], outs[0]) if spec.count else tuple(outs)

    target = spec.target if spec.count else None
    return Program(f"fuzz_{spec.family}", spec.domain(), body, neighbours=spec.relation, target=target)


def reference(spec: Spec, t: Fraction | None = None) -> Callable:
    """The spec as a plain-Python mechanism ``fn(x, choose)`` for :func:`brute.distribution` (Booleans are 0/1)."""
    if isinstance(spec, Shaped):
        return spec.reference

    def fn(x, choose):
        w = lambda v: _ref_weight(v, t)  # noqa: E731
        coin: list = []

        def shared():
            if not coin:
                coin.append(brute.flip(choose, w(spec.shared[0])))
            return coin[0]

        def noise(nz):
            if nz[0] == "discrete":
                return choose(_discrete_weights(nz[1], w))
            if brute.flip(choose, w(nz[1])):
                return -1
            return 1 if brute.flip(choose, w(nz[2])) else 0

        outs = []
        for i, m in enumerate(spec.mechs):
            xi = x[i]
            if m[0] == "rr":
                out = int(xi > spec.lo) ^ brute.flip(choose, w(m[1]))
            elif m[0] == "coin":
                out = brute.flip(choose, w(m[2])) if xi > spec.lo else brute.flip(choose, w(m[1]))
            elif m[0] == "noise":
                out = min(max(xi + noise(m[1]), spec.lo), spec.hi)
            elif m[0] == "both":
                out = int(xi > spec.lo) & brute.flip(choose, w(m[1])) & brute.flip(choose, w(m[2]))
            elif m[0] == "free":
                out = brute.flip(choose, w(m[1]))
            else:
                out = int(xi >= m[1]) ^ brute.flip(choose, w(m[2]))
            if spec.shared is not None and i in spec.shared[1]:
                out = out ^ shared() if m[0] != "noise" else min(max(out + shared(), spec.lo), spec.hi)
            outs.append(out)
        return sum(outs) if spec.count else tuple(outs)

    return fn


def neighbours(spec: Spec, x: tuple) -> list[tuple]:
    """The reference's neighbour relations (written here, not taken from wmcdp)."""
    values = range(spec.lo, spec.hi + 1)
    out = []
    for xp in _all_inputs(spec):
        diff = [i for i in range(spec.n) if xp[i] != x[i]]
        if not diff:
            continue
        one = len(diff) == 1
        moves = [abs(xp[i] - x[i]) for i in diff]
        if {"hamming": one, "one-entry": one and moves == [1], "all-entries": max(moves) == 1}[spec.relation]:
            out.append(xp)
    assert all(v in values for xp in out for v in xp)
    return out


def _all_inputs(spec: Spec) -> list[tuple]:
    out: list[tuple] = [()]
    for _ in range(spec.n):
        out = [x + (v,) for x in out for v in range(spec.lo, spec.hi + 1)]
    return out


def distributions(spec: Spec, t: Fraction | None = None) -> dict:
    """``{x: {y: P(y|x)}}`` by enumeration (a large count convolves its entries' enumerated distributions)."""
    if spec.family == "count_large":
        return _convolved(spec)
    fn = reference(spec, t)
    return {x: brute.distribution(fn, x) for x in _all_inputs(spec)}


def _convolved(spec: Spec) -> dict:
    """A sum of independent entries with one mechanism: the distribution of the sum depends on the number of
    ones of x only, so it is the convolution of the enumerated one-entry distributions, once per number."""
    one = {}
    for v in (0, 1):
        single = Spec(spec.family, 1, 0, 1, "hamming", spec.mechs[:1], count=True)
        one[v] = brute.distribution(reference(single), (v,))
    memo: dict = {}
    out = {}
    for x in _all_inputs(spec):
        k = sum(x)
        if k not in memo:
            dist = {0: Fraction(1)}
            for v in x:
                dist = _convolve(dist, one[v])
            memo[k] = dist
        out[x] = memo[k]
    return out


def _convolve(a: dict, b: dict) -> dict:
    out: dict = {}
    for y, p in a.items():
        for z, q in b.items():
            out[y + z] = out.get(y + z, 0) + p * q
    return out


# -- the reference's notions -------------------------------------------------------------------------------


def mp(v: Any) -> Any:
    """A number (Fraction, int, float, inf) as an mpmath number at the working precision."""
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def _ratio(p: Fraction, q: Fraction) -> Fraction | float:
    return math.inf if q == 0 else p / q


def _threshold(eps: Any) -> tuple[Fraction | None, Any]:
    """``(e^ε as a Fraction or None, e^ε at 60 digits)`` of an ε given as the API takes it."""
    if isinstance(eps, str):
        r = Fraction(eps[3:])
        return r, mp(r)
    if eps == 0:
        return Fraction(1), mpmath.mpf(1)
    return None, mpmath.exp(mp(Fraction(eps)))


def hockey_mp(p: dict, q: dict, t: Any) -> Any:
    """``Σ_y max(0, p(y) − t q(y))`` of two distributions held as mpmath numbers, and S (the error scale of a
    float run)."""
    total, scale = mpmath.mpf(0), mpmath.mpf(0)
    for y, a in p.items():
        b = t * q.get(y, 0)
        if a > b:
            total += a - b
        if a >= b * (1 - TOL):
            scale += a + b
    return total, scale


def _segment_mass(p: dict, q: dict, ratio: Any) -> Fraction:
    """A = the mass of P(.|x) on the outputs whose ratio is at least ``ratio`` (those above the answer)."""
    return sum((v for y, v in p.items() if v > 0 and (q.get(y, 0) == 0 or v / q[y] >= ratio)), Fraction(0))


class Truth:
    """The reference's values for one spec at one point, over every ordered neighbour pair; each table is computed
    once and shared by the runs (planner, exhaustive; each number mode) that it checks."""

    def __init__(self, spec: Spec, dists: dict) -> None:
        self.spec, self.dists = spec, dists
        self._tables: dict = {}

    @functools.cached_property
    def pairs(self) -> list[tuple[tuple, tuple]]:
        return [(x, xp) for x in self.dists for xp in neighbours(self.spec, x)]

    @functools.cached_property
    def mp_dists(self) -> dict:
        return {x: {y: mp(p) for y, p in dist.items()} for x, dist in self.dists.items()}

    def _table(self, key: tuple, value: Callable[[tuple, tuple], Any]) -> dict:
        """``{(x, x'): value(x, x')}`` over the pairs, once per ``key``."""
        if key not in self._tables:
            self._tables[key] = {(x, xp): value(x, xp) for x, xp in self.pairs}
        return self._tables[key]

    def triple_ratio(self, x: tuple, xp: tuple, y: Any) -> Fraction | float | None:
        p, q = self.dists[x].get(y, Fraction(0)), self.dists[xp].get(y, Fraction(0))
        return None if p == q == 0 else _ratio(p, q)

    def pure(self) -> Fraction | float:
        def worst(x: tuple, xp: tuple) -> Any:
            return max((r for y in self.dists[x] if (r := self.triple_ratio(x, xp, y)) is not None), default=0)

        return max(self._table(("pure",), worst).values())

    def deltas(self, eps: Any) -> dict:
        """``{pair: (δ, S)}`` at e^ε (60 digits; S the error scale of a float run)."""
        _, t = _threshold(eps)
        return self._table(("delta", str(eps)), lambda x, xp: hockey_mp(self.mp_dists[x], self.mp_dists[xp], t))

    def exact_deltas(self, r: Fraction) -> dict:
        return self._table(("exact", r), lambda x, xp: brute.hockey(self.dists[x], self.dists[xp], r))

    def ratios_for_delta(self, delta: Fraction) -> dict:
        return self._table(("for", delta), lambda x, xp: brute.ratio_for_delta(self.dists[x], self.dists[xp], delta))

    def renyis(self, alpha: float) -> dict:
        def value(x: tuple, xp: tuple) -> float:
            if math.isinf(alpha):
                r = max((self.triple_ratio(x, xp, y) or 0) for y in self.dists[x])
                return _ln(r)
            return brute.renyi(self.dists[x], self.dists[xp], alpha)

        return self._table(("renyi", alpha), value)

    def accuracy(self, x: tuple, alpha: Any) -> Fraction:
        """Pr[|A(x) − V_x| ≤ α], once per (distribution, target) (a large count shares its distributions)."""
        dist, v = self.dists[x], self.spec.target(x)
        key = ("accuracy", id(dist), v, alpha)
        if key not in self._tables:
            self._tables[key] = sum((p for y, p in dist.items() if abs(y - v) <= alpha), Fraction(0))
        return self._tables[key]


# -- comparisons -------------------------------------------------------------------------------------------


@dataclass
class Difference:
    """One disagreement: which notion, sets and mode, the call, wmcdp's answer and the truth."""

    family: str
    notion: str
    sets: str
    mode: str
    call: str
    got: str
    truth: str
    spec: Spec

    def __str__(self) -> str:
        return (
            f"[{self.family}] {self.notion} ({self.sets}, {self.mode}): {self.call}\n"
            f"  wmcdp: {self.got}\n  truth: {self.truth}\n  spec: {self.spec}"
        )


class Comparison:
    """Runs the notions of one spec and records every check (``counts``) and every difference."""

    def __init__(self, spec: Spec, d: Any) -> None:
        self.spec, self.d = spec, d
        self.counts: dict[str, int] = {}
        self.plans: dict[tuple[str, str], int] = {}  # checks per (sets, notion)
        self.refused: dict[tuple[str, str], int] = {}  # forced plans refused as not applying, per (sets, notion)
        self.differences: list[Difference] = []

    def check(self, notion: str, sets: str, mode: str, call: str, ok: bool, got: Any, truth: Any) -> None:
        self.counts[notion] = self.counts.get(notion, 0) + 1
        self.plans[(sets, notion)] = self.plans.get((sets, notion), 0) + 1
        if not ok:
            self.differences.append(
                Difference(self.spec.family, notion, sets, mode, call, str(got), str(truth), self.spec)
            )

    def run(self, notion: str, sets: str, mode: str, call: str, fn: Callable[[], Any]) -> Any:
        """``fn()``, or None after recording any exception it raises as a difference."""
        try:
            return fn()
        except WmcdpError as exc:
            if not str(exc).startswith(f"plan '{_forced(sets)}' does not apply"):
                self._raised(notion, sets, mode, call, exc)
            else:  # a forced plan that does not apply to the program: refused in one line, as documented
                self.refused[(sets, notion)] = self.refused.get((sets, notion), 0) + 1
            return None
        except Exception as exc:  # every exception on a valid program is a difference
            self._raised(notion, sets, mode, call, exc)
            return None

    def _raised(self, notion: str, sets: str, mode: str, call: str, exc: Exception) -> None:
        """Records an exception of a run as a difference."""
        where = traceback.extract_tb(exc.__traceback__)[-1]
        got = f"raises {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
        self.check(notion, sets, mode, call, False, got, "a result")


SETS = {"plan": {}, "exhaustive": {}}


def _pairs_kw(sets: str) -> dict:
    return _sets_kw(sets, "pairs")


def _forced(sets: str) -> str | None:
    """The plan named by sets ``force:NAME`` (None for ``plan`` and ``exhaustive``)."""
    return sets[len("force:") :] if sets.startswith("force:") else None


def _sets_kw(sets: str, key: str) -> dict:
    """The keyword arguments of ``sets``: none (the planner), ``{key: "exhaustive"}``, or a forced ``plan``."""
    if _forced(sets) is not None:
        return {"plan": _forced(sets)}
    return {} if sets == "plan" else {key: "exhaustive"}


def compare(spec: Spec, d: Any, mode: Any = None) -> Comparison:
    """Every notion of ``spec`` under the default plan and the exhaustive sets, against the reference, in the number
    mode ``mode`` (``exact`` of the API: True, False or "binary"; None: drawn)."""
    cmp = Comparison(spec, d)
    if spec.parameter is not None:
        _symbolic(cmp)
        return cmp
    truth = Truth(spec, distributions(spec))
    epsilon, deltas = d.choice(EPSILONS), sorted({Fraction(0), Fraction(1), d.choice(DELTAS)})
    if spec.family == "count_large":
        modes = [True]
    else:  # one number mode per program: floats in float or binary mode, fractions in exact or float mode
        modes = [mode if mode is not None else d.choice([False, "binary"] if spec.floats() else [True, False])]
    for exact in modes:
        mode = {True: "exact", False: "float", "binary": "binary"}[exact]
        prog = program(spec)
        numbers = "exact" if exact is not False else "float"
        if spec.family != "count_large":
            for sets in ("plan", "exhaustive"):
                _privacy(cmp, truth, prog, sets, exact, mode, numbers)
                _approx(cmp, truth, prog, sets, exact, mode, numbers, epsilon, deltas)
                _profile(cmp, truth, prog, sets, exact, mode, numbers)
                _renyi(cmp, truth, prog, sets, exact, mode, numbers)
        if spec.count:
            for sets in ("plan", "exhaustive"):
                _accuracy(cmp, truth, prog, sets, exact, mode, numbers)
    return cmp


def _privacy(cmp: Comparison, truth: Truth, prog: Program, sets: str, exact: Any, mode: str, numbers: str) -> None:
    kw = _sets_kw(sets, "C")
    call = f"synthesize_privacy(prog, {_kw_text(kw)}exact={exact!r})"
    r = cmp.run("privacy", sets, mode, call, partial(synthesize_privacy, prog, exact=exact, **kw))
    if r is None:
        return
    want = truth.pure()
    w = r.witness
    at_witness = truth.triple_ratio(w.x, w.x_prime, w.y) if w.x_prime in neighbours(truth.spec, w.x) else None
    if numbers == "exact":
        ok = r.ratio == want and at_witness == want and _close_log(r.epsilon, want, IRRATIONAL_DELTA)
        ok = ok and r.p_x == truth.dists[w.x].get(w.y, 0) and r.p_x_prime == truth.dists[w.x_prime].get(w.y, 0)
    else:
        ok = _close_log(r.epsilon, want, TOL) and at_witness is not None and _close_log(_ln(at_witness), want, TOL)
    cmp.check(
        "privacy",
        sets,
        mode,
        call,
        ok,
        f"ratio {r.ratio} epsilon {r.epsilon} witness {w}",
        f"ratio {want} (at the witness: {at_witness})",
    )


def _kw_text(kw: dict) -> str:
    return "".join(f"{k}={v!r}, " for k, v in kw.items())


def _ln(r: Any) -> float:
    return math.inf if r == math.inf else float(mpmath.log(mp(r)))


def _close_log(epsilon: float, ratio: Any, tol: float) -> bool:
    """ε against the log of a true ratio (Fraction or inf), in log space."""
    if ratio == math.inf or epsilon == math.inf:
        return ratio == math.inf and epsilon == math.inf
    want = _ln(ratio)
    return abs(epsilon - want) <= tol * max(1.0, abs(want))


def _same(a: Any, b: Any) -> bool:
    """Two sums of the same exact terms at 60 digits (their last digits may differ with the order of the terms)."""
    return abs(a - b) <= mpmath.mpf(10) ** -45 * max(abs(a), abs(b))


def _log_ok(log_delta: Any, want: Any) -> bool:
    """``ln δ`` of a positive δ that no float holds (its float is 0.0): carried, and correctly rounded up to
    :data:`IRRATIONAL_DELTA` (relative, on δ)."""
    if log_delta is None:
        return False
    ln_want = float(mpmath.log(want))
    return abs(log_delta - ln_want) <= IRRATIONAL_DELTA + math.ulp(ln_want)


def _delta_ok(truth: Truth, got: Any, log_delta: Any, witness: Any, eps: Any, numbers: str) -> tuple[bool, Any]:
    """δ(ε) and its witness pair against the reference: exact when e^ε is rational (exact runs), relative 1e-15
    and never 0 for a positive δ at an irrational e^ε unless δ lies below the floats and ``log_delta`` is its log
    (:func:`_log_ok`), within TOL·S in float runs."""
    rational, _ = _threshold(eps)
    pair = (witness.x, witness.x_prime)
    if numbers == "exact" and rational is not None:
        table = truth.exact_deltas(rational)
        want = max(table.values())
        return got == want and table.get(pair) == want, want
    table = truth.deltas(eps)
    want, scale = max(v for v, _ in table.values()), max(s for _, s in table.values())
    at_witness = table[pair][0] if pair in table else None
    if numbers == "exact":
        if got == 0 and 0 < want < TINY:  # no float holds δ: its log must
            close = _log_ok(log_delta, want)
        else:
            close = abs(mp(got) - want) <= IRRATIONAL_DELTA * want and (want == 0 or got > 0)
        ok = close and at_witness is not None
        return ok and _same(at_witness, want), mpmath.nstr(want, 20)
    tol = TOL * scale + 4 * TINY * len(truth.dists[witness.x])
    ok = abs(mp(got) - want) <= tol and at_witness is not None and at_witness >= want - 2 * tol
    if log_delta is not None and want > 0 and scale <= 4 * want:
        ok = ok and abs(log_delta - float(mpmath.log(want))) <= TOL * max(1.0, abs(float(mpmath.log(want))))
    return ok, mpmath.nstr(want, 20)


def _approx(
    cmp: Comparison,
    truth: Truth,
    prog: Program,
    sets: str,
    exact: Any,
    mode: str,
    numbers: str,
    epsilon: Any,
    deltas: list,
) -> None:
    """δ(ε) at ``epsilon`` and ε(δ) at each of ``deltas``."""
    for eps in [epsilon]:
        call = f"synthesize_approximate(prog, {_kw_text(_pairs_kw(sets))}epsilon={eps!r}, exact={exact!r})"
        r = cmp.run(
            "approx_delta",
            sets,
            mode,
            call,
            partial(synthesize_approximate, prog, epsilon=eps, exact=exact, **_pairs_kw(sets)),
        )
        if r is not None:
            ok, want = _delta_ok(truth, r.delta, r.log_delta, r.witness, eps, numbers)
            cmp.check("approx_delta", sets, mode, call, ok, f"delta {r.delta} witness {r.witness}", want)
    for delta in deltas:
        given = delta if numbers == "exact" else float(delta)
        call = f"synthesize_approximate(prog, {_kw_text(_pairs_kw(sets))}delta={given!r}, exact={exact!r})"
        r = cmp.run(
            "approx_epsilon",
            sets,
            mode,
            call,
            partial(synthesize_approximate, prog, delta=given, exact=exact, **_pairs_kw(sets)),
        )
        if r is None:
            continue
        ok, want = _epsilon_ok(truth, r, delta, numbers)
        cmp.check(
            "approx_epsilon",
            sets,
            mode,
            call,
            ok,
            f"epsilon {r.epsilon} ratio {r.ratio} witness {r.witness}",
            f"ratio {want}",
        )


def _epsilon_ok(truth: Truth, r: Any, delta: Fraction, numbers: str) -> tuple[bool, Any]:
    """ε(δ): exact runs give e^ε exactly (a Fraction or inf); float runs give ε(1) = 0 exactly, and otherwise ε
    within TOL·((A+δ)/(A−δ) + 1 + |ε|) in log space, A the mass above the answer's segment at the worst pair
    (inf against a finite ε only where δ is within TOL of a pair's mass at +∞)."""
    per_pair = truth.ratios_for_delta(delta)
    want = max(per_pair.values())
    w = r.witness
    at_witness = per_pair.get((w.x, w.x_prime))
    if numbers == "exact":
        return r.ratio == want and at_witness == want and _close_log(r.epsilon, want, IRRATIONAL_DELTA), want
    if delta == 1:  # δ(0) is a total variation, at most 1: ε(1) = 0 in every mode, with no tolerance
        return r.epsilon == 0 and r.ratio == 1 and at_witness == 1, want
    if want == math.inf or r.epsilon == math.inf:
        inf_mass = max(_segment_mass(truth.dists[x], truth.dists[xp], math.inf) for x, xp in truth.pairs)
        near = abs(inf_mass - delta) <= TOL * max(inf_mass, delta, Fraction(1, 10**300))
        agree = want == math.inf and r.epsilon == math.inf and at_witness == math.inf
        return agree or (near and at_witness is not None), want
    x, xp = max(per_pair, key=lambda k: per_pair[k])
    a = _segment_mass(truth.dists[x], truth.dists[xp], want)
    kappa = (a + delta) / (a - delta) + 1 if a > delta else math.inf
    eps = _ln(want)
    tol = TOL * (float(kappa) + abs(eps))
    ok = abs(r.epsilon - eps) <= tol and at_witness is not None and _ln(at_witness) >= eps - 2 * tol
    return ok, want


def _profile(cmp: Comparison, truth: Truth, prog: Program, sets: str, exact: Any, mode: str, numbers: str) -> None:
    call = f"privacy_profile(prog, {EPSILONS!r}, {_kw_text(_pairs_kw(sets))}exact={exact!r})"
    points = cmp.run(
        "profile", sets, mode, call, lambda: privacy_profile(prog, EPSILONS, exact=exact, **_pairs_kw(sets))
    )
    if points is None:
        return
    for eps, point in zip(EPSILONS, points):
        ok, want = _delta_ok(truth, point.delta, point.log_delta, point.witness, eps, numbers)
        cmp.check(
            "profile",
            sets,
            mode,
            call + f" at epsilon {eps!r}",
            ok,
            f"delta {point.delta} witness {point.witness}",
            want,
        )


def _renyi(cmp: Comparison, truth: Truth, prog: Program, sets: str, exact: Any, mode: str, numbers: str) -> None:
    call = f"synthesize_renyi(prog, {ORDERS!r}, {_kw_text(_pairs_kw(sets))}exact={exact!r})"
    r = cmp.run("renyi", sets, mode, call, lambda: synthesize_renyi(prog, ORDERS, exact=exact, **_pairs_kw(sets)))
    if r is None:
        return
    tol = EXACT_RENYI if numbers == "exact" else TOL
    for order in r.orders:
        values = truth.renyis(order.order)
        want = max(values.values())
        w = order.witness
        at_witness = values.get((w.x, w.x_prime))

        ok = _close(order.epsilon, want, tol) and at_witness is not None and _close(at_witness, want, tol)
        cmp.check(
            "renyi",
            sets,
            mode,
            call + f" order {order.order}",
            ok,
            f"D {order.epsilon} witness {w}",
            f"D {want} (at the witness: {at_witness})",
        )


def _close(v: float, want: float, tol: float) -> bool:
    """``|v − want| ≤ tol·max(1, |want|)``, and inf only against inf."""
    if v == math.inf or want == math.inf:
        return v == want
    return abs(v - want) <= tol * max(1.0, abs(want))


def _accuracy(cmp: Comparison, truth: Truth, prog: Program, sets: str, exact: Any, mode: str, numbers: str) -> None:
    kw = _sets_kw(sets, "A")
    for alpha in truth.spec.alphas:
        call = f"synthesize_accuracy(prog, {_kw_text(kw)}alpha={alpha!r}, exact={exact!r})"
        r = cmp.run("accuracy", sets, mode, call, partial(synthesize_accuracy, prog, alpha=alpha, exact=exact, **kw))
        if r is None:
            continue
        want = min(truth.accuracy(x, alpha) for x in truth.dists)
        at_witness = truth.accuracy(r.witness, alpha) if r.witness in truth.dists else None
        if at_witness is None:
            ok = False
        elif numbers == "exact":
            ok = r.one_minus_beta == want and at_witness == want
        else:
            tol = Fraction(TOL) * want + Fraction(TINY) * len(truth.dists[r.witness])
            ok = abs(Fraction(r.one_minus_beta) - want) <= tol and abs(at_witness - want) <= 2 * tol
        cmp.check(
            "accuracy",
            sets,
            mode,
            call,
            ok,
            f"1 - beta {r.one_minus_beta} witness {r.witness}",
            f"1 - beta {want} (at the witness: {at_witness})",
        )


# -- symbolic ----------------------------------------------------------------------------------------------


def _ratio_and_epsilon(r: Any, t: Fraction) -> tuple:
    return r.ratio_at(t), r.epsilon_at(t)


def _points(spec: Spec, results: list) -> list[Fraction]:
    """The ends of the range, its middle and a third, and every rational piece end and piece middle."""
    lo, hi = spec.parameter
    points = {lo, hi, (lo + hi) / 2, lo + (hi - lo) / 3}
    for r in results:
        for piece in getattr(r, "pieces", ()):
            ends = [e for e in (piece.start, piece.end) if isinstance(e, (int, Fraction))]
            points.update(Fraction(e) for e in ends)
            if len(ends) == 2:
                points.add((Fraction(ends[0]) + Fraction(ends[1])) / 2)
    return sorted(points)


def _symbolic(cmp: Comparison) -> None:
    """Piecewise ε, 1 − β and δ at e^ε = R (planner and exhaustive where the API has both) at points, against
    the enumeration at each point, exactly."""
    spec = cmp.spec
    lo, hi = spec.parameter
    t = Parameter("t", lo, hi)
    prog = program(spec, t)
    ratio = cmp.d.choice(["ln:3/2", "ln:2"])
    runs: list = []
    for sets in ("plan", "exhaustive"):
        C = None if sets == "plan" else "exhaustive"
        call = f"synthesize_privacy(prog, {C!r})  # t = Parameter('t', {lo}, {hi})"
        r = cmp.run("symbolic_privacy", sets, "exact", call, partial(synthesize_privacy, prog, C))
        if r is not None:
            runs.append(("symbolic_privacy", sets, call, r, None))
        if spec.count:
            for alpha in spec.alphas:
                call = f"synthesize_accuracy(prog, {C!r}, alpha={alpha!r})  # t = Parameter('t', {lo}, {hi})"
                r = cmp.run(
                    "symbolic_accuracy", sets, "exact", call, partial(synthesize_accuracy, prog, C, alpha=alpha)
                )
                if r is not None:
                    runs.append(("symbolic_accuracy", sets, call, r, alpha))
    call = f"synthesize_approximate(prog, epsilon={ratio!r})  # t = Parameter('t', {lo}, {hi})"
    r = cmp.run("symbolic_delta", "plan", "exact", call, lambda: synthesize_approximate(prog, epsilon=ratio))
    if r is not None:
        runs.append(("symbolic_delta", "plan", call, r, Fraction(ratio[3:])))
    truths: dict = {}
    for point in _points(spec, [r for *_, r, _ in runs]):
        truth = truths.setdefault(point, Truth(spec, distributions(spec, point)))
        for notion, sets, call, r, arg in runs:
            at = f"{call} at t = {point}"
            if notion == "symbolic_privacy":
                want = truth.pure()
                got = cmp.run(notion, sets, "exact", at, partial(_ratio_and_epsilon, r, point))
                if got is not None:
                    cmp.check(
                        notion,
                        sets,
                        "exact",
                        at,
                        got[0] == want and _close_log(got[1], want, 1e-15),
                        f"ratio {got[0]} epsilon {got[1]}",
                        f"ratio {want}",
                    )
            elif notion == "symbolic_accuracy":
                want = min(truth.accuracy(x, arg) for x in truth.dists)
                got = cmp.run(notion, sets, "exact", at, partial(r.one_minus_beta_at, point))
                if got is not None:
                    cmp.check(notion, sets, "exact", at, got == want, f"1 - beta {got}", f"1 - beta {want}")
            else:
                want = max(truth.exact_deltas(arg).values())
                got = cmp.run(notion, sets, "exact", at, partial(r.delta_at, point))
                if got is not None:
                    cmp.check(notion, sets, "exact", at, got == want, f"delta {got}", f"delta {want}")


def run(spec: Spec, d: Any, mode: Any = None) -> Comparison:
    """:func:`compare` with the reference's sums at 60 digits."""
    with mpmath.workdps(60):
        return compare(spec, d, mode)


def fuzz_one(d: Any, family: str) -> Comparison:
    """Draw a spec of ``family`` and compare every notion."""
    return run(spec_of(d, family), d)


# -- families shaped for the structured plans, and every plan forced ---------------------------------------------
#
# A shaped spec (:class:`Shaped`) is read twice as well: :meth:`Shaped.program` builds the DSL body and
# :meth:`Shaped.reference` the plain-Python mechanism. Its noises are small distributions over -2..2 with gaps
# (a missing value), zero weights, ties, and tiny (1e-300) or near-one (1 - 1e-16) weights: exact ones as a
# ``discrete`` (a zero weight kept), float ones as a ladder of flips (the value ``v_k`` with ``w_k``, else the
# next rung; the last value takes what is left), which the reference follows flip by flip.
#
# * ``releases`` (given-input): noisy releases of one sum of entries, or of sums of shared entries, some shifted by
#   one (``f(x) + 1``) or relabelled (``top - f(x)``);
# * ``shifted`` (product): per-entry noisy values, the same noise on every entry, each part as it is, shifted or
#   relabelled;
# * ``chain``: per-entry blocks reading a running state (a flag: the previous output chooses the coin; or a running
#   clamped sum released at every step);
# * ``hub``: one shared noisy threshold that every entry's noisy value is compared with (sparse-vector shapes):
#   each comparison an entry's own output (the hub plan searches the outputs by entry), or, with ``stop``, codes that
#   stop after the first TRUE (sparse vector with N = 1: the output events are listed and cut);
# * ``reports`` (count-of-reports): the sum of one 0/1 report per entry, the same report on every entry (one entry's
#   differs a fifth of the time), with the target ``sum(x)``.
#
# :func:`compare_forced` runs every plan a notion has (:data:`wmcdp.plan.forced.SERVES`) forced on the spec: pure
# epsilon, one drawn notion over pairs, and accuracy for numeric outputs; a plan refused as not applying is counted
# (``Comparison.refused``), never a difference; any other error, and every wrong value or witness, is one.

SHAPED = ["releases", "shifted", "chain", "hub", "reports"]
#: the older families run with every plan forced too
FORCED_FAMILIES = SHAPED + ["product", "near_product", "count", "extreme"]
TRANSFORMS = ["id", "id", "shift", "flip"]


@dataclass(frozen=True)
class Shaped:
    """A program of one of the :data:`SHAPED` families. ``noises``: each ``("discrete", ((v, w), ...))`` or
    ``("ladder", ((v, w), ..., (v_last, None)))``; ``parts``: what each family reads (see :meth:`program`);
    ``threshold``: the hub's threshold constant."""

    family: str
    n: int
    lo: int
    hi: int
    relation: str
    noises: tuple
    parts: tuple
    threshold: int = 0
    alphas: tuple = (0, 1)
    parameter: None = None
    shared: None = None
    stop: bool = False  # hub: codes 0/1 that stop (2) after the first TRUE

    @property
    def count(self) -> bool:
        return self.family == "reports"

    @property
    def bits(self) -> bool:
        return self.family == "chain" and self.parts[0] == "flag"

    def target(self, x: Sequence[int]) -> int:
        return sum(x)

    def domain(self):
        return Bits(self.n) if self.bits else IntVector(self.n, self.lo, self.hi)

    def weights(self) -> list:
        out = [w for noise in self.noises for _, w in noise[1] if w is not None]
        return out + [w for part in self.parts if isinstance(part, tuple) for w in part if _is_weight(w)]

    def floats(self) -> bool:
        return any(isinstance(w, float) for w in self.weights())

    # -- the DSL reading ------------------------------------------------------------------------------------------
    def program(self) -> Program:
        return Program(f"fuzz_{self.family}", self.domain(), self._body, neighbours=self.relation, target=self.target)

    def _noise(self, k: int) -> Any:
        kind, rungs = self.noises[k]
        if kind == "discrete":
            return discrete(dict(rungs))
        out: Any = rungs[-1][0]
        for v, w in reversed(rungs[:-1]):
            out = ite(flip(w), v, out)
        return out

    def _body(self, x):
        if self.family == "releases":
            return tuple(
                _transformed(sum((x[e] for e in es[1:]), x[es[0]]), self._noise(k), t, top)
                for es, k, t, top in self.parts
            )
        if self.family == "shifted":
            return tuple(_transformed(x[i], self._noise(k), t, self.hi, self.lo) for i, (k, t) in enumerate(self.parts))
        if self.family == "chain":
            return self._chain(x)
        if self.family == "hub":
            level = self.threshold + self._noise(0)
            above = [(x[i] + self._noise(k)) >= level for i, k in enumerate(self.parts)]
            if not self.stop:
                return tuple(above)
            out, stopped = [], None
            for a in above:
                out.append(ite(a, 1, 0) if stopped is None else ite(stopped, 2, ite(a, 1, 0)))
                stopped = a if stopped is None else stopped | a
            return tuple(out)
        reports = [_report(self.parts[i], x[i], self.lo) for i in range(self.n)]
        return sum(reports[1:], reports[0])

    def _chain(self, x):
        if self.parts[0] == "flag":
            out = [x[0] ^ flip(self.parts[1][0])]
            for i in range(1, self.n):
                a, b = self.parts[1][2 * i - 1], self.parts[1][2 * i]
                out.append(ite(out[-1], x[i] ^ flip(a), x[i] ^ flip(b)))
            return tuple(out)
        state, out = 0, []
        for i in range(self.n):
            state = (x[i] + state + self._noise(i % len(self.noises))).clamp(0, 2)
            out.append(state)
        return tuple(out)

    # -- the plain-Python reading ---------------------------------------------------------------------------------
    def reference(self, x, choose):
        noise = lambda k: _ref_noise(self.noises[k], choose)  # noqa: E731
        if self.family == "releases":
            return tuple(_ref_transformed(sum(x[e] for e in es), noise(k), t, top) for es, k, t, top in self.parts)
        if self.family == "shifted":
            return tuple(_ref_transformed(x[i], noise(k), t, self.hi, self.lo) for i, (k, t) in enumerate(self.parts))
        if self.family == "chain" and self.parts[0] == "flag":
            out = [x[0] ^ brute.flip(choose, self.parts[1][0])]
            for i in range(1, self.n):
                w = self.parts[1][2 * i - 1] if out[-1] else self.parts[1][2 * i]
                out.append(x[i] ^ brute.flip(choose, w))
            return tuple(out)
        if self.family == "chain":
            state, out = 0, []
            for i in range(self.n):
                state = min(max(x[i] + state + noise(i % len(self.noises)), 0), 2)
                out.append(state)
            return tuple(out)
        if self.family == "hub":
            level = self.threshold + noise(0)
            above = [int(x[i] + noise(k) >= level) for i, k in enumerate(self.parts)]
            if not self.stop:
                return tuple(above)
            return tuple(2 if any(above[:i]) else a for i, a in enumerate(above))
        return sum(_ref_report(self.parts[i], x[i], self.lo, choose) for i in range(self.n))


def _is_weight(w: Any) -> bool:
    return isinstance(w, (float, Fraction)) and not isinstance(w, bool)


def _transformed(value: Any, noise: Any, transform: str, top: int, bottom: int = 0) -> Any:
    """``(value + noise)`` clamped to ``bottom..top``, as it is, shifted by one, or relabelled ``top - v``."""
    v = (value + noise).clamp(bottom, top)
    return v + 1 if transform == "shift" else (top - v) if transform == "flip" else v


def _ref_transformed(value: int, noise: int, transform: str, top: int, bottom: int = 0) -> int:
    v = min(max(value + noise, bottom), top)
    return v + 1 if transform == "shift" else (top - v) if transform == "flip" else v


def _ref_noise(noise: tuple, choose: Callable) -> int:
    """One draw of the noise, by one choice over its values: a ladder's value ``v_k`` has the exact probability
    ``w_k · prod_{j<k} (1 − w_j)`` (each float weight as its exact binary value)."""
    return choose(_ladder_distribution(noise))


@functools.lru_cache(maxsize=4096)
def _ladder_distribution(noise: tuple) -> dict:
    kind, rungs = noise
    if kind == "discrete":
        return dict(rungs)
    out: dict = {}
    rest = Fraction(1)
    for v, w in rungs[:-1]:
        out[v] = out.get(v, 0) + rest * Fraction(w)
        rest *= 1 - Fraction(w)
    out[rungs[-1][0]] = out.get(rungs[-1][0], 0) + rest
    return out


def _report(report: tuple, xi: Any, lo: int) -> Any:
    """One entry's 0/1 report: ``("rr", w)``, ``("coin", w0, w1)`` or ``("thresh", c, w)``."""
    if report[0] == "rr":
        return ite((xi > lo) ^ flip(report[1]), 1, 0)
    if report[0] == "coin":
        return ite(ite(xi > lo, flip(report[2]), flip(report[1])), 1, 0)
    return ite((xi >= report[1]) ^ flip(report[2]), 1, 0)


def _ref_report(report: tuple, xi: int, lo: int, choose: Callable) -> int:
    if report[0] == "rr":
        return int(xi > lo) ^ brute.flip(choose, report[1])
    if report[0] == "coin":
        return brute.flip(choose, report[2] if xi > lo else report[1])
    return int(xi >= report[1]) ^ brute.flip(choose, report[2])


#: weights of the shaped families: exact ones, and floats from 1e-300 to 1 - 1e-16
SHAPED_EXACT = [Fraction(0), Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 10), Fraction(1, 10**300)]
SHAPED_FLOATS = [0.0, 1e-300, 1e-20, 0.1, 0.25, 0.5, 1 - 1e-16]
NOISE_SHAPES = ["full", "gap", "zero", "tie", "tiny", "near_one"]


def _shaped_weight(d: Any, floats: bool) -> Any:
    return d.choice(SHAPED_FLOATS if floats else SHAPED_EXACT)


def draw_noise(d: Any, floats: bool) -> tuple:
    """A noise over -2..2 of one of :data:`NOISE_SHAPES`: every value; a missing value; a value of weight 0; tied
    weights; one weight tiny; one value of weight near one."""
    shape = d.choice(NOISE_SHAPES)
    values = [-2, -1, 0, 1, 2] if d.integer(0, 1) else [-1, 0, 1]
    if shape == "gap":
        values = [v for v in values if v != d.choice(values)] or [0]
    if floats:
        tiny, big = 1e-300, 1 - 1e-16
        rungs: list = [(v, d.choice(SHAPED_FLOATS)) for v in values[:-1]]
    else:
        tiny, big = Fraction(1, 10**300), 1 - Fraction(1, 10**16)
        rungs = [(v, Fraction(d.integer(0, 4))) for v in values]
    if shape in ("zero", "tiny", "near_one") and len(rungs) > 0:
        k = d.integer(0, len(rungs) - 1)
        rungs[k] = (rungs[k][0], {"zero": 0 * tiny, "tiny": tiny, "near_one": big}[shape])
    if shape == "tie":
        w = rungs[0][1] if rungs else 0
        rungs = [(v, w) for v, _ in rungs]
    if floats:
        return ("ladder", tuple(rungs) + ((values[-1], None),))
    return ("discrete", _normalized(rungs, shape, big))


def _normalized(rungs: list, shape: str, big: Fraction) -> tuple:
    """Exact weights summing to 1 (integer weights scaled; a near-one value keeps 1 - 1e-16, the others share the
    rest; all-zero weights become ties)."""
    if shape == "near_one":
        k = next(i for i, (_, w) in enumerate(rungs) if w == big)
        rest = [w for i, (_, w) in enumerate(rungs) if i != k]
        total = sum(rest) or len(rest)
        share = [(w if sum(rest) else 1) * (1 - big) / total for w in rest] if rest else []
        out = [(v, big if i == k else share.pop(0)) for i, (v, _) in enumerate(rungs)]
        return tuple(out) if rest else ((rungs[0][0], Fraction(1)),)
    total = sum(w for _, w in rungs)
    if total == 0:
        return tuple((v, Fraction(1, len(rungs))) for v, _ in rungs)
    return tuple((v, w / total) for v, w in rungs)


def draw_shaped(d: Any, family: str) -> Shaped:
    """A random spec of one of the :data:`SHAPED` families."""
    floats = d.integer(0, 2) == 0
    relation = d.choice(RELATIONS)
    if family == "releases":
        n, hi = d.integer(2, 3), d.choice([1, 1, 2])
        noises = tuple(draw_noise(d, floats) for _ in range(d.integer(1, 2)))
        groups = [tuple(range(n))] if d.integer(0, 1) else [tuple(range(n - 1)), tuple(range(1, n))]
        parts = []
        for _ in range(d.integer(2, 3)):
            es = d.choice(groups)
            parts.append((es, d.integer(0, len(noises) - 1), d.choice(TRANSFORMS), len(es) * hi))
        return Shaped(family, n, 0, hi, relation, noises, tuple(parts))
    if family == "shifted":
        n, hi = d.integer(2, 3), d.choice([1, 2])
        noise = draw_noise(d, floats)
        noises = (noise,) if d.integer(0, 3) else (noise, draw_noise(d, floats))
        parts = tuple((d.integer(0, len(noises) - 1), d.choice(TRANSFORMS)) for _ in range(n))
        return Shaped(family, n, 0, hi, relation, noises, parts)
    if family == "chain":
        n = d.integer(2, 3)
        if d.integer(0, 1):
            weights = tuple(_shaped_weight(d, floats) for _ in range(2 * n - 1))
            return Shaped(family, n, 0, 1, relation, (), ("flag", weights))
        noises = tuple(draw_noise(d, floats) for _ in range(d.integer(1, 2)))
        return Shaped(family, n, 0, 1, relation, noises, ("running",))
    if family == "hub":
        n, hi = d.integer(2, 3), d.choice([1, 2])
        noises = tuple(draw_noise(d, floats) for _ in range(d.integer(2, 3)))
        parts = tuple(d.integer(1, len(noises) - 1) for _ in range(n))
        stop = d.integer(0, 1) == 1
        return Shaped(family, n, 0, hi, relation, noises, parts, threshold=d.integer(0, hi), stop=stop)
    n, hi = d.integer(2, 3), d.choice([1, 1, 2])
    report = _draw_report(d, floats, hi)
    reports = [report] * n
    if d.integer(0, 4) == 0:
        reports[d.integer(0, n - 1)] = _draw_report(d, floats, hi)
    alphas = (0, d.choice([1, 2]))
    return Shaped(family, n, 0, hi, d.choice(["hamming", "hamming", "one-entry"]), (), tuple(reports), alphas=alphas)


def _draw_report(d: Any, floats: bool, hi: int) -> tuple:
    kind = d.choice(["rr", "coin"] + (["thresh"] if hi > 1 else []))
    if kind == "rr":
        return ("rr", _shaped_weight(d, floats))
    if kind == "coin":
        return ("coin", _shaped_weight(d, floats), _shaped_weight(d, floats))
    return ("thresh", d.integer(1, hi), _shaped_weight(d, floats))


def forced_spec(d: Any, family: str) -> Spec | Shaped:
    """A spec of ``family`` for :func:`compare_forced`: a shaped one, or one of the older families."""
    return draw_shaped(d, family) if family in SHAPED else spec_of(d, family)


PAIR_NOTIONS = ["approx", "profile", "renyi"]


def compare_forced(spec: Spec | Shaped, d: Any, mode: Any = None) -> Comparison:
    """Every plan each notion has, forced on ``spec`` (sets ``force:NAME``), against the reference: pure ε, one
    drawn notion over pairs, and accuracy (numeric outputs), in the number mode ``mode`` (None: drawn)."""
    cmp = Comparison(spec, d)
    truth = Truth(spec, distributions(spec))
    exact = mode if mode is not None else d.choice([False, "binary"] if spec.floats() else [True, False])
    mode_name = {True: "exact", False: "float", "binary": "binary"}[exact]
    numbers = "exact" if exact is not False else "float"
    prog = program(spec)
    args = (exact, mode_name, numbers)
    for plan in SERVES["privacy"]:
        _privacy(cmp, truth, prog, f"force:{plan}", *args)
    notion = d.choice(PAIR_NOTIONS)
    epsilon, delta = d.choice(EPSILONS), d.choice(DELTAS)
    for plan in SERVES["pairs"]:
        sets = f"force:{plan}"
        if notion == "approx":
            _approx(cmp, truth, prog, sets, *args, epsilon, [delta])
        elif notion == "profile":
            _profile(cmp, truth, prog, sets, *args)
        else:
            _renyi(cmp, truth, prog, sets, *args)
    if spec.count:
        for plan in SERVES["accuracy"]:
            _accuracy(cmp, truth, prog, f"force:{plan}", *args)
    return cmp


def run_forced(spec: Spec | Shaped, d: Any, mode: Any = None) -> Comparison:
    """:func:`compare_forced` with the reference's sums at 60 digits."""
    with mpmath.workdps(60):
        return compare_forced(spec, d, mode)


def fuzz_forced(d: Any, family: str) -> Comparison:
    """Draw a spec of ``family`` and run every plan forced on it."""
    return run_forced(forced_spec(d, family), d)
