"""`Groups`: the outputs of one pair grouped by likelihood ratio, and the product of two pairs' groups.

The privacy-loss distribution of a pair ``(x, x')`` (:mod:`wmcdp.notions.loss`) keeps, per distinct ratio
``P(y|x) / P(y|x')``, the two masses of its outputs: nothing is lost for a sum over the outputs of a term
homogeneous of degree one in the two masses (the hockey-stick divergence, Rényi sums, the loss itself). The
groups of a product of two independent distributions are the products of their groups, equal ratios merged
again: the composition of runs on one pair, and the pairs of the parts of a program independent given the input
(:mod:`wmcdp.plan.given_pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gmpy2
import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import check
from ..count import wmc

#: most groups (distinct losses, after equal ones merge) one composed privacy-loss distribution may hold
MAX_GROUPS = 1 << 20
#: most products of two groups one composition step may form before they merge
MAX_PRODUCTS = 1 << 22
#: float mode merges log-ratios within this relative distance (equal ratios computed along different roundings)
TOLERANCE = 1e-12


@dataclass
class Groups:
    """Outputs grouped by likelihood ratio: ``a[i]``, ``b[i]`` the two masses of group ``i`` in ``arith``.

    Exact: ``ratios[i]`` is the rational ``a/b`` as a ``gmpy2.mpq`` (None for ``b = 0``, the infinite loss; mpq
    multiplies and hashes several times faster than a Fraction, which composition does millions of times) and
    ``a``, ``b`` are Python ints over ``arith.denominator``. Float: ``ratios[i]`` is the float
    ``ln a − ln b`` and ``a``, ``b`` are natural logs.
    """

    arith: Any
    ratios: list[Any]
    a: list[Any]
    b: list[Any]

    @classmethod
    def of(cls, arith: Any, a: np.ndarray, b: np.ndarray) -> Groups:
        """Group the outputs of one pair (outputs with ``P(y|x) = 0`` carry no loss and are dropped)."""
        if arith.exact:
            merged: dict[Any, list[int]] = {}
            for x, y in zip(a, b):
                x, y = int(x), int(y)
                if x:
                    cell = merged.setdefault(gmpy2.mpq(x, y) if y else None, [0, 0])
                    cell[0] += x
                    cell[1] += y
            keys = list(merged)
            return cls(arith, keys, [merged[k][0] for k in keys], [merged[k][1] for k in keys])
        live = a > -np.inf
        la, lb = a[live], b[live]
        return merge_float(arith, la - lb, la, lb)

    def compose(self, other: Groups, limit: int = MAX_GROUPS) -> Groups:
        """The groups of the product of the two pairs' distributions (equal losses merged; their number is
        limited after the merge, by ``limit``)."""
        if len(self.a) * len(other.a) > MAX_PRODUCTS:
            raise too_many(limit)
        check("composing privacy losses")
        out = self._product(other)
        if len(out.a) > limit:
            raise too_many(limit)
        return out

    def _product(self, other: Groups) -> Groups:
        if self.arith.exact:
            merged: dict[Any, list[int]] = {}
            for r1, a1, b1 in zip(self.ratios, self.a, self.b):
                for r2, a2, b2 in zip(other.ratios, other.a, other.b):
                    cell = merged.setdefault(None if r1 is None or r2 is None else r1 * r2, [0, 0])
                    cell[0] += a1 * a2
                    cell[1] += b1 * b2
            keys = list(merged)
            arith = wmc.Scaled(self.arith.denominator * other.arith.denominator)
            return Groups(arith, keys, [merged[k][0] for k in keys], [merged[k][1] for k in keys])
        r = (np.asarray(self.ratios)[:, None] + np.asarray(other.ratios)[None, :]).ravel()
        la = (np.asarray(self.a)[:, None] + np.asarray(other.a)[None, :]).ravel()
        lb = (np.asarray(self.b)[:, None] + np.asarray(other.b)[None, :]).ravel()
        return merge_float(self.arith, r, la, lb)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        dtype = object if self.arith.exact else np.float64
        return np.array(self.a, dtype=dtype), np.array(self.b, dtype=dtype)


class TooManyLosses(WmcdpError):
    """A composition would pass the limit on distinct losses (or on products formed in one step)."""


def too_many(limit: int = MAX_GROUPS) -> WmcdpError:
    return TooManyLosses(
        f"composing gives more than {limit} distinct losses after equal ones merge (or a step more than "
        f"{MAX_PRODUCTS} products); compose fewer runs, or use --accountant dp-accounting"
    )


def merge_float(arith: Any, r: np.ndarray, la: np.ndarray, lb: np.ndarray) -> Groups:
    """Merge outputs whose float log-ratios agree to :data:`TOLERANCE` (equal ratios up to rounding)."""
    order = np.argsort(r, kind="stable")
    r, la, lb = r[order], la[order], lb[order]
    with np.errstate(invalid="ignore"):
        gap = np.diff(r) > TOLERANCE * np.maximum(1.0, np.abs(r[1:]))
    ids = np.concatenate([[0], np.cumsum(gap | ~np.isfinite(r[1:]))]) if len(r) else np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]])) if len(r) else ids
    a = np.full(len(starts), -np.inf)
    b = np.full(len(starts), -np.inf)
    np.logaddexp.at(a, ids, la)
    np.logaddexp.at(b, ids, lb)
    return Groups(arith, list(r[starts]), list(a), list(b))


__all__ = ["MAX_GROUPS", "MAX_PRODUCTS", "TOLERANCE", "Groups", "TooManyLosses", "too_many", "merge_float"]
