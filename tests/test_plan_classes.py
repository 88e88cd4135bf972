"""Part classes see output values, and a plan whose witness does not count what it claims is dropped.

Two parts are one class only when they are the same mechanism with the same output values: ``x + d`` and
``x + d + 1`` have one circuit and ranges one apart, so they are two classes (wmcdp.plan.parts). Each plan's
witness is recounted on the whole program (wmcdp.plan.planner.recount): a neighbour pair, ``P(y | x) > 0``, and
the plan's ratio; else the plan is dropped, named in the report's ``considered`` list, and the next plan answers.

Every program here is written twice: in the DSL and as a plain-Python reference that tests/brute.py enumerates
(exact Fractions), and every answer is compared with that enumeration and with the exhaustive sets."""

from __future__ import annotations

import itertools
import json
import math
import textwrap
from dataclasses import replace
from fractions import Fraction as F

import brute
import pytest

from wmcdp import Bits, IntVector, Program, compile_program, discrete, flip, synthesize_privacy, uniform
from wmcdp.cli import main
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan import chain, given_input, hub, planned
from wmcdp.plan.planner import Budget

#: the issue's noise on -2..2, exact and as floats
FIVE = {-2: F(1, 10), -1: F(2, 10), 0: F(4, 10), 1: F(2, 10), 2: F(1, 10)}
FIVE_FLOAT = {v: float(p) for v, p in FIVE.items()}
#: noise on -1..1 (an infinite ratio once clamped to 0..2 under a move of 2) and a lopsided one on -2..2 (finite)
THREE = {-1: F(1, 10), 0: F(2, 10), 1: F(7, 10)}
LOPSIDED = {-2: F(1, 20), -1: F(3, 20), 0: F(1, 2), 1: F(1, 5), 2: F(1, 10)}


def _clamp(v: int, lo: int, hi: int) -> int:
    return min(max(v, lo), hi)


def _exact(weights: dict) -> dict:
    return {v: F(p) for v, p in weights.items()}


# -- the programs and their references --------------------------------------------------------------


def shf(weights=FIVE):
    """Two releases of ``s = x0 + x1``, the second shifted by one: one circuit, two ranges."""

    def body(x):
        s = x[0] + x[1]
        return (s + discrete(weights)).clamp(0, 2), (s + discrete(weights)).clamp(0, 2) + 1

    return Program("shf", Bits(2), body, neighbours="hamming")


def shf_reference(weights=FIVE):
    def fn(x, choose):
        s = x[0] + x[1]
        return _clamp(s + choose(weights), 0, 2), _clamp(s + choose(weights), 0, 2) + 1

    return fn


def inf2():
    """Two releases of one sum with noises on {-1, 0} and {0, 1}: one circuit, ranges one apart."""

    def body(x):
        s = x[0] + x[1]
        return s + uniform(-1, 0), s + uniform(0, 1)

    return Program("inf2", Bits(2), body, neighbours="all-entries")


def inf2_reference(x, choose):
    s = x[0] + x[1]
    half = {0: F(1, 2), 1: F(1, 2)}
    return s + choose(half) - 1, s + choose(half)


def prod(weights=THREE):
    """Two independent parts, the second shifted by one."""

    def body(x):
        return (x[0] + discrete(weights)).clamp(0, 2), (x[1] + discrete(weights)).clamp(0, 2) + 1

    return Program("prod", IntVector(2, 0, 2), body)


def prod_reference(weights=THREE):
    def fn(x, choose):
        return _clamp(x[0] + choose(weights), 0, 2), _clamp(x[1] + choose(weights), 0, 2) + 1

    return fn


def _truth(program, reference):
    """``(brute-force tight ratio, every input's distribution, the relation's neighbours)``."""
    domain = program.inputs
    rel = neighbour_relation(program.neighbours)
    inputs = list(domain.values())
    dists = {x: brute.distribution(reference, x) for x in inputs}
    return brute.tight_ratio(reference, inputs, lambda x: list(rel(domain, x))), dists, rel


