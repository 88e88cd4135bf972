"""Sums of released geometric noise (running and prefix sums), read in increments: exact for every notion.

Every number is compared with the published mechanism in the coordinates it writes (the sums themselves),
enumerated here on its own: the noise vector is recovered from an output by exact Gaussian elimination on the
program's noise matrix, so ``P(s | x)`` is a product of the two-sided geometric law at that noise, and
``P(s | x) = 0`` when no integer noise gives ``s``. Pure epsilon's supremum over outputs is attained inside a
window of the noise (beyond it every ratio is constant), so the enumeration's maximum is the published value; delta
and D_2 are sums over a window with the mass beyond as the slack. Closed forms: PrefixSum ``e^eps = 1/a``,
SmartSum ``e^eps = a^-2`` (a moved answer enters its block's noisy sum and one running release)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from wmcdp import IntVector, Program, WmcdpError, flip, ite, released_geometric, synthesize_approximate
from wmcdp import synthesize_privacy, synthesize_renyi
from wmcdp.programs import bad_smart_sum, prefix_sum, smart_sum

A = Fraction(1, 3)


def _geo(z: int, a: Fraction = A) -> Fraction:
    return (1 - a) / (1 + a) * a ** abs(z)


class Spec:
    """Output ``s_i = E_i x + d_i + sum_k B_ik Z_k``; noise ``k`` is released as ``released_geometric(c_k x + e_k)``
    and the program adds the rest, so ``s_i`` is written ``E'_i x + d'_i + sum_k B_ik r_k``."""

    def __init__(self, n: int, centers: list[tuple[list[int], int]], rows: list[tuple[list[int], int, list[int]]]):
        self.n, self.centers, self.rows = n, centers, rows

    def program(self, lo: int, hi: int) -> Program:
        def body(x):
            r = [released_geometric(sum(c * xi for c, xi in zip(coef, x)) + e, alpha=A) for coef, e in self.centers]
            out = []
            for coef, d, b in self.rows:
                value = d
                for c, xi in zip(coef, x):
                    value = value + c * xi if c else value
                for bk, rk in zip(b, r):
                    value = value + bk * rk if bk else value
                out.append(value)
            return tuple(out)

        return Program("spec", IntVector(self.n, lo, hi), body, neighbours="one-entry")

    def exact_part(self, x) -> list[int]:
        """``E x + d`` with every release's center folded in: ``s - B Z``."""
        out = []
        for coef, d, b in self.rows:
            v = d + sum(c * xi for c, xi in zip(coef, x))
            v += sum(bk * (sum(c * xi for c, xi in zip(cc, x)) + e) for bk, (cc, e) in zip(b, self.centers))
            out.append(v)
        return out

    def noise_of(self, s, x) -> tuple[int, ...] | None:
        """The one integer noise vector giving ``s`` on ``x``, or None (exact elimination: ``B`` has full column
        rank)."""
        rhs = [Fraction(si - ei) for si, ei in zip(s, self.exact_part(x))]
        rows = [[Fraction(v) for v in b] + [r] for (_, _, b), r in zip(self.rows, rhs)]
        k = len(self.centers)
        pivot_row = 0
        for col in range(k):
            p = next(i for i in range(pivot_row, len(rows)) if rows[i][col] != 0)
            rows[pivot_row], rows[p] = rows[p], rows[pivot_row]
            rows[pivot_row] = [v / rows[pivot_row][col] for v in rows[pivot_row]]
            for i in range(len(rows)):
                if i != pivot_row and rows[i][col] != 0:
                    f = rows[i][col]
                    rows[i] = [v - f * w for v, w in zip(rows[i], rows[pivot_row])]
            pivot_row += 1
        if any(row[-1] != 0 for row in rows[k:]):
            return None
        z = [rows[i][-1] for i in range(k)]
        return tuple(int(v) for v in z) if all(v.denominator == 1 for v in z) else None

    def law(self, x, reach: int) -> dict[tuple[int, ...], Fraction]:
        """``P(s | x)`` for every ``s`` from noise in ``[-reach, reach]^k``."""
        ex = self.exact_part(x)
        out: dict[tuple[int, ...], Fraction] = {}
        for z in itertools.product(range(-reach, reach + 1), repeat=len(self.centers)):
            s = tuple(e + sum(bk * zk for bk, zk in zip(b, z)) for e, (_, _, b) in zip(ex, self.rows))
            out[s] = out.get(s, Fraction(0)) + math.prod((_geo(zk) for zk in z), start=Fraction(1))
        return out

    def probability(self, s, x) -> Fraction:
        z = self.noise_of(s, x)
        return Fraction(0) if z is None else math.prod((_geo(zk) for zk in z), start=Fraction(1))

    def worst_ratio(self, lo: int, hi: int, reach: int) -> Fraction | float:
        """``max P(s | x) / P(s | x')`` over one-entry neighbours and outputs from noise within ``reach``."""
        best: Fraction | float = Fraction(1)
        for x in itertools.product(range(lo, hi + 1), repeat=self.n):
            for i in range(self.n):
                for v in (x[i] - 1, x[i] + 1):
                    if not lo <= v <= hi:
                        continue
                    x2 = x[:i] + (v,) + x[i + 1 :]
                    for s in self.law(x, reach):
                        q = self.probability(s, x2)
                        best = max(best, math.inf if q == 0 else self.probability(s, x) / q)
        return best


