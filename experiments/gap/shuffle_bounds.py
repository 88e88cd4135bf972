"""Upper bounds on the ε(δ) of n shuffled ε0-LDP reports, implemented from the papers' formulas.

Neighbouring datasets differ in one user's value (substitution); δ(ε) ↦ ε(δ) by bisection on a bound that is
monotone in ε (:func:`invert`).

* **Feldman–McMillan–Talwar** (FMT), "Hiding Among the Clones", FOCS 2021, arXiv:2012.12803.
  *Closed form* (Theorem 3.1), for ε0 ≤ ln(n/(16 ln(2/δ))):
  ``ε ≤ ln(1 + (e^ε0 − 1)/(e^ε0 + 1) · (8 √(e^ε0 ln(4/δ)/n) + 8 e^ε0/n))`` (:func:`fmt_closed`). The value the
  authors report beside their numerical method (0.5378 at n = 10^5, ε0 = 4, δ = 1e-6) comes from the same bound
  with the factor ``(1 − e^−ε0)/(1 + e^(−ε0 − ε̄))``, ε̄ = ln(1 + 8 √(e^ε0 ln(4/δ)/n) + 8 e^ε0/n) the first
  bound's ε (:func:`fmt_closed_reported`).
  *Numerical* (Theorem 3.2 and Appendix E): every ε0-DP randomizer's shuffled pair is a post-processing of the
  clone pair: C ~ Bin(n − 1, e^−ε0), A ~ Bin(C, 1/2), Δ ~ Bern(e^ε0/(e^ε0 + 1)),
  P0 = (A + Δ, C − A + 1 − Δ) against P1 = (A + 1 − Δ, C − A + Δ). Given C = c the likelihood ratio increases
  with the first coordinate, so ``D_c`` (:func:`clone_divergence`) is a tail difference of Bin(c, 1/2)
  mixtures and ``δ(ε) = Σ_c Pr[C = c] D_c`` (:func:`fmt_delta`, the method's limit). The authors' procedure
  (:func:`fmt_bracket`) groups c into buckets of ``step`` counts laid out from n/2 outwards, bounds ``D_c`` on a
  bucket by its value at an end (``D_c`` decreases in c), stops once the mass not yet visited is below the δ
  summed so far (adding it, for the upper bound), and bisects ``iterations`` times on [0, closed form].
* **Balle–Bell–Gascón–Nissim**, "The Privacy Blanket of the Shuffle Model", CRYPTO 2019, arXiv:1903.02837:
  the Hoeffding bound on the privacy amplification random variable, with the k-RR blanket γ = k/(e^ε0 + k − 1)
  and range b = (1 − γ) k (e^ε + 1): ``δ(ε) ≤ b²/(4 a γ n) · (1 − γ(1 − e^(−2a²/b²)))^n``, a = e^ε − 1
  (:func:`blanket_delta`; 0 at ε ≥ ε0).
* **Wang et al.**, "Unified, Tight and Fast Privacy Amplification in the Shuffle Model of Differential Privacy"
  (arXiv:2304.05007), published as "Privacy Amplification via Shuffling: Unified, Simplified, and Tightened"
  (PVLDB 17(8), 2024; theorem numbers below are that version's, proofs in the appendix of their repository
  ``wangsw/PrivacyAmplification``): a randomizer with the (p, β, q) variation-ratio property (ratio ≤ p between
  neighbours, total variation ≤ β, ratio ≤ q to any other input; k-RR: p = q = e^ε0,
  β = (e^ε0 − 1)/(e^ε0 + k − 1)) is claimed a post-processing of the following pair. With α = β/(p − 1),
  r = αp/q, γ = 1 − α − pα: each of the n − 1 others reports Y0 or Y1 with probability r each (else something
  else); the victim reports Y0, Y1, other with probabilities (pα, α, γ) under x and (α, pα, γ) under x′; the
  view is the counts (a, b) of Y0 and Y1.
  *Numerical* (their Theorem 4.8 / Proposition I.1): with M the others' trinomial, P(a, b)/M(a, b) =
  pα a/r + α b/r + γ (n − a − b)/(1 − 2r) (likewise Q), linear in a at fixed a + b, so the set {P > e^ε Q}
  is ``a ≥ low(a + b)`` and ``δ(ε) = Σ_c Pr[C = c] · (P − e^ε Q)`` of that set, C ~ Bin(n − 1, 2r) the others'
  count, A ~ Bin(C, 1/2) (:func:`wang_delta`). Our own derivation from the paper's reduction, not their code.
  *Closed forms*, with L = ln(4/δ): Theorem 4.3 (:func:`wang_closed`), for n > 8L/r,
  ``ε = ln(1 + β/((1 − c_r)(1 + p)α + c_r) · (√(32L/(r(n − 1))) + 4/(r(n − 1))))``,
  c_r = max(0, 4(1 − 3r)/(9(1 − 2r))) — as their code computes it; the appendix prints 4/(rn) for the last
  term and n ≥ 8 ln(2/δ)/r, which gives at most the same ε under a weaker condition. Theorem 4.2
  (:func:`wang_tight_closed`): with Ω = 2r(n − 1) − √(min(6r, 1/2)(n − 1)L) and h = √(ΩL/2),
  ``ε = ln(1 + β(2h + 1)/(αΩ + β(Ω/2 − h) + γ(n − 1 − Ω) r/(1 − 2r)))`` provided Ω > 0,
  (p + 1)α/2 > γr/(1 − 2r) and Ω > (2p(β + 1 + (β − 1)p)(n − 1) + β)/(q + p(β − 1 + (β + 1)p) − pq).
  Either is None (n/a) where its condition fails (their code returns ε0 there).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special, stats

#: bisection guard: a δ counts as "at most δ" only below δ(1 − GUARD), as "above" only beyond δ(1 + GUARD)
GUARD = 1e-9


def _tanh_half(eps0: float) -> float:
    return math.tanh(eps0 / 2)  # (e^ε0 − 1)/(e^ε0 + 1)


def _closed_terms(eps0: float, n: int, delta: float) -> float:
    return 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta) / n) + 8 * math.exp(eps0) / n


def fmt_applies(eps0: float, n: int, delta: float) -> bool:
    """FMT Theorem 3.1's condition ε0 ≤ ln(n/(16 ln(2/δ)))."""
    m = 16 * math.log(2 / delta)
    return n > m and eps0 <= math.log(n / m)


