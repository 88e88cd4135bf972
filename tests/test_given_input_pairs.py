"""The notions over pairs through the given-input plan (wmcdp.plan.given_pairs): δ(ε), ε(δ), profiles, Rényi
and zCDP against the exhaustive sets (exact values and witnesses equal) and brute-force enumeration.

Random programs are those of test_given_input (parts reading overlapping entries, each with its own noise, under
hamming, one-entry, all-entries and a user relation); SmartSum and DP-Sniper's LaplaceParallel at small n have
references written here. Near-misses share a coin between two parts: the planner must not take the plan, and the
forced plan is refused in one line."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction

import brute
import pytest
import test_given_input as given
from test_geometric import tgeom_pmf

from programs.checkdp import smart_sum
from programs.peers import geometric_parallel
from wmcdp import IntVector, Program, flip, privacy_profile, synthesize_approximate, synthesize_renyi
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.plan.parts import split_given_input

HALF = Fraction(1, 2)
#: δ(0) (total variation), a rational e^ε, an irrational one, and an ε past every ratio
EPSILONS = ["0", "ln:3/2", "1", "30"]
ORDERS = [2, 3, 1.5, "inf"]
DELTAS = [Fraction(1, 10), Fraction(1, 1000)]
#: the seeds whose programs run in floats too: a user relation, one-entry, hamming, all-entries
FLOAT_SEEDS = (2, 4, 8, 13)


def _threshold(eps: str):
    """``e^ε`` exactly where it is rational, else a float."""
    return Fraction(eps[3:]) if eps.startswith("ln:") else Fraction(1) if eps == "0" else math.exp(float(eps))


def _forced(fn, program, *args, exact, **kw):
    """The notion by the given-input plan and by the exhaustive sets, both forced."""
    got = fn(program, *args, exact=exact, plan="given-input", **kw)
    want = fn(program, *args, exact=exact, plan="exhaustive", **kw)
    return got, want


class Truth:
    """Brute force's values over every ordered neighbour pair of the reference's distributions."""

    def __init__(self, reference, inputs, neighbours):
        self.dists = {x: brute.distribution(reference, x) for x in inputs}
        self.pairs = [(x, xp) for x in self.dists for xp in neighbours(x)]
        self.delta = {eps: self.top(lambda p, q, t=_threshold(eps): brute.hockey(p, q, t)) for eps in EPSILONS}
        self.ratio = {d: self.top(lambda p, q, d=d: brute.ratio_for_delta(p, q, d)) for d in DELTAS}
        self.orders = {a: self.each(_ratio if a == "inf" else lambda p, q, a=a: brute.renyi(p, q, a)) for a in ORDERS}

    def each(self, value):
        return {(x, xp): value(self.dists[x], self.dists[xp]) for x, xp in self.pairs}

    def top(self, value):
        return max(self.each(value).values())


def _check_pairs(truth, program, exact=True):
    """δ(ε) at EPSILONS (a profile, and one ε by synthesize_approximate), ε(δ) at DELTAS and Rényi at ORDERS by the
    forced given-input plan: the exhaustive sets' values (exactly, with the same witness, in exact runs; to 1e-9 in
    float runs) and brute force's (``truth``)."""
    got, want = _forced(privacy_profile, program, EPSILONS, exact=exact)
    for eps, g, w in zip(EPSILONS, got, want):
        assert g.plan.kind == "given-input" and w.plan.kind == "exhaustive"
        value = truth.delta[eps]
        if exact:
            assert g.delta == w.delta and g.witness == w.witness
            assert g.delta == value if isinstance(value, Fraction) else float(g.delta) == pytest.approx(value)
        else:
            assert g.delta == pytest.approx(w.delta, rel=1e-9, abs=1e-15)
            assert g.delta == pytest.approx(float(value), rel=1e-9, abs=1e-15)
    g, w = _forced(synthesize_approximate, program, epsilon="1", exact=exact)
    assert g.plan.kind == "given-input" and g.delta == pytest.approx(w.delta, rel=1e-9, abs=1e-15)
    for delta in DELTAS:
        g, w = _forced(synthesize_approximate, program, delta=delta, exact=exact)
        if exact:
            assert g.ratio == w.ratio == truth.ratio[delta] and g.witness == w.witness
        else:
            assert g.epsilon == pytest.approx(w.epsilon, rel=1e-9, abs=1e-12)
            assert g.epsilon == pytest.approx(math.log(truth.ratio[delta]), rel=1e-9, abs=1e-12)
    _check_renyi(truth, program, exact)


