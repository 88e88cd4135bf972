"""The peers' programs with unbounded noise (``noise="unbounded"``): their declared outputs, and their brackets of
epsilon against independent enumerations with certified tails and against CheckDP's verdicts."""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction as F

import pytest

from wmcdp import WmcdpError, compile_program, inference, synthesize_approximate, synthesize_privacy, synthesize_renyi
from wmcdp.cli import main
from wmcdp.lang.unbounded import window
from wmcdp.programs import CHECKDP, PROGRAMS
from wmcdp.programs.suite import FALSE, STOPPED, TRUE, code_sequences

HALF = F(1, 2)


def at_least(k: int, a: F) -> F:
    """``P(Z >= k)`` of two-sided geometric noise of ratio ``a``, closed form."""
    return a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)


def point(z: int, a: F) -> F:
    return (1 - a) / (1 + a) * a ** abs(z)


def tail(reach: int, a: F) -> F:
    """``P(|Z| > reach)``."""
    return 2 * a ** (reach + 1) / (1 + a)


def _loop_outputs(n: int, bound: int | None) -> set[tuple[int, ...]]:
    """Every output of the sparse vector loop over every pattern of comparisons (what the noise can decide)."""
    outputs = set()
    for above in itertools.product((False, True), repeat=n):
        count, out = 0, []
        for i in range(n):
            if bound is not None and count >= bound:
                out.append(STOPPED)
            else:
                out.append(TRUE if above[i] else FALSE)
                count += above[i]
        outputs.add(tuple(out))
    return outputs


@pytest.mark.parametrize("n, bound", [(1, 1), (3, 1), (4, 2), (5, 3), (3, None), (4, 4)])
def test_code_sequences_are_the_loops_outputs(n, bound):
    listed = list(code_sequences(n, bound))
    assert len(listed) == len(set(listed))
    assert set(listed) == _loop_outputs(n, bound)


@pytest.mark.parametrize(
    "name, params",
    [
        ("svt", {"n": 3, "m": 1, "T": 1, "N": 1}),
        ("isvt3", {"n": 3, "m": 1, "T": 1, "N": 2}),
        ("isvt2", {"n": 3, "m": 1, "T": 1}),
        ("noisy_max", {"n": 3, "m": 1}),
        ("num_svt", {"n": 2, "m": 1, "T": 1, "N": 1}),
    ],
)
def test_outputs_left_out_have_probability_zero_at_a_wide_window(name, params):
    prog = PROGRAMS[name](**params, alpha=HALF, noise="unbounded")
    declared = set(prog.outputs())
    with window(8):
        compiled = compile_program(prog)
        table = inference(compiled, [(x, y) for x in prog.inputs.values() for y in declared], exact=True)
    for x in prog.inputs.values():
        assert sum(table.probability(x, y) for y in declared) == 1
    reached = {y for x in prog.inputs.values() for y in declared if table.probability(x, y) > 0}
    assert reached == declared  # every declared output occurs at this window


def _svt_table(n: int, a: F, reach: int) -> dict:
    """CheckDP SVT (N = 1, T = 1) on ``{0, 1}^n``: ``P(y | x)`` summed over threshold noise ``|t| <= reach``."""
    b, table = a**2, {}
    for x in itertools.product((0, 1), repeat=n):
        for j in range(n + 1):  # the first TRUE at query j (none: j = n)
            table[x, _codes(n, j)] = _first_true(x, j, a, b, reach)
    return table, tail(reach, b)


def _first_true(x: tuple, j: int, a: F, b: F, reach: int) -> F:
    """``P(the first TRUE is at query j)`` (none: ``j = len(x)``) for threshold ``1 + Z_b`` and answers ``x_i + Z_a``,
    summed over ``|Z_b| <= reach``."""
    p = F(0)
    for t in range(-reach, reach + 1):
        q = point(t, b)
        for i in range(min(j + 1, len(x))):
            above = at_least(1 + t - x[i], a)
            q *= above if i == j else 1 - above
        p += q
    return p


def _codes(n: int, j: int) -> tuple[int, ...]:
    return tuple(FALSE if i < j else TRUE if i == j else STOPPED for i in range(n))


