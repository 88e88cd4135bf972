"""How far each plan reaches: the planner (the default) beside exhaustive sets and the old automatic sets.

Every run is a fresh ``wmcdp`` process (interpreter start, tracing, compilation and the bound
included) under ``--timeout`` seconds (default 60) and ``--max-memory 8G``; its wall time and peak
memory (the child's maximum resident set) are measured here.

1. **Reach.** Per built-in program and notion, a ladder of sizes is run with each plan until the
   first size that fails (over the time, over the memory, or refused as too large); the table gives
   the largest size reached with its seconds and memory. The *old automatic sets* are
   ``--sets auto`` of wmcdp before the planner (a git checkout given with ``--old PATH``, e.g.
   ``git worktree add /tmp/wmcdp-old 0492d8d``); without ``--old`` that column is left out.
2. **Never slower.** At every size where the exhaustive sets finish, the planner's time against
   exhaustive's, best of ``--repeat`` runs each (the first touch of fresh memory on these machines
   can cost several times a warm run): the planner must stay within 1.5 x exhaustive + 0.2 s, and
   both must print the same bound.
3. **Targets.** The cases of the planner's acceptance, each against its target.

    python experiments/reach.py --old /tmp/wmcdp-old          # everything (about 20 minutes)
    python experiments/reach.py --only randomized_response    # one program's ladders

Writes experiments/results/reach.txt and reach.csv.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from results_io import RESULTS, write_csv  # noqa: E402

#: (program, notion, fixed arguments, swept parameter, ladder of sizes)
LADDERS = [
    ("randomized_response", "privacy", ["-p", "lam=0.2"], "n", [4, 8, 12, 14, 15, 16, 64, 1000, 10000, 100000]),
    ("randomized_response", "approx", ["-p", "lam=0.2", "--delta", "1e-6"], "n", [4, 8, 12, 13, 16, 1000, 100000]),
    ("rr_counting", "accuracy", ["-p", "lam=0.2", "--alpha", "3"], "n", [8, 14, 18, 20, 50, 100, 200, 500]),
    ("rr_counting", "approx", ["-p", "lam=0.25", "--delta", "1e-6"], "n", [8, 12, 14, 16, 37, 100, 200]),
    ("histogram", "privacy", ["-p", "m=8", "-p", "eps0=1"], "n", [2, 3, 4, 5, 10, 100, 1000]),
    ("histogram", "renyi", ["-p", "m=2", "-p", "eps0=1", "--orders", "2,inf"], "n", [2, 4, 6, 10, 100, 1000]),
    ("kary_rr", "privacy", ["-p", "k=4", "-p", "eps=1"], "n", [2, 4, 6, 7, 8, 100, 1000]),
    ("noisy_max", "privacy", ["-p", "m=2", "-p", "eps0=1"], "n", [4, 6, 8, 10, 12, 14]),
    ("noisy_max", "privacy", ["-p", "m=5", "-p", "eps0=1"], "n", [3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18]),
    ("sparse_vector", "privacy", ["-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"], "n",
     [4, 6, 8, 10, 20, 30, 40]),
    ("sparse_vector", "privacy", ["-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"], "n",
     [4, 6, 8, 10, 20, 40, 80, 120, 160]),
    ("geometric_above_threshold", "privacy", ["-p", "k=3", "-p", "t=2", "-p", "alpha=1/2"], "n",
     [2, 3, 4, 5, 6, 7, 10, 18, 36, 72, 150, 200]),
    ("truncated_geometric", "privacy", ["-p", "scale=2"], "m", [10, 100, 1000, 4000]),
]

#: (command, target seconds or None, what the target compares with)
TARGETS = [
    ("privacy noisy_max -p n=6 -p m=5 -p eps0=1", "never slower", None),
    ("privacy histogram -p n=1000 -p m=8 -p eps0=1", 10, None),
    ("privacy randomized_response -p n=100000 -p lam=0.2", 10, None),
    ("approx rr_counting -p n=37 -p lam=0.25 --delta 1e-6", "same as --sets symmetry",
     "approx rr_counting -p n=37 -p lam=0.25 --delta 1e-6 --sets symmetry"),
    ("privacy kary_rr -p n=1000 -p k=4 -p eps=1", 10, None),
    ("privacy noisy_max -p n=12 -p m=2 -p eps0=1", 60, None),
    ("privacy sparse_vector -p n=30 -p m=1 -p T=1 -p N=1 -p eps0=1", 60, None),
    ("privacy randomized_response -p n=10 -p lam=1/5 --sets auto", "2n = 20 triples", None),
    ("privacy sparse_vector -p n=40 -p m=2 -p T=1 -p N=1 -p eps0=1", 60, None),
    ("privacy geometric_above_threshold -p n=36 -p k=3 -p t=2 -p alpha=1/2", 60, None),
    *((f"privacy {name} -p n=10 -p m=2 -p T=1 {bound}-p eps0=1", 10, None)
      for name, bound in [("sparse_vector", "-p N=1 "), ("svt", "-p N=1 "), ("gap_svt", "-p N=1 "),
                          ("num_svt", "-p N=1 "), ("bad_gap_svt", "-p N=1 "), ("adaptive_svt", "-p N=1 "),
                          ("bad_svt1", ""), ("isvt1", ""), ("isvt2", ""), ("isvt3", "-p N=1 "),
                          ("isvt4", "-p N=1 ")]),
]

BOUND_KEYS = ("ratio_exact", "epsilon", "one_minus_beta", "delta", "orders")


def run(args: list[str], timeout: float, old: str | None = None) -> dict:
    """One ``wmcdp`` process: ``{"ok", "seconds", "mb", "bound", "data"}`` (``bound``: the printed bound)."""
    env = dict(os.environ)
    if old is not None:
        env["PYTHONPATH"] = old + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-c", "import sys; from wmcdp.cli import main; sys.exit(main(sys.argv[1:]))",
               *args, "--json", "--timeout", str(timeout), "--max-memory", "8G"]
    start = time.perf_counter()
    # ``python -c`` puts the working directory first on the import path: run the old code from its checkout
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, cwd=old)
    try:
        out, err = proc.communicate(timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the largest child so far: read per run below
    data = None
    if proc.returncode == 0:
        try:
            data = json.loads(out)
        except json.JSONDecodeError:
            data = None
    bound = None if data is None else {k: data[k] for k in BOUND_KEYS if k in data}
    return {"ok": proc.returncode == 0 and data is not None, "seconds": seconds, "status": proc.returncode,
            "error": err.strip().splitlines()[-1] if err.strip() else "", "bound": bound, "data": data,
            "rss": usage.ru_maxrss}


def run_measured(args: list[str], timeout: float, old: str | None = None) -> dict:
    """:func:`run` in a fresh helper process, so the peak memory read is this run's alone."""
    helper = [sys.executable, __file__, "--measure-one", json.dumps({"args": args, "timeout": timeout, "old": old})]
    out = subprocess.run(helper, capture_output=True, text=True).stdout
    return json.loads(out)


