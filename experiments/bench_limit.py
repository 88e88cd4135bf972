"""Benchmark: wmcdp's exhaustive runs beside an independent numpy enumeration of the same mechanism.

Every case runs wmcdp and a plain numpy computation of the same quantity in the same run,
each in a fresh subprocess (so each one's peak memory is its own), alternating, three times;
the table shows the medians, the ratio wmcdp / numpy and both peak memories. The numpy side
shares no code with wmcdp: it writes down P(y | x) for all inputs and outputs from the
mechanism's definition (DESIGN.md, programs/*.py docstrings) and takes the maximum ratio over
neighbours (or the minimum accuracy) directly; it agrees with wmcdp's value to 1e-9 or the
run fails.

    python experiments/bench_limit.py                 # every case (several minutes)
    python experiments/bench_limit.py rr-12 hist-6    # some cases
    python experiments/bench_limit.py --list

Cases without a numpy counterpart of the same size (symmetry sets, which no enumeration can
reach) report wmcdp alone against the closed form.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LAM, EPS0 = 0.2, 0.7


# -- numpy references (independent of wmcdp) ------------------------------------------------

def tgeom_matrix(values: range, lo: int, hi: int, a: float) -> np.ndarray:
    """K[c, z] = P(TGeom_a(c) = z) on {lo..hi} (truncated geometric, DESIGN.md)."""
    zs = np.arange(lo, hi + 1)
    out = np.empty((len(values), len(zs)))
    for row, c in enumerate(values):
        p = (1 - a) / (1 + a) * a ** np.abs(zs - c)
        p[0] = a ** (c - lo) / (1 + a)
        p[-1] = a ** (hi - c) / (1 + a)
        out[row] = p
    return out


def max_ratio_slices(P: np.ndarray, n: int, k: int, steps: list[tuple[int, ...]]) -> float:
    """max over x ~ x' (x' = x + step, both orders) and y of ln(P[x, y] / P[x', y]); P rows in lexicographic order."""
    grid = P.reshape((k,) * n + (P.shape[1],))
    best = -math.inf
    for step in steps:
        a = tuple(slice(0, k - 1) if s > 0 else slice(1, k) if s < 0 else slice(None) for s in step)
        b = tuple(slice(1, k) if s > 0 else slice(0, k - 1) if s < 0 else slice(None) for s in step)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = grid[a] / grid[b]
        best = max(best, math.log(np.nanmax(r)), -math.log(np.nanmin(r)))
    return best


def unit_steps(n: int) -> list[tuple[int, ...]]:
    return [tuple(1 if j == i else 0 for j in range(n)) for i in range(n)]


def all_steps(n: int) -> list[tuple[int, ...]]:
    import itertools
    return [s for s in itertools.product((-1, 0, 1), repeat=n) if any(s) and [v for v in s if v][0] == 1]


def ref_rr(n: int) -> float:
    """Randomized response: every one of the 2^n flip vectors f has weight lam^|f| (1-lam)^(n-|f|), y = x xor f."""
    N = 1 << n
    codes = np.arange(N, dtype=np.int64)
    ones = np.zeros(N, dtype=np.int64)
    for i in range(n):
        ones += (codes >> i) & 1
    w = LAM ** ones * (1 - LAM) ** (n - ones)
    best = -math.inf
    stripe = min(N, max(1, (1 << 24) // N))  # output stripes keep the table small
    for y0 in range(0, N, stripe):
        P = w[codes[:, None] ^ codes[None, y0:y0 + stripe]]
        best = max(best, max_ratio_slices(P, n, 2, unit_steps(n)))
    return best


def ref_histogram(n: int, m: int = 2, margin: int = 1) -> float:
    """Histogram: each count gets its own truncated geometric noise (a = e^-eps0); P is a Kronecker product."""
    K = tgeom_matrix(range(m + 1), -margin, m + margin, math.exp(-EPS0))
    P = K
    for _ in range(n - 1):
        P = np.kron(P, K)
    return max_ratio_slices(P, n, m + 1, unit_steps(n))


def _tgeom_cdfs(m: int, margin: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    K = tgeom_matrix(range(m + 1), -margin, m + margin, a)
    below = np.cumsum(K, axis=1) - K   # P(v < z)
    return K, below


def ref_noisy_max(n: int, m: int = 2, margin: int = 1) -> float:
    """Report noisy max: P(i | x) = sum_z P(v_i = z) prod_{j<i} P(v_j < z) prod_{j>i} P(v_j <= z)."""
    K, below = _tgeom_cdfs(m, margin, math.exp(-EPS0 / 2))
    upto = below + K
    X = np.array(np.unravel_index(np.arange((m + 1) ** n), (m + 1,) * n)).T  # inputs, lexicographic
    P = np.zeros((len(X), n))
    for i in range(n):
        term = K[X[:, i]]
        for j in range(n):
            if j != i:
                term = term * (below[X[:, j]] if j < i else upto[X[:, j]])
        P[:, i] = term.sum(axis=1)
    return max_ratio_slices(P, n, m + 1, all_steps(n))


def ref_sparse_vector(n: int, m: int = 2, margin: int = 1, T: int = 1) -> float:
    """Sparse vector with N = 1: answers FALSE until the first i with v_i >= T^ (TRUE), then stopped.

    P(first TRUE at i) = sum_t P(T^ = t) prod_{j<i} P(v_j < t) P(v_i >= t); every other of the 3^n
    output codes has probability 0. Query noise ratio a = e^(-eps0/2), threshold the same (N = 1).
    """
    a = math.exp(-EPS0 / 2)
    K, below = _tgeom_cdfs(m, margin, a)
    thr = tgeom_matrix(range(T, T + 1), -margin, m + margin, a)[0]
    X = np.array(np.unravel_index(np.arange((m + 1) ** n), (m + 1,) * n)).T
    codes = []
    for i in range(n + 1):  # first TRUE at i (i = n: none), as the output code in base 3
        digits = [0] * i + ([1] + [2] * (n - i - 1) if i < n else [])
        codes.append(int("".join(map(str, digits)), 3))
    P = np.zeros((len(X), 3 ** n))
    survive = np.ones((len(X), K.shape[1]))  # P(all earlier v_j < t) per threshold value t
    for i in range(n):
        P[:, codes[i]] = (survive * (1 - below[X[:, i]])) @ thr
        survive = survive * below[X[:, i]]
    P[:, codes[n]] = survive @ thr
    return max_ratio_slices(P, n, m + 1, all_steps(n))


def ref_rr_counting_accuracy(n: int, alpha: int = 3) -> float:
    """RR counting: for x with k ones the count is Bin(k, 1-lam) + Bin(n-k, lam); 1 - beta = min_x P(|count - k| <= alpha).

    Inputs with the same number of ones share a distribution, so this takes n + 1 of them (it is a
    check of the value, far quicker than any enumeration of the 2^n inputs).
    """
    from math import comb
    worst = 1.0
    for k in range(n + 1):
        keep = np.array([comb(k, j) * (1 - LAM) ** j * LAM ** (k - j) for j in range(k + 1)])
        flip = np.array([comb(n - k, j) * LAM ** j * (1 - LAM) ** (n - k - j) for j in range(n - k + 1)])
        dist = np.convolve(keep, flip)
        worst = min(worst, float(dist[max(0, k - alpha):k + alpha + 1].sum()))
    return worst


# -- the cases ------------------------------------------------------------------------------

def _privacy(name: str, **params) -> tuple[float, str]:
    from wmcdp.programs import PROGRAMS
    from wmcdp import synthesize_privacy
    r = synthesize_privacy(PROGRAMS[name](**params), force=True)
    return r.epsilon, f"{r.witness.x}/{r.witness.x_prime}/{r.witness.y}"


def _spread(name: str, workers: int | None, **params) -> tuple[float, str]:
    """Privacy over exhaustive sets on ``workers`` local processes (the cluster starts before the clock)."""
    from wmcdp import synthesize_privacy
    from wmcdp.count.distributed import Workers
    from wmcdp.lang.registry import build_program
    program = build_program(name, params)
    if workers is None:
        r = synthesize_privacy(program, force=True)
    else:
        with Workers(workers) as pool:
            start = time.perf_counter()
            r = synthesize_privacy(program, force=True, workers=pool)
            _spread.seconds = time.perf_counter() - start
    return r.epsilon, f"{r.witness.x}/{r.witness.x_prime}/{r.witness.y}"


def _accuracy(n: int) -> tuple[float, str]:
    from wmcdp.programs import rr_counting
    from wmcdp import synthesize_accuracy
    r = synthesize_accuracy(rr_counting(n, LAM), alpha=3, force=True)
    return float(r.one_minus_beta), str(r.witness)


def _symmetry(n: int) -> tuple[float, str]:
    from wmcdp.programs import randomized_response
    from wmcdp.symmetry_sets import randomized_response as sets
    from wmcdp import synthesize_privacy
    r = synthesize_privacy(randomized_response(n, LAM), sets.privacy_set(n), sets.privacy_inference_set(n))
    return r.epsilon, f"ratio {float(r.ratio):.15g}"


CASES = {
    "rr-10": ("RR privacy exhaustive n = 10", lambda: _privacy("randomized_response", n=10, lam=LAM),
              lambda: ref_rr(10), 3),
    "rr-12": ("RR privacy exhaustive n = 12", lambda: _privacy("randomized_response", n=12, lam=LAM),
              lambda: ref_rr(12), 3),
    "rr-13": ("RR privacy exhaustive n = 13", lambda: _privacy("randomized_response", n=13, lam=LAM),
              lambda: ref_rr(13), 3),
    "hist-6": ("histogram n = 6, m = 2", lambda: _privacy("histogram", n=6, m=2, eps0=EPS0),
               lambda: ref_histogram(6), 5),
    "max-8": ("noisy max n = 8, m = 2", lambda: _privacy("noisy_max", n=8, m=2, eps0=EPS0),
              lambda: ref_noisy_max(8), 5),
    "svt-7": ("sparse vector n = 7, T = 1, N = 1", lambda: _privacy("sparse_vector", n=7, m=2, T=1, N=1, eps0=EPS0),
              lambda: ref_sparse_vector(7), 5),
    "count-18": ("RR-counting accuracy exhaustive n = 18, alpha = 3", lambda: _accuracy(18),
                 lambda: ref_rr_counting_accuracy(18), None),
    "rr-15": ("RR privacy exhaustive n = 15", lambda: _privacy("randomized_response", n=15, lam=LAM),
              lambda: ref_rr(15), None),
    "sym-5000": ("RR privacy symmetry sets n = 5000", lambda: _symmetry(5000), lambda: math.log(4), None),
}

#: --workers 2 against the serial run: (title, program, parameters)
SPREAD = {
    "rr-13-w2": ("RR privacy exhaustive n = 13, --workers 2", "randomized_response", {"n": 13, "lam": LAM}),
    "hist-6-w2": ("histogram n = 6, m = 2, --workers 2", "histogram", {"n": 6, "m": 2, "eps0": EPS0}),
}


def run_one(case: str, impl: str) -> None:
    """Child process: one implementation of one case; prints its value and seconds as JSON."""
    if impl != "numpy":  # imports are not part of the run (wmcdp loads its modules on first use)
        import wmcdp.programs, wmcdp.symmetry_sets, wmcdp.notions.accuracy, wmcdp.notions.privacy  # noqa: F401,E401
    if case in SPREAD:
        _, name, params = SPREAD[case]
        start = time.perf_counter()
        value, witness = _spread(name, 2 if impl == "workers" else None, **params)
        seconds = getattr(_spread, "seconds", time.perf_counter() - start)
        print(json.dumps({"value": value, "witness": witness, "seconds": seconds}))
        return
    _, wm, ref, _ = CASES[case]
    start = time.perf_counter()
    if impl == "wmcdp":
        value, witness = wm()
    else:
        value, witness = ref(), ""
    print(json.dumps({"value": value, "witness": witness, "seconds": time.perf_counter() - start}))


def _peak_mb(case: str, impl: str) -> tuple[dict, float]:
    """Run in a child and read its own peak RSS (ru_maxrss of that child alone)."""
    proc = subprocess.Popen([sys.executable, __file__, "--run", case, impl], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{case} {impl} failed")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--run", nargs=2, metavar=("CASE", "IMPL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run_one(*args.run)
        return
    if args.list:
        for name, (title, *_rest) in {**CASES, **SPREAD}.items():
            print(f"{name:<10} {title}")
        return
    chosen = args.cases or list(CASES) + list(SPREAD)
    print(f"{'case':<48} {'wmcdp s':>9} {'numpy s':>9} {'ratio':>6} {'target':>7} {'wmcdp MB':>9} {'numpy MB':>9}"
          "  value")
    for name in [c for c in chosen if c in CASES]:
        title, _, _, target = CASES[name]
        times = {"wmcdp": [], "numpy": []}
        peaks = {"wmcdp": 0.0, "numpy": 0.0}
        values = {}
        for _ in range(args.repeat):
            for impl in ("wmcdp", "numpy"):
                data, peak = _peak_mb(name, impl)
                times[impl].append(data["seconds"])
                peaks[impl] = max(peaks[impl], peak)
                values[impl] = data["value"]
        if not math.isclose(values["wmcdp"], values["numpy"], rel_tol=1e-9, abs_tol=1e-12):
            raise SystemExit(f"{name}: wmcdp {values['wmcdp']!r} but numpy {values['numpy']!r}")
        w, r = statistics.median(times["wmcdp"]), statistics.median(times["numpy"])
        target_text = f"<= {target}x" if target else "-"
        ratio = f"{w / r:>6.2f}" if target else f"{'-':>6}"
        print(f"{title:<48} {w:>9.3f} {r:>9.3f} {ratio} {target_text:>7} {peaks['wmcdp']:>9.0f} "
              f"{peaks['numpy']:>9.0f}  {values['wmcdp']:.12g}", flush=True)
    spread = [c for c in chosen if c in SPREAD]
    if spread:
        print(f"\n{'case':<48} {'serial s':>9} {'2 workers s':>12} {'speed-up':>9}  same bound and witness")
    for name in spread:
        runs = {"wmcdp": [], "workers": []}
        for _ in range(args.repeat):
            for impl in runs:
                runs[impl].append(_peak_mb(name, impl)[0])
        same = all((a["value"], a["witness"]) == (b["value"], b["witness"]) for a in runs["wmcdp"] for b in runs["workers"])
        if not same:
            raise SystemExit(f"{name}: the workers' bound or witness differs from the serial run")
        w = statistics.median(d["seconds"] for d in runs["wmcdp"])
        d = statistics.median(d["seconds"] for d in runs["workers"])
        print(f"{SPREAD[name][0]:<48} {w:>9.3f} {d:>12.3f} {w / d:>9.2f}  yes", flush=True)


if __name__ == "__main__":
    main()
