"""Shuffled binary RR at scale (wmcdp.plan.shuffled_rr) against the enumeration of every dataset and every random
choice at small n (exact Fractions), each reduction on its own, then the whole search and the CLI."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import brute
import pytest

from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.plan.shuffled_rr import Binary, Noise, ShuffledCounting, Threshold, hockey


def _counting(lam):
    return lambda x, c: sum(xi ^ brute.flip(c, lam) for xi in x)


def _datasets(n, lam):
    """``P(count | x)`` for every x in {0,1}^n, by enumerating every random choice."""
    return {x: brute.distribution(_counting(lam), x) for x in itertools.product((0, 1), repeat=n)}


def _hamming(x):
    return [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(len(x))]


def _worst(dists, t):
    """max over every ordered pair of neighbouring datasets of the hockey-stick sum at t (the definition)."""
    return brute.max_over_pairs(dists, _hamming, lambda p, q: brute.hockey(p, q, t))


def _binomial(N, p):
    return [math.comb(N, k) * p**k * (1 - p) ** (N - k) for k in range(N + 1)]


def _convolve(a, b):
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, u in enumerate(a):
        for k, v in enumerate(b):
            out[i + k] += u * v
    return out


def _noise(ones, zeros, p):
    """``Bin(ones, 1 − p) ⊕ Bin(zeros, p)`` exactly."""
    return _convolve(_binomial(ones, 1 - p), _binomial(zeros, p))


def _threshold_delta(Z, p, t):
    """Reduction 3: ``a Z(y*) − (t − 1) F(y* − 1)`` at the last y with ``Z(y) > r Z(y − 1)``."""
    a, c = (1 - p) - t * p, t * (1 - p) - p
    if a <= 0:
        return Fraction(0)
    star = max(y for y in range(len(Z)) if y == 0 or a * Z[y] > c * Z[y - 1])
    return a * Z[star] - (t - 1) * sum(Z[:star])


CASES = [(7, Fraction(1, 5), Fraction(5, 4)), (7, Fraction(1, 4), Fraction(3, 2)), (6, Fraction(2, 3), Fraction(3, 2))]


@pytest.mark.parametrize("n, lam, t", CASES)
def test_reductions_against_every_pair_of_datasets(n, lam, t):
    """Reductions 1-3: the maximum over all 2^n datasets and their neighbours equals the maximum over the n
    configurations j of the threshold formula; and the extreme configurations alone would be wrong here."""
    dists = _datasets(n, lam)
    exact, _ = _worst(dists, t)
    p = min(lam, 1 - lam)
    per_j = [_threshold_delta(_noise(j, n - 1 - j, p), p, t) for j in range(n)]
    assert max(per_j) == exact
    for j in range(n):  # every configuration is the hockey-stick sum of its own pair of datasets
        x = (1,) * j + (0,) * (n - j)
        x_prime = (1,) * (j + 1) + (0,) * (n - j - 1)
        if lam > Fraction(1, 2):
            x, x_prime = tuple(1 - v for v in x), tuple(1 - v for v in x_prime)
        assert brute.hockey(dists[x], dists[x_prime], t) == per_j[j]
    if n == 7:  # the worst pair is not a canonical extreme one: the search over j is needed
        assert max(per_j[0], per_j[-1]) < exact


@pytest.mark.parametrize("n, lam", [(7, Fraction(1, 5)), (6, Fraction(1, 3))])
def test_block_bound_dominates_its_configurations(n, lam):
    """Reduction 4 (post-processing): the noise of a block's common users bounds every configuration in it."""
    for t in (Fraction(1), Fraction(5, 4), Fraction(2)):
        for j1 in range(n):
            for j2 in range(j1, n):
                bound = _threshold_delta(_noise(j1, n - 1 - j2, lam), lam, t)
                for j in range(j1, j2 + 1):
                    assert _threshold_delta(_noise(j, n - 1 - j, lam), lam, t) <= bound