def _measure_one(spec: str) -> None:
    job = json.loads(spec)
    result = run(job["args"], job["timeout"], job["old"])
    result["mb"] = result.pop("rss") / 1024
    print(json.dumps(result))


def modes(old: str | None) -> list[tuple[str, list[str], str | None]]:
    out = [("plan", [], None), ("exhaustive", ["--sets", "exhaustive"], None)]
    if old:
        out.append(("old auto", ["--sets", "auto"], old))
    return out


def reach(only: str | None, timeout: float, old: str | None, repeat: int) -> tuple[list[dict], list[dict]]:
    rows, compare = [], []
    for program, notion, fixed, key, ladder in LADDERS:
        if only and only not in program:
            continue
        per_mode: dict[str, dict] = {}
        by_size: dict[int, dict[str, dict]] = {}
        for mode, extra, checkout in modes(old):
            best = None
            for size in ladder:
                args = [notion, program, *fixed, "-p", f"{key}={size}", *extra]
                result = run_measured(args, timeout, checkout)
                print(f"  {mode:>10} {program} {notion} {key}={size}: "
                      f"{'ok' if result['ok'] else 'failed (' + result['error'][:60] + ')'} "
                      f"{result['seconds']:.2f} s {result['mb']:.0f} MB", flush=True)
                if not result["ok"]:
                    break
                best = (size, result)
                by_size.setdefault(size, {})[mode] = result
            per_mode[mode] = {"size": None if best is None else best[0],
                              "seconds": None if best is None else best[1]["seconds"],
                              "mb": None if best is None else best[1]["mb"]}
        label = f"{program} {' '.join(a for a in fixed if not a.startswith('-'))}"
        row = {"program": label, "notion": notion, "size of": key}
        for mode, _, _ in modes(old):
            m = per_mode[mode]
            row.update({f"{mode} size": m["size"], f"{mode} s": m["seconds"], f"{mode} MB": m["mb"]})
        rows.append(row)
        for size, results in sorted(by_size.items()):
            if "exhaustive" not in results or "plan" not in results:
                continue
            args = [notion, program, *fixed, "-p", f"{key}={size}"]
            plan = min([results["plan"]] + [run_measured(args, timeout) for _ in range(repeat - 1)],
                       key=lambda r: r["seconds"])
            exhaustive = min([results["exhaustive"]] + [run_measured(args + ["--sets", "exhaustive"], timeout)
                                                         for _ in range(repeat - 1)], key=lambda r: r["seconds"])
            same = _same_bound(plan["bound"], exhaustive["bound"])
            limit = 1.5 * exhaustive["seconds"] + 0.2
            compare.append({"program": label, "notion": notion, "size": f"{key}={size}",
                            "plan s": plan["seconds"], "exhaustive s": exhaustive["seconds"],
                            "plan/exhaustive": plan["seconds"] / exhaustive["seconds"],
                            "within 1.5x+0.2s": plan["seconds"] <= limit, "same bound": same,
                            "plan kind": plan["data"]["plan"]["kind"] if plan["data"] and "plan" in plan["data"]
                            else ""})
    return rows, compare


