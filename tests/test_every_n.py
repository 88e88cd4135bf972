"""ε for every n (wmcdp.notions.every_n): closed forms of chains against brute force and the planner, the
max-times cyclicity they rest on, and a checker that rejects every perturbed certificate.

The brute-force references are the plain-Python loops of test_peers_programs (PrefixSum, SmartSum) and the
noisy histogram written out here; their ratios come from enumerating every random choice (tests/brute.py)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
from fractions import Fraction

import brute
import pytest
from test_chain import brute_ratio, neighbours
from test_peers_programs import noise, prefix_sum_loop, smart_sum_loop

from programs.checkdp import prefix_sum, smart_sum
from programs.suite import histogram
from wmcdp.base.maxtimes import Period, dot, find_period, sequence
from wmcdp.cli import main
from wmcdp.programs import noisy_max
from wmcdp.notions import every_n as every_n_module
from wmcdp.notions.every_n import MIN_SIZES, check_every_n, every_n
from wmcdp.notions.witness_rule import Pattern, find_rule

HALF = Fraction(1, 2)


def histogram_loop(m, margin, a):
    def run(x, choose):
        return tuple(noise(choose, q, -margin, m + margin, a) for q in x)

    return run


# -- the max-times algebra --------------------------------------------------------------------------------


def _power_readouts(p, m, s, steps):
    return [dot(v, s) for v in sequence(p, m, steps, True)]


@pytest.mark.parametrize(
    "p, m, s",
    [
        ({0: 1}, {0: {1: Fraction(2)}, 1: {0: Fraction(8)}}, {0: 1}),  # a 2-cycle: period 2, factor 16
        ({0: 1}, {0: {0: Fraction(1), 1: Fraction(3)}, 1: {1: Fraction(1)}}, {1: 1}),  # moved once: constant 3
        ({0: 1}, {0: {0: Fraction(1), 1: Fraction(1)}, 1: {2: Fraction(5)}, 2: {2: Fraction(1)}}, {2: 1}),
        ({0: 1}, {0: {0: Fraction(3, 2), 1: Fraction(1)}, 1: {1: Fraction(2)}}, {0: 1, 1: 1}),  # rates 3/2, 2
    ],
)
def test_the_period_gives_every_power_of_the_matrix(p, m, s):
    found = [find_period(p, m, s, True, 60, 8), find_period(s, m, p, False, 60, 8)]
    assert any(found)
    direct = _power_readouts(p, m, s, 80)
    for period in filter(None, found):
        for j in range(period.transient, 80):
            assert period.value(j) == direct[j]


def test_a_two_cycle_has_period_two_and_its_product_as_factor():
    period = find_period({0: 1}, {0: {1: Fraction(2)}, 1: {0: Fraction(8)}}, {0: 1}, True, 20, 4)
    assert (period.transient, period.period, period.factor) == (0, 2, 16)
    assert period.base == (1, 0)


def test_infinite_ratios_stay_infinite():
    m = {0: {0: Fraction(1), 1: math.inf}, 1: {1: Fraction(1)}}
    period = find_period({0: 1}, m, {1: 1}, True, 10, 4)
    assert period.value(1) == period.value(50) == math.inf


# -- closed forms against brute force ---------------------------------------------------------------------

FAMILIES = [
    ("prefix", prefix_sum, {"m": 1, "alpha": HALF}, prefix_sum_loop, {}, "one-entry", 6, 5),
    ("prefix-all", prefix_sum, {"m": 1, "alpha": HALF}, prefix_sum_loop, {}, "all-entries", 6, 4),
    ("histogram-all", histogram, {"m": 1, "alpha": HALF}, histogram_loop, {}, "all-entries", 6, 4),
    ("smart2", smart_sum, {"m": 1, "M": 2, "alpha": HALF}, smart_sum_loop, {"M": 2, "block_noise": True}, None, 12, 0),
]


@pytest.mark.parametrize(
    "name, family, params, loop, loop_params, relation, up_to, brute_to", FAMILIES, ids=[f[0] for f in FAMILIES]
)
def test_the_closed_form_is_brute_force_and_the_planner(
    name, family, params, loop, loop_params, relation, up_to, brute_to
):
    """The closed form equals the planner at every size computed and brute force from its start to ``brute_to``
    (SmartSum's statement starts at n = 8, past brute force: test_chain checks its planner against it)."""
    r = every_n(family, up_to=up_to, start=2, neighbours=relation, **params)
    st = r.statement
    assert st is not None, r.reason
    assert check_every_n(r, family) == []
    for s in r.sizes:
        if s.n >= st.start:
            assert st.ratio(s.n) == s.ratio
    rel = relation or "one-entry"
    reference = loop(m=1, margin=1, a=HALF, **loop_params)
    for n in range(st.start, brute_to + 1):
        program = family(n=n, **params)
        expected = brute_ratio((name, n), reference, list(program.inputs.values()), neighbours(rel, 0, 1))
        assert st.ratio(n) == expected


# brute force to n = 8 with the noise range of the clamp at the counts' range (margin 0: each noise in {0, 1}),
# every random choice enumerated (tests/brute.py independent_distribution): 2^n inputs x 2^n choices; the
# statements are made from the sizes up to 6 (5), so n = 7, 8 are the closed form's predictions.
EIGHT = {
    "prefix": (prefix_sum, prefix_sum_loop, "one-entry", 6),
    "prefix-all": (prefix_sum, prefix_sum_loop, "all-entries", 5),
    "histogram-all": (histogram, histogram_loop, "all-entries", 5),
}


@functools.lru_cache(maxsize=None)
def _narrow_statement(name):
    family, _, relation, up_to = EIGHT[name]
    r = every_n(family, up_to=up_to, start=2, neighbours=relation, m=1, margin=0, alpha=HALF)
    assert r.statement is not None and check_every_n(r, family) == [], r.reason
    return r.statement


def _one_entry_pairs(n):
    inputs = list(itertools.product((0, 1), repeat=n))
    return [(x, x[:i] + (1 - x[i],) + x[i + 1 :]) for x in inputs for i in range(n)]


@pytest.mark.parametrize("n", [6, 7, 8])
@pytest.mark.parametrize("name", sorted(EIGHT))
def test_the_closed_form_is_brute_force_up_to_eight(name, n):
    st = _narrow_statement(name)
    family, loop, relation, _ = EIGHT[name]
    reference = loop(m=1, margin=0, a=HALF)
    dists = {x: brute.independent_distribution(reference, x) for x in itertools.product((0, 1), repeat=n)}
    expected = brute.all_pairs_ratio(dists) if relation == "all-entries" else brute.pairs_ratio(dists, _one_entry_pairs(n))
    assert st.start <= n and st.ratio(n) == expected
    x, xp, y = st.witness.at(n)  # the witness family's triple, past the sizes it was found at, by brute force
    (wx, dx), (wxp, dxp) = dists[x], dists[xp]
    assert Fraction(wx[y] * dxp, wxp[y] * dx) == expected


def test_the_independent_enumeration_is_the_replaying_one():
    reference = prefix_sum_loop(m=1, margin=1, a=HALF)
    for x in itertools.product((0, 1), repeat=3):
        weights, d = brute.independent_distribution(reference, x)
        assert {y: Fraction(w, d) for y, w in weights.items()} == brute.distribution(reference, x)


def test_statements_say_bounded_or_growing():
    bounded = every_n(prefix_sum, up_to=6, start=2, m=1, alpha=HALF).statement
    assert bounded.supremum == 2 and bounded.growth == 0 and bounded.attained == 2
    growing = every_n(histogram, up_to=6, start=2, neighbours="all-entries", m=1, alpha=HALF).statement
    assert growing.supremum == math.inf and growing.growth == pytest.approx(math.log(2))
    assert growing.ratio(160) == 2**160  # under all-entries every one of the n counts moves: (1/alpha)^n


def test_a_shared_noise_program_gets_its_values_and_the_reason():
    r = every_n(noisy_max, up_to=4, start=2, m=1, alpha=HALF)
    assert r.statement is None and "no chain" in r.reason
    assert [s.n for s in r.sizes] == [2, 3, 4] and all(s.ratio > 1 for s in r.sizes)


def test_too_few_sizes_give_no_statement():
    r = every_n(smart_sum, up_to=8, start=2, m=1, M=2, alpha=HALF)
    assert r.statement is None and f"fewer than {MIN_SIZES}" in r.reason


# -- the checker against perturbed certificates -----------------------------------------------------------


@pytest.fixture(scope="module")
def growing():
    r = every_n(histogram, up_to=6, start=2, neighbours="all-entries", m=1, alpha=HALF)
    assert r.statement is not None and check_every_n(r, histogram) == []
    return r


def _with(r, **changes):
    d = r.statement.directions[0]
    direction = dataclasses.replace(d, **{k: v for k, v in changes.items() if k != "period"})
    if "period" in changes:
        direction = dataclasses.replace(direction, period=dataclasses.replace(d.period, **changes["period"]))
    statement = dataclasses.replace(r.statement, directions=(direction, *r.statement.directions[1:]))
    return dataclasses.replace(r, statement=statement)


def _times_first(pairs, by):
    (i, v), *rest = pairs
    return ((i, v * by), *rest)


MUTATIONS = {
    "transient": lambda d: {"period": {"transient": d.period.transient + 1}},
    "period": lambda d: {"period": {"period": d.period.period + 1, "base": d.period.base * 2}},
    "factor": lambda d: {"period": {"factor": d.period.factor * 2}},
    "base": lambda d: {"period": {"base": (d.period.base[0] * 3, *d.period.base[1:])}},
    "matrix": lambda d: {"matrix": (_times_first(d.matrix[0], 3), *d.matrix[1:])},
    "prefix": lambda d: {"prefix": _times_first(d.prefix, 3)},
    "suffix": lambda d: {"suffix": _times_first(d.suffix, 3)},
    "offset": lambda d: {"offset": d.offset + 1},
    "modulus": lambda d: {"modulus": d.modulus + 1},
}


@pytest.mark.parametrize("field", sorted(MUTATIONS))
def test_the_checker_rejects_every_perturbed_field(growing, field):
    mutated = _with(growing, **MUTATIONS[field](growing.statement.directions[0]))
    assert check_every_n(mutated, histogram) != []


def test_the_checker_rejects_perturbed_sizes_and_start(growing):
    st = growing.statement
    gap = dataclasses.replace(st, sizes=st.sizes[:1] + st.sizes[2:])
    assert check_every_n(dataclasses.replace(growing, statement=gap)) != []
    late = dataclasses.replace(st, start=st.start + 1)
    assert check_every_n(dataclasses.replace(growing, statement=late)) != []
    other = dataclasses.replace(growing, params={"m": 1, "alpha": Fraction(1, 3)})
    assert check_every_n(other, histogram) != []  # the certificate is not that family's


def test_the_witness_rule_of_the_histogram_under_all_entries(growing):
    rule = growing.statement.witness
    assert (rule.x, rule.x_prime, rule.y) == (Pattern((), (0,)), Pattern((), (1,)), Pattern((), (-1,)))
    assert rule.sizes == (2, 3, 4, 5, 6) and "witness x_n = [0]*, x'_n = [1]*, y_n = [-1]*" in growing.statement.text
    # beyond the computed sizes: n = 7 by brute force (every noise in {-1 .. 2}), against (1/alpha)^n
    x, xp, y = rule.at(7)
    reference = histogram_loop(m=1, margin=1, a=HALF)
    (wx, dx), (wxp, dxp) = (brute.independent_distribution(reference, v) for v in (x, xp))
    assert Fraction(wx[y] * dxp, wxp[y] * dx) == growing.statement.ratio(7) == 2**7


def _with_rule(r, **changes):
    rule = dataclasses.replace(r.statement.witness, **changes)
    return dataclasses.replace(r, statement=dataclasses.replace(r.statement, witness=rule))


@pytest.mark.parametrize(
    "changes",
    [
        {"y": Pattern((), (2,))},  # a triple of another ratio: (1/2)^n
        {"x_prime": Pattern((), (0,))},  # x' = x: not a neighbour pair
        {"x": Pattern((1,), (0,))},  # x and x' differ in all entries but the first: ratio 2^(n-1)
        {"y": Pattern((), (-1,), (), -1)},  # -1, -2, ...: not an output of the histogram at n >= 4
        {"sizes": (2, 3, 4, 5)},  # not checked at every computed size
    ],
    ids=["y", "x-prime", "x", "step", "sizes"],
)
def test_a_perturbed_witness_rule_is_rejected(growing, changes):
    mutated = _with_rule(growing, **changes)
    assert check_every_n(mutated, histogram) != []
    if "sizes" not in changes:  # without the family: not the planner's witness, and not said to be recounted
        assert check_every_n(mutated) != []


def test_a_witness_rule_not_the_planners_is_recounted():
    """A rule fitted at the largest size whose triple is not the planner's at the smaller ones (PrefixSum's last
    entry moved, where the planner's witness moves the first) is accepted by recounting it on the whole program."""
    params = {"m": 1, "margin": 0, "alpha": HALF}
    r = every_n(prefix_sum, up_to=6, start=4, **params)
    x, xp, y = r.sizes[-1].witness
    assert xp == (1,) + x[1:]  # the planner moves the first entry; move the last one at n = 6 instead
    sizes = (*r.sizes[:-1], dataclasses.replace(r.sizes[-1], witness=(x, x[:-1] + (1,), y)))
    witnesses, ratios = {s.n: s.witness for s in sizes}, {s.n: s.ratio for s in sizes}
    rule, why = find_rule(witnesses, ratios, 4, every_n_module._recount(prefix_sum, params, "one-entry"))
    assert why is None and rule.x_prime == Pattern((), (0,), (1,)) and rule.recounted == (4, 5)
    moved = dataclasses.replace(r, sizes=sizes, statement=dataclasses.replace(r.statement, witness=rule))
    assert check_every_n(moved, prefix_sum) == [] and check_every_n(moved) == []
    assert check_every_n(_with_rule(moved, recounted=())) != []  # not the planner's and not said to be recounted


def test_no_witness_rule_says_why():
    witnesses = {n: ((0,) * n, (1,) * n, tuple(range(n)) if n % 2 else (5,) * n) for n in (4, 5, 6)}
    rule, why = find_rule(witnesses, {n: 2 for n in witnesses}, 4, lambda n, triple: None)
    assert rule is None and "no rule of the tried forms" in why
    assert find_rule({3: ((0, 1), (1, 1), (0,)), 4: ((0,), (1,), (2,))}, {3: 2, 4: 2}, 3, lambda n, t: 2)[0] is None


def test_a_period_that_is_not_the_first_is_rejected():
    m, p, s = {0: {0: Fraction(1)}}, {0: 1}, {0: 1}
    first = find_period(p, m, s, True, 10, 4)
    assert first == Period(0, 1, 1, (1,))


# -- the command line -------------------------------------------------------------------------------------


def test_the_cli_prints_the_table_and_the_statement(capsys):
    assert main(["privacy", "histogram", "-p", "m=1", "-p", "alpha=1/2", "--neighbours", "all-entries",
                 "--every-n", "5", "--every-n-from", "2"]) == 0
    out = capsys.readouterr().out
    assert "every n: e^eps(n) = " in out and "grows without bound" in out and "      5  " in out


def test_the_cli_json_carries_the_certificate(capsys):
    assert main(["privacy", "prefix_sum", "-p", "m=1", "-p", "alpha=1/2", "--every-n", "6", "--every-n-from", "2",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    body = data["every_n"]
    assert [s["ratio_exact"] for s in body["sizes"]] == ["2"] * 5
    assert body["statement"]["supremum_exact"] == "2" and body["statement"]["certificate"][0]["factor_exact"] == "1"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-p", "n=4", "--every-n", "6"], "leave out -p n"),
        (["--every-n", "6", "--at", "0101"], "--every-n takes none of --at"),
        (["--every-n", "6", "--every-n-from", "9"], "--every-n-from must be between 1 and --every-n"),
        (["--every-n", "100000"], "sizes must satisfy"),
        (["-p", "alpha=0.5", "--every-n", "3"], None),
    ],
)
def test_bad_every_n_runs_get_one_line(capsys, argv, message):
    base = ["privacy", "prefix_sum", "-p", "m=1"] + ([] if any("alpha" in a for a in argv) else ["-p", "alpha=1/2"])
    status = main(base + argv)
    err = capsys.readouterr().err
    if message is None:  # -p reads decimals exactly with --every-n: alpha=0.5 is 1/2
        assert status == 0
        return
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


# -- one released value (a noisy sum): read as a tuple of one component -----------------------------------


def _noisy_total(n: int, m: int = 1, alpha=HALF):
    """``released_geometric(x_0 + ... + x_(n-1))`` written out here: the published noisy sum."""
    from wmcdp import IntVector, Program, released_geometric

    def body(x):
        total = 0
        for i in range(n):
            total = total + x[i]
        return released_geometric(total, alpha=alpha)

    return Program("noisy_total", IntVector(n, 0, m), body, neighbours="one-entry")


def _published_sum_ratio(n: int, moved: int, a: Fraction) -> Fraction:
    """e^eps of the published sum + Z when a pair moves the sum by ``moved``: sup_z a^(|z| - |z + moved|), attained
    at z >= 0, enumerated over |z| <= 3 n."""
    return max(a ** (abs(z) - abs(z + moved)) for z in range(-3 * n, 3 * n + 1))


def test_a_noisy_sum_has_a_statement_for_every_n():
    """One released Int is a chain once read as a one-component tuple: e^eps(n) = 2 under one-entry (the sum moves by
    one), against the published law at every n computed and past them."""
    family = lambda n, **kw: _noisy_total(n, **kw)  # noqa: E731
    r = every_n(family, up_to=7)
    assert r.statement is not None and check_every_n(r, family) == []
    for n in range(r.statement.start, 21):
        assert r.statement.ratio(n) == _published_sum_ratio(n, 1, HALF) == 2
    assert r.statement.ratio(160) == 2
    assert all(s.witness[2] == (s.witness[2][0],) for s in r.sizes)  # y read as (y,)


def test_a_noisy_sum_under_all_entries_has_no_statement():
    """Every entry moves: the sums' difference grows with the prefix, so no block repeats (classes by the difference,
    as many as the entries); the per-size values are the published 2^n, and no statement is made."""
    r = every_n(lambda n, **kw: _noisy_total(n, **kw), up_to=6, neighbours="all-entries")
    assert r.statement is None and "does not repeat one block" in r.reason
    assert [s.ratio for s in r.sizes] == [_published_sum_ratio(n, n, HALF) for n in range(1, 7)]


def test_partial_sums_as_published_reproduce_checkdp_for_every_n():
    from wmcdp.programs import bad_partial_sum, partial_sum

    good = every_n(partial_sum, up_to=6, m=1, alpha=HALF, noise="unbounded")
    bad = every_n(bad_partial_sum, up_to=6, m=1, alpha=HALF, noise="unbounded")
    assert good.statement.supremum == 2 and bad.statement.supremum == 4  # claim e^eps = 2: proved, refuted
    assert check_every_n(good, partial_sum) == [] and check_every_n(bad, bad_partial_sum) == []
