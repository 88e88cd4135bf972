"""The python-dp integer Laplace noise (Count, BoundedSum on integers, LaplaceMechanism.add_noise of an integer): the
binary-search geometric model against an enumeration of the search tree and against the closed form, the library's
own geometric and Count draws against the model (a model off by 10 % in lambda or epsilon fails), the support edge,
the rows, the command line and the report's script. Skips without python-dp (``pip install 'wmcdp[pydp]'``)."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction as F

import pytest

pytest.importorskip("pydp")
pytest.importorskip("scipy")

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit.core import check_model  # noqa: E402
from wmcdp.audit.pydp import (  # noqa: E402
    INT64_MAX,
    LaplaceNoise,
    Summed,
    audit_pydp,
    cases,
    draw_sums,
    summed_noise,
    uniform_double_at_most,
)
from wmcdp.cli import main  # noqa: E402


def split(lam: float, lo: int, hi: int) -> tuple[int, float]:
    """GeometricDistribution::Sample's step, written again from the C++ (distributions.cc)."""
    mid = lo - math.floor((math.log(0.5) + math.log1p(math.exp(lam * float(lo - hi)))) / lam)
    mid = min(max(mid, lo + 1), hi - 1)
    return mid, math.expm1(lam * float(lo - mid)) / math.expm1(lam * float(lo - hi))


def tree_mass(lam: float, a: int, b: int, lo: int = 0, hi: int = INT64_MAX) -> F:
    """P(a <= K < b) by enumerating the search tree's nodes that straddle [a, b) (each node [lo, hi) splits into
    [lo, mid) with probability P(UniformDouble() <= q) and [mid, hi)); the first exit to INT64_MAX is not reached."""
    if b <= lo or hi <= a:
        return F(0)
    if a <= lo and hi <= b:
        return F(1)
    mid, q = split(lam, lo, hi)
    left = uniform_double_at_most(q)
    return left * tree_mass(lam, a, b, lo, mid) + (1 - left) * tree_mass(lam, a, b, mid, hi)


@pytest.mark.parametrize("noise", [LaplaceNoise.of(1.0, 1.0), LaplaceNoise.of(5.0, 3.0), LaplaceNoise(0.25, 0.7)])
def test_bins_match_an_enumeration_of_the_search_tree(noise):
    assert noise.no_overflow() == 1
    dist, tail = noise.distribution()
    zero = tree_mass(noise.lam, 0, 1)
    scale = 2 - zero
    assert dist[0] == (zero + 2 * tree_mass(noise.lam, 1, noise.half)) / scale
    for j in (1, 2, max(dist)):
        assert dist[j] == dist[-j] == tree_mass(noise.lam, (2 * j - 1) * noise.half, (2 * j + 1) * noise.half) / scale
    assert tail == tree_mass(noise.lam, (2 * max(dist) + 1) * noise.half, INT64_MAX) / scale
    assert sum(dist.values()) + 2 * tail == 1


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 40.0])
def test_geometric_follows_its_closed_form_within_float_error(epsilon):
    """P(K < k) = 1 - e^(-lam k) for the ideal geometric; the search's float steps move it by ulps only."""
    noise = LaplaceNoise.of(epsilon, 1.0)
    for k in (1, noise.half, 3 * noise.half, 7 * noise.half):
        ideal = -math.expm1(-noise.lam * k)
        assert abs(float(noise.below(k)) - ideal) <= 1e-13 * max(ideal, 1e-300)


def test_the_library_geometric_draws_agree_with_the_model():
    """pydp.distributions.GeometricDistribution is the C++ sampler itself: its draws at lambda 0.3 against the
    model's P(K = k); the model at lambda 0.33 fails on the same draws."""
    from pydp.distributions import GeometricDistribution

    sampler = GeometricDistribution(lambda_=0.3)
    drawn = Counter(min(int(sampler.sample()), 40) for _ in range(20_000))

    def model(lam: float) -> dict[int, float]:
        noise = LaplaceNoise(0.5, lam)
        out = {k: float(noise.below(k + 1) - noise.below(k)) for k in range(40)}
        return {**out, 40: float(1 - noise.below(40))}

    assert check_model("K", model(0.3), drawn, 1e-6).agrees
    assert not check_model("K", model(0.33), drawn, 1e-6).agrees


