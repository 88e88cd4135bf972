"""Data-centric privacy level: wmcdp's exact ε at one database beside the global ε, for report
noisy max and sparse vector (the DP-tester suite, ``programs/suite.py``).

The data-centric privacy level of a database x0 (Askin, Kutta and Dette, "Statistical
quantification of differential privacy: a local approach", arXiv:2108.09528, eq. 5) is the
largest privacy loss over the pairs (x0, x') and (x', x0) for the neighbours x' of x0 only;
the global ε is the maximum over every neighbouring pair, i.e. over all x0. wmcdp computes
both exactly: ``synthesize_privacy(prog, at=x0)`` and ``synthesize_privacy(prog)`` (CLI:
``python -m wmcdp privacy noisy_max -p ... --at 0,0,0,0,0,0``).

The paper (Sec. V, "The data-centric privacy level for fixed databases") estimates it by
sampling for discrete report noisy max at one database whose counting queries all evaluate
to the same value and whose neighbours therefore all evaluate to binary vectors — i.e. the
all-zero answer vector, the neighbours being {0,1}^n — and reads off its Fig. 5 that the
data-centric level is "only about half the size" of the global one. The number of queries
and the ε used there are lost in our text copy of the paper; its noisy max experiments
use "vectors that entail 6 query answers", so n = 6 here, and the three budgets
ε0 = 0.2, 0.7, 1.5 of the DP-tester literature it follows.

Mechanisms (exactly as in ``programs/suite.py``): ``noisy_max(n, m, eps0, margin)`` — the
index of the largest ``TGeom_a(q_i)``, a = e^(−ε0/2), lowest index on ties, each noisy
answer clamped to {−margin .. m + margin}; ``sparse_vector(n, m, T, N, eps0, margin)`` —
threshold noise ratio a^N, query noise a = e^(−ε0/(2N)), codes 0 = FALSE, 1 = TRUE,
2 = stopped. Neighbours: every answer moves by at most one (``all-entries``), answers in
{0..m}. The clamping margin matters (clamped values tie more often): the default margin is
⌈12/ε0⌉, so that a^margin ≤ e^−6 for noisy max, and the ``limit`` column gives the
unclamped mechanism's value (independent formula below with a margin of ⌈1500/ε0⌉).

Independent checks (the run fails otherwise):

* **product formula, every row**: with V_j = TGeom_a(q_j) independent, noisy max outputs i
  with probability Σ_v P(V_i = v) Π_{j<i} P(V_j < v) Π_{j>i} P(V_j ≤ v); sparse vector,
  given the noisy threshold t, answers each query independently (FALSE: V_i < t, TRUE:
  V_i ≥ t, STOPPED once N TRUEs were given), so P(y|q) = Σ_t P(T̃ = t) Π_i (...). The
  script evaluates these for every database of {0..m}^n (numpy, float64, the truncated
  geometric pmf written out from its closed form) and takes the maxima of |ln P(y|x) −
  ln P(y|x')| over the data-centric pairs and over all pairs; each must equal wmcdp's ε to
  1e-9 relative.
* **brute force, exact**: for small instances with a rational noise ratio (alpha = 1/2,
  margin 1) the script enumerates every joint value of the noise with Fractions, runs the
  mechanism's loop literally, and compares the exact e^ε ratios with wmcdp's exact mode.
* the CLI (``--at ... --json``) gives the API's value for the paper's row.

    python experiments/data_centric.py            # about a minute
Writes experiments/results/data_centric.txt.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from wmcdp.programs import noisy_max, sparse_vector  # noqa: E402
from results_io import RESULTS  # noqa: E402
from wmcdp import compile_program, synthesize_privacy  # noqa: E402
from wmcdp.notions.approximate import synthesize_approximate  # noqa: E402

N_QUERIES, M = 6, 2
EPS0S = (0.2, 0.7, 1.5)
SVT_T, SVT_N = 1, 1
REL_TOL = 1e-9
PAPER_DB = (0,) * N_QUERIES


def default_margin(eps0: float) -> int:
    return math.ceil(12 / eps0)


def databases(n: int) -> list[tuple[str, tuple[int, ...]]]:
    """The databases of the table: (label, answer vector)."""
    return [
        ("all 0 (paper)", (0,) * n),
        ("all 1", (1,) * n),
        ("all 2 (top)", (2,) * n),
        ("clear winner", (2,) + (0,) * (n - 1)),
        ("narrow winner", (1,) + (0,) * (n - 1)),
        ("winner last", (0,) * (n - 1) + (2,)),
        ("two tied", (2, 2) + (0,) * (n - 2)),
        ("half half", (1,) * (n // 2) + (0,) * (n - n // 2)),
        ("staircase", tuple(i % 3 for i in range(n))),
    ]


# -- independent evaluation: closed-form probabilities -----------------------------------

def tgeom(c: int, lo: int, hi: int, a: float) -> np.ndarray:
    """P(TGeom_a(c) = z), z = lo..hi (clamped two-sided geometric), as written in the mechanism's definition."""
    z = np.arange(lo, hi + 1)
    p = (1 - a) / (1 + a) * a ** np.abs(z - c).astype(float)
    p[0] = a ** (c - lo) / (1 + a)
    p[-1] = a ** (hi - c) / (1 + a)
    return p


