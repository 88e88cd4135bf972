"""DP-Sniper's and StatDP's benchmark programs (programs/peers.py) against brute force and the literature's verdicts.

The new programs are written a second time below in plain Python, straight from DP-Sniper's and StatDP's
Python sources (``eth-sri/dp-sniper`` ``dpsniper/mechanisms/*.py``, ``cmla-psu/statdp`` ``statdp/algorithms.py``)
with Laplace noise replaced by truncated geometric noise and exponential noise by one-sided geometric noise
(closed forms here, not wmcdp's); ``tests/brute.py`` enumerates every noise value.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import brute
import pytest
from test_geometric import all_entries, check_against, one_entry
from test_peers_programs import FALSE, STOPPED, TRUE, noise, svt_loop

from wmcdp import synthesize_privacy
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.programs import ORIGINS, PEERS, PROGRAMS
from wmcdp.programs.peers import bloom_bits, murmur3_32, rappor_claim

A = Fraction(1, 2)


def one_sided_pmf(q: int, hi: int, a) -> dict:
    """``min(q + G, hi)`` with ``P(G = g) = (1 - a) a^g``: the tail ``sum_{g >= hi - q} (1-a) a^g = a^(hi-q)`` at hi."""
    pmf = {z: (1 - a) * a ** (z - q) for z in range(q, hi)}
    pmf[hi] = a ** (hi - q)
    return pmf


def exponential_max_loop(m, margin, a, report_value):
    """StatDP noisy_max_v2a / v2b: argmax (lowest index on ties) or max of the one-sided noisy answers."""

    def run(x, choose):
        values = [choose(one_sided_pmf(q, m + margin, a)) for q in x]
        best = max(range(len(x)), key=lambda i: (values[i], -i))
        return values[best] if report_value else best

    return run


def resampled_svt_loop(m, margin, T, N, a):
    """DP-Sniper SparseVectorTechnique2: threshold Lap(2N/eps) (ratio a^2) redrawn after each TRUE; queries a."""
    lo, hi = -margin, m + margin

    def run(x, choose):
        threshold = noise(choose, T, lo, hi, a**2)
        out, count = [], 0
        for q in x:
            if count == N:
                out.append(STOPPED)
                continue
            if noise(choose, q, lo, hi, a) >= threshold:
                out.append(TRUE)
                count += 1
                threshold = noise(choose, T, lo, hi, a**2)
            else:
                out.append(FALSE)
        return tuple(out)

    return run


def parallel_loop(n, m, margin, a):
    return lambda x, choose: tuple(noise(choose, x[0], -margin, m + margin, a) for _ in range(n))


def svt34_loop(m, margin, T, N, a):
    """SVT34Parallel: Lyu's Alg. 3 (query a^2, threshold a^(2N), releases the noisy answer) beside Alg. 4
    (threshold a^N, query a^(3N)); the reference releases Alg. 3's answers as (code, value)."""
    three = svt_loop(m, margin, T, N, a ** (2 * N), a**2, "value")
    four = svt_loop(m, margin, T, N, a**N, a ** (3 * N), None)
    return lambda x, choose: (three(x, choose), four(x, choose))


def rappor_loop(filters: dict, size: int, f, p=None, q=None):
    """RAPPOR steps 1-3 (one-time RAPPOR: steps 1-2) on the Bloom filter ``filters[v]`` of ``size`` bits."""

    def run(x, choose):
        out = []
        for j in range(size):
            b = brute.flip(choose, 1 - f / 2 if j in filters[x[0]] else f / 2)
            out.append(b if p is None else brute.flip(choose, q if b else p))
        return tuple(out)

    return run


def hamming(x, lo, hi):
    return ((v,) for v in range(lo, hi + 1) if v != x[0])


