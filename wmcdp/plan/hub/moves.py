"""The choices of the hub plan's search: per type of entries, the moves ``(x_e, x'_e)`` a relation allows."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .arith import Arith
from .search import Choice, Group, undominated

#: the relations the plan knows: whether exactly one entry moves, and the moves ``x_e -> x'_e`` one entry may make
#: (each of monotone's two directions is searched on its own, as all-entries with the moves of that direction)
RELATIONS: dict[str, tuple[bool, tuple[Callable[[int, int], bool], ...]]] = {
    "all-entries": (False, (lambda u, up: abs(u - up) == 1,)),
    "one-entry": (True, (lambda u, up: abs(u - up) == 1,)),
    "hamming": (True, (lambda u, up: True,)),
    "monotone": (False, (lambda u, up: up == u + 1, lambda u, up: up == u - 1)),
}


def _choices(table: Sequence[tuple[Any, ...]], pairs: Sequence[tuple[int, int]], arith: Arith) -> list[Choice]:
    """The choices ``(u, u')`` of ``pairs`` for an entry whose part has ``table[k][u]`` in hub class ``k``; of
    choices with equal probabilities, the first."""
    out: dict[tuple[Any, ...], Choice] = {}
    for u, up in pairs:
        a, b = tuple(t[u] for t in table), tuple(t[up] for t in table)
        if (a, b) not in out:
            la, lb = (np.array([arith.log(p) for p in side]) for side in (a, b))
            out[(a, b)] = Choice(u, up, a, b, la, lb)
    return list(out.values())


def _alternatives(
    types: dict[tuple[Any, ...], list[int]], size: int, relation: str, arith: Arith, at: bool = False
) -> Iterator[list[Group]]:
    """The groups to search for one output: under ``all-entries`` every entry takes any undominated move or stays
    (under ``monotone`` the same, once with the moves up and once with the moves down); under a relation that
    moves one entry, for each type, its first entry moves and every other entry stays. A type is ``(tables, v)``:
    ``v`` is None, or (``at``) the offset of the type's entries in a database ``x0``, whose data-centric pairs are
    searched once with ``x = x0`` and once with ``x' = x0`` (:func:`_on_side`)."""
    one, directions = RELATIONS[relation]
    for allowed in directions:
        moves = [(u, up) for u, up in itertools.permutations(range(size), 2) if allowed(u, up)]
        for side in (0, 1) if at else (None,):
            yield from _groups(types, size, one, moves, side, arith)


def _on_side(v: int | None, pairs: Sequence[tuple[int, int]], side: int | None) -> list[tuple[int, int]]:
    """The pairs ``(u, u')`` of ``pairs`` an entry at ``x0``'s offset ``v`` takes on ``side`` (0: ``u = v``, 1:
    ``u' = v``; None: every pair)."""
    return list(pairs) if side is None else [p for p in pairs if p[side] == v]


def _groups(
    types: dict[tuple[Any, ...], list[int]],
    size: int,
    one: bool,
    moves: list[tuple[int, int]],
    side: int | None,
    arith: Arith,
) -> Iterator[list[Group]]:
    """The groups of :func:`_alternatives` for one direction's ``moves`` and one ``side`` of ``x0``."""
    stays = [(u, u) for u in range(size)]

    def own(key: tuple[Any, ...], pairs: list[tuple[int, int]]) -> list[Choice]:
        offsets = _on_side(key[1], pairs, side)
        values = len(key[0][0]) // size  # the entry's own output values (.owned), else one
        return _choices(key[0], [(k * size + u, k * size + up) for k in range(values) for u, up in offsets], arith)

    if not one:
        yield [Group(tuple(es), undominated(own(t, stays + moves), arith)) for t, es in types.items()]
        return
    for moved in types:
        first = undominated(own(moved, moves), arith)
        if not first:  # x0's value at an end of the range under a direction that leaves it
            continue
        groups = [Group((types[moved][0],), first)]
        for t, es in types.items():
            groups.append(Group(tuple(es[1:] if t == moved else es), tuple(own(t, stays))))
        yield groups
