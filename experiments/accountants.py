"""The gap table: how far the numerical accountants and the shuffle bounds sit from the exact ε(δ).

**Composition** (K = 1 … 10^4 runs on the same neighbouring pair, ε at δ = 1e-6), four mechanisms with rational
parameters (:mod:`gap.pairs`): binary RR with λ = 49/100 (ε0 = ln(51/49) ≈ 0.04), 4-ary RR with ratio 51/49,
the truncated geometric mechanism TGeom on {0..4} with α = 49/51, and Poisson-subsampled RR (rate q = 1/100,
λ = 1/4, ε0 = ln 3; add/remove, absent user 0). The exact column comes from wmcdp, by the first of these that
is importable and within its limits (the column ``source`` says which):

* ``compose_approximate`` — ``wmcdp.compose_approximate([(program, K)], delta=δ)`` (the long-composition API;
  its certified ``[lower, upper]``, the upper end in the table, the relative width in the source column);
* ``compose=K`` — ``synthesize_approximate(program, delta=δ, compose=K)`` (float mode; subsampled RR through
  ``wmcdp.subsample(program, q)``);
* ``closed form`` — when neither applies (K = 10^4 passes ``compose=K``'s limits; no ``subsample`` on this
  branch): the independent binomial/trinomial sums of :mod:`gap.pairs`.

The closed form is printed beside wmcdp's value in every row with their relative difference; the script fails
unless it lies in wmcdp's value or bracket to 1e-9 relative: an independent check. Accountants (:mod:`gap.accountants`; each given the same one-step pair):
dp-accounting's PLD (pessimistic, interval 1e-4) and RDP (the pair's exact Rényi curve, dp-accounting's
conversion), prv-accountant (upper estimate, eps_error 1% of the RDP ε, delta_error δ/1000), autodp (RDP
composition of the pair's curve; for subsampled RR also autodp's own Poisson amplification of RR,
``autodp Poisson``). A cell is the accountant's ε over the exact one; ``!`` marks a value below the exact ε
(not an upper bound).

**Shuffling** (n = 10^2 … 10^6 users, binary RR with ε0 = 4 and ε0 = ln 3, ε at δ = 1e-6). Exact: wmcdp on
``rr_counting(n, λ)`` with its proved pair set ``symmetry_sets.PAIRS["rr_counting"]`` (past n = 1000 the
shuffled-RR plan of :mod:`wmcdp.plan.shuffled_rr`). Bounds (:mod:`gap.shuffle_bounds`): FMT numerical (the
limit of their method: every clone count, bisection to 1e-9), FMT closed form (the value their code reports;
n/a outside its condition), BBGN19's blanket (Hoeffding, RR's blanket), Wang et al.'s variation-ratio bound.
At n = 10^5, ε0 = 4 the script also runs FMT's own procedure (buckets of 100, 10 bisection steps), which gives
their published [0.1675, 0.1728], and their closed form 0.5378. Shuffled k-ary RR (k = 3) at small n through
``kary_rr_histogram``'s listed pairs (wmcdp has no reduction for k ≥ 3 past them) beside Wang and the blanket
for 3-RR (FMT's bounds depend on ε0 only).

    pip install -e '.[accounting,accountants,experiments]'
    python experiments/accountants.py            # full: K up to 10^4, n up to 10^6 (about 8 minutes on 2 cores)
    python experiments/accountants.py --quick    # K ≤ 100, n ≤ 10^4 (about a minute)
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
from results_io import RESULTS, write_csv  # noqa: E402

from wmcdp import symmetry_sets, synthesize_approximate  # noqa: E402
from wmcdp.base.errors import WmcdpError  # noqa: E402
from wmcdp.programs import (  # noqa: E402
    kary_rr,
    kary_rr_histogram,
    randomized_response,
    rr_counting,
    truncated_geometric,
)

DELTA = 1e-6
KS, KS_QUICK = (1, 10, 100, 1000, 10_000), (1, 10, 100)
NS, NS_QUICK = (100, 1000, 10_000, 100_000, 1_000_000), (100, 1000, 10_000)
EPS0S = (4.0, math.log(3))
KARY_NS, KARY_NS_QUICK = (10, 20, 40), (10,)
AGREE = 1e-9  # wmcdp against the closed form (relative)
BELOW = 1e-9  # an accountant below exact·(1 − BELOW) is flagged
FIGURES = HERE.parent / "docs" / "img"


# -- composition ----------------------------------------------------------------------------------------------


def mechanisms() -> list[dict[str, Any]]:
    """The four mechanisms: the pair (closed form, accountants) and the wmcdp program (exact)."""
    lam, r, a = Fraction(49, 100), Fraction(51, 49), Fraction(49, 51)
    sub_lam, q = Fraction(1, 4), Fraction(1, 100)
    return [
        {"name": "RR", "pair": pairs.rr(lam), "program": lambda: randomized_response(1, float(lam))},
        {"name": "4-RR", "pair": pairs.kary_rr(4, r), "program": lambda: kary_rr(1, 4, ratio=float(r))},
        {"name": "TGeom", "pair": pairs.geometric(a), "program": lambda: truncated_geometric(4, alpha=float(a))},
        {
            "name": "sub-RR",
            "pair": pairs.subsampled_rr(sub_lam, q),
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
    """One accountant's ε(δ) of K runs of the mechanism (None: the mechanism has no such route)."""
    if name in ACCOUNTANTS:
        return ACCOUNTANTS[name](mech["pair"], k)
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
            closed = pairs.epsilon_at(*pairs.terms(mech["pair"], k), DELTA)
            bracket, source = wmcdp_composed(mech["program"], k)
            t_exact = time.perf_counter() - t
            exact, diff_text = closed, "-"
            if bracket is not None:
                lower, upper = bracket
                assert lower * (1 - AGREE) <= closed <= upper * (1 + AGREE), (mech["name"], k, bracket, closed)
                exact, diff_text = upper, f"{abs(upper - closed) / closed:.1e}"
            else:
                source = "closed form"
            row: dict[str, Any] = {"mechanism": mech["name"], "K": k, "exact": exact, "source": source,
                                   "closed_form": closed}
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
            out.append(f"{mech['name']:>6} {k:>6} | {exact:>11.6f} {source[:28]:<28} {closed:>11.6f} {diff_text:>8} |"
                       + "".join(f" {c:>14}" for c in cells) + f" | {t_exact:>6.2f}s {t_acc:>6.1f}s")
            print(out[-1], flush=True)


