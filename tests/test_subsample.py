"""Subsampling (``wmcdp.subsample``) and the add/remove relation, against brute force and closed forms.

The references are the mixtures over subsets written out in :mod:`brute` (``poisson_subsampled``,
``sampled_without_replacement``), over plain-Python mechanisms that enumerate every random choice; the closed forms
are amplification by subsampling (Balle, Barthe and Gaboardi, "Privacy amplification by subsampling", 2018):
an ε-DP mechanism on a Poisson subsample at rate q is ln(1 + q(e^ε − 1))-DP under add/remove, and on m of n records
drawn without replacement ln(1 + (m/n)(e^ε − 1))-DP under substitution when it reads its records as a set.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import brute
import pytest

from wmcdp import (
    Bits,
    IntVector,
    Parameter,
    Program,
    WmcdpError,
    add_remove,
    compile_program,
    exhaustive_inference,
    flip,
    inference,
    ite,
    privacy_loss_distribution,
    privacy_profile,
    sample,
    subsample,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
    uniform,
)
from wmcdp.cli import main
from wmcdp.lang.relations import NEIGHBOURS
from wmcdp.notions.sampling import wilson_interval

LAM = F(1, 4)  # randomized response flips with probability 1/4: e^ε = 3


def rr(n: int, lam=LAM) -> Program:
    return Program("rr", Bits(n), lambda x: tuple(xi ^ flip(lam) for xi in x))


def count(n: int, lam=LAM) -> Program:
    return Program("count", Bits(n), lambda x: sum(xi ^ flip(lam) for xi in x))


def kary(n: int) -> Program:
    """3-ary randomized response: each report is the record with probability 1/2, else uniform on {0, 1, 2}."""
    return Program("kary", IntVector(n, 0, 2), lambda x: tuple(ite(flip(F(1, 2)), xi, uniform(0, 2)) for xi in x))


def rr_ref(lam=LAM):
    return lambda x, choose: tuple(xi ^ brute.flip(choose, lam) for xi in x)


def count_ref(lam=LAM):
    return lambda x, choose: sum(xi ^ brute.flip(choose, lam) for xi in x)


def kary_ref(x, choose):
    third = F(1, 3)
    return tuple(xi if brute.flip(choose, F(1, 2)) else choose({0: third, 1: third, 2: third}) for xi in x)


PROGRAMS = {"rr": (rr, rr_ref()), "count": (count, count_ref())}


def distributions(program: Program, exact: bool = True) -> dict:
    """``{x: {y: P(y | x)}}`` of every input (exact, or in floats), nonzero outputs only."""
    compiled = compile_program(program)
    outputs = list(compiled.shape.values())
    table = inference(compiled, exhaustive_inference(program.inputs, outputs), exact=exact)
    return {x: {y: p for y in outputs if (p := table.probability(x, y))} for x in program.inputs.values()}


def is_add_remove(x, xp, absent) -> bool:
    """The definition: exactly one entry differs, and one of its two values is ``absent``."""
    diff = [i for i in range(len(x)) if x[i] != xp[i]]
    return len(diff) == 1 and absent in (x[diff[0]], xp[diff[0]])


# -- the distributions against the mixtures over subsets -----------------------------------------


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("q", [F(1, 5), F(2, 3)])
def test_poisson_subsample_is_the_mixture_over_subsets(name, n, q):
    make, ref = PROGRAMS[name]
    got = distributions(subsample(make(n), q))
    assert got == {x: brute.poisson_subsampled(ref, x, q, 0) for x in Bits(n).values()}


def test_poisson_subsample_of_integer_records_with_another_absent_value():
    program = subsample(kary(2), F(1, 3), absent=1)
    assert program.inputs == IntVector(2, 0, 2)
    got = distributions(program)
    assert got == {x: brute.poisson_subsampled(kary_ref, x, F(1, 3), 1) for x in program.inputs.values()}


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("m, n", [(1, 1), (1, 2), (1, 3), (2, 3), (2, 4)])
def test_sampling_without_replacement_is_the_uniform_mixture_over_subsets(name, m, n):
    make, ref = PROGRAMS[name]
    program = subsample(make(m), n=n)
    assert program.inputs == Bits(n) and program.neighbours == "hamming"
    assert distributions(program) == {x: brute.sampled_without_replacement(ref, x, m) for x in Bits(n).values()}


def test_sampling_integer_records_without_replacement():
    got = distributions(subsample(kary(1), n=3))
    assert got == {x: brute.sampled_without_replacement(kary_ref, x, 1) for x in IntVector(3, 0, 2).values()}


def test_a_float_rate_gives_the_mixture_in_floats():
    got = distributions(subsample(rr(2, 0.25), 0.2), exact=False)
    for x, dist in got.items():
        want = brute.poisson_subsampled(rr_ref(F(0.25)), x, F(0.2), 0)
        assert dist.keys() == want.keys() and all(dist[y] == pytest.approx(float(want[y]), abs=1e-15) for y in dist)


@pytest.mark.parametrize("how, x", [({"q": F(1, 2)}, (1, 1)), ({"n": 4}, (1, 1, 0, 0)), ({"n": 3}, (0, 1, 1))])
def test_concrete_runs_follow_the_distribution(how, x):
    """``sample`` runs the subsampled program on constants (the drawn subset only): its frequencies lie in Wilson
    intervals around the exact probabilities, and it never gives an output of probability 0."""
    program = subsample(Program("copy", Bits(2), lambda z: (z[0], z[1])), how.get("q"), n=how.get("n"))
    exact = distributions(program)[x]
    k = 3000
    counts = sample(program, x, k, seed=1)
    assert set(counts) <= set(exact)
    for y, p in exact.items():
        lo, hi = wilson_interval(counts[y], k, 1 - 1e-9)
        assert lo <= p <= hi, (y, counts[y], p)


# -- the edges --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PROGRAMS)
def test_rate_one_is_the_program_itself_and_rate_zero_hides_everything(name):
    make, _ = PROGRAMS[name]
    assert distributions(subsample(make(2), 1)) == distributions(make(2))
    assert distributions(subsample(make(2), F(1))) == distributions(make(2))
    nothing = distributions(subsample(make(2), 0))
    assert all(dist == nothing[(0, 0)] for dist in nothing.values())  # every input runs the program on 00
    r = synthesize_privacy(subsample(make(2), 0))
    assert r.epsilon == 0 and r.ratio == 1


def test_all_records_drawn_is_the_program_itself():
    assert distributions(subsample(rr(3), n=3)) == distributions(rr(3))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: subsample(rr(1), F(3, 2)), r"rate q must be in \[0, 1\]"),
        (lambda: subsample(rr(1), -0.1), r"rate q must be in \[0, 1\]"),
        (lambda: subsample(rr(1), float("nan")), "rate q is NaN"),
        (lambda: subsample(rr(1), "a fifth"), "rate q"),
        (lambda: subsample(rr(1)), "takes a rate q .* or a number of records n"),
        (lambda: subsample(rr(1), F(1, 2), n=3), "takes a rate q .* or a number of records n"),
        (lambda: subsample(rr(3), n=2), "cannot choose the m = 3 records rr reads out of n = 2"),
        (lambda: subsample(rr(1), n=0), "cannot choose the m = 1 records rr reads out of n = 0"),
        (lambda: subsample(rr(1), n=2.5), "number of records n"),
        (lambda: subsample(rr(3), n=50), r"C\(50, 3\) = 19600 subsets \(limit 16384\)"),
        (lambda: subsample(rr(1), n=3, absent=0), "absent applies to Poisson sampling"),
        (lambda: subsample(kary(1), F(1, 2), absent=3), "absent value 3 is outside the entry range 0..2"),
        (lambda: subsample(lambda x: x, F(1, 2)), "takes a wmcdp Program"),
    ],
)
def test_bad_arguments_are_one_clear_error(call, message):
    with pytest.raises(WmcdpError, match=message):
        call()


# -- amplification by subsampling: the closed forms -------------------------------------------------


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("lam", [F(1, 4), F(1, 10)])
@pytest.mark.parametrize("q", [F(1, 5), F(1, 2), F(9, 10)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_poisson_amplification_is_attained_by_randomized_response(name, lam, q, n):
    """e^ε′ = 1 + q(e^ε − 1) exactly: the add/remove pair that adds a 1 to an empty slot, and the output where
    that record shows (RR's report 1; the count n), give (q(1 − λ) + (1 − q)λ) / λ."""
    make, _ = PROGRAMS[name]
    ratio = (1 - lam) / lam  # e^ε of the program itself
    r = synthesize_privacy(subsample(make(n, lam), q))
    assert r.ratio == 1 + q * (ratio - 1)
    assert r.epsilon == pytest.approx(math.log1p(float(q * (ratio - 1))), rel=1e-15)


def test_the_amplified_ratio_as_a_function_of_the_rate():
    """With a symbolic rate the bound is the closed form itself: e^ε′ = 1 + 2q on all of [0, 1] for RR at e^ε = 3."""
    r = synthesize_privacy(subsample(rr(2), Parameter("q", 0, 1)))
    assert len(r.pieces) == 1
    assert all(r.ratio_at(q) == 1 + 2 * q for q in (F(0), F(1, 7), F(1, 2), F(1)))


@pytest.mark.parametrize("lam", [F(1, 4), F(1, 10)])
@pytest.mark.parametrize("m, n", [(1, 1), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)])
def test_sampling_without_replacement_attains_its_bound_for_a_count(lam, m, n):
    """e^ε′ = 1 + (m/n)(e^ε − 1) exactly for counting RR, which reads its records as a set: the pair that
    replaces a 0 by a 1 among n zeros, at the count m."""
    ratio = (1 - lam) / lam
    assert synthesize_privacy(subsample(count(m, lam), n=n)).ratio == 1 + F(m, n) * (ratio - 1)


