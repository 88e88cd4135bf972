"""The gap table's helpers (experiments/gap): closed forms against wmcdp's exact composition and brute force, the
accountant adapters against closed forms and the libraries' own routes, the shuffle bounds against the papers'
published numbers, direct enumerations of their reduced pairs and brute-force shuffled randomized response."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("scipy")  # the helpers' log-space sums and binomial tails
import brute  # noqa: E402

# experiments/ is not a package: put it on the path for the import only (its scripts' names must not shadow others)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
try:
    from gap import accountants as acc
    from gap import pairs
    from gap import shuffle_bounds as sb
finally:
    sys.path.pop(0)

from wmcdp import IntVector, Program, synthesize_approximate  # noqa: E402
from wmcdp import truncated_geometric as tgeom  # noqa: E402
from wmcdp.programs import kary_rr, randomized_response, truncated_geometric  # noqa: E402

F = Fraction

# -- closed forms of K-fold composition --------------------------------------------------------------------------


def _geometric_sensitivity2(m, alpha):
    """TGeom_α on {0..m} releasing one entry in {0, 1, 2}, Hamming neighbours: the gap table's TGeom row."""
    return Program("tgeom2", IntVector(1, 0, 2), lambda x: tgeom(x[0], 0, m, alpha=alpha), neighbours="hamming")


CASES = [
    ((pairs.rr(F(1, 4)),), lambda: randomized_response(1, F(1, 4))),
    ((pairs.kary_rr(4, F(3)),), lambda: kary_rr(1, 4, ratio=F(3))),
    ((pairs.geometric(F(1, 3)),), lambda: truncated_geometric(3, alpha=F(1, 3))),
    ((pairs.geometric(F(1, 3), 1), pairs.geometric(F(1, 3), 2)), lambda: _geometric_sensitivity2(4, F(1, 3))),
]


