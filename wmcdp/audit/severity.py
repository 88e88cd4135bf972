"""How much a violated claim matters: the delta the claimed epsilon needs and the draws that show the violation.

A maintainer weighs a violated claim by two numbers, both computed here in 200-bit binary floating point with
an unbounded exponent range (gmpy2's, about 2^(+-2^30)), so a probability such as 10^-3,643,138 neither
underflows nor rounds to 0:

* **the delta needed**: the smallest delta at which the claimed epsilon (or rho) holds: the audit's tight delta
  at the claimed epsilon, over every neighbouring pair (scope ``tight``). For an (epsilon, delta) claim the audit
  computes it anyway; for a pure epsilon claim whose model is a program (or a list of output distributions) it is
  computed once the claim is violated (:func:`tight_text` writes it), exactly where the audit is exact (the
  claimed epsilon read as its binary64 value). Where the tight delta cannot be computed within the audit's limits
  (the row's ``note`` says why) it is the witness pair's delta ``sum over y of max(0, P(y | x) - e^epsilon P(y |
  x'))`` where the audit knows both distributions (scope ``witness pair``), else the witness output's excess
  ``P(y | x) - e^epsilon P(y | x')`` (scope ``witness output``), the delta the event ``{y}`` alone needs; both
  are lower bounds of the tight delta.
* **the draws to see the violation**: the output distribution under ``x`` is a mixture: with probability
  ``1 - m`` a part the claim allows against ``x'`` (``min(P(y | x), e^epsilon P(y | x'))``, renormalised), with
  probability ``m`` the rest, where ``m`` is the mass the claim cannot account for (the delta needed, less the
  claimed delta for an (epsilon, delta) claim). Until some draw comes from the rest, ``n`` draws look like draws
  of a mechanism that keeps the claim (up to the renormalisation), so a tester needs at least the ``n`` at which
  that happens with probability :data:`SEEN` (95 %): ``n = ceil(ln(1 / (1 - SEEN)) / -ln(1 - m))``, about
  ``3 / m`` for a small ``m``. When ``P(y | x') = 0`` (an infinite ratio) ``m`` is ``P(y | x)`` and one draw of
  ``y`` shows the violation; when it is positive more draws are needed, as the tester must also estimate the
  ratio (:func:`wmcdp.audit.findings.samples_needed` gives that count). With the ``witness output`` scope ``m`` is
  that output's excess: the tight delta of the pair can be larger and show in fewer draws.

A violation whose delta needed is below ``2^-1000`` (:data:`NEGLIGIBLE_LOG2`) is *negligible*: the claim is false,
yet only by events no run of the mechanism will ever show. The verdict stays ``VIOLATED`` and its label says so
(:func:`verdict_label`).

An audit that knows the witness probability only by its logarithm (python-dp's bounded noise: an enclosure
``[lo, hi]`` of ``ln P(y | x)``, with ``P(y | x') = 0``) passes that enclosure: the delta needed is then the
enclosure of ``P(y | x)`` itself, and the draws are counted at its upper end (the fewest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import gmpy2

from ..base.certified import ExpGap

#: the chance that the draws counted show the violation (one draw from the mass the claim cannot account for)
SEEN = 0.95
#: a violation whose delta needed is below 2^NEGLIGIBLE_LOG2 is negligible
NEGLIGIBLE_LOG2 = -1000
#: the working precision (bits)
PRECISION = 200


@dataclass(frozen=True)
class Severity:
    """A violated claim's weight: the delta needed (as text, with ``log2_delta`` its base-2 logarithm, ``-inf``
    for 0) and its ``scope`` (``tight``, ``witness pair`` or ``witness output``, with the ``note`` saying why the
    tight delta is not known, where the audit tells); for an (epsilon, delta) claim
    ``times_claimed``, the delta needed over the claimed delta, and ``excess``, their difference (text: the mass
    the claim cannot account for); the witness event's probability under the input where it is likelier
    (``event_probability``, text; None when the audit does not know it) and the draws that show the mass the
    claim cannot account for with probability :data:`SEEN` (``draws``, text, with ``log10_draws``)."""

    delta: str
    log2_delta: float
    scope: str
    times_claimed: float | None = None
    excess: str | None = None
    event_probability: str | None = None
    draws: str | None = None
    log10_draws: float | None = None
    note: str | None = None

    @property
    def negligible(self) -> bool:
        """The delta needed is below ``2^-1000``."""
        return self.log2_delta < NEGLIGIBLE_LOG2

    def as_dict(self) -> dict[str, Any]:
        return {
            "delta_needed": self.delta,
            "log2_delta_needed": self.log2_delta if math.isfinite(self.log2_delta) else "-inf",
            "delta_scope": self.scope,
            **({} if self.times_claimed is None else {"times_claimed_delta": _finite(self.times_claimed)}),
            **({} if self.excess is None else {"excess_over_claimed_delta": self.excess}),
            "event_probability": self.event_probability,
            "draws_to_see_violation": self.draws,
            "log10_draws_to_see_violation": None if self.log10_draws is None else _finite(self.log10_draws),
            "see_probability": SEEN,
            "negligible": self.negligible,
            **({} if self.note is None else {"delta_note": self.note}),
        }


def _finite(value: float) -> float | str:
    return "inf" if math.isinf(value) else value


def number(text: str) -> Any:
    """A probability as the audits write it (a fraction ``"p/q"`` or a decimal, any exponent) as a 200-bit mpfr."""
    with gmpy2.context(precision=PRECISION):
        return gmpy2.mpfr(gmpy2.mpq(text)) if "/" in text else gmpy2.mpfr(text)


def shown(value: Any) -> str:
    """A nonnegative mpfr as a short decimal, ``1.234e-3643138`` for any exponent (exactly ``0`` for 0)."""
    if value == 0:
        return "0"
    with gmpy2.context(precision=PRECISION):
        exponent = int(gmpy2.floor(gmpy2.log10(value)))
        mantissa = float(value / gmpy2.mpfr(10) ** exponent)
    if mantissa >= 9.9995:  # the mantissa rounds up to 10
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{float(value):.4g}" if -4 <= exponent <= 5 else f"{mantissa:.4g}e{exponent:+d}"


def draws_to_see(p: Any) -> tuple[str, float]:
    """``ceil(ln(1 / (1 - SEEN)) / -ln(1 - p))`` (module docstring) for a probability ``0 < p <= 1``, as text
    (every digit below 10^15) and its base-10 logarithm; ``("inf", inf)`` for ``p = 0``."""
    if p <= 0:
        return "inf", math.inf
    with gmpy2.context(precision=PRECISION):
        if p >= 1:
            return "1", 0.0
        n = gmpy2.ceil(-gmpy2.log(gmpy2.mpfr(1 - SEEN)) / -gmpy2.log1p(-p))
        log10 = float(gmpy2.log10(n))
    return (str(int(n)) if n < 1e15 else shown(n)), log10


def severity(
    claimed: float,
    claimed_delta: float | None,
    tight_delta: float | None,
    probabilities: tuple[str, str] | None,
    log_probability: tuple[float, float] | None = None,
    pair: str | None = None,
    tight: str | None = None,
    note: str | None = None,
) -> Severity | None:
    """The severity of a violated claim (module docstring): ``claimed`` epsilon (or rho), for an (epsilon, delta)
    claim its ``claimed_delta`` and the audit's ``tight_delta`` at the claimed epsilon; for a pure epsilon claim
    ``tight``, its tight delta over every pair as text (:func:`tight_text`) where computed, else ``note``, why not;
    the witness event's ``probabilities`` ``(P(E | x), P(E | x'))`` where known, or ``log_probability``, an
    enclosure of ``ln P(y | x)`` with ``P(y | x') = 0``; ``pair``, the witness pair's delta at the claimed epsilon
    where the audit knows the two distributions (:func:`pair_delta`). None when the delta needed cannot be told."""
    with gmpy2.context(precision=PRECISION):
        event = None if probabilities is None else tuple(number(v) for v in probabilities)
        seen = None if event is None else shown(max(event))
        if claimed_delta is None and tight is not None:
            needed = number(tight)
            return _weighed(shown(needed), _log2(needed), "tight", needed, event_probability=seen)
        if log_probability is not None:
            lo, hi = (gmpy2.exp(gmpy2.mpfr(v)) for v in log_probability)
            text = shown(lo) if lo == hi else f"{shown(lo)} .. {shown(hi)}"
            bound = log_probability[1] / math.log(2)
            return _weighed(text, bound, "witness output", hi, event_probability=shown(hi), note=note)
        if claimed_delta is not None:
            if tight_delta is None:
                return None
            needed = gmpy2.mpfr(tight_delta)
            excess = max(needed - gmpy2.mpfr(claimed_delta), gmpy2.mpfr(0))
            return _weighed(
                shown(needed),
                _log2(needed),
                "tight",
                excess,
                times_claimed=math.inf if claimed_delta == 0 else tight_delta / claimed_delta,
                excess=shown(excess),
                event_probability=seen,
            )
        if pair is not None:
            needed = number(pair)
            return _weighed(shown(needed), _log2(needed), "witness pair", needed, event_probability=seen, note=note)
        if event is None:
            return None
        needed = max(event[0] - gmpy2.exp(gmpy2.mpfr(claimed)) * event[1], gmpy2.mpfr(0))
        return _weighed(shown(needed), _log2(needed), "witness output", needed, event_probability=seen, note=note)


def tight_text(value: Any) -> str:
    """A tight delta as an exact run gives it (a Fraction, an :class:`~wmcdp.base.certified.ExpGap` ``(A - B
    e^x) / D`` at an irrational ``e^epsilon``, or a float: a certified enclosure's upper end) as a decimal of 20
    digits at 200 bits (any exponent; ``"0"`` for 0)."""
    if isinstance(value, ExpGap):
        if value.B == 0:
            value = Fraction(value.A, value.D)
        else:
            precision = PRECISION
            lo, hi = value.bounds(precision)
            while hi > 0 and not (lo > 0 and hi - lo <= hi * Fraction(1, 2**PRECISION)):
                precision *= 2
                lo, hi = value.bounds(precision)
            value = max(hi, Fraction(0))
    with gmpy2.context(precision=PRECISION):
        exact = isinstance(value, Fraction)  # its parts may be mpz (ExpGap.bounds), which gmpy2.mpq refuses
        v = gmpy2.mpfr(gmpy2.mpq(int(value.numerator), int(value.denominator))) if exact else gmpy2.mpfr(value)
        return f"{v:.20e}" if v > 0 else "0"


def pair_delta(p: dict[Any, Any], q: dict[Any, Any], epsilon: float) -> str:
    """``sum over y of max(0, p(y) - e^epsilon q(y))`` for two exact distributions (Fractions), at 200 bits, as a
    decimal of 20 digits (any exponent): the delta at which the pair meets ``epsilon``."""
    with gmpy2.context(precision=PRECISION):
        e = gmpy2.exp(gmpy2.mpfr(epsilon))
        total = gmpy2.mpfr(0)
        for y, a in p.items():
            term = gmpy2.mpfr(gmpy2.mpq(a)) - e * gmpy2.mpfr(gmpy2.mpq(q.get(y, 0)))
            if term > 0:
                total += term
        return f"{total:.20e}" if total > 0 else "0"


def _weighed(delta: str, log2_delta: float, scope: str, mass: Any, **known: Any) -> Severity:
    """The severity whose draws see the ``mass`` the claim cannot account for (module docstring)."""
    draws, log10 = draws_to_see(mass)
    return Severity(delta, log2_delta, scope, draws=draws, log10_draws=log10, **known)


def _log2(value: Any) -> float:
    return -math.inf if value == 0 else float(gmpy2.log2(value))


def verdict_label(verdict: str, weight: Severity | None) -> str:
    """The verdict as tables and reports show it: a negligible violation is ``VIOLATED (negligible: delta <
    2^-1000)``."""
    if verdict == "VIOLATED" and weight is not None and weight.negligible:
        return f"VIOLATED (negligible: delta < 2^{NEGLIGIBLE_LOG2})"
    return verdict


__all__ = [
    "SEEN",
    "NEGLIGIBLE_LOG2",
    "Severity",
    "severity",
    "pair_delta",
    "tight_text",
    "draws_to_see",
    "number",
    "shown",
    "verdict_label",
]