def _check_renyi(truth, program, exact):
    """Rényi at every order of ORDERS (∞ the pure ε) and zCDP's ρ: the exhaustive sets' and brute force's, each
    witness a pair attaining its order's value."""
    got, want = _forced(synthesize_renyi, program, ORDERS, exact=exact)
    assert got.plan.kind == "given-input"
    for g, w, alpha in zip(got.orders, want.orders, ORDERS):
        values = truth.orders[alpha]
        best = max(values.values())
        if alpha == "inf":
            best = math.log(best) if best != math.inf else math.inf
            values = {pair: math.log(v) if v != math.inf else v for pair, v in values.items()}
        assert g.epsilon == pytest.approx(w.epsilon, rel=1e-9, abs=1e-12)
        assert g.epsilon == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert values[(g.witness.x, g.witness.x_prime)] == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert got.zcdp_rho == pytest.approx(want.zcdp_rho, rel=1e-9, abs=1e-12)
    assert got.zcdp_order == want.zcdp_order


def _ratio(p, q):
    """``max_y p(y) / q(y)`` over the outputs ``p`` gives (``inf`` where ``q(y) = 0``)."""
    return max(math.inf if q.get(y, 0) == 0 else v / q[y] for y, v in p.items() if v)


# -- random programs of given-input shape -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(16))
def test_random_programs_match_exhaustive_and_brute_force(seed):
    recipe = given._recipe(random.Random(seed), near=False)
    n = recipe[0]
    truth = Truth(given._reference(recipe), itertools.product(range(3), repeat=n), given._neighbours(recipe[2], n))
    _check_pairs(truth, given._program(recipe, exact=True))
    if seed in FLOAT_SEEDS:
        _check_pairs(truth, given._program(recipe, exact=False), exact=False)


def test_the_seeds_reach_every_relation():
    """The local listing (hamming, one-entry) and the listing of every pair (all-entries, a user relation)."""
    assert {given._recipe(random.Random(seed), near=False)[2] for seed in range(16)} == set(given.RELATIONS)


@pytest.mark.parametrize("seed", range(6))
def test_parts_sharing_a_coin_do_not_take_the_plan(seed):
    recipe = given._recipe(random.Random(100 + seed), near=True)
    n = recipe[0]
    program = given._program(recipe, exact=True)
    assert split_given_input(program.trace()) is None
    inputs = list(itertools.product(range(3), repeat=n))
    dists = {x: brute.distribution(given._reference(recipe), x) for x in inputs}
    pairs = [(x, xp) for x in inputs for xp in given._neighbours(recipe[2], n)(x)]
    r = synthesize_approximate(program, epsilon="ln:3/2", exact=True)
    assert r.plan.kind != "given-input"
    assert r.delta == max(brute.hockey(dists[x], dists[xp], Fraction(3, 2)) for x, xp in pairs)
    renyi = synthesize_renyi(program, [2], exact=True)
    assert renyi.plan.kind != "given-input"
    assert renyi.orders[0].epsilon == pytest.approx(max(brute.renyi(dists[x], dists[xp], 2) for x, xp in pairs))
    with pytest.raises(WmcdpError) as err:
        synthesize_approximate(program, epsilon=1, plan="given-input")
    message = str(err.value)
    assert message.startswith("plan 'given-input' does not apply: ") and "\n" not in message and len(message) < 200


# -- SmartSum and LaplaceParallel ----------------------------------------------------------------------------


