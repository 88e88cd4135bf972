"""The truncated geometric mechanism (Ghosh, Roughgarden, Sundararajan) as a DSL primitive.

``TGeom_a(c)`` on ``{lo..hi}`` with ``lo <= c <= hi`` and ratio ``a`` in (0, 1)::

    P(lo) = a^(c - lo) / (1 + a)
    P(hi) = a^(hi - c) / (1 + a)
    P(z)  = (1 - a) / (1 + a) * a^|z - c|        for lo < z < hi

It equals ``clamp(c + Z, lo, hi)`` where ``Z`` is two-sided geometric noise,
``P(Z = z) = (1 - a) / (1 + a) * a^|z|`` (clamping the *output* is post-processing).

Encoding (shared noise). ``Z`` is drawn as sign and magnitude, with flips whose weights
do not depend on ``c``::

    up   ~ flip(a / (1 + a))              Z > 0
    down ~ flip(a)                        Z < 0, given not up
    g_j  ~ flip(a),  j = 1, 2, ...        |Z| = 1 + (number of leading g_j that are true)

Proof that this is ``Z``: ``P(Z > 0) = a/(1+a)``, ``P(Z < 0) = 1/(1+a) * a = a/(1+a)``,
``P(Z = 0) = 1/(1+a) * (1-a)``, and ``|Z| - 1`` is geometric, ``P(|Z| = j | Z != 0) =
(1-a) a^(j-1)``, so ``P(Z = +-j) = a/(1+a) * (1-a) a^(j-1) = (1-a)/(1+a) * a^j`` for
``j >= 1``. The clamp to ``{lo..hi}`` only asks whether ``|Z| >= j`` for
``j <= max(hi - c, c - lo)``, so ``hi - lo - 1`` continuation flips suffice for every
``c``: all values of a symbolic ``c`` share the same ``hi - lo + 1`` random bits (a
separate ``discrete`` per value of ``c`` would need ``hi - lo`` bits per value). Measured on
geometric above threshold (k = 3, n = 6, symbolic inputs) both encodings give a 214-node BDD.
"""

from __future__ import annotations

import math
from ..errors import WmcdpError
from ..numbers import Number, as_number, format_number
from .circuit import FALSE, TRUE
from .values import Bool, Int, _as_int, current


def geometric_ratio(alpha: object = None, scale: object = None) -> Number:
    """The ratio ``a`` from exactly one of ``alpha`` (in (0, 1)) or ``scale`` (``a = e^(-1/scale)``).

    A Fraction ``alpha`` stays exact; a ``scale`` always gives a float ratio.
    """
    if (alpha is None) == (scale is None):
        raise WmcdpError("give exactly one of alpha (the ratio, in (0, 1)) and scale (alpha = e^(-1/scale))")
    if alpha is not None:
        a = as_number(alpha, "alpha")
        if not 0 < a < 1:
            raise WmcdpError(f"alpha must be in (0, 1), got {format_number(a)}")
        return a
    s = as_number(scale, "scale")
    if not s > 0:
        raise WmcdpError(f"scale must be > 0, got {format_number(s)}")
    a = math.exp(-1 / float(s))
    if not 0 < a < 1:
        raise WmcdpError(f"scale {format_number(s)} gives the ratio e^(-1/scale) = {a!r}, outside (0, 1)")
    return a


def _bounds(lo: object, hi: object) -> tuple[int, int]:
    if isinstance(lo, bool) or isinstance(hi, bool) or not isinstance(lo, int) or not isinstance(hi, int):
        raise WmcdpError(f"truncated_geometric() range bounds must be integers, got lo={lo!r}, hi={hi!r}")
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
    if lo == hi:
        return Int.const(lo)
    circ = current()
    up = circ.random_var(a / (1 + a))
    down = circ.conj(circ.negate(up), circ.random_var(a))
    reach = max(max(hi - v, v - lo) for v in value.guards)
    # at_least[j]: |Z| >= j given Z != 0, for j = 1 .. reach
    at_least = [TRUE, TRUE]
    for _ in range(1, reach):
        at_least.append(circ.conj(at_least[-1], circ.random_var(a)))
    out: dict[int, int] = {}

    def add(v: int, guard: int) -> None:
        out[v] = circ.disj(out.get(v, FALSE), guard)

    zero = circ.negate(circ.disj(up, down))
    for v, g in value.guards.items():
        add(v, circ.conj(g, zero))
        for side, room, step in ((up, hi - v, 1), (down, v - lo, -1)):
            if room == 0:  # c at the end of the range: Z pointing out of it is clamped to c
                add(v, circ.conj(g, side))
                continue
            for j in range(1, room):
                exactly_j = circ.conj(at_least[j], circ.negate(at_least[j + 1]))
                add(v + step * j, circ.all((g, side, exactly_j)))
            add(v + step * room, circ.all((g, side, at_least[room])))
    return Int(out)


__all__ = ["truncated_geometric", "geometric_ratio"]
