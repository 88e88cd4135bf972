"""Independent reference: enumerate every random choice of a plain-Python mechanism.

A reference mechanism is ``fn(x, choose)`` where ``choose({value: prob})`` returns one
value. :func:`distribution` re-runs ``fn`` along every sequence of choices (depth first)
and adds up the exact probability of each output. Nothing here touches wmcdp's
compiler or model counter.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable


class _Replay(Exception):
    pass


def distribution(fn: Callable, x) -> dict:
    """``{y: P(fn(x) = y)}`` as exact Fractions, by enumerating all random choices."""
    out: dict = {}
    stack: list[list[int]] = [[]]
    while stack:
        prefix = stack.pop()
        taken: list[int] = []
        prob = [Fraction(1)]

        def choose(options: dict):
            items = [(v, Fraction(p)) for v, p in options.items() if p != 0]
            k = len(taken)
            if k < len(prefix):
                idx = prefix[k]
            else:
                for alt in range(1, len(items)):
                    stack.append(prefix + taken[len(prefix):] + [alt])
                idx = 0
            taken.append(idx)
            value, p = items[idx]
            prob[0] *= p
            return value

        y = fn(x, choose)
        out[y] = out.get(y, Fraction(0)) + prob[0]
    return out


def flip(choose, p) -> int:
    return choose({1: Fraction(p), 0: 1 - Fraction(p)})


def tight_epsilon(dists: dict, neighbours) -> tuple[float, tuple]:
    """Brute-force Definition of tight eps over all neighbour pairs and outputs."""
    best, witness = -math.inf, None
    for x, px in dists.items():
        for xp in neighbours(x):
            pxp = dists[xp]
            for y in set(px) | set(pxp):
                a, b = px.get(y, 0), pxp.get(y, 0)
                if a == 0 and b == 0:
                    continue
                e = math.inf if b == 0 else (-math.inf if a == 0 else math.log(Fraction(a) / Fraction(b)))
                if e > best:
                    best, witness = e, (x, xp, y)
    return best, witness
