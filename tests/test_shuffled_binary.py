"""Shuffles of two-report local randomizers at scale (wmcdp.plan.shuffled_binary) against the enumeration of every
dataset, every neighbouring pair and every random choice (exact Fractions) at small n; the refusals; and the
enumeration facts behind refusing k-ary RR with k >= 3 (neither natural family of the others' datasets is worst)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import brute
import pytest

from wmcdp import privacy_profile, synthesize_approximate
from wmcdp.base.errors import WmcdpError
from wmcdp.lang import IntVector, Program, flip, ite, uniform
from wmcdp.plan.shuffled_binary import ShuffledReports


def _local(ps):
    """One user's value w in 0..len(ps)-1 reports 1 with probability ps[w], else 0."""

    def body(x):
        out = flip(ps[-1])
        for w in range(len(ps) - 2, -1, -1):
            out = ite(x[0] == w, flip(ps[w]), out)
        return out

    return Program("bits_by_value", IntVector(1, 0, len(ps) - 1), body)


def _shuffled(ps):
    return lambda x, choose: sum(brute.flip(choose, ps[w]) for w in x)


def _datasets(n, ps):
    return {x: brute.distribution(_shuffled(ps), x) for x in itertools.product(range(len(ps)), repeat=n)}


def _hamming(k):
    return lambda x: [x[:i] + (v,) + x[i + 1 :] for i in range(len(x)) for v in range(k) if v != x[i]]


CASES = [
    # (n, report probabilities per value, t, the witness configuration j and orientation): three values, the
    # middle one never worst, at an extreme and at an interior configuration; an asymmetric pair whose reversed
    # orientation is the worse one
    (5, (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3)), Fraction(3, 2), 0, 0),
    (5, (Fraction(1, 4), Fraction(3, 5), Fraction(3, 4)), Fraction(11, 10), 2, 0),
    (5, (Fraction(1, 3), Fraction(1, 10)), Fraction(5, 4), 3, 1),
]


@pytest.mark.parametrize("n, ps, t, j, orientation", CASES)
def test_delta_encloses_every_pair_of_datasets(n, ps, t, j, orientation):
    """Reductions 5-6: the maximum over every dataset and every neighbour is enclosed by the search over the
    configurations of the two extreme values, and the witness is a neighbouring pair that attains it."""
    dists = _datasets(n, ps)
    exact, _ = brute.max_over_pairs(dists, _hamming(len(ps)), lambda p, q: brute.hockey(p, q, t))
    s = ShuffledReports.of(_local(ps), n)
    assert s.probabilities == ps
    point = s.delta(math.log(t))
    assert math.exp(point.lo) * (1 - 1e-14) <= exact <= math.exp(point.hi) * (1 + 1e-14)
    assert (point.j, point.orientation) == (j, orientation)
    x, x_prime = s.witness(point)
    assert x_prime in _hamming(len(ps))(x)
    assert brute.hockey(dists[x], dists[x_prime], t) == exact


def test_both_orientations_are_needed():
    """With report probabilities 1/10 and 1/3 at t = 2 the pairs from the low value to the high one have δ = 0
    (their largest ratio is 0.9/(2/3) = 1.35), the reverse ones do not: orientation 1 is the witness."""
    n, ps, t = 5, (Fraction(1, 3), Fraction(1, 10)), Fraction(2)
    s = ShuffledReports.of(_local(ps), n)
    forward, backward = s.orientations()
    assert forward.epsilon0 < math.log(t) < backward.epsilon0
    assert s.delta(math.log(t)).orientation == 1


@pytest.mark.parametrize("n, ps, delta", [(5, (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3)), Fraction(1, 100))])
def test_epsilon_for_delta_is_certified(n, ps, delta):
    dists = _datasets(n, ps)
    best, _ = brute.max_over_pairs(dists, _hamming(len(ps)), lambda p, q: brute.ratio_for_delta(p, q, delta))
    exact = math.log(best)
    point = ShuffledReports.of(_local(ps), n).epsilon(float(delta))
    assert point.lo <= exact * (1 + 1e-12) and exact <= point.hi * (1 + 1e-12)
    assert point.hi - point.lo <= 1e-8 * point.hi


