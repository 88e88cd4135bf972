"""The paper's worked examples and closed forms (Oakley, Holtzen, Oprea)."""

import math
from fractions import Fraction

import pytest

import brute
from wmcdp.programs import randomized_response, rr_counting
from wmcdp.symmetry_sets import randomized_response as rr_sets
from wmcdp import inference, synthesize_accuracy, synthesize_privacy


@pytest.mark.parametrize("lam", [Fraction(1, 5), Fraction(1, 3), Fraction(7, 10)])
def test_table_1_rr2_inference(lam):
    """Table 1: P(00 | 00) = (1-l)^2, P(00 | 10) = l(1-l), P(00 | 11) = l^2."""
    I = [((0, 0), (0, 0)), ((1, 0), (0, 0)), ((1, 1), (0, 0))]
    for backend in ("bdd", "sdd"):
        M = inference(randomized_response(2, lam), I, backend=backend)
        assert M.probability((0, 0), (0, 0)) == (1 - lam) ** 2
        assert M.probability((1, 0), (0, 0)) == lam * (1 - lam)
        assert M.probability((1, 1), (0, 0)) == lam ** 2


def test_rr2_privacy_example():
    """Sec. 4.2: with the paper's C and I and lambda = 0.2 the worst triple is (00, 10, 00), ratio 4."""
    I = [((0, 0), (0, 0)), ((1, 0), (0, 0)), ((1, 1), (0, 0))]
    C = [((0, 0), (1, 0), (0, 0)), ((1, 0), (0, 0), (0, 0)), ((1, 0), (1, 1), (0, 0)), ((1, 1), (1, 0), (0, 0))]
    r = synthesize_privacy(randomized_response(2, "1/5"), C, I)
    assert r.exact and r.ratio == 4 and isinstance(r.ratio, Fraction)
    assert r.epsilon == pytest.approx(math.log(4), abs=1e-15)
    assert (r.witness.x, r.witness.x_prime, r.witness.y) == ((0, 0), (1, 0), (0, 0))
    f = synthesize_privacy(randomized_response(2, 0.2), C, I)
    assert not f.exact and f.ratio == pytest.approx(4, rel=1e-12)


def test_table_3_top_inputs():
    """Table 3 (n = 8, lambda = 0.2, alpha = 3): 0.9437184 for 0^8 and 1^8, then 0.9723904."""
    r = synthesize_accuracy(rr_counting(8, "1/5"), alpha=3, top=4)
    # closed forms: P(Bin(8, 1/5) <= 3), and P(Bin(7, 1/5) + Bern(4/5) in [0, 4])
    low = sum(math.comb(8, k) * Fraction(1, 5) ** k * Fraction(4, 5) ** (8 - k) for k in range(4))
    assert low == Fraction(9437184, 10 ** 7)
    assert [v for _, v in r.top] == [low, low, Fraction(9723904, 10 ** 7), Fraction(9723904, 10 ** 7)]
    assert [x for x, _ in r.top[:2]] == [(0,) * 8, (1,) * 8]
    assert all(sum(x) in (1, 7) for x, _ in r.top[2:])
    assert r.one_minus_beta == low and r.beta == 1 - low and r.witness == (0,) * 8


def test_rrcount2_accuracy_example_reports_the_true_minimiser():
    """Sec. 4.3 (alpha = 1, lambda = 0.2) names [1,0] with .96; in fact P(within 1 | 10) = 1 and
    the minimum .96 = 1 - 0.2^2 is attained at 00 (and 11)."""
    I = [((0, 0), 0), ((1, 1), 0), ((0, 0), 1), ((1, 0), 1), ((1, 1), 1), ((1, 0), 2), ((1, 1), 2),
         ((0, 0), 2), ((1, 0), 0)]  # the paper's set plus the pairs its window needs
    r = synthesize_accuracy(rr_counting(2, "1/5"), [(0, 0), (1, 0), (1, 1)], sum, 1, I, top=3)
    assert r.one_minus_beta == Fraction(24, 25) and r.witness == (0, 0)
    assert dict(r.top)[(1, 0)] == 1


@pytest.mark.parametrize("lam", ["1/5", "1/3", "1/2", "9/10", 0.05])
def test_rr_epsilon_closed_form(lam):
    l = Fraction(lam) if isinstance(lam, str) else lam
    r = synthesize_privacy(randomized_response(4, lam))
    assert r.epsilon == pytest.approx(abs(math.log((1 - l) / l)), abs=1e-12)


def test_infinite_epsilon_is_a_result_with_a_witness():
    r = synthesize_privacy(randomized_response(2, 0))
    assert r.epsilon == math.inf and r.ratio == math.inf
    assert r.p_x == 1 and r.p_x_prime == 0
    assert r.witness.y == r.witness.x != r.witness.x_prime


@pytest.mark.parametrize("n", range(1, 7))
@pytest.mark.parametrize("lam", [Fraction(1, 5), Fraction(3, 4), 0.3])
def test_symmetry_privacy_sets_equal_exhaustive(n, lam):
    exhaustive = synthesize_privacy(randomized_response(n, lam))
    restricted = synthesize_privacy(randomized_response(n, lam), rr_sets.privacy_set(n),
                                    rr_sets.privacy_inference_set(n))
    assert restricted.ratio == pytest.approx(exhaustive.ratio, rel=1e-12)
    if isinstance(lam, Fraction):
        assert restricted.ratio == exhaustive.ratio


@pytest.mark.parametrize("n", range(1, 7))
@pytest.mark.parametrize("alpha", [0, 1, 2, Fraction(5, 2), 3])
def test_symmetry_accuracy_sets_equal_exhaustive(n, alpha):
    for lam in (Fraction(1, 5), Fraction(2, 3)):
        exhaustive = synthesize_accuracy(rr_counting(n, lam), alpha=alpha)
        restricted = synthesize_accuracy(rr_counting(n, lam), rr_sets.accuracy_set(n), None, alpha,
                                         rr_sets.accuracy_inference_set(n, alpha))
        assert restricted.one_minus_beta == exhaustive.one_minus_beta


def test_exhaustive_privacy_matches_brute_force_definition():
    lam = Fraction(1, 5)
    ref = lambda x, choose: sum(xi ^ brute.flip(choose, lam) for xi in x)  # noqa: E731
    import itertools
    dists = {x: brute.distribution(ref, x) for x in itertools.product((0, 1), repeat=3)}
    hamming = lambda x: [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(3)]  # noqa: E731
    eps, _ = brute.tight_epsilon(dists, hamming)
    r = synthesize_privacy(rr_counting(3, lam))
    assert r.epsilon == pytest.approx(eps, abs=1e-12)
    assert dists[r.witness.x][r.witness.y] == r.p_x and dists[r.witness.x_prime][r.witness.y] == r.p_x_prime
