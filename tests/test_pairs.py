"""Pair sets beyond the exhaustive ones, checked against exhaustive runs and brute force: the proved
symmetry pair sets of shuffled randomized response, the shuffled rows they come with, pairs up to the
automatically proved group (``pairs="auto"``), the data-centric pairs of one database (``at=``), and
the ``approx`` / ``renyi`` / ``profile`` commands."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import brute
from wmcdp import symmetry_sets
from wmcdp.programs import histogram, kary_rr_histogram, noisy_max, randomized_response, rr_counting, sparse_vector
from test_geometric import all_entries
from wmcdp import synthesize_privacy
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.cli import main
from wmcdp.compile import compile_program
from wmcdp.plan.pairs import pair_source
from wmcdp.notions.renyi import synthesize_renyi
from wmcdp.lang.sets import all_outputs

THRESHOLDS = ["ln:1", "ln:3/2", "ln:3", "ln:9/2"]
DELTAS = [Fraction(1, 10), Fraction(1, 1000), Fraction(1, 10 ** 6)]


def _same_bounds(prog, P, I, exact=True, thresholds=THRESHOLDS, deltas=DELTAS):
    """delta(eps), eps(delta) and Rényi divergences over (P, I) equal the exhaustive ones."""
    for eps in thresholds:
        a = synthesize_approximate(prog, epsilon=eps, exact=exact)
        b = synthesize_approximate(prog, P, I, epsilon=eps, exact=exact)
        assert b.delta == a.delta if exact else b.delta == pytest.approx(a.delta, rel=1e-12, abs=1e-300)
    for delta in deltas:
        a = synthesize_approximate(prog, delta=delta, exact=exact)
        b = synthesize_approximate(prog, P, I, delta=delta, exact=exact)
        assert b.epsilon == pytest.approx(a.epsilon, rel=1e-12, abs=1e-15)
    orders = [1.5, 2, 5, math.inf]
    a, b = synthesize_renyi(prog, orders, exact=exact), synthesize_renyi(prog, orders, P, I, exact=exact)
    assert [o.epsilon for o in b.orders] == pytest.approx([o.epsilon for o in a.orders], rel=1e-12)


@pytest.mark.parametrize("n", range(1, 9))
def test_rr_counting_symmetry_pairs_equal_exhaustive(n):
    """The pairs (u_k, u_{k+1}) and their reverses give the exhaustive bounds (issue acceptance: n <= 8)."""
    lam = Fraction(1, 5)
    P, I = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
    _same_bounds(rr_counting(n, lam), P, I)


@pytest.mark.parametrize("n, lam", [(3, Fraction(1, 3)), (6, 0.3)])
def test_randomized_response_symmetry_pairs_equal_exhaustive(n, lam):
    P, I = symmetry_sets.PAIRS["randomized_response"](n=n, lam=lam)
    _same_bounds(randomized_response(n, lam), P, I, exact=isinstance(lam, Fraction))


@pytest.mark.parametrize("n, k", [(3, 3), (4, 3), (3, 4)])
def test_kary_histogram_symmetry_pairs_equal_exhaustive(n, k):
    lam = Fraction(1, 3)
    P, I = symmetry_sets.PAIRS["kary_rr_histogram"](n=n, k=k, lam=lam)
    _same_bounds(kary_rr_histogram(n, k, lam), P, I)


def _kary_reference(k, lam):
    """Counts of the reports 0..k-2 of one-user k-ary RR reports (truth w.p. 1-lam, else another value uniformly)."""
    def report(choose, v):
        return choose({u: (1 - lam) if u == v else lam / (k - 1) for u in range(k)})

    def fn(x, choose):
        reports = [report(choose, v) for v in x]
        counts = tuple(reports.count(j) for j in range(k - 1))
        return counts if k > 2 else counts[0]
    return fn


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_shuffled_rows_equal_the_compiled_program_and_brute_force(exact):
    """ShuffledInference convolves the one-user distribution; the n-user program counts its own diagram;
    brute force enumerates every report."""
    lam = Fraction(1, 4)
    cases = [(rr_counting(5, lam), "rr_counting", {"n": 5}, lambda x, c: sum(v ^ brute.flip(c, lam) for v in x)),
             (kary_rr_histogram(3, 3, lam), "kary_rr_histogram", {"n": 3, "k": 3}, _kary_reference(3, lam))]
    for prog, name, params, reference in cases:
        P, I = symmetry_sets.PAIRS[name](**params, lam=lam if exact else float(lam))
        shuffled = pair_source(prog, P, I, exact=exact)
        compiled = pair_source(prog, P, exact=exact)
        outputs = all_outputs(compile_program(prog).shape)
        for key, a, _ in shuffled.rows(range(len(P))):
            x = P.pairs[key][0]
            want = brute.distribution(reference, x)
            (_, b, _), = compiled.rows([key])
            for source, row in ((shuffled, a), (compiled, b)):
                got = [Fraction(int(v), source.arith.denominator) if exact else math.exp(v) for v in row]
                expected = [want.get(y, Fraction(0)) for y in outputs]
                assert got == expected if exact else got == pytest.approx([float(p) for p in expected], rel=1e-12)


def test_shuffled_rr_rows_against_the_binomial():
    """P(count = c | x has j ones) = sum_i C(j,i) (1-lam)^i lam^(j-i) C(n-j, c-i) lam^(c-i) (1-lam)^(n-j-c+i)."""
    n, lam = 6, Fraction(1, 5)
    _, I = symmetry_sets.PAIRS["rr_counting"](n=n, lam=lam)
    inputs = [(1,) * j + (0,) * (n - j) for j in range(n + 1)]
    arith, rows = I.rows(inputs, True)
    for j, row in enumerate(rows):
        for c in range(n + 1):
            want = sum(math.comb(j, i) * (1 - lam) ** i * lam ** (j - i) * math.comb(n - j, c - i) * lam ** (c - i)
                       * (1 - lam) ** (n - j - c + i) for i in range(0, min(j, c) + 1) if c - i <= n - j)
            assert Fraction(int(row[c]), arith.denominator) == want


@pytest.mark.parametrize("prog", [randomized_response(4, Fraction(1, 5)), histogram(3, 2, eps0=1),
                                  sparse_vector(3, 2, 1, 1, eps0=1), noisy_max(3, 2, eps0=1)],
                         ids=["rr", "histogram", "sparse_vector", "noisy_max"])
def test_auto_pairs_equal_exhaustive(prog):
    """Pairs up to the proved group, output orbits weighted by their sizes, give the exhaustive bounds."""
    exact = prog.name == "randomized_response"
    _same_bounds(prog, "auto", None, exact=exact, thresholds=THRESHOLDS[1:3], deltas=DELTAS[1:2])
    r = synthesize_approximate(prog, "auto", delta=Fraction(1, 1000), exact=exact)
    assert r.symmetry.endswith("pairs up to it")


def test_data_centric_pairs_against_brute_force():
    """at=x0: the maximum over (x0, x') and (x', x0) for the neighbours x' of x0 only (eq. 5)."""
    lam = Fraction(1, 5)
    prog = rr_counting(3, lam)
    dists = {x: brute.distribution(lambda x, c: sum(v ^ brute.flip(c, lam) for v in x), x)
             for x in prog.inputs.values()}
    x0 = (1, 0, 1)
    pairs = [(x0, x0[:i] + (1 - x0[i],) + x0[i + 1:]) for i in range(3)]
    pairs += [(b, a) for a, b in pairs]
    for t in (Fraction(1), Fraction(2), Fraction(3)):
        want = max(brute.hockey(dists[a], dists[b], t) for a, b in pairs)
        assert synthesize_approximate(prog, epsilon=f"ln:{t}", at=x0).delta == want
    ratio = max(Fraction(dists[a][y]) / dists[b][y] for a, b in pairs for y in dists[a])
    r = synthesize_privacy(prog, at=x0)
    assert r.ratio == ratio and x0 in (r.witness.x, r.witness.x_prime)
    orders = synthesize_renyi(prog, [2], at=x0).orders
    assert orders[0].epsilon == pytest.approx(max(brute.renyi(dists[a], dists[b], 2) for a, b in pairs), rel=1e-12)


