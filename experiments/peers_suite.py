"""The peers' benchmark programs answered exactly: CheckDP's 17, DP-Sniper's 20 and StatDP's, at n = 5, 10, 20, ...

One row per built-in run (programs that CheckDP, DP-Sniper and StatDP share are run once): the claimed eps,
wmcdp's exact eps and the seconds of the default plan at each size, CheckDP's verdict, DP-Sniper's and StatDP's
published lower bounds (:class:`wmcdp.programs.peers.Published`: their eps_lcb over the budget eps0 they ran
with) and the ratio of each to the exact value, both taken relative to the claim,

    ratio = (eps_lcb / eps0) / (eps / claimed eps)          at the peer's own size,

so 1 means the peer's lower bound sees the whole violation (or, for a correct program, the whole budget) that the
exact discrete analogue has. Every run is a fresh ``wmcdp privacy ... --json`` process under ``--timeout``
seconds and ``--max-memory``; a row stops at its first run over a limit ("over": the reason is listed) and
prints "-" for larger sizes. The last column fits the seconds against n: the exponent b of ``t ~ n^b`` and the
base c of ``t ~ c^n`` (least squares on logs, runs of at least 0.05 s).

    taskset -c 0 python experiments/peers_suite.py --timeout 60     # results/peers_suite.{txt,csv}, docs/peers_time.png
    python experiments/peers_suite.py --plot-only                   # docs/peers_time.png again from the CSV

CheckDP (Wang, Ding, Kifer, Zhang, CCS 2020) proves the correct programs and refutes the incorrect ones for every
input size, each within 70 s (its abstract); its per-program times are not reproduced here.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from figures import legend_outside, style  # noqa: E402
from results_io import RESULTS, read_csv, write_csv  # noqa: E402

from wmcdp.programs.registry import Published, all_claims, registered  # noqa: E402

SIZES = [5, 10, 20, 40, 80, 160]
PLOT = HERE.parent / "docs" / "peers_time.png"


@dataclass
class Row:
    """One built-in at fixed small parameters, and every peer program it runs."""

    program: str
    params: dict
    size: str
    claim: object  # e^eps claimed, as a function of the full parameters
    private: bool
    names: list[str] = field(default_factory=list)
    checkdp: str = ""
    published: Published | None = None


def rows() -> list[Row]:
    """One row per (program, parameters) of every registered claim (:func:`wmcdp.programs.registry.all_claims`):
    CheckDP's programs, then DP-Sniper's and StatDP's, then any program registered with claims of its own."""
    table: dict[tuple, Row] = {}
    for program, claim in all_claims():
        key = (program, tuple(sorted(claim.params.items())))
        row = table.setdefault(key, Row(program, claim.params, claim.size, claim.ratio, claim.private))
        row.names.append(claim.label)
        if claim.benchmark == "CheckDP":
            row.checkdp = "proved" if claim.private else "refuted"
        row.published = row.published or claim.published
    return list(table.values())


def spec(program: str) -> str:
    """What ``wmcdp privacy`` is given for a registered program: its name if a fresh process registers it
    (a built-in), else ``path/to/file.py:function``, the file that defines (and registers) it."""
    factory = registered(program).factory
    if factory.__module__.startswith("wmcdp.programs."):
        return program
    return f"{inspect.getsourcefile(factory)}:{factory.__name__}"


def arguments(program: str, params: dict, timeout: float, memory: str) -> list[str]:
    """The arguments of ``wmcdp`` for one run: ``privacy`` of the program at ``params``, in JSON, within limits."""
    args = ["privacy", spec(program), *(arg for k, v in params.items() for arg in ("-p", f"{k}={v}"))]
    return [*args, "--json", "--timeout", str(timeout), "--max-memory", memory]


