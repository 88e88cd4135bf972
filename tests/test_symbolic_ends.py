"""Symbolic pieces at their ends: where a weight of the parameter reaches 0 or 1 the support of the mechanism
changes, and the value there is the exact numeric run's (a pair with P(y|x) = P(y|x') = 0 skipped, one with
P(y|x) > 0 = P(y|x') infinite), not the limit of the neighbouring piece. Every piece of random small programs is
checked at its ends, its middle and random rationals against the exact numeric run at that point, which is itself
checked against an enumeration of every random choice (tests/brute.py); plus the command-line cases of the
symbolic runs (products with the parameter in one part, tiny bounds, unwritable plots)."""

from __future__ import annotations

import json
import math
import os
import random
from fractions import Fraction as F

import pytest
from brute import distribution, flip, tight_ratio

from wmcdp import (Parameter, Program, Bits, discrete, ite, synthesize_accuracy, synthesize_approximate,
                   synthesize_privacy)
from wmcdp import flip as dsl_flip
from wmcdp.base.polys import Poly
from wmcdp.base.roots import between, compare
from wmcdp.cli import main

# -- references by enumeration --------------------------------------------------------------------------------




def brute_delta(fn, inputs, neighbours, r: F) -> F:
    dists = {x: distribution(fn, x) for x in inputs}
    return max(
        sum((max(F(0), dists[x].get(y, F(0)) - r * dists[xp].get(y, F(0))) for y in set(dists[x]) | set(dists[xp])),
            F(0))
        for x in inputs
        for xp in neighbours(x)
    )


def brute_accuracy(fn, inputs, target, alpha) -> F:
    return min(sum((p for y, p in distribution(fn, x).items() if abs(y - target(x)) <= alpha), F(0)) for x in inputs)


def piece_at(pieces, t: F):
    """The piece that gives the value at ``t`` (docs/symbolic.md): a single-point piece [t, t], else the first
    piece holding ``t``."""
    holding = [p for p in pieces if compare(p.start, t) <= 0 <= compare(p.end, t)]
    return next((p for p in holding if compare(p.start, p.end) == 0), holding[0])


def witness_ratio(w, fn) -> F | float:
    """``P(y|x) / P(y|x')`` of a witness triple by enumeration; the triple must be a real one (not 0/0)."""
    assert w.x_prime in hamming(w.x)
    a, b = distribution(fn, w.x).get(w.y, F(0)), distribution(fn, w.x_prime).get(w.y, F(0))
    assert (a, b) != (0, 0), w
    return math.inf if b == 0 else a / b


BITS2 = [(a, b) for a in (0, 1) for b in (0, 1)]


def hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(len(x))]


# -- random small programs with one parameter ------------------------------------------------------------------

#: weights of t, each in [0, 1] on [0, 1]; several reach 0 or 1 at an end or inside
WEIGHTS = [
    lambda t: t,
    lambda t: 1 - t,
    lambda t: t * t,
    lambda t: t / 2,
    lambda t: 1 - t * t,
    lambda t: 2 * t * (1 - t),
    lambda t: (1 + t) / 3,
    lambda t: F(1, 3) + 0 * t,
    lambda t: (2 * t - 1) * (2 * t - 1),  # 0 inside the interval, at 1/2
]


def _component(kind, i, u, v, t, coin, pick, cond, x):
    """One output entry of a random program: ``coin`` is flip, ``pick`` discrete and ``cond(c, a, b)`` chooses
    the thunk ``a`` or ``b`` (ite in the DSL, a Python branch in the reference)."""
    w, w2 = WEIGHTS[u](t), WEIGHTS[v](t)
    if kind == "xor":
        return x[i] ^ coin(w)
    if kind == "and":
        return x[i] & coin(w)
    if kind == "ite":
        return cond(x[i], lambda: coin(w), lambda: coin(w2))
    return cond(x[i], lambda: pick({0: w / 2, 1: 1 - w, 2: w / 2}), lambda: pick({0: 1 - w2, 1: w2}))


def random_spec(rng: random.Random) -> list[tuple]:
    kinds = ["xor", "and", "ite", "disc"]
    return [(rng.choice(kinds), rng.randrange(2), rng.randrange(len(WEIGHTS)), rng.randrange(len(WEIGHTS)))
            for _ in range(rng.randrange(1, 4))]


def build(spec, t, total=False) -> Program:
    """The program of ``spec`` with ``t`` a Parameter or a number; ``total``: the sum of its entries."""

    def body(x):
        out = [_component(*c, t, dsl_flip, discrete, lambda c, a, b: ite(c, a(), b()), x) for c in spec]
        return sum(out[1:], out[0]) if total else tuple(out)

    return Program("random", Bits(2), body, target=lambda x: x[0] + x[1])


def reference(spec, t, total=False):
    def fn(x, choose):
        out = [_component(*c, t, lambda p: flip(choose, p), choose, lambda c, a, b: a() if c else b(), x)
               for c in spec]
        return sum(out) if total else tuple(out)

    return fn


RANGES = [(F(0), F(1)), (F(0), F(1, 2)), (F(1, 3), F(1))]


