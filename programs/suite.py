"""The discrete DP-tester suite (StatDP, Ding et al. CCS'18, Sec. 5): noisy max, histogram, sparse vector.

Inputs are query answers ``q`` in ``{0..m}^n``. StatDP's Laplace noise ``Lap(b)`` becomes
two-sided geometric noise with ratio ``a = e^(-1/b)``, realised by default (``noise="truncated"``) as the
truncated geometric mechanism ``TGeom_a(q)`` on ``{-margin .. m + margin}`` (clamping the noisy *value* is
post-processing; the noise itself is never clamped). ``TGeom_a`` is exactly ``(-ln a)``-DP
for answers that move by one, whatever the margin. ``noise="unbounded"`` draws the mechanism as published
instead: ``q + Z`` with the two-sided geometric ``Z`` of the same ratio on all of the integers
(:func:`wmcdp.geometric`; the one-sided noise :func:`wmcdp.one_sided_geometric`), bracketed in windows
(:mod:`wmcdp.notions.windowed`); ``margin`` is then unused and the parameters say ``noise="unbounded"``.

Every factory takes the claimed budget ``eps0`` or, for exact runs, ``alpha``: the ratio of
the mechanism's finest noise (each docstring says which), a Fraction keeps every
probability rational. Exactly one of the two must be given.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_number, format_number, positive_int
from wmcdp.lang import Int, IntVector, OutputProduct, Program, discrete, ite, truncated_geometric
from wmcdp.lang.geometric import geometric_ratio
from wmcdp.lang.releases import ReleasedSum
from wmcdp.lang.shared_noise import AdaptiveThreshold, SharedMax, SharedThreshold
from wmcdp.lang.unbounded import compared_geometric, geometric, released_geometric
from wmcdp.lang.unbounded import one_sided_geometric as unbounded_one_sided

from .registry import program

#: answer codes of the sparse vector family
FALSE, TRUE, STOPPED = 0, 1, 2
#: how a program's origin cites StatDP's paper
STATDP = "StatDP (Ding et al., CCS 2018)"
#: the two noises of a query-answer program: the clamped (truncated) geometric, or the published unbounded one
NOISES = ("truncated", "unbounded")


# -- shared parameter handling and noise -----------------------------------------------


def _margin(margin: object) -> int:
    """``margin`` as a whole number >= 0."""
    value = as_number(margin, "margin")
    if not isinstance(value, int) or value < 0:
        raise WmcdpError(f"margin must be a whole number >= 0, got {format_number(value)}")
    return value


def finest_ratio(
    eps0: object, alpha: object, laplace_scale: Callable[[Number], Number]
) -> tuple[Number, dict[str, Number]]:
    """A program's finest noise ratio and its label: ``alpha``, or ``e^(-1/b)`` with ``b = laplace_scale(eps0)``.

    Exactly one of ``eps0`` (the claimed budget, a positive finite number) and ``alpha`` (an exact ratio in (0, 1))
    must be given; the label (``{"alpha": a}`` or ``{"eps0": eps0}``) goes into the program's parameters. A
    program's other noises are integer powers of this ratio, so a Fraction ``alpha`` keeps every weight rational.
    """
    if (eps0 is None) == (alpha is None):
        raise WmcdpError("give exactly one of eps0 (the claimed budget) and alpha (an exact noise ratio)")
    if alpha is not None:
        a = geometric_ratio(alpha=alpha)
        return a, {"alpha": a}
    e = as_number(eps0, "eps0")
    if not 0 < e < math.inf:
        raise WmcdpError(f"eps0 must be a positive finite number, got {format_number(e)}")
    return geometric_ratio(scale=laplace_scale(e)), {"eps0": e}


def _noise(noise: object) -> str:
    """``noise`` as one of :data:`NOISES`."""
    if noise not in NOISES:
        raise WmcdpError(f"noise must be one of {', '.join(NOISES)}, got {noise!r}"[:190])
    return str(noise)


class Answers:
    """Validated ``n``, ``m``, ``margin``, ``noise`` and the noisy answer: ``TGeom_a(q)`` on ``{-margin..m+margin}``
    (``noise="truncated"``) or ``q + Z`` with unbounded two-sided geometric ``Z`` (``noise="unbounded"``).

    The inputs of a query-answer program: ``n`` answers ``q_i`` in ``{0..m}`` (:attr:`domain`). ``n`` and ``m``
    must be whole numbers >= 1, ``margin`` >= 0 and ``noise`` one of :data:`NOISES` (else a
    :class:`~wmcdp.base.errors.WmcdpError` names it).
    """

    def __init__(self, n: object, m: object, margin: object, noise: object = "truncated") -> None:
        self.n, self.m, self.margin = positive_int(n, "n"), positive_int(m, "m"), _margin(margin)
        self.noise = _noise(noise)
        self.unbounded = self.noise == "unbounded"
        self.domain = IntVector(self.n, 0, self.m)
        self.params: dict[str, Any] = {"n": self.n, "m": self.m}

    def noisy(self, q: Int | int, a: Number, top: int | None = None) -> Int:
        """Two-sided geometric noise of ratio ``a`` on ``q``: ``TGeom_a(q)`` clamped to ``{-margin..top+margin}``
        (``top`` defaults to ``m``), or unbounded ``q + Z``."""
        if self.unbounded:
            return geometric(q, alpha=a)
        return truncated_geometric(q, -self.margin, (self.m if top is None else top) + self.margin, alpha=a)

    def released(self, q: Int | int, a: Number, top: int | None = None) -> Release:
        """:meth:`noisy`, for a value the program only releases: unbounded, ``q + Z`` with its tails merged
        (:func:`~wmcdp.lang.unbounded.released_geometric`, exact for every privacy notion, no window)."""
        if self.unbounded:
            return released_geometric(q, alpha=a)
        return self.noisy(q, a, top)

    def compared(self, q: Int | int, a: Number) -> Int:
        """:meth:`noisy`, for a value the program only compares with answers in ``0..m``: unbounded, ``q + Z`` with
        its tails merged beyond ``0..m`` (:func:`~wmcdp.lang.unbounded.compared_geometric`, exact, no window)."""
        if self.unbounded:
            return compared_geometric(q, alpha=a, against=(0, self.m))
        return self.noisy(q, a)

    def noisy_up(self, q: Int | int, a: Number) -> Int:
        """``min(q + G, m + margin)`` with one-sided geometric ``P(G = g) = (1 - a) a^g`` (exponential noise's
        discrete analogue): ``P(z) = (1 - a) a^(z - q)`` for ``q <= z < hi``, ``a^(hi - q)`` at ``hi = m + margin``;
        unbounded: ``q + G`` itself."""
        if self.unbounded:
            return unbounded_one_sided(q, alpha=a)
        return discrete(lambda c: one_sided_geometric(c, self.m + self.margin, a), q)

    def program(
        self,
        name: str,
        body: Callable[[Sequence[Any]], object],
        neighbours: str | Callable[..., Any],
        extra: dict[str, Any],
        description: str,
        outputs: Callable[[], Iterable[Any]] | None = None,
        shared_noise: SharedThreshold | SharedMax | AdaptiveThreshold | None = None,
    ) -> Program:
        """The :class:`~wmcdp.lang.Program` ``name`` on :attr:`domain`, its parameters ``n``, ``m``, ``extra`` (the
        noise label of :func:`finest_ratio`, thresholds, ...) and ``margin`` (``noise="unbounded"`` instead, for
        unbounded noise); ``outputs``, when given, lists every output the program can give
        (:attr:`wmcdp.lang.Program.outputs`), and ``shared_noise`` declares a shared-noise program's law
        (:attr:`wmcdp.lang.Program.shared_noise`)."""
        noise = {"noise": self.noise} if self.unbounded else {"margin": self.margin}
        return Program(
            name,
            self.domain,
            body,
            params={**self.params, **extra, **noise},
            neighbours=neighbours,
            description=description,
            outputs=outputs,
            shared_noise=shared_noise,
        )


# -- noisy max (StatDP Algorithms 5 and 7) ----------------------------------------------


def _noisy_max(
    name: str,
    n: object,
    m: object,
    eps0: object,
    margin: object,
    alpha: object,
    report_value: bool,
    description: str,
    one_sided: bool = False,
    noise: object = "truncated",
) -> Program:
    """Report noisy max, ``a = e^(-eps0/2)``: two-sided noise ``TGeom_a`` or one-sided (:meth:`Answers.noisy_up`).

    The index (``report_value`` False) declares its outputs ``0..n-1``: the loop sets it to a loop index only; with
    unbounded two-sided noise either declares its law too (:class:`~wmcdp.lang.shared_noise.SharedMax`)."""
    ans = Answers(n, m, margin, noise)
    a, budget = finest_ratio(eps0, alpha, lambda e: 2 / e)
    noisy = ans.noisy_up if one_sided else ans.noisy

    def body(x: Sequence[Any]) -> Int | int:
        best_index: Int | int = Int.const(0)  # one entry: its index, a constant output
        best = noisy(x[0], a)
        for i in range(1, ans.n):
            v = noisy(x[i], a)
            better = v > best  # strict: the lowest index wins ties
            best_index, best = ite(better, i, best_index), ite(better, v, best)
        return best if report_value else best_index

    outputs = None if report_value else lambda: range(ans.n)
    declared = ans.unbounded and not one_sided and isinstance(a, Fraction)  # two-sided noise: its law
    shared = SharedMax(Fraction(a), 0, ans.m, "value" if report_value else "index") if declared else None
    return ans.program(name, body, "all-entries", budget, description, outputs, shared)


@program(origin=f"{STATDP} Alg. 5")
def noisy_max(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Report noisy max: the index of the largest ``TGeom_a(q_i)``, lowest index on ties; ``a = e^(-eps0/2)``.

    StatDP Alg. 5 with geometric noise; claimed eps0-DP for sensitivity-1 queries
    (neighbours: every answer moves by at most one). ``alpha`` replaces ``e^(-eps0/2)``.
    """
    return _noisy_max(
        "noisy_max",
        n,
        m,
        eps0,
        margin,
        alpha,
        False,
        "index of the largest noisy answer (lowest index on ties)",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 7")
def noisy_max_value(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Known-incorrect noisy max that reports the largest noisy value ``max_i TGeom_a(q_i)``; ``a = e^(-eps0/2)``.

    StatDP Alg. 7 with geometric noise (true cost grows with n). ``alpha`` replaces ``e^(-eps0/2)``.
    """
    return _noisy_max(
        "noisy_max_value",
        n,
        m,
        eps0,
        margin,
        alpha,
        True,
        "largest noisy answer (incorrect: reports the value, not the index)",
        noise=noise,
    )


def one_sided_geometric(q: int, hi: int, a: Number) -> dict[int, Number]:
    """``P(min(q + G, hi) = z)`` for ``z`` in ``{q..hi}``, ``P(G = g) = (1 - a) a^g``; a float ``a`` in log space."""
    if isinstance(a, float):
        log_a, log_rest = math.log(a), math.log1p(-a)
        probs: dict[int, Number] = {z: math.exp(log_rest + (z - q) * log_a) for z in range(q, hi)}
        probs[hi] = math.exp((hi - q) * log_a)
        return probs
    probs = {z: (1 - a) * a ** (z - q) for z in range(q, hi)}
    probs[hi] = a ** (hi - q)
    return probs


@program(origin=f"{STATDP} Alg. 6")
def noisy_max_exponential(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Report noisy max with one-sided noise: the index of the largest ``min(q_i + G_i, m + margin)``, lowest on ties.

    StatDP Alg. 6 (``noisy_max_v2a``: exponential noise of scale 2/eps0) with one-sided geometric noise
    ``P(G = g) = (1 - a) a^g``, ``a = e^(-eps0/2)`` (or ``alpha``); claimed eps0-DP (every answer moves by at most one).
    """
    return _noisy_max(
        "noisy_max_exponential",
        n,
        m,
        eps0,
        margin,
        alpha,
        False,
        "index of the largest one-sided noisy answer",
        True,
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 8")
def noisy_max_exponential_value(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Known-incorrect noisy max that reports the largest value ``max_i min(q_i + G_i, m + margin)``.

    StatDP Alg. 8 (``noisy_max_v2b``) with the one-sided noise of :func:`noisy_max_exponential`; every output lies
    at or above ``max_i q_i``, so moving every answer up by one makes some output impossible: not private.
    """
    return _noisy_max(
        "noisy_max_exponential_value",
        n,
        m,
        eps0,
        margin,
        alpha,
        True,
        "largest one-sided noisy answer (incorrect: reports the value)",
        True,
        noise=noise,
    )


# -- histogram (StatDP Algorithms 9 and 10) --------------------------------------------


def _histogram(
    name: str,
    n: object,
    m: object,
    eps0: object,
    margin: object,
    alpha: object,
    laplace_scale: Callable[[Number], Number],
    description: str,
    noise: object = "truncated",
) -> Program:
    """Every answer plus its own ``TGeom_a`` noise, ``a`` from :func:`finest_ratio`; one answer moves by one."""
    ans = Answers(n, m, margin, noise)
    a, budget = finest_ratio(eps0, alpha, laplace_scale)
    return ans.program(
        name, lambda x: tuple(ans.noisy(x[i], a) for i in range(ans.n)), "one-entry", budget, description
    )


@program(origin=f"{STATDP} Alg. 9")
def histogram(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Noisy histogram: every count ``q_i`` released as ``TGeom_a(q_i)``, ``a = e^(-eps0)`` (Lap(1/eps0)).

    StatDP Alg. 9 with geometric noise; neighbours: one count moves by one. ``alpha`` replaces ``e^(-eps0)``.
    """
    return _histogram(
        "histogram",
        n,
        m,
        eps0,
        margin,
        alpha,
        lambda e: 1 / e,
        "every count plus geometric noise of ratio e^(-eps0)",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 10")
def histogram_wrong_scale(
    n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Incorrect histogram with noise scale eps0 instead of 1/eps0: ``a = e^(-1/eps0)`` (the Lap(eps0) bug).

    StatDP Alg. 10; its true cost is 1/eps0. ``alpha`` replaces ``e^(-1/eps0)``.
    """
    return _histogram(
        "histogram_wrong_scale",
        n,
        m,
        eps0,
        margin,
        alpha,
        lambda e: e,
        "every count plus geometric noise of ratio e^(-1/eps0) (incorrect scale)",
        noise=noise,
    )


# -- sparse vector (StatDP Algorithms 11-15) -------------------------------------------


#: the value a sparse vector releases with a TRUE answer: ``report(v, noisy threshold, fresh)``
#: a release made on TRUE: an Int, or with unbounded noise a released value
Release = Int | ReleasedSum
Report = Callable[[Int, Int, Callable[[int], Release]], Release | int]


def report_answer(v: Int, threshold: Int, fresh: Callable[[int], Release]) -> Int:
    """Release the noisy answer that was compared with the threshold."""
    return v


def threshold_value(T: object, m: int) -> int:
    """The threshold ``T`` of a sparse vector, checked to be an integer in ``{0..m}``."""
    value = as_number(T, "T")
    if not isinstance(value, int) or not 0 <= value <= m:
        raise WmcdpError(f"T must be an integer in 0..m = 0..{m}, got {format_number(value)}")
    return value


def sparse_vector_family(
    name: str,
    n: object,
    m: object,
    T: object,
    N: object,
    eps0: object,
    margin: object,
    alpha: object,
    *,
    laplace_scale: Callable[[Number, int], Number],
    threshold_power: Callable[[int], int],
    query_power: int | None,
    report: Report | None,
    description: str,
    neighbours: str | Callable[..., Any] = "all-entries",
    resample: bool = False,
    noise: object = "truncated",
    fresh_release: bool = False,
    shared_report: tuple[str, int] | None = None,
) -> Program:
    """The sparse vector family: each query's noisy answer compared with one noisy threshold ``T``, codes out.

    ``a = e^(-1/laplace_scale(eps0, N))`` (or ``alpha``) is the finest noise ratio; the threshold noise has
    ratio ``a^threshold_power(N)``, the query noise ``a^query_power`` (None: no query noise). A query is TRUE
    when its noisy answer is at least the noisy threshold. ``N = None``: no bound on TRUE answers (then N = 1
    in the two formulas); else every query after the N-th TRUE is STOPPED. ``report`` None: one code per query
    (:data:`FALSE`, :data:`TRUE`, :data:`STOPPED`); else ``(code, value)`` with ``value = report(v, noisy
    threshold, fresh)`` on TRUE and 0 otherwise, where ``fresh(k)`` is new noise of ratio ``a^k`` on the
    query's answer, for release only (:meth:`Answers.released`). ``resample``: a fresh noisy threshold after every
    TRUE. ``noise``: one of :data:`NOISES`. With no query noise, no report and no resampling the unbounded noisy
    threshold is only compared with the answers in ``0..m``: it is drawn with its tails merged beyond them
    (:meth:`Answers.compared`), exact with no window.

    With codes only (``report`` None) the program declares its outputs (:func:`code_sequences`; with no bound on
    TRUE answers every sequence of FALSE and TRUE, as an :class:`~wmcdp.lang.program.OutputProduct`); so does one whose
    ``report`` releases a fresh noisy answer (``fresh_release``) with unbounded noise, its tails merged into
    ``-1`` and ``m + 1`` (:func:`valued_sequences`).

    With unbounded noise, query noise and no resampling the program declares its law
    (:class:`~wmcdp.lang.shared_noise.SharedThreshold`, for bounds at every n): codes only, or with ``report``
    the ``shared_report`` it makes, ``("gap", 0)`` or ``("fresh", k)`` (a fresh release of ratio ``a^k``); a
    report it does not declare declares nothing.
    """
    ans = Answers(n, m, margin, noise)
    t = threshold_value(T, ans.m)
    bound = None if N is None else positive_int(N, "N")
    a, budget = finest_ratio(eps0, alpha, lambda e: laplace_scale(e, bound or 1))
    threshold_ratio = a ** threshold_power(bound or 1)
    extra: dict[str, Any] = {"T": t, **({} if bound is None else {"N": bound}), **budget}

    def fresh_noise(q: Int) -> Callable[[int], Release]:  # (a fresh noisy answer is only released)
        return lambda k: ans.released(q, a**k)

    compared = query_power is None and report is None and not resample  # the threshold is only compared with x

    def body(x: Sequence[Any]) -> tuple[Any, ...]:
        noisy_threshold = (ans.compared if compared else ans.noisy)(t, threshold_ratio)
        count: Int | int = 0
        out: list[Any] = []
        for i in range(ans.n):
            v = x[i] if query_power is None else ans.noisy(x[i], a**query_power)
            above = v >= noisy_threshold
            code = ite(above, TRUE, FALSE)
            if bound is not None:
                stopped = count >= bound
                code = ite(stopped, STOPPED, code)
                count = (count + above).clamp(0, bound)  # only count >= N is ever read
            if report is None:
                out.append(code)
            else:
                released = report(v, noisy_threshold, fresh_noise(x[i]))
                out.append((code, ite(code == TRUE, released, 0)))
            if resample:
                noisy_threshold = ite(above, ans.noisy(t, threshold_ratio), noisy_threshold)
        return tuple(out)

    valued = report is not None and fresh_release and ans.unbounded
    outputs = (
        (lambda: code_sequences(ans.n, bound) if bound is not None else OutputProduct(((FALSE, TRUE),) * ans.n))
        if report is None
        else (lambda: valued_sequences(ans.n, bound, range(-1, ans.m + 2)))
        if valued
        else None
    )
    declared = report is None or shared_report is not None
    shared = None
    if ans.unbounded and query_power is not None and not resample and declared:
        shared = _shared(t, a, threshold_ratio, query_power, bound, shared_report, ans.m)
    return ans.program(name, body, neighbours, extra, description, outputs, shared)


def _shared(
    t: int, a: Any, threshold_ratio: Any, query_power: int, bound: int | None, report: tuple[str, int] | None, m: int
) -> SharedThreshold | None:
    """The declared law of a sparse vector (:class:`~wmcdp.lang.shared_noise.SharedThreshold`), with exact
    ratios only (None for float ones)."""
    if not isinstance(a, Fraction):
        return None
    kind, power = report if report is not None else (None, 0)
    fresh = Fraction(a**power) if kind == "fresh" else None
    codes = (FALSE, TRUE, STOPPED)
    return SharedThreshold(t, Fraction(threshold_ratio), Fraction(a**query_power), bound, kind, fresh, codes, 0, m)


def valued_sequences(n: int, bound: int | None, values: range) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every output of a sparse vector of ``n`` queries that releases ``(code, value)``, the value 0 unless the code
    is :data:`TRUE` and then one of ``values`` (a fresh release with merged tails takes no other,
    :func:`~wmcdp.lang.unbounded.released_geometric`): each of :func:`code_sequences` with every choice of values
    at its TRUE codes."""
    for codes in code_sequences(n, bound):
        choices = [values if code == TRUE else (0,) for code in codes]
        for chosen in itertools.product(*choices):
            yield tuple(zip(codes, chosen))


def code_sequences(n: int, bound: int | None) -> Iterator[tuple[int, ...]]:
    """Every output a sparse vector of ``n`` queries with codes only can give, at any noise value.

    The loop's own logic, whatever the noisy answers and threshold: query ``i``'s code is :data:`STOPPED` exactly
    when ``bound`` is not None and at least ``bound`` earlier codes are :data:`TRUE` (the clamped count reads
    ``count >= N`` exactly: it counts the TRUEs up to N), and else it is :data:`TRUE` or :data:`FALSE`. So every
    output is a sequence in which the codes after the ``bound``-th TRUE are all STOPPED and no other code is; any
    other sequence (more than ``bound`` TRUEs, a STOPPED before the ``bound``-th TRUE, an answer after it) has
    probability 0 from every input at every noise value. Some listed sequences may be impossible too (without
    query noise the TRUEs are the answers above one threshold): a superset only asks more of a bracket.
    """
    if n == 0:
        yield ()
        return
    if bound == 0:
        yield (STOPPED,) * n
        return
    rest = None if bound is None else bound - 1
    for tail in code_sequences(n - 1, bound):
        yield (FALSE, *tail)
    for tail in code_sequences(n - 1, rest):
        yield (TRUE, *tail)


@program(origin=f"{STATDP} Alg. 11 (Lyu, Su, Li 2017, Alg. 1)")
def sparse_vector(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """Sparse vector (Lyu et al. Alg. 1, StatDP Alg. 11): TRUE iff ``TGeom(q_i) >= TGeom(T)``, stop after N TRUEs.

    Threshold noise Lap(2/eps0), query noise Lap(2N/eps0): ``a = e^(-eps0/(2N))`` for the
    queries and ``a^N`` for the threshold; ``alpha`` replaces ``a``. Output: one code per
    query, 0 = FALSE, 1 = TRUE, 2 = stopped (after the N-th TRUE). Claimed eps0-DP. The query
    scale is as printed in StatDP's Alg. 11; Lyu et al. (and StatDP's code) use 4N/eps0, and
    with 2N/eps0 the usual proof (threshold shifted by 1, a TRUE query's noise by 2) gives 1.5 eps0.
    """
    return sparse_vector_family(
        "sparse_vector",
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
        description="Lyu et al. sparse vector; codes 0=FALSE 1=TRUE 2=stopped",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 12")
def isvt1(
    n: int, m: int, T: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """StatDP's iSVT1 (Alg. 12): no query noise, threshold noise Lap(1/eps0) (``a = e^(-eps0)``), no bound on TRUEs.

    Output codes 0 = FALSE, 1 = TRUE. Not private for any finite eps. ``alpha`` replaces ``a``.
    """
    return sparse_vector_family(
        "isvt1",
        n,
        m,
        T,
        None,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, _: 1 / e,
        threshold_power=lambda _: 1,
        query_power=None,
        report=None,
        description="incorrect SVT: no query noise, no bound; codes 0=FALSE 1=TRUE",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 14")
def isvt2(
    n: int, m: int, T: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """StatDP's iSVT2 (Alg. 14): threshold and query noise Lap(2/eps0) (``a = e^(-eps0/2)``), no bound on TRUEs.

    Output codes 0 = FALSE, 1 = TRUE. ``alpha`` replaces ``a``.
    """
    return sparse_vector_family(
        "isvt2",
        n,
        m,
        T,
        None,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, _: 2 / e,
        threshold_power=lambda _: 1,
        query_power=1,
        report=None,
        description="incorrect SVT: no bound on TRUE answers; codes 0=FALSE 1=TRUE",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 13")
def isvt3(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """StatDP's iSVT3 (Alg. 13): threshold noise Lap(4/eps0), query noise Lap(4/(3 eps0)) not scaled with N.

    ``a = e^(-eps0/4)`` for the threshold and ``a^3`` for the queries; ``alpha`` replaces ``a``.
    Codes 0 = FALSE, 1 = TRUE, 2 = stopped. Continuous theory: cost (1 + 6N)/4 * eps0.
    """
    return sparse_vector_family(
        "isvt3",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, _: 4 / e,
        threshold_power=lambda _: 1,
        query_power=3,
        report=None,
        description="incorrect SVT: query noise does not scale with N; codes 0=FALSE 1=TRUE 2=stopped",
        noise=noise,
    )


@program(origin=f"{STATDP} Alg. 15")
def isvt4(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None, noise: str = "truncated"
) -> Program:
    """StatDP's iSVT4 (Alg. 15): sparse vector that outputs the noisy answer itself when it is above.

    Noise as in :func:`sparse_vector`. Each answer is ``(code, value)``: code 0 = FALSE,
    1 = above (value = the noisy answer), 2 = stopped; value is 0 unless code = 1.
    """
    return sparse_vector_family(
        "isvt4",
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
        report=report_answer,
        description="incorrect SVT: reports the noisy answer when above",
        noise=noise,
    )
