"""CheckDP's benchmark programs (Wang, Ding, Kifer, Zhang, CCS 2020; ``cmla-psu/checkdp``, ``examples/*.c``).

Each CheckDP example is a C function over query answers ``q[0..size-1]`` with Laplace noise.
Here ``q`` lies in ``{0..m}^n`` and every ``Lap(b)`` becomes two-sided geometric noise of ratio
``e^(-1/b)``, realised as the truncated geometric mechanism (a clamped discrete Laplace, see
:mod:`wmcdp.lang.geometric`) on ``{-margin..m+margin}`` (sums: ``{-margin..n m+margin}``), as in
:mod:`wmcdp.programs.suite`; ``noise="unbounded"`` draws the unbounded two-sided geometric of the same ratio
instead, the mechanism as CheckDP writes it (bracketed in windows, ``margin`` unused). ``alpha`` is the
finest ratio; every noise of a program is an integer power of it (each docstring says which), so a Fraction
``alpha`` keeps every probability rational.
CheckDP's neighbours are ``ALL_DIFFER`` (every answer moves by at most one: ``all-entries``) or
``ONE_DIFFER`` (one answer moves by one: ``one-entry``).

Five of CheckDP's programs are built-ins already and are not repeated here: NoisyMax is
:func:`~wmcdp.programs.suite.noisy_max`, BadNoisyMax :func:`~wmcdp.programs.suite.noisy_max_value`,
BadSVT2 :func:`~wmcdp.programs.suite.isvt2` and BadSVT3 :func:`~wmcdp.programs.suite.isvt3`
(the same noise scales and outputs). :data:`CHECKDP` lists all seventeen with their claims.

Outputs. A sparse-vector answer that releases a number is ``(code, value)`` (code 0 = FALSE,
1 = TRUE, 2 = stopped, 3 = TRUE in AdaptiveSVT's top branch; value 0 unless the code is 1 or 3).
CheckDP prints one number per answer (0 or -100 for FALSE) and stops the loop where wmcdp
prints "stopped"; with continuous noise the two carry the same information, with discrete noise a
gap of exactly 0 would be confused with FALSE, so the code is released too: wmcdp's exact eps
bounds the eps of CheckDP's coarser output from above.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_number, format_number, positive_int
from wmcdp.lang import Int, Program, ite
from wmcdp.lang.shared_noise import AdaptiveThreshold

from .registry import Claim, program
from .suite import (
    FALSE,
    STOPPED,
    TRUE,
    Answers,
    Release,
    Report,
    finest_ratio,
    report_answer,
    sparse_vector_family,
    threshold_value,
)

#: AdaptiveSVT's top-branch answer code
TOP = 3


# -- the sparse vector family --------------------------------------------------------------------


def _checkdp_svt(
    name: str,
    n: object,
    m: object,
    T: object,
    N: object,
    eps0: object,
    margin: object,
    alpha: object,
    report: Report | None,
    description: str,
    noise: object = "truncated",
    shared_report: tuple[str, int] | None = None,
) -> Program:
    """CheckDP's SVT noise: queries Lap(4N/eps), ``a = e^(-eps/(4N))``; threshold Lap(2/eps), ``a^(2N)``."""
    return sparse_vector_family(
        name,
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, N: 4 * N / e,
        threshold_power=lambda N: 2 * N,
        query_power=1,
        report=report,
        description=description,
        noise=noise,
        shared_report=shared_report,
    )


def _report_gap(v: Int, threshold: Int, fresh: Callable[[int], Release]) -> Int:
    """Release the gap between the noisy answer and the noisy threshold."""
    return v - threshold