def _random_spec(rng: random.Random, n: int) -> Spec:
    """A decodable spec: each row adds at most one new noise, coefficient +-1, to any multiples of earlier ones."""
    k = rng.randint(1, 3)
    centers = [([rng.choice((0, 0, 1, -1)) for _ in range(n)], rng.choice((0, 1, -2))) for _ in range(k)]
    rows, released = [], 0
    while released < k or rng.random() < 0.3:
        b = [rng.choice((0, 1, -1, 2)) if j < released else 0 for j in range(k)]
        if released < k and rng.random() < 0.8:
            b[released] = rng.choice((1, -1))
            released += 1
        rows.append(([rng.choice((0, 1, -1)) for _ in range(n)], rng.choice((0, 3, -1)), b))
    return Spec(n, centers, rows)


#: the plans forced on every random sum (besides the planner's own choice), and the seeds each must apply to
FORCED = {"exhaustive": range(12), "chain": range(12), "given-input": (0, 5, 6, 7, 9, 10, 11)}


@pytest.mark.parametrize("seed", range(12))
def test_random_sums_have_the_published_pure_epsilon(seed):
    """Hostile sums (negative and double coefficients, shifted centers, exact rows between the releases, centers
    wider than their draws) against the enumeration of the published mechanism in its own coordinates, under the
    planner and under each plan forced where it applies."""
    spec = _random_spec(random.Random(seed), 2)
    want = spec.worst_ratio(0, 2, reach=5)
    got = synthesize_privacy(spec.program(0, 2))
    assert got.exact and got.interval is None
    assert got.ratio == want
    for plan, seeds in FORCED.items():
        try:
            forced = synthesize_privacy(spec.program(0, 2), plan=plan)
        except WmcdpError as exc:
            assert seed not in seeds and "does not apply" in str(exc)
            continue
        assert forced.ratio == want and forced.plan.kind == plan


def test_prefix_sum_is_the_closed_form_and_the_enumeration():
    """PrefixSum releases q_1 + Z_1, q_1 + q_2 + Z_1 + Z_2, ...: e^eps = 1/a for every n (one answer moves by one)."""
    for n in (1, 2, 3, 5):
        r = synthesize_privacy(prefix_sum(n=n, m=1, alpha=A, noise="unbounded"))
        assert r.exact and r.interval is None and r.ratio == 1 / A
    spec = Spec(3, [([1, 0, 0], 0), ([0, 1, 0], 0), ([0, 0, 1], 0)], [([], 0, [1, 0, 0]), ([], 0, [1, 1, 0]), ([], 0, [1, 1, 1])])
    assert spec.worst_ratio(0, 1, reach=4) == 1 / A


