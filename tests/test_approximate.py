"""Approximate and Rényi DP against brute force: every output distribution enumerated independently,
hockey-stick and Rényi sums computed straight from the definitions over every ordered neighbour pair.

References: tests/brute.py (plain-Python mechanisms, Fractions), the truncated geometric's
closed form and the DP-tester suite's references (test_geometric.py, test_suite.py).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import brute
from wmcdp.programs import geometric_above_threshold, randomized_response, rr_counting, truncated_geometric
from test_geometric import all_entries, gat_reference, one_entry, tgeom_pmf
from test_suite import case as suite_case
from wmcdp import Bits, IntVector, Program, WmcdpError, discrete, flip, ite, synthesize_privacy, uniform
from wmcdp.notions.approximate import Threshold, privacy_profile, synthesize_approximate
from wmcdp.compile import compile_program
from wmcdp.notions.renyi import synthesize_renyi


def hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(len(x))]


def rr_ref(lam):
    return lambda x: brute.distribution(lambda x, c: tuple(xi ^ brute.flip(c, lam) for xi in x), x)


def count_ref(lam):
    return lambda x: brute.distribution(lambda x, c: sum(xi ^ brute.flip(c, lam) for xi in x), x)


def case(name: str, exact: bool):
    """``(program, reference x -> {y: P}, neighbours)`` for the mechanisms of the acceptance list."""
    lam = Fraction(1, 5) if exact else 0.2
    a = Fraction(1, 2) if exact else 0.5
    if name == "rr":
        return randomized_response(3, lam), rr_ref(Fraction(1, 5)), hamming
    if name == "rr_counting":
        return rr_counting(4, lam), count_ref(Fraction(1, 5)), hamming
    if name == "truncated_geometric":
        return (truncated_geometric(5, alpha=a), lambda x: tgeom_pmf(x[0], 0, 5, Fraction(1, 2)),
                lambda x: list(one_entry(x, 0, 5)))
    if name == "gat":
        return (geometric_above_threshold(3, 3, 2, alpha=a), gat_reference(3, 3, 2, Fraction(1, 2)),
                lambda x: list(one_entry(x, 0, 3)))
    suite = {"noisy_max": (3, 2, 1, all_entries, {}), "histogram": (2, 2, 1, one_entry, {}),
             "sparse_vector": (3, 1, 1, all_entries, {"T": 1, "N": 1}), "isvt4": (2, 1, 1, all_entries,
                                                                               {"T": 1, "N": 1})}
    n, m, margin, relation, extra = suite[name]
    prog, _ = suite_case(name, n, m, margin, Fraction(1, 3) if exact else 1 / 3, **extra)
    _, reference = suite_case(name, n, m, margin, Fraction(1, 3), **extra)
    return prog, reference, lambda x: list(relation(x, 0, m))


NAMES = ["rr", "rr_counting", "truncated_geometric", "gat", "noisy_max", "histogram", "sparse_vector", "isvt4"]


def references(prog, reference):
    return {x: reference(x) for x in prog.inputs.values()}


def pure_ratio(dists, neighbours):
    return brute.max_over_pairs(dists, neighbours, lambda p, q: max(
        (math.inf if q.get(y, 0) == 0 else Fraction(p[y]) / q[y]) for y in p if p[y] > 0))[0]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_delta_and_epsilon_against_brute_force(name, exact):
    prog, reference, neighbours = case(name, exact)
    dists = references(prog, reference)
    compiled = compile_program(prog)
    pure = pure_ratio(dists, neighbours)
    ratios = [Fraction(1), Fraction(3, 2)] + ([pure, pure * Fraction(11, 10)] if pure != math.inf else [])
    for t in ratios:
        want, attaining = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, t))
        r = synthesize_approximate(compiled, epsilon=f"ln:{t}", exact=exact)
        assert (r.witness.x, r.witness.x_prime) in attaining if exact else \
            brute.hockey(dists[r.witness.x], dists[r.witness.x_prime], t) == pytest.approx(float(want), rel=1e-9)
        if exact:
            assert r.exact and r.delta == want and r.ratio == t
        else:
            assert r.delta == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    for delta in (Fraction(3, 10), Fraction(1, 1000), Fraction(1, 10 ** 6)):
        want, attaining = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.ratio_for_delta(p, q, delta))
        r = synthesize_approximate(compiled, delta=delta, exact=exact)
        if want == math.inf:
            assert r.epsilon == math.inf
            assert brute.hockey(dists[r.witness.x], dists[r.witness.x_prime], 10 ** 9) > delta
            continue
        assert r.epsilon == pytest.approx(math.log(want), rel=1e-12, abs=1e-15)
        if exact:
            assert r.ratio == want and (r.witness.x, r.witness.x_prime) in attaining


@pytest.mark.parametrize("name", ["rr", "gat", "noisy_max", "isvt4"])
def test_sdd_backend_agrees(name):
    prog, reference, neighbours = case(name, True)
    dists = references(prog, reference)
    want, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, Fraction(5, 4)))
    assert synthesize_approximate(prog, epsilon="ln:5/4", backend="sdd").delta == want
    renyi = synthesize_renyi(prog, [2], backend="sdd").orders[0]
    assert renyi.epsilon == pytest.approx(brute.max_over_pairs(dists, neighbours,
                                                               lambda p, q: brute.renyi(p, q, 2.0))[0], rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_renyi_against_brute_force(name, exact):
    prog, reference, neighbours = case(name, exact)
    dists = references(prog, reference)
    compiled = compile_program(prog)
    r = synthesize_renyi(compiled, [1.5, 2, 5, "inf"], exact=exact)
    for o in r.orders:
        if math.isinf(o.order):
            continue
        want, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.renyi(p, q, o.order))
        got_pair = brute.renyi(dists[o.witness.x], dists[o.witness.x_prime], o.order)
        if math.isinf(want):
            assert math.isinf(o.epsilon) and math.isinf(got_pair)
        else:
            assert o.epsilon == pytest.approx(want, rel=1e-12) and got_pair == pytest.approx(want, rel=1e-9)
    pure = synthesize_privacy(compiled, exact=exact)
    if exact:  # both correctly rounded logs of the same exact ratio
        assert r.orders[-1].epsilon == pure.epsilon
    else:      # ln a - ln b against ln(a / b): within a few ulp
        assert r.orders[-1].epsilon == pytest.approx(pure.epsilon, rel=1e-15)
    assert r.zcdp_rho == max(o.epsilon / o.order for o in r.orders[:-1])


# -- closed forms -----------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [Fraction(1, 5), Fraction(1, 3), Fraction(2, 5)])
def test_randomized_response_closed_forms(lam):
    """delta(eps) = max(0, (1-lam) - e^eps lam); D_alpha = ln((1-l)^a l^(1-a) + l^a (1-l)^(1-a)) / (a-1)."""
    prog = randomized_response(3, lam)
    for t in (Fraction(1), Fraction(2), Fraction(7, 2), (1 - lam) / lam, Fraction(5)):
        assert synthesize_approximate(prog, epsilon=f"ln:{t}").delta == max(0, (1 - lam) - t * lam)
    for delta in (Fraction(1, 10), Fraction(1, 100)):
        assert synthesize_approximate(prog, delta=delta).ratio == ((1 - lam) - delta) / lam
    r = synthesize_renyi(randomized_response(3, float(lam)), [1.5, 2, 3, 10])
    for o in r.orders:
        a, l1 = o.order, float(lam)
        want = math.log((1 - l1) ** a * l1 ** (1 - a) + l1 ** a * (1 - l1) ** (1 - a)) / (a - 1)
        assert o.epsilon == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("name", ["rr", "truncated_geometric", "gat", "noisy_max"])
def test_delta_is_zero_exactly_from_the_pure_epsilon_on(name):
    prog, _, _ = case(name, True)
    pure = synthesize_privacy(prog)
    assert synthesize_approximate(prog, epsilon=f"ln:{pure.ratio}").delta == 0
    assert synthesize_approximate(prog, epsilon=f"ln:{pure.ratio * 2}").delta == 0
    assert synthesize_approximate(prog, epsilon=f"ln:{pure.ratio * Fraction(999, 1000)}").delta > 0
    zero = synthesize_approximate(prog, delta=0)
    assert zero.ratio == pure.ratio and zero.epsilon == pure.epsilon
    assert synthesize_approximate(prog, delta=Fraction(1, 10 ** 30)).ratio < pure.ratio


def test_the_pure_witness_pair_is_not_the_worst_pair():
    """The issue's example: GAT (3 entries, values 0..3, threshold 2, alpha 1/2)."""
    prog, reference, neighbours = case("gat", True)
    dists = references(prog, reference)
    pure = synthesize_privacy(prog)
    at_pure = brute.hockey(dists[pure.witness.x], dists[pure.witness.x_prime], 1)
    r = synthesize_approximate(prog, epsilon=0)
    assert r.delta == brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, 1))[0]
    assert (r.witness.x, r.witness.x_prime) == ((2, 0, 0), (3, 0, 0))
    assert round(float(r.delta), 3) == 0.153 and round(float(at_pure), 3) == 0.067
    only_pure = synthesize_approximate(prog, [(pure.witness.x, pure.witness.x_prime)], epsilon=0)
    assert only_pure.delta == max(at_pure, brute.hockey(dists[pure.witness.x_prime], dists[pure.witness.x], 1))


