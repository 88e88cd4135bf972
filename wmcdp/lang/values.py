"""Symbolic values of the DSL: :class:`Bool`, bounded :class:`Int`, and the random primitives.

While a program is traced, every operation on these values adds gates to the active
:class:`~wmcdp.lang.circuit.Circuit`. An ``Int`` is kept *one-hot*: a map from each value
it can take to the formula that selects it. Its range is therefore exact, arithmetic
widens instead of wrapping, and comparisons are plain disjunctions of guards.
Python ``bool``/``int`` constants mix freely with symbolic values.
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, NoReturn, Union

import numpy as np

from ..base.errors import WmcdpError
from ..base.numbers import as_int, format_number, is_exact, is_symbolic, probability
from .circuit import FALSE, NOT, TRUE, Circuit
from .weights import BitWeight, flip_weight, log_split_weight, split_weight

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

    def __invert__(self) -> Bool:
        return Bool(current().negate(self.node))

    def _bin(self, other: object, op: Callable[[Circuit, int, int], int]) -> Bool:
        o = _as_bool(other)
        if o is None:
            return NotImplemented  # type: ignore[no-any-return]  # (typeshed types it as Any) Python tries the other side
        return Bool(op(current(), self.node, o.node))

    def __and__(self, other: object) -> Bool:
        return self._bin(other, Circuit.conj)

    def __or__(self, other: object) -> Bool:
        return self._bin(other, Circuit.disj)

    def __xor__(self, other: object) -> Bool:
        return self._bin(other, Circuit.xor)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __eq__(self, other: object) -> Bool:  # type: ignore[override]  # symbolic: a Bool, not a bool
        if isinstance(other, Int) or (isinstance(other, int) and not isinstance(other, bool) and other not in (0, 1)):
            return self.as_int() == other
        o = _as_bool(other)
        if o is None:
            return NotImplemented
        return ~Bool(current().xor(self.node, o.node))

    def __ne__(self, other: object) -> Bool:  # type: ignore[override]
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq

    __hash__ = None  # type: ignore[assignment]

    def as_int(self) -> Int:
        """This Boolean as the integer 0 or 1."""
        c = current()
        return Int({0: c.negate(self.node), 1: self.node})

    # arithmetic treats a Bool as 0/1, so sum(bools) counts
    def __add__(self, other: object) -> Int:
        return self.as_int() + other

    def __radd__(self, other: object) -> Int:
        return self.as_int() + other

    def __sub__(self, other: object) -> Int:
        return self.as_int() - other

    def __rsub__(self, other: object) -> Int:
        return (-self.as_int()) + other

    def __mul__(self, other: object) -> Int:
        return self.as_int() * other

    __rmul__ = __mul__

    def __neg__(self) -> Int:
        return -self.as_int()

    def __abs__(self) -> Int:
        return self.as_int()

    def __lt__(self, other: object) -> Bool:
        return self.as_int() < other

    def __le__(self, other: object) -> Bool:
        return self.as_int() <= other

    def __gt__(self, other: object) -> Bool:
        return self.as_int() > other

    def __ge__(self, other: object) -> Bool:
        return self.as_int() >= other

    def clamp(self, lo: int, hi: int) -> Int:
        return self.as_int().clamp(lo, hi)


def _as_bool(value: object) -> Bool | None:
    if isinstance(value, Bool):
        return value
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return Bool(TRUE if value else FALSE)
    return None


def _unsupported(op: str, kind: str, supported: str) -> Callable[..., NoReturn]:
    def method(self: object, *args: object) -> NoReturn:
        raise WmcdpError(f"the DSL has no {op} on {kind} values; {kind} supports {supported}")

    return method


#: the Python operators the DSL has on no value (the special method, the operator)
_NO_OPERATORS = (
    ("__mod__", "%"),
    ("__rmod__", "%"),
    ("__floordiv__", "//"),
    ("__rfloordiv__", "//"),
    ("__truediv__", "/"),
    ("__rtruediv__", "/"),
    ("__pow__", "**"),
    ("__rpow__", "**"),
    ("__lshift__", "<<"),
    ("__rshift__", ">>"),
    ("__rlshift__", "<<"),
    ("__rrshift__", ">>"),
)
#: the bitwise operators: a Bool's, not an Int's
_BITWISE = (
    ("__and__", "&"),
    ("__rand__", "&"),
    ("__or__", "|"),
    ("__ror__", "|"),
    ("__xor__", "^"),
    ("__rxor__", "^"),
    ("__invert__", "~"),
)


def _refuse(cls: type, operators: Sequence[tuple[str, str]], supported: str) -> None:
    """Give ``cls`` each of ``operators`` as a method that raises one clear error naming what ``cls`` supports."""
    for name, op in operators:
        setattr(cls, name, _unsupported(op, cls.__name__, supported))


_refuse(Bool, _NO_OPERATORS, "& | ^ ~ == != and, as 0/1, + - * and comparisons")


IntLike = Union["Int", Bool, int]


class Int:
    """A symbolic bounded integer: ``{value: guard}`` with pairwise exclusive guards.

    A sum of Ints is kept as its list of terms until its guards are first read; it is then added
    up from the most recently traced term to the first one (by the largest gate of each term). In
    the decision diagram each new term's bits then sit *above* the partial sum it joins, which
    costs a node per guard, so ``sum(x_i ^ flip(p) for x_i in x)`` compiles in O(n^2) whichever
    order it is written in (summed first term first, the partial sums would lie above each new bit
    and every addition would copy them: O(n^3)). The value is the same function either way.
    """

    __slots__ = ("_guards", "_terms")

    def __init__(self, guards: Mapping[int, int]) -> None:
        self._guards: dict[int, int] | None = {v: g for v, g in sorted(guards.items()) if g != FALSE}
        self._terms: tuple[Int, ...] | None = None
        if not self._guards:
            raise WmcdpError("an Int must be able to take at least one value")

    @classmethod
    def _sum(cls, terms: tuple[Int, ...]) -> Int:
        """A sum of ``terms`` not yet added up: each term is a traced Int, or a sum not yet formed when it joined
        (kept as itself and expanded by :meth:`_flat`, so ``+`` costs O(1) and ``sum`` over n terms O(n))."""
        out = cls.__new__(cls)
        out._guards, out._terms = None, terms
        return out

    def _part(self) -> Int:
        """This Int as one term of a new sum: itself, or (a sum whose total was formed) a copy of its total."""
        return self if self._guards is None or self._terms is None else Int._atom(self._guards)

    @classmethod
    def _atom(cls, guards: dict[int, int]) -> Int:
        out = cls.__new__(cls)
        out._guards, out._terms = guards, None
        return out

    def _flat(self) -> list[Int]:
        """The terms of this sum as they were when each part joined it, in order."""
        out: list[Int] = []
        stack = [self]
        while stack:
            t = stack.pop()
            if t._terms is None:
                out.append(t)
            else:
                stack.extend(reversed(t._terms))
        return out

    @property
    def guards(self) -> dict[int, int]:
        if self._guards is None:
            gates = current().gates  # a term's place: its latest gate, a negation counted as the gate it negates
            terms = sorted(
                self._flat(),
                reverse=True,
                key=lambda t: max(gates[g][1] if gates[g][0] == NOT else g for g in t.guards.values()),
            )
            total = terms[0]
            for term in terms[1:]:
                total = total._combine(term, lambda a, b: a + b)
            self._guards = total.guards
        return self._guards

    @property
    def terms(self) -> list[Int] | None:
        """The terms of a sum whose total was never formed (its guards never read), else None."""
        return None if self._terms is None or self._guards is not None else self._flat()

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
    def const(value: int) -> Int:
        return Int({value: TRUE})

    def _combine(self, other: object, f: Callable[[int, int], int]) -> Int:
        o = _as_int(other)
        if o is None:
            return NotImplemented  # type: ignore[no-any-return]  # (typeshed types it as Any) Python tries the other side
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
            return NotImplemented  # type: ignore[no-any-return]  # (typeshed types it as Any) Python tries the other side
        c = current()
        return Bool(c.any(c.conj(ga, gb) for a, ga in self.guards.items() for b, gb in o.guards.items() if f(a, b)))

    def __add__(self, other: object) -> Int:
        o = _as_int(other)
        if o is None:
            return NotImplemented
        return Int._sum((self._part(), o._part()))

    def __sub__(self, other: object) -> Int:
        return self._combine(other, lambda a, b: a - b)

    def __mul__(self, other: object) -> Int:
        return self._combine(other, lambda a, b: a * b)

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other: object) -> Int:
        return self._combine(other, lambda a, b: b - a)

    def __neg__(self) -> Int:
        return Int({-v: g for v, g in self.guards.items()})

    def __abs__(self) -> Int:
        c = current()
        out: dict[int, int] = {}
        for v, g in self.guards.items():
            out[abs(v)] = c.disj(out.get(abs(v), FALSE), g)
        return Int(out)

    def __lt__(self, other: object) -> Bool:
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other: object) -> Bool:
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other: object) -> Bool:
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other: object) -> Bool:
        return self._compare(other, lambda a, b: a >= b)

    def __eq__(self, other: object) -> Bool:  # type: ignore[override]  # symbolic: a Bool, not a bool
        return self._compare(other, lambda a, b: a == b)

    def __ne__(self, other: object) -> Bool:  # type: ignore[override]
        return self._compare(other, lambda a, b: a != b)

    __hash__ = None  # type: ignore[assignment]

    def clamp(self, lo: int, hi: int) -> Int:
        """``min(max(self, lo), hi)`` (post-processing onto ``{lo..hi}``)."""
        lo, hi = as_int(lo, "clamp lo"), as_int(hi, "clamp hi")
        if lo > hi:
            raise WmcdpError(f"clamp range {lo}..{hi} is empty")
        c = current()
        out: dict[int, int] = {}
        for v, g in self.guards.items():
            w = min(max(v, lo), hi)
            out[w] = c.disj(out.get(w, FALSE), g)
        return Int(out)


_refuse(Int, _NO_OPERATORS + _BITWISE, "+ - * abs, < <= > >= == !=, clamp and ite")


class Released(Int):
    """A released value whose tails are merged (:func:`wmcdp.lang.unbounded.released_geometric`): an output only.

    Its two ``ends`` (its least and greatest values when released) stand for every value at or below and at or
    above them, which is exact for every privacy notion only when nothing else reads the value: any arithmetic or
    comparison on it is refused, and :func:`ite` keeps it a release beside a whole number strictly between its ends:
    the merged output is then the published one with its tails merged, a post-processing both ways (a constant at or
    beyond an end would be told apart from, or merged with, a tail value it may equal; a second release has another
    tail law).
    """

    __slots__ = ("ends",)

    def __init__(self, guards: Mapping[int, int], ends: tuple[int, int] | None = None) -> None:
        super().__init__(guards)
        self.ends = (self.lo, self.hi) if ends is None else ends

    def _refused(self, *args: object) -> Any:
        raise WmcdpError(
            "a released value with merged tails is an output only (its least and greatest values stand for the "
            "tails): compute with the value before its release"
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = __abs__ = _refused
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = clamp = _combine = _compare = _refused  # type: ignore[assignment]


class Deferred:
    """A value formed only once the program's output is read: :class:`wmcdp.lang.releases.ReleasedSum`."""

    __slots__ = ()

    def materialized(self) -> Int:
        """The value formed now, for :func:`ite`."""
        raise NotImplementedError


