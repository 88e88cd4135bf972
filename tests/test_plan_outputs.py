"""Pairs under a proved symmetry list only the outputs of nonzero probability (issue 28: work the plan does not
need). The program below releases each report as 0 or 7, a 3-bit output of which two values occur, with a shared
coin so it is no product: its output shape has 8^n outputs and its support 2^n."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import brute
import numpy as np
import pytest
from test_geometric import tgeom_pmf

from wmcdp import Program, pair_distributions, synthesize_approximate
from wmcdp.lang import IntVector, flip, ite

SHARED, LOW, HIGH = Fraction(1, 2), Fraction(1, 4), Fraction(1, 3)


def wide_rr(n: int) -> Program:
    """Randomized response whose flip rate (1/4 or 1/3) a shared fair coin picks; each report is ``7 x_i`` or
    ``7 - 7 x_i``."""

    def body(x):
        s = flip(SHARED)
        return tuple(ite(ite(s, flip(LOW), flip(HIGH)), 7 - 7 * x[i], 7 * x[i]) for i in range(n))

    return Program("wide_rr", IntVector(n, 0, 1), body, neighbours="hamming")


def reference(x, choose):
    rate = LOW if brute.flip(choose, SHARED) else HIGH
    return tuple(7 - 7 * v if brute.flip(choose, rate) else 7 * v for v in x)


def hamming(x):
    for i in range(len(x)):
        yield x[:i] + (1 - x[i],) + x[i + 1 :]


@pytest.mark.parametrize("n", [3, 4])
def test_pairs_list_the_support_only(n: int) -> None:
    """Every pair's output orbits cover the 2^n outputs of nonzero probability exactly once, none of the others
    (before, all 8^n outputs were grouped and counted), and their probabilities are the brute-force ones."""
    inputs = [tuple((k >> (n - 1 - i)) & 1 for i in range(n)) for k in range(2**n)]
    dists = {x: brute.distribution(reference, x) for x in inputs}
    items = list(pair_distributions(wide_rr(n), exact=True))
    assert items
    for d in items:
        assert int(d.multiplicity.sum()) == 2**n
        assert len(d.outputs) <= 2**n
        scale = d.arith.denominator
        for offsets, p, q in zip(d.outputs, d.p_x, d.p_x_prime):
            y = tuple(int(o) for o in offsets)  # each leaf is 0..7: its offset is its value
            assert Fraction(int(p), scale) == dists[d.x].get(y, 0)
            assert Fraction(int(q), scale) == dists[d.x_prime].get(y, 0)
            assert p + q > 0


@pytest.mark.parametrize("sets", ["auto", None])
def test_delta_matches_brute_force(sets: str | None) -> None:
    """δ(ε) at ε = ln(3/2), exact, over the pairs up to the proved group (and the default plan) equals the maximum
    over every ordered Hamming pair of the hockey-stick divergence of the brute-force distributions."""
    n = 4
    inputs = [tuple((k >> (n - 1 - i)) & 1 for i in range(n)) for k in range(2**n)]
    dists = {x: brute.distribution(reference, x) for x in inputs}
    t = Fraction(3, 2)
    best, _ = brute.max_over_pairs(dists, hamming, lambda p, q: brute.hockey(p, q, t))
    r = synthesize_approximate(wide_rr(n), sets, epsilon="ln:3/2", exact=True)
    assert r.delta == best


def sparse_vector_rows(n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Every input of sparse vector (m = 2, T = 1, N = 1, margin 1: noise TGeom_a on -1..3 for the threshold and
    each query) and its n + 1 output probabilities, from the closed form: given the noisy threshold t, the queries
    are independent, and the output "first TRUE at k" (or "all FALSE", last) has probability
    sum_t P(t) prod_{i<k} P(v_i < t) P(v_k >= t)."""
    values = range(-1, 4)
    pmf = np.array([[tgeom_pmf(q, -1, 3, a)[z] for z in values] for q in range(3)])  # pmf[q, z]
    threshold = np.array([tgeom_pmf(1, -1, 3, a)[z] for z in values])
    below = np.array([[pmf[q, :t].sum() for t in range(5)] for q in range(3)])  # P(v < t) by query value
    above = np.array([[pmf[q, t:].sum() for t in range(5)] for q in range(3)])
    xs = np.array(list(itertools.product(range(3), repeat=n)), dtype=np.int8)
    rows = np.zeros((len(xs), n + 1))
    prefix = np.ones((len(xs), 5))  # prod_{i<k} P(v_i < t), per threshold value t
    for k in range(n):
        rows[:, k] = (prefix * above[xs[:, k]]) @ threshold
        prefix = prefix * below[xs[:, k]]
    rows[:, n] = prefix @ threshold
    return xs, rows


def test_pair_option_sized_by_the_support(capsys) -> None:
    """Sparse vector with N = 1 answers FALSE until its first TRUE and then stops, so of its 3^8 output tuples only
    n + 1 = 9 occur: the exhaustive pairs list those 9 (before, all 4374 output tuples, over the limits, and the
    default plan was refused). The default plan now runs the 5,758,240 pairs of every input, and D_2 is the maximum
    over every all-entries pair of the closed-form distributions."""
    from wmcdp.cli import main

    argv = ["renyi", "sparse_vector", "-p", "n=8", "-p", "m=2", "-p", "T=1", "-p", "N=1", "-p", "eps0=1"]
    assert main([*argv, "--orders", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plan"]["kind"] == "exhaustive" and out["plan"]["size"] == 5758240
    xs, rows = sparse_vector_rows(8, math.exp(-1 / 2))
    bits = 1 << np.arange(8)
    zeros, twos = (xs == 0) @ bits, (xs == 2) @ bits  # the entries of each x at 0 and at 2, as bit sets
    best = -math.inf
    for start in range(0, len(xs), 729):  # sum_y P(y|x)^2 / P(y|x') for a block of x against every x'
        block = slice(start, start + 729)
        sums = (rows[block] ** 2) @ (1 / rows).T
        # all-entries: every entry within 1 (values 0..2: none from 0 to 2 or back), some moved (x' != x)
        near = ((zeros[block, None] & twos) | (twos[block, None] & zeros)) == 0
        near[np.arange(729), np.arange(start, start + 729)] = False
        best = max(best, math.log(sums[near].max()))
    (order,) = out["orders"]
    assert order["epsilon"] == pytest.approx(best, rel=1e-9)
