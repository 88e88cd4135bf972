"""Exhaustive runs count only the outputs some input can produce (issue 28: work the plan does not need).

The program below releases each of n reports as 0 or 15 (randomized response whose rate a shared coin picks, so it
is no product), or, with a rare alarm, every report as 5: each report is a 4-bit output, so the output shape has
16^n tuples of which 2^n + 1 occur. The alarm is the rarest output and it alone decides ε (ratio 7 against at most
3 for the reports): dropping it would lower the bound, and at n = 6 the whole shape (16^6 outputs times 64 inputs)
is over the exhaustive limits, where the producible outputs are not.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import brute
import numpy as np
import pytest

from wmcdp import Program, synthesize_accuracy, synthesize_approximate, synthesize_privacy, synthesize_renyi
from wmcdp.compile import compile_program
from wmcdp.count.probabilities import Counter, number_system
from wmcdp.lang import IntVector, flip, ite

SHARED, LOW, HIGH, ALARM, TELL = Fraction(1, 2), Fraction(1, 4), Fraction(1, 3), Fraction(1, 64), Fraction(1, 8)


def alarm_rr(n: int) -> Program:
    def body(x):
        s = flip(SHARED)
        alarm = flip(ALARM) & (flip(TELL) ^ x[0])  # P(alarm | x_0) = 1/64 * (7/8 if x_0 else 1/8)
        return tuple(ite(alarm, 5, ite(ite(s, flip(LOW), flip(HIGH)), 15 - 15 * x[i], 15 * x[i])) for i in range(n))

    return Program("alarm_rr", IntVector(n, 0, 1), body, neighbours="hamming")


def reference(x, choose):
    """The same mechanism in plain Python, its random choices in the program's order."""
    rate = LOW if brute.flip(choose, SHARED) else HIGH
    alarm = brute.flip(choose, ALARM) and (brute.flip(choose, TELL) ^ x[0])
    flips = [brute.flip(choose, rate) for _ in x]
    return tuple(5 if alarm else (15 - 15 * v if f else 15 * v) for v, f in zip(x, flips))


def inputs(n: int) -> list[tuple[int, ...]]:
    return [tuple((k >> (n - 1 - i)) & 1 for i in range(n)) for k in range(2**n)]


@functools.cache
def distributions(n: int) -> dict:
    """``{x: {y: P(y | x)}}`` by brute force, for every input."""
    return {x: brute.distribution(reference, x) for x in inputs(n)}


def hamming(x):
    for i in range(len(x)):
        yield x[:i] + (1 - x[i],) + x[i + 1 :]


@pytest.mark.parametrize("exact", [True, False])
def test_exhaustive_over_the_support_equals_brute_force(exact: bool) -> None:
    """ε of the exhaustive sets at n = 6, exact and in floats, is the brute-force maximum over every Hamming pair
    and output, and its witness is the rare alarm output; before, the run was refused (|I| = 16^6 * 64 pairs)."""
    n = 6
    dists = distributions(n)
    best = max(
        math.inf if dists[xp].get(y, 0) == 0 else p / dists[xp][y]
        for x in dists
        for xp in hamming(x)
        for y, p in dists[x].items()
    )  # (outputs of P(y | x) = 0 add no ratio: 0/0 is skipped, 0/q is 0)
    assert best == 7
    r = synthesize_privacy(alarm_rr(n), "exhaustive", exact=exact)
    x, xp, y = r.witness.x, r.witness.x_prime, r.witness.y
    assert y == (5,) * n
    if exact:
        assert r.ratio == best and r.p_x / r.p_x_prime == best
        assert (r.p_x, r.p_x_prime) == (dists[x][y], dists[xp][y])
    else:
        assert math.isclose(r.epsilon, math.log(best), rel_tol=1e-12)
        assert math.isclose(r.p_x, dists[x][y], rel_tol=1e-12) and math.isclose(
            r.p_x_prime, dists[xp][y], rel_tol=1e-12
        )


