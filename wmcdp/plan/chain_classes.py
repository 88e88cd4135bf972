"""The chain plan's automaton of state pairs, lumped boundary by boundary into classes of equal futures.

The chain plan (:mod:`.chain`) finds ``e^ε`` as the largest product of block ratios along a path through the
state pairs ``(u, u', moved)`` at the block boundaries. Here every step is kept, not only the best into each
state: ``step[k][s][t]`` is the largest ratio ``w_k / w'_k`` of a step ``(x_k, x'_k, y_k)`` from pair ``s`` at
boundary ``k`` to pair ``t`` at boundary ``k + 1`` (``inf`` once the x' side is dead). The pairs at the last
boundary whose x side is TRUE, whose x' side is TRUE or dead, and where an entry moved, accept (class 0). Going
up, two pairs at boundary ``k`` are *lumped* when their rows agree: for every class below, the same largest
ratio into it (an exact bisimulation of the max-times automaton, so ``e^ε`` is the largest product along a
path of classes, the output values forgotten). The classes at a boundary are numbered in the order of their
rows (sorted), so two boundaries with equal lists of rows are the same step of one max-times matrix
(:mod:`wmcdp.notions.every_n` reads a family's matrix off them). Pairs with no path to an accepting one are
dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.maxtimes import Ratio, matrix_of
from ..compile import Compiled
from .chain import DEAD, ChainDiagram, State, _moves, find_chain, transitions
from .hub.arith import _Exact
from .hub.moves import RELATIONS

#: a class's row: ``(class below, largest ratio into it)``, sorted by class
Row = tuple[tuple[int, Ratio], ...]


@dataclass(frozen=True)
class ClassChain:
    """One search direction of the relation as max-times steps between classes: ``rows[k]`` the rows of the
    classes at boundary ``k`` (``k = 0`` the root's, one class), each over the classes at boundary ``k + 1``
    (boundary ``n``: the accepting class 0); ``pairs[k]`` the number of state pairs at boundary ``k``."""

    rows: tuple[tuple[Row, ...], ...]
    pairs: tuple[int, ...]

    def matrix(self, k: int) -> dict[int, dict[int, Ratio]]:
        """Boundary ``k``'s rows as a sparse matrix (class -> class below -> ratio)."""
        return matrix_of(self.rows[k])


def class_chains(compiled: Compiled, relation: str) -> list[ClassChain] | None:
    """The lumped chain (module docstring) of the exactly weighted ``compiled`` program, one per direction of the
    built-in ``relation`` (two for ``monotone``); None when the chain plan does not apply (no chain, a cut wider
    than one) or the relation is not one of the chain plan's."""
    chain = find_chain(compiled) if relation in RELATIONS else None
    if chain is None:
        return None
    d = ChainDiagram(compiled, chain, _Exact)
    one, steps = RELATIONS[relation]
    out = []
    for step in steps:
        layers = _layers(d, _moves(one, step, d.size))
        if layers is None:
            return None
        out.append(_lumped(d, layers))
    return out


def _layers(d: ChainDiagram, moves: Any) -> list[dict[State, dict[State, Ratio]]] | None:
    """``step[k][s][t]`` (module docstring) for every block, over the pairs reachable from the root's."""
    nodes = {int(d.root): d.root}
    frontier: set[State] = {(int(d.root), int(d.root), False)}
    out: list[dict[State, dict[State, Ratio]]] = []
    for block in d.blocks:
        tables = {}
        for u in {s[0] for s in frontier} | {s[1] for s in frontier if s[1] != DEAD}:
            table = d.steps(block, nodes[u])
            if table is None:
                return None
            tables[u] = table
        layer: dict[State, dict[State, Ratio]] = {}
        for state in frontier:
            row = layer.setdefault(state, {})
            for nxt, w, wp, _ in transitions(state, tables, moves, nodes):
                r: Ratio = math.inf if wp is None else Fraction(w) / Fraction(wp)
                if r > row.get(nxt, 0):
                    row[nxt] = r
        out.append(layer)
        frontier = {t for row in layer.values() for t in row}
    return out


def _lumped(d: ChainDiagram, layers: list[dict[State, dict[State, Ratio]]]) -> ClassChain:
    """The classes of equal rows, boundary by boundary from the last (module docstring)."""
    true = int(d.be.true)
    below = {t: 0 for row in layers[-1].values() for t in row if t[0] == true and t[1] in (true, DEAD) and t[2]}
    rows: list[tuple[Row, ...]] = []
    for layer in reversed(layers):
        signature: dict[State, Row] = {}
        for state, steps in layer.items():
            best: dict[int, Ratio] = {}
            for t, r in steps.items():
                if t in below and r > best.get(below[t], 0):
                    best[below[t]] = r
            if best:
                signature[state] = tuple(sorted(best.items()))
        distinct = sorted(set(signature.values()))
        rank = {row: i for i, row in enumerate(distinct)}
        rows.append(tuple(distinct))
        below = {s: rank[row] for s, row in signature.items()}
    return ClassChain(tuple(reversed(rows)), tuple(len(layer) for layer in layers))


__all__ = ["ClassChain", "Row", "class_chains"]
