"""The long fuzz profile: random programs of the plan-breaking families, every notion, default plan against
exhaustive sets against an independent enumeration (tests/fuzz_plans.py), with counts.

    python experiments/fuzz.py                        # 5000 programs, seeds 0..4999 (about 35 min on one core)
    python experiments/fuzz.py --programs 200 --start 10000 --jobs 2

Program k (seed ``start + k``) is of family ``count_large`` when k % 100 == 99 (its exhaustive run and reference
take seconds), else of the next family of the other six in turn. It prints the number of programs per family,
of checks per notion, and every difference (the call, wmcdp's answer and the truth), grouped by notion, sets,
mode and kind of answer, with the seeds that show it; a program's spec is rebuilt by
``fuzz_plans.spec_of(fuzz_plans.RandomDraw(seed), family)``. Exit status 1 when there is a difference.

With ``--forced`` every plan a notion has runs forced on each program (``plan=NAME``:
``fuzz_plans.compare_forced``), over the families shaped for the structured plans and four older ones (program k
is of family ``FORCED_FAMILIES[k % 9]``, rebuilt by ``fuzz_plans.forced_spec(fuzz_plans.RandomDraw(seed),
family)``); the counts are per plan and notion, with the programs each plan refused as not applying:

    python experiments/fuzz.py --forced --programs 5000   # the forced plans' long profile (about 50 min)
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzz_plans  # noqa: E402

SMALL = [f for f in fuzz_plans.FAMILIES if f != "count_large"]


def family_of(k: int, forced: bool = False) -> str:
    if forced:
        return fuzz_plans.FORCED_FAMILIES[k % len(fuzz_plans.FORCED_FAMILIES)]
    return "count_large" if k % 100 == 99 else SMALL[(k - k // 100) % len(SMALL)]


def kind(difference: fuzz_plans.Difference) -> str:
    """What kind of wrong answer: the exception's type, or a wrong value."""
    return difference.got.split(":")[0] if difference.got.startswith("raises") else "value"


def one(k_seed: tuple[int, int, bool]) -> tuple[str, dict, list, dict, dict]:
    """Program k of the run (seed ``seed``; ``forced``: every plan forced): its family, its checks per notion, its
    differences, and its checks and refusals per (sets, notion)."""
    k, seed, forced = k_seed
    family = family_of(k, forced)
    warnings.simplefilter("ignore", RuntimeWarning)
    run = fuzz_plans.fuzz_forced if forced else fuzz_plans.fuzz_one
    cmp = run(fuzz_plans.RandomDraw(seed), family)
    return family, cmp.counts, cmp.differences, cmp.plans, cmp.refused


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=5000)
    ap.add_argument("--start", type=int, default=0, help="the first seed")
    ap.add_argument("--jobs", type=int, default=1, help="processes (programs are independent)")
    ap.add_argument("--forced", action="store_true", help="every plan forced on every program (plan=NAME)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)
    families: Counter = Counter()
    checks: Counter = Counter()
    failing_programs: Counter = Counter()
    groups: dict = defaultdict(list)
    per_plan: Counter = Counter()
    refused: Counter = Counter()
    args.per_plan, args.refused = per_plan, refused
    start = time.perf_counter()
    work = [(k, args.start + k, args.forced) for k in range(args.programs)]
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.imap(one, work) if args.jobs > 1 else map(one, work)
        for k, (family, counts, differences, plans, refusals) in enumerate(results):
            seed = args.start + k
            families[family] += 1
            checks.update(counts)
            per_plan.update(plans)
            refused.update(refusals)
            if differences:
                failing_programs[family] += 1
            for diff in differences:
                groups[(diff.family, diff.notion, diff.sets, diff.mode, kind(diff))].append((seed, diff))
            if (k + 1) % 250 == 0:
                print(
                    f"{k + 1} programs, {sum(checks.values())} checks, {sum(len(v) for v in groups.values())} "
                    f"differences, {time.perf_counter() - start:.0f} s",
                    flush=True,
                )
            if (k + 1) % 1000 == 0 and k + 1 < args.programs:
                report(args, families, checks, failing_programs, groups, start)
    report(args, families, checks, failing_programs, groups, start)
    return 1 if groups else 0


def report(args, families: Counter, checks: Counter, failing_programs: Counter, groups: dict, start: float) -> None:
    """The counts so far: programs per family, checks per notion, and each group of differences with one example."""
    print(
        f"\nprograms: {sum(families.values())} (seeds {args.start}..{args.start + sum(families.values()) - 1}), "
        f"{time.perf_counter() - start:.0f} s"
    )
    for family in fuzz_plans.FORCED_FAMILIES if args.forced else fuzz_plans.FAMILIES:
        print(f"  {family:13} {families[family]:5} programs, {failing_programs[family]:4} with a difference")
    print(f"checks: {sum(checks.values())}")
    for notion, n in sorted(checks.items()):
        print(f"  {notion:18} {n:6}")
    if args.forced:
        print("checks per plan and notion (and the runs refused: the plan does not apply to the program)")
        for (sets, notion), n in sorted(args.per_plan.items()):
            print(f"  {sets:24} {notion:16} {n:6} checks, {args.refused[(sets, notion)]:6} refused")
    print(f"differences: {sum(len(v) for v in groups.values())} in {len(groups)} groups")
    for key, found in sorted(groups.items()):
        seeds = sorted({s for s, _ in found})
        print(
            f"\n== {' / '.join(key)}: {len(found)} differences, seeds {seeds[:12]}{' ...' if len(seeds) > 12 else ''}"
        )
        print(str(found[0][1]))
    print(flush=True)


if __name__ == "__main__":
    sys.exit(main())
