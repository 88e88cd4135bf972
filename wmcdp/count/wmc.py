"""Weighted model counting (paper eq. 4) over a flattened decision diagram: the traversal every number system shares.

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
bit is summed over neither). The number systems share the traversal and one small interface
(``coefficients``, ``mul``, ``add``, ``probability``, ``log_ratio``, ...): the float ones
(:class:`~wmcdp.count.floats.Linear`, :class:`~wmcdp.count.floats.Extended`) in
:mod:`wmcdp.count.floats`, the exact ones (:class:`~wmcdp.count.exact.Scaled`,
:class:`~wmcdp.count.exact.Rational`) in :mod:`wmcdp.count.exact`. The array operations
of a step are :mod:`wmcdp.count.steps`; the nodes below every group bit have no group axis and
are counted a level at a time (:mod:`wmcdp.count.region`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base.limits import check
from ..compile.flat import Group
from . import floats
from .exact import Rational, Scaled
from .floats import Extended, Linear
from .plans import Plan
from .region import Region
from .steps import Pool, Steps, arrays_of

Arith = Linear | Extended | Scaled | Rational

#: the most axes a count's array has (the batch and one per group): numpy 1 allows 32, numpy 2 allows 64
MAX_AXES = 32


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


class _Traversal:
    """The entries above the level-wise region, one at a time, children before parents: paper eq. 4's sum as
    the recursion ``WMC(v) = w(x) WMC(hi) + w(not x) WMC(lo)`` at a random bit ``x``, over arrays, with a
    batch bit choosing per batch element and a group bit placing its children's codes side by side on its
    group's axis (module docstring). A child's value is released to the pool once its last parent has read it."""

    def __init__(self, flat: Any, plan: Plan, arith: Any, level_of: Any, skip: Any, pool: Pool | None) -> None:
        self.plan, self.arith, self.skip = plan, arith, skip
        self.ndim = 1 + len(plan.groups)
        self.forms = _Forms(plan.groups, level_of)
        scalar_shape = (1,) * self.ndim
        self.one = np.full(scalar_shape, arith.one, dtype=arith.dtype)
        self.zero = np.full(scalar_shape, arith.zero, dtype=arith.dtype)
        self.steps = Steps(arith, pool or Pool(), self.zero)
        self.indicators = {v: bits.reshape((-1,) + (1,) * (self.ndim - 1)) for v, bits in plan.batch.items()}
        self.coefficients: dict[int, tuple[Any, ...]] = {}
        self.values: list[Any] = [None] * len(flat.var)
        self.remaining = list(flat.parents)
        self.bottom = flat.levels
        self.var, self.levels = flat.var.tolist(), flat.level.tolist()
        self.his, self.los = flat.hi.tolist(), flat.lo.tolist()
        self.holders: dict[int, int] = {}  # id of an array -> values holding it (a step may return its input)

    def run(self, entries: list[int]) -> None:
        """The values of ``entries`` (in order, every child's value known before its parent's)."""
        var, values = self.var, self.values
        for step, k in enumerate(entries):
            if step % 4096 == 4095:
                check("counting")
            v = var[k]
            if v < 0:
                values[k] = self.one if v == -1 else self.zero
                continue
            values[k] = self._value(k, v)
            self._hold(k)

    def _skipped(self, level: int, child: int) -> Any:
        """The factor of the random bits skipped on the edge from ``level`` to ``child`` (exact counts)."""
        return self.skip(level + 1, self.levels[child] if self.var[child] >= 0 else self.bottom)

    def _value(self, k: int, v: int) -> Any:
        """The value of decision entry ``k`` on variable ``v``, from its children's values."""
        level, hi, lo = self.levels[k], self.his[k], self.los[k]
        h, low = self.values[hi], self.values[lo]
        member = self.plan.member
        g = member[v][0] if v in member else -1
        h, low = self._aligned(h, low, g, level)
        if self.skip is not None:
            g_hi, g_lo = self._skipped(level, hi), self._skipped(level, lo)
            if g >= 0 or v in self.indicators:
                h, low = self.steps.scale(g_hi, h), self.steps.scale(g_lo, low)
        if g >= 0:
            return self._group(h, low, g, level)
        if v in self.indicators:
            return self.steps.select(self.indicators[v], h, low)
        coeff = self.coefficients.get(v)
        if coeff is None:
            coeff = self.coefficients[v] = self.arith.coefficients(self.plan.weights[v])
        if self.skip is not None:
            return self.steps.combine(coeff[0] * g_hi, h, coeff[1] * g_lo, low)
        return self.steps.combine(coeff[0], h, coeff[1], low)

    def _aligned(self, h: Any, low: Any, g: int, level: int) -> tuple[Any, Any]:
        """Both children brought to the axis forms of a node at ``level`` (every group axis but the node's own
        group ``g``, and those on which both children are constant)."""
        steps, forms = self.steps, self.forms
        for axis in range(1, self.ndim):
            if axis - 1 == g or (h.shape[axis] == 1 and low.shape[axis] == 1):
                continue
            target = forms.length(axis - 1, level)
            h = steps.convert(h, axis, target, forms.sizes[axis - 1])
            low = steps.convert(low, axis, target, forms.sizes[axis - 1])
        return h, low

    def _group(self, h: Any, low: Any, g: int, level: int) -> Any:
        """A bit of group ``g``: the codes with the bit 0 from ``low``, those with the bit 1 from ``h``."""
        half = 1 << (self.forms.covered(g, level) - 1)
        h = self.steps.convert(h, g + 1, half, -1)
        low = self.steps.convert(low, g + 1, half, -1)
        return self.steps.group(low, h, g + 1, half, self.forms.length(g, level))

    def _hold(self, k: int) -> None:
        """Count the arrays entry ``k``'s value holds, then release the children no other parent still reads
        (only now: their buffers may be reused, and ``k``'s value may share them)."""
        holders = self.holders
        for array in arrays_of(self.values[k]):
            holders[id(array)] = holders.get(id(array), 0) + 1
        for child in (self.his[k], self.los[k]):
            self.remaining[child] -= 1
            if self.remaining[child] == 0:
                for array in arrays_of(self.values[child]):
                    count = holders.pop(id(array), 1) - 1
                    if count:
                        holders[id(array)] = count
                    else:
                        self.steps.pool.give(array)
                self.values[child] = None

    def root(self, batch_size: int) -> np.ndarray:
        """The root's value as one array ``(B, size_0, size_1, ...)``, every group axis in value form."""
        steps, sizes = self.steps, self.forms.sizes
        root = self.values[-1]
        if self.skip is not None:
            root = steps.scale(self.skip(0, self.levels[-1]), root)
        for axis in range(1, self.ndim):
            root = steps.convert(root, axis, sizes[axis - 1], sizes[axis - 1])
        root = steps.dense(root)
        steps.pool.lent.clear()  # the root belongs to the caller; anything else still lent is garbage
        return np.broadcast_to(root, (batch_size,) + tuple(sizes))


