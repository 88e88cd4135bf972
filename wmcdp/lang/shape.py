"""Output shapes: how a program's result is encoded as output bits ``y`` and decoded back.

A Bool is one bit (decoded as 0/1), an ``Int`` with range ``lo..hi`` is the binary code
of ``value - lo`` (MSB first), a constant inside a tuple takes no bits, and a tuple
concatenates its parts. ``values()`` enumerates the output space Y used by exhaustive
sets; values outside it have probability zero.

Outputs are also numbered: :meth:`Shape.index` is the position of a value in ``values()``
(mixed radix over the :func:`leaves`, the Bool and Int parts with their sizes), the order
in which counts lay out whole output distributions. A value of the wrong form (``0.0``
for an Int, a tuple of the wrong length) is an error, never coerced.
"""

from __future__ import annotations

import functools
import itertools
import numbers
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import SupportsInt, TypeGuard

import numpy as np

from ..base.errors import WmcdpError
from .circuit import Circuit
from .values import Bool, Compared, Int


class Shape:
    width: int

    def values(self) -> Iterator[object]:
        raise NotImplementedError

    def encode(self, value: object) -> list[int] | None:
        """The output bits of ``value``, or None when the program cannot output it."""
        raise NotImplementedError

    def decode(self, bits: list[int]) -> object:
        """The value whose output bits are ``bits`` (``len(bits) == width``)."""
        raise NotImplementedError

    @property
    def size(self) -> int:
        raise NotImplementedError

    @property
    def is_numeric(self) -> bool:
        return False

    def describe(self) -> str:
        raise NotImplementedError

    def offsets(self, value: object) -> list[int] | None:
        """Per leaf (:func:`leaves`), the position of ``value``'s part among the leaf's values;
        None if the program cannot output ``value``.

        Raises :class:`WmcdpError` when ``value`` does not have this shape's form.
        """
        out: list[int] = []
        for leaf, v in zip(leaves(self), self._leaf_values(value)):
            offset = leaf.offset(v)
            if offset is None:
                return None
            out.append(offset)
        return out

    def index(self, value: object) -> int | None:
        """The position of ``value`` in ``values()``, None if the program cannot output it."""
        offsets = self.offsets(value)
        if offsets is None:
            return None
        index = 0
        for leaf, offset in zip(leaves(self), offsets):
            index = index * leaf.size + offset
        return index

    def value_at(self, index: int) -> object:
        """The output value at position ``index`` of ``values()``."""
        parts: list[int] = []
        for leaf in reversed(leaves(self)):
            index, offset = divmod(index, leaf.size)
            parts.append(leaf.lo + offset if isinstance(leaf, IntShape) else offset)
        return self._build(iter(reversed(parts)))

    def _leaf_values(self, value: object) -> list[SupportsInt]:
        raise NotImplementedError

    def _build(self, parts: Iterator[int]) -> object:
        raise NotImplementedError


def _integer(value: object) -> TypeGuard[SupportsInt]:
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)))


class _Number(Shape):
    """A part of an output that is one number (a Bool's 0 or 1, an Int's value): one leaf."""

    is_numeric = True

    def _accepts(self, value: object) -> TypeGuard[SupportsInt]:
        return _integer(value)

    def _leaf_values(self, value: object) -> list[SupportsInt]:
        if not self._accepts(value):
            raise WmcdpError(f"output {value!r} is not of the program's output form ({self.describe()})")
        return [value]

    def _build(self, parts: Iterator[int]) -> object:
        return next(parts)