@pytest.mark.parametrize("n, lam, t", CASES + [(5, Fraction(1, 10), Fraction(3))])
def test_search_encloses_the_enumeration(n, lam, t):
    """The float search (log space, all reductions) encloses the exact maximum over every pair of datasets,
    and its witness is a pair of neighbours that attains it."""
    dists = _datasets(n, lam)
    exact, pairs = _worst(dists, t)
    eps = math.log(t)  # the float ε; e^ε is t to 1e-16, far inside the enclosure's width
    point = ShuffledCounting.of(n, lam).delta(eps)
    assert math.exp(point.lo) * (1 - 1e-14) <= exact <= math.exp(point.hi) * (1 + 1e-14)
    assert point.hi - point.lo < 1e-9
    x, x_prime = ShuffledCounting.of(n, lam).witness(point)
    assert x_prime in _hamming(x)
    assert brute.hockey(dists[x], dists[x_prime], t) == exact


def _exact_epsilon(n, lam, delta):
    """ε(δ) over every pair (k ones against k + 1, both orders; the count's law depends on the ones only)."""
    rows = [_noise(k, n - k, lam) for k in range(n + 1)]
    as_dict = [dict(enumerate(r)) for r in rows]
    best = max(
        brute.ratio_for_delta(as_dict[a], as_dict[b], delta) for k in range(n) for a, b in ((k, k + 1), (k + 1, k))
    )
    return math.log(best)


@pytest.mark.parametrize(
    "n, lam, delta", [(40, Fraction(1, 4), Fraction(1, 10**6)), (25, Fraction(1, 10), Fraction(1, 100))]
)
def test_epsilon_for_delta_is_certified(n, lam, delta):
    point = ShuffledCounting.of(n, lam).epsilon(float(delta))
    exact = _exact_epsilon(n, lam, delta)
    assert point.lo <= exact * (1 + 1e-12) and exact <= point.hi * (1 + 1e-12)
    assert point.hi - point.lo <= 1e-8 * point.hi
    assert point.epsilon == point.hi


def test_edges():
    s = ShuffledCounting.of(10, Fraction(1, 2))
    assert s.delta(0.0).delta == 0 and s.epsilon(1e-6).epsilon == 0
    none = ShuffledCounting.of(10, 0)
    assert none.delta(3.0).delta == 1 and none.epsilon(0.5).epsilon == math.inf
    rr = ShuffledCounting.of(10, Fraction(1, 4))
    assert rr.delta(math.log(3)).delta == 0  # ε ≥ ε0 = ln 3
    assert rr.epsilon(1.0).epsilon == 0
    for eps in (math.nextafter(rr.epsilon0, 0), rr.epsilon0 - 1e-15):  # δ below float resolution: one clear error
        with pytest.raises(WmcdpError, match="pure epsilon"):
            rr.delta(eps)


def test_block_value_is_the_noise_hockey():
    """The float hockey of one noise against the exact threshold formula (a block, not a configuration)."""
    p, eps = Fraction(1, 5), 0.4
    b = Binary(p, 1 - p)
    h = hockey(Noise.of(4, 20, b, 80.0), Threshold.of(eps, b), b)
    exact = _threshold_delta(_noise(4, 20, p), p, Fraction(math.exp(eps)))
    assert math.exp(h.lo) * (1 - 1e-14) <= exact <= math.exp(h.hi) * (1 + 1e-14)


def test_cli_uses_the_reduction_past_1000_users(capsys):
    assert (
        main(
            [
                "approx",
                "rr_counting",
                "-p",
                "n=1001",
                "-p",
                "lam=1/4",
                "--delta",
                "1e-6",
                "--sets",
                "symmetry",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert "shuffled binary RR" in out["plan"]["structure"]
    lo, hi = out["epsilon_interval"]
    assert lo <= out["epsilon"] <= hi and hi - lo < 1e-8
    assert (
        sum(out["witness"]["x_prime"]) == sum(out["witness"]["x"]) + 1
        or sum(out["witness"]["x"]) == sum(out["witness"]["x_prime"]) + 1
    )


def test_cli_refuses_what_the_reduction_does_not_give(capsys):
    code = main(["renyi", "rr_counting", "-p", "n=1001", "-p", "lam=1/4", "--orders", "2", "--sets", "symmetry"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("wmcdp: error: shuffled RR counting past n = 1000") and err.count("\n") == 1
