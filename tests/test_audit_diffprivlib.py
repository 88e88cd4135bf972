"""The diffprivlib audit: grid models of diffprivlib's samplers against closed forms that do not go through
its code (the float threshold of Binary, the shift of Geometric), the verdicts, the command line, and the
library's own draws against a model. Skips without diffprivlib (``pip install 'wmcdp[diffprivlib]'``)."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction as F

import pytest

pytest.importorskip("diffprivlib")

from reports import script_output  # noqa: E402

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit.diffprivlib import audit_diffprivlib, cases, draw_counts, models  # noqa: E402
from wmcdp.cli import main  # noqa: E402
from wmcdp.lang.models import GRID  # noqa: E402


def first_flip(eps: float) -> int:
    """The smallest k with fl(fl(k 2^-53) * fl(e^eps + 1)) > fl(e^eps): Binary flips from there on (a float
    product is monotone in its factor, so the flips are exactly the k from this one up)."""
    c, t = math.exp(eps) + 1, math.exp(eps)
    lo, hi = 0, GRID
    while lo < hi:
        mid = (lo + hi) // 2
        if (mid / GRID) * c > t:
            hi = mid
        else:
            lo = mid + 1
    return lo


@pytest.mark.parametrize("eps", [0.01, 1.0, 20.0, 40.0])
def test_binary_matches_the_float_threshold(eps):
    (case,) = cases(f"Binary epsilon={eps!r}")
    keep = first_flip(eps)
    grids = models(case)
    assert grids[0].counts() == ({"a": keep, "b": GRID - keep} if keep < GRID else {"a": GRID})
    (row,) = audit_diffprivlib(only=f"Binary epsilon={eps!r}")
    ratio = F(keep, GRID - keep) if keep < GRID else math.inf
    assert row.ratio_exact == ("inf" if ratio == math.inf else str(ratio))
    assert row.verdict == "VIOLATED"  # the grid adds a point to the keeping side: the ratio passes e^eps


def test_geometric_is_a_shift_with_a_finite_support_and_a_crash():
    (case,) = cases("Geometric epsilon=1.0")
    zero, one = (g.counts() for g in models(case))
    assert zero["raises OverflowError"] == 1 == one["raises OverflowError"]  # u = 1/2: log(0) in diffprivlib
    assert {y + 1: c for y, c in zero.items() if isinstance(y, int)} == {
        y: c for y, c in one.items() if isinstance(y, int)
    }
    (row,) = audit_diffprivlib(only="Geometric epsilon=1.0")
    assert row.epsilon == math.inf and row.verdict == "VIOLATED"
    assert row.witness[2] == repr(min(y for y in zero if isinstance(y, int)))  # only input 0 reaches it


def test_library_draws_agree_with_the_model():
    (row,) = audit_diffprivlib(sample=20_000, only="GeometricTruncated epsilon=1.0", processes=1)
    assert [s.draws for s in row.samples] == [20_000, 20_000] and row.model_agrees


def test_command_line(capsys, monkeypatch):
    assert main(["audit", "diffprivlib", "--only", "Binary epsilon=1.0", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["library"] == "diffprivlib" and out["violated"] == 1 and out["rows"][0]["verdict"] == "VIOLATED"
    assert main(["audit", "diffprivlib", "--only", "nosuch"]) == 2
    assert "no case of the diffprivlib audit matches 'nosuch'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "diffprivlib", None)
    with pytest.raises(WmcdpError, match=r"needs diffprivlib: pip install 'wmcdp\[diffprivlib\]'"):
        audit_diffprivlib(only="Binary")


def test_folded_draws_are_the_library_s_own_calls():
    """The folded model is the inner Geometric draw then _fold; the sampling check must run
    GeometricFolded.randomise itself, whose outputs never leave [lower, upper]."""
    (case,) = cases("GeometricFolded epsilon=1.0")
    draws = draw_counts(case, 0, 3000)
    assert sum(draws.values()) == 3000 and set(draws) <= {0, 1, 2, 3, 4} and len(draws) >= 3


def last_at_most(t: float, scale: float) -> int:
    """The largest k with fl(fl(k 2^-53) * scale) <= t (the product is monotone in k), or -1."""
    lo, hi = -1, GRID - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (mid / GRID) * scale <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


def test_exponential_categorical_matches_its_running_sums():
    """Balanced utilities (factor 1): input a draws u * Z(a) against the running sums of e^(-eps u(a, y))
    in the domain's order, recomputed here in float64 as the library's lines do, the last output taking
    the rest of the grid."""
    eps = 1.0
    balanced = "utility_list=[('a', 'b', 1.0), ('b', 'c', 1.0), ('a', 'c', 1.0)]"
    (case,) = cases(f"ExponentialCategorical epsilon={eps!r}, {balanced}")
    weights = [1.0, math.exp(-eps), math.exp(-eps)]  # from a: to a, b, c (utility 1, sensitivity 1)
    z = sum(weights)  # the library adds them in this order too
    ends, running = [], 0.0
    for w in weights[:-1]:
        running += w
        ends.append(last_at_most(running, z))
    expected = {"a": ends[0] + 1, "b": ends[1] - ends[0], "c": GRID - 1 - ends[1]}
    assert models(case)[0].counts() == expected
    (row,) = audit_diffprivlib(only=case.label)
    assert row.verdict == "VIOLATED" and row.epsilon > eps  # rounding the running sums passes e^eps


def test_bernoulli_neg_exp_on_the_grid():
    """gamma = 0 accepts unless the first draws are all k = 0: 1/(1 + 2^-53) exactly; elsewhere the grid
    moves exp(-gamma) by a few multiples of 2^-53 only."""
    from wmcdp.audit.diffprivlib import bernoulli_neg_exp_one

    mid, rad = bernoulli_neg_exp_one(0.0).enclosure(300)
    assert abs(mid - F(1, 1) / (1 + F(1, GRID))) <= rad < F(1, 2**290)
    for gamma in (0.25, 1.0, 2.5, 7.0):
        mid, _ = bernoulli_neg_exp_one(gamma).enclosure(128)
        assert abs(float(mid) - math.exp(-gamma)) < 64 / GRID


def test_permute_and_flip_fails_with_a_ratio_of_two_to_the_106():
    """On equal utilities every candidate is rejected only after three k = 0 draws (probability r^3 with
    r = 2^-53 / (1 + 2^-53)); on (0, 1, 2) the top candidate alone is rejected with probability r, so the
    RuntimeError outcome separates the two inputs by about 2^106."""
    import diffprivlib

    from wmcdp.audit.diffprivlib import permute_and_flip_distribution

    r = F(1, GRID) / (1 + F(1, GRID))
    flat = diffprivlib.mechanisms.PermuteAndFlip(epsilon=1.0, sensitivity=1, utility=[1.0, 1.0, 1.0])
    mid, rad = permute_and_flip_distribution(flat)["raises RuntimeError"].enclosure(400)
    assert abs(mid - r**3) <= rad < r**3 / 2**100
    (row,) = audit_diffprivlib(only="PermuteAndFlip epsilon=1.0")
    assert row.verdict == "VIOLATED" and row.witness[2] == "'raises RuntimeError'" and 70 < row.epsilon < 74


def test_permute_and_flip_draws_agree_with_the_model():
    (row,) = audit_diffprivlib(sample=20_000, only="PermuteAndFlip epsilon=5.0", processes=1)
    assert [s.draws for s in row.samples] == [20_000, 20_000] and row.model_agrees


@pytest.mark.parametrize("hierarchy", [[["a", "b"], ["c", "d"]], [["a", "b"], ["c"]]])
def test_exponential_hierarchical_is_categorical_over_the_hierarchy_distances(hierarchy):
    """Its grid model is ExponentialCategorical's (checked against the running sums above) over the utilities
    written here from the hierarchy: two leaves under one parent are 1 apart, else 2 (its height); and the
    verdict's exact ratio is the largest ratio of those distributions over pairs of leaves."""
    parent = {leaf: k for k, group in enumerate(hierarchy) for leaf in group}
    leaves = sorted(parent)
    utility = [(a, b, 1 if parent[a] == parent[b] else 2) for a in leaves for b in leaves if a < b]
    (case,) = cases(f"ExponentialHierarchical epsilon=1.0, hierarchy={hierarchy!r}")
    lib = pytest.importorskip("diffprivlib")
    from wmcdp.lang.models import grid_model

    for leaf, model in zip(leaves, models(case)):
        mechanism = lib.mechanisms.ExponentialCategorical(epsilon=1.0, utility_list=utility)
        assert model.counts() == grid_model(lambda u, m=mechanism, x=leaf: _at(m, u, x)).counts()
    dists = {x: m.distribution() for x, m in zip(leaves, models(case))}
    ratio = max(dists[x][y] / dists[xp][y] for x in leaves for xp in leaves for y in dists[x] if x != xp)
    (row,) = audit_diffprivlib(only=case.label)
    assert row.ratio_exact == str(ratio)


