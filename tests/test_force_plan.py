"""``plan=`` / ``--plan``: one named plan of the planner, run even where the exhaustive sets are quick.

Every forced plan that applies gives the bound of an independent enumeration of every random choice
(:mod:`brute`), with a witness whose own ratio is the bound; a plan that does not apply to the program, or does
not serve the notion, is refused in one line (exit 2 on the command line)."""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import brute
import pytest

from wmcdp import (
    Bits,
    Program,
    discrete,
    flip,
    privacy_profile,
    synthesize_accuracy,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
)
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main

Q = F(1, 4)
NOISE = {-1: F(1, 4), 0: F(1, 2), 1: F(1, 4)}


def rr_pair(x):
    return (x[0] ^ flip(Q), x[1] ^ flip(Q))


def releases(x):
    """Two noisy releases of one sum, the second shifted by one (two parts given the input)."""
    s = x[0] + x[1]
    return ((s + discrete(NOISE)).clamp(0, 2), (s + discrete(NOISE)).clamp(0, 2) + 1)


def rr_count(x):
    out = x[0] ^ flip(Q)
    for i in range(1, 3):
        out = out + (x[i] ^ flip(Q))
    return out


def rr_pair_ref(x, choose):
    return (x[0] ^ brute.flip(choose, Q), x[1] ^ brute.flip(choose, Q))


def releases_ref(x, choose):
    s = x[0] + x[1]
    a = min(max(s + choose(NOISE), 0), 2)
    return (a, min(max(s + choose(NOISE), 0), 2) + 1)


def rr_count_ref(x, choose):
    return sum(v ^ brute.flip(choose, Q) for v in x)


PROGRAMS = {
    "rr_pair": (Program("rr_pair", Bits(2), rr_pair, neighbours="hamming"), rr_pair_ref),
    "releases": (Program("releases", Bits(2), releases, neighbours="hamming"), releases_ref),
    "rr_count": (
        Program("rr_count", Bits(3), rr_count, neighbours="hamming", target=lambda x: sum(x)),
        rr_count_ref,
    ),
}


def _truth(name: str) -> dict:
    prog, ref = PROGRAMS[name]
    return {x: brute.distribution(ref, x) for x in prog.inputs.values()}


def _pairs(dists: dict):
    return [(x, xp) for x in dists for xp in dists if sum(a != b for a, b in zip(x, xp)) == 1]


def _pure(dists: dict, x, xp, y):
    p, q = dists[x].get(y, 0), dists[xp].get(y, 0)
    return math.inf if q == 0 else p / q


PRIVACY = [
    ("rr_pair", "exhaustive"),
    ("rr_pair", "product"),
    ("rr_pair", "given-input"),
    ("rr_pair", "chain"),
    ("rr_pair", "hub"),
    ("rr_pair", "symmetry"),
    ("releases", "given-input"),
    ("releases", "symmetry"),
    ("rr_count", "symmetry"),
]


@pytest.mark.parametrize(("name", "plan"), PRIVACY)
def test_forced_privacy_plan_matches_enumeration(name, plan):
    prog, _ = PROGRAMS[name]
    dists = _truth(name)
    want = max(_pure(dists, x, xp, y) for x, xp in _pairs(dists) for y in dists[x])
    r = synthesize_privacy(prog, plan=plan)
    assert r.plan.kind == plan
    assert r.ratio == want == synthesize_privacy(prog, "exhaustive").ratio
    w = r.witness
    assert (w.x, w.x_prime) in _pairs(dists) and dists[w.x].get(w.y, 0) > 0
    assert _pure(dists, w.x, w.x_prime, w.y) == want


@pytest.mark.parametrize(
    ("name", "plan"), [("rr_pair", "product"), ("rr_pair", "symmetry"), ("rr_count", "count-of-reports")]
)
def test_forced_pair_plans_match_enumeration(name, plan):
    prog, _ = PROGRAMS[name]
    dists = _truth(name)
    pairs = _pairs(dists)
    delta = max(brute.hockey(dists[x], dists[xp], F(2)) for x, xp in pairs)
    r = synthesize_approximate(prog, epsilon="ln:2", plan=plan)
    assert r.delta == delta == synthesize_approximate(prog, epsilon="ln:2", pairs="exhaustive").delta
    assert brute.hockey(dists[r.witness.x], dists[r.witness.x_prime], F(2)) == delta
    assert r.plan.kind == plan
    (point,) = privacy_profile(prog, ["ln:2"], plan=plan)
    assert point.delta == delta
    renyi = max(brute.renyi(dists[x], dists[xp], 2) for x, xp in pairs)
    assert synthesize_renyi(prog, [2], plan=plan).orders[0].epsilon == pytest.approx(renyi, rel=1e-12)


