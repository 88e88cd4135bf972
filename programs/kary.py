"""The k-ary randomized response (Warner's mechanism over k values; Kairouz, Oh, Viswanath 2014)."""

from __future__ import annotations

import math
from fractions import Fraction

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_number, format_number, positive_int
from wmcdp.lang import Int, IntVector, Program, flip, ite, uniform


def _ratio(eps: object, ratio: object) -> tuple[Number, dict]:
    """``e^eps`` from exactly one of ``eps`` (a float) or ``ratio`` (kept exact when rational), and its label."""
    if (eps is None) == (ratio is None):
        raise WmcdpError("give exactly one of eps (the local budget) and ratio (e^eps, exact when rational)")
    if ratio is not None:
        r = as_number(ratio, "ratio")
        if not 1 <= r < math.inf:
            raise WmcdpError(f"ratio must be a finite number >= 1, got {format_number(r)}")
        return r, {"ratio": r}
    e = as_number(eps, "eps")
    if not 0 <= e < math.inf:
        raise WmcdpError(f"eps must be a finite number >= 0, got {format_number(e)}")
    return math.exp(e), {"eps": e}


def kary_rr(n: int, k: int, eps=None, ratio=None) -> Program:
    """Each of ``n`` users holds a value in ``{0..k-1}`` and reports it with probability
    ``r / (r + k - 1)``, else a uniformly random one of the other ``k - 1`` values (``r = e^eps``,
    or ``ratio``). Output: the tuple of reports. Tight eps = ln r (Hamming neighbours: one user's value changes).
    """
    n, k = positive_int(n, "n"), positive_int(k, "k")
    if k < 2:
        raise WmcdpError(f"k must be at least 2, got {k}")
    r, label = _ratio(eps, ratio)
    truthful = Fraction(r) / (r + k - 1) if isinstance(r, (int, Fraction)) else r / (r + k - 1)

    def respond(value: Int) -> Int:
        keep = flip(truthful)
        other = uniform(0, k - 2)
        return ite(keep, value, ite(other >= value, other + 1, other))

    return Program(
        "kary_rr",
        IntVector(n, 0, k - 1),
        lambda x: tuple(respond(x[i]) for i in range(n)),
        params={"n": n, "k": k, **label},
        neighbours="hamming",
        description="k-ary randomized response: each value kept with probability r/(r+k-1), else a uniform other value",
    )


__all__ = ["kary_rr"]