def test_smart_sum_is_two_epsilon_and_the_bad_variant_is_infinite():
    """SmartSum (M = 2): e^eps = a^-2, its claim 2 eps exactly; BadSmartSum releases its block's exact sum."""
    r = synthesize_privacy(smart_sum(n=4, m=1, M=2, alpha=A, noise="unbounded"))
    assert r.exact and r.ratio == A**-2
    # q_0 + Z_0, q_0 + q_1 + Z_1, q_0 + q_1 + Z_1 + q_2 + Z_2, ...: the enumeration of the first three outputs
    spec = Spec(
        3,
        [([1, 0, 0], 0), ([1, 1, 0], 0), ([0, 0, 1], 0)],
        [([], 0, [1, 0, 0]), ([], 0, [0, 1, 0]), ([], 0, [0, 1, 1])],
    )
    assert spec.worst_ratio(0, 1, reach=4) == A**-2
    bad = synthesize_privacy(bad_smart_sum(n=4, m=1, M=2, alpha=A, noise="unbounded"))
    assert bad.epsilon == math.inf and bad.p_x > 0 and bad.p_x_prime == 0


def test_delta_and_renyi_of_a_prefix_sum_equal_the_published_sums():
    """delta(eps) and D_2 of PrefixSum (n = 2) on one pair: sums over the published outputs within |Z| <= 40, the
    rest (below 3^-40 of mass) the slack."""
    spec = Spec(2, [([1, 0], 0), ([0, 1], 0)], [([], 0, [1, 0]), ([], 0, [1, 1])])
    x, x2 = (0, 0), (0, 1)
    p, q = spec.law(x, 40), spec.law(x2, 40)
    ratio = Fraction(2)
    want = sum((max(Fraction(0), p[s] - ratio * q.get(s, Fraction(0))) for s in p), Fraction(0))
    prog = prefix_sum(n=2, m=1, alpha=A, noise="unbounded")
    got = synthesize_approximate(prog, [(x, x2)], epsilon=math.log(2), exact=True)
    assert abs(Fraction(got.delta) - want) < Fraction(1, 10**12)
    d2 = synthesize_renyi(prog, [2], [(x, x2)], exact=True)
    assert d2.orders[0].epsilon == pytest.approx(math.log(sum(p[s] ** 2 / q[s] for s in p if s in q)), rel=1e-12)


def _prog(body):
    return Program("sums", IntVector(2, 0, 1), body, neighbours="one-entry")


@pytest.mark.parametrize(
    "body, match",
    [
        (lambda x: released_geometric(x[0], alpha=A) + released_geometric(x[1], alpha=A), "two noises"),
        (lambda x: 2 * released_geometric(x[0], alpha=A), "2 times a new noise"),
        (lambda x: released_geometric(x[0], alpha=A) > x[1], "output only"),
        (lambda x: released_geometric(released_geometric(x[0], alpha=A), alpha=A), "output only"),
    ],
)
def test_sums_that_are_not_increments_are_refused(body, match):
    with pytest.raises(WmcdpError, match=match):
        synthesize_privacy(_prog(body))


def test_a_release_chosen_by_ite_is_taken():
    """ite() releases a sum of one noise on the spot; a later output that reads that noise is refused."""

    def body(x):
        r = released_geometric(x[0], alpha=A)
        return ite(flip(Fraction(1, 2)), r, 0), r + x[1]

    with pytest.raises(WmcdpError, match="chosen by ite"):
        synthesize_privacy(_prog(body))

    def gated(x):
        return ite(flip(Fraction(1, 2)), released_geometric(x[0], alpha=A) + 1, 1)  # (1 lies in the center's 1..2)

    r = synthesize_privacy(_prog(gated))
    assert r.exact and r.ratio == 1 / A


def test_a_concrete_run_returns_the_sums_as_written():
    prog = _prog(lambda x: (released_geometric(x[0], alpha=A), released_geometric(x[0], alpha=A) * 0 + 7))
    rng = random.Random(3)
    outs = [prog.run((1, 0), rng) for _ in range(50)]
    assert all(o[1] == 7 for o in outs) and len({o[0] for o in outs}) > 1


