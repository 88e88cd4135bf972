"""The python-dp float Laplace noise (LaplaceMechanism.add_noise of a float, BoundedSum with dtype "float"):
``AddDoubleNoise``'s rounding of the value to the granularity grid against exact rationals, the output's noise bins
against an enumeration of the geometric's search tree, the library's own float outputs against the model (a model
off by 10 % in epsilon fails, and the outputs lie on the grid around the rounded value, not around the value), the
support edge, the rows, the command line and the report's script. Skips without python-dp."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction as F

import pytest

pytest.importorskip("pydp")
pytest.importorskip("scipy")

from test_audit_pydp_count import tree_mass  # noqa: E402

from wmcdp.audit.core import check_model  # noqa: E402
from wmcdp.audit.pydp import (  # noqa: E402
    INT64_MAX,
    LaplaceNoise,
    Summed,
    audit_pydp,
    cases,
    draw_sums,
    noise_bin,
    released,
    round_to_multiple,
    summed_expected,
    summed_noise,
    summed_noise_bin,
)
from wmcdp.cli import main  # noqa: E402

G = 2.0**-40


def nearest_multiple(n: float, base: float) -> F:
    """The multiple of ``base`` nearest to ``n``, ties towards +inf, in exact rationals."""
    return math.floor(F(n) / F(base) + F(1, 2)) * F(base)


@pytest.mark.parametrize(
    "n", [0.0, 0.3, -0.3, 2.5, -2.5, 1e-13, -1e-13, 3 * 2.0**-41, -3 * 2.0**-41, 2.0**-41, -(2.0**-41), 12345.678]
)
def test_rounding_to_the_grid_is_exact_and_breaks_ties_upwards(n):
    assert F(round_to_multiple(n, G)) == nearest_multiple(n, G)


def test_float_noise_bins_match_an_enumeration_of_the_search_tree():
    """With g = 1/4 (lam 0.7): each output R(v) + double(s k) g of the enumerated draws (s, k), put in its std::round
    bin of the exact noise, sums to the model's bin probability; the outputs are exact multiples of g from R(v)."""
    noise = LaplaceNoise(0.25, 0.7)
    spec = Summed("LaplaceMechanism (float)", 1.0, sensitivity=0.3)
    dist, _ = noise.distribution()
    zero = tree_mass(noise.lam, 0, 1)
    scale = 2 - zero
    brute: Counter[int] = Counter()
    for k in range(0, 2 * noise.half * (max(dist) + 1)):
        mass = tree_mass(noise.lam, k, k + 1) / scale
        for signed in {k, -k}:
            j = summed_noise_bin(spec, noise, (0.3,), released(spec, noise, 0.3, signed))
            assert j is not None
            brute[j] += mass
    assert {j: brute[j] for j in dist} == dist
    assert F(round_to_multiple(0.3, 0.25)) == F(1, 4)


def test_noise_bins_round_halves_away_from_zero():
    assert [noise_bin(F(v, 2)) for v in (-3, -1, 0, 1, 3)] == [-2, -1, 0, 1, 2]
    spec, noise = Summed("LaplaceMechanism (int)", 1.0, sensitivity=1), LaplaceNoise(0.25, 0.7)
    assert [released(spec, noise, 1, k) for k in (-6, -2, 2, 6)] == [-1, 0, 2, 3]  # k g = -1.5, -0.5, 0.5, 1.5


def test_library_outputs_agree_with_the_model_and_a_wrong_epsilon_fails():
    (case,) = cases("LaplaceMechanism (float) epsilon=0.5")
    drawn = draw_sums(case, ((0.3,), 16), 20_000)
    assert "off grid" not in drawn
    dist, tail = summed_noise(case.spec).distribution(16)
    assert check_model("0.3", summed_expected(case.spec, (0.3,), dist, tail), drawn, 1e-6).agrees
    wrong, wrong_tail = LaplaceNoise.of(0.55, 0.3).distribution(16)
    assert not check_model("0.3", summed_expected(case.spec, (0.3,), wrong, wrong_tail), drawn, 1e-6).agrees


def test_library_outputs_lie_on_the_grid_around_the_rounded_value():
    """0.3 is not on the grid: the library's outputs minus R(0.3) are multiples of g, minus 0.3 they are not."""
    mechanism = cases("LaplaceMechanism (float) epsilon=1.0")[0].spec.build()
    outputs = [F(mechanism.add_noise(0.3)) for _ in range(200)]
    grid = F(round_to_multiple(0.3, G))
    assert grid != F(0.3)
    assert all(((o - grid) / F(G)).denominator == 1 for o in outputs)
    assert not any(((o - F(0.3)) / F(G)).denominator == 1 for o in outputs)


def test_bounded_sum_clamps_in_doubles_and_agrees_with_the_library():
    (case,) = cases("BoundedSum (float) epsilon=1.0")
    entries = (5.0, -2.0, 0.25)
    assert case.spec.value(entries) == 2.5 - 1.5 + 0.25
    drawn = draw_sums(case, (entries, 16), 20_000)
    dist, tail = summed_noise(case.spec).distribution(16)
    assert "off grid" not in drawn
    assert check_model(repr(entries), summed_expected(case.spec, entries, dist, tail), drawn, 1e-6).agrees


def test_every_float_row_is_violated_at_the_support_edge():
    """From no entry every output is at most 2^63 g in size (K <= INT64_MAX converts to at most 2^63); the witness
    output, R(v) +- 2^63 g in doubles, lies beyond it."""
    rows = audit_pydp(only="(float)")
    assert len(rows) == 5 and {r.verdict for r in rows} == {"VIOLATED"} and {r.epsilon for r in rows} == {math.inf}
    for row, case in zip(rows, cases("(float)")):
        spec, noise = case.spec, summed_noise(case.spec)
        v = spec.value((spec.entry,))
        edge = 2.0**63 * noise.granularity
        assert float(row.witness[2]) == round_to_multiple(v, noise.granularity) + math.copysign(edge, v)
        assert abs(float(row.witness[2])) > edge
        assert max(abs(released(spec, noise, 0.0, k)) for k in (INT64_MAX, -INT64_MAX, INT64_MAX - 1)) == edge
        assert row.reproducer is not None and "wmcdp" not in row.reproducer


def test_command_line(capsys):
    assert main(["audit", "pydp", "--only", "LaplaceMechanism (float) epsilon=1.0", "--json"]) == 1
    (r,) = json.loads(capsys.readouterr().out)["rows"]
    assert r["verdict"] == "VIOLATED" and r["epsilon"] == "inf"
    assert r["witness"] == {"x": "1.0", "x_prime": "0.0", "y": "8388609.0"}


def test_report_script_runs_with_the_library_alone(tmp_path):
    """The script reads g from the library's samples, rounds the value to the grid as the C++ does and prints the
    witness output beyond the largest noise."""
    from reports import script_output

    label = "BoundedSum (float) epsilon=0.5"
    assert main(["audit", "pydp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    lines = script_output(path.read_text(), alone=True)
    (case,) = cases(label)
    noise = summed_noise(case.spec)
    assert lines[0] == f"granularity g = {F(noise.granularity)} (the library's samples)"
    bound = (noise.log_largest() - math.log(2)) / math.log(10)
    assert lines[2] == f"largest |noise| = {noise.edge}, reached with probability >= 10^{bound:.1f}"
    (row,) = audit_pydp(only=label)
    assert lines[3] == f"P(output {row.witness[2]} | (-0.3,)) > 0 = P(output {row.witness[2]} | ()): " + (
        f"|{row.witness[2]} - 0| > {noise.edge}"
    )
    assert lines[-1] == "VIOLATED"
