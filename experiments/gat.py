"""Geometric above threshold: exhaustive tight eps, BDD sizes and seconds (paper Sec. 6.2, Fig. 2).

Grid of the paper's artifact: n = 2..6, k = 1..3, t = k - 1, scale = 0.2, neighbours
"one entry moves by one". Per point it prints the tight eps (exhaustive sets), the BDD
size of phi(x, y, theta) with symbolic inputs (``Compiled.size``), the size of the
output-bit functions for concrete inputs (smallest and largest over all inputs,
:meth:`wmcdp.compile.Compiled.output_size`), and the seconds for compiling plus Algorithm 2.

The paper's Fig. 2 (91 nodes at k = 3, n = 6) counts what Dice compiled: one program per
concrete input, the BDDs of its output bits. The per-input column is that quantity
(85 nodes at k = 3, n = 6, for every input); phi is larger because it also holds the
input bits (every input at once) and the output bits y.

    python experiments/gat.py
Writes experiments/results/fig2_gat_sizes.csv and fig2_gat_sizes.png.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from wmcdp.programs import geometric_above_threshold  # noqa: E402
from results_io import RESULTS, write_csv  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402

SCALE, KS, NS = 0.2, (1, 2, 3), range(2, 7)


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
    print(f"geometric above threshold, t = k - 1, scale = {SCALE}, neighbours one-entry, exhaustive sets, BDD")
    print(f"{'k':>2} {'n':>2} {'inputs':>6} {'epsilon':>10} {'phi size':>9} {'per-input min..max':>19} {'seconds':>8}")
    rows = []
    for k in KS:
        for n in NS:
            start = time.perf_counter()
            compiled = compile_program(geometric_above_threshold(n, k, k - 1, scale=SCALE))
            epsilon = synthesize_privacy(compiled).epsilon
            seconds = time.perf_counter() - start
            per_input = [compiled.output_size(x) for x in compiled.domain.values()]
            rows.append(dict(k=k, n=n, inputs=compiled.domain.size, phi_size=compiled.size,
                             per_input_min=min(per_input), per_input_max=max(per_input), epsilon=epsilon,
                             seconds=seconds))
            sizes = f"{min(per_input)}..{max(per_input)}"
            print(f"{k:>2} {n:>2} {compiled.domain.size:>6} {epsilon:>10.6f} {compiled.size:>9} {sizes:>19} "
                  f"{seconds:>8.3f}", flush=True)
    path = write_csv(rows, "fig2_gat_sizes.csv")
    plot(rows, RESULTS / "fig2_gat_sizes.png")
    print(f"wrote {path} and {RESULTS / 'fig2_gat_sizes.png'}")


if __name__ == "__main__":
    main()
