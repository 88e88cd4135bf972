"""Every number is the true one: extreme probabilities in float mode, correctly rounded exact epsilon,
exact binary floats, values never changed by tie tolerances.

References are closed forms (evaluated with mpmath at 50 digits) or exact rational arithmetic
done here, never numbers wmcdp printed.
"""

import math
from fractions import Fraction

import mpmath
import pytest

from wmcdp.programs import truncated_geometric
from wmcdp import (Bits, IntVector, Program, discrete, flip, inference, ite, synthesize_accuracy,
                   synthesize_privacy)
from wmcdp.base.numbers import ln, ln_ratio

mpmath.mp.dps = 50


def reference_ln(num: int, den: int) -> float:
    """The double nearest to ln(num/den) = log1p((num - den)/den), from 50 significant digits."""
    if num < den:
        return -reference_ln(den, num)
    return float(mpmath.log1p(mpmath.mpf(num - den) / mpmath.mpf(den)))


def ulp_distance(a: float, b: float) -> int:
    return abs(int.from_bytes(__import__("struct").pack(">d", a), "big", signed=True)
               - int.from_bytes(__import__("struct").pack(">d", b), "big", signed=True))


# -- float weights are formed directly ---------------------------------------------------------

#: both scales at two sizes, and the largest size at the smaller scale, whose outputs are the least likely
#: (e^-400 at m = 200): the three other pairs of the grid took 10 to 15 s each (quiet machine) and reach no other code
@pytest.mark.parametrize("m, scale", [(40, 0.5), (40, 2), (100, 0.5), (100, 2), (200, 0.5)])
def test_truncated_geometric_is_exactly_one_over_scale_in_float_mode(m, scale):
    r = synthesize_privacy(truncated_geometric(m, scale=scale))
    assert r.epsilon == pytest.approx(1 / scale, rel=1e-12)
    assert r.p_x_prime > 0


@pytest.mark.parametrize("scale", [0.5, 2])
def test_truncated_geometric_with_exact_binary_floats(scale):
    """Read as its exact binary64 value, the ratio a = e^(-1/scale) gives eps = -ln(a) exactly (correctly rounded)."""
    prog = truncated_geometric(40, scale=scale)
    r = synthesize_privacy(prog, exact="binary")
    a = Fraction(math.exp(-1 / scale))
    assert r.ratio == 1 / a
    assert r.epsilon == reference_ln(a.denominator, a.numerator)
    assert r.epsilon == pytest.approx(1 / scale, rel=1e-15)


def test_truncated_geometric_with_a_tiny_ratio_does_not_underflow():
    """alpha = 1e-200: probabilities like alpha^2 = 1e-400 are below the smallest float; eps = ln(1/alpha)."""
    r = synthesize_privacy(truncated_geometric(16, alpha=1e-200))
    assert r.epsilon == pytest.approx(200 * math.log(10), rel=1e-12)
    r = synthesize_privacy(truncated_geometric(16, alpha=0.01))
    assert r.epsilon == pytest.approx(math.log(100), rel=1e-12)
    r = synthesize_privacy(truncated_geometric(100, alpha=0.5))
    assert r.epsilon == pytest.approx(math.log(2), rel=1e-12)


def test_discrete_keeps_tiny_weights():
    table = inference(Program("d", Bits(1), lambda x: discrete([1e-20, 1e-20, 1.0])),
                      [((0,), 0), ((0,), 1), ((0,), 2)])
    assert table.probability((0,), 0) == pytest.approx(1e-20, rel=1e-12)
    assert table.probability((0,), 1) == pytest.approx(1e-20, rel=1e-12)
    assert table.probability((0,), 2) == pytest.approx(1.0, rel=1e-15)


def test_flip_keeps_a_complement_of_1e_16():
    p = 1 - 1e-16  # the float 0.9999999999999999 = 1 - 2^-53
    table = inference(Program("c", Bits(1), lambda x: x[0] ^ flip(p)), [((0,), 0), ((0,), 1)])
    assert table.probability((0,), 0) == pytest.approx(2.0 ** -53, rel=1e-15)
    r = synthesize_privacy(Program("c", Bits(1), lambda x: x[0] ^ flip(p)))
    assert r.epsilon == pytest.approx(math.log(p / 2.0 ** -53), rel=1e-14)


def _exponential_mechanism(k: int, eps: float) -> Program:
    """Exponential mechanism on {0..k} with utility -|x - y| (sensitivity 1): P(y|x) ~ exp(-eps |x - y| / 2)."""
    def body(x):
        out = None
        for c in range(k + 1):
            weights = [math.exp(-eps * abs(c - y) / 2) for y in range(k + 1)]
            total = math.fsum(weights)
            choice = discrete([w / total for w in weights])
            out = choice if out is None else ite(x[0] == c, choice, out)
        return out
    return Program("exponential", IntVector(1, 0, k), body, neighbours="one-entry")


