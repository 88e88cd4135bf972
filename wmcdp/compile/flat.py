"""A decision diagram as flat arrays: the form every count and symmetry check works on.

Beside it, the bit groups of the values a count gives an axis each (:class:`Group`), and the smallest path weight
(:func:`min_path_log2`).

Entry ``k`` is a node of the diagram taken with a polarity (CUDD's complemented edges are
resolved, so no count needs ``1 - WMC``): ``var[k]`` is its variable (``-1`` for TRUE,
``-2`` for FALSE), ``level[k]`` the variable's position in the order (``levels`` for the
terminals), ``hi[k]`` / ``lo[k]`` the entries of its two children, and ``parents[k]`` how
many entries point to it. Children come before parents; the root is the last entry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..lang.weights import BitWeight


@dataclass(frozen=True)
class Flat:
    var: np.ndarray  # int64, variable id or -1 (TRUE) / -2 (FALSE)
    level: np.ndarray  # int64
    hi: np.ndarray  # int64 entry index (-1 for terminals)
    lo: np.ndarray
    parents: list[int]
    levels: int  # the level of the terminals (the number of variables in the order)

    def __len__(self) -> int:
        return len(self.var)

    @cached_property
    def layers(self) -> list[np.ndarray]:
        """The decision entries level by level, from the bottom level up (each array in entry order):
        every entry's children lie in earlier layers or are terminals."""
        nodes = np.flatnonzero(self.var >= 0)
        nodes = nodes[np.argsort(-self.level[nodes], kind="stable")]
        cuts = np.flatnonzero(np.diff(self.level[nodes])) + 1
        return np.split(nodes, cuts) if len(nodes) else []

    @property
    def support(self) -> set[int]:
        """The variables the diagram depends on."""
        return {int(v) for v in self.var if v >= 0}


def build_flat(var: Any, level: Any, hi: Any, lo: Any, levels: int) -> Flat:
    """A :class:`Flat` from its columns (sequences or arrays; ``-1`` children for terminals)."""
    var, level, hi, lo = (np.asarray(a, dtype=np.int64) for a in (var, level, hi, lo))
    children = np.concatenate([hi[hi >= 0], lo[hi >= 0]])
    parents = np.bincount(children, minlength=len(var)).tolist()
    return Flat(var, level, hi, lo, parents, levels)


@dataclass(frozen=True)
class Group:
    """A free axis over the bits ``variables`` (most significant first) of one value in ``0..size-1``."""

    variables: tuple[int, ...]
    size: int


def min_path_log2(flat: Any, weights: Mapping[int, BitWeight]) -> float:
    """``log2`` of the smallest weight of a path from the root to TRUE (0.0 if there is none).

    Free and batch bits weigh 1. Every nonzero value a linear traversal forms is at least
    this, so when it is at least ``2**-1000`` float64 never underflows and no precision is lost.
    """
    cost = np.full(len(flat.var), -np.inf)  # -log2 of the smallest path weight below each entry
    cost[flat.var == -1] = 0.0
    log2 = math.log(2)
    for nodes in flat.layers:
        w = weights.get(int(flat.var[nodes[0]]))
        h, lo = cost[flat.hi[nodes]], cost[flat.lo[nodes]]
        cost[nodes] = np.maximum(h, lo) if w is None else np.maximum(h - w.log_one / log2, lo - w.log_zero / log2)
    root = cost[-1]
    return 0.0 if root == -np.inf else -float(root)


__all__ = ["Flat", "build_flat", "Group", "min_path_log2"]
