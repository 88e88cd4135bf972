"""The OpenDP audit: models against independent enumerations, verdicts against closed forms, the CLI.

Tests that run OpenDP skip without it (``pip install -e '.[audit]'``); the models' tests and the
error tests do not need it. Every expected number is computed here from OpenDP's documented
sampling procedure, never taken from wmcdp's output.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

from brute import distribution, flip
from wmcdp.programs.opendp import (INTEGER_TYPES, opendp_geometric_bounded, opendp_noisy_max, opendp_probability,
                             opendp_rr_bitvec, opendp_rr_bitvec_lengths, opendp_rr_bool, opendp_rr_categorical)
from wmcdp import inference
from wmcdp.audit.opendp import SampleCheck, verdict
from wmcdp.cli import main


def _model(program, x, support, exact="binary"):
    """wmcdp's ``P(y | x)`` on ``support``; exact runs must put all the mass there."""
    table = inference(program, [(x, y) for y in support], exact=exact)
    out = {y: table.probability(x, y) for y in support}
    if exact:
        assert sum(out.values()) == 1
    return out


def _choose_uniform(choose, values):
    return choose({v: Fraction(1, len(values)) for v in values})


# -- the models against an enumeration of OpenDP's sampling steps ------------------------------

@pytest.mark.parametrize("prob", [0.75, 0.6, 0.5, 1.0])
def test_rr_bool_model(prob):
    def reference(x, choose):  # arg ^ !bernoulli(prob)
        return x[0] ^ (1 - flip(choose, Fraction(prob)))

    for x in [(0,), (1,)]:
        want = distribution(reference, x)
        assert _model(opendp_rr_bool(prob), x, list(want)) == want


@pytest.mark.parametrize("t, prob", [(2, 0.5), (3, 1 / 3), (4, 0.25), (5, 0.9)])
def test_rr_categorical_model(t, prob):
    def reference(x, choose):  # mod.rs:136-156, with input t standing for a value that is not a category
        member = x[0] < t
        if member:
            k = _choose_uniform(choose, range(t - 1))
            lie = k + (k >= x[0])
        else:
            lie = _choose_uniform(choose, range(t))
        honest = flip(choose, Fraction(prob))
        return x[0] if honest and member else lie

    for x in [(v,) for v in range(t + 1)]:
        want = distribution(reference, x)
        assert _model(opendp_rr_categorical(t, prob), x, list(range(t))) == {y: want.get(y, 0) for y in range(t)}


def test_rr_bitvec_model():
    f = 0.3

    def reference(x, choose):  # every bit XOR bernoulli(f / 2)
        return tuple(b ^ flip(choose, Fraction(f) / 2) for b in x)

    for x in [(0, 0, 0, 0), (1, 0, 1, 1)]:
        want = distribution(reference, x)
        assert _model(opendp_rr_bitvec(4, 2, f), x, list(want)) == want


def test_rr_bitvec_lengths_model():
    n, f = 2, 0.5

    def reference(x, choose):  # an all-zero input of n or 2n bits; the output has its length
        length = 2 * n if x[0] else n
        bits = tuple(flip(choose, Fraction(f) / 2) for _ in range(length))
        return (length,) + bits + (0,) * (2 * n - length)

    for x in [(0,), (1,)]:
        want = distribution(reference, x)
        assert _model(opendp_rr_bitvec_lengths(n, 1, f), x, list(want)) == want


def _geometric_reference(lower, upper, scale, T):
    """One attempt of sample_discrete_laplace_linear (geometric/mod.rs:132-172, 44-94): a fair direction,
    ``upper - lower`` Bernoulli(p) trials, steps saturating at the type's bounds, rejection of a negative
    zero; the accepted outputs' distribution is the attempt's, conditioned on acceptance."""
    p = opendp_probability(scale)
    tmin, tmax = INTEGER_TYPES[T]

    def attempt(x, choose):
        value = min(max(x[0], lower), upper)
        positive = flip(choose, Fraction(1, 2))
        g = 0
        while g < upper - lower and not flip(choose, p):
            g += 1
        sample = min(value + g, tmax) if positive else max(value - g, tmin)
        if not positive and sample == value:
            return "rejected"
        return min(max(sample, lower), upper)

    def accepted(x):
        d = distribution(attempt, x)
        d.pop("rejected", None)
        total = sum(d.values())
        return {y: w / total for y, w in d.items()}
    return accepted


@pytest.mark.parametrize("lower, upper, scale, T", [(0, 3, 2.0, "i32"), (0, 3, 10.0, "u32"), (-2, 1, 0.5, "i32"),
                                                   (-(2 ** 31), -(2 ** 31) + 2, 3.0, "i32"), (4, 4, 1.0, "u32")])
def test_geometric_bounded_model(lower, upper, scale, T):
    reference = _geometric_reference(lower, upper, scale, T)
    program = opendp_geometric_bounded(lower, upper, scale, 1, T)
    for v in range(lower, upper + 1):
        want = reference((v,))
        assert _model(program, (v,), list(range(lower, upper + 1))) == {y: want.get(y, 0) for y in
                                                                         range(lower, upper + 1)}


