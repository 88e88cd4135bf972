"""Paper Fig. 3: RR-counting accuracy, diagram sizes and durations over n.

Tight (alpha, beta)-accuracy of ``rr_counting(n, lambda = 0.2)`` at alpha = 3 for
n = 2..22, with exhaustive sets (all 2^n inputs, all n + 1 outputs; the series stops at
the first point over ``--budget`` seconds) and with the symmetry sets of paper eqs. 10-11
(n + 1 inputs). The BDD is compiled once per n with symbolic inputs, so its size does
not depend on the sets. Duration = compilation + Algorithm 3 (sets built inside).

    python experiments/fig3_accuracy.py
Writes experiments/results/fig3_accuracy.csv and fig3_accuracy.png.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from wmcdp.programs import rr_counting  # noqa: E402
from results_io import RESULTS, write_csv  # noqa: E402
from wmcdp.symmetry_sets import randomized_response as rr_sets  # noqa: E402
from wmcdp import compile_program, synthesize_accuracy  # noqa: E402
from wmcdp.base.limits import LimitExceeded  # noqa: E402

LAM, ALPHA, NS = 0.2, 3, range(2, 23)


def point(n: int, sets: str, budget: float) -> dict:
    """One run; a run over twice the budget is stopped (the series stops after the first over budget)."""
    start = time.perf_counter()
    compiled = compile_program(rr_counting(n, LAM))
    if sets == "symmetry":
        A, I = rr_sets.accuracy_set(n), rr_sets.accuracy_inference_set(n, ALPHA)
    else:
        A = I = None
    try:
        r = synthesize_accuracy(compiled, A, None, ALPHA, I, force=True, timeout=2 * budget)
    except LimitExceeded:
        return dict(sets=sets, n=n, bdd_size=compiled.size, seconds=time.perf_counter() - start,
                    one_minus_beta="", status=f"stopped after {2 * budget:g} s")
    return dict(sets=sets, n=n, bdd_size=compiled.size, seconds=time.perf_counter() - start,
                one_minus_beta=float(r.one_minus_beta), status="ok")


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    sizes = sorted({(r["n"], r["bdd_size"]) for r in rows})
    left.plot(*zip(*sizes), marker="o")
    left.set(xlabel="number of clients n", ylabel="BDD size (nodes)", title="(a) BDD size of phi (any sets)")
    for sets in ("exhaustive", "symmetry"):
        pts = [(r["n"], r["seconds"]) for r in rows if r["sets"] == sets and r["status"] == "ok"]
        right.plot(*zip(*pts), marker="o", label=f"{sets} sets")
    right.set(xlabel="number of clients n", ylabel="duration (s, log scale)", yscale="log",
              title="(b) compile + Algorithm 3")
    right.legend()
    for ax in (left, right):
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(alpha=0.3)
    fig.suptitle(f"RR counting accuracy, lambda = {LAM}, alpha = {ALPHA}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0, help="stop the exhaustive series after a point "
                        "over this many seconds (default 60)")
    args = parser.parse_args()
    print(f"Fig. 3: rr_counting accuracy, lambda = {LAM}, alpha = {ALPHA}")
    print(f"{'sets':<10} {'n':>3} {'BDD size':>9} {'seconds':>9} {'1 - beta':>12}  status")
    rows = []
    for sets in ("exhaustive", "symmetry"):
        for n in NS:
            row = point(n, sets, args.budget)
            rows.append(row)
            bound = "-" if row["one_minus_beta"] == "" else f"{row['one_minus_beta']:.8f}"
            print(f"{sets:<10} {n:>3} {row['bdd_size']:>9} {row['seconds']:>9.3f} {bound:>12}  {row['status']}",
                  flush=True)
            if row["seconds"] > args.budget:
                print(f"{sets} series stopped: n = {n} took over {args.budget:g} s")
                break
    path = write_csv(rows, "fig3_accuracy.csv")
    plot(rows, RESULTS / "fig3_accuracy.png")
    print(f"wrote {path} and {RESULTS / 'fig3_accuracy.png'}")


if __name__ == "__main__":
    main()
