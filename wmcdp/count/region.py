"""The entries of a count below every group bit, counted a whole level at a time.

This is part of the traversal of :func:`wmcdp.count.wmc.evaluate`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.limits import check
from .floats import WIDE, Extended, widen
from .plans import Plan
from .steps import Steps


class Region:
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
        self, flat: Any, plan: Plan, arith: Any, steps: Steps, skip: Any, *, wide: bool = False
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
                        part * steps.coefficient(g)
                        if dtype is object
                        else np.multiply(part, steps.coefficient(g), out=part)
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
                    c1, c0 = (widen(c1), widen(c0)) if wide else (steps.coefficient(c1), steps.coefficient(c0))
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


__all__ = ["Region"]
