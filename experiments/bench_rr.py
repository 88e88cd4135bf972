"""Benchmark: randomized response privacy and RR-counting accuracy (paper Table 2 and Fig. 3).

Prints, per run: sets used, n, |I|, |C| (or |A|), compile seconds, inference + synthesis
seconds, total seconds, diagram size (BDD nodes of phi with symbolic inputs), the bound,
and the peak resident memory of the process so far. Targets (issue 2): symmetry-set
privacy n = 20 in <= 0.05 s and n = 1000 in <= 10 s; exhaustive n = 10 in <= 2 s for
privacy and for the accuracy table; memory under 2 GB; BDD size linear in n.

    python experiments/bench_rr.py            # everything (about a minute)
    python experiments/bench_rr.py --quick    # smaller sizes, for a smoke run
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wmcdp.programs import randomized_response, rr_counting  # noqa: E402
from wmcdp.symmetry_sets import randomized_response as rr_sets  # noqa: E402
from wmcdp import compile_program, synthesize_accuracy, synthesize_privacy  # noqa: E402
from wmcdp.lang.sets import exhaustive_accuracy, exhaustive_inference, exhaustive_privacy  # noqa: E402

LAM, ALPHA = 0.2, 3
HEADER = f"{'experiment':<22} {'n':>5} {'|I|':>9} {'|C| or |A|':>11} {'compile s':>10} {'synth s':>9} " \
         f"{'total s':>9} {'BDD size':>9} {'bound':>12} {'peak MB':>8}"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def row(name: str, n: int, size_i: int, size_c: int, compiled, result, bound: float) -> None:
    total = compiled.compile_seconds + result.seconds
    print(f"{name:<22} {n:>5} {size_i:>9} {size_c:>11} {compiled.compile_seconds:>10.4f} {result.seconds:>9.4f} "
          f"{total:>9.4f} {compiled.size:>9} {bound:>12.8g} {peak_mb():>8.0f}", flush=True)


def privacy_symmetry(ns):
    for n in ns:
        compiled = compile_program(randomized_response(n, LAM))
        C, I = rr_sets.privacy_set(n), rr_sets.privacy_inference_set(n)
        r = synthesize_privacy(compiled, C, I)
        row("privacy symmetry", n, len(I), len(C), compiled, r, r.epsilon)


def privacy_exhaustive(ns):
    for n in ns:
        compiled = compile_program(randomized_response(n, LAM))
        ys = tuple(compiled.shape.values())
        C, I = exhaustive_privacy(compiled.domain, ys), exhaustive_inference(compiled.domain, ys)
        r = synthesize_privacy(compiled, C, I)
        row("privacy exhaustive", n, len(I), len(C), compiled, r, r.epsilon)


def accuracy_exhaustive(ns):
    for n in ns:
        compiled = compile_program(rr_counting(n, LAM))
        r = synthesize_accuracy(compiled, alpha=ALPHA)
        row("accuracy exhaustive", n, 2 ** n * (n + 1), len(exhaustive_accuracy(compiled.domain)), compiled, r,
            r.one_minus_beta)


def accuracy_symmetry(ns):
    for n in ns:
        compiled = compile_program(rr_counting(n, LAM))
        A, I = rr_sets.accuracy_set(n), rr_sets.accuracy_inference_set(n, ALPHA)
        r = synthesize_accuracy(compiled, A, None, ALPHA, I)
        row("accuracy symmetry", n, len(I), len(A), compiled, r, r.one_minus_beta)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    print(f"randomized response, lambda = {LAM}; RR counting accuracy alpha = {ALPHA}")
    print(HEADER)
    if args.quick:
        privacy_symmetry([5, 10, 20, 50])
        privacy_exhaustive(range(2, 9))
        accuracy_exhaustive(range(2, 8))
        accuracy_symmetry([10, 20])
    else:
        privacy_symmetry([5, 10, 20, 50, 100, 200, 500, 1000])
        privacy_exhaustive(range(2, 13))
        accuracy_exhaustive(range(2, 11))
        accuracy_symmetry(range(10, 101, 10))


if __name__ == "__main__":
    main()
