"""Unbounded noise (geometric, one-sided geometric, discrete Gaussian) and its windowed brackets, checked against
closed forms, brute-force sums with explicit tail bounds, and mpmath at 50 digits."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction as F

import mpmath
import pytest

from wmcdp import (
    Bits,
    Program,
    WmcdpError,
    compile_program,
    discrete_gaussian,
    flip,
    exhaustive_inference,
    geometric,
    inference,
    ite,
    one_sided_geometric,
    synthesize_accuracy,
    synthesize_approximate,
    synthesize_privacy,
    synthesize_renyi,
    truncated_geometric,
)
from wmcdp.base.windows import delta_bracket, ratio_bracket
from wmcdp.cli import main
from wmcdp.lang.unbounded import UnboundedDraw, gaussian_tail, window
from wmcdp.notions.windowed import windowed_probabilities, windowed_probability

HALF = F(1, 2)


def mp(q: F | int) -> mpmath.mpf:
    q = F(q)
    return mpmath.mpf(q.numerator) / q.denominator


def c(a: F) -> F:
    return (1 - a) / (1 + a)


def at_least(k: int, a: F) -> F:
    """``P(Z >= k)`` of two-sided geometric noise, closed form."""
    return a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)


def threshold(a: object = "1/2") -> Program:
    return Program("threshold", Bits(1), lambda x: geometric(x[0].as_int(), alpha=a) >= 0)


def release(a: object = "1/2") -> Program:
    return Program("release", Bits(1), lambda x: geometric(x[0].as_int(), alpha=a))


def threshold_epsilon(a: F) -> float:
    """The threshold release's ε: ``x + Z >= 0`` for x in {0, 1}, both outputs, both orders."""
    p0, p1 = at_least(0, a), at_least(-1, a)
    return max(math.log(p1 / p0), math.log((1 - p0) / (1 - p1)))


@pytest.mark.parametrize("width", [1e-6, 1e-9])
def test_threshold_of_the_geometric_mechanism(width):
    r = synthesize_privacy(threshold(), width=width)
    i, true = r.interval, threshold_epsilon(HALF)
    assert i.lo <= true <= i.hi and i.narrowed and not i.reason
    assert i.hi - i.lo <= width * i.hi
    assert i.tail == 2 * HALF ** (i.half_width + 1) / (1 + HALF) and i.draws == 1
    assert not r.exact and r.interval.of == "epsilon"


def test_a_program_with_unbounded_noise_always_runs_in_windows():
    r = synthesize_privacy(threshold())
    assert r.interval is not None and r.interval.half_width >= 2
    with pytest.raises(UnboundedDraw, match="only pure epsilon, .epsilon, delta., Renyi and accuracy"):
        compile_program(threshold())
    with pytest.raises(WmcdpError, match="range grows with the window"):
        synthesize_renyi(release(), [2])


@pytest.mark.parametrize("alpha", [0, 2, 5])
def test_accuracy_of_the_geometric_mechanism(alpha):
    """``1 - beta = P(|Z| <= alpha) = 1 - 2 a^(alpha + 1) / (1 + a)`` on every input."""
    prog = Program("release", Bits(2), lambda x: geometric(x[0] + x[1], alpha="1/3"), target=lambda x: x[0] + x[1])
    r = synthesize_accuracy(prog, alpha=alpha, width=1e-9)
    true = 1 - 2 * F(1, 3) ** (alpha + 1) / F(4, 3)
    assert r.interval.lo <= true <= r.interval.hi and r.interval.hi - r.interval.lo <= 1e-9


def _release_delta(eps: float, a: F, reach: int) -> tuple[F, F]:
    """δ(ε) of releasing ``x + Z`` for x in {0, 1}, summed over ``|z| <= reach`` with the mass beyond as slack
    (each term of the hockey-stick sum is at most ``P(y | x)``)."""
    e = F(math.exp(eps))
    total = F(0)
    for y in range(-reach, reach + 2):
        total += max(F(0), c(a) * a ** abs(y) - e * c(a) * a ** abs(y - 1))
    return total, total + 2 * a ** (reach - 1) / (1 + a)


def test_delta_of_an_unbounded_release_is_bracketed():
    r = synthesize_approximate(release(), epsilon=0.5)
    low, high = _release_delta(0.5, HALF, 120)
    assert r.interval.lo <= high and low <= r.interval.hi
    assert r.interval.hi - r.interval.lo <= 1e-6 * r.interval.hi
    with pytest.raises(WmcdpError, match="range grows with the window"):
        synthesize_privacy(release())
    with pytest.raises(WmcdpError, match="give exactly one of epsilon"):
        synthesize_approximate(release(), epsilon=0.5, delta=0.1)


