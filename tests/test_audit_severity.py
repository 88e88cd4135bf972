"""A violated claim's severity against independent values: the delta its claimed epsilon needs and the draws that
show the witness event (closed forms, plain sums of the discrete Gaussian, the exact geometric), the negligible
label below 2^-1000, and the neighbouring notion and source line of the audits' rows and reports."""

import json
import math
from dataclasses import replace
from fractions import Fraction
from importlib.util import find_spec
from pathlib import Path

import mpmath
import pytest

from wmcdp.audit.severity import NEGLIGIBLE_LOG2, draws_to_see, number, severity, shown, verdict_label
from wmcdp.cli import main


def _draws(p):
    """The least n with 1 - (1 - p)^n >= 0.95, by counting (an independent definition of draws_to_see)."""
    n, miss = 0, Fraction(1)
    while 1 - miss < Fraction(95, 100):
        n, miss = n + 1, miss * (1 - p)
    return n


@pytest.mark.parametrize("p", [Fraction(1, 2), Fraction(1, 3), Fraction(3, 100), Fraction(1, 1000), Fraction(1)])
def test_draws_to_see_is_the_least_count_seeing_the_event_with_probability_95_percent(p):
    text, log10 = draws_to_see(number(f"{p.numerator}/{p.denominator}"))
    assert int(text) == _draws(p) and log10 == pytest.approx(math.log10(_draws(p)))


def test_draws_to_see_a_probability_far_below_the_floats():
    """p = 10^-3,643,138 (python-dp's bounded noise) neither underflows nor rounds: n = ln(20) / p."""
    text, log10 = draws_to_see(number("1e-3643138"))
    assert log10 == pytest.approx(3643138 + math.log10(math.log(20)), abs=1e-9)
    assert text == f"{math.log(20):.4g}e+3643138"
    assert draws_to_see(number("0")) == ("inf", math.inf)


def test_shown_numbers():
    assert [shown(number(t)) for t in ("0", "1/4", "0.004567171417803253", "1e-3643138", "3/2")] == [
        "0",
        "0.25",
        "0.004567",
        "1e-3643138",
        "1.5",
    ]
    assert shown(number("9.99999e-7")) == "1e-6"  # a mantissa rounding to 10 moves the exponent


def test_pure_epsilon_excess_and_the_negligible_line():
    """P(y | x) = 3/4, P(y | x') = 1/4 against epsilon = ln 2: the witness output needs 3/4 - 2/4 = 1/4."""
    weight = severity(math.log(2), None, None, ("3/4", "1/4"))
    assert weight.scope == "witness output" and float(number(weight.delta)) == pytest.approx(0.25, rel=1e-4)
    assert weight.draws == str(_draws(Fraction(1, 4))) and not weight.negligible  # the mass 1/4 the claim forbids
    tiny, tinier = (severity(1.0, None, None, (f"1/{2**k}", "0")) for k in (-NEGLIGIBLE_LOG2, 1 - NEGLIGIBLE_LOG2))
    assert tiny.log2_delta == NEGLIGIBLE_LOG2 and not tiny.negligible  # 2^-1000 itself is not below 2^-1000
    assert tinier.negligible and verdict_label("VIOLATED", tinier) == "VIOLATED (negligible: delta < 2^-1000)"
    assert verdict_label("VIOLATED", tiny) == "VIOLATED" and verdict_label("tight", None) == "tight"


def test_an_epsilon_delta_claim_weighs_the_tight_delta():
    weight = severity(1.0, 1e-6, 3.5e-4, ("0.01", "0.001"))
    assert weight.scope == "tight" and weight.times_claimed == pytest.approx(350) and weight.excess == "0.000349"
    assert weight.event_probability == "0.01"
    assert weight.draws == str(math.ceil(math.log(20) / -math.log1p(-(3.5e-4 - 1e-6))))  # the mass beyond the claim
    assert severity(1.0, 1e-6, None, None) is None and severity(1.0, None, None, None) is None


# -- python-dp: the bounded noise's event of probability about 10^-3,643,138 --------------------------------