def fmt_closed(eps0: float, n: int, delta: float) -> float | None:
    """FMT Theorem 3.1 as printed, or None where its condition fails."""
    if not fmt_applies(eps0, n, delta):
        return None
    return math.log1p(_tanh_half(eps0) * _closed_terms(eps0, n, delta))


def fmt_closed_reported(eps0: float, n: int, delta: float) -> float | None:
    """The closed form behind FMT's reported 0.5378: factor (1 − e^−ε0)/(1 + e^(−ε0 − ε̄)), ε̄ = ln(1 + terms)."""
    if not fmt_applies(eps0, n, delta):
        return None
    s = _closed_terms(eps0, n, delta)
    factor = -math.expm1(-eps0) / (1 + math.exp(-eps0 - math.log1p(s)))
    return math.log1p(factor * s)


def clone_divergence(eps0: float, eps: float, c: np.ndarray) -> np.ndarray:
    """``D_{e^ε}(P0 ‖ P1 | C = c)`` for each c (the clone pair is symmetric, so the other order is equal).

    Given c: P0(j) = α b(j − 1) + β b(j), P1(j) = β b(j − 1) + α b(j), b the Bin(c, 1/2) pmf, α = e^ε0/(e^ε0 + 1),
    β = 1 − α. With r = b(j − 1)/b(j) = j/(c + 1 − j), P0/P1 = (α r + β)/(β r + α) > e^ε iff r > ρ =
    (e^ε α − β)/(α − e^ε β), iff j > (c + 1) ρ/(1 + ρ); the tail {J ≥ t} from that threshold (best of t − 1, t,
    t + 1 against the threshold's rounding) gives D_c = P0[J ≥ t] − e^ε P1[J ≥ t].
    """
    c = np.asarray(c)
    if eps >= eps0:
        return np.zeros(len(c))
    alpha, beta, t_eps = float(special.expit(eps0)), float(special.expit(-eps0)), math.exp(eps)
    rho = (t_eps * alpha - beta) / (alpha - t_eps * beta)
    t0 = np.floor((c + 1) * rho / (1 + rho)).astype(np.int64) + 1
    best = np.zeros(len(c))
    for shift in (-1, 0, 1):
        t = np.clip(t0 + shift, 0, c + 2)
        s_lo, s_hi = stats.binom.sf(t - 2, c, 0.5), stats.binom.sf(t - 1, c, 0.5)  # Pr[B ≥ t − 1], Pr[B ≥ t]
        best = np.maximum(best, (alpha * s_lo + beta * s_hi) - t_eps * (beta * s_lo + alpha * s_hi))
    return best


