"""The edges of (ε, δ): δ ∈ {0, 1}, ε ∈ {0, ∞}, exact δ at an irrational e^ε far below the float range, monotone
profiles, and composition refused before any work — through the API and the command line, in float and exact
mode, under the planner (products, symmetry) and exhaustive pairs.

The reference is independent of wmcdp: every random choice of a plain-Python mechanism is enumerated with exact
Fractions (:mod:`brute`), and δ(ε) = max over ordered neighbour pairs of Σ_y max(0, P(y|x) − e^ε P(y|x')) is
formed exactly at a rational e^ε and with mpmath at 1200 digits (no exponent range) at an irrational one.
"""

from __future__ import annotations

import json
import math
import random
import time
from fractions import Fraction

import brute
import mpmath
import pytest

from wmcdp import Bits, Program, compile_program, flip, privacy_profile, synthesize_approximate
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main

P = Fraction("1e-225")  # P² = 1e-450, below the smallest float (2^-1075 ≈ 2.5e-324)
HALF = Fraction(1, 2)
DIGITS = 1200  # δ near 1e-450 is a difference of numbers near 1: about 500 digits cancel


@pytest.fixture(autouse=True)
def _digits():
    """Every mpmath number of this module at :data:`DIGITS` digits."""
    with mpmath.workdps(DIGITS):
        yield


def _inputs(n: int) -> list[tuple[int, ...]]:
    return [tuple((i >> k) & 1 for k in range(n)) for i in range(2**n)]


def _hamming(x: tuple) -> list[tuple]:
    return [tuple(v ^ (j == k) for j, v in enumerate(x)) for k in range(len(x))]


def _dists(fn, n: int) -> dict:
    return {x: brute.distribution(fn, x) for x in _inputs(n)}


def _mp(q) -> mpmath.mpf:
    if isinstance(q, mpmath.mpf):
        return q
    q = Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _reference_delta(dists: dict, epsilon) -> tuple[mpmath.mpf, set]:
    """``(δ(ε), the ordered pairs attaining it)``: exact Fractions at a rational e^ε (``"ln:R"``, 0) and at ε = ∞
    (the mass that x' never produces), mpmath at :data:`DIGITS` digits at an irrational e^ε."""
    if epsilon == math.inf:

        def value(p, q):
            return sum((p[y] for y in p if q.get(y, 0) == 0), Fraction(0))

    elif isinstance(epsilon, str) or epsilon == 0:
        t = Fraction(epsilon[3:]) if isinstance(epsilon, str) else Fraction(1)

        def value(p, q):
            return brute.hockey(p, q, t)

    else:
        t = mpmath.exp(_mp(Fraction(epsilon)))

        def value(p, q):
            return mpmath.fsum(max(0, _mp(p.get(y, 0)) - t * _mp(q.get(y, 0))) for y in set(p) | set(q))

    scores = {(x, xp): _mp(value(dists[x], dists[xp])) for x in dists for xp in _hamming(x)}
    best = max(scores.values())
    tie = best * mpmath.mpf(10) ** -(DIGITS - 100)
    return best, {pair for pair, v in scores.items() if v >= best - tie}


def _reference_ratio(dists: dict, delta: Fraction) -> tuple[object, set]:
    """``(e^ε(δ), the ordered pairs attaining it)`` exactly (:func:`brute.ratio_for_delta` per pair)."""
    scores = {(x, xp): brute.ratio_for_delta(dists[x], dists[xp], delta) for x in dists for xp in _hamming(x)}
    best = max(scores.values())
    return best, {pair for pair, v in scores.items() if v == best}


def _value(r) -> mpmath.mpf:
    """The library's δ as an mpmath number: exact Fractions as they are, an exact real (δ at an irrational
    e^ε) from its integers, a float δ from its log when it underflowed."""
    if r.exact_delta is not None:
        g = r.exact_delta
        return (mpmath.mpf(g.A) - mpmath.mpf(g.B) * mpmath.exp(_mp(Fraction(g.x)))) / g.D
    if isinstance(r.delta, Fraction):
        return _mp(r.delta)
    if r.delta == 0.0 and r.log_delta is not None and math.isfinite(r.log_delta):
        return mpmath.exp(r.log_delta)
    return mpmath.mpf(r.delta)