# program name -> (parameters, reference, neighbours); RAPPOR's filters have n + 3 bits and 2 hashes of 0..2
def cases(n: int) -> dict:
    m, margin, T, N = 1, 1, 1, 1
    svt = {"n": n, "m": m, "T": T, "N": N, "alpha": A}
    bits = n + 3
    filters = {v: bloom_bits(v, 2, bits) for v in range(0, 3)}
    return {
        "noisy_max_exponential": ({"n": n, "m": m, "alpha": A}, exponential_max_loop(m, margin, A, False), all_entries),
        "noisy_max_exponential_value": (
            {"n": n, "m": m, "alpha": A},
            exponential_max_loop(m, margin, A, True),
            all_entries,
        ),
        "svt_resampled": (svt, resampled_svt_loop(m, margin, T, N, A), all_entries),
        "svt34_parallel": (svt, svt34_loop(m, margin, T, N, A), all_entries),
        "geometric_parallel": ({"n": n, "m": 2, "alpha": A}, parallel_loop(n, 2, margin, A), one_entry),
        "one_time_rappor": (
            {"n": bits, "h": 2, "lo": 0, "hi": 2},
            rappor_loop(filters, bits, Fraction(19, 20)),
            hamming,
        ),
        "rappor": ({"n": bits, "h": 2, "lo": 0, "hi": 2}, rappor_loop(filters, bits, Fraction(3, 4), *_PQ), hamming),
    }


_PQ = (Fraction(9, 20), Fraction(11, 20))
NEW = ["noisy_max_exponential", "noisy_max_exponential_value", "svt_resampled", "svt34_parallel"]
NEW += ["geometric_parallel", "one_time_rappor", "rappor"]


def _run(name: str, n: int):
    params, reference, relation = cases(n)[name]
    prog = PROGRAMS[name](**params)
    lo, hi = prog.inputs.lo, prog.inputs.hi
    inputs = list(itertools.product(range(lo, hi + 1), repeat=prog.inputs.n))
    return prog, reference, (lambda x: relation(x, lo, hi)), inputs


@pytest.mark.parametrize("name, n", [(name, n) for name in NEW for n in (2, 3) if (name, n) != ("svt34_parallel", 3)])
def test_exact_epsilon_equals_brute_force(name, n):
    prog, reference, neighbours, inputs = _run(name, n)
    got = synthesize_privacy(prog).ratio
    assert got == brute.tight_ratio(reference, inputs, neighbours)
    assert isinstance(got, Fraction) or got == math.inf


@pytest.mark.parametrize("name", NEW)
def test_every_probability_equals_brute_force(name):
    prog, reference, neighbours, _ = _run(name, 2)
    check_against(prog, lambda x: brute.distribution(reference, x), neighbours, backend="bdd", exact=True)


def test_one_sided_noise_sums_to_one_and_matches_its_closed_form():
    from wmcdp.programs.suite import one_sided_geometric

    for q in range(4):
        got = one_sided_geometric(q, 4, A)
        assert got == one_sided_pmf(q, 4, A) and sum(got.values()) == 1
        logs = one_sided_geometric(q, 4, 0.5)
        assert all(math.isclose(logs[z], float(p)) for z, p in got.items())


def test_murmur3_matches_the_published_values():
    """MurmurHash3 x86_32 reference vectors (SMHasher) and the mmh3 package's README (hash('foo'))."""
    assert murmur3_32(b"", 0) == 0
    assert murmur3_32(b"", 1) % 2**32 == 0x514E28B7
    assert murmur3_32(b"hello", 0) == 0x248BFA47
    assert murmur3_32(b"Hello, world!", 1234) % 2**32 == 0xFAF6CDB3
    assert murmur3_32(b"foo") == -156908512


def test_rappor_epsilon_is_the_largest_bloom_difference_times_one_bit():
    """Closed form: the bits are independent given the value, so e^eps = r^d with r the one-bit ratio and d the
    largest symmetric difference of two values' Bloom filters. DP-Sniper's filters (20 bits, 4 hashes of -10..10)
    reach d = 2h = 8, the claim; a 10-bit filter of -2..2 is small enough to run."""
    values = range(-10, 11)
    filters = {v: bloom_bits(v, 4, 20) for v in values}
    assert max(len(filters[v] ^ filters[w]) for v in values for w in values) == 8
    r = (1 - Fraction(19, 40)) / Fraction(19, 40)
    assert r**8 == rappor_claim(4, Fraction(19, 20))
    small = {v: bloom_bits(v, 4, 10) for v in range(-2, 3)}
    d = max(len(small[v] ^ small[w]) for v in small for w in small)
    assert synthesize_privacy(PROGRAMS["one_time_rappor"](n=10, lo=-2, hi=2)).ratio == r**d


# the literature's verdicts at small n ------------------------------------------------------------------


def _exact_and_claim(peer, size: int):
    params = {**peer.params, peer.size: size}
    if peer.program in ("rappor", "one_time_rappor"):
        params = {**{k: v for k, v in peer.params.items() if k in ("h", "f", "p", "q")}, "n": 6, "lo": 0, "hi": 2}
    return synthesize_privacy(PROGRAMS[peer.program](**params)).ratio, peer.claim(params)