def test_data_centric_noisy_max_is_below_global():
    prog = noisy_max(3, 2, eps0=1)
    x0 = (1, 1, 0)
    neighbours = list(all_entries(x0, 0, 2))
    glob, local = synthesize_privacy(prog), synthesize_privacy(prog, at=x0)
    assert local.epsilon <= glob.epsilon
    assert {local.witness.x, local.witness.x_prime} & {x0} and \
        ({local.witness.x, local.witness.x_prime} - {x0}) <= set(neighbours)


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_approx_command(capsys):
    data = _json(capsys, "approx", "randomized_response", "-p", "n=3", "-p", "lam=1/5", "--epsilon", "ln:3/2", "--json")
    # RR: delta(eps) = (1 - lam) - e^eps lam = 4/5 - 3/10 = 1/2
    assert data["delta_exact"] == "1/2" and data["ratio_exact"] == "3/2"
    assert data["witness"] == {"x": [0, 0, 0], "x_prime": [1, 0, 0]} and data["compose"] == 1
    data = _json(capsys, "approx", "randomized_response", "-p", "n=3", "-p", "lam=1/5", "--delta", "1e-3",
                 "--compose", "2", "--json")
    # two runs: delta(t) = 1 - 1/25 - t (4/25 + 4/25)... solved on the segment of the ratios 16 and 1
    p, q = Fraction(4, 5), Fraction(1, 5)
    t = (p * p - Fraction(1, 1000)) / (q * q)
    assert data["epsilon"] == pytest.approx(math.log(t), rel=1e-12)