@pytest.mark.parametrize("m, n, expected", [(1, 2, F(2)), (1, 3, F(5, 3)), (2, 3, F(13, 5)), (2, 4, F(13, 6))])
def test_a_program_that_tells_its_slots_apart_can_exceed_the_set_bound(m, n, expected):
    """The bound ln(1 + (m/n)(e^ε − 1)) is for a mechanism of the sample as a set. RR's tuple of reports tells
    the slots apart, and the chosen records reach it in slot order, so a substitution also shifts which slot the
    other records land in: with one record (m = 1) there is no order and the bound is attained; with m = 2 the
    tight ratio exceeds it (13/5 > 7/3 at n = 3, 13/6 > 2 at n = 4). The values are brute force's."""
    dists = {x: brute.sampled_without_replacement(rr_ref(), x, m) for x in Bits(n).values()}
    hamming = lambda x: list(NEIGHBOURS["hamming"](Bits(n), x))  # noqa: E731
    best = max(dists[x][y] / dists[xp][y] for x in dists for xp in hamming(x) for y in dists[x] if dists[xp].get(y, 0))
    assert best == expected
    assert synthesize_privacy(subsample(rr(m), n=n)).ratio == expected
    bound = 1 + F(m, n) * (3 - 1)
    assert (expected == bound) if m == 1 else (expected > bound)


