"""Long heterogeneous compositions: δ(ε) or ε(δ) of a sequence of mechanisms run on one pair of databases.

``steps`` lists mechanisms ``M_1, …, M_s`` (each run ``c_i`` times, ``K = Σ c_i`` runs in all) on one input
domain. The adversary picks one neighbouring pair ``(x, x')`` for the whole sequence, so the answer is

    δ(ε) = max over pairs (x, x') of  H_{e^ε}( Π_i P_i(.|x)^{c_i} ‖ Π_i P_i(.|x')^{c_i} )   (both orders),

the hockey-stick divergence of the product distributions, and ε(δ) the smallest ε ≥ 0 with δ(ε) ≤ δ. Per pair
it is ``E[(1 − e^{ε − L})_+] + P(L = ∞)`` for the privacy loss ``L = Σ_i Σ_j L_ij``, a sum of independent
per-run losses ``L_ij`` of ``(x, x')`` under ``M_i`` (:mod:`wmcdp.notions.loss`).

**Which pairs.** Pair ``q`` is *covered* by pair ``p`` when, at every step, ``p``'s hockey-stick curve is at
least ``q``'s for every ``t = e^ε > 0``: then (Blackwell) each step's pair ``q`` is a garbling of its pair ``p``,
the product of the garblings garbles the product, and ``q``'s composed δ(ε) never exceeds ``p``'s. The
curves are compared as exact rationals at every kink (:func:`wmcdp.notions.loss.hockey_curves`; a float program
is recounted on its weights' exact binary values first), so a dropped pair is proved covered, never sampled.
Pairs whose per-step loss distributions are equal are composed once.

**Exact.** With exact masses (Fraction parameters) each remaining pair's grouped losses are multiplied exactly
(:class:`wmcdp.notions.loss.Groups`: equal losses merge; a repeated step through its multinomial outcomes or by
repeated squaring, then the steps one after another) while the support stays within ``max_groups``; δ(ε) is then
that of :func:`wmcdp.notions.approximate.deltas` (an exact rational at ``ε = ln R``) and ε(δ) the log of the
exact ratio :func:`exact_ratio`.

**Certified bracket.** Otherwise each pair's loss is carried as *clusters*: a cluster holds the ``P(.|x)``-mass
``m`` of some outcomes (as ``ln m``, to a stated absolute error) and an interval ``[lo, hi]`` containing each of
their losses. Claim: ``Σ_c m_c f(lo_c) ≤ δ(ε) ≤ Σ_c m_c f(hi_c)`` for ``f(L) = (1 − e^{ε − L})_+`` (``f(∞) = 1``).
Proof: ``f`` is nondecreasing, and every outcome ``ω`` of cluster ``c`` has ``lo_c ≤ L(ω) ≤ hi_c``, so
``m_c f(lo_c) ≤ Σ_{ω∈c} P(ω) f(L(ω)) ≤ m_c f(hi_c)``; summing over the clusters, which partition the outcomes,
gives the claim. The coupling is kept by every operation: composing two independent parts pairs their clusters
(masses multiply, ``lo`` and ``hi`` add: ``L = L_1 + L_2`` with ``lo_1 + lo_2 ≤ L ≤ hi_1 + hi_2``); merging
clusters adds their masses and takes the smallest ``lo`` and largest ``hi``; ``c`` runs of one step with ``g``
clusters are the multinomial outcomes ``n`` (``Σ n_i = c``) of mass ``c!/Π n_i! · Π m_i^{n_i}`` and losses in
``[Σ n_i lo_i, Σ n_i hi_i]`` (past :data:`MAX_OUTCOMES` outcomes, by repeated squaring instead). Merging keeps
the support within ``max_groups``: clusters whose ``lo`` fall in one cell of a grid merge, the cell width doubled
from ``2^-40`` until few enough remain, so equal losses reached along different roundings merge at once and
distinct ones only when they must; outcomes or products too many to hold at once are formed in chunks and
gathered on a fixed grid of ``max_groups`` cells over their whole range (:func:`_gridded`). Rounding is outward:
sums of losses are rounded down for ``lo`` and up for ``hi`` (one ulp each, or the ``γ_n`` bound of a dot
product), and every log-mass carries a bound on its absolute error, grown at each product (one rounding), each
merge of ``t`` terms (a log-sum-exp: ``γ_t`` for a sum of nonnegative terms, the exps, the log; or ``t − 1``
``logaddexp`` steps) and each multinomial (correctly rounded log-factorials, a dot product). The final sums are
log-sum-exps of
nonnegative terms with the same bound, ``e^{ε − L}`` is only ever formed as ``log1mexp(ε − L)`` (never ``e^ε``).
The elementary functions (exp, log, expm1, log1p of numpy and the C library) are taken to be within
:data:`ULPS` ulps. In float mode the bracket is certified for the masses the float count gives.

**ε(δ).** ``δ_lo(ε) ≤ δ(ε) ≤ δ_hi(ε)`` are nonincreasing in ε: any ε with ``δ_hi(ε) ≤ δ`` bounds ε(δ) from
above, any ε with ``δ_lo(ε) > δ`` from below (then ε(δ) > ε). Both are found by bisection in ε.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import check, limited
from ..base.numbers import format_number, ln, ln_ratio
from ..compile import Compiled
from ..count import wmc
from ..count.probabilities import as_compiled
from ..lang.program import Program, Value
from ..lang.relations import neighbour_relation
from ..plan.pairs import PairWitness, RowPairs, log1mexp, pair_source
from .approximate import Threshold, deltas, parse_delta
from .loss import MAX_GROUPS, MAX_PRODUCTS, Groups, TooManyLosses, _binary_weights, compose_count, hockey_curves, power

#: the unit roundoff of binary64
U = 2.0**-53
#: the largest error, in ulps, taken for exp, log, expm1 and log1p
ULPS = 4
#: relative error of one elementary function
FN = 2 * ULPS * U
#: most multinomial outcomes one repeated step may enumerate before it is squared instead
MAX_OUTCOMES = 1 << 27
#: most work units (a product of two clusters, or an outcome's cluster; a log-factorial counts
#: :data:`FACTORIAL_WORK`) a certified bracket may take: about a minute; past it the request is refused at once
MAX_WORK = 1 << 26
#: the work of one correctly rounded log-factorial (MPFR's lngamma), in products of two clusters
FACTORIAL_WORK = 16
#: most distinct pairs compared two by two for covering, as exact rationals (beyond: one pair covering all, else
#: every distinct pair is composed)
MAX_COMPARED = 64


# -- clusters -------------------------------------------------------------------------------


@dataclass
class Clusters:
    """Losses in ``[lo[i], hi[i]]`` (``+inf`` for the infinite loss) of ``P``-mass ``e^{lm[i]}`` each, every
    ``lm`` within ``err`` of the log of the true mass; see the module docstring."""

    lo: np.ndarray
    hi: np.ndarray
    lm: np.ndarray
    err: float

    def __len__(self) -> int:
        return len(self.lm)

    @classmethod
    def of_exact(cls, groups: Groups) -> Clusters:
        """Clusters of exact groups: correctly rounded logs, widened by one ulp each way."""
        d = groups.arith.denominator
        loss = np.array(
            [math.inf if r is None else ln_ratio(int(r.numerator), int(r.denominator)) for r in groups.ratios]
        )
        lm = np.array([ln_ratio(int(a), d) for a in groups.a])
        return cls(_down(loss), _up(loss), lm, U * _magnitude(lm))

    @classmethod
    def of_logs(cls, la: np.ndarray, lb: np.ndarray) -> Clusters:
        """Clusters of one pair's float masses (natural logs), one per output ``x`` produces."""
        live = la > -np.inf
        la, lb = la[live], lb[live]
        with np.errstate(invalid="ignore"):
            loss = np.where(lb == -np.inf, np.inf, la - lb)
        return merge(cls(_down(loss), _up(loss), la.astype(np.float64), 0.0), MAX_GROUPS)

    def times(self, other: Clusters) -> Clusters:
        """The clusters of the sum of the two independent losses (every pair of clusters)."""
        check("composing privacy losses")
        lm = np.add.outer(self.lm, other.lm).ravel()
        with np.errstate(invalid="ignore"):
            lo = _down(np.add.outer(self.lo, other.lo).ravel())
            hi = _up(np.add.outer(self.hi, other.hi).ravel())
        return Clusters(lo, hi, lm, self.err + other.err + 1.01 * U * _magnitude(lm))