def _pair(r) -> tuple:
    return (tuple(r.witness.x), tuple(r.witness.x_prime))


def _write(tmp_path, body: str) -> str:
    path = tmp_path / "edges.py"
    path.write_text(
        f"from fractions import Fraction\nfrom wmcdp import Bits, Program, flip\nP = Fraction('1e-225')\n{body}\n"
    )
    return str(path)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- the programs of the issue ------------------------------------------------------------------

FILE = """
def det():
    return Program("det", Bits(1), lambda x: (x[0], flip(0.1)))
def det_exact():
    return Program("det", Bits(1), lambda x: (x[0], flip(Fraction(1, 10))))
def tiny():
    return Program("tiny", Bits(1), lambda x: x[0] & flip(P) & flip(P))
def gap():
    return Program("gap", Bits(1), lambda x: flip(P) & flip(P) & (x[0] | flip(Fraction(1, 2))))
def rr():
    return Program("rr", Bits(1), lambda x: x[0] ^ flip(Fraction(1, 4)))
"""


def det(p=0.1):
    return Program("det", Bits(1), lambda x: (x[0], flip(p)))


def det_ref(x, c):
    return (x[0], brute.flip(c, Fraction(1, 10)))


def tiny():
    return Program("tiny", Bits(1), lambda x: x[0] & flip(P) & flip(P))


def tiny_ref(x, c):
    return x[0] & brute.flip(c, P) & brute.flip(c, P)


def gap():
    """δ(ε) = P²(1 − e^ε/2) for e^ε < 2 (the pair (1, 0)): irrational at ε = 0.5 and about 1.76e-451."""
    return Program("gap", Bits(1), lambda x: flip(P) & flip(P) & (x[0] | flip(HALF)))


def gap_ref(x, c):
    return brute.flip(c, P) & brute.flip(c, P) & (x[0] | brute.flip(c, HALF))


def product():
    """Two independent parts (a product plan): the first leaks nothing, the second is :func:`gap`."""
    return Program("prod", Bits(2), lambda x: (x[0] ^ flip(HALF), flip(P) & flip(P) & (x[1] | flip(HALF))))


def product_ref(x, c):
    return (x[0] ^ brute.flip(c, HALF), brute.flip(c, P) & brute.flip(c, P) & (x[1] | brute.flip(c, HALF)))


# -- ε(δ = 1) = 0 and ε(0) = the pure ε --------------------------------------------------------


def test_epsilon_at_delta_one_is_zero_in_every_mode(tmp_path, capsys):
    """δ(0) is a total variation distance, at most 1: ε(1) = 0 for every program (float mode said ∞)."""
    programs = [det(), det(Fraction(1, 10)), tiny(), gap(), product()]
    for prog in programs:
        for pairs in (None, "exhaustive", "auto"):
            for delta in (1, 1.0, "1"):
                r = synthesize_approximate(prog, pairs, delta=delta)
                assert r.epsilon == 0.0 and r.ratio == 1, (prog.name, pairs, delta, r.epsilon)
    r = synthesize_approximate(det(), delta=1, compose=3)
    assert r.epsilon == 0.0
    file = _write(tmp_path, FILE)
    for fn in ("det", "det_exact", "tiny", "gap", "rr"):
        for extra in ([], ["--sets", "exhaustive"], ["--sets", "auto"], ["--compose", "2"]):
            code, out, err = _cli(capsys, "approx", f"{file}:{fn}", "--delta", "1", *extra, "--json")
            assert code == 0 and err == "", (fn, extra, err)
            got = json.loads(out)
            assert got["epsilon"] == 0.0 and got["ratio"] == 1.0, (fn, extra, got)


def test_delta_zero_is_the_pure_epsilon_and_one_minus_tiny_keeps_the_infinite_mass(tmp_path, capsys):
    """ε(0) is the pure ε (∞ with a witness pair where x' never gives an output of x); just below δ = 1, ε stays
    ∞ when the mass that x' never produces is 1; ε(1) is 0 again (float mode said ∞ there)."""
    dists = _dists(det_ref, 1)
    for prog in (det(Fraction(1, 10)), det()):
        for delta, want in ((0, math.inf), (1 - Fraction("1e-16"), math.inf), (1, 0.0)):
            r = synthesize_approximate(prog, delta=delta)
            assert r.epsilon == want, (delta, r.epsilon)
            ratio, pairs = _reference_ratio(dists, Fraction(delta))
            assert (ratio == math.inf) == (want == math.inf)
            assert _pair(r) in pairs
    file = _write(tmp_path, FILE)
    code, out, _ = _cli(capsys, "approx", f"{file}:det", "--delta", "0", "--json")
    assert code == 0 and json.loads(out)["epsilon"] == "inf"
    code, out, _ = _cli(capsys, "approx", f"{file}:det", "--delta", "1", "--json")
    assert code == 0 and json.loads(out)["epsilon"] == 0.0


