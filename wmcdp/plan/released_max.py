"""Exact pure ε at one n of a released noisy maximum: ``e^ε = a^-D``, attained below every entry's value.

A declared report noisy max that outputs the largest noisy answer itself (:class:`~wmcdp.lang.shared_noise.SharedMax`
with ``report="value"``; StatDP's Alg. 7, CheckDP's BadNoisyMax) has, with ``C(k) = P(ν <= k)`` of the two-sided
geometric law of ratio ``a``,

    P(v | x) = prod_i C(v - x_i) - prod_i C(v - 1 - x_i)
             = sum_k P(x_k + ν_k = v) prod_(i < k) P(x_i + ν_i < v) prod_(i > k) P(x_i + ν_i <= v)

(the second form sums over the winner ``k``, the lowest index on ties). Two facts give ε exactly, for every output:

* **at most** ``a^-D``, ``D = sum_i |x_i - x'_i|``: a ratio of two sums is at most the largest ratio of their terms,
  and in the ``k``-th term the winner's point law moves by ``a^-|x_k - x'_k|`` at most and each other entry's
  distribution function by ``a^-|x_i - x'_i|`` at most (their suprema over ``v``, by log-concavity);
* **equal to** ``a^(sum x - sum x')`` for every ``v <= lo - 1``: there each ``C(v - x_i) = a^(x_i - v) / (1 + a)``, so
  ``P(v | x) = (1 - a^n) a^(sum_i x_i - n v) / (1 + a)^n``.

So ``e^ε = a^-D`` with ``D`` the largest ``sum |x_i - x'_i|`` of the relation, attained by a pair that moves every
entry up (``x' >= x``) at the output ``lo - 1``: ``n`` under ``all-entries`` and ``monotone``, 1 under
``one-entry``, ``hi - lo`` under ``hamming``. The witness's probabilities are computed from the law, and the ratio
must come out as ``a^-D`` (checked).
"""

from __future__ import annotations

from fractions import Fraction

from ..count.shared_sums import value, windowed_value
from ..lang.shared_noise import SharedMax

#: the largest ``sum |x_i - x'_i|`` of each relation's pairs, and the pair moving every entry up that attains it
MOVES = ("all-entries", "monotone", "one-entry", "hamming")


def witness(model: SharedMax, n: int, relation: str) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The pair of ``relation`` with the largest ``sum |x_i - x'_i|``, every entry moved up, and the output
    ``lo - 1``."""
    lo, hi = model.lo, model.hi
    x = (lo,) * n
    if relation in ("all-entries", "monotone"):
        xp = (lo + 1,) * n
    else:
        xp = (lo + 1 if relation == "one-entry" else hi,) + (lo,) * (n - 1)
    return x, xp, lo - 1


def probability(model: SharedMax, x: tuple[int, ...], v: int, W: int | None = None) -> Fraction:
    """``P(v | x) = prod C(v - x_i) - prod C(v - 1 - x_i)`` exactly (module docstring), or with every noise
    conditioned on ``|ν| <= W``. ``C(v - x_i) = P(x_i + ν < v + 1)``, the factor ``("lt", a, x_i)`` at ``v + 1``."""
    a = model.query_ratio

    def at(t: int) -> Fraction:
        p = Fraction(1)
        for u in x:
            factor = ("lt", a, u)
            p *= value(factor, t) if W is None else windowed_value(factor, t, W)
        return p

    return at(v + 1) - at(v)


def released_max_privacy(
    model: SharedMax, n: int, relation: str
) -> tuple[Fraction, tuple[int, ...], tuple[int, ...], int, Fraction, Fraction]:
    """``(a^-D, x, x', y, P(y | x), P(y | x'))`` (module docstring)."""
    if relation not in MOVES or model.hi <= model.lo:
        raise ValueError(f"no released maximum's moves for {relation!r} on {model.lo}..{model.hi}")
    x, xp, y = witness(model, n, relation)
    p, q = probability(model, x, y), probability(model, xp, y)
    ratio = model.query_ratio ** -sum(abs(u - v) for u, v in zip(x, xp))
    if p / q != ratio:  # the tail's closed form, checked on the law itself
        raise ArithmeticError(f"the released maximum's witness gives {p / q}, not {ratio}")
    return ratio, x, xp, y, p, q


__all__ = ["MOVES", "probability", "released_max_privacy", "witness"]