def _geometric_edge_log(epsilon, l1):
    """ln P(y | x) for the exact geometric draw the C++ approximates: ``K`` with ``P(K = k)`` proportional to
    ``e^(-lam k)`` on ``[0, 2^63 - 2]``, ``lam = g epsilon / (l1 + g)``, the output at the edge reached by the
    draws that round to ``round(2^63 g)`` with the positive sign (1/2)."""
    with mpmath.workdps(40):
        g = mpmath.mpf(2) ** math.ceil(math.log2(l1 / epsilon / 2**40))
        lam = g * epsilon / (l1 + g)
        top = mpmath.mpf(2) ** 63 - 2
        first = mpmath.ceil((round(float(2**63 * g)) - mpmath.mpf(1) / 2) / g)  # round(K g) = the largest |N|
        # log of (e^(-lam first) - e^(-lam (top + 1))) / (1 - e^(-lam (top + 1))) / 2
        return float(-lam * first + mpmath.log(-mpmath.expm1(-lam * (top + 1 - first))) - mpmath.log(2))


def test_pydp_bounded_noise_is_negligible():
    """The output past the noise's edge from one entry has probability about 10^-3,643,138 at epsilon = 1
    (the issue's independent value; ln P = -2^23 - ...): the row's enclosure holds the exact geometric's value,
    its delta needed is far below 2^-1000, and the verdict says so; the audit still exits 1 (the claim is false)."""
    pytest.importorskip("pydp")
    from wmcdp.audit.pydp import cases

    (case,) = cases("LaplaceMechanism (int) epsilon=1.0")
    row = case.model(case)[0]
    lo, hi = row.log_witness_probability
    want = _geometric_edge_log(1.0, 1.0)
    assert lo <= want <= hi and hi - lo < 40  # within e^40 (the draws that round to the edge)
    assert lo / math.log(10) <= -3643138 <= hi / math.log(10) + 14
    weight = row.severity
    assert weight.negligible and weight.log2_delta == pytest.approx(hi / math.log(2))
    assert row.shown_verdict == "VIOLATED (negligible: delta < 2^-1000)"
    assert weight.log10_draws == pytest.approx(math.log10(math.log(20)) - hi / math.log(10), abs=1e-6)


