"""Randomized response (paper Alg. 4) and its counting wrapper (paper Sec. 5.4)."""

from __future__ import annotations

from wmcdp.lang import Bits, Program, flip
from wmcdp.numbers import positive_int, probability


def _respond(x, lam):
    """``y_i = 1 - x_i`` with probability ``lam``, else ``x_i`` (read ``x_i``, then flip its coin)."""
    return tuple(xi ^ flip(lam) for xi in x)


def randomized_response(n: int, lam) -> Program:
    """``RR(x)``: each of ``n`` bits is flipped independently with probability ``lam``.

    Tight eps = |ln((1 - lam) / lam)|.
    """
    n, lam = positive_int(n, "n"), probability(lam, "lam")
    return Program("randomized_response", Bits(n), lambda x: _respond(x, lam),
                   params={"n": n, "lam": lam}, neighbours="hamming",
                   description="each bit flipped with probability lam; output the bit vector")


def rr_counting(n: int, lam) -> Program:
    """``RRcount(x) = #ones(RR(x))`` with target ``V_x = #ones(x)``."""
    n, lam = positive_int(n, "n"), probability(lam, "lam")
    # summed last response first: each partial sum then lies below the bit added to it in the variable
    # order, so compiling it costs O(n^2) instead of O(n^3) (the diagram is the same)
    return Program("rr_counting", Bits(n), lambda x: sum(reversed(_respond(x, lam))),
                   params={"n": n, "lam": lam}, neighbours="hamming", target=sum,
                   description="number of ones in randomized_response(n, lam); target = number of ones in x")