class Compared(Int):
    """A draw on all of the integers that is only compared with values in ``against = (lo, hi)``, its tails merged
    (:func:`wmcdp.lang.unbounded.compared_geometric`): ``lo - 1`` stands for every value at most ``lo - 1`` and
    ``hi + 1`` for every value at least ``hi + 1``.

    A comparison (``< <= > >= == !=``) with a value in ``lo..hi`` has one outcome at every value a tail stands for
    (each is below, or above, every value it is compared with), so every such comparison has its exact law; a
    comparison with a value outside ``lo..hi`` or with another compared draw, any arithmetic, ``clamp``,
    :func:`ite` and releasing the draw are refused, each with one clear error.
    """

    __slots__ = ("against",)

    def __init__(self, guards: Mapping[int, int], against: tuple[int, int]) -> None:
        super().__init__(guards)
        self.against = against

    def _refused(self, *args: object) -> Any:
        lo, hi = self.against
        raise WmcdpError(
            f"a compared draw (its tails merged beyond {lo}..{hi}) may only be compared with values in {lo}..{hi}: "
            "draw it with geometric() to compute with it or release it"
        )

    def _checked(self, other: object, f: Callable[[int, int], bool]) -> Bool:
        """``f(self, other)`` as :meth:`Int._compare`, once ``other``'s values are shown to lie in ``against``."""
        o = _as_int(other)  # (another compared draw, or a release, is refused here)
        if o is None:
            return NotImplemented  # type: ignore[no-any-return]  # Python tries the other side
        lo, hi = self.against
        if o.lo < lo or o.hi > hi:
            raise WmcdpError(
                f"a compared draw is compared with a value in {o.lo}..{o.hi}, outside {lo}..{hi}, the values its "
                "merged tails are exact against: widen its against=(lo, hi)"
            )
        return Int._compare(self, o, f)

    def __lt__(self, other: object) -> Bool:
        return self._checked(other, lambda a, b: a < b)

    def __le__(self, other: object) -> Bool:
        return self._checked(other, lambda a, b: a <= b)

    def __gt__(self, other: object) -> Bool:
        return self._checked(other, lambda a, b: a > b)

    def __ge__(self, other: object) -> Bool:
        return self._checked(other, lambda a, b: a >= b)

    def __eq__(self, other: object) -> Bool:  # type: ignore[override]
        return self._checked(other, lambda a, b: a == b)

    def __ne__(self, other: object) -> Bool:  # type: ignore[override]
        return self._checked(other, lambda a, b: a != b)

    __hash__ = None
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = __abs__ = _refused
    clamp = _combine = _compare = _refused  # type: ignore[assignment]


