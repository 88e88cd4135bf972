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
from wmcdp.programs.checkdp import Benchmark  # noqa: E402

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
        return None, why.removeprefix("wmcdp: error: ").split(" (limits")[0].split(";")[0]
    out = json.loads(done.stdout)
    out["wall"] = time.perf_counter() - start
    return out, ""


def compact(witness: dict) -> str:
    """``x/x'/y``: the inputs' digits run together, the output as a tuple (``001/110/((0,0),(0,0),(1,1))``)."""
    x, xp = ("".join(str(v) for v in witness[k]) for k in ("x", "x_prime"))
    y = json.dumps(witness["y"], separators=(",", ":")).replace("[", "(").replace("]", ")")
    return f"{x}/{xp}/{y}"


def cell(ratio: str, seconds: float, claim: Fraction) -> str:
    """``e^eps`` to 4 digits, ``!`` when above the claim, and the run's seconds."""
    exact = None if ratio == "inf" else Fraction(ratio)
    shown = "inf" if exact is None else format(float(exact), ".4g")
    mark = "!" if exact is None or exact > claim else " "
    return f"{shown}{mark} {seconds:.2f} s"


def measure(bench: Benchmark, timeout: float, memory: str) -> tuple[list[dict], str]:
    """One CSV row per size (empty past the first run over a limit) and why that run stopped ("" if none did)."""
    rows: list[dict] = []
    why = ""
    for n in SIZES:
        row = {"program": bench.name, "builtin": bench.program, "n": n, "ratio": "", "witness": "", "seconds": ""}
        out = None
        if not why:
            out, stop = run(bench.program, n, bench.params, timeout, memory)
            why = stop and f"n={n}: {stop}"
        if out is not None:
            row.update(ratio=out["ratio_exact"], witness=compact(out["witness"]), seconds=out["seconds"])
            row.update(epsilon=out["epsilon"], wall=out["wall"])
            print(f"{bench.name} n={n}: e^eps = {row['ratio']} in {out['seconds']:.2f} s", file=sys.stderr, flush=True)
        rows.append({"epsilon": "", "wall": "", **row})
    return rows, why


def row_line(bench: Benchmark, rows: list[dict], claim: Fraction) -> str:
    """The table's line for one program."""
    cells = " ".join(f"{cell(r['ratio'], r['seconds'], claim) if r['ratio'] else '-':>22}" for r in rows)
    verdict = "private" if bench.private else "not private"
    return f"{bench.name:<15} {bench.program:<17} {str(claim):>6} {cells}  ({verdict})"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    ap.add_argument("--max-memory", default="4G", help="memory per run (default 4G)")
    ap.add_argument("--only", help="comma-separated CheckDP names")
    args = ap.parse_args(argv)
    chosen = [b for b in CHECKDP if not args.only or b.name in args.only.split(",")]
    header = f"{'program':<15} {'built-in':<17} {'claim':>6} " + " ".join(f"{'n=' + str(n):>22}" for n in SIZES)
    lines, witnesses, stops, table = [header, "-" * len(header)], [], [], []
    for b in chosen:
        claim = ALPHA ** -b.claim_power(b.params)
        rows, why = measure(b, args.timeout, args.max_memory)
        lines.append(row_line(b, rows, claim))
        witnesses += [f"  {b.name:<15} n={r['n']:<3} {r['witness']}" for r in [r for r in rows if r["ratio"]][-1:]]
        stops += [f"  {b.name:<15} {why}"] * bool(why)
        table += [{**r, "claim_ratio": str(claim), "private": b.private, "stop": why} for r in rows]
    lines += [
        "",
        "cells: e^eps (4 digits; exact values in peers_suite.csv), ! = above the claim, and the seconds of the run",
    ]
    lines += ["", "witnesses (x / x' / y) at the largest n reached:", *witnesses]
    lines += ["", f"first run over a limit (--timeout {args.timeout:g} s, --max-memory {args.max_memory}):", *stops]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "peers_suite.txt").write_text(text + "\n")
    write_csv(table, "peers_suite.csv")


if __name__ == "__main__":
    main()
