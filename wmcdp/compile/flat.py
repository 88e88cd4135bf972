"""A decision diagram as flat arrays: the form every count and symmetry check works on.

Entry ``k`` is a node of the diagram taken with a polarity (CUDD's complemented edges are
resolved, so no count needs ``1 - WMC``): ``var[k]`` is its variable (``-1`` for TRUE,
``-2`` for FALSE), ``level[k]`` the variable's position in the order (``levels`` for the
terminals), ``hi[k]`` / ``lo[k]`` the entries of its two children, and ``parents[k]`` how
many entries point to it. Children come before parents; the root is the last entry.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Flat:
    var: np.ndarray      # int64, variable id or -1 (TRUE) / -2 (FALSE)
    level: np.ndarray    # int64
    hi: np.ndarray       # int64 entry index (-1 for terminals)
    lo: np.ndarray
    parents: list[int]
    levels: int          # the level of the terminals (the number of variables in the order)

    def __len__(self) -> int:
        return len(self.var)

    @property
    def support(self) -> set[int]:
        """The variables the diagram depends on."""
        return {int(v) for v in self.var if v >= 0}


def build_flat(var: list[int], level: list[int], hi: list[int], lo: list[int], levels: int) -> Flat:
    parents = [0] * len(var)
    for h, low in zip(hi, lo):
        if h >= 0:
            parents[h] += 1
            parents[low] += 1
    as_array = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    return Flat(as_array(var), as_array(level), as_array(hi), as_array(lo), parents, levels)


__all__ = ["Flat", "build_flat"]
