"""Certified runs: what an enclosure costs against a float run and an exact run of the same mechanism.

Each case is a mechanism whose weight is irrational (an exact real such as 1/(1 + e^(1/2))). It runs three
ways in the same process, best of ``--repeat`` runs each: in float mode (the weight rounded to a double), in
exact mode on the rational ``Fraction(float(weight))`` (what exact mode can do with that double), and
certified (the enclosure of the true bound). Each row reports the precision the enclosure needed, its
relative width, and how far the float run's value lies outside it, relative ("float off": the float run
counts a rounded weight, so it may miss the enclosure by a few ulps; it must stay within float mode's
documented 1e-12).

    python experiments/certified.py [--repeat 2]
Writes experiments/results/certified.txt.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction as F
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from wmcdp import Real, synthesize_approximate, synthesize_privacy, synthesize_renyi  # noqa: E402
from wmcdp.programs import randomized_response, rr_counting  # noqa: E402

RESULTS = HERE / "results"
LAM = "1/(1+exp(1/2))"  # randomized response at epsilon0 = 1/2
TINY = "exp(-700)"  # a weight far below what a float path could keep as 1 - p


def _value(r, kind):
    """The bound of a result and its enclosure (None for a run that is not certified)."""
    if kind == "delta":
        return r.delta, r.interval
    if kind == "renyi":
        return r.orders[0].epsilon, r.intervals[0] if r.intervals else None
    return r.epsilon, r.interval


#: name, the run given (weight, certified), the bound's kind, the weight
CASES = [
    (
        "privacy randomized_response n=6, exhaustive",
        lambda w, c: synthesize_privacy(randomized_response(6, w), "exhaustive", certified=c),
        "epsilon",
        LAM,
    ),
    (
        "privacy randomized_response n=200, planner",
        lambda w, c: synthesize_privacy(randomized_response(200, w), certified=c),
        "epsilon",
        LAM,
    ),
    (
        "privacy randomized_response n=12, lam=e^-700, planner",
        lambda w, c: synthesize_privacy(randomized_response(12, w), certified=c),
        "epsilon",
        TINY,
    ),
    (
        "approx rr_counting n=30, delta(eps=1/4), planner",
        lambda w, c: synthesize_approximate(rr_counting(30, w), epsilon=0.25, certified=c),
        "delta",
        LAM,
    ),
    (
        "approx rr_counting n=30, eps(delta=1e-6), planner",
        lambda w, c: synthesize_approximate(rr_counting(30, w), delta=F(1, 10**6), certified=c),
        "epsilon",
        LAM,
    ),
    (
        "renyi randomized_response n=8, D_2, planner",
        lambda w, c: synthesize_renyi(randomized_response(8, w), [2], certified=c),
        "renyi",
        LAM,
    ),
]


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    lines = [
        f"{'case':<56}{'float s':>9}{'exact s':>9}{'cert s':>9}{'ratio':>7}{'bits':>6}{'rel width':>11}"
        f"{'float off':>11}"
    ]
    for name, run, kind, text in CASES:
        weight = Real(text)
        t_float, r_float = best(lambda: run(weight, False), args.repeat)  # noqa: B023
        t_exact, _ = best(lambda: run(F(float(weight)), False), args.repeat)  # noqa: B023
        t_cert, r_cert = best(lambda: run(weight, True), args.repeat)  # noqa: B023
        value, _ = _value(r_float, kind)
        _, enclosure = _value(r_cert, kind)
        value = float(value)
        off = max(enclosure.lo - value, value - enclosure.hi, 0.0) / max(abs(value), 1e-300)
        assert off <= 1e-12, (name, value, enclosure)  # float mode's documented accuracy
        width = (enclosure.hi - enclosure.lo) / enclosure.hi if enclosure.hi else 0.0
        lines.append(
            f"{name:<56}{t_float:>9.3f}{t_exact:>9.3f}{t_cert:>9.3f}{t_cert / t_exact:>7.1f}"
            f"{enclosure.precision:>6}{width:>11.1e}{off:>11.1e}"
        )
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "certified.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