def _same_bound(a: dict | None, b: dict | None) -> bool:
    """The same bound: equal exact ratios, or floats within a relative 1e-9."""
    if a is None or b is None:
        return False
    if "ratio_exact" in a and "ratio_exact" in b:
        return a["ratio_exact"] == b["ratio_exact"]
    for key in ("epsilon", "one_minus_beta", "delta"):
        if key in a and key in b:
            x, y = a[key], b[key]
            if x == y:
                continue
            if isinstance(x, str) or isinstance(y, str) or abs(x - y) > 1e-9 * max(abs(x), abs(y)):
                return False
    if "orders" in a and "orders" in b:
        return all(o["epsilon"] == p["epsilon"] or (not isinstance(o["epsilon"], str) and not isinstance(
            p["epsilon"], str) and abs(o["epsilon"] - p["epsilon"]) <= 1e-9 * abs(p["epsilon"]))
                   for o, p in zip(a["orders"], b["orders"]))
    return True


def targets(timeout: float, repeat: int) -> list[dict]:
    out = []
    for command, target, other in TARGETS:
        args = command.split()
        results = [run_measured(args, timeout) for _ in range(repeat)]
        best = min(results, key=lambda r: r["seconds"])
        data = best["data"] or {}
        plan = data.get("plan", {})
        note, met = "", best["ok"]
        if target == "never slower":
            ex = min((run_measured(args + ["--sets", "exhaustive"], timeout) for _ in range(repeat)),
                     key=lambda r: r["seconds"])
            met = met and best["seconds"] <= 1.5 * ex["seconds"] + 0.2 and _same_bound(best["bound"], ex["bound"])
            note = f"exhaustive {ex['seconds']:.2f} s"
        elif isinstance(target, (int, float)):
            met = met and best["seconds"] <= target
        elif other is not None:
            ref = run_measured(other.split(), timeout)
            met = met and _same_bound(best["bound"], ref["bound"])
            note = f"epsilon {data.get('epsilon')} against {(ref['data'] or {}).get('epsilon')}"
        else:
            size = (data.get("set_sizes") or {}).get("size")
            met = met and size == 20
            note = f"|C| = {size}"
        out.append({"command": f"wmcdp {command}", "target": target, "seconds": best["seconds"], "MB": best["mb"],
                    "plan": plan.get("kind", ""), "met": met, "note": note})
        print(f"  target: {command}: {best['seconds']:.2f} s, met {met} {note}", flush=True)
    return out


def table(rows: list[dict]) -> str:
    if not rows:
        return ""
    keys = list(rows[0])
    text = [[_cell(r.get(k)) for k in keys] for r in rows]
    widths = [max(len(k), *(len(t[i]) for t in text)) for i, k in enumerate(keys)]
    lines = ["  ".join(k.ljust(w) for k, w in zip(keys, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(t, widths)) for t in text]
    return "\n".join(lines)


def _cell(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure-one":
        _measure_one(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", help="a checkout of wmcdp before the planner, for the old --sets auto column")
    parser.add_argument("--only", help="only the ladders of programs whose name contains this")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per comparison and target (best taken)")
    parser.add_argument("--no-targets", action="store_true")
    args = parser.parse_args()
    rows, compare = reach(args.only, args.timeout, args.old, args.repeat)
    goals = [] if args.no_targets else targets(args.timeout, args.repeat)
    text = ["# Reach: the largest size within the time limit, per plan", "", table(rows), "",
            "# Never slower: the planner against exhaustive sets where those finish (best of "
            f"{args.repeat})", "", table(compare), "", "# Targets", "", table(goals), ""]
    slower = [c for c in compare if not c["within 1.5x+0.2s"] or not c["same bound"]]
    text.append(f"{len(compare)} comparisons; {len(slower)} over 1.5 x exhaustive + 0.2 s or with another bound")
    output = "\n".join(text)
    print(output)
    if args.only is None:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "reach.txt").write_text(output + "\n")
        write_csv(rows, "reach.csv")


if __name__ == "__main__":
    main()
