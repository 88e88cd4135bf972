"""Parameters and results as numbers: parsing, validation, and correctly rounded logarithms.

A parameter is exact when it is an ``int`` or a :class:`fractions.Fraction` (strings such
as ``"1/5"`` parse to fractions); floats are the fast default. wmcdp computes exactly
when every probability in a program is exact. numpy scalars are accepted wherever the
Python type is.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from .certified import is_real
from .errors import WmcdpError, brief
from .jsontext import fraction_text

Number = int | float | Fraction

_INT = re.compile(r"^[+-]?[0-9]+$")
_RATIO = re.compile(r"^[+-]?[0-9]+\s*/\s*[0-9]+$")
#: a decimal with an exponent, such as ``1e3`` or ``2.5E+6`` (a whole one reads as its integer)
_SCIENTIFIC = re.compile(r"^[+-]?([0-9]+)(?:\.([0-9]*))?[eE]\+?([0-9]+)$")
#: the exponent of a decimal
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)$")
#: a whole number in scientific notation reads as its integer up to this many digits (then it is a float)
WHOLE_DIGITS = 4000
#: the smallest positive float (a subnormal): the rounding of a positive epsilon never goes below it
TINIEST = 5e-324
#: bits of the exact evaluation of a Rényi sum (:func:`renyi_log_sum`), past those the deviations need
RENYI_BITS = 256


def is_symbolic(value: object) -> bool:
    """A function of a symbolic parameter (:class:`wmcdp.lang.parameter.Function`), told apart without importing it."""
    return getattr(value, "is_symbolic", False) is True


def parse_number(text: str, *, exact: bool = False) -> Number:
    """Parse ``"3"`` as int, ``"1/5"`` as Fraction and ``"0.2"`` as float; text with other than ASCII digits is not
    a number.

    With ``exact=True`` decimals parse as fractions too (``"0.2"`` -> 1/5). A decimal that
    binary64 rounds to 0, 1 or infinity although it is none of them (``1e-400``,
    ``0.99999999999999999999``, ``1.0000000000000001``) is an error: the float would
    silently change what the parameter means.
    """
    s = text.strip()
    if len(s) > 4000:
        raise WmcdpError(f"a number of {len(s)} characters is too long (at most 4000)")
    if not s.isascii():
        raise WmcdpError(f"{brief(repr(text))} is not a number (numbers are written in ASCII digits)")
    if _INT.match(s):
        return int(s)
    if (power := _EXPONENT.search(s)) and len(power.group(1).lstrip("+-0")) > 5:
        raise WmcdpError(f"{brief(s)} has an exponent past 10^99999, far outside every number range")
    if _RATIO.match(s):
        num, den = (part.strip() for part in s.split("/"))
        if int(den) == 0:
            raise WmcdpError(f"{text[:40]!r} divides by zero")
        return Fraction(int(num), int(den))
    try:
        if exact:
            return Fraction(s)
        value = float(s)
    except (ValueError, OverflowError):
        raise WmcdpError(f"{brief(repr(text))} is not a number") from None
    if value in (0.0, 1.0, math.inf, -math.inf):
        try:
            decimal = Fraction(s)
        except (ValueError, OverflowError):
            decimal = None
        if decimal is not None and decimal != value:
            raise WmcdpError(
                f"{s} rounds to {value!r} as a binary64 float; give it as a fraction such as "
                f"'{_fraction_hint(decimal)}', or use exact arithmetic (--exact)"
            )
    return value


def scientific_whole(text: str) -> int | None:
    """The integer a whole number in scientific notation stands for (``1e3`` is 1000, ``2.5e3`` is 2500), or None
    (not scientific notation, not whole, or more than :data:`WHOLE_DIGITS` digits)."""
    s = text.strip()
    m = _SCIENTIFIC.match(s)
    if not m or len(m.group(3).lstrip("0")) > 4 or len(m.group(1)) + int(m.group(3)) > WHOLE_DIGITS:
        return None
    value = Fraction(s)
    return int(value) if value.denominator == 1 else None


def _fraction_hint(value: Fraction) -> str:
    text = f"{value.numerator}/{value.denominator}"
    return text if len(text) <= 60 else "p/q"


def as_number(value: object, name: str) -> Number:
    """Return ``value`` as int, float or Fraction (numpy scalars included), or raise naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise WmcdpError(f"{name} must be a number, got the boolean {bool(value)}")
    if isinstance(value, str):
        try:
            value = parse_number(value)
        except WmcdpError as exc:
            if "not a number" in str(exc):
                raise WmcdpError(f"{name} must be a number, got {value!r}") from None
            raise WmcdpError(f"{name}: {exc}") from None
    if isinstance(value, (int, Fraction)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise WmcdpError(f"{name} is NaN")
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, numbers.Real):
        return as_number(float(value), name)
    if is_symbolic(value):
        raise WmcdpError(
            f"{name} must be a number, not the symbolic {value}: a symbolic parameter may be a probability or a "
            "geometric ratio alpha (rational functions of it), not a parameter that goes through exp or log"
        )
    raise WmcdpError(f"{name} must be a number, got {value!r}")


