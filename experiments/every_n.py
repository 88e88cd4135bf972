"""ε for every n measured against the planner: each chain family's statement beside the exact ε(n) up to n = 160.

Per family (CheckDP's PrefixSum under one-entry and all-entries, SmartSum and BadSmartSum with M = 2, each with its
noise clamped (margin 1) and as published (``noise="unbounded"``: the running sums of released noise, read in
increments), the noisy histogram, randomized response and k-ary randomized response), ``every_n`` runs the sizes
``2 .. N`` and states
``e^ε(n)`` for every n; its line gives the statement, the sizes whose lumped chains were compared and the seconds
of the whole every-n run. Then, for n = 5, 10, 20, 40, 80, 160, the statement's closed form is evaluated at n
(``Statement.ratio``) and the planner (``synthesize_privacy`` of the family at that n, exact) runs afresh in the
same process under ``--timeout`` seconds (default 60 per run); the row shows both values, whether they are equal
(exactly, as fractions) and the seconds of each. After a size over the time limit the family's larger sizes are
not run (the closed form is still printed, the planner column says ``timeout``, or ``refused`` where wmcdp
refuses to compile a program that large).

Then brute force beyond the test suite's (tests/test_every_n.py checks n = 6, 7, 8 with the noise clamped to the
counts' range, margin 0): the closed forms of the published noise range (margin 1, each noise in {-1 .. 2}) at
n = 6, 7 and SmartSum's (margin 0) at n = 8, against every random choice enumerated (tests/brute.py
``independent_distribution``, none of wmcdp's code). What limits it is the number of runs, (entry values) x (noise
values)^n: 2^8 x 4^8 = 1.7e7 for PrefixSum at n = 8 with margin 1, out of reach here (memory and hours).

    python experiments/every_n.py [--timeout 60] [--only prefix_sum] [--sizes 5,10,20,40,80,160] [--no-brute]

Writes experiments/results/every_n.txt, every_n.csv and every_n_brute.csv.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from results_io import RESULTS, write_csv  # noqa: E402

from wmcdp import LimitExceeded, resource_limits, synthesize_privacy  # noqa: E402
from wmcdp.base.errors import WmcdpError  # noqa: E402
from wmcdp.lang.program import Program  # noqa: E402
from wmcdp.notions.every_n import every_n  # noqa: E402
from wmcdp.programs import bad_smart_sum, histogram, kary_rr, prefix_sum, randomized_response, smart_sum  # noqa: E402

HALF = Fraction(1, 2)
#: (family, its parameters, relation (None: the family's own), the largest size every_n runs)
FAMILIES: list[tuple[Callable[..., Program], dict[str, Any], str | None, int]] = [
    (prefix_sum, {"m": 1, "alpha": HALF}, None, 8),
    (prefix_sum, {"m": 1, "alpha": HALF}, "all-entries", 6),
    (prefix_sum, {"m": 2, "alpha": HALF}, None, 8),
    (histogram, {"m": 1, "alpha": HALF}, None, 6),
    (histogram, {"m": 1, "alpha": HALF}, "all-entries", 6),
    (smart_sum, {"m": 1, "M": 2, "alpha": HALF}, None, 12),
    (bad_smart_sum, {"m": 1, "M": 2, "alpha": HALF}, None, 12),
    (prefix_sum, {"m": 1, "alpha": HALF, "noise": "unbounded"}, None, 8),
    (prefix_sum, {"m": 1, "alpha": HALF, "noise": "unbounded"}, "all-entries", 6),
    (smart_sum, {"m": 1, "M": 2, "alpha": HALF, "noise": "unbounded"}, None, 12),
    (bad_smart_sum, {"m": 1, "M": 2, "alpha": HALF, "noise": "unbounded"}, None, 12),
    (randomized_response, {"lam": Fraction(1, 5)}, None, 6),
    (randomized_response, {"lam": Fraction(1, 5)}, "all-entries", 6),
    (kary_rr, {"k": 3, "ratio": Fraction(2)}, None, 6),
]
SIZES = (5, 10, 20, 40, 80, 160)


def shown(r: Any) -> str:
    """An exact ratio in at most 16 characters: itself, or ``~`` its float."""
    text = "inf" if r == math.inf else str(r)
    return text if len(text) <= 16 else f"~{float(r):.6g}"


def planner(program: Program, relation: str | None, timeout: float) -> tuple[Any, float, str]:
    """The planner's exact ``e^ε`` of ``program`` (None over the time limit or refused as too large: a compilation
    over wmcdp's limit), its seconds and plan."""
    began = time.perf_counter()
    try:
        with resource_limits(timeout=timeout):
            r = synthesize_privacy(program, neighbours=relation)
    except LimitExceeded:
        return None, time.perf_counter() - began, "timeout"
    except WmcdpError as e:
        return None, time.perf_counter() - began, "refused" if "limit" in str(e) else f"error: {e}"
    return r.ratio, time.perf_counter() - began, r.plan.kind