def _as_int(value: object) -> Int | None:
    """A symbolic Int for an Int, a Bool (0/1) or a whole number; None for other types.

    A float (even 2.0) is an error: the DSL's integers are exact and a float operand is
    almost always a mistake in the program. A :class:`Released` value is an output only, a :class:`Compared` one is
    only compared: an error.
    """
    if isinstance(value, (Released, Compared)):
        value._refused()
    if isinstance(value, Int):
        return value
    if isinstance(value, Bool):
        return value.as_int()
    if isinstance(value, (bool, np.bool_)):
        return Int.const(int(value))
    if isinstance(value, numbers.Integral):
        return Int.const(int(value))
    if isinstance(value, numbers.Real):
        raise WmcdpError(f"Int arithmetic and comparisons take whole numbers, got the float {value!r}")
    return None


# -- random primitives ---------------------------------------------------------------


def _exact_float(p: object, name: str = "probability", exact_floats: bool | None = None) -> object:
    """In exact-float mode a float probability becomes the exact rational value of its binary64. In float
    mode a subnormal float (below 2^-1022) is refused: it has fewer than 53 significant bits, so float
    mode's promise (agreement with exact mode to 1e-12) would not hold."""
    if isinstance(p, float):
        if current().exact_floats if exact_floats is None else exact_floats:
            return Fraction(p)
        if 0 < p < sys.float_info.min:
            raise WmcdpError(
                f"{name} {p!r} is a subnormal float (below 2^-1022): give a fraction, or use --exact or --exact-floats"
            )
    return p


