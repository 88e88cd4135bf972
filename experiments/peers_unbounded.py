"""CheckDP's 17 programs with unbounded noise (``-p noise=unbounded``) beside their margin-1 truncated versions.

For each program of :data:`wmcdp.programs.CHECKDP` at its small parameters and ``alpha = 1/2``, at each size n:
the claim, eps with the published (unbounded two-sided geometric) noise and its seconds — exact (``lo = hi``) when
the program declares its shared-noise law (:mod:`wmcdp.notions.declared`) or releases its values with merged
tails, else the certified bracket ``[lo, hi]`` of the windows — the verdict it gives (``hi <= claim``: proved;
``lo > claim``: refuted; else undecided) beside CheckDP's, and the truncated (margin 1) version's exact eps and
seconds with the time ratio. A program whose output releases an unbounded value it does not declare (a noisy
answer, an adaptive threshold's gaps, the noisy maximum) is refused for pure eps in windows: only its delta(eps)
is bracketed so far. For those the lower end is the bracket over the truncated run's witness output alone (both
orders of its pair; an output of the truncated program is one of the unbounded one's), a lower bound of the true
eps whatever the other outputs: "refuted" when it exceeds the claim, else "refused". Every run but that one is a
fresh ``wmcdp privacy ... --json`` process under ``--timeout``; that one runs in this process under the same limit.
Then, per program, ``every_n`` of its family with unbounded noise at n = 1 .. ``--every-n`` (in this process, under
the same limit): its statement for every n and the verdict it gives against the claim beside CheckDP's, or why
there is none (noise in windows: a bracket at each n, not the exact values a statement is made from; shared noise:
no chain).

    taskset -c 0 python experiments/peers_unbounded.py --timeout 60 --sizes 5,10     # results/peers_unbounded.*
    taskset -c 0 python experiments/peers_unbounded.py --timeout 60 --sizes 20,40,80 --only svt,noisy_max,gap_svt \
        --name peers_unbounded_large                                               # the speed targets' sizes
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from peers_suite import log_ratio, run  # noqa: E402
from results_io import RESULTS, write_csv  # noqa: E402

from wmcdp import WmcdpError, every_n, resource_limits, synthesize_privacy  # noqa: E402
from wmcdp.base.limits import LimitExceeded  # noqa: E402
from wmcdp.programs import CHECKDP, PROGRAMS  # noqa: E402

ALPHA = "1/2"


def verdict(lo: float, hi: float, claim: float) -> str:
    """What a bracket of eps says of the claim: proved (within it), refuted (above it), or undecided."""
    if hi <= claim:
        return "proved"
    return "refuted" if lo > claim else "undecided"


def frozen(value: object) -> object:
    """A JSON output (lists) as wmcdp's value (tuples)."""
    return tuple(frozen(v) for v in value) if isinstance(value, list) else value


def witness_lower_end(bench, params: dict, witness: dict, timeout: float) -> tuple[float | str, str, float | str]:
    """The lower end of eps over the witness triple ``(x, x', y)`` and ``(x', x, y)`` of the truncated run, with
    unbounded noise: every output's ratio bounds eps from below, so it is a lower end of the true eps."""
    x, xp, y = (frozen(witness[k]) for k in ("x", "x_prime", "y"))
    prog = PROGRAMS[bench.program](**params, noise="unbounded")
    try:
        r = synthesize_privacy(prog, [(x, xp, y), (xp, x, y)], [(x, y), (xp, y)], timeout=timeout)
    except (WmcdpError, LimitExceeded) as exc:
        return "", f"witness run: {str(exc)[:80]}", ""
    why = f"lower end over the truncated witness {witness['x']}/{witness['x_prime']}/{witness['y']}"
    return r.interval.lo, why, r.seconds