def _exp_up(x):
    """The double just at or above e^x (x a double), from 60-digit arithmetic."""
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(x))
        d = float(e)
        return d if mpmath.mpf(d) >= e else math.nextafter(d, math.inf)


def _opendp_p(scale):
    """1 -(down) exp_up(-fl(1/scale)) as an exact Fraction (geometric/mod.rs:133)."""
    exact = 1 - Fraction(_exp_up(-(1.0 / scale)))
    d = float(exact)
    return Fraction(d if Fraction(d) <= exact else math.nextafter(d, -math.inf))


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0, 10.0, 2.8853900817779268, 1e6])
def test_opendp_probability(scale):
    assert opendp_probability(scale) == _opendp_p(scale)


def _pf_reference(scale):
    def mechanism(x, choose):  # noisy_top_k/mod.rs:235-261: visit in a random order, accept with exp(-gap/scale)
        remaining = list(range(len(x)))
        best = max(x)
        while remaining:
            i = remaining.pop(_choose_uniform(choose, range(len(remaining))))
            if flip(choose, math.exp(-(best - x[i]) / scale)):
                return i
        raise AssertionError("the best candidate always accepts")
    return mechanism


@pytest.mark.parametrize("n, top, scale", [(3, 3, 1.0), (2, 4, 2.0)])
def test_noisy_max_model(n, top, scale):
    program = opendp_noisy_max(n, top, scale)
    for x in [(0,) * n, (0, 1, 3)[:n], (3, 1, 1)[:n]]:
        want = distribution(_pf_reference(scale), x)
        got = _model(program, x, list(range(n)), exact=False)
        assert got == pytest.approx({y: float(want.get(y, 0)) for y in range(n)}, rel=1e-12, abs=1e-15)


def test_models_run_from_the_command_line(capsys):
    assert main(["privacy", "opendp_rr_bool", "-p", "prob=0.75", "--exact-floats", "--json"]) == 0
    assert Fraction(json.loads(capsys.readouterr().out)["ratio_exact"]) == 3
    assert main(["programs"]) == 0
    listed = capsys.readouterr().out
    for name in ["opendp_rr_bool", "opendp_rr_categorical", "opendp_rr_bitvec", "opendp_rr_bitvec_lengths",
                 "opendp_geometric_bounded", "opendp_noisy_max"]:
        assert f"\n{name}(" in listed


# -- verdicts ---------------------------------------------------------------------------------

def test_verdict_rules():
    assert verdict(math.log(3), Fraction(3), math.log(3), True) == "tight"
    assert verdict(math.nextafter(math.log(3), 0), Fraction(3), math.log(3), True) == "VIOLATED"
    assert verdict(math.log(3) + 5 * math.ulp(math.log(3)), Fraction(3), math.log(3), True) == "loose"
    assert verdict(0.0, Fraction(3, 2), math.log(1.5), True) == "VIOLATED"
    assert verdict(1.0, math.inf, math.inf, True) == "VIOLATED"
    assert verdict(2.0, 2.0, math.log(2.0), False) == "loose"


def test_chi_square_rejects_a_wrong_model():
    pytest.importorskip("scipy")
    from wmcdp.audit.opendp import check_model

    fair = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert not check_model("x", fair, Counter({0: 900, 1: 100}), 1e-3).agrees
    assert check_model("x", fair, Counter({0: 510, 1: 490}), 1e-3).agrees
    assert not check_model("x", {0: Fraction(1)}, Counter({0: 999, 1: 1}), 1e-3).agrees  # impossible output


# -- the audit against closed forms (needs opendp) --------------------------------------------

def _row(only):
    pytest.importorskip("opendp")
    from wmcdp.audit.opendp import audit_opendp

    (row,) = audit_opendp(only=only)
    return row


def _claim(build):
    pytest.importorskip("opendp")
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return build(dp)


def test_rr_categorical_one_third_is_violated():
    p = Fraction(1 / 3)  # the double OpenDP accepts as prob = 1/3
    lie = (1 - p) / 2
    assert lie / p == Fraction(12009599006321323, 12009599006321322)
    claim = _claim(lambda dp: dp.m.make_randomized_response(["a", "b", "c"], prob=1 / 3).map(1))
    assert claim == 0.0 and lie / p > 1  # ln(lie / p) > 0 = the claim
    row = _row("make_randomized_response t=3, prob=1/3")
    assert row.claimed == claim and Fraction(row.ratio_exact) == lie / p
    assert row.epsilon == pytest.approx(math.log1p(float(lie / p - 1)), rel=1e-12)
    assert row.verdict == "VIOLATED"
    assert row.witness[2] == row.witness[1] != row.witness[0]  # the lie y = x' is likelier from x than the truth


def test_rr_bool_is_tight():
    p = Fraction(0.6)
    ratio = p / (1 - p)
    assert ratio == Fraction(5404319552844595, 3602879701896397)
    claim = _claim(lambda dp: dp.m.make_randomized_response_bool(0.6).map(1))
    exact = mpmath.log(mpmath.mpf(ratio.numerator) / ratio.denominator)
    assert 0 <= mpmath.mpf(claim) - exact <= 4 * math.ulp(claim)
    row = _row("make_randomized_response_bool prob=0.6")
    assert Fraction(row.ratio_exact) == ratio and row.verdict == "tight"