#: correct programs whose discrete analogue breaks the claim at small n (docs/peers.md explains each)
BROKEN_BY_DISCRETE_NOISE = {"ReportNoisyMax2"}


@pytest.mark.parametrize("peer", PEERS, ids=lambda p: f"{p.tool}-{p.name}")
def test_verdict_agrees_with_the_literature(peer):
    """Correct programs stay within their claim at n = 2, 3 (m = 5 for the one-count ones); incorrect ones exceed it."""
    sizes = (5,) if peer.size == "m" else (2, 3)
    results = [_exact_and_claim(peer, size) for size in sizes]
    if peer.private and peer.name not in BROKEN_BY_DISCRETE_NOISE:
        assert all(exact <= claim for exact, claim in results)
    else:
        assert any(exact > claim for exact, claim in results)


def test_clamped_one_sided_noise_breaks_noisy_max_and_a_wider_margin_mends_it():
    """ReportNoisyMax2 with one-sided geometric noise: clamping the noisy values at m + margin piles the tail onto
    one value, where ties go to the lowest index; the excess shrinks towards the claim (4) as the margin grows."""
    ratios = [
        synthesize_privacy(PROGRAMS["noisy_max_exponential"](n=2, m=1, alpha=A, margin=k)).ratio for k in (1, 3, 6)
    ]
    assert ratios == [5, Fraction(85, 21), Fraction(5461, 1365)]
    assert all(r > 4 for r in ratios) and ratios[2] - 4 < Fraction(1, 1000)


def test_the_peers_own_mechanism_is_run_where_it_is_discrete():
    """DP-Sniper's TruncatedGeometric is Balcer and Vadhan's GeoSample at eps = 0.1: ratio 8/9 on {0..5}; its exact
    eps is ln(9/8), which DP-Sniper's lower bound 0.1156 approaches from below."""
    peer = next(p for p in PEERS if p.name == "TruncatedGeometric")
    exact, claim = _exact_and_claim(peer, 5)
    assert exact == claim == Fraction(9, 8)
    assert peer.published is not None and peer.published.dp_sniper < math.log(9 / 8)


def test_every_peer_program_is_a_builtin_with_its_origin():
    assert len([p for p in PEERS if p.tool == "DP-Sniper"]) == 20
    for peer in PEERS:
        tool = "DP-Sniper" if peer.tool == "DP-Sniper" else "StatDP"
        assert peer.program in PROGRAMS and tool in ORIGINS[peer.program]
    for name in ("noisy_max", "isvt2", "isvt3", "isvt4", "histogram", "noisy_max_exponential"):
        assert "cmla-psu/statdp statdp/algorithms.py" in ORIGINS[name]


def test_cli_lists_the_new_programs_with_their_origin(capsys):
    assert main(["programs"]) == 0
    out = capsys.readouterr().out
    assert "origin: DP-Sniper (Bichsel et al., S&P 2021), eth-sri/dp-sniper dpsniper/mechanisms/parallel.py" in out
    assert "rappor(n=20, h=4, f=3/4, p=9/20, q=11/20, lo=-10, hi=10)" in out


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: PROGRAMS["rappor"](n=4, p=2), "p must be a probability"),
        (lambda: PROGRAMS["one_time_rappor"](n=4, lo=3, hi=3), "lo < hi"),
        (lambda: PROGRAMS["geometric_parallel"](n=0, m=1, alpha=A), "n"),
    ],
)
def test_parameter_validation(call, message):
    with pytest.raises(WmcdpError, match=message):
        call()


def test_a_fresh_threshold_matters_only_after_a_true_that_does_not_stop_the_loop():
    """docs/peers.md: with N = 1 the loop stops at the first TRUE, so SVT2 equals SVT1; with N = 2 it does not."""
    one, two = ({"n": 4, "m": 1, "T": 1, "N": k, "alpha": A} for k in (1, 2))
    assert (
        synthesize_privacy(PROGRAMS["svt_resampled"](**one)).ratio == synthesize_privacy(PROGRAMS["svt"](**one)).ratio
    )
    assert (
        synthesize_privacy(PROGRAMS["svt_resampled"](**two)).ratio != synthesize_privacy(PROGRAMS["svt"](**two)).ratio
    )
