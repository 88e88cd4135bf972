"""Every claim a plan relies on is proved exactly (or the plan is not used), and plans are deterministic.

* An accuracy target that breaks the program's symmetry on one input: its invariance is proved on its traced
  diagram, or decided by evaluating it on every input, never sampled; 1 - beta equals the closed form.
* Float products under all-entries: a near-tie between two pairs' hockey-stick curves (a relative 1e-13 apart,
  crossing) has no dominant pair, decided exactly; the whole program is planned and δ(ε) is the enumeration's.
* The same planned command gives the same plan, witness and claims however fast the clock runs.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from fractions import Fraction

import pytest

import brute
from wmcdp import Bits, Program, flip, synthesize_accuracy
from wmcdp.cli import main
from wmcdp.lang.relations import NEIGHBOURS
from wmcdp.notions.approximate import synthesize_approximate

N = 17
BAD = tuple(1 - i % 2 for i in range(N))  # 10101010101010101
LAM = Fraction(1, 5)

PROGRAMS = f'''
from fractions import Fraction
from wmcdp import Bits, Program, flip, ite

BAD = {BAD!r}


def _count(x):
    return sum(v ^ flip(Fraction(1, 5)) for v in x)


def python_target(x):  # compares the whole input: does not trace, decided on every input
    s = sum(x)
    return s + 22 if tuple(x) == BAD else s


def dsl_target(shift):  # traces: a DSL Int
    def target(x):
        hit = x[0] == BAD[0]
        for v, b in zip(x[1:], BAD[1:]):
            hit = hit & (v == b)
        return sum(x) + ite(hit, shift, 0)
    return target


def branching_target(x):  # branches on the values: does not trace, but is symmetric
    return sum(1 for v in x if v)


def cnt_python():
    return Program("cnt", Bits({N}), _count, target=python_target)


def cnt_dsl():
    return Program("cnt", Bits({N}), _count, target=dsl_target(22))


def cnt_dsl_inside():
    return Program("cnt", Bits({N}), _count, target=dsl_target(1))


def cnt_branching():
    return Program("cnt", Bits({N}), _count, target=branching_target)


def near_tie():  # each part: P(1 | 0) = 1/4, P(1 | 1) = 3/4 + 2^-44, in floats
    return Program("near", Bits(2), lambda x: tuple(ite(v, flip(0.75 + 2.0**-44), flip(0.25)) for v in x))
'''


def _binomial(m: int, p: Fraction) -> list[Fraction]:
    return [math.comb(m, i) * p**i * (1 - p) ** (m - i) for i in range(m + 1)]


def _count_law(x: tuple) -> list[Fraction]:
    """P(sum_i x_i ^ flip(1/5) = v | x), v = 0..n: ones kept (Binomial(s, 4/5)) plus zeros flipped."""
    s = sum(x)
    kept, flipped = _binomial(s, 1 - LAM), _binomial(len(x) - s, LAM)
    law = [Fraction(0)] * (len(x) + 1)
    for a, p in enumerate(kept):
        for b, q in enumerate(flipped):
            law[a + b] += p * q
    return law


def test_count_law_is_the_enumeration():
    """The closed form the tests below use, against brute force on every input of 6 bits."""
    for x in Bits(6).values():
        dist = brute.distribution(lambda x, c: sum(v ^ brute.flip(c, LAM) for v in x), x)
        assert dist == {v: p for v, p in enumerate(_count_law(x)) if p}


def _truth(shift: int) -> Fraction:
    """min over x of P(count = V(x) | x) at alpha 0, V(x) = sum(x) (+ shift at BAD); inputs with equal sums
    have equal laws, so one per sum and BAD itself."""
    laws = {s: _count_law((1,) * s + (0,) * (N - s)) for s in range(N + 1)}
    best = min(laws[s][s] for s in range(N + 1))
    target = sum(BAD) + shift
    return min(best, laws[sum(BAD)][target] if target <= N else Fraction(0))


def _cli(tmp_path, capsys, func: str, *args: str) -> dict:
    path = tmp_path / "cnt.py"
    path.write_text(PROGRAMS)
    assert main(["accuracy", f"{path}:{func}", "--alpha", "0", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _load(tmp_path, func: str) -> Program:
    namespace: dict = {}
    exec(compile(PROGRAMS, str(tmp_path / "cnt.py"), "exec"), namespace)
    return namespace[func]()


@pytest.mark.parametrize(
    "func, shift, how",
    [
        ("cnt_python", 22, "evaluating V on every one of the 131072 inputs"),
        ("cnt_dsl", 22, "V traced on symbolic inputs"),
        ("cnt_dsl_inside", 1, "V traced on symbolic inputs"),
    ],
)
def test_target_that_breaks_the_symmetry_on_one_input(tmp_path, capsys, func, shift, how):
    """RR counting over 17 bits whose target is sum(x) except at 10101010101010101 (sum + shift): the program is
    symmetric under S_17, the target is not. 1 - beta at alpha 0 is the closed form (0 when sum + 22 is out of
    range), through the CLI and the API; the plan says how V's invariance was decided, and under a traced V
    keeps the symmetry V has (S_9 x S_8: odd and even positions)."""
    truth = _truth(shift)
    data = _cli(tmp_path, capsys, func)
    assert Fraction(data["one_minus_beta_exact"]) == truth
    r = synthesize_accuracy(_load(tmp_path, func), alpha=0)
    assert r.one_minus_beta == truth
    x = r.witness
    value = sum(x) + (shift if x == BAD else 0)
    assert (_count_law(x)[value] if value <= N else 0) == truth  # the witness attains the bound
    plan = data["plan"]
    if plan["kind"] == "symmetry":
        claims = {c["claim"]: c["how"] for c in plan["claims"]}
        target_claims = [h for c, h in claims.items() if c.startswith("the target V is invariant")]
        assert target_claims and how in target_claims[0]
    if func.startswith("cnt_dsl"):
        assert plan["kind"] == "symmetry" and plan["structure"].startswith("S_9 on entries 0, 2, 4")


def test_target_that_does_not_trace_is_enumerated(tmp_path, capsys):
    """A target that branches on the entries' values does not trace; with 2^17 inputs it is evaluated on all of
    them, found symmetric, and the orbit set of S_17 gives the closed form."""
    data = _cli(tmp_path, capsys, "cnt_branching")
    assert Fraction(data["one_minus_beta_exact"]) == min(_count_law((1,) * s + (0,) * (N - s))[s] for s in range(N + 1))
    claims = {c["claim"]: c["how"] for c in data["plan"]["claims"]}
    assert claims[f"the target V is invariant under S_{N} on entries 0..{N - 1}, outputs unchanged"] == (
        f"V does not trace; decided by evaluating V on every one of the {2**N} inputs"
    )


def test_float_products_decide_dominance_exactly(tmp_path, capsys):
    """Two bits, each part P(1 | 0) = 1/4, P(1 | 1) = 3/4 + 2^-44 (floats, exact in binary). The part's pairs
    (0, 1) and (1, 0) have hockey-stick curves that cross at t = 1 and differ by a relative 1e-13: no pair is
    dominant, exactly, so under all-entries the whole program is planned (a tolerance of 1e-12 took one as
    dominant). δ(ε) is the enumeration's, through the API and the CLI."""
    high = Fraction(0.75 + 2.0**-44)
    reference = lambda x, c: tuple(brute.flip(c, high if v else Fraction(1, 4)) for v in x)  # noqa: E731
    dists = {x: brute.distribution(reference, x) for x in Bits(2).values()}
    neighbours = lambda x: list(NEIGHBOURS["all-entries"](Bits(2), x))  # noqa: E731
    path = tmp_path / "near.py"
    path.write_text(PROGRAMS)
    for eps in (0.0, 0.5):
        t = Fraction(math.exp(eps))
        best, _ = brute.max_over_pairs(dists, neighbours, lambda a, b, t=t: brute.hockey(a, b, t))
        d = synthesize_approximate(_load(tmp_path, "near_tie"), epsilon=eps, neighbours="all-entries", exact=False)
        assert d.plan.kind != "product"
        assert math.isclose(float(d.delta), float(best), rel_tol=1e-12)
        args = ["approx", f"{path}:near_tie", "--epsilon", str(eps), "--neighbours", "all-entries", "--json"]
        assert main(args) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["plan"]["kind"] != "product"
        assert math.isclose(data["delta"], float(best), rel_tol=1e-12)


