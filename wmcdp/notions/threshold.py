"""`Threshold`: ε as the threshold ``e^ε`` of a hockey-stick sum, exact when ``e^ε`` is rational.

It lives below :mod:`wmcdp.notions.approximate` (which re-exports it) so that modules that take a threshold import
it without importing the approximate notion.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import as_number, format_number, ln, parse_number


@dataclass(frozen=True)
class Threshold:
    """``e^ε`` for a hockey-stick sum: ``epsilon`` (float) and, when ``e^ε`` is rational, ``ratio`` exactly."""

    epsilon: float
    ratio: Fraction | None = None

    @classmethod
    def of(cls, value: Any) -> Threshold:
        """A number (ε itself, ∞ included: δ(∞) is the mass that ``x'`` never produces), or ``"ln:R"`` /
        ``"ln(R)"`` for ε = ln R with a rational R ≥ 1."""
        if isinstance(value, Threshold):
            return value
        if isinstance(value, str):
            text = value.strip()
            if text.lower().startswith("ln"):
                inner = text[2:].strip()
                inner = (
                    inner[1:]  # type: ignore[assignment]
                    if inner.startswith(":")
                    else inner[1:-1]
                    if inner.startswith("(") and inner.endswith(")")
                    else None
                )
                if inner is None:
                    raise WmcdpError(f"epsilon {value!r}: write the log of a rational as ln:3/2 or ln(3/2)")
                ratio = parse_number(inner, exact=True)
                if ratio < 1:
                    raise WmcdpError(f"epsilon {value!r} is negative; it must be a number >= 0")
                return cls(ln(Fraction(ratio)), Fraction(ratio))
            value = parse_number(text)
        eps = as_number(value, "epsilon")
        if not eps >= 0:
            raise WmcdpError(f"epsilon must be a number >= 0 (inf included), got {format_number(eps)}")
        return cls(0.0, Fraction(1)) if eps == 0 else cls(float(eps))

    def text(self) -> str:
        return (
            f"ln({format_number(self.ratio)})"
            if self.ratio is not None and self.ratio != 1
            else format_number(self.epsilon)
        )


__all__ = ["Threshold"]