def as_int(value: object, name: str) -> int:
    """An integer (Python or numpy, or a whole Fraction); floats such as 2.5 or 2.0 are errors."""
    n = as_number(value, name)
    if isinstance(n, Fraction) and n.denominator == 1:
        return int(n)
    if not isinstance(n, int):
        shown = repr(n) if isinstance(n, float) else format_number(n)  # 1000.0: a float, not the integer 1000
        raise WmcdpError(f"{name} must be a whole number, got {shown}")
    return n


def probability(value: object, name: str = "probability") -> Number:
    """Validate a probability in [0, 1] (Fraction, int, float or a string like "1/5"; a function of a
    symbolic parameter must lie in [0, 1] on the parameter's whole interval)."""
    if is_symbolic(value):
        # a Function of the parameter (lang.parameter, not importable here), which passes for a Number (is_exact)
        checked: Number = value.check_probability(name)  # type: ignore[attr-defined]
        return checked
    if is_real(value):
        if not 0 <= value <= 1:  # type: ignore[operator]
            raise WmcdpError(f"{name} must be in [0, 1], got {value} = {float(value):.10g}")  # type: ignore[arg-type]
        return value  # type: ignore[return-value]
    p = as_number(value, name)
    if not 0 <= p <= 1:
        raise WmcdpError(f"{name} must be in [0, 1], got {format_number(p)}")
    return p


def positive_int(value: object, name: str) -> int:
    """Validate a whole number >= 1."""
    n = as_int(value, name)
    if n < 1:
        raise WmcdpError(f"{name} must be at least 1, got {format_number(n)}")
    return n


def is_exact(value: Number) -> bool:
    """True for ints, fractions and functions of a symbolic parameter; False for floats."""
    return isinstance(value, (int, Fraction)) or is_symbolic(value)