def test_exponential_mechanism_at_eps_20_is_finite_and_tight():
    k, eps = 6, 20.0
    r = synthesize_privacy(_exponential_mechanism(k, eps))

    def p(y, x):
        weights = [mpmath.e ** (-mpmath.mpf(eps) * abs(x - z) / 2) for z in range(k + 1)]
        return weights[y] / mpmath.fsum(weights)

    best = max(mpmath.log(p(y, x) / p(y, xp)) for x in range(k + 1) for xp in (x - 1, x + 1) if 0 <= xp <= k
               for y in range(k + 1))
    assert math.isfinite(r.epsilon)
    assert r.epsilon == pytest.approx(float(best), rel=1e-12)


# -- exact epsilon is correctly rounded -------------------------------------------------------

@pytest.mark.parametrize("num, den", [
    (3, 2), (4, 1), (12009599006321323, 12009599006321322), (50000000000000000001, 49999999999999999999),
    (10 ** 20 + 1, 10 ** 20), (2 ** 1000 + 1, 2 ** 1000), (7 ** 1200, 3 ** 1500 + 17), (3 ** 1500 + 17, 7 ** 1200),
    (10 ** 999 + 7, 10 ** 998 + 3), (2, 3),
])
def test_ln_ratio_is_correctly_rounded(num, den):
    got = ln_ratio(num, den)
    assert ulp_distance(got, reference_ln(num, den)) <= 1
    if num > den:
        assert got > 0


def test_ln_is_positive_for_every_ratio_above_one():
    assert ln(Fraction(10 ** 400 + 1, 10 ** 400)) == 5e-324  # the true value is 1e-400: the smallest positive float
    assert ln(Fraction(10 ** 400 - 1, 10 ** 400)) == -5e-324


def test_exact_epsilon_of_a_ratio_just_above_one():
    a, b = 12009599006321323, 12009599006321322
    prog = Program("coin", Bits(1), lambda x: x[0] ^ flip(Fraction(b, a + b)))
    r = synthesize_privacy(prog)
    assert r.ratio == Fraction(a, b)
    assert r.epsilon > 0 and r.epsilon == reference_ln(a, b)


def test_exact_epsilon_of_three_halves_is_the_nearest_float():
    r = synthesize_privacy(Program("coin", Bits(1), lambda x: x[0] ^ flip(Fraction(2, 5))))
    assert r.ratio == Fraction(3, 2) and r.epsilon == reference_ln(3, 2)


# -- exact binary floats ------------------------------------------------------------------------

def test_exact_floats_read_binary64_values():
    prog = Program("coin", Bits(1), lambda x: x[0] ^ flip(0.6))
    r = synthesize_privacy(prog, exact="binary")
    p = Fraction(0.6)
    assert r.exact and r.ratio == p / (1 - p)
    assert r.ratio != Fraction(3, 2)
    assert synthesize_privacy(prog, exact=True if False else None).exact is False


def test_exact_floats_on_the_command_line(capsys):
    from wmcdp.cli import main
    assert main(["privacy", "randomized_response", "-p", "n=1", "-p", "lam=0.4", "--exact-floats", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    lam = Fraction(0.4)
    assert Fraction(out["ratio_exact"]) == (1 - lam) / lam


# -- tolerances choose witnesses, never values ---------------------------------------------------

def test_accuracy_keeps_a_beta_of_1e_13():
    prog = Program("p", Bits(1), lambda x: ite(x[0], ~flip(1e-13), x[0]), target=lambda x: x[0])
    r = synthesize_accuracy(prog, alpha=0)
    assert r.beta == pytest.approx(1e-13, rel=1e-12)
    assert r.witness == (1,)


def test_a_larger_ratio_within_the_tolerance_is_the_value():
    a, b = 0.3, 0.2
    c, d = 0.3, 0.2 * (1 - 1e-13)  # ratio d/c is 1e-13 (relative) below b/a ... reversed pairs below

    def body(x):
        return ite(x[0], ite(x[1], flip(a), flip(b)), ite(x[1], flip(c), flip(d)))

    prog = Program("p", Bits(2), body)
    C = [((0, 0), (0, 1), 0), ((1, 0), (1, 1), 0)]  # ratios (1-d)/(1-c) and (1-b)/(1-a)
    I = [((0, 0), 0), ((0, 1), 0), ((1, 0), 0), ((1, 1), 0)]
    r = synthesize_privacy(prog, C, I)
    first, second = (1 - d) / (1 - c), (1 - b) / (1 - a)
    assert second < first < second * (1 + 1e-12)
    assert r.ratio == pytest.approx(max(first, second), rel=1e-15)
    assert r.witness.x == (0, 0)  # the first triple, within the tolerance of the maximum


def test_many_flips_a_ratio_of_one_plus_tiny():
    """3000 flips at 0.5 against 0.5000000000000001: eps = 3000 * ln(0.5 / 0.4999999999999999) > 0."""
    n = 3000
    q = 0.5000000000000001

    def body(x):
        return tuple(ite(x[0], flip(q), flip(0.5)) for _ in range(n))

    zeros = (0,) * n
    prog = Program("many", Bits(1), body)
    r = synthesize_privacy(prog, [((0,), (1,), zeros)], [((0,), zeros), ((1,), zeros)])
    truth = n * math.log(0.5 / (1 - q))
    assert r.epsilon > 0
    assert r.epsilon == pytest.approx(truth, rel=1e-2)
