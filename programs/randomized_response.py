"""Randomized response (paper Alg. 4), its counting wrapper (paper Sec. 5.4), and k-ary randomized response."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import format_number, positive_int, probability
from wmcdp.lang import Bits, Bool, Int, IntVector, Program, flip, ite, uniform

from .registry import program


def _respond(x: Sequence[Any], lam: object) -> tuple[Bool, ...]:
    """``y_i = 1 - x_i`` with probability ``lam``, else ``x_i`` (read ``x_i``, then flip its coin)."""
    return tuple(xi ^ flip(lam) for xi in x)


@program(origin="Warner 1965; the wmcdp paper's running example")
def randomized_response(n: int, lam: object) -> Program:
    """``RR(x)``: each of ``n`` bits is flipped independently with probability ``lam``.

    Tight eps = |ln((1 - lam) / lam)|.
    """
    n, lam = positive_int(n, "n"), probability(lam, "lam")
    return Program(
        "randomized_response",
        Bits(n),
        lambda x: _respond(x, lam),
        params={"n": n, "lam": lam},
        neighbours="hamming",
        description="each bit flipped with probability lam; output the bit vector",
    )


@program(origin="randomized response with a released count (the wmcdp paper)")
def rr_counting(n: int, lam: object) -> Program:
    """``RRcount(x) = #ones(RR(x))`` with target ``V_x = #ones(x)``."""
    n, lam = positive_int(n, "n"), probability(lam, "lam")
    # summed last response first: each partial sum then lies below the bit added to it in the variable
    # order, so compiling it costs O(n^2) instead of O(n^3) (the diagram is the same)
    return Program(
        "rr_counting",
        Bits(n),
        lambda x: sum(reversed(_respond(x, lam))),
        params={"n": n, "lam": lam},
        neighbours="hamming",
        target=sum,
        description="number of ones in randomized_response(n, lam); target = number of ones in x",
    )


def _kary_values(k: object) -> int:
    k = positive_int(k, "k")
    if k < 2:
        raise WmcdpError(f"k must be at least 2, got {format_number(k)}")
    return k


def kary_report(xi: Int, k: int, lam: object) -> Int:
    """One user's k-ary report: ``x_i`` with probability ``1 - lam``, else one of the other ``k - 1`` values
    uniformly (``u`` uniform on ``0..k-2``, moved past ``x_i``)."""
    u = uniform(0, k - 2)
    other = ite(u >= xi, u + 1, u)
    report: Int = ite(flip(lam), other, xi)
    return report


@program(origin="k-ary randomized response histogram (Kairouz, Oh, Viswanath 2014)")
def kary_rr_histogram(n: int, k: int, lam: object) -> Program:
    """Shuffled k-ary RR: the histogram of ``n`` users' reports of :func:`kary_report`, lie probability ``lam``.

    One user's report is that of :func:`wmcdp.programs.kary.kary_rr`, parameterised by the lie probability ``lam``
    (local eps0 = ln((1 - lam)(k - 1) / lam)).

    The output is the counts of the reports ``0..k-2`` (the count of ``k - 1`` is ``n`` minus
    their sum); a shuffler's output is exactly this histogram.
    """
    n, k, lam = positive_int(n, "n"), _kary_values(k), probability(lam, "lam")

    def body(x: Sequence[Any]) -> object:
        reports = [kary_report(x[i], k, lam) for i in range(n)]
        counts = tuple(sum(r == j for r in reports) for j in range(k - 1))
        return counts if k > 2 else counts[0]

    return Program(
        "kary_rr_histogram",
        IntVector(n, 0, k - 1),
        body,
        params={"n": n, "k": k, "lam": lam},
        neighbours="hamming",
        description="counts of the k-ary RR reports 0..k-2 (shuffled k-ary RR)",
    )
