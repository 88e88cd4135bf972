"""The default plan beside the best proved plan on the shuffle rows of the accounting table.

``wmcdp approx rr_counting -p n=N -p lam=L --delta 1e-6`` with no plan and no sets (the planner's default; past
n = 1000 it checks that the program is the built-in itself, :func:`wmcdp.lang.registry.is_builtin`, and takes its
hand-proved pairs, :func:`wmcdp.plan.planned.planned_scale`) against the same with the hand-proved pair set
``symmetry_sets.PAIRS["rr_counting"]`` (``--sets symmetry``: no tracing; past n = 1000 the shuffled-RR
reductions of :mod:`wmcdp.plan.shuffled_rr`, below them the 2n listed pairs with rows by convolution), and the
default on the same mechanism under another name (a user's copy: the planner traces it, proves it a count of
``n`` independent identical two-report users and takes the shuffle at scale). Binary RR with ε0 = 4 and
ε0 = ln 3 (λ = 1/(1 + e^ε0)), as docs/accountants.md's shuffle table; ε at δ = 1e-6.

Columns: each route's wall seconds in this process (the best of ``--runs``; of the copy's, the tracing and structure
proof, :func:`planned_scale`, timed in a run of its own), the default's plan with its estimate before it ran
(:func:`wmcdp.plan.shuffled_binary.scaled_estimate`, the count of reports' :func:`wmcdp.plan.sums.counted_estimate`)
and measured over estimated, its plan, the ratios default / sets and copy / sets, and the ε of the default and the
sets. The run fails unless the three ε agree to 1e-8 relative (their certified enclosures have width below 1e-9
relative).

    python experiments/default_plan.py                      # n = 10^2 .. 10^5 (about 5 min)
    python experiments/default_plan.py --sizes 1000000      # chosen n
Writes experiments/results/default_plan.txt (with ``--write``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_io import RESULTS  # noqa: E402

from wmcdp import symmetry_sets, synthesize_approximate  # noqa: E402
from wmcdp.plan.planned import planned_scale  # noqa: E402
from wmcdp.programs import rr_counting  # noqa: E402

DELTA = 1e-6
EPSILON0 = {"4": 4.0, "ln 3": math.log(3)}


def best(run, runs: int) -> tuple:
    """``(result, seconds)`` of the quickest of ``runs`` calls of ``run``."""
    timed = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run()
        timed.append((time.perf_counter() - start, result))
    seconds, result = min(timed, key=lambda t: t[0])
    return result, seconds


def with_sets(n: int, lam: float):
    pairs, rows = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
    return synthesize_approximate(rr_counting(n, lam), pairs, rows, delta=DELTA)


def copy(n: int, lam: float):
    """``rr_counting(n, lam)`` under another name: no hand-proved pairs, the planner traces it."""
    return replace(rr_counting(n, lam), name="rr_counting_copy")


def row(label: str, epsilon0: float, n: int, runs: int) -> dict:
    lam = 1 / (1 + math.exp(epsilon0))
    default, seconds = best(lambda: synthesize_approximate(rr_counting(n, lam), delta=DELTA), runs)
    traced, traced_seconds = best(lambda: synthesize_approximate(copy(n, lam), delta=DELTA), runs)
    scale, proved = best(lambda: planned_scale(copy(n, lam), None, "bdd"), runs)  # the tracing and proof
    sets, sets_seconds = best(lambda: with_sets(n, lam), runs)
    for other, name in ((sets, "sets"), (traced, "copy")):
        if not math.isclose(default.epsilon, other.epsilon, rel_tol=1e-8):
            raise SystemExit(f"eps0 {label}, n = {n}: default {default.epsilon!r} against {name} {other.epsilon!r}")
    return {
        "eps0": label,
        "n": n,
        "default s": seconds,
        "default plan": default.plan.kind if default.plan is not None else "",
        "estimate s": default.plan.estimated_seconds,
        "copy s": traced_seconds,
        "proof s": proved if scale is not None else None,
        "sets s": sets_seconds,
        "ratio": seconds / sets_seconds,
        "copy ratio": traced_seconds / sets_seconds,
        "epsilon": default.epsilon,
        "sets epsilon": sets.epsilon,
    }


def table(rows: list[dict]) -> str:
    head = f"{'eps0':>5} {'n':>8} | {'default s':>9} {'plan':>16} {'estimate s':>10} {'measured/est.':>13} | "
    head += f"{'copy s':>7} {'of it: trace, proof':>19} | {'sets s':>7} | {'ratio':>6} {'copy ratio':>10} | "
    head += f"{'epsilon':>17} {'sets epsilon':>17}"
    lines = [head, "-" * len(head)]
    for r in rows:
        proof = "-" if r["proof s"] is None else f"{r['proof s']:.2f}"
        estimate, ratio = ("-", "-") if r["estimate s"] is None else (
            f"{r['estimate s']:.2f}", f"{r['default s'] / r['estimate s']:.2f}")
        lines.append(
            f"{r['eps0']:>5} {r['n']:>8} | {r['default s']:>9.2f} {r['default plan']:>16} {estimate:>10} "
            f"{ratio:>13} | {r['copy s']:>7.2f} {proof:>19} | "
            f"{r['sets s']:>7.2f} | {r['ratio']:>6.2f} {r['copy ratio']:>10.2f} | "
            f"{r['epsilon']:>17.12g} {r['sets epsilon']:>17.12g}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000,10000,100000", help="numbers of users (comma-separated)")
    parser.add_argument("--runs", type=int, default=2, help="best of this many runs of each (default 2)")
    parser.add_argument("--write", action="store_true", help="write experiments/results/default_plan.txt")
    args = parser.parse_args()
    row("4", 4.0, 20, 1)  # the imports and first compilations, before any timing
    rows = []
    for label, epsilon0 in EPSILON0.items():
        for n in (int(s) for s in args.sizes.split(",")):
            try:
                rows.append(row(label, epsilon0, n, args.runs))
            except Exception as exc:  # a refusal of either route: reported, the table goes on
                print(f"eps0 {label}, n = {n}: {exc}", flush=True)
                continue
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = f"python {' '.join(sys.argv)}\n\n{table(rows)}\n"
    print("\n" + text)
    if args.write:
        (RESULTS / "default_plan.txt").write_text(text)


if __name__ == "__main__":
    main()
