"""Benchmark: tight (ε, δ) of shuffled binary randomized response beside a plain numpy computation.

``rr_counting`` (the count of ones among n users' randomized responses, i.e. their shuffled
reports) with its proved pair set ``(1^k 0^(n-k), 1^(k+1) 0^(n-k-1))``, both orders, at
δ = 1e-6: the wall time of the command a user types (a fresh process, so imports and
start-up included), the time of the API call in this process, and an independent numpy
enumeration of the same quantity in the same run — the count distribution of each input as
a convolution of two binomials (``numpy.convolve``), then ε(δ) per pair by sorting the
likelihood ratios and solving ``A − e^ε B = δ`` on the right segment — with the ratio
wmcdp / numpy. The two ε must agree to 1e-9 (relative).

    python experiments/bench_approx.py [--sizes 100,500,1000]
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wmcdp import symmetry_sets  # noqa: E402
from wmcdp.programs import rr_counting  # noqa: E402
from wmcdp.notions.approximate import synthesize_approximate  # noqa: E402

DELTA = 1e-6
EPS0 = 1.0  # local epsilon of each user's randomized response


def binomial(n: int, p: float) -> np.ndarray:
    """P(Binomial(n, p) = c) for c = 0..n, through logs (no underflow to 0 before it is real)."""
    c = np.arange(n + 1)
    logs = np.array([math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) for k in c])
    with np.errstate(divide="ignore"):
        logs += c * math.log(p) + (n - c) * math.log1p(-p)
    return np.exp(logs)


def epsilon_for_delta(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """The smallest ε ≥ 0 with Σ max(0, p − e^ε q) ≤ δ, from the sorted likelihood ratios."""
    live = p > 0
    if np.any(live & (q == 0)) and p[live & (q == 0)].sum() > delta:
        return math.inf
    ratio = np.where(live & (q > 0), p / np.where(q > 0, q, 1), 0.0)
    order = np.argsort(-ratio)
    A, B = np.cumsum(p[order]), np.cumsum(q[order])
    r = ratio[order]
    for i in range(len(r)):
        nxt = r[i + 1] if i + 1 < len(r) else 0.0
        if A[i] - nxt * B[i] > delta:  # δ(t) on [next ratio, this ratio] is A − t B over the first i + 1
            return max(0.0, math.log((A[i] - delta) / B[i]))
    return 0.0


def numpy_epsilon(n: int, lam: float) -> float:
    """max over k of ε(δ) for (u_k, u_{k+1}) and its reverse: count | k ones = Bin(k, 1-λ) + Bin(n-k, λ)."""
    rows = [np.convolve(binomial(k, 1 - lam), binomial(n - k, lam)) for k in range(n + 1)]
    return max(max(epsilon_for_delta(rows[k], rows[k + 1], DELTA), epsilon_for_delta(rows[k + 1], rows[k], DELTA))
               for k in range(n))


def median_time(fn, repeats: int = 3) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,500,1000")
    args = ap.parse_args()
    lam = 1 / (1 + math.exp(EPS0))
    print(f"shuffled binary RR (rr_counting), local eps0 = {EPS0}, lam = {lam!r}, delta = {DELTA}, symmetry pair set")
    print(f"{'n':>6} {'epsilon':>14} {'command s':>10} {'API s':>8} {'numpy s':>8} {'API/numpy':>10}")
    for n in (int(v) for v in args.sizes.split(",")):
        command = [sys.executable, "-m", "wmcdp", "approx", "rr_counting", "-p", f"n={n}", "-p", f"lam={lam!r}",
                   "--delta", str(DELTA), "--sets", "symmetry", "--json"]
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        wall = time.perf_counter() - start

        def api():
            P, I = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
            return synthesize_approximate(rr_counting(n, lam), P, I, delta=DELTA).epsilon

        api_s, eps = median_time(api)
        numpy_s, reference = median_time(lambda: numpy_epsilon(n, lam))
        assert math.isclose(eps, reference, rel_tol=1e-9), (n, eps, reference)
        print(f"{n:>6} {eps:>14.10f} {wall:>10.2f} {api_s:>8.3f} {numpy_s:>8.3f} {api_s / numpy_s:>10.2f}")


if __name__ == "__main__":
    main()