def _check(program, reference, kind, exact=True, weights_exact=None):
    """The planner takes plan ``kind``; its ratio (float runs: ε) is brute force's and the exhaustive sets'; its
    witness is a neighbour pair whose probabilities are brute force's, with ``P(y | x) > 0`` (and ``P(y | x') = 0``
    for an infinite ratio). ``weights_exact``: the reference of a float program, with its weights as Fractions."""
    r = synthesize_privacy(program, exact=exact)
    assert r.plan.kind == kind, r.plan.text()
    ratio, dists, rel = _truth(program, weights_exact or reference)
    w = r.witness
    assert w.x_prime in list(rel(program.inputs, w.x))
    p, q = dists[w.x].get(w.y, 0), dists[w.x_prime].get(w.y, 0)
    assert p > 0 and (q == 0 if ratio == math.inf else True)
    exhaustive = synthesize_privacy(program, "exhaustive", exact=exact)
    if exact:
        assert r.ratio == ratio == exhaustive.ratio
        assert (r.p_x, r.p_x_prime) == (p, q)
    else:
        expected = math.inf if ratio == math.inf else math.log(ratio)
        assert r.epsilon == pytest.approx(expected, rel=1e-9) and r.epsilon == pytest.approx(exhaustive.epsilon)
        assert r.p_x == pytest.approx(float(p), rel=1e-9) and r.p_x_prime == pytest.approx(float(q), rel=1e-9)
    return r


def test_shifted_releases_of_one_sum_are_two_classes():
    """The issue's case: ratio 9 = 3 * 3 (it printed 6, decoding the second part with the first's range; in exact
    mode it ended in a RuntimeError)."""
    r = _check(shf(), shf_reference(), "given-input")
    assert r.ratio == 9 and r.plan.distinct_parts == 2


def test_shifted_releases_in_floats():
    """Float weights (their binary64 values are what brute force enumerates): ε = ln 9 within rounding."""
    r = _check(shf(FIVE_FLOAT), None, "given-input", exact=False, weights_exact=shf_reference(_exact(FIVE_FLOAT)))
    assert r.epsilon == pytest.approx(math.log(9), rel=1e-9)


def test_a_lost_infinity_is_found():
    """The issue's case: every ratio is infinite (it refused: "every triple ... = 0")."""
    r = _check(inf2(), inf2_reference, "given-input")
    assert r.ratio == math.inf and r.p_x > 0 == r.p_x_prime


@pytest.mark.parametrize("weights", [THREE, LOPSIDED], ids=["infinite", "finite"])
def test_a_products_witness_output_occurs(weights):
    """The issue's case: the witness output of a product has ``P(y | x) > 0`` (it printed an output the second
    part cannot take, with the first part's probability)."""
    r = _check(prod(weights), prod_reference(weights), "product")
    assert (r.plan.parts, r.plan.distinct_parts) == (2, 2)
    assert (r.ratio == math.inf) == (weights is THREE)


# -- families: identical parts shifted, relabelled, clamped differently --------------------------------------

#: a part as (DSL, reference): an Int part of value ``v`` and noise ``d``, or a Bool part of ``v >= 1`` and coin ``c``
INT_PARTS = {
    "plain": (lambda v, d: (v + d).clamp(0, 2), lambda v, d: _clamp(v + d, 0, 2)),
    "shifted": (lambda v, d: (v + d).clamp(0, 2) + 1, lambda v, d: _clamp(v + d, 0, 2) + 1),
    "reversed": (lambda v, d: 2 - (v + d).clamp(0, 2), lambda v, d: 2 - _clamp(v + d, 0, 2)),
    "wider": (lambda v, d: (v + d).clamp(0, 3), lambda v, d: _clamp(v + d, 0, 3)),
    "lower": (lambda v, d: (v + d).clamp(-1, 2), lambda v, d: _clamp(v + d, -1, 2)),
}
BOOL_PARTS = {
    "bit": (lambda v, c: (v >= 1) ^ c, lambda v, c: int(v >= 1) ^ c),
    "not bit": (lambda v, c: ~((v >= 1) ^ c), lambda v, c: 1 - (int(v >= 1) ^ c)),
}
FAMILY = [
    ("plain", "shifted"),
    ("plain", "reversed"),
    ("plain", "wider", "lower"),
    ("shifted", "plain", "shifted"),
    ("bit", "not bit"),
    ("plain", "bit", "shifted", "not bit"),
]


def _draw(name, value, weights, coin):
    """One part of a family program in the DSL."""
    if name in INT_PARTS:
        return INT_PARTS[name][0](value, discrete(weights))
    return BOOL_PARTS[name][0](value, flip(coin))


def _drawn(name, value, weights, coin, choose):
    """The same part in plain Python."""
    if name in INT_PARTS:
        return INT_PARTS[name][1](value, choose(weights))
    return BOOL_PARTS[name][1](value, brute.flip(choose, coin))


