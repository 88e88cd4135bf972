"""The hub plan's estimates beside its measured time, on the programs it answers (within 3 x is the aim).

Each program is compiled, then the forced hub plan (``synthesize_privacy(compiled, plan="hub")``) runs on it; a row
gives the estimate the planner chooses by, made before the plan runs (``estimated_seconds``: the counts of
``wmcdp.plan.hub.estimate.planned_terms`` at ``wmcdp.plan.costs.HUB_PLANNED_SECONDS``), the estimate from the work
the run counted (``hub_estimate``, at ``HUB_SECONDS``), the run's CPU seconds (``time.process_time``, best of 3:
on a shared machine wall seconds stretch with the load) and measured / estimated for each; then the spread of
those ratios (min, median, max).

    python experiments/hub_estimates.py
    python experiments/hub_estimates.py --fit   # HUB_PLANNED_SECONDS and HUB_SECONDS fitted again to these runs

``--fit`` prints the constants of non-negative least squares fits of the relative error (each run's counts divided
by its measured seconds) beside the current ones: ``HUB_PLANNED_SECONDS`` to the counts known before the run,
``HUB_SECONDS`` to the work the run counted (a run, the diagram's nodes, the parts' block nodes per entry value,
apart and pinned, the restrictions to hub bits, the search's leaves, the conjoined nodes of the output events).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wmcdp import compile_program, synthesize_privacy  # noqa: E402
from wmcdp.compile import Compiled  # noqa: E402
from wmcdp.lang.relations import neighbour_relation  # noqa: E402
from wmcdp.plan.costs import HUB_PLANNED_SECONDS, HUB_SECONDS  # noqa: E402
from wmcdp.plan.hub import _exact_run, find_blocks, hub_estimate, hub_plan  # noqa: E402
from wmcdp.plan.hub.estimate import planned_terms  # noqa: E402
from wmcdp.programs import PROGRAMS  # noqa: E402

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


def measure(compiled: Compiled, repeat: int = 3) -> tuple[float, float]:
    """The best of ``repeat`` forced hub runs' CPU seconds, and the estimate the plan reports (made before it runs)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        r = synthesize_privacy(compiled, plan="hub")
        best = min(best, time.process_time() - start)
        assert r.plan.kind == "hub" and r.plan.estimated_seconds is not None, r.plan.kind
    return best, r.plan.estimated_seconds


def counted(compiled: Compiled) -> tuple[list[float], float]:
    """The work the hub plan counts as it runs on ``compiled``, in HUB_SECONDS' order, and its estimate from that
    work (:func:`~wmcdp.plan.hub.hub_estimate`)."""
    size = len(compiled.domain.entry_values)
    relation = neighbour_relation(compiled.program.neighbours).name
    answer = hub_plan(compiled.trace, size, relation, bool(_exact_run(compiled, None)), None)
    assert answer is not None
    pinned = answer.pinned / answer.outputs if answer.outputs else 0.0
    tables = answer.work * size
    terms = [1.0, compiled.size, (1 - pinned) * tables, pinned * tables, answer.cofactors, answer.best.leaves]
    return [*terms, answer.operations], hub_estimate(answer, size, compiled.size)


def spread(label: str, ratios: list[float]) -> str:
    """The min, median and max of ``ratios`` (measured / estimated), in one line."""
    low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
    return f"CPU / {label} over {len(ratios)} runs: min {low:.2f}, median {middle:.2f}, max {high:.2f}"


def main(fitting: bool) -> None:
    print(
        f"{'program':27} {'n':>3} {'before s':>9} {'after s':>8} {'CPU s':>8} {'CPU/before':>10} {'CPU/after':>9}"
    )
    rows: list[tuple[list[float], list[float], float]] = []
    ratios: dict[str, list[float]] = {"before": [], "after": []}
    for name, params in CASES:
        compiled = compile_program(PROGRAMS[name](**params))
        seconds, before = measure(compiled)
        work, after = counted(compiled)
        planned = [float(v) for v in planned_terms(compiled, find_blocks(compiled.trace)).values()]
        rows.append((planned, work, seconds))
        ratios["before"].append(seconds / before)
        ratios["after"].append(seconds / after)
        print(
            f"{name:27} {params['n']:>3} {before:>9.3f} {after:>8.3f} {seconds:>8.3f} {seconds / before:>10.2f}"
            f" {seconds / after:>9.2f}",
            flush=True,
        )
    for label, values in ratios.items():
        print(spread(label, values))
    if fitting:
        fit("HUB_PLANNED_SECONDS", HUB_PLANNED_SECONDS, [r[0] for r in rows], [r[2] for r in rows])
        fit("HUB_SECONDS", HUB_SECONDS, [r[1] for r in rows], [r[2] for r in rows])


def fit(name: str, constants: dict[str, Any], rows: list[list[float]], seconds: list[float]) -> None:
    """``constants`` fitted again (non-negative least squares on the relative error) to the counts ``rows`` and
    their measured ``seconds``."""
    import numpy as np  # deferred: only the fit needs numpy and scipy here
    from scipy.optimize import nnls  # deferred: scipy is an optional extra

    a, t = np.array(rows), np.array(seconds)
    coefficients, _ = nnls(a / t[:, None], np.ones(len(t)))
    print(name)
    for key, value in zip(constants, coefficients):
        print(f"  {key:13} fitted {value:10.3g}   current {constants[key]:10.3g}")
    ratios = t / (a @ coefficients)
    print(f"  CPU / fitted estimate: {ratios.min():.2f} to {ratios.max():.2f} over {len(t)} runs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="fit HUB_PLANNED_SECONDS and HUB_SECONDS again")
    main(parser.parse_args().fit)