def _noisy_max_table(n: int, a: F, reach: int) -> dict:
    """Noisy max's index on ``{0, 1}^n``: ``P(j | x)`` summed over the winner's noise ``|z| <= reach``."""
    table = {}
    for x in itertools.product((0, 1), repeat=n):
        for j in range(n):
            p = F(0)
            for z in range(-reach, reach + 1):
                v, q = x[j] + z, point(z, a)
                for i in range(n):
                    if i != j:  # below v before j, at most v after it (the lowest index wins ties)
                        q *= 1 - at_least(v - x[i] + (i > j), a)
                p += q
            table[x, j] = p
    return table, tail(reach, a)


def _num_svt_table(n: int, a: F, reach: int) -> dict:
    """CheckDP NumSVT (N = 1, T = 1) on ``{0, 1}^n`` as published: with its first TRUE, at query j, it releases
    ``x_j + Z`` (ratio ``a^2``) for every integer value; summed over threshold noise ``|t| <= reach``, released
    values ``|r| <= 4`` (past ``x_j in {0, 1}`` both inputs' laws of ``r`` fall by ``a^2`` per step: the ratios
    beyond repeat those at the ends)."""
    b, table = a**2, {}
    for x in itertools.product((0, 1), repeat=n):
        for j in range(n + 1):
            p, codes = _first_true(x, j, a, b, reach), _codes(n, j)
            for r in range(-4, 5) if j < n else [0]:
                y = tuple((c, r if c == TRUE else 0) for c in codes)
                table[x, y] = p * (point(r - x[j], b) if j < n else 1)
    return table, tail(reach, b)


def _brute_bracket(table: dict, slack: F) -> tuple[float, float]:
    """The true epsilon's bracket from the enumeration: every pair of distinct inputs of ``{0, 1}^n`` is a pair of
    all-entries neighbours, and each sum misses at most ``slack``."""
    xs = sorted({x for x, _ in table})
    ys = sorted({y for _, y in table})
    lo = max(table[x, y] / (table[xp, y] + slack) for x in xs for xp in xs if x != xp for y in ys)
    hi = max((table[x, y] + slack) / table[xp, y] for x in xs for xp in xs if x != xp for y in ys)
    return math.log(lo), math.log(hi)


@pytest.mark.parametrize(
    "name, params, enumerate_",
    [
        ("svt", {"n": 2, "m": 1, "T": 1, "N": 1}, _svt_table),
        ("noisy_max", {"n": 3, "m": 1}, _noisy_max_table),
        ("num_svt", {"n": 2, "m": 1, "T": 1, "N": 1}, _num_svt_table),
    ],
)
def test_bracket_contains_the_enumerated_value(name, params, enumerate_):
    table, slack = enumerate_(params["n"], HALF, 40)
    lo, hi = _brute_bracket(table, slack)
    assert hi - lo < 1e-9
    prog = PROGRAMS[name](**params, alpha=HALF, noise="unbounded")
    declared = synthesize_privacy(prog)  # exact, from its declared law
    assert declared.plan.kind == "declared" and lo - 1e-12 <= declared.epsilon <= hi + 1e-12
    i = synthesize_privacy(prog, width=1e-6).interval  # the program's own law in windows
    assert not i.reason and i.narrowed
    assert i.lo <= hi and lo <= i.hi and i.hi - i.lo <= 1e-5 * i.hi


def _benchmark(program: str):
    return next(b for b in CHECKDP if b.program == program)


@pytest.mark.parametrize(
    "program", ["svt", "noisy_max", "monotone_svt", "isvt2", "isvt3", "num_svt", "partial_sum", "bad_partial_sum"]
)
def test_checkdp_verdicts_at_n_3(program):
    """CheckDP's verdict at n = 3 with unbounded noise; the noisy sums, released with merged tails, are exact."""
    b = _benchmark(program)
    params = {**b.params, "n": 3, "alpha": HALF}
    claim = math.log(HALF ** -b.claim_power(params))
    r = synthesize_privacy(PROGRAMS[program](**params, noise="unbounded"))
    if "sum" in program:  # the release of sum(x) + Z: e^eps = a^-1 (a^-2 with half the noise), no window
        assert r.exact and r.interval is None and r.ratio == (2 if b.private else 4)
    lo, hi = (r.interval.lo, r.interval.hi) if r.interval is not None else (r.epsilon, r.epsilon)
    if b.private:
        assert hi <= claim
    else:
        assert lo > claim