def noisy_max_probs(q: tuple[int, ...], m: int, margin: int, a: float) -> np.ndarray:
    """P(output = i | q): Σ_v P(V_i = v) Π_{j<i} P(V_j < v) Π_{j>i} P(V_j ≤ v)."""
    lo, hi = -margin, m + margin
    pmf = [tgeom(c, lo, hi, a) for c in q]
    le = [np.cumsum(p) for p in pmf]                         # P(V_j <= v)
    lt = [np.concatenate(([0.0], c[:-1])) for c in le]       # P(V_j < v)
    out = np.empty(len(q))
    for i in range(len(q)):
        term = pmf[i].copy()
        for j in range(len(q)):
            if j != i:
                term *= lt[j] if j < i else le[j]
        out[i] = term.sum()
    return out


def svt_outputs(n: int, N: int) -> list[tuple[int, ...]]:
    """Every possible code sequence: 0/1 until the N-th TRUE, 2 (stopped) afterwards."""
    outs = []
    for y in itertools.product((0, 1, 2), repeat=n):
        count, ok = 0, True
        for code in y:
            if (code == 2) != (count >= N):
                ok = False
                break
            count += code == 1
        if ok:
            outs.append(y)
    return outs


def svt_probs(q: tuple[int, ...], m: int, T: int, N: int, margin: int, a: float,
              outs: list[tuple[int, ...]]) -> np.ndarray:
    """P(y | q) = Σ_t P(T̃ = t) Π_i P(code_i | t): FALSE iff V_i < t, TRUE iff V_i ≥ t, stopped after N TRUEs."""
    lo, hi = -margin, m + margin
    t_pmf = tgeom(T, lo, hi, a ** N)                         # the threshold's noise ratio is a^N
    ge = []
    for c in q:
        p = tgeom(c, lo, hi, a)
        ge.append(np.cumsum(p[::-1])[::-1])                  # P(V_i >= t) for t = lo..hi
    out = np.empty(len(outs))
    for k, y in enumerate(outs):
        term = t_pmf.copy()
        for i, code in enumerate(y):
            if code == 1:
                term = term * ge[i]
            elif code == 0:
                term = term * (1 - ge[i])
        out[k] = term.sum()
    return out


class Table:
    """Output distributions of every database of {0..m}^n (closed form) and the max log-ratio over pairs."""

    def __init__(self, n: int, m: int, probs) -> None:
        self.dbs = list(itertools.product(range(m + 1), repeat=n))
        self.index = {x: k for k, x in enumerate(self.dbs)}
        self.logp = np.log(np.array([probs(x) for x in self.dbs]))
        assert np.allclose(np.exp(self.logp).sum(axis=1), 1.0, atol=1e-12), "closed form: masses do not sum to 1"
        self.m = m

    def neighbours(self, x: tuple[int, ...]) -> list[int]:
        ranges = [range(max(0, v - 1), min(self.m, v + 1) + 1) for v in x]
        return [self.index[xp] for xp in itertools.product(*ranges) if xp != x]

    def at(self, x: tuple[int, ...]) -> float:
        k = self.index[x]
        nb = self.neighbours(x)
        return float(np.max(np.abs(self.logp[nb] - self.logp[k])))

    def overall(self) -> float:
        return max(self.at(x) for x in self.dbs)


