"""Symbolic values of the DSL: :class:`Bool`, bounded :class:`Int`, and the random primitives.

While a program is traced, every operation on these values adds gates to the active
:class:`~wmcdp.lang.circuit.Circuit`. An ``Int`` is kept *one-hot*: a map from each value
it can take to the formula that selects it. Its range is therefore exact, arithmetic
widens instead of wrapping, and comparisons are plain disjunctions of guards.
Python ``bool``/``int`` constants mix freely with symbolic values.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from typing import Callable, Iterator, Mapping, Sequence, Union

from ..errors import WmcdpError
from ..numbers import as_number, format_number, is_exact, probability
from .circuit import FALSE, TRUE, Circuit

_active: list[Circuit] = []


@contextmanager
def tracing(circuit: Circuit) -> Iterator[Circuit]:
    """Make ``circuit`` the target of DSL operations inside the block."""
    _active.append(circuit)
    try:
        yield circuit
    finally:
        _active.pop()


def current() -> Circuit:
    if not _active:
        raise WmcdpError("DSL operations (flip, discrete, uniform, ...) only work inside a program being compiled")
    return _active[-1]


class Bool:
    """A symbolic Boolean: a node of the active circuit."""

    __slots__ = ("node",)

    def __init__(self, node: int) -> None:
        self.node = node

    def __bool__(self) -> bool:
        raise TypeError("a symbolic Bool has no Python truth value; use ite(cond, a, b) instead of if/and/or")

    def __repr__(self) -> str:
        return f"Bool(node={self.node})"

    def __invert__(self) -> "Bool":
        return Bool(current().negate(self.node))

    def _bin(self, other: object, op: Callable[[Circuit, int, int], int]) -> "Bool":
        o = _as_bool(other)
        if o is None:
            return NotImplemented
        return Bool(op(current(), self.node, o.node))

    def __and__(self, other):
        return self._bin(other, Circuit.conj)

    def __or__(self, other):
        return self._bin(other, Circuit.disj)

    def __xor__(self, other):
        return self._bin(other, Circuit.xor)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __eq__(self, other):  # type: ignore[override]
        if isinstance(other, Int) or (isinstance(other, int) and not isinstance(other, bool) and other not in (0, 1)):
            return self.as_int() == other
        o = _as_bool(other)
        if o is None:
            return NotImplemented
        return ~Bool(current().xor(self.node, o.node))

    def __ne__(self, other):  # type: ignore[override]
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq

    __hash__ = None  # type: ignore[assignment]

    def as_int(self) -> "Int":
        """This Boolean as the integer 0 or 1."""
        c = current()
        return Int({0: c.negate(self.node), 1: self.node})

    # arithmetic treats a Bool as 0/1, so sum(bools) counts
    def __add__(self, other):
        return self.as_int() + other

    def __radd__(self, other):
        return self.as_int() + other

    def __sub__(self, other):
        return self.as_int() - other

    def __rsub__(self, other):
        return (-self.as_int()) + other

    def __lt__(self, other):
        return self.as_int() < other

    def __le__(self, other):
        return self.as_int() <= other

    def __gt__(self, other):
        return self.as_int() > other

    def __ge__(self, other):
        return self.as_int() >= other


def _as_bool(value: object) -> Bool | None:
    if isinstance(value, Bool):
        return value
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return Bool(TRUE if value else FALSE)
    return None


IntLike = Union["Int", Bool, int]


class Int:
    """A symbolic bounded integer: ``{value: guard}`` with pairwise exclusive guards."""

    __slots__ = ("guards",)

    def __init__(self, guards: Mapping[int, int]) -> None:
        self.guards = {v: g for v, g in sorted(guards.items()) if g != FALSE}
        if not self.guards:
            raise WmcdpError("an Int must be able to take at least one value")

    def __bool__(self) -> bool:
        raise TypeError("a symbolic Int has no Python truth value; use ite(cond, a, b)")

    def __repr__(self) -> str:
        return f"Int(range={self.lo}..{self.hi})"

    @property
    def lo(self) -> int:
        return next(iter(self.guards))

    @property
    def hi(self) -> int:
        return next(reversed(self.guards))

    @staticmethod
    def const(value: int) -> "Int":
        return Int({value: TRUE})

    def _combine(self, other: object, f: Callable[[int, int], int]) -> "Int":
        o = _as_int(other)
        if o is None:
            return NotImplemented
        c = current()
        out: dict[int, int] = {}
        for a, ga in self.guards.items():
            for b, gb in o.guards.items():
                v = f(a, b)
                out[v] = c.disj(out.get(v, FALSE), c.conj(ga, gb))
        return Int(out)

    def _compare(self, other: object, f: Callable[[int, int], bool]) -> Bool:
        o = _as_int(other)
        if o is None:
            return NotImplemented
        c = current()
        return Bool(c.any(c.conj(ga, gb) for a, ga in self.guards.items() for b, gb in o.guards.items() if f(a, b)))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return self._combine(other, lambda a, b: b - a)

    def __neg__(self) -> "Int":
        return Int({-v: g for v, g in self.guards.items()})

    def __abs__(self) -> "Int":
        c = current()
        out: dict[int, int] = {}
        for v, g in self.guards.items():
            out[abs(v)] = c.disj(out.get(abs(v), FALSE), g)
        return Int(out)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def __eq__(self, other):  # type: ignore[override]
        return self._compare(other, lambda a, b: a == b)

    def __ne__(self, other):  # type: ignore[override]
        return self._compare(other, lambda a, b: a != b)

    __hash__ = None  # type: ignore[assignment]

    def clamp(self, lo: int, hi: int) -> "Int":
        """``min(max(self, lo), hi)`` (post-processing onto ``{lo..hi}``)."""
        if lo > hi:
            raise WmcdpError(f"clamp range {lo}..{hi} is empty")
        c = current()
        out: dict[int, int] = {}
        for v, g in self.guards.items():
            w = min(max(v, lo), hi)
            out[w] = c.disj(out.get(w, FALSE), g)
        return Int(out)


def _as_int(value: object) -> Int | None:
    if isinstance(value, Int):
        return value
    if isinstance(value, Bool):
        return value.as_int()
    if isinstance(value, int):
        return Int.const(int(value))
    return None


# -- random primitives ---------------------------------------------------------------

def flip(p: object) -> Bool:
    """A fresh random Boolean, true with probability ``p`` (float, Fraction or "1/5")."""
    return Bool(current().random_var(probability(p, "flip probability")))


def discrete(probs: Sequence[object] | Mapping[int, object]) -> Int:
    """A random Int taking value ``i`` (or key ``v``) with the given probability.

    The choice is encoded as a balanced binary tree of flips over the values in order:
    each flip picks the upper half of its range with probability
    ``P(upper half) / P(whole range)``, so a comparison ``v > t`` reads only the flips on
    one root-to-leaf path (about log2 of the number of values). With Fraction weights every
    conditional probability is exact.
    """
    items = sorted(probs.items()) if isinstance(probs, Mapping) else list(enumerate(probs))
    if not items:
        raise WmcdpError("discrete() needs at least one probability")
    values = [v for v, _ in items]
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        raise WmcdpError("discrete() values must be integers")
    if len(set(values)) != len(values):
        raise WmcdpError("discrete() values must be distinct")
    ps = [probability(p, f"discrete probability of {v}") for v, p in items]
    total = sum(ps)
    if all(is_exact(p) for p in ps):
        if total != 1:
            raise WmcdpError(f"discrete() probabilities sum to {format_number(Fraction(total))}, not 1")
    elif not math.isclose(float(total), 1.0, rel_tol=0, abs_tol=1e-9):
        raise WmcdpError(f"discrete() probabilities sum to {float(total)!r}, not 1")
    c = current()
    guards: dict[int, int] = {}

    def split(lo: int, hi: int, guard: int) -> None:  # values[lo:hi] under ``guard``
        if hi - lo == 1:
            guards[values[lo]] = guard
            return
        mid = (lo + hi) // 2
        whole, upper = sum(ps[lo:hi]), sum(ps[mid:hi])
        pick_upper = c.random_var(min(upper / whole, 1) if whole > 0 else 0)
        split(lo, mid, c.conj(guard, c.negate(pick_upper)))
        split(mid, hi, c.conj(guard, pick_upper))

    split(0, len(values), TRUE)
    return Int(guards)


def uniform(lo: int, hi: int) -> Int:
    """A uniformly random Int in ``{lo, ..., hi}`` (both ends included), exact weights."""
    lo_i, hi_i = as_number(lo, "uniform lo"), as_number(hi, "uniform hi")
    if not isinstance(lo_i, int) or not isinstance(hi_i, int):
        raise WmcdpError("uniform() bounds must be integers")
    if lo_i > hi_i:
        raise WmcdpError(f"uniform({lo_i}, {hi_i}) is an empty range")
    k = hi_i - lo_i + 1
    return discrete({v: Fraction(1, k) for v in range(lo_i, hi_i + 1)})


def ite(cond: object, then: object, otherwise: object):
    """If-then-else on a symbolic condition; works on Bools, Ints and tuples/lists of them.

    The result is a Bool when both branches are Bools (or Python bools), else an Int.
    """
    if isinstance(cond, (bool, int)):  # a plain Python condition
        return then if cond else otherwise
    if not isinstance(cond, Bool):
        raise WmcdpError(f"ite() condition must be a Bool, got {type(cond).__name__}")
    c = current()
    sequences = isinstance(then, (tuple, list)), isinstance(otherwise, (tuple, list))
    if any(sequences):
        if not all(sequences) or len(then) != len(otherwise):  # type: ignore[arg-type]
            raise WmcdpError("ite() branches must both be tuples of the same length")
        return type(then)(ite(cond, a, b) for a, b in zip(then, otherwise))  # type: ignore[call-overload]
    if isinstance(then, (Bool, bool)) and isinstance(otherwise, (Bool, bool)):
        return Bool(c.ite(cond.node, _as_bool(then).node, _as_bool(otherwise).node))  # type: ignore[union-attr]
    a, b = _as_int(then), _as_int(otherwise)
    if a is None or b is None:
        raise WmcdpError(f"ite() cannot choose between {type(then).__name__} and {type(otherwise).__name__}")
    return Int({v: c.ite(cond.node, a.guards.get(v, FALSE), b.guards.get(v, FALSE))
                for v in set(a.guards) | set(b.guards)})
