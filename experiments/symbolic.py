"""Bounds as functions of a parameter: the cost of a symbolic run against one exact numeric run, and the
paper's Fig. 4 redrawn from the closed forms.

Each case runs the symbolic bound over an interval and the exact numeric bound at one point of it, in the
same process, best of ``--repeat`` runs each (a first run also pays for imports and fresh memory), and checks
that the symbolic bound at that point equals the numeric one. The figure draws ε(λ) of randomized response
and 1 − β(λ) of RR counting (n = 6, α = 3) from their pieces, breakpoints marked, with the numeric sweep's
points (separate numeric runs, equal to the pieces there) on top.

    python experiments/symbolic.py [--repeat 3]
Writes experiments/results/symbolic.txt and experiments/results/symbolic_fig4.png.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction as F
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from wmcdp import Parameter, synthesize_accuracy, synthesize_privacy  # noqa: E402
from wmcdp.programs import geometric_above_threshold, randomized_response, rr_counting  # noqa: E402

RESULTS = HERE / "results"

#: name, the run given the parameter's value (a Parameter or a number), the interval, the numeric point
CASES = [
    (
        "privacy randomized_response n=10, exhaustive",
        lambda lam: synthesize_privacy(randomized_response(10, lam), "exhaustive"),
        (F(0), F(1, 2)),
        F(1, 5),
    ),
    (
        "accuracy rr_counting n=50, alpha=3, planner",
        lambda lam: synthesize_accuracy(rr_counting(50, lam), alpha=3),
        (F(0), F(1, 2)),
        F(1, 5),
    ),
    (
        "privacy geometric_above_threshold n=3 k=3 t=2, planner",
        lambda a: synthesize_privacy(geometric_above_threshold(3, 3, 2, alpha=a)),
        (F(1, 10), F(9, 10)),
        F(1, 2),
    ),
]


def best(run, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def value_at(result, t):
    return result.one_minus_beta_at(t) if hasattr(result, "one_minus_beta_at") else result.ratio_at(t)


def numeric_value(result):
    return result.one_minus_beta if hasattr(result, "one_minus_beta") else result.ratio


def benchmark(repeat: int) -> str:
    lines = [
        f"{'case':<56} {'numeric s':>10} {'symbolic s':>11} {'ratio':>6} {'pieces':>6} {'counts':>6}",
    ]
    for name, run, (lo, hi), point in CASES:
        numeric_s, numeric = best(lambda run=run, point=point: run(point), repeat)
        symbolic_s, symbolic = best(lambda run=run, lo=lo, hi=hi: run(Parameter("t", lo, hi)), repeat)
        assert value_at(symbolic, point) == numeric_value(numeric), name
        lines.append(
            f"{name:<56} {numeric_s:>10.3f} {symbolic_s:>11.3f} {symbolic_s / numeric_s:>6.1f} "
            f"{len(symbolic.pieces):>6} {symbolic.degree + 1:>6}"
        )
    return "\n".join(lines)


def figure(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wmcdp.base.polys import poly_at

    privacy = synthesize_privacy(randomized_response(6, Parameter("lam", F(1, 100), F(99, 100))))
    accuracy = synthesize_accuracy(rr_counting(6, Parameter("lam", F(0), F(1, 2))), alpha=3)
    grid = [F(k, 20) for k in range(1, 11)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, result, log, label in ((axes[0], privacy, True, "ε"), (axes[1], accuracy, False, "1 − β")):
        for piece in result.pieces:
            a, b = float(piece.start), float(piece.end)
            ts = [a + (b - a) * k / 300 for k in range(301)]
            ys = []
            for t in ts:
                v = poly_at(piece.num, F(t)) / poly_at(piece.den, F(t))
                ys.append(math.log(v) if log else float(v))
            ax.plot(ts, ys, color="C0")
        for piece in result.pieces[1:]:
            ax.axvline(float(piece.start), color="0.5", linestyle=":", linewidth=1)
        numeric = [
            synthesize_accuracy(rr_counting(6, t), alpha=3).one_minus_beta
            if not log
            else synthesize_privacy(randomized_response(6, t)).ratio
            for t in grid
        ]
        assert numeric == [value_at(result, t) for t in grid]  # the pieces at the sweep's points
        points = list(zip([float(t) for t in grid], numeric))
        ax.plot([t for t, _ in points], [math.log(v) if log else float(v) for _, v in points], "o", color="C1",
                markersize=4, label="numeric sweep points")
        ax.set_xlabel("flip probability λ")
        ax.set_ylabel(label)
        ax.legend()
    axes[0].set_title("(a) RR, n = 6: ε(λ) = |ln((1 − λ)/λ)|, breakpoint 1/2")
    axes[1].set_title("(b) RR counting, n = 6, α = 3: 1 − β(λ)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    RESULTS.mkdir(exist_ok=True)
    table = benchmark(args.repeat)
    print(table)
    (RESULTS / "symbolic.txt").write_text(table + "\n")
    figure(RESULTS / "symbolic_fig4.png")
    print(f"wrote {RESULTS / 'symbolic.txt'} and {RESULTS / 'symbolic_fig4.png'}")


if __name__ == "__main__":
    main()