def evaluate(
    flat: Any, plan: Plan, arith: Any, level_of: Any, *, skip: Any = None, pool: Pool | None = None, wide: bool = False
) -> np.ndarray:
    """``WMC`` of ``flat``'s root under ``plan`` (paper eq. 4; the counts of Algorithm 1, INFERENCE): an array of shape
    ``(B, size_0, size_1, ...)``. The entries below every group bit count a level at a time
    (:class:`~wmcdp.count.region.Region`), the others one at a time (:class:`_Traversal`).

    ``skip(level_from, level_to)`` is, for :class:`Scaled`, the product of the denominators
    of the random bits at levels in ``[level_from, level_to)`` (a skipped random bit's factor);
    the other number systems need none. ``pool`` lends buffers (see :class:`Pool`). ``wide``
    (:class:`Extended` only, when every path weight is at least ``2**WIDE_MIN_LOG2``): count the
    nodes below the groups in :data:`WIDE` floats (see :class:`~wmcdp.count.region.Region`).
    """
    traversal = _Traversal(flat, plan, arith, level_of, skip, pool)
    region = Region(flat, plan, level_of)
    wide = wide and arith is Extended and floats.WIDE is not None
    for k, value in region.count(flat, plan, arith, traversal.steps, skip, wide=wide).items():
        traversal.values[k] = value
    traversal.run(np.flatnonzero(~region.inside).tolist())
    return traversal.root(plan.batch_size)


def peak_cells(flat: Any, plan: Plan, level_of: Any) -> int:
    """The largest number of array cells :func:`evaluate` holds at once under ``plan`` (a dry run on shapes).

    Temporaries of one step (converted children, products) come on top; callers leave room.
    """
    return _dry_run(flat, plan, level_of)[0]


def work(flat: Any, plan: Plan, level_of: Any) -> tuple[int, int, int]:
    """``(array cells made, entries stepped one by one, levels counted a level at a time)`` by :func:`evaluate`
    under ``plan`` (the same dry run as :func:`peak_cells`): what a count costs, for the planner's estimates.
    Each entry stepped alone and each level of the region costs a fixed number of array operations (a value
    holds at most two arrays, :class:`~wmcdp.count.steps.Halves`), each cell its arithmetic."""
    _, cells, steps, layers = _dry_run(flat, plan, level_of)
    return cells, steps, layers


def _dry_run(flat: Any, plan: Plan, level_of: Any) -> tuple[int, int, int, int]:
    """``(peak cells, total cells, entries above the level-wise region, levels of the region)`` of a count
    under ``plan``."""
    forms = _Forms(plan.groups, level_of)
    ndim = 1 + len(plan.groups)
    member, batch = plan.member, plan.batch
    shapes: list[tuple[int, ...]] = [()] * len(flat.var)
    remaining = list(flat.parents)
    region = Region(flat, plan, level_of)
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
    return peak, total, len(outside), len(region.layers)


__all__ = [
    "Arith",
    "MAX_AXES",
    "Plan",
    "evaluate",
    "peak_cells",
    "work",
    # the number systems of Arith (defined in wmcdp.count.floats and wmcdp.count.exact)
    "Linear",
    "Extended",
    "Scaled",
    "Rational",
]
