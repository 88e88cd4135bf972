"""Geometric above threshold: exhaustive tight eps and BDD sizes (paper Sec. 6.2, Fig. 2).

Grid of the paper's artifact: n = 2..6, k = 1..3, t = k - 1, scale = 0.2, neighbours
"one entry moves by one". Per point it prints the tight eps (exhaustive sets), the BDD
size of phi(x, y, theta) with symbolic inputs (``Compiled.size``), the size of the
output-bit functions for concrete inputs (smallest and largest over all inputs; see
:meth:`wmcdp.compile.Compiled.output_size`), and the seconds for compiling plus Algorithm 2.

The paper's Fig. 2 (91 nodes at k = 3, n = 6) counts what Dice compiled: one program per
concrete input, the BDDs of its output bits. The per-input column is that quantity
(85 nodes at k = 3, n = 6, for every input); phi is larger because it also holds the
input bits (every input at once) and the output bits y.

    python experiments/gat.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from programs import geometric_above_threshold  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402

SCALE = 0.2


def main() -> None:
    print(f"geometric above threshold, t = k - 1, scale = {SCALE}, neighbours one-entry, exhaustive sets, BDD")
    print(f"{'k':>2} {'n':>2} {'inputs':>6} {'epsilon':>10} {'phi size':>9} {'per-input min..max':>19} {'seconds':>8}")
    for k in (1, 2, 3):
        for n in range(2, 7):
            start = time.perf_counter()
            compiled = compile_program(geometric_above_threshold(n, k, k - 1, scale=SCALE))
            result = synthesize_privacy(compiled)
            seconds = time.perf_counter() - start
            per_input = [compiled.output_size(x) for x in compiled.domain.values()]
            sizes = f"{min(per_input)}..{max(per_input)}"
            print(f"{k:>2} {n:>2} {compiled.domain.size:>6} {result.epsilon:>10.6f} {compiled.size:>9} "
                  f"{sizes:>19} {seconds:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
