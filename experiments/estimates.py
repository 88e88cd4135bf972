"""The planner's estimate of an exhaustive pure-ε run against its measured time.

For each program (built-ins and a few written here: many outputs per input, large neighbour
relations, exact and float weights), the program is compiled, then
:func:`wmcdp.plan.planner.exhaustive_estimate` is set beside the wall time of
``synthesize_privacy(compiled, "exhaustive", force=True)`` (the count and the scan; compiling
is not part of either). Prints one row per run: the exhaustive triples, the estimate, the
measured CPU seconds (``time.process_time``, best of 3: on a shared machine wall seconds stretch with the load) and
measured / estimate, then the spread of that ratio (min, median, max); writes experiments/results/estimates.txt.

    python experiments/estimates.py [--quick]
    python experiments/estimates.py --fit [--quick]   # the exhaustive run's constants fitted again to these runs
    python experiments/estimates.py --orbits [--quick]   # the orbit sets' estimate against their run

``--orbits`` proves each run's symmetry (under a relation that is a condition on each entry) and sets the estimate
the planner weighs for its orbit sets (:func:`wmcdp.plan.choose.orbit_run_estimate`) beside the CPU seconds of the
run on them (best of 3; the proof is not timed: the plan's estimate adds its detection work apart), with the
ratio's spread.

``--fit`` counts each run's work (:func:`wmcdp.plan.planner.exhaustive_terms`: the counts the estimate charges
each constant of :mod:`wmcdp.plan.costs`, the triple's constant chosen by the current values), measures it as
above and prints the constants of a non-negative least squares fit of the relative error (each row divided by
its measured seconds) beside the current ones, then the fitted and the current estimate's measured / estimate
spread. A constant no run charges is reported as not exercised, not fitted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wmcdp import Bits, IntVector, Program, flip, synthesize_privacy, uniform  # noqa: E402
from wmcdp.compile import Compiled, compile_program  # noqa: E402
from wmcdp.lang.registry import builtin_programs  # noqa: E402
from wmcdp.lang.relations import Relation, neighbour_relation  # noqa: E402
from wmcdp.plan import costs  # noqa: E402
from wmcdp.plan.choose import orbit_run_estimate  # noqa: E402
from wmcdp.plan.planner import Budget, exhaustive_estimate, exhaustive_terms  # noqa: E402
from wmcdp.plan.symmetry.runs import privacy_plan  # noqa: E402

B = builtin_programs()
FITTED = (  # the exhaustive run's constants (wmcdp.plan.costs), in its order
    "CELL_SECONDS",
    "STEP_SECONDS",
    "LAYER_SECONDS",
    "BASE_SECONDS",
    "TRIPLE_SECONDS",
    "INT_TRIPLE_SECONDS",
    "OBJECT_TRIPLE_SECONDS",
    "RATIONAL_TRIPLE_SECONDS",
    "SLICE_SECONDS",
    "SLICED_TRIPLE_SECONDS",
    "TOP_CELL_SECONDS",
    "USER_PAIR_SECONDS",
)
HALF = Fraction(1, 2)


def noisy_entries(n: int, k: int, width: int) -> Program:
    """Each entry of 0..k-1 plus its own uniform noise on 0..width: (k + width)^n outputs."""
    return Program("noisy_entries", IntVector(n, 0, k - 1), lambda x: tuple(x[i] + uniform(0, width) for i in range(n)))


def thirds(n: int, k: int) -> Program:
    """Each entry of 0..k-1 plus two flips of 1/3 and one of 1/7: exact numerators past 26 bits."""
    return Program(
        "thirds",
        IntVector(n, 0, k - 1),
        lambda x: tuple(x[i] + flip(Fraction(1, 3)) + flip(Fraction(1, 3)) + flip(Fraction(1, 7)) for i in range(n)),
    )


def flips(n: int, p: float) -> Program:
    """Each bit through its own flip: 2^n outputs per input."""
    return Program("flips", Bits(n), lambda x: tuple(x[i] ^ flip(p) for i in range(n)))


def chain(n: int) -> Program:
    """Output bit i reads x_i, x_(i-1) and a flip: no independent parts, no symmetry."""
    return Program(
        "chain", Bits(n), lambda x: tuple((x[i] ^ (x[i - 1] if i else False)) ^ flip(0.25) for i in range(n))
    )


def flip_sum(n: int) -> Program:
    """The count of the first n - 1 bits, each flipped with probability 1/4 (the last bit unread)."""
    return Program("flip_sum", Bits(n), lambda x: sum(x[i] ^ flip(0.25) for i in range(n - 1)))


def weighted_sum(n: int) -> Program:
    """sum((i + 1) x_i) plus a uniform coin."""
    return Program("weighted_sum", Bits(n), lambda x: sum((i + 1) * x[i] for i in range(n)) + uniform(0, 1))


RUNS = [  # (label, program, relation)
    ("randomized_response n=10", B["randomized_response"](10, Fraction(1, 5)), "hamming"),
    ("rr_counting n=14", B["rr_counting"](14, Fraction(1, 5)), "hamming"),
    ("kary_rr_histogram n=6 k=3", B["kary_rr_histogram"](6, 3, Fraction(1, 5)), "hamming"),
    ("noisy_max n=4 m=4", B["noisy_max"](4, 4, 1), "hamming"),
    ("histogram n=3 m=3", B["histogram"](3, 3, 1), "hamming"),
    ("sparse_vector n=3 m=2", B["sparse_vector"](3, 2, 1, 1, 1), "hamming"),
    ("geometric_above_threshold n=4", B["geometric_above_threshold"](4, 3, 1, alpha=HALF), "hamming"),
    ("truncated_geometric m=200", B["truncated_geometric"](200, alpha=HALF), "hamming"),
    ("flips n=10 float", flips(10, 0.3), "hamming"),
    ("flips n=8 all-entries float", flips(8, 0.3), "all-entries"),
    ("flips n=8 all-entries exact", flips(8, Fraction(3, 10)), "all-entries"),
    ("chain n=10 float", chain(10), "hamming"),
    ("weighted_sum n=14", weighted_sum(14), "hamming"),
    ("noisy_entries n=3 k=4 w=4 all-entries", noisy_entries(3, 4, 4), "all-entries"),
    ("noisy_entries n=4 k=3 w=3 all-entries", noisy_entries(4, 3, 3), "all-entries"),
    ("noisy_entries n=4 k=4 w=4 all-entries", noisy_entries(4, 4, 4), "all-entries"),
    ("thirds n=4 k=3 all-entries", thirds(4, 3), "all-entries"),
    ("thirds n=4 k=4 all-entries", thirds(4, 4), "all-entries"),
    ("noisy_entries n=9 k=2 w=1 all-entries", noisy_entries(9, 2, 1), "all-entries"),
    ("flip_sum n=12 all-entries", flip_sum(12), "all-entries"),
]
SLOW = {
    "noisy_entries n=4 k=4 w=4 all-entries",
    "truncated_geometric m=200",
    "thirds n=4 k=4 all-entries",
    "noisy_entries n=9 k=2 w=1 all-entries",
    "flip_sum n=12 all-entries",
}


def measure(compiled, relation, repeat: int = 3, sets="exhaustive") -> float:
    """The best of ``repeat`` runs' CPU seconds on the exhaustive sets (or on the orbit sets ``sets``)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        synthesize_privacy(compiled, sets, neighbours=relation, force=True)
        best = min(best, time.process_time() - start)
    return best


