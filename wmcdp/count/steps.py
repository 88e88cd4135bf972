"""The array operations of one weighted model count (:mod:`wmcdp.count.wmc`), shared by every number system.

A node's value is an array over the batch axis and one axis per group (see :class:`wmcdp.count.wmc.Plan`),
or its two :class:`Halves` along one group axis. :class:`Steps` forms the values of Algorithm 1's cases
(``m1 * h + m0 * lo`` for a random bit, a choice for a batch bit, the halves of a group bit) in buffers
lent by a :class:`Pool`.
"""

from __future__ import annotations

import bisect
import math
from typing import Any

import numpy as np

from .exact import Scaled
from .floats import Extended


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


class Halves:
    """A group node's value kept as its two halves along ``axis`` instead of one array.

    ``low`` holds the codes ``0..half-1`` and ``high`` the codes ``half..full-1`` (only the first
    ``full - half`` of them count); ``None`` is a half that is all zero. An output bit's node has a
    FALSE child, so this saves writing the zeros; a random bit over two such nodes combines the
    halves one by one, and the parent group node writes them straight into its own array.
    The halves are arrays, never halves themselves (:meth:`Steps.group` writes out a nested one): a value
    holds at most two arrays, so every step costs at most two array operations, not one per leaf of a tree.
    """

    __slots__ = ("axis", "half", "full", "low", "high", "shape")

    def __init__(self, axis: int, half: int, full: int, low: np.ndarray | None, high: np.ndarray | None) -> None:
        self.axis, self.half, self.full, self.low, self.high = axis, half, full, low, high
        parts = [p.shape for p in (low, high) if p is not None]
        shape = list(np.broadcast_shapes(*parts))
        shape[axis] = full
        self.shape = tuple(shape)

    def aligned(self, other: object) -> bool:
        return isinstance(other, Halves) and (other.axis, other.half, other.full) == (self.axis, self.half, self.full)


def arrays_of(value: Any) -> list[np.ndarray]:
    """The arrays a value holds (itself, or the halves' parts)."""
    if isinstance(value, Halves):
        return [a for part in (value.low, value.high) if part is not None for a in arrays_of(part)]
    return [value]


def _head(value: Any, axis: int, stop: int) -> Any:
    """``value`` restricted to its first ``stop`` positions along ``axis`` (a length-1 axis broadcasts)."""
    if value.shape[axis] <= stop:
        return value
    if isinstance(value, Halves):  # halves along another axis: restrict each half
        return Halves(
            value.axis,
            value.half,
            value.full,
            *(None if p is None else _head(p, axis, stop) for p in (value.low, value.high)),
        )
    index = [slice(None)] * value.ndim
    index[axis] = slice(0, stop)
    return value[tuple(index)]


class Steps:
    """The array operations of one count, writing into pooled buffers (values are arrays or :class:`Halves`)."""

    def __init__(self, arith: Any, pool: Pool, zero: np.ndarray) -> None:
        self.arith = arith
        self.pool = pool
        self.zero = zero
        self.dtype = arith.dtype
        self.pooled = arith.dtype is not object and arith is not Extended

    def _out(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.pool.take(shape, self.dtype) if self.pooled else np.empty(shape, dtype=self.dtype)

    def coefficient(self, m: Any) -> Any:
        return self.arith.coefficient(m) if isinstance(self.arith, Scaled) else m

    def _is_one(self, m: Any) -> bool:
        return bool(m == self.arith.one)

    # -- halves ------------------------------------------------------------------------------
    def _write(self, value: Any, out: np.ndarray) -> None:
        """Write ``value`` (an array, broadcast, or halves) into ``out``."""
        if not isinstance(value, Halves):
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

    def dense(self, value: np.ndarray | Halves) -> np.ndarray:
        """``value`` as one array (halves written into a new buffer)."""
        if not isinstance(value, Halves):
            return value
        out = self._out(value.shape)
        self._write(value, out)
        return out

    # -- arithmetic --------------------------------------------------------------------------
    def scale(self, m: Any, a: Any) -> Any:
        """``m * a``; a coefficient of one (or a zero array) returns ``a`` itself."""
        if self._is_one(m) or a is self.zero:
            return a
        if isinstance(a, Halves):
            return Halves(a.axis, a.half, a.full, *(None if p is None else self.scale(m, p) for p in (a.low, a.high)))
        if not self.pooled:
            return self.arith.mul(a, m)
        out = self._out(a.shape)
        np.multiply(a, self.coefficient(m), out=out)
        return out

    def combine(self, m1: Any, h: Any, m0: Any, lo: Any) -> Any:
        """``m1 * h + m0 * lo``; a FALSE child adds nothing; halves along the same axis combine half by half."""
        if lo is self.zero or lo is None:
            return self.scale(m1, h) if h is not self.zero and h is not None else lo
        if h is self.zero or h is None:
            return self.scale(m0, lo)
        if isinstance(h, Halves) and h.aligned(lo):
            return Halves(
                h.axis, h.half, h.full, self.combine(m1, h.low, m0, lo.low), self.combine(m1, h.high, m0, lo.high)
            )
        h, lo = self.dense(h), self.dense(lo)
        if self.arith is Extended:
            return Extended.combine(m1, h, m0, lo)
        if not self.pooled:
            return self.arith.add(self.arith.mul(h, m1), self.arith.mul(lo, m0))
        out = self._out(np.broadcast_shapes(h.shape, lo.shape))
        tmp = self._out(out.shape)
        np.multiply(h, self.coefficient(m1), out=out)
        np.multiply(lo, self.coefficient(m0), out=tmp)
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
        if isinstance(a, Halves):
            if a.axis != axis:
                return Halves(
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
        when one side is zero (the other side written out as one array if it is halves itself)."""
        if low is self.zero and h is self.zero:
            return self.zero
        if low is self.zero or h is self.zero:
            part = self.dense(h if low is self.zero else low)
            return Halves(axis, half, full, None if low is self.zero else part, None if h is self.zero else part)
        out = self._out(Halves(axis, half, full, low, h).shape)
        self._write(Halves(axis, half, full, low, h), out)
        return out


__all__ = ["Pool", "Halves", "Steps", "arrays_of"]