@pytest.mark.parametrize("plan", ["exhaustive", "symmetry"])
def test_forced_accuracy_plan_matches_enumeration(plan):
    prog, _ = PROGRAMS["rr_count"]
    dists = _truth("rr_count")
    want = min(sum(p for y, p in dist.items() if abs(y - sum(x)) <= 0) for x, dist in dists.items())
    r = synthesize_accuracy(prog, alpha=0, plan=plan)
    assert r.plan.kind == plan and r.one_minus_beta == want


REFUSED = [
    (synthesize_privacy, "rr_count", "product", {}, "plan 'product' does not apply: the output does not split"),
    (synthesize_privacy, "rr_count", "given-input", {}, "plan 'given-input' does not apply"),
    (synthesize_privacy, "rr_count", "chain", {}, "plan 'chain' does not apply: no chain proved"),
    (synthesize_privacy, "rr_count", "hub", {}, "plan 'hub' does not apply: no hub proved"),
    (synthesize_privacy, "rr_count", "count-of-reports", {}, "does not serve this notion"),
    (synthesize_privacy, "rr_pair", "bogus", {}, "unknown plan 'bogus'"),
    (synthesize_privacy, "rr_pair", "hub", {"C": "exhaustive"}, "leave out C"),
    (synthesize_accuracy, "rr_count", "hub", {"alpha": 0}, "plan 'hub' does not apply: it does not serve"),
    (synthesize_approximate, "rr_pair", "count-of-reports", {"epsilon": 1}, "not a count of independent"),
    (synthesize_approximate, "rr_pair", "chain", {"epsilon": 1}, "does not serve this notion"),
]


@pytest.mark.parametrize(("fn", "name", "plan", "kw", "message"), REFUSED)
def test_a_plan_that_does_not_apply_is_one_line(fn, name, plan, kw, message):
    with pytest.raises(WmcdpError) as err:
        fn(PROGRAMS[name][0], plan=plan, **kw)
    assert message in str(err.value) and "\n" not in str(err.value) and len(str(err.value)) < 200


FILE = """
from fractions import Fraction as F
from wmcdp import Bits, Program, discrete, flip
N = {-1: F(1, 4), 0: F(1, 2), 1: F(1, 4)}
def releases():
    def body(x):
        s = x[0] + x[1]
        return ((s + discrete(N)).clamp(0, 2), (s + discrete(N)).clamp(0, 2) + 1)
    return Program("releases", Bits(2), body, neighbours="hamming")
"""


def _cli(tmp_path, capsys, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "forced.py"
    path.write_text(FILE)
    code = main([args[0], f"{path}:releases", *args[1:]])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_forced_plan_runs_and_matches_exhaustive(tmp_path, capsys):
    code, out, _ = _cli(tmp_path, capsys, "privacy", "--plan", "given-input", "--json")
    dists = _truth("releases")
    want = max(_pure(dists, x, xp, y) for x, xp in _pairs(dists) for y in dists[x])
    result = json.loads(out)
    assert code == 0 and result["plan"]["kind"] == "given-input" and result["ratio_exact"] == str(want)
    code, out, _ = _cli(tmp_path, capsys, "approx", "--plan", "symmetry", "--epsilon", "ln:2")
    assert code == 0 and "planned: symmetry" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("privacy", "--plan", "product"), "wmcdp: error: plan 'product' does not apply: the output does not split"),
        (("privacy", "--plan", "hub", "--sets", "exhaustive"), "wmcdp: error: --plan runs one of the planner's plans"),
        (("accuracy", "--plan", "given-input", "--alpha", "0"), "it does not serve this notion"),
        (("renyi", "--plan", "nope", "--orders", "2"), "wmcdp: error: unknown plan 'nope'"),
    ],
)
def test_cli_refuses_a_plan_in_one_line(tmp_path, capsys, args, message):
    code, out, err = _cli(tmp_path, capsys, *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
