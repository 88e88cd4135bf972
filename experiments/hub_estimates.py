"""The hub plan's estimate beside its measured time, on the programs it answers (issue 28: within 3 x).

Each program runs once in this process under the default plan (which must be ``hub``); the table gives the plan's
``estimated_seconds`` (a fixed function of the work it counted, ``wmcdp.plan.costs.HUB_SECONDS``), the run's wall
seconds and CPU seconds (what a quiet machine's wall time is; on a loaded one the wall time stretches), and the
estimate's ratio to each.

    python experiments/hub_estimates.py
    python experiments/hub_estimates.py --fit   # HUB_SECONDS fitted again to these programs

``--fit`` compiles each program, counts the hub plan's work on it (the terms of
``wmcdp.plan.hub.estimate.hub_estimate``: a run, the diagram's nodes, the parts' block nodes per entry value, apart
and pinned, the restrictions to hub bits, the search's leaves, the conjoined nodes of the output events), times the
forced hub plan on the compiled program (CPU seconds, best of 2), and prints the constants of a non-negative least
squares fit of the relative error beside the current ones (the current values were fitted this way, on a quiet
machine, to the runs listed in docs/plans.md, "The cost model").
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from wmcdp import compile_program, synthesize_privacy
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.costs import HUB_SECONDS
from wmcdp.plan.hub import _exact_run, hub_plan
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


def _terms(name: str, params: dict) -> tuple[list[float], float]:
    """The hub plan's counted work on one compiled program (in HUB_SECONDS' order) and its CPU seconds, best of 2."""
    compiled = compile_program(PROGRAMS[name](**params))
    size = len(compiled.domain.entry_values)
    relation = neighbour_relation(compiled.program.neighbours).name
    answer = hub_plan(compiled.trace, size, relation, bool(_exact_run(compiled, None)), None)
    assert answer is not None, name
    pinned = answer.pinned / answer.outputs if answer.outputs else 0.0
    tables = answer.work * size
    terms = [1.0, compiled.size, (1 - pinned) * tables, pinned * tables, answer.cofactors, answer.best.leaves]
    seconds = []
    for _ in range(2):
        cpu = time.process_time()
        r = synthesize_privacy(compiled, plan="hub")
        seconds.append(time.process_time() - cpu)
        assert r.plan.kind == "hub", (name, r.plan.kind)
    return [*terms, answer.operations], min(seconds)


def fit() -> None:
    """HUB_SECONDS fitted again (non-negative least squares on the relative error) to the programs of CASES."""
    import numpy as np  # deferred: only the fit needs numpy and scipy here
    from scipy.optimize import nnls  # deferred: scipy is an optional extra

    rows, seconds = zip(*(_terms(name, params) for name, params in CASES))
    a, t = np.array(rows), np.array(seconds)
    coefficients, _ = nnls(a / t[:, None], np.ones(len(t)))
    for key, value in zip(HUB_SECONDS, coefficients):
        print(f"{key:13} fitted {value:10.3g}   current {HUB_SECONDS[key]:10.3g}")
    ratios = (a @ coefficients) / t
    print(f"fitted estimate / CPU seconds: {ratios.min():.2f} to {ratios.max():.2f} over {len(t)} runs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="fit HUB_SECONDS again to these programs")
    fit() if parser.parse_args().fit else main()
