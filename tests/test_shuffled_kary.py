"""Shuffled k-ary RR past 1000 users: k = 2 through the binary reductions (reduction 0 of wmcdp.plan.shuffled_rr)
against the enumeration of every dataset, every neighbouring pair and every random choice (exact Fractions);
k >= 3 refused in one line; the command line."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import brute
import pytest

from symmetry_sets import PAIRS
from wmcdp.cli import main
from wmcdp.plan.pairs import PairSet
from wmcdp.plan.shuffled_rr import ShuffledCounting


def _kary_histogram(k, lam):
    """Each user reports their value with probability 1 − lam, else one of the other k − 1 uniformly; the output
    is the counts of the reports 0..k-2 (one count when k = 2)."""

    def run(x, choose):
        reports = []
        for xi in x:
            lie = brute.flip(choose, lam)
            reports.append(choose({v: Fraction(1, k - 1) for v in range(k) if v != xi}) if lie else xi)
        counts = tuple(reports.count(v) for v in range(k - 1))
        return counts if k > 2 else counts[0]

    return run


def _counting(lam):
    return lambda x, c: sum(xi ^ brute.flip(c, lam) for xi in x)


def _hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(len(x))]


def _datasets(n, lam):
    return {x: brute.distribution(_kary_histogram(2, lam), x) for x in itertools.product((0, 1), repeat=n)}


def test_two_ary_is_counting_read_backwards():
    """Reduction 0: P_2ary(c | x) = P_counting(n − c | x) for every dataset."""
    n, lam = 5, Fraction(1, 3)
    for x, dist in _datasets(n, lam).items():
        counting = brute.distribution(_counting(lam), x)
        assert dist == {n - y: p for y, p in counting.items()}


@pytest.mark.parametrize(
    "n, lam, t", [(7, Fraction(1, 5), Fraction(5, 4)), (7, Fraction(1, 4), Fraction(3, 2)), (6, Fraction(2, 3), 2)]
)
def test_two_ary_search_encloses_every_pair(n, lam, t):
    """δ over every ordered pair of neighbouring datasets is enclosed by the search, and its witness is a
    neighbouring pair that attains it (an interior one at n = 7: the extreme datasets alone would be wrong)."""
    dists = _datasets(n, lam)
    exact, _ = brute.max_over_pairs(dists, _hamming, lambda p, q: brute.hockey(p, q, t))
    s = ShuffledCounting.of(n, lam, two_ary=True)
    point = s.delta(math.log(t))
    assert math.exp(point.lo) * (1 - 1e-14) <= exact <= math.exp(point.hi) * (1 + 1e-14)
    x, x_prime = s.witness(point)
    assert x_prime in _hamming(x)
    assert brute.hockey(dists[x], dists[x_prime], t) == exact
    extremes = [((0,) * n, (1,) + (0,) * (n - 1)), ((1,) * n, (0,) + (1,) * (n - 1))]
    if n == 7:
        assert max(brute.hockey(dists[a], dists[b], t) for a, b in extremes) < exact


def test_small_n_keeps_the_listed_pairs():
    for k in (2, 3):
        pairs, rows = PAIRS["kary_rr_histogram"](n=4, k=k, lam=Fraction(1, 4))
        assert isinstance(pairs, PairSet) and rows is not None


def _json(capsys, args):
    assert main(args + ["--sets", "symmetry", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_two_ary_past_1000_users(capsys):
    common = ["-p", "n=1001", "-p", "lam=1/4", "--epsilon", "0.3"]
    two = _json(capsys, ["approx", "kary_rr_histogram", "-p", "k=2"] + common)
    counting = _json(capsys, ["approx", "rr_counting"] + common)
    assert "shuffled 2-ary RR" in two["plan"]["structure"]
    assert two["delta"] == counting["delta"] and two["witness"] == counting["witness"]
    lo, hi = two["delta_interval"]
    assert lo <= two["delta"] <= hi


def test_cli_refuses_k_at_least_3_past_1000_users(capsys):
    code = main(
        [
            "approx",
            "kary_rr_histogram",
            "-p",
            "n=1001",
            "-p",
            "k=3",
            "-p",
            "lam=1/4",
            "--epsilon",
            "0.3",
            "--sets",
            "symmetry",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("wmcdp: error: shuffled k-ary RR past n = 1000") and err.count("\n") == 1