def _down(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.nextafter(x, -np.inf)
    out[np.isinf(x)] = x[np.isinf(x)]
    return out


def _up(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.nextafter(x, np.inf)
    out[np.isinf(x)] = x[np.isinf(x)]
    return out


def _magnitude(x: np.ndarray) -> float:
    finite = x[np.isfinite(x)]
    return float(np.max(np.abs(finite), initial=0.0))


def _lse_error(terms: int, magnitude: float) -> float:
    """A bound on the absolute error of a log-sum-exp ``m + ln Σ e^{x_i − m}`` of ``terms`` terms whose result is at
    most ``magnitude`` in absolute value: each ``x_i − m`` (>= -745, below which the term underflows: an absolute
    error under 1e-300 each, the sum being at least 1) rounds by ``745 u``, each exp by :data:`FN`, the sum of
    nonnegative terms by ``γ_t``, the log by :data:`FN` of ``ln t``, the final addition by ``u |result|``."""
    gamma = terms * U / (1 - terms * U)
    return 1.01 * (745 * U + FN + gamma + FN * math.log(terms + 1) + U * magnitude) + terms * 1e-300


def merge(c: Clusters, limit: int) -> Clusters:
    """Merge clusters whose ``lo`` share a grid cell (the infinite loss apart), the cell ``2^-40`` wide, doubled
    until at most ``limit`` clusters remain."""
    order = np.lexsort((c.hi, c.lo))
    lo, hi, lm = c.lo[order], c.hi[order], c.lm[order]
    finite = np.isfinite(lo)
    width = 2.0**-40
    while True:
        check("merging privacy losses")
        with np.errstate(invalid="ignore"):
            cell = np.where(finite, np.floor(lo / width), np.inf)
        starts = np.flatnonzero(np.concatenate([[True], cell[1:] != cell[:-1]])) if len(lo) else np.zeros(0, int)
        if len(starts) <= limit:
            break
        width *= 2
    if len(starts) == len(lo):
        return Clusters(lo, hi, lm, c.err)
    sizes = np.diff(np.append(starts, len(lo)))
    top = np.maximum.reduceat(lm, starts)
    with np.errstate(under="ignore"):
        total = np.add.reduceat(np.exp(lm - np.repeat(top, sizes)), starts)
    merged = top + np.log(total)
    err = c.err + _lse_error(int(sizes.max()), _magnitude(merged))
    return Clusters(np.minimum.reduceat(lo, starts), np.maximum.reduceat(hi, starts), merged, err)


def product(a: Clusters, b: Clusters, limit: int) -> Clusters:
    """:meth:`Clusters.times`, merged; when the pairs of clusters would pass :data:`MAX_PRODUCTS`, formed in blocks
    of ``a`` and gathered on a fixed grid of at most ``limit`` cells (:func:`_gridded`)."""
    if len(a) * len(b) <= MAX_PRODUCTS:
        return merge(a.times(b), limit)
    rows = max(1, MAX_PRODUCTS // len(b))
    blocks = (_part(a, slice(start, start + rows)).times(b) for start in range(0, len(a), rows))
    return _gridded(blocks, _least(a.lo) + _least(b.lo), _magnitude(a.hi) + _magnitude(b.hi), limit)


def _part(c: Clusters, rows: slice) -> Clusters:
    return Clusters(c.lo[rows], c.hi[rows], c.lm[rows], c.err)


def _least(x: np.ndarray) -> float:
    return float(x[np.isfinite(x)].min(initial=0.0))


def _log_factorials(c: int) -> tuple[np.ndarray, float]:
    """``ln n! = lnΓ(n + 1)`` for ``n = 0..c``, each correctly rounded (MPFR's ``lngamma`` at 53 bits, round to
    nearest), and a bound on their absolute errors (half an ulp of the largest)."""
    with gmpy2.context(precision=53, round=gmpy2.RoundToNearest):
        table = np.array([float(gmpy2.lngamma(gmpy2.mpfr(n + 1))) for n in range(c + 1)])
    return table, U * float(table[-1])


def _outcomes(c: int, g: int) -> int:
    return math.comb(c + g - 1, g - 1)


def _compositions(c: int, g: int) -> np.ndarray:
    """Every ``n`` in ``N^g`` with ``Σ n = c``, one per row (stars and bars: ``g − 1`` bars among ``c + g − 1``)."""
    if g <= 2:
        first = np.arange(c + 1, dtype=np.int64)
        return np.column_stack([first, c - first]) if g == 2 else np.array([[c]], dtype=np.int64)
    bars = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(c + g - 1), g - 1)), dtype=np.int64
    ).reshape(-1, g - 1)
    edges = np.column_stack([np.full(len(bars), -1), bars, np.full(len(bars), c + g - 1)])
    out: np.ndarray = np.diff(edges, axis=1) - 1
    return out