@dataclass(frozen=True)
class BoolShape(_Number):
    width = 1

    def values(self) -> Iterator[object]:
        return iter((0, 1))

    def encode(self, value: object) -> list[int] | None:
        return [int(value)] if value in (0, 1) and not isinstance(value, tuple) else None

    def decode(self, bits: list[int]) -> object:
        return bits[0]

    size = 2
    lo = 0

    def describe(self) -> str:
        return "0 or 1"

    def offset(self, value: SupportsInt) -> int | None:
        return int(value) if int(value) in (0, 1) else None

    def _accepts(self, value: object) -> TypeGuard[SupportsInt]:
        return _integer(value) or isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class IntShape(_Number):
    lo: int
    hi: int

    @property
    def width(self) -> int:  # type: ignore[override]
        return (self.hi - self.lo).bit_length()

    def values(self) -> Iterator[object]:
        return iter(range(self.lo, self.hi + 1))

    def encode(self, value: object) -> list[int] | None:
        if isinstance(value, tuple) or not isinstance(value, int) or not self.lo <= value <= self.hi:
            return None
        off, w = value - self.lo, self.width
        return [(off >> (w - 1 - k)) & 1 for k in range(w)]

    def decode(self, bits: list[int]) -> object:
        off = 0
        for b in bits:
            off = (off << 1) | b
        return self.lo + off

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    def describe(self) -> str:
        return f"an integer in {self.lo}..{self.hi}"

    def offset(self, value: SupportsInt) -> int | None:
        v = int(value)
        return v - self.lo if self.lo <= v <= self.hi else None


@dataclass(frozen=True)
class ConstShape(Shape):
    value: object
    width = 0
    size = 1

    def values(self) -> Iterator[object]:
        return iter((self.value,))

    def encode(self, value: object) -> list[int] | None:
        return [] if value == self.value else None

    def decode(self, bits: list[int]) -> object:
        return self.value

    def describe(self) -> str:
        return repr(self.value)

    def _leaf_values(self, value: object) -> list[SupportsInt]:
        if value != self.value:
            raise _NoOutput
        return []

    def _build(self, parts: Iterator[int]) -> object:
        return self.value


#: an output part that takes bits: a Bool or an Int
Leaf = BoolShape | IntShape  # noqa: E305


class _NoOutput(Exception):
    """A constant part of a tuple output differs: the program cannot output the value."""


@dataclass(frozen=True)
class TupleShape(Shape):
    parts: tuple[Shape, ...]

    @property
    def width(self) -> int:  # type: ignore[override]
        return sum(p.width for p in self.parts)

    @property
    def size(self) -> int:
        total = 1
        for p in self.parts:
            total *= p.size
        return total

    def values(self) -> Iterator[object]:
        return itertools.product(*(p.values() for p in self.parts))

    def decode(self, bits: list[int]) -> object:
        out: list[object] = []
        k = 0
        for part in self.parts:
            out.append(part.decode(bits[k : k + part.width]))
            k += part.width
        return tuple(out)

    def encode(self, value: object) -> list[int] | None:
        if not isinstance(value, (tuple, list)) or len(value) != len(self.parts):
            return None
        bits: list[int] = []
        for part, v in zip(self.parts, value):
            b = part.encode(v)
            if b is None:
                return None
            bits.extend(b)
        return bits

    def describe(self) -> str:
        return "(" + ", ".join(p.describe() for p in self.parts) + ")"

    def offsets(self, value: object) -> list[int] | None:
        flat = self._flat_bounds
        if (
            flat is not None
            and isinstance(value, (tuple, list))
            and len(value) == len(self.parts)
            and set(map(type, value)) <= {int}
        ):  # every part a Bool or Int: one vectorised check
            lo, hi = flat
            if not all(-(1 << 62) < v < 1 << 62 for v in value):  # past int64: outside every part's range
                return None
            off = np.fromiter(value, dtype=np.int64, count=len(value)) - lo
            return None if (off < 0).any() or (off > hi - lo).any() else off.tolist()
        try:
            return super().offsets(value)
        except _NoOutput:
            return None

    @functools.cached_property
    def _flat_bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Lower and upper ends of the parts when every part is a Bool or an Int (else None)."""
        if not all(isinstance(p, (BoolShape, IntShape)) for p in self.parts):
            return None
        return (
            np.array([p.lo for p in self.parts], dtype=np.int64),  # type: ignore[attr-defined]
            np.array([p.lo + p.size - 1 for p in self.parts], dtype=np.int64),  # type: ignore[attr-defined]
        )

    def _leaf_values(self, value: object) -> list[SupportsInt]:
        if not isinstance(value, (tuple, list)) or len(value) != len(self.parts):
            raise WmcdpError(f"output {value!r} is not of the program's output form {self.describe()}")
        out: list[SupportsInt] = []
        for part, v in zip(self.parts, value):
            out.extend(part._leaf_values(v))
        return out

    def _build(self, parts: Iterator[int]) -> object:
        return tuple(part._build(parts) for part in self.parts)


@functools.lru_cache(maxsize=64)
def leaves(shape: Shape) -> tuple[Leaf, ...]:
    """The Bool and Int parts of an output shape, in output order (constants take no bits)."""
    if isinstance(shape, TupleShape):
        return tuple(leaf for part in shape.parts for leaf in leaves(part))
    return (shape,) if isinstance(shape, (BoolShape, IntShape)) else ()  # a ConstShape takes no bits


def shape_of(result: object, circuit: Circuit, *, top: bool = True) -> tuple[Shape, list[int]]:
    """The shape of a program's result and the circuit node of each of its output bits."""
    if isinstance(result, Bool):
        return BoolShape(), [result.node]
    if isinstance(result, Compared):
        result._refused()
    if isinstance(result, Int):
        shape = IntShape(result.lo, result.hi)
        w = shape.width
        roots = [
            circuit.any(g for v, g in result.guards.items() if ((v - result.lo) >> (w - 1 - k)) & 1) for k in range(w)
        ]
        return shape, roots
    if isinstance(result, (tuple, list)):
        parts, roots = [], []
        for item in result:
            s, r = shape_of(item, circuit, top=False)
            parts.append(s)
            roots.extend(r)
        return TupleShape(tuple(parts)), roots
    if not top and isinstance(result, (bool, int)):
        return ConstShape(int(result)), []
    if not top and isinstance(result, str):
        return ConstShape(result), []
    raise WmcdpError(
        f"the program returned {type(result).__name__} {result!r}, not a symbolic value (Bool, Int, or a tuple of them)"
    )