def test_float_epsilon_for_delta_is_accurate_to_1e12():
    for prog_exact, prog_float in [(geometric_above_threshold(3, 3, 2, alpha=Fraction(1, 2)),
                                    geometric_above_threshold(3, 3, 2, alpha=0.5)),
                                   (rr_counting(6, Fraction(1, 4)), rr_counting(6, 0.25))]:
        for delta in ("0.2", "1e-4", "1e-9"):
            e = synthesize_approximate(prog_exact, delta=delta)
            f = synthesize_approximate(prog_float, delta=float(delta))
            assert f.epsilon == pytest.approx(e.epsilon, rel=1e-12)


def test_irrational_threshold_in_exact_mode_is_decided_rigorously():
    """e^eps irrational: exact mode decides a > e^eps b exactly and rounds delta once (a delta that is rational,
    here 0, stays an exact Fraction)."""
    prog, reference, neighbours = case("truncated_geometric", True)
    dists = references(prog, reference)
    import mpmath

    for eps in (0.3, math.log(2) + 1e-15, 0.6931471805599453):
        with mpmath.workdps(60):  # 0.6931471805599453 < ln 2: e^eps is just below 2, which a float exp rounds to
            t = mpmath.exp(mpmath.mpf(eps))
            want = float(brute.max_over_pairs(dists, neighbours, lambda p, q: sum(
                max(0, mpmath.mpf(Fraction(p.get(y, 0)).numerator) / Fraction(p.get(y, 0)).denominator
                    - t * mpmath.mpf(Fraction(q.get(y, 0)).numerator) / Fraction(q.get(y, 0)).denominator)
                for y in p))[0])
        r = synthesize_approximate(prog, epsilon=eps)
        assert isinstance(r.delta, float if want else Fraction) and r.delta == pytest.approx(want, rel=1e-12)