# -- shuffling ------------------------------------------------------------------------------------------------


def rr_lam(eps0: float) -> float:
    return 0.25 if eps0 == math.log(3) else 1 / (1 + math.exp(eps0))


def exact_shuffled(n: int, eps0: float) -> float:
    lam = rr_lam(eps0)
    p, i = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
    return float(synthesize_approximate(rr_counting(n, lam), p, i, delta=DELTA).epsilon)


def shuffle_bounds_for(n: int, eps0: float, k: int = 2) -> dict[str, float | None]:
    """Every bound's ε(δ) for n shuffled k-RR reports (FMT's do not depend on k)."""
    sb = shuffle_bounds
    return {
        "FMT numerical": sb.invert(lambda e: sb.fmt_delta(eps0, n, e), DELTA, eps0),
        "FMT closed": sb.fmt_closed_reported(eps0, n, DELTA),
        "blanket": sb.invert(lambda e: sb.blanket_delta(eps0, n, e, k), DELTA, eps0),
        "Wang et al.": sb.invert(lambda e: sb.wang_delta(eps0, n, e, k), DELTA, eps0),
    }


def _shuffle_rows(points: list[tuple[int, float, int, Callable[[], float]]], out: list[str], rows: list[dict]) -> None:
    names = ["FMT numerical", "FMT closed", "blanket", "Wang et al."]
    head = f"{'k':>2} {'ε0':>6} {'n':>8} | {'exact ε':>10} {'t':>6} |"
    out += [head + "".join(f" {n:>14}" for n in names) + " | t bounds", "-" * (len(head) + 15 * len(names) + 11)]
    for k, eps0, n, exact_fn in points:
        t = time.perf_counter()
        exact = exact_fn()
        t_exact = time.perf_counter() - t
        t = time.perf_counter()
        bounds = shuffle_bounds_for(n, eps0, k)
        t_bounds = time.perf_counter() - t
        cells = ["n/a" if bounds[m] is None else _ratio(bounds[m], exact) for m in names]
        rows.append({"k": k, "eps0": eps0, "n": n, "exact": exact, "seconds_exact": t_exact, **bounds})
        out.append(f"{k:>2} {eps0:>6.4f} {n:>8} | {exact:>10.6f} {t_exact:>5.1f}s |"
                   + "".join(f" {c:>14}" for c in cells) + f" | {t_bounds:>6.1f}s")
        print(out[-1], flush=True)