#: at most this many value combinations for a random choice whose weights depend on symbolic values
MAX_SELECTIONS = 1 << 14


def _selected(name: str, weights: Callable[..., Any], given: Sequence[object], make: Callable[[Any], Int]) -> Int:
    """A random choice whose weights depend on symbolic values: for every combination of the values ``given``
    can take, a fresh choice ``make(weights(*values))`` guarded by that combination. Exactly one combination
    holds on any input, so the result has, given the values, exactly the distribution ``weights`` names."""
    ints = []
    for g in given:
        as_int = _as_int(g)
        if as_int is None:
            raise WmcdpError(f"{name}() takes symbolic Ints, Bools or whole numbers after its weights, got {g!r}")
        ints.append(as_int)
    count = math.prod(len(i.guards) for i in ints)
    if count > MAX_SELECTIONS:
        raise WmcdpError(
            f"{name}() with weights that depend on its inputs needs one choice per combination of their values: "
            f"{count} combinations (limit {MAX_SELECTIONS})"
        )
    c = current()
    out: dict[int, int] = {}
    combos: list[tuple[tuple[int, ...], int]] = [((), TRUE)]
    for i in ints:
        combos = [(values + (v,), c.conj(guard, g)) for values, guard in combos for v, g in i.guards.items()]
    for values, guard in combos:
        if guard == FALSE:
            continue
        for z, gz in make(weights(*values)).guards.items():
            out[z] = c.disj(out.get(z, FALSE), c.conj(guard, gz))
    return Int(out)


