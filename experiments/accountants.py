"""The gap table: how far the numerical accountants and the shuffle bounds sit from the exact ε(δ).

**Composition** (K = 1 … 10^4 runs on the same neighbouring pair, ε at δ = 1e-6), four mechanisms with rational
parameters (:mod:`gap.pairs`): binary RR with λ = 49/100 (ε0 = ln(51/49) ≈ 0.04), 4-ary RR with ratio 51/49,
the truncated geometric mechanism TGeom on {0..4} with α = 49/51 releasing one entry in {0, 1, 2} (sensitivity 2,
ε0 = 2 ln(51/49); its pairs are c, c + 2 — three classes, not RR's two — and c, c + 1, which is RR's pair:
the closed form and each accountant take the larger of the two), and Poisson-subsampled RR (rate q = 1/100,
λ = 1/4, ε0 = ln 3; add/remove, absent user 0). The exact column comes from wmcdp, by the first of these that
is importable and within its limits (the column ``source`` says which):

* ``compose_approximate`` — ``wmcdp.compose_approximate([(program, K)], delta=δ)`` (the long-composition API;
  its certified ``[lower, upper]``, the upper end in the table, the relative width in the source column);
* ``compose=K`` — ``synthesize_approximate(program, delta=δ, compose=K)`` (float mode; subsampled RR through
  ``wmcdp.subsample(program, q)``);
* ``closed form`` — when neither applies (K = 10^4 passes ``compose=K``'s limits; no ``subsample`` on this
  branch): the independent binomial/trinomial sums of :mod:`gap.pairs`.

The closed form is printed beside wmcdp's value in every row with their relative difference; the script fails
unless it lies in wmcdp's value or bracket to 1e-9 relative: an independent check. Accountants
(:mod:`gap.accountants`; each given the same one-step pairs): dp-accounting's PLD (pessimistic, interval 1e-4)
and RDP (the pair's exact Rényi curve, dp-accounting's conversion), prv-accountant (upper estimate, eps_error 1%
of the RDP ε, delta_error δ/1000), autodp (RDP composition of the pair's curve; for subsampled RR also autodp's
own Poisson amplification of RR, ``autodp Poisson``). A cell is the accountant's ε over the exact one; ``!``
marks a value below the exact ε (not an upper bound).

**Shuffling** (n = 10^2 … 10^6 users, binary RR with ε0 = 4 and ε0 = ln 3, ε at δ = 1e-6). Exact: wmcdp on
``rr_counting(n, λ)`` with its proved pair set ``symmetry_sets.PAIRS["rr_counting"]`` (past n = 1000 the
shuffled-RR plan of :mod:`wmcdp.plan.shuffled_rr`); up to n = 1000 the script also computes the independent
closed form :func:`gap.pairs.shuffled_rr_epsilon` (binomial convolutions, every count of ones among the others)
and stops unless it agrees to 1e-9 relative (likewise shuffled 3-RR up to n = 40 against
:func:`gap.pairs.shuffled_kary_epsilon`, every histogram of the others). Bounds (:mod:`gap.shuffle_bounds`): FMT
numerical (the limit of their method: every clone count, bisection to 1e-9), FMT closed form (the value their code
reports; n/a outside its condition), BBGN19's blanket (Hoeffding, RR's blanket), Wang et al.'s numerical
variation-ratio bound and their two closed forms (Theorems 4.2 and 4.3; n/a outside their conditions).
At n = 10^5, ε0 = 4 the script also runs FMT's own procedure (buckets of 100, 10 bisection steps), which gives
their published [0.1675, 0.1728], and their closed form 0.5378. Shuffled k-ary RR (k = 3) at n = 10 … 80 through
``kary_rr_histogram``'s proved pairs (every dataset; wmcdp refuses k ≥ 3 past n = 1000, and the pairs grow as
n², so n = 80 takes 3–4 minutes and n = 100 more than 5) beside Wang's and the blanket for 3-RR (FMT's
bounds depend on ε0 only).

    pip install -e '.[accounting,accountants,experiments]'
    python experiments/accountants.py            # full: K up to 10^4, n up to 10^6 (about 15 minutes on 2 shared cores)
    python experiments/accountants.py --quick    # K ≤ 100, n ≤ 10^4 (about a minute)
    python experiments/accountants.py --plot-only    # the figures again from the stored CSVs
Writes experiments/results/accountants.txt, accountants_composition.csv, accountants_shuffle.csv and the figures
docs/img/accountants_composition.png, docs/img/accountants_shuffle.png (full run only).
"""