def family_rows(case: tuple[Any, ...], sizes: tuple[int, ...], timeout: float) -> tuple[list[str], list[dict]]:
    """The text lines and CSV rows of one family."""
    family, params, relation, up_to = case
    r = every_n(family, up_to=up_to, start=2, neighbours=relation, **params)
    label = f"{r.name}({', '.join(f'{k}={v}' for k, v in params.items())}) under {r.relation}"
    st = r.statement
    if st is None:
        return [f"{label}: no statement ({r.reason}); {r.seconds:.2f} s", ""], []
    compared = f"{st.sizes[0]}..{st.sizes[-1]}" if len(st.sizes) > 1 else str(st.sizes[0])
    lines = [
        f"{label}",
        f"  statement: {st.text}",
        f"  made from n = 2..{up_to} (chains compared at n = {compared}) in {r.seconds:.2f} s",
        f"  {'n':>5}  {'closed form':>16}  {'planner':>16}  {'equal':>5}  {'closed s':>9}  {'planner s':>9}  plan",
    ]
    rows, over = [], False
    for n in sizes:
        began = time.perf_counter()
        closed = st.ratio(n) if n >= st.start else None  # below the statement's start: no closed form
        closed_s = time.perf_counter() - began
        exact, planner_s, plan = (None, 0.0, "skipped") if over else planner(family(n=n, **params), relation, timeout)
        over = over or exact is None
        equal = "-" if exact is None or closed is None else ("yes" if exact == closed else "NO")
        p_text = shown(exact) if exact is not None else plan
        p_secs = f"{planner_s:>9.2f}" if plan != "skipped" else f"{'-':>9}"
        c_text = shown(closed) if closed is not None else f"(from n = {st.start})"
        lines.append(f"  {n:>5}  {c_text:>16}  {p_text:>16}  {equal:>5}  {closed_s:>9.4f}  {p_secs}  {plan}")
        rows.append(
            {
                "family": r.name,
                "params": " ".join(f"{k}={v}" for k, v in params.items()),
                "relation": r.relation,
                "statement": st.text,
                "made_from": f"2..{up_to}",
                "compared": " ".join(map(str, st.sizes)),
                "statement_seconds": r.seconds,
                "n": n,
                "closed_form": "" if closed is None else ("inf" if closed == math.inf else str(closed)),
                "planner": "" if exact is None else ("inf" if exact == math.inf else str(exact)),
                "equal": equal,
                "closed_seconds": closed_s,
                "planner_seconds": planner_s if plan != "skipped" else "",
                "plan": plan,
                "timeout": timeout,
            }
        )
    return [*lines, ""], rows


