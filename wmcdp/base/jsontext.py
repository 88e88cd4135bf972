"""JSON text of results: every number written exactly, whatever its size.

Most JSON readers load numbers as binary64 floats, so :func:`json_text` writes

* an int as a JSON number when a float holds it exactly (``|n| <= 2^53``), else as its exact
  decimal string (``"9007199254740993"``), of any length: the digits come from GMP, not from
  Python's int-to-str conversion, which refuses ints past 4300 digits;
* a Fraction as its exact string ``"a/b"`` (``"a"`` when whole), as the ``*_exact`` keys are;
* a float as itself, except ``inf``, ``-inf`` and ``nan``, which JSON has no numbers for:
  the strings ``"inf"``, ``"-inf"`` and ``"nan"``;
* numpy scalars as the Python numbers they hold, tuples as lists.

Callers that want a rounded size instead (the planner's set sizes, ``"1.234e56"``) convert
before; everything else goes through here, so no output of ``--json`` can fail on a large number.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import gmpy2

#: ints a binary64 float holds exactly
FLOAT_INTS = 1 << 53


def int_text(n: int) -> str:
    """The exact decimal digits of an int of any size (no int-to-str digit limit)."""
    digits: str = gmpy2.mpz(n).digits(10)  # gmpy2's digits() is not annotated
    return digits


def fraction_text(q: Fraction) -> str:
    """A Fraction as its exact ``"a/b"``, or ``"a"`` when whole."""
    if q.denominator == 1:
        return int_text(q.numerator)
    return f"{int_text(q.numerator)}/{int_text(q.denominator)}"


def json_value(value: Any) -> Any:
    """``value`` with every number made safe for JSON, as the module docstring says."""
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a numpy scalar
        return json_value(value.item())
    if isinstance(value, int):
        return value if -FLOAT_INTS <= value <= FLOAT_INTS else int_text(value)
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def json_text(data: Any, indent: int | None = None) -> str:
    """``data`` as JSON text (:func:`json_value`); strictly valid JSON (no ``Infinity`` or ``NaN``)."""
    return json.dumps(json_value(data), indent=indent, allow_nan=False)


__all__ = ["json_text", "json_value", "int_text", "fraction_text", "FLOAT_INTS"]