# -- brute force with Fractions: run the mechanism's loop on every joint noise value -------

def tgeom_exact(c: int, lo: int, hi: int, a: Fraction) -> dict[int, Fraction]:
    p = {z: (1 - a) / (1 + a) * a ** abs(z - c) for z in range(lo + 1, hi)}
    p[lo], p[hi] = a ** (c - lo) / (1 + a), a ** (hi - c) / (1 + a)
    return p


def brute_noisy_max(q: tuple[int, ...], m: int, margin: int, a: Fraction) -> dict:
    lo, hi = -margin, m + margin
    pmfs = [tgeom_exact(c, lo, hi, a) for c in q]
    dist: dict = {}
    for values in itertools.product(range(lo, hi + 1), repeat=len(q)):
        weight = math.prod((pmfs[i][v] for i, v in enumerate(values)), start=Fraction(1))
        best_index, best = 0, values[0]
        for i in range(1, len(q)):
            if values[i] > best:
                best_index, best = i, values[i]
        dist[best_index] = dist.get(best_index, 0) + weight
    return dist


def brute_svt(q: tuple[int, ...], m: int, T: int, N: int, margin: int, a: Fraction) -> dict:
    lo, hi = -margin, m + margin
    t_pmf = tgeom_exact(T, lo, hi, a ** N)
    pmfs = [tgeom_exact(c, lo, hi, a) for c in q]
    dist: dict = {}
    for t, values in itertools.product(range(lo, hi + 1), itertools.product(range(lo, hi + 1), repeat=len(q))):
        weight = t_pmf[t] * math.prod((pmfs[i][v] for i, v in enumerate(values)), start=Fraction(1))
        count, y = 0, []
        for v in values:
            if count >= N:
                y.append(2)
            else:
                y.append(1 if v >= t else 0)
                count += v >= t
        dist[tuple(y)] = dist.get(tuple(y), 0) + weight
    return dist


def brute_ratio(dist_of, x0: tuple[int, ...] | None, n: int, m: int) -> Fraction:
    """max P(y|x)/P(y|x') over the data-centric pairs of x0 (or all pairs if None), exactly."""
    dbs = list(itertools.product(range(m + 1), repeat=n))
    dists = {x: dist_of(x) for x in dbs}
    best = Fraction(1)
    for x in dbs:
        for xp in dbs:
            if xp == x or any(abs(u - v) > 1 for u, v in zip(x, xp)):
                continue
            if x0 is not None and x0 not in (x, xp):
                continue
            for y, p in dists[x].items():
                best = max(best, p / dists[xp][y])
    return best


# -- the experiment ------------------------------------------------------------------------