def test_truncated_stays_the_default_and_unbounded_is_named():
    truncated = PROGRAMS["svt"](n=2, m=1, T=1, N=1, alpha=HALF)
    unbounded = PROGRAMS["svt"](n=2, m=1, T=1, N=1, alpha=HALF, noise="unbounded")
    assert truncated.params["margin"] == 1 and "noise" not in truncated.params
    assert unbounded.params["noise"] == "unbounded" and "margin" not in unbounded.params
    assert synthesize_privacy(truncated).exact
    with pytest.raises(WmcdpError, match="noise must be one of truncated, unbounded"):
        PROGRAMS["gap_svt"](n=2, m=1, T=1, N=1, alpha=HALF, noise="laplace")


def test_every_checkdp_program_builds_with_unbounded_noise():
    for b in CHECKDP:
        prog = PROGRAMS[b.program](**b.params, n=2, alpha=HALF, noise="unbounded")
        assert prog.params["noise"] == "unbounded"


def test_command_line(capsys):
    args = ["privacy", "svt", "-p", "n=3", "-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2"]
    assert main([*args, "-p", "noise=unbounded", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"noise": "unbounded"' in out and "Infinity" not in out
    assert main([*args, "-p", "noise=clamped"]) == 2
    err = capsys.readouterr().err.strip()
    assert "noise must be one of truncated, unbounded" in err and len(err) < 200 and "\n" not in err


def test_a_declaration_that_misses_an_output_is_refused():
    """Declared outputs must hold all of the windowed probability: leaving out one possible output of sparse
    vector (its last answer TRUE) is a wrong declaration, refused in one line naming the output."""
    prog = PROGRAMS["svt"](n=2, m=1, T=1, N=1, alpha=HALF, noise="unbounded")
    every = list(prog.outputs())
    missing = (FALSE, TRUE)
    assert missing in every
    wrong = dataclasses.replace(prog, outputs=lambda: [y for y in every if y != missing])
    with pytest.raises(WmcdpError, match="declared outputs miss the output 01, which it gives with positive probability"):
        synthesize_privacy(wrong)
    with pytest.raises(WmcdpError, match="declared outputs miss an output it gives from the input"):
        synthesize_privacy(wrong, backend="sdd")  # (every input counted on an SDD)
    assert synthesize_privacy(prog, width=1e-6).interval.hi < math.inf  # (width: in windows, not its declared law)


def test_renyi_and_epsilon_of_delta_zero_use_the_declared_outputs():
    """Sparse vector's declared outputs give D_2, D_inf and epsilon(0) finite upper ends, and the brackets contain
    the enumerated values (D_2 = max over pairs of ln sum_y P^2 / Q; D_inf and epsilon(0) are the pure epsilon)."""
    table, slack = _svt_table(2, HALF, 40)
    lo, hi = _brute_bracket(table, slack)
    xs = sorted({x for x, _ in table})
    ys = sorted({y for _, y in table})
    d2_lo = max(math.log(sum(table[x, y] ** 2 / (table[xp, y] + slack) for y in ys)) for x in xs for xp in xs if x != xp)
    d2_hi = max(
        math.log(sum((table[x, y] + slack) ** 2 / table[xp, y] for y in ys)) for x in xs for xp in xs if x != xp
    )
    prog = PROGRAMS["svt"](n=2, m=1, T=1, N=1, alpha=HALF, noise="unbounded")
    d2, dinf = synthesize_renyi(prog, orders=[2, math.inf]).intervals
    assert not d2.reason and d2.lo <= d2_hi and d2_lo <= d2.hi and d2.hi - d2.lo <= 1e-6 * d2.hi
    assert not dinf.reason and dinf.lo <= hi and lo <= dinf.hi
    e0 = synthesize_approximate(prog, delta=0).interval
    assert not e0.reason and e0.lo <= hi and lo <= e0.hi and e0.hi - e0.lo <= 1e-6 * e0.hi
