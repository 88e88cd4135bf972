"""Polynomials with rational coefficients (python-flint ``fmpq_poly``), the arithmetic of symbolic parameters.

The polynomials, and the conversions between flint's rationals and :class:`~fractions.Fraction`: the arithmetic
under :mod:`wmcdp.lang.parameter` and :mod:`.roots`."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint

Poly = flint.fmpq_poly


def fmpq(x: int | Fraction) -> flint.fmpq:
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def fraction(q: Any) -> Fraction:
    """A python-flint rational (or int) as a Fraction."""
    if isinstance(q, (int, Fraction)):
        return Fraction(q)
    return Fraction(int(q.p), int(q.q))


def poly_at(p: Poly, t: Fraction) -> Fraction:
    return fraction(p(fmpq(t)))


def coefficients(p: Poly) -> list[Fraction]:
    """Coefficients of ``p``, lowest degree first (``[]`` for the zero polynomial)."""
    return [fraction(c) for c in p.coeffs()]


__all__ = ["Poly", "fmpq", "fraction", "poly_at", "coefficients"]
