"""CheckDP's seventeen benchmark programs, answered exactly by wmcdp at n = 2, 3, 5, 10 queries.

Per program (:data:`wmcdp.programs.CHECKDP`): the claimed e^eps, wmcdp's exact e^eps and its
witness at each n, the seconds of the default plan, and the literature's verdict. Every run is a
fresh ``wmcdp privacy ... --json`` process under ``--timeout`` seconds and ``--max-memory``; a row
stops at its first run over a limit and prints "-" for the larger n. The noise ratio is the exact
``alpha = 1/2`` (every probability rational); the other parameters are the benchmark's small ones
(answers in {0..m}, m = 1, margin 1). Runs are one at a time; pin the process to a core with
``taskset -c 0`` on a shared machine.

    taskset -c 0 python experiments/peers_suite.py --timeout 60       # writes results/peers_suite.txt, .csv

CheckDP (Wang, Ding, Kifer, Zhang, CCS 2020) proves the correct programs and finds a counterexample
for the incorrect ones, each within 70 s (its abstract), for every input size; its per-program
times are in its Table 2 and are not reproduced here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from results_io import RESULTS, write_csv  # noqa: E402

from wmcdp.programs import CHECKDP  # noqa: E402

SIZES = [2, 3, 5, 10]
ALPHA = Fraction(1, 2)


def run(program: str, n: int, params: dict, timeout: float, memory: str) -> tuple[dict | None, str]:
    """The JSON of ``wmcdp privacy`` with the process's wall seconds, or None and why the run stopped."""
    cmd = [sys.executable, "-m", "wmcdp", "privacy", program, "-p", f"n={n}", "-p", f"alpha={ALPHA}"]
    cmd += [arg for k, v in params.items() for arg in ("-p", f"{k}={v}")]
    cmd += ["--json", "--timeout", str(timeout), "--max-memory", memory]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return None, f"killed after {timeout + 30:g} s"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return None, why.removeprefix("wmcdp: error: ").split(";")[0][:110]
    out = json.loads(done.stdout)
    out["wall"] = time.perf_counter() - start
    return out, ""


def compact(witness: dict) -> str:
    """``x/x'/y``: the inputs' digits run together, the output as a tuple (``001/110/((0,0),(0,0),(1,1))``)."""
    x, xp = ("".join(str(v) for v in witness[k]) for k in ("x", "x_prime"))
    y = json.dumps(witness["y"], separators=(",", ":")).replace("[", "(").replace("]", ")")
    return f"{x}/{xp}/{y}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    ap.add_argument("--max-memory", default="4G", help="memory per run (default 4G)")
    ap.add_argument("--only", help="comma-separated CheckDP names")
    args = ap.parse_args(argv)
    chosen = [b for b in CHECKDP if not args.only or b.name in args.only.split(",")]
    rows, lines, stops = [], [], []
    header = f"{'program':<15} {'built-in':<17} {'claim':>6} " + " ".join(f"{'n=' + str(n):>22}" for n in SIZES)
    lines += [header, "-" * len(header)]
    for b in chosen:
        claim = ALPHA ** -b.claim_power(b.params)
        cells, stopped = [], False
        for n in SIZES:
            out, why = (None, "") if stopped else run(b.program, n, b.params, args.timeout, args.max_memory)
            row = {"program": b.name, "builtin": b.program, "n": n, "claim_ratio": str(claim), "private": b.private}
            if out is None:
                if not stopped:
                    stops.append(f"  {b.name:<15} n={n:<3} {why}")
                stopped = True
                cells.append(f"{'-':>22}")
                rows.append({**row, "ratio": "", "epsilon": "", "witness": "", "seconds": "", "wall": "", "stop": why})
                continue
            ratio = out["ratio_exact"]
            exact = Fraction(ratio) if ratio != "inf" else None
            shown = "inf" if exact is None else format(float(exact), ".4g")
            mark = "!" if exact is None or exact > claim else " "
            cells.append(f"{shown + mark + ' ' + format(out['seconds'], '.2f') + ' s':>22}")
            rows.append(
                {
                    **row,
                    "ratio": ratio,
                    "epsilon": out["epsilon"],
                    "witness": compact(out["witness"]),
                    "seconds": out["seconds"],
                    "wall": out["wall"],
                    "stop": "",
                }
            )
            print(f"{b.name} n={n}: e^eps = {ratio} in {out['seconds']:.2f} s", file=sys.stderr, flush=True)
        verdict = "private" if b.private else "not private"
        lines.append(f"{b.name:<15} {b.program:<17} {str(claim):>6} " + " ".join(cells) + f"  ({verdict})")
    lines += [
        "",
        "cells: e^eps (4 digits; exact values in peers_suite.csv), ! = above the claim, and the seconds of the run",
        "",
        "witnesses (x / x' / y) at the largest n reached:",
    ]
    for b in chosen:
        reached = [r for r in rows if r["program"] == b.name and r["ratio"]]
        if reached:
            last = reached[-1]
            lines.append(f"  {b.name:<15} n={last['n']:<3} {last['witness']}")
    lines += ["", f"first run over a limit (--timeout {args.timeout:g} s, --max-memory {args.max_memory}):", *stops]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "peers_suite.txt").write_text(text + "\n")
    write_csv(rows, "peers_suite.csv")


if __name__ == "__main__":
    main()
