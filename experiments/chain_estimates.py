"""The chain plan's estimates beside its measured time, on CheckDP's running sums (prefix, smart and bad smart sums).

Each program is compiled, then the forced chain plan (``synthesize_privacy(compiled, plan="chain")``) runs in exact
and in float mode; a row gives the diagram's nodes, the plan's counted work (frontier states and state pairs of
the search: :func:`wmcdp.plan.chain.chain_plan`'s answer's ``work``, what the plan's run is charged at
``CHAIN_EXACT_UNIT_SECONDS`` or ``CHAIN_FLOAT_UNIT_SECONDS`` a unit), the units per node and pair of entry values
(``CHAIN_NODE_UNITS`` estimates it before the plan runs), the estimate before the run (``CHAIN_NODE_UNITS`` times
nodes times pairs of entry values times the unit), the CPU seconds of the run (best of 3) and their ratios, then
the spread (min, median, max) of the CPU seconds over each estimate.

    python experiments/chain_estimates.py [--quick]
    python experiments/chain_estimates.py --fit [--quick]   # CHAIN_* fitted again to these runs

``--fit`` then prints the constants of non-negative least squares fits of the relative error beside the current
ones: each unit's seconds to the runs of its mode (each row divided by its measured seconds), and
``CHAIN_NODE_UNITS`` to the counted units of every run (each row divided by the run's units).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from programs.checkdp import bad_smart_sum, prefix_sum, smart_sum  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402
from wmcdp.compile import Compiled  # noqa: E402
from wmcdp.plan.chain import chain_plan  # noqa: E402
from wmcdp.plan.costs import CHAIN_EXACT_UNIT_SECONDS, CHAIN_FLOAT_UNIT_SECONDS, CHAIN_NODE_UNITS  # noqa: E402

HALF = Fraction(1, 2)
CASES: list[tuple[Callable[..., Any], dict[str, Any], int]] = [  # (program, its parameters, n); m = 2 throughout
    *((prefix_sum, {}, n) for n in (10, 20, 40)),
    *((smart_sum, {"M": 2}, n) for n in (10, 20, 40)),
    *((bad_smart_sum, {"M": 2}, n) for n in (10, 20, 40)),
]
UNITS = {True: CHAIN_EXACT_UNIT_SECONDS, False: CHAIN_FLOAT_UNIT_SECONDS}


def measure(compiled: Compiled, exact: bool, repeat: int = 3) -> tuple[float, float]:
    """The best of ``repeat`` forced chain runs' CPU seconds, and the estimate the plan reports (made before it
    runs)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        result = synthesize_privacy(compiled, plan="chain", exact=exact)
        best = min(best, time.process_time() - start)
        assert result.plan.kind == "chain" and result.plan.estimated_seconds is not None, result.plan.kind
    return best, result.plan.estimated_seconds


def runs(quick: bool) -> Iterator[tuple[str, int, bool, int, int, tuple[float, float]]]:
    """Each run: program, n, exact, the diagram's nodes times pairs of entry values, counted units, CPU seconds and
    the estimate before the run."""
    for factory, params, n in CASES:
        if quick and n > 20:
            continue
        compiled = compile_program(factory(n, 2, alpha=HALF, **params))
        pairs = compiled.size * len(compiled.domain.entry_values) ** 2
        for exact in (True, False):
            answers = chain_plan(compiled, compiled.program.neighbours, exact, None)
            assert answers, factory.__name__
            yield factory.__name__, n, exact, pairs, max(a.work for a in answers), measure(compiled, exact)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the runs at n <= 20")
    parser.add_argument("--fit", action="store_true", help="fit CHAIN_* again to these runs")
    args = parser.parse_args()
    print(
        f"{'program':14} {'n':>3} {'mode':5} {'nodes*k^2':>10} {'units':>9} {'units/node':>10} {'before s':>9}"
        f" {'after s':>8} {'CPU s':>7} {'CPU/before':>10} {'CPU/after':>9}"
    )
    rows = []
    for name, n, exact, pairs, units, (seconds, before) in runs(args.quick):
        after = units * UNITS[exact]
        rows.append((exact, pairs, units, seconds, before, after))
        print(
            f"{name:14} {n:>3} {'exact' if exact else 'float':5} {pairs:>10} {units:>9} {units / pairs:>10.3f}"
            f" {before:>9.3f} {after:>8.3f} {seconds:>7.3f} {seconds / before:>10.2f} {seconds / after:>9.2f}",
            flush=True,
        )
    for label, ratios in (("before", [r[3] / r[4] for r in rows]), ("after", [r[3] / r[5] for r in rows])):
        low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
        print(f"CPU / {label} over {len(ratios)} runs: min {low:.2f}, median {middle:.2f}, max {high:.2f}")
    if args.fit:
        fit([row[:4] for row in rows])


def fit(rows: list[tuple[bool, int, int, float]]) -> None:
    """CHAIN_* fitted again (non-negative least squares on the relative error) to the ``rows`` of :func:`runs`."""
    import numpy as np  # deferred: only the fit needs numpy and scipy here
    from scipy.optimize import nnls  # deferred: scipy is an optional extra

    for exact, name in ((True, "CHAIN_EXACT_UNIT_SECONDS"), (False, "CHAIN_FLOAT_UNIT_SECONDS")):
        units, seconds = (np.array(c, dtype=float) for c in zip(*((u, s) for e, _, u, s in rows if e is exact)))
        (value,), _ = nnls((units / seconds)[:, None], np.ones(len(seconds)))
        spread = seconds / (units * value)
        print(f"{name:24} fitted {value:10.3g}   current {UNITS[exact]:10.3g}   ", end="")
        print(f"CPU / fitted: {spread.min():.2f} to {spread.max():.2f} over {len(seconds)} runs")
    pairs, units = (np.array(c, dtype=float) for c in zip(*((p, u) for _, p, u, _ in rows)))
    (value,), _ = nnls((pairs / units)[:, None], np.ones(len(units)))
    spread = units / (pairs * value)
    print(f"{'CHAIN_NODE_UNITS':24} fitted {value:10.3g}   current {CHAIN_NODE_UNITS:10.3g}   ", end="")
    print(f"units / fitted: {spread.min():.2f} to {spread.max():.2f} over {len(units)} runs")


if __name__ == "__main__":
    main()
