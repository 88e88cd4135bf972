"""The planner's plan for a count of independent identical 0/1 reports (wmcdp.plan.sums), against brute force
and the binomial closed form of RR counting; near-misses (a shared coin, a report with three values, unequal
reports) take the other plans and still match brute force."""

from __future__ import annotations

import math
from fractions import Fraction

import brute
import pytest

from wmcdp import IntVector, Program, flip, ite
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.notions.renyi import synthesize_renyi
from wmcdp.programs import rr_counting

W = (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3))  # P(report 1 | value v)


def hamming(x, k=2):
    return [x[:i] + (b,) + x[i + 1 :] for i in range(len(x)) for b in range(k) if b != x[i]]


def one_entry(x, k=3):
    return [x[:i] + (b,) + x[i + 1 :] for i in range(len(x)) for b in (x[i] - 1, x[i] + 1) if 0 <= b < k]


def three_valued(n: int, relation: str) -> Program:
    """Entry values 0..2; each entry reports 1 with probability W[value] (three coins drawn, one used)."""
    return Program(
        "three_valued",
        IntVector(n, 0, 2),
        lambda x: sum(ite(xi == 0, flip(W[0]), ite(xi == 1, flip(W[1]), flip(W[2]))) for xi in x),
        neighbours=relation,
    )


def three_valued_ref(x):
    return brute.distribution(lambda x, c: sum(brute.flip(c, W[v]) for v in x), x)


def count_ref(lam):
    return lambda x: brute.distribution(lambda x, c: sum(xi ^ brute.flip(c, lam) for xi in x), x)


def check_against(prog, reference, neighbours, counted: bool):
    """δ at three ratios, ε at two δ (exact, witnesses among the attaining pairs) and Rényi of order 2 (float)
    equal brute force over every ordered neighbour pair; ``counted``: the plan is the convolution of reports."""
    dists = {x: reference(x) for x in prog.inputs.values()}
    for t in (Fraction(1), Fraction(3, 2), Fraction(4)):
        want, attaining = brute.max_over_pairs(dists, neighbours, lambda p, q, t=t: brute.hockey(p, q, t))
        r = synthesize_approximate(prog, epsilon=f"ln:{t}", exact=True)
        assert r.exact and r.delta == want and (r.witness.x, r.witness.x_prime) in attaining
        assert ("rows by convolution" in r.plan.structure) == counted
    for delta in (Fraction(1, 10), Fraction(1, 1000)):
        want, attaining = brute.max_over_pairs(dists, neighbours, lambda p, q, d=delta: brute.ratio_for_delta(p, q, d))
        r = synthesize_approximate(prog, delta=delta, exact=True)
        assert r.ratio == want and (r.witness.x, r.witness.x_prime) in attaining
    want, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.renyi(p, q, 2.0))
    assert synthesize_renyi(prog, [2]).orders[0].epsilon == pytest.approx(want, rel=1e-12)


def test_rr_counting_against_brute_force():
    check_against(rr_counting(5, Fraction(1, 5)), count_ref(Fraction(1, 5)), hamming, counted=True)


@pytest.mark.parametrize("relation", ["hamming", "one-entry"])
def test_three_valued_entries_against_brute_force(relation):
    neighbours = (lambda x: hamming(x, 3)) if relation == "hamming" else one_entry
    check_against(three_valued(3, relation), three_valued_ref, neighbours, counted=True)


def binomial_rows(n: int, lam: Fraction) -> list[list[Fraction]]:
    """Row ``k``: the distribution of Bin(k, 1 - lam) + Bin(n - k, lam) (k ones among n inputs)."""

    def binomial(m, p):
        return [math.comb(m, j) * p**j * (1 - p) ** (m - j) for j in range(m + 1)]

    rows = []
    for k in range(n + 1):
        a, b = binomial(k, 1 - lam), binomial(n - k, lam)
        rows.append([sum(a[i] * b[y - i] for i in range(max(0, y - (n - k)), min(k, y) + 1)) for y in range(n + 1)])
    return rows


def test_rr_counting_at_sixty_users_against_the_binomial_closed_form_in_linear_work():
    n, lam, t = 60, Fraction(1, 4), Fraction(3, 2)
    rows = binomial_rows(n, lam)
    want = max(
        sum(max(Fraction(0), p - t * q) for p, q in zip(rows[a], rows[b]))
        for k in range(n)
        for a, b in ((k, k + 1), (k + 1, k))
    )
    r = synthesize_approximate(rr_counting(n, lam), epsilon=f"ln:{t}", exact=True)
    assert r.delta == want
    # detection is one pass over the terms' circuit, a few gates per user (the whole diagram has ~n^2/2 nodes)
    assert r.plan.detection_work <= 10 * n and r.plan.size == 2 * n


def test_terms_traced_without_their_total():
    prog = rr_counting(40, Fraction(1, 4))
    terms, whole = prog.trace(terms=True), prog.trace()
    assert len(terms.output_roots) == 40 and len(terms.circuit.gates) <= 10 * 40
    total = terms.total()
    assert total.shape == whole.shape and len(total.output_roots) == len(whole.output_roots)
    assert prog.trace().total is None
    assert Program("c", IntVector(2, 0, 1), lambda x: x[0]).trace(terms=True).total is None


def shared_coin(n: int) -> Program:
    """Entries 0 and 1 flip with one shared coin: the terms are not independent."""

    def body(x):
        shared = flip(Fraction(1, 5))
        return sum([x[0] ^ shared, x[1] ^ shared] + [xi ^ flip(Fraction(1, 5)) for xi in x[2:]])

    return Program("shared_coin", IntVector(n, 0, 1), body, neighbours="hamming")


def shared_coin_ref(x):
    def run(x, c):
        s = brute.flip(c, Fraction(1, 5))
        return (x[0] ^ s) + (x[1] ^ s) + sum(xi ^ brute.flip(c, Fraction(1, 5)) for xi in x[2:])

    return brute.distribution(run, x)


def unequal(n: int) -> Program:
    """Entry 0 flips with 1/3, the others with 1/5: two mechanisms."""
    return Program(
        "unequal",
        IntVector(n, 0, 1),
        lambda x: sum(xi ^ flip(Fraction(1, 3) if i == 0 else Fraction(1, 5)) for i, xi in enumerate(x)),
        neighbours="hamming",
    )


def unequal_ref(x):
    return brute.distribution(
        lambda x, c: sum(xi ^ brute.flip(c, Fraction(1, 3) if i == 0 else Fraction(1, 5)) for i, xi in enumerate(x)),
        x,
    )


def two_coins(n: int) -> Program:
    """Each entry adds two coins: reports 0..2."""
    return Program(
        "two_coins",
        IntVector(n, 0, 1),
        lambda x: sum((xi ^ flip(Fraction(1, 5))) + flip(Fraction(1, 2)) for xi in x),
        neighbours="hamming",
    )


def two_coins_ref(x):
    return brute.distribution(
        lambda x, c: sum((xi ^ brute.flip(c, Fraction(1, 5))) + brute.flip(c, Fraction(1, 2)) for xi in x), x
    )


@pytest.mark.parametrize(
    "make, reference", [(shared_coin, shared_coin_ref), (unequal, unequal_ref), (two_coins, two_coins_ref)]
)
def test_near_misses_take_another_plan(make, reference):
    check_against(make(4), reference, hamming, counted=False)