def multinomial(c: Clusters, count: int, limit: int) -> Clusters:
    """``count`` independent copies of ``c`` through their multinomial outcomes (module docstring): all at once
    and merged when they number at most ``4 limit``, else in chunks (by the first count) gathered on a fixed grid
    of at most ``limit`` cells (:func:`_gridded`)."""
    g = len(c)
    table, fact_err = _log_factorials(count)
    terms = 2 * g + 2  # roundings on the way to each log-mass and each loss
    gamma = 1.01 * terms * U / (1 - terms * U)
    err = (g + 1) * fact_err + count * c.err + gamma * (float(table[count]) + count * _magnitude(c.lm))
    spread = gamma * count * max(_magnitude(c.lo), _magnitude(c.hi))

    def outcomes(n: np.ndarray) -> Clusters:
        lm = table[count] - table[n] @ np.ones(g) + n.astype(np.float64) @ c.lm
        with np.errstate(invalid="ignore"):
            lo, hi = _weighted(n, c.lo) - spread, _weighted(n, c.hi) + spread
        return Clusters(_down(lo), _up(hi), lm, err)

    if _outcomes(count, g) <= 4 * limit:
        return merge(outcomes(_compositions(count, g)), limit)
    chunks = (outcomes(_first(j, count, g)) for j in range(count + 1))
    return _gridded(chunks, count * _least(c.lo), count * _magnitude(c.hi), limit)