def shuffle_table(ns: tuple[int, ...], kary_ns: tuple[int, ...], out: list[str], rows: list[dict]) -> None:
    out += ["", f"Shuffling: ε at δ = {DELTA:g}; bound / exact ('!' = below exact)"]
    points = [(2, e, n, lambda n=n, e=e: exact_shuffled(n, e)) for e in EPS0S for n in ns]
    _shuffle_rows(points, out, rows)
    out += ["", "Shuffled 3-ary RR at ε0 = ln 3 (kary_rr_histogram, its listed pairs)"]
    lam3 = 2 / (3 + 2)  # k = 3: λ = (k − 1)/(e^ε0 + k − 1)

    def kary_exact(n: int) -> float:
        p, i = symmetry_sets.PAIRS["kary_rr_histogram"](n=n, k=3, lam=lam3)
        return float(synthesize_approximate(kary_rr_histogram(n, 3, lam3), p, i, delta=DELTA).epsilon)

    _shuffle_rows([(3, math.log(3), n, lambda n=n: kary_exact(n)) for n in kary_ns], out, rows)
    lo, hi = shuffle_bounds.fmt_bracket(4.0, 100_000, DELTA)
    out += ["", f"FMT's own procedure at n = 10^5, ε0 = 4, δ = 1e-6 (buckets of 100, 10 bisection steps): "
                f"[{lo:.10f}, {hi:.10f}] (published [0.1675, 0.1728]); closed form "
                f"{shuffle_bounds.fmt_closed_reported(4.0, 100_000, DELTA):.10f} (published 0.5378; Theorem 3.1 "
                f"as printed: {shuffle_bounds.fmt_closed(4.0, 100_000, DELTA):.10f})"]
    print(out[-1], flush=True)


# -- figures --------------------------------------------------------------------------------------------------


def figures(comp: list[dict], shuf: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    FIGURES.mkdir(parents=True, exist_ok=True)
    names = [*ACCOUNTANTS, "autodp Poisson"]
    mechs = list(dict.fromkeys(r["mechanism"] for r in comp))
    fig, axes = plt.subplots(1, len(mechs), figsize=(4 * len(mechs), 3.6), sharey=True)
    for ax, mech in zip(np.atleast_1d(axes), mechs):
        rs = [r for r in comp if r["mechanism"] == mech]
        for name in names:
            pts = [(r["K"], r[name] / r["exact"]) for r in rs if r.get(name) is not None]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=name)
        ax.set(xscale="log", yscale="log", xlabel="K (runs)", title=mech)
    np.atleast_1d(axes)[0].set_ylabel(f"accountant ε / exact ε at δ = {DELTA:g}")
    np.atleast_1d(axes)[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "accountants_composition.png", dpi=110)
    plt.close(fig)

    bounds = ["FMT numerical", "FMT closed", "blanket", "Wang et al."]
    fig, axes = plt.subplots(1, len(EPS0S), figsize=(5.5 * len(EPS0S), 3.8), sharey=True)
    for ax, eps0 in zip(np.atleast_1d(axes), EPS0S):
        rs = [r for r in shuf if r["k"] == 2 and r["eps0"] == eps0]
        for name in bounds:
            pts = [(r["n"], r[name] / r["exact"]) for r in rs if r.get(name) is not None]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=name)
        ax.set(xscale="log", yscale="log", xlabel="n (users)", title=f"shuffled binary RR, ε0 = {eps0:.4g}")
    np.atleast_1d(axes)[0].set_ylabel(f"bound ε / exact ε at δ = {DELTA:g}")
    np.atleast_1d(axes)[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "accountants_shuffle.png", dpi=110)
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
    args = ap.parse_args()
    start = time.perf_counter()
    out = [f"python {platform.python_version()}, {versions()}; command: python experiments/accountants.py"
           + (" --quick" if args.quick else ""), ""]
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
