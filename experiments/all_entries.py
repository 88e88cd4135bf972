"""(ε, δ) of a product under all-entries: wmcdp's product plan beside an independent numpy enumeration.

Randomized response on n bits under ``all-entries`` (any set of bits may flip between neighbours): δ(ε = 1)
is the maximum over every pair x ≠ x' of Σ_y max(0, P(y|x) − e P(y|x')). The numpy side builds the whole
2^n × 2^n matrix P(y|x) = λ^|x⊕y| (1−λ)^(n−|x⊕y|) and takes that maximum over all 4^n − 2^n pairs directly;
wmcdp plans a product of n one-bit parts and composes their dominant pairs' loss distributions. Both run in
this process, best of ``--repeat`` runs each, in float64; the two δ must agree to 1e-9. Larger n are wmcdp
alone (the enumeration needs 2^(3n) cells).

    python experiments/all_entries.py [--repeat 3]
Writes experiments/results/all_entries.txt.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from wmcdp import synthesize_approximate  # noqa: E402
from wmcdp.programs import randomized_response  # noqa: E402

RESULTS = HERE / "results"
LAM, EPS = 0.2, 1.0


def numpy_delta(n: int) -> float:
    """max over x != x' of sum_y max(0, P(y|x) - e^EPS P(y|x')), by enumerating every pair."""
    codes = np.arange(2**n)
    flips = np.array([bin(v).count("1") for v in range(2**n)])[codes[:, None] ^ codes[None, :]]
    P = LAM**flips * (1 - LAM) ** (n - flips)
    t = math.exp(EPS)
    best = 0.0
    for x in range(2**n):
        d = np.maximum(0.0, P[x][None, :] - t * P).sum(axis=1)
        d[x] = 0.0
        best = max(best, float(d.max()))
    return best


def wmcdp_delta(n: int):
    return synthesize_approximate(randomized_response(n, LAM), epsilon=EPS, neighbours="all-entries", exact=False)


def best_of(run, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = [f"{'n':>5} {'delta(eps=1)':>22} {'wmcdp s':>9} {'numpy s':>9} {'numpy/wmcdp':>12} {'plan':>8}"]
    for n in (4, 6, 8, 10, 100, 1000):
        w_s, r = best_of(lambda n=n: wmcdp_delta(n), args.repeat)
        if n <= 10:
            n_s, ref = best_of(lambda n=n: numpy_delta(n), args.repeat)
            assert math.isclose(r.delta, ref, rel_tol=1e-9), (n, r.delta, ref)
            lines.append(f"{n:>5} {r.delta:>22.15g} {w_s:>9.3f} {n_s:>9.3f} {n_s / w_s:>12.1f} {r.plan.kind:>8}")
        else:
            lines.append(f"{n:>5} {r.delta:>22.15g} {w_s:>9.3f} {'-':>9} {'-':>12} {r.plan.kind:>8}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "all_entries.txt").write_text(text)


if __name__ == "__main__":
    main()