def test_profile_is_delta_at_each_epsilon_with_its_pair():
    prog, reference, neighbours = case("gat", True)
    dists = references(prog, reference)
    points = privacy_profile(prog, [0, "ln:3/2", "ln:2", 1.5])
    for point, t in zip(points[:3], (1, Fraction(3, 2), 2)):
        want, attaining = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, t))
        assert point.delta == want and (point.witness.x, point.witness.x_prime) in attaining
    assert points[1].epsilon_text == "ln(3/2)" and points[3].delta == 0


# -- extremes --------------------------------------------------------------------------------------

def test_probabilities_down_to_1e_minus_300_float_against_exact():
    """Float mode keeps masses near 1e-300 (and their ratios) exact to 1e-12 against exact mode."""
    def program(p, q):
        return Program("tiny", Bits(1), lambda x: ite(x[0], discrete([p, 1 - p]), discrete([q, 1 - q])) +
                       flip(Fraction(1, 2)))

    exact = program(Fraction(3, 10 ** 300), Fraction(1, 10 ** 300))
    floats = program(3e-300, 1e-300)
    for eps in (0.5, 1.0, "ln:2"):
        e = synthesize_approximate(exact, epsilon=eps)
        f = synthesize_approximate(floats, epsilon=eps)
        assert f.delta == pytest.approx(float(e.delta), rel=1e-12)
        assert float(e.delta) < 1e-299
    for delta in (Fraction(1, 10 ** 301), Fraction(1, 10 ** 305)):
        e = synthesize_approximate(exact, delta=delta)
        f = synthesize_approximate(floats, delta=float(delta))
        assert f.epsilon == pytest.approx(e.epsilon, rel=1e-12)
    e, f = synthesize_renyi(exact, [2, "inf"]), synthesize_renyi(floats, [2, "inf"])
    for a, b in zip(e.orders, f.orders):
        assert b.epsilon == pytest.approx(a.epsilon, rel=1e-12)


