"""Weighted model counting (paper eq. 4) over a flattened decision diagram, in three number systems.

``WMC(phi, w) = sum over models m of phi of prod_{l in m} w(l)``.

A count runs over a :class:`~wmcdp.compile.flat.Flat` diagram (children before parents)
and treats each variable in one of three ways, fixed by a :class:`Plan`:

* a *random* bit contributes its two literal weights (:class:`~wmcdp.weights.BitWeight`);
* a *batch* bit has one 0/1 value per batch element (axis 0): one traversal then counts
  many inputs, or many (input, output) pairs, at once;
* a bit of a *group* (the bits of one input entry or one output value, most significant
  first) is free: the group becomes one numpy axis. While a node lies among the group's
  bits its axis holds codes of the bits below it; above the group it holds the group's
  *values* ``0..size-1`` only, so an output in ``{-1..3}`` costs 5 cells, not 8.

Variables a path skips contribute a factor 1 (random weights sum to one; a batch or group
bit is summed over neither). The three number systems (:class:`Linear`, :class:`Logs`,
:class:`Scaled`) share the traversal:

* :class:`Linear`: float64 probabilities, the fast default. It is used only when every
  path of the diagram has weight at least ``2**-1000`` (:func:`min_path_log2`), so no value
  the traversal forms can underflow.
* :class:`Logs`: float64 natural logs, for diagrams with smaller path weights (randomized
  response with n = 1000 has probabilities near 0.2^1000).
* :class:`Scaled`: exact. Each random bit's weights are ``a/d`` and ``b/d`` with integers
  ``a + b = d``; a node at level ``l`` holds ``WMC * prod(d of the random bits at levels >= l)``,
  an integer, and a skipped random bit multiplies by its ``d``. Every probability is then a
  numerator over one common denominator ``D`` (the product of all ``d``); numerators are
  float64 when ``D < 2**53`` (every intermediate is an integer below ``D``, so float64 is
  exact), int64 when ``D < 2**62``, and Python integers otherwise.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from .limits import check
from .numbers import ln_ratio
from .weights import BitWeight

NEG_INF = float("-inf")
#: Linear arithmetic is used when every path weight is at least 2**-LINEAR_MIN_LOG2 ... (see min_path_log2)
LINEAR_MIN_LOG2 = -1000.0


class Linear:
    """Probabilities as float64."""

    name = "float"
    exact = False
    log = False
    dtype = np.float64
    zero = 0.0
    one = 1.0

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[float, float]:
        return float(w.one), float(w.zero)

    @staticmethod
    def scale(m: Any, a: np.ndarray) -> np.ndarray:
        return a if m == 1 else m * a

    @staticmethod
    def combine(m1: Any, h: np.ndarray, m0: Any, lo: np.ndarray) -> np.ndarray:
        return m1 * h + m0 * lo

    @staticmethod
    def probability(v: Any) -> float:
        return float(v)

    @staticmethod
    def log_probability(v: Any) -> float:
        return math.log(v) if v > 0 else NEG_INF


class Logs:
    """Probabilities as natural logs in float64."""

    name = "float"
    exact = False
    log = True
    dtype = np.float64
    zero = NEG_INF
    one = 0.0

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[float, float]:
        return w.log_one, w.log_zero

    @staticmethod
    def scale(m: Any, a: np.ndarray) -> np.ndarray:
        return a if m == 0 else m + a

    @staticmethod
    def combine(m1: Any, h: np.ndarray, m0: Any, lo: np.ndarray) -> np.ndarray:
        return np.logaddexp(m1 + h, m0 + lo)

    @staticmethod
    def probability(v: Any) -> float:
        return math.exp(v)

    @staticmethod
    def log_probability(v: Any) -> float:
        return float(v)


@dataclass
class Scaled:
    """Exact probabilities as integer numerators over the common denominator ``denominator``."""

    denominator: int
    dtype: Any = field(init=False)

    name = "exact"
    exact = True
    log = False
    zero = 0
    one = 1

    def __post_init__(self) -> None:
        bits = self.denominator.bit_length()
        self.dtype = np.float64 if bits <= 53 else np.int64 if bits <= 62 else object

    @staticmethod
    def coefficients(w: BitWeight) -> tuple[int, int, int]:
        """``(a, b, d)`` with ``w(v) = a/d`` and ``w(not v) = b/d``."""
        d = math.lcm(w.one.denominator, w.zero.denominator)  # type: ignore[union-attr]
        return w.one.numerator * (d // w.one.denominator), w.zero.numerator * (d // w.zero.denominator), d

    def scale(self, m: int, a: np.ndarray) -> np.ndarray:
        return a if m == 1 else self._coefficient(m) * a

    def combine(self, m1: int, h: np.ndarray, m0: int, lo: np.ndarray) -> np.ndarray:
        return self._coefficient(m1) * h + self._coefficient(m0) * lo

    def _coefficient(self, m: int) -> Any:
        return float(m) if self.dtype is np.float64 else m if self.dtype is object else np.int64(m)

    def probability(self, v: Any) -> Fraction:
        return Fraction(int(v), self.denominator)

    def log_probability(self, v: Any) -> float:
        return ln_ratio(int(v), self.denominator) if v > 0 else NEG_INF


Arith = Linear | Logs | Scaled


# -- plans ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    """A free axis over the bits ``variables`` (most significant first) of one value in ``0..size-1``."""

    variables: tuple[int, ...]
    size: int


@dataclass
class Plan:
    """How each variable of a count is treated: random weights, per-batch values, or a group axis."""

    weights: Mapping[int, BitWeight]
    groups: Sequence[Group] = ()
    batch: Mapping[int, np.ndarray] = field(default_factory=dict)   # variable -> bool array (B,)
    batch_size: int = 1

    def __post_init__(self) -> None:
        self.member: dict[int, tuple[int, int]] = {}   # variable -> (group index, bit position)
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
    allocations (which otherwise cost as much as the arithmetic). Buffers are flat and kept
    by size class (a capacity within 1/8 above the request), and lent as views of the
    needed shape. A :class:`Pool` may serve many counts (the stripes of one table).
    """

    MIN_CELLS = 1 << 15

    def __init__(self) -> None:
        self.free: dict[tuple[int, Any], list[np.ndarray]] = {}
        self.lent: dict[int, np.ndarray] = {}   # id of a lent view -> its flat buffer

    @staticmethod
    def _capacity(cells: int) -> int:
        step = 1 << max(cells.bit_length() - 4, 0)
        return -(-cells // step) * step

    def take(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        cells = math.prod(shape)
        if cells < self.MIN_CELLS:
            return np.empty(shape, dtype=dtype)
        key = (self._capacity(cells), np.dtype(dtype))
        stack = self.free.get(key)
        base = stack.pop() if stack else np.empty(key[0], dtype=dtype)
        view = base[:cells].reshape(shape)
        self.lent[id(view)] = base
        return view

    def give(self, a: Any) -> None:
        base = self.lent.pop(id(a), None)
        if base is not None:
            self.free.setdefault((base.size, base.dtype), []).append(base)


class _Steps:
    """The array operations of one count, writing into pooled buffers."""

    def __init__(self, arith: Any, pool: Pool, zero: np.ndarray) -> None:
        self.arith = arith
        self.pool = pool
        self.zero = zero
        self.dtype = arith.dtype
        self.pooled = arith.dtype is not object

    def _out(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.pool.take(shape, self.dtype) if self.pooled else np.empty(shape, dtype=self.dtype)

    def _coefficient(self, m: Any) -> Any:
        return self.arith._coefficient(m) if self.arith.exact else m

    def scale(self, m: Any, a: np.ndarray) -> np.ndarray:
        if (m == 0 if self.arith.log else m == 1) or a is self.zero:
            return a
        out = self._out(a.shape)
        if self.arith.log:
            np.add(a, m, out=out)
        else:
            np.multiply(a, self._coefficient(m), out=out)
        return out

    def combine(self, m1: Any, h: np.ndarray, m0: Any, lo: np.ndarray) -> np.ndarray:
        """``m1 * h + m0 * lo`` (``logaddexp(m1 + h, m0 + lo)`` in logs); a FALSE child adds nothing."""
        if lo is self.zero:
            return self.scale(m1, h) if h is not self.zero else h
        if h is self.zero:
            return self.scale(m0, lo)
        out = self._out(np.broadcast_shapes(h.shape, lo.shape))
        tmp = self._out(out.shape)
        if self.arith.log:
            np.add(h, m1, out=out)
            np.add(lo, m0, out=tmp)
            np.logaddexp(out, tmp, out=out)
        else:
            np.multiply(h, self._coefficient(m1), out=out)
            np.multiply(lo, self._coefficient(m0), out=tmp)
            np.add(out, tmp, out=out)
        self.pool.give(tmp)
        return out

    def select(self, indicator: np.ndarray, h: np.ndarray, lo: np.ndarray) -> np.ndarray:
        """``h`` where the batch bit is 1, ``lo`` where it is 0."""
        out = self._out(np.broadcast_shapes(indicator.shape, h.shape, lo.shape))
        np.copyto(out, lo)
        np.copyto(out, h, where=np.broadcast_to(indicator, out.shape))
        return out

    def convert(self, a: np.ndarray, axis: int, target: int, size: int) -> np.ndarray:
        """An array over ``axis`` in bit-code form as the longer bit-code form ``target`` or the value form
        ``size``: position ``j`` reads position ``j mod n`` (a value's low bits are its code mod 2^c)."""
        n = a.shape[axis]
        if n == 1 or n == target:
            return a
        shape = list(a.shape)
        shape[axis] = target
        out = self._out(tuple(shape))
        np.take(a, np.arange(target) % n, axis=axis, out=out)
        return out

    def concatenate(self, low: np.ndarray, h: np.ndarray, axis: int, half: int, full: int) -> np.ndarray:
        """Codes ``0..half-1`` from ``low`` and ``half..full-1`` from ``h`` (a group node)."""
        shape = list(np.broadcast_shapes(h.shape, low.shape))
        shape[axis] = half
        upper = list(shape)
        upper[axis] = full - half
        take = [slice(None)] * len(shape)
        take[axis] = slice(0, full - half)
        shape_out = list(shape)
        shape_out[axis] = full
        out = self._out(tuple(shape_out))
        np.concatenate([np.broadcast_to(low, shape), np.broadcast_to(h, shape)[tuple(take)]], axis=axis, out=out)
        return out


def evaluate(flat: Any, plan: Plan, arith: Any, level_of: Any, *, skip: Any = None,
             pool: Pool | None = None) -> np.ndarray:
    """``WMC`` of ``flat``'s root under ``plan``: an array of shape ``(B, size_0, size_1, ...)``.

    ``skip(level_from, level_to)`` is, for :class:`Scaled`, the product of the denominators
    of the random bits at levels in ``[level_from, level_to)`` (a skipped random bit's factor);
    the other number systems need none. ``pool`` lends buffers (see :class:`Pool`).
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
    holders: dict[int, int] = {}  # id of an array -> entries whose value it is (a step may return its input)
    for k in range(len(var)):
        if k % 4096 == 4095:
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
            values[k] = steps.concatenate(low, h, g + 1, half, forms.length(g, level))
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
        holders[id(values[k])] = holders.get(id(values[k]), 0) + 1
        for child in (hi, lo):  # release the children only now: their buffers may be reused
            remaining[child] -= 1
            if remaining[child] == 0:
                released = values[child]
                values[child] = None
                count = holders.pop(id(released), 1) - 1
                if count:
                    holders[id(released)] = count
                else:
                    steps.pool.give(released)
    root = values[-1]
    if skip is not None:
        root = steps.scale(skip(0, levels[-1]), root)
    for axis in range(1, ndim):
        root = steps.convert(root, axis, forms.sizes[axis - 1], forms.sizes[axis - 1])
    steps.pool.lent.clear()  # the root belongs to the caller; anything else still lent is garbage
    return np.broadcast_to(root, (plan.batch_size,) + tuple(forms.sizes))


def peak_cells(flat: Any, plan: Plan, level_of: Any) -> int:
    """The largest number of array cells :func:`evaluate` holds at once under ``plan`` (a dry run on shapes).

    Temporaries of one step (converted children, products) come on top; callers leave room.
    """
    forms = _Forms(plan.groups, level_of)
    ndim = 1 + len(plan.groups)
    member, batch = plan.member, plan.batch
    shapes: list[tuple[int, ...]] = [()] * len(flat.var)
    remaining = list(flat.parents)
    live = peak = 0
    for k in range(len(flat.var)):
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
        live += math.prod(shape)
        peak = max(peak, live)
        for child in (hi, lo):
            remaining[child] -= 1
            if remaining[child] == 0:
                live -= math.prod(shapes[child])
    return peak


def min_path_log2(flat: Any, weights: Mapping[int, BitWeight]) -> float:
    """``log2`` of the smallest weight of a path from the root to TRUE (0.0 if there is none).

    Free and batch bits weigh 1. Every nonzero value a linear traversal forms is at least
    this, so when it is at least ``2**-1000`` float64 never underflows and no precision is lost.
    """
    cost = np.full(len(flat.var), -np.inf)   # -log2 of the smallest path weight below each entry
    log2 = math.log(2)
    for k in range(len(flat.var)):
        v = flat.var[k]
        if v < 0:
            cost[k] = 0.0 if v == -1 else -np.inf
            continue
        w = weights.get(int(v))
        h, lo = cost[flat.hi[k]], cost[flat.lo[k]]
        if w is None:
            cost[k] = max(h, lo)
        else:
            cost[k] = max(h - w.log_one / log2, lo - w.log_zero / log2)
    root = cost[-1]
    return 0.0 if root == -np.inf else -float(root)


__all__ = ["Linear", "Logs", "Scaled", "Arith", "Group", "Plan", "evaluate", "min_path_log2", "LINEAR_MIN_LOG2"]