def format_number(value: object) -> str:
    """Format a number for messages and tables: fractions as ``a/b``, floats compactly."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return _int_text(value.numerator)
        return f"{_int_text(value.numerator)}/{_int_text(value.denominator)}"
    if isinstance(value, float):
        return repr(value) if math.isinf(value) or math.isnan(value) else f"{value:.10g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return _int_text(value)
    return str(value)


def size_text(n: int) -> str:
    """A set size for people: ``1234`` or, past 10^12, ``1.234e56`` (from the logarithm: sizes can have 10^5
    digits)."""
    if n < 10**12:
        return str(n)
    exponent = math.floor(math.log10(n))
    mantissa = 10 ** (math.log10(n) - exponent)
    if mantissa >= 9.9995:
        mantissa, exponent = 1.0, exponent + 1
    return f"{mantissa:.3f}e{exponent}"


def _int_text(value: int) -> str:
    """Decimal text of an int; huge ones (past CPython's int-to-str digit limit) in scientific form."""
    if value.bit_length() <= 12000:
        return str(value)
    return f"{'-' if value < 0 else ''}{gmpy2.mpfr(abs(value), 64):.6e}".replace("e+", "e")


def scientific_text(value: object, digits: int = 10) -> str:
    """A number in scientific notation that no float range limits: ``1e-600`` for the Fraction 10^-600,
    ``"inf"`` for infinity (floats as they print)."""
    if isinstance(value, float):
        return repr(value) if math.isinf(value) or math.isnan(value) else f"{value:.{digits}g}"
    q = Fraction(value)  # type: ignore[call-overload]
    if q == 0:
        return "0"
    with gmpy2.context(precision=64, emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min()):
        text = f"{gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator)):.{digits}g}"
    return text.replace("e+", "e")


def log_text(log: float, digits: int = 10) -> str:
    """The number ``e^log`` in scientific notation, from its natural log (any size: ``1e-600`` from -1381.55)."""
    if log == -math.inf:
        return "0"
    if log == math.inf:
        return "inf"
    exponent10 = log / math.log(10)
    e = math.floor(exponent10)
    mantissa = 10 ** (exponent10 - e)
    if round(mantissa, digits - 1) >= 10:
        mantissa, e = mantissa / 10, e + 1
    return f"{mantissa:.{digits}g}e{e}" if e else f"{mantissa:.{digits}g}"


def json_number(value: Any, log: float | None = None) -> Any:
    """A number for JSON: a float where one holds it; else a string in scientific notation (``"1e-600"``),
    from the exact value or from its natural ``log`` (a float result that over- or underflowed); true
    infinities as ``"inf"`` / ``"-inf"``."""
    if isinstance(value, float):
        if log is not None and math.isfinite(log) and (math.isinf(value) or value == 0.0):
            return log_text(log)
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if not in_float_range(value):
        return scientific_text(value)
    return float(value)


def in_float_range(value: object) -> bool:
    """Whether a number is a float, or converts to a normal or zero float without overflow or underflow."""
    if isinstance(value, float):
        return True
    try:
        f = float(value)  # type: ignore[arg-type]
    except OverflowError:
        return False
    return f != 0.0 or value == 0


def exact_text(value: object) -> str:
    """An exact result as ``"a/b"`` (``"4"`` when whole), every digit of any size; an infinite ratio (a float)
    as ``"inf"``."""
    return "inf" if isinstance(value, float) else fraction_text(Fraction(value))  # type: ignore[call-overload]


# -- logarithms -----------------------------------------------------------------------------


def log_fraction(q: Fraction | int) -> float:
    """Natural log of a positive rational to a few ulp, even when ``q`` over/underflows a float."""
    q = Fraction(q)
    if Fraction(1, 2) < q < 2:
        return math.log1p(float(q - 1))
    return math.log(q.numerator) - math.log(q.denominator)


def ln_ratio(num: int, den: int) -> float:
    """The float nearest to ``ln(num / den)`` (correctly rounded) for integers ``num, den > 0``.

    MPFR computes ``log1p((num - den) / den)`` rounded down and rounded up at increasing
    precision until both round to the same float (Ziv's strategy); ``log1p`` is increasing,
    so the two bracket the true value. A positive logarithm too small for a float gives the
    smallest positive float, so ``ln_ratio(num, den) > 0`` whenever ``num > den``.
    """
    if num <= 0 or den <= 0:
        raise ValueError("ln_ratio needs positive integers")
    if num == den:
        return 0.0
    t = gmpy2.mpq(num - den, den)
    precision = 96
    while True:
        with gmpy2.context(precision=precision, round=gmpy2.RoundDown):
            lo = gmpy2.log1p(gmpy2.mpfr(t))
        with gmpy2.context(precision=precision, round=gmpy2.RoundUp):
            hi = gmpy2.log1p(gmpy2.mpfr(t))
        with gmpy2.context(round=gmpy2.RoundToNearest):
            a, b = float(lo), float(hi)
        if a == b:
            if a == 0.0 and num > den:
                return TINIEST
            if a == 0.0 and num < den:
                return -TINIEST
            return a
        precision *= 2


def ratio_times(a: Fraction | float, b: Fraction | float) -> Fraction | float:
    """``a * b`` of two non-negative exact ratios, either one possibly infinite (``math.inf``): an infinite factor
    gives ``inf`` when the other is positive and ``0`` when it is 0 (a factor that is never reached), without
    turning a Fraction into a float (which overflows past the float range)."""
    if a == math.inf or b == math.inf:
        return math.inf if a > 0 and b > 0 else Fraction(0)
    return a * b


def log_of_log(ratio: Fraction | float) -> float:
    """``ln ln ratio`` for a ratio ``>= 1``: the log of a pure ε that can lie far below the float range
    (``ratio = 1 + 2e-300``); ``-inf`` for 1, ``inf`` for an infinite ratio."""
    if isinstance(ratio, float):
        return math.inf if ratio == math.inf else math.log(math.log(ratio)) if ratio > 1 else -math.inf
    if ratio == 1:
        return -math.inf
    q = Fraction(ratio) - 1
    with gmpy2.context(precision=128, emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min()):
        return float(gmpy2.log(gmpy2.log1p(gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator)))))


