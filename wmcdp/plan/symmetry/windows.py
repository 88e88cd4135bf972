"""Transpositions of entries that sit next to each other in the variable order, proved by one local look at the
diagram each, instead of renaming the whole diagram.

Let entries ``e_1, ..., e_m`` own *segments*: runs of consecutive levels of the diagram's order, segment ``j``
right after segment ``j - 1``, each holding exactly entry ``e_j``'s input bits and random bits, ``p`` variables
each, the input bits at the same offsets in every segment and the random bits at equal offsets with equal
literal weights. The transposition ``tau_j`` of ``e_j`` and ``e_{j+1}`` renames offset ``k`` of segment ``j``
to offset ``k`` of segment ``j + 1`` and back (outputs unchanged); the sum over the random bits then gives
``P(y | tau x) = P(y | x)`` whenever ``phi o tau_j = phi`` (:mod:`.proof`).

**The local check.** ``tau_j`` only touches the window ``W_j`` of levels of segments ``j`` and ``j + 1``. Fix
the variables above ``W_j``: the diagram leads to one node ``u`` (at or below ``W_j``), and ``phi`` restricted
so is ``g_u``. So ``phi o tau_j = phi`` if and only if ``g_u(a, b, rest) = g_u(b, a, rest)`` for every node
``u`` that an edge from above ``W_j`` (or the root) enters at or below it, and every pair ``a, b`` of
assignments of the two segments: walking ``a`` then ``b`` from ``u`` must end at the same node as ``b`` then
``a`` (nodes of a reduced ordered diagram are equal functions exactly when they are the same node). Each window
costs ``4^p p`` steps per entering node, all windows together about one visit of the diagram; the adjacent
transpositions of a run generate its symmetric group. The check is exact: it is the diagram equality of a
renaming, read where the renaming acts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...compile.flat import Flat

#: segments of more than this many variables are not checked here (a window costs 4^p walks per entering node)
MAX_SEGMENT = 4


def adjacent_runs(prover: Any, entries: list[int]) -> list[list[int]]:
    """Runs of ``entries`` (two or more, in the variable order) whose adjacent transpositions are proved by the
    local check, outputs unchanged; none when the entries do not own equal adjacent segments (module docstring)
    or the budget cannot pay the checks."""
    segments = _segments(prover, entries)
    if segments is None:
        return []
    order, starts, width = segments
    flat = _flat(prover)
    entering = _entering(flat, np.array(starts[: len(order) - 1], dtype=np.int64))
    cost = sum(len(u) for u in entering) * (4**width) * width
    if prover.budget is not None and not prover.budget.affords(cost):
        return []
    prover._charge(cost)
    runs, run = [], [order[0]]
    for j, nodes in enumerate(entering):
        levels = range(starts[j], starts[j] + 2 * width)
        if _symmetric(flat, nodes, list(levels), width):
            prover.attempts += 1
            prover.proofs += 1
            prover.windows += 1
            run.append(order[j + 1])
        else:
            runs.append(run)
            run = [order[j + 1]]
    runs.append(run)
    return [r for r in runs if len(r) > 1]


def _segments(prover: Any, entries: list[int]) -> tuple[list[int], list[int], int] | None:
    """``(entries in the order, the first level of each segment and the level after the last, variables per
    segment)``; None unless consecutive segments of equal width hold exactly each entry's input bits (at equal
    offsets) and random bits (of equal weights at equal offsets), and nothing else."""
    be = prover.backend
    level_of = {v: be.level_of(v) for bits in prover.bits.values() for v in bits}
    level_of.update({v: be.level_of(v) for v in prover.weights})
    order = sorted(entries, key=lambda e: min(level_of[v] for v in prover.bits[e]))
    firsts = [min(level_of[v] for v in prover.bits[e]) for e in order]
    width = firsts[1] - firsts[0] if len(order) > 1 else 0
    if width < 1 or width > MAX_SEGMENT or any(b - a != width for a, b in zip(firsts, firsts[1:])):
        return None
    at_level = {lv: v for v, lv in level_of.items()}
    signature = None
    for e, first in zip(order, firsts):
        variables = [at_level.get(first + k) for k in range(width)]
        if any(v is None for v in variables) or not set(prover.bits[e]) <= set(variables):
            return None
        own = set(prover.bits[e])
        shape = [("in", prover.bits[e].index(v)) if v in own else ("random", prover.weights.get(v)) for v in variables]
        if any(kind == "random" and w is None for kind, w in shape) or shape != (signature or shape):
            return None
        signature = shape
    return order, firsts + [firsts[-1] + width], width


def _flat(prover: Any) -> Flat:
    """The diagram the proofs are about (``phi`` on valid input codes), flattened."""
    c = prover.compiled
    flat: Flat = c.flat if prover.phi == c.phi else prover.backend.flatten(prover.phi)
    return flat


def _entering(flat: Flat, starts: np.ndarray) -> list[np.ndarray]:
    """Per window start level ``s``: the nodes at or below ``s`` that an edge from above ``s`` enters (and the root
    when it lies at or below ``s``). An edge from level ``l`` to level ``l'`` enters every window whose start lies
    in ``(l, l']``."""
    decision = np.flatnonzero(flat.var >= 0)
    parent_level = np.concatenate([flat.level[decision], flat.level[decision]])
    child = np.concatenate([flat.hi[decision], flat.lo[decision]])
    child_level = flat.level[child]
    first = np.searchsorted(starts, parent_level, side="right")
    last = np.searchsorted(starts, child_level, side="right")
    count = np.maximum(last - first, 0)
    window = np.repeat(first, count) + _offsets(count)
    nodes = np.repeat(child, count)
    root = len(flat.var) - 1
    out = []
    for j, s in enumerate(starts.tolist()):
        here = nodes[window == j] if len(window) else nodes[:0]
        if flat.level[root] >= s:
            here = np.append(here, root)
        out.append(np.unique(here))
    return out


def _offsets(count: np.ndarray) -> np.ndarray:
    """``0, 1, ..., c - 1`` for each ``c`` of ``count``, concatenated."""
    total = int(count.sum())
    ends = np.cumsum(count)
    return np.arange(total, dtype=np.int64) - np.repeat(ends - count, count)


def _walk(flat: Flat, nodes: np.ndarray, levels: list[int], bits: int) -> np.ndarray:
    """The nodes reached from ``nodes`` by the assignment ``bits`` (most significant first) of ``levels``: a node
    at a level takes the child the bit chooses, a node below it stays (it does not depend on that variable)."""
    width = len(levels)
    for k, level in enumerate(levels):
        bit = (bits >> (width - 1 - k)) & 1
        at = flat.level[nodes] == level
        child = flat.hi[nodes] if bit else flat.lo[nodes]
        nodes = np.where(at, child, nodes)
    return nodes


def _symmetric(flat: Flat, nodes: np.ndarray, levels: list[int], width: int) -> bool:
    """Whether every node of ``nodes`` gives the same node for ``(a, b)`` and ``(b, a)`` on the two segments of
    ``levels`` (first ``width`` levels, then ``width`` more)."""
    if len(nodes) == 0:
        return True
    first, second = levels[:width], levels[width:]
    after = [_walk(flat, nodes, first, a) for a in range(1 << width)]
    ends = [[_walk(flat, after[a], second, b) for b in range(1 << width)] for a in range(1 << width)]
    return all(np.array_equal(ends[a][b], ends[b][a]) for a in range(1 << width) for b in range(a + 1, 1 << width))


__all__ = ["adjacent_runs", "MAX_SEGMENT"]
