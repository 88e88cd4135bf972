"""Bounds as functions of a parameter (wmcdp.notions.piecewise): every piece against an independent enumeration of
the mechanism at random rationals of the interval, the closed forms of the paper, exact breakpoints (rational
and irrational), infinite pieces, every plan, and the command line."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction as F

import pytest
from brute import distribution, flip, tight_ratio

from wmcdp import Bits, Parameter, Program, WmcdpError, discrete, ite, synthesize_accuracy, synthesize_approximate
from wmcdp import flip as dsl_flip
from wmcdp import synthesize_privacy
from wmcdp.cli import main
from wmcdp.lang.geometric import truncated_geometric_probabilities
from wmcdp.base.roots import Algebraic
from wmcdp.programs import (geometric_above_threshold, noisy_max, randomized_response, rr_counting,
                            truncated_geometric)




def bits(n):
    return [tuple((k >> (n - 1 - i)) & 1 for i in range(n)) for k in range(2**n)]


def hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(len(x))]


def one_entry(k):
    def neighbours(x):
        return [x[:i] + (x[i] + d,) + x[i + 1 :] for i in range(len(x)) for d in (-1, 1) if 0 <= x[i] + d <= k]

    return neighbours


def samples(lo: F, hi: F, count: int = 6, seed: int = 0) -> list[F]:
    rng = random.Random(seed)
    return [lo, hi] + [lo + (hi - lo) * F(rng.randrange(1, 997), 997) for _ in range(count)]


def rr_ref(t):
    return lambda x, choose: tuple(xi ^ flip(choose, t) for xi in x)


def cross_program(t):
    return Program("cross", Bits(1), lambda x: ite(x[0], dsl_flip(t * t), dsl_flip(F(1, 2))))


def cross_ref(t):
    return lambda x, choose: flip(choose, t * t) if x[0] else flip(choose, F(1, 2))


def coins_program(t):
    """Two entries, weights t/2, 1 - t and a discrete with polynomial weights."""

    def body(x):
        d = discrete({0: t * t, 1: t - t * t, 2: 1 - t})
        return (x[0] ^ dsl_flip(t / 2), ite(x[1], d, 2 - d))

    return Program("coins", Bits(2), body)


def coins_ref(t):
    def fn(x, choose):
        d = choose({0: t * t, 1: t - t * t, 2: 1 - t})
        return (x[0] ^ flip(choose, t / 2), d if x[1] else 2 - d)

    return fn


def tgeom_ref(m, t):
    return lambda x, choose: choose(truncated_geometric_probabilities(x[0], 0, m, t))


def gat_ref(n, k, thr, a):
    def fn(x, choose):
        threshold = choose(truncated_geometric_probabilities(thr, 0, k, a))
        for i in range(n):
            if choose(truncated_geometric_probabilities(x[i], 0, k, a)) > threshold:
                return i
        return n

    return fn


def grid(n, k):
    out = [()]
    for _ in range(n):
        out = [x + (v,) for x in out for v in range(k + 1)]
    return out


def all_entries(k):
    def neighbours(x):
        out = [()]
        for v in x:
            out = [y + (w,) for y in out for w in (v - 1, v, v + 1) if 0 <= w <= k]
        return [y for y in out if y != x]

    return neighbours


def noisy_max_ref(n, m, a):
    def fn(x, choose):
        values = [choose(truncated_geometric_probabilities(x[i], -1, m + 1, a)) for i in range(n)]
        return max(range(n), key=lambda i: (values[i], -i))

    return fn


CASES = {
    "rr": (lambda t: randomized_response(3, t), rr_ref, bits(3), hamming, (F(0), F(1))),
    "rr_counting": (lambda t: rr_counting(3, t), lambda t: (lambda x, c: sum(rr_ref(t)(x, c))), bits(3), hamming,
                    (F(1, 10), F(1, 2))),
    "cross": (cross_program, cross_ref, bits(1), hamming, (F(1, 10), F(9, 10))),
    "coins": (coins_program, coins_ref, bits(2), hamming, (F(1, 5), F(4, 5))),
    "tgeom": (lambda a: truncated_geometric(3, alpha=a), lambda a: tgeom_ref(3, a), grid(1, 3), one_entry(3),
              (F(1, 10), F(9, 10))),
    "noisy_max": (lambda a: noisy_max(2, 1, alpha=a), lambda a: noisy_max_ref(2, 1, a), grid(2, 1), all_entries(1),
                  (F(1, 10), F(9, 10))),
    "gat": (lambda a: geometric_above_threshold(2, 2, 1, alpha=a), lambda a: gat_ref(2, 2, 1, a), grid(2, 2),
            one_entry(2), (F(1, 5), F(4, 5))),
}


@pytest.mark.parametrize("sets", [None, "exhaustive"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pieces_equal_brute_force_at_random_rationals(name, sets):
    build, ref, inputs, neighbours, (lo, hi) = CASES[name]
    r = synthesize_privacy(build(Parameter("t", lo, hi)), sets)
    assert r.pieces[0].start == lo and r.pieces[-1].end == hi
    for t in samples(lo, hi):
        assert r.ratio_at(t) == tight_ratio(ref(t), inputs, neighbours), t


def test_randomized_response_closed_form_and_its_mirror():
    """ln((1 - λ)/λ) on [0, 1/2] and ln(λ/(1 - λ)) on [1/2, 1], with the breakpoint exactly 1/2."""
    lam = Parameter("lam", 0, 1)
    r = synthesize_privacy(randomized_response(10, lam), "exhaustive")
    # at lam = 1 the second piece's witness is 0/0 (P = lam(1 - lam)^9 on both sides): a point piece takes over
    assert [(p.start, p.end) for p in r.pieces] == [(0, F(1, 2)), (F(1, 2), 1), (1, 1)]
    assert r.pieces[2].den.is_zero() and r.pieces[2].witness.y == (1,) * 10
    t = lam.num
    assert (r.pieces[0].num, r.pieces[0].den) == (1 - t, t)
    assert (r.pieces[1].num, r.pieces[1].den) == (-t, t - 1)  # lam/(1 - lam), denominator monic
    assert r.ratio_at(0) == math.inf and r.ratio_at(1) == math.inf and r.ratio_at(F(1, 5)) == 4
    w = r.pieces[0].witness
    assert (w.x, w.x_prime) == ((0,) * 10, (1,) + (0,) * 9)


def test_truncated_geometric_is_one_over_alpha():
    """−ln α for every α in the interval: one piece, e^ε = 1/α."""
    a = Parameter("alpha", F(1, 100), F(99, 100))
    r = synthesize_privacy(truncated_geometric(5, alpha=a))
    assert len(r.pieces) == 1 and r.pieces[0].num == 1 and r.pieces[0].den == a.num


def test_rr_counting_accuracy_is_table_3_at_one_fifth():
    """The paper's Table 3 value at n = 8, α = 3, λ = 1/5: 73728/78125; and 1 − β everywhere from brute force."""
    lam = Parameter("lam", 0, F(1, 2))
    r = synthesize_accuracy(rr_counting(8, lam), alpha=3)
    assert r.one_minus_beta_at(F(1, 5)) == F(73728, 78125)
    small = synthesize_accuracy(rr_counting(4, lam), alpha=1)
    for t in samples(F(0), F(1, 2)):
        worst = min(
            sum(p for y, p in distribution(lambda x, c: sum(rr_ref(t)(x, c)), x).items() if abs(y - sum(x)) <= 1)
            for x in bits(4)
        )
        assert small.one_minus_beta_at(t) == worst


