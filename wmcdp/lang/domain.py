"""`Vector`: the finite input domain ``{lo..hi}^n`` of a program, its order and its checks of inputs.

:mod:`wmcdp.lang.program` declares a program's inputs with one (:func:`~wmcdp.lang.program.Bits`,
:func:`~wmcdp.lang.program.IntVector`), and the neighbour relations of :mod:`wmcdp.lang.relations` walk one; it is
here, below both, so that neither imports the other for it.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import WmcdpError, brief
from ..base.numbers import as_int
from .shape import witness_text

#: the most entries an input vector may have, so that a larger domain is refused before anything is traced
#: (randomized response's product plan takes about 15 s of CPU at 10^5 entries and minutes at 2^20)
MAX_ENTRIES = 1 << 20


@dataclass(frozen=True)
class Vector:
    """Input domain ``{lo..hi}^n``; with ``lo, hi = 0, 1`` the entries are Bools (bits)."""

    n: int
    lo: int = 0
    hi: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", as_int(self.n, "the number of input entries"))
        object.__setattr__(self, "lo", as_int(self.lo, "the input range's lower end"))
        object.__setattr__(self, "hi", as_int(self.hi, "the input range's upper end"))
        if self.n < 1:
            raise WmcdpError(f"an input vector needs at least one entry, got n = {self.n}")
        if self.n > MAX_ENTRIES:
            raise WmcdpError(f"an input vector of n = {self.n} entries is over the limit of {MAX_ENTRIES} entries")
        if self.lo > self.hi:
            raise WmcdpError(f"input range {self.lo}..{self.hi} is empty")

    @property
    def is_bits(self) -> bool:
        return (self.lo, self.hi) == (0, 1)

    @property
    def entry_values(self) -> range:
        return range(self.lo, self.hi + 1)

    @property
    def size(self) -> int:
        return int(len(self.entry_values) ** self.n)

    def values(self) -> Iterator[tuple[int, ...]]:
        """Every input, in lexicographic order."""
        return itertools.product(self.entry_values, repeat=self.n)

    def code(self, x: tuple[int, ...]) -> int:
        """The position of ``x`` in :meth:`values` (entries are digits base ``hi - lo + 1``, entry 0 first)."""
        k, code = len(self.entry_values), 0
        for v in x:
            code = code * k + (v - self.lo)
        return code

    def at(self, code: int) -> tuple[int, ...]:
        """The input at position ``code`` of :meth:`values`."""
        k, out = len(self.entry_values), []
        for _ in range(self.n):
            code, d = divmod(int(code), k)
            out.append(self.lo + d)
        return tuple(reversed(out))

    def digit_array(self, xs: Sequence[tuple[int, ...]]) -> np.ndarray:
        """Entry offsets ``x_i - lo`` of (checked) inputs, in the smallest integer type that holds them."""
        dtype = np.min_scalar_type(len(self.entry_values) - 1)
        if self.lo >= 0 and self.hi <= 255:  # bytes() turns a tuple of small ints into memory in one C loop
            raw = np.frombuffer(b"".join(map(bytes, xs)), dtype=np.uint8).reshape(len(xs), self.n)
            digits: np.ndarray = (raw - np.uint8(self.lo)).astype(dtype, copy=False)
            return digits
        out: np.ndarray = np.array(xs, dtype=np.int64).reshape(len(xs), self.n) - self.lo
        return out.astype(dtype)

    def digits(self, codes: np.ndarray) -> np.ndarray:
        """Entry offsets ``x_i - lo`` of many inputs at once: shape ``(len(codes), n)``."""
        k = len(self.entry_values)
        places = k ** np.arange(self.n - 1, -1, -1, dtype=np.int64)
        return (np.asarray(codes, dtype=np.int64)[:, None] // places[None, :]) % k

    def contains(self, x: object) -> bool:
        """Whether ``x`` is a sequence of ``n`` integers in range; an element that is not a sequence of
        integers at all is an error (as for :meth:`check`)."""
        t = self._check_form(x)
        return len(t) == self.n and min(t) >= self.lo and max(t) <= self.hi

    def check(self, x: object) -> tuple[int, ...]:
        """``x`` as a tuple of ints in this domain, or a clear error (never a coercion: 0.9 is not 0).

        Results are remembered by object (the memo holds the object, so its id stays its own):
        sets name the same long inputs many times.
        """
        memo = _CHECKED.setdefault(self, {})
        hit = memo.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        t = self._check(x)
        if len(memo) > 1 << 16:
            memo.clear()
        memo[id(x)] = (x, t)
        return t

    def _check(self, x: object) -> tuple[int, ...]:
        t = self._check_form(x)
        if len(t) != self.n:
            shown = brief(witness_text(t))
            raise WmcdpError(f"input {shown} is outside the domain {self.describe()} ({len(t)} entries, not {self.n})")
        if min(t) < self.lo or max(t) > self.hi:
            raise WmcdpError(f"input {brief(witness_text(t))} is outside the domain {self.describe()}")
        return t

    def _check_form(self, x: object) -> tuple[int, ...]:
        """``x`` as a tuple of ints, or a clear error (never a coercion)."""
        try:
            items = tuple(x)  # type: ignore[arg-type, var-annotated]
        except TypeError:
            raise WmcdpError(f"input {brief(repr(x))} is not a sequence of {self.n} integers") from None
        if not items:
            raise WmcdpError(f"input {brief(repr(x))} is not a sequence of {self.n} integers")
        if set(map(type, items)) <= {int}:  # the common case, without the slow ABC checks
            return items
        if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) for v in items):
            raise WmcdpError(f"input {brief(repr(x))} is not a sequence of {self.n} integers")
        return tuple(int(v) for v in items)

    def describe(self) -> str:
        return f"{{0,1}}^{self.n}" if self.is_bits else f"{{{self.lo}..{self.hi}}}^{self.n}"


_CHECKED: dict[Vector, dict[int, tuple[object, tuple[int, ...]]]] = {}


__all__ = ["MAX_ENTRIES", "Vector"]
