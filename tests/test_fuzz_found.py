"""Bugs the forced-plan fuzzer (tests/fuzz_plans.py, ``experiments/fuzz.py --forced``) found, each on its minimal
program, against brute-force enumeration (tests/brute.py) and the exhaustive sets, through the API and the CLI.

* an infinite part ratio times a huge exact product (given-input and hub plans): ``OverflowError``;
* count-of-reports: a witness pair whose inputs differ in two entries (not a hamming pair);
* a δ below the float range: 0.0 as a float, with its log (lost by a float run's exact recount) and exact value
  (the fuzzer read neither).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import brute
import fuzz_plans
import mpmath
import pytest

from wmcdp import (
    Bits,
    IntVector,
    Program,
    discrete,
    flip,
    ite,
    privacy_profile,
    synthesize_approximate,
    synthesize_privacy,
)
from wmcdp.cli import main
from wmcdp.lang.relations import neighbour_relation

# -- an infinite part ratio in an exact product ---------------------------------------------------------------

TINY = Fraction(1, 8 * 10**300)
#: a noise on -2, -1, 1, 2 (no 0: a gap) with one weight far below the float range
GAP = {-2: Fraction(3, 8), -1: Fraction(1, 4), 1: Fraction(3, 8) - TINY, 2: TINY}


def _gap_releases() -> Program:
    def body(x):
        return tuple((x[i] + discrete(GAP)).clamp(0, 2) for i in range(3))

    return Program("gap_releases", IntVector(3, 0, 2), body, neighbours="all-entries")


def _gap_reference(x, choose):
    return tuple(min(2, max(0, x[i] + choose(GAP))) for i in range(3))


@pytest.mark.parametrize("plan", ["given-input", "hub"])
@pytest.mark.parametrize("exact", [True, "binary"])
def test_infinite_part_ratio_times_a_huge_product(plan, exact):
    """Each entry alone has ratio inf (x_i = 0 reaches y_i = 1, x_i = 1 does not: no noise 0), the other parts
    huge exact ratios (3/8 over 1/(8 10^300)): the plan's ε is inf, as brute force's and the exhaustive sets',
    with a witness whose x side is possible and whose x' side is 0."""
    program = _gap_releases()
    inputs = list(program.inputs.values())
    neighbours = lambda x: list(neighbour_relation("all-entries")(program.inputs, x))  # noqa: E731
    assert brute.tight_ratio(_gap_reference, inputs, neighbours) == math.inf
    r = synthesize_privacy(program, plan=plan, exact=exact)
    assert r.plan.kind == plan
    assert r.epsilon == math.inf
    assert synthesize_privacy(program, "exhaustive", exact=exact, force=True).epsilon == math.inf
    w = r.witness
    assert w.x_prime in neighbours(w.x)
    assert brute.distribution(_gap_reference, w.x).get(w.y, 0) > 0
    assert brute.distribution(_gap_reference, w.x_prime).get(w.y, 0) == 0


GAP_FILE = """
from fractions import Fraction as F
from wmcdp import IntVector, Program, discrete
T = F(1, 8 * 10**300)
GAP = {-2: F(3, 8), -1: F(1, 4), 1: F(3, 8) - T, 2: T}
def gap_releases():
    def body(x):
        return tuple((x[i] + discrete(GAP)).clamp(0, 2) for i in range(3))
    return Program("gap_releases", IntVector(3, 0, 2), body, neighbours="all-entries")
"""