def _window(n: int, p: float, sds: float = 40.0) -> tuple[np.ndarray, np.ndarray, float]:
    """Counts c of Bin(n, p) within ``sds`` standard deviations, their pmf, and the mass left outside."""
    mean, sd = n * p, math.sqrt(n * p * (1 - p)) + 1
    c = np.arange(max(0, int(mean - sds * sd)), min(n, int(mean + sds * sd)) + 1)
    w = stats.binom.pmf(c, n, p)
    return c, w, max(0.0, 1.0 - float(np.sum(w)))


def fmt_delta(eps0: float, n: int, eps: float) -> float:
    """The limit of FMT's numerical method: Σ_c Pr[C = c] D_c (plus the mass outside the window, D ≤ 1)."""
    c, w, outside = _window(n - 1, math.exp(-eps0))
    return float(np.dot(w, clone_divergence(eps0, eps, c))) + outside


def fmt_bracket(eps0: float, n: int, delta: float, step: int = 100, iterations: int = 10) -> tuple[float, float]:
    """FMT's numerical procedure (buckets of ``step`` counts, ``iterations`` bisection steps): (lower, upper)."""
    top = fmt_closed_reported(eps0, n, delta) if eps0 < math.log(n / (16 * math.log(4 / delta))) else None
    hi0 = top if top is not None else eps0
    return tuple(_bisect_fmt(eps0, n, delta, step, iterations, hi0, upper) for upper in (False, True))  # type: ignore[return-value]


def _buckets(n: int, step: int) -> list[tuple[int, int]]:
    """FMT's layout (n even): c = n/2 alone, then buckets of ``step`` upwards and downwards, alternately."""
    half = n // 2
    out = [(half, half)]
    for start in range(1, half + 1, step):
        out.append((half + start, min(half + start + step - 1, n - 1)))
        out.append((max(half - start - step + 1, 0), half - start))
    return [(lo, hi) for lo, hi in out if lo <= hi and 0 <= lo <= n - 1]


def _bucket_delta(eps0: float, n: int, eps: float, step: int, upper: bool) -> float:
    cuts = np.array(_buckets(n, step))
    lo, hi = cuts[:, 0], cuts[:, 1]
    binom = stats.binom(n - 1, math.exp(-eps0))
    mass = binom.cdf(hi) - binom.cdf(lo) + binom.pmf(lo)
    d_lo, d_hi = clone_divergence(eps0, eps, lo), clone_divergence(eps0, eps, hi)
    add_p = mass * (np.maximum(d_lo, d_hi) if upper else np.minimum(d_lo, d_hi))
    add_q = mass * (d_hi if upper else np.minimum(d_lo, d_hi))  # their q side reads the upper end twice
    before_p = np.concatenate([[0.0], np.cumsum(add_p)[:-1]])
    before_q = np.concatenate([[0.0], np.cumsum(add_q)[:-1]])
    used = np.concatenate([[0.0], np.cumsum(mass)[:-1]])
    stop = np.nonzero((1 - used < before_p) & (1 - used < before_q))[0]
    if stop.size:
        i = stop[0]
        return float(before_p[i] + (1 - used[i])) if upper else float(before_p[i])
    return float(max(np.sum(add_p), np.sum(add_q)))


def _bisect_fmt(eps0: float, n: int, delta: float, step: int, iterations: int, top: float, upper: bool) -> float:
    lo, hi = 0.0, top
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if _bucket_delta(eps0, n, mid, step, upper) < delta:
            hi = mid
        else:
            lo = mid
    return hi


def blanket_delta(eps0: float, n: int, eps: float, k: int = 2) -> float:
    """BBGN19's Hoeffding bound for shuffled k-RR: b²/(4 a γ n) · (1 − γ(1 − e^(−2a²/b²)))^n (0 at ε ≥ ε0)."""
    if eps >= eps0:
        return 0.0
    if eps <= 0:
        return math.inf  # the bound divides by a = e^ε − 1
    gamma = k / (math.exp(eps0) + k - 1)
    a = math.expm1(eps)
    b = (1 - gamma) * k * (math.exp(eps) + 1)
    log_base = math.log1p(-gamma * -math.expm1(-2 * a * a / (b * b)))
    return math.exp(2 * math.log(b) - math.log(4 * a * gamma * n) + n * log_base)


def wang_parameters(eps0: float, k: int = 2) -> tuple[float, float, float]:
    """(p, β, q) of k-RR: p = q = e^ε0, β = (e^ε0 − 1)/(e^ε0 + k − 1)."""
    return math.exp(eps0), math.expm1(eps0) / (math.exp(eps0) + k - 1), math.exp(eps0)