def family_given_input(names, weights, coin, neighbours):
    """Every part releases ``s = x0 + x1`` (parts given the input)."""

    def body(x):
        s = x[0] + x[1]
        return tuple(_draw(name, s, weights, coin) for name in names)

    def reference(x, choose):
        return tuple(_drawn(name, x[0] + x[1], weights, coin, choose) for name in names)

    return Program("released", Bits(2), body, neighbours=neighbours), reference


def family_product(names, weights, coin, neighbours):
    """Part ``i`` releases entry ``i`` (a product)."""

    def body(x):
        return tuple(_draw(name, x[i], weights, coin) for i, name in enumerate(names))

    def reference(x, choose):
        return tuple(_drawn(name, x[i], weights, coin, choose) for i, name in enumerate(names))

    return Program("parts", IntVector(len(names), 0, 2), body, neighbours=neighbours), reference


@pytest.mark.parametrize("names", FAMILY, ids="-".join)
@pytest.mark.parametrize("weights", [LOPSIDED, THREE], ids=["finite", "gaps"])
@pytest.mark.parametrize("neighbours", ["hamming", "all-entries"])
def test_given_input_family(names, weights, neighbours):
    program, reference = family_given_input(names, weights, F(1, 5), neighbours)
    r = _check(program, reference, "given-input")
    assert r.plan.distinct_parts == len(set(names))


@pytest.mark.parametrize("names", FAMILY, ids="-".join)
@pytest.mark.parametrize("weights", [LOPSIDED, THREE], ids=["finite", "gaps"])
@pytest.mark.parametrize("neighbours", ["hamming", "all-entries"])
def test_product_family(names, weights, neighbours):
    program, reference = family_product(names[:3], weights, F(1, 5), neighbours)
    r = _check(program, reference, "product")
    assert r.plan.distinct_parts == len(set(names[:3]))


@pytest.mark.parametrize("names", [("plain", "shifted"), ("bit", "not bit")], ids="-".join)
def test_families_in_floats(names):
    """Float weights: ε within rounding of brute force's (on the weights' binary64 values)."""
    weights, coin = {v: float(p) for v, p in LOPSIDED.items()}, 0.2
    exact_weights, exact_coin = _exact(weights), F(coin)
    for family in (family_given_input, family_product):
        program, _ = family(names, weights, coin, "hamming")
        _, reference = family(names, exact_weights, exact_coin, "hamming")
        _check(program, None, "given-input" if family is family_given_input else "product", False, reference)


def test_equal_parts_stay_one_class():
    """Parts that are the same mechanism with the same values are still analysed once."""
    program, reference = family_product(("shifted", "shifted", "shifted"), LOPSIDED, F(1, 5), "hamming")
    r = _check(program, reference, "product")
    assert (r.plan.parts, r.plan.distinct_parts) == (3, 1)
    program, reference = family_given_input(("wider",) * 3, LOPSIDED, F(1, 5), "hamming")
    assert _check(program, reference, "given-input").plan.distinct_parts == 1


# -- a plan whose recount disagrees is dropped ----------------------------------------------------------------


def _dropped(r, kind):
    """The note of plan ``kind`` in the report's ``considered`` list (it must say it was dropped)."""
    notes = [note for k, _, note in r.plan.considered if k == kind]
    assert notes and notes[0].startswith("dropped: "), r.plan.considered
    return notes[0]


def test_a_given_input_plan_whose_ratio_is_not_counted_is_dropped(monkeypatch):
    real = given_input._exact_best
    monkeypatch.setattr(given_input, "_exact_best", lambda *a: (lambda v: (2 * v[0], *v[1:]))(real(*a)))
    r = synthesize_privacy(shf(), exact=True)
    assert r.plan.kind != "given-input" and r.ratio == 9
    assert "its ratio is 18 but its witness counts 9" in _dropped(r, "given-input")


def test_a_given_input_plan_whose_float_value_is_not_counted_is_dropped(monkeypatch):
    real = given_input.GivenInput.scan
    monkeypatch.setattr(given_input.GivenInput, "scan", lambda *a: (lambda v: (v[0] + 1, v[1]))(real(*a)))
    r = synthesize_privacy(shf(FIVE_FLOAT))
    assert r.plan.kind != "given-input" and r.epsilon == pytest.approx(math.log(9), rel=1e-9)
    assert "its epsilon is" in _dropped(r, "given-input")