def run(program: str, params: dict, timeout: float, memory: str) -> tuple[dict | None, str]:
    """The JSON of ``wmcdp privacy`` with the process's wall seconds, or None and why the run stopped."""
    cmd = [sys.executable, "-m", "wmcdp", *arguments(program, params, timeout, memory)]
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
    """``x/x'/y``: the inputs' digits run together, the output as a tuple."""
    x, xp = (",".join(str(v) for v in witness[k]) for k in ("x", "x_prime"))
    y = json.dumps(witness["y"], separators=(",", ":")).replace("[", "(").replace("]", ")")
    return f"{x}/{xp}/{y}"


def log_ratio(ratio: object) -> float:
    """``ln`` of an ``e^eps`` given as a number or exact text ("inf" allowed)."""
    value = math.inf if ratio == "inf" else Fraction(str(ratio))
    return math.inf if value == math.inf else math.log(value)


def measure(row: Row, timeout: float, memory: str, sizes: list[int] = SIZES) -> tuple[list[dict], str]:
    """One record per size (empty past the first run over a limit) and why that run stopped ("" if none did)."""
    records, why = [], ""
    for n in sizes:
        params = {**row.params, row.size: n}
        rec = {
            "program": row.program,
            "n": n,
            "ratio": "",
            "epsilon": "",
            "witness": "",
            "seconds": "",
            "wall": "",
            "over": False,
        }
        if not why:
            out, stop = run(row.program, params, timeout, memory)
            why = stop and f"{row.size}={n}: {stop}"
            rec["over"] = bool(stop)
            if out is not None:
                rec.update(ratio=out["ratio_exact"], epsilon=log_ratio(out["ratio_exact"]), seconds=out["seconds"])
                rec.update(witness=compact(out["witness"]), wall=out["wall"])
                print(
                    f"{row.program} {row.size}={n}: e^eps = {rec['ratio']} in {out['seconds']:.2f} s", file=sys.stderr
                )
        records.append({"claim_eps": log_ratio(row.claim(params)), **rec})
    return records, why


def growth(records: list[dict]) -> str:
    """``n^b`` and ``c^n`` fitted to the runs of at least 0.05 s (least squares on log seconds)."""
    pts = [(r["n"], r["seconds"]) for r in records if r["seconds"] != "" and r["seconds"] >= 0.05]
    if len(pts) < 2:
        return "-"
    xs, logs, ys = [p[0] for p in pts], [math.log(p[0]) for p in pts], [math.log(p[1]) for p in pts]
    return f"n^{_slope(logs, ys):.1f} | {math.exp(_slope(xs, ys)):.2f}^n"