@pytest.mark.parametrize("exact", [True, False])
def test_table_columns_are_the_producible_outputs(exact: bool) -> None:
    """The exhaustive table's columns are exactly the outputs of nonzero probability for some input (none more, none
    fewer: each is counted, and the alarm, the rarest, is among them), and every column holds the brute-force
    P(y | x) of every input."""
    n = 3
    compiled = compile_program(alarm_rr(n))
    counter = Counter(compiled, number_system(compiled, exact))
    dists = distributions(n)
    producible = set().union(*dists.values())
    assert counter.output_count() == len(producible) == 2**n + 1 < compiled.shape.size
    seen = []
    for positions, table in counter.columns():
        assert table.shape == (2**n, len(positions))
        for column, position in enumerate(positions):
            y = compiled.shape.value_at(int(position))
            seen.append(y)
            for code, x in enumerate(compiled.domain.values()):
                p = counter.arith.probability(table[code, column])
                expected = dists[x].get(y, 0)
                assert p == expected if exact else math.isclose(p, expected, rel_tol=1e-12, abs_tol=1e-300)
    assert seen == sorted(producible) and len(seen) == len(set(seen))


def test_whole_shape_when_every_output_occurs() -> None:
    """A program whose outputs all occur keeps the whole output shape (the stripes of every output)."""
    prog = Program("rr", IntVector(3, 0, 1), lambda x: tuple(v ^ flip(Fraction(1, 4)) for v in x), neighbours="hamming")
    compiled = compile_program(prog)
    counter = Counter(compiled, number_system(compiled, True))
    assert compiled.support is not None and compiled.support.size == compiled.shape.size == 8
    assert counter.output_count() == 8
    columns = [np.asarray(list(p)) for p, _ in counter.columns()]
    assert np.concatenate(columns).tolist() == list(range(8))


@pytest.mark.parametrize("exact", [True, False])
def test_delta_over_the_support_equals_brute_force(exact: bool) -> None:
    """δ(ε) at ε = ln 2 over every Hamming pair at n = 6 (exhaustive pairs, their table over the 65 producible
    outputs) is the brute-force maximum of the hockey-stick divergence; before, the run was refused."""
    n = 6
    want, attaining = brute.max_over_pairs(distributions(n), hamming, lambda p, q: brute.hockey(p, q, 2))
    r = synthesize_approximate(alarm_rr(n), "exhaustive", epsilon="ln:2" if exact else math.log(2), exact=exact)
    assert (r.witness.x, r.witness.x_prime) in attaining
    if exact:
        assert r.delta == want
    else:
        assert r.delta == pytest.approx(float(want), rel=1e-12)


def test_renyi_over_the_support_equals_brute_force() -> None:
    """The Rényi divergence of order 2 over every Hamming pair at n = 6 equal the brute-force maxima."""
    n = 6
    r = synthesize_renyi(alarm_rr(n), [2], "exhaustive", exact=False)
    for order in r.orders:
        want, _ = brute.max_over_pairs(distributions(n), hamming, lambda p, q, a=order.order: brute.renyi(p, q, a))
        assert order.epsilon == pytest.approx(want, rel=1e-12)


STEP = 2**15


def scaled_count(x, choose):
    """Randomized response's count of ones, times 2^15: at n = 10 one Int output of 10 * 2^15 + 1 values of which
    11 occur."""
    return STEP * sum(v ^ brute.flip(choose, LOW) for v in x)


def test_accuracy_over_the_support_equals_brute_force() -> None:
    """(α, β)-accuracy of the exhaustive sets at n = 10, exact: 1 - β = min over x of P(|y - V_x| <= α), V_x the
    scaled count of ones of x and α one step, from brute-force distributions (one input per count of ones: the
    flips are independent and identical, so P(. | x) depends on that count alone); before, the run was refused
    (1024 inputs times 327,681 outputs)."""
    n = 10
    prog = Program(
        "scaled_count",
        IntVector(n, 0, 1),
        lambda x: STEP * sum(v ^ flip(LOW) for v in x),
        target=lambda x: STEP * sum(x),
    )
    want = min(
        sum(p for y, p in brute.distribution(scaled_count, x).items() if abs(y - STEP * sum(x)) <= STEP)
        for x in [(1,) * s + (0,) * (n - s) for s in range(n + 1)]
    )
    r = synthesize_accuracy(prog, "exhaustive", alpha=STEP, exact=True)
    assert r.one_minus_beta == want