def test_count_draws_agree_with_the_model_and_a_wrong_epsilon_fails():
    (row,) = audit_pydp(sample=20_000, only="Count epsilon=1.0, l0_sensitivity=1, linf_sensitivity=1", processes=1)
    assert [s.draws for s in row.samples] == [20_000, 20_000] and row.model_agrees
    assert all(s.detectable < 0.01 for s in row.samples)
    (case,) = cases("Count epsilon=1.0, l0_sensitivity=1, linf_sensitivity=1")
    drawn = draw_sums(case, ((1,), 16), 20_000)
    dist, tail = LaplaceNoise.of(1.1, 1.0).distribution(16)
    wrong = {**{1 + j: float(p) for j, p in dist.items()}, "below": float(tail), "above": float(tail)}
    assert not check_model("(1,)", wrong, drawn, 1e-6).agrees


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 40.0])
def test_the_support_edge(epsilon):
    """The noise never exceeds round(2^63 g); the path to K = 2^63 - 2 has log-probability about
    ln(1 - e^-lam) - lam (2^63 - 2), the ideal geometric's, to float accuracy."""
    noise = LaplaceNoise.of(epsilon, 1.0)
    assert noise.largest == round(2.0**63 * noise.granularity) == 2 ** (63 + math.frexp(noise.granularity)[1] - 1)
    ideal = math.log(-math.expm1(-noise.lam)) - noise.lam * (2**63 - 2)
    assert noise.log_largest() == pytest.approx(ideal, rel=1e-9)


def test_every_row_is_violated_at_the_support_edge():
    rows = [r for r in audit_pydp(only="sensitivity") if "(float)" not in r.mechanism]
    assert len(rows) == 12 and {r.verdict for r in rows} == {"VIOLATED"} and {r.epsilon for r in rows} == {math.inf}
    for row, case in zip(rows, (c for c in cases() if "PartitionSelection" not in c.mechanism and not c.spec.real)):
        value = case.spec.value((case.spec.entry,))
        largest = summed_noise(case.spec).largest
        assert int(row.witness[2]) == value + math.copysign(largest, value) and row.witness[1] in ("()", "0")
        assert row.reproducer is not None and "wmcdp" not in row.reproducer


def test_refusals():
    with pytest.raises(WmcdpError, match="rounds the count"):
        LaplaceNoise.of(2.0**-45, 1.0)
    with pytest.raises(WmcdpError, match="past a 32-bit result"):  # 2^10 / 2^40 rounds up to g = 2^-30: 2^33
        summed_noise(Summed("BoundedSum (int)", 1.0, bounds=(0, 2**10)))


def test_command_line(capsys):
    assert main(["audit", "pydp", "--only", "LaplaceMechanism (int) epsilon=1.0", "--json"]) == 1
    (r,) = json.loads(capsys.readouterr().out)["rows"]
    assert (
        r["verdict"] == "VIOLATED"
        and r["epsilon"] == "inf"
        and r["witness"]
        == {
            "x": "1",
            "x_prime": "0",
            "y": "8388609",
        }
    )


def test_report_script_runs_with_the_library_alone(tmp_path):
    """The report's script reads the granularity from the library's own samples, walks the geometric's path to its
    largest value and prints the same bound as the model."""
    from reports import script_output

    label = "Count epsilon=2.0"
    assert main(["audit", "pydp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    lines = script_output(path.read_text(), alone=True)
    (case,) = cases(label)
    noise = summed_noise(case.spec)
    assert lines[0] == f"granularity g = {F(noise.granularity)} (the library's samples)"
    bound = (noise.log_largest() - math.log(2)) / math.log(10)
    assert lines[2] == f"largest |noise| = {noise.largest}, reached with probability >= 10^{bound:.1f}"
    assert lines[-1] == "VIOLATED"


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_inside_the_window_the_claim_holds_by_the_granularity_margin(epsilon):
    """Values one apart: the largest log-ratio of two neighbouring bins of the window is epsilon / (1 + g) (lam / g
    per unit), below the claim by epsilon g / (1 + g), to float accuracy."""
    noise = LaplaceNoise.of(epsilon, 1.0)
    dist, _ = noise.distribution()
    worst = max(math.log(dist[j] / dist[j + 1]) for j in range(-max(dist), max(dist)) if dist[j + 1] > 0)
    g = noise.granularity
    assert worst < epsilon and epsilon - worst == pytest.approx(epsilon * g / (1 + g), rel=1e-2)