def renyi_log_sum(a: Iterable[Any], b: Iterable[Any], alpha: float, denominator: int) -> tuple[float, float]:
    """``(L, ln L)`` for ``L = ln Σ_y (a_y/D)^α (b_y/D)^(1−α)`` (``D = denominator``), the Rényi sum of two output
    distributions given as integer masses over ``D``; ``(inf, inf)`` when some ``a_y > 0 = b_y``, and ``ln L``
    is ``-inf`` when ``L <= 0``.

    Far apart (``L >= 1``) the sum is taken in logs at 256 bits (a term can pass MPFR's exponent range at large
    orders). Nearly equal, the sum is formed without cancellation: with ``d_y = (a_y − b_y) / b_y``,
    ``Σ b^(1−α) a^α = Σ b + α Σ (a − b) + Σ b f(d)`` over the outputs with ``a_y > 0``, where the first two
    sums are exact integers and each ``f(d) = (1 + d)^α − 1 − α d`` is evaluated at enough bits for its own
    size (:func:`_renyi_deviation`); so ``L`` has every digit when it is 1e-600 (it is also returned as its
    log, since such an ``L`` underflows a float)."""
    live = [(int(x), int(y)) for x, y in zip(a, b) if int(x)]
    if any(y == 0 for _, y in live):
        return math.inf, math.inf
    with gmpy2.context(precision=RENYI_BITS, emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min()):
        al = gmpy2.mpfr(alpha)
        logs = [al * gmpy2.log(x) + (1 - al) * gmpy2.log(y) for x, y in live]
        top = max(logs)
        total = top + gmpy2.log(sum(gmpy2.exp(t - top) for t in logs)) - gmpy2.log(denominator)
        if total >= 1:
            return float(total), float(gmpy2.log(total))
        exact = Fraction(alpha) * sum(x - y for x, y in live) + sum(y for _, y in live) - denominator
        deviation = gmpy2.mpfr(gmpy2.mpq(exact.numerator, exact.denominator))
        deviation += sum(_renyi_deviation(x, y, alpha) for x, y in live)
        total = gmpy2.log1p(deviation / denominator)
        return float(total), float(gmpy2.log(total)) if total > 0 else -math.inf


def _renyi_deviation(x: int, y: int, alpha: float) -> Any:
    """``y f(d)`` with ``f(d) = (1 + d)^α − 1 − α d`` and ``d = (x − y) / y``, to :data:`RENYI_BITS` bits: ``f``
    is about ``α (α − 1) d² / 2`` against terms about ``α d``, so the difference is taken with as many more
    bits as ``d`` and ``α − 1`` are small."""
    if x == y:
        return gmpy2.mpfr(0)
    small = max(0, y.bit_length() - abs(x - y).bit_length()) + max(0, -math.frexp(alpha - 1)[1])
    with gmpy2.context(precision=RENYI_BITS + small, emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min()):
        d = gmpy2.mpfr(gmpy2.mpq(x - y, y))
        al = gmpy2.mpfr(alpha)
        value = y * (gmpy2.expm1(al * gmpy2.log1p(d)) - al * d)
    with gmpy2.context(precision=RENYI_BITS, emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min()):
        return +value


def ln(q: Fraction | int) -> float:
    """Correctly rounded natural log of a positive rational (see :func:`ln_ratio`)."""
    q = Fraction(q)
    return ln_ratio(q.numerator, q.denominator)


def show(value: object, exact: bool, log: float | None = None) -> str:
    """A probability or ratio for people: the fraction too when exact; numbers past the float range in
    scientific notation (from the exact value, or from the natural ``log`` of a float that over- or underflowed)."""
    if exact and not isinstance(value, float):
        decimal = f"{float(value):.10g}" if in_float_range(value) else scientific_text(value)  # type: ignore[arg-type]
        return f"{decimal}  (= {format_number(Fraction(value))})"  # type: ignore[call-overload]
    value = float(value)  # type: ignore[arg-type]
    if log is not None and math.isfinite(log) and (math.isinf(value) or value == 0.0):
        return log_text(log)
    return format_number(value)
