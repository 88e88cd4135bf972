"""compose_approximate: long heterogeneous compositions on one pair, exact or a certified bracket.

References: product distributions enumerated with exact Fractions from plain-Python mechanisms
(tests/brute.py), and the binomial sum of composed randomized response."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from unittest import mock

import brute
import pytest

from wmcdp import WmcdpError, compose_approximate
from wmcdp.cli import main
from wmcdp.lang import IntVector, Program, discrete, flip, ite, uniform
from wmcdp.programs import randomized_response, truncated_geometric

LAM = Fraction(1, 4)
KEEP = Fraction(3, 5)  # k-ary RR on {0, 1, 2} with e^eps = 3
ALPHA = Fraction(1, 2)


# -- the mechanisms, in the DSL and by hand, on the domain {0, 1, 2} (neighbours: one entry moves by one) ------


def rr_like(lam: object = LAM) -> Program:
    """The bit ``x >= 1``, flipped with probability ``lam``."""
    return Program(
        "rr_like",
        IntVector(1, 0, 2),
        lambda x: ite(flip(lam), ite(x[0] >= 1, 0, 1), ite(x[0] >= 1, 1, 0)),
        params={"lam": lam},
        neighbours="one-entry",
    )


def kary3(keep: object = KEEP) -> Program:
    """The value itself with probability ``keep``, else one of the two others uniformly."""

    def body(x):  # type: ignore[no-untyped-def]
        other = uniform(0, 1)
        return ite(flip(keep), x[0], ite(other >= x[0], other + 1, other))

    return Program("kary3", IntVector(1, 0, 2), body, params={"keep": keep}, neighbours="one-entry")


def mixture(q: object = Fraction(1, 3)) -> Program:
    """A subsampled-like mechanism with three outputs and incommensurate losses: with probability ``q`` the k-ary
    report of :func:`kary3`, else a draw of (1/2, 1/3, 1/6) that ignores the data."""

    def body(x):  # type: ignore[no-untyped-def]
        other = uniform(0, 1)
        noise = discrete([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
        return ite(flip(q), ite(flip(KEEP), x[0], ite(other >= x[0], other + 1, other)), noise)

    return Program("mixture", IntVector(1, 0, 2), body, params={"q": q}, neighbours="one-entry")


def rr_like_ref(x, choose):  # type: ignore[no-untyped-def]
    return int(x[0] >= 1) ^ brute.flip(choose, LAM)


def kary3_ref(x, choose):  # type: ignore[no-untyped-def]
    if brute.flip(choose, KEEP):
        return x[0]
    other = choose({0: Fraction(1, 2), 1: Fraction(1, 2)})
    return other + 1 if other >= x[0] else other


def tgeom_ref(x, choose):  # type: ignore[no-untyped-def]
    c, m, a = x[0], 2, ALPHA
    probs = {0: a**c / (1 + a), m: a ** (m - c) / (1 + a)}
    probs.update({z: (1 - a) / (1 + a) * a ** abs(z - c) for z in range(1, m)})
    return choose(probs)


def mixture_ref(x, choose):  # type: ignore[no-untyped-def]
    if brute.flip(choose, Fraction(1, 3)):
        return kary3_ref(x, choose)
    return choose({0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)})


PAIRS = [((0,), (1,)), ((1,), (0,)), ((1,), (2,)), ((2,), (1,))]


def product(refs: list, x: tuple) -> dict:
    """The exact distribution of the output tuple of every run, each run enumerated by brute force."""
    out: dict = {(): Fraction(1)}
    for ref in refs:
        dist = brute.distribution(ref, x)
        out = {ys + (y,): p * q for ys, p in out.items() for y, q in dist.items()}
    return out


def brute_delta(refs: list, ratio: Fraction) -> Fraction:
    """max over the pairs of sum_y max(0, P(y|x) - R P(y|x'))."""
    best = Fraction(0)
    for x, xp in PAIRS:
        p, q = product(refs, x), product(refs, xp)
        best = max(best, sum((max(Fraction(0), m - ratio * q.get(y, 0)) for y, m in p.items()), Fraction(0)))
    return best


def brute_ratio(refs: list, delta: Fraction) -> Fraction | float:
    """max over the pairs of the smallest t >= 1 with delta_p(t) <= delta (e^eps(delta)), exactly."""
    best: Fraction | float = Fraction(1)
    for x, xp in PAIRS:
        p, q = product(refs, x), product(refs, xp)

        def at(t: Fraction, p: dict = p, q: dict = q) -> Fraction:
            return sum((max(Fraction(0), m - t * q.get(y, 0)) for y, m in p.items()), Fraction(0))

        kinks = sorted({m / q[y] for y, m in p.items() if q.get(y, 0) and m / q[y] > 1})
        if at(Fraction(1)) <= delta:
            continue
        if sum((m for y, m in p.items() if not q.get(y, 0)), Fraction(0)) > delta:
            return math.inf
        right = next(t for t in kinks if at(t) <= delta)
        above = [y for y, m in p.items() if q.get(y, 0) and m / q[y] >= right]
        A, B = sum(p[y] for y in above), sum(q[y] for y in above)
        best = max(best, (A - delta) / B)
    return best


STEPS = {
    "rr": (rr_like(), rr_like_ref),
    "kary": (kary3(), kary3_ref),
    "geo": (truncated_geometric(2, alpha=ALPHA), tgeom_ref),
    "mix": (mixture(), mixture_ref),
}


# -- exact against brute force ------------------------------------------------------------------


@pytest.mark.parametrize(
    "sequence",
    [
        [("rr", 3)],
        [("kary", 2)],
        [("geo", 3)],
        [("mix", 3)],
        [("rr", 1), ("kary", 1), ("geo", 1)],
        [("geo", 2), ("rr", 1), ("mix", 1), ("kary", 1)],
    ],
)
@pytest.mark.parametrize("ratio", [Fraction(1), Fraction(3, 2), Fraction(4)])
def test_exact_delta_is_the_brute_force_one(sequence, ratio):
    steps = [(STEPS[name][0], count) for name, count in sequence]
    refs = [STEPS[name][1] for name, count in sequence for _ in range(count)]
    r = compose_approximate(steps, epsilon=f"ln:{ratio}")
    assert r.exact and r.lower == r.upper == brute_delta(refs, ratio)
    assert isinstance(r.lower, Fraction) and r.width == 0 and r.relative_width == 0.0
    assert sum(c for _, c in sequence) == r.K and (r.pair.x, r.pair.x_prime) in PAIRS


@pytest.mark.parametrize("sequence", [[("rr", 2), ("geo", 1)], [("kary", 1), ("rr", 1), ("geo", 2)]])
@pytest.mark.parametrize("delta", [Fraction(0), Fraction(1, 10), Fraction(1, 3)])
def test_exact_epsilon_is_the_brute_force_one(sequence, delta):
    steps = [(STEPS[name][0], count) for name, count in sequence]
    refs = [STEPS[name][1] for name, count in sequence for _ in range(count)]
    r = compose_approximate(steps, delta=delta)
    assert r.exact and r.ratio == brute_ratio(refs, delta)
    assert r.lower == r.upper == pytest.approx(math.log(r.ratio), rel=1e-15, abs=1e-300)


def test_past_the_pairs_compared_every_distinct_pair_is_composed():
    from wmcdp.notions import sequence

    steps = [(STEPS["geo"][0], 2), (STEPS["rr"][0], 1), (STEPS["mix"][0], 1), (STEPS["kary"][0], 1)]
    refs = [tgeom_ref, tgeom_ref, rr_like_ref, mixture_ref, kary3_ref]
    compared = compose_approximate(steps, epsilon="ln:3/2")
    with mock.patch.object(sequence, "MAX_COMPARED", 1):
        every = compose_approximate(steps, epsilon="ln:3/2")
    assert compared.lower == every.lower == brute_delta(refs, Fraction(3, 2)) and every.pairs >= compared.pairs


def test_the_witness_is_a_pair_that_attains_the_value():
    steps = [(STEPS["rr"][0], 2), (STEPS["geo"][0], 1)]
    r = compose_approximate(steps, epsilon="ln:2")
    refs = [rr_like_ref, rr_like_ref, tgeom_ref]
    p, q = product(refs, r.pair.x), product(refs, r.pair.x_prime)
    assert sum(max(Fraction(0), m - 2 * q.get(y, 0)) for y, m in p.items()) == r.lower


# -- the closed form of composed randomized response ---------------------------------------------


def binomial_delta(k: int, lam: Fraction, ratio: Fraction) -> Fraction:
    """K runs of RR on one bit: j outputs agree with x; P = C(K,j) p^j q^(K-j), Q = C(K,j) q^j p^(K-j)."""
    p, q = 1 - lam, lam
    return sum(
        (max(Fraction(0), math.comb(k, j) * (p**j * q ** (k - j) - ratio * q**j * p ** (k - j))) for j in range(k + 1)),
        Fraction(0),
    )


@pytest.mark.parametrize("k, ratio", [(1, Fraction(2)), (40, Fraction(5)), (200, Fraction(10**20))])
def test_composed_rr_is_the_binomial_sum(k, ratio):
    r = compose_approximate([(randomized_response(1, LAM), k)], epsilon=f"ln:{ratio}")
    assert r.exact and r.lower == binomial_delta(k, LAM, ratio) and r.groups == k + 1


@pytest.mark.parametrize("k, max_groups", [(40, 8), (200, 16), (300, 1 << 20)])
def test_the_bracket_holds_the_binomial_sum(k, max_groups):
    ratio = Fraction(10**6)
    exact = binomial_delta(k, LAM, ratio)
    for prog in (randomized_response(1, LAM), randomized_response(1, 0.25)):  # 0.25 is exact in binary
        r = compose_approximate([(prog, k)], epsilon=math.log(ratio), exact=False, max_groups=max_groups)
        assert not r.exact and r.lower <= exact <= r.upper and r.groups <= max_groups
        assert r.width == r.upper - r.lower and r.relative_width == pytest.approx(r.width / r.upper)
    if max_groups > k:  # nothing merged but equal losses: the width is the float error only
        assert r.relative_width < 1e-9


# -- the bracket against exact values --------------------------------------------------------------


@pytest.mark.parametrize("sequence", [[("mix", 12)], [("rr", 3), ("kary", 4), ("geo", 5)], [("mix", 6), ("geo", 6)]])
@pytest.mark.parametrize("max_groups", [3, 10, 1 << 20])
def test_the_forced_bracket_holds_the_exact_value(sequence, max_groups):
    steps = [(STEPS[name][0], count) for name, count in sequence]
    for ratio in (Fraction(1), Fraction(3), Fraction(50)):
        exact = compose_approximate(steps, epsilon=f"ln:{ratio}")
        assert exact.exact
        forced = compose_approximate(steps, epsilon=f"ln:{ratio}", max_groups=max_groups, exact=None)
        bracket = _bracket(steps, epsilon=f"ln:{ratio}", max_groups=max_groups)
        assert bracket.lower <= exact.lower <= bracket.upper, (ratio, bracket, exact.lower)
        assert forced.lower <= exact.lower <= forced.upper
    for delta in (Fraction(0), Fraction(1, 1000), Fraction(1, 2)):
        exact = compose_approximate(steps, delta=delta)
        bracket = _bracket(steps, delta=delta, max_groups=max_groups)
        assert bracket.lower <= exact.lower <= bracket.upper, (delta, bracket, exact.lower)


@pytest.mark.parametrize("max_groups", [3, 40])
def test_the_squared_bracket_holds_the_exact_value(max_groups):
    """Repeated squaring with merges (too many multinomial outcomes), operands merged first (too many products)."""
    from wmcdp.notions import sequence

    steps = [(STEPS["mix"][0], 13), (STEPS["rr"][0], 3), (STEPS["geo"][0], 6)]
    with mock.patch.object(sequence, "MAX_OUTCOMES", 4), mock.patch.object(sequence, "MAX_PRODUCTS", 64):
        for ratio in (Fraction(1), Fraction(7), Fraction(200)):
            exact = compose_approximate(steps, epsilon=f"ln:{ratio}")
            b = _bracket(steps, epsilon=f"ln:{ratio}", max_groups=max_groups)
            assert b.lower <= exact.lower <= b.upper and b.groups <= max_groups
        exact = compose_approximate(steps, delta=Fraction(1, 100))
        b = _bracket(steps, delta=Fraction(1, 100), max_groups=max_groups)
        assert b.lower <= exact.lower <= b.upper


def _bracket(steps, **kwargs):  # type: ignore[no-untyped-def]
    """The bracket even where exact composition fits (the exact route turned off)."""
    from wmcdp.notions import sequence

    with mock.patch.object(sequence, "_exact", return_value=None):
        return sequence.compose_approximate(steps, **kwargs)


def test_mixture_bracket_holds_the_exact_value_and_is_narrow():
    """5,151 incommensurate losses at K = 100: the bracket from the exact masses holds the exact value."""
    for eps in ("ln:3", "ln:1000000"):
        exact = compose_approximate([(mixture(), 100)], epsilon=eps)
        b = _bracket([(mixture(), 100)], epsilon=eps)
        assert exact.exact and b.lower <= exact.lower <= b.upper and b.relative_width <= 1e-9
        assert b.groups == 101 * 102 // 2


def test_mixture_at_a_thousand_runs_is_within_one_in_a_million():
    r = compose_approximate([(mixture(1 / 3), 1000)], epsilon=119.0)
    assert not r.exact and 1e-7 < r.lower <= r.upper and r.relative_width <= 1e-6 and r.groups == 1001 * 1002 // 2


# -- ends -------------------------------------------------------------------------------------------


def never(x_bit_prob: object = Fraction(1, 2)) -> Program:
    """Output 1 only when x = 1 (then with probability 1/2): the pair (1, 0) has infinite loss with mass 1/2."""
    return Program(
        "never", IntVector(1, 0, 2), lambda x: ite(x[0] >= 1, ite(flip(x_bit_prob), 1, 0), 0), neighbours="one-entry"
    )


@pytest.mark.parametrize("k", [1, 5, 30])
def test_infinite_loss_mass(k):
    r = compose_approximate([(never(), k)], epsilon=math.inf)
    assert r.exact and r.lower == 1 - Fraction(1, 2**k)
    r = compose_approximate([(never(), k)], epsilon="ln:1000")
    assert r.lower == 1 - Fraction(1, 2**k)
    b = _bracket([(never(), k)], epsilon=math.inf, max_groups=4)
    assert b.lower <= 1 - Fraction(1, 2**k) <= b.upper
    r = compose_approximate([(never(), k)], delta=Fraction(1, 2**k) / 2)
    assert r.lower == r.upper == math.inf
    b = _bracket([(never(), k)], delta=Fraction(1, 2**k) / 2, max_groups=4)
    assert b.lower == b.upper == math.inf


def test_delta_zero_and_one_and_epsilon_zero():
    steps = [(STEPS["rr"][0], 3), (STEPS["kary"][0], 2)]
    refs = [rr_like_ref] * 3 + [kary3_ref] * 2
    assert compose_approximate(steps, delta=1).lower == 0.0
    r = compose_approximate(steps, delta=0)
    assert r.ratio == Fraction(3) ** 5  # pure epsilon adds: ln 3 per run
    r = compose_approximate(steps, epsilon=0)
    assert r.lower == brute_delta(refs, Fraction(1))
    b = _bracket(steps, epsilon=0, max_groups=5)
    assert b.lower <= r.lower <= b.upper
    b = _bracket(steps, delta=1, max_groups=5)
    assert b.lower == b.upper == 0.0
    b = _bracket(steps, delta=0, max_groups=5)
    assert b.lower <= 5 * math.log(3) <= b.upper


def test_an_explicit_pair_set_and_the_notebook_table():
    steps = [(STEPS["rr"][0], 2), (STEPS["kary"][0], 1)]
    refs = [rr_like_ref, rr_like_ref, kary3_ref]
    r = compose_approximate(steps, epsilon="ln:2", pairs=[((1,), (2,))])
    p, q = product(refs, (1,)), product(refs, (2,))
    one = sum(max(Fraction(0), m - 2 * q.get(y, 0)) for y, m in p.items())
    p, q = product(refs, (2,)), product(refs, (1,))
    assert r.lower == max(one, sum(max(Fraction(0), m - 2 * q.get(y, 0)) for y, m in p.items()))
    assert "δ(ε)" in r._repr_markdown_()


def test_covered_pairs_are_dropped_and_the_value_kept():
    """RR on two bits then an RR that reads only the first: pairs moving bit 1 are covered by those moving bit 0."""
    first_only = Program("first", randomized_response(2, LAM).inputs, lambda x: x[0] ^ flip(LAM))
    r = compose_approximate([(randomized_response(2, LAM), 2), (first_only, 2)], epsilon="ln:3")
    assert r.pairs == 1 and r.pair.x[0] != r.pair.x_prime[0] and r.pair.x[1] == r.pair.x_prime[1]

    def rr2(x, choose):  # type: ignore[no-untyped-def]
        return tuple(b ^ brute.flip(choose, LAM) for b in x)

    def first(x, choose):  # type: ignore[no-untyped-def]
        return x[0] ^ brute.flip(choose, LAM)

    best = Fraction(0)
    for x in itertools.product((0, 1), repeat=2):
        for i in range(2):
            xp = tuple(b ^ (j == i) for j, b in enumerate(x))
            p, q = product([rr2, rr2, first, first], x), product([rr2, rr2, first, first], xp)
            best = max(best, sum(max(Fraction(0), m - 3 * q.get(y, 0)) for y, m in p.items()))
    assert r.lower == best


# -- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "steps, kwargs, message",
    [
        ([rr_like(), randomized_response(1, LAM)], {"epsilon": 1}, "share one input domain"),
        ([rr_like()], {}, "exactly one of epsilon"),
        ([rr_like()], {"epsilon": 1, "delta": 0.1}, "exactly one of epsilon"),
        ([], {"epsilon": 1}, "non-empty list"),
        ([(rr_like(), 0)], {"epsilon": 1}, "compose must be"),
        (["rr"], {"epsilon": 1}, "must be a wmcdp Program"),
        ([rr_like()], {"epsilon": 1, "max_groups": 1}, "max_groups"),
        ([rr_like()], {"delta": 2}, "delta must be in"),
        ([rr_like()], {"epsilon": 1, "pairs": "auto"}, "explicit pair set"),
    ],
)
def test_bad_input_is_one_error(steps, kwargs, message):
    with pytest.raises(WmcdpError, match=message):
        compose_approximate(steps, **kwargs)


# -- the command line -----------------------------------------------------------------------------------


def test_cli_then_and_times(capsys):
    code = main(
        ["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "3", "--then",
         "truncated_geometric", "-p", "m=1", "-p", "alpha=1/2", "--times", "2", "--epsilon", "ln:2", "--json"]
    )  # fmt: skip
    out = __import__("json").loads(capsys.readouterr().out)
    assert code == 0 and out["exact"] and out["K"] == 5

    def rr(x, choose):  # type: ignore[no-untyped-def]
        return x[0] ^ brute.flip(choose, LAM)

    def geo(x, choose):  # type: ignore[no-untyped-def]
        a = ALPHA
        return choose({0: (a if x[0] else 1) / (1 + a), 1: (1 if x[0] else a) / (1 + a)})

    refs = [rr] * 3 + [geo] * 2
    best = max(
        sum(max(Fraction(0), m - 2 * product(refs, xp).get(y, 0)) for y, m in product(refs, x).items())
        for x, xp in [((0,), (1,)), ((1,), (0,))]
    )
    assert Fraction(out["lower_exact"]) == best


def test_cli_subsample_applies_to_every_step(capsys):
    """``--subsample 1/2 --times 3``: each of the three runs keeps the record with probability 1/2, afresh."""
    code = main(
        ["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--subsample", "1/2", "--times", "3",
         "--epsilon", "ln:2", "--json"]
    )  # fmt: skip
    out = __import__("json").loads(capsys.readouterr().out)
    assert code == 0 and out["exact"] and out["K"] == 3

    def sub_rr(x, choose):  # type: ignore[no-untyped-def]
        kept = brute.flip(choose, Fraction(1, 2))
        return (x[0] if kept else 0) ^ brute.flip(choose, LAM)

    refs = [sub_rr] * 3
    best = max(
        sum(max(Fraction(0), m - 2 * product(refs, xp).get(y, 0)) for y, m in product(refs, x).items())
        for x, xp in [((0,), (1,)), ((1,), (0,))]
    )
    assert Fraction(out["lower_exact"]) == best and best > 0


def test_cli_steps_file(tmp_path, capsys):
    path = tmp_path / "steps.json"
    path.write_text(
        '[{"program": "randomized_response", "params": {"n": 1, "lam": "1/4"}, "times": 40}]', encoding="utf-8"
    )
    code = main(["approx", "--steps", str(path), "--epsilon", "ln:5", "--json"])
    out = __import__("json").loads(capsys.readouterr().out)
    assert code == 0 and Fraction(out["lower_exact"]) == binomial_delta(40, LAM, Fraction(5))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--then", "truncated_geometric", "-p", "m=3",
          "-p", "alpha=1/2", "--epsilon", "1"],
         "share one input domain"),
        (["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "0", "--epsilon", "1"],
         "--times"),
        (["approx", "--steps", "/nonexistent/steps.json", "--epsilon", "1"], "steps"),
        (["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "2", "--sets", "symmetry",
          "--epsilon", "1"], "every pair of neighbours"),
        (["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "2", "--compose", "2",
          "--epsilon", "1"], "--times per step"),
        (["approx", "--epsilon", "1"], "give a program"),
        (["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--times", "2", "--shuffle", "100",
          "--epsilon", "1"], "--shuffle"),
    ],
)  # fmt: skip
def test_cli_refusals_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("wmcdp: error:") and message in err and err.count("\n") == 1


def test_one_parser_parses_twice_without_sharing_parameters():
    from wmcdp.cli import _parser

    parser = _parser()
    first = parser.parse_args(["approx", "randomized_response", "-p", "n=1", "--times", "2", "--epsilon", "1"])
    second = parser.parse_args(["approx", "truncated_geometric", "-p", "m=1", "--epsilon", "1"])
    assert first.param == ["n=1"] and second.param == ["m=1"] and second.times is None
