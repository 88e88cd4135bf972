"""Unbounded noise beside the margin-1 clamp: seconds and eps of the shared-noise programs at n = 10 .. 160.

For each program (CheckDP's SVT, NoisyMax, GapSVT, NumSVT, MonotoneSVT at ``m = 1``, ``alpha = 1/2``) and size, two
fresh ``wmcdp privacy ... --json`` processes under ``--timeout``: with ``noise=unbounded`` (the mechanism as
published; a program that declares its law is answered exactly from it, :mod:`wmcdp.notions.declared`, else in
windows) and with the default truncated noise at margin 1 (the clamp). The table prints both eps and both wall
times (the process's, start-up included), their ratio (unbounded / clamp: the issue's target is at most 3), the
plan that answered and the declared plan's estimate beside its measured seconds. A run that stops prints why.

    taskset -c 0 python experiments/unbounded_speed.py --timeout 60          # results/unbounded_speed.*
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peers_suite import log_ratio, run  # noqa: E402
from results_io import RESULTS, write_csv  # noqa: E402

PROGRAMS = {
    "svt": {"m": 1, "T": 1, "N": 1},
    "noisy_max": {"m": 1},
    "gap_svt": {"m": 1, "T": 1, "N": 1},
    "num_svt": {"m": 1, "T": 1, "N": 1},
    "monotone_svt": {"m": 1, "T": 1, "N": 1},
}
SIZES = (10, 20, 40, 80, 160)


def measure(program: str, n: int, timeout: float, memory: str) -> dict:
    """One row: both runs of ``program`` at ``n``."""
    params = {**PROGRAMS[program], "n": n, "alpha": "1/2"}
    row: dict = {"program": program, "n": n}
    for key, extra in (("unbounded", {"noise": "unbounded"}), ("clamp", {})):
        out, why = run(program, {**params, **extra}, timeout, memory)
        if out is None:
            row.update({f"{key}_eps": "", f"{key}_sec": "", f"{key}_why": why})
            continue
        row[f"{key}_eps"] = log_ratio(out["ratio_exact"] if out.get("ratio_exact") else out["ratio"])
        row[f"{key}_sec"] = out["wall"]
        row[f"{key}_why"] = ""
        if key == "unbounded":
            plan = out.get("plan") or {}
            row["plan"] = plan.get("kind", "")
            row["estimated"] = plan.get("estimated_seconds") if plan.get("kind") == "declared" else ""
            row["plan_sec"] = plan.get("seconds", "")
    both = row["unbounded_sec"] != "" and row["clamp_sec"] != ""
    row["ratio"] = row["unbounded_sec"] / row["clamp_sec"] if both else ""
    return row


def table(rows: list[dict]) -> str:
    head = f"{'program':<13} {'n':>4} {'eps unbounded':>14} {'sec':>7} {'eps clamp':>10} {'sec':>7} {'ratio':>6}  plan"
    lines = [head, "-" * len(head)]
    for r in rows:
        eps = f"{r['unbounded_eps']:.10g}" if r["unbounded_eps"] != "" else "-"
        sec = f"{r['unbounded_sec']:.2f}" if r["unbounded_sec"] != "" else "-"
        ceps = f"{r['clamp_eps']:.4g}" if r["clamp_eps"] != "" else "-"
        csec = f"{r['clamp_sec']:.2f}" if r["clamp_sec"] != "" else "-"
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] != "" else "-"
        plan = r.get("plan", "")
        if r.get("estimated") not in ("", None):
            plan += f" (estimated {r['estimated']:.2g} s, ran {r['plan_sec']:.2f} s)"
        lines.append(f"{r['program']:<13} {r['n']:>4} {eps:>14} {sec:>7} {ceps:>10} {csec:>7} {ratio:>6}  {plan}")
    stops = [(r["program"], r["n"], r[k]) for r in rows for k in ("unbounded_why", "clamp_why") if r[k]]
    if stops:
        lines += ["", "runs that stopped:"] + [f"  {p} n={n}: {why}" for p, n, why in stops]
    lines += [
        "",
        "eps unbounded: the mechanism as published (two-sided geometric noise on all of Z), exact where the program",
        "declares its law; eps clamp: the margin-1 truncated noise; sec: wall seconds of a fresh process each;",
        "ratio: unbounded seconds / clamp seconds.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--memory", default="8G")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--only", default=",".join(PROGRAMS))
    parser.add_argument("--name", default="unbounded_speed")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for program in args.only.split(","):
        for n in sizes:
            rows.append(measure(program, n, args.timeout, args.memory))
            print(table(rows[-1:]).splitlines()[2], flush=True)
    write_csv(rows, f"{args.name}.csv", digits=None)
    text = table(rows)
    (RESULTS / f"{args.name}.txt").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
