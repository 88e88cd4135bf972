"""Weighted model counting (paper eq. 4) over a flattened decision diagram, in three number systems.

``WMC(phi, w) = sum over models m of phi of prod_{l in m} w(l)``.

A count runs over a :class:`~wmcdp.compile.flat.Flat` diagram (children before parents)
and treats each variable in one of three ways, fixed by a :class:`Plan`:

* a *random* bit contributes its two literal weights (:class:`~wmcdp.lang.weights.BitWeight`);
* a *batch* bit has one 0/1 value per batch element (axis 0): one traversal then counts
  many inputs, or many (input, output) pairs, at once;
* a bit of a *group* (the bits of one input entry or one output value, most significant
  first) is free: the group becomes one numpy axis. While a node lies among the group's
  bits its axis holds codes of the bits below it; above the group it holds the group's
  *values* ``0..size-1`` only, so an output in ``{-1..3}`` costs 5 cells, not 8.

Variables a path skips contribute a factor 1 (random weights sum to one; a batch or group
bit is summed over neither). The three number systems share the traversal and one small
interface (``coefficients``, ``mul``, ``add``, ``probability``, ``log_ratio``, ...):

* :class:`Linear`: float64 probabilities, the fast default. It is used only when every
  path of the diagram has weight at least ``2**-1000`` (:func:`min_path_log2`), so no value
  the traversal forms can underflow and every operation rounds by at most half an ulp.
* :class:`Extended`: floats with a separate exponent per cell (a float64 mantissa in
  [1/2, 1) and an integer exponent, kept as the real and imaginary parts of a complex128),
  for diagrams with smaller path weights: randomized response with n = 1000 has
  probabilities near 0.2^1000, and 3000 flips at 0.5 against 0.5000000000000001 differ by
  a factor of 1 + 6.7e-13 that a sum of logs (error about 1e-12 at that size) would lose.
* :class:`Scaled`: exact. Each random bit's weights are ``a/d`` and ``b/d`` with integers
  ``a + b = d``; a node at level ``l`` holds ``WMC * prod(d of the random bits at levels >= l)``,
  an integer, and a skipped random bit multiplies by its ``d``. Every probability is then a
  numerator over one common denominator ``D`` (the product of all ``d``); numerators are
  float64 when ``D <= 2**26`` (every intermediate is an integer below ``D``, so float64 is
  exact, and so are products of two numerators), int64 when ``D < 2**62``, and Python
  integers otherwise.

The nodes below every group bit have no group axis; they are counted a level at a time
(:class:`_Region`), and an :class:`Extended` count does that part in :data:`WIDE` floats
(80-bit long doubles) where the platform has them and every path weighs at least
``2**WIDE_MIN_LOG2``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..base.limits import check
from ..base.numbers import ln_ratio
from ..compile.flat import Group
from ..lang.weights import BitWeight

NEG_INF = float("-inf")
LN2 = math.log(2)
#: Linear arithmetic is used when every path weight is at least 2**LINEAR_MIN_LOG2
#: (see :func:`wmcdp.compile.flat.min_path_log2`)
LINEAR_MIN_LOG2 = -1000.0


class Linear:
    """Probabilities as float64."""

    name = "float"
    exact = False
    dtype = np.float64
    zero = 0.0
    one = 1.0

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[float, float]:
        return float(w.one), float(w.zero)

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def total(v: np.ndarray, axis: int) -> np.ndarray:
        return v.sum(axis=axis)

    @staticmethod
    def as_float(v: Any) -> Any:
        """Values as float64 probabilities."""
        return np.asarray(v, dtype=np.float64)

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        """Values as natural logs (-inf for 0)."""
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(v, dtype=np.float64))

    @staticmethod
    def log_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``ln(a/b)``: +inf for x/0, -inf for 0/x, nan for 0/0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(a / b)

    @staticmethod
    def probability(v: Any) -> float:
        return float(v)

    @staticmethod
    def log_probability(v: Any) -> float:
        return math.log(v) if v > 0 else NEG_INF


class Extended:
    """Probabilities as ``mantissa * 2**exponent`` per cell: complex128 with the mantissa in the real
    part (0 or in [1/2, 1)) and the integer exponent in the imaginary part (:data:`ZERO` for 0)."""

    name = "float"
    exact = False
    dtype = np.complex128
    ZERO_EXPONENT = -float(2**60)
    zero = complex(0.0, ZERO_EXPONENT)
    one = complex(0.5, 1.0)

    @staticmethod
    def _number(p: float, log_p: float) -> complex:
        if p == 0 and log_p == NEG_INF:
            return Extended.zero
        if p > 0:
            m, e = math.frexp(p)
            return complex(m, e)
        e = math.floor(log_p / LN2) + 1  # a weight below the smallest float: from its log
        return complex(math.exp(log_p - e * LN2), e)

    @classmethod
    def coefficients(cls, w: BitWeight) -> tuple[complex, complex]:
        return cls._number(float(w.one), w.log_one), cls._number(float(w.zero), w.log_zero)

    @classmethod
    def _normal(cls, m: np.ndarray, e: np.ndarray) -> np.ndarray:
        mantissa, shift = np.frexp(m)
        out = np.empty(np.shape(m), dtype=np.complex128)
        out.real = mantissa
        out.imag = np.where(mantissa == 0, cls.ZERO_EXPONENT, e + shift)
        return out

    @classmethod
    def mul(cls, a: Any, b: Any) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        return cls._normal(a.real * b.real, a.imag + b.imag)

    @classmethod
    def from_wide(cls, v: np.ndarray) -> np.ndarray:
        """Wide floats (numpy long double) as mantissa and exponent, the mantissa rounded to float64."""
        m, e = np.frexp(v)
        return cls._normal(m.astype(np.float64), e.astype(np.float64))

    @classmethod
    def add(cls, a: Any, b: Any) -> np.ndarray:
        a, b = np.asarray(a), np.asarray(b)
        return cls._sum(a.real, a.imag, b.real, b.imag)

    @classmethod
    def _sum(cls, ma: np.ndarray, ea: np.ndarray, mb: np.ndarray, eb: np.ndarray) -> np.ndarray:
        """``ma 2^ea + mb 2^eb``, normalized (mantissas may be unnormalized, in (0, 1))."""
        e = np.maximum(ea, eb)
        m = np.ldexp(ma, (ea - e).astype(np.int64))
        m += np.ldexp(mb, (eb - e).astype(np.int64))
        return cls._normal(m, e)

    @classmethod
    def combine(cls, m1: complex, h: np.ndarray, m0: complex, lo: np.ndarray) -> np.ndarray:
        """``m1 * h + m0 * lo`` with one normalization: a product of two mantissas in [1/2, 1) is still
        well inside the float range, so only the sum is brought back to [1/2, 1)."""
        h, lo = np.asarray(h), np.asarray(lo)
        return cls._sum(h.real * m1.real, h.imag + m1.imag, lo.real * m0.real, lo.imag + m0.imag)

    @classmethod
    def total(cls, v: np.ndarray, axis: int) -> np.ndarray:
        """Sums along ``axis``, each cell scaled to the largest exponent of its line first."""
        e = v.imag.max(axis=axis, keepdims=True)
        m = np.ldexp(v.real, (v.imag - e).astype(np.int64)).sum(axis=axis)
        return cls._normal(m, np.squeeze(e, axis=axis))

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        """Values as natural logs (-inf for 0)."""
        v = np.asarray(v)
        with np.errstate(divide="ignore"):
            return np.log(v.real) + np.where(v.real > 0, v.imag, 0) * LN2

    @staticmethod
    def as_float(v: Any) -> np.ndarray:
        """Values as float64 probabilities (those below the smallest float become 0)."""
        v = np.asarray(v)
        return np.ldexp(v.real, np.clip(v.imag, -2000, 2000).astype(np.int64))

    @staticmethod
    def log_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``ln(a/b)`` from mantissas and exponents (the exponents subtract exactly)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log(a.real / b.real) + (a.imag - b.imag) * LN2
        r[(a.real == 0) & (b.real > 0)] = NEG_INF
        r[(a.real > 0) & (b.real == 0)] = np.inf
        r[(a.real == 0) & (b.real == 0)] = np.nan
        return r

    @classmethod
    def probability(cls, v: Any) -> float:
        return float(cls.as_float(v))

    @staticmethod
    def log_probability(v: Any) -> float:
        v = complex(v)
        return math.log(v.real) + v.imag * LN2 if v.real > 0 else NEG_INF


@dataclass
class Scaled:
    """Exact probabilities as integer numerators over the common denominator ``denominator``."""

    denominator: int
    dtype: Any = field(init=False)

    name = "exact"
    exact = True
    zero = 0
    one = 1

    def __post_init__(self) -> None:
        bits = self.denominator.bit_length()
        # float64 while products of two numerators stay exact (the scan compares a*d with c*b),
        # int64 up to 62 bits (exact counts; products exact below 31 bits), Python ints beyond
        self.dtype = np.float64 if bits <= 26 else np.int64 if bits <= 62 else object

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[int, int, int]:
        """``(a, b, d)`` with ``w(v) = a/d`` and ``w(not v) = b/d``."""
        d = math.lcm(w.one.denominator, w.zero.denominator)  # type: ignore[union-attr]
        return w.one.numerator * (d // w.one.denominator), w.zero.numerator * (d // w.zero.denominator), d  # type: ignore[union-attr]

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def total(v: np.ndarray, axis: int) -> np.ndarray:
        return v.sum(axis=axis)

    def as_log(self, v: Any) -> np.ndarray:
        """Values as natural logs (approximate; -inf for 0)."""
        v = np.asarray(v)
        out = [math.log(int(x)) - math.log(self.denominator) if x else NEG_INF for x in v.reshape(-1)]
        return np.array(out, dtype=np.float64).reshape(v.shape)

    def coefficient(self, m: int) -> Any:
        """An integer coefficient in the numerators' dtype."""
        return float(m) if self.dtype is np.float64 else m if self.dtype is object else np.int64(m)

    def as_float(self, v: Any) -> np.ndarray:
        """Values as float64 probabilities (rounded)."""
        v = np.asarray(v)
        if v.dtype != object:
            return (
                v.astype(np.float64) / float(self.denominator)
                if self.denominator.bit_length() < 1000
                else np.array([float(Fraction(int(x), self.denominator)) for x in v.reshape(-1)]).reshape(v.shape)
            )
        return np.array([float(Fraction(int(x), self.denominator)) for x in v.reshape(-1)]).reshape(v.shape)

    def probability(self, v: Any) -> Fraction:
        return Fraction(int(v), self.denominator)

    def log_probability(self, v: Any) -> float:
        return ln_ratio(int(v), self.denominator) if v > 0 else NEG_INF