def test_an_irrational_breakpoint_is_exact():
    """cross: 1/(2t²) meets 1/(2 - 2t²) where 2t² = 1, at t = 1/√2."""
    r = synthesize_privacy(cross_program(Parameter("t", F(1, 10), F(9, 10))), "exhaustive")
    assert len(r.pieces) == 2
    b = r.pieces[0].end
    assert isinstance(b, Algebraic) and [int(c) for c in b.poly.coeffs()] == [-1, 0, 2]
    assert b.lo < F(7071067811865476, 10**16) and float(b) == pytest.approx(1 / math.sqrt(2), abs=1e-15)


def test_a_probability_zero_everywhere_gives_an_infinite_piece():
    prog = Program("leak", Bits(1), lambda x: x[0] & dsl_flip(Parameter("t", F(1, 4), F(3, 4))))
    r = synthesize_privacy(prog, "exhaustive")
    assert len(r.pieces) == 1 and r.pieces[0].den.is_zero() and r.ratio_at(F(1, 2)) == math.inf


def test_every_plan_gives_the_same_pieces():
    lam = Parameter("lam", F(1, 10), F(1, 2))
    base = synthesize_privacy(rr_counting(5, lam), "exhaustive")
    for sets in (None, "auto"):
        r = synthesize_privacy(rr_counting(5, lam), sets)
        assert [(p.start, p.end, p.num, p.den) for p in r.pieces] == [
            (p.start, p.end, p.num, p.den) for p in base.pieces
        ]
    assert synthesize_privacy(randomized_response(200, lam)).plan.kind == "product"
    sdd = synthesize_privacy(rr_counting(5, lam), "exhaustive", backend="sdd")
    assert [(p.start, p.end, p.num, p.den) for p in sdd.pieces] == [(p.start, p.end, p.num, p.den) for p in base.pieces]
    low = synthesize_accuracy(rr_counting(4, lam), "exhaustive", alpha=1, backend="sdd")
    assert low.one_minus_beta_at(F(1, 5)) == synthesize_accuracy(rr_counting(4, F(1, 5)), alpha=1).one_minus_beta


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda t: Program("double", Bits(1), lambda x: x[0] ^ dsl_flip(2 * t)),
         "flip probability 2*t must lie in [0, 1] for every t in [0, 1]; at t = 1 it is 2"),
        (lambda t: Program("dice", Bits(1), lambda x: discrete({0: t, 1: t})),
         "discrete() probabilities sum to 2*t, not 1"),
        (lambda t: Program("mixed", Bits(1), lambda x: dsl_flip(t * 0.5)),
         "takes exact numbers, got the float 0.5"),
        (lambda t: randomized_response(2, 3 * t), "lam 3*t must lie in [0, 1] for every t in [0, 1]"),
    ],
)
def test_bad_weights_are_named(build, message):
    with pytest.raises(WmcdpError) as info:
        synthesize_privacy(build(Parameter("t", 0, 1)), "exhaustive")
    assert message in str(info.value)


