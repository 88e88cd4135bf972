"""Piecewise bounds: the results of parametric runs.

The result types of parametric runs, their exact values at a point, and their text,
LaTeX and JSON forms."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.envelope import Piece, piece_at
from ..base.numbers import format_number, ln
from ..base.polys import coefficients, poly_at
from ..base.roots import Algebraic, Point, point_text
from ..lang.parameter import Parameter, function_text, poly_text
from ..lang.shape import format_value


def _value(pieces: tuple[Piece, ...], t: int | Fraction) -> Fraction | float:
    """The value at ``t`` (exact): ``num(t) / den(t)`` of the piece that gives it (:func:`piece_at`: a single-point
    piece ``[t, t]`` first), infinity where ``den(t)`` is zero."""
    t = Fraction(t)
    piece = piece_at(pieces, t)
    d = poly_at(piece.den, t)
    return math.inf if d == 0 else poly_at(piece.num, t) / d


@dataclass(frozen=True)
class PiecewisePrivacyResult:
    """The tight ε as a function of the parameter: on each piece ``[start, end]``, e^ε = ``num/den`` and the
    witness triple of :class:`wmcdp.PrivacyWitness` attaining it (the first in the set's order)."""

    parameter: Parameter
    pieces: tuple[Piece, ...]
    degree: int  # the degree bound K of the run's probabilities (K + 1 exact counts)
    diagram_size: int
    seconds: float
    exact: bool = True
    sets: Any = None
    plan: Any = None

    def ratio_at(self, t: int | Fraction) -> Fraction | float:
        """e^ε at ``t`` (exact; ``math.inf`` where a triple has ``P(y | x) > 0 = P(y | x')``), as the exact numeric
        run at ``t`` gives it."""
        return _value(self.pieces, t)

    def epsilon_at(self, t: int | Fraction) -> float:
        """ε at ``t``: ``ln`` of :meth:`ratio_at` correctly rounded (``inf`` for an infinite ratio, ``-inf`` for 0)."""
        r = self.ratio_at(t)
        return math.inf if r == math.inf else -math.inf if r == 0 else ln(Fraction(r))

    def _repr_markdown_(self) -> str:
        return markdown(self, "e^ε")


@dataclass(frozen=True)
class PiecewiseAccuracyResult:
    """The tight 1 − β as a function of the parameter: on each piece, ``num/den`` and the worst input."""

    parameter: Parameter
    alpha: Any
    pieces: tuple[Piece, ...]
    degree: int
    diagram_size: int
    seconds: float
    exact: bool = True
    sets: Any = None
    plan: Any = None

    def one_minus_beta_at(self, t: int | Fraction) -> Fraction:
        """1 − β at ``t`` (exact), from the piece holding ``t``."""
        return Fraction(_value(self.pieces, t))

    def _repr_markdown_(self) -> str:
        return markdown(self, "1 − β")


@dataclass(frozen=True)
class PiecewiseDeltaResult:
    """The tight δ at a fixed ``ratio`` = e^ε as a function of the parameter: on each piece, δ = ``num/den``
    and the neighbouring pair (:class:`wmcdp.PairWitness`) attaining it."""

    parameter: Parameter
    ratio: Fraction
    pieces: tuple[Piece, ...]
    degree: int
    diagram_size: int
    seconds: float
    exact: bool = True
    plan: Any = None

    def delta_at(self, t: int | Fraction) -> Fraction:
        """δ at ``t`` (exact), from the piece holding ``t``."""
        return Fraction(_value(self.pieces, t))

    def _repr_markdown_(self) -> str:
        return markdown(self, "δ")


def _witness_text(w: Any) -> str:
    if hasattr(w, "y"):
        return f"x={format_value(w.x)} x'={format_value(w.x_prime)} y={format_value(w.y)}"
    if hasattr(w, "x_prime"):
        return f"x={format_value(w.x)} x'={format_value(w.x_prime)}"
    return f"x={format_value(w)}"


def piece_function(piece: Piece, t: str) -> str:
    return "inf" if piece.den.is_zero() else function_text(piece.num, piece.den, t)


def lines(result: Any, what: str) -> list[tuple[str, str]]:
    """``(label, text)`` rows for the human output."""
    t = result.parameter.name
    rows = []
    for k, p in enumerate(result.pieces, 1):
        rows.append(
            (
                f"piece {k}",
                f"{t} in [{point_text(p.start)}, {point_text(p.end)}]: {what} = {piece_function(p, t)}"
                f"   ({_witness_text(p.witness)})",
            )
        )
    return rows


def markdown(result: Any, what: str) -> str:
    t = result.parameter.name
    body = "\n".join(
        f"| [{point_text(p.start)}, {point_text(p.end)}] | `{piece_function(p, t)}` | `{_witness_text(p.witness)}` |"
        for p in result.pieces
    )
    head = f"**{what} as a function of {result.parameter.describe()}**\n\n| {t} | {what} | witness |\n|---|---|---|"
    return f"{head}\n{body}\n"


def latex(result: Any, symbol: str) -> str:
    """A ``cases`` environment: ``symbol(t) = ln(num/den)`` (or ``num/den``) per piece."""
    t = result.parameter.name
    rows = []
    for p in result.pieces:
        if p.den.is_zero():
            value = r"\infty"
        else:
            frac = (
                poly_text(p.num, t, latex=True)
                if p.den.is_one()
                else rf"\frac{{{poly_text(p.num, t, latex=True)}}}{{{poly_text(p.den, t, latex=True)}}}"
            )
            value = rf"\ln {frac}" if symbol == r"\varepsilon" else frac
        rows.append(rf"  {value} & {t} \in [{_latex_point(p.start)}, {_latex_point(p.end)}]")
    return rf"{symbol}({t}) = \begin{{cases}}" + "\n" + " \\\\\n".join(rows) + "\n" + r"\end{cases}"


def _latex_point(x: Point) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else rf"\tfrac{{{x.numerator}}}{{{x.denominator}}}"
    return f"{float(x):.6g}"


def point_json(x: Point) -> Any:
    if isinstance(x, Fraction):
        return format_number(x)
    assert isinstance(x, Algebraic)
    return {
        "interval": [format_number(x.lo), format_number(x.hi)],
        "polynomial": [str(int(c)) for c in x.poly.coeffs()],
    }


def pieces_json(result: Any, witness: Any) -> list[dict[str, Any]]:
    out = []
    for p in result.pieces:
        item: dict[str, Any] = {"from": point_json(p.start), "to": point_json(p.end)}
        if isinstance(result, PiecewiseAccuracyResult):
            item["one_minus_beta"] = {
                "numerator": [format_number(c) for c in coefficients(p.num)],
                "denominator": [format_number(c) for c in coefficients(p.den)],
            }
        else:
            item["numerator"] = [format_number(c) for c in coefficients(p.num)]
            item["denominator"] = [format_number(c) for c in coefficients(p.den)]
        item["witness"] = witness(p.witness)
        out.append(item)
    return out


__all__ = [
    "PiecewisePrivacyResult",
    "PiecewiseAccuracyResult",
    "PiecewiseDeltaResult",
    "lines",
    "latex",
    "pieces_json",
    "markdown",
]
