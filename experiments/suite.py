"""The DP-tester suite (StatDP Sec. 5) with geometric noise: exact tight eps per claimed eps0.

For every mechanism of :mod:`programs.suite` and claimed eps0 in {0.2, 0.7, 1.5} it prints
the tight eps over the mechanism's declared neighbour relation (exhaustive sets, BDD,
float WMC), the witness (D1, D2, output) and the seconds for compiling plus Algorithm 2.
Query answers are in {0..m} with m = 2, noise on {-margin..m+margin} with margin = 1; the
sizes n are the largest that run in about a minute per point (the sparse vector family at
n = 7 is over the default exhaustive-set limit, so the table forces exhaustive sets).
Sparse vector codes: 0 = FALSE, 1 = TRUE, 2 = stopped; iSVT4 answers are (code, value).
The table is also written to experiments/results/suite.txt.

With ``--auto`` the same mechanisms run at n = 10 with the orbit sets of the symmetries
wmcdp proves (``sets="auto"``), written to experiments/results/suite_auto.txt; the table adds
the group, the orbit set's size |C| and the exhaustive |C|.

    python experiments/suite.py             # the table (about 15 minutes)
    python experiments/suite.py --auto      # n = 10 with automatic symmetry sets (a few minutes)
    python experiments/suite.py --margins   # instead: tight eps as the noise range widens
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wmcdp.programs import PROGRAMS  # noqa: E402
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
#: the same mechanisms at n = 10 with automatic symmetry sets
RUNS_AUTO = [(name, 10, extra) for name, _, extra in RUNS]
RESULTS = Path(__file__).resolve().parent / "results" / "suite.txt"
RESULTS_AUTO = RESULTS.with_name("suite_auto.txt")


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


def table(auto: bool = False) -> None:
    lines: list[str] = []

    def emit(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    sets = "automatic symmetry sets" if auto else "exhaustive sets"
    emit(f"DP-tester suite, answers in {{0..{M}}}, noise range {{-{MARGIN}..{M + MARGIN}}}, {sets}, BDD")
    extra_head = f" {'|C| auto':>10} {'|C| exhaustive':>14}" if auto else ""
    emit(f"{'mechanism':<22} {'params':<13} {'eps0':>5} {'tight eps':>10} {'eps/eps0':>8} {'nodes':>6} "
         f"{'seconds':>8}{extra_head}  witness D1 / D2 / output")
    groups = []
    for name, n, extra in RUNS_AUTO if auto else RUNS:
        params = " ".join(f"{k}={v}" for k, v in {"n": n, **extra}.items())
        for eps0 in EPS0:
            start = time.perf_counter()
            compiled = compile_program(PROGRAMS[name](n=n, m=M, eps0=eps0, margin=MARGIN, **extra))
            r = synthesize_privacy(compiled, "auto") if auto else synthesize_privacy(compiled, force=True)
            seconds = time.perf_counter() - start
            w = r.witness
            sizes = f" {r.sets.size:>10} {r.sets.exhaustive_size:>14.3e}" if auto else ""
            emit(f"{name:<22} {params:<13} {eps0:>5} {r.epsilon:>10.6f} {r.epsilon / eps0:>8.4f} "
                 f"{compiled.size:>6} {seconds:>8.2f}{sizes}  {show(w.x)} / {show(w.x_prime)} / {show(w.y)}")
        if auto:
            groups.append(f"{name}: {r.sets.symmetry}; per output: {r.sets.per_output}")
    lines += ["", "proved symmetries:"] + groups if auto else []
    path = RESULTS_AUTO if auto else RESULTS
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--margins", action="store_true", help="print the noise-range study instead of the table")
    parser.add_argument("--auto", action="store_true", help="n = 10 with automatic symmetry sets")
    args = parser.parse_args()
    margins() if args.margins else table(args.auto)


if __name__ == "__main__":
    main()
