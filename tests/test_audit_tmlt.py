"""The tmlt audit: its models against 60-digit closed forms of the two-sided geometric (mpmath sums that
do not go through wmcdp), the certified verdicts, the command line, and the library's own draws against a
model. Skips without tmlt.core (``pip install 'wmcdp[tmlt]'``, in its own virtualenv: numpy < 2)."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction as F

import pytest

pytest.importorskip("tmlt.core")
mpmath = pytest.importorskip("mpmath")

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit.tmlt import (  # noqa: E402
    audit_tmlt,
    cases,
    noise_outputs,
    partition_selection,
    sampler_scale,
    selection_outputs,
)
from wmcdp.base.certified import Real  # noqa: E402
from wmcdp.cli import main  # noqa: E402

mpmath.mp.dps = 60


def pmf(k: int, s: F) -> mpmath.mpf:
    """The two-sided geometric at scale s: (1 - q)/(1 + q) q^|k| with q = e^(-1/s)."""
    q = mpmath.exp(-1 / mpmath.mpf(s.numerator) * s.denominator)
    return (1 - q) / (1 + q) * q ** abs(k)


def mp(x: Real) -> mpmath.mpf:
    mid, rad = x.enclosure(300)
    return mpmath.mpf(mid.numerator) / mid.denominator


def test_noise_model_sums_the_pmf():
    s = sampler_scale(F(1, 3))
    assert s > F(1, 3) and s - F(1, 3) < F(1, 10**14)  # rounded up to a double
    for x, dist in zip((0, 2), noise_outputs(Real(f"exp(-1/({s}))"), 2)):
        below = mpmath.nsum(lambda k, x=x: pmf(int(k) - x, s), [-mpmath.inf, -1])
        above = mpmath.nsum(lambda k, x=x: pmf(int(k) - x, s), [3, mpmath.inf])
        inner = [pmf(k - x, s) for k in range(3)]
        for got, want in zip([dist[c] for c in range(5)], [below, *inner, above]):
            assert abs(mp(got) - want) < mpmath.mpf(10) ** -50


def test_geometric_epsilon_is_one_over_the_sampled_scale():
    (row,) = audit_tmlt(only="alpha=1/3, d_in=1")
    s = sampler_scale(F(1, 3))
    true = float(1 / mpmath.mpf(s.numerator) * s.denominator)
    assert row.verdict == "loose" and abs(row.epsilon - true) <= 2 * math.ulp(true) and true < 3


def test_partition_selection_delta_from_the_rounded_scale():
    """At epsilon 3 the threshold is 5 and the claim is 1/(e^9 + e^12) = q^4 / (1 + q) at q = e^-3; the
    noise is drawn at the scale 1/3 rounded up, whose larger q gives one user's partition a larger chance."""
    (case,) = cases("epsilon=3,")
    _, threshold, alpha, _, _ = partition_selection(case)
    assert (threshold, alpha) == (5, F(1, 3))
    s = sampler_scale(alpha)
    q = mpmath.exp(-1 / mpmath.mpf(s.numerator) * s.denominator)
    true = q**4 / (1 + q)
    claim = 1 / (mpmath.exp(9) + mpmath.exp(12))
    dist = selection_outputs(Real(f"exp(-1/({s}))"), threshold)[1]
    assert abs(mp(1 - dist[0]) - true) < mpmath.mpf(10) ** -50  # one user: released with probability q^4/(1+q)
    (row,) = audit_tmlt(only="epsilon=3,")
    assert true > claim and row.verdict == "VIOLATED" and row.epsilon == math.inf
    assert abs(row.delta - float(true)) <= 2 * math.ulp(float(true))


def test_library_draws_agree_with_the_model():
    (row,) = audit_tmlt(sample=5000, only="alpha=5/2", processes=1)
    assert [s.draws for s in row.samples] == [5000, 5000] and row.model_agrees


def test_command_line(capsys, monkeypatch):
    assert main(["audit", "tmlt", "--only", "epsilon=40", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["library"] == "tmlt" and out["rows"][0]["verdict"] == "VIOLATED"
    assert main(["audit", "tmlt", "--only", "alpha=10,"]) == 0
    assert "tight" in capsys.readouterr().out
    assert main(["audit", "tmlt", "--only", "nosuch"]) == 2
    assert "no case of the tmlt audit matches 'nosuch'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tmlt.core.measurements", None)
    with pytest.raises(WmcdpError, match=r"needs tmlt.core: pip install 'wmcdp\[tmlt\]'"):
        audit_tmlt(only="alpha=1,")


def test_discrete_gaussian_model_and_rho():
    """The model's probabilities against the discrete Gaussian's pmf summed by mpmath, and rho: the claim
    d^2 / (2 sigma^2) against d^2 / (2 s) at the rounded-up sigma^2 the sampler gets."""
    s = F(1, 3)
    (case,) = cases("sigma_squared=1/3,")
    from wmcdp.audit.tmlt import gauss_outputs, gauss_window, sampler_scale_of

    scale = sampler_scale_of("AddDiscreteGaussianNoise", s)
    w = gauss_window(scale)
    z = mpmath.nsum(
        lambda k: mpmath.exp(-(k**2) / (2 * mpmath.mpf(scale.numerator) / scale.denominator)), [-mpmath.inf, mpmath.inf]
    )
    dist = gauss_outputs(scale, 1)[1]  # input 1
    for k in (-3, 0, 1, 4):
        want = mpmath.exp(-((k - 1) ** 2) / (2 * mpmath.mpf(scale.numerator) / scale.denominator)) / z
        assert abs(mp(dist[k + w + 1]) - want) < mpmath.mpf(10) ** -50
    assert abs(mpmath.fsum(mp(p) for p in dist.values()) - 1) < mpmath.mpf(10) ** -50
    (row,) = audit_tmlt(only="sigma_squared=1/3,")
    assert row.verdict == "loose" and row.epsilon == pytest.approx(float(F(1) / (2 * scale)), rel=1e-15)
    assert row.epsilon < row.claimed == 1.5


def test_partition_selection_report_runs_with_tmlt_alone(tmp_path):
    """The report's script, with wmcdp unimportable, computes P(released | 1 user) = q^(threshold - 1) / (1 + q) at
    the scale AddGeometricNoise samples at (alpha rounded up to a double), above the claimed delta."""
    from reports import script_output

    label = "epsilon=3, delta=1/100000"
    assert main(["audit", "tmlt", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    lines = script_output(path.read_text())
    s = F(float(lines[0].split("s = ")[1].split(" ")[0]))  # to_float(round_up=True): a few ulp above 1/3
    assert lines[0].startswith("threshold = 5, alpha = 1/3, sampled at") and s == sampler_scale(F(1, 3)) > F(1, 3)
    q = mpmath.exp(-1 / (mpmath.mpf(s.numerator) / s.denominator))
    printed = mpmath.mpf(lines[1].split("= ")[1])
    assert abs(printed - q**4 / (1 + q)) < mpmath.mpf(10) ** -40 and lines[-1] == "VIOLATED"
