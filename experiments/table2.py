"""Paper Table 2: randomized-response privacy, wmcdp next to peer exact engines.

For RR with lambda = 0.2 and Hamming-1 neighbours, every engine computes the same
probabilities ``P(y | x)`` and the tight epsilon from them:

* exhaustive sets, n = 2..12: all 2^n inputs x all 2^n outputs;
* restricted (symmetry) sets, n = 5..1000: inputs ``1^i 0^(n-i)``, output ``0^n`` (paper eqs. 7-9).

wmcdp compiles RR once (``compilations = 1``) and runs Algorithms 1-2. The peers
(``experiments/peers.py``: Storm per-input DTMCs as in the paper, Storm with one DTMC for
all inputs, ProbLog/SDD) run one at a time in a subprocess capped at ``--cap`` seconds per
(peer, n); once a peer times out, larger n are not tried. Each peer's probabilities are
compared with wmcdp's (max absolute difference) and its epsilon with wmcdp's.

Model size: wmcdp's BDD of phi (symbolic inputs) and, as the paper's Dice counts, the
BDD of the output bits for one concrete input (``Compiled.output_size``, n + 1 with
CUDD's single terminal); Storm's largest DTMC. Columns: build s (wmcdp: compilation;
peers: writing + building their models),
inference s (Algorithm 1 alone, timed on a fresh compilation so that no cache is warm,
or the peer's model checking / evaluation), synthesis s (wmcdp: ``synthesize_privacy``
minus Algorithm 1 alone; peers: max ratio over the privacy set, numpy), total s = build +
inference + synthesis (wmcdp: build + ``synthesize_privacy``, which includes building the
sets and Algorithm 1), ratio = peer total / wmcdp total.

    python experiments/table2.py                # all engines (peers need pip install -e '.[compare]')
    python experiments/table2.py --no-peers     # wmcdp only
Writes experiments/results/table2.csv and table2_times.png.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from wmcdp.programs import randomized_response  # noqa: E402
from wmcdp.symmetry_sets import randomized_response as rr_sets  # noqa: E402
from wmcdp import compile_program, inference, synthesize_privacy  # noqa: E402
from wmcdp.lang.sets import InferenceSet, exhaustive_inference  # noqa: E402

LAM = 0.2
EXHAUSTIVE = list(range(2, 13))
RESTRICTED = [5, 10, 15, 20, 25, 50, 100, 200, 500, 1000]
PEER_NAMES = ["storm-per-input", "storm-one-dtmc", "problog-sdd"]
RESULTS = HERE / "results"
MEMORY_CAP = 8 * 2 ** 30  # bytes of address space per peer run
FIELDS = ["sets", "engine", "n", "model_size", "per_input_size", "solver_runs", "build_s", "inference_s",
          "synthesis_s", "total_s", "ratio_to_wmcdp", "epsilon", "max_abs_diff", "status"]


def pairs(mode: str, n: int) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Inputs and outputs of interest; exhaustive inputs in binary order (x_0 the most significant bit)."""
    if mode == "exhaustive":
        every = list(itertools.product((0, 1), repeat=n))
        return every, every
    return [(1,) * i + (0,) * (n - i) for i in range(n + 1)], [(0,) * n]


def epsilon_from(mode: str, n: int, P: np.ndarray) -> float:
    """Tight epsilon from a probability matrix: Hamming-1 neighbours, or the symmetry triples (eqs. 7-8)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(P)
        if mode == "exhaustive":
            index = np.arange(2 ** n)
            ratios = [logs - logs[index ^ (1 << k)] for k in range(n)]
        else:
            ratios = [logs[:-1] - logs[1:], logs[1:] - logs[:-1]]
        return float(max(np.nanmax(r) for r in ratios))


def wmcdp_table(mode: str, n: int) -> dict:
    """wmcdp's own run: compile once, then Algorithms 1-2; Algorithm 1 alone is timed on a fresh compilation."""
    start = time.perf_counter()
    compiled = compile_program(randomized_response(n, LAM))
    build = time.perf_counter() - start
    start = time.perf_counter()
    if mode == "exhaustive":  # the default sets: built inside the timed call
        r = synthesize_privacy(compiled)
    else:
        r = synthesize_privacy(compiled, rr_sets.privacy_set(n), rr_sets.privacy_inference_set(n))
    both = time.perf_counter() - start
    fresh = compile_program(randomized_response(n, LAM))  # no caches warmed by the run above
    start = time.perf_counter()
    if mode == "exhaustive":
        ys = tuple(fresh.shape.values())
        inference(fresh, exhaustive_inference(fresh.domain, ys))
    else:
        inference(fresh, rr_sets.privacy_inference_set(n))
    infer = time.perf_counter() - start
    return dict(sets=mode, engine="wmcdp", n=n, model_size=compiled.size,
                per_input_size=compiled.output_size((0,) * n), solver_runs=1, build_s=build,
                inference_s=infer, synthesis_s=max(both - infer, 0.0), total_s=build + both, epsilon=r.epsilon,
                status="ok")