def test_pydp_report_and_summary_say_negligible(tmp_path, capsys):
    pytest.importorskip("pydp")
    assert main(["audit", "pydp", "--only", "LaplaceMechanism (int) epsilon=1.0", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    _valid(data)
    assert data["negligible"] == data["violated"] == 1 and data["rows"][0]["severity"]["delta_scope"] == "witness output"
    assert main(["audit", "pydp", "--only", "LaplaceMechanism (int) epsilon=1.0", "--report", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "1 VIOLATED (1 negligible: delta < 2^-1000)" in out and "VIOLATED (negligible: delta < 2^-1000)" in out
    (path,) = tmp_path.iterdir()
    text = path.read_text()
    assert text.splitlines()[0].endswith("breaks its claimed epsilon (negligible: delta < 2^-1000)")
    assert "- **Neighbours:** two results at most the sensitivity apart." in text
    assert "GeometricDistribution::Sample" in text and "- **Negligible:**" in text


# -- OpenDP's make_gaussian_threshold: delta 5.2 times the map's; a count of 0 released -----------------------


def _valid(data):
    """The audit's JSON against the wmcdp/1 schema (its severity keys included)."""
    jsonschema = pytest.importorskip("jsonschema")
    from wmcdp.report.schema import json_schema

    jsonschema.validate(data, json_schema(), cls=jsonschema.Draft202012Validator)
    assert data["negligible"] == sum(r.get("severity", {}).get("negligible", False) for r in data["rows"])


def _gauss_at_least(m, sigma):
    """P(Z >= m) for the discrete Gaussian, by summing its weights (50 digits)."""
    with mpmath.workdps(50):
        w = {j: mpmath.exp(-mpmath.mpf(j * j) / (2 * mpmath.mpf(sigma) ** 2)) for j in range(-200, 201)}
        return mpmath.fsum(v for j, v in w.items() if j >= m) / mpmath.fsum(w.values())


@pytest.mark.parametrize(
    "label, sigma, m, draws",
    [
        ("scale=1.0, threshold=3, d_in=(0, 0, 0)", 1.0, 3, 655),  # P(Z >= 3) = 4.6e-3 where (0, 0) is claimed
        ("scale=1.0, threshold=6, d_in=(1, 1, 1)", 1.0, 5, None),  # delta 5.2 times the map's
    ],
)
def test_opendp_gaussian_threshold_severity(label, sigma, m, draws, capsys):
    pytest.importorskip("opendp")
    assert main(["audit", "opendp", "--only", f"make_gaussian_threshold one key's count, {label}", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    _valid(data)
    (row,) = data["rows"]
    release = _gauss_at_least(m, sigma)
    weight = row["severity"]
    assert row["witness_probabilities"][0] == "0.0"  # no key is never released
    assert float(row["witness_probabilities"][1]) == pytest.approx(float(release), rel=1e-12)
    assert float(weight["delta_needed"]) == pytest.approx(float(release), rel=1e-3) and weight["delta_scope"] == "tight"
    n = math.ceil(math.log(20) / -float(mpmath.log1p(-(release - mpmath.mpf(row["claimed_delta"])))))
    assert int(weight["draws_to_see_violation"]) == n and (draws is None or n == draws)
    if draws is None:
        assert weight["times_claimed_delta"] == pytest.approx(5.2, abs=0.05)
    else:
        assert weight["times_claimed_delta"] == "inf" and row["claimed_delta"] == 0.0
    assert not weight["negligible"] and "l02inf" in row["neighbours"] and "noise_threshold" in row["source"]


def test_opendp_threshold_report_gives_both_probabilities_and_the_draws(tmp_path):
    pytest.importorskip("opendp")
    label = "make_gaussian_threshold one key's count, scale=1.0, threshold=3"
    assert main(["audit", "opendp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    text = path.read_text()
    p = float(_gauss_at_least(3, 1.0))
    assert "- **P(E | x)** = 0.0" in text and f"- **P(E | x')** = {p!r}" in text
    assert "- **Draws to see the violation:** at least 655:" in text
    assert "- **Times the claimed delta:** inf (above it by 0.004567)." in text


# -- the neighbouring notion and the source lines -----------------------------------------------------------


def test_multifreq_rs_fd_states_its_neighbours_and_source(capsys):
    pytest.importorskip("multi_freq_ldpy")
    assert main(["audit", "multi-freq-ldpy", "--only", "RSpFD_GRR_Client lst_k=[2, 3], d=2, epsilon=1.0", "--json"]) == 1
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["neighbours"].startswith("any two tuples") and "RSpFD_solution.py:22" in row["source"]
    # the pair's delta at epsilon = 1 from RS+FD's closed form: attribute j sampled (1/2), through GRR at the amplified
    # epsilon over its k_j values, the other attribute a uniform fake value
    lst_k, amp = (2, 3), math.log(2 * (math.e - 1) + 1)
    keep = [math.exp(amp) / (math.exp(amp) + k - 1) for k in lst_k]

    def grr(j, v, true):
        return keep[j] if v == true else (1 - keep[j]) / (lst_k[j] - 1)

    def prob(y, x):
        return (grr(0, y[0], x[0]) / lst_k[1] + grr(1, y[1], x[1]) / lst_k[0]) / 2

    outputs = [(a, b) for a in range(2) for b in range(3)]

    def pair(x, xp):
        return sum(max(0.0, prob(y, x) - math.e * prob(y, xp)) for y in outputs)

    # the tight delta over every two tuples; here the witness pair's, (0, 0) against (1, 1), attains it
    tight = max(pair(x, xp) for x in outputs for xp in outputs if x != xp)
    assert tight == pytest.approx(pair((0, 0), (1, 1)), rel=1e-12)
    weight = row["severity"]
    assert weight["delta_scope"] == "tight" and 2 ** weight["log2_delta_needed"] == pytest.approx(tight, rel=1e-9)
    assert int(weight["draws_to_see_violation"]) == math.ceil(math.log(20) / -math.log1p(-tight))


SOURCES = [
    ("diffprivlib", "diffprivlib"),
    ("multi_freq_ldpy", "multifreq"),
]


@pytest.mark.parametrize("package, module", SOURCES)
def test_source_lines_quote_the_installed_library(package, module):
    """Every ``file:line`` a source names holds the code it quotes, in the installed library the models follow."""
    import importlib
    import re

    pytest.importorskip(package)
    lib = importlib.import_module(f"wmcdp.audit.{module}").LIBRARY
    assert lib.sources
    root = Path(find_spec(package).origin).parent.parent
    for mechanism, text in lib.sources:
        path, line = re.match(r"([\w/.]+\.py):(\d+)", text).groups()
        quoted = re.search(r"`([^`]+)`", text).group(1)
        source = (root / path).read_text().splitlines()
        assert quoted in source[int(line) - 1], (mechanism, text)
        function = text.split(", ")[1].split(":")[0]
        assert any(s.startswith(f"def {function}(") for s in source[: int(line)]), (mechanism, function)



# -- a pure epsilon claim: the tight delta over every neighbouring pair -------------------------------------


def _tight_by_sums(dists, inputs, neighbours, epsilon):
    """``max over ordered neighbouring pairs of sum over y of max(0, P(y | x) - e^epsilon P(y | x'))`` at 60 digits,
    each probability from its exact value (a Fraction, or an exact real's midpoint at 400 bits): a plain sum over
    the model's distributions, independent of the pair sources."""
    with mpmath.workdps(60):

        def value(p):
            if isinstance(p, Fraction):
                return mpmath.mpf(p.numerator) / p.denominator
            mid, radius = p.enclosure(400)
            assert radius <= abs(mid) * Fraction(1, 10**60)
            return mpmath.mpf(mid.numerator) / mid.denominator

        probs = [{y: value(p) for y, p in d.items()} for d in dists]
        t = mpmath.exp(mpmath.mpf(epsilon))  # the claim's binary64 value, exactly
        return max(
            mpmath.fsum(max(0, p - t * probs[b].get(y, 0)) for y, p in probs[a].items())
            for a in range(len(inputs))
            for b in range(len(inputs))
            if neighbours(inputs[a], inputs[b])
        )


def _draws_of(delta):
    """``ceil(ln 20 / -ln(1 - delta))`` at 60 digits."""
    with mpmath.workdps(60):
        return int(mpmath.ceil(mpmath.log(20) / -mpmath.log1p(-delta)))


def test_permute_and_flip_needs_its_tight_delta_over_every_pair():
    """diffprivlib's PermuteAndFlip claims epsilon = 1 (exact 72.08): the row's delta needed is the tight delta at
    epsilon = 1 over every pair of utility vectors, the certified run's upper end of the plain sums over the audit's
    exact model, and its draws follow it."""
    pytest.importorskip("diffprivlib")
    from wmcdp.audit.core import AuditRow, choice_program, with_tight_delta
    from wmcdp.audit.diffprivlib import cases, distributions

    (case,) = cases("PermuteAndFlip epsilon=1.0")
    spec = case.spec
    dists = distributions(case)
    prog, _, relation = choice_program(case.mechanism, spec.inputs, spec.neighbours, dists)
    violated = AuditRow(case.mechanism, case.params, 1, 1.0, 72.08, None, "VIOLATED", ("x", "x'", "y"), 0.0)
    row = with_tight_delta(violated, prog, relation, certified=True)
    want = _tight_by_sums(dists, spec.inputs, spec.neighbours, 1.0)
    weight = row.severity
    assert weight.scope == "tight" and row.delta_note is None
    assert float(number(row.tight_delta) / number(mpmath.nstr(want, 40))) == pytest.approx(1, rel=1e-14)
    assert float(want) == pytest.approx(2.761347364814193e-17, rel=1e-12)
    assert int(float(number(weight.draws))) == pytest.approx(_draws_of(want), rel=1e-3)  # shown to 4 digits
    assert with_tight_delta(replace(violated, verdict="loose"), prog, relation, certified=True).tight_delta is None


def test_a_local_randomizer_needs_its_tight_delta_not_its_witness_pairs():
    """Three inputs of a made-up local randomizer: ``a`` gives output 0 with probability 1/1000 and ``b`` never (an
    infinite ratio: the witness pair), while ``c`` gives it half the time. At epsilon = ln 2 the row weighs the
    tight delta over every pair, 1/2 (``c`` against ``b``), not the witness pair's 1/1000."""
    from wmcdp.audit.core import AuditCase, local_row

    dists = [{0: Fraction(1, 1000), 1: Fraction(999, 1000)}, {1: Fraction(1)}, {0: Fraction(1, 2), 1: Fraction(1, 2)}]
    case = AuditCase(
        library="made-up", mechanism="M", params="three inputs", claim="epsilon", model=None, draw=None, validation=None
    )
    row, _ = local_row(case, ["a", "b", "c"], dists, math.log(2))
    want = _tight_by_sums(dists, range(3), lambda a, b: a != b, math.log(2))
    assert row.verdict == "VIOLATED" and row.witness[:2] == ("'a'", "'b'") and row.pair_delta.startswith("1.000")
    assert want == mpmath.mpf(1) / 2 and row.severity.scope == "tight" and row.tight_delta.startswith("5.000000000")
    assert row.severity.draws == str(_draws(Fraction(1, 2))) == "5"


def test_a_tight_delta_past_the_limits_says_why_and_keeps_the_lower_bound():
    """A run over its resource limit leaves the witness output's excess, with the reason in the row and report."""
    from wmcdp.audit.core import AuditRow, choice_program, with_tight_delta

    dists = [{0: Fraction(3, 4), 1: Fraction(1, 4)}, {0: Fraction(1, 4), 1: Fraction(3, 4)}]
    prog, _, relation = choice_program("made-up", [0, 1], lambda a, b: a != b, dists)
    violated = AuditRow("M", "p", 1, math.log(2), math.log(3), None, "VIOLATED", ("0", "1", "0"), 0.0)
    row = with_tight_delta(replace(violated, witness_probabilities=("3/4", "1/4")), prog, relation, max_nodes=1)
    weight = row.severity
    assert row.tight_delta is None and weight.scope == "witness output" and "over the limit" in weight.note
    assert weight.as_dict()["delta_note"] == weight.note and float(number(weight.delta)) == pytest.approx(0.25)


def test_opendp_bounded_geometric_needs_its_tight_delta_over_every_pair():
    """OpenDP's make_geometric with bounds (0, 5) claims epsilon = 0.1 at d_in = 1 and breaks it (exact 1.608): the
    row's delta needed is the tight delta at the claim's binary64 value over every pair of inputs 0 .. 5 one apart,
    the plain sums over the model's exact distributions, at least the witness output's excess; its draws follow it."""
    pytest.importorskip("opendp")
    from wmcdp.audit.opendp import cases, model_distribution
    from wmcdp.compile import compile_program

    (case,) = cases("make_geometric T=u32, bounds=(0, 5), scale=10.0")
    row = case.model(case)[0]
    compiled = compile_program(case.spec.model(), exact_floats=True)
    dists = [model_distribution(compiled, (x,), "binary") for x in range(6)]
    want = _tight_by_sums(dists, range(6), lambda a, b: abs(a - b) == 1, row.claimed)
    weight = row.severity
    p, q = (Fraction(v) for v in row.witness_probabilities)
    with mpmath.workdps(60):
        excess = mpmath.mpf(p.numerator) / p.denominator - mpmath.exp(row.claimed) * q.numerator / q.denominator
    assert row.claimed == 0.1 and weight.scope == "tight" and weight.note is None and want >= excess
    assert float(number(row.tight_delta)) == pytest.approx(float(want), rel=1e-15)
    assert int(weight.draws) == _draws_of(want)