@pytest.mark.parametrize("plan", ["given-input", "hub"])
def test_cli_infinite_part_ratio(tmp_path, capsys, plan):
    path = tmp_path / "gap.py"
    path.write_text(GAP_FILE)
    code = main(["privacy", f"{path}:gap_releases", "--plan", plan, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["plan"]["kind"] == plan and result["epsilon"] == "inf"


# -- count-of-reports: the witness is a neighbour pair ----------------------------------------------------------

THIRD = Fraction(1, 3)


def _count_of_reports() -> Program:
    def body(x):
        terms = [(x[i] >= 2) ^ flip(THIRD) for i in range(3)]
        return sum(terms[1:], terms[0])

    return Program("count_of_reports", IntVector(3, 0, 2), body, neighbours="hamming")


def _count_reference(x, choose):
    return sum(int(x[i] >= 2) ^ brute.flip(choose, THIRD) for i in range(3))


def _hamming(x, xp) -> bool:
    return sum(a != b for a, b in zip(x, xp)) == 1


@pytest.mark.parametrize("epsilon", [0, "ln:2"])
def test_count_of_reports_witness_is_a_neighbour_pair_attaining_delta(epsilon):
    """Over three values per entry, the plan's witness pair differs in one entry and attains δ(ε), which is brute
    force's largest hockey-stick divergence and the exhaustive sets'."""
    program = _count_of_reports()
    dists = {x: brute.distribution(_count_reference, x) for x in program.inputs.values()}
    t = 1 if epsilon == 0 else 2
    want = max(brute.hockey(dists[x], dists[xp], t) for x in dists for xp in dists if _hamming(x, xp))
    (point,) = privacy_profile(program, [epsilon], plan="count-of-reports")
    assert point.plan.kind == "count-of-reports"
    w = point.witness
    assert _hamming(w.x, w.x_prime)
    assert point.delta == want == brute.hockey(dists[w.x], dists[w.x_prime], t)
    assert privacy_profile(program, [epsilon], "exhaustive")[0].delta == want


REPORTS_FILE = """
from fractions import Fraction as F
from wmcdp import IntVector, Program, flip
def reports():
    def body(x):
        terms = [(x[i] >= 2) ^ flip(F(1, 3)) for i in range(3)]
        return sum(terms[1:], terms[0])
    return Program("reports", IntVector(3, 0, 2), body, neighbours="hamming")
"""


def test_cli_count_of_reports_witness_is_a_neighbour_pair(tmp_path, capsys):
    path = tmp_path / "reports.py"
    path.write_text(REPORTS_FILE)
    code = main(["approx", f"{path}:reports", "--plan", "count-of-reports", "--epsilon", "0", "--json"])
    result = json.loads(capsys.readouterr().out)
    x, xp = tuple(result["witness"]["x"]), tuple(result["witness"]["x_prime"])
    dists = {v: brute.distribution(_count_reference, v) for v in (x, xp)}
    assert code == 0 and result["delta_exact"] == "5/27" and _hamming(x, xp)
    assert brute.hockey(dists[x], dists[xp], 1) == Fraction(5, 27)


# -- a δ below the float range -------------------------------------------------------------------------------


def _tiny_delta() -> Program:
    def body(x):
        return ite(x[0], flip(3e-300), flip(1e-300)) & flip(1e-300)

    return Program("tiny_delta", Bits(1), body)


def _tiny_reference(x, choose):
    return (brute.flip(choose, 3e-300) if x[0] else brute.flip(choose, 1e-300)) & brute.flip(choose, 1e-300)


def _tiny_truth(epsilon: float) -> mpmath.mpf:
    """δ(ε) by brute force: the floats' exact binary64 values, the hockey-stick sum at 60 digits."""
    dists = {x: brute.distribution(_tiny_reference, (x,)) for x in (0, 1)}
    t = mpmath.exp(epsilon)
    return max(
        mpmath.fsum(max(0, mpmath.mpf(p.get(y, 0)) - t * mpmath.mpf(q.get(y, 0))) for y in (0, 1))
        for p, q in ((dists[0], dists[1]), (dists[1], dists[0]))
    )


@pytest.mark.parametrize("kw", [{"pairs": "exhaustive"}, {"plan": "exhaustive"}, {"plan": "symmetry"}, {}])
@pytest.mark.parametrize("exact", ["binary", None])
def test_delta_below_the_floats_carries_its_log(kw, exact):
    """δ(1/2) = 3e-600 - e^(1/2) 1e-600 (binary64 values): no float holds it, so ``delta`` is 0.0 and ``log_delta``
    its log — correctly rounded in exact-binary runs, with ``exact_delta`` the exact real and ``interval``
    enclosing it; to 1e-12 in float runs, whose recount of a prone δ (exact, from the binary64 weights) keeps the
    exact run's log. δ(1) likewise, and the same δ(1/2) by synthesize_approximate."""
    with mpmath.workdps(60):
        points = privacy_profile(_tiny_delta(), [0.5, 1], exact=exact, **kw)
        points.append(synthesize_approximate(_tiny_delta(), epsilon=0.5, exact=exact, **kw))
        for point in points:
            want = _tiny_truth(point.epsilon)
            assert 0 < want < 2.0**-1074 and point.delta == 0.0
            ln_want = float(mpmath.log(want))
            if exact == "binary":
                assert abs(point.log_delta - ln_want) <= math.ulp(ln_want)
                assert point.exact_delta is not None and point.interval.lo <= want <= point.interval.hi
            else:
                assert point.log_delta == pytest.approx(ln_want, rel=1e-12)


TINY_FILE = """
from wmcdp import Bits, Program, flip, ite
def tiny_delta():
    def body(x):
        return ite(x[0], flip(3e-300), flip(1e-300)) & flip(1e-300)
    return Program("tiny_delta", Bits(1), body)
"""


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize("mode", [["--exact-floats"], []])
def test_cli_prints_a_delta_below_the_floats(tmp_path, capsys, fmt, mode):
    path = tmp_path / "tiny.py"
    path.write_text(TINY_FILE)
    code = main(["profile", f"{path}:tiny_delta", *mode, "--epsilons", "0.5", "--format", fmt])
    out = capsys.readouterr().out
    with mpmath.workdps(60):
        want = mpmath.nstr(_tiny_truth(0.5), 10, min_fixed=0, max_fixed=0)
    assert code == 0 and want == "1.351278729e-600" and want in out


def test_fuzzer_takes_the_log_of_a_delta_below_the_floats():
    """The forced-plan fuzzer's program (seed 1387, ``shifted``: weights 1e-300, δ(1/2) = 7.2e-600 in exact-binary
    runs) shows no difference; its check still refuses a δ of 0.0 with no log or a wrong one."""
    cmp = fuzz_plans.fuzz_forced(fuzz_plans.RandomDraw(1387), "shifted")
    assert cmp.counts.get("profile") and not cmp.differences
    with mpmath.workdps(60):
        want = _tiny_truth(0.5)
        ln_want = float(mpmath.log(want))
        assert fuzz_plans._log_ok(ln_want, want)
        assert not fuzz_plans._log_ok(None, want)
        assert not fuzz_plans._log_ok(ln_want * (1 + 1e-13), want)