def _reports(n: int, a: object) -> Program:
    return Program("rr", Bits(n), lambda x: tuple(geometric(b.as_int(), alpha=a) >= 1 for b in x))


@pytest.mark.parametrize("n", [2, 3])
def test_randomized_response_like_reports(n):
    """Each bit released as ``x_i + Z_i >= 1``: ε = ln(1/a) under hamming, with a finite proved upper end (every
    output is reached from every input)."""
    r = synthesize_privacy(_reports(n, "1/3"))
    assert r.interval.lo <= math.log(3) <= r.interval.hi and r.interval.hi < math.inf


def _svt(n: int, a: object) -> Program:
    """Sparse vector with N = 1: the first query whose noisy value reaches the noisy threshold 0 answers True."""

    def body(x):
        noisy_threshold = geometric(0, alpha=a)
        done, out = False, []
        for b in x:
            above = ite(done, False, geometric(b.as_int(), alpha=a) >= noisy_threshold)
            out.append(above)
            done = done | above
        return tuple(out)

    return Program("svt", Bits(n), body)


def _svt_table(n: int, a: F, reach: int) -> dict:
    """``P(y | x)`` of :func:`_svt` summed over thresholds ``|t| <= reach`` (the mass beyond is the slack)."""
    table = {}
    for code in range(2**n):
        x = tuple((code >> (n - 1 - i)) & 1 for i in range(n))
        for j in range(n + 1):  # the first True at query j (none: j = n)
            p = F(0)
            for t in range(-reach, reach + 1):
                q = c(a) * a ** abs(t)
                for i in range(min(j + 1, n)):
                    above = at_least(t - x[i], a)
                    q *= above if i == j else 1 - above
                p += q
            table[x, tuple(int(i == j) for i in range(n))] = p
    return table


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sparse_vector_brackets_an_independent_sum(n):
    a, reach = F(1, 4), 12
    slack = 2 * a ** (reach + 1) / (1 + a)
    table = _svt_table(n, a, reach)
    prog = _svt(n, a)
    r = synthesize_privacy(prog, width=1e-2, plan="exhaustive")
    brute_low = max(
        table[x, y] / (table[xp, y] + slack)
        for (x, y) in table
        for xp in {x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(n)}
    )
    assert math.log(brute_low) - 1e-12 <= r.interval.hi
    assert r.interval.lo <= math.log(max(
        (table[x, y] + slack) / table[xp, y]
        for (x, y) in table
        for xp in {x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(n)}
    ))
    assert r.interval.lo <= 3 * math.log(4)  # the claim: ε_threshold + 2 ε_query
    assert r.interval.hi == math.inf and "not reached" in r.interval.reason  # two Trues are impossible
    d = synthesize_approximate(prog, epsilon="ln:2", width=1e-2, plan="exhaustive")
    e = F(2)
    pairs = [(x, x[:i] + (1 - x[i],) + x[i + 1 :]) for x, _ in table for i in range(n)]
    ys = [tuple(int(i == j) for i in range(n)) for j in range(n + 1)]
    brute = max(sum(max(F(0), table[x, y] - e * table[xp, y]) for y in ys) for x, xp in pairs)
    assert d.interval.lo <= brute + slack and brute - e * slack <= d.interval.hi


def _truncated_svt(n: int, a: F, margin: int) -> Program:
    def body(x):
        noisy_threshold = truncated_geometric(0, -margin, margin, alpha=a)
        done, out = False, []
        for b in x:
            above = ite(done, False, truncated_geometric(b.as_int(), -margin, 1 + margin, alpha=a) >= noisy_threshold)
            out.append(above)
            done = done | above
        return tuple(out)

    return Program("tsvt", Bits(n), body)


