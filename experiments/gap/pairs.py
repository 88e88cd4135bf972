"""Mechanisms as one ordered pair of output distributions, and the exact K-fold composition of the pair.

A :class:`Pair` lists, for a few output *classes*, the mass ``P[c]`` under one dataset and ``Q[c]`` under its
neighbour; outputs in one class have one likelihood ratio, so merging them changes no divergence. Every
function below takes both orders of the pair, ``(P, Q)`` and ``(Q, P)``, and returns the larger value.

K-fold composition (K independent runs on the same pair): an outcome is fixed up to order by its class counts
``(n_c)``, with mass ``K!/Π n_c! · Π P[c]^n_c`` under ``P^K`` (likewise ``Q^K``), so

    δ_K(ε) = Σ_{counts} multinomial · (Π P[c]^n_c − e^ε Π Q[c]^n_c)_+,

a binomial sum for two classes and a trinomial one for three. ``ε(δ)`` is the largest root over the prefixes of
the outcomes sorted by likelihood ratio (Neyman–Pearson): with ``A_m``, ``B_m`` the prefix masses under ``P^K``
and ``Q^K``, ``ε(δ) = max(0, max_{m: A_m > δ} ln((A_m − δ)/B_m))`` — every set gives ``δ(ε) ≥ P(S) − e^ε Q(S)``
and the optimal set is a prefix.

Two evaluations, independent of wmcdp: :func:`exact_delta` / :func:`exact_ratio` enumerate the counts with
Fractions (small K; the test compares them with wmcdp's exact ``compose=K``), and :func:`terms` /
:func:`delta_at` / :func:`epsilon_at` sum in log space with numpy (K up to 10^4 and beyond).

Shuffled binary RR (:func:`shuffled_rr_epsilon`) reuses :func:`epsilon_at` on the pair of output laws of one
user's change, once per count of ones among the other users (the law depends on the others only through it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.signal import convolve
from scipy.special import gammaln, logsumexp
from scipy.stats import binom

Number = Fraction | float


@dataclass(frozen=True)
class Pair:
    """One ordered pair of neighbouring output distributions over a few classes (``P`` under x, ``Q`` under x′)."""

    name: str
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if len(self.p) != len(self.q) or sum(self.p) != 1 or sum(self.q) != 1 or min(self.p + self.q) < 0:
            raise ValueError(f"{self.name}: P and Q must be distributions over the same classes")

    def reversed(self) -> Pair:
        return Pair(self.name, self.q, self.p)

    @property
    def epsilon0(self) -> float:
        """The pair's largest absolute privacy loss (its pure ε)."""
        return max(abs(math.log(a / b)) for a, b in zip(self.p, self.q) if a or b)


def rr(lam: Fraction) -> Pair:
    """Binary randomized response flipping with probability λ: P = (1 − λ, λ), Q = (λ, 1 − λ); ε0 = ln((1 − λ)/λ)."""
    return Pair(f"RR λ={lam}", (1 - lam, lam), (lam, 1 - lam))


def kary_rr(k: int, ratio: Fraction) -> Pair:
    """k-ary RR (truth with probability r/(r + k − 1), each other value 1/(r + k − 1)) on values x ≠ x′.

    Classes: the report x, the report x′, any other report (ratio 1): P = (r, 1, k − 2)/(r + k − 1) and Q with
    the first two swapped; ε0 = ln r.
    """
    d = ratio + k - 1
    p = (ratio / d, 1 / d, Fraction(k - 2) / d)
    return Pair(f"{k}-RR r={ratio}", p, (p[1], p[0], p[2]))


def geometric(alpha: Fraction, sensitivity: int = 1) -> Pair:
    """The (truncated) geometric mechanism TGeom_α on counts c and c + s, s = ``sensitivity`` (1 or 2).

    s = 1: outputs z ≤ c have ratio 1/α and the others α; clamping to {0..m} keeps that, and P(z ≤ c | c) =
    1/(1 + α) at every c, so the pair is RR with λ = α/(1 + α) (ε0 = −ln α), for every m and every c.
    s = 2 (a query whose entries move by up to 2): three classes, z ≤ c (ratio α^−2, mass 1/(1 + α) under c and
    α²/(1 + α) under c + 2), z ≥ c + 2 (the masses swapped) and z = c + 1 (ratio 1, mass α(1 − α)/(1 + α) under
    both); the same for every m and every c with c + 2 ≤ m (ε0 = −2 ln α).
    """
    if sensitivity == 1:
        lam = alpha / (1 + alpha)
        return Pair(f"TGeom α={alpha}", (1 - lam, lam), (lam, 1 - lam))
    if sensitivity == 2:
        p = (1 / (1 + alpha), alpha**2 / (1 + alpha), alpha * (1 - alpha) / (1 + alpha))
        return Pair(f"TGeom α={alpha} Δ=2", p, (p[1], p[0], p[2]))
    raise ValueError(f"sensitivity must be 1 or 2, got {sensitivity}")