def spread(ratios: list[float]) -> str:
    """The min, median and max of ``ratios`` (measured / estimated), in one line."""
    low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
    return f"measured / estimated over {len(ratios)} runs: min {low:.2f}, median {middle:.2f}, max {high:.2f}"


def runs(quick: bool) -> Iterator[tuple[str, Compiled, Relation]]:
    """Each run of :data:`RUNS` compiled, with its relation (``quick``: the runs of :data:`SLOW` left out)."""
    for label, program, relation_name in RUNS:
        if not (quick and label in SLOW):
            yield label, compile_program(program), neighbour_relation(relation_name)


def table(quick: bool) -> None:
    """Each run's triples, estimate, measured seconds and their ratio (written to results unless ``quick``)."""
    load = os.getloadavg()[0]  # measured seconds grow with the machine's load; the estimates do not
    lines = [
        f"load average {load:.1f} on {os.cpu_count()} cores at the start",
        f"{'program':40s} {'triples':>12s} {'estimate s':>11s} {'CPU s':>11s} {'CPU/est':>7s}",
    ]
    print("\n".join(lines))
    ratios = []
    for label, compiled, relation in runs(quick):
        triples = relation.count_pairs(compiled.domain) * compiled.shape.size
        estimate = exhaustive_estimate(compiled, relation)
        measured = measure(compiled, relation)
        ratios.append(measured / estimate)
        lines.append(f"{label:40s} {triples:12d} {estimate:11.3f} {measured:11.3f} {measured / estimate:7.2f}")
        print(lines[-1], flush=True)
    lines.append(spread(ratios))
    print(lines[-1])
    if not quick:
        (ROOT / "experiments" / "results" / "estimates.txt").write_text("\n".join(lines) + "\n")


