"""No silent infinity past e^709: (ε, δ) in log space, subnormal parameters, numbers outside the float
range in the output, and the dp-accounting accountant's limits.

References are the definitions applied to distributions enumerated independently of wmcdp
(:func:`brute.distribution`) with exact Fractions, or closed forms.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import brute
from wmcdp import Bits, Program, WmcdpError, flip, synthesize_privacy
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.cli import main
from wmcdp.base.numbers import log_text, scientific_text
from wmcdp.notions.renyi import synthesize_renyi


def tiny(p):
    """``x ^ (flip(p) & flip(p))``: the output differs from the input with probability p^2."""
    return Program("tiny", Bits(1), lambda x: x[0] ^ (flip(p) & flip(p)))


def tiny_dists(p):
    ref = lambda x, c: x[0] ^ (brute.flip(c, p) & brute.flip(c, p))  # noqa: E731
    return {x: brute.distribution(ref, x) for x in [(0,), (1,)]}


def neighbours(x):
    return [(1 - x[0],)]


@pytest.mark.parametrize("delta", [Fraction(1, 2), Fraction(1, 10), Fraction(9, 10)])
def test_epsilon_for_delta_past_e709_is_finite(delta):
    """ε(δ) = ln((1 - δ)/1e-400) ≈ 920: float mode works in logs, exact mode in rationals."""
    dists = tiny_dists(Fraction(1, 10 ** 200))
    ratio, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.ratio_for_delta(p, q, delta))
    truth = math.log(ratio.numerator) - math.log(ratio.denominator)
    assert 900 < truth < 925
    fl = synthesize_approximate(tiny(1e-200), delta=float(delta))
    assert math.isclose(fl.epsilon, truth, rel_tol=1e-12)
    ex = synthesize_approximate(tiny(Fraction(1, 10 ** 200)), delta=delta)
    assert ex.ratio == ratio and math.isclose(ex.epsilon, truth, rel_tol=1e-15)


def test_edge_values_of_delta():
    """δ = 1 gives ε = 0; δ = 0 the pure ε; δ at or above the mass at +∞ a finite ε (float and exact)."""
    prog = Program("and", Bits(1), lambda x: x[0] & flip(Fraction(1, 3)))   # P(1 | 0) = 0: mass 1/3 at +inf
    for exact in (True, False):
        p = prog if exact else Program("and", Bits(1), lambda x: x[0] & flip(1 / 3))
        assert synthesize_approximate(p, delta=1).epsilon == 0
        assert synthesize_approximate(p, delta=0).epsilon == math.inf == synthesize_privacy(p).epsilon
        at = synthesize_approximate(p, delta=Fraction(1, 3) if exact else 1 / 3)
        below = synthesize_approximate(p, delta=Fraction(1, 4) if exact else 0.25)
        assert math.isfinite(at.epsilon) and below.epsilon == math.inf
        # truth: the pair (1, 0): delta(t) = 1/3 + max(0, 2/3 - t) -> epsilon(1/3) = ln(2/3)... but >= 0
        assert at.epsilon == 0


def test_probabilities_outside_the_float_range_are_written_out(capsys):
    """1e-400 is written as "1e-400" (float mode, from its log) and as the fraction (exact mode), never 0.0."""
    import sys
    import types

    module = types.ModuleType("tinyprog")
    module.tiny = lambda: tiny(1e-200)
    module.exact = lambda: tiny(Fraction(1, 10 ** 200))
    sys.modules["tinyprog"] = module
    r = synthesize_privacy(tiny(1e-200))
    assert r.p_x_prime == 0.0 and math.isclose(r.log_p_x_prime, -400 * math.log(10), rel_tol=1e-12)
    assert log_text(r.log_p_x_prime) == "1e-400" and log_text(r.epsilon) == "1e400"
    assert scientific_text(Fraction(1, 10 ** 600)) == "1e-600"


def test_cli_writes_tiny_probabilities(tmp_path, capsys):
    f = tmp_path / "tiny.py"
    f.write_text("from wmcdp import Bits, Program, flip\n"
                 "def tiny():\n    return Program('tiny', Bits(1), lambda x: x[0] ^ (flip(1e-200) & flip(1e-200)))\n")
    assert main(["privacy", f"{f}:tiny", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["p_y_given_x_prime"] == "1e-400" and data["ratio"] == "1e400"
    assert math.isclose(data["epsilon"], 400 * math.log(10), rel_tol=1e-12)
    assert main(["approx", f"{f}:tiny", "--delta", "0.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert math.isclose(data["epsilon"], math.log(0.5e400) if False else 400 * math.log(10) + math.log(0.5),
                        rel_tol=1e-12)


def test_subnormal_parameters_are_refused():
    with pytest.raises(WmcdpError, match=r"flip probability 5e-324 is a subnormal float"):
        synthesize_privacy(Program("s", Bits(1), lambda x: x[0] ^ flip(5e-324)))
    assert main(["privacy", "randomized_response", "-p", "n=2", "-p", "lam=1e-320"]) == 2
    # exact modes take them: the decimal as a fraction, or the binary64 value
    r = synthesize_privacy(Program("s", Bits(1), lambda x: x[0] ^ flip(Fraction("5e-324"))))
    assert r.ratio == (1 - Fraction("5e-324")) / Fraction("5e-324")
    assert main(["privacy", "randomized_response", "-p", "n=3", "-p", "lam=5e-324", "--exact-floats"]) == 0


def test_huge_exact_ratios_print_in_one_line(capsys):
    assert main(["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--epsilon", "ln:1e400"]) == 0
    out = capsys.readouterr().out
    assert "e^epsilon     1e400  (= 1" in out


def test_dp_accounting_limits(capsys):
    pytest.importorskip("dp_accounting")
    prog = Program("and", Bits(1), lambda x: x[0] & flip(1.0 - 1e-16))
    with pytest.raises(WmcdpError, match="cannot compose a privacy loss with mass at \\+infinity"):
        synthesize_approximate(prog, delta=0.1, compose=2, accountant="dp-accounting")
    from wmcdp.programs import randomized_response

    with pytest.raises(WmcdpError, match="is not below the largest privacy loss"):
        synthesize_approximate(randomized_response(2, 0.2), delta=1e-3, compose=2, accountant="dp-accounting",
                               interval=5)
    assert main(["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "1e-3", "--compose", "2",
                 "--accountant", "dp-accounting", "--interval", "-1"]) == 2


def test_renyi_orders_past_the_float_range_are_refused():
    with pytest.raises(WmcdpError, match="Rényi orders must be at most 1e\\+12"):
        synthesize_renyi(tiny(0.25), [1e308])
    r = synthesize_renyi(tiny(Fraction(1, 4)), [1e12, math.inf])
    assert r.orders[0].epsilon <= r.orders[1].epsilon


# -- the fuzzer: random programs with weights from 1e-300 to 1 - 1e-16, float against exact ---------------

FUZZ_EXAMPLES = int(__import__("os").environ.get("WMCDP_FUZZ_EXAMPLES", "20"))


def _close(f: float, e: float) -> bool:
    """Equal infinities, else within 1e-9 relative plus 1e-12 absolute (a divergence near 0 is a difference of
    logs near 1, so float mode knows it to about 1e-16 absolutely, not relatively)."""
    if math.isinf(e) or math.isinf(f):
        return f == e
    return abs(f - e) <= 1e-9 * abs(e) + 1e-12


def _fuzz_case(case):
    from test_properties import _float_ops, _run

    from wmcdp.compile import compile_program

    domain, stmts, outputs = case
    ops = _float_ops()
    prog = Program("extreme", domain, lambda x: _run(stmts, outputs, ops, x))
    floats = compile_program(prog)
    binary = compile_program(prog, exact_floats=True)
    for relation in ("hamming", "all-entries"):
        df = synthesize_approximate(floats, epsilon="ln:2", neighbours=relation, exact=False)
        de = synthesize_approximate(binary, epsilon="ln:2", neighbours=relation, exact="binary")
        assert _close(float(df.delta), float(de.delta)), (stmts, relation, df.delta, de.delta)
        ef = synthesize_approximate(floats, delta=0.01, neighbours=relation, exact=False)
        ee = synthesize_approximate(binary, delta=Fraction(1, 100), neighbours=relation, exact="binary")
        assert _close(ef.epsilon, ee.epsilon), (stmts, relation, ef.epsilon, ee.epsilon)
        rf = synthesize_renyi(floats, [2, math.inf], neighbours=relation, exact=False)
        re_ = synthesize_renyi(binary, [2, math.inf], neighbours=relation, exact="binary")
        for a, b in zip(rf.orders, re_.orders):
            assert _close(a.epsilon, b.epsilon), (stmts, relation, a, b)


def test_fuzz_beyond_pure_epsilon_float_against_exact():
    """(ε, δ) both ways and Rényi D_2, D_inf of random programs at extreme weights: float mode agrees with
    the exact values of the same binary64 weights (``WMCDP_FUZZ_EXAMPLES=2000`` for the long profile)."""
    from hypothesis import HealthCheck, given, settings

    from test_properties import extreme_programs

    run = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))(given(extreme_programs())(_fuzz_case))
    run()


def test_a_delta_below_the_float_range_is_written_out(tmp_path, capsys):
    """delta(1) of x & flip(1e-200) & flip(1e-200) is the mass 1e-400 that x' = 0 never produces."""
    f = tmp_path / "deep.py"
    f.write_text("from wmcdp import Bits, Program, flip\n"
                 "def deep():\n    return Program('deep', Bits(1), lambda x: x[0] & (flip(1e-200) & flip(1e-200)))\n")
    assert main(["approx", f"{f}:deep", "--epsilon", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["delta"] == "1e-400"
    exact = synthesize_approximate(Program("deep", Bits(1), lambda x: x[0] & (flip(Fraction(1, 10 ** 200)) &
                                                                              flip(Fraction(1, 10 ** 200)))),
                                   epsilon="ln:3")
    assert exact.delta == Fraction(1, 10 ** 400)


def test_logsumexp_of_a_row_with_an_infinite_maximum_warns_nothing():
    """A row holding +inf and a large finite log is +inf, silently; the other rows are unchanged."""
    import warnings

    import numpy as np

    from wmcdp.plan.pairs import logsumexp

    rows = np.array([[math.inf, 800.0], [1.0, 2.0], [-math.inf, -math.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = logsumexp(rows)
    assert out[0] == math.inf and out[2] == -math.inf
    assert math.isclose(out[1], 2.0 + math.log1p(math.exp(-1.0)), rel_tol=1e-15)