def _first(j: int, count: int, g: int) -> np.ndarray:
    """The outcomes with ``j`` copies in the first cluster."""
    rest = _compositions(count - j, g - 1)
    return np.column_stack([np.full(len(rest), j, dtype=np.int64), rest])


def _gridded(chunks: Any, low: float, high: float, limit: int) -> Clusters:
    """Clusters gathered into the cells of a grid over ``[low, high]`` (by their ``lo``; the infinite loss in a
    cell of its own; ``lo`` outside the range in the end cells): at most ``limit`` cells, each keeping the smallest
    ``lo``, largest ``hi`` and the log-sum-exp of the masses, added one by one (``logaddexp``: the difference
    rounds by ``745 u``, exp, log1p by :data:`FN`, the sum by ``u |result|``, per addition)."""
    cells = max(limit - 1, 1)
    width = max((high - low) / cells, 2.0**-40)
    LO, HI = np.full(cells + 1, np.inf), np.full(cells + 1, -np.inf)
    LM, T = np.full(cells + 1, -np.inf), np.zeros(cells + 1, dtype=np.int64)
    err = 0.0
    for chunk in chunks:
        check("composing privacy losses")
        with np.errstate(invalid="ignore"):
            at = np.floor((chunk.lo - low) / width)
        idx = np.where(np.isfinite(chunk.lo), np.clip(np.nan_to_num(at), 0, cells - 1), cells).astype(np.int64)
        np.minimum.at(LO, idx, chunk.lo)
        np.maximum.at(HI, idx, chunk.hi)
        np.logaddexp.at(LM, idx, chunk.lm)
        np.add.at(T, idx, 1)
        err = max(err, chunk.err)
    live = T > 0
    step = 1.01 * (745 * U + 3 * FN + U * _magnitude(LM[live]))
    return Clusters(LO[live], HI[live], LM[live], err + int(T.max() - 1) * step)