# -- every notion on the subsampled program ----------------------------------------------------------


def test_delta_of_subsampled_rr_is_the_hockey_stick_of_the_mixture_pair():
    """One record, Poisson at q = 1/2: P(.|1) = q RR(.|1) + (1 − q) RR(.|0) = (y=0: 1/2, y=1: 1/2) and
    P(.|0) = RR(.|0) = (y=0: 3/4, y=1: 1/4). At e^ε = 6/5: (1, 0) gives (1/2 − 6/5·1/4)⁺ + (1/2 − 6/5·3/4)⁺ = 1/5
    and (0, 1) gives (3/4 − 6/5·1/2)⁺ + (1/4 − 6/5·1/2)⁺ = 3/20, so δ = 1/5, at the pair (1, 0). At ε = 0 both
    orders give 1/4 (the total variation distance)."""
    program = subsample(rr(1), F(1, 2))
    r = synthesize_approximate(program, epsilon="ln:6/5")
    assert r.delta == F(1, 5) and (r.witness.x, r.witness.x_prime) == ((1,), (0,))
    assert synthesize_approximate(program, epsilon=0).delta == F(1, 4)
    # ε(δ): δ = 1/10 on the first piece, 1/2 − t/4 = 1/10 at t = 8/5 (the second term is already 0 there)
    assert synthesize_approximate(program, delta=F(1, 10)).ratio == F(8, 5)


@pytest.mark.parametrize("n", [2, 3])
def test_delta_and_epsilon_of_delta_against_brute_force(n):
    q = F(1, 3)
    program = subsample(count(n), q)
    dists = {x: brute.poisson_subsampled(count_ref(), x, q, 0) for x in Bits(n).values()}
    neighbours = lambda x: [xp for xp in dists if is_add_remove(x, xp, 0)]  # noqa: E731
    for t in (F(1), F(11, 10), F(3, 2)):
        want, _ = brute.max_over_pairs(dists, neighbours, lambda p, pp, t=t: brute.hockey(p, pp, t))
        assert synthesize_approximate(program, epsilon=f"ln:{t}").delta == want
    delta = F(1, 50)
    want, _ = brute.max_over_pairs(dists, neighbours, lambda p, pp: brute.ratio_for_delta(p, pp, delta))
    assert synthesize_approximate(program, delta=delta).ratio == want
    profile = privacy_profile(program, [0, "ln:3/2"])
    assert [p.delta for p in profile] == [
        brute.max_over_pairs(dists, neighbours, lambda p, pp, t=t: brute.hockey(p, pp, t))[0] for t in (1, F(3, 2))
    ]