def test_renyi_command(capsys):
    data = _json(capsys, "renyi", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--orders", "2,inf", "--json")
    p, q = Fraction(4, 5), Fraction(1, 5)
    assert data["orders"][0]["epsilon"] == pytest.approx(math.log(p * p / q + q * q / p), rel=1e-12)
    assert data["orders"][1]["epsilon"] == pytest.approx(math.log(4), rel=1e-15)
    assert data["zcdp_order"] == 2.0


def test_profile_command(capsys):
    assert main(["profile", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--epsilons", "0,ln:2",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [Fraction(r["delta"]) if isinstance(r["delta"], str) else r["delta"] for r in rows][0] == \
        pytest.approx(float(Fraction(3, 5)))
    assert rows[1]["delta"] == pytest.approx(float(Fraction(4, 5) - 2 * Fraction(1, 5)), rel=1e-12)


@pytest.mark.parametrize("argv, message", [
    (["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5"], "exactly one of epsilon"),
    (["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "2"], "delta"),
    (["renyi", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--orders", "1"], "orders must be > 1"),
    (["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "0.1", "--at", "0,0",
      "--sets", "auto"], "give at or explicit sets"),
])
def test_command_errors_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_sweep_approx_and_renyi(capsys):
    """One row per lambda: RR's epsilon(delta) solves (1-lam) - e^eps lam = delta; D_2 = ln((1-l)^2/l + l^2/(1-l))."""
    assert main(["sweep", "approx", "randomized_response", "-p", "n=2", "--over", "lam=1/5,1/4", "--delta", "1/1000",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    for row, lam in zip(rows, (Fraction(1, 5), Fraction(1, 4))):
        assert float(row["epsilon"]) == pytest.approx(math.log((1 - lam - Fraction(1, 1000)) / lam), rel=1e-12)
    assert main(["sweep", "renyi", "randomized_response", "-p", "n=2", "--over", "lam=1/5,1/4", "--orders", "2",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    for row, lam in zip(rows, (Fraction(1, 5), Fraction(1, 4))):
        want = math.log((1 - lam) ** 2 / lam + lam ** 2 / (1 - lam))
        assert float(row["epsilon"]) == pytest.approx(want, rel=1e-12)
