"""Privacy-loss distributions and K-fold composition against the brute-force product distribution,
and the dp-accounting export against the exact values within its discretisation."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import brute
from wmcdp.programs import geometric_above_threshold, randomized_response, truncated_geometric
from test_approximate import case, references
from test_geometric import gat_reference, one_entry, tgeom_pmf
from wmcdp import Bits, IntVector, Program, WmcdpError, discrete, ite, uniform
from wmcdp.notions.approximate import privacy_profile, synthesize_approximate
from wmcdp.notions.loss import privacy_loss_distribution


def asymmetric():
    """A pair whose two directions differ (its composed curves differ too)."""
    return Program("asym", Bits(1), lambda x: ite(x[0], discrete(["1/6", "1/6", "2/3"]), discrete(["1/2", "1/3", "1/6"])))


def composed_brute(dists, neighbours, k):
    return {x: brute.product(d, k) for x, d in dists.items()}, neighbours


@pytest.mark.parametrize("name", ["rr", "truncated_geometric", "gat", "asym"])
@pytest.mark.parametrize("k", [2, 3])
def test_k_fold_composition_against_the_product_distribution(name, k):
    if name == "asym":
        prog, neighbours = asymmetric(), lambda x: [(1 - x[0],)]
        dists = {x: brute.distribution(lambda x, c: c({0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)})
                                       if x[0] == 0 else c({0: Fraction(1, 6), 1: Fraction(1, 6), 2: Fraction(2, 3)}), x)
                 for x in [(0,), (1,)]}
    else:
        prog, reference, neighbours = case(name, True)
        if name == "rr":
            prog = randomized_response(2, Fraction(1, 5))
        if name == "gat":
            prog, reference = geometric_above_threshold(2, 2, 1, alpha=Fraction(1, 2)), \
                gat_reference(2, 2, 1, Fraction(1, 2))
            neighbours = lambda x: list(one_entry(x, 0, 2))  # noqa: E731
        dists = references(prog, reference)
    product = {x: brute.product(d, k) for x, d in dists.items()}
    for t in (Fraction(1), Fraction(3, 2), Fraction(5)):
        want, attaining = brute.max_over_pairs(product, neighbours, lambda p, q: brute.hockey(p, q, t))
        r = synthesize_approximate(prog, epsilon=f"ln:{t}", compose=k)
        assert r.delta == want and (r.witness.x, r.witness.x_prime) in attaining and r.compose == k
        f = synthesize_approximate(prog, epsilon=float(math.log(t)), compose=k, exact=False)
        assert f.delta == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    for delta in (Fraction(1, 10), Fraction(1, 10 ** 4)):
        want, _ = brute.max_over_pairs(product, neighbours, lambda p, q: brute.ratio_for_delta(p, q, delta))
        r = synthesize_approximate(prog, delta=delta, compose=k)
        assert r.ratio == want
        f = synthesize_approximate(prog, delta=float(delta), compose=k, exact=False)
        assert f.epsilon == pytest.approx(math.log(want), rel=1e-12)


def test_privacy_loss_distribution_of_randomized_response():
    loss = privacy_loss_distribution(randomized_response(2, Fraction(1, 5)), (0, 0), (1, 0))
    assert loss.ratios == (Fraction(1, 4), Fraction(4))
    assert loss.probabilities == (Fraction(1, 5), Fraction(4, 5)) and loss.infinite_mass == 0
    assert loss.losses == (-math.log(4), math.log(4))
    three = privacy_loss_distribution(randomized_response(2, Fraction(1, 5)), (0, 0), (1, 0), compose=3)
    assert three.ratios == (Fraction(1, 64), Fraction(1, 4), Fraction(4), Fraction(64))
    assert three.probabilities == tuple(math.comb(3, j) * Fraction(4, 5) ** j * Fraction(1, 5) ** (3 - j)
                                        for j in range(4))
    floats = privacy_loss_distribution(randomized_response(2, 0.2), (0, 0), (1, 0), compose=3)
    assert floats.ratios is None and floats.losses == pytest.approx(three.losses, rel=1e-14)
    assert floats.probabilities == pytest.approx([float(p) for p in three.probabilities], rel=1e-13)


def test_privacy_loss_distribution_groups_equal_ratios_and_has_infinite_mass():
    prog = Program("shift", IntVector(1, 0, 2), lambda x: x[0] + uniform(0, 2), neighbours="one-entry")
    loss = privacy_loss_distribution(prog, (0,), (1,))
    assert loss.ratios == (Fraction(1),) and loss.probabilities == (Fraction(2, 3),)
    assert loss.infinite_mass == Fraction(1, 3)
    for k in (2, 3):
        composed = privacy_loss_distribution(prog, (0,), (1,), compose=k)
        assert composed.infinite_mass == 1 - Fraction(2, 3) ** k
        assert sum(composed.probabilities) + composed.infinite_mass == 1
    tg = truncated_geometric(4, alpha=Fraction(1, 3))
    loss = privacy_loss_distribution(tg, (1,), (2,))
    dists = references(tg, lambda x: tgeom_pmf(x[0], 0, 4, Fraction(1, 3)))
    for eps in (0.0, 0.5, 1.0):
        assert loss.delta(eps) == pytest.approx(float(sum(max(0, dists[(1,)][y] - math.exp(eps) * dists[(2,)][y])
                                                          for y in range(5))), rel=1e-12)


def test_too_many_composed_values_is_an_error():
    with pytest.raises(WmcdpError, match="more than 1048576 distinct losses after equal ones merge"):
        synthesize_approximate(randomized_response(1, 0.2), epsilon=1, compose=2_000_000)


@pytest.mark.parametrize("lam, K", [(0.2, 2047), (Fraction(1, 5), 301)])
def test_the_limit_counts_losses_after_they_merge(lam, K):
    """K runs of binary randomized response have K + 1 distinct losses ((2j - K) ln 4): the limit applies to
    them, not to the products of the groups before they merge (2047 runs used to be refused: 1025^2 > 2^20);
    delta(eps) against the binomial closed form (exact runs are slower: a smaller K)."""
    r = synthesize_approximate(randomized_response(1, lam), epsilon="ln:4", compose=K)
    p = Fraction(4, 5)
    # the loss is (2j - K) ln 4 with j ~ Binomial(K, p) the runs that kept the bit
    total = Fraction(0)
    from math import comb
    for j in range(K + 1):
        loss_ratio = Fraction(4) ** (2 * j - K) if 2 * j >= K else Fraction(1, 4 ** (K - 2 * j))
        if loss_ratio > 4:
            pj = comb(K, j) * p ** j * (1 - p) ** (K - j)
            total += pj * (1 - 4 / loss_ratio)
    if isinstance(lam, Fraction):
        assert r.delta == total
    else:
        assert math.isclose(r.delta, float(total), rel_tol=1e-9)


def test_unknown_accountant():
    with pytest.raises(WmcdpError, match="unknown accountant 'fft'"):
        synthesize_approximate(randomized_response(1, 0.2), epsilon=1, compose=2, accountant="fft")


# -- dp-accounting ----------------------------------------------------------------------------------

H = 1e-4


@pytest.mark.parametrize("prog", [randomized_response(2, Fraction(1, 5)), truncated_geometric(3, alpha=Fraction(1, 2)),
                                  asymmetric()], ids=["rr", "tgeom", "asym"])
@pytest.mark.parametrize("k", [1, 2, 3, 10])
def test_dp_accounting_export_within_its_discretisation(prog, k):
    """Pessimistic PLD: delta(eps) <= delta~(eps) <= delta(eps - K h) and eps(delta) <= eps~(delta) <= eps(delta) + K h."""
    pytest.importorskip("dp_accounting")
    epsilons = [0.0, 0.3, 1.0, 2.0]
    exact = privacy_profile(prog, epsilons, compose=k)
    shifted = privacy_profile(prog, [max(0.0, e - k * H) for e in epsilons], compose=k)
    pld = privacy_profile(prog, epsilons, compose=k, accountant="dp-accounting", interval=H)
    for eps, e, s, p in zip(epsilons, exact, shifted, pld):
        slack = k * 1e-15 + 1e-12
        # below epsilon = 0: delta(-r) <= delta(0) + (1 - e^-r), the hockey-stick sum at a ratio e^-r < 1
        below = -math.expm1(-(k * H - eps)) if eps < k * H else 0.0
        assert float(e.delta) - 1e-13 <= p.delta <= float(s.delta) + below + slack
    for delta in (1e-1, 1e-3, 1e-6):
        want = synthesize_approximate(prog, delta=delta, compose=k).epsilon
        got = synthesize_approximate(prog, delta=delta, compose=k, accountant="dp-accounting", interval=H)
        assert (got.accountant, got.exact) == (("dp-accounting", False) if k > 1 else ("exact", True))
        if math.isinf(want):
            assert math.isinf(got.epsilon)
        else:
            assert want - 1e-12 <= got.epsilon <= want + k * H + 1e-9


def test_dp_accounting_reads_upper_and_lower_the_right_way_round():
    """For an asymmetric pair each ordered pair is its own direction; the bound is the max over both."""
    pytest.importorskip("dp_accounting")
    from wmcdp.notions.accounting import pld
    from wmcdp.notions.loss import Groups
    from wmcdp.plan.pairs import pair_source

    source = pair_source(asymmetric(), [((0,), (1,))])
    rows = {k: (a, b) for k, a, b in source.rows([0, 1])}
    for key in (0, 1):
        a, b = rows[key]
        p = pld(Groups.of(source.arith, a, b), 2, H)
        want = float(brute.hockey(*[brute.product({y: Fraction(int(m), source.arith.denominator)
                                                   for y, m in enumerate(v)}, 2) for v in (a, b)], 1))
        assert want - 1e-12 <= p.get_delta_for_epsilon(0.0) <= want + 2 * H


def test_missing_dp_accounting_is_one_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    with pytest.raises(WmcdpError, match=r"needs the dp-accounting package: pip install 'wmcdp\[accounting\]'"):
        synthesize_approximate(randomized_response(1, 0.2), epsilon=1, compose=2, accountant="dp-accounting")