from __future__ import annotations

import argparse
import importlib
import math
import platform
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from gap import accountants as acc  # noqa: E402
from gap import pairs, shuffle_bounds  # noqa: E402
from figures import legend_outside, style  # noqa: E402
from results_io import RESULTS, read_csv, write_csv  # noqa: E402

from wmcdp import IntVector, Program, symmetry_sets, synthesize_approximate, truncated_geometric  # noqa: E402
from wmcdp.base.errors import WmcdpError  # noqa: E402
from wmcdp.programs import kary_rr, kary_rr_histogram, randomized_response, rr_counting  # noqa: E402

DELTA = 1e-6
KS, KS_QUICK = (1, 10, 100, 1000, 10_000), (1, 10, 100)
NS, NS_QUICK = (100, 1000, 10_000, 100_000, 1_000_000), (100, 1000, 10_000)
EPS0S = (4.0, math.log(3))
KARY_NS, KARY_NS_QUICK = (10, 20, 40, 60, 80), (10,)
AGREE = 1e-9  # wmcdp against the closed form (relative)
BELOW = 1e-9  # an accountant below exact·(1 − BELOW) is flagged
FIGURES = HERE.parent / "docs" / "img"


# -- composition ----------------------------------------------------------------------------------------------


def geometric_sensitivity2(m: int, alpha: float) -> Program:
    """TGeom_α on {0..m} releasing one entry in {0, 1, 2}; neighbours change the entry (sensitivity 2)."""
    return Program(
        "truncated_geometric_sensitivity2",
        IntVector(1, 0, 2),
        lambda x: truncated_geometric(x[0], 0, m, alpha=alpha),
        neighbours="hamming",
    )


def mechanisms() -> list[dict[str, Any]]:
    """The four mechanisms: their pairs (closed form, accountants: the larger value) and the wmcdp program."""
    lam, r, a = Fraction(49, 100), Fraction(51, 49), Fraction(49, 51)
    sub_lam, q = Fraction(1, 4), Fraction(1, 100)
    return [
        {"name": "RR", "pairs": (pairs.rr(lam),), "program": lambda: randomized_response(1, float(lam))},
        {"name": "4-RR", "pairs": (pairs.kary_rr(4, r),), "program": lambda: kary_rr(1, 4, ratio=float(r))},
        {
            "name": "TGeom",
            "pairs": (pairs.geometric(a, 1), pairs.geometric(a, 2)),
            "program": lambda: geometric_sensitivity2(4, float(a)),
        },
        {
            "name": "sub-RR",
            "pairs": (pairs.subsampled_rr(sub_lam, q),),
            "program": lambda: _subsampled(randomized_response(1, float(sub_lam)), float(q)),
            "autodp Poisson": lambda k: acc.autodp_poisson_rr(float(sub_lam), float(q), k, DELTA),
        },
    ]


def _subsampled(program: Any, q: float) -> Any:
    subsample = getattr(importlib.import_module("wmcdp"), "subsample", None)
    if subsample is None:
        raise LookupError("wmcdp.subsample is not on this branch")
    return subsample(program, q)


def wmcdp_composed(program: Callable[[], Any], k: int) -> tuple[tuple[float, float] | None, str]:
    """wmcdp's ``(lower, upper)`` on ε(δ) of K runs (equal when exact) and its route; (None, reason) without one."""
    try:
        prog = program()
    except LookupError as exc:
        return None, str(exc)
    compose = getattr(importlib.import_module("wmcdp"), "compose_approximate", None)
    if compose is not None:
        r = compose([(prog, k)], delta=DELTA)
        lower, upper = float(r.lower), float(r.upper)
        return (lower, upper), "compose_approximate" + ("" if lower == upper else f" ±{float(r.relative_width):.0e}")
    try:
        eps = float(synthesize_approximate(prog, delta=DELTA, compose=k).epsilon)
    except WmcdpError as exc:
        return None, f"compose=K refused: {str(exc)[:60]}"
    return (eps, eps), "compose=K"


