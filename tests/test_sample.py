"""Concrete sampling and the statistical cross-check of exact probabilities."""

import json
from fractions import Fraction

import pytest

from wmcdp.programs import PROGRAMS, randomized_response
from wmcdp.cli import main
from wmcdp.notions.sampling import CheckRow, check_probability, crosscheck, sample, wilson_interval


def test_sampling_is_seeded_and_matches_the_closed_form():
    a = sample(randomized_response(2, 0.25), (0, 1), 40_000, seed=7)
    assert a == sample(randomized_response(2, 0.25), (0, 1), 40_000, seed=7)
    # P(y | 01): (3/4)^2 for 01, 1/4 * 3/4 for 00 and 11, 1/16 for 10
    for y, p in {(0, 1): 9 / 16, (0, 0): 3 / 16, (1, 1): 3 / 16, (1, 0): 1 / 16}.items():
        low, high = wilson_interval(a[y], 40_000, 0.999)
        assert low <= p <= high


def test_wilson_interval_contains_the_truth_and_handles_zero():
    assert wilson_interval(0, 1000, 0.999)[0] == 0.0
    low, high = wilson_interval(500, 1000, 0.95)
    assert low < 0.5 < high and high - low == pytest.approx(2 * 1.96 * (0.25 / 1000) ** 0.5, rel=0.01)


def test_crosscheck_rr_agrees():
    r = crosscheck(randomized_response(4, 0.2), k=20_000)
    assert r.agrees
    assert [row.exact for row in r.rows] == [pytest.approx(0.8 ** 4), pytest.approx(0.2 * 0.8 ** 3)]


def test_crosscheck_on_a_buggy_mechanism_confirms_its_larger_epsilon():
    """histogram with the Lap(eps) bug: the exact eps is 1/eps0, and sampling reproduces it."""
    prog = PROGRAMS["histogram_wrong_scale"](n=2, m=2, eps0=0.5)
    r = crosscheck(prog, k=20_000)
    assert r.agrees and r.privacy.epsilon == pytest.approx(2.0)


def test_a_wrong_probability_is_flagged():
    good = check_probability(randomized_response(2, 0.25), (0, 0), (0, 0), Fraction(9, 16), 20_000, 0, 0.999)
    bad = check_probability(randomized_response(2, 0.25), (0, 0), (0, 0), Fraction(8, 16), 20_000, 0, 0.999)
    assert good.agrees and not bad.agrees
    assert not CheckRow((0,), 0.3, 10, 100, 0.05, 0.2).agrees


def test_cli_crosscheck_and_sample(capsys):
    assert main(["crosscheck", "randomized_response", "-p", "n=3", "-p", "lam=0.2", "-k", "20000"]) == 0
    assert "AGREE" in capsys.readouterr().out
    assert main(["crosscheck", "randomized_response", "-p", "n=3", "-p", "lam=0.2", "-k", "5000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agrees"] and len(data["checks"]) == 2
    assert main(["sample", "rr_counting", "-p", "n=3", "-p", "lam=0.2", "--input", "011", "-k", "2000",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(o["count"] for o in data["outputs"]) == 2000 and data["outputs"][0]["y"] == 2


def test_cli_crosscheck_disagreement_exits_1(capsys, monkeypatch):
    import wmcdp.notions.sampling as sample_module
    real = sample_module.check_probability
    monkeypatch.setattr(sample_module, "check_probability",
                        lambda prog, x, y, exact, *a: real(prog, x, y, exact / 2, *a))
    assert main(["crosscheck", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "-k", "5000"]) == 1
    assert "DISAGREE" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "012"], "outside the domain"),
    (["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "0x"], "not a list of integers"),
    (["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "01", "-k", "0"], "must be a whole number >= 1"),
])
def test_cli_sample_errors(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_crosscheck_of_an_infinite_epsilon_agrees():
    """iSVT1 is not private: its witness output has P(y | x') = 0 exactly, which sampling must confirm."""
    r = crosscheck(PROGRAMS["isvt1"](n=3, m=2, T=1, eps0=0.7), k=20_000)
    assert r.privacy.epsilon == float("inf") and r.privacy.p_x_prime == 0
    assert r.rows[1].rule == "never" and r.rows[1].count == 0 and r.agrees


def test_exact_zero_and_one_are_checked_exactly():
    assert CheckRow((0,), Fraction(0), 0, 1000, 0.0, 0.004).agrees
    assert not CheckRow((0,), Fraction(0), 1, 1000, 0.0, 0.005).agrees
    assert CheckRow((0,), Fraction(1), 1000, 1000, 0.996, 1.0).agrees
    assert not CheckRow((0,), Fraction(1), 999, 1000, 0.99, 1.0).agrees
