"""Exhaustive runs over the producible outputs only, and plan sizing without listing outputs (issue 28, item 3).

For each case: the output shape's size, the producible outputs (the support: counted on the diagram
``EXISTS x, theta . phi``), the outputs the exhaustive table lists, and the exhaustive run's epsilon, witness output and
seconds (the run only; compilation apart). ``--histogram`` times the default plan on a histogram with correlated
noise (each count plus the two coins it shares with its neighbours, outputs in 0..4), its detection apart.

    python experiments/support.py [--histogram N]

Run it on an older checkout (``PYTHONPATH=that/checkout``) for the figures before.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from typing import Any

from wmcdp import Program, programs, synthesize_privacy
from wmcdp.compile import compile_program
from wmcdp.lang import IntVector, flip, ite, truncated_geometric


def wide_rr(n: int) -> Program:
    """Randomized response with a shared fair coin choosing the flip rate; each report is 0 or 7 (a 3-bit output):
    8^n output tuples, 2^n of them producible."""

    def body(x: Any) -> Any:
        s = flip(Fraction(1, 2))
        return tuple(ite(ite(s, flip(Fraction(1, 4)), flip(Fraction(1, 3))), 7 - 7 * x[i], 7 * x[i]) for i in range(n))

    return Program("wide_rr", IntVector(n, 0, 1), body, neighbours="hamming")


def correlated_histogram(n: int, alpha: Any = 0.5) -> Program:
    """A histogram with correlated noise: count ``i`` (0 or 1) plus the coins ``s_i`` and ``s_(i+1)`` it shares with
    its neighbours, released through a truncated geometric on 0..4 (5^n outputs, one part: no product)."""

    def body(x: Any) -> Any:
        s = [flip(Fraction(1, 2)) for _ in range(n + 1)]
        return tuple(truncated_geometric(x[i] + s[i] + s[i + 1], 0, 4, alpha=alpha) for i in range(n))

    return Program("correlated_histogram", IntVector(n, 0, 1), body, neighbours="one-entry")


CASES = [
    ("sparse_vector", {"n": 6, "m": 2, "T": 1, "N": 1, "eps0": 1}),
    ("sparse_vector", {"n": 8, "m": 2, "T": 1, "N": 1, "eps0": 1}),
    ("isvt1", {"n": 6, "m": 2, "T": 1, "eps0": 1}),
    ("noisy_max_value", {"n": 4, "m": 3, "eps0": 1}),
]


def row(name: str, program: Program) -> None:
    compiled = compile_program(program)
    support = getattr(compiled, "support", None)  # (absent on a checkout before the support was counted)
    start = time.perf_counter()
    try:
        r = synthesize_privacy(compiled, "exhaustive")
        result = f"eps {float(r.epsilon):.9f}  y {r.witness.y}  {time.perf_counter() - start:8.3f} s"
    except ValueError as error:
        result = f"refused: {str(error)[:60]}..."
    producible = "?" if support is None else support.size
    print(f"{name:40s} outputs {compiled.shape.size:>9}  producible {producible!s:>6}  {result}")


def histogram(n: int) -> None:
    program = correlated_histogram(n)
    start = time.perf_counter()
    r = synthesize_privacy(program)
    plan = r.plan
    print(
        f"correlated_histogram n={n}: {plan.kind}, detection {plan.detection_seconds:.2f} s "
        f"({plan.detection_work} units), total {time.perf_counter() - start:.2f} s, eps {float(r.epsilon):.9f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histogram", type=int, default=0, help="time the default plan on it at this n")
    args = parser.parse_args()
    for name, params in CASES:
        row(f"{name} {params}", getattr(programs, name)(**params))
    for n in (4, 6):
        row(f"wide_rr n={n}", wide_rr(n))
    if args.histogram:
        histogram(args.histogram)


if __name__ == "__main__":
    main()