ACCOUNTANTS: dict[str, Callable[[pairs.Pair, int], float]] = {
    "PLD": lambda p, k: acc.pld(p, k, DELTA),
    "RDP": lambda p, k: acc.rdp(p, k, DELTA),
    "PRV": lambda p, k: acc.prv(p, k, DELTA),
    "autodp": lambda p, k: acc.autodp_rdp(p, k, DELTA),
}


def accountant_value(mech: dict[str, Any], name: str, k: int) -> float | None:
    """One accountant's ε(δ) of K runs of the mechanism, the largest over its pairs (None: no such route)."""
    if name in ACCOUNTANTS:
        return max(ACCOUNTANTS[name](pair, k) for pair in mech["pairs"])
    own = mech.get(name)
    return None if own is None else own(k)


def _ratio(value: float | None, exact: float) -> str:
    if value is None:
        return "missing"
    flag = "!" if value < exact * (1 - BELOW) else ""
    return f"{value / exact:.4f}{flag}"


def composition_table(ks: tuple[int, ...], out: list[str], rows: list[dict]) -> None:
    head = f"{'mech':>6} {'K':>6} | {'exact ε':>11} {'source':<28} {'closed form':>11} {'rel.diff':>8} |"
    names = [*ACCOUNTANTS, "autodp Poisson"]
    out += [
        f"Composition: ε at δ = {DELTA:g}; accountant / exact ('!' = below exact, not an upper bound)",
        head + "".join(f" {n:>14}" for n in names) + " | t exact  t acc.",
        "-" * (len(head) + 15 * len(names) + 18),
    ]
    for mech in mechanisms():
        for k in ks:
            t = time.perf_counter()
            closed = max(pairs.epsilon_at(*pairs.terms(pair, k), DELTA) for pair in mech["pairs"])
            bracket, source = wmcdp_composed(mech["program"], k)
            t_exact = time.perf_counter() - t
            exact, diff_text = closed, "-"
            if bracket is not None:
                lower, upper = bracket
                assert lower * (1 - AGREE) <= closed <= upper * (1 + AGREE), (mech["name"], k, bracket, closed)
                exact, diff_text = upper, f"{abs(upper - closed) / closed:.1e}"
            else:
                source = "closed form"
            row: dict[str, Any] = {
                "mechanism": mech["name"],
                "K": k,
                "exact": exact,
                "source": source,
                "closed_form": closed,
            }
            cells = []
            t = time.perf_counter()
            for name in names:
                try:
                    v = accountant_value(mech, name, k)
                except acc.Missing:
                    v = None
                row[name] = v
                cells.append("-" if v is None and name not in ACCOUNTANTS else _ratio(v, exact))
            t_acc = time.perf_counter() - t
            rows.append(row)
            out.append(
                f"{mech['name']:>6} {k:>6} | {exact:>11.6f} {source[:28]:<28} {closed:>11.6f} {diff_text:>8} |"
                + "".join(f" {c:>14}" for c in cells)
                + f" | {t_exact:>6.2f}s {t_acc:>6.1f}s"
            )
            print(out[-1], flush=True)


# -- shuffling ------------------------------------------------------------------------------------------------


def rr_lam(eps0: float) -> float:
    return 0.25 if eps0 == math.log(3) else 1 / (1 + math.exp(eps0))


def exact_shuffled(n: int, eps0: float) -> float:
    lam = rr_lam(eps0)
    p, i = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
    return float(synthesize_approximate(rr_counting(n, lam), p, i, delta=DELTA).epsilon)


#: the shuffle bounds, in the table's order
BOUNDS = ["FMT numerical", "FMT closed", "blanket", "Wang numerical", "Wang Thm 4.2", "Wang Thm 4.3"]
CHECK_N = 1000  # the independent closed form of shuffled binary RR runs up to this n (about 2 s there)
CHECK_KARY_N = 40  # and that of shuffled 3-RR (every histogram of the others) up to this one (about 15 s there)


def shuffle_bounds_for(n: int, eps0: float, k: int = 2) -> dict[str, float | None]:
    """Every bound's ε(δ) for n shuffled k-RR reports (FMT's do not depend on k); None where a closed form's
    condition fails."""
    sb = shuffle_bounds
    return {
        "FMT numerical": sb.invert(lambda e: sb.fmt_delta(eps0, n, e), DELTA, eps0),
        "FMT closed": sb.fmt_closed_reported(eps0, n, DELTA),
        "blanket": sb.invert(lambda e: sb.blanket_delta(eps0, n, e, k), DELTA, eps0),
        "Wang numerical": sb.invert(lambda e: sb.wang_delta(eps0, n, e, k), DELTA, eps0),
        "Wang Thm 4.2": sb.wang_tight_closed(eps0, n, DELTA, k),
        "Wang Thm 4.3": sb.wang_closed(eps0, n, DELTA, k),
    }


