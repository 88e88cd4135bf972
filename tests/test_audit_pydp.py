"""The python-dp audit: the UniformDouble model against the sampler's own algorithm (a 52-bit mantissa in a
geometric binade, summed here binade by binade), the tight delta against a brute force over the window at
60 digits, the verdicts, the command line, and the library's own draws against the model. Skips without
python-dp (``pip install 'wmcdp[pydp]'``)."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction as F

import pytest

pytest.importorskip("pydp")
mpmath = pytest.importorskip("mpmath")

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit.pydp import (  # noqa: E402
    audit_pydp,
    cases,
    draw_counts,
    hockey_stick_exceeds,
    keep_probabilities,
    uniform_double_at_most,
)
from wmcdp.cli import main  # noqa: E402


def uniform_double_cdf(t: float) -> F:
    """P(r <= t) for UniformDouble: binade e (r in [2^-e, 2^(1-e))) has probability 2^-e, its 2^52 mantissas
    equally likely; exponents from 1023 on (probability 2^-1022) give the subnormal i * 2^-1074."""
    if t >= 1:
        return F(1)
    total = F(0)
    for e in range(1, 1023):
        low = F(1, 2**e)
        if t >= 2 * low:
            total += low  # the whole binade
        elif t >= low:
            below = math.floor((F(t) / low - 1) * 2**52) + 1  # mantissas i with (1 + i/2^52) 2^-e <= t
            total += low * F(below, 2**52)
    below = min(math.floor(F(t) * 2**1074) + 1, 2**52)  # subnormals i 2^-1074 <= t
    return total + F(1, 2**1022) * F(below, 2**52)


@pytest.mark.parametrize("t", [0.0, 5e-324, 1e-310, 1e-300, 1e-16, 1e-5, 0.25, 0.5, 0.7, 1 - 2**-53, 1.0])
def test_uniform_double_model_matches_its_algorithm(t):
    assert uniform_double_at_most(t) == uniform_double_cdf(t)


def brute_delta(keep: list[F], eps: float) -> mpmath.mpf:
    """max over neighbouring counts (n, n+1), both orders, of the hockey-stick divergence, at 60 digits."""
    mpmath.mp.dps = 60
    t = mpmath.exp(mpmath.mpf(eps))
    best = mpmath.mpf(0)
    for n in range(len(keep) - 1):
        for a, b in ((keep[n], keep[n + 1]), (keep[n + 1], keep[n])):
            pa, pb = mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator
            d = max(mpmath.mpf(0), pa - t * pb) + max(mpmath.mpf(0), (1 - pa) - t * (1 - pb))
            best = max(best, d)
    return best


@pytest.mark.parametrize("label", ["epsilon=1.0, delta=1e-16,", "epsilon=40.0, delta", "pre_threshold=5"])
def test_tight_delta_matches_a_brute_force(label):
    (case,) = cases(label)
    keep = keep_probabilities(case)
    (row,) = audit_pydp(only=label)
    expected = brute_delta(keep, case.spec.epsilon)
    assert row.delta == pytest.approx(float(expected), rel=1e-15)
    assert row.verdict == ("VIOLATED" if expected > case.spec.delta else "loose")
    assert row.verdict == "VIOLATED" and row.epsilon == math.inf  # P(keep | 1) = delta + ulp(delta) > delta


def test_forty_rounds_a_keep_probability_to_one():
    """At epsilon 40 two users are kept with probability 1 in float (1 - 4e-18 rounds up), one user with
    1e-5: dropping tells them apart with probability 0.99999."""
    (case,) = cases("epsilon=40.0, delta")
    keep = keep_probabilities(case)
    assert keep[2] == 1 and keep[1] == F(1e-5) + F(math.ulp(1e-5))
    (row,) = audit_pydp(only="epsilon=40.0, delta")
    assert row.delta == float(1 - keep[1])


def test_pre_threshold_counts_are_never_kept():
    (case,) = cases("pre_threshold=5")
    keep = keep_probabilities(case)
    assert keep[:5] == [0] * 5 and keep[5] == F(1e-5) + F(math.ulp(1e-5))
    assert draw_counts(case, 4, 2000) == {False: 2000}


def test_hockey_stick_decisions():
    p, q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 4), 1: F(3, 4)}
    assert hockey_stick_exceeds(p, q, 0.0, 0.25 - 2**-50) and not hockey_stick_exceeds(p, q, 0.0, 0.25)
    # e^0.5 = 1.6487...: 1/2 - e^0.5 / 4 = 0.0878...
    assert hockey_stick_exceeds(p, q, 0.5, 0.0878) and not hockey_stick_exceeds(p, q, 0.5, 0.0879)


def test_library_draws_agree_with_the_model():
    (row,) = audit_pydp(sample=20_000, only="epsilon=0.1, delta", processes=1)
    assert [s.draws for s in row.samples] == [20_000, 20_000] and row.model_agrees


def test_command_line(capsys, monkeypatch):
    assert main(["audit", "pydp", "--only", "epsilon=5.0, delta", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    (r,) = out["rows"]
    assert out["library"] == "pydp" and r["verdict"] == "VIOLATED" and r["claimed_delta"] == 1e-5 > 0
    assert r["delta"] > r["claimed_delta"] and r["epsilon"] == "inf"
    assert main(["audit", "pydp", "--only", "Gaussian"]) == 0
    assert "claimed delta" in capsys.readouterr().out
    assert main(["audit", "pydp", "--only", "nosuch"]) == 2
    assert "no case of the python-dp audit matches 'nosuch'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pydp.algorithms", None)
    with pytest.raises(WmcdpError, match=r"needs python-dp: pip install 'wmcdp\[pydp\]'"):
        audit_pydp(only="Laplace")


@pytest.mark.parametrize("label", ["epsilon=1.0, delta=1e-16,", "max_partitions_contributed=2"])
def test_report_script_runs_with_the_library_alone(tmp_path, label):
    """The report's script, with wmcdp unimportable, computes the witness pair's delta at the claimed epsilon from
    the library's probability_of_keep; it agrees with the brute force above (one partition) or with the product
    of the two partitions' keep bits (two), and says VIOLATED."""
    from reports import script_output

    assert main(["audit", "pydp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    text = path.read_text()
    assert "breaks its claimed (epsilon, delta)" in text
    lines = script_output(text, alone=True)
    (case,) = cases(label)
    keep = [F(0)] + [uniform_double_cdf(float(case.spec.build().probability_of_keep(n))) for n in range(1, 60)]
    if case.spec.partitions == 1:
        expected = brute_delta(keep, case.spec.epsilon)
    else:  # one user in both partitions: counts (1, 1) against (0, 0); only "both dropped" is possible under (0, 0)
        mpmath.mp.dps = 60
        k = mpmath.mpf(keep[1].numerator) / keep[1].denominator
        expected = 1 - (1 - k) ** 2  # every output but "both dropped" has probability 0 under (0, 0)
    got = mpmath.mpf(lines[-3].split("= ")[1])
    assert abs(got - expected) <= expected * mpmath.mpf(10) ** -25 and lines[-1] == "VIOLATED"


@pytest.mark.parametrize("kind", ["Laplace", "Gaussian"])
def test_declared_models_are_sampled_across_their_transition(kind):
    """The Laplace and Gaussian strategies' noise is added in C++: their models are the stated keep probabilities,
    tested against should_keep at every count of the transition (1 % .. 99 %), where the draws have power; a model
    shifted by one user fails there, the right one passes."""
    pytest.importorskip("scipy")
    from wmcdp.audit.core import check_model
    from wmcdp.audit.pydp import sampled_counts

    (case,) = cases(f"{kind}PartitionSelection")
    keep = keep_probabilities(case)
    counts = sampled_counts(case, keep, (1, 0))
    assert counts[0] == 1 and all(F(1, 100) <= keep[n] <= F(99, 100) for n in counts[1:]) and len(counts) >= 8
    middle = min(counts, key=lambda n: abs(keep[n] - F(1, 2)))
    drawn = draw_counts(case, middle, 20_000)
    assert check_model("n", {True: float(keep[middle]), False: float(1 - keep[middle])}, drawn, 1e-6).agrees
    shifted = keep[middle + 1]
    assert not check_model("n", {True: float(shifted), False: float(1 - shifted)}, drawn, 1e-6).agrees
    (exact,) = cases("epsilon=0.1, delta")
    assert sampled_counts(exact, keep_probabilities(exact), (201, 200)) == [200, 201]  # the sampler's own model


def test_every_violated_case_has_a_script():
    rows = audit_pydp()
    assert (
        sum(r.verdict == "VIOLATED" for r in rows) == 8 + 12 + 5
    )  # the partition strategies, the integer noise, floats
    assert all((r.reproducer is not None) == (r.verdict == "VIOLATED") for r in rows)
    assert all("wmcdp" not in r.reproducer for r in rows if r.reproducer)