class Rational:
    """Exact probabilities as rationals (gmpy2 ``mpq``), for diagrams whose common denominator
    :class:`Scaled` would need is too large to carry in every cell (many random bits with
    large denominators, most of them skipped by any one path)."""

    name = "exact"
    exact = True
    dtype = object
    zero = gmpy2.mpq(0)
    one = gmpy2.mpq(1)

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[Any, Any]:
        return gmpy2.mpq(w.one), gmpy2.mpq(w.zero)

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def total(v: np.ndarray, axis: int) -> np.ndarray:
        return v.sum(axis=axis)

    @staticmethod
    def as_log(v: Any) -> np.ndarray:
        v = np.asarray(v, dtype=object)
        out = [_log_exact(x) for x in v.reshape(-1)]
        return np.array(out, dtype=np.float64).reshape(v.shape)

    @staticmethod
    def as_float(v: Any) -> np.ndarray:
        v = np.asarray(v, dtype=object)
        return np.array([float(Fraction(int(x.numerator), int(x.denominator))) for x in v.reshape(-1)]).reshape(v.shape)

    @staticmethod
    def probability(v: Any) -> Fraction:
        v = gmpy2.mpq(v)
        return Fraction(int(v.numerator), int(v.denominator))

    @staticmethod
    def log_probability(v: Any) -> float:
        v = gmpy2.mpq(v)
        return ln_ratio(int(v.numerator), int(v.denominator)) if v > 0 else NEG_INF