def test_bitvec_is_loose():
    flip_probability = Fraction(0.5) / 2  # each bit flips with f / 2
    per_bit = (1 - flip_probability) / flip_probability
    assert per_bit == 3
    claim = _claim(lambda dp: dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=5),
                                                                   dp.discrete_distance(), 0.5).map(1))
    assert claim == pytest.approx(10 * math.log(3), rel=1e-15)  # 2 * max_weight * ln 3
    row = _row("make_randomized_response_bitvec 8 bits, max_weight=5")
    assert Fraction(row.ratio_exact) == per_bit ** 8  # two weight-5 vectors of 8 bits differ in at most 8 bits
    assert row.verdict == "loose"


def test_geometric_at_the_type_minimum_is_violated():
    alpha = 1 - _opendp_p(10.0)
    # x = 0 = u32::MIN only moves up: P(0 | 0) = 1 - alpha; x' = 1 reaches 0 by any accepted move down:
    # P(down accepted) = alpha / (1 + alpha), so P(0 | 1) / P(0 | 0) = alpha / (1 - alpha^2)
    ratio = alpha / (1 - alpha ** 2)
    claim = _claim(lambda dp: dp.m.make_geometric(dp.atom_domain(T="u32"), dp.absolute_distance(T="u32"),
                                                  scale=10.0, bounds=(0, 5)).map(1))
    assert claim == 0.1 < math.log(ratio)
    row = _row("make_geometric T=u32, bounds=(0, 5), scale=10.0")
    assert Fraction(row.ratio_exact) == ratio and row.witness == ("1", "0", "0")
    assert row.verdict == "VIOLATED"


# -- the command line -------------------------------------------------------------------------

