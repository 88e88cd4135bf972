"""released_geometric: a release of center + Z with its tails merged, exact for every privacy notion.

Every number is compared with sums of the published (unbounded) law: the two-sided geometric summed exactly over
|z| <= 400 in Fractions, with the mass beyond as the certified slack; pure epsilon against its closed form
alpha^(-Delta)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from wmcdp import (
    Bits,
    IntVector,
    Program,
    WmcdpError,
    flip,
    ite,
    released_geometric,
    synthesize_accuracy,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
)

A = Fraction(1, 3)
REACH = 400  # |z| summed exactly; the rest is below A^REACH


def _law(center: int, a: Fraction = A) -> dict[int, Fraction]:
    """The published law of center + Z over |z| <= REACH (the rest, below a^REACH, is the slack)."""
    c = (1 - a) / (1 + a)
    return {center + z: c * a ** abs(z) for z in range(-REACH, REACH + 1)}


def _delta(p: dict, q: dict, ratio: Fraction) -> Fraction:
    return sum((max(Fraction(0), p.get(r, 0) - ratio * q.get(r, 0)) for r in set(p) | set(q)), Fraction(0))


def _sum_program(n: int, power: int = 1) -> Program:
    return Program(
        "noisy_sum",
        IntVector(n, 0, 2),
        lambda x: released_geometric(sum(x[1:], x[0]), alpha=A**power),
        neighbours="one-entry",
    )


@pytest.mark.parametrize("n, power", [(1, 1), (2, 1), (3, 2)])
def test_pure_epsilon_is_the_closed_form_exactly(n, power):
    """The geometric mechanism releasing x + Z has e^eps = alpha^(-Delta) exactly (Delta = 1 here), with no window."""
    r = synthesize_privacy(_sum_program(n, power))
    assert r.exact and r.interval is None
    assert r.ratio == 1 / A**power


def test_delta_and_renyi_equal_the_unbounded_law():
    """delta(eps) and D_2 of the merged release equal the published law's (a sum over |z| <= 400 within its
    tail), not a window's."""
    prog = _sum_program(2)
    p, q = _law(0), _law(1)  # the pair moves the sum by one
    ratio = Fraction(2)
    got = synthesize_approximate(prog, [((0, 0), (0, 1))], epsilon=math.log(2), exact=True)
    slack = 2 * A**REACH
    assert abs(Fraction(got.delta) - _delta(p, q, ratio)) < Fraction(1, 10**12) + slack
    d2 = synthesize_renyi(prog, [2], [((0, 0), (0, 1))], exact=True)
    want = math.log(sum(p[r] ** 2 / q[r] for r in p if r in q))
    assert d2.orders[0].epsilon == pytest.approx(want, rel=1e-12)


def test_a_release_beside_a_finite_part_is_exact():
    """A randomized-response bit beside the release (hamming: one entry moves): e^eps = max(3, 1 / A) = 3."""

    def body(x):
        return (x[0] ^ flip(Fraction(1, 4)), released_geometric(x[1] + 0, alpha=A))

    r = synthesize_privacy(Program("pair", Bits(2), body))
    assert r.exact and r.ratio == 3


@pytest.mark.parametrize(
    "use",
    [
        lambda r: r > 0,
        lambda r: r == 2,
        lambda r: abs(r),
        lambda r: r * r,
        lambda r: released_geometric(r, alpha=A),
        lambda r: flip(Fraction(1, 2)) + r > 0,
        lambda r: ite(flip(Fraction(1, 2)), r, -1),  # -1 is the release's lower end
        lambda r: ite(flip(Fraction(1, 2)), r, released_geometric(0, alpha=A)),
    ],
)
def test_anything_but_an_output_or_a_constant_branch_is_refused(use):
    prog = Program("misuse", Bits(1), lambda x: use(released_geometric(x[0] + 0, alpha=A)))
    with pytest.raises(WmcdpError, match="output only|strictly between its ends"):
        synthesize_privacy(prog)


def test_a_constant_branch_inside_the_range_is_kept_a_release():
    """ite(TRUE answer, release, 0): 0 lies inside 0..1, so the output 0 is the program's own (either branch)."""

    def body(x):
        return ite(x[0] ^ flip(Fraction(1, 4)), released_geometric(x[0] + 0, alpha=A), 0)

    r = synthesize_privacy(Program("gated", Bits(1), body))
    assert r.exact and math.isfinite(r.epsilon)


def test_accuracy_is_refused_in_one_line():
    with pytest.raises(WmcdpError, match="merged tails"):
        synthesize_accuracy(_sum_program(1), alpha=1)


def test_a_concrete_run_samples_the_unbounded_law():
    prog = _sum_program(1)
    rng = random.Random(7)
    values = {prog.run((1,), rng) for _ in range(400)}
    assert min(values) < -1 or max(values) > 3  # beyond the merged ends 0 - 1 and 2 + 1