def test_a_witness_of_no_ratio_is_dropped_not_refused(monkeypatch):
    """A witness output with P(y | x) = P(y | x') = 0 (the lost infinity's symptom) drops the plan: the next plan
    answers, and finds the infinity."""
    real = given_input._witness
    monkeypatch.setattr(given_input, "_witness", lambda *a: (*real(*a)[:2], (5, 5)))
    r = synthesize_privacy(inf2(), exact=True)
    assert r.plan.kind != "given-input" and r.ratio == math.inf and r.p_x > 0 == r.p_x_prime
    assert "P(y | x) = P(y | x') = 0" in _dropped(r, "given-input")


def test_a_witness_with_p_zero_is_dropped(monkeypatch):
    """A witness output that only x' can give (ratio 0) is no witness."""
    real = given_input._witness
    monkeypatch.setattr(given_input, "_witness", lambda *a: (lambda t: (t[1], t[0], t[2]))(real(*a)))
    r = synthesize_privacy(inf2(), exact=True)
    assert r.plan.kind != "given-input" and r.ratio == math.inf
    assert "has P(y | x) = 0" in _dropped(r, "given-input")


def test_a_product_whose_witness_is_not_counted_is_dropped(monkeypatch):
    """Every other part at an output it cannot take: the recount has P(y | x) = 0, the product is dropped, and the
    next plan answers with the brute-force ratio."""
    monkeypatch.setattr(planned, "_likeliest", lambda compiled, exact: 7)
    weights = LOPSIDED
    r = synthesize_privacy(prod(weights), exact=True)
    ratio, _, _ = _truth(prod(weights), prod_reference(weights))
    assert r.plan.kind != "product" and r.ratio == ratio
    assert "has P(y | x) = 0" in _dropped(r, "product")


def test_a_product_whose_pair_is_no_neighbour_is_dropped(monkeypatch):
    real = planned._combine_max

    def moved(*args):
        combined = real(*args)
        return replace(combined, xs={**combined.xs, **{m: (2,) for m in range(2) if m not in combined.xs}})

    monkeypatch.setattr(planned, "_combine_max", moved)
    r = synthesize_privacy(prod(LOPSIDED), exact=True)
    assert r.plan.kind != "product"
    assert "is no hamming pair" in _dropped(r, "product")


def test_a_hub_plan_whose_ratio_is_not_counted_is_dropped(monkeypatch):
    from programs.suite import sparse_vector

    monkeypatch.setattr(hub.LargestRatio, "ratio", lambda best: 3 * (best.num / best.den) if best.den else math.inf)
    program = sparse_vector(5, 2, 1, 1, alpha=F(1, 2))
    r = synthesize_privacy(program, exact=True)
    assert r.plan.kind != "hub" and r.ratio == synthesize_privacy(program, "exhaustive", exact=True).ratio
    assert "but its witness counts" in _dropped(r, "hub")


def test_a_chain_plan_whose_ratio_is_not_counted_is_dropped(monkeypatch):
    """The chain plan on its own (at n = 5 the planner would not try it; past it, nothing else fits): it answers
    the exact ratio, and once its value is doubled it is dropped with the reason."""
    from programs.checkdp import prefix_sum

    whole = compile_program(prefix_sum(5, 1, alpha=F(1, 2)))
    relation = neighbour_relation(whole.program.neighbours)

    def run_chain():
        considered = []
        r = chain.chain_privacy(whole, relation, True, synthesize_privacy, Budget(None), 0.0, considered)
        return r, considered[-1][2]

    assert run_chain()[0].ratio == 2
    real = chain.chain_plan
    monkeypatch.setattr(chain, "chain_plan", lambda *a: [replace(c, value=c.value * 2) for c in real(*a)])
    r, note = run_chain()
    assert r is None and note == "dropped: its ratio is 4 but its witness counts 2"


# -- the command line ----------------------------------------------------------------------------------------