def flip(p: object, *given: object) -> Bool:
    """A fresh random Boolean, true with probability ``p`` (float, Fraction or "1/5").

    ``flip(fn, x, ...)`` with a function ``fn``: true with probability ``fn(v, ...)`` where ``v, ...`` are the
    values the symbolic ``x, ...`` take (a choice per combination of values, selected by them)."""
    if callable(p) and not is_symbolic(p):  # a function of the given values (not a parameter)
        chosen = _selected("flip", p, given, lambda q: flip(q).as_int())
        return Bool(chosen.guards.get(1, FALSE))
    if given:
        raise WmcdpError("flip() takes values after its probability only when the probability is a function of them")
    c = current()
    if type(p) in (float, Fraction, int):  # a plain number: its weights are those of the last flip of it
        return Bool(c.random_var(_plain_weight(p, c.exact_floats)))
    q = probability(p, "flip probability")
    return Bool(c.random_var(flip_weight(_exact_float(q, "flip probability"))))  # type: ignore[arg-type]


@functools.lru_cache(maxsize=1024, typed=True)
def _plain_weight(p: float | Fraction | int, exact_floats: bool) -> BitWeight:
    """The weights of ``flip(p)`` for a plain number ``p`` (validated, and exact when ``exact_floats``), kept for
    the next flip of the same ``p``: a program of ``n`` users draws ``n`` flips of one probability, and checking
    and converting it costs more than the rest of tracing a flip. ``typed``: 0.5 and 1/2 are kept apart."""
    q = probability(p, "flip probability")
    return flip_weight(_exact_float(q, "flip probability", exact_floats))  # type: ignore[arg-type]


def _tree(values: Sequence[int], split: Callable[[int, int, int], BitWeight]) -> Int:
    """A random Int over ``values`` drawn down a balanced binary tree of flips.

    ``split(lo, mid, hi)`` gives the weights of the flip that picks ``values[mid:hi]``
    (true) over ``values[lo:mid]`` (false) among ``values[lo:hi]``.
    """
    c = current()
    guards: dict[int, int] = {}
    stack = [(0, len(values), TRUE)]
    while stack:
        lo, hi, guard = stack.pop()
        if hi - lo == 1:
            guards[values[lo]] = guard
            continue
        mid = (lo + hi) // 2
        pick_upper = c.random_var(split(lo, mid, hi))
        stack.append((mid, hi, c.conj(guard, pick_upper)))
        stack.append((lo, mid, c.conj(guard, c.negate(pick_upper))))
    return Int(guards)


def _values(keys: Sequence[object]) -> list[int]:
    values = []
    for v in keys:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise WmcdpError("discrete() values must be integers")
        values.append(int(v))
    if len(set(values)) != len(values):
        raise WmcdpError("discrete() values must be distinct")
    return values


def discrete(probs: Sequence[object] | Mapping[int, object] | Callable[..., object], *given: object) -> Int:
    """A random Int taking value ``i`` (or key ``v``) with the given probability.

    ``discrete(fn, x, ...)`` with a function ``fn``: the probabilities ``fn(v, ...)`` for the values ``v, ...``
    that the symbolic ``x, ...`` take (the exponential mechanism is ``discrete(scores, x)``): a choice per
    combination of values, selected by them.

    The choice is encoded as a balanced binary tree of flips over the values in order:
    each flip picks the upper half of its range with weight ``P(upper half) / P(range)``
    and the lower half with ``P(lower half) / P(range)``, both from the halves' own sums
    (exact for Fractions), so a comparison ``v > t`` reads only the flips on one
    root-to-leaf path (about log2 of the number of values). In exact-float mode each float
    weight is read as its exact binary64 value and the weights are divided by their exact sum.
    """
    if callable(probs) and not is_symbolic(probs):
        return _selected("discrete", probs, given, discrete)
    if given:
        raise WmcdpError(
            "discrete() takes values after its probabilities only when the probabilities are a function of them"
        )
    items = sorted(probs.items()) if isinstance(probs, Mapping) else list(enumerate(probs))  # type: ignore[arg-type]
    if not items:
        raise WmcdpError("discrete() needs at least one probability")
    values = _values([v for v, _ in items])
    ps = [probability(p, f"discrete probability of {v}") for v, p in zip(values, (p for _, p in items))]
    ps = [p if current().exact_floats else _exact_float(p, f"discrete probability of {v}") for v, p in zip(values, ps)]  # type: ignore[misc]
    if all(is_exact(p) for p in ps):
        total = sum(ps)
        if total != 1:
            shown = total if is_symbolic(total) else format_number(Fraction(total))
            raise WmcdpError(f"discrete() probabilities sum to {shown}, not 1")
    else:
        total = math.fsum(float(p) for p in ps)
        if not math.isclose(total, 1.0, rel_tol=0, abs_tol=1e-9):
            raise WmcdpError(f"discrete() probabilities sum to {total!r}, not 1")
        ps = [_exact_float(p) for p in ps]  # type: ignore[misc]
    return _tree(values, lambda lo, mid, hi: split_weight(ps[mid:hi], ps[lo:mid]))