def test_float_products_with_a_dominant_pair_say_how():
    """A float product whose parts do have a dominant pair (randomized response) keeps the product plan, and its
    report lists the claim, decided on the floats' exact binary values."""
    prog = Program("rr", Bits(3), lambda x: tuple(v ^ flip(0.25) for v in x))
    d = synthesize_approximate(prog, epsilon=0.5, neighbours="all-entries", exact=False)
    assert d.plan.kind == "product"
    claims = dict(d.plan.claims)
    assert any("recounted exactly on the floats' binary values" in how for how in claims.values())
    assert any("independent" in claim for claim in claims)


def _plan_facts(data: dict) -> tuple:
    """What must not change between runs: everything but seconds (the detection's work units included)."""
    plan = data["plan"]
    keep = {k: v for k, v in plan.items() if "seconds" not in k}
    keep["considered"] = [(c["kind"], c["note"]) for c in plan["considered"]]
    return json.dumps(keep, sort_keys=True), json.dumps(data.get("witness"), sort_keys=True)


#: noisy max over 8 entries: detection renames its diagram (renamings that blow up, which CUDD's computed table
#: made cost a few steps more or fewer from process to process) and stops short of a symmetry
DIAGRAM_PROOFS = ["privacy", "noisy_max", "-p", "n=8", "-p", "m=2", "-p", "eps0=1", "--json"]