def test_renyi_against_brute_force():
    q = F(1, 4)
    program = subsample(rr(2), q)
    dists = {x: brute.poisson_subsampled(rr_ref(), x, q, 0) for x in Bits(2).values()}
    neighbours = lambda x: [xp for xp in dists if is_add_remove(x, xp, 0)]  # noqa: E731
    r = synthesize_renyi(program, [1.5, 2, 4])
    for order in r.orders:
        want, _ = brute.max_over_pairs(dists, neighbours, lambda p, pp, a=order.order: brute.renyi(p, pp, a))
        assert order.epsilon == pytest.approx(want, rel=1e-12)


def test_privacy_loss_distribution_against_brute_force():
    q = F(1, 5)
    x, xp = (0, 1, 1), (0, 1, 0)  # removing the record of slot 2
    loss = privacy_loss_distribution(subsample(count(3), q), x, xp)
    p = brute.poisson_subsampled(count_ref(), x, q, 0)
    pp = brute.poisson_subsampled(count_ref(), xp, q, 0)
    want: dict = {}
    for y, mass in p.items():
        want[mass / pp[y]] = want.get(mass / pp[y], 0) + mass
    assert loss.infinite_mass == 0 and dict(zip(loss.ratios, loss.probabilities)) == want
    assert loss.losses == pytest.approx([math.log(r) for r in loss.ratios], rel=1e-15)


# -- the add/remove relation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "relation, domain, x, expected",
    [
        (add_remove(), IntVector(2, 0, 2), (0, 1), [(1, 1), (2, 1), (0, 0)]),
        (add_remove(1), IntVector(2, 0, 2), (0, 1), [(1, 1), (0, 0), (0, 2)]),
        (add_remove(2), IntVector(3, 0, 2), (2, 2, 0), [(0, 2, 0), (1, 2, 0), (2, 0, 0), (2, 1, 0), (2, 2, 2)]),
    ],
)
def test_add_remove_lists_the_right_neighbours(relation, domain, x, expected):
    assert list(relation(domain, x)) == expected


@pytest.mark.parametrize("domain", [IntVector(2, 0, 2), IntVector(3, -1, 1), Bits(3)])
def test_add_remove_is_its_definition_and_symmetric(domain):
    for absent in domain.entry_values:
        relation = add_remove(absent) if absent != domain.lo else NEIGHBOURS["add-remove"]
        listed = {x: list(relation(domain, x)) for x in domain.values()}
        for x, neighbours in listed.items():
            assert len(neighbours) == len(set(neighbours))
            assert set(neighbours) == {xp for xp in domain.values() if is_add_remove(x, xp, absent)}
            assert all(x in listed[xp] for xp in neighbours)
        if domain.is_bits:  # a changed bit has a 0 and a 1 on its two sides: add/remove is hamming
            assert all(set(listed[x]) == set(NEIGHBOURS["hamming"](domain, x)) for x in listed)


LEANS = {0: F(1, 2), 1: F(1, 4), 2: F(3, 4)}  # P(y = 1 | x): 1 and 2 are far apart, 0 (no record) between them


def leaning(x, choose):
    return brute.flip(choose, LEANS[x[0]])


def test_add_remove_is_a_named_relation_of_any_program():
    """One record over {0..2} whose worst pair is (1, 2): hamming compares it (ratio 3), add/remove with absent 0
    does not (ratio 2, from 0 against 1: (1/2) / (1/4))."""
    program = Program("leaning", IntVector(1, 0, 2), lambda x: flip(lambda v: LEANS[v], x[0]), neighbours="add-remove")
    inputs = list(program.inputs.values())
    for relation, absent, want in ((None, 0, 2), (add_remove(2), 2, 3)):
        pairs = lambda x, a=absent: [xp for xp in inputs if is_add_remove(x, xp, a)]  # noqa: E731
        assert brute.tight_ratio(leaning, inputs, pairs) == want
        assert synthesize_privacy(program, neighbours=relation).ratio == want
        dists = {x: brute.distribution(leaning, x) for x in inputs}
        delta, _ = brute.max_over_pairs(dists, pairs, lambda p, pp: brute.hockey(p, pp, 1))
        assert synthesize_approximate(program, epsilon=0, neighbours=relation).delta == delta
    assert synthesize_privacy(program, neighbours="hamming").ratio == 3
    with pytest.raises(WmcdpError, match="absent value 5 is outside the entry range 0..2"):
        synthesize_privacy(program, neighbours=add_remove(5))