def _at(mechanism, u, x):
    """The categorical mechanism's randomise at the grid point u (its generator stubbed)."""
    from wmcdp.audit.diffprivlib import GridDraw

    draw = GridDraw()
    draw.u = u
    mechanism._rng = draw
    return mechanism.randomise(x)


@pytest.mark.parametrize(
    "label",
    [
        "ExponentialHierarchical epsilon=1.0, hierarchy=[['a', 'b'], ['c', 'd']]",
        "ExponentialCategorical epsilon=1.0, utility_list=[('a', 'b', 1.0), ('b', 'c', 1.0), ('a', 'c', 1.0)]",
    ],
)
def test_categorical_reports_run_with_the_library_alone(tmp_path, label):
    """The report's script, with wmcdp unimportable, counts the witness's grid points with the library's own
    randomise (bisection) and prints the exact ratio of the grid models."""
    assert main(["audit", "diffprivlib", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    lines = script_output(path.read_text())
    (case,) = cases(label)
    dists = dict(zip(case.spec.inputs, (m.distribution() for m in models(case))))
    ratio = max(dists[x][y] / dists[xp][y] for x in dists for xp in dists for y in dists[x] if x != xp)
    assert f"exact ratio: {ratio}" in lines and lines[-1] == "VIOLATED"


def test_gaussian_discrete_against_the_closed_form():
    """Its output is the input plus a noise with P(y) proportional to exp(-y^2 / (2 scale^2)) (Canonne, Kamath and
    Steinke), up to the 2^-53 grid: the certified delta at the claimed epsilon against that sum at 40 digits
    (mpmath), and the verdict against the claim; the library's own draws against the model."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    label = "GaussianDiscrete epsilon=0.5, delta=0.001"  # violated; and a claim that holds
    rows = audit_diffprivlib(only="delta=0.0", sample=20_000, processes=1)
    assert [r.mechanism for r in rows] == ["GaussianDiscrete"] * 2 and all(r.model_agrees for r in rows)
    assert rows[0].verdict == "VIOLATED" and rows[1].verdict == "loose" and cases(label)[0].label == label
    for row, case in zip(rows, cases("delta=0.0")):
        scale = float(row.params.split("scale=")[1].split(",")[0])
        eps, delta = case.spec.claimed, row.claimed_delta
        w = {y: mp.e ** (-(mp.mpf(y) ** 2) / (2 * mp.mpf(scale) ** 2)) for y in range(-60 * 5 - 2, 60 * 5 + 3)}
        z = sum(w.values())
        exact = sum(max(0, (w[o] - mp.e ** mp.mpf(eps) * w[o - 1]) / z) for o in range(-60 * 5 - 1, 60 * 5 + 3))
        assert abs(row.delta - float(exact)) <= 1e-12 * float(exact)
        assert row.verdict == ("VIOLATED" if exact > delta else "loose")


# -- every finding's report, the exact run-end check and the power of the sampling checks -------------


def _report(tmp_path, label: str, capsys=None) -> str:
    """The one report of the case (``capsys``: and the JSON row, as ``(text, row)``)."""
    assert main(["audit", "diffprivlib", "--only", label, "--report", str(tmp_path), "--json"]) == 1
    (path,) = tmp_path.iterdir()
    if capsys is None:
        return path.read_text()
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    return path.read_text(), row


def _printed(lines: list[str], name: str) -> F:
    (line,) = [line for line in lines if line.startswith(name)]
    return F(line.split("= ", 1)[1])


def test_binary_report_runs_with_the_library_alone(tmp_path):
    """The script walks Binary's grid runs with the library's randomise: the first flip of the float threshold."""
    eps = 1.0
    lines = script_output(_report(tmp_path, f"Binary epsilon={eps!r}"), alone=True)
    keep = first_flip(eps)
    assert f"exact ratio: {F(keep, GRID - keep)}" in lines and lines[-1] == "VIOLATED"


@pytest.mark.parametrize("label", ["GeometricFolded epsilon=40.0", "Geometric epsilon=5.0"])
def test_geometric_reports_run_with_the_library_alone(tmp_path, capsys, label):
    """The script's probabilities (its own bisection over the library's calls; for the folded mechanism the
    library's _fold applied to its inner draw) are the audit's, which its report carries."""
    text, row = _report(tmp_path, label, capsys)
    lines = script_output(text)
    p, pp = (F(v) for v in row["witness_probabilities"])
    assert (_printed(lines, "P(y | x) "), _printed(lines, "P(y | x')")) == (p, pp)
    assert f"- **P(y | x)** = {p} " in text and lines[-1].startswith("VIOLATED")


def test_permute_and_flip_report_runs_with_the_library_alone(tmp_path):
    """Every candidate rejected: under equal utilities each bernoulli_neg_exp(0) rejects with r = 2^-53 / (1 + 2^-53)
    (an odd number of u = 0 draws), so P(RuntimeError | (1, 1, 1)) = r^3; the script's series meet it to 2^-390."""
    lines = script_output(_report(tmp_path, "PermuteAndFlip epsilon=1.0"))
    r = F(1, GRID) / (1 + F(1, GRID))
    assert abs(_printed(lines, "P(y | x')") - r**3) < F(1, 2**390) and lines[-1] == "VIOLATED"


def test_gaussian_discrete_report(tmp_path, capsys):
    """The (epsilon, delta) report: its event's probabilities give the tight delta of the row, the tester's sample
    size is the closed form at those probabilities, and the script runs with the library alone."""
    from decimal import Decimal

    text, row = _report(tmp_path, "GaussianDiscrete epsilon=0.5, delta=0.001", capsys)
    p, pp = (F(line.split("= ", 1)[1]) for line in text.splitlines() if line.startswith("- **P(E | x"))
    excess = float(p) - math.exp(0.5) * float(pp)
    assert abs(excess - row["delta"]) < 1e-15 and f"`E = {row['witness_event']}`" in text
    n = 3.090232306167813**2 * (float(p * (1 - p)) + math.exp(1.0) * float(pp * (1 - pp))) / (excess - 0.001) ** 2
    assert f"about {n:.3g} outputs under each input" in text
    lines = script_output(text, alone=True)
    assert lines[-1] == "VIOLATED" and Decimal(lines[1].split("= ")[1]) > Decimal("0.001")


def test_a_model_shifted_by_three_per_mille_is_rejected_exactly(monkeypatch):
    """Binary's model with the keep probability moved by 0.3 % turns VIOLATED into loose; the chi-square checks at
    100 000 draws cannot see that (they detect shifts of 0.9 % with power 0.9), the exact check at the run ends
    does: the library flips where the shifted model keeps."""
    from wmcdp.audit import diffprivlib as module
    from wmcdp.lang.models import Run

    honest = module._models

    def shifted(spec):
        out = []
        for model in honest(spec):
            keep = model.runs[0]
            moved = keep.end - round(keep.count * 0.003)
            runs = (Run(0, moved, keep.output), Run(moved + 1, GRID - 1, model.runs[1].output))
            out.append(type(model)(runs, model.segments, model.calls, model.checked))
        return out

    (row,) = audit_diffprivlib(only="Binary epsilon=1.0")
    assert row.model_agrees and row.verdict == "VIOLATED" and [e.points for e in row.exact] == [4, 4]
    monkeypatch.setattr(module, "_models", shifted)
    (row,) = audit_diffprivlib(only="Binary epsilon=1.0")
    assert row.verdict == "loose" and not row.model_agrees
    assert all(not e.agrees and "the library gives" in e.mismatch for e in row.exact)
    from wmcdp.audit.core import detectable_shifts

    keep = F(first_flip(1.0), GRID)
    _, relative = detectable_shifts([float(keep), float(1 - keep)], 100_000, 1e-3 / 2)
    assert 0.008 < relative < 0.01  # 0.3 % is far below what the sampling checks detect


def test_the_power_of_a_chi_square_check_by_simulation():
    """The reported smallest detectable shift, applied to the likeliest cell (moved from the others in proportion),
    is rejected in about 90 % of 4000 simulated runs of the test at its level (numpy's multinomial, scipy's chi2)."""
    import numpy as np
    from scipy.stats import chi2

    from wmcdp.audit.core import detectable_shifts

    probs, draws, level = np.array([0.5, 0.3, 0.2]), 20_000, 1e-3
    shift, relative = detectable_shifts(list(probs), draws, level)
    i = int(np.argmax(probs))
    s = relative * probs[i]
    moved = probs * (1 - s / (1 - probs[i]))
    moved[i] = probs[i] + s
    rng = np.random.default_rng(7)
    counts = rng.multinomial(draws, moved, size=4000)
    statistic = (((counts - draws * probs) ** 2) / (draws * probs)).sum(axis=1)
    rejected = float((statistic > chi2.isf(level, 2)).mean())
    assert 0.88 < rejected < 0.92
    # the smallest absolute shift is at the cell of the least p(1 - p): 0.2 here
    assert math.isclose(shift, s * math.sqrt(0.2 * 0.8 / (0.5 * 0.5)), rel_tol=1e-9)
