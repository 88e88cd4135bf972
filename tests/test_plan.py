"""The planner (``sets=None``, the default): every plan gives the exhaustive bound, against brute force.

Random programs are built from a *recipe* of parts, each part a small mechanism on its own entries:
planted products (independent parts), near-products (two parts that share one coin, a part that reads
two entries), planted symmetries (equal parts) and near-symmetric ones (one weight 1/5 against
1/5 + 10^-12, one threshold moved). Each recipe gives both a DSL program and a plain-Python
mechanism; :func:`brute.distribution` enumerates the latter's random choices, independently of
wmcdp, and every notion (pure ε, δ(ε), ε(δ), Rényi, accuracy) of the planned run is compared with
the definitions applied to those distributions, in both backends, exact and float.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

import brute
from test_geometric import tgeom_pmf
from wmcdp import Bits, IntVector, Program, flip, ite, privacy_profile, synthesize_accuracy, synthesize_privacy, \
    truncated_geometric
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.cli import main
from wmcdp.plan.parts import split
from wmcdp.notions.renyi import synthesize_renyi
from wmcdp.lang.relations import NEIGHBOURS

FIFTH = Fraction(1, 5)
NEAR = FIFTH + Fraction(1, 10 ** 12)


# -- recipes: a DSL program and its plain-Python reference from one description ------------------

def _part_dsl(kind, entries, p, x, coins):
    if kind == "flip":
        return x[entries[0]] ^ flip(p)
    if kind == "shared":     # a coin drawn once and used by two parts (a near-product)
        if "shared" not in coins:
            coins["shared"] = flip(p)
        return x[entries[0]] ^ coins["shared"]
    if kind == "and2":       # one part that reads two entries
        return (x[entries[0]] ^ flip(p)) & (x[entries[1]] ^ flip(p))
    if kind == "count":
        return sum(x[e] ^ flip(p) for e in entries)
    if kind == "geo":
        return truncated_geometric(x[entries[0]], 0, 2, alpha=p)
    if kind == "threshold":  # a noisy entry compared with a threshold that recipes move
        return truncated_geometric(x[entries[0]], 0, 2, alpha=p) >= entries[1]
    raise AssertionError(kind)


def _part_ref(kind, entries, p, x, choose, coins):
    if kind == "flip":
        return x[entries[0]] ^ brute.flip(choose, p)
    if kind == "shared":
        if "shared" not in coins:
            coins["shared"] = brute.flip(choose, p)
        return x[entries[0]] ^ coins["shared"]
    if kind == "and2":
        return (x[entries[0]] ^ brute.flip(choose, p)) & (x[entries[1]] ^ brute.flip(choose, p))
    if kind == "count":
        return sum(x[e] ^ brute.flip(choose, p) for e in entries)
    if kind == "geo":
        return choose(tgeom_pmf(x[entries[0]], 0, 2, Fraction(p)))
    if kind == "threshold":
        return int(choose(tgeom_pmf(x[entries[0]], 0, 2, Fraction(p))) >= entries[1])
    raise AssertionError(kind)


def build(recipe, domain, exact):
    """``(program, reference mechanism)`` of a recipe: a list of ``(kind, entries, weight)`` parts."""
    weight = (lambda p: p) if exact else float

    def body(x):
        coins: dict = {}
        return tuple(_part_dsl(kind, entries, weight(p), x, coins) for kind, entries, p in recipe)

    def reference(x, choose):
        coins: dict = {}
        return tuple(_part_ref(kind, entries, p, x, choose, coins) for kind, entries, p in recipe)

    return Program("planted", domain, body), reference


def random_recipe(rng: random.Random):
    """A random recipe on a bit domain or on {0..2}^n: products, near-products, symmetric and near-symmetric parts."""
    if rng.random() < 0.4:
        n = rng.choice([2, 3])
        parts = [("geo", (e,), rng.choice([Fraction(1, 2), Fraction(1, 3)])) for e in range(n)]
        style = rng.choice(["equal", "near", "threshold"])
        if style == "near":
            parts[-1] = ("geo", (n - 1,), parts[0][2] + Fraction(1, 10 ** 12))
        elif style == "threshold":
            parts = [("threshold", (e, 1), Fraction(1, 2)) for e in range(n)]
            parts[-1] = ("threshold", (n - 1, 2), Fraction(1, 2))  # one threshold moved
        return IntVector(n, 0, 2), parts, style
    n = rng.choice([2, 3, 4])
    style = rng.choice(["equal", "near", "shared", "and2", "count", "mixed"])
    parts = [("flip", (e,), FIFTH) for e in range(n)]
    if style == "near":
        parts[-1] = ("flip", (n - 1,), NEAR)
    elif style == "shared":
        parts[0] = ("shared", (0,), FIFTH)
        parts[1] = ("shared", (1,), FIFTH)
    elif style == "and2":
        parts = [("and2", (0, 1), FIFTH)] + [("flip", (e,), Fraction(1, 3)) for e in range(2, n)]
    elif style == "count":
        parts = [("count", (0, 1), FIFTH)] + [("flip", (e,), FIFTH) for e in range(2, n)]
    elif style == "mixed":
        parts = [("flip", (e,), rng.choice([FIFTH, Fraction(1, 3)])) for e in range(n)]
    return Bits(n), parts, style


def distributions(reference, domain):
    return {x: brute.distribution(reference, x) for x in domain.values()}


def relations_for(domain):
    return ["hamming", "all-entries"] if domain.is_bits else ["hamming", "one-entry", "all-entries"]


def close(a, b, exact):
    if exact or a == b:
        return a == b
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-15)


CASES = [random_recipe(random.Random(seed)) for seed in range(18)]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("exact", [True, False])
def test_planned_bounds_equal_brute_force(case, exact):
    domain, recipe, style = CASES[case]
    backend = "sdd" if case % 3 == 0 else "bdd"
    prog, reference = build(recipe, domain, exact)
    dists = distributions(reference, domain)
    for name in relations_for(domain):
        neighbours = lambda x, r=NEIGHBOURS[name]: list(r(domain, x))  # noqa: E731
        # pure epsilon, and the witness attains it
        r = synthesize_privacy(prog, neighbours=name, backend=backend)
        truth, _ = brute.tight_epsilon(dists, neighbours)
        assert close(r.epsilon, truth, False), (style, name, r.epsilon, truth, r.plan)
        w = r.witness
        a, b = dists[w.x].get(w.y, 0), dists[w.x_prime].get(w.y, 0)
        assert w.x_prime in neighbours(w.x) and a > 0
        assert (b == 0 and r.epsilon == math.inf) or close(math.log(Fraction(a) / b), truth, False)
        if exact:
            assert r.exact and (r.ratio == math.inf or r.ratio == Fraction(a) / b)
        # delta(epsilon) at e^eps = 3/2, and Renyi D_2
        t = Fraction(3, 2)
        d = synthesize_approximate(prog, epsilon="ln:3/2", neighbours=name, backend=backend)
        best, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, t))
        assert close(d.delta, best, exact), (style, name, d.delta, best, d.plan)
        ren = synthesize_renyi(prog, [2], neighbours=name, backend=backend)
        top, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.renyi(p, q, 2.0))
        assert math.isclose(ren.orders[0].epsilon, top, rel_tol=1e-9), (style, name, ren.plan)
    # epsilon(delta) under hamming
    neighbours = lambda x: list(NEIGHBOURS["hamming"](domain, x))  # noqa: E731
    e = synthesize_approximate(prog, delta="1/100" if exact else 0.01, backend=backend)
    ratio, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.ratio_for_delta(p, q, Fraction(1, 100)))
    assert (ratio == math.inf and e.epsilon == math.inf) or close(e.epsilon, math.log(ratio), False), (style, e.plan)


def test_independence_is_read_exactly():
    """Planted products split, into one class per distinct part; near-products never split."""
    def parts_of(recipe, domain):
        prog, _ = build(recipe, domain, True)
        found = split(prog.trace())
        return None if found is None else [sorted(p.entries) for p in found]

    bits = Bits(4)
    assert parts_of([("flip", (e,), FIFTH) for e in range(4)], bits) == [[0], [1], [2], [3]]
    assert parts_of([("shared", (0,), FIFTH), ("shared", (1,), FIFTH), ("flip", (2,), FIFTH)], bits) == [[0, 1], [2]]
    assert parts_of([("and2", (0, 1), FIFTH), ("flip", (2,), FIFTH)], bits) == [[0, 1], [2]]
    assert parts_of([("shared", (0,), FIFTH), ("shared", (1,), FIFTH)], bits) is None
    r = synthesize_privacy(build([("flip", (e,), FIFTH) for e in range(3)] + [("flip", (3,), NEAR)], bits, True)[0])
    assert r.plan.kind == "product" and (r.plan.parts, r.plan.distinct_parts) == (4, 2)


def test_product_sums_under_all_entries():
    """Under all-entries every part may move: pure epsilon and Renyi divergences add up over the parts."""
    prog, reference = build([("flip", (0,), FIFTH), ("flip", (1,), Fraction(1, 3))], Bits(2), True)
    r = synthesize_privacy(prog, neighbours="all-entries")
    assert r.plan.kind == "product" and r.ratio == 4 * 2
    dists = distributions(reference, Bits(2))
    assert Fraction(dists[r.witness.x][r.witness.y]) / dists[r.witness.x_prime][r.witness.y] == 8


def test_accuracy_planned_equals_brute_force():
    prog = Program("count", Bits(5), lambda x: sum(xi ^ flip(FIFTH) for xi in x), target=sum)
    ref = lambda x, c: sum(xi ^ brute.flip(c, FIFTH) for xi in x)  # noqa: E731
    r = synthesize_accuracy(prog, alpha=1)
    truth = min(sum(p for y, p in brute.distribution(ref, x).items() if abs(y - sum(x)) <= 1)
                for x in itertools.product((0, 1), repeat=5))
    assert r.one_minus_beta == truth and r.plan is not None


def test_quick_programs_run_exhaustive_without_detection():
    """Below the quick estimate no symmetry detection runs at all (so the default is never slower)."""
    from wmcdp.programs import noisy_max

    r = synthesize_privacy(noisy_max(4, 2, eps0=1))
    assert r.plan.kind == "exhaustive" and r.plan.detection_seconds == 0
    assert r.ratio == synthesize_privacy(noisy_max(4, 2, eps0=1), "exhaustive").ratio


def test_detection_past_its_budget_is_abandoned_not_failed():
    """With no time left every diagram proof is abandoned: the group is what the circuit itself proves
    (the first two terms of the sum are one gate pattern), and the orbit bound is still the exhaustive one."""
    from wmcdp.programs import rr_counting
    from wmcdp.plan.planner import Budget
    from wmcdp.plan.symmetry.runs import accuracy_plan, find_symmetry

    prog = rr_counting(6, FIFTH)
    sym = find_symmetry(prog, budget=Budget(0.0))
    assert "abandoned" in sym.note and "proved on the circuit" in sym.note
    assert sym.describe() == "S_2 on entries 4, 5, outputs unchanged"
    ref = lambda x, c: sum(xi ^ brute.flip(c, FIFTH) for xi in x)  # noqa: E731
    for x in itertools.product((0, 1), repeat=6):
        assert brute.distribution(ref, x) == brute.distribution(ref, x[:4] + (x[5], x[4]))
    assert find_symmetry(prog).describe() == "S_6 on entries 0..5, outputs unchanged"
    orbits = accuracy_plan(prog, budget=Budget(0.0))
    assert orbits.report.symmetry == "S_2 on entries 4, 5, outputs unchanged"
    r = synthesize_accuracy(prog, orbits, alpha=1)
    assert r.one_minus_beta == synthesize_accuracy(prog, "exhaustive", alpha=1).one_minus_beta


def test_cli_reports_the_plan(capsys):
    import json

    assert main(["privacy", "randomized_response", "-p", "n=30", "-p", "lam=1/5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ratio_exact"] == "4" and data["plan"]["kind"] == "product"
    assert data["plan"]["parts"] == 30 and data["plan"]["distinct_parts"] == 1
    assert data["plan"]["part_plans"][0]["kind"] == "exhaustive"
    assert main(["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/5"]) == 0
    out = capsys.readouterr().out
    assert "plan          product (3 independent parts" in out


def _lopsided(xi, choose=None):
    """A three-valued part whose neighbour pairs have no dominant one: P(1 | 0, 1, 2) = 1/10, 1/2, 9/10."""
    p = {0: Fraction(1, 10), 1: Fraction(1, 2), 2: Fraction(9, 10)}
    if choose is not None:
        return brute.flip(choose, p[xi])
    return ite(xi == 0, flip(p[0]), ite(xi == 1, flip(p[1]), flip(p[2])))


@pytest.mark.parametrize("kind", ["dominant", "no dominant pair"])
@pytest.mark.parametrize("exact", [True, False])
def test_approximate_dp_of_products_under_all_entries(kind, exact):
    """Under all-entries every part may move at once. When each part has a dominant pair the product's worst pair
    takes it in every part and its loss distribution is the composition of theirs (a product plan); otherwise the
    whole program is planned. Either way δ(ε), ε(δ), the profile and the witness equal the enumeration."""
    if kind == "dominant":
        recipe = [("flip", (0,), FIFTH), ("flip", (1,), Fraction(1, 3)), ("flip", (2,), FIFTH)]
        domain = Bits(3)
        prog, reference = build(recipe, domain, exact)
    else:
        domain = IntVector(2, 0, 2)
        prog = Program("lopsided", domain, lambda x: tuple(_lopsided(x[i]) for i in range(2)))
        reference = lambda x, c: tuple(_lopsided(xi, c) for xi in x)  # noqa: E731
    dists = distributions(reference, domain)
    neighbours = lambda x: list(NEIGHBOURS["all-entries"](domain, x))  # noqa: E731
    t = Fraction(3, 2)
    d = synthesize_approximate(prog, epsilon="ln:3/2", neighbours="all-entries", exact=None if exact else False)
    best, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, t))
    assert close(d.delta, best, exact) and (d.plan.kind == "product") == (kind == "dominant")
    w = d.witness
    assert w.x_prime in neighbours(w.x) and close(brute.hockey(dists[w.x], dists[w.x_prime], t), best, exact)
    e = synthesize_approximate(prog, delta="1/100", neighbours="all-entries")
    ratio, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.ratio_for_delta(p, q, Fraction(1, 100)))
    assert close(e.epsilon, math.log(ratio), False)
    points = privacy_profile(prog, [0.1, 0.5], neighbours="all-entries", exact=None if exact else False)
    for point, eps in zip(points, (0.1, 0.5)):
        top, _ = brute.max_over_pairs(dists, neighbours, lambda p, q, r=math.exp(eps): brute.hockey(p, q, r))
        assert math.isclose(float(point.delta), float(top), rel_tol=1e-12)


def test_planned_accuracy_where_exhaustive_sets_are_over_the_limits():
    """RR counting at n = 50 has 2^50 inputs: the planner takes one input per orbit (the number of ones), and
    1 - beta is the closed form min over s of P(|ones kept + zeros flipped - s| <= 3), exactly."""
    from wmcdp.programs import rr_counting

    n, lam, alpha = 50, FIFTH, 3

    def binomial(m, p):
        return [math.comb(m, i) * p**i * (1 - p) ** (m - i) for i in range(m + 1)]

    def within(s):
        kept, flipped = binomial(s, 1 - lam), binomial(n - s, lam)
        return sum(p * q for a, p in enumerate(kept) for b, q in enumerate(flipped) if abs(a + b - s) <= alpha)

    r = synthesize_accuracy(rr_counting(n, lam), alpha=alpha)
    assert r.plan.kind == "symmetry" and r.one_minus_beta == min(within(s) for s in range(n + 1))


@pytest.mark.parametrize("p", [1e-300, 1 - 1e-16])
def test_float_products_under_all_entries_at_extreme_probabilities(p):
    """A float product whose parts flip with probability 1e-300 (likelihood ratios near 2^997, composed past
    2^1023) or 1 - 1e-16: the dominant pairs are found in log space and δ(ε) is the enumeration's, computed
    exactly from the floats' binary values."""
    recipe = [("flip", (0,), Fraction(p)), ("flip", (1,), Fraction(p)), ("flip", (2,), Fraction(1, 3))]
    prog, reference = build(recipe, Bits(3), False)
    dists = distributions(reference, Bits(3))
    neighbours = lambda x: list(NEIGHBOURS["all-entries"](Bits(3), x))  # noqa: E731
    for eps in (1.0, 700.0):
        d = synthesize_approximate(prog, epsilon=eps, neighbours="all-entries", exact=False)
        t = Fraction(math.exp(eps))
        best, _ = brute.max_over_pairs(dists, neighbours, lambda a, b: brute.hockey(a, b, t))
        assert d.plan.kind == "product"
        assert math.isclose(float(d.delta), float(best), rel_tol=1e-12), (eps, d.delta, float(best))