CASES = textwrap.dedent(
    """
    from fractions import Fraction as F
    from wmcdp import Bits, IntVector, Program, discrete, uniform

    W = [.1, .2, .4, .2, .1]
    WF = [F(1, 10), F(2, 10), F(4, 10), F(2, 10), F(1, 10)]

    def _noise(ws):
        return discrete({-2: ws[0], -1: ws[1], 0: ws[2], 1: ws[3], 2: ws[4]})

    def shf(exact=0):
        ws = WF if int(exact) else W
        def body(x):
            s = x[0] + x[1]
            return ((s + _noise(ws)).clamp(0, 2), (s + _noise(ws)).clamp(0, 2) + 1)
        return Program("shf", Bits(2), body, neighbours="hamming")

    def inf2():
        def body(x):
            s = x[0] + x[1]
            return (s + uniform(-1, 0), s + uniform(0, 1))
        return Program("inf2", Bits(2), body, neighbours="all-entries")

    def prod(finite=0):
        w = {-2: F(1, 20), -1: F(3, 20), 0: F(1, 2), 1: F(1, 5), 2: F(1, 10)} if int(finite) else {
            -1: F(1, 10), 0: F(2, 10), 1: F(7, 10)}
        def body(x):
            return ((x[0] + discrete(w)).clamp(0, 2), (x[1] + discrete(w)).clamp(0, 2) + 1)
        return Program("prod", IntVector(2, 0, 2), body)
    """
)


def _cli(capsys, *argv):
    code = main(["privacy", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    return json.loads(out)


@pytest.mark.parametrize(
    "name, args, kind, program, reference",
    [
        ("shf", ["-p", "exact=0"], "given-input", shf(FIVE_FLOAT), shf_reference(_exact(FIVE_FLOAT))),
        ("shf", ["-p", "exact=1"], "given-input", shf(), shf_reference()),
        ("inf2", [], "given-input", inf2(), inf2_reference),
        ("prod", ["--exact"], "product", prod(), prod_reference()),
        ("prod", ["--exact", "-p", "finite=1"], "product", prod(LOPSIDED), prod_reference(LOPSIDED)),
    ],
    ids=["shf-float", "shf-exact", "inf2", "prod-infinite", "prod-finite"],
)
def test_the_command_line(capsys, tmp_path, name, args, kind, program, reference):
    """Each case through the CLI: the plan, the brute-force ratio (the exhaustive sets' too), and a witness that
    brute force counts as printed."""
    f = tmp_path / "cases.py"
    f.write_text(CASES)
    data = _cli(capsys, f"{f}:{name}", *args)
    exhaustive = _cli(capsys, f"{f}:{name}", *args, "--sets", "exhaustive")
    ratio, dists, rel = _truth(program, reference)
    assert data["plan"]["kind"] == kind
    x, xp, y = (tuple(v) if isinstance(v, list) else v for v in data["witness"].values())
    assert xp in list(rel(program.inputs, x))
    p, q = dists[x].get(y, 0), dists[xp].get(y, 0)
    assert p > 0 and data["p_y_given_x"] == pytest.approx(float(p), rel=1e-9)
    assert data["p_y_given_x_prime"] == pytest.approx(float(q), rel=1e-9)
    if ratio == math.inf:
        assert data["ratio"] == exhaustive["ratio"] == "inf" and q == 0
    else:
        assert data["ratio"] == pytest.approx(float(ratio), rel=1e-9)
        assert exhaustive["ratio"] == pytest.approx(float(ratio), rel=1e-9)


def test_the_families_have_finite_and_infinite_ratios():
    """The families cover both rules of products and both kinds of ratio (a guard on the test data itself)."""
    seen = set()
    for names, weights in itertools.product(FAMILY, (LOPSIDED, THREE)):
        program, reference = family_product(names[:3], weights, F(1, 5), "hamming")
        ratio, _, _ = _truth(program, reference)
        seen.add(ratio == math.inf)
    assert seen == {True, False}


def test_the_command_line_names_a_dropped_plan(capsys, tmp_path, monkeypatch):
    """A given-input plan whose ratio does not recount is dropped: exit 0, the exhaustive ratio, and the reason in
    the JSON report's ``considered`` list (no traceback)."""
    real = given_input._exact_best
    monkeypatch.setattr(given_input, "_exact_best", lambda *a: (lambda v: (2 * v[0], *v[1:]))(real(*a)))
    f = tmp_path / "cases.py"
    f.write_text(CASES)
    data = _cli(capsys, f"{f}:shf", "-p", "exact=1")
    assert data["plan"]["kind"] != "given-input" and data["ratio_exact"] == "9"
    notes = [c["note"] for c in data["plan"]["considered"] if c["kind"] == "given-input"]
    assert notes == ["dropped: its ratio is 18 but its witness counts 9"]