def _weighted(n: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """``Σ_i n_i L_i`` per row, ``+inf`` where some ``n_i > 0`` has ``L_i = +inf``."""
    infinite = np.isinf(losses)
    out: np.ndarray = n.astype(np.float64) @ np.where(infinite, 0.0, losses)
    if infinite.any():
        out[(n[:, infinite] > 0).any(axis=1)] = np.inf
    return out


def power_work(g: int, count: int, limit: int) -> int:
    """The work of :func:`clusters_power` on ``g`` clusters (:data:`MAX_WORK`'s units), from sizes alone: the
    multinomial outcomes with their log-factorials, or the products of the repeated squaring, a ``j``-fold power
    taken to hold ``min(limit, j (g − 1) + 1)`` clusters (distinct sums of ``j`` losses, until the merges bind)."""
    if count == 1:
        return 0
    outcomes = _outcomes(count, g)
    if outcomes <= MAX_OUTCOMES:
        return FACTORIAL_WORK * count + outcomes * g

    def size(j: int) -> int:
        return min(limit, j * (g - 1) + 1)

    work, folds, base = 0, 0, 1  # the runs in the result so far and in the current square
    while count:
        if count & 1:
            work += size(folds) * size(base) if folds else 0
            folds += base
        count >>= 1
        if count:
            work += size(base) ** 2
            base *= 2
    return work


def _check_work(keys: list[Any], order: list[tuple[_Step, int]], limit: int) -> None:
    """Refuse a bracket whose work (:func:`power_work` per step and pair, and the products joining the steps)
    passes :data:`MAX_WORK`, before any of it is done."""
    for key in keys:
        work, size = 0, 1
        for step, count in order:
            g = max(len(step.exact[key].a), 1)  # the distinct losses (as the exact recount groups them)
            work += power_work(g, count, limit)
            part = min(limit, count * (g - 1) + 1)
            work += size * part if size > 1 else 0
            size = min(limit, size * part)
        if work > MAX_WORK:
            runs = sum(count for _, count in order)
            raise WmcdpError(
                f"composing {format_number(runs)} runs as a certified bracket takes about {work:.3g} products of "
                f"loss clusters, over the limit of {MAX_WORK}; compose fewer runs"
            )


def clusters_power(c: Clusters, count: int, limit: int) -> Clusters:
    """``count`` independent copies: multinomial outcomes when they number at most :data:`MAX_OUTCOMES`, else
    repeated squaring with merges."""
    if count == 1:
        return c
    if _outcomes(count, len(c)) <= MAX_OUTCOMES:
        return multinomial(c, count, limit)
    result: Clusters | None = None
    base = c
    while count:
        if count & 1:
            result = base if result is None else product(result, base, limit)
        count >>= 1
        if count:
            base = product(base, base, limit)
    assert result is not None
    return result


# -- bounds on δ(ε) and ε(δ) from clusters ---------------------------------------------------


def _side(c: Clusters, eps: float, upper: bool) -> float:
    """``Σ m f(hi)`` at ``eps`` rounded up (``upper``) or ``Σ m f(lo)`` rounded down: the ends of the bracket."""
    loss = c.hi if upper else c.lo
    if eps == math.inf:
        values = c.lm[np.isinf(loss)]
        logf = np.zeros_like(values)
    else:
        with np.errstate(invalid="ignore"):
            z = eps - loss  # the true z is within u|z| of this one: move it to make f larger (upper) or smaller
        z = np.where(np.isinf(loss), -np.inf, z + (-1.01 if upper else 1.01) * U * np.abs(np.where(np.isinf(z), 0, z)))
        z = np.nextafter(z, -np.inf if upper else np.inf)
        live = z < 0
        logf = log1mexp(z[live])  # z = -inf (an infinite loss) gives ln 1 = 0
        values = c.lm[live] + logf
    if not len(values):
        return 0.0
    top = float(values.max())
    with np.errstate(under="ignore"):
        log_sum = top + math.log(float(np.exp(values - top).sum()))
    err = c.err + 2 * FN * (1 + _magnitude(logf)) + U * _magnitude(values) + _lse_error(len(values), abs(log_sum))
    if upper:  # δ <= 1 always
        return min(1.0, float(np.nextafter(math.exp(min(log_sum + err, 0.0)) * (1 + 2 * FN), np.inf)))
    return max(0.0, float(np.nextafter(math.exp(log_sum - err) * (1 - 2 * FN), -np.inf)))


def delta_bracket(c: Clusters, threshold: Threshold) -> tuple[float, float]:
    """``(lower, upper)`` of δ(ε) from the clusters (``e^ε`` rational: ε is the correctly rounded log, one ulp
    either side)."""
    eps = threshold.epsilon
    inexact = threshold.ratio is not None and threshold.ratio != 1
    lo_eps, hi_eps = (math.nextafter(eps, -math.inf), math.nextafter(eps, math.inf)) if inexact else (eps, eps)
    return _side(c, hi_eps, False), _side(c, max(lo_eps, 0.0), True)


def epsilon_bracket(c: Clusters, delta: float | Fraction) -> tuple[float, float]:
    """``(lower, upper)`` of ε(δ) by bisection on the two monotone ends (module docstring)."""
    d = float(delta)
    d_lo = d if Fraction(d) <= delta else math.nextafter(d, -math.inf)
    d_hi = d if Fraction(d) >= delta else math.nextafter(d, math.inf)
    if d_lo >= 1:
        return 0.0, 0.0
    top = _magnitude(c.hi) + 1.0  # past every finite loss: δ_hi(top) and δ_lo(top) are the masses at +∞
    _, upper = _bisect(lambda e: _side(c, e, True) <= d_lo, top)
    lower, _ = _bisect(lambda e: not _side(c, e, False) > d_hi, top)
    return lower, upper


def _bisect(done: Any, top: float) -> tuple[float, float]:
    """``(a, b)`` with ``done(b)`` and, unless ``a = 0``, not ``done(a)``, ``b − a`` a few ulps of ``b``: bisection of
    a monotone ``done`` on ``[0, top]``; ``(0, 0)`` when ``done(0)``, ``(inf, inf)`` when not ``done(top)``."""
    if done(0.0):
        return 0.0, 0.0
    if not done(top):
        return math.inf, math.inf
    a, b = 0.0, top
    while True:
        check("bisecting epsilon for delta")
        mid = (a + b) / 2
        if not a < mid < b or b - a <= 4 * U * b:
            return a, b
        if done(mid):
            b = mid
        else:
            a = mid


# -- steps and pairs ------------------------------------------------------------------------


def _steps(steps: Any) -> list[tuple[Program | Compiled, int]]:
    """``steps`` as ``(program, count)`` items, checked."""

    if isinstance(steps, (Program, Compiled)) or not isinstance(steps, Sequence) or not steps:
        raise WmcdpError("steps must be a non-empty list of programs or (program, count) pairs")
    out = []
    for item in steps:
        prog, count = item if isinstance(item, tuple) and len(item) == 2 else (item, 1)
        if not isinstance(prog, (Program, Compiled)):
            raise WmcdpError(f"a step must be a wmcdp Program or (Program, count), got {type(prog).__name__}")
        out.append((prog, compose_count(count)))
    return out


def _label(prog: Program | Compiled) -> str:
    program = prog.program if isinstance(prog, Compiled) else prog
    return program.label()


@dataclass
class _Step:
    """One distinct program of the sequence: its pairs' masses keyed by the pair, and their exact groups."""

    arith: Any
    rows: dict[tuple[Value, Value], tuple[np.ndarray, np.ndarray]]
    exact: dict[tuple[Value, Value], Groups]


def _compiled(programs: list[Program | Compiled], pairs: Any, backend: str, exact: Any) -> list[Compiled]:
    """The distinct programs compiled, checked: one input domain, numeric parameters, pairs of every kind but
    symmetry sets."""
    if isinstance(pairs, str) and pairs != "exhaustive":
        raise WmcdpError(
            "a sequence takes every pair of neighbours (pairs=None) or an explicit pair set: "
            "one step's symmetries need not be the others'"
        )
    compiled = [as_compiled(p, backend, exact) for p in programs]
    if any(c.symbolic is not None for c in compiled):
        raise WmcdpError("a sequence takes numeric parameters only (no symbolic Parameter)")
    for c in compiled[1:]:
        if c.domain != compiled[0].domain:
            raise WmcdpError(
                f"the steps must share one input domain: {compiled[0].program.name} reads {compiled[0].domain}, "
                f"{c.program.name} reads {c.domain}"
            )
    return compiled


def _pairs_of(
    programs: list[Program | Compiled], pairs: Any, neighbours: Any, backend: str, exact: Any
) -> tuple[list[PairWitness], list[_Step]]:
    """Every program's pairs (in the first program's order) over one domain and one relation."""
    compiled = _compiled(programs, pairs, backend, exact)
    pairs = None if pairs == "exhaustive" else pairs
    relation = neighbour_relation(neighbours or compiled[0].program.neighbours)
    witnesses: list[PairWitness] = []
    out: list[_Step] = []
    for c in compiled:
        source = pair_source(c, pairs, neighbours=relation, backend=backend, exact=exact)
        rows = _rows(source)
        witnesses = witnesses or [PairWitness(*key) for key in rows]
        recount = (
            source if source.arith.exact else pair_source(_binary_weights(c), pairs, neighbours=relation, exact=True)
        )
        groups = {key: Groups.of(recount.arith, a, b) for key, (a, b) in _rows(recount).items()}
        out.append(_Step(source.arith, rows, groups))
    return witnesses, out


def _rows(source: Any) -> dict[tuple[Value, Value], tuple[np.ndarray, np.ndarray]]:
    """Each pair of ``source`` (in its order) with its two rows of masses."""
    listed = sorted((int(key), a, b) for keys, A, B in source.all_rows() for key, a, b in zip(keys, A, B))
    rows = {}
    for key, a, b in listed:
        w = source.witness(key)
        rows[(w.x, w.x_prime)] = (a, b)
    return rows


def covering(witnesses: list[PairWitness], steps: list[_Step]) -> list[int]:
    """The pairs (indices into ``witnesses``) left once pairs covered by another are dropped (module docstring):
    equal pairs are kept once; among at most :data:`MAX_COMPARED` distinct pairs every covered one goes; past
    that, one pair covering all is kept alone when there is one."""
    keys = [(w.x, w.x_prime) for w in witnesses]
    signature: dict[Any, int] = {}
    for i, key in enumerate(keys):
        sig = tuple(frozenset(zip(s.exact[key].ratios, s.exact[key].a, s.exact[key].b)) for s in steps)
        signature.setdefault(sig, i)
    distinct = sorted(signature.values())
    if len(distinct) == 1:
        return distinct
    curves = [hockey_curves([s.exact[keys[i]] for i in distinct], True) for s in steps]
    common = np.ones(len(distinct), dtype=bool)
    for c in curves:
        common &= (c >= c.max(axis=0)).all(axis=1)
    if common.any():
        return [distinct[int(np.flatnonzero(common)[0])]]
    if len(distinct) > MAX_COMPARED:
        return distinct
    cover = np.ones((len(distinct), len(distinct)), dtype=bool)
    for c in curves:
        cover &= (c[:, None, :] >= c[None, :, :]).all(axis=2)
    order = np.arange(len(distinct))
    dropped = (cover & ~np.eye(len(distinct), dtype=bool) & (~cover.T | (order[:, None] < order[None, :]))).any(axis=0)
    return [distinct[i] for i in np.flatnonzero(~dropped)]


# -- the result -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ComposedResult:
    """δ(ε) (``given == "epsilon"``) or ε(δ) (``given == "delta"``) of a sequence of steps, as a bracket.

    ``lower <= value <= upper``; ``exact`` runs have ``lower == upper`` (a Fraction when rational; ``ratio`` is
    ``e^ε`` exactly for ε(δ)). ``width = upper − lower`` and ``relative_width = width / upper`` (0 when both ends
    are 0 or both infinite). ``pair``: the first pair attaining ``lower`` (the largest lower end over the pairs).
    ``steps``: ``(program label, count)`` per step; ``K`` the number of runs; ``groups`` the most distinct losses
    (exact) or clusters (bracket) one pair's composed loss held; ``pairs`` how many pairs were composed after the
    covered ones were dropped.
    """

    given: str
    epsilon: float | None
    delta: float | Fraction | None
    lower: float | Fraction
    upper: float | Fraction
    exact: bool
    pair: PairWitness
    steps: tuple[tuple[str, int], ...]
    K: int
    groups: int
    pairs: int
    seconds: float
    ratio: float | Fraction | None = None

    @property
    def width(self) -> float | Fraction:
        if self.lower == self.upper:
            return 0 if isinstance(self.lower, Fraction) else 0.0
        return self.upper - self.lower

    @property
    def relative_width(self) -> float:
        if self.lower == self.upper:
            return 0.0
        return math.inf if self.upper == math.inf else float(self.width) / float(self.upper)

    def _repr_markdown_(self) -> str:
        shown = "δ(ε)" if self.given == "epsilon" else "ε(δ)"
        rows = [
            (shown, format_bracket(self)),
            ("pair", f"x = {self.pair.x}, x′ = {self.pair.x_prime}"),
            ("steps", ", ".join(f"{label} ×{count}" for label, count in self.steps)),
            ("K, groups, pairs", f"{self.K}, {self.groups}, {self.pairs}"),
        ]
        return "\n".join(["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


# -- the public function --------------------------------------------------------------------


@limited
def compose_approximate(
    steps: Sequence[Any],
    *,
    epsilon: Any = None,
    delta: Any = None,
    pairs: Any = None,
    neighbours: Any = None,
    exact: Any = None,
    max_groups: int = MAX_GROUPS,
    backend: str = "bdd",
) -> ComposedResult:
    """δ(ε) (given ``epsilon``) or ε(δ) (given ``delta``) of the composition of ``steps`` on one pair of
    neighbours, maximised over the pairs: exact while each composed loss has at most ``max_groups`` distinct
    values and the masses are exact, else a certified bracket with at most ``max_groups`` clusters (module
    docstring).

    ``steps``: programs (or compiled ones) or ``(program, count)`` pairs, all on one input domain.
    ``pairs``: None (every ordered pair of neighbours), ``"auto"`` or an explicit pair set;
    ``neighbours``: the relation (default: the first program's own). ``epsilon``: a number >= 0 or ``"ln:R"``;
    ``delta`` in [0, 1]. ``exact`` as for :func:`wmcdp.synthesize_approximate`.
    """
    start = time.perf_counter()
    threshold, wanted = _request(epsilon, delta, max_groups)
    items = _steps(steps)
    programs = list({id(prog): prog for prog, _ in items}.values())
    witnesses, data = _pairs_of(programs, pairs, neighbours, backend, exact)
    of = {id(prog): step for prog, step in zip(programs, data)}
    order = [(of[id(prog)], count) for prog, count in items]
    chosen = covering(witnesses, data)
    keys = [(witnesses[i].x, witnesses[i].x_prime) for i in chosen]
    names = [witnesses[i] for i in chosen]
    found = _exact(keys, order, names, threshold, wanted, max_groups) if all(s.arith.exact for s in data) else None
    if found is None:
        _check_work(keys, order, max_groups)
        found = _bracket(keys, order, names, threshold, wanted, max_groups)
    return ComposedResult(
        given="epsilon" if threshold is not None else "delta",
        epsilon=None if threshold is None else threshold.epsilon,
        delta=wanted,
        steps=tuple((_label(p), c) for p, c in items),
        K=sum(c for _, c in items),
        pairs=len(chosen),
        seconds=time.perf_counter() - start,
        **found,
    )


def _request(epsilon: Any, delta: Any, max_groups: Any) -> tuple[Threshold | None, Fraction | None]:
    """The threshold (given ε) or δ (exactly, given δ), checked with ``max_groups``."""
    if (epsilon is None) == (delta is None):
        raise WmcdpError("give exactly one of epsilon (for delta(epsilon)) and delta (for epsilon(delta))")
    if not isinstance(max_groups, int) or isinstance(max_groups, bool) or max_groups < 2:
        raise WmcdpError(f"max_groups must be a whole number >= 2, got {max_groups!r}")
    if epsilon is not None:
        return Threshold.of(epsilon), None
    return None, Fraction(parse_delta(delta, True))


def _exact(
    keys: list[Any],
    order: list[tuple[_Step, int]],
    witnesses: list[PairWitness],
    threshold: Threshold | None,
    wanted: Fraction | None,
    limit: int,
) -> dict[str, Any] | None:
    """Each pair's composed groups, exactly, then δ(ε) or ε(δ) over them; None when a support passes ``limit``."""

    composed = []
    try:
        for key in keys:
            total: Groups | None = None
            for step, count in order:
                part = power(step.exact[key], count, limit)
                total = part if total is None else total.compose(part, limit)
            assert total is not None
            composed.append(total)
    except TooManyLosses:
        return None
    source = _row_pairs(composed, witnesses)
    groups = max(len(g.a) for g in composed)
    if threshold is not None:
        (point,) = deltas(source, [threshold])
        return dict(lower=point.value, upper=point.value, exact=True, pair=source.witness(point.key), groups=groups)
    assert wanted is not None
    ratios = [exact_ratio(g, wanted) for g in composed]
    best = max(range(len(ratios)), key=lambda i: (ratios[i], -i))
    ratio = ratios[best]
    eps = math.inf if ratio == math.inf else ln(Fraction(ratio))
    return dict(lower=eps, upper=eps, exact=True, pair=witnesses[best], groups=groups, ratio=ratio)


def exact_ratio(groups: Groups, delta: Fraction) -> Fraction | float:
    """``e^{ε(δ)}`` of one pair's exact groups: the smallest ``t >= 1`` with ``δ(t) = Σ max(0, a − t b)/D <= δ``
    (``inf`` when the mass that ``x'`` never produces is above δ).

    One walk down the ratios: on ``[r_{k+1}, r_k]`` (ratios in decreasing order) ``δ(t) = (A_k − t B_k)/D`` with
    ``A_k``, ``B_k`` the masses of the groups ``0..k`` (and of the infinite ratio), so the first ``k`` with
    ``r_k > 1`` and ``δ(max(r_{k+1}, 1)) > δ`` holds the answer ``t = (A_k − δ D)/B_k`` (1 when there is none).
    A few big-integer operations per group: the tangent iteration of
    :func:`wmcdp.notions.approximate.epsilon_for_delta` takes one pass per piece it crosses, too many for the
    supports of long compositions."""
    D: int = groups.arith.denominator
    target = delta * D
    finite = sorted((r for r in groups.ratios if r is not None), reverse=True)
    index = {r: i for i, r in enumerate(groups.ratios)}
    A = Fraction(sum(a for r, a in zip(groups.ratios, groups.a) if r is None))  # δ(t) D for t past every ratio
    if target < A:
        return math.inf
    B = 0
    for k, r in enumerate(finite):
        if r <= 1:  # δ(1) <= δ was checked at the previous edge
            break
        check("epsilon for delta")
        A, B = A + int(groups.a[index[r]]), B + int(groups.b[index[r]])
        edge = max(Fraction(finite[k + 1]) if k + 1 < len(finite) else Fraction(1), Fraction(1))
        if A - edge * B > target:
            return (A - target) / B
    return Fraction(1)


def _row_pairs(composed: list[Groups], witnesses: list[PairWitness]) -> RowPairs:
    """The composed groups as a pair source, pair ``i`` named by ``witnesses[i]`` (one common denominator)."""
    D = max(g.arith.denominator for g in composed)
    width = max(len(g.a) for g in composed)
    table = np.zeros((2 * len(composed), width), dtype=object)
    for i, g in enumerate(composed):
        scale = D // g.arith.denominator
        table[2 * i, : len(g.a)] = [a * scale for a in g.a]
        table[2 * i + 1, : len(g.b)] = [b * scale for b in g.b]
    src = np.arange(0, 2 * len(composed), 2, dtype=np.int64)
    keys = np.arange(len(composed), dtype=np.int64)
    return RowPairs(wmc.Scaled(D), table, src, src + 1, keys, lambda k: witnesses[int(k)], None)


def _bracket(
    keys: list[Any],
    order: list[tuple[_Step, int]],
    witnesses: list[PairWitness],
    threshold: Threshold | None,
    wanted: Fraction | None,
    limit: int,
) -> dict[str, Any]:
    """Each pair's composed clusters, then the bracket of δ(ε) or ε(δ); the maximum over the pairs of each end."""
    lowers, uppers, sizes = [], [], []
    for key in keys:
        total: Clusters | None = None
        for step, count in order:
            part = clusters_power(_clusters(step, key), count, limit)
            total = part if total is None else product(total, part, limit)
        assert total is not None
        sizes.append(len(total))
        if threshold is not None:
            low, high = delta_bracket(total, threshold)
        else:
            assert wanted is not None
            low, high = epsilon_bracket(total, wanted)
        lowers.append(low)
        uppers.append(high)
    best = int(np.argmax(lowers))
    return dict(lower=lowers[best], upper=max(uppers), exact=False, pair=witnesses[best], groups=max(sizes))


def _clusters(step: _Step, key: Any) -> Clusters:
    if step.arith.exact:
        return Clusters.of_exact(step.exact[key])
    a, b = step.rows[key]
    return Clusters.of_logs(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


def format_bracket(r: ComposedResult) -> str:
    """The bracket in one line: the exact value, or ``[lower, upper]`` with its relative width."""
    if r.exact:
        return format_number(r.lower)
    return f"[{format_number(r.lower)}, {format_number(r.upper)}]  (relative width {r.relative_width:.3g})"


__all__ = ["compose_approximate", "ComposedResult", "Clusters", "covering", "format_bracket", "MAX_OUTCOMES"]