def test_a_parameter_needs_an_interval():
    with pytest.raises(WmcdpError, match="lo < hi"):
        Parameter("t", 1, 1)


def test_command_line(capsys, tmp_path):
    assert main(["privacy", "randomized_response", "-p", "n=4", "--symbolic", "lam=0:1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["from"], p["to"]) for p in out["pieces"]] == [("0", "1/2"), ("1/2", "1")]
    assert out["pieces"][0]["numerator"] == ["1", "-1"] and out["pieces"][0]["denominator"] == ["0", "1"]
    assert out["pieces"][0]["witness"] == {"x": [0, 0, 0, 0], "x_prime": [1, 0, 0, 0], "y": [0, 0, 0, 0]}
    assert main(["privacy", "randomized_response", "-p", "n=4", "--symbolic", "lam=0:1/2", "--format", "latex"]) == 0
    assert r"\ln \frac{1 - lam}{lam} & lam \in [0, \tfrac{1}{2}]" in capsys.readouterr().out
    plot = tmp_path / "eps.png"
    assert main(["accuracy", "rr_counting", "-p", "n=6", "--alpha", "2", "--symbolic", "lam=0:1/2", "--plot",
                 str(plot)]) == 0
    assert "1 - beta = 1 - " in capsys.readouterr().out and plot.stat().st_size > 1000
    for argv, message in [
        (["--symbolic", "lam=0"], "malformed --symbolic 'lam=0': expected NAME=LO:HI"),
        (["--symbolic", "lam=0:1", "-p", "lam=1/5"], "lam is symbolic (--symbolic); do not also give -p lam=..."),
        (["--format", "latex"], "--format latex and --plot show a bound as a function: give --symbolic NAME=LO:HI"),
        (["--symbolic", "lam=0:half"], "is not a number"),
        (["--symbolic", "lam=0:1", "--workers", "2"], "--symbolic runs in one process; leave out --workers"),
    ]:
        assert main(["privacy", "randomized_response", "-p", "n=2", *argv]) == 2
        assert message in capsys.readouterr().err


def brute_delta(fn, inputs, neighbours, r: F) -> F:
    """max over ordered neighbour pairs of sum_y max(0, P(y|x) - r P(y|x')), by enumeration."""
    dists = {x: distribution(fn, x) for x in inputs}
    return max(
        sum((max(F(0), F(dists[x].get(y, 0)) - r * F(dists[xp].get(y, 0))) for y in set(dists[x]) | set(dists[xp])),
            F(0))
        for x in inputs
        for xp in neighbours(x)
    )


def test_delta_of_randomized_response_closed_form():
    """δ at e^ε = 3/2: 1 - (5/2)λ up to 2/5, 0 between 2/5 and 3/5, (5/2)λ - 3/2 from 3/5."""
    lam = Parameter("lam", 0, 1)
    r = synthesize_approximate(randomized_response(4, lam), epsilon="ln:3/2")
    assert [(p.start, p.end) for p in r.pieces] == [(0, F(2, 5)), (F(2, 5), F(3, 5)), (F(3, 5), 1)]
    assert [p.num for p in r.pieces] == [f.num for f in (1 - F(5, 2) * lam, 0 * lam, F(5, 2) * lam - F(3, 2))]


@pytest.mark.parametrize("name", ["rr", "coins", "tgeom", "cross"])
def test_delta_pieces_equal_brute_force(name):
    build, ref, inputs, neighbours, (lo, hi) = CASES[name]
    r = synthesize_approximate(build(Parameter("t", lo, hi)), epsilon="ln:5/4")
    for t in samples(lo, hi, seed=1):
        assert r.delta_at(t) == brute_delta(ref(t), inputs, neighbours, F(5, 4)), t


def test_delta_needs_a_rational_ratio_and_the_command_line_prints_it(capsys):
    lam = Parameter("lam", 0, 1)
    for kwargs, message in [(dict(delta=F(1, 10)), "delta at a fixed epsilon"), (dict(epsilon=0.5), "not 0.5"),
                            (dict(epsilon="ln:2", compose=2), "leave out pairs, I, at and compose")]:
        with pytest.raises(WmcdpError) as info:
            synthesize_approximate(randomized_response(2, lam), **kwargs)
        assert message in str(info.value)
    assert main(["approx", "randomized_response", "-p", "n=2", "--epsilon", "ln:3/2", "--symbolic", "lam=0:1",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ratio"] == "3/2" and [p["to"] for p in out["pieces"]] == ["2/5", "3/5", "1"]
    assert out["pieces"][0]["witness"] == {"x": [0, 0], "x_prime": [1, 0]}


@pytest.mark.parametrize("name", ["cross", "coins", "tgeom", "noisy_max", "gat"])
def test_every_cell_of_the_table_is_its_function(name):
    """The common denominator M and degree K of the counts (one pass over the diagram) are sound: every cell
    of the whole table, interpolated from K + 1 counts, equals the enumeration at random rationals."""
    from wmcdp.compile import compile_program
    from wmcdp.count.probabilities import Counter, number_system
    from wmcdp.lang.sets import all_outputs

    build, ref, inputs, _, (lo, hi) = CASES[name]
    compiled = compile_program(build(Parameter("t", lo, hi)))
    arith = number_system(compiled, None)
    table = Counter(compiled, arith).table()
    xs, ys = list(compiled.domain.values()), all_outputs(compiled.shape)
    assert table.shape == (len(xs), len(ys))
    for t in samples(lo, hi, count=2, seed=7):
        for x, row in zip(xs, table):
            dist = distribution(ref(t), x)
            assert [arith.probability(i)(t) for i in row] == [dist.get(y, 0) for y in ys], (x, t)


def test_discrete_trees_keep_only_the_root_denominator():
    """Geometric above threshold draws n + 1 truncated geometrics down trees of flips whose path products
    telescope to P(z) = (polynomial) / (1 + a): the common denominator is a power of 1 + a, and the degree
    bound is that of the largest numerator, not the sum over all the flips."""
    from wmcdp.compile import compile_program
    from wmcdp.base.polys import Poly
    from wmcdp.count.probabilities import number_system

    n, k = 3, 3
    compiled = compile_program(geometric_above_threshold(n, k, 2, alpha=Parameter("a", F(1, 10), F(9, 10))))
    arith = number_system(compiled, None)
    assert any(arith.denominator == Poly([1, 1]) ** e for e in range(n + 2))
    assert arith.degree <= (n + 1) * (k + 1)  # each TGeom's numerator has degree at most k + 1