def test_the_truncated_mechanism_converges_into_the_bracket():
    """Clamping a draw to ``M`` around its center changes the output only when its noise leaves ``[-M, M]``, so the
    truncated mechanism is within ``u = k t_M`` of the unbounded one in total variation: its δ(ε) within
    ``(1 + e^ε) u`` and, with ``m`` its smallest output probability, its ratios within a factor ``(1 + u/m)/(1 - u/m)``.
    """
    a, n, eps = HALF, 1, "ln:3/2"
    prog = _svt(n, "1/2")
    pure = synthesize_privacy(prog, width=1e-4).interval
    d = synthesize_approximate(prog, epsilon=eps, width=1e-4).interval
    assert pure.hi < math.inf and d.lo > 0
    for margin in range(1, 13):
        compiled = compile_program(_truncated_svt(n, a, margin))
        u = (n + 1) * 2 * a ** (margin + 1) / (1 + a)
        delta = synthesize_approximate(compiled, epsilon=eps).delta
        assert d.lo - (1 + F(3, 2)) * u <= delta <= d.hi + (1 + F(3, 2)) * u
        table = inference(compiled, exhaustive_inference(compiled.domain, compiled.shape), exact=True)
        smallest = min(p for _, _, p in table.items())
        epsilon = synthesize_privacy(compiled).epsilon
        if u < smallest:  # (at the smallest margins the perturbation bound says nothing)
            spread = math.log((1 + u / smallest) / (1 - u / smallest))
            assert pure.lo - spread <= epsilon <= pure.hi + spread
    assert abs(epsilon - pure.lo) < 1e-3 and abs(float(delta) - d.lo) < 1e-3  # margin 12: close


def test_discrete_gaussian_threshold_against_mpmath():
    prog = Program("dg", Bits(1), lambda x: discrete_gaussian(x[0].as_int(), 2) >= 1)
    mpmath.mp.dps = 50
    weight = [mpmath.exp(-mpmath.mpf(z * z) / 4) for z in range(-60, 61)]
    exact = sum(weight[61:]) / sum(weight)  # P(Z >= 1); the terms past 60 are below e^-900
    b = windowed_probability(prog, (0,), 1, width=1e-9)
    assert b.lo <= exact <= b.hi and b.hi - b.lo <= 1e-9 * b.hi and b.narrowed


@pytest.mark.parametrize("sigma2", [F(1, 1000), 50])
def test_discrete_gaussian_tiny_and_large_variances(sigma2):
    prog = Program("dg", Bits(1), lambda x: discrete_gaussian(x[0].as_int(), sigma2) >= 1)
    mpmath.mp.dps = 50
    reach = 400
    weight = [mpmath.exp(-mpmath.mpf(z * z) / (2 * mp(sigma2))) for z in range(-reach, reach + 1)]
    exact = sum(weight[reach + 1 :]) / sum(weight)
    b = windowed_probability(prog, (0,), 1)
    assert b.lo <= exact <= b.hi and b.narrowed


def test_gaussian_tail_bound_is_an_upper_bound():
    mpmath.mp.dps = 50
    for sigma2, w in [(F(2), 3), (F(9), 10), (F(1, 3), 1)]:
        tail = gaussian_tail(sigma2, w)
        terms = [mpmath.exp(-mpmath.mpf(z * z) / (2 * mp(sigma2))) for z in range(-300, 301)]
        true = sum(t for z, t in zip(range(-300, 301), terms) if abs(z) > w) / sum(terms)
        assert true <= tail <= 4 * true


def test_ratio_near_zero_and_near_one():
    tiny = synthesize_privacy(threshold(F(1, 10**6)))
    assert tiny.interval.lo <= threshold_epsilon(F(1, 10**6)) <= tiny.interval.hi
    assert tiny.interval.half_width == 2  # the first window's tail is already below the width
    near_one = windowed_probability(threshold(F(99, 100)), (0,), 1, max_half_width=16)
    assert not near_one.narrowed and "window limit" in near_one.text()
    assert near_one.lo <= at_least(0, F(99, 100)) <= near_one.hi


def test_one_sided_geometric_and_scale():
    prog = Program("one", Bits(1), lambda x: one_sided_geometric(x[0].as_int(), alpha="1/2") >= 2)
    b = windowed_probability(prog, (0,), 1)
    assert b.lo <= F(1, 4) <= b.hi  # P(K >= 2) = a^2
    scaled = Program("s", Bits(1), lambda x: geometric(x[0].as_int(), scale=2) >= 0)
    a = F(math.exp(-1 / 2))
    r = synthesize_privacy(scaled)
    assert r.interval.lo <= threshold_epsilon(a) <= r.interval.hi


def test_sampling_draws_the_unbounded_law():
    prog = Program("g", Bits(1), lambda x: geometric(x[0].as_int(), alpha="1/2"))
    rng = random.Random(7)
    draws = [prog.run((1,), rng) for _ in range(4000)]
    assert abs(sum(d == 1 for d in draws) / 4000 - 1 / 3) < 0.03
    assert max(abs(d - 1) for d in draws) > 3  # no clamp
    gauss = Program("dg", Bits(1), lambda x: discrete_gaussian(x[0].as_int(), 4))
    values = [gauss.run((0,), rng) for _ in range(3000)]
    assert abs(sum(v * v for v in values) / 3000 - 4) < 0.5