def test_a_poisson_subsample_with_another_absent_value_is_private_under_its_relation():
    q = F(1, 3)
    program = subsample(kary(2), q, absent=1)
    dists = {x: brute.poisson_subsampled(kary_ref, x, q, 1) for x in program.inputs.values()}
    pairs = lambda x: [xp for xp in dists if is_add_remove(x, xp, 1)]  # noqa: E731
    want, _ = brute.max_over_pairs(
        dists,
        pairs,
        lambda p, pp: max(p[y] / pp[y] for y in p),  # every output is possible: no infinite ratio
    )
    assert synthesize_privacy(program).ratio == want == 1 + q * (4 - 1)  # kary's e^ε = (1/2 + 1/6) / (1/6) = 4


def test_the_poisson_program_declares_add_remove():
    assert subsample(rr(2), F(1, 2)).neighbours == "add-remove"
    assert subsample(kary(2), F(1, 2), absent=0).neighbours == "add-remove"  # the lowest value is the default
    other = subsample(kary(2), F(1, 2), absent=2).neighbours
    assert other.name == "add-remove(absent=2)" and other == add_remove(2)


# -- the command line -------------------------------------------------------------------------------

RR = ["randomized_response", "-p", "n=2", "-p", "lam=1/4"]
COUNT = ["rr_counting", "-p", "n=2", "-p", "lam=1/4"]


def _json(capsys, argv: list[str]) -> dict:
    import json

    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_the_commands_subsample(capsys):
    assert _json(capsys, ["privacy", *RR, "--subsample", "1/5"])["ratio_exact"] == "7/5"
    assert _json(capsys, ["privacy", *COUNT, "--subsample-n", "4"])["ratio_exact"] == "2"
    out = _json(capsys, ["approx", *RR, "--subsample", "1/2", "--epsilon", "0"])
    assert out["delta_exact"] == "1/4"  # the two report bits are independent: only the changed one moves
    renyi = _json(capsys, ["renyi", *RR, "--subsample", "1/4", "--orders", "2"])
    want = synthesize_renyi(subsample(rr(2), F(1, 4)), [2]).orders[0].epsilon
    assert renyi["orders"][0]["epsilon"] == pytest.approx(want, rel=1e-12)
    assert main(["profile", *RR, "--subsample", "1/2", "--epsilons", "0", "--format", "csv"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].split(",")[1] in ("0.25", "1/4")


def test_a_subsample_of_a_program_with_a_symbolic_parameter(capsys):
    """e^ε′ = 1 + q((1 − λ)/λ − 1) = (1/5 + (3/5)λ) / λ at q = 1/5, as a function of λ."""
    out = _json(
        capsys, ["privacy", "randomized_response", "-p", "n=2", "--symbolic", "lam=1/10:1/2", "--subsample", "1/5"]
    )
    assert [(p["numerator"], p["denominator"]) for p in out["pieces"]] == [(["1/5", "3/5"], ["0", "1"])]
    assert out["program"] == "subsampled_randomized_response" and out["neighbours"] == "add-remove"


def test_the_absent_value_on_the_command_line(capsys):
    """On bits with 1 as the empty slot the worst pair adds a 0: (q 3/4 + (1 − q) 1/4) / (1/4) = 1 + 2q at y = 0."""
    assert _json(capsys, ["privacy", *RR, "--subsample", "1/5", "--absent", "1"])["ratio_exact"] == "7/5"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--subsample", "3/2"], "rate q must be in [0, 1]"),
        (["--subsample", "nan"], "rate q is NaN"),
        (["--subsample", "half"], "--subsample"),
        (["--subsample-n", "1"], "cannot choose the m = 2 records"),
        (["--subsample-n", "two"], "--subsample-n"),
        (["--subsample", "1/2", "--subsample-n", "4"], "not allowed with"),
        (["--absent", "1"], "--absent applies with --subsample"),
        (["--subsample", "1/2", "--absent", "3"], "absent value 3 is outside the entry range 0..1"),
    ],
)
@pytest.mark.parametrize("command", [["privacy"], ["approx", "--epsilon", "0"], ["renyi", "--orders", "2"]])
def test_bad_values_on_the_command_line_are_one_line(command, extra, message, capsys):
    assert main([command[0], *RR, *command[1:], *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wmcdp: error: ") and message in err, err