def subsampled_rr(lam: Fraction, q: Fraction) -> Pair:
    """Poisson-subsampled RR under add/remove (absent user: value 0): P = q·RR(1) + (1 − q)·RR(0), Q = RR(0).

    The pair attains the amplification by subsampling of RR (the removed user's bit was 1, the others 0).
    """
    q0 = (1 - lam, lam)
    q1 = (lam, 1 - lam)
    p = tuple(q * a + (1 - q) * b for a, b in zip(q1, q0))
    return Pair(f"Poisson({q}) RR λ={lam}", p, q0)


# -- Fractions, small K ---------------------------------------------------------------------------------------


def _counts(k: int, classes: int) -> Iterator[tuple[int, ...]]:
    if classes == 1:
        yield (k,)
        return
    for first in range(k + 1):
        for rest in _counts(k - first, classes - 1):
            yield (first, *rest)


def _multinomial(counts: tuple[int, ...]) -> int:
    out, total = 1, 0
    for c in counts:
        total += c
        out *= math.comb(total, c)
    return out


def exact_outcomes(pair: Pair, k: int) -> list[tuple[Fraction, Fraction]]:
    """``(P^K mass, Q^K mass)`` of every class-count vector of K runs, exact."""
    out = []
    for counts in _counts(k, len(pair.p)):
        m = _multinomial(counts)
        a = m * math.prod(x**c for x, c in zip(pair.p, counts))
        b = m * math.prod(x**c for x, c in zip(pair.q, counts))
        out.append((Fraction(a), Fraction(b)))
    return out


def exact_delta(pair: Pair, k: int, ratio: Fraction) -> Fraction:
    """δ_K(ε) at e^ε = ``ratio``, both orders, exact."""
    rows = exact_outcomes(pair, k)
    return max(
        sum(max(Fraction(0), a - ratio * b) for a, b in rows), sum(max(Fraction(0), b - ratio * a) for a, b in rows)
    )


def exact_ratio(pair: Pair, k: int, delta: Fraction) -> Fraction:
    """e^{ε_K(δ)}, both orders, exact: the largest prefix root ``(A_m − δ)/B_m`` (1 when none exceeds δ)."""
    rows = exact_outcomes(pair, k)
    best = Fraction(1)
    for order in (rows, [(b, a) for a, b in rows]):
        a_sum = b_sum = Fraction(0)
        for a, b in sorted(order, key=lambda r: (r[1] == 0, r[0] / r[1] if r[1] else 0), reverse=True):
            a_sum, b_sum = a_sum + a, b_sum + b
            if a_sum > delta:
                if b_sum == 0:
                    raise ValueError("infinite ε: mass under P that Q never produces")
                best = max(best, (a_sum - delta) / b_sum)
    return best


# -- log-space floats, large K --------------------------------------------------------------------------------


def _log(x: Fraction) -> float:
    return -math.inf if x == 0 else math.log(x.numerator) - math.log(x.denominator)