# -- δ(ε) at ε = 0 and ε = ∞ --------------------------------------------------------------------


def test_delta_at_epsilon_zero_and_infinity(tmp_path, capsys):
    """δ(0) is the largest total variation distance; δ(∞) the largest mass that x' never produces (it was refused)."""
    cases = [
        (det(Fraction(1, 10)), det_ref, 1),
        (tiny(), tiny_ref, 1),
        (gap(), gap_ref, 1),
        (product(), product_ref, 2),
    ]
    for prog, ref, n in cases:
        dists = _dists(ref, n)
        for epsilon in (0, math.inf, "inf"):
            want, pairs = _reference_delta(dists, 0 if epsilon == 0 else math.inf)
            for pairs_arg in (None, "exhaustive"):
                r = synthesize_approximate(prog, pairs_arg, epsilon=epsilon)
                assert isinstance(r.delta, Fraction) and _mp(r.delta) == want, (prog.name, epsilon, r.delta)
                assert _pair(r) in pairs
            if prog.name == "det":  # (float weights past 1e-308 underflow in the count itself)
                f = synthesize_approximate(prog, epsilon=epsilon, exact=False)
                assert float(_value(f)) == pytest.approx(float(want), rel=1e-12) and _pair(f) in pairs
    file = _write(tmp_path, FILE)
    code, out, _ = _cli(capsys, "approx", f"{file}:tiny", "--epsilon", "inf", "--json")
    got = json.loads(out)
    assert code == 0 and got["delta"] == "1e-450" and got["delta_exact"] == f"1/{10**450}"
    assert got["witness"] == {"x": [1], "x_prime": [0]}


# -- exact δ at an irrational e^ε: an enclosure, never 0 ----------------------------------------


def test_exact_delta_at_an_irrational_threshold_below_the_float_range_is_enclosed():
    """gap at ε = 0.5: δ = P²(1 − e^0.5/2) ≈ 1.76e-451 (old exact mode printed 0 and the pair (0, 1))."""
    dists = _dists(gap_ref, 1)
    want, pairs = _reference_delta(dists, 0.5)
    assert pairs == {((1,), (0,))}
    for prog, pairs_arg in ((gap(), None), (gap(), "exhaustive"), (product(), None), (product(), "exhaustive")):
        r = synthesize_approximate(prog, pairs_arg, epsilon=0.5)
        assert r.exact and r.exact_delta is not None
        i = r.interval
        assert i.of == "delta" and 0 < i.lo <= i.hi and isinstance(i.lo, Fraction)
        assert _mp(i.lo) <= want <= _mp(i.hi)
        assert (_mp(i.hi) - _mp(i.lo)) / want < 1e-15
        assert r.log_delta == pytest.approx(float(mpmath.log(want)), rel=1e-15)
        assert r.delta == 0.0  # the nearest float; the value lives in log_delta and the enclosure
        assert _pair(r) in (pairs if prog.name == "gap" else {((0, 1), (0, 0))})


def test_exact_delta_is_rational_when_the_maximiser_exceeds_only_where_x_prime_is_zero():
    """tiny: δ(ε) = P² = 1e-450 at every ε (the pair (1, 0)); ε = 1 gave 0 with the pair (0, 1), and ln:2 gave
    1e-450, so the old profile rose. ε = 1e308 aborted inside GMP after a minute."""
    dists = _dists(tiny_ref, 1)
    epsilons = [0, "ln:2", 1, 0.5, 1e308, math.inf]
    for epsilon in epsilons:
        want, pairs = _reference_delta(dists, epsilon)
        start = time.perf_counter()
        r = synthesize_approximate(tiny(), epsilon=epsilon)
        assert time.perf_counter() - start < 2
        assert r.delta == P**2 and isinstance(r.delta, Fraction), (epsilon, r.delta)
        assert _pair(r) in pairs and (epsilon == 0 or pairs == {((1,), (0,))})  # at ε = 0 both orders give P²
    points = privacy_profile(tiny(), epsilons)
    assert [p.delta for p in points] == [P**2] * len(epsilons)


