"""Automatic symmetry (``--sets auto``): the acceptance benchmarks, and set sizes and times against n.

Part 1 (the table) runs each acceptance case once with ``sets="auto"``: compilation,
detection with proofs, and the synthesis, and prints the bound, the orbit-set sizes against
the exhaustive sizes, and the seconds. Randomized response and RR counting are checked
against their closed form and the paper's hand-proved sets; every case is also run at a
small n with exhaustive sets and must agree there.

Part 2 (the figure) sweeps n for randomized-response privacy, RR-counting accuracy and the
noisy max / histogram privacy of the DP-tester suite: set size |C| (or |A|) and seconds
(compilation included) for exhaustive sets, automatic sets and, where the paper has them,
the hand-proved sets. A series stops after its first point over ``--budget`` seconds.

    python experiments/symmetry.py             # table and figure (a few minutes)
    python experiments/symmetry.py --no-sweep  # the table only

Part 3 (``--detection``) times ``wmcdp approx rr_counting -p n=N -p lam=0.25 --epsilon 0.3`` with the default
plan against the proved hand sets (``--sets symmetry``), best of ``--repeat`` runs in-process, with the default
plan's detection seconds and work units, and sets each plan's estimate (its detection's counted work at the cost
model's rate, plus its run) beside its measured seconds for built-ins and benchmark programs under the default
plan (measured / estimated: the cost model's error, reported as measured):

    python experiments/symmetry.py --detection --ns 100 300 1000
    python experiments/symmetry.py --estimates     # the estimates alone

RR counting's accuracy is also computed by an independent numpy enumeration (the count of
ones in RR(x) is Binomial(#ones, 1 - lam) + Binomial(n - #ones, lam); one convolution per
input with i ones): its value must agree, and the table gives its time beside wmcdp's.
Writes experiments/results/symmetry.txt, symmetry_sweep.csv and symmetry_sweep.png.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from wmcdp.programs import histogram, kary_rr, noisy_max, randomized_response, rr_counting, sparse_vector  # noqa: E402
from results_io import RESULTS, write_csv  # noqa: E402
from wmcdp.symmetry_sets import randomized_response as rr_sets  # noqa: E402
from wmcdp import compile_program, synthesize_accuracy, synthesize_privacy  # noqa: E402
from wmcdp.base.limits import LimitExceeded  # noqa: E402

LAM = Fraction(1, 5)   # randomized response: exact, so e^eps = (1 - lam) / lam = 4 exactly
ALPHA = 3              # RR counting runs in floats with lam = 0.2, as in the paper

#: (case, factory of n, n for the benchmark, n for the exhaustive agreement check, target seconds, kind)
CASES = [
    ("RR privacy", lambda n: randomized_response(n, LAM), 64, 8, 10, "privacy"),
    ("RR-counting accuracy, alpha = 3", lambda n: rr_counting(n, 0.2), 100, 8, 10, "accuracy"),
    ("RR-counting accuracy, alpha = 3", lambda n: rr_counting(n, 0.2), 200, 8, 10, "accuracy"),
    ("RR-counting accuracy, alpha = 3", lambda n: rr_counting(n, 0.2), 500, 8, 10, "accuracy"),
    ("noisy max, m = 2", lambda n: noisy_max(n, 2, eps0=0.7), 10, 5, 60, "privacy"),
    ("histogram, m = 2", lambda n: histogram(n, 2, eps0=0.7), 10, 4, 60, "privacy"),
    ("sparse vector, m = 2, T = 1, N = 1", lambda n: sparse_vector(n, 2, 1, 1, eps0=0.7), 10, 5, 60, "privacy"),
    ("k-ary RR, k = 4", lambda n: kary_rr(n, 4, ratio=3), 8, 4, 10, "privacy"),
]


def run(kind: str, prog, sets: str) -> tuple[object, float, float]:
    """``(result, compile seconds, total seconds)`` for one run with ``sets`` exhaustive/auto/hand;
    the result gets the compiled program as ``compiled``."""
    start = time.perf_counter()
    compiled = compile_program(prog)
    compiled_at = time.perf_counter()
    n = prog.inputs.n
    if kind == "privacy":
        C, I = {"exhaustive": (None, None), "auto": ("auto", None),
                "hand": (rr_sets.privacy_set(n), rr_sets.privacy_inference_set(n))}[sets]
        r = synthesize_privacy(compiled, C, I, force=True)
    else:
        A, I = {"exhaustive": (None, None), "auto": ("auto", None),
                "hand": (rr_sets.accuracy_set(n), rr_sets.accuracy_inference_set(n, ALPHA))}[sets]
        r = synthesize_accuracy(compiled, A, None, ALPHA, I, force=True)
    end = time.perf_counter()
    r.__dict__["compiled"] = compiled  # frozen dataclass: keep the compilation for the exhaustive sizes
    return r, compiled_at - start, end - start


def bound(kind: str, r) -> object:
    return r.ratio if kind == "privacy" else r.one_minus_beta


def numpy_accuracy(n: int, lam: float, alpha: int) -> tuple[float, int, float]:
    """RR counting's tight ``1 - beta`` over all inputs, its worst number of ones, and the seconds, by numpy
    alone: ``P(count = y | i ones)`` is the convolution of Binomial(i, 1 - lam) and Binomial(n - i, lam)."""
    import numpy as np
    from scipy.stats import binom

    start = time.perf_counter()
    worst, at = math.inf, -1
    for i in range(n + 1):
        p = np.convolve(binom.pmf(np.arange(i + 1), i, 1 - lam), binom.pmf(np.arange(n - i + 1), n - i, lam))
        value = float(p[max(0, i - alpha):i + alpha + 1].sum())
        if value < worst:
            worst, at = value, i
    return worst, at, time.perf_counter() - start


def table() -> list[str]:
    lines = ["Automatic symmetry: acceptance benchmarks (compilation + detection + synthesis, one run each)",
             f"{'case':<36} {'n':>4} {'bound':>14} {'|C| or |A| (auto)':>18} {'exhaustive':>12} "
             f"{'compile s':>9} {'detect s':>8} {'total s':>8} {'target':>6}  symmetry"]
    for name, factory, n, small, target, kind in CASES:
        r, compile_s, total = run(kind, factory(n), "auto")
        value = bound(kind, r)
        text = f"e^eps={float(value):.6g}" if kind == "privacy" else f"1-b={float(value):.6g}"
        lines.append(f"{name:<36} {n:>4} {text:>14} {r.sets.size:>18} {_short(r.sets.exhaustive_size):>12} "
                     f"{compile_s:>9.2f} {r.sets.seconds:>8.2f} {total:>8.2f} {target:>6}  {r.sets.symmetry}")
        print(lines[-1], flush=True)
        if name == "RR privacy":
            assert value == (1 - LAM) / LAM, value
        if kind == "accuracy" or name == "RR privacy":
            hand, _, hand_total = run(kind, factory(n), "hand")
            assert bound(kind, hand) == value
            assert kind == "privacy" or hand.witness == r.witness
            lines.append(f"{'  same with the paper hand sets':<36} {n:>4} {'equal':>14} "
                         f"{len(rr_sets.accuracy_set(n)) if kind == 'accuracy' else 2 * n:>18} "
                         f"{'':>12} {'':>9} {'':>8} {hand_total:>8.2f}")
            print(lines[-1], flush=True)
        if kind == "accuracy":
            want, ones, numpy_s = numpy_accuracy(n, 0.2, ALPHA)
            assert math.isclose(float(value), want, rel_tol=1e-9) and sum(r.witness) == ones, (value, want, ones)
            lines.append(f"{'  independent numpy enumeration':<36} {n:>4} {want:>14.6g} {'':>18} {'':>12} "
                         f"{'':>9} {'':>8} {numpy_s:>8.2f}  (wmcdp / numpy = {total / numpy_s:.1f})")
            print(lines[-1], flush=True)
        exhaustive, _, _ = run(kind, factory(small), "exhaustive")
        auto, _, _ = run(kind, factory(small), "auto")
        assert bound(kind, exhaustive) == bound(kind, auto) or \
            math.isclose(float(bound(kind, exhaustive)), float(bound(kind, auto)), rel_tol=1e-12)
        lines.append(f"{'  agrees with exhaustive sets at n =':<36} {small:>4}")
        print(lines[-1], flush=True)
    return lines


def _short(n: int) -> str:
    return str(n) if n < 10 ** 12 else f"{n:.2e}"


# -- the sweep -----------------------------------------------------------------------------

SWEEPS = [  # (series, kind, factory, ns, set kinds)
    ("RR privacy", "privacy", lambda n: randomized_response(n, LAM), [2, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128],
     ("exhaustive", "auto", "hand")),
    ("RR-counting accuracy", "accuracy", lambda n: rr_counting(n, 0.2), [2, 4, 6, 8, 10, 12, 14, 16, 24, 32, 48, 64],
     ("exhaustive", "auto", "hand")),
    ("noisy max (m = 2)", "privacy", lambda n: noisy_max(n, 2, eps0=0.7), [2, 3, 4, 5, 6, 7, 8, 10, 12],
     ("exhaustive", "auto")),
    ("histogram (m = 2)", "privacy", lambda n: histogram(n, 2, eps0=0.7), [2, 3, 4, 5, 6, 8, 10],
     ("exhaustive", "auto")),
]


def sweep(budget: float) -> list[dict]:
    rows = []
    for series, kind, factory, ns, kinds in SWEEPS:
        for sets in kinds:
            for n in ns:
                prog = factory(n)
                try:
                    r, _, total = run_limited(kind, prog, sets, budget)
                except LimitExceeded:
                    print(f"{series:<22} {sets:<10} n = {n:>3}: over {2 * budget:g} s, series stopped", flush=True)
                    break
                size = r.sets.size if sets == "auto" else _hand_size(kind, n) if sets == "hand" else \
                    _exhaustive_size(kind, r.compiled)
                rows.append(dict(series=series, sets=sets, n=n, size=size, seconds=total,
                                 bound=float(bound(kind, r))))
                print(f"{series:<22} {sets:<10} n = {n:>3}: size {size:>12.4g}  {total:8.3f} s", flush=True)
                if total > budget:
                    break
    return rows


def run_limited(kind, prog, sets, budget):
    from wmcdp.base.limits import resource_limits

    with resource_limits(timeout=2 * budget):
        return run(kind, prog, sets)


def _hand_size(kind: str, n: int) -> int:
    return 2 * n if kind == "privacy" else n + 1


def _exhaustive_size(kind: str, compiled) -> float:
    from wmcdp.lang.relations import neighbour_relation

    if kind == "accuracy":
        return float(compiled.domain.size)
    return float(neighbour_relation(compiled.program.neighbours).count_pairs(compiled.domain) * compiled.shape.size)


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(SWEEPS), 2, figsize=(11, 3.2 * len(SWEEPS)))
    styles = {"exhaustive": ("tab:red", "s"), "auto": ("tab:blue", "o"), "hand": ("tab:green", "^")}
    for (series, kind, _, _, kinds), (left, right) in zip(SWEEPS, axes):
        for sets in kinds:
            pts = [r for r in rows if r["series"] == series and r["sets"] == sets]
            if not pts:
                continue
            color, marker = styles[sets]
            label = {"exhaustive": "exhaustive", "auto": "auto (proved symmetry)", "hand": "paper's hand sets"}[sets]
            left.plot([r["n"] for r in pts], [r["size"] for r in pts], marker=marker, color=color, label=label)
            right.plot([r["n"] for r in pts], [r["seconds"] for r in pts], marker=marker, color=color, label=label)
        left.set(yscale="log", xlabel="n", ylabel="|A| inputs" if kind == "accuracy" else "|C| triples",
                 title=f"{series}: set size")
        right.set(yscale="log", xlabel="n", ylabel="seconds (compile + synthesis)", title=f"{series}: time")
        left.legend(fontsize=8)
        right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# -- detection against the hand sets, and the plans' estimates ------------------------------------------

#: (command line of a built-in or benchmark program under the default plan) for the estimates against measured time
ESTIMATED = [
    ["approx", "rr_counting", "-p", "n=100", "-p", "lam=0.25", "--epsilon", "0.3"],
    ["approx", "rr_counting", "-p", "n=300", "-p", "lam=0.25", "--epsilon", "0.3"],
    ["approx", "rr_counting", "-p", "n=1000", "-p", "lam=0.25", "--epsilon", "0.3"],
    ["accuracy", "rr_counting", "-p", "n=200", "-p", "lam=0.2", "--alpha", "3"],
    ["privacy", "noisy_max", "-p", "n=6", "-p", "m=5", "-p", "eps0=1"],
    ["privacy", "sparse_vector", "-p", "n=8", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["approx", "sparse_vector", "-p", "n=6", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1", "--epsilon", "0.5"],
    ["privacy", "gap_svt", "-p", "n=5", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "isvt1", "-p", "n=6", "-p", "m=2", "-p", "T=1", "-p", "eps0=1"],
    ["privacy", "geometric_above_threshold", "-p", "n=8", "-p", "k=3", "-p", "t=2", "-p", "scale=0.2"],
    ["privacy", "histogram", "-p", "n=3", "-p", "m=2", "-p", "eps0=0.7", "--neighbours", "all-entries"],
    ["approx", "randomized_response", "-p", "n=10", "-p", "lam=0.2", "--epsilon", "0.5"],
    ["privacy", "adaptive_svt", "-p", "n=5", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "monotone_svt", "-p", "n=5", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "partial_sum", "-p", "n=4", "-p", "m=2", "-p", "eps0=1"],
    ["privacy", "smart_sum", "-p", "n=4", "-p", "m=2", "-p", "M=2", "-p", "eps0=1"],
    ["privacy", "noisy_max_value", "-p", "n=4", "-p", "m=3", "-p", "eps0=1"],
    ["privacy", "geometric_parallel", "-p", "n=4", "-p", "m=4", "-p", "eps0=1"],
    ["privacy", "truncated_geometric", "-p", "m=200", "-p", "scale=2"],
    # the benchmark programs of CheckDP, DP-Sniper and StatDP (wmcdp.programs.CHECKDP and PEERS) at small n
    ["privacy", "svt", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "gap_svt", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "num_svt", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "isvt2", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "eps0=1"],
    ["privacy", "isvt3", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "isvt4", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "bad_svt1", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "eps0=1"],
    ["privacy", "bad_gap_svt", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "bad_adaptive_svt", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "svt_resampled", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "svt34_parallel", "-p", "n=4", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"],
    ["privacy", "bad_partial_sum", "-p", "n=4", "-p", "m=2", "-p", "eps0=1"],
    ["privacy", "prefix_sum", "-p", "n=4", "-p", "m=2", "-p", "eps0=1"],
    ["privacy", "bad_smart_sum", "-p", "n=4", "-p", "m=2", "-p", "M=2", "-p", "eps0=1"],
    ["privacy", "noisy_max_exponential", "-p", "n=4", "-p", "m=3", "-p", "eps0=1"],
    ["privacy", "noisy_max_exponential_value", "-p", "n=4", "-p", "m=3", "-p", "eps0=1"],
    ["privacy", "histogram", "-p", "n=4", "-p", "m=2", "-p", "eps0=1"],
    ["privacy", "histogram_wrong_scale", "-p", "n=4", "-p", "m=2", "-p", "eps0=1"],
    ["privacy", "rappor", "-p", "n=5"],
    ["privacy", "one_time_rappor", "-p", "n=5"],
    ["privacy", "truncated_geometric", "-p", "m=100", "-p", "scale=2"],
]


def cli_json(args: list[str]) -> tuple[dict, float]:
    """``(the command's JSON result, wall seconds)``, run in-process."""
    import contextlib
    import io
    import json

    from wmcdp.cli import main as cli_main

    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        status = cli_main([*args, "--json"])
    seconds = time.perf_counter() - start
    assert status == 0, (args, status)
    return json.loads(out.getvalue()), seconds


def detection(ns: list[int], repeat: int) -> list[str]:
    """The default plan against the hand sets on RR counting's (epsilon, delta), best of ``repeat``; then each
    plan's estimate beside its measured seconds."""
    lines = [f"{'n':>5} {'default s':>10} {'hand sets s':>11} {'ratio':>6} {'detection s':>11} "
             f"{'detection work':>14}  delta (default = hand)"]
    for n in ns:
        base = ["approx", "rr_counting", "-p", f"n={n}", "-p", "lam=0.25", "--epsilon", "0.3"]
        default = [cli_json(base) for _ in range(repeat)]
        hand = [cli_json([*base, "--sets", "symmetry"]) for _ in range(repeat)]
        best, best_hand = min(s for _, s in default), min(s for _, s in hand)
        plan = default[0][0]["plan"]
        assert math.isclose(default[0][0]["delta"], hand[0][0]["delta"], rel_tol=1e-9), (n, default, hand)
        delta = default[0][0]["delta"]
        lines.append(f"{n:>5} {best:>10.2f} {best_hand:>11.2f} {best / best_hand:>6.1f} "
                     f"{plan['detection_seconds']:>11.2f} {plan['detection_work']:>14.3g}  {delta:.10g}")
        print(lines[-1], flush=True)
    return lines + estimates(repeat)


def estimates(repeat: int = 3) -> list[str]:
    """Each plan's estimate (its preparation, its detection work at the cost model's rate, then its run) beside
    the seconds it measured (everything the plan did, best of ``repeat`` runs in-process), and the detection's
    seconds and counted work. A plan without an estimate of its own (a product of parts) shows "-"."""
    lines = [f"{'command (default plan)':<92} {'plan':>10} {'estimated s':>11} {'measured s':>10} {'ratio':>6} "
             f"{'detection s':>11} {'work':>8}"]
    cli_json(["privacy", "randomized_response", "-p", "n=3", "-p", "lam=0.2"])  # imports out of the first row
    for args in ESTIMATED:
        runs = [cli_json(args)[0]["plan"] for _ in range(repeat)]
        plan = runs[0]
        assert all(r["estimated_seconds"] == plan["estimated_seconds"] for r in runs), args  # counted work only
        estimate, measured = plan["estimated_seconds"], min(r["seconds"] for r in runs)
        ratio = f"{measured / estimate:.3g}" if estimate else "-"
        shown = f"{estimate:.3g}" if estimate else "-"  # product plans estimate their parts, not the whole
        lines.append(f"{' '.join(args):<92} {plan['kind']:>10} {shown:>11} {measured:>10.3g} {ratio:>6} "
                     f"{plan['detection_seconds']:>11.3g} {plan['detection_work']:>8.3g}")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=30.0, help="seconds per sweep point before a series stops")
    parser.add_argument("--no-sweep", action="store_true", help="only the table")
    parser.add_argument("--detection", action="store_true", help="only the default plan against the hand sets")
    parser.add_argument("--estimates", action="store_true", help="only each plan's estimate against its seconds")
    parser.add_argument("--ns", type=int, nargs="+", default=[100, 300], help="n of the detection table")
    parser.add_argument("--repeat", type=int, default=3, help="runs per point of the detection and estimates tables "
                        "(best kept)")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    if args.detection:
        (RESULTS / "symmetry_detection.txt").write_text("\n".join(detection(args.ns, args.repeat)) + "\n")
        return
    if args.estimates:
        (RESULTS / "symmetry_estimates.txt").write_text("\n".join(estimates(args.repeat)) + "\n")
        return
    lines = table()
    (RESULTS / "symmetry.txt").write_text("\n".join(lines) + "\n")
    if not args.no_sweep:
        rows = sweep(args.budget)
        write_csv(rows, "symmetry_sweep.csv")
        plot(rows, RESULTS / "symmetry_sweep.png")


if __name__ == "__main__":
    main()