def terms(pair: Pair, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ln P^K, ln Q^K)`` of groups of outcomes with one likelihood ratio each (binomial or trinomial sums)."""
    lp, lq = [_log(x) for x in pair.p], [_log(x) for x in pair.q]
    if len(pair.p) == 2:
        j = np.arange(k + 1)
        log_c = gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1)
        return log_c + j * lp[0] + (k - j) * lp[1], log_c + j * lq[0] + (k - j) * lq[1]
    if len(pair.p) == 3 and pair.p[2] == pair.q[2] and (pair.p[0], pair.p[1]) == (pair.q[1], pair.q[0]):
        return _trinomial(lp, k)
    raise ValueError(f"{pair.name}: only two classes, or k-ary RR's three, have a closed form here")


def _trinomial(lp: list[float], k: int) -> tuple[np.ndarray, np.ndarray]:
    """k-ary RR: with i reports of x, j of x′ the ratio is (t/f)^(i−j), so group by d = i − j.

    ``ln P(D = d) = logsumexp_i [ln K!/(i! (i−d)! (K−2i+d)!) + i ln t + (i−d) ln f + (K−2i+d) ln o]`` and
    ``Q(D = d) = P(D = d) · (f/t)^d``.
    """
    lt, lf, lo = lp
    out = np.empty(2 * k + 1)
    for idx, d in enumerate(range(-k, k + 1)):
        i = np.arange(max(0, d), (k + d) // 2 + 1)
        rest = k - 2 * i + d
        log_w = gammaln(k + 1) - gammaln(i + 1) - gammaln(i - d + 1) - gammaln(rest + 1)
        log_w = log_w + i * lt + (i - d) * lf + (rest * lo if lo > -math.inf else np.where(rest == 0, 0.0, -np.inf))
        out[idx] = logsumexp(log_w)
    d = np.arange(-k, k + 1)
    return out, out + d * (lf - lt)


def delta_at(log_p: np.ndarray, log_q: np.ndarray, epsilon: float) -> float:
    """Σ (P − e^ε Q)_+ over both orders, each positive term as P·(1 − e^{ε + ln Q − ln P}) (no e^ε formed)."""

    def one(a: np.ndarray, b: np.ndarray) -> float:
        keep = a - b > epsilon
        return float(np.sum(np.exp(a[keep]) * -np.expm1(epsilon + b[keep] - a[keep])))

    return max(one(log_p, log_q), one(log_q, log_p))


def epsilon_at(log_p: np.ndarray, log_q: np.ndarray, delta: float) -> float:
    """max(0, max_m ln((A_m − δ)/B_m)) over the prefixes by decreasing ratio, both orders."""

    def one(a: np.ndarray, b: np.ndarray) -> float:
        order = np.argsort(-(a - b), kind="stable")
        mass_p = np.cumsum(np.exp(a[order]))
        log_mass_q = np.logaddexp.accumulate(b[order])
        ok = mass_p > delta
        return float(np.max(np.log(mass_p[ok] - delta) - log_mass_q[ok], initial=0.0))

    return max(one(log_p, log_q), one(log_q, log_p))


def shuffled_rr_terms(n: int, lam: float, ones: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ln P, ln Q)`` of the count of reported ones of n users of binary RR (flip probability λ), the other
    n − 1 users holding ``ones`` ones: P with the changed user's bit 1, Q with it 0.

    The others' count is W = Bin(ones, 1 − λ) + Bin(n − 1 − ones, λ) (a convolution); P(y) = (1 − λ)W(y − 1) +
    λW(y) and Q(y) = λW(y − 1) + (1 − λ)W(y). Outputs whose mass underflows to 0 under either are dropped (each
    below 1e-300).
    """
    w = np.convolve(binom.pmf(np.arange(ones + 1), ones, 1 - lam), binom.pmf(np.arange(n - ones), n - 1 - ones, lam))
    shifted, level = np.concatenate([[0.0], w]), np.concatenate([w, [0.0]])
    p, q = (1 - lam) * shifted + lam * level, lam * shifted + (1 - lam) * level
    keep = (p > 0) & (q > 0)
    return np.log(p[keep]), np.log(q[keep])


def shuffled_rr_epsilon(n: int, lam: float, delta: float) -> float:
    """ε(δ) of shuffled binary RR over every dataset: the largest :func:`epsilon_at` over the others' count of
    ones (the output law depends on the others' data only through it), both orders."""
    return max(epsilon_at(*shuffled_rr_terms(n, lam, ones), delta) for ones in range(n))


def _report_counts(users: int, k: int, truth: int, lam: float) -> np.ndarray:
    """Law of the counts of reports 0..k−2 of ``users`` users of k-RR holding ``truth`` (truth with probability
    1 − λ, each other value λ/(k − 1)): a (k−1)-dimensional array indexed by the counts, by repeated convolution."""
    one = np.zeros((2,) * (k - 1))
    for v in range(k):
        mass = 1 - lam if v == truth else lam / (k - 1)
        one[tuple(1 if i == v else 0 for i in range(k - 1))] += mass  # report k − 1 is the origin
    out = np.ones((1,) * (k - 1))
    for _ in range(users):
        out = convolve(out, one, method="direct")
    return out


def shuffled_kary_epsilon(n: int, k: int, eps0: float, delta: float) -> float:
    """ε(δ) of n shuffled k-RR reports (local ε0) over every dataset, by enumeration of the others' histograms.

    The output (the histogram of reports) depends on the others only through their histogram h, so each h with
    Σh = n − 1 and the changed user moving from value 0 to value 1 gives one pair (relabelling values maps every
    change to that one with h permuted, and every h is listed); both orders through :func:`epsilon_at`. The cost
    grows as n^(2(k−1)) times n: small n only.
    """
    lam = (k - 1) / (math.exp(eps0) + k - 1)
    best = 0.0
    for h in _counts(n - 1, k):
        others = np.ones((1,) * (k - 1))
        for value, users in enumerate(h):
            others = convolve(others, _report_counts(users, k, value, lam), method="direct")
        p, q = (convolve(others, _report_counts(1, k, v, lam), method="direct").ravel() for v in (0, 1))
        keep = (p > 0) & (q > 0)
        best = max(best, epsilon_at(np.log(p[keep]), np.log(q[keep]), delta))
    return best


__all__ = [
    "Pair",
    "rr",
    "kary_rr",
    "geometric",
    "subsampled_rr",
    "exact_outcomes",
    "exact_delta",
    "exact_ratio",
    "terms",
    "delta_at",
    "epsilon_at",
    "shuffled_rr_terms",
    "shuffled_rr_epsilon",
    "shuffled_kary_epsilon",
]