def measure(bench, n: int, timeout: float, memory: str) -> dict:
    """One size of one program: the unbounded bracket and the truncated (margin 1) eps, each with its seconds."""
    params = {**bench.params, "n": n, "alpha": ALPHA}
    claim = math.log(2 ** bench.claim_power({**bench.params, "n": n}))
    rec: dict = {"benchmark": bench.name, "program": bench.program, "n": n, "claim_eps": claim}
    rec["checkdp"] = "proved" if bench.private else "refuted"
    out, why = run(bench.program, {**params, "noise": "unbounded"}, timeout, memory)
    if out is None:
        refused = "unbounded release" in why
        why = "releases an unbounded value: pure eps refused" if refused else why
        rec.update(lo="", hi="", verdict="refused" if refused else "over", why=why, seconds="", half_width="")
    elif "epsilon_interval" not in out:  # no window: every unbounded value released with merged tails, exact
        eps = log_ratio(out["ratio_exact"])
        rec.update(lo=eps, hi=eps, verdict=verdict(eps, eps, claim), why="", seconds=out["seconds"], half_width="")
    else:
        lo, hi = out["epsilon_interval"]
        lo, hi = float(lo), float(hi)  # JSON's Infinity reads as a float
        rec.update(lo=lo, hi=hi, verdict=verdict(lo, hi, claim), why=out["window"]["reason"] or "")
        rec.update(seconds=out["seconds"], half_width=out["window"]["half_width"])
    trunc, why = run(bench.program, params, timeout, memory)
    if trunc is None:
        rec.update(truncated_eps="", truncated_seconds="", truncated_why=why)
    else:
        rec.update(truncated_eps=log_ratio(trunc["ratio_exact"]), truncated_seconds=trunc["seconds"])
        if rec["verdict"] == "refused":
            lo, why, seconds = witness_lower_end(bench, params, trunc["witness"], timeout)
            rec.update(lo=lo, why=why, seconds=seconds, verdict="refuted" if lo != "" and lo > claim else "refused")
    print(f"{bench.program} n={n}: {rec['verdict']} [{rec['lo']}, {rec['hi']}] {rec['seconds']}", file=sys.stderr)
    return rec


def number(value: object) -> str:
    if value == "":
        return "-"
    return "inf" if value == math.inf else f"{value:.4g}"


def line(rec: dict) -> str:
    """One row of the table."""
    both = rec["hi"] != "" and rec["truncated_seconds"] != ""  # a full bracket against the clamped run
    times = f"{rec['seconds'] / rec['truncated_seconds']:.1f}x" if both else "-"
    seconds = f"{rec['seconds']:.2f}" if rec["seconds"] != "" else "-"
    t_seconds = f"{rec['truncated_seconds']:.2f}" if rec["truncated_seconds"] != "" else "-"
    return (
        f"{rec['benchmark']:<15} {rec['n']:>3} {rec['claim_eps']:>6.4g} {number(rec['lo']):>8} {number(rec['hi']):>8} "
        f"{rec['verdict']:<9} {rec['checkdp']:<8} {seconds:>7} {number(rec['truncated_eps']):>8} {t_seconds:>7} "
        f"{times:>6}"
    )