def points_of(result, rng: random.Random) -> list[F]:
    """Each piece's ends (when rational), a rational strictly inside, and a random rational of the interval."""
    out = []
    for p in result.pieces:
        out += [e for e in (p.start, p.end) if isinstance(e, F)]
        if compare(p.start, p.end) < 0:
            out.append(between(p.start, p.end))
    lo, hi = result.parameter.lo, result.parameter.hi
    out.append(lo + (hi - lo) * F(rng.randrange(1, 97), 97))
    return sorted(set(out))


@pytest.mark.parametrize("seed", range(int(os.environ.get("SYMBOLIC_ENDS_SEEDS", 12))))
def test_every_piece_is_the_exact_numeric_run_at_its_ends(seed):
    """Privacy (planned and on the whole diagram), δ at e^ε = 5/4 and 1 − β at α = 1 of a random program, at the
    ends and inside every piece, against the exact numeric run at that point; the privacy witness of the piece
    that gives the value is a real triple attaining it. SYMBOLIC_ENDS_SEEDS=300 runs a longer profile."""
    rng = random.Random(seed)
    spec = random_spec(rng)
    lo, hi = RANGES[seed % len(RANGES)]
    t = Parameter("t", lo, hi)

    def privacy_at(s):
        numeric = synthesize_privacy(build(spec, s), exact=True)
        return numeric.ratio, numeric.epsilon

    def delta_at(s):
        return synthesize_approximate(build(spec, s), epsilon="ln:5/4", exact=True).delta

    def accuracy_at(s):
        return synthesize_accuracy(build(spec, s, total=True), alpha=1, exact=True).one_minus_beta

    runs = [
        (synthesize_privacy(build(spec, t)), lambda r, s: (r.ratio_at(s), r.epsilon_at(s)), privacy_at),
        (synthesize_privacy(build(spec, t), "exhaustive"), lambda r, s: (r.ratio_at(s), r.epsilon_at(s)), privacy_at),
        (synthesize_approximate(build(spec, t), epsilon="ln:5/4"), lambda r, s: r.delta_at(s), delta_at),
        (synthesize_accuracy(build(spec, t, total=True), alpha=1), lambda r, s: r.one_minus_beta_at(s), accuracy_at),
    ]
    for k, (result, symbolic, numeric) in enumerate(runs):
        for s in points_of(result, rng):
            assert symbolic(result, s) == numeric(s), (spec, k, s)
            if k < 2:
                assert witness_ratio(piece_at(result.pieces, s).witness, reference(spec, s)) == numeric(s)[0]
    for s in (lo, hi):  # the numeric runs themselves against the enumeration, at the ends
        fn = reference(spec, s)
        assert privacy_at(s)[0] == tight_ratio(fn, BITS2, hamming), (spec, s)
        assert delta_at(s) == brute_delta(fn, BITS2, hamming, F(5, 4)), (spec, s)
        assert accuracy_at(s) == brute_accuracy(reference(spec, s, True), BITS2, lambda x: x[0] + x[1], 1), (spec, s)


# -- the reported cases, through the command line and the API ---------------------------------------------------

PROGRAMS = '''
from fractions import Fraction as F
from wmcdp import Bits, IntVector, Program, discrete, flip, ite


def clamped(t):
    return Program("clamped", IntVector(2, 0, 2), lambda x: tuple(
        (x[i] + discrete({-1: t * F(1, 2), 0: 1 - t, 1: t * F(1, 2)})).clamp(0, 2) for i in range(2)))


def several(t):
    return Program("several", Bits(2), lambda x: (
        x[0] ^ flip(t), x[1] ^ flip(t * t), ite(x[0], flip(t), flip(1 - t)), x[1] & flip(t)))


def one_part(t):
    return Program("one_part", Bits(3), lambda x: (x[0] ^ flip(t), x[1] ^ flip(F(1, 4)), x[2] ^ flip(F(1, 3))))


def broken():
    raise RuntimeError("the program was built")
'''


def clamped_ref(t):
    return lambda x, choose: tuple(min(2, max(0, x[i] + choose({-1: t / 2, 0: 1 - t, 1: t / 2}))) for i in range(2))


def several_ref(t):
    def fn(x, choose):
        return (x[0] ^ flip(choose, t), x[1] ^ flip(choose, t * t), flip(choose, t) if x[0] else flip(choose, 1 - t),
                x[1] & flip(choose, t))

    return fn


def one_part_ref(t):
    return lambda x, choose: (x[0] ^ flip(choose, t), x[1] ^ flip(choose, F(1, 4)), x[2] ^ flip(choose, F(1, 3)))


GRID2 = [(a, b) for a in range(3) for b in range(3)]
BITS3 = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]


def all_entries(x):
    """Every other vector of IntVector(2, 0, 2) within 1 in each entry."""
    return [y for y in GRID2 if y != x and all(abs(a - b) <= 1 for a, b in zip(x, y))]


CASES = {  # name: (reference, inputs, neighbours, extra arguments)
    "clamped": (clamped_ref, GRID2, all_entries, ["--neighbours", "all-entries"]),
    "several": (several_ref, BITS2, hamming, []),
    "one_part": (one_part_ref, BITS3, hamming, []),
}