def _smart_sum_reference(n, m, M, margin, a):
    """CheckDP SmartSum: running noisy sums, each M-th answer the noisy sum of its block (programs.checkdp)."""

    def fn(x, choose):
        nxt, block, out = 0, [], []
        for i in range(n):
            if (i + 1) % M == 0:
                values = [*block, x[i]]
                nxt = choose(tgeom_pmf(sum(values), -margin, len(values) * m + margin, a))
                block = []
            else:
                nxt = nxt + choose(tgeom_pmf(x[i], -margin, m + margin, a))
                block.append(x[i])
            out.append(nxt)
        return tuple(out)

    return fn


def test_smart_sum_matches_exhaustive_and_brute_force():
    """SmartSum of three answers: the first answer's release, and the block's release with the running sum after
    it (one part: the third output adds noise to the second)."""
    program = smart_sum(3, 1, 2, alpha=HALF)
    truth = Truth(_smart_sum_reference(3, 1, 2, 1, HALF), program.inputs.values(), _one_entry(program))
    _check_pairs(truth, program)
    _check_pairs(truth, smart_sum(3, 1, 2, alpha=0.5), exact=False)


def test_composed_runs_on_the_plans_pairs():
    """compose=2 on two releases of one count: the exact accountant convolves the plan's pairs' groups, as it does
    the exhaustive sets' rows; brute force squares each distribution."""
    program = geometric_parallel(2, 2, margin=1, alpha=HALF)
    truth = Truth(given._parallel_reference(2, 2, 1, HALF), program.inputs.values(), _one_entry(program))
    want = max(brute.hockey(brute.product(truth.dists[x], 2), brute.product(truth.dists[xp], 2), 2)
               for x, xp in truth.pairs)
    g, w = _forced(synthesize_approximate, program, epsilon="ln:2", compose=2, exact=True)
    assert g.delta == w.delta == want and g.witness == w.witness


def test_geometric_parallel_matches_exhaustive_and_brute_force():
    program = geometric_parallel(3, 2, margin=1, alpha=HALF)
    truth = Truth(given._parallel_reference(3, 2, 1, HALF), program.inputs.values(), _one_entry(program))
    _check_pairs(truth, program)
    _check_pairs(truth, geometric_parallel(3, 2, margin=1, alpha=0.5), exact=False)


def _one_entry(program):
    return given._neighbours_in(program.inputs, "one-entry")


def test_parallel_releases_are_the_composition_of_one():
    """n releases of one count are n runs of one release on the same pair: the exact accountant's composition
    (loss.power, an independent route) gives the same δ(ε), ε(δ) and Rényi divergences, exactly."""
    n = 20
    many, one = geometric_parallel(n, 1, margin=1, alpha=HALF), geometric_parallel(1, 1, margin=1, alpha=HALF)
    for eps in ("ln:3", "5"):
        r = synthesize_approximate(many, epsilon=eps, exact=True)
        assert r.plan.kind == "given-input"
        assert r.delta == synthesize_approximate(one, epsilon=eps, compose=n, exact=True).delta
    r = synthesize_approximate(many, delta=Fraction(1, 10**6), exact=True)
    assert r.ratio == synthesize_approximate(one, delta=Fraction(1, 10**6), compose=n, exact=True).ratio
    renyi = synthesize_renyi(many, [2, 3, "inf"], exact=True)
    single = synthesize_renyi(one, [2, 3, "inf"], exact=True)
    for o, s in zip(renyi.orders, single.orders):
        assert o.epsilon == pytest.approx(n * s.epsilon, rel=1e-12)


CHAIN = {0: Fraction(1, 5), 1: Fraction(1, 2), 2: Fraction(2, 3)}


def _chain(n):
    """Output ``i`` is a coin of probability ``CHAIN[x_i + x_(i+1)]``: n - 1 parts, each reading two entries."""
    return Program("chain", IntVector(n, 0, 1), lambda x: tuple(flip(lambda v: CHAIN[v], x[i] + x[i + 1])
                                                               for i in range(n - 1)), neighbours="hamming")