def _log_exact(v: Any) -> float:
    """Natural log of an exact nonnegative number (int or mpq), approximately; -inf for 0."""
    if not v:
        return NEG_INF
    v = gmpy2.mpq(v)
    return math.log(int(v.numerator)) - math.log(int(v.denominator))


#: a common denominator above this many bits makes exact counts use :class:`Rational`
SCALED_MAX_BITS = 4096


Arith = Linear | Extended | Scaled | Rational

#: the most axes a count's array has (the batch and one per group): numpy 1 allows 32, numpy 2 allows 64
MAX_AXES = 32


# -- plans ----------------------------------------------------------------------------------


@dataclass
class Plan:
    """How each variable of a count is treated: random weights, per-batch values, or a group axis."""

    weights: Mapping[int, BitWeight]
    groups: Sequence[Group] = ()
    batch: Mapping[int, np.ndarray] = field(default_factory=dict)  # variable -> bool array (B,)
    batch_size: int = 1

    def __post_init__(self) -> None:
        # a group of one value (a constant output part, an input entry of one value) is an axis of length 1: it
        # changes neither the cells nor their order in the flat result, so it takes no axis (numpy has few)
        self.groups = tuple(g for g in self.groups if g.size > 1)
        self.member: dict[int, tuple[int, int]] = {}  # variable -> (group index, bit position)
        for g, group in enumerate(self.groups):
            for b, v in enumerate(group.variables):
                self.member[v] = (g, b)


# -- the traversal --------------------------------------------------------------------------


class _Forms:
    """Per group, the axis length of a node's array at each level (bit codes below, values above)."""

    def __init__(self, groups: Sequence[Group], level_of: Any) -> None:
        self.levels = [sorted(level_of(v) for v in g.variables) for g in groups]
        self.sizes = [g.size for g in groups]

    def covered(self, g: int, level: int) -> int:
        """How many bits of group ``g`` lie at or below ``level``."""
        levels = self.levels[g]
        return len(levels) - bisect.bisect_left(levels, level)

    def length(self, g: int, level: int) -> int:
        """Axis length of group ``g`` for a node at ``level``: 2^c for c covered bits, the size when all are."""
        covered = self.covered(g, level)
        return self.sizes[g] if covered == len(self.levels[g]) else 1 << covered