Point = tuple[int, float, int, Callable[[], float], Callable[[], float] | None]


def _shuffle_rows(points: list[Point], out: list[str], rows: list[dict]) -> None:
    """One row per (k, ε0, n): wmcdp's exact ε, the independent closed form beside it where there is one (the
    script stops unless they agree to 1e-9 relative), and every bound over the exact ε."""
    head = f"{'k':>2} {'ε0':>6} {'n':>8} | {'exact ε':>10} {'t':>6} {'rel.diff':>8} |"
    out += [head + "".join(f" {n:>14}" for n in BOUNDS) + " | t bounds", "-" * (len(head) + 15 * len(BOUNDS) + 11)]
    for k, eps0, n, exact_fn, closed_fn in points:
        t = time.perf_counter()
        exact = exact_fn()
        t_exact = time.perf_counter() - t
        closed = None if closed_fn is None else closed_fn()
        if closed is not None:
            assert abs(closed - exact) <= AGREE * exact, (k, eps0, n, exact, closed)
        t = time.perf_counter()
        bounds = shuffle_bounds_for(n, eps0, k)
        t_bounds = time.perf_counter() - t
        cells = ["n/a" if bounds[m] is None else _ratio(bounds[m], exact) for m in BOUNDS]
        diff = "-" if closed is None else f"{abs(closed - exact) / exact:.1e}"
        rows.append(
            {"k": k, "eps0": eps0, "n": n, "exact": exact, "closed_form": closed, "seconds_exact": t_exact, **bounds}
        )
        out.append(
            f"{k:>2} {eps0:>6.4f} {n:>8} | {exact:>10.6f} {t_exact:>5.1f}s {diff:>8} |"
            + "".join(f" {c:>14}" for c in cells)
            + f" | {t_bounds:>6.1f}s"
        )
        print(out[-1], flush=True)


def kary_exact(n: int, k: int = 3, eps0: float = math.log(3)) -> float:
    """wmcdp's ε(δ) of n shuffled k-RR reports over every dataset (``kary_rr_histogram``'s proved pairs)."""
    lam = (k - 1) / (math.exp(eps0) + k - 1)
    p, i = symmetry_sets.PAIRS["kary_rr_histogram"](n=n, k=k, lam=lam)
    return float(synthesize_approximate(kary_rr_histogram(n, k, lam), p, i, delta=DELTA).epsilon)


def shuffle_table(ns: tuple[int, ...], kary_ns: tuple[int, ...], out: list[str], rows: list[dict]) -> None:
    out += [
        "",
        f"Shuffling: ε at δ = {DELTA:g}; bound / exact ('!' = below exact); rel.diff: the independent "
        f"closed form (pairs.shuffled_rr_epsilon, n ≤ {CHECK_N}; pairs.shuffled_kary_epsilon, n ≤ {CHECK_KARY_N}) "
        "against wmcdp",
    ]
    points: list[Point] = [
        (
            2,
            e,
            n,
            lambda n=n, e=e: exact_shuffled(n, e),
            (lambda n=n, e=e: pairs.shuffled_rr_epsilon(n, rr_lam(e), DELTA)) if n <= CHECK_N else None,
        )
        for e in EPS0S
        for n in ns
    ]
    _shuffle_rows(points, out, rows)
    out += ["", "Shuffled 3-ary RR at ε0 = ln 3 (kary_rr_histogram, its proved pairs: every dataset)"]
    kary_points: list[Point] = [
        (
            3,
            math.log(3),
            n,
            lambda n=n: kary_exact(n),
            (lambda n=n: pairs.shuffled_kary_epsilon(n, 3, math.log(3), DELTA)) if n <= CHECK_KARY_N else None,
        )
        for n in kary_ns
    ]
    _shuffle_rows(kary_points, out, rows)
    lo, hi = shuffle_bounds.fmt_bracket(4.0, 100_000, DELTA)
    out += [
        "",
        f"FMT's own procedure at n = 10^5, ε0 = 4, δ = 1e-6 (buckets of 100, 10 bisection steps): "
        f"[{lo:.10f}, {hi:.10f}] (published [0.1675, 0.1728]); closed form "
        f"{shuffle_bounds.fmt_closed_reported(4.0, 100_000, DELTA):.10f} (published 0.5378; Theorem 3.1 "
        f"as printed: {shuffle_bounds.fmt_closed(4.0, 100_000, DELTA):.10f})",
    ]
    print(out[-1], flush=True)


