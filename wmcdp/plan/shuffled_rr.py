"""Shuffled binary randomized response at scale: δ(ε) and ε(δ) over every dataset, in log space.

``rr_counting(n, λ)`` releases the count ``Y`` of ones among ``n`` RR reports (a one reports 1 with
probability ``1 − λ``, a zero with ``λ``). Neighbouring datasets differ in one user's bit. Write ``p = λ``,
``q = 1 − λ``, ``t = e^ε``. The reductions below are proved here and tested against the enumeration of
every pair of neighbouring datasets at small ``n`` (``tests/test_shuffled_rr.py``).

**0. k-ary RR with k = 2.** ``kary_rr_histogram(n, 2, λ)`` releases the count ``C`` of reports 0; a user
reports their own value with probability ``1 − λ``, so a report is 1 with probability ``1 − λ`` for a one and
``λ`` for a zero, and ``n − C`` is exactly ``rr_counting(n, λ)``'s count ``Y`` on the *same* dataset:
``P_2ary(c | x) = P_counting(n − c | x)``. A bijection of the outputs leaves every sum over outputs unchanged, so
δ(ε), ε(δ) and every witness pair are those of ``rr_counting`` (:attr:`ShuffledCounting.two_ary` only renames).

**1. Complement.** Complementing every bit maps neighbours to neighbours and the mechanism at ``λ`` to the
one at ``1 − λ`` (``P_λ(y | x̄) = P_{1−λ}(y | x)``), so δ(ε) is the same for both; take ``p < 1/2``
(``p = 1/2``: every dataset has the same output distribution, δ = 0; ``p = 0``: δ(ε) = 1 for every finite ε).

**2. The others' count.** A pair differs in one user; the other ``n − 1`` users' count is
``Z_j = Bin(j, q) ⊕ Bin(n − 1 − j, p)`` (``j`` of them hold 1), independent of that user. With the user at 0
in ``x`` and 1 in ``x'``: ``P(y) = q Z(y) + p Z(y−1)``, ``P'(y) = p Z(y) + q Z(y−1)``, so

    P(y) − t P'(y) = a Z(y) − c Z(y−1),   a = q − t p,  c = t q − p,   c − a = t − 1 ≥ 0.

The reversed pair at ``j`` is the forward pair at ``n − 1 − j`` after ``y ↦ n − y`` (``n − 1 − Z_j`` has the
law of ``Z_{n−1−j}``), so ``δ(ε) = max_{j = 0..n−1} δ_j`` with ``δ_j = Σ_y (a Z_j(y) − c Z_j(y−1))^+``, and
``δ = 0`` once ``a ≤ 0`` (``ε ≥ ε0 = ln(q/p)``).

**3. One threshold per pair.** ``Z_j`` is a convolution of Bernoulli pmfs, hence log-concave (log-concavity
is preserved by convolution), so ``ρ(y) = Z(y)/Z(y−1)`` does not increase and the positive terms are those
``y ≤ y*`` (``ρ(y) > r = c/a``). Their sum telescopes: ``δ_j = a Z(y*) − (t − 1) F(y* − 1)`` (``F`` the
distribution function), ``= A − t B`` with ``A = q Z(y*) + F(y*−1)``, ``B = p Z(y*) + F(y*−1)``; and
``g(y) = a Z(y) − (t−1) F(y−1)`` rises up to ``y*`` and falls after it (``g(y+1) − g(y) = a(Z(y+1) − r Z(y))``).

**4. Blocks of configurations.** For ``j1 ≤ j ≤ j2``, ``Z_j = W ⊕ X`` with ``W = Bin(j1, q) ⊕ Bin(n−1−j2, p)``
and ``X`` independent of ``W`` and of the differing user. ``δ_j = a · D_r(Z_j ‖ Z_j + 1)`` (hockey-stick
divergence of order ``r``), and adding ``X`` to both sides is one Markov kernel, which never increases a
hockey-stick divergence: ``δ_j ≤ a · D_r(W ‖ W + 1) = δ(W)``, computed like a single pair by 3. A best-first
search over blocks (halved until single configurations) ends when the largest remaining block bound is
below the best single configuration: the answer is then the maximum over *all* ``n`` configurations.

**Orientations.** Reductions 3 and 4 use only that the differing user reports 1 with probability ``lo`` in ``x``
and ``hi > lo`` in ``x'`` and each other user with ``hi`` or ``lo``: with ``P(y) = (1 − lo) Z(y) + lo Z(y−1)``,
``a = (1 − lo) − t (1 − hi)``, ``c = t hi − lo`` (still ``c − a = t − 1``) they hold word for word for any such
:class:`Binary` ``(lo, hi)``; RR is ``Binary(p, q)``, and :mod:`wmcdp.plan.shuffled_binary` uses two of them.

**Float error.** Each binomial's log pmf is anchored at its mode by arb ball arithmetic (python-flint) and
continued by cumulative sums of ``ln((N−k)/(k+1)) + ln(p/q)``; the error of every log is bounded a posteriori
(each rounding ``≤ u·|result|``, libm's ``log``/``exp`` within :data:`LIBM_ULPS` ulp — the one assumption).
Log-sum-exps carry their own bound, the mass outside the windows (log pmf below the mode minus ``drop``) is
bounded by ``(N + 1) e^{mode − drop}``, and every δ comes with an enclosure ``[lo, hi]`` (logs). ``e^ε`` is
never formed: ``ln a``, ``ln(t − 1)`` and ``ln r`` are log1mexp's of ``ε`` and ``ln(p/q)``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import check
from ..base.numbers import ln

#: unit roundoff of a double
U = 2.0**-53
#: assumed accuracy of numpy's log, exp, log1p and expm1, in ulps (the error bounds rest on it)
LIBM_ULPS = 4


def _log1mexp(x: float) -> float:
    """``ln(1 − e^x)`` for ``x < 0``."""
    return math.log(-math.expm1(x)) if x > -math.log(2) else math.log1p(-math.exp(x))


def _log1mexp_error(x: float, err_x: float) -> float:
    """A bound on the error of ``_log1mexp(x̃)`` when ``|x̃ − x| ≤ err_x``: the condition ``e^x / (1 − e^x)``
    times ``err_x``, plus the libm rounding."""
    slope = math.exp(x) / -math.expm1(x) if x < 0 else math.inf
    return slope * err_x * 1.01 + (LIBM_ULPS + 2) * U * (1 + abs(_log1mexp(x)))


@dataclass(frozen=True)
class LogPmf:
    """``ln Bin(N, p)(k)`` for ``k = lo .. lo + len(logs) − 1`` with a bound ``err`` on each log's error and
    ``ln`` of a bound on the mass outside the window (``tail``)."""

    lo: int
    logs: np.ndarray
    err: np.ndarray
    tail: float


def _arb_log_pmf(N: int, k: int, p: Fraction) -> float:
    """``ln Bin(N, p)(k)`` correctly enough: arb at 128 bits, rounded to the nearest float."""
    from flint import arb, ctx  # deferred: python-flint is loaded only for these bounds

    old, ctx.prec = ctx.prec, 128
    try:
        value = (
            arb(N + 1).lgamma()
            - arb(k + 1).lgamma()
            - arb(N - k + 1).lgamma()
            + (k * (arb(p.numerator) / p.denominator).log() if k else 0)
            + ((N - k) * (1 - arb(p.numerator) / p.denominator).log() if N - k else 0)
        )
        return float(value.mid())
    finally:
        ctx.prec = old


def _walk(N: int, start: int, stop: int, step: int, log_pq: float, err_pq: float) -> tuple[np.ndarray, np.ndarray]:
    """Log pmf increments from ``start`` towards ``stop`` (exclusive), and their error bounds: going up,
    ``ln Bin(k+1) − ln Bin(k) = ln((N−k)/(k+1)) + ln(p/q)``; going down the negative of the one below."""
    ks = np.arange(start, stop, step, dtype=np.float64)
    if step > 0:
        ratio = (N - ks) / (ks + 1)
        sign = 1.0
    else:
        ratio = (N - ks + 1) / ks  # the increment from k − 1 to k, subtracted
        sign = -1.0
    lr = np.log(ratio)
    term = sign * (lr + log_pq)
    err = U * (1 + LIBM_ULPS * np.abs(lr) + abs(log_pq) + np.abs(term)) * 1.01 + err_pq
    sums = np.cumsum(term)
    err = np.cumsum(err) + U * np.cumsum(np.abs(sums)) * 1.01
    return sums, err


def binomial_logs(N: int, p: Fraction, drop: float) -> LogPmf:
    """The window of ``Bin(N, p)`` where the log pmf is within ``drop`` of its mode (log-concave, so one interval)."""
    if p == 0 or N == 0:
        return LogPmf(0, np.zeros(1), np.zeros(1), -math.inf)
    if p == 1:
        return LogPmf(N, np.zeros(1), np.zeros(1), -math.inf)
    mode = min(N, math.floor((N + 1) * p))
    anchor = _arb_log_pmf(N, mode, p)
    anchor_err = 2 * U * (1 + abs(anchor))
    log_pq = ln(p / (1 - p))
    err_pq = U * abs(log_pq)
    sigma = math.sqrt(N * float(p) * float(1 - p)) + 1
    span = int(2 * sigma * math.sqrt(drop + 1)) + 16
    sides = []
    for step, end in ((1, N), (-1, 0)):
        while True:
            stop = min(N, mode + span) if step > 0 else max(0, mode - span)
            sums, err = _walk(N, mode, stop, step, log_pq, err_pq)
            below = np.flatnonzero(sums < -drop)
            if len(below) or stop == end:
                cut = below[0] + 1 if len(below) else len(sums)
                sides.append((sums[:cut], err[:cut]))
                break
            span *= 2
    (up, up_err), (down, down_err) = sides
    logs = anchor + np.concatenate([down[::-1], [0.0], up])
    err = anchor_err + np.concatenate([down_err[::-1], [0.0], up_err])
    lo = mode - len(down)
    tail = math.log(N + 1) + anchor - drop + float(err.max()) if lo > 0 or lo + len(logs) - 1 < N else -math.inf
    return LogPmf(lo, logs, err, tail)


def _lse(v: np.ndarray, err: np.ndarray) -> tuple[float, float]:
    """``ln Σ e^v`` and a bound on its error (``err`` bounds each ``v``'s)."""
    if len(v) == 0:
        return -math.inf, 0.0
    m = float(v.max())
    s = float(np.sum(np.exp(v - m)))
    value = m + math.log(s)
    bound = float(err.max()) + U * (2 * float(np.abs(v).max()) + len(v) * 1.01 + 2 * LIBM_ULPS + abs(value) + 4)
    return value, bound


@dataclass
class Noise:
    """``W = Bin(ones, hi) ⊕ Bin(zeros, lo)`` (RR: ``Bin(ones, q) ⊕ Bin(zeros, p)``): its log pmf ``ln W(y)`` and
    log distribution function ``ln F(y)``."""

    A: LogPmf
    B: LogPmf
    log_cdf_B: np.ndarray
    cdf_err: np.ndarray

    @classmethod
    def of(cls, ones: int, zeros: int, b: Binary, drop: float) -> Noise:
        """``ones`` users report 1 with probability ``b.hi``, ``zeros`` users with ``b.lo``."""
        A, B = binomial_logs(ones, b.hi, drop), binomial_logs(zeros, b.lo, drop)
        cdf = np.logaddexp.accumulate(B.logs)
        err = np.maximum.accumulate(B.err) + U * (np.arange(1, len(cdf) + 1) * (LIBM_ULPS + 3) + np.abs(cdf))
        return cls(A, B, cdf, err)

    @property
    def tail(self) -> float:
        """``ln`` of a bound on the absolute error of any ``W(y)`` or ``F(y)`` from the dropped masses."""
        return float(np.logaddexp(self.A.tail, self.B.tail))

    @property
    def support(self) -> tuple[int, int]:
        return self.A.lo + self.B.lo, self.A.lo + len(self.A.logs) + self.B.lo + len(self.B.logs) - 2

    def _terms(self, y: int) -> tuple[slice, np.ndarray]:
        """The ``k`` of A with ``y − k`` in B's window (as a slice of A) and the matching B positions."""
        A, B = self.A, self.B
        k_lo = max(A.lo, y - (B.lo + len(B.logs) - 1))
        k_hi = min(A.lo + len(A.logs) - 1, y - B.lo)
        if k_hi < k_lo:
            return slice(0, 0), np.zeros(0, dtype=np.int64)
        return slice(k_lo - A.lo, k_hi - A.lo + 1), y - np.arange(k_lo, k_hi + 1) - B.lo

    def log_pmf(self, y: int) -> tuple[float, float]:
        a, b = self._terms(y)
        return _lse(self.A.logs[a] + self.B.logs[b], self.A.err[a] + self.B.err[b])

    def log_cdf(self, y: int) -> tuple[float, float]:
        """``ln F(y) = ln Σ_k A(k) F_B(y − k)`` (``F_B`` is 1 up to the tail past B's window)."""
        A, B = self.A, self.B
        k = np.arange(A.lo, A.lo + len(A.logs))
        x = y - k - B.lo
        keep = x >= 0
        x = np.minimum(x[keep], len(B.logs) - 1)
        return _lse(A.logs[keep] + self.log_cdf_B[x], A.err[keep] + self.cdf_err[x])


@dataclass(frozen=True)
class Hockey:
    """``δ = a W(y*) − (t − 1) F(y* − 1)`` of one noise ``W`` at one ε, as ``ln δ`` with an enclosure, and the
    tangent ``δ = A − t B`` (``ln A``, ``ln B``) of its piece."""

    log: float
    lo: float
    hi: float
    log_A: float
    log_B: float


@dataclass(frozen=True)
class Binary:
    """A pair of one-bit report laws as reduction 2 orients it: the differing user reports 1 with probability
    ``lo`` in ``x`` and ``hi`` in ``x'`` (``lo ≤ hi``); ``j`` of the others report 1 with ``hi``, the rest with
    ``lo``. Binary RR at ``p < 1/2`` is ``Binary(p, q)``."""

    lo: Fraction
    hi: Fraction

    @property
    def epsilon0(self) -> float:
        """The orientation's largest log likelihood ratio, ``ln((1 − lo)/(1 − hi))`` (at ``y = 0``); ∞ at ``hi = 1``."""
        if self.lo == self.hi:
            return 0.0
        return math.inf if self.hi == 1 else ln((1 - self.lo) / (1 - self.hi))

    @property
    def degenerate(self) -> bool:
        """No noise at all (``lo = 0``, ``hi = 1``): the count of ``x`` never occurs under ``x'``, δ = 1."""
        return self.lo == 0 and self.hi == 1


@dataclass(frozen=True)
class Threshold:
    """``ln a``, ``ln(t − 1)``, ``ln r`` at ``ε`` for an orientation with ``a > 0``, each with an error bound:
    ``a = (1 − lo) − t (1 − hi)``, ``c = t hi − lo``, ``r = c/a`` (RR: ``a = q − t p``, ``c = t q − p``)."""

    epsilon: float
    log_a: float
    log_t1: float
    log_r: float
    err: float

    @classmethod
    def of(cls, epsilon: float, b: Binary) -> Threshold:
        l0, l1, m0, m1 = ln(1 - b.lo), ln(1 - b.hi), ln(b.lo), ln(b.hi)
        x = l1 - l0 + epsilon  # ln(t (1 − hi) / (1 − lo)) < 0
        if not x < 0:  # ε within rounding of ε0 (below it: the caller returned δ = 0 above it)
            raise WmcdpError(f"epsilon {epsilon!r} is within float rounding of the pure epsilon {l0 - l1!r}")
        ex = U * (abs(l0) + abs(l1) + abs(epsilon) + abs(x)) * 2
        log_a = l0 + _log1mexp(x)
        y = m0 - m1 - epsilon  # ln(lo / (t hi))
        ey = U * (abs(m0) + abs(m1) + abs(epsilon) + abs(y)) * 2
        log_c = epsilon + m1 + _log1mexp(y)
        log_t1 = epsilon + _log1mexp(-epsilon) if epsilon > 0 else -math.inf
        err = _log1mexp_error(x, ex) + _log1mexp_error(y, ey)
        err += _log1mexp_error(-epsilon, U * epsilon) if epsilon > 0 else 0.0
        err += U * (abs(log_a) + abs(log_c) + abs(epsilon) + abs(l0) + abs(m1) + 4) * 2
        return cls(epsilon, log_a, log_t1, log_c - log_a, err)


def hockey(W: Noise, th: Threshold, b: Binary) -> Hockey:
    """δ of one noise at one threshold (reduction 3), with its float enclosure."""
    first, last = W.support
    l0, l1 = ln(1 - b.lo), ln(1 - b.hi)

    def above(y: int) -> tuple[bool, bool]:  # (ρ(y) > r as computed, whether that is certain)
        z1, e1 = W.log_pmf(y)
        z0, e0 = W.log_pmf(y - 1)
        gap = (z1 - z0) - th.log_r
        return gap > 0, abs(gap) > e1 + e0 + th.err + U * abs(z1 - z0)

    lo, hi = first, last  # y* = the last y with ρ(y) > r; ρ(first) counts as ∞ (nothing of the window below)
    while lo < hi:
        check("shuffled hockey-stick")
        mid = (lo + hi + 1) // 2
        if above(mid)[0]:
            lo = mid
        else:
            hi = mid - 1
    star = lo
    sure = (star == first or above(star)[1]) and (star == last or above(star + 1)[1])
    best = None
    for y in range(max(first, star - (0 if sure else 3)), min(last, star + (0 if sure else 3)) + 1):
        z, ez = W.log_pmf(y)
        f, ef = W.log_cdf(y - 1) if y > first else (-math.inf, 0.0)
        left, right = th.log_a + z, th.log_t1 + f
        if not left > right:
            continue
        value = left + _log1mexp(right - left)
        if best is None or value > best[0]:
            best = (value, left, right, ez, ef, z, f)
    if best is None:
        bound = math.log(2) + W.tail
        return Hockey(-math.inf, -math.inf, bound, -math.inf, -math.inf)
    value, left, right, ez, ef, z, f = best
    # absolute error: each side within e^{err} − 1 relative, plus the dropped masses (a + t − 1 ≤ 2t), plus the
    # one rounding of the difference; unsure thresholds add one step of g either way
    rel = max(ez, ef) + th.err + 8 * U * (1 + abs(value))
    absolute = float(np.logaddexp(left, right)) + math.log(math.expm1(rel))
    absolute = float(np.logaddexp(absolute, float(np.logaddexp(0.0, th.log_t1)) + W.tail))
    if not sure:
        absolute = float(np.logaddexp(absolute, left + math.log(4 * math.expm1(2 * rel) + 1e-300)))
    low = value + _log1mexp(absolute - value) if absolute < value else -math.inf
    high = float(np.logaddexp(value, absolute))
    log_A = float(np.logaddexp(l0 + z, f))
    log_B = float(np.logaddexp(l1 + z, f))
    return Hockey(value, low, high, log_A, log_B)


@dataclass(frozen=True)
class Worst:
    """δ(ε) of shuffled binary RR over every dataset: ``ln δ`` (the best configuration's computed value), its
    enclosure ``[lo, hi]`` (logs), the configuration ``j`` (ones among the other users, reduction 2 at
    ``p < 1/2``), the tangent ``A − t B`` of its piece, and the work done."""

    log: float
    lo: float
    hi: float
    j: int
    log_A: float
    log_B: float
    evaluations: int


def _drop(n: int, floor: float) -> float:
    """How far below each binomial's mode its window reaches: enough that the dropped masses
    (at most ``2 (n + 1) e^{−drop}``) are 1e-20 of a δ as small as ``e^floor``."""
    return 48.0 + math.log(2 * (n + 1)) + max(0.0, -floor)


#: most binomial window entries one δ(ε) search may form (about 15 s of one core: binary RR at λ = 1/4 over 10^6
#: users forms 1.2e8 at ε = 0.0032, 2.6e8 at ε = 0.5); a search whose next configuration would pass them is refused
#: before that configuration's windows are allocated
MAX_TERMS = 1 << 27


def window_terms(N: int, p: Fraction, drop: float) -> int:
    """The entries :func:`binomial_logs` forms at least for ``Bin(N, p)``: its first span on each side of the
    mode (at most the ``N + 1`` values)."""
    if p in (0, 1) or N == 0:
        return 1
    sigma = math.sqrt(N * float(p) * float(1 - p)) + 1
    return int(min(N + 1, 2 * (int(2 * sigma * math.sqrt(drop + 1)) + 16)))


def worst_delta(n: int, b: Binary, epsilon: float, start: int = 0) -> Worst:
    """``max_j δ_j`` at ``ε < ε0`` of the orientation ``b`` by the best-first block search (reduction 4), refused
    once its windows would pass :data:`MAX_TERMS` entries.

    ``start``: a configuration evaluated first (the previous maximiser of an ε(δ) iteration); its δ sizes the
    windows (they reach 1e-20 of it, and are widened until its δ is resolved)."""
    th = Threshold.of(epsilon, b)
    evaluations = terms = 0

    def bound(j1: int, j2: int, drop: float) -> Hockey:
        nonlocal evaluations, terms
        evaluations += 1
        terms += window_terms(j1, b.hi, drop) + window_terms(n - 1 - j2, b.lo, drop)
        if terms > MAX_TERMS:
            raise WmcdpError(
                f"delta at epsilon {epsilon!r} over {n} shuffled users: the search over their configurations "
                f"would form more than {MAX_TERMS} binomial terms (after {evaluations} configurations)"
            )
        return hockey(Noise.of(j1, n - 1 - j2, b, drop), th, b)

    drop = _drop(n, -60.0)
    first = bound(start, start, drop)
    while first.lo == -math.inf and first.hi > -math.inf:
        check("shuffled configurations")
        drop, before = _drop(n, first.hi - 40), first.hi
        first = bound(start, start, drop)
        if first.lo == -math.inf and first.hi > before - 1:  # wider windows do not help: the rounding dominates
            raise WmcdpError(
                f"delta at epsilon {epsilon!r} is below what float log space resolves here (its enclosure is "
                f"[0, e^{first.hi:.6g}]); epsilon is too close to the pure epsilon {b.epsilon0!r}"
            )
    leaves: list[tuple[Hockey, int]] = [(first, start)]
    heap: list[tuple[float, int, int, Hockey]] = [(-math.inf, 0, n - 1, first)]
    best_lo = first.lo
    while heap and -heap[0][0] > best_lo:
        check("shuffled configurations")
        _, j1, j2, h = heapq.heappop(heap)
        if j1 == j2:
            leaves.append((h, j1))
            best_lo = max(best_lo, h.lo)
            continue
        mid = (j1 + j2) // 2
        for a1, a2 in ((j1, mid), (mid + 1, j2)):
            child = first if a1 == a2 == start else bound(a1, a2, drop)
            heapq.heappush(heap, (-child.hi, a1, a2, child))
    h, j = max(leaves, key=lambda leaf: (leaf[0].log, -leaf[1]))
    top = max(leaf[0].hi for leaf in leaves)
    return Worst(h.log, best_lo, top, j, h.log_A, h.log_B, evaluations)


#: ``wmcdp.symmetry_sets.PAIRS["rr_counting"]`` hands out :class:`ShuffledCounting` above this many users (below,
#: the 2n pairs with rows by exact convolution, :mod:`wmcdp.plan.shuffle`)
SCALE_FROM = 1000


@dataclass(frozen=True)
class ShuffledPoint:
    """A point of the privacy curve over every dataset: ``epsilon`` and ``delta`` (given one, the other computed),
    the certified enclosure ``[lo, hi]`` of the computed one, the witness configuration ``j`` of the orientation
    ``orientation`` (an index into :meth:`ShuffledBinary.orientations`), and the configurations evaluated."""

    epsilon: float
    delta: float
    log_delta: float
    lo: float
    hi: float
    j: int
    orientation: int
    evaluations: int


def delta_point(n: int, b: Binary, epsilon: float, orientation: int = 0) -> ShuffledPoint:
    """δ(ε) of one orientation over its ``n`` configurations, with its enclosure."""
    if epsilon >= b.epsilon0:
        return ShuffledPoint(epsilon, 0.0, -math.inf, -math.inf, -math.inf, 0, orientation, 0)
    if b.degenerate:
        return ShuffledPoint(epsilon, 1.0, 0.0, 0.0, 0.0, 0, orientation, 0)
    w = worst_delta(n, b, epsilon)
    return ShuffledPoint(epsilon, math.exp(w.log), w.log, w.lo, w.hi, w.j, orientation, w.evaluations)


def epsilon_point(n: int, b: Binary, delta: float, orientation: int = 0) -> ShuffledPoint:
    """ε(δ) of one orientation, the smallest ε with δ(ε) ≤ δ, by a certified root find (:func:`_solve`):
    ``lo < ε(δ) ≤ hi`` with ``δ(hi) ≤ δ`` certified (``lo`` = 0 or a point with δ(lo) > δ certified);
    ``epsilon`` is ``hi``."""
    log_d = math.log(delta) if delta > 0 else -math.inf
    if delta >= 1 or b.lo == b.hi:
        return ShuffledPoint(0.0, delta, log_d, 0.0, 0.0, 0, orientation, 0)
    if b.degenerate or delta == 0:
        return ShuffledPoint(b.epsilon0, delta, log_d, b.epsilon0, b.epsilon0, 0, orientation, 0)
    total = 0
    drop = _drop(n, log_d - 40)

    def one(eps: float) -> Worst:  # the configuration j = 0 alone: a start below ε(δ)
        h = hockey(Noise.of(0, n - 1, b, drop), Threshold.of(eps, b), b)
        return Worst(h.log, h.lo, h.hi, 0, h.log_A, h.log_B, 1)

    start, _, _ = _solve(one, log_d, 0.0, b.epsilon0, 1e-6)
    best = [0]

    def every(eps: float) -> Worst:
        nonlocal total
        w = worst_delta(n, b, eps, best[0])
        best[0], total = w.j, total + w.evaluations
        return w

    lo, hi, j = _solve(every, log_d, start, b.epsilon0, 1e-9)
    return ShuffledPoint(hi, delta, log_d, lo, hi, j, orientation, total)


def _worse(points: list[ShuffledPoint], value: Callable[[ShuffledPoint], float]) -> ShuffledPoint:
    """The maximum over orientations: the computed value of the largest one, the enclosure ``[max lo, max hi]``
    (each true value lies in its own enclosure, so their maximum lies in this one), the work of all."""
    top = max(points, key=lambda p: (value(p), -p.orientation))
    lo, hi = max(p.lo for p in points), max(p.hi for p in points)
    return replace(top, lo=lo, hi=hi, evaluations=sum(p.evaluations for p in points))


class ShuffledBinary:
    """The pairs of a shuffle of one-bit reports over every dataset, by the reductions of this module: δ(ε) and
    ε(δ) as the maximum over :meth:`orientations` of each one's ``n`` configurations."""

    n: int
    diagram_size: int

    def orientations(self) -> tuple[Binary, ...]:
        """The orientations whose maximum is the mechanism's curve."""
        raise NotImplementedError

    def witness(self, point: ShuffledPoint) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The neighbouring datasets ``(x, x')`` of a point's configuration."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """The mechanism, as the plan line names it."""
        raise NotImplementedError

    @property
    def claims(self) -> tuple[str, ...]:
        """The proved steps the result rests on, as the plan lists them."""
        raise NotImplementedError

    #: the module that proves the reductions, as the plan cites it
    proof = "wmcdp.plan.shuffled_rr"
    #: the symmetry used, as the result reports it
    symmetry = "the others' count j, both orders by y -> n - y"

    @property
    def epsilon0(self) -> float:
        """The pure ε, the largest likelihood ratio of any orientation."""
        return max(b.epsilon0 for b in self.orientations())

    def delta(self, epsilon: float) -> ShuffledPoint:
        """δ(ε) over every pair of neighbouring datasets, with its enclosure."""
        points = [delta_point(self.n, b, epsilon, i) for i, b in enumerate(self.orientations())]
        return _worse(points, lambda p: p.log_delta)

    def epsilon(self, delta: float) -> ShuffledPoint:
        """ε(δ) over every pair of neighbouring datasets (the largest of the orientations' ε(δ), each the
        smallest ε with its δ(ε) ≤ δ), with its enclosure ``lo < ε(δ) ≤ hi``; ``epsilon`` is ``hi``."""
        points = [epsilon_point(self.n, b, delta, i) for i, b in enumerate(self.orientations())]
        return _worse(points, lambda p: p.epsilon)


@dataclass(frozen=True)
class ShuffledCounting(ShuffledBinary):
    """The pairs of ``rr_counting(n, lam)`` under the Hamming relation, as the reductions of this module: δ(ε)
    and ε(δ) over every dataset without listing the ``2n`` pairs. One orientation, ``Binary(p, q)``: the reversed
    pairs are its configurations read as ``y ↦ n − y`` (reduction 2)."""

    n: int
    lam: Fraction
    diagram_size: int = 0  # of the one-user randomizer, as the rows of the smaller sets report it
    two_ary: bool = False  # the program is kary_rr_histogram with k = 2 (reduction 0: the same pairs)
    builtin: str = ""  # the built-in the planner checked the program to be (``is_builtin``), when it chose these
    considered: tuple[tuple[Any, ...], ...] = ()  # the plans the planner weighed, when it chose this one
    estimate: float | None = None  # its estimated seconds (``scaled_estimate``), when the planner chose it

    @classmethod
    def of(cls, n: int, lam: float | Fraction | int, diagram_size: int = 0, two_ary: bool = False) -> ShuffledCounting:
        """``lam`` exactly as given (a float is the rational it is)."""
        value = Fraction(lam)
        if not 0 <= value <= 1:
            raise WmcdpError(f"lam must be a probability, got {lam}")
        return cls(int(n), value, diagram_size, two_ary)

    @property
    def name(self) -> str:
        return "2-ary RR (binary RR counting, the output c as n - c)" if self.two_ary else "binary RR"

    @property
    def claims(self) -> tuple[str, ...]:
        two_ary = ("2-ary RR's count of reports 0 is n minus rr_counting's count of ones on the same dataset",)
        return (two_ary if self.two_ary else ()) + (
            "the output law depends on the others' count j only (independent reports, counted)",
            "each pair's hockey-stick sum has one threshold (Z_j log-concave)",
            "a block of configurations is bounded by its common users' noise (post-processing)",
        )

    @property
    def p(self) -> Fraction:
        """The reduced ``p = min(λ, 1 − λ)`` (reduction 1)."""
        return min(self.lam, 1 - self.lam)

    def orientations(self) -> tuple[Binary, ...]:
        return (Binary(self.p, 1 - self.p),)

    def witness(self, point: ShuffledPoint) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The witness datasets of ``point`` (the same for 2-ary RR, reduction 0)."""
        return self.pair(point.j)

    def pair(self, j: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The witness datasets of configuration ``j`` (reduction 2, mapped back through the complement):
        ``1^j 0^(n−j)`` against ``1^(j+1) 0^(n−j−1)`` (``λ ≤ 1/2``), else their complements."""
        x, x_prime = (1,) * j + (0,) * (self.n - j), (1,) * (j + 1) + (0,) * (self.n - j - 1)
        if self.lam > Fraction(1, 2):
            return tuple(1 - v for v in x), tuple(1 - v for v in x_prime)
        return x, x_prime


def _solve(
    evaluate: Callable[[float], Worst], log_d: float, eps: float, top: float, width: float
) -> tuple[float, float, int]:
    """``(lo, hi, j)`` with ``lo < ε(δ) ≤ hi`` certified (``evaluate(hi).hi ≤ ln δ``; ``lo`` = 0 or
    ``evaluate(lo).lo > ln δ``) and ``hi − lo ≤ width · hi``: Newton steps on ``ln δ(ε)`` (slope ``−e^ε B/δ``)
    aimed a little past the root, bisection when they leave the bracket; ``j``: the configuration at ``hi``."""
    lo, hi, j_hi = 0.0, top, 0
    while hi - lo > width * hi:
        check("shuffled epsilon for delta")
        w = evaluate(eps)
        if w.hi <= log_d:
            hi, j_hi = eps, w.j
        elif w.lo > log_d:
            lo = eps
        if w.log == -math.inf or w.log_B == -math.inf or not (w.hi <= log_d or w.lo > log_d):
            eps = (lo + hi) / 2 if w.log == -math.inf else min(eps + width * max(eps, 1e-3) / 4, (eps + hi) / 2)
            continue
        step = (w.log - log_d) * math.exp(w.log - eps - w.log_B)
        aim = width * max(eps, 1e-3) / 4
        eps = eps + step + (aim if step > 0 else -aim)
        if not lo < eps < hi:
            eps = (lo + hi) / 2
    return lo, hi, j_hi