def test_infinite_loss():
    """x' never outputs what x outputs half of the time: delta(eps) = 1/2 for every eps."""
    prog = Program("shift", IntVector(1, 0, 1), lambda x: x[0] + uniform(0, 1), neighbours="one-entry")
    assert synthesize_approximate(prog, epsilon=5).delta == Fraction(1, 2)
    r = synthesize_approximate(prog, delta=Fraction(1, 4))
    assert r.epsilon == math.inf and (r.witness.x, r.witness.x_prime) == ((0,), (1,))
    assert synthesize_approximate(prog, delta=Fraction(1, 2)).epsilon == 0
    assert synthesize_approximate(prog, delta=0.25, exact=False).epsilon == math.inf
    assert synthesize_renyi(prog, [2, "inf"]).orders[0].epsilon == math.inf


# -- arguments ---------------------------------------------------------------------------------------

def test_threshold_forms():
    assert Threshold.of("ln:3/2").ratio == Fraction(3, 2)
    assert Threshold.of("ln(3/2)").epsilon == pytest.approx(math.log(1.5), rel=1e-16)
    assert Threshold.of(0).ratio == 1 and Threshold.of(0.5).ratio is None
    assert Threshold.of(math.inf).epsilon == Threshold.of("inf").epsilon == math.inf  # delta(inf): mass x' misses
    for bad in ("ln:1/2", -1, float("nan"), -math.inf, "ln 2"):
        with pytest.raises(WmcdpError):
            Threshold.of(bad)


def test_delta_read_as_its_decimal_in_exact_mode():
    r = synthesize_approximate(randomized_response(2, Fraction(1, 5)), delta=1e-6)
    assert r.delta == Fraction(1, 10 ** 6) and r.ratio == (Fraction(4, 5) - Fraction(1, 10 ** 6)) / Fraction(1, 5)


def test_inference_set_must_cover_every_output():
    prog = randomized_response(1, Fraction(1, 5))
    pairs = [((0,), (1,))]
    full = [((0,), (0,)), ((0,), (1,)), ((1,), (0,)), ((1,), (1,))]
    assert synthesize_approximate(prog, pairs, full, epsilon=0).delta == Fraction(3, 5)
    with pytest.raises(WmcdpError, match="total probability 0.8, not 1"):
        synthesize_approximate(prog, pairs, full[:1] + full[2:], epsilon=0)


def test_sums_accumulate_across_stripes(monkeypatch):
    """A memory budget small enough to cut the joint table into stripes gives the same answers."""
    import importlib

    from wmcdp.count.probabilities import Counter, number_system

    engine = importlib.import_module("wmcdp.count.probabilities")

    prog, _, _ = case("rr", True)
    compiled = compile_program(prog)

    def run():
        return (synthesize_approximate(compiled, epsilon="ln:3/2"), synthesize_approximate(compiled, delta="1/1000"),
                synthesize_renyi(compiled, [2, "inf"]), synthesize_approximate(compiled, epsilon=0.4, exact=False))

    whole = run()
    monkeypatch.setattr(engine, "memory_budget", lambda: 3000)
    assert len(list(Counter(compiled, number_system(compiled, True)).stripes())) > 1
    striped = run()
    for a, b in zip(whole[:2] + whole[3:], striped[:2] + striped[3:]):
        assert (a.delta, a.ratio, a.witness) == (b.delta, b.ratio, b.witness)
    assert [(o.epsilon, o.witness) for o in whole[2].orders] == [(o.epsilon, o.witness) for o in striped[2].orders]