def every_n_row(bench, up_to: int, timeout: float) -> dict:
    """The program's family with unbounded noise at every n (:func:`wmcdp.every_n`, sizes ``1 .. up_to``, in this
    process under ``timeout``): its statement and the verdict it gives for every n against the claim (evaluated
    at ``up_to``; CheckDP's claims do not depend on n), or why there is none."""
    claim = 2 ** bench.claim_power({**bench.params, "n": up_to})
    rec: dict = {"benchmark": bench.name, "program": bench.program, "claim_ratio": claim, "up_to": up_to}
    rec["checkdp"] = "proved" if bench.private else "refuted"
    began = time.perf_counter()
    try:
        with resource_limits(timeout=timeout):
            r = every_n(PROGRAMS[bench.program], up_to=up_to, **bench.params, alpha=ALPHA, noise="unbounded")
    except (WmcdpError, LimitExceeded) as exc:
        rec.update(statement="", verdict="none", why=str(exc).splitlines()[0][:110])
    else:
        ext, bound = r.extension, r.alignment
        if r.statement is None and ext is not None and ext.bound(up_to) > math.log(claim):
            rec.update(statement=ext.text, verdict="refuted", why="")
        elif r.statement is None and r.growth is not None:
            rec.update(statement=r.growth.text, verdict="refuted", why="")
        elif r.statement is None and bound is not None and bound.ratio <= claim:
            said = bound.text + ("" if ext is None else f"; {ext.text}")
            rec.update(statement=said, verdict="proved", why="")
        elif r.statement is None:
            why = "; ".join(filter(None, [r.reason, ext and ext.text, bound and bound.text, r.alignment_reason]))
            rec.update(statement="", verdict="none", why=why[:200])
        else:
            private = r.statement.supremum <= claim
            rec.update(statement=r.statement.text, verdict="proved" if private else "refuted", why="")
    rec["seconds"] = time.perf_counter() - began
    print(f"{bench.program} every n: {rec['verdict']} {rec['statement'] or rec['why']}", file=sys.stderr)
    return rec


def every_n_lines(rows: list[dict]) -> list[str]:
    """The every-n section of the table."""
    lines = ["", f"every n (n = 1 .. {rows[0]['up_to']} exactly, then a statement for every n; unbounded noise):"]
    for r in rows:
        said = r["statement"] or f"no statement: {r['why']}"
        head = f"  {r['benchmark']:<15} {r['verdict']:<8} CheckDP {r['checkdp']:<8} {r['seconds']:7.2f} s"
        lines.append(f"{head}  {said}")
    agree = sum(r["verdict"] == r["checkdp"] for r in rows)
    lines.append(f"  {agree} of {len(rows)} verdicts for every n equal CheckDP's; the others have no statement")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    ap.add_argument("--max-memory", default="4G", help="memory per run (default 4G)")
    ap.add_argument("--sizes", default="5,10", help="comma-separated n (default 5,10)")
    ap.add_argument("--only", help="comma-separated built-in names")
    ap.add_argument("--name", default="peers_unbounded", help="results file stem (default peers_unbounded)")
    ap.add_argument("--every-n", type=int, default=12, help="every-n statements from n = 1 .. N (default 12; 0: none)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    chosen = [b for b in CHECKDP if not args.only or b.program in args.only.split(",")]
    head = (
        f"{'CheckDP':<15} {'n':>3} {'claim':>6} {'lo':>8} {'hi':>8} {'verdict':<9} {'CheckDP':<8} {'sec':>7} "
        f"{'trunc1':>8} {'sec':>7} {'ratio':>6}"
    )
    records = [measure(b, n, args.timeout, args.max_memory) for b in chosen for n in sizes]
    lines = [head, "-" * len(head), *(line(r) for r in records)]
    lines += ["", "eps with unbounded noise (alpha = 1/2): exact (lo = hi) from a declared law or merged tails, else"]
    lines += ["its certified bracket [lo, hi] in windows; verdict: hi <= claim proved, lo > claim refuted; refused:"]
    lines += ["the output releases an unbounded value it does not declare (pure eps not bracketed yet; lo: over the"]
    lines += ["truncated witness output alone, a lower end of the true eps)."]
    lines += ["trunc1: exact eps with the margin-1 truncated noise; ratio: unbounded seconds / truncated seconds"]
    lines += ["(sec of a refused program: its witness run's)."]
    reasons = sorted({f"  {r['benchmark']}: {r['why']}" for r in records if r["why"]})
    lines += ["", "why an upper end is infinite or a run stopped:", *reasons]
    every = [every_n_row(b, args.every_n, args.timeout) for b in chosen] if args.every_n else []
    lines += every_n_lines(every) if every else []
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.txt").write_text(text + "\n")
    write_csv(records, f"{args.name}.csv")
    if every:
        write_csv(every, f"{args.name}_every_n.csv")


if __name__ == "__main__":
    main()