def witness(w) -> str:
    fmt = lambda v: "".join(map(str, v)) if isinstance(v, tuple) and all(isinstance(u, int) for u in v) else str(v)  # noqa: E731
    return f"{fmt(w.x)}->{fmt(w.x_prime)} y={fmt(w.y)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eps0", default=",".join(map(str, EPS0S)), help="comma-separated budgets")
    ap.add_argument("--delta", default="1e-6", help="δ of the (ε, δ) table")
    args = ap.parse_args()
    eps0s = [float(e) for e in args.eps0.split(",")]
    start = time.perf_counter()
    out: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        out.append(line)

    n, m = N_QUERIES, M
    mechanisms = [("noisy max", lambda e, mg: noisy_max(n, m, eps0=e, margin=mg), f"n={n} m={m}")]
    mechanisms.append(("sparse vector", lambda e, mg: sparse_vector(n, m, SVT_T, SVT_N, eps0=e, margin=mg),
                       f"n={n} m={m} T={SVT_T} N={SVT_N}"))
    outs = svt_outputs(n, SVT_N)

    def closed(name: str, e: float, mg: int) -> Table:
        if name == "noisy max":
            return Table(n, m, lambda x: noisy_max_probs(x, m, mg, math.exp(-e / 2)))
        return Table(n, m, lambda x: svt_probs(x, m, SVT_T, SVT_N, mg, math.exp(-e / (2 * SVT_N)), outs))

    say("Data-centric vs global ε (pure DP), wmcdp exact bounds; neighbours: every answer moves by at most 1, "
        f"answers in {{0..{m}}}")
    say("margin = clamp margin of the noisy answers (default ceil(12/eps0)); limit = the unclamped mechanism "
        "(closed form, margin ceil(1500/eps0)); check = |wmcdp - closed form| / wmcdp at the same margin")
    say()
    hdr = (f"{'mechanism':<14} {'eps0':>4} {'margin':>6} {'database x0':<15} {'x0':<7} {'global ε':>9} "
           f"{'data-centric ε':>14} {'ratio':>6} {'limit ratio':>11} {'check':>8}  witness (data-centric)")
    say(hdr)
    rows, worst, paper = [], 0.0, {}
    for name, make, params in mechanisms:
        for e in eps0s:
            mg = default_margin(e)
            t0 = time.perf_counter()
            compiled = compile_program(make(e, mg))
            glob = synthesize_privacy(compiled, force=True)
            t_global = time.perf_counter() - t0
            table = closed(name, e, mg)
            limit = closed(name, e, math.ceil(1500 / e))
            g_check = abs(glob.epsilon - table.overall()) / glob.epsilon
            lim_global = limit.overall()
            worst = max(worst, g_check)
            assert g_check <= REL_TOL, f"{name} eps0={e}: global {glob.epsilon} vs closed form {table.overall()}"
            say(f"{name:<14} {e:>4g} {mg:>6} {'(global)':<15} {'':<7} {glob.epsilon:9.6f} {'':>14} {'':>6} "
                f"{'':>11} {g_check:8.1e}  global witness {witness(glob.witness)}; {t_global:.1f} s")
            for label, x0 in databases(n):
                local = synthesize_privacy(compiled, at=x0, force=True)
                check = abs(local.epsilon - table.at(x0)) / local.epsilon
                worst = max(worst, check)
                assert check <= REL_TOL, f"{name} eps0={e} at {x0}: {local.epsilon} vs closed form {table.at(x0)}"
                assert local.epsilon <= glob.epsilon * (1 + 1e-12), "data-centric above global"
                ratio, lim_ratio = local.epsilon / glob.epsilon, limit.at(x0) / lim_global
                rows.append(dict(mechanism=name, eps0=e, margin=mg, x0=x0, label=label, glob=glob.epsilon,
                                 local=local.epsilon, ratio=ratio, limit_ratio=lim_ratio))
                if name == "noisy max" and x0 == PAPER_DB:
                    paper[e] = (glob.epsilon, local.epsilon, lim_global, limit.at(x0))
                say(f"{'':<14} {'':>4} {'':>6} {label:<15} {''.join(map(str, x0)):<7} {'':>9} "
                    f"{local.epsilon:14.6f} {ratio:6.3f} {lim_ratio:11.3f} {check:8.1e}  {witness(local.witness)}")
    say()
    say(f"Closed-form check: every global and data-centric ε above agrees with the product formula to "
        f"{worst:.1e} relative (asserted {REL_TOL:g}).")

    # -- the paper's setting -----------------------------------------------------------------
    say()
    say(f"The paper's database (noisy max, n = {n}, all answers 0, neighbours {{0,1}}^{n}): data-centric / global")
    say(f"{'eps0':>5} {'global ε':>10} {'data-centric ε':>15} {'ratio':>7} {'unclamped global':>17} "
        f"{'unclamped data-centric':>23} {'ratio':>7}")
    for e, (g, loc, lg, ll) in paper.items():
        say(f"{e:>5g} {g:10.6f} {loc:15.6f} {loc / g:7.4f} {lg:17.6f} {ll:23.6f} {ll / lg:7.4f}")

    # -- the CLI on the paper's row ----------------------------------------------------------
    e = 0.7 if 0.7 in eps0s else eps0s[0]
    cmd = [sys.executable, "-m", "wmcdp", "privacy", "noisy_max", "-p", f"n={n}", "-p", f"m={m}", "-p", f"eps0={e}",
           "-p", f"margin={default_margin(e)}", "--at", ",".join(map(str, PAPER_DB)), "--json"]
    cli = json.loads(subprocess.run(cmd, cwd=HERE.parent, check=True, capture_output=True, text=True).stdout)
    api = paper[e][1]
    assert abs(cli["epsilon"] - api) <= 1e-12 * api, f"CLI {cli['epsilon']} vs API {api}"
    say()
    say(f"CLI: python -m wmcdp privacy noisy_max -p n={n} -p m={m} -p eps0={e} -p margin={default_margin(e)} "
        f"--at {','.join(map(str, PAPER_DB))} --json  ->  epsilon {cli['epsilon']:.12f} (= API)")

    # -- (epsilon, delta) ---------------------------------------------------------------------
    say()
    say(f"(ε, δ) for noisy max, n = {n}, eps0 = {e}, margin {default_margin(e)}: ε(δ) global vs data-centric")
    compiled = compile_program(noisy_max(n, m, eps0=e, margin=default_margin(e)))
    say(f"{'δ':>7} {'database x0':<15} {'global ε(δ)':>12} {'data-centric ε(δ)':>18} {'ratio':>7}  pair")
    for delta in (args.delta, "1e-3", "1e-2"):
        g = synthesize_approximate(compiled, delta=delta, force=True)
        for label, x0 in databases(n)[:4]:
            loc = synthesize_approximate(compiled, delta=delta, at=x0, force=True)
            assert loc.epsilon <= g.epsilon * (1 + 1e-12), "data-centric above global"
            say(f"{delta:>7} {label:<15} {g.epsilon:12.6f} {loc.epsilon:18.6f} {loc.epsilon / g.epsilon:7.4f}  "
                f"{''.join(map(str, loc.witness.x))}->{''.join(map(str, loc.witness.x_prime))}")

    # -- brute force, exact ---------------------------------------------------------------------
    say()
    say("Brute force (Fractions, every joint noise value, the mechanism's loop run literally) vs wmcdp exact mode:")
    alpha, mg = Fraction(1, 2), 1
    cases = [
        ("noisy max", 3, 1, lambda x: brute_noisy_max(x, 1, mg, alpha), noisy_max(3, 1, alpha=alpha, margin=mg)),
        ("noisy max", 3, 2, lambda x: brute_noisy_max(x, 2, mg, alpha), noisy_max(3, 2, alpha=alpha, margin=mg)),
        ("sparse vector", 3, 2, lambda x: brute_svt(x, 2, SVT_T, SVT_N, mg, alpha),
         sparse_vector(3, 2, SVT_T, SVT_N, alpha=alpha, margin=mg)),
    ]
    for name, bn, bm, dist_of, prog in cases:
        compiled = compile_program(prog)
        for x0 in (None, (0,) * bn, (bm,) + (0,) * (bn - 1), (1,) * bn):
            if x0 is not None and max(x0) > bm:
                continue
            w = synthesize_privacy(compiled, at=x0, force=True) if x0 else synthesize_privacy(compiled, force=True)
            b = brute_ratio(dist_of, x0, bn, bm)
            assert w.exact and w.ratio == b, f"{name} n={bn} m={bm} at {x0}: wmcdp {w.ratio} != brute force {b}"
            say(f"  {name:<14} n={bn} m={bm} alpha={alpha} margin={mg} "
                f"{'global' if x0 is None else 'at ' + ''.join(map(str, x0)):<8} e^ε = {str(b):<22} "
                f"ε = {math.log(b):.6f}  (wmcdp: identical Fraction)")
    say()
    say(f"Total {time.perf_counter() - start:.1f} s (python experiments/data_centric.py).")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "data_centric.txt"
    path.write_text("\n".join(out) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