def peer_worker(peer: str, mode: str, n: int) -> dict:
    """Run one peer (in a subprocess) and compare it with wmcdp's probabilities."""
    from peers import PEERS

    xs, ys = pairs(mode, n)
    run = PEERS[peer](n, LAM, xs, ys)
    start = time.perf_counter()
    eps = epsilon_from(mode, n, run.P)
    synth = time.perf_counter() - start
    compiled = compile_program(randomized_response(n, LAM))
    ys = tuple(ys)
    M = inference(compiled, InferenceSet({x: ys for x in xs}))
    ours = np.exp(np.array([M.row(x, ys) for x in xs]))  # float runs count in log space
    size = f"{run.states} states / {run.transitions} trans." if run.states else "-"
    return dict(sets=mode, engine=peer, n=n, model_size=size, solver_runs=run.solver_runs,
                build_s=run.build_seconds, inference_s=run.inference_seconds, synthesis_s=synth,
                total_s=run.build_seconds + run.inference_seconds + synth, epsilon=eps,
                max_abs_diff=float(np.max(np.abs(run.P - ours))), status="ok")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_peer(peer: str, mode: str, n: int, cap: float) -> dict:
    """One peer run in a subprocess, killed after ``cap`` seconds or at MEMORY_CAP bytes."""
    command = [sys.executable, __file__, "--worker", peer, mode, str(n)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=cap, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        return dict(sets=mode, engine=peer, n=n, status=f"timeout > {cap:g} s")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return dict(sets=mode, engine=peer, n=n, status=f"failed: {last[:80]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(value, spec: str) -> str:
    if value is None or value == "":
        return "-"
    return format(value, spec) if isinstance(value, (int, float)) else str(value)


def print_row(row: dict) -> None:
    print(f"{row['sets']:<10} {row['engine']:<16} {row['n']:>5} {fmt(row.get('model_size'), ''):>26} "
          f"{fmt(row.get('solver_runs'), 'd'):>8} {fmt(row.get('build_s'), '.4f'):>9} "
          f"{fmt(row.get('inference_s'), '.4f'):>9} {fmt(row.get('synthesis_s'), '.4f'):>9} "
          f"{fmt(row.get('total_s'), '.4f'):>9} {fmt(row.get('ratio_to_wmcdp'), '.1f'):>8} "
          f"{fmt(row.get('epsilon'), '.6f'):>9} {fmt(row.get('max_abs_diff'), '.1e'):>8}  {row['status']}",
          flush=True)


def summary(rows: list[dict]) -> list[str]:
    """Per peer and sets: the largest n finished within the cap and the range of time ratios peer / wmcdp."""
    lines = []
    for mode in ("exhaustive", "restricted"):
        for peer in PEER_NAMES:
            done = [r for r in rows if r["sets"] == mode and r["engine"] == peer and r["status"] == "ok"]
            if not done:
                continue
            ratios = [r["ratio_to_wmcdp"] for r in done]
            stop = next((f", {r['status']} at n = {r['n']}" for r in rows
                         if r["sets"] == mode and r["engine"] == peer and r["status"] != "ok"), "")
            lines.append(f"{mode:<10} {peer:<16} largest n = {max(r['n'] for r in done):>4}{stop}; "
                         f"peer / wmcdp time {min(ratios):.1f}x .. {max(ratios):.1f}x")
    behind = [r for r in rows if "ratio_to_wmcdp" in r and r["ratio_to_wmcdp"] <= 1]
    lines.append("wmcdp is faster than every peer at every n" if not behind else
                 "wmcdp is NOT ahead at: " + ", ".join(f"{r['engine']} {r['sets']} n={r['n']}" for r in behind))
    return lines


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, mode in zip(axes, ("exhaustive", "restricted")):
        for engine in ["wmcdp", *PEER_NAMES]:
            pts = [(r["n"], r["total_s"]) for r in rows if r["sets"] == mode and r["engine"] == engine
                   and r["status"] == "ok"]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=engine)
        ax.set(xlabel="number of clients n", ylabel="total time (s, log scale)", yscale="log",
               title=f"RR privacy, {mode} sets (lambda = {LAM})")
        if mode == "restricted":
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-peers", action="store_true", help="run wmcdp only")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds per peer per n (default 120)")
    parser.add_argument("--worker", nargs=3, metavar=("PEER", "SETS", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        peer, mode, n = args.worker
        print(json.dumps(peer_worker(peer, mode, int(n))))
        return
    print(f"Table 2: randomized response privacy, lambda = {LAM}, Hamming-1 neighbours; peer cap {args.cap:g} s")
    print(f"{'sets':<10} {'engine':<16} {'n':>5} {'model size':>26} {'runs':>8} {'build s':>9} {'infer s':>9} "
          f"{'synth s':>9} {'total s':>9} {'x wmcdp':>8} {'epsilon':>9} {'max diff':>8}  status")
    rows: list[dict] = []
    for mode, ns in (("exhaustive", EXHAUSTIVE), ("restricted", RESTRICTED)):
        stopped: set[str] = set() if not args.no_peers else set(PEER_NAMES)
        for n in ns:
            ours = wmcdp_table(mode, n)
            rows.append(ours)
            print_row(ours)
            for peer in PEER_NAMES:
                if peer in stopped:
                    continue
                row = run_peer(peer, mode, n, args.cap)
                if row["status"] == "ok":
                    row["ratio_to_wmcdp"] = row["total_s"] / ours["total_s"]
                    if not math.isclose(row["epsilon"], ours["epsilon"], rel_tol=1e-6):
                        row["status"] = f"epsilon differs from wmcdp's {ours['epsilon']:.9f}"
                else:
                    stopped.add(peer)
                rows.append(row)
                print_row(row)
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "table2.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    plot(rows, RESULTS / "table2_times.png")
    print("\n".join(summary(rows)))
    print(f"wrote {RESULTS / 'table2.csv'} and {RESULTS / 'table2_times.png'}")


if __name__ == "__main__":
    main()