def orbits(quick: bool) -> None:
    """Each run's orbit sets: their triples, the planner's estimate, the run's CPU seconds and their ratio."""
    print(f"{'program':40s} {'group':>10s} {'triples':>12s} {'estimate s':>11s} {'CPU s':>11s} {'CPU/est':>7s}")
    ratios = []
    for label, compiled, relation in runs(quick):
        if not relation.per_entry:
            continue
        sym = privacy_plan(compiled, relation, budget=Budget(None))
        estimate = orbit_run_estimate(compiled, sym, None)
        measured = measure(compiled, relation, sets=sym)
        ratios.append(measured / estimate)
        group = "trivial" if sym.symmetry.describe().startswith("trivial") else "proved"
        row = f"{label:40s} {group:>10s} {sym.sizes()[0]:12d} {estimate:11.4f} {measured:11.4f} {ratios[-1]:7.2f}"
        print(row, flush=True)
    print(spread(ratios))


def fit(quick: bool) -> None:
    """The constants of :data:`FITTED` fitted again (non-negative least squares on the relative error) to the runs."""
    import numpy as np  # deferred: only the fit needs numpy and scipy here
    from scipy.optimize import nnls  # deferred: scipy is an optional extra

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    rows, seconds = [], []
    for label, compiled, relation in runs(quick):
        terms = exhaustive_terms(compiled, relation)
        assert set(terms) <= set(FITTED), (label, set(terms) - set(FITTED))
        rows.append([float(terms.get(name, 0)) for name in FITTED])
        seconds.append(measure(compiled, relation))
        print(f"{label:40s} measured {seconds[-1]:8.3f} s", flush=True)
    a, t = np.array(rows), np.array(seconds)
    used = a.any(axis=0)
    coefficients = np.zeros(len(FITTED))
    coefficients[used], _ = nnls(a[:, used] / t[:, None], np.ones(len(t)))
    current = np.array([getattr(costs, name) for name in FITTED])
    for name, value, now, exercised in zip(FITTED, coefficients, current, used):
        fitted = f"{value:.3g}" if exercised else "not exercised"
        print(f"{name:24} fitted {fitted:>13}   current {now:10.3g}")
    for which, c in (("fitted", coefficients), ("current", current)):
        ratios = t / (a @ c)
        print(f"measured / {which} estimate: {ratios.min():.2f} to {ratios.max():.2f} over {len(t)} runs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="leave out the runs that take over 10 s")
    parser.add_argument("--fit", action="store_true", help="fit the exhaustive run's constants again to these runs")
    parser.add_argument("--orbits", action="store_true", help="the orbit sets' estimate against their run instead")
    args = parser.parse_args()
    if args.orbits:
        orbits(args.quick)
    else:
        fit(args.quick) if args.fit else table(args.quick)
