"""The outputs a program can produce: its *support*, read off a BDD without listing the output shape.

An output ``y`` has ``P(y | x) > 0`` for some input ``x`` only if ``phi(x, y, theta)`` holds for some valid input
code ``x`` and random bits ``theta``, so the support lies inside

    psi(y) = EXISTS x, theta . phi(x, y, theta) AND valid(x),

a diagram over the output bits alone (``valid``: every entry's code below the domain's size). The outputs outside
``psi`` have probability 0 for every input; those inside have a satisfying path of ``phi``, and a path whose random
bits all have nonzero weight unless some weight is 0 (then ``psi`` may hold a few outputs of probability 0, which
count as ``0/0`` everywhere and change no bound). Their number is ``psi``'s model count, known before any is
listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the producible outputs are listed (and counted one column each) when there are at most this many
SUPPORT_LIMIT = 1 << 16
#: diagrams with more output bits than this are not quantified (CUDD counts models in a double)
MAX_OUTPUT_BITS = 1000


def cube(be: Any, variables: Sequence[int], offset: int) -> Any:
    """The diagram of ``variables`` (most significant first) spelling ``offset`` in binary."""
    node = be.true
    width = len(variables)
    for k, v in enumerate(variables):
        node = be.conj(node, be.var(v) if (offset >> (width - 1 - k)) & 1 else be.negate(be.var(v)))
    return node


def valid_inputs(compiled: Any) -> Any:
    """The input bit patterns that encode values of the domain (every entry's code below ``k``), on a BDD."""
    be, k = compiled.backend, len(compiled.domain.entry_values)
    valid = be.true
    for bits in compiled.trace.input_bits.values():
        if not bits or k == 1 << len(bits):
            continue
        ok = be.false
        for offset in range(k):
            ok = be.disj(ok, cube(be, bits, offset))
        valid = be.conj(valid, ok)
    return valid


@dataclass(frozen=True)
class Support:
    """The producible outputs of a BDD-compiled program: ``psi`` over the output bits and its model count.

    It keeps the program's backend and output groups, not the program itself: a program caches its support, and a
    reference back would make a cycle whose collection can free CUDD's manager before the diagrams on it."""

    backend: Any  # the program's BDDBackend
    output_vars: tuple[int, ...]
    output_groups: tuple[Any, ...]  # the program's output Groups
    psi: Any
    size: int

    def rows(self) -> np.ndarray:
        """Every output in ``psi``, as rows of leaf offsets (one column per output group), in output order."""
        be = self.backend
        names = [be._name[v] for v in self.output_vars]
        bits = np.array(
            [[model[name] for name in names] for model in be.bdd.pick_iter(self.psi, care_vars=names)], dtype=np.int64
        ).reshape(-1, len(names))
        columns, j = [], 0
        for group in self.output_groups:
            w = len(group.variables)
            weights = 1 << np.arange(w - 1, -1, -1, dtype=np.int64)
            columns.append(bits[:, j : j + w] @ weights)
            j += w
        rows = np.stack(columns, axis=1) if columns else np.zeros((len(bits), 0), dtype=np.int64)
        return np.unique(rows, axis=0) if len(rows) else rows

    def positions(self, rows: np.ndarray) -> np.ndarray:
        """The positions in the output shape's order (``shape.values()``) of outputs given as leaf offsets."""
        sizes = [g.size for g in self.output_groups]
        if not sizes:
            return np.zeros(len(rows), dtype=np.int64)
        positions: np.ndarray = np.ravel_multi_index(tuple(rows.T), sizes).astype(np.int64)
        return positions


def output_support(compiled: Any, phi: Any = None) -> Support | None:
    """The support of a BDD-compiled program (``phi``: its diagram, or the diagram already restricted to valid
    inputs); None for an SDD or past :data:`MAX_OUTPUT_BITS` output bits. Counted, nothing listed."""
    if compiled.backend.name != "bdd" or len(compiled.output_vars) > MAX_OUTPUT_BITS:
        return None
    be = compiled.backend
    if phi is None:
        phi = be.conj(compiled.phi, valid_inputs(compiled))
    outputs = set(compiled.output_vars)
    others = [be._name[v] for v in compiled.order if v not in outputs]
    psi = be.bdd.exist(others, phi)
    count = int(be.bdd.count(psi, nvars=len(compiled.output_vars)))
    return Support(be, tuple(compiled.output_vars), tuple(compiled.output_groups), psi, count)


__all__ = ["Support", "output_support", "valid_inputs", "cube", "MAX_OUTPUT_BITS", "SUPPORT_LIMIT"]