class Pool:
    """Memory of arrays a count no longer needs, handed out again to later steps.

    Reusing memory the process already touched avoids the page faults of fresh large
    allocations (which otherwise cost as much as the arithmetic). Free buffers are flat and
    kept by size; a request takes a free buffer of the smallest size that holds it (at most
    twice its size) and gets a view of the needed shape. A :class:`Pool` may serve many
    counts (the stripes of one table).
    """

    MIN_CELLS = 1 << 15

    def __init__(self) -> None:
        self.free: dict[tuple[Any, int], list[np.ndarray]] = {}  # (dtype, size) -> free buffers
        self.sizes: dict[Any, list[int]] = {}  # dtype -> sizes with free buffers, sorted
        self.lent: dict[int, np.ndarray] = {}  # id of a lent view -> its flat buffer

    def take(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        cells = math.prod(shape)
        if cells < self.MIN_CELLS:
            return np.empty(shape, dtype=dtype)
        dtype = np.dtype(dtype)
        sizes = self.sizes.setdefault(dtype, [])
        k = bisect.bisect_left(sizes, cells)
        if k < len(sizes) and sizes[k] <= 2 * cells:
            stack = self.free[dtype, sizes[k]]
            base = stack.pop()
            if not stack:
                del sizes[k]
        else:
            base = np.empty(cells, dtype=dtype)
        view = base[:cells].reshape(shape)
        self.lent[id(view)] = base
        return view

    def give(self, a: Any) -> None:
        base = self.lent.pop(id(a), None)
        if base is None:
            return
        stack = self.free.setdefault((base.dtype, base.size), [])
        if not stack:
            bisect.insort(self.sizes.setdefault(base.dtype, []), base.size)
        stack.append(base)


class _Halves:
    """A group node's value kept as its two halves along ``axis`` instead of one array.

    ``low`` holds the codes ``0..half-1`` and ``high`` the codes ``half..full-1`` (only the first
    ``full - half`` of them count); ``None`` is a half that is all zero. An output bit's node has a
    FALSE child, so this saves writing the zeros; a random bit over two such nodes combines the
    halves one by one, and the parent group node writes them straight into its own array.
    """

    __slots__ = ("axis", "half", "full", "low", "high", "shape")

    def __init__(self, axis: int, half: int, full: int, low: np.ndarray | None, high: np.ndarray | None) -> None:
        self.axis, self.half, self.full, self.low, self.high = axis, half, full, low, high
        parts = [p.shape for p in (low, high) if p is not None]
        shape = list(np.broadcast_shapes(*parts))
        shape[axis] = full
        self.shape = tuple(shape)

    def aligned(self, other: object) -> bool:
        return isinstance(other, _Halves) and (other.axis, other.half, other.full) == (self.axis, self.half, self.full)


def _arrays(value: Any) -> list[np.ndarray]:
    """The arrays a value holds (itself, or the halves' parts)."""
    if isinstance(value, _Halves):
        return [a for part in (value.low, value.high) if part is not None for a in _arrays(part)]
    return [value]


def _head(value: Any, axis: int, stop: int) -> Any:
    """``value`` restricted to its first ``stop`` positions along ``axis`` (a length-1 axis broadcasts)."""
    if value.shape[axis] <= stop:
        return value
    if isinstance(value, _Halves):  # halves along another axis: restrict each half
        return _Halves(
            value.axis,
            value.half,
            value.full,
            *(None if p is None else _head(p, axis, stop) for p in (value.low, value.high)),
        )
    index = [slice(None)] * value.ndim
    index[axis] = slice(0, stop)
    return value[tuple(index)]


class _Steps:
    """The array operations of one count, writing into pooled buffers (values are arrays or :class:`_Halves`)."""

    def __init__(self, arith: Any, pool: Pool, zero: np.ndarray) -> None:
        self.arith = arith
        self.pool = pool
        self.zero = zero
        self.dtype = arith.dtype
        self.pooled = arith.dtype is not object and arith is not Extended

    def _out(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.pool.take(shape, self.dtype) if self.pooled else np.empty(shape, dtype=self.dtype)

    def _coefficient(self, m: Any) -> Any:
        return self.arith.coefficient(m) if isinstance(self.arith, Scaled) else m

    def _is_one(self, m: Any) -> bool:
        return m == self.arith.one

    # -- halves ------------------------------------------------------------------------------
    def _write(self, value: Any, out: np.ndarray) -> None:
        """Write ``value`` (an array, broadcast, or halves) into ``out``."""
        if not isinstance(value, _Halves):
            np.copyto(out, value)
            return
        index = [slice(None)] * out.ndim
        for part, span in ((value.low, slice(0, value.half)), (value.high, slice(value.half, value.full))):
            index[value.axis] = span
            region = out[tuple(index)]
            if part is None:
                region.fill(self.arith.zero)
            else:
                self._write(_head(part, value.axis, span.stop - span.start), region)

    def dense(self, value: Any) -> np.ndarray:
        """``value`` as one array (halves written into a new buffer)."""
        if not isinstance(value, _Halves):
            return value
        out = self._out(value.shape)
        self._write(value, out)
        return out

    # -- arithmetic --------------------------------------------------------------------------
    def scale(self, m: Any, a: Any) -> Any:
        """``m * a``; a coefficient of one (or a zero array) returns ``a`` itself."""
        if self._is_one(m) or a is self.zero:
            return a
        if isinstance(a, _Halves):
            return _Halves(a.axis, a.half, a.full, *(None if p is None else self.scale(m, p) for p in (a.low, a.high)))
        if not self.pooled:
            return self.arith.mul(a, m)
        out = self._out(a.shape)
        np.multiply(a, self._coefficient(m), out=out)
        return out

    def combine(self, m1: Any, h: Any, m0: Any, lo: Any) -> Any:
        """``m1 * h + m0 * lo``; a FALSE child adds nothing; halves along the same axis combine half by half."""
        if lo is self.zero or lo is None:
            return self.scale(m1, h) if h is not self.zero and h is not None else lo
        if h is self.zero or h is None:
            return self.scale(m0, lo)
        if isinstance(h, _Halves) and h.aligned(lo):
            return _Halves(
                h.axis, h.half, h.full, self.combine(m1, h.low, m0, lo.low), self.combine(m1, h.high, m0, lo.high)
            )
        h, lo = self.dense(h), self.dense(lo)
        if self.arith is Extended:
            return Extended.combine(m1, h, m0, lo)
        if not self.pooled:
            return self.arith.add(self.arith.mul(h, m1), self.arith.mul(lo, m0))
        out = self._out(np.broadcast_shapes(h.shape, lo.shape))
        tmp = self._out(out.shape)
        np.multiply(h, self._coefficient(m1), out=out)
        np.multiply(lo, self._coefficient(m0), out=tmp)
        np.add(out, tmp, out=out)
        self.pool.give(tmp)
        return out

    def select(self, indicator: np.ndarray, h: Any, lo: Any) -> np.ndarray:
        """``h`` where the batch bit is 1, ``lo`` where it is 0."""
        h, lo = self.dense(h), self.dense(lo)
        out = self._out(np.broadcast_shapes(indicator.shape, h.shape, lo.shape))
        np.copyto(out, lo)
        np.copyto(out, h, where=np.broadcast_to(indicator, out.shape))
        return out

    def convert(self, a: Any, axis: int, target: int, size: int) -> Any:
        """An array over ``axis`` in bit-code form as the longer bit-code form ``target`` or the value form
        ``size``: position ``j`` reads position ``j mod n`` (a value's low bits are its code mod 2^c)."""
        n = a.shape[axis]
        if n == 1 or n == target:
            return a
        if isinstance(a, _Halves):
            if a.axis != axis:
                return _Halves(
                    a.axis,
                    a.half,
                    a.full,
                    *(None if p is None else self.convert(p, axis, target, size) for p in (a.low, a.high)),
                )
            a = self.dense(a)
        shape = list(a.shape)
        shape[axis] = target
        out = self._out(tuple(shape))
        np.take(a, np.arange(target) % n, axis=axis, out=out)
        return out

    def group(self, low: Any, h: Any, axis: int, half: int, full: int) -> Any:
        """A group node: codes ``0..half-1`` from ``low`` and ``half..full-1`` from ``h``; kept as halves
        when one side is zero."""
        if low is self.zero and h is self.zero:
            return self.zero
        if low is self.zero or h is self.zero:
            return _Halves(axis, half, full, None if low is self.zero else low, None if h is self.zero else h)
        out = self._out(_Halves(axis, half, full, low, h).shape)
        self._write(_Halves(axis, half, full, low, h), out)
        return out


class _Region:
    """The entries below every group bit of a plan, counted a whole level at a time.

    Below the last group bit an entry's value has no group axis: one number per batch
    element. All entries of one level share their variable, so a level is one array
    ``(entries, width)`` and one array step (a weighted sum for a random bit, a choice for a
    batch bit) instead of one small step per entry: this is what makes a count of a program
    whose output bits sit on top (one Int, see :mod:`wmcdp.compile`) cost array operations per
    level. A level's array is freed after the last level that reads it; the entries that a
    node above the region reads (or the root) are kept as rows of their own.
    """

    def __init__(self, flat: Any, plan: Plan, level_of: Any) -> None:
        cut = max((level_of(v) for g in plan.groups for v in g.variables), default=-1)
        var, level, hi, lo = flat.var, flat.level, flat.hi, flat.lo
        self.layers = [nodes for nodes in flat.layers if level[nodes[0]] > cut]
        self.level_of_layer = [int(level[nodes[0]]) for nodes in self.layers]
        self.width = plan.batch_size if plan.batch else 1
        n = len(var)
        self.inside = np.zeros(n, dtype=bool)
        for nodes in self.layers:
            self.inside[nodes] = True
        self.row = np.zeros(n, dtype=np.int64)  # position of an entry in its level's array
        for nodes in self.layers:
            self.row[nodes] = np.arange(len(nodes))
        self.row[var == -2] = 1  # terminals: the bottom array is [TRUE, FALSE]
        decision = np.flatnonzero(var >= 0)
        outside = decision[~self.inside[decision]]
        self.boundary = np.zeros(n, dtype=bool)  # read from above the region (or the root)
        self.boundary[hi[outside]] = True
        self.boundary[lo[outside]] = True
        self.boundary[n - 1] = True
        self.boundary &= self.inside
        # a level's array lives until the topmost level that reads one of its entries
        last_read = np.full(n, flat.levels + 1, dtype=np.int64)
        inner = np.flatnonzero(self.inside)
        np.minimum.at(last_read, hi[inner], level[inner])
        np.minimum.at(last_read, lo[inner], level[inner])
        self.free_after: dict[int, list[int]] = {}
        for nodes in self.layers:
            here = int(level[nodes[0]])
            self.free_after.setdefault(min(int(last_read[nodes].min()), here), []).append(here)

    def peak_cells(self) -> int:
        """The most cells the level arrays hold at once (with one level's two gathered children), plus the kept rows."""
        if not self.layers:
            return 0
        step = {int(self.level_of_layer[s]): s for s in range(len(self.layers))}
        sizes = np.array([len(nodes) for nodes in self.layers], dtype=np.int64)
        live = np.zeros(len(self.layers) + 1, dtype=np.int64)
        for free_level, created in self.free_after.items():
            for here in created:
                live[step[here]] += sizes[step[here]]
                live[step[free_level] + 1] -= sizes[step[here]]
        peak = int((np.cumsum(live)[:-1] + 2 * sizes).max())
        return (peak + 2 + int(self.boundary.sum())) * self.width

    def count(
        self, flat: Any, plan: Plan, arith: Any, steps: _Steps, skip: Any, *, wide: bool = False
    ) -> dict[int, Any]:
        """The values of the boundary entries, as arrays ``(width, 1, ..., 1)`` for the per-entry traversal.

        ``wide``: an :class:`Extended` count runs here in :data:`WIDE` floats instead of per-cell
        exponents (the caller knows every path weight is at least ``2**WIDE_MIN_LOG2``, so no
        value a level forms comes near their smallest normal number 2**-16382).
        """
        if not self.layers:
            return {}
        var, level, hi, lo, row = flat.var, flat.level, flat.hi, flat.lo, self.row
        ndim = 1 + len(plan.groups)
        w = self.width
        dtype = WIDE if wide else arith.dtype
        bottom = np.empty((2, w), dtype=dtype)
        bottom[0], bottom[1] = (1, 0) if wide else (arith.one, arith.zero)
        arrays: dict[int, np.ndarray] = {flat.levels: bottom}
        kept: dict[int, Any] = {}
        # level arrays are views of buffers that all hold the largest level, so every freed one is reused
        capacity = max(len(nodes) for nodes in self.layers)
        spare: list[np.ndarray] = []
        owner: dict[int, np.ndarray] = {}

        def alloc(rows: int) -> np.ndarray:
            base = spare.pop() if spare else np.empty((capacity, w), dtype=dtype)
            view = base[:rows]
            owner[id(view)] = base
            return view

        def release(view: np.ndarray) -> None:
            base = owner.pop(id(view), None)
            if base is None:
                steps.pool.give(view)
            else:
                spare.append(base)

        def gather(children: np.ndarray, here: int) -> np.ndarray:
            """The values of ``children`` in a level buffer (entries, width), times the factor of the
            random bits skipped on the way down (exact counts)."""
            levels = level[children]
            out = alloc(len(children))
            split = (
                [(int(levels[0]), None)]
                if (levels == levels[0]).all()
                else [(c, levels == c) for c in np.unique(levels).tolist()]
            )
            for child_level, mask in split:
                rows = row[children] if mask is None else row[children[mask]]
                part = np.take(arrays[child_level], rows, axis=0, out=out if mask is None else None, mode="clip")
                g = 1 if skip is None else skip(here + 1, child_level)
                if g != 1:
                    part = (
                        part * steps._coefficient(g)
                        if dtype is object
                        else np.multiply(part, steps._coefficient(g), out=part)
                    )
                if mask is not None or part is not out:
                    out[slice(None) if mask is None else mask] = part
            return out

        for nodes in self.layers:
            check("counting")
            here, v = int(level[nodes[0]]), int(var[nodes[0]])
            h, low = gather(hi[nodes], here), gather(lo[nodes], here)
            if v in plan.batch:
                np.copyto(low, h, where=plan.batch[v][None, :])
                value = low
                release(h)
            else:
                c1, c0 = arith.coefficients(plan.weights[v])[:2]
                if wide or steps.pooled:  # in place, in the level buffers
                    c1, c0 = (_widen(c1), _widen(c0)) if wide else (steps._coefficient(c1), steps._coefficient(c0))
                    h *= c1
                    low *= c0
                    value = np.add(h, low, out=h)
                    release(low)
                else:  # per-cell exponents or Python numbers: new arrays
                    value = steps.combine(c1, h, c0, low)
                    release(h)
                    release(low)
            arrays[here] = value
            for k in nodes[self.boundary[nodes]].tolist():
                cells = Extended.from_wide(value[row[k]]) if wide else value[row[k]].copy()
                kept[k] = cells.reshape((w,) + (1,) * (ndim - 1))
            for done in self.free_after.get(here, ()):
                release(arrays.pop(done))
        return kept


#: numpy's long double where it is the 80-bit x87 format (64-bit mantissa, exponents down to 2**-16382), else None
WIDE = np.longdouble if np.finfo(np.longdouble).minexp <= -16000 else None
#: an Extended count may run in WIDE floats when every path weight is at least 2**WIDE_MIN_LOG2
WIDE_MIN_LOG2 = -16000.0


def _widen(c: complex) -> Any:
    """An :class:`Extended` number as a wide float."""
    return np.ldexp(WIDE(c.real), int(c.imag))  # type: ignore[misc]


def evaluate(
    flat: Any, plan: Plan, arith: Any, level_of: Any, *, skip: Any = None, pool: Pool | None = None, wide: bool = False
) -> np.ndarray:
    """``WMC`` of ``flat``'s root under ``plan``: an array of shape ``(B, size_0, size_1, ...)``.

    ``skip(level_from, level_to)`` is, for :class:`Scaled`, the product of the denominators
    of the random bits at levels in ``[level_from, level_to)`` (a skipped random bit's factor);
    the other number systems need none. ``pool`` lends buffers (see :class:`Pool`). ``wide``
    (:class:`Extended` only, when every path weight is at least ``2**WIDE_MIN_LOG2``): count the
    nodes below the groups in :data:`WIDE` floats (see :class:`_Region`).
    """
    groups, member, batch = plan.groups, plan.member, plan.batch
    ndim = 1 + len(groups)
    forms = _Forms(groups, level_of)
    scalar_shape = (1,) * ndim
    one = np.full(scalar_shape, arith.one, dtype=arith.dtype)
    zero = np.full(scalar_shape, arith.zero, dtype=arith.dtype)
    steps = _Steps(arith, pool or Pool(), zero)
    indicators = {v: bits.reshape((-1,) + (1,) * (ndim - 1)) for v, bits in batch.items()}
    coefficients: dict[int, tuple] = {}
    values: list[Any] = [None] * len(flat.var)
    remaining = list(flat.parents)
    bottom = flat.levels
    var, levels, his, los = flat.var.tolist(), flat.level.tolist(), flat.hi.tolist(), flat.lo.tolist()
    holders: dict[int, int] = {}  # id of an array -> values holding it (a step may return its input, halves share)
    region = _Region(flat, plan, level_of)
    wide = wide and arith is Extended and WIDE is not None
    for k, value in region.count(flat, plan, arith, steps, skip, wide=wide).items():
        values[k] = value
    for step, k in enumerate(np.flatnonzero(~region.inside).tolist()):
        if step % 4096 == 4095:
            check("counting")
        v = var[k]
        if v < 0:
            values[k] = one if v == -1 else zero
            continue
        level, hi, lo = levels[k], his[k], los[k]
        h, low = values[hi], values[lo]
        if skip is not None:
            g_hi = skip(level + 1, levels[hi] if var[hi] >= 0 else bottom)
            g_lo = skip(level + 1, levels[lo] if var[lo] >= 0 else bottom)
        else:
            g_hi = g_lo = None
        g = member[v][0] if v in member else -1
        for axis in range(1, ndim):  # bring both children to this node's axis forms
            if axis - 1 == g or (h.shape[axis] == 1 and low.shape[axis] == 1):
                continue
            target = forms.length(axis - 1, level)
            h = steps.convert(h, axis, target, forms.sizes[axis - 1])
            low = steps.convert(low, axis, target, forms.sizes[axis - 1])
        if g >= 0:
            if g_hi is not None:
                h, low = steps.scale(g_hi, h), steps.scale(g_lo, low)
            covered = forms.covered(g, level)
            half = 1 << (covered - 1)
            h = steps.convert(h, g + 1, half, -1)
            low = steps.convert(low, g + 1, half, -1)
            values[k] = steps.group(low, h, g + 1, half, forms.length(g, level))
        elif v in indicators:
            if g_hi is not None:
                h, low = steps.scale(g_hi, h), steps.scale(g_lo, low)
            values[k] = steps.select(indicators[v], h, low)
        else:
            coeff = coefficients.get(v)
            if coeff is None:
                coeff = coefficients[v] = arith.coefficients(plan.weights[v])
            if g_hi is not None:
                values[k] = steps.combine(coeff[0] * g_hi, h, coeff[1] * g_lo, low)
            else:
                values[k] = steps.combine(coeff[0], h, coeff[1], low)
        for array in _arrays(values[k]):
            holders[id(array)] = holders.get(id(array), 0) + 1
        for child in (hi, lo):  # release the children only now: their buffers may be reused
            remaining[child] -= 1
            if remaining[child] == 0:
                for array in _arrays(values[child]):
                    count = holders.pop(id(array), 1) - 1
                    if count:
                        holders[id(array)] = count
                    else:
                        steps.pool.give(array)
                values[child] = None
    root = values[-1]
    if skip is not None:
        root = steps.scale(skip(0, levels[-1]), root)
    for axis in range(1, ndim):
        root = steps.convert(root, axis, forms.sizes[axis - 1], forms.sizes[axis - 1])
    root = steps.dense(root)
    steps.pool.lent.clear()  # the root belongs to the caller; anything else still lent is garbage
    return np.broadcast_to(root, (plan.batch_size,) + tuple(forms.sizes))


def peak_cells(flat: Any, plan: Plan, level_of: Any) -> int:
    """The largest number of array cells :func:`evaluate` holds at once under ``plan`` (a dry run on shapes).

    Temporaries of one step (converted children, products) come on top; callers leave room.
    """
    return _dry_run(flat, plan, level_of)[0]


def work(flat: Any, plan: Plan, level_of: Any) -> tuple[int, int]:
    """``(array cells made, entries stepped one by one)`` by :func:`evaluate` under ``plan`` (the same dry
    run as :func:`peak_cells`): what a count costs, for the planner's estimates."""
    _, cells, steps = _dry_run(flat, plan, level_of)
    return cells, steps


def _dry_run(flat: Any, plan: Plan, level_of: Any) -> tuple[int, int, int]:
    """``(peak cells, total cells, entries above the level-wise region)`` of a count under ``plan``."""
    forms = _Forms(plan.groups, level_of)
    ndim = 1 + len(plan.groups)
    member, batch = plan.member, plan.batch
    shapes: list[tuple[int, ...]] = [()] * len(flat.var)
    remaining = list(flat.parents)
    region = _Region(flat, plan, level_of)
    for k in np.flatnonzero(region.boundary).tolist():
        shapes[k] = (region.width,) + (1,) * (ndim - 1)
    live = region.width * int(region.boundary.sum())
    peak = max(live, region.peak_cells())
    total = region.width * int(region.inside.sum())
    outside = np.flatnonzero(~region.inside).tolist()
    for k in outside:
        v = int(flat.var[k])
        if v < 0:
            shapes[k] = (1,) * ndim
            continue
        level = int(flat.level[k])
        hi, lo = int(flat.hi[k]), int(flat.lo[k])
        sh, sl = shapes[hi], shapes[lo]
        g = member[v][0] if v in member else -1
        shape = [plan.batch_size if (v in batch or sh[0] > 1 or sl[0] > 1) else 1]
        for gi in range(len(plan.groups)):
            if gi == g or sh[gi + 1] > 1 or sl[gi + 1] > 1:
                shape.append(forms.length(gi, level))
            else:
                shape.append(1)
        shapes[k] = tuple(shape)
        cells = math.prod(shape)
        live += cells
        total += cells
        peak = max(peak, live)
        for child in (hi, lo):
            remaining[child] -= 1
            if remaining[child] == 0:
                live -= math.prod(shapes[child])
    return peak, total, len(outside)


__all__ = [
    "WIDE",
    "WIDE_MIN_LOG2",
    "Linear",
    "Extended",
    "Scaled",
    "Rational",
    "SCALED_MAX_BITS",
    "Arith",
    "Plan",
    "evaluate",
    "LINEAR_MIN_LOG2",
]