# -- figures --------------------------------------------------------------------------------------------------


def figures(comp: list[dict], shuf: list[dict]) -> None:
    """docs/img/accountants_composition.png and accountants_shuffle.png: each accountant or bound its own colour,
    marker and line style in every panel, one legend below the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    FIGURES.mkdir(parents=True, exist_ok=True)
    names = [*ACCOUNTANTS, "autodp Poisson"]
    mechs = list(dict.fromkeys(r["mechanism"] for r in comp))
    fig, axes = plt.subplots(1, len(mechs), figsize=(4 * len(mechs), 3.6), sharey=True)
    for ax, mech in zip(np.atleast_1d(axes), mechs):
        rs = [r for r in comp if r["mechanism"] == mech]
        for i, name in enumerate(names):
            pts = [(r["K"], r[name] / r["exact"]) for r in rs if r.get(name) is not None]
            if pts:
                ax.plot(*zip(*pts), label=name, **style(i))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set(xscale="log", yscale="log", xlabel="K (runs)", title=mech)
    np.atleast_1d(axes)[0].set_ylabel(f"accountant ε / exact ε at δ = {DELTA:g}")
    fig.tight_layout()
    legend_outside(fig, np.atleast_1d(axes), where="below", fontsize=9, ncol=len(names))
    fig.savefig(FIGURES / "accountants_composition.png", dpi=110, bbox_inches="tight")
    plt.close(fig)

    panels = list(dict.fromkeys((r["k"], r["eps0"]) for r in shuf))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8), sharey=True)
    for ax, (k, eps0) in zip(np.atleast_1d(axes), panels):
        rs = [r for r in shuf if (r["k"], r["eps0"]) == (k, eps0)]
        for i, name in enumerate(BOUNDS):  # one style per bound in every panel
            pts = [(r["n"], r[name] / r["exact"]) for r in rs if r.get(name) is not None]
            if pts:
                ax.plot(*zip(*pts), label=name, **style(i))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set(xscale="log", yscale="log", xlabel="n (users)", title=f"shuffled {k}-RR, ε0 = {eps0:.4g}")
    np.atleast_1d(axes)[0].set_ylabel(f"bound ε / exact ε at δ = {DELTA:g}")
    fig.tight_layout()
    legend_outside(fig, np.atleast_1d(axes), where="below", fontsize=9, ncol=len(BOUNDS))
    fig.savefig(FIGURES / "accountants_shuffle.png", dpi=110, bbox_inches="tight")
    plt.close(fig)


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for name in ("dp-accounting", "prv-accountant", "autodp", "numpy", "scipy"):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            out.append(f"{name} missing")
    return ", ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="K ≤ 100, n ≤ 10^4 (writes nothing)")
    ap.add_argument("--plot-only", action="store_true", help="redraw the figures from the stored CSVs")
    args = ap.parse_args()
    if args.plot_only:
        figures(read_csv("accountants_composition.csv"), read_csv("accountants_shuffle.csv"))
        return
    start = time.perf_counter()
    out = [
        f"python {platform.python_version()}, {versions()}; command: python experiments/accountants.py"
        + (" --quick" if args.quick else ""),
        "",
    ]
    comp: list[dict] = []
    shuf: list[dict] = []
    composition_table(KS_QUICK if args.quick else KS, out, comp)
    shuffle_table(NS_QUICK if args.quick else NS, KARY_NS_QUICK if args.quick else KARY_NS, out, shuf)
    out += ["", f"total wall time {time.perf_counter() - start:.0f} s"]
    print(out[-1])
    if not args.quick:
        (RESULTS / "accountants.txt").write_text("\n".join(out) + "\n")
        write_csv(comp, "accountants_composition.csv", digits=None)
        write_csv(shuf, "accountants_shuffle.csv", digits=None)
        figures(comp, shuf)


if __name__ == "__main__":
    main()
