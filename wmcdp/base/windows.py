"""Brackets of probabilities, δ(ε) and pure ε from a windowed run of unbounded noise (:mod:`wmcdp.lang.unbounded`).

A windowed run gives the windowed program's probabilities ``Pw`` (within ``E`` of exact rationals, the sum of the
weights' radii when some are exact reals, :mod:`wmcdp.base.certified`) and the tail mass ``T``; every event ``S``
then has ``(1 - T) Pw(S | x) <= P(S | x) <= (1 - T) Pw(S | x) + T``. Write ``T' = T / (1 - T)``.

* A probability: ``[(1 - T)(Pw - E), (1 - T)(Pw + E) + T]``, clipped to [0, 1].
* δ(ε) of a pair, ``max over S of P(S | x) - e^ε P(S | x')``: every ``S`` gives at most
  ``(1 - T) Pw(S | x) + T - e^ε (1 - T) Pw(S | x') <= (1 - T) δw + T``, and the windowed maximiser gives at least
  ``(1 - T) δw - e^ε T``; δ >= 0 as well. The maximum over the pairs keeps both ends, whatever the outputs are
  (the windowed δw within ``[δ_lo, δ_hi]``).
* Pure ε: the windowed witness ``(x, x', y)`` gives a ratio of at least ``(Pw - E) / (Pw' + E + T')``. Above, an
  output every input reaches at the window has ``P(y | x) / P(y | x') <= (Pw + E + T') / (Pw' - E)``; with
  ``Pw <= R Pw'`` (``R`` the windowed maximum ratio) this is at most ``(R m + E + T') / (m - E)``, ``m`` the
  smallest windowed probability of any output on any input (the bound falls as ``Pw'`` grows). An output some
  input does not reach at the window has an unknown ratio: no finite upper end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .certified import Enclosure, float_bracket


@dataclass(frozen=True)
class WindowBracket(Enclosure):
    """An :class:`~wmcdp.base.certified.Enclosure` from a windowed run: the half-width of every draw's window,
    the tail mass ``T`` used (an upper bound), the number of draws, whether the bracket narrowed to the width
    asked (False: the window limit came first) and, for an infinite upper end, why."""

    half_width: int = 0
    tail: Fraction = Fraction(0)
    draws: int = 0
    narrowed: bool = True
    reason: str = ""

    def text(self) -> str:
        size = "" if self.narrowed else ", wider than asked: the window limit was reached"
        why = f"; upper end infinite: {self.reason}" if self.reason else ""
        tail = float_bracket(self.tail)[1]
        return (
            f"{super().text()}, windows of half-width {self.half_width} "
            f"({self.draws} unbounded draws, tail mass T <= {tail!r}){size}{why}"
        )


def clip(q: Fraction) -> Fraction:
    """``q`` inside [0, 1]."""
    return min(max(q, Fraction(0)), Fraction(1))


def probability_bracket(pw: Fraction, radius: Fraction, tail: Fraction) -> tuple[Fraction, Fraction]:
    """``[(1 - T)(Pw - E), (1 - T)(Pw + E) + T]`` in [0, 1] (module docstring)."""
    return clip((1 - tail) * (pw - radius)), clip((1 - tail) * (pw + radius) + tail)


def delta_bracket(low: Fraction, high: Fraction, tail: Fraction, ratio: Fraction) -> tuple[Fraction, Fraction]:
    """δ(ε) from the windowed δw in ``[low, high]``: ``[max(0, (1 - T) low - e^ε T), (1 - T) high + T]``, with
    ``ratio`` at least ``e^ε``."""
    return max(Fraction(0), (1 - tail) * low - ratio * tail), clip((1 - tail) * high + tail)


def ratio_bracket(
    p: Fraction, p_prime: Fraction, ratio: Fraction | None, smallest: Fraction | None, radius: Fraction, tail: Fraction
) -> tuple[Fraction, Fraction | None]:
    """The pure-ε ratio's ends (module docstring): the lower from the windowed witness ``p / p'``, the upper from
    the windowed maximum ``ratio`` and the smallest windowed probability ``smallest`` (None: no finite upper end,
    as when some output is not reached at the window or ``m <= E``)."""
    spill = tail / (1 - tail)
    top, bottom = max(Fraction(0), p - radius), p_prime + radius + spill
    lower = top / bottom if bottom else Fraction(0)  # (a zero over a zero: the caller's infinite ratio)
    if ratio is None:
        return lower, None
    return lower, ratio_upper(ratio, smallest, radius, tail)


def ratio_upper(ratio: Fraction, smallest: Fraction | None, radius: Fraction, tail: Fraction) -> Fraction | None:
    """The pure-ε ratio's upper end ``(R m + E + T') / (m - E)`` from the windowed maximum ``R`` and the smallest
    windowed probability ``m`` (module docstring; None when ``m`` is unknown or ``m <= E``)."""
    if smallest is None or smallest <= radius:
        return None
    return (ratio * smallest + radius + tail / (1 - tail)) / (smallest - radius)


def narrow_to(lo: float | Fraction, hi: float | Fraction, width: float) -> bool:
    """The stopping rule: ``hi - lo <= width · max(|lo|, |hi|, width)`` (relative, or absolute ``width²`` near 0),
    or both ends equal (an infinite ε that is exact)."""
    if lo == hi:
        return True
    if any(isinstance(end, float) and math.isinf(end) for end in (lo, hi)):
        return False
    low, high = Fraction(lo), Fraction(hi)
    w = Fraction(width)
    return high - low <= w * max(abs(low), abs(high), w)


__all__ = [
    "WindowBracket",
    "clip",
    "delta_bracket",
    "narrow_to",
    "probability_bracket",
    "ratio_bracket",
    "ratio_upper",
]