@pytest.fixture
def programs(tmp_path, monkeypatch):
    (tmp_path / "ends.py").write_text(PROGRAMS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import ends

    return importlib.reload(ends)


def json_value(pieces: list[dict], t: F) -> F | float:
    """e^ε at ``t`` from the printed JSON pieces: a single-point piece [t, t] first, else the first holding t."""
    holding = [p for p in pieces if F(p["from"]) <= t <= F(p["to"])]
    p = next((p for p in holding if p["from"] == p["to"]), holding[0])
    num = sum((F(c) * t**k for k, c in enumerate(p["numerator"])), F(0))
    den = sum((F(c) * t**k for k, c in enumerate(p["denominator"])), F(0))
    return math.inf if den == 0 else num / den


def cli_json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_reported_programs_at_their_ends(name, programs, capsys):
    """The clamped noise (identity at t = 0: e^ε = ∞, printed before as (2 - t)/(2 - 2t) = 1), t in several places
    (e^ε = 0 at t = 0 and a ValueError from epsilon_at), and a product with t in one part (an AttributeError): the
    printed pieces, ratio_at and epsilon_at equal the exact numeric run and the enumeration at 0, 1 and inside."""
    ref, inputs, neighbours, extra = CASES[name]
    out = cli_json(capsys, ["privacy", f"ends.py:{name}", "--symbolic", "t=0:1", "--json", *extra])
    text_ok = main(["privacy", f"ends.py:{name}", "--symbolic", "t=0:1", *extra])
    text = capsys.readouterr().out
    assert text_ok == 0 and "e^eps = 0 " not in text
    relation = extra[1] if extra else None
    r = synthesize_privacy(getattr(programs, name)(Parameter("t", 0, 1)), neighbours=relation)
    for s in (F(0), F(1), F(1, 5), F(1, 2)):
        truth = tight_ratio(ref(s), inputs, neighbours)
        numeric = cli_json(capsys, ["privacy", f"ends.py:{name}", "-p", f"t={s}", "--exact", "--json", *extra])
        assert numeric["ratio_exact"] == ("inf" if truth == math.inf else str(truth)), s
        assert json_value(out["pieces"], s) == truth, s
        assert r.ratio_at(s) == truth and r.epsilon_at(s) == float(numeric["epsilon"]), s


def test_a_bound_below_the_float_range(capsys):
    """lam in [1e-400, 1/2]: the bound is read exactly (it underflows as a float) and the run does not take a float
    log of the weights there (a ValueError before); the piece is (1 - lam)/lam, exact at 1e-400."""
    tiny = F(1, 10**400)
    out = cli_json(capsys, ["privacy", "randomized_response", "-p", "n=2", "--symbolic", "lam=1e-400:1/2", "--json"])
    assert F(out["parameter"]["from"]) == tiny and json_value(out["pieces"], tiny) == (1 - tiny) / tiny
    assert json_value(out["pieces"], F(1, 5)) == tight_ratio(lambda x, c: tuple(v ^ flip(c, F(1, 5)) for v in x),
                                                             BITS2, hamming)
    lam = Parameter("lam", tiny, F(1, 2))
    r = synthesize_privacy(Program("rr", Bits(2), lambda x: (x[0] ^ dsl_flip(lam), x[1] ^ dsl_flip(lam))))
    assert r.ratio_at(tiny) == (1 - tiny) / tiny and r.epsilon_at(tiny) == pytest.approx(400 * math.log(10))


def test_an_unwritable_plot_is_refused_before_anything_is_computed(programs, capsys):
    """One line, exit 2, before the program is even built (its factory would raise)."""
    for argv in (["privacy", "ends.py:broken"], ["accuracy", "ends.py:broken", "--alpha", "1"],
                 ["approx", "ends.py:broken", "--epsilon", "ln:2"]):
        assert main([*argv, "--symbolic", "t=0:1", "--plot", "/nonexistent/f.png"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("wmcdp: error: --plot /nonexistent/f.png"), err


def test_a_support_change_at_an_irrational_point():
    """x & flip((2t² - 1)²) is infinite on [0, 1] but at t = 1/√2, where the flip never gives 1 and the pair
    (x = 1, x' = 0, y = 1) is 0/0: there e^ε = 1 (y = 0 has probability 1 on both sides). Refused before."""
    t = Parameter("t", 0, 1)
    r = synthesize_privacy(Program("alg", Bits(1), lambda x: x[0] & dsl_flip((2 * t * t - 1) * (2 * t * t - 1))))
    assert [p.den.is_zero() for p in r.pieces] == [True, False, True]
    point = r.pieces[1]
    assert point.start is point.end or compare(point.start, point.end) == 0
    root = Poly([-1, 0, 2])
    assert [int(c) for c in point.start.poly.coeffs()] == [-1, 0, 2] and point.start.lo > 0
    assert (point.num - point.den) % root == 0  # num/den = 1 where 2t² = 1
    assert r.ratio_at(F(7, 10)) == math.inf and r.ratio_at(0) == math.inf == r.ratio_at(1)