def test_the_bracket_formulas_against_a_two_point_example():
    """δ and the ratio of a windowed law mixed with an arbitrary law on the outside, enumerated."""
    tail = F(1, 10)
    pw, pw_prime = {0: F(3, 4), 1: F(1, 4)}, {0: F(1, 2), 1: F(1, 2)}
    e = F(3, 2)
    dw = sum(max(F(0), pw[y] - e * pw_prime[y]) for y in pw)
    lo, hi = delta_bracket(dw, dw, tail, e)
    rw = max(pw[y] / pw_prime[y] for y in pw)
    r_lo, r_hi = ratio_bracket(pw[0], pw_prime[0], rw, min(min(pw.values()), min(pw_prime.values())), F(0), tail)
    for outside in ({0: F(1), 1: F(0)}, {0: F(0), 1: F(1)}, {0: F(1, 2), 1: F(1, 2)}):
        for outside_prime in ({0: F(1), 1: F(0)}, {0: F(0), 1: F(1)}):
            p = {y: (1 - tail) * pw[y] + tail * outside[y] for y in pw}
            q = {y: (1 - tail) * pw_prime[y] + tail * outside_prime[y] for y in pw}
            assert lo <= sum(max(F(0), p[y] - e * q[y]) for y in p) <= hi
            assert max(p[y] / q[y] for y in p) <= r_hi
            assert r_lo <= p[0] / q[0]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda x: geometric(x[0].as_int(), alpha=0), "alpha must be in"),
        (lambda x: geometric(x[0].as_int(), alpha=1), "alpha must be in"),
        (lambda x: geometric(x[0].as_int(), alpha="1/2", scale=1), "exactly one of alpha"),
        (lambda x: one_sided_geometric(x[0].as_int(), scale=-1), "scale must be > 0"),
        (lambda x: discrete_gaussian(x[0].as_int(), 0), "sigma2 > 0"),
        (lambda x: discrete_gaussian(x[0].as_int(), -1), "sigma2 > 0"),
        (lambda x: geometric(x, alpha="1/2"), "center"),
    ],
)
def test_bad_parameters_are_one_line(make, message):
    with pytest.raises(WmcdpError, match=message) as info:
        synthesize_privacy(Program("bad", Bits(1), make))
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_bad_width():
    with pytest.raises(WmcdpError, match="width must be"):
        synthesize_privacy(threshold(), width=2)


def test_a_window_of_a_program_without_unbounded_noise_is_exact():
    prog = Program("flip", Bits(1), lambda x: ite(x[0], geometric(0, alpha="1/3") >= 0, False))
    with window(4) as w:
        compile_program(prog, exact_floats=True)
    assert w.draws == 1 and w.tail() == 2 * F(1, 3) ** 5 / F(4, 3)


def test_command_line(capsys, tmp_path):
    path = tmp_path / "noise.py"
    path.write_text(
        "from wmcdp import Bits, Program, geometric\n"
        "def threshold():\n"
        "    return Program('t', Bits(1), lambda x: geometric(x[0].as_int(), alpha='1/2') >= 0)\n"
        "def release():\n"
        "    return Program('r', Bits(1), lambda x: geometric(x[0].as_int(), alpha='1/2'))\n"
    )
    assert main(["privacy", f"{path}:threshold", "--width", "1e-9", "--json"]) == 0
    lo, hi = json.loads(capsys.readouterr().out)["epsilon_interval"]
    assert lo <= math.log(2) <= hi and hi - lo <= 1e-9
    assert main(["approx", f"{path}:release", "--epsilon", "0.5"]) == 0
    assert "windows of half-width" in capsys.readouterr().out
    assert main(["accuracy", f"{path}:release", "--alpha", "1", "--sets", "exhaustive"]) == 2
    assert "target" in capsys.readouterr().err
    assert main(["privacy", f"{path}:release"]) == 2
    err = capsys.readouterr().err.strip()
    assert "range grows with the window" in err and "\n" not in err


def test_width_on_a_program_without_unbounded_noise_gives_its_exact_answer():
    rr = Program("rr", Bits(2), lambda x: tuple(b ^ flip("1/4") for b in x))
    i = synthesize_privacy(rr, width=1e-6).interval
    assert i.lo <= math.log(3) <= i.hi and i.draws == 0 and i.tail == 0


