"""Every command's ``--json`` is one object of the versioned format ``wmcdp/1``, valid against the JSON Schema the
package ships (wmcdp/report/wmcdp-1.json): the same head, the same witness object, ∞ as "inf" and exact values
always present (null when the run is not exact). The values are checked against closed forms: randomized response
on n bits flipped with probability lam has ratio (1 - lam) / lam at the witness x = 0..0, x' = 10..0, y = 0..0,
P(y | x) = (1 - lam)^n and δ(ε) = (1 - lam) - e^ε lam for e^ε below the ratio (n = 1)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from wmcdp.cli import main
from wmcdp.notions.catalogue import commands
from wmcdp.report.schema import SCHEMA, SCHEMA_FILE, json_schema

jsonschema = pytest.importorskip("jsonschema")

HEAD = ["schema", "command", "program", "label", "params", "neighbours", "exact"]
RR = ["randomized_response", "-p", "n=2"]


@pytest.fixture(scope="module")
def validator():
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _json(capsys, validator, *argv, status=0):
    """The ``--json`` output of ``wmcdp ARGV``, checked against the schema and its head."""
    assert main(list(argv)) == status
    data = json.loads(capsys.readouterr().out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert errors == []
    assert list(data)[: len(HEAD)] == HEAD and data["schema"] == SCHEMA == "wmcdp/1"
    assert data["command"] == argv[0]
    return data


def test_the_schema_ships_in_the_package():
    assert SCHEMA_FILE.name == "wmcdp-1.json" and SCHEMA_FILE.parent.name == "report"
    assert json_schema()["properties"]["schema"] == {"const": SCHEMA}


def test_privacy_exact_and_float_runs_have_the_same_keys(capsys, validator):
    exact = _json(capsys, validator, "privacy", *RR, "-p", "lam=1/5", "--json")
    floats = _json(capsys, validator, "privacy", *RR, "-p", "lam=0.2", "--json")
    assert list(exact) == list(floats)
    assert exact["exact"] is True and floats["exact"] is False
    assert (exact["ratio_exact"], exact["p_y_given_x_exact"], exact["p_y_given_x_prime_exact"]) == ("4", "16/25", "4/25")
    assert floats["ratio_exact"] is floats["p_y_given_x_exact"] is floats["p_y_given_x_prime_exact"] is None
    assert floats["ratio"] == pytest.approx(4, rel=1e-12) and floats["epsilon"] == pytest.approx(math.log(4), 1e-12)
    assert exact["witness"] == floats["witness"] == {"x": [0, 0], "x_prime": [1, 0], "y": [0, 0]}
    assert exact["program"] == "randomized_response" and exact["label"] == "randomized_response(n=2, lam=1/5)"
    assert exact["params"] == {"n": "2", "lam": "1/5"} and exact["neighbours"] == "hamming"


@pytest.mark.parametrize("noise, exact", [("eps0=0.5", False), ("alpha=1/2", True)])
def test_an_infinite_epsilon_is_the_string_inf(capsys, validator, noise, exact):
    """BadSVT1 (no query noise) on n = 2 answers at x = 01 an output that x' = 00 never gives: ε = ∞, the string
    "inf" in float and exact runs alike (the exact ratio's text is "inf" too)."""
    data = _json(capsys, validator, "privacy", "bad_svt1", "-p", "n=2", "-p", "m=1", "-p", "T=1", "-p", noise, "--json")
    assert data["epsilon"] == data["ratio"] == "inf" and data["p_y_given_x_prime"] == 0
    assert data["exact"] is exact and data["ratio_exact"] == ("inf" if exact else None)
    assert (data["p_y_given_x_exact"] is None) is not exact and data["p_y_given_x_prime_exact"] == ("0" if exact else None)


def test_accuracy(capsys, validator):
    data = _json(capsys, validator, "accuracy", "rr_counting", "-p", "n=2", "-p", "lam=1/4", "--alpha", "0",
                 "--top", "2", "--json")
    assert data["neighbours"] is None and data["exact"] is True
    # P(#ones(RR(x)) = #ones(x)) is (3/4)^2 = 9/16 at x = 00 or 11, (3/4)^2 + (1/4)^2 = 5/8 at 01 and 10
    assert Fraction(data["one_minus_beta_exact"]) == Fraction(9, 16) and data["one_minus_beta"] == 9 / 16
    assert Fraction(data["beta_exact"]) == Fraction(7, 16) and len(data["top"]) == 2
    assert set(data["witness"]) == {"x"} and data["witness"]["x"] in ([0, 0], [1, 1])
    assert [Fraction(t["one_minus_beta_exact"]) for t in data["top"]] == [Fraction(9, 16)] * 2


@pytest.mark.parametrize("mode", [[], ["--exact"]])
def test_approx_given_epsilon_and_given_delta(capsys, validator, mode):
    one = ["randomized_response", "-p", "n=1", "-p", "lam=0.25"]
    given_epsilon = _json(capsys, validator, "approx", *one, "--epsilon", "0", *mode, "--json")
    assert given_epsilon["delta"] == pytest.approx(0.5, rel=1e-12)  # 3/4 - 1/4
    assert given_epsilon["delta_exact"] == ("1/2" if mode else None)
    assert given_epsilon["witness"] == {"x": [0], "x_prime": [1]} and given_epsilon["neighbours"] == "hamming"
    given_delta = _json(capsys, validator, "approx", *one, "--delta", "0", *mode, "--json")
    assert given_delta["epsilon"] == pytest.approx(math.log(3), rel=1e-9)
    assert set(given_epsilon) == set(given_delta)


def test_a_sequence_of_runs(capsys, validator):
    """Two runs of RR (lam = 1/4) at ε = 0: δ is the total variation distance of the two runs' joint
    distributions on x = 0 and x' = 1, enumerated here."""
    data = _json(capsys, validator, "approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "2",
                 "--epsilon", "0", "--json")
    p = {(a, b): Fraction(3 if a == 0 else 1, 4) * Fraction(3 if b == 0 else 1, 4) for a in (0, 1) for b in (0, 1)}
    q = {(a, b): Fraction(1 if a == 0 else 3, 4) * Fraction(1 if b == 0 else 3, 4) for a in (0, 1) for b in (0, 1)}
    tv = sum(max(p[y] - q[y], 0) for y in p)
    assert Fraction(data["lower_exact"]) == Fraction(data["upper_exact"]) == tv == Fraction(1, 2)
    assert data["witness"] == {"x": [0], "x_prime": [1]} and data["program"] is None
    assert data["steps"] == [{"program": "randomized_response", "label": "randomized_response(n=1, lam=1/4)",
                              "times": 2}]


def test_renyi_with_an_infinite_order(capsys, validator):
    data = _json(capsys, validator, "renyi", *RR, "-p", "lam=0.2", "--orders", "2,inf", "--json")
    two, inf = data["orders"]
    assert inf["order"] == "inf" and inf["epsilon"] == pytest.approx(math.log(4), rel=1e-12)
    # D_2 of (4/5, 1/5) against (1/5, 4/5): ln((16/25) / (1/5) + (1/25) / (4/5))
    assert two["epsilon"] == pytest.approx(math.log(Fraction(16, 5) + Fraction(1, 20)), rel=1e-12)
    assert two["witness"] == {"x": [0, 0], "x_prime": [1, 0]}


def test_profile(capsys, validator):
    data = _json(capsys, validator, "profile", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--epsilons",
                 "0,ln:2,ln:3", "--json")
    assert data["exact"] is True and data["label"] == "randomized_response(n=1, lam=1/4)"
    assert [Fraction(r["delta_exact"]) for r in data["rows"]] == [Fraction(1, 2), Fraction(1, 4), 0]
    assert all(r["witness"] == {"x": [0], "x_prime": [1]} and r["exact"] for r in data["rows"])


#: the flags a sweep command needs besides the program and --over (a command not listed needs none)
SWEEP_OPTIONS = {"accuracy": ["--alpha", "0"], "approx": ["--epsilon", "0"], "renyi": ["--orders", "2"]}


@pytest.mark.parametrize("kind", sorted(commands()))  # every registered notion's sweep
def test_sweeps(capsys, validator, kind):
    options = SWEEP_OPTIONS.get(kind, [])
    program = "rr_counting" if kind == "accuracy" else "randomized_response"
    data = _json(capsys, validator, "sweep", kind, program, "-p", "n=2", "--over", "lam=1/4,0.25", *options,
                 "--json")
    assert data["notion"] and data["parameter"] == "lam" and data["program"] is None
    exact, floats = data["rows"]
    assert exact["program"] == program and exact["label"] == f"{program}(n=2)"
    assert exact["value_exact"] == "1/4" and floats["value_exact"] is None and exact["value"] == floats["value"]
    assert set(exact) == set(floats) and exact["witness"] == floats["witness"]
    assert not any(key.startswith("witness_") for key in exact)
    assert [exact["exact"], floats["exact"]] == [True, False] and data["exact"] is False


def test_a_swept_witness_is_the_privacy_witness(capsys, validator):
    row = _json(capsys, validator, "sweep", "privacy", *RR, "--over", "lam=1/5", "--json")["rows"][0]
    point = _json(capsys, validator, "privacy", *RR, "-p", "lam=1/5", "--json")
    assert row["witness"] == point["witness"]
    assert {k: row[k] for k in ("ratio_exact", "p_y_given_x_exact")} == {
        k: point[k] for k in ("ratio_exact", "p_y_given_x_exact")
    }


def test_symbolic_bounds(capsys, validator):
    privacy = _json(capsys, validator, "privacy", *RR, "--symbolic", "lam=1/10:1/2", "--json")
    accuracy = _json(capsys, validator, "accuracy", "rr_counting", "-p", "n=2", "--alpha", "0",
                     "--symbolic", "lam=1/10:1/2", "--json")
    assert privacy["exact"] is accuracy["exact"] is True and privacy["neighbours"] == "hamming"
    assert privacy["pieces"][0]["witness"] == {"x": [0, 0], "x_prime": [1, 0], "y": [0, 0]}


KARY = ["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "10"]


@pytest.mark.parametrize("argv", [
    ["approx", "randomized_response", "-p", "n=1", "--symbolic", "lam=1/10:1/2", "--epsilon", "0"],
    ["approx", *KARY, "--epsilon", "0.5"],
    ["profile", *KARY, "--epsilons", "0.5"],
    ["privacy", *RR, "-p", "lam=1/(1+exp(1/2))", "--certified"],
])
def test_other_forms_of_the_same_commands(capsys, validator, argv):
    """A piecewise δ, shuffled reports (approx, profile) and a certified enclosure have the same head and witness."""
    data = _json(capsys, validator, *argv, "--json")
    witness = data["pieces"][0]["witness"] if "pieces" in data else data.get("witness") or data["rows"][0]["witness"]
    assert set(witness) >= {"x", "x_prime"}
    if "--shuffle" in argv:
        assert data["neighbours"] == "one user's value changed" and len(witness["x"]) == 10
    if "--certified" in argv:
        lo, hi = data["epsilon_interval"]
        assert float(lo) <= 0.5 <= float(hi) and data["exact"] is False and data["ratio_exact"] is None


def test_sample_crosscheck_size_symmetry(capsys, validator):
    sample = _json(capsys, validator, "sample", *RR, "-p", "lam=1/4", "--input", "01", "-k", "50", "--json")
    assert sum(o["count"] for o in sample["outputs"]) == 50 and sample["x"] == [0, 1]
    assert {tuple(o["y"]): o["exact"] for o in sample["outputs"]}.get((0, 1), 9 / 16) == 9 / 16
    check = _json(capsys, validator, "crosscheck", *RR, "-p", "lam=1/4", "-k", "2000", "--json")
    assert check["witness"] == {"x": [0, 0], "x_prime": [1, 0], "y": [0, 0]} and check["agrees"]
    size = _json(capsys, validator, "size", *RR, "-p", "lam=1/4", "--json")
    assert size["bdd_size"] > 0 and size["sdd_size"] > 0
    symmetry = _json(capsys, validator, "symmetry", *RR, "-p", "lam=1/4", "--json")
    assert symmetry["neighbours"] == "hamming" and symmetry["independence"]["parts"] == 2


def test_programs(capsys, validator):
    data = _json(capsys, validator, "programs", "--json")
    by_name = {p["name"]: p for p in data["programs"]}
    from wmcdp.programs import PROGRAMS

    assert set(by_name) == set(PROGRAMS)
    rr = by_name["randomized_response"]
    assert [(p["name"], p["required"]) for p in rr["parameters"]] == [("n", True), ("lam", True)]
    assert rr["claims"] == [] and rr["origin"].startswith("Warner")
    assert rr["description"] == "RR(x): each of n bits is flipped independently with probability lam."
    assert {"benchmark": "CheckDP", "name": "NoisyMax", "private": True} in by_name["noisy_max"]["claims"]
    assert not any("``" in p["description"] or ":func:" in p["description"] for p in data["programs"])


def test_the_listing_prints_whole_first_paragraphs(capsys):
    """A summary is its docstring's whole first paragraph, one line (it was cut after the first line)."""
    assert main(["programs"]) == 0
    text = capsys.readouterr().out
    assert "\n    Shuffled k-ary RR: the histogram of n users' reports of kary_report, lie probability lam.\n" in text
    assert "``" not in text and ":func:" not in text


@pytest.mark.parametrize("bad", [
    {"epsilon": "infinity"},  # ∞ is "inf" only
    {"epsilon": None},
    {"ratio_exact": 4},  # exact values are text
    {"witness": "00"},  # the witness is an object
    {"witness": {"x": [0, 0], "x_prime": [1, 0]}},  # a privacy witness is a triple
    {"witness": {"x": [0, 0], "x_prime": [1, 0], "y": [0, 0], "p": 1}},
    {"schema": "wmcdp/2"},
    {"command": "prvacy"},
])
def test_the_schema_refuses_other_shapes(capsys, validator, bad):
    assert main(["privacy", *RR, "-p", "lam=1/5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert validator.is_valid(data) and not validator.is_valid({**data, **bad})


@pytest.mark.parametrize("key", ["ratio_exact", "schema", "neighbours"])
def test_the_schema_requires_the_head_and_exact_keys(capsys, validator, key):
    assert main(["privacy", *RR, "-p", "lam=0.2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    del data[key]
    assert not validator.is_valid(data)


UNBOUNDED = (
    "from wmcdp import Bits, Program, geometric\n"
    "def threshold():\n"
    "    return Program('t', Bits(1), lambda x: geometric(x[0].as_int(), alpha='1/2') >= 0)\n"
    "def release():\n"
    "    return Program('r', Bits(1), lambda x: geometric(x[0].as_int(), alpha='1/2'),\n"
    "                   target=lambda x: x[0])\n"
)


def test_brackets_of_unbounded_noise_name_their_windows(capsys, validator, tmp_path):
    """Two-sided geometric noise with ratio a = 1/2 on all of the integers: ``x + Z >= 0`` for a bit x has
    ``P(False | 0) / P(False | 1) = (a / (1 + a)) / (a^2 / (1 + a)) = 2``, the worst ratio; releasing ``x + Z`` is
    within 1 of x with probability ``1 - 2 a^2 / (1 + a) = 2/3``. Each bracket holds its closed form (ln 2 as its
    nearest float, which the outward-rounded float ends of ε's bracket hold), and its
    window's tail mass is at least the true ``P(|Z| > W) = 2 a^(W + 1) / (1 + a)`` of its one draw."""
    path = tmp_path / "unbounded.py"
    path.write_text(UNBOUNDED)
    a = Fraction(1, 2)
    runs = [
        (["privacy", f"{path}:threshold", "--width", "1e-9"], "epsilon", Fraction(math.log(2))),
        (["accuracy", f"{path}:release", "--alpha", "1", "--width", "1e-9"], "one_minus_beta", Fraction(2, 3)),
    ]
    for argv, key, true in runs:
        data = _json(capsys, validator, *argv, "--json")
        lo, hi = (Fraction(end) for end in data[f"{key}_interval"])  # a float, or an exact end's decimal text
        window = data["window"]
        assert lo <= true <= hi and hi - lo <= 1e-9
        assert window["draws"] == 1 and window["narrowed"] is True and window["reason"] is None
        assert window["tail"] >= 2 * a ** (window["half_width"] + 1) / (1 + a) > 0
    bad = {**data, "window": {**data["window"], "half_width": -1}}
    assert not validator.is_valid(bad)


def test_sampling_unbounded_noise_brackets_each_probability(capsys, validator, tmp_path):
    """``wmcdp sample`` runs the true unbounded law and brackets each shown ``P(y | x)``: at x = 1,
    ``P(1 + Z >= 0) = 1 - a^2 / (1 + a) = 5/6`` with a = 1/2, and ``P(1 + Z < 0) = 1/6``; the text rounds each end
    outwards."""
    path = tmp_path / "unbounded.py"
    path.write_text(UNBOUNDED)
    argv = ["sample", f"{path}:threshold", "--input", "1", "-k", "600"]
    data = _json(capsys, validator, *argv, "--json")
    assert data["exact"] is False and sum(o["count"] for o in data["outputs"]) == 600
    true = {True: Fraction(5, 6), False: Fraction(1, 6)}
    for o in data["outputs"]:
        lo, hi = (Fraction(end) for end in o["exact_interval"])
        assert o["exact"] is None and lo <= true[bool(o["y"])] <= hi and hi - lo < 1e-6
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "[0.833333, 0.833334]" in text and "[0.166666, 0.166667]" in text


def test_every_n_runs_are_valid(capsys, validator):
    data = _json(capsys, validator, "privacy", "histogram", "-p", "m=1", "-p", "alpha=1/2", "--neighbours",
                 "all-entries", "--every-n", "4", "--every-n-from", "2", "--json")
    assert data["every_n"]["statement"]["certificate"][0]["factor_exact"] == "2"
    assert [s["ratio_exact"] for s in data["every_n"]["sizes"]] == ["4", "8", "16"]


def test_renyi_and_epsilon_of_delta_brackets_of_unbounded_noise(capsys, validator, tmp_path):
    """The threshold ``x + Z >= 0`` with a = 1/2: outputs (False, True) with probabilities (1/3, 2/3) at x = 0 and
    (1/6, 5/6) at x = 1, so ``D_2 = ln max(6 (1/3)^2 + (6/5)(2/3)^2, 3 (1/6)^2 + (3/2)(5/6)^2) = ln(6/5)``, ρ at
    order 2 is ``D_2 / 2`` and ``ε(1/10) = ln(2 - 6/10)`` (the steep side of the pair (0, 1))."""
    path = tmp_path / "unbounded.py"
    path.write_text(UNBOUNDED)
    data = _json(capsys, validator, "renyi", f"{path}:threshold", "--orders", "2", "--width", "1e-6", "--json")
    (order,) = data["orders"]
    lo, hi = order["epsilon_interval"]
    assert lo <= math.log(6 / 5) <= hi and order["window"]["draws"] == 1 and order["window"]["narrowed"] is True
    lo, hi = data["zcdp_rho_interval"]
    assert lo <= math.log(6 / 5) / 2 <= hi
    data = _json(capsys, validator, "approx", f"{path}:threshold", "--delta", "1/10", "--json")
    lo, hi = data["epsilon_interval"]
    assert lo <= math.log(1.4) <= hi and data["window"]["reason"] is None
    renyi = _json(capsys, validator, "renyi", f"{path}:threshold", "--orders", "2", "--json")
    assert not validator.is_valid({**renyi, "zcdp_rho_interval": [0.0]})  # an enclosure has two ends