def format_value(value: object) -> str:
    """Compact text for an input or output: bit tuples as ``0101``, other tuples as ``(1, 2)``."""
    if isinstance(value, tuple) and value and all(v in (0, 1) and isinstance(v, int) for v in value):
        return "".join(str(v) for v in value)
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    return str(value)


#: a value whose :func:`format_value` text is longer than this is written with runs (:func:`witness_text`)
RUNS_FROM = 80
#: the shortest run of equal entries written as ``value^count``
RUN = 4
#: the most entries :func:`read_witness` builds in one bit vector or tuple unless told otherwise
MAX_ENTRIES = 1 << 26


def witness_text(value: object) -> str:
    """Text for a witness of any length: :func:`format_value` when that is at most :data:`RUNS_FROM` characters
    or no longer than the *runs form*; else the runs form, which :func:`read_witness` reads back exactly:

    - a bit vector is groups separated by spaces: a maximal run of ``k >= RUN`` equal bits is ``b^k``, the bits
      between such runs are written out (``0^99999 1``, ``1101 0^40 11``);
    - any other tuple is ``(item, item, ...)``; a maximal run of ``k >= RUN`` equal entries is one item
      ``text^k`` (``(3^500, 2)``); a bit vector inside it is bracketed, ``[0^50 1]``, to tell it from an integer;
    - an integer (or a text constant) is written as it is.
    """
    plain = format_value(value)
    if len(plain) <= RUNS_FROM:
        return plain
    runs = _runs(value, top=True)
    return runs if len(runs) < len(plain) else plain


def _is_bits(value: object) -> bool:
    return isinstance(value, tuple) and bool(value) and all(v in (0, 1) and isinstance(v, int) for v in value)


