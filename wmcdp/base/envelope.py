"""The upper (or lower) envelope of finitely many rational functions on ``[lo, hi]``, exactly.

Candidates are ``num_j / den_j`` with a witness each, in the order a scan met them (on a tie the first
wins). The envelope changes its function only where the current best meets another candidate (a real root
of ``num_i den_j - num_j den_i``, :mod:`.roots`) or its denominator vanishes, so a sweep from ``lo`` finds
every breakpoint with one root isolation per candidate and piece (:func:`_sweep`). A candidate whose
denominator is zero everywhere (a triple with ``P(y | x') = 0`` for every parameter value) is infinite
wherever its numerator is not zero.

:func:`ratio_envelope` gives a privacy ratio the semantics of a numeric run at every point: where a probability
vanishes (the support changes) its value is worked out on its own and kept as a single-point piece ``[z, z]``
when it is not the limit of the neighbouring pieces; :func:`piece_at` reads such pieces first, and
:func:`max_of_piecewise` combines piecewise functions that carry them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import WmcdpError
from .polys import Poly, fmpq, poly_at
from .roots import Point, between, compare, point_text, real_roots, sign_at


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


def envelope(candidates: list[tuple[Any, ...]], lo: Point, hi: Point, *, upper: bool = True) -> list[Piece]:
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
    if infinite and upper:  # infinite wherever an infinite candidate's numerator is not zero (see ratio_envelope)
        return [Piece(lo, hi, infinite[0][0], Poly([]), infinite[0][1])]
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


def _partial(candidates: list[tuple[Any, ...]], lo: Point, hi: Point, upper: bool) -> list[Piece]:
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


def ratio_envelope(candidates: list[tuple[Poly, Poly, Any]], lo: Point, hi: Point) -> list[Piece]:
    """The pieces of ``t -> max_j P_j(t) / P'_j(t)`` over ``[lo, hi]`` with the semantics of a numeric run at every
    point: a pair with ``P_j(t) = P'_j(t) = 0`` is skipped there and one with ``P'_j(t) = 0 < P_j(t)`` is infinite.

    A candidate is ``(Q_j, Q'_j, witness)`` with ``P_j = Q_j / M`` and ``P'_j = Q'_j / M`` for one ``M`` that has
    no zero on the interval. Away from the zeros of the ``Q'_j`` (of ``Q_j`` when ``Q'_j`` is zero everywhere)
    every candidate is a continuous function or infinite, and :func:`envelope` is exact there. At each of those
    *support changes* the value is worked out on its own from the unreduced ``Q_j(z), Q'_j(z)``; where it differs
    from the limit of the pieces (or their witness is 0/0 there) it becomes a single-point piece ``[z, z]``.
    """
    pieces = envelope([(num, den, j) for j, (num, den, _) in enumerate(candidates)], lo, hi)
    points: list[Piece] = []
    for z in _support_changes(candidates, lo, hi):
        here = _point_piece(candidates, z)
        holding = [q for q in pieces if compare(q.start, z) <= 0 <= compare(q.end, z)]
        if any(_skipped(candidates[q.witness][0], candidates[q.witness][1], z) or _order(q, here, z) for q in holding):
            points.append(here)
    return [Piece(q.start, q.end, q.num, q.den, candidates[q.witness][2]) for q in with_points(pieces, points)]


def _support_changes(candidates: list[tuple[Poly, Poly, Any]], lo: Point, hi: Point) -> list[Point]:
    """The zeros in ``[lo, hi]`` of every candidate's ``Q'`` (of its ``Q`` when ``Q'`` is zero), in order."""
    polys: dict[str, Poly] = {}
    for num, den, _ in candidates:
        p = num if den.is_zero() else den
        if not p.is_zero() and p.degree() > 0:
            polys.setdefault(str(p), p)
    found = [r for p in polys.values() for r, _ in real_roots(p, lo, hi)]
    found.sort(key=functools.cmp_to_key(compare))
    return [z for i, z in enumerate(found) if i == 0 or compare(found[i - 1], z) != 0]


def _skipped(num: Poly, den: Poly, z: Point) -> bool:
    return sign_at(num, z) == 0 and sign_at(den, z) == 0


def _point_piece(candidates: list[tuple[Poly, Poly, Any]], z: Point) -> Piece:
    """``[z, z]``: the largest ``Q_j(z) / Q'_j(z)`` over the candidates not 0/0 at ``z`` (the first on a tie), as a
    constant at a rational ``z`` (``den`` zero: infinity), else as the candidate's reduced function."""
    if isinstance(z, Fraction):  # exact values, the first largest (max keeps the first of equal keys)
        values = [(poly_at(num, z), poly_at(den, z), j) for j, (num, den, _) in enumerate(candidates)]
        ratios = [(math.inf if b == 0 else a / b, j) for a, b, j in values if a != 0 or b != 0]
        if ratios:
            j = max(ratios, key=lambda item: item[0])[1]
            return point_piece(z, *_reduced(candidates[j][0], candidates[j][1]), j)
    else:
        best: Piece | None = None
        for j, (num, den, _) in enumerate(candidates):
            if not _skipped(num, den, z):
                q = point_piece(z, *_reduced(num, den), j)
                best = q if best is None or _order(q, best, z) > 0 else best
        if best is not None:
            return best
    raise WmcdpError(f"every triple has P(y|x) = P(y|x') = 0 at {point_text(z)}; there is no ratio to bound")


def point_piece(z: Point, num: Poly, den: Poly, witness: Any) -> Piece:
    """The single-point piece ``[z, z]`` of ``num / den`` (reduced, or ``den`` zero everywhere): infinity where the
    denominator vanishes, and a constant at a rational ``z``."""
    if sign_at(den, z) == 0:
        return Piece(z, z, Poly([1]), Poly([]), witness)
    if isinstance(z, Fraction):
        return Piece(z, z, Poly([fmpq(poly_at(num, z) / poly_at(den, z))]), Poly([1]), witness)
    return Piece(z, z, num, den, witness)


def _order(p: Piece, q: Piece, z: Point) -> int:
    """-1, 0 or 1 as ``p``'s function at ``z`` is below, equal to or above ``q``'s (a zero ``den`` is infinity)."""
    sp, sq = sign_at(p.den, z), sign_at(q.den, z)
    if sp == 0 or sq == 0:
        return (sp == 0) - (sq == 0)
    return sign_at(p.num * q.den - q.num * p.den, z) * sp * sq


def piece_at(pieces: list[Piece] | tuple[Piece, ...], z: Point) -> Piece:
    """The piece that gives the value at ``z``: a single-point piece ``[z, z]`` if there is one, else the first piece
    holding ``z`` (pieces that meet at ``z`` without a point piece there agree at ``z``)."""
    holding = [q for q in pieces if compare(q.start, z) <= 0 <= compare(q.end, z)]
    if not holding:
        raise WmcdpError(f"{point_text(z)} is outside the interval of the pieces")
    return next((q for q in holding if compare(q.start, q.end) == 0), holding[0])


def _start_order(u: Piece, v: Piece) -> int:
    return compare(u.start, v.start)


by_start = functools.cmp_to_key(_start_order)  # the sort key of pieces by their start


def with_points(pieces: list[Piece], points: list[Piece]) -> list[Piece]:
    """``pieces`` with the single-point pieces ``points`` (in increasing order) put in, splitting the piece that
    holds each; a point piece already in ``pieces`` stays, and is kept over one of ``points`` at the same point."""
    queue = sorted([*(q for q in pieces if compare(q.start, q.end) == 0), *points], key=by_start)
    out: list[Piece] = []
    for p in (q for q in pieces if compare(q.start, q.end) < 0):
        start = p.start
        while queue and compare(queue[0].start, p.end) <= 0:
            point = queue.pop(0)
            if compare(point.start, start) > 0:
                out.append(Piece(start, point.start, p.num, p.den, p.witness))
            if not (out and compare(out[-1].start, point.start) == 0 == compare(out[-1].end, point.start)):
                out.append(point)
            start = point.start
        if compare(start, p.end) < 0:
            out.append(Piece(start, p.end, p.num, p.den, p.witness))
    return out


def max_of_piecewise(parts: list[list[Piece]], lo: Point, hi: Point) -> list[Piece]:
    """The pointwise maximum of piecewise functions over ``[lo, hi]`` (each a list of pieces covering it, with
    single-point pieces where its value at a point is not the limit of its pieces): the envelope of the parts'
    pieces on each stretch between their ends, and at every end the largest of the parts' values there."""
    stretches = [(q.num, q.den, q.witness, q.start, q.end) for part in parts for q in part if compare(q.start, q.end)]
    pieces = envelope(stretches, lo, hi, upper=True)
    ends = sorted((e for part in parts for q in part for e in (q.start, q.end)), key=functools.cmp_to_key(compare))
    points = []
    for i, z in enumerate(ends):
        if i and compare(ends[i - 1], z) == 0:
            continue
        best = piece_at(parts[0], z)
        for part in parts[1:]:
            q = piece_at(part, z)
            if _order(q, best, z) > 0:
                best = q
        here = point_piece(z, best.num, best.den, best.witness)
        pointwise = any(compare(q.start, q.end) == 0 and compare(q.start, z) == 0 for part in parts for q in part)
        if pointwise or _order(piece_at(pieces, z), here, z) != 0:
            points.append(here)
    return with_points(pieces, points)


__all__ = [
    "Piece",
    "envelope",
    "ratio_envelope",
    "max_of_piecewise",
    "piece_at",
    "point_piece",
    "with_points",
    "by_start",
]