def test_detection_work_is_the_same_in_fresh_processes(capsys):
    """The same command whose detection proves on diagrams, in two fresh processes and twice in this one, reports
    the same plan and the same detection work (counted nodes, nothing that depends on where CUDD put them)."""
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "wmcdp", *DIAGRAM_PROOFS], capture_output=True, text=True, timeout=120, check=True
        )
        runs.append(_plan_facts(json.loads(done.stdout)))
    for _ in range(2):
        assert main(DIAGRAM_PROOFS) == 0
        runs.append(_plan_facts(json.loads(capsys.readouterr().out)))
    plan = json.loads(runs[0][0])
    assert plan["detection_work"] > 0
    assert runs[1:] == runs[:1] * 3


@pytest.mark.parametrize(
    "command",
    [
        ["accuracy", "{path}:cnt_dsl", "--alpha", "0"],
        ["privacy", "rr_counting", "-p", "n=16", "-p", "lam=1/5"],
    ],
)
def test_plans_do_not_depend_on_the_clock(tmp_path, capsys, monkeypatch, command):
    """The same planned command, run again and with a clock that runs 10x faster, 10x slower, or jumps 1000 s at
    every reading, gives the same plan (structure, sizes, claims) and the same witness."""
    path = tmp_path / "cnt.py"
    path.write_text(PROGRAMS)
    args = [a.format(path=path) for a in command] + ["--json"]
    real = time.perf_counter

    def facts() -> tuple:
        assert main(args) == 0
        return _plan_facts(json.loads(capsys.readouterr().out))

    first = facts()
    assert json.loads(first[0])["kind"] == "symmetry"
    assert facts() == first
    start = real()
    ticks = [0]

    def jumping() -> float:
        ticks[0] += 1
        return real() + 1000.0 * ticks[0]

    for clock in (lambda: start + 10 * (real() - start), lambda: start + (real() - start) / 10, jumping):
        monkeypatch.setattr(time, "perf_counter", clock)
        assert facts() == first
        monkeypatch.setattr(time, "perf_counter", real)


def test_accuracy_plans_do_not_depend_on_the_clock(tmp_path, monkeypatch):
    """The same through the API: the plan (structure, sizes, claims) and the witness of a planned accuracy run."""

    def facts() -> tuple:
        r = synthesize_accuracy(_load(tmp_path, "cnt_dsl_inside"), alpha=0)
        return r.plan.kind, r.plan.structure, r.plan.size, r.plan.claims, r.witness, r.one_minus_beta

    first = facts()
    ticks = [0]
    real = time.perf_counter

    def jumping() -> float:
        ticks[0] += 1
        return real() + 1000.0 * ticks[0]

    monkeypatch.setattr(time, "perf_counter", jumping)
    assert facts() == first and first[0] == "symmetry" and first[-1] == _truth(1)