def _leaky_running_sum(n: int) -> Program:
    """``s_i = s_(i-1) + released(x_i) + x_(i-1)``: read in increments, the release of ``x_i + x_(i-1)``, a center
    wider than its draw's (its noise drawn again where the sum is read, and placed after ``x_i``)."""

    def body(x):
        out, s = [], released_geometric(x[0], alpha=A)
        out.append(s)
        for i in range(1, n):
            s = s + released_geometric(x[i], alpha=A) + x[i - 1]
            out.append(s)
        return tuple(out)

    return Program("leaky", IntVector(n, 0, 1), body, neighbours="one-entry")


def test_a_noise_drawn_where_it_is_read_keeps_the_chain():
    """Every entry enters two releases: e^eps = a^-2, by the chain plan (its per-entry blocks intact), the exhaustive
    sets and the enumeration alike."""
    spec = Spec(3, [([1, 0, 0], 0), ([0, 1, 0], 0), ([0, 0, 1], 0)], [([], 0, [1, 0, 0]), ([1, 0, 0], 0, [1, 1, 0]), ([1, 1, 0], 0, [1, 1, 1])])
    assert spec.worst_ratio(0, 1, reach=4) == A**-2
    chain = synthesize_privacy(_leaky_running_sum(6), plan="chain")
    assert chain.plan.kind == "chain" and chain.ratio == A**-2
    assert chain.plan.size <= 6  # state pairs per boundary: 2^n without the placement (192 at n = 6)
    assert synthesize_privacy(_leaky_running_sum(3), plan="exhaustive").ratio == A**-2


def test_crosscheck_refuses_outputs_read_with_merged_tails():
    """Sampling sees the published sums, not their increments with merged tails: refused in one line."""
    from wmcdp import crosscheck

    with pytest.raises(WmcdpError, match="merged tails"):
        crosscheck(prefix_sum(n=2, m=1, alpha=A, noise="unbounded"), k=10)


def test_ite_on_a_negated_release_is_the_published_law():
    """``ite(c, 2 - released(x), 1)``: the branch holds ``2 - x - Z``, a release of ``2 - x`` (the law of Z is
    symmetric), against the published law enumerated over |Z| <= 60."""

    def body(x):
        return ite(flip(Fraction(1, 2)) | (x[0] >= 1), 2 - released_geometric(x[0], alpha=A), 1)

    def law(x0):
        on = Fraction(1) if x0 >= 1 else Fraction(1, 2)
        out = {2 - x0 - z: on * _geo(z) for z in range(-60, 61)}
        out[1] = out.get(1, Fraction(0)) + (1 - on)
        return out

    laws = {x0: law(x0) for x0 in range(4)}
    want = max(
        p / laws[b][y] for a in range(4) for b in (a - 1, a + 1) if 0 <= b <= 3 for y, p in laws[a].items() if abs(y) < 20
    )
    r = synthesize_privacy(Program("negated", IntVector(1, 0, 3), body, neighbours="one-entry"))
    assert r.ratio == want


@pytest.mark.parametrize("k", [-1, 2, 5])
def test_ite_beside_a_constant_at_or_beyond_the_ends_is_refused(k):
    """At or beyond an end a constant would be merged with, or told apart from, a tail value it may equal."""
    body = lambda x: ite(flip(Fraction(1, 2)), released_geometric(x[0], alpha=A), k)  # noqa: E731
    with pytest.raises(WmcdpError, match="strictly between its ends"):
        synthesize_privacy(Program("far", IntVector(1, 0, 1), body, neighbours="one-entry"))


def test_ite_on_a_sum_without_noise_and_a_namedtuple_output():
    from collections import namedtuple

    Pair = namedtuple("Pair", "a b")
    noiseless = _prog(lambda x: ite(flip(Fraction(1, 2)), released_geometric(x[0], alpha=A) * 0 + x[1], 5))
    plain = _prog(lambda x: ite(flip(Fraction(1, 2)), x[1] + 0, 5))
    assert synthesize_privacy(noiseless).ratio == synthesize_privacy(plain).ratio == math.inf
    named = _prog(lambda x: Pair(released_geometric(x[0], alpha=A), x[1] ^ flip(Fraction(1, 4))))
    assert synthesize_privacy(named).ratio == 3
