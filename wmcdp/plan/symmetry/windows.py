"""Transpositions of entries next to each other in the variable order, each proved by one local look.

The transpositions are of entries that sit next to each other in the variable order, proved by one local look
at the diagram each, instead of renaming the whole diagram.

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
    local check, outputs unchanged. Only neighbours that own equal adjacent segments (module docstring) are
    checked; nothing is when the budget cannot pay the checks."""
    if len(entries) < 2:
        return []
    order, firsts, shapes = _segments(prover, entries)
    joined = _proved_windows(prover, firsts, shapes)
    runs, run = [], [order[0]]
    for j in range(len(order) - 1):
        if j not in joined:
            runs.append(run)
            run = []
        run.append(order[j + 1])
    runs.append(run)
    return [r for r in runs if len(r) > 1]


def _proved_windows(prover: Any, firsts: list[int], shapes: list[Shape]) -> set[int]:
    """The neighbours ``j, j + 1`` (by ``j``) of equal segment shapes whose window passes the local check (each
    counted as a proof); none when the budget cannot pay every walk."""
    pairs = [j for j in range(len(shapes) - 1) if shapes[j] is not None and shapes[j] == shapes[j + 1]]
    if not pairs:
        return set()
    flat = _flat(prover)
    entering = _entering(flat, np.array([firsts[j] for j in pairs], dtype=np.int64))
    widths = [len(shapes[j] or ()) for j in pairs]
    cost = sum(len(u) * (4**w) * w for u, w in zip(entering, widths))
    if prover.budget is not None and not prover.budget.affords(cost):
        return set()
    prover._charge(cost)
    joined = set()
    for j, nodes, width in zip(pairs, entering, widths):
        if _symmetric(flat, nodes, list(range(firsts[j], firsts[j] + 2 * width)), width):
            prover.attempts += 1
            prover.proofs += 1
            prover.windows += 1
            joined.add(j)
    return joined


#: a segment's shape: per level, ("in", bit of the entry) or ("random", its weights); None: no segment
Shape = tuple[tuple[str, Any], ...] | None


def _segments(prover: Any, entries: list[int]) -> tuple[list[int], list[int], list[Shape]]:
    """``(entries in the order, each one's first level, each one's segment shape)``. Entry ``j``'s segment runs
    from its first input bit's level to the next entry's (the last entry's is as wide as the one before).
    Neighbours with equal shapes own equal adjacent segments."""
    be = prover.backend
    level_of = {v: be.level_of(v) for bits in prover.bits.values() for v in bits}
    level_of.update({v: be.level_of(v) for v in prover.weights})
    at_level = {lv: v for v, lv in level_of.items()}
    order = sorted(entries, key=lambda e: min(level_of[v] for v in prover.bits[e]))
    firsts = [min(level_of[v] for v in prover.bits[e]) for e in order]
    ends = firsts[1:] + [2 * firsts[-1] - firsts[-2]]
    shapes = [_shape(prover, e, [at_level.get(lv) for lv in range(a, b)]) for e, a, b in zip(order, firsts, ends)]
    return order, firsts, shapes


def _shape(prover: Any, e: int, variables: list[int | None]) -> Shape:
    """The shape of entry ``e``'s segment of ``variables``: None when it holds anything but ``e``'s bits and random
    bits (another entry's bit, an output bit), misses one of ``e``'s bits, or is wider than :data:`MAX_SEGMENT`."""
    own = prover.bits[e]
    if not 0 < len(variables) <= MAX_SEGMENT or not set(own) <= set(variables):
        return None
    shape = []
    for v in variables:
        if v in own:
            shape.append(("in", own.index(v)))
        elif v in prover.weights:
            shape.append(("random", prover.weights[v]))
        else:
            return None
    return tuple(shape)


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
    by_window = np.argsort(window, kind="stable")
    bounds = np.searchsorted(window[by_window], np.arange(len(starts) + 1))
    out = []
    for j, s in enumerate(starts.tolist()):
        here = nodes[by_window[bounds[j] : bounds[j + 1]]]
        if flat.level[root] >= s:
            here = np.append(here, root)
        out.append(np.unique(here))
    return out


def _offsets(count: np.ndarray) -> np.ndarray:
    """``0, 1, ..., c - 1`` for each ``c`` of ``count``, concatenated."""
    total = int(count.sum())
    ends = np.cumsum(count)
    offsets: np.ndarray = np.arange(total, dtype=np.int64) - np.repeat(ends - count, count)
    return offsets


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
