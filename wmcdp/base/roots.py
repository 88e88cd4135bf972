"""Exact real roots of polynomials with rational coefficients, and the points they define.

A polynomial is factored over the integers (python-flint). A linear factor gives a rational root exactly.
An irreducible factor of higher degree has simple, irrational roots only; FLINT's certified complex root
isolation (``arb_fmpz_poly_complex_roots``) encloses each in its own ball, and returns the real ones first
with an imaginary part of exactly zero. The real interval of such a ball holds exactly one root and has
rational ends, so each real root becomes an :class:`Algebraic`: its polynomial, its index among the
polynomial's real roots, and an isolating interval refined by bisection on demand (the midpoint, a
rational, is never a root). Two algebraic points are equal exactly when they are the same root of the same
polynomial; otherwise refining separates them. Nothing here rounds: every decision is exact.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from .polys import Poly, fmpq


def _sign_q(v: flint.fmpq) -> int:
    return (v > 0) - (v < 0)


def _sign(p: Poly | flint.fmpz_poly, x: Fraction) -> int:
    return _sign_q(p(fmpq(x)))


def _dyadic(arb: flint.arb) -> Fraction:
    man, exp = arb.man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


@dataclass
class Algebraic:
    """The ``index``-th real root of the irreducible integer polynomial ``poly`` (degree >= 2), the only root
    in the open interval ``(lo, hi)``."""

    poly: flint.fmpz_poly
    index: int
    lo: Fraction
    hi: Fraction

    def refine(self) -> None:
        """Halve the isolating interval."""
        mid = (self.lo + self.hi) / 2
        if _sign(self.poly, mid) == _sign(self.poly, self.lo):
            self.lo = mid
        else:
            self.hi = mid

    def narrow(self, width: Fraction) -> Algebraic:
        while self.hi - self.lo > width:
            self.refine()
        return self

    def __float__(self) -> float:
        self.narrow(Fraction(1, 2**60))
        return float((self.lo + self.hi) / 2)


Point = Fraction | Algebraic


@functools.lru_cache(maxsize=4096)
def _isolated(text: str, coefficients: tuple[int, ...]) -> tuple[tuple[Fraction, Fraction], ...]:
    """Isolating intervals of the real roots of an irreducible polynomial, in increasing order."""
    f = flint.fmpz_poly(list(coefficients))
    out = []
    # (acb ball, multiplicity) pairs, the real roots first; python-flint's stub says list[acb]
    found: list[tuple[flint.acb, int]] = f.complex_roots()  # type: ignore[assignment]
    for root, _ in found:
        if root.imag.is_zero():
            mid, rad = _dyadic(root.real.mid()), _dyadic(root.real.rad())
            out.append((mid - rad, mid + rad))
    return tuple(sorted(out))


def real_roots(p: Poly, lo: Point, hi: Point) -> list[tuple[Point, int]]:
    """The distinct real roots of ``p`` (not the zero polynomial) in ``[lo, hi]`` with their multiplicities,
    in increasing order."""
    out: list[tuple[Point, int]] = []
    factored = p.numer().factor()  # (content, [(factor, multiplicity)])
    factors = factored[1]
    for f, mult in factors:
        c = [int(v) for v in f.coeffs()]
        if len(c) == 2:
            r = Fraction(-c[0], c[1])
            if compare(r, lo) >= 0 and compare(r, hi) <= 0:
                out.append((r, mult))
            continue
        for index, (a, b) in enumerate(_isolated(str(f), tuple(c))):
            root = Algebraic(f, index, a, b)
            if compare(root, lo) >= 0 and compare(root, hi) <= 0:
                out.append((root, mult))
    return sorted(out, key=functools.cmp_to_key(_by_point))


def _by_point(u: tuple[Point, int], v: tuple[Point, int]) -> int:
    return compare(u[0], v[0])


def compare(a: Point, b: Point) -> int:
    """-1, 0 or 1 as ``a < b``, ``a == b``, ``a > b``, exactly."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    if isinstance(a, Fraction):
        return -compare(b, a)
    if isinstance(b, Fraction):  # an irrational root is never equal to a rational
        while a.lo < b < a.hi:
            a.refine()
        return 1 if b <= a.lo else -1
    if a.index == b.index and a.poly == b.poly:
        return 0
    while not (a.hi <= b.lo or b.hi <= a.lo):
        a.refine()
        b.refine()
    return -1 if a.hi <= b.lo else 1


def between(a: Point, b: Point) -> Fraction:
    """A simple rational strictly between the points ``a < b``."""
    while True:
        left = a if isinstance(a, Fraction) else a.hi
        right = b if isinstance(b, Fraction) else b.lo
        if left < right:
            return simplest_between(left, right)
        if isinstance(a, Algebraic):
            a.refine()
        if isinstance(b, Algebraic):
            b.refine()


def simplest_between(left: Fraction, right: Fraction) -> Fraction:
    """The rational with the smallest denominator strictly inside ``(left, right)`` (by continued fractions)."""
    if left < 0 < right:
        return Fraction(0)
    if right <= 0:
        return -simplest_between(-right, -left)
    return _simplest(left, right)


def _simplest(left: Fraction, right: Fraction | None) -> Fraction:
    """:func:`simplest_between` for ``0 <= left < right`` (``right`` None: no upper end)."""
    whole = math.floor(left)
    if right is None or whole + 1 < right:
        return Fraction(whole + 1)
    inner = _simplest(1 / (right - whole), None if left == whole else 1 / (left - whole))
    return whole + 1 / inner


def nonnegative_on(p: Poly, lo: Fraction, hi: Fraction, strict: bool = False) -> Fraction | None:
    """None when ``p >= 0`` (``> 0`` when ``strict``) on ``[lo, hi]``; else a rational point where it fails
    (for a strict failure at an irrational root, a rational within 2^-40 of it)."""
    if p.is_zero():
        return None if not strict else lo
    roots = real_roots(p, lo, hi)
    if strict and roots:
        r = roots[0][0]
        return r if isinstance(r, Fraction) else r.narrow(Fraction(1, 2**40)).lo
    cuts: list[Point] = [lo, *(r for r, _ in roots), hi]
    samples = [lo, hi] + [between(a, b) for a, b in zip(cuts, cuts[1:]) if compare(a, b) < 0]
    for s in samples:
        if _sign(p, s) < 0:
            return s
    return None


def sign_at(p: Poly, x: Point) -> int:
    """The sign of ``p(x)``, exactly. At an algebraic ``x``: 0 when its irreducible polynomial divides ``p``;
    otherwise ``x``'s interval is refined until it holds no root of ``p``, where ``p`` has ``p(x)``'s sign."""
    if isinstance(x, Fraction):
        return _sign(p, x)
    if p.is_zero() or not p.gcd(Poly(x.poly)).is_one():  # gcd 1 or x.poly (irreducible): p(x) = 0 in the latter
        return 0
    for r, _ in real_roots(p, x.lo, x.hi):
        compare(r, x)  # refines x until r lies outside its open interval
    return _sign(p, (x.lo + x.hi) / 2)


def point_text(x: Point) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return f"{float(x):.12g}"


__all__ = [
    "Algebraic",
    "Point",
    "real_roots",
    "compare",
    "between",
    "simplest_between",
    "nonnegative_on",
    "point_text",
    "sign_at",
]