def test_through_synthesize_approximate_at_ten_thousand_users():
    """The API path: the pair set in place of the listed pairs, a certified enclosure, a neighbouring witness."""
    ps = (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3))
    local = _local(ps)
    r = synthesize_approximate(local, ShuffledReports.of(local, 10**4), delta=1e-6)
    lo, hi = float(r.interval.lo), float(r.interval.hi)
    assert lo <= r.epsilon <= hi and hi - lo <= 1e-8 * hi
    assert "convexity" in " ".join(claim for claim, _ in r.plan.claims)
    x, x_prime = r.witness.x, r.witness.x_prime
    assert len(x) == 10**4 and sum(a != b for a, b in zip(x, x_prime)) == 1


def test_profile_equals_the_enumeration():
    """privacy_profile takes the same pair set: δ at each ε equals the maximum over every pair of datasets."""
    n, ps = 4, (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3))
    dists = _datasets(n, ps)
    local = _local(ps)
    points = privacy_profile(local, [0.1, 0.5], ShuffledReports.of(local, n))
    for point in points:
        t = Fraction(math.exp(point.epsilon))  # the float e^ε itself, so the enumeration is at the same ε
        exact, _ = brute.max_over_pairs(dists, _hamming(len(ps)), lambda p, q, t=t: brute.hockey(p, q, t))
        assert float(point.interval.lo) * (1 - 1e-14) <= exact <= float(point.interval.hi) * (1 + 1e-14)


def test_refusals():
    three = Program("three_reports", IntVector(1, 0, 1), lambda x: ite(x[0] == 0, uniform(0, 2), uniform(0, 1)))
    with pytest.raises(WmcdpError, match="has 3 reports"):
        ShuffledReports.of(three, 10**4)
    certain = Program("certain", IntVector(1, 0, 1), lambda x: ite(x[0] == 0, flip(Fraction(1, 2)), flip(1)))
    with pytest.raises(WmcdpError, match="probability 0 or 1"):
        ShuffledReports.of(certain, 10**4)
    two_users = Program("two_users", IntVector(2, 0, 1), lambda x: ite(x[0] == x[1], flip(Fraction(1, 3)), flip(0)))
    with pytest.raises(WmcdpError, match="takes one user's value"):
        ShuffledReports.of(two_users, 10**4)
    with pytest.raises(WmcdpError, match="float mode"):
        synthesize_approximate(
            _local((Fraction(1, 5), Fraction(1, 2))),
            ShuffledReports.of(_local((Fraction(1, 5), Fraction(1, 2))), 10**4),
            delta=1e-6,
            exact=True,
        )


# -- why k-ary RR with k >= 3 is refused at scale ------------------------------------------------------------------


def _kary(k, lam):
    def run(x, choose):
        reports = []
        for xi in x:
            lie = brute.flip(choose, lam)
            reports.append(choose({v: Fraction(1, k - 1) for v in range(k) if v != xi}) if lie else xi)
        return tuple(reports.count(v) for v in range(k - 1))

    return run


def _kary_by_others(n, k, lam, t):
    """δ of the pair moving one user from 0 to 1, for every histogram of the other n − 1 users (the output law
    depends on the histogram only, and relabelling values maps every Hamming pair to one of these)."""
    out = {}
    for h in itertools.product(range(n), repeat=k):
        if sum(h) != n - 1:
            continue
        others = tuple(v for v, c in enumerate(h) for _ in range(c))
        p = brute.distribution(_kary(k, lam), (0,) + others)
        q = brute.distribution(_kary(k, lam), (1,) + others)
        out[h] = brute.hockey(p, q, t)
    return out


def test_kary_worst_others_are_in_neither_natural_family():
    """k = 3, n = 5, λ = 3/10 (exact): at t = 13/10 the others all at the third value beat every dataset of
    others holding only the pair's two values; at t = 3 a mixed dataset beats the others all at the third value.
    So no proof that one of these families is worst exists, and shuffled_binary does not claim one."""
    n, k, lam = 5, 3, Fraction(3, 10)
    near = _kary_by_others(n, k, lam, Fraction(13, 10))
    two_values = max(d for h, d in near.items() if h[2] == 0)
    assert max(near.values()) == near[(0, 0, n - 1)] > two_values
    far = _kary_by_others(n, k, lam, Fraction(3))
    assert max(far.values()) > far[(0, 0, n - 1)]
    assert max(far.values()) > max(d for h, d in far.items() if h[2] == 0)