@pytest.mark.parametrize("pair_list, program", CASES, ids=["rr", "4-rr", "tgeom", "tgeom-sensitivity-2"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_closed_form_is_wmcdp_exact_composition(pair_list, program, k):
    """e^{ε(δ)} and δ(ε) of K runs: the binomial/trinomial sums (the largest over the mechanism's pairs) equal
    wmcdp's exact compose=K, as rationals."""
    prog = program()
    by_delta = synthesize_approximate(prog, delta=F(1, 50), compose=k)
    assert by_delta.exact and max(pairs.exact_ratio(p, k, F(1, 50)) for p in pair_list) == by_delta.ratio
    by_eps = synthesize_approximate(prog, epsilon="ln:2", compose=k)
    assert max(pairs.exact_delta(p, k, F(2)) for p in pair_list) == by_eps.delta


def test_geometric_pairs_against_brute_force():
    """TGeom_α on {0..m} (DESIGN.md's closed form, enumerated): inputs c, c + 1 give RR's pair with
    λ = α/(1 + α); inputs c, c + 2 give the three-class pair, which is not RR's (it has a class of ratio 1)."""
    a, m = F(2, 5), 6

    def tgeom_pmf(c):
        return {
            z: (a**c if z == 0 else a ** (m - c) if z == m else (1 - a) * a ** abs(z - c)) / (1 + a)
            for z in range(m + 1)
        }

    def classes(pair_of_counts, pair):
        c0, c1 = pair_of_counts
        p, q = tgeom_pmf(c0), tgeom_pmf(c1)
        ratio_classes = {}  # likelihood ratio -> (P mass, Q mass)
        for z in range(m + 1):
            old = ratio_classes.get(p[z] / q[z], (0, 0))
            ratio_classes[p[z] / q[z]] = (old[0] + p[z], old[1] + q[z])
        return sorted(ratio_classes.values()) == sorted(zip(pair.p, pair.q))

    for c in range(m):
        assert classes((c, c + 1), pairs.geometric(a, 1))
        assert classes((c, c + 1), pairs.rr(a / (1 + a)))
    for c in range(m - 1):
        assert classes((c, c + 2), pairs.geometric(a, 2))
    two = pairs.geometric(a, 2)
    assert len(two.p) == 3 and F(1) in {x / y for x, y in zip(two.p, two.q)}
    with pytest.raises(ValueError):
        pairs.geometric(a, 3)


def _subsampled_rr_run(lam, q):
    """One Poisson-sampled RR report: the user's bit 1 is included with probability q, else the absent value 0."""

    def run(present, choose):
        bit = 1 if present and brute.flip(choose, q) else 0
        return bit ^ brute.flip(choose, lam)

    return run


@pytest.mark.parametrize("k", [1, 2, 4])
def test_subsampled_pair_against_brute_force(k):
    """K runs of Poisson-subsampled RR (present vs absent user), enumerated, against the pair's closed form."""
    lam, q = F(1, 4), F(1, 5)
    run = _subsampled_rr_run(lam, q)
    present, absent = (brute.product(brute.distribution(run, x), k) for x in (True, False))
    delta = F(1, 100)
    expected = max(brute.ratio_for_delta(present, absent, delta), brute.ratio_for_delta(absent, present, delta))
    pair = pairs.subsampled_rr(lam, q)
    assert pairs.exact_ratio(pair, k, delta) == expected
    assert pairs.exact_delta(pair, k, F(3, 2)) == max(
        brute.hockey(present, absent, F(3, 2)), brute.hockey(absent, present, F(3, 2))
    )


def test_subsampling_amplification_is_attained():
    """One run: ε(0) of the subsampled pair is ln(1 + q(e^ε0 − 1)) exactly (RR λ = 1/4: e^ε0 = 3)."""
    for q in (F(1, 100), F(1, 3), F(1)):
        assert pairs.exact_ratio(pairs.subsampled_rr(F(1, 4), q), 1, F(0)) == 1 + q * 2


@pytest.mark.parametrize("pair", [pairs.rr(F(2, 5)), pairs.kary_rr(5, F(7, 3)), pairs.subsampled_rr(F(1, 4), F(1, 10))])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_log_space_sums_match_fractions(pair, k):
    log_p, log_q = pairs.terms(pair, k)
    assert math.isclose(
        pairs.epsilon_at(log_p, log_q, 1e-3), math.log(pairs.exact_ratio(pair, k, F(1, 1000))), rel_tol=1e-12
    )
    assert math.isclose(
        pairs.delta_at(log_p, log_q, math.log(1.25)),
        float(pairs.exact_delta(pair, k, F(5, 4))),
        rel_tol=1e-12,
        abs_tol=1e-15,
    )


# -- accountant adapters -----------------------------------------------------------------------------------------


def test_missing_library_names_the_extra():
    with pytest.raises(acc.Missing, match=r"pip install -e '\.\[accountants\]'"):
        acc._import("no_such_accountant_library", "accountants")


def test_pld_within_its_discretisation():
    """dp-accounting's pessimistic PLD: ε(δ) ≤ ε̃ ≤ ε(δ) + K h."""
    pytest.importorskip("dp_accounting")
    pair, h = pairs.rr(F(1, 4)), 1e-4
    for k in (1, 10):
        exact = math.log(pairs.exact_ratio(pair, k, F(1, 10**6)))
        assert exact - 1e-12 <= acc.pld(pair, k, 1e-6, interval=h) <= exact + k * h + 1e-9


def test_renyi_of_rr_is_the_closed_form():
    """D_α(RR) = ln((1−λ)^α λ^(1−α) + λ^α (1−λ)^(1−α))/(α − 1), against 60-digit brute force too."""
    lam = F(1, 4)
    p, q = {0: 1 - lam, 1: lam}, {0: lam, 1: 1 - lam}
    for alpha in (1.5, 2.0, 10.0, 64.0):
        closed = math.log(0.75**alpha * 0.25 ** (1 - alpha) + 0.25**alpha * 0.75 ** (1 - alpha)) / (alpha - 1)
        assert math.isclose(acc.renyi(pairs.rr(lam), alpha), closed, rel_tol=1e-12)
        assert math.isclose(acc.renyi(pairs.rr(lam), alpha), brute.renyi(p, q, alpha), rel_tol=1e-12)
    assert math.isclose(acc.renyi(pairs.rr(lam), 1024.0), brute.renyi(p, q, 1024.0), rel_tol=1e-12)


def test_rdp_is_dp_accountings_own_rr_route():
    """The pair's curve through dp-accounting's conversion equals its RdpAccountant on its own RR event (with
    count: that accountant honours it), and bounds the exact ε."""
    dp_accounting = pytest.importorskip("dp_accounting")
    lam, k = F(1, 4), 20
    own = dp_accounting.rdp.RdpAccountant(list(acc.ORDERS), dp_accounting.NeighboringRelation.REPLACE_ONE)
    own.compose(dp_accounting.RandomizedResponseDpEvent(noise_parameter=float(2 * lam), num_buckets=2), k)
    ours = acc.rdp(pairs.rr(lam), k, 1e-6)
    assert math.isclose(ours, own.get_epsilon(1e-6), rel_tol=1e-9)
    assert ours >= math.log(pairs.exact_ratio(pairs.rr(lam), k, F(1, 10**6)))


def test_prv_of_rr_is_its_pure_dp_variable():
    """RR's privacy random variable is prv-accountant's PureDPMechanism(ε0); ours gives the same bound, above
    the exact ε and within the error asked for."""
    prv_accountant = pytest.importorskip("prv_accountant")
    lam, k, delta, err = F(1, 4), 10, 1e-6, 1e-2
    ours = acc.prv(pairs.rr(lam), k, delta, eps_error=err)
    own = prv_accountant.PRVAccountant(
        prvs=[prv_accountant.privacy_random_variables.PureDPMechanism(math.log(3))],
        max_self_compositions=[k],
        eps_error=err,
        delta_error=delta / 1000,
    ).compute_epsilon(delta=delta, num_self_compositions=[k])[2]
    exact = math.log(pairs.exact_ratio(pairs.rr(lam), k, F(1, 10**6)))
    assert math.isclose(ours, own, rel_tol=1e-6)
    assert exact <= ours <= exact + 2 * err


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scipy's optimiser inside autodp's own conversion
def test_autodp_pair_curve_is_its_rr_mechanism():
    pytest.importorskip("autodp")
    from autodp import mechanism_zoo, transformer_zoo

    lam, k = F(1, 4), 10
    own = transformer_zoo.Composition()([mechanism_zoo.RandresponseMechanism(p=0.75)], [k]).get_approxDP(1e-6)
    ours = acc.autodp_rdp(pairs.rr(lam), k, 1e-6)
    assert math.isclose(ours, own, rel_tol=1e-6)
    assert ours >= math.log(pairs.exact_ratio(pairs.rr(lam), k, F(1, 10**6))) * (1 - 1e-12)  # at Kε0 here


# -- shuffle bounds ----------------------------------------------------------------------------------------------


def test_fmt_reproduces_the_published_numbers():
    """Feldman–McMillan–Talwar's example (n = 10^5, ε0 = 4, δ = 1e-6): numerical [0.1675385583317841,
    0.172790550755978], closed form 0.5378040242374512 (their repository's README)."""
    lo, hi = sb.fmt_bracket(4.0, 100_000, 1e-6)
    assert abs(lo - 0.1675385583317841) < 1e-12 and abs(hi - 0.172790550755978) < 1e-12
    assert abs(sb.fmt_closed_reported(4.0, 100_000, 1e-6) - 0.5378040242374512) < 1e-12
    assert sb.fmt_closed(4.0, 1000, 1e-6) is None  # ε0 = 4 > ln(1000/(16 ln(2e6)))


def _clone_direct(eps0, n, eps):
    """FMT's clone pair enumerated: C ~ Bin(n−1, e^−ε0), A ~ Bin(C, 1/2), Δ ~ Bern(e^ε0/(e^ε0 + 1))."""
    alpha, w = math.exp(eps0) / (math.exp(eps0) + 1), math.exp(-eps0)
    p0, p1 = {}, {}
    for c in range(n):
        wc = math.comb(n - 1, c) * w**c * (1 - w) ** (n - 1 - c)
        for a in range(c + 1):
            wa = wc * math.comb(c, a) / 2**c
            for d, wd in ((1, alpha), (0, 1 - alpha)):
                o0, o1 = (a + d, c - a + 1 - d), (a + 1 - d, c - a + d)
                p0[o0] = p0.get(o0, 0) + wa * wd
                p1[o1] = p1.get(o1, 0) + wa * wd
    return brute.hockey(p0, p1, math.exp(eps))


def _wang_direct(eps0, n, eps, k):
    """Wang et al.'s reduced pair enumerated: others Y0/Y1 with probability r each, the victim (pα, α, γ)."""
    p, beta, q = sb.wang_parameters(eps0, k)
    alpha = beta / (p - 1)
    r, g = alpha * p / q, 1 - alpha - p * alpha

    def m(a, b):
        if a < 0 or b < 0 or a + b > n - 1:
            return 0.0
        return math.comb(n - 1, a) * math.comb(n - 1 - a, b) * r ** (a + b) * (1 - 2 * r) ** (n - 1 - a - b)

    cells = [(a, b) for a in range(n + 1) for b in range(n + 1 - a)]
    P = {c: p * alpha * m(c[0] - 1, c[1]) + alpha * m(c[0], c[1] - 1) + g * m(*c) for c in cells}
    Q = {c: alpha * m(c[0] - 1, c[1]) + p * alpha * m(c[0], c[1] - 1) + g * m(*c) for c in cells}
    return max(brute.hockey(P, Q, math.exp(eps)), brute.hockey(Q, P, math.exp(eps)))


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
def test_bounds_match_their_reduced_pairs(eps):
    for eps0, n in ((1.0, 12), (2.0, 20)):
        assert math.isclose(sb.fmt_delta(eps0, n, eps), _clone_direct(eps0, n, eps), rel_tol=1e-9, abs_tol=1e-15)
        for k in (2, 3):
            assert math.isclose(
                sb.wang_delta(eps0, n, eps, k), _wang_direct(eps0, n, eps, k), rel_tol=1e-9, abs_tol=1e-15
            )


def _shuffled_kary(n, k, eps0, eps, others):
    """Brute force δ(ε) of n shuffled k-RR reports, victim value 0 against 1, the others' values ``others``."""
    e = math.exp(eps0)

    def report(x, choose):
        return choose({y: (e if y == x else 1.0) / (e + k - 1) for y in range(k)})

    def histogram(users):
        def fn(_, choose):
            counts = [0] * k
            for x in users:
                counts[report(x, choose)] += 1
            return tuple(counts)

        return brute.distribution(fn, None)

    a, b = histogram([*others, 0]), histogram([*others, 1])
    return float(max(brute.hockey(a, b, math.exp(eps)), brute.hockey(b, a, math.exp(eps))))


def test_binary_bounds_bound_brute_force():
    """Every bound's δ(ε) is at least the exact δ of shuffled binary RR over all others' data (n = 8)."""
    n, eps0 = 8, math.log(3)
    for eps in (0.2, 0.6, 1.0):
        exact = max(_shuffled_kary(n, 2, eps0, eps, [1] * j + [0] * (n - 1 - j)) for j in range(n))
        assert exact > 0
        for bound in (sb.fmt_delta(eps0, n, eps), sb.blanket_delta(eps0, n, eps), sb.wang_delta(eps0, n, eps)):
            assert bound >= exact * (1 - 1e-9)


def test_wang_kary_is_one_dataset_not_the_worst():
    """For 3-RR, Wang et al.'s (p, β, q) = (e^ε0, (e^ε0 − 1)/(e^ε0 + 2), e^ε0) bound equals the δ of the dataset
    whose other users all hold a third value, and lies below the δ when they all hold the victim's value."""
    n, eps0, eps = 6, math.log(3), 0.8
    third = _shuffled_kary(n, 3, eps0, eps, [2] * (n - 1))
    same = _shuffled_kary(n, 3, eps0, eps, [0] * (n - 1))
    assert math.isclose(sb.wang_delta(eps0, n, eps, 3), third, rel_tol=1e-9)
    assert sb.wang_delta(eps0, n, eps, 3) < same


def test_blanket_at_a_hand_computed_point():
    """ε0 = ln 3, k = 2 (γ = 1/2, b = e^ε + 1), n = 1000, ε = 1/2: b²/(4aγn)·(1 − γ(1 − e^(−2a²/b²)))^n."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        a, b = mpmath.e ** mpmath.mpf(0.5) - 1, mpmath.e ** mpmath.mpf(0.5) + 1
        gamma = mpmath.mpf(1) / 2
        expected = b**2 / (4 * a * gamma * 1000) * (1 - gamma * (1 - mpmath.e ** (-2 * a**2 / b**2))) ** 1000
    assert math.isclose(sb.blanket_delta(math.log(3), 1000, 0.5), float(expected), rel_tol=1e-12)
    assert sb.blanket_delta(math.log(3), 1000, math.log(3)) == 0.0


#: Wang et al.'s closed forms as their code computes them: wangsw/PrivacyAmplification at commit
#: 34ca048932dc1f211d1d1a3b1e642088c4b8390a, unifiedamplification.py, the ``variation_ratio_tightclosed`` (Theorem
#: 4.2) and ``variation_ratio_closed`` (Theorem 4.3) branches of its ``__main__`` run with epsilons = [ε0],
#: n, delta = δ, mechanisms None (the general ε0-LDP parameters, binary RR's) and "krr" with options 3; printed
#: ε0 where a condition fails (None here).
WANG_CLOSED = [  # (ε0, n, k, Theorem 4.2, Theorem 4.3), δ = 1e-6
    (4.0, 100_000, 2, 0.18927505377975798, 0.40779426871806085),
    (4.0, 100_000, 3, 0.18725653078743895, 0.4081743319639526),
    (math.log(3), 10_000, 2, 0.08047275119061749, 0.19997234655476537),
    (math.log(3), 10_000, 3, 0.07077667691323151, 0.20744295353407374),
    (math.log(3), 1_000_000, 2, 0.007821533350826481, 0.021823914907811895),
    (math.log(3), 1_000_000, 3, 0.006984693770627025, 0.022708022957747136),
    (math.log(3), 1000, 2, 0.27535387318570254, 0.5340472465803995),
    (math.log(3), 1000, 3, 0.2314235097102298, 0.5514074338094241),
    (math.log(3), 100, 2, 1.3739307302262875, None),
    (math.log(3), 100, 3, 0.7832826689206192, None),
    (4.0, 1000, 2, None, None),
]


@pytest.mark.parametrize("eps0, n, k, thm42, thm43", WANG_CLOSED)
def test_wang_closed_forms_are_the_authors_code(eps0, n, k, thm42, thm43):
    for ours, theirs in ((sb.wang_tight_closed(eps0, n, 1e-6, k), thm42), (sb.wang_closed(eps0, n, 1e-6, k), thm43)):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert math.isclose(ours, theirs, rel_tol=1e-12)


#: Wang et al.'s numerical bound as their code computes it (same commit): ``amplificationUB(*computeUBParameters(ε0,
#: mechanism, options), n, 1e-6, T=40)``, mechanism None for k = 2 and "krr" with options k otherwise. Their
#: Delta adds tol·n ≤ 1e-14·n to δ (rigour against scipy's ``expect``), so their ε lies at or slightly above ours.
WANG_NUMERICAL = [  # (ε0, n, k, ε)
    (math.log(3), 1000, 2, 0.1682829265541181),
    (math.log(3), 1000, 3, 0.1489496849282366),
    (4.0, 10_000, 2, 0.4108147459301108),
    (math.log(3), 10, 3, 1.0391922257067279),
    (math.log(3), 20, 3, 0.9400264200901525),
    (math.log(3), 40, 3, 0.779810863098513),
]


@pytest.mark.parametrize("eps0, n, k, theirs", WANG_NUMERICAL)
def test_wang_numerical_is_the_authors_code(eps0, n, k, theirs):
    ours = sb.invert(lambda e: sb.wang_delta(eps0, n, e, k), 1e-6, eps0)
    assert ours * (1 - 1e-8) <= theirs <= ours * (1 + 1e-5)


#: BBGN19's own code: BorjaBalle/amplification-by-shuffling at commit 1778a0dd16405cb10d780d5f1878ed0b1fb76f2e,
#: ``Hoeffding(RRMechanism(k=k)).get_delta(0.2, ε0, n)`` and ``.get_eps(ε0, n, 1e-6)`` (scipy's root_scalar).
BLANKET = [  # (k, ε0, n, δ at ε = 0.2, ε at δ = 1e-6)
    (2, math.log(3), 1000, 5.67955029350384e-07, 0.19439219414126993),
    (2, 4.0, 100_000, 2.7060180750903818e-11, 0.13670243961740322),
    (3, math.log(3), 1000, 3.4755451625893877e-06, 0.21403237191558153),
]


@pytest.mark.parametrize("k, eps0, n, delta, eps", BLANKET)
def test_blanket_is_the_authors_code(k, eps0, n, delta, eps):
    assert math.isclose(sb.blanket_delta(eps0, n, 0.2, k), delta, rel_tol=1e-11)
    assert math.isclose(sb.invert(lambda e: sb.blanket_delta(eps0, n, e, k), 1e-6, eps0), eps, rel_tol=1e-8)


@pytest.mark.parametrize("lam", [Fraction(1, 4), Fraction(1, 10)])
def test_shuffled_rr_closed_form_against_brute_force(lam):
    """The gap table's independent check of shuffled binary RR (every count of ones among the others, both
    orders) against brute force over every dataset and every neighbouring pair (n = 6)."""
    n, delta = 6, 1e-3
    counting = {
        x: brute.distribution(lambda x, c: sum(b ^ brute.flip(c, lam) for b in x), x)
        for x in itertools.product((0, 1), repeat=n)
    }
    expected = max(
        brute.ratio_for_delta(counting[x], counting[x[:i] + (1 - x[i],) + x[i + 1 :]], F(1, 1000))
        for x in counting
        for i in range(n)
    )
    assert math.isclose(pairs.shuffled_rr_epsilon(n, float(lam), delta), math.log(expected), rel_tol=1e-12)


def test_shuffled_rr_closed_form_is_wmcdp():
    """The same closed form at n = 200 against wmcdp's exact ε(δ) with rr_counting's proved pairs."""
    from symmetry_sets import PAIRS
    from wmcdp.programs import rr_counting

    n, lam = 200, 0.25
    p, i = PAIRS["rr_counting"](n=n, lam=lam)
    exact = float(synthesize_approximate(rr_counting(n, lam), p, i, delta=1e-6).epsilon)
    assert math.isclose(pairs.shuffled_rr_epsilon(n, lam, 1e-6), exact, rel_tol=1e-9)


def test_shuffled_kary_closed_form_against_brute_force():
    """The gap table's independent check of shuffled 3-RR (every histogram of the others) against brute force
    over every dataset in {0, 1, 2}^4 and every neighbouring pair (ε0 = ln 3: truth 3/5, each other value 1/5)."""
    n, k = 4, 3

    def histogram(x, choose):
        reports = [choose({y: F(3, 5) if y == xi else F(1, 5) for y in range(k)}) for xi in x]
        return tuple(reports.count(v) for v in range(k))

    dists = {x: brute.distribution(histogram, x) for x in itertools.product(range(k), repeat=n)}
    expected = max(
        brute.ratio_for_delta(dists[x], dists[x[:i] + (v,) + x[i + 1 :]], F(1, 1000))
        for x in dists
        for i in range(n)
        for v in range(k)
        if v != x[i]
    )
    assert math.isclose(pairs.shuffled_kary_epsilon(n, k, math.log(3), 1e-3), math.log(expected), rel_tol=1e-12)


@pytest.mark.parametrize("n", [10, 20])
def test_shuffled_kary_closed_form_is_wmcdp(n):
    """The same closed form against wmcdp's exact ε(δ) with kary_rr_histogram's proved pairs (3-RR, ε0 = ln 3)."""
    from symmetry_sets import PAIRS
    from wmcdp.programs import kary_rr_histogram

    p, i = PAIRS["kary_rr_histogram"](n=n, k=3, lam=0.4)
    exact = float(synthesize_approximate(kary_rr_histogram(n, 3, 0.4), p, i, delta=1e-6).epsilon)
    assert math.isclose(pairs.shuffled_kary_epsilon(n, 3, math.log(3), 1e-6), exact, rel_tol=1e-9)


def test_invert_is_the_least_epsilon():
    """ε(δ) from a decreasing δ(ε): δ(ε̂) ≤ δ and δ just below ε̂ is above δ."""
    eps = sb.invert(lambda e: sb.wang_delta(1.0, 500, e), 1e-6, 1.0)
    assert sb.wang_delta(1.0, 500, eps) <= 1e-6 < sb.wang_delta(1.0, 500, eps * (1 - 1e-6))


def test_pairs_reject_non_distributions():
    with pytest.raises(ValueError):
        pairs.Pair("bad", (F(1, 2), F(1, 3)), (F(1, 2), F(1, 2)))
    with pytest.raises(ValueError):
        pairs.terms(pairs.Pair("4 classes", (F(1, 4),) * 4, (F(1, 2), F(1, 4), F(1, 8), F(1, 8))), 2)
    assert list(itertools.islice(pairs._counts(2, 2), 3)) == [(0, 2), (1, 1), (2, 0)]