def _runs(value: object, top: bool) -> str:
    if isinstance(value, tuple) and _is_bits(value):
        groups: list[str] = []
        for bit, run in itertools.groupby(value):
            k = len(list(run))
            if k >= RUN:
                groups.append(f"{bit}^{k}")
            elif groups and "^" not in groups[-1]:
                groups[-1] += str(bit) * k
            else:
                groups.append(str(bit) * k)
        text = " ".join(groups)
        return text if top else f"[{text}]"
    if isinstance(value, tuple):
        items = []
        for item, run in itertools.groupby(value):
            k = len(list(run))
            text = _runs(item, top=False)
            items += [f"{text}^{k}"] if k >= RUN else [text] * k
        return "(" + ", ".join(items) + ")"
    return str(value)


def read_witness(text: str, most: int = MAX_ENTRIES) -> object:
    """The value of a :func:`witness_text` in the runs form (or of a plain bit string such as ``0101``): a bit
    vector, an integer, or a tuple of these (nested), as :func:`witness_text` describes. Digits are ASCII only;
    a bit vector or tuple of more than ``most`` entries is refused before it is built."""
    reader = _Reader(text.strip(), most)
    value = reader.value(top=True)
    if reader.rest:
        raise WmcdpError(f"cannot read {text[:60]!r}: unexpected {reader.rest[:20]!r}")
    return value


class _Reader:
    """A recursive-descent reader of the runs form; ``rest`` is the text not read yet, ``most`` the longest
    bit vector or tuple it builds."""

    _BITS = re.compile(r"[01]+(\^[0-9]+)?( [01]+(\^[0-9]+)?)*")
    _INT = re.compile(r"-?[0-9]+")
    _WORD = re.compile(r"[^,()\[\]^]+")

    def __init__(self, text: str, most: int):
        self.rest = text
        self.most = most

    def _take(self, pattern: re.Pattern[str]) -> str:
        m = pattern.match(self.rest)
        if not m:
            raise WmcdpError(f"cannot read the witness text at {self.rest[:20]!r}")
        self.rest = self.rest[m.end() :]
        return m.group(0)

    def _expect(self, token: str) -> None:
        if not self.rest.startswith(token):
            raise WmcdpError(f"cannot read the witness text at {self.rest[:20]!r}: expected {token!r}")
        self.rest = self.rest[len(token) :]

    def _grow(self, length: int, count: str) -> int:
        """``length`` entries read so far plus a run of ``count``: the new length, refused past :attr:`most`
        (from the count's number of digits first, so a count of any size costs nothing)."""
        if len(count.lstrip("0")) > len(str(self.most)) or length + int(count) > self.most:
            raise WmcdpError(f"the runs form has more than {self.most} entries (a run of {count[:30]})")
        return length + int(count)

    def _bits(self) -> tuple[int, ...]:
        out: list[int] = []
        for group in self._take(self._BITS).split(" "):
            digits, _, count = group.partition("^")
            self._grow(len(out), count or str(len(digits)))
            out += [int(digits)] * int(count) if count else [int(d) for d in digits]
        return tuple(out)

    def value(self, top: bool = False) -> object:
        if self.rest.startswith("("):
            self._expect("(")
            items: list[object] = []
            while not self.rest.startswith(")"):
                if items:
                    self._expect(", ")
                item = self.value()
                count = "1"
                if self.rest.startswith("^"):
                    self._expect("^")
                    count = self._take(self._INT)
                self._grow(len(items), count)
                items += [item] * int(count)
            self._expect(")")
            return tuple(items)
        if top and self._BITS.fullmatch(self.rest):
            return self._bits()
        if self.rest.startswith("["):
            self._expect("[")
            bits = self._bits()
            self._expect("]")
            return bits
        word = self._take(self._WORD)
        return int(word) if self._INT.fullmatch(word) else word


def jsonable(value: object) -> object:
    """Inputs and outputs as JSON: tuples become lists."""
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    return value


__all__ = [
    "Shape",
    "BoolShape",
    "IntShape",
    "ConstShape",
    "TupleShape",
    "shape_of",
    "leaves",
    "format_value",
    "witness_text",
    "read_witness",
    "jsonable",
]
