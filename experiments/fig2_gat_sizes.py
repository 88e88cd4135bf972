"""Paper Fig. 2: BDD sizes of geometric above threshold for n = 2..6 and k = 1..3.

``geometric_above_threshold(n, k, t = k - 1, scale = 0.2)`` with the paper artifact's
neighbours (one entry moves by one). Per (k, n): the size of phi with symbolic inputs
(wmcdp compiles once), the largest size over all concrete inputs of the BDD of the
output bits (what Dice reports, compiling one program per input;
``Compiled.output_size``), and the tight epsilon on exhaustive sets.

    python experiments/fig2_gat_sizes.py
Writes experiments/results/fig2_gat_sizes.csv and fig2_gat_sizes.png.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from programs import PROGRAMS  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402

SCALE, KS, NS = 0.2, (1, 2, 3), range(2, 7)
RESULTS = HERE / "results"


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for k in KS:
        mine = [r for r in rows if r["k"] == k]
        ns = [r["n"] for r in mine]
        left.plot(ns, [r["per_input_max"] for r in mine], marker="o", label=f"k = {k}")
        right.plot(ns, [r["phi_size"] for r in mine], marker="o", label=f"k = {k}")
    left.set(title="(a) per concrete input (as Dice, paper Fig. 2)", ylabel="BDD size (nodes, largest input)")
    right.set(title="(b) phi with symbolic inputs (wmcdp, compiled once)", ylabel="BDD size (nodes)")
    for ax in (left, right):
        ax.set(xlabel="list length n", xticks=list(NS))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"geometric above threshold, t = k - 1, scale = {SCALE}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    gat = PROGRAMS["geometric_above_threshold"]
    print(f"Fig. 2: geometric_above_threshold, t = k - 1, scale = {SCALE}, exhaustive sets, one-entry neighbours")
    print(f"{'k':>2} {'n':>2} {'inputs':>6} {'phi size':>9} {'per-input max':>13} {'epsilon':>10} {'seconds':>8}")
    rows = []
    for k in KS:
        for n in NS:
            start = time.perf_counter()
            compiled = compile_program(gat(n=n, k=k, t=k - 1, scale=SCALE))
            epsilon = synthesize_privacy(compiled).epsilon
            seconds = time.perf_counter() - start
            per_input = max(compiled.output_size(x) for x in compiled.domain.values())
            rows.append(dict(k=k, n=n, inputs=compiled.domain.size, phi_size=compiled.size,
                             per_input_max=per_input, epsilon=epsilon, seconds=seconds))
            print(f"{k:>2} {n:>2} {compiled.domain.size:>6} {compiled.size:>9} {per_input:>13} {epsilon:>10.6f} "
                  f"{seconds:>8.3f}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "fig2_gat_sizes.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in r.items()} for r in rows)
    plot(rows, RESULTS / "fig2_gat_sizes.png")
    print(f"wrote {RESULTS / 'fig2_gat_sizes.csv'} and {RESULTS / 'fig2_gat_sizes.png'}")


if __name__ == "__main__":
    main()