def test_cli_exit_status_and_formats(capsys):
    pytest.importorskip("opendp")
    assert main(["audit", "opendp", "--only", "t=3, prob=1/3"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATED" in out and "1 cases: 0 tight, 0 loose, 1 VIOLATED" in out
    assert main(["audit", "opendp", "--only", "make_randomized_response_bool", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| mechanism | parameters | d_in | claimed eps | exact eps | verdict |")
    assert lines[1].startswith("| --- |") and len([line for line in lines if line.startswith("| make_")]) == 3


def test_cli_json_with_sampling(capsys):
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    assert main(["audit", "opendp", "--only", "make_randomized_response_bool prob=0.75", "--sample", "3000",
                 "--level", "1e-9", "--json"]) == 0  # the model is right: at 1e-9, no false alarms
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"schema", "command", "program", "label", "params", "neighbours", "exact",
                         "library", "version", "sample", "level", "rows", "violated", "negligible", "model_failures"}
    assert (data["schema"], data["command"], data["exact"]) == ("wmcdp/1", "audit", True)
    jsonschema = pytest.importorskip("jsonschema")
    from wmcdp.report.schema import json_schema

    jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)
    (row,) = data["rows"]
    assert set(row) == {"mechanism", "params", "d_in", "claimed", "epsilon", "ratio_exact", "verdict", "witness",
                        "seconds", "samples", "model_agrees", "witness_probabilities", "neighbours"}
    assert row["ratio_exact"] == "3" and row["witness"] == {"x": "False", "x_prime": "True", "y": "False"}
    assert row["witness_probabilities"] == ["3/4", "1/4"]  # P(False | False) keeps, P(False | True) flips
    assert [s["input"] for s in row["samples"]] == ["False", "True"]
    assert all(s["draws"] == 3000 and 0 <= s["p_value"] <= 1 for s in row["samples"])


def test_sampling_in_this_process():
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    from wmcdp.audit.opendp import audit_opendp

    (row,) = audit_opendp(sample=2500, level=1e-9, only="make_randomized_response t=5", processes=1)  # no false alarms
    assert [s.draws for s in row.samples] == [2500, 2500] and row.model_agrees


def test_cli_failed_model_check_exits_1(capsys, monkeypatch):
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    import wmcdp.audit.core as module  # every audit's model checks run there

    monkeypatch.setattr(module, "check_model",
                        lambda shown, expected, counts, level: SampleCheck(shown, 10, 99.0, 1, 0.0, level))
    assert main(["audit", "opendp", "--only", "prob=0.75", "--sample", "10"]) == 1
    assert "FAILS (p = 0, 0)" in capsys.readouterr().out


def test_cli_errors_are_one_line(capsys, monkeypatch):
    assert main(["audit", "opendp", "--only", "nosuch"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("wmcdp: error: no case of the OpenDP audit matches 'nosuch'; the mechanisms are ")
    monkeypatch.setitem(sys.modules, "opendp", None)  # as if it were not installed
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    assert main(["audit", "opendp"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "wmcdp: error: the OpenDP audit needs opendp: pip install 'wmcdp[audit]'\n"


def test_only_selects_by_label():
    from wmcdp.audit.opendp import cases

    labels = [f"{c.mechanism} {c.params}" for c in cases()]
    assert len(labels) == len(set(labels))  # --only can pick any one case
    chosen = [f"{c.mechanism} {c.params}" for c in cases("make_geometric")]
    assert chosen == [label for label in labels if label.startswith("make_geometric ")]


# -- the discrete Laplace on integer types (make_geometric without bounds, make_laplace) -------------

def _saturated_laplace(T, scale, x, low, high):
    """P(y | x) for y in low..high and the mass below and above, by summing the discrete Laplace's pmf
    tanh(1 / 2s) e^(-|z| / s) over z (far past where it matters) and casting x + z saturating into T."""
    from wmcdp.audit.opendp import ABOVE, BELOW, INTEGER_RANGES

    lower, upper = INTEGER_RANGES[T]
    s = mpmath.mpf(Fraction(scale).numerator) / Fraction(scale).denominator
    reach = int(300 * scale) + 50
    out = Counter()
    for z in range(-reach, reach + 1):
        y = min(max(x + z, lower), upper)
        key = BELOW if y < low else ABOVE if y > high else y
        out[key] += mpmath.tanh(1 / (2 * s)) * mpmath.exp(-abs(z) / s)
    return out


@pytest.mark.parametrize("T, scale, inputs", [("u32", 3.0, (0, 1)), ("i32", 0.1, (2**31 - 4, 2**31 - 1)),
                                              ("i32", 0.7, (-3, 1))])
def test_discrete_laplace_model_against_the_pmf(T, scale, inputs):
    from wmcdp.audit.opendp import IntegerLaplace, discrete_laplace_outputs

    spec = IntegerLaplace(T, scale, inputs, lambda dp: None)
    low, high = spec.window
    with mpmath.workdps(60):
        for x, dist in zip(inputs, discrete_laplace_outputs(spec)):
            want = _saturated_laplace(T, scale, x, low, high)
            assert set(dist) == {k for k, p in want.items() if p > 0}
            for y, p in dist.items():
                mid, rad = p.enclosure(200)
                assert abs(mpmath.mpf(mid.numerator) / mid.denominator - want[y]) <= want[y] * mpmath.mpf(2) ** -150


def test_discrete_laplace_is_tight_at_d_over_scale():
    """OpenDP's map claims d_in / scale rounded up (f64::inf_cast of the rational); the exact epsilon is
    d_in / scale for the binary64 scale: 3 / 0.1000000000000000055... = 29.99999999999999833..., claimed as 30.0."""
    exact = Fraction(3) / Fraction(0.1)
    claim = _claim(lambda dp: dp.m.make_laplace(dp.atom_domain(T="i32"), dp.absolute_distance(T="i32"),
                                                scale=0.1).map(3))
    assert claim == 30.0 and 0 < Fraction(claim) - exact < Fraction(math.ulp(30.0))
    row = _row("make_laplace T=i32, no bounds, scale=0.1")
    assert row.claimed == claim and row.verdict == "tight" and row.ratio_exact is None
    assert exact <= Fraction(row.epsilon) <= exact * (1 + Fraction(1, 2**49))  # the enclosure's upper end
    assert row.witness[:2] == (str(2**31 - 1), str(2**31 - 4))  # the saturated output: e^30 as well


def test_discrete_laplace_model_matches_opendp_and_a_wrong_scale_does_not():
    pytest.importorskip("opendp")
    from dataclasses import replace

    from wmcdp.audit.opendp import audit_opendp, cases, check_model, discrete_laplace_outputs, draw_counts

    (row,) = audit_opendp(sample=20000, level=1e-9, only="make_geometric T=u32, no bounds", processes=1)
    assert row.verdict == "tight" and row.model_agrees and len(row.samples) == 2
    (case,) = cases("make_geometric T=u32, no bounds")
    # 20 % off: a chi-square noncentrality near 240 at 20 000 draws, detected with probability 1 - 1e-12
    wrong = discrete_laplace_outputs(replace(case.spec, scale=3.6))[0]
    counts = draw_counts(case, 0, 20000)
    assert not check_model("0", {y: float(p) for y, p in wrong.items()}, counts, 1e-9).agrees


# -- noisy top-k (k > 1) under max divergence: peeled permute-and-flip ------------------------------

def _pf_steps(scores, s, remaining):
    """OpenDP's permute_and_flip step by step (mpmath): the next candidate uniform among those not visited,
    accepted with e^(-(max - x) / s); ``{index: probability}``."""
    out = Counter()
    best = max(scores)
    for c in remaining:
        pick = mpmath.mpf(1) / len(remaining)
        a = mpmath.exp(-(best - scores[c]) / s)
        out[c] += pick * a
        if a < 1:
            rest = [d for d in remaining if d != c]
            for d, p in _pf_steps(scores, s, rest).items():
                out[d] += pick * (1 - a) * p
    return out


def _top_k_enumerated(scores, scale, k):
    """peel_permute_and_flip: k rounds, each on the scores left, indices as released (mpmath, 60 digits)."""
    if k == 0:
        return {(): mpmath.mpf(1)}
    s = mpmath.mpf(Fraction(scale).numerator) / Fraction(scale).denominator
    out = {}
    for i, p in _pf_steps(scores, s, list(range(len(scores)))).items():
        rest = scores[:i] + scores[i + 1:]
        for tail, q in _top_k_enumerated(rest, scale, k - 1).items():
            out[(i,) + tuple(j + (j >= i) for j in tail)] = p * q
    return out


@pytest.mark.parametrize("scores, scale, k", [((0, 2, 1), 1.0, 2), ((1, 1, 0), 0.7, 3), ((3, 0, 1, 3), 2.0, 2)])
def test_noisy_top_k_model_against_the_sampler_steps(scores, scale, k):
    from wmcdp.audit.opendp import noisy_top_k_outputs

    with mpmath.workdps(60):
        want = _top_k_enumerated(scores, scale, k)
        got = noisy_top_k_outputs(scores, Fraction(scale), k)
        assert set(got) == set(want) and mpmath.fsum(want.values()) == pytest.approx(1, abs=1e-50)
        for y, p in got.items():
            mid, _ = p.enclosure(200)
            assert abs(mpmath.mpf(mid.numerator) / mid.denominator - want[y]) <= want[y] * mpmath.mpf(2) ** -150


def test_noisy_top_k_against_every_neighbouring_pair():
    """k = 2 of 3 scores in 0..2, scale 1, non-monotonic: OpenDP claims k * 2 d_in / scale = 4; the tight
    epsilon is the largest log-ratio over every pair of score vectors at L-infinity distance 1 and every output,
    enumerated here (about 3.64: the claim is loose)."""
    import itertools

    claim = _claim(lambda dp: dp.m.make_noisy_top_k(dp.vector_domain(dp.atom_domain(T="i32"), size=3),
                                                    dp.linf_distance(T="i32"), dp.max_divergence(), 2, 1.0).map(1))
    assert claim == 4.0
    with mpmath.workdps(60):
        xs = list(itertools.product(range(3), repeat=3))
        dists = {x: _top_k_enumerated(x, 1.0, 2) for x in xs}
        worst = max(mpmath.log(dists[x][y] / dists[z][y]) for x in xs for z in xs
                    if x != z and max(abs(a - b) for a, b in zip(x, z)) <= 1 for y in dists[x])
    row = _row("make_noisy_top_k k=2 of 3 scores in 0..2, scale=1.0, monotonic=False")
    assert row.claimed == claim and row.verdict == "loose" and row.ratio_exact is None
    assert worst <= mpmath.mpf(row.epsilon) <= worst * (1 + mpmath.mpf(2) ** -48)
    assert 3.6 < worst < 3.7


def test_noisy_top_k_model_matches_opendp():
    pytest.importorskip("opendp")
    from wmcdp.audit.opendp import audit_opendp

    (row,) = audit_opendp(sample=20000, level=1e-9, only="make_noisy_top_k k=2 of 3 scores in 0..2, scale=2.0",
                          processes=1)
    assert row.model_agrees and len(row.samples) == 2 and all(s.degrees == 5 for s in row.samples)


# -- the discrete Gaussian on integer types (make_gaussian, make_noise under zCDP) ---------------------

def _gauss_codes(variance, x, base, d, w):
    """P(code | x) of the windowed model, by summing e^(-z^2 / (2 variance)) / Z over z at 60 digits (far past
    the window) and coding x + z: 0 below base - w, then base - w .. base + d + w, then one code above."""
    v = mpmath.mpf(variance.numerator) / variance.denominator
    reach = w + d + 200
    weights = {z: mpmath.exp(-mpmath.mpf(z * z) / (2 * v)) for z in range(-reach - d, reach + 1)}
    total = mpmath.fsum(weights.values())
    out = Counter()
    for z, wt in weights.items():
        out[min(max(x + z - base, -w - 1), d + w + 1) + w + 1] += wt / total
    return out


@pytest.mark.parametrize("T, scale, d", [("i32", 0.7, 2), ("u32", 2.0, 1), ("i64", 3.0, 1)])
def test_discrete_gaussian_model_against_the_pmf(T, scale, d):
    from wmcdp.audit.opendp import IntegerGaussian
    from wmcdp.audit.tmlt import gauss_outputs

    spec = IntegerGaussian(T, scale, d, lambda dp: None)
    assert spec.variance == Fraction(scale) ** 2 and spec.base == (0 if T != "u32" else spec.window + 1)
    with mpmath.workdps(60):
        for x, dist in zip(spec.inputs, gauss_outputs(spec.variance, d)):
            want = _gauss_codes(spec.variance, x, spec.base, d, spec.window)
            assert set(dist) == set(want)
            for y, p in dist.items():
                mid, _ = p.enclosure(200)
                assert abs(mpmath.mpf(mid.numerator) / mid.denominator - want[y]) <= want[y] * mpmath.mpf(2) ** -150


def test_discrete_gaussian_claim_is_tight():
    """OpenDP's map claims (d_in / scale)^2 / 2 rounded up (f64::inf_cast); the tight rho of a discrete Gaussian of
    variance scale^2 shifted by d_in is d_in^2 / (2 scale^2) (CKS20, Prop. 5) at the binary64 scale."""
    exact = Fraction(4) / (2 * Fraction(0.7) ** 2)
    claim = _claim(lambda dp: dp.m.make_gaussian(dp.atom_domain(T="i32"), dp.absolute_distance(T="i32"),
                                                 scale=0.7).map(2))
    assert 0 <= Fraction(claim) - exact < Fraction(math.ulp(claim))
    row = _row("make_gaussian T=i32, zCDP, scale=0.7")
    assert row.claimed == claim and row.verdict == "tight" and row.witness == ("0", "2", "rho (zCDP)")
    assert exact <= Fraction(row.epsilon) <= exact + Fraction(math.ulp(row.epsilon))


def test_discrete_gaussian_claim_below_the_tight_rho_is_violated():
    """The verdict from the certified enclosure: a claim one ulp under the tight rho is violated."""
    from wmcdp.audit.opendp import cases
    from wmcdp.audit.tmlt import discrete_gaussian_row

    (case,) = cases("make_gaussian T=i32, zCDP, scale=1.0")
    below = math.nextafter(0.5, 0)
    row, _ = discrete_gaussian_row(case, case.params, case.spec.variance, below, (below, below), ("0", "1"))
    assert row.verdict == "VIOLATED"
    row, _ = discrete_gaussian_row(case, case.params, case.spec.variance, 0.5, (0.5, 0.5), ("0", "1"))
    assert row.verdict == "tight"


def test_discrete_gaussian_model_matches_opendp_and_a_wrong_scale_does_not():
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    from dataclasses import replace

    from wmcdp.audit.opendp import audit_opendp, cases, check_model, draw
    from wmcdp.audit.tmlt import gauss_outputs

    rows = audit_opendp(sample=2000, level=1e-9, only="zCDP", processes=1)
    assert len(rows) == 5 and all(r.verdict == "tight" and r.model_agrees for r in rows)
    assert [r.mechanism for r in rows] == ["make_gaussian"] * 4 + ["make_noise"]
    (case,) = cases("make_gaussian T=i32, zCDP, scale=1.0")
    wrong = replace(case.spec, scale=1.3)  # 30 % off: a chi-square noncentrality in the hundreds at 10 000 draws
    want = {y: float(p) for y, p in gauss_outputs(wrong.variance, 1)[0].items()}
    dp = _claim(lambda dp: dp)
    counts = Counter(wrong.from_opendp(y) for y in draw(dp, case.spec.build(dp), 0, 10000))
    assert not check_model("0", want, counts, 1e-9).agrees


# -- reports of violated claims: scripts that run with OpenDP alone ----------------------------------

def _report_lines(tmp_path, label, alone=False):
    pytest.importorskip("opendp")
    from reports import script_output

    assert main(["audit", "opendp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    return path.read_text(), script_output(path.read_text(), alone)


def test_randomized_response_report_runs_with_opendp_alone(tmp_path):
    """x = c0, x' = c1, y = c1: P(y | x) = (1 - p) / 2 for the lie, P(y | x') = p for the truth, p the double 1/3."""
    p = Fraction(1 / 3)
    text, lines = _report_lines(tmp_path, "make_randomized_response t=3, prob=1/3", alone=True)
    assert f"- **P(y | x)** = {(1 - p) / 2}" in text and f"- **P(y | x')** = {p}" in text
    assert "the privacy map at d_in = 1: 0.0" in lines and f"exact ratio: {(1 - p) / 2 / p}" in lines
    assert lines[-1] == "VIOLATED"


def test_bitvec_lengths_report_runs_with_opendp_alone(tmp_path):
    """The all-zero byte x keeps its 8 bits each with probability 1 - f/2 = 3/4; the 16-bit x' never answers 8 bits."""
    text, lines = _report_lines(tmp_path, "make_randomized_response_bitvec 8 or 16 bits")
    assert f"P(y | x)  = {Fraction(3, 4) ** 8}" in lines and "P(y | x') = 0" in lines
    assert "output lengths in bytes under x' in 1000 runs: {2: 1000}" in lines
    assert lines[-1].startswith("VIOLATED: y is impossible under x'")


def test_geometric_report_shows_the_frequency(tmp_path):
    """OpenDP's own draws: P(0 | 1) / P(0 | 0) = alpha / (1 - alpha^2), about e^1.6, against the claim 0.1: at
    2 10^4 draws each the log of the frequency ratio has a standard error near 0.025."""
    alpha = 1 - _opendp_p(10.0)
    text, lines = _report_lines(tmp_path, "make_geometric T=u32, bounds=(0, 5), scale=10.0")
    assert f"- **P(y | x)** = {alpha / (1 + alpha)}" in text and f"- **P(y | x')** = {1 - alpha}" in text
    log = float(lines[-2].split("= ")[1].split(" ")[0])
    assert abs(log - math.log(alpha / (1 - alpha ** 2))) < 0.2 and lines[-1] == "VIOLATED"


# -- make_laplace_threshold / make_noise_threshold on counts: (epsilon, delta) -------------------------

def _laplace_at_least(m, scale):
    """P(Z >= m) for the discrete Laplace at scale, by summing its pmf (60 digits, far past where it matters)."""
    s = mpmath.mpf(Fraction(scale).numerator) / Fraction(scale).denominator
    return mpmath.fsum(mpmath.tanh(1 / (2 * s)) * mpmath.exp(-abs(z) / s) for z in range(m, m + int(400 * scale) + 50))


def test_threshold_model_against_the_pmf():
    """P(dropped | n) = P(n + Z < threshold), P(c | n) = pmf(c - n) for threshold <= c <= top, the rest above top;
    an absent key is never released."""
    from wmcdp.audit.opendp import ABSENT, DROPPED, NoiseThreshold, threshold_outputs

    spec = NoiseThreshold(0.7, 3, (1, 1, 1), lambda dp: None)
    s = mpmath.mpf(Fraction(0.7).numerator) / Fraction(0.7).denominator
    with mpmath.workdps(60):
        for x, dist in zip(spec.inputs, threshold_outputs(spec)):
            if x == ABSENT:
                assert set(dist) == {DROPPED} and dist[DROPPED].enclosure(100)[0] == 1
                continue
            want = {DROPPED: 1 - _laplace_at_least(3 - x, 0.7), spec.top + 1: _laplace_at_least(spec.top + 1 - x, 0.7)}
            want.update({c: mpmath.tanh(1 / (2 * s)) * mpmath.exp(-abs(c - x) / s) for c in range(3, spec.top + 1)})
            assert set(dist) == set(want)
            for y, p in dist.items():
                mid, _ = p.enclosure(200)
                assert abs(mpmath.mpf(mid.numerator) / mid.denominator - want[y]) <= want[y] * mpmath.mpf(2) ** -150


def test_threshold_neighbours_follow_opendps_metric():
    """l01inf_distance reads a missing key as 0: {} and {"a": 0} are at distance 0, {} and {"a": 1} at (1, 1, 1)."""
    from wmcdp.audit.opendp import ABSENT, NoiseThreshold

    one, none = NoiseThreshold(1.0, 5, (1, 1, 1), None), NoiseThreshold(1.0, 5, (0, 0, 0), None)
    assert one.neighbours(ABSENT, 0) and one.neighbours(ABSENT, 1) and one.neighbours(3, 4)
    assert not one.neighbours(ABSENT, 2) and not one.neighbours(1, 3) and not one.neighbours(2, 2)
    assert none.neighbours(ABSENT, 0) and none.neighbours(0, ABSENT) and not none.neighbours(ABSENT, 1)
    assert NoiseThreshold(1.0, 5, (1, 2, 2), None).neighbours(ABSENT, 2)


@pytest.mark.parametrize("d_in, n", [((1, 1, 1), 1), ((0, 0, 0), 0), ((1, 2, 2), 2)])
def test_threshold_delta_is_the_release_of_a_key_against_none(d_in, n):
    """The worst pair is {"a": n} against {} (never released): delta(epsilon) = P(Z >= threshold - n), at least
    e^(1/scale) times the claimed P(Z > threshold - l_inf) (0 at d_in = 0): VIOLATED."""
    pytest.importorskip("opendp")
    from wmcdp.audit.opendp import audit_opendp

    (row,) = audit_opendp(only=f"scale=1.0, threshold=5, d_in={d_in}")
    claim = _claim(lambda dp: dp.m.make_laplace_threshold(dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i32")),
                                                          dp.l01inf_distance(dp.absolute_distance(T="i32")),
                                                          scale=1.0, threshold=5).map(d_in))
    with mpmath.workdps(60):
        exact = _laplace_at_least(5 - n, 1.0)
    assert (row.claimed, row.claimed_delta) == claim and row.verdict == "VIOLATED"
    assert row.delta == pytest.approx(float(exact), rel=1e-12) and exact > claim[1]
    assert {row.witness[0], row.witness[1]} == {"{}", repr({"a": n})} and row.epsilon == math.inf
    if n:
        assert claim[1] == pytest.approx(float(_laplace_at_least(6 - n, 1.0)), rel=1e-12)  # one step further out


def test_threshold_model_matches_opendp_and_its_report_runs_alone(tmp_path):
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    from wmcdp.audit.opendp import audit_opendp

    (row,) = audit_opendp(sample=3000, level=1e-9, only="make_noise_threshold", processes=1)
    assert row.verdict == "VIOLATED" and row.model_agrees and len(row.samples) == 2
    text, lines = _report_lines(tmp_path, "scale=1.0, threshold=5, d_in=(1, 1, 1)", alone=True)
    assert "breaks its claimed (epsilon, delta)" in text
    with mpmath.workdps(60):
        printed = mpmath.mpf(lines[1].split("= ")[1].split(" ")[0])
        assert abs(printed - _laplace_at_least(4, 1.0)) < mpmath.mpf(10) ** -30
    released = int(lines[2].split(" in ")[1].split(" ")[0])
    assert 10000 * 0.0134 - 60 < released < 10000 * 0.0134 + 60 and lines[2].endswith("from {} in 0 of 10000")
    assert lines[-1] == "VIOLATED"


# -- make_private_quantile under max divergence ---------------------------------------------------

def test_quantile_scores_and_alpha_constants():
    """score_candidates for an unknown size: |(den - num) #(x < c) - num #(x > c)|, with alpha as the double's own
    fraction when its denominator is below 10 000, else round(alpha * 10 000) / 10 000."""
    from wmcdp.audit.opendp import alpha_fraction, quantile_scores

    assert alpha_fraction(0.5) == (1, 2) and alpha_fraction(0.25) == (1, 4) and alpha_fraction(0.3) == (3000, 10000)
    assert alpha_fraction(1 / 3) == (3333, 10000) and alpha_fraction(0.99995) == (9999 + 1, 10000)
    assert quantile_scores([0, 1, 1, 2], [0, 1, 2], 0.5) == (3, 0, 3)  # c = 1: one below, one above
    assert quantile_scores([0, 1, 1, 2], [0, 1, 2], 0.25) == (3, 2, 9)  # c = 2: 3 * 3 below, none above
    assert quantile_scores([], [0, 5], 0.3) == (0, 0)


def test_quantile_neighbours_add_or_remove_one_value():
    from wmcdp.audit.opendp import PrivateQuantile

    spec = PrivateQuantile((0, 1), 0.5, 1.0, 3, 3)
    assert spec.neighbours((1, 1), (1, 1, 2)) and spec.neighbours((0, 1, 2), (0, 2)) and spec.neighbours((), (2,))
    assert not spec.neighbours((0, 0), (1, 2, 2)) and not spec.neighbours((0,), (1,)) and not spec.neighbours((), (0, 1))
    assert len(spec.inputs) == 20 and len(set(spec.inputs)) == 20  # multisets of at most 3 values of 3


def test_private_quantile_against_every_neighbouring_pair():
    """The model's distributions against OpenDP's permute-and-flip stepped through (mpmath, on the negated scores
    at scale * den), and the tight epsilon against the largest log-ratio over every pair of datasets one value apart
    and every candidate, enumerated here; the claim d_in * 2 * max(num, den - num) / (scale * den) = 1 is tight."""
    import itertools

    from wmcdp.audit.opendp import cases, quantile_outputs

    (case,) = cases("make_private_quantile candidates=[0, 1, 2]")
    spec = case.spec
    datasets = [x for n in range(4) for x in itertools.combinations_with_replacement(range(4), n)]
    with mpmath.workdps(60):
        dists = {}
        for x in datasets:
            scores = [-(abs(sum(v < c for v in x) - sum(v > c for v in x))) for c in (0, 1, 2)]
            dists[x] = {(0, 1, 2)[i]: p for i, p in _pf_steps(scores, mpmath.mpf(2), [0, 1, 2]).items()}
            got = quantile_outputs(spec, x)
            for y, p in got.items():
                mid, _ = p.enclosure(200)
                assert abs(mpmath.mpf(mid.numerator) / mid.denominator - dists[x][y]) <= dists[x][y] * mpmath.mpf(2) ** -150

        def close(a, b):
            return len(b) == len(a) + 1 and any(tuple(sorted(a + (v,))) == b for v in range(4))

        worst = max(mpmath.log(dists[a][y] / dists[b][y]) for a in datasets for b in datasets
                    if close(a, b) or close(b, a) for y in (0, 1, 2))
    row = _row("make_private_quantile candidates=[0, 1, 2]")
    assert row.claimed == 1.0 and row.verdict == "tight"
    assert worst <= mpmath.mpf(row.epsilon) <= worst * (1 + mpmath.mpf(2) ** -48) and abs(worst - 1) < 1e-15


def test_private_quantile_model_matches_opendp():
    pytest.importorskip("opendp")
    pytest.importorskip("scipy")
    from wmcdp.audit.opendp import audit_opendp

    rows = audit_opendp(sample=3000, level=1e-9, only="make_private_quantile candidates", processes=1)
    assert [r.verdict for r in rows] == ["tight", "loose", "loose"] and all(r.model_agrees for r in rows)


def test_private_quantile_scores_are_checked_against_opendps_own(monkeypatch):
    """Every dataset's model scores are compared with OpenDP's make_quantile_score_candidates: a model off by one on
    one dataset stops the audit in one line naming it."""
    pytest.importorskip("opendp")
    import wmcdp.audit.opendp as module

    right = module.quantile_scores
    monkeypatch.setattr(module, "quantile_scores",
                        lambda x, c, a: tuple(s + (list(x) == [1, 3]) for s in right(x, c, a)))
    with pytest.raises(module.WmcdpError, match=r"the model scores \[1, 3\] as \[3, 2, 1\], OpenDP as \[2, 1, 0\]"):
        module.audit_opendp(only="make_private_quantile candidates=[0, 1, 2]")