def wang_reduced(eps0: float, k: int = 2) -> tuple[float, float, float, float, float]:
    """(p, β, α, r, γ) of Wang et al.'s reduced pair for k-RR: α = β/(p − 1), r = αp/q, γ = 1 − α − pα."""
    p, beta, q = wang_parameters(eps0, k)
    alpha = beta / (p - 1)
    return p, beta, alpha, alpha * p / q, max(0.0, 1 - alpha - p * alpha)


def wang_delta(eps0: float, n: int, eps: float, k: int = 2) -> float:
    """Wang et al.'s variation-ratio bound on δ(ε) for shuffled k-RR (see the module docstring)."""
    p, _, alpha, r, gamma = wang_reduced(eps0, k)
    if eps >= math.log(p):
        return 0.0
    t = math.exp(eps)
    c, w, outside = _window(n - 1, 2 * r)

    def low(total: np.ndarray) -> np.ndarray:
        """The least a with P(a, total − a) > e^ε Q(a, total − a), real-valued (equality contributes 0)."""
        g = gamma * (n - total) / (1 - 2 * r)
        return ((t * p - 1) * alpha * total / r + (t - 1) * g) / (alpha * (p - 1) * (1 + t) / r)

    def tail(at_least: np.ndarray) -> np.ndarray:  # Pr[A ≥ ceil(at_least)], A ~ Bin(c, 1/2)
        return stats.binom.sf(np.ceil(at_least) - 1, c, 0.5)

    v0, v1, v2 = tail(low(c + 1) - 1), tail(low(c + 1)), tail(low(c))
    in_p = p * alpha * v0 + alpha * v1 + gamma * v2
    in_q = alpha * v0 + p * alpha * v1 + gamma * v2
    return float(np.dot(w, in_p - t * in_q)) + outside


def wang_closed(eps0: float, n: int, delta: float, k: int = 2) -> float | None:
    """Wang et al.'s Theorem 4.3 for shuffled k-RR, as their code computes it; None where n ≤ 8 ln(4/δ)/r."""
    p, beta, alpha, r, _ = wang_reduced(eps0, k)
    log_term = math.log(4 / delta)
    if n <= 8 * log_term / r:
        return None
    c = max(0.0, 4 * (1 - 3 * r) / (9 * (1 - 2 * r)))
    spread = math.sqrt(32 * log_term / (r * (n - 1))) + 4 / (r * (n - 1))
    return math.log1p(beta / ((1 - c) * (1 + p) * alpha + c) * spread)


def wang_tight_closed(eps0: float, n: int, delta: float, k: int = 2) -> float | None:
    """Wang et al.'s Theorem 4.2 for shuffled k-RR; None where one of its three conditions fails."""
    p, beta, alpha, r, gamma = wang_reduced(eps0, k)
    q = wang_parameters(eps0, k)[2]
    log_term = math.log(4 / delta)
    omega = 2 * r * (n - 1) - math.sqrt(min(6 * r, 0.5) * (n - 1) * log_term)
    slope = (p + 1) * alpha / 2 - gamma * r / (1 - 2 * r)
    knee = (2 * p * (beta + 1 + (beta - 1) * p) * (n - 1) + beta) / (q + p * (beta - 1 + (beta + 1) * p) - p * q)
    if not (omega > 0 and slope > 0 and omega > knee):
        return None
    h = math.sqrt(omega * log_term / 2)
    others = gamma * (n - 1 - omega) * r / (1 - 2 * r)
    return math.log1p(beta * (2 * h + 1) / (alpha * omega + beta * (omega / 2 - h) + others))


def invert(delta_of: Callable[[float], float], delta: float, top: float, tol: float = 1e-9) -> float:
    """The least ε in [0, top] with ``delta_of(ε) ≤ δ``, by bisection (an upper end: at most δ(1 − GUARD))."""
    if delta_of(0.0) <= delta * (1 - GUARD):
        return 0.0
    lo, hi = 0.0, top
    while hi - lo > tol * max(1.0, hi):
        mid = (lo + hi) / 2
        if delta_of(mid) <= delta * (1 - GUARD):
            hi = mid
        else:
            lo = mid
    return hi


__all__ = [
    "fmt_applies",
    "fmt_closed",
    "fmt_closed_reported",
    "clone_divergence",
    "fmt_delta",
    "fmt_bracket",
    "blanket_delta",
    "wang_parameters",
    "wang_reduced",
    "wang_delta",
    "wang_closed",
    "wang_tight_closed",
    "invert",
]