def test_cli_exact_delta_at_irrational_epsilon(tmp_path, capsys):
    file = _write(tmp_path, FILE)
    code, out, err = _cli(capsys, "approx", f"{file}:tiny", "--epsilon", "1", "--exact", "--json")
    got = json.loads(out)
    assert code == 0 and got["delta"] == "1e-450" and got["witness"] == {"x": [1], "x_prime": [0]}
    code, out, err = _cli(capsys, "approx", f"{file}:gap", "--epsilon", "0.5", "--exact", "--json")
    got = json.loads(out)
    assert code == 0 and got["delta"].startswith("1.7563936") and got["delta"].endswith("e-451")
    lo, hi = (Fraction(v) for v in got["delta_interval"])
    assert 0 < lo <= hi and got["witness"] == {"x": [1], "x_prime": [0]}
    code, out, err = _cli(capsys, "approx", f"{file}:gap", "--epsilon", "0.5", "--exact")
    assert code == 0 and "1.756393646e-451" in out and "delta (certified)  [1.75639364649935" in out
    start = time.perf_counter()
    code, out, err = _cli(capsys, "approx", f"{file}:rr", "--epsilon", "1e308", "--exact", "--json")
    assert code == 0 and json.loads(out)["delta_exact"] == "0" and time.perf_counter() - start < 5


# -- profiles are monotone, and right, on random programs ---------------------------------------

POOL = [HALF, Fraction(1, 5), Fraction(2, 3), Fraction(1, 1000), Fraction("1e-300"), 1 - Fraction("1e-16")]


SHAPES = [  # (body over x and a flip function, the weights given in order): a sum, a product of two parts, a mix
    lambda x, f: (x[0] ^ f(0)) + ((x[1] | f(1)) & f(2)),
    lambda x, f: (x[0] & f(0), (x[1] ^ f(1)) | f(2)),
    lambda x, f: ((x[0] ^ x[1]) & f(0)) | (x[1] & f(1) & f(2)),
]


def _random_program(rng: random.Random, exact: bool):
    """A random program of :data:`SHAPES` with weights from :data:`POOL`, and the same mechanism for the
    enumeration (a float program's weights are the floats' exact binary values)."""
    shape = rng.choice(SHAPES)
    weights = [rng.choice(POOL) if exact else float(rng.choice(POOL)) for _ in range(3)]
    prog = Program("rand", Bits(2), lambda x: shape(x, lambda i: flip(weights[i])))

    def ref(x, ch):
        return shape(x, lambda i: brute.flip(ch, Fraction(weights[i])))

    return prog, ref


EPSILONS = [0, 0.3, "ln:3/2", 1.0, 2.5, 1e308, math.inf]
DELTAS = [Fraction(0), Fraction("1e-300"), Fraction(1, 1000), HALF, 1 - Fraction("1e-16"), Fraction(1)]


@pytest.mark.parametrize("seed", range(4))
def test_exact_profiles_are_monotone_and_match_the_enumeration(seed):
    rng = random.Random(seed)
    prog, ref = _random_program(rng, exact=True)
    dists = _dists(ref, 2)
    compiled = compile_program(prog)
    points = privacy_profile(compiled, EPSILONS)
    values = []
    for epsilon, point in zip(EPSILONS, points):
        want, pairs = _reference_delta(dists, epsilon)
        got = _value(point)
        assert abs(got - want) <= want * mpmath.mpf(10) ** -(DIGITS - 100), (seed, epsilon, got, want)
        if point.interval is not None:
            assert _mp(point.interval.lo) <= want <= _mp(point.interval.hi)
        assert _pair(point) in pairs, (seed, epsilon)
        values.append(got)
    assert all(x >= y for x, y in zip(values, values[1:])), (seed, values)
    ratios = []
    for delta in DELTAS:
        r = synthesize_approximate(compiled, delta=delta)
        want, pairs = _reference_ratio(dists, delta)
        assert r.ratio == want, (seed, delta, r.ratio, want)
        assert _pair(r) in pairs
        ratios.append(r.ratio)
    assert all(x >= y for x, y in zip(ratios, ratios[1:])), (seed, ratios)