def discrete_logs(log_probs: Mapping[int, float]) -> Int:
    """A random Int with ``P(v) = exp(log_probs[v])`` given as natural logs (float mode).

    For distributions whose probabilities underflow a float (the truncated geometric with
    a tiny ratio): each flip's two weights come from log-sums of its halves.
    """
    items = sorted(log_probs.items())
    values = _values([v for v, _ in items])
    logs = [float(lp) for _, lp in items]
    return _tree(values, lambda lo, mid, hi: log_split_weight(logs[mid:hi], logs[lo:mid]))


def uniform(lo: int, hi: int) -> Int:
    """A uniformly random Int in ``{lo, ..., hi}`` (both ends included), exact weights."""
    lo_i, hi_i = as_int(lo, "uniform lo"), as_int(hi, "uniform hi")
    if lo_i > hi_i:
        raise WmcdpError(f"uniform({lo_i}, {hi_i}) is an empty range")
    k = hi_i - lo_i + 1
    return _tree(
        list(range(lo_i, hi_i + 1)), lambda a, mid, b: split_weight([Fraction(b - mid, k)], [Fraction(mid - a, k)])
    )


def ite(cond: object, then: object, otherwise: object) -> Any:
    """If-then-else on a symbolic condition; works on Bools, Ints and tuples/lists of them.

    The result is a Bool when both branches are Bools (or Python bools), else an Int.
    """
    if isinstance(cond, (bool, np.bool_, numbers.Integral)):  # a plain Python condition
        return then if cond else otherwise
    if not isinstance(cond, Bool):
        raise WmcdpError(f"ite() condition must be a Bool, got {type(cond).__name__}")
    c = current()
    sequences = isinstance(then, (tuple, list)), isinstance(otherwise, (tuple, list))
    if any(sequences):
        if not all(sequences) or len(then) != len(otherwise):  # type: ignore[arg-type]
            raise WmcdpError("ite() branches must both be tuples of the same length")
        return type(then)(ite(cond, a, b) for a, b in zip(then, otherwise))  # type: ignore[call-arg, call-overload]
    if isinstance(then, (Bool, bool, np.bool_)) and isinstance(otherwise, (Bool, bool, np.bool_)):
        return Bool(c.ite(cond.node, _as_bool(then).node, _as_bool(otherwise).node))  # type: ignore[union-attr]
    then, otherwise = (side.materialized() if isinstance(side, Deferred) else side for side in (then, otherwise))
    releases = [side for side in (then, otherwise) if isinstance(side, Released)]
    a, b = (side if isinstance(side, Released) else _as_int(side) for side in (then, otherwise))
    if a is None or b is None:
        raise WmcdpError(f"ite() cannot choose between {type(then).__name__} and {type(otherwise).__name__}")
    guards = {
        v: c.ite(cond.node, a.guards.get(v, FALSE), b.guards.get(v, FALSE)) for v in set(a.guards) | set(b.guards)
    }
    if not releases:
        return Int(guards)
    other = otherwise if releases[0] is then else then
    lo, hi = releases[0].ends
    if len(releases) > 1 or not isinstance(other, numbers.Integral) or not lo < int(other) < hi:
        raise WmcdpError(  # (the docstring of Released)
            f"ite() keeps a released value with merged tails (its ends {lo} and {hi} stand for the tails) only beside "
            f"a whole number strictly between its ends, got {other!r}: choose between exact values and release the "
            "choice"
        )
    return Released(guards, releases[0].ends)