def _slope(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def peer_ratios(row: Row, records: list[dict]) -> tuple[str, str, str]:
    """The peers' published ``eps_lcb / eps0`` and the ratio of each to the exact ``eps / claim`` at their size."""
    pub = row.published
    if pub is None:
        return "-", "-", "-"
    at = next((r for r in records if r["n"] == (pub.n or SIZES[0])), None)
    exact = None if at is None or at["epsilon"] == "" else at["epsilon"] / at["claim_eps"]
    statdp = max(pub.statdp) if pub.statdp else None

    def ratio(bound: float | None) -> str:
        if bound is None or exact is None:
            return "-"
        return f"{bound / pub.eps0 / exact:.2f}"

    found = f"{pub.dp_sniper / pub.eps0:.3g}" + (f" / {statdp / pub.eps0:.3g}" if statdp else " / -")
    return found, ratio(pub.dp_sniper), ratio(statdp)


def cell(rec: dict) -> str:
    """``eps`` to 3 digits, ``!`` above the claim, and the seconds; "over" for a run over a limit."""
    if rec["epsilon"] == "":
        return "over" if rec.get("over") else "-"
    mark = "!" if rec["epsilon"] > rec["claim_eps"] * (1 + 1e-12) else " "
    return f"{rec['epsilon']:.3g}{mark} {rec['seconds']:.2f}s"


def plot(measured: list[tuple[Row, list[dict]]], path: Path) -> None:
    """Seconds against n (log-log), one line per row, each its own colour, marker and line style; the legend
    beside the axes."""
    import matplotlib  # deferred: matplotlib is an optional extra (the experiments')

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: as above, and only after the backend is chosen

    fig, ax = plt.subplots(figsize=(9, 6.5))
    for i, (row, records) in enumerate(measured):
        pts = [(r["n"], r["seconds"]) for r in records if r["seconds"] not in ("", None)]
        label = row.program + (f" (m, alpha = {row.params['alpha']})" if row.size == "m" else "")
        if pts:
            ax.plot(*zip(*pts), label=label, **style(i))
    ax.set(xscale="log", yscale="log", xlabel="n (queries; bits for RAPPOR, m for truncated_geometric)")
    ax.set(ylabel="seconds (default plan)", title="wmcdp's exact eps on the peers' programs")
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
    fig.tight_layout()
    legend_outside(fig, [ax], fontsize=7.5)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def stored() -> list[tuple[Row, list[dict]]]:
    """The rows and records of the last run, read back from results/peers_suite.csv (for ``--plot-only``)."""
    by_names = {"; ".join(row.names): row for row in rows()}
    grouped: dict[str, list[dict]] = {}
    for rec in read_csv("peers_suite.csv"):
        grouped.setdefault(rec["names"], []).append(rec)
    unknown = sorted(set(grouped) - set(by_names))
    if unknown:
        raise SystemExit(f"results/peers_suite.csv has rows this script no longer runs ({unknown[0]}): run it again")
    return [(by_names[names], records) for names, records in grouped.items()]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    ap.add_argument("--max-memory", default="4G", help="memory per run (default 4G)")
    ap.add_argument("--only", help="comma-separated built-in names")
    ap.add_argument("--plot-only", action="store_true", help=f"redraw {PLOT.name} from results/peers_suite.csv")
    args = ap.parse_args(argv)
    if args.plot_only:
        plot(stored(), PLOT)
        return
    chosen = [r for r in rows() if not args.only or r.program in args.only.split(",")]
    head = f"{'built-in':<28} {'claim':>6} " + " ".join(f"{'n=' + str(n):>13}" for n in SIZES)
    head += f"  {'CheckDP':<8} {'DPS/StatDP':>13} {'rDPS':>5} {'rStat':>5}  growth"
    lines, notes, stops, table, measured = [head, "-" * len(head)], [], [], [], []
    for row in chosen:
        records, why = measure(row, args.timeout, args.max_memory)
        found, r_dps, r_stat = peer_ratios(row, records)
        claim = records[0]["claim_eps"]
        cells = " ".join(f"{cell(r):>13}" for r in records)
        lines.append(
            f"{row.program:<28} {claim:>6.3g} {cells}  {row.checkdp or '-':<8} {found:>13} {r_dps:>5} {r_stat:>5}  "
            f"{growth(records)}"
        )
        done = [r for r in records if r["witness"] and r["n"] <= 10]
        notes.append(f"  {row.program:<28} {'; '.join(row.names)}" + (f"  [{done[-1]['witness']}]" if done else ""))
        stops += [f"  {row.program:<28} {why}"] * bool(why)
        table += [{**r, "names": "; ".join(row.names), "stop": why} for r in records]
        measured.append((row, records))
    lines += ["", "cells: exact eps (3 digits; e^eps exactly in peers_suite.csv), ! = above the claim, seconds"]
    lines += ["DPS/StatDP: published eps_lcb / eps0; rDPS, rStat: that over the exact eps / claim at the peer's n"]
    lines += ["", "programs run by each row, and the witness x / x' / y at the largest size up to 10:", *notes]
    lines += ["", f"first run over a limit (--timeout {args.timeout:g} s, --max-memory {args.max_memory}):", *stops]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "peers_suite.txt").write_text(text + "\n")
    write_csv(table, "peers_suite.csv")
    plot(measured, PLOT)


if __name__ == "__main__":
    main()