@pytest.mark.parametrize("seed", range(4))
def test_float_profiles_are_monotone_and_match_the_enumeration(seed):
    rng = random.Random(100 + seed)
    prog, ref = _random_program(rng, exact=False)
    dists = _dists(ref, 2)
    compiled = compile_program(prog)
    points = privacy_profile(compiled, [e for e in EPSILONS if not isinstance(e, str)], exact=False)
    values = []
    for epsilon, point in zip([e for e in EPSILONS if not isinstance(e, str)], points):
        want, _ = _reference_delta(dists, epsilon)
        got = _value(point)
        # float masses near 1 (a weight 1 − 1e-16) carry an absolute error of a few ulps of 1
        assert float(got) == pytest.approx(float(want), rel=1e-9, abs=1e-15), (seed, epsilon, got, want)
        values.append(got)
    assert all(x >= y for x, y in zip(values, values[1:])), (seed, values)
    epsilons = []
    for delta in (0.0, 1e-3, 0.5, 1.0):
        r = synthesize_approximate(compiled, delta=delta, exact=False)
        # ε(δ) is ill-conditioned where δ(ε) is flat; float masses move δ by ~1e-16: check ε through δ(ε)
        want, _ = _reference_ratio(dists, Fraction(delta))
        if want == math.inf or r.epsilon == math.inf:
            assert want == r.epsilon == math.inf or _reference_delta(dists, math.inf)[0] == pytest.approx(delta)
        else:
            above, below = r.epsilon * (1 + 1e-12) + 1e-12, r.epsilon * (1 - 1e-12) - 1e-12  # ε to 1e-12 relative
            assert _reference_delta(dists, above)[0] <= delta + 1e-15, (seed, delta, r.epsilon)
            assert below < 0 or _reference_delta(dists, below)[0] >= delta - 1e-15, (seed, delta, r.epsilon)
        epsilons.append(r.epsilon)
    assert epsilons[-1] == 0.0 and all(x >= y for x, y in zip(epsilons, epsilons[1:])), (seed, epsilons)


# -- the witness pair attains the reported value -------------------------------------------------


def reveal(c: float | Fraction, r: float | Fraction):
    """Entry 0 revealed with probability ``c`` (both orders: δ_p(t) = c at every t, the mass that x' never
    produces), entry 1 by randomized response ``r``: ε(c) = ln((1 − r − c)/r), attained only by entry 1's pairs."""

    def body(x):
        shown = flip(c)
        return (x[0] & shown, shown, x[1] ^ flip(r))

    return Program("reveal", Bits(2), body)


def reveal_ref(c: Fraction, r: Fraction):
    def fn(x, choose):
        shown = brute.flip(choose, c)
        return (x[0] & shown, shown, x[1] ^ brute.flip(choose, r))

    return fn


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("pairs", [None, "exhaustive"])
def test_epsilon_for_delta_witness_is_not_a_pair_flat_at_delta(exact, pairs):
    """At δ = c the pairs of entry 0 have δ_p(t) = δ at every t: their own ε(δ) is 0, yet at the answer t = 13/5
    they tie with entry 1's pairs on δ_p(t), and the exhaustive sets named one of them (its ratio 1, not 13/5).
    The witness is a pair whose own ε(δ) is the maximum."""
    c, r = Fraction(1, 10), Fraction(1, 4)
    if not exact:
        c, r = Fraction(0.1), Fraction(0.25)  # the binary values of the float weights
    want, attaining = _reference_ratio(_dists(reveal_ref(c, r), 2), c)
    assert want == (1 - r - c) / r
    assert attaining == {((0, 0), (0, 1)), ((0, 1), (0, 0)), ((1, 0), (1, 1)), ((1, 1), (1, 0))}
    prog = reveal(float(c), float(r)) if not exact else reveal(c, r)
    result = synthesize_approximate(prog, pairs, delta=c if exact else 0.1, exact=exact)
    assert _pair(result) in attaining, result.witness
    if exact:
        assert result.ratio == want
    else:
        assert result.epsilon == pytest.approx(math.log(want), rel=1e-12)