def _window_bound(n, value):
    """The largest ``value`` over the pairs of the chain that move entry ``i``, by brute force on the outputs that
    read ``i`` alone (the others are equal under x and x', a common factor of no sum): at the first entry, at one
    inside and at the last, every value of the entries those outputs read."""
    best = None
    for i in (0, 1, n - 1):
        window = [j for j in (i - 1, i) if 0 <= j < n - 1]  # the outputs that read entry i
        reads = sorted({e for j in window for e in (j, j + 1)})

        def fn(x, choose, window=window, reads=reads):
            local = dict(zip(reads, x))
            return tuple(brute.flip(choose, CHAIN[local[j] + local[j + 1]]) for j in window)

        for x in itertools.product(range(2), repeat=len(reads)):
            xp = tuple(1 - v if e == i else v for e, v in zip(reads, x))
            v = value(brute.distribution(fn, x), brute.distribution(fn, xp))
            best = v if best is None else max(best, v)
    return best


def test_a_chain_far_past_the_exhaustive_sets():
    """n = 30 bits: 3e10 neighbour pairs (the exhaustive sets cannot run, nor pure epsilon's given-input scan);
    a pair moves one entry and only the two parts that read it, so 240 pairs are listed."""
    program = _chain(30)
    (point,) = privacy_profile(program, ["ln:3/2"], exact=True)
    assert point.plan.kind == "given-input" and point.plan.size <= 240
    assert point.plan.exhaustive_size == 30 * 2**30
    assert point.delta == _window_bound(30, lambda p, q: brute.hockey(p, q, Fraction(3, 2)))
    renyi = synthesize_renyi(program, [2, "inf"], exact=True)
    assert renyi.orders[0].epsilon == pytest.approx(_window_bound(30, lambda p, q: brute.renyi(p, q, 2)), rel=1e-12)
    assert renyi.orders[1].epsilon == pytest.approx(math.log(_window_bound(30, _ratio)), rel=1e-12)


# -- the planner, limits and the command line -------------------------------------------------------------------


def test_the_planner_takes_the_plan_with_its_report():
    r = synthesize_renyi(smart_sum(10, 1, 2, alpha=HALF), [2], exact=True)
    plan = r.plan
    assert plan.kind == "given-input" and plan.parts == 6 and plan.distinct_parts == 3
    assert "6 parts independent given the input" in plan.structure and plan.exhaustive_size == 10 * 2**10
    assert plan.size < plan.exhaustive_size and plan.estimated_seconds is not None
    assert any("loss distribution is the product of its parts'" in claim for claim, _ in plan.claims)
    assert [kind for kind, *_ in plan.considered] == ["exhaustive", "given-input"]


def test_too_many_pairs_refuse_the_forced_plan_in_one_line():
    """All-entries moves every entry at once: every pair is listed, 4^16 of them, past the limit."""

    def body(x):
        return tuple(flip(HALF) ^ x[i] ^ x[i + 1] for i in range(15))

    program = Program("wide", IntVector(16, 0, 1), body, neighbours="all-entries")
    with pytest.raises(WmcdpError) as err:
        synthesize_renyi(program, [2], plan="given-input")
    message = str(err.value)
    assert "plan 'given-input' does not apply" in message and "neighbour pairs (limit" in message
    assert "\n" not in message and len(message) < 200


def test_the_command_line_forces_and_reports_the_plan(capsys):
    args = ["approx", "smart_sum", "-p", "n=4", "-p", "m=1", "-p", "M=2", "-p", "alpha=1/2", "--epsilon", "ln:2"]
    assert main([*args, "--plan", "given-input", "--json"]) in (0, None)
    got = json.loads(capsys.readouterr().out)
    want = synthesize_approximate(smart_sum(4, 1, 2, alpha=HALF), epsilon="ln:2", plan="exhaustive")
    assert got["plan"]["kind"] == "given-input" and Fraction(got["delta_exact"]) == want.delta
    assert main(["profile", *args[1:-2], "--epsilons", "0,ln:2", "--plan", "given-input"]) in (0, None)
    assert capsys.readouterr().out.split("\n")[2].split()[:2] == ["ln(2)", "2/9"] == ["ln(2)", str(want.delta)]