@program()
def svt(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP SVT: TRUE iff ``TGeom(q_i) >= TGeom(T)``, stop after N TRUEs; query noise Lap(4N/eps), claimed eps-DP.

    ``examples/sparsevector.c`` (Lyu, Su, Li 2017, Alg. 1). Threshold noise Lap(2/eps): ratio
    ``a^(2N)``; query noise Lap(4N/eps): ``a = e^(-eps0/(4N))`` (or ``alpha``). Codes 0 = FALSE,
    1 = TRUE, 2 = stopped. Private (CheckDP: proved). :func:`~wmcdp.programs.suite.sparse_vector`
    is the same loop with StatDP's printed query scale 2N/eps.
    """
    return _checkdp_svt(
        "svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        None,
        "CheckDP SVT (query noise 4N/eps); codes 0=FALSE 1=TRUE 2=stopped",
        noise=noise,
    )


@program()
def gap_svt(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP GapSVT: SVT that releases the gap ``TGeom(q_i) - TGeom(T)`` with each TRUE; claimed eps-DP.

    ``examples/gapsparsevector.c`` (Ding et al., "Free gap information", 2019). Noise as in
    :func:`svt`: ``a = e^(-eps0/(4N))`` for the queries, ``a^(2N)`` for the threshold. Each answer is
    ``(code, gap)``. Private (CheckDP: proved).
    """
    return _checkdp_svt(
        "gap_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        _report_gap,
        "SVT that releases the noisy gap",
        noise=noise,
        shared_report=("gap", 0),
    )


@program()
def bad_gap_svt(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP BadGapSVT: SVT that releases the noisy answer ``TGeom(q_i)`` with each TRUE; claimed eps, not private.

    ``examples/badgapsparsevector.c``. Noise as in :func:`svt`. Each answer is ``(code, value)``.
    Not private: the released answer and the threshold comparison reveal ``q_i`` (CheckDP: counterexample).
    """
    return _checkdp_svt(
        "bad_gap_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        report_answer,
        "incorrect SVT: releases the noisy answer",
        noise=noise,
    )


@program()
def num_svt(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP NumSVT: SVT that releases a fresh noisy answer ``TGeom(q_i)`` with each TRUE; claimed eps-DP.

    ``examples/numsparsevector.c`` (Dwork and Roth 2014, NumericSparse). Threshold Lap(3/eps):
    ratio ``a^(2N)``; comparison noise Lap(6N/eps): ``a = e^(-eps0/(6N))``; released noise
    Lap(3N/eps): ``a^2``. Each answer is ``(code, value)``. Private (CheckDP: proved).
    """

    def fresh_answer(v: Int, threshold: Int, fresh: Callable[[int], Release]) -> Release:
        return fresh(2)

    return sparse_vector_family(
        "num_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, N: 6 * N / e,
        threshold_power=lambda N: 2 * N,
        query_power=1,
        report=fresh_answer,
        description="numeric SVT: a fresh noisy answer with each TRUE",
        noise=noise,
        fresh_release=True,
        shared_report=("fresh", 2),
    )


@program()
def bad_svt1(
    n: int, m: int, T: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP BadSVT1: no query noise and no bound on TRUEs, threshold noise Lap(2/eps); claimed eps, not private.

    ``examples/badsparsevector1.c`` (Stoddard et al. 2014; StatDP's iSVT1 with threshold noise
    Lap(2/eps) instead of Lap(1/eps)). ``a = e^(-eps0/2)`` (or ``alpha``). Codes 0 = FALSE,
    1 = TRUE. Not private for any finite eps (CheckDP: counterexample).
    """
    return sparse_vector_family(
        "bad_svt1",
        n,
        m,
        T,
        None,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, _: 2 / e,
        threshold_power=lambda _: 1,
        query_power=None,
        report=None,
        description="incorrect SVT: no query noise, no bound; codes 0=FALSE 1=TRUE",
        noise=noise,
    )


def monotone(x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Monotone neighbours: every answer moves by 0 or +1, or every answer by 0 or -1 (not all by 0), unbounded.

    The built-in relation ``"monotone"`` is this one on a program's domain (it leaves out the neighbours outside
    it); :func:`monotone_svt` declares the built-in one, which the planner's plans know."""
    for step in itertools.product((0, 1), repeat=len(x)):
        if any(step):
            for sign in (1, -1):
                yield tuple(q + sign * d for q, d in zip(x, step))


@program()
def monotone_svt(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP Monotone SVT: SVT with query noise Lap(2N/eps) for queries that all move the same way; claimed eps-DP.

    ``examples/svt_increasing.c`` and ``examples/svt_decreasing.c`` (Lyu, Su, Li 2017, Sec. 4):
    CheckDP checks each direction; wmcdp's neighbours are both (``"monotone"``, :func:`monotone`). Threshold noise
    Lap(2/eps): ratio ``a^N``; query noise Lap(2N/eps): ``a = e^(-eps0/(2N))``. Codes 0 = FALSE,
    1 = TRUE, 2 = stopped. Private (CheckDP: proved). The same loop as
    :func:`~wmcdp.programs.suite.sparse_vector`, whose neighbours are not monotone.
    """
    return sparse_vector_family(
        "monotone_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, N: 2 * N / e,
        threshold_power=lambda N: N,
        query_power=1,
        report=None,
        description="SVT for monotone queries; codes 0=FALSE 1=TRUE 2=stopped",
        neighbours="monotone",
        noise=noise,
    )


def _cut(cut: object) -> int:
    value = as_number(cut, "cut")
    if not isinstance(value, int) or value < 1:
        raise WmcdpError(f"cut must be a whole number >= 1, got {format_number(value)}")
    return value


def _adaptive_svt(
    name: str,
    n: object,
    m: object,
    T: object,
    N: object,
    eps0: object,
    margin: object,
    alpha: object,
    cut: object,
    top_gap: bool,
    description: str,
    noise: object = "truncated",
) -> Program:
    """AdaptiveSVT: ``a = e^(-eps/(8N))`` (top branch, Lap(8N/eps)), ``a^2`` (lower branch, Lap(4N/eps)),
    ``a^(4N)`` (threshold, Lap(2/eps)). Budget in units of eps: start at 2N, a top TRUE costs 1, a
    lower TRUE 2, stop once the cost exceeds 4N - 2."""
    ans = Answers(n, m, margin, noise)
    t, bound, step = threshold_value(T, ans.m), positive_int(N, "N"), _cut(cut)
    a, budget = finest_ratio(eps0, alpha, lambda e: 8 * bound / e)
    limit = 4 * bound - 2

    def body(x: Sequence[Any]) -> tuple[Any, ...]:
        threshold = ans.noisy(t, a ** (4 * bound))
        cost: Int | int = 2 * bound
        out = []
        for i in range(ans.n):
            stopped = cost > limit
            v_top, v_low = ans.noisy(x[i], a), ans.noisy(x[i], a**2)
            top = v_top - threshold >= step
            low = ~top & (v_low >= threshold)
            code = ite(stopped, STOPPED, ite(top, TOP, ite(low, TRUE, FALSE)))
            released_top = v_top - threshold if top_gap else v_top
            value = ite(code == TOP, released_top, ite(code == TRUE, v_low - threshold, 0))
            out.append((code, value))
            cost = (cost + ite(code == TOP, 1, ite(code == TRUE, 2, 0))).clamp(2 * bound, limit + 1)
        return tuple(out)

    extra = {"T": t, "N": bound, "cut": step, **budget}
    shared = None
    if ans.unbounded and isinstance(a, Fraction):  # its law, declared (wmcdp.lang.shared_noise.AdaptiveThreshold)
        ratios = Fraction(a ** (4 * bound)), Fraction(a), Fraction(a**2)
        report = "gap" if top_gap else "value"
        codes = (FALSE, TRUE, STOPPED, TOP)
        shared = AdaptiveThreshold(t, *ratios, step, 2 * bound, limit, 1, 2, report, codes, 0, ans.m)
    return ans.program(name, body, "all-entries", extra, description, None, shared)


@program()
def adaptive_svt(
    n: int,
    m: int,
    T: int,
    N: int,
    eps0: object = None,
    margin: int = 1,
    alpha: object = None,
    cut: int = 1,
    noise: str = "truncated",
) -> Program:
    """CheckDP AdaptiveSVT: a cheap noisier test first, the costlier one if it fails; gaps released; claimed eps-DP.

    ``examples/adaptivesparsevector.c`` (Ding et al., "Free gap information", 2019, Alg. 3). Top
    branch: ``v = TGeom_a(q_i)``, TRUE (code 3, gap released) iff ``v - T^ >= cut``, cost 1;
    else ``w = TGeom_{a^2}(q_i)``, TRUE (code 1, gap released) iff ``w >= T^``, cost 2; ``T^`` has
    ratio ``a^(4N)``, ``a = e^(-eps0/(8N))``. CheckDP's top cut 16 (2 sigma, sqrt 2 read as 2) is
    the parameter ``cut`` here, since 16 lies beyond small answer ranges. Private (CheckDP: proved).
    """
    return _adaptive_svt(
        "adaptive_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        cut,
        True,
        "adaptive SVT; codes 0=FALSE 1=TRUE 2=stopped 3=top",
        noise=noise,
    )


@program()
def bad_adaptive_svt(
    n: int,
    m: int,
    T: int,
    N: int,
    eps0: object = None,
    margin: int = 1,
    alpha: object = None,
    cut: int = 1,
    noise: str = "truncated",
) -> Program:
    """CheckDP BadAdaptiveSVT: :func:`adaptive_svt` releasing the noisy answer, not the gap, in the top branch.

    ``examples/badadaptivesparsevector.c``. Noise and budget as in :func:`adaptive_svt`; claimed
    eps, not private (CheckDP: counterexample).
    """
    return _adaptive_svt(
        "bad_adaptive_svt",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        cut,
        False,
        "incorrect adaptive SVT: top branch releases the answer",
        noise=noise,
    )


# -- sums ---------------------------------------------------------------------------------------


def _noisy_sum(ans: Answers, values: list[Any], a: Number, count: int) -> Release:
    """``TGeom_a`` of the sum of ``values`` (``count`` answers) on ``{-margin..count m+margin}``, or unbounded."""
    return ans.released(sum(values[1:], values[0]), a, count * ans.m)


def _partial_sum(
    name: str,
    n: object,
    m: object,
    eps0: object,
    margin: object,
    alpha: object,
    power: int,
    description: str,
    noise: object = "truncated",
) -> Program:
    """``TGeom`` of the sum of every answer, ratio ``a^power`` with ``a = e^(-eps0)``; one answer moves by one."""
    ans = Answers(n, m, margin, noise)
    a, budget = finest_ratio(eps0, alpha, lambda e: 1 / e)
    total = ans.n * ans.m

    def body(x: Sequence[Any]) -> Release:
        answers = [x[i] for i in range(ans.n)]  # read in order: the chain plan's blocks, one per entry
        return ans.released(sum(answers[1:], answers[0]), a**power, total)

    return ans.program(name, body, "one-entry", budget, description)


@program()
def partial_sum(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP PartialSum: ``TGeom_a(sum q)``, ``a = e^(-eps0)`` (Lap(1/eps)); claimed eps-DP (one answer moves by one).

    ``examples/partialsum.c`` (from LightDP, Zhang and Kifer 2017). Private (CheckDP: proved).
    """
    return _partial_sum("partial_sum", n, m, eps0, margin, alpha, 1, "noisy sum of all answers", noise=noise)


@program()
def bad_partial_sum(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP BadPartialSum: ``TGeom(sum q)`` with Lap(1/(2 eps)), ratio ``a^2`` (``a = e^(-eps0)``): 2 eps, not eps.

    ``examples/badpartialsum.c``. Not private at the claim (CheckDP: counterexample).
    """
    return _partial_sum(
        "bad_partial_sum", n, m, eps0, margin, alpha, 2, "noisy sum with half the noise scale", noise=noise
    )


@program()
def prefix_sum(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """CheckDP PrefixSum: every prefix sum of ``TGeom_a(q_i)``, ``a = e^(-eps0)`` (Lap(1/eps)); claimed eps-DP.

    The paper's PrefixSum (from LightDP; the ``else`` branch of ``examples/smartsum.c`` on every
    query: ``next = next + q[i] + Lap(1/eps)``, output ``next``). Neighbours: one answer moves by
    one. Private (CheckDP: proved).
    """
    ans = Answers(n, m, margin, noise)
    a, budget = finest_ratio(eps0, alpha, lambda e: 1 / e)

    def body(x: Sequence[Any]) -> tuple[Any, ...]:
        running, out = None, []
        for i in range(ans.n):
            v = ans.released(x[i], a)
            running = v if running is None else running + v
            out.append(running)
        return tuple(out)

    return ans.program("prefix_sum", body, "one-entry", budget, "prefix sums of noisy answers")


def _smart_sum(
    name: str,
    n: object,
    m: object,
    M: object,
    T: object,
    eps0: object,
    margin: object,
    alpha: object,
    block_noise: bool,
    description: str,
    noise: object = "truncated",
) -> Program:
    """SmartSum over ``q_0..q_T``: at ``(i + 1) % M == 0`` release ``TGeom_a`` of the block's sum (no noise if
    ``not block_noise``) and restart the block; else release ``next + TGeom_a(q_i)``."""
    ans = Answers(n, m, margin, noise)
    block_size, last = positive_int(M, "M"), ans.n - 1 if T is None else as_number(T, "T")
    if block_size < 2:
        raise WmcdpError(f"M must be at least 2, got {block_size}")
    if not isinstance(last, int) or not 0 <= last < ans.n:
        raise WmcdpError(f"T must be an integer in 0..n-1 = 0..{ans.n - 1}, got {format_number(last)}")
    a, budget = finest_ratio(eps0, alpha, lambda e: 1 / e)

    def body(x: Sequence[Any]) -> tuple[Any, ...]:
        nxt: Release | int = 0
        block: list[Any] = []
        out: list[Any] = []
        for i in range(last + 1):
            if (i + 1) % block_size == 0:
                values = [*block, x[i]]
                nxt = _noisy_sum(ans, values, a, len(values)) if block_noise else sum(values[1:], values[0])
                block = []
            else:
                nxt = nxt + ans.released(x[i], a)
                block.append(x[i])
            out.append(nxt)
        return tuple(out)

    return ans.program(name, body, "one-entry", {"M": block_size, "T": last, **budget}, description)


@program()
def smart_sum(
    n: int,
    m: int,
    M: int,
    T: int | None = None,
    eps0: object = None,
    margin: int = 1,
    alpha: object = None,
    noise: str = "truncated",
) -> Program:
    """CheckDP SmartSum: running noisy sums, restarted every M answers from the block's noisy sum; claimed 2 eps-DP.

    ``examples/smartsum.c`` (Chan, Shi, Song 2011, as written there: the block release is the
    block's own sum). Answers ``q_0..q_T`` (``T`` None: all); every noise Lap(1/eps): ``a = e^(-eps0)``. Neighbours:
    one answer moves by one. Private at 2 eps (CheckDP: proved).
    """
    return _smart_sum(
        "smart_sum", n, m, M, T, eps0, margin, alpha, True, "running noisy sums restarted every M", noise=noise
    )


@program()
def bad_smart_sum(
    n: int,
    m: int,
    M: int,
    T: int | None = None,
    eps0: object = None,
    margin: int = 1,
    alpha: object = None,
    noise: str = "truncated",
) -> Program:
    """CheckDP BadSmartSum: :func:`smart_sum` without noise on the block sums; claimed 2 eps, not private.

    ``examples/badsmartsum.c``. ``a = e^(-eps0)``. Not private for any finite eps (CheckDP: counterexample).
    """
    return _smart_sum(
        "bad_smart_sum",
        n,
        m,
        M,
        T,
        eps0,
        margin,
        alpha,
        False,
        "incorrect SmartSum: block sums released exactly",
        noise=noise,
    )


# -- the list --------------------------------------------------------------------------------------


#: how a program's origin cites CheckDP's paper and repository
CHECKDP_CITE = "CheckDP (Wang et al., CCS 2020), cmla-psu/checkdp"


@dataclass(frozen=True)
class Benchmark:
    """One of CheckDP's programs: the wmcdp built-in that runs it and what the literature claims.

    The claim is ``eps0``-DP; in terms of the finest ratio ``alpha`` it is ``e^eps = alpha^(-claim_power(params))``.
    """

    name: str  # CheckDP's name (paper, Sec. 6)
    program: str  # the wmcdp built-in
    source: str  # the file in cmla-psu/checkdp
    claim_power: Callable[[dict[str, Any]], int]
    private: bool  # the literature's verdict at the claimed eps
    params: dict[str, Any] = field(default_factory=dict)  # small parameters besides n and alpha

    def as_claim(self, alpha: Number = Fraction(1, 2)) -> Claim:
        """This benchmark as a :class:`~wmcdp.programs.registry.Claim` of its built-in at the finest ratio
        ``alpha``: ``e^eps = alpha^(-claim_power)``, cited in the built-in's origin."""
        power = self.claim_power
        return Claim(
            "CheckDP",
            self.name,
            {**self.params, "alpha": alpha},
            lambda params: params["alpha"] ** -power(params),
            self.private,
            cite=f"{CHECKDP_CITE} {self.source} ({self.name})",
        )


def _power(k: int) -> Callable[[dict[str, Any]], int]:
    return lambda params: k


_SVT = {"m": 1, "T": 1, "N": 1}
_SUM = {"m": 1}

#: CheckDP's seventeen programs, in the paper's order (correct ones first)
CHECKDP = [
    Benchmark("NoisyMax", "noisy_max", "examples/noisymax.c", _power(2), True, {"m": 1}),
    Benchmark("SVT", "svt", "examples/sparsevector.c", lambda p: 4 * p["N"], True, _SVT),
    Benchmark(
        "MonotoneSVT", "monotone_svt", "examples/svt_increasing.c, svt_decreasing.c", lambda p: 2 * p["N"], True, _SVT
    ),
    Benchmark("GapSVT", "gap_svt", "examples/gapsparsevector.c", lambda p: 4 * p["N"], True, _SVT),
    Benchmark("NumSVT", "num_svt", "examples/numsparsevector.c", lambda p: 6 * p["N"], True, _SVT),
    Benchmark("AdaptiveSVT", "adaptive_svt", "examples/adaptivesparsevector.c", lambda p: 8 * p["N"], True, _SVT),
    Benchmark("PartialSum", "partial_sum", "examples/partialsum.c", _power(1), True, _SUM),
    Benchmark("PrefixSum", "prefix_sum", "paper (LightDP); smartsum.c's else branch", _power(1), True, _SUM),
    Benchmark("SmartSum", "smart_sum", "examples/smartsum.c", _power(2), True, {"m": 1, "M": 2}),
    Benchmark("BadNoisyMax", "noisy_max_value", "examples/badnoisymax.c", _power(2), False, {"m": 1}),
    Benchmark("BadSVT1", "bad_svt1", "examples/badsparsevector1.c", _power(2), False, {"m": 1, "T": 1}),
    Benchmark("BadSVT2", "isvt2", "examples/badsparsevector2.c", _power(2), False, {"m": 1, "T": 1}),
    Benchmark("BadSVT3", "isvt3", "examples/badsparsevector3.c", _power(4), False, _SVT),
    Benchmark("BadGapSVT", "bad_gap_svt", "examples/badgapsparsevector.c", lambda p: 4 * p["N"], False, _SVT),
    Benchmark(
        "BadAdaptiveSVT", "bad_adaptive_svt", "examples/badadaptivesparsevector.c", lambda p: 8 * p["N"], False, _SVT
    ),
    Benchmark("BadPartialSum", "bad_partial_sum", "examples/badpartialsum.c", _power(1), False, _SUM),
    Benchmark("BadSmartSum", "bad_smart_sum", "examples/badsmartsum.c", _power(2), False, {"m": 1, "M": 2}),
]


__all__ = [
    "CHECKDP",
    "Benchmark",
    "adaptive_svt",
    "bad_adaptive_svt",
    "bad_gap_svt",
    "bad_partial_sum",
    "bad_smart_sum",
    "bad_svt1",
    "gap_svt",
    "monotone",
    "monotone_svt",
    "num_svt",
    "partial_sum",
    "prefix_sum",
    "smart_sum",
    "svt",
]
