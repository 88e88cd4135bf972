"""Weighted model counting on an SDD (the :mod:`wmcdp.compile.sdd` backend's diagrams).

It counts in the number systems of :mod:`wmcdp.count.wmc`, under the plans of :mod:`wmcdp.count.plans`."""

from __future__ import annotations

from typing import Any

import gmpy2
import numpy as np

from ..compile.sdd import fold
from .plans import Plan


def count_sdd(u: Any, plan: Plan, arith: Any, denominator: int | None = None) -> np.ndarray:
    """``WMC(u)`` under ``plan`` (see :mod:`wmcdp.count.wmc`): shape ``(B, size_0, size_1, ...)``.

    ``WMC(decision) = sum over elements (p, s) of WMC(p) * WMC(s)``. A group's bits are
    separate axes during the traversal (an SDD has no linear order to collapse them by)
    and become the group's values at the end. Exact counts run over rationals (gmpy2
    ``mpq``) and are returned as integer numerators over ``denominator``.
    """
    rational = arith.exact
    zero, one = (gmpy2.mpq(0), gmpy2.mpq(1)) if rational else (arith.zero, arith.one)
    dtype = object if rational else arith.dtype
    mul, add = arith.mul, arith.add
    bit_axis: dict[int, int] = {}
    for group in plan.groups:
        for v in group.variables:
            bit_axis[v] = 1 + len(bit_axis)
    ndim = 1 + len(bit_axis)
    scalar = (1,) * ndim

    def literal(lit: int) -> np.ndarray:
        v, positive = abs(lit) - 1, lit > 0
        if v in bit_axis:
            shape = [1] * ndim
            shape[bit_axis[v]] = 2
            return np.array([zero, one] if positive else [one, zero], dtype=dtype).reshape(shape)
        if v in plan.batch:
            bits = plan.batch[v] if positive else ~plan.batch[v]
            batch: np.ndarray = np.where(bits, one, zero).astype(dtype).reshape((-1,) + scalar[1:])
            return batch
        w = plan.weights.get(v)
        if w is None:  # a variable the count does not sum over weighs 1
            return np.full(scalar, one, dtype=dtype)
        value = gmpy2.mpq(w.one if positive else w.zero) if rational else arith.coefficients(w)[0 if positive else 1]
        return np.full(scalar, value, dtype=dtype)

    def leaf(f: Any) -> np.ndarray:
        if f.is_true():
            return np.full(scalar, one, dtype=dtype)
        if f.is_false():
            return np.full(scalar, zero, dtype=dtype)
        return literal(f.literal)

    def decision(elements: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        total: np.ndarray = mul(*elements[0])
        for p, q in elements[1:]:
            total = add(total, mul(p, q))
        return total

    root = fold(u, leaf, decision)
    value = np.broadcast_to(root, (plan.batch_size,) + (2,) * len(bit_axis))
    out = value.reshape((plan.batch_size,) + tuple(1 << len(g.variables) for g in plan.groups))
    for axis, group in enumerate(plan.groups, start=1):
        if group.variables:
            out = out.take(np.arange(group.size), axis=axis)
    out = np.broadcast_to(out, (plan.batch_size,) + tuple(g.size for g in plan.groups))
    if not rational:
        return np.ascontiguousarray(out)
    if denominator is None:  # rationals as they are
        return np.array(out, dtype=object)
    scaled = np.empty(out.shape, dtype=arith.dtype)
    cells = scaled.reshape(-1)
    for k, q in enumerate(out.reshape(-1)):
        n = q * denominator
        assert n.denominator == 1
        cells[k] = int(n.numerator)
    return scaled


__all__ = ["count_sdd"]
