"""The hub plan's estimate beside its measured time, on the programs it answers (issue 28: within 3 x).

Each program runs once in this process under the default plan (which must be ``hub``); the table gives the plan's
``estimated_seconds`` (a fixed function of the work it counted, ``wmcdp.plan.costs.HUB_SECONDS``), the run's wall
seconds and CPU seconds (what a quiet machine's wall time is; on a loaded one the wall time stretches), and the
estimate's ratio to each.

    python experiments/hub_estimates.py
"""

from __future__ import annotations

import time
from fractions import Fraction

from wmcdp import synthesize_privacy
from wmcdp.programs import PROGRAMS

HALF = Fraction(1, 2)
SVT = {"n": 10, "m": 1, "T": 1, "N": 1, "alpha": HALF}
CASES = [
    *(("sparse_vector", {"n": n, "m": 2, "T": 1, "N": 1, "eps0": 1}) for n in (10, 20, 40)),
    *(("geometric_above_threshold", {"n": n, "k": 3, "t": 2, "alpha": HALF}) for n in (20, 60)),
    *(("noisy_max", {"n": n, "m": 5, "eps0": 1}) for n in (8, 12)),
    ("svt", SVT),
    ("gap_svt", SVT),
    ("isvt1", {"n": 10, "m": 1, "T": 1, "alpha": HALF}),
    ("isvt2", {"n": 10, "m": 1, "T": 1, "alpha": HALF}),
    ("isvt3", SVT),
    ("isvt4", SVT),
    ("monotone_svt", SVT),
    ("svt34_parallel", SVT),
]


def main() -> None:
    print(f"{'program':27} {'n':>3} {'estimate s':>10} {'wall s':>8} {'CPU s':>8} {'est/wall':>8} {'est/CPU':>8}")
    for name, params in CASES:
        wall, cpu = time.perf_counter(), time.process_time()
        r = synthesize_privacy(PROGRAMS[name](**params))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert r.plan.kind == "hub", (name, r.plan.kind)
        est = r.plan.estimated_seconds
        print(f"{name:27} {params['n']:>3} {est:>10.3f} {wall:>8.3f} {cpu:>8.3f} {est / wall:>8.2f} {est / cpu:>8.2f}")


if __name__ == "__main__":
    main()
