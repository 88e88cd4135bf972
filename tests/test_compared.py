"""A noisy value only compared with values in a known range (``compared_geometric``): its tails merged, exact with
no window. Checked against closed forms of two-sided geometric tails and against a brute-force sum over every
noise value with the mass beyond it as explicit slack."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import pytest

from wmcdp import IntVector, Program, WmcdpError, compile_program, inference, ite, synthesize_privacy
from wmcdp.lang.unbounded import compared_geometric, geometric, released_geometric
from wmcdp.programs import PROGRAMS


def at_least(k: int, a: F) -> F:
    """``P(Z >= k)`` of two-sided geometric noise of ratio ``a``, closed form."""
    return a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)


def noisy_threshold(a: F, center: int, against: tuple[int, int]) -> Program:
    """One answer in 0..2 against the threshold ``center + Z``: ``[x >= center + Z]``."""
    return Program("thr", IntVector(1, 0, 2), lambda x: x[0] >= compared_geometric(center, alpha=a, against=against))


@pytest.mark.parametrize("a", [F(1, 2), F(1, 3), F(9, 10)])
@pytest.mark.parametrize("center", [-5, 0, 1, 2, 9])
def test_a_compared_threshold_has_its_closed_form(a, center):
    """``P(x >= c + Z) = P(Z <= x - c) = P(Z >= c - x)``, exactly, for centers inside and far outside the range."""
    compiled = compile_program(noisy_threshold(a, center, (0, 2)))
    table = inference(compiled, [((v,), y) for v in range(3) for y in (True, False)], exact=True)
    for v in range(3):
        assert table.probability((v,), True) == at_least(center - v, a)
        assert table.probability((v,), False) == 1 - at_least(center - v, a)


def test_its_epsilon_is_exact_with_its_witness():
    """Answers 0 and 2 are neighbours (one entry): the largest ratio is ``P(F | 0) / P(F | 2)`` with ``c = 1``."""
    a = F(1, 2)
    r = synthesize_privacy(noisy_threshold(a, 1, (0, 2)))
    ratios = {
        (v, w, y): (at_least(1 - v, a) if y else 1 - at_least(1 - v, a))
        / (at_least(1 - w, a) if y else 1 - at_least(1 - w, a))
        for v, w in itertools.permutations(range(3), 2)
        for y in (True, False)
    }
    best = max(ratios.values())
    assert r.exact and r.interval is None and r.ratio == best == 4
    assert ratios[(r.witness.x[0], r.witness.x_prime[0], bool(r.witness.y))] == best


def _brute(n: int, a: F, threshold: int, x: tuple[int, ...], reach: int) -> tuple[dict, F]:
    """Every output's probability summed over ``|z| <= reach`` (the threshold ``threshold + z`` against the exact
    answers), and the mass beyond."""
    out: dict = {}
    for z in range(-reach, reach + 1):
        y = tuple(int(q >= threshold + z) for q in x)
        out[y] = out.get(y, F(0)) + (1 - a) / (1 + a) * a ** abs(z)
    return out, 2 * a ** (reach + 1) / (1 + a)


@pytest.mark.parametrize("name", ["bad_svt1", "isvt1"])
def test_threshold_only_sparse_vectors_against_every_noise_value(name):
    """BadSVT1 and iSVT1 with unbounded noise: each output's exact probability lies within the brute-force sum over
    every threshold noise value up to 40 and that sum plus the mass beyond; ε is infinite, with a witness output
    that no threshold value gives from x'."""
    n, m, T, a = 3, 2, 1, F(1, 2)
    prog = PROGRAMS[name](n=n, m=m, T=T, alpha=a, noise="unbounded")
    compiled = compile_program(prog)
    inputs = list(itertools.product(range(m + 1), repeat=n))
    outputs = list(itertools.product((0, 1), repeat=n))
    table = inference(compiled, [(x, y) for x in inputs for y in outputs], exact=True)
    for x in inputs:
        sums, slack = _brute(n, a, T, x, 40)
        for y in outputs:
            p = table.probability(x, y)
            assert sums.get(y, 0) <= p <= sums.get(y, 0) + slack
    r = synthesize_privacy(prog)
    assert r.exact and r.ratio == math.inf and r.interval is None
    w = r.witness
    assert table.probability(w.x, w.y) > 0 and _brute(n, a, T, w.x_prime, 200)[0].get(w.y, 0) == 0


def test_bad_svt1_at_n_10_is_exact_and_quick():
    r = synthesize_privacy(PROGRAMS["bad_svt1"](n=10, m=1, T=1, alpha=F(1, 2), noise="unbounded"))
    assert r.ratio == math.inf and r.interval is None and r.p_x > 0 and r.p_x_prime == 0 and r.seconds < 5


def test_a_reflected_comparison_is_checked_too():
    prog = Program("thr", IntVector(1, 0, 2), lambda x: compared_geometric(1, alpha="1/2", against=(0, 2)) <= x[0])
    table = inference(compile_program(prog), [((v,), True) for v in range(3)], exact=True)
    assert [table.probability((v,), True) for v in range(3)] == [at_least(1 - v, F(1, 2)) for v in range(3)]


def _compared() -> object:
    return compared_geometric(1, alpha="1/2", against=(0, 2))


@pytest.mark.parametrize(
    "body, message",
    [
        (lambda x: _compared() + 1, "may only be compared"),
        (lambda x: 1 - _compared() >= 0, "may only be compared"),
        (lambda x: x[0] * _compared() >= 0, "may only be compared"),
        (lambda x: -_compared() >= 0, "may only be compared"),
        (lambda x: abs(_compared()) >= 0, "may only be compared"),
        (lambda x: _compared().clamp(0, 2) >= 0, "may only be compared"),
        (lambda x: ite(x[0] >= 1, _compared(), 0) >= 0, "may only be compared"),
        (lambda x: _compared(), "may only be compared"),
        (lambda x: (x[0] >= 1, _compared()), "may only be compared"),
        (lambda x: _compared() >= _compared(), "may only be compared"),
        (lambda x: geometric(_compared(), alpha="1/2") >= 0, "may only be compared"),
        (lambda x: released_geometric(_compared(), alpha="1/2"), "may only be compared"),
        (lambda x: _compared() >= x[0] + 1, "outside 0..2"),
        (lambda x: _compared() == -1, "outside 0..2"),
        (lambda x: compared_geometric(1, alpha="1/2") >= 0, r"needs against=\(lo, hi\)"),
        (lambda x: compared_geometric(1, alpha="1/2", against=(2, 0)) >= 0, r"needs against=\(lo, hi\)"),
        (lambda x: compared_geometric(1, alpha="1/2", against=(0.0, 2)) >= 0, r"needs against=\(lo, hi\)"),
    ],
)
def test_anything_but_a_comparison_in_range_is_refused_in_one_line(body, message):
    prog = Program("bad", IntVector(1, 0, 2), body)
    with pytest.raises(WmcdpError, match=message) as info:
        compile_program(prog)
    assert "\n" not in str(info.value)


def test_a_concrete_run_samples_the_unbounded_law():
    """``[1 >= 1 + Z] = [Z <= 0]``: probability ``1 - a / (1 + a) = 2/3`` at a = 1/2."""
    prog = Program("thr", IntVector(1, 0, 2), lambda x: x[0] >= compared_geometric(1, alpha="1/2", against=(0, 2)))
    rng = random.Random(11)
    runs = [prog.run((1,), rng) for _ in range(4000)]
    assert abs(sum(runs) / 4000 - 2 / 3) < 0.03
