"""Benchmark: exact arithmetic beside float arithmetic on the same runs.

Each case runs the same synthesis twice in this process — float mode and exact mode (rational
parameters, or the exact values of the binary64 parameters) — after one warm-up run of each, and
prints the median of three runs of each, the ratio exact / float, and the number system the exact
run used (``Scaled``: integers over a common denominator, float64/int64/Python ints by its size;
``Rational``: gmpy2 ``mpq`` when that denominator would be too large). The two bounds must agree
to 1e-12 (relative).

    python experiments/bench_exact.py
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wmcdp.programs import PROGRAMS  # noqa: E402
from wmcdp import synthesize_accuracy, synthesize_privacy  # noqa: E402
from wmcdp.count.probabilities import as_compiled, number_system  # noqa: E402

#: (title, program, float parameters, exact parameters, exact mode, kind)
CASES = [
    ("RR privacy exhaustive n = 10", "randomized_response", {"n": 10, "lam": 0.2}, {"n": 10, "lam": Fraction(1, 5)},
     True, "privacy"),
    ("RR privacy exhaustive n = 12", "randomized_response", {"n": 12, "lam": 0.2}, {"n": 12, "lam": Fraction(1, 5)},
     True, "privacy"),
    ("RR-counting accuracy exhaustive n = 12", "rr_counting", {"n": 12, "lam": 0.2},
     {"n": 12, "lam": Fraction(1, 5)}, True, "accuracy"),
    ("geometric above threshold k = 3, n = 4", "geometric_above_threshold", {"n": 4, "k": 3, "t": 2, "alpha": 0.5},
     {"n": 4, "k": 3, "t": 2, "alpha": Fraction(1, 2)}, True, "privacy"),
    ("histogram n = 4, m = 2 (alpha = 1/2)", "histogram", {"n": 4, "m": 2, "alpha": 0.5},
     {"n": 4, "m": 2, "alpha": Fraction(1, 2)}, True, "privacy"),
    ("truncated geometric m = 40, scale 2 (binary)", "truncated_geometric", {"m": 40, "scale": 2},
     {"m": 40, "scale": 2}, "binary", "privacy"),
]


def run(kind: str, name: str, params: dict, exact) -> tuple[float, float, str]:
    program = PROGRAMS[name](**params)
    compiled = as_compiled(program, "bdd", exact)
    system = number_system(compiled, exact)
    start = time.perf_counter()
    if kind == "privacy":
        value = float(synthesize_privacy(compiled, exact=exact).ratio)
    else:
        value = float(synthesize_accuracy(compiled, alpha=3, exact=exact).one_minus_beta)
    return time.perf_counter() - start, value, getattr(system, "__name__", type(system).__name__)


def main() -> None:
    print(f"{'case':<46} {'float s':>9} {'exact s':>9} {'exact/float':>11}  exact numbers")
    for title, name, float_params, exact_params, mode, kind in CASES:
        run(kind, name, float_params, False)
        run(kind, name, exact_params, mode)
        floats = [run(kind, name, float_params, False) for _ in range(3)]
        exacts = [run(kind, name, exact_params, mode) for _ in range(3)]
        if not math.isclose(floats[0][1], exacts[0][1], rel_tol=1e-12):
            raise SystemExit(f"{title}: float {floats[0][1]!r} but exact {exacts[0][1]!r}")
        f = statistics.median(t for t, _, _ in floats)
        e = statistics.median(t for t, _, _ in exacts)
        print(f"{title:<46} {f:>9.4f} {e:>9.4f} {e / f:>11.2f}  {exacts[0][2]}", flush=True)


if __name__ == "__main__":
    main()
