"""`Plan`: how each variable of a count is treated, by random weights, per-batch values or a group axis.

The traversal of :mod:`wmcdp.count.wmc` follows a plan, and so does the level-at-a-time count of
:mod:`wmcdp.count.region` that the traversal calls; the plan is here, below both, so that neither imports the
other for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..compile.flat import Group
from ..lang.weights import BitWeight


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


__all__ = ["Plan"]