#: (family, relation, margin, the sizes to enumerate, the every_n sizes its statement is made from)
BRUTE = [
    (prefix_sum, None, 1, (6, 7), 8),
    (prefix_sum, "all-entries", 1, (6, 7), 6),
    (histogram, "all-entries", 1, (6, 7), 6),
    (smart_sum, None, 0, (8,), 12),
]


def brute_rows() -> tuple[list[str], list[dict]]:
    """The closed forms against brute force (module docstring)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    # deferred: the references live in the test suite, needed only here
    import brute
    from test_chain import neighbours
    from test_every_n import histogram_loop
    from test_peers_programs import prefix_sum_loop, smart_sum_loop

    loops = {"prefix_sum": prefix_sum_loop, "histogram": histogram_loop, "smart_sum": smart_sum_loop}
    lines = ["brute force: every random choice enumerated", f"  {'program':<44}  {'n':>3}  {'closed form':>12}  "
             f"{'brute force':>12}  {'equal':>5}  {'seconds':>8}"]
    rows = []
    for family, relation, margin, sizes, up_to in BRUTE:
        params = {"m": 1, "margin": margin, "alpha": HALF} | ({"M": 2} if family is smart_sum else {})
        st = every_n(family, up_to=up_to, start=2, neighbours=relation, **params).statement
        assert st is not None
        extra = {"M": 2, "block_noise": True} if family is smart_sum else {}
        reference = loops[family.__name__](m=1, margin=margin, a=HALF, **extra)
        rel = relation or "one-entry"
        for n in sizes:
            began = time.perf_counter()
            inputs = list(itertools.product((0, 1), repeat=n))
            dists = {x: brute.independent_distribution(reference, x) for x in inputs}
            of = neighbours(rel, 0, 1)
            ratio = brute.all_pairs_ratio(dists) if rel == "all-entries" else brute.pairs_ratio(
                dists, [(x, xp) for x in inputs for xp in of(x)])
            seconds = time.perf_counter() - began
            del dists
            label = f"{family.__name__}({', '.join(f'{k}={v}' for k, v in params.items())}) {rel}"
            equal = "yes" if st.ratio(n) == ratio else "NO"
            lines.append(f"  {label:<44}  {n:>3}  {shown(st.ratio(n)):>12}  {shown(ratio):>12}  {equal:>5}  "
                         f"{seconds:>8.1f}")
            rows.append({"program": label, "n": n, "closed_form": str(st.ratio(n)), "brute": str(ratio),
                         "equal": equal, "seconds": seconds})
            print(lines[-1], flush=True)
    return [*lines, ""], rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per planner run (default 60)")
    parser.add_argument("--only", help="run only the families of this program")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="the sizes n compared")
    parser.add_argument("--no-brute", action="store_true", help="leave out the brute-force section")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    lines, rows = [f"every n against the planner (planner runs limited to {args.timeout:g} s each)", ""], []
    for case in FAMILIES:
        if args.only and case[0].__name__ != args.only:
            continue
        more, found = family_rows(case, sizes, args.timeout)
        print("\n".join(more), flush=True)
        lines += more
        rows += found
    brute_found: list[dict] = []
    if not args.no_brute and not args.only:
        more, brute_found = brute_rows()
        lines += more
    mismatches = [r for r in rows + brute_found if r["equal"] == "NO"]
    summary = (
        f"{len(rows)} sizes against the planner, {sum(r['equal'] == 'yes' for r in rows)} equal; "
        f"{len(brute_found)} against brute force, {sum(r['equal'] == 'yes' for r in brute_found)} equal; "
        f"{len(mismatches)} different"
    )
    print(summary)
    RESULTS.mkdir(exist_ok=True)
    suffix = "" if not args.only else f"_{args.only}"
    (RESULTS / f"every_n{suffix}.txt").write_text("\n".join([*lines, summary]) + "\n")
    if rows:
        write_csv(rows, f"every_n{suffix}.csv")
    if brute_found:
        write_csv(brute_found, "every_n_brute.csv")
    if mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
