"""Refuting a candidate symmetry by counting a few of its equations exactly, before any diagram proof.

A generator that holds maps every input ``x`` to ``pi(x)`` and every output ``y`` to ``sigma(y)`` with
``P(sigma(y) | pi(x)) = P(y | x)`` (:mod:`.proof`). Counting both sides for a few fixed pairs is one
traversal of the compiled diagram per batch of inputs, where a proof renames the whole diagram (and a
renaming can blow it up exponentially). Two counts that differ prove the candidate is no symmetry, for
every map of the random bits at once; counts that agree prove nothing (the diagram equality decides).

The probe inputs are fixed: every entry at its lowest value, every entry at its highest, and the
first entry the candidate moves alone at the highest (else lowest), and alone at the lowest (else
highest). The outputs compared are all of them when there are at most :data:`WHOLE_OUTPUTS`, else those
of :data:`PATHS` paths of ``phi | x`` walked with a seeded generator. So one command refutes the same
candidates on any machine.

Exact weights are compared exactly. Float counts are compared in logs: a float count's relative error is
at most about ``3 L 2^-53`` over ``L`` levels (one product and one sum of nonnegative terms per level),
below :data:`FLOAT_GAP` by orders of magnitude while ``L`` is at most :data:`FLOAT_LEVELS`; only a
larger difference (or 0 against a positive count) refutes. Programs with a symbolic parameter are not
probed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ...compile import Compiled
from ...count.probabilities import Counter, number_system

#: outputs up to which a probe input's whole output distribution is counted (past it: the outputs of sampled paths)
WHOLE_OUTPUTS = 256
#: paths of ``phi | x`` walked (seeded) to pick the outputs compared when the outputs are too many to count all
PATHS = 16
#: two float counts whose natural logs differ by more than this differ (see the module docstring)
FLOAT_GAP = 1e-6
#: levels of a diagram up to which :data:`FLOAT_GAP` bounds a float count's rounding (many times over)
FLOAT_LEVELS = 1 << 24

#: probe inputs up to which those of every entry are counted in the first batch (one traversal for all of them)
BATCHED_PROBES = 256
#: the image of a probe pair under a candidate: (input digits, output offsets) -> (input digits, output offsets)
Image = Callable[[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]


class Probes:
    """Counts of ``P(y | x)`` at fixed probe pairs of one compiled program, cached, to refute candidates."""

    def __init__(self, compiled: Compiled, budget: Any = None) -> None:
        self.compiled = compiled
        self.budget = budget
        arith: Any = number_system(compiled, None) if compiled.symbolic is None else None
        self.enabled = arith is not None and (arith.exact or len(compiled.order) <= FLOAT_LEVELS)
        self.arith: Any = arith
        self.counter = Counter(compiled, arith) if self.enabled else None
        self.sizes = [g.size for g in compiled.output_groups]
        self.k = len(compiled.domain.entry_values)
        self.n = compiled.domain.n
        self.whole = int(np.prod(self.sizes, dtype=object)) <= WHOLE_OUTPUTS
        self._every = [tuple(int(v) for v in row) for row in np.ndindex(*self.sizes)] if self.whole else []
        self.nodes = len(compiled.flat.var)
        self.counts = 0  # probe counts made (traversals of the diagram)
        self.refutations = 0  # candidates refuted by a count
        self._rows: dict[tuple[int, ...], np.ndarray] = {}  # input -> whole output distribution
        self._pairs: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}  # (input, output) -> P(y | x)
        self._outputs: dict[tuple[int, ...], list[tuple[int, ...]]] = {}  # input -> outputs of sampled paths

    def inputs(self, moved: int) -> list[tuple[int, ...]]:
        """The probe inputs (entry digits ``x_i - lo``) for a candidate whose first moved entry is ``moved``."""
        lo, hi = 0, self.k - 1
        up = [lo] * self.n
        up[moved] = hi
        down = [hi] * self.n
        down[moved] = lo
        return [(lo,) * self.n, (hi,) * self.n, tuple(up), tuple(down)]

    def _every_probe(self) -> list[tuple[int, ...]]:
        """The probe inputs of every entry (:meth:`inputs`), counted with the first batch when they are at most
        :data:`BATCHED_PROBES`: one traversal then serves every later candidate (none when they are more)."""
        if 2 * self.n + 2 > BATCHED_PROBES:
            return []
        return [x for moved in range(self.n) for x in self.inputs(moved)]

    def refutes(self, moved: int, image: Image) -> bool:
        """True when some probe pair ``(x, y)`` has ``P(image(x, y)) != P(y | x)`` (counted): no symmetry."""
        if not self.enabled:
            return False
        for x in self.inputs(moved):
            ys = self._output_list(x)
            if ys is None:
                return False
            images = [image(x, y) for y in ys]
            mine = self._probabilities([(x, y) for y in ys])
            theirs = self._probabilities(images)
            if mine is None or theirs is None:
                return False
            if self._differ(mine, theirs):
                self.refutations += 1
                return True
        return False

    # -- counting ---------------------------------------------------------------------------------
    def _affords(self, nodes: int) -> bool:
        """Whether the budget pays for a traversal of ``nodes`` nodes, and charge it."""
        if self.budget is not None:
            if not self.budget.affords(nodes):
                return False
            self.budget.charge(nodes)
        return True

    def _output_list(self, x: tuple[int, ...]) -> list[tuple[int, ...]] | None:
        """The outputs compared at ``x``: all of them, or those of seeded paths of ``phi | x`` (None: past the
        budget)."""
        if self.whole:
            return self._every
        if x not in self._outputs:
            c = self.compiled
            if not self._affords(self.nodes):
                return None
            u = c.backend.condition(c.phi, c.input_assignment(tuple(v + c.domain.lo for v in x)))
            rng = random.Random(0)
            found: list[tuple[int, ...]] = []
            for _ in range(PATHS):
                model = c.backend.random_model(u, rng)
                if model is None:
                    break
                y = tuple(_offset(model, g.variables) for g in c.output_groups)
                if y not in found:
                    found.append(y)
            self._outputs[x] = found
        return self._outputs[x]

    def _probabilities(self, pairs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[Any] | None:
        """``P(y | x)`` of each pair, counted in one batch where not cached (None: past the budget)."""
        assert self.counter is not None
        if self.whole:
            inputs = sorted({x for x, _ in pairs if x not in self._rows})
            if inputs:
                inputs = sorted({*inputs, *(x for x in self._every_probe() if x not in self._rows)})
                if not self._affords(self.nodes):
                    return None
                self.counts += 1
                for start, rows in self.counter.distributions(np.array(inputs, dtype=np.int64)):
                    for j, row in enumerate(rows):
                        self._rows[inputs[start + j]] = row
            return [self._rows[x][_index(y, self.sizes)] for x, y in pairs]
        missing = sorted({p for p in pairs if p not in self._pairs})
        if missing:
            if not self._affords(self.nodes):
                return None
            self.counts += 1
            digits = np.array([x for x, _ in missing], dtype=np.int64)
            offsets = np.array([y for _, y in missing], dtype=np.int64).reshape(len(missing), len(self.sizes))
            for p, value in zip(missing, self.counter.pairs(digits, offsets)):
                self._pairs[p] = value
        return [self._pairs[p] for p in pairs]

    def _differ(self, a: list[Any], b: list[Any]) -> bool:
        """Whether two lists of counts provably differ somewhere (exactly, or past the float gap)."""
        arith = self.arith
        if arith.exact:
            return any(p != q for p, q in zip(a, b))
        la = arith.as_log(np.array(a, dtype=arith.dtype))
        lb = arith.as_log(np.array(b, dtype=arith.dtype))
        zero_a, zero_b = np.isneginf(la), np.isneginf(lb)
        if np.any(zero_a != zero_b):
            return True
        both = ~zero_a
        return bool(np.any(np.abs(la[both] - lb[both]) > FLOAT_GAP))


def _index(y: tuple[int, ...], sizes: list[int]) -> int:
    """The position of the output ``y`` (offsets per group) in a distribution row (mixed radix, first group first)."""
    index = 0
    for offset, size in zip(y, sizes):
        index = index * size + offset
    return index


def _offset(model: dict[int, bool], variables: tuple[int, ...]) -> int:
    """The code a model spells on ``variables`` (most significant first; a skipped variable reads as False)."""
    offset = 0
    for v in variables:
        offset = (offset << 1) | bool(model.get(v, False))
    return offset


__all__ = ["Probes", "WHOLE_OUTPUTS", "PATHS", "FLOAT_GAP"]
