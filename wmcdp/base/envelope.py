"""The upper (or lower) envelope of finitely many rational functions on ``[lo, hi]``, exactly.

Candidates are ``num_j / den_j`` with a witness each, in the order a scan met them (on a tie the first
wins). The envelope changes its function only where the current best meets another candidate (a real root
of ``num_i den_j - num_j den_i``, :mod:`.roots`) or its denominator vanishes, so a sweep from ``lo`` finds
every breakpoint with one root isolation per candidate and piece (:func:`_sweep`). A candidate whose
denominator is zero everywhere (a triple with ``P(y | x') = 0`` for every parameter value) is infinite
wherever its numerator is not zero.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import WmcdpError
from .polys import Poly, poly_at
from .roots import Point, between, compare, real_roots


@dataclass
class Piece:
    """``num / den`` is the envelope on ``[start, end]``; ``den`` zero means infinity; ``witness`` attains it."""

    start: Point
    end: Point
    num: Poly
    den: Poly
    witness: Any


def _key(num: Poly, den: Poly) -> tuple[str, str]:
    return str(num), str(den)


def _reduced(num: Poly, den: Poly) -> tuple[Poly, Poly]:
    if den.is_zero():
        return num, den
    if num.is_zero():
        return Poly([]), Poly([1])
    g = num.gcd(den)
    num, den = num // g, den // g
    lead = den.leading_coefficient()
    return num / lead, den / lead


def envelope(candidates: list, lo: Point, hi: Point, *, upper: bool = True) -> list[Piece]:
    """The pieces of ``max_j num_j / den_j`` (``min`` when not ``upper``) over ``[lo, hi]``. A candidate may
    carry its own interval, ``(num, den, witness, start, end)``: it takes part only there."""
    if any(len(c) == 5 for c in candidates):
        return _partial(candidates, lo, hi, upper)
    finite: list[tuple[Poly, Poly, Any]] = []
    infinite: list[tuple[Poly, Any]] = []
    seen: set[tuple[str, str]] = set()
    for num, den, witness in candidates:
        num, den = _reduced(num, den)
        key = _key(num, den)
        if key in seen or (num.is_zero() and den.is_zero()):
            continue
        seen.add(key)
        (infinite.append((num, witness)) if den.is_zero() else finite.append((num, den, witness)))
    if not finite and not infinite:
        raise WmcdpError("every candidate is 0/0 on the whole interval; there is no ratio to bound")
    if infinite and upper:
        return _infinite_pieces(infinite, finite, lo, hi)
    return _sweep(finite, lo, hi, 1 if upper else -1)


def _sweep(fs: list[tuple[Poly, Poly, Any]], lo: Point, hi: Point, sign: int) -> list[Piece]:
    """Left to right: the current best candidate until the first point where another one meets it (a root of
    their difference) or its denominator vanishes; there the best just to the right is decided among the
    candidates that meet it, by exact evaluation at a rational before any of their next roots. Extra
    breakpoints only cost time (the same candidate continues and the pieces merge); none is missed, since
    the best changes only where it meets another candidate."""
    roots: dict[tuple[int, int], list[Point]] = {}

    def diff(j: int, k: int) -> Poly:
        return fs[j][0] * fs[k][1] - fs[k][0] * fs[j][1]

    def zeros(j: int, k: int) -> list[Point]:  # roots of diff(j, k) (k == j: of den_j) in [lo, hi]
        key = (min(j, k), max(j, k))
        if key not in roots:
            poly = fs[j][1] if j == k else diff(j, k)
            roots[key] = [] if poly.is_zero() or poly.degree() < 1 else [r for r, _ in real_roots(poly, lo, hi)]
        return roots[key]

    def after(points: list[Point], e: Point) -> Point | None:
        return next((r for r in points if compare(r, e) > 0), None)

    def value(j: int, s: Fraction) -> Fraction:
        return sign * poly_at(fs[j][0], s) / poly_at(fs[j][1], s)

    def beats(j: int, b: int, e: Point) -> bool:
        """``f_j`` is better than ``f_b`` just to the right of ``e``: by their values at ``e`` where both are
        defined and differ there (they are continuous), else at a rational before their next meeting."""
        if isinstance(e, Fraction) and poly_at(fs[j][1], e) != 0 and poly_at(fs[b][1], e) != 0:
            here, there = value(j, e), value(b, e)
            if here != there:
                return here > there
        stops = [p for p in (after(zeros(j, b), e), after(zeros(j, j), e), after(zeros(b, b), e)) if p is not None]
        stop: Point = min(stops + [hi], key=functools.cmp_to_key(compare))
        s = between(e, stop)
        return value(j, s) > value(b, s)

    def best(group: list[int], e: Point) -> int:
        b = group[0]
        for j in group[1:]:
            if beats(j, b, e):
                b = j
        return b

    e: Point = lo
    cur = best(list(range(len(fs))), lo)
    pieces: list[Piece] = []
    while True:
        events = [(r, j) for j in range(len(fs)) for r in [after(zeros(j, cur), e)] if r is not None]
        if not events:
            _add(pieces, Piece(e, hi, fs[cur][0], fs[cur][1], fs[cur][2]))
            return pieces
        r = min((p for p, _ in events), key=functools.cmp_to_key(compare))
        if compare(r, hi) >= 0:
            _add(pieces, Piece(e, hi, fs[cur][0], fs[cur][1], fs[cur][2]))
            return pieces
        _add(pieces, Piece(e, r, fs[cur][0], fs[cur][1], fs[cur][2]))
        meeting = [cur] + [j for p, j in events if j != cur and compare(p, r) == 0]
        cur, e = best(meeting, r), r


def _partial(candidates: list, lo: Point, hi: Point, upper: bool) -> list[Piece]:
    """The envelope of candidates defined on sub-intervals: between consecutive ends of those intervals the
    same candidates take part, and the envelope of those is taken there."""
    ends = [lo, hi] + [c[3] for c in candidates] + [c[4] for c in candidates]
    ends = sorted(ends, key=functools.cmp_to_key(compare))
    cuts = [p for i, p in enumerate(ends) if i == 0 or compare(ends[i - 1], p) != 0]
    pieces: list[Piece] = []
    for a, b in zip(cuts, cuts[1:]):
        active = [c[:3] for c in candidates if compare(c[3], a) <= 0 <= compare(c[4], b)]
        if not active:
            raise WmcdpError("no candidate covers part of the interval")
        for piece in envelope(active, a, b, upper=upper):
            _add(pieces, piece)
    return pieces


def _add(pieces: list[Piece], piece: Piece) -> None:
    """Append, merging with the previous piece when the function is the same."""
    if pieces and pieces[-1].num == piece.num and pieces[-1].den == piece.den:
        pieces[-1].end = piece.end
    else:
        pieces.append(piece)


def _infinite_pieces(
    infinite: list[tuple[Poly, Any]], finite: list[tuple[Poly, Poly, Any]], lo: Point, hi: Point
) -> list[Piece]:
    """Infinity on ``[lo, hi]``, but at the common zeros of every infinite candidate's numerator (where those
    triples are 0/0 and skipped): there the finite candidates decide, as single points."""
    common = infinite[0][0]
    for num, _ in infinite[1:]:
        common = common.gcd(num)
    zeros = [r for r, _ in real_roots(common, lo, hi)] if common.degree() > 0 else []
    pieces: list[Piece] = []
    start: Point = lo
    for z in zeros:
        if not isinstance(z, Fraction):
            raise WmcdpError("an infinite bound with an isolated finite value at an irrational point is not supported")
        values = [(poly_at(n, z) / poly_at(d, z), j) for j, (n, d, _) in enumerate(finite) if poly_at(d, z) != 0]
        if compare(z, start) != 0:
            pieces.append(Piece(start, z, infinite[0][0], Poly([]), infinite[0][1]))
        if values:
            _, j = max(values, key=lambda v: (v[0], -v[1]))
            pieces.append(Piece(z, z, finite[j][0], finite[j][1], finite[j][2]))
        start = z
    if not zeros or compare(start, hi) < 0:
        pieces.append(Piece(start, hi, infinite[0][0], Poly([]), infinite[0][1]))
    return pieces


__all__ = ["Piece", "envelope"]
