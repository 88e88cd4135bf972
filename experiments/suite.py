"""The DP-tester suite (StatDP Sec. 5) with geometric noise: exact tight eps per claimed eps0.

For every mechanism of :mod:`programs.suite` and claimed eps0 in {0.2, 0.7, 1.5} it prints
the tight eps over the mechanism's declared neighbour relation (exhaustive sets, BDD,
float WMC), the witness (D1, D2, output) and the seconds for compiling plus Algorithm 2.
Query answers are in {0..m} with m = 2, noise on {-margin..m+margin} with margin = 1; the
sizes n are the largest that run in about a minute per point (the sparse vector family at
n = 7 is over the default exhaustive-set limit, so the table forces exhaustive sets).
Sparse vector codes: 0 = FALSE, 1 = TRUE, 2 = stopped; iSVT4 answers are (code, value).
The table is also written to experiments/results/suite.txt.

    python experiments/suite.py             # the table (about 15 minutes)
    python experiments/suite.py --margins   # instead: tight eps as the noise range widens
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from programs import PROGRAMS  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402

M, MARGIN, EPS0 = 2, 1, (0.2, 0.7, 1.5)

#: mechanism, number of queries n, extra parameters (threshold T, bound N)
RUNS = [
    ("noisy_max", 8, {}),
    ("noisy_max_value", 8, {}),
    ("histogram", 6, {}),
    ("histogram_wrong_scale", 6, {}),
    ("sparse_vector", 7, {"T": 1, "N": 1}),
    ("isvt1", 7, {"T": 1}),
    ("isvt2", 7, {"T": 1}),
    ("isvt3", 7, {"T": 1, "N": 1}),
    ("isvt4", 4, {"T": 1, "N": 1}),
]
RESULTS = Path(__file__).resolve().parent / "results" / "suite.txt"


def show(value: object) -> str:
    """Inputs and outputs as Python-style lists/tuples."""
    return str(list(value)) if isinstance(value, tuple) and not any(isinstance(v, tuple) for v in value) \
        else str(value)


def margins() -> None:
    """Truncation at work: tight eps of n = 3 noisy max and sparse vector (eps0 = 0.7) for wider noise ranges."""
    print(f"tight eps for eps0 = 0.7, n = 3, answers in {{0..{M}}}, noise range {{-margin..{M}+margin}}")
    for name, extra in (("noisy_max", {}), ("sparse_vector", {"T": 1, "N": 1})):
        cells = []
        for margin in (0, 1, 2, 4, 8):
            r = synthesize_privacy(PROGRAMS[name](n=3, m=M, eps0=0.7, margin=margin, **extra))
            cells.append(f"margin {margin}: {r.epsilon:.4f}")
        print(f"{name:<15} " + "  ".join(cells), flush=True)


def table() -> None:
    lines: list[str] = []

    def emit(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    emit(f"DP-tester suite, answers in {{0..{M}}}, noise range {{-{MARGIN}..{M + MARGIN}}}, exhaustive sets, BDD")
    emit(f"{'mechanism':<22} {'params':<13} {'eps0':>5} {'tight eps':>10} {'eps/eps0':>8} {'nodes':>6} "
         f"{'seconds':>8}  witness D1 / D2 / output")
    for name, n, extra in RUNS:
        params = " ".join(f"{k}={v}" for k, v in {"n": n, **extra}.items())
        for eps0 in EPS0:
            start = time.perf_counter()
            compiled = compile_program(PROGRAMS[name](n=n, m=M, eps0=eps0, margin=MARGIN, **extra))
            r = synthesize_privacy(compiled, force=True)
            seconds = time.perf_counter() - start
            w = r.witness
            emit(f"{name:<22} {params:<13} {eps0:>5} {r.epsilon:>10.6f} {r.epsilon / eps0:>8.4f} "
                 f"{compiled.size:>6} {seconds:>8.2f}  {show(w.x)} / {show(w.x_prime)} / {show(w.y)}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--margins", action="store_true", help="print the noise-range study instead of the table")
    margins() if parser.parse_args().margins else table()


if __name__ == "__main__":
    main()
