"""The truncated geometric mechanism (Ghosh, Roughgarden, Sundararajan) as a DSL primitive.

``TGeom_a(c)`` on ``{lo..hi}`` with ``lo <= c <= hi`` and ratio ``a`` in (0, 1)::

    P(lo) = a^(c - lo) / (1 + a)
    P(hi) = a^(hi - c) / (1 + a)
    P(z)  = (1 - a) / (1 + a) * a^|z - c|        for lo < z < hi

It equals ``clamp(c + Z, lo, hi)`` where ``Z`` is two-sided geometric noise,
``P(Z = z) = (1 - a) / (1 + a) * a^|z|`` (clamping the *output* is post-processing).

Encoding. For each value ``v`` that ``c`` can take, the output is a ``discrete`` over
``{lo..hi}`` with exactly the probabilities above (rational when ``a`` is; for a float
``a`` they are formed as natural logs, so ``a = 1e-200`` does not underflow), selected by
``c``'s guard for ``v``. ``discrete`` draws its value down a balanced binary tree of
flips, so a comparison such as ``TGeom(x_i) > T`` reads about ``log2(hi - lo + 1)``
flips, and once the input is fixed only one value's tree remains in the diagram.
Measured on geometric above threshold (k = 3, n = 6, t = 2): 85 nodes for the output
bits of every concrete input (the paper's Dice BDD: 91), 190 for the whole formula
with symbolic inputs and output bits.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..base.errors import WmcdpError
from ..base.numbers import Number, as_int, as_number, format_number, is_symbolic
from .values import Bool, Int, _as_int, _selected, current, discrete, discrete_logs


def geometric_ratio(alpha: object = None, scale: object = None) -> Number:
    """The ratio ``a`` from exactly one of ``alpha`` (in (0, 1)) or ``scale`` (``a = e^(-1/scale)``).

    A Fraction ``alpha`` stays exact; a ``scale`` always gives a float ratio.
    """
    if (alpha is None) == (scale is None):
        raise WmcdpError("give exactly one of alpha (the ratio, in (0, 1)) and scale (alpha = e^(-1/scale))")
    if alpha is not None:
        if is_symbolic(alpha):
            return alpha.check_open_unit("alpha")  # type: ignore[attr-defined,no-any-return]
        a = as_number(alpha, "alpha")
        if not 0 < a < 1:
            raise WmcdpError(f"alpha must be in (0, 1), got {format_number(a)}")
        return a
    s = as_number(scale, "scale")
    if not s > 0:
        raise WmcdpError(f"scale must be > 0, got {format_number(s)}")
    a = math.exp(-1 / s)
    if not 0 < a < 1:
        raise WmcdpError(f"scale {format_number(s)} gives the ratio e^(-1/scale) = {a!r}, outside (0, 1)")
    return a


def _bounds(lo: object, hi: object) -> tuple[int, int]:
    try:
        lo, hi = as_int(lo, "lo"), as_int(hi, "hi")
    except WmcdpError:
        raise WmcdpError(f"truncated_geometric() range bounds must be integers, got lo={lo!r}, hi={hi!r}") from None
    if lo > hi:
        raise WmcdpError(f"truncated_geometric() range {lo}..{hi} is empty")
    return lo, hi


def truncated_geometric(c: Int | Bool | int, lo: int, hi: int, alpha: object = None, scale: object = None) -> Int:
    """``TGeom_a(c)`` on ``{lo..hi}`` (module docstring); ``c`` must lie in ``{lo..hi}``."""
    lo, hi = _bounds(lo, hi)
    a = geometric_ratio(alpha, scale)
    value = _as_int(c)
    if value is None:
        raise WmcdpError(f"truncated_geometric() needs an Int or int value, got {type(c).__name__}")
    if value.lo < lo or value.hi > hi:
        raise WmcdpError(f"truncated_geometric() value range {value.lo}..{value.hi} is not inside {lo}..{hi}")
    if isinstance(a, float) and current().exact_floats:
        a = Fraction(a)
    # one choice per value of c, as discrete(fn, c); a float ratio in logs, so tiny ratios do not underflow
    if isinstance(a, float):
        return _selected(
            "truncated_geometric", lambda v: truncated_geometric_logs(v, lo, hi, a), [value], discrete_logs
        )
    return _selected(
        "truncated_geometric", lambda v: truncated_geometric_probabilities(v, lo, hi, a), [value], discrete
    )


def truncated_geometric_probabilities(c: int, lo: int, hi: int, a: Number) -> dict[int, Number]:
    """``P(TGeom_a(c) = z)`` for ``z`` in ``{lo..hi}`` (the closed form of the module docstring)."""
    if lo == hi:
        return {lo: 1}
    probs = {z: (1 - a) / (1 + a) * a ** abs(z - c) for z in range(lo + 1, hi)}
    probs[lo] = a ** (c - lo) / (1 + a)
    probs[hi] = a ** (hi - c) / (1 + a)
    return probs


def truncated_geometric_logs(c: int, lo: int, hi: int, a: float) -> dict[int, float]:
    """``ln P(TGeom_a(c) = z)`` for a float ratio ``a``, formed in log space (no underflow)."""
    if lo == hi:
        return {lo: 0.0}
    log_a, log_1pa = math.log(a), math.log1p(a)
    inner = math.log1p(-a) - log_1pa
    logs = {z: inner + abs(z - c) * log_a for z in range(lo + 1, hi)}
    logs[lo] = (c - lo) * log_a - log_1pa
    logs[hi] = (hi - c) * log_a - log_1pa
    return logs


__all__ = ["truncated_geometric", "truncated_geometric_probabilities", "truncated_geometric_logs", "geometric_ratio"]