def _count_of_two():
    """Two entries each kept with a tiny probability, counted (the fuzzer's float δ witness): with weights 1e-20 and
    1e-9 on entry 0 and 1e-20, 1e-20 on entry 1, at ε = ln 5 the pairs (1,1)/(0,0) and (1,0)/(0,0) have δ
    1.00000000001e-29 and 1e-29 — 1e-11 apart, relative: distinct at float precision."""
    w = (1e-20, 1e-9, 1e-20, 1e-20)
    prog = Program(
        "count",
        Bits(2),
        lambda x: (x[0] & flip(w[0]) & flip(w[1])) + (x[1] & flip(w[2]) & flip(w[3])),
        neighbours="all-entries",
    )
    f = [Fraction(v) for v in w]

    def ref(x, choose):
        a = x[0] & brute.flip(choose, f[0]) & brute.flip(choose, f[1])
        return a + (x[1] & brute.flip(choose, f[2]) & brute.flip(choose, f[3]))

    return prog, ref


@pytest.mark.parametrize("pairs", [None, "exhaustive"])
def test_float_delta_witness_is_the_pair_whose_delta_is_reported(pairs):
    """Float δ(ln 5): the witness is the maximiser of the same float numbers that gave δ; the tie tolerance is
    relative on δ (ln δ ≈ −66 had widened it to 7e-11 and named (1,0)/(0,0), 1e-11 below the maximum)."""
    prog, ref = _count_of_two()
    dists = _dists(ref, 2)
    scores = {(x, xp): brute.hockey(dists[x], dists[xp], 5) for x in dists for xp in dists if x != xp}
    want = max(scores.values())
    assert [p for p, v in scores.items() if v == want] == [((1, 1), (0, 0))]
    assert scores[((1, 0), (0, 0))] < want * (1 - Fraction(1, 10**12))
    result = synthesize_approximate(prog, pairs, epsilon="ln:5", exact=False)
    (point,) = privacy_profile(prog, ["ln:5"], pairs, exact=False)
    for r in (result, point):
        assert _pair(r) == ((1, 1), (0, 0)), r.witness
        assert r.delta == pytest.approx(float(want), rel=1e-13)


# -- composition: refused before any work --------------------------------------------------------


def test_compose_past_the_limit_is_refused_at_once(tmp_path, capsys):
    """100000 runs of randomized response hold 100001 losses, but repeated squaring must form more than 2^22
    products on its way: refused in one line before any (it ran past 2 minutes)."""
    rr = Program("rr", Bits(1), lambda x: x[0] ^ flip(Fraction(1, 4)))
    start = time.perf_counter()
    with pytest.raises(WmcdpError, match="distinct losses"):
        synthesize_approximate(rr, epsilon=1, compose=100000)
    assert time.perf_counter() - start < 2
    file = _write(tmp_path, FILE)
    start = time.perf_counter()
    code, out, err = _cli(capsys, "approx", f"{file}:rr", "--epsilon", "1", "--compose", "100000")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("wmcdp: error:")
    assert time.perf_counter() - start < 2


# -- certified runs (weights given as exact reals) ---------------------------------------------


def test_certified_edges(tmp_path, capsys):
    """Certified ε(0) is the pure ε, enclosed (it never became narrow before); ε(1) = 0; a certified δ at ε = ∞
    is refused in one line (its bound widens with e^ε)."""
    from wmcdp import Real

    prog = Program("rr", Bits(1), lambda x: x[0] ^ flip(Real("exp(-1)")))
    r = synthesize_approximate(prog, delta=0, certified=True)
    truth = math.log(math.e - 1)  # (1 − e^-1) / e^-1
    assert r.interval.lo <= truth <= r.interval.hi and r.interval.hi - r.interval.lo < 1e-12
    r = synthesize_approximate(prog, delta=1, certified=True)
    assert r.epsilon == 0.0 and r.interval.hi == 0.0
    with pytest.raises(WmcdpError, match="finite epsilon"):
        synthesize_approximate(prog, epsilon=math.inf, certified=True)
    file = _write(
        tmp_path,
        "from wmcdp import Real\ndef rr():\n    return Program('rr', Bits(1), lambda x: x[0] ^ flip(Real('exp(-1)')))",
    )
    code, out, err = _cli(capsys, "approx", f"{file}:rr", "--epsilon", "inf", "--certified")
    assert code == 2 and err.count("\n") == 1 and "finite epsilon" in err
