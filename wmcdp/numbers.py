"""Parameters: parsing and validation of numbers and probabilities.

A parameter is exact when it is an ``int`` or a :class:`fractions.Fraction` (strings such
as ``"1/5"`` parse to fractions); floats are the fast default. wmcdp computes exactly
when every probability in a program is exact.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Union

from .errors import WmcdpError

Number = Union[int, float, Fraction]

_INT = re.compile(r"^[+-]?\d+$")
_RATIO = re.compile(r"^[+-]?\d+\s*/\s*\d+$")


def parse_number(text: str, *, exact: bool = False) -> Number:
    """Parse ``"3"`` as int, ``"1/5"`` as Fraction and ``"0.2"`` as float.

    With ``exact=True`` decimals parse as fractions too (``"0.2"`` -> 1/5).
    """
    s = text.strip()
    if _INT.match(s):
        return int(s)
    if _RATIO.match(s):
        num, den = (part.strip() for part in s.split("/"))
        if int(den) == 0:
            raise WmcdpError(f"{text!r} divides by zero")
        return Fraction(int(num), int(den))
    try:
        if exact:
            return Fraction(s)
        value = float(s)
    except ValueError:
        raise WmcdpError(f"{text!r} is not a number") from None
    return value


def as_number(value: object, name: str) -> Number:
    """Return ``value`` as int, float or Fraction, or raise naming ``name``."""
    if isinstance(value, bool):
        raise WmcdpError(f"{name} must be a number, got the boolean {value}")
    if isinstance(value, str):
        value = parse_number(value)
    if isinstance(value, (int, Fraction)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise WmcdpError(f"{name} is NaN")
        return value
    raise WmcdpError(f"{name} must be a number, got {value!r}")


def probability(value: object, name: str = "probability") -> Number:
    """Validate a probability in [0, 1] (Fraction, int, float or a string like "1/5")."""
    p = as_number(value, name)
    if not 0 <= p <= 1:
        raise WmcdpError(f"{name} must be in [0, 1], got {format_number(p)}")
    return p


def positive_int(value: object, name: str) -> int:
    """Validate a whole number >= 1."""
    n = as_number(value, name)
    if not isinstance(n, int) and not (isinstance(n, Fraction) and n.denominator == 1):
        raise WmcdpError(f"{name} must be a whole number, got {format_number(n)}")
    if n < 1:
        raise WmcdpError(f"{name} must be at least 1, got {format_number(n)}")
    return int(n)


def is_exact(value: Number) -> bool:
    """True for ints and fractions, False for floats."""
    return isinstance(value, (int, Fraction))


def format_number(value: object) -> str:
    """Format a number for messages and tables: fractions as ``a/b``, floats compactly."""
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return repr(value) if math.isinf(value) or math.isnan(value) else f"{value:.10g}"
    return str(value)


def exact_text(value: object) -> str:
    """An exact result as ``"a/b"`` (``"4"`` when whole); an infinite ratio (a float) as ``"inf"``."""
    return "inf" if isinstance(value, float) else format_number(Fraction(value))  # type: ignore[arg-type]
