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


def _convert(a: np.ndarray, axis: int, target: int, size: int) -> np.ndarray:
    """An array over ``axis`` in bit-code form as the longer bit-code form ``target`` or the value form ``size``."""
    n = a.shape[axis]
    if n == 1 or n == target:
        return a
    if target == size:  # value form: value v has the low bits v mod n
        return np.take(a, np.arange(size) % n, axis=axis)
    reps = [1] * a.ndim
    reps[axis] = target // n
    return np.tile(a, reps)


def evaluate(flat: Any, plan: Plan, arith: Any, level_of: Any, *, skip: Any = None) -> np.ndarray:
    """``WMC`` of ``flat``'s root under ``plan``: an array of shape ``(B, size_0, size_1, ...)``.

    ``skip(level_from, level_to)`` is, for :class:`Scaled`, the product of the denominators
    of the random bits at levels in ``[level_from, level_to)`` (a skipped random bit's factor);
    the other number systems need none.
    """
    groups, member, batch = plan.groups, plan.member, plan.batch
    ndim = 1 + len(groups)
    forms = _Forms(groups, level_of)
    scalar_shape = (1,) * ndim
    one = np.full(scalar_shape, arith.one, dtype=arith.dtype)
    zero = np.full(scalar_shape, arith.zero, dtype=arith.dtype)
    indicators = {v: bits.reshape((-1,) + (1,) * (ndim - 1)) for v, bits in batch.items()}
    coefficients: dict[int, tuple] = {}
    values: list[Any] = [None] * len(flat.var)
    remaining = list(flat.parents)
    bottom = flat.levels
    for k in range(len(flat.var)):
        if k % 4096 == 4095:
            check("counting")
        v = flat.var[k]
        if v < 0:
            values[k] = one if v == -1 else zero
            continue
        level = int(flat.level[k])
        hi, lo = int(flat.hi[k]), int(flat.lo[k])
        h, low = values[hi], values[lo]
        for child in (hi, lo):
            remaining[child] -= 1
            if remaining[child] == 0:
                values[child] = None
        if skip is not None:
            g_hi = skip(level + 1, int(flat.level[hi]) if flat.var[hi] >= 0 else bottom)
            g_lo = skip(level + 1, int(flat.level[lo]) if flat.var[lo] >= 0 else bottom)
        else:
            g_hi = g_lo = None
        # bring both children to this node's axis forms
        if v in member:
            g, b = member[v]
        else:
            g = -1
        for axis in range(1, ndim):
            gi = axis - 1
            if gi == g:
                continue
            nh, nl = h.shape[axis], low.shape[axis]
            if nh == 1 and nl == 1:
                continue
            target = forms.length(gi, level)
            size = forms.sizes[gi]
            h = _convert(h, axis, target, size)
            low = _convert(low, axis, target, size)
        if g >= 0:
            values[k] = _group_node(arith, h, low, g + 1, forms, level, g_hi, g_lo)
        elif v in indicators:
            if g_hi is not None:
                h, low = arith.scale(g_hi, h), arith.scale(g_lo, low)
            values[k] = np.where(indicators[v], h, low)
        else:
            coeff = coefficients.get(v)
            if coeff is None:
                coeff = coefficients[v] = arith.coefficients(plan.weights[v])
            if g_hi is not None:
                a, b, _ = coeff
                values[k] = arith.combine(a * g_hi, h, b * g_lo, low)
            else:
                values[k] = arith.combine(coeff[0], h, coeff[1], low)
    root = values[-1]
    if skip is not None:
        root = arith.scale(skip(0, int(flat.level[-1])), root)
    for axis in range(1, ndim):
        root = _convert(root, axis, forms.sizes[axis - 1], forms.sizes[axis - 1])
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


def _group_node(arith: Any, h: np.ndarray, low: np.ndarray, axis: int, forms: _Forms, level: int,
                g_hi: Any, g_lo: Any) -> np.ndarray:
    """A node labelled with a bit of a group: the low half of its codes from ``low``, the high half from ``h``."""
    gi = axis - 1
    full = forms.length(gi, level)
    covered = forms.covered(gi, level)
    half = 1 << (covered - 1)
    if g_hi is not None:
        h, low = arith.scale(g_hi, h), arith.scale(g_lo, low)
    h = _convert(h, axis, half, -1)
    low = _convert(low, axis, half, -1)
    shape = list(np.broadcast_shapes(h.shape, low.shape))
    shape[axis] = half
    both = np.concatenate([np.broadcast_to(low, shape), np.broadcast_to(h, shape)], axis=axis)
    if full != 1 << covered:  # the group's top bit: keep the values 0..size-1 only
        both = both.take(np.arange(full), axis=axis)
    return both


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