@pytest.mark.parametrize("n", [2, 3])
def test_sparse_vector_over_its_possible_outputs_has_a_finite_upper_end(n):
    """Explicit triples over the outputs sparse vector can give (at most one True): every one is reached, so the
    upper end is finite; the bracket holds the brute-force ε over the same triples and stays within 3 ε_query."""
    a, reach = F(1, 4), 12
    slack = 2 * a ** (reach + 1) / (1 + a)
    table = _svt_table(n, a, reach)
    triples = [(x, x[:i] + (1 - x[i],) + x[i + 1 :], y) for (x, y) in table for i in range(n)]
    rows = sorted({(z, y) for x, xp, y in triples for z in (x, xp)})
    r = synthesize_privacy(_svt(n, a), triples, rows, width=1e-6).interval
    low = max(table[x, y] / (table[xp, y] + slack) for x, xp, y in triples)
    high = max((table[x, y] + slack) / table[xp, y] for x, xp, y in triples)
    assert r.lo <= math.log(high) and math.log(low) <= r.hi < 3 * math.log(4)
    assert r.hi - r.lo <= 1e-6 * r.hi and not r.reason


def test_an_exact_infinite_epsilon_stops_at_the_first_window():
    leak = Program("leak", Bits(1), lambda x: x[0] | flip("1/2"))
    i = synthesize_privacy(leak, width=1e-6).interval
    assert i.lo == i.hi == math.inf and i.half_width == 2 and i.narrowed


def test_several_probabilities_bracketed_in_one_run_per_window():
    """``x + Z >= 0`` at x = 1 with a = 1/2: ``P(True) = 1 - a^2 / (1 + a) = 5/6`` and ``P(False) = 1/6``. One
    windowed run brackets both, each holding its closed form, each as narrow as the bracket of that output alone."""
    prog, ys = threshold(), [True, False]
    both = windowed_probabilities(prog, (1,), ys, width=1e-9)
    for y, b, true in zip(ys, both, [F(5, 6), F(1, 6)]):
        alone = windowed_probability(prog, (1,), y, width=1e-9)
        assert b.lo <= true <= b.hi and b.narrowed and b.hi - b.lo <= 1e-9 * b.hi
        assert b.half_width >= alone.half_width and b.hi - b.lo <= alone.hi - alone.lo
    assert windowed_probabilities(prog, (1,), []) == []


def _window_run(half_width, tail):
    from wmcdp.notions.windowed import WindowRun

    return WindowRun(None, None, half_width, tail(half_width), F(0), 1, tail)


def test_the_next_window_is_predicted_from_the_brackets_formula():
    """Out of the proportional regime (lower end 0), the next window is the smallest whose tail mass, times the
    margin, the bracket's formula at this window's values calls narrow; with no formula, or one that no window
    narrows, the window doubles or quadruples as before; in the proportional regime it grows at least an eighth."""
    from wmcdp.base.windows import narrow_to
    from wmcdp.notions.windowed import LINEAR_TAIL, PREDICTION_MARGIN, _next_half_width

    def tail(W):
        return F(1, 2) ** (W + 1)

    def at(T):  # a bracket about 4 wide per unit of T around 2, as a ratio bracket is
        return max(0.0, 2 - 4 * float(T)), 2 + 4 * float(T), "", 2 + 4 * float(T)

    current = _window_run(8, tail)
    assert current.tail <= LINEAR_TAIL
    chosen = _next_half_width(current, 0.0, 3.5, 1e-7, 4096, at)
    assert narrow_to(*at(tail(chosen) * PREDICTION_MARGIN)[::3], 1e-7)
    assert not narrow_to(*at(tail(chosen - 1) * PREDICTION_MARGIN)[::3], 1e-7)
    assert chosen > 2 * 2 * 8 - 10  # (past what a doubling would give)
    assert _next_half_width(current, 0.0, 3.5, 1e-7, 4096) in (16, 32)
    never = lambda T: (0.0, 3.5, "", 3.5)  # noqa: E731
    assert _next_half_width(current, 0.0, 3.5, 1e-7, 4096, never) in (16, 32)
    wide = _window_run(2, lambda W: F(1, 2) if W == 2 else tail(W))  # above LINEAR_TAIL: no prediction
    assert _next_half_width(wide, 0.0, 3.5, 1e-7, 4096, at) in (4, 8)
    proportional = _window_run(32, tail)  # the lower end above 0: the tails' empirical prediction
    grown = _next_half_width(proportional, 1.9999, 2.0001, 1e-4, 4096, at)
    assert grown >= 32 + 32 // 8
