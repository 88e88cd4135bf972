"""Long compositions: wmcdp's ``compose_approximate`` at K = 10 … 10^4 runs, beside an independent numpy sum.

For each mechanism and K it times (best of ``--repeats`` runs; K = 10^4: one run, under tracemalloc) δ(ε) at
ε ≈ ε(1e-6) and ε(δ = 1e-6), reports the exactness, the bracket's relative width, the support used (``groups``)
and the peak memory (tracemalloc, one more run), and compares δ(ε) with an independent computation written from
the mechanism's closed form (numpy and scipy only, no wmcdp): the ratios of wmcdp's two ends to it, which must
hold it (to 1e-9, the independent sum's own accuracy).

Mechanisms (float parameters unless marked exact; one input entry, the worst pair):

* ``rr``: binary randomized response, λ = 1/4 (ε0 = ln 3). Independent: the binomial sum
  δ(ε) = Σ_j C(K, j) p^j q^(K−j) (1 − e^{ε − (2j − K) ε0})_+ in log space (scipy ``gammaln``).
* ``rr exact``: the same with λ = Fraction(1, 4): exact rationals (ε given as a float: δ is then the exact real's
  nearest float).
* ``kary``: k-ary RR, k = 4, ε0 = 1. Losses +ε0 (the true value), −ε0 (the neighbour's), 0 (the other two);
  independent: the trinomial sum over (n+, n−), chunked.
* ``geometric``: the truncated geometric mechanism on {0..8}, α = 1/2: every pair has losses ±ln 2 with
  P(+) = 1/(1 + α), so the binomial sum again.
* ``mixture``: a subsampled-like mechanism with three outputs and incommensurate losses: with probability 1/5
  the k-ary RR report of x ∈ {0, 1, 2} (kept with probability 3/5), else a draw of (1/2, 1/3, 1/6) that ignores x.
  Independent: the trinomial sum of each neighbouring pair, the maximum over them.
* ``rr+geo``: K/2 runs of ``rr`` then K/2 of the truncated geometric on {0, 1} with α = 1/2 (a two-step
  heterogeneous sequence); independent: the double binomial sum.

    python experiments/compose.py              # K = 10, 100, 1000, 10^4 (several minutes on 2 busy cores)
    python experiments/compose.py --quick      # K <= 1000
Writes experiments/results/compose.txt and compose.csv.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.special import gammaln, logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from results_io import RESULTS, write_csv  # noqa: E402

from wmcdp import compose_approximate  # noqa: E402
from wmcdp.lang import IntVector, Program, discrete, flip, ite, uniform  # noqa: E402
from wmcdp.programs import kary_rr, randomized_response, truncated_geometric  # noqa: E402

DELTA = 1e-6
KEEP, Q, NOISE = 0.6, 0.2, (0.5, 1 / 3, 1 / 6)


def mixture() -> Program:
    def body(x):  # type: ignore[no-untyped-def]
        other = uniform(0, 1)
        noise = discrete(list(NOISE))
        return ite(flip(Q), ite(flip(KEEP), x[0], ite(other >= x[0], other + 1, other)), noise)

    return Program("mixture", IntVector(1, 0, 2), body, neighbours="one-entry")


# -- independent δ(ε): closed forms in log space ---------------------------------------------------


def log_f(eps: float, loss: np.ndarray) -> np.ndarray:
    """ln (1 − e^{ε − L})_+ (−inf where L ≤ ε)."""
    out = np.full(loss.shape, -np.inf)
    above = loss > eps
    out[above] = np.log(-np.expm1(eps - loss[above]))
    return out


def binomial_terms(k: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """ln P(j) of Bin(k, p), j = 0..k, and j."""
    j = np.arange(k + 1)
    return gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1) + j * math.log(p) + (k - j) * math.log1p(-p), j


def binomial_delta(k: int, p: float, eps0: float, eps: float) -> float:
    lp, j = binomial_terms(k, p)
    return float(np.exp(logsumexp(lp + log_f(eps, (2 * j - k) * eps0))))


def trinomial_delta(k: int, probs: tuple[float, float, float], losses: tuple[float, float, float], eps: float) -> float:
    """Σ over (n1, n2, n3) of the multinomial mass times (1 − e^{ε − Σ n_i L_i})_+, in chunks of n1."""
    logs = [math.log(p) for p in probs]
    parts = []
    for n1 in range(k + 1):
        n2 = np.arange(k - n1 + 1)
        n3 = k - n1 - n2
        lm = gammaln(k + 1) - gammaln(n1 + 1) - gammaln(n2 + 1) - gammaln(n3 + 1) + n1 * logs[0] + n2 * logs[1]
        lm = lm + n3 * logs[2]
        parts.append(logsumexp(lm + log_f(eps, n1 * losses[0] + n2 * losses[1] + n3 * losses[2])))
    return float(np.exp(logsumexp(parts)))


def kary_delta(k: int, eps: float) -> float:
    r = math.e
    return trinomial_delta(k, (r / (r + 3), 1 / (r + 3), 2 / (r + 3)), (1.0, -1.0, 0.0), eps)


def mixture_delta(k: int, eps: float) -> float:
    def law(x: int) -> list[float]:
        return [Q * (KEEP if y == x else (1 - KEEP) / 2) + (1 - Q) * NOISE[y] for y in range(3)]

    best = 0.0
    for x, xp in [(0, 1), (1, 0), (1, 2), (2, 1)]:
        p, q = law(x), law(xp)
        best = max(best, trinomial_delta(k, tuple(p), tuple(math.log(a / b) for a, b in zip(p, q)), eps))
    return best


def rr_geo_delta(k: int, eps: float) -> float:
    half = k // 2
    l1, j1 = binomial_terms(half, 0.75)
    l2, j2 = binomial_terms(k - half, 1 / 1.5)
    loss2 = (2 * j2 - (k - half)) * math.log(2)
    parts = []
    for start in range(0, half + 1, 256):
        a = l1[start : start + 256, None] + l2[None, :]
        loss = ((2 * j1[start : start + 256] - half) * math.log(3))[:, None] + loss2[None, :]
        parts.append(logsumexp(a + log_f(eps, loss)))
    return float(np.exp(logsumexp(parts)))


RR, GEO = randomized_response(1, 0.25), truncated_geometric(8, alpha=0.5)
CASES = {
    "rr": (lambda k: [(RR, k)], lambda k, e: binomial_delta(k, 0.75, math.log(3), e)),
    "rr exact": (
        lambda k: [(randomized_response(1, Fraction(1, 4)), k)],
        lambda k, e: binomial_delta(k, 0.75, math.log(3), e),
    ),
    "kary": (lambda k: [(kary_rr(1, 4, eps=1.0), k)], kary_delta),
    "geometric": (lambda k: [(GEO, k)], lambda k, e: binomial_delta(k, 1 / 1.5, math.log(2), e)),
    "mixture": (lambda k: [(mixture(), k)], mixture_delta),
    "rr+geo": (lambda k: [(RR, k // 2), (truncated_geometric(1, alpha=0.5), k - k // 2)], rr_geo_delta),
}


def best_of(repeats: int, run):  # type: ignore[no-untyped-def]
    """``(best seconds, result, peak MB)``: the peak from one more run under tracemalloc, or (one run) from that
    run itself, timed under tracemalloc."""
    times, result = [], None
    for _ in range(repeats if repeats > 1 else 0):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return min(times) if times else seconds, result, peak


def row(name: str, k: int, repeats: int) -> dict:
    steps_of, independent = CASES[name]
    steps = steps_of(k)
    t_eps, by_delta, m_eps = best_of(repeats, lambda: compose_approximate(steps, delta=DELTA))
    eps = float(f"{float(by_delta.upper):.6g}")  # δ(ε) at about ε(1e-6)
    t_delta, r, m_delta = best_of(repeats, lambda: compose_approximate(steps, epsilon=eps))
    memory = max(m_eps, m_delta)
    start = time.perf_counter()
    reference = independent(k, eps)
    t_ref = time.perf_counter() - start
    return {
        "mechanism": name,
        "K": k,
        "exact": r.exact and by_delta.exact,
        "groups": max(r.groups, by_delta.groups),
        "epsilon": eps,
        "delta_lower": float(r.lower),
        "delta_upper": float(r.upper),
        "delta_rel_width": r.relative_width,
        "numpy_delta": reference,
        "lower_ratio": float(r.lower) / reference if reference else math.nan,
        "upper_ratio": float(r.upper) / reference if reference else math.nan,
        "s_delta": t_delta,
        "eps_lower": float(by_delta.lower),
        "eps_upper": float(by_delta.upper),
        "eps_rel_width": by_delta.relative_width,
        "s_epsilon": t_eps,
        "s_numpy": t_ref,
        "peak_MB": memory,
    }


def table(rows: list[dict]) -> str:
    head = (
        f"{'mechanism':10} {'K':>6} {'exact':>5} {'groups':>8} {'eps':>10} {'delta(eps) lower':>17} "
        f"{'rel.width':>9} {'numpy delta':>12} {'lower/numpy':>14} {'upper/numpy':>14} {'s':>6} "
        f"{'eps(1e-6) lower':>16} {'rel.width':>9} {'s':>6} {'s numpy':>7} {'peak MB':>7}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['mechanism']:10} {r['K']:>6} {str(r['exact']):>5} {r['groups']:>8} {r['epsilon']:>10.6g} "
            f"{r['delta_lower']:>17.10g} {r['delta_rel_width']:>9.2e} {r['numpy_delta']:>12.6g} "
            f"{r['lower_ratio']:>14.12f} {r['upper_ratio']:>14.12f} {r['s_delta']:>6.2f} {r['eps_lower']:>16.10g} "
            f"{r['eps_rel_width']:>9.2e} {r['s_epsilon']:>6.2f} "
            f"{r['s_numpy']:>7.2f} {r['peak_MB']:>7.1f}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="K <= 1000")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--only", help="comma-separated mechanisms")
    args = parser.parse_args()
    ks = [10, 100, 1000] + ([] if args.quick else [10000])
    names = args.only.split(",") if args.only else list(CASES)
    rows = []
    for name in names:
        for k in ks:
            rows.append(row(name, k, args.repeats if k < 10000 else 1))
            print(table(rows[-1:]).splitlines()[1], flush=True)
            # the independent sum (itself within about 1e-9) lies in the bracket
            assert rows[-1]["lower_ratio"] <= 1 + 1e-9 and rows[-1]["upper_ratio"] >= 1 - 1e-9, rows[-1]
    text = table(rows)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "compose.txt").write_text(text + "\n", encoding="utf-8")
    write_csv(rows, "compose.csv", digits=None)


if __name__ == "__main__":
    main()
