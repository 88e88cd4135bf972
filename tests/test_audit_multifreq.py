"""The multi-freq-ldpy audit: numba's binomial as modelled, draw for draw against numba's own generator; the
clients' exact distributions against reference randomizers (closed forms of the grid counts, every choice
enumerated by ``tests/brute.py``); the verdicts at 50 digits; the compiled clients' draws against the models;
the command line. Skips without multi-freq-ldpy (``pip install 'wmcdp[multifreq]'``)."""

from __future__ import annotations

import ast
import functools
import itertools
import json
import math
from fractions import Fraction as F

import numpy as np
import pytest

pytest.importorskip("multi_freq_ldpy.pure_frequency_oracles.LH")

import brute  # noqa: E402
from numba import njit  # noqa: E402
from reports import script_output  # noqa: E402

from wmcdp.audit.execution import GRID, exact_distribution  # noqa: E402
from wmcdp.audit.multifreq import audit_multifreq, cases, distributions, separating_seeds  # noqa: E402
from wmcdp.cli import main  # noqa: E402


def at_most(t: float) -> F:
    """P(u <= t) for u = k 2^-53."""
    return F(min(max(math.floor(F(t) * GRID) + 1, 0), GRID), GRID)


def keep_probability(p: float) -> F:
    """P(np.random.binomial(1, p) = 1) in numba's BINV: with p' = min(p, 1 - p) and q = 1.0 - p', a draw u <= q
    gives X = 0, q < u <= q + px gives X = 1 (u - q is exact there: Sterbenz, as q >= 1/2 > u - q), larger u
    draws again; the result is X, or 1 - X when p was flipped."""
    flipped = p > 0.5
    pp = 1.0 - p if flipped else p
    q = 1.0 - pp
    px = (1 * pp * q) / (1 * q)
    zero = math.floor(F(q) * GRID) + 1
    one = min(math.floor((F(q) + F(px)) * GRID) + 1, GRID) - zero
    return F(zero if flipped else one, zero + one)


def test_binomial_model_against_numba_draw_for_draw():
    """The modelled rule applied to numba's uniform doubles gives numba's binomials from the same seed."""

    @njit
    def binomials(seed, p, n):
        np.random.seed(seed)
        return np.array([np.random.binomial(1, p) for _ in range(n)])

    @njit
    def uniforms(seed, n):
        np.random.seed(seed)
        return np.array([np.random.random() for _ in range(n)])

    for p in (0.3, 0.7, 0.5, 1 / (math.exp(8.0) + 5)):
        flipped = p > 0.5
        pp = 1.0 - p if flipped else p
        q = 1.0 - pp
        px = (1 * pp * q) / (1 * q)
        us, out, k = uniforms(7, 4000), [], 0
        while len(out) < 1000:
            u, k = us[k], k + 1
            x = 0 if u <= q else 1 if u - q <= px else None
            if x is not None:
                out.append(1 - x if flipped else x)
        assert (binomials(7, p, 1000) == np.array(out)).all()
        assert exact_distribution(lambda p=p: np.random.binomial(1, p))[1] == keep_probability(p)


def grr(value: int, k: int, eps: float, choose) -> int:
    keep = keep_probability(np.exp(eps) / (np.exp(eps) + k - 1))
    if choose({True: keep, False: 1 - keep}):
        return value
    return choose({v: F(1, k - 1) for v in range(k) if v != value})


def ue(x: int, k: int, eps: float, optimal: bool, choose) -> tuple:
    p = np.exp(eps / 2) / (np.exp(eps / 2) + 1)
    p, q = (1 / 2, 1 / (np.exp(eps) + 1)) if optimal else (p, 1 - p)
    return tuple(choose({1: at_most(t), 0: 1 - at_most(t)}) for t in (p if i == x else q for i in range(k)))


def subset_selection(x: int, k: int, eps: float, choose) -> tuple:
    """Ye and Barg's subset selection as SS.py writes it: the value first with probability P(u <= p_v), then an
    ordered sample without replacement of the others (every arrangement alike)."""
    sub_k = int(max(1, np.rint(k / (np.exp(eps) + 1))))
    p_v = sub_k * np.exp(eps) / (sub_k * np.exp(eps) + k - sub_k)
    others = [v for v in range(k) if v != x]
    if choose({True: at_most(p_v), False: 1 - at_most(p_v)}):
        return (x,) + choose({t: F(1, math.perm(k - 1, sub_k - 1)) for t in itertools.permutations(others, sub_k - 1)})
    return choose({t: F(1, math.perm(k - 1, sub_k)) for t in itertools.permutations(others, sub_k)})


def adaptive(x: int, k: int, eps: float, optimal: bool, choose):
    """ADP.py: GRR when Wang et al.'s variance q(1 - q)/(p - q)^2 is at most UE's, else UE."""
    p_grr = np.exp(eps) / (np.exp(eps) + k - 1)
    p_ue = np.exp(eps / 2) / (np.exp(eps / 2) + 1)
    p_ue, q_ue = (1 / 2, 1 / (np.exp(eps) + 1)) if optimal else (p_ue, 1 - p_ue)

    def variance(p, q):
        return q * (1 - q) / (p - q) ** 2

    if variance(p_grr, (1 - p_grr) / (k - 1)) <= variance(p_ue, q_ue):
        return grr(x, k, eps, choose)
    return ue(x, k, eps, optimal, choose)


@functools.lru_cache(maxsize=256)
def traced_thresholds(fn, value, args):
    """The thresholds a longitudinal UE client's Python source compares its doubles with, answering every
    comparison True (every bit 1 in both rounds) or False: ``(first round's, p2, q2)``."""

    def run(answer):
        seen = []

        class Probe:
            def __le__(self, t):
                seen.append(float(t))
                return answer

        draw, np.random.random = np.random.random, Probe
        try:
            fn.py_func(value, *args)
        finally:
            np.random.random = draw
        return seen

    ones, zeros = run(True), run(False)
    k = args[0]
    return ones[:k], ones[k], zeros[k]


def two_rounds(x, k, eps_perm, eps_1, p1, q1, p2, q2, choose):
    """Memoization from its definition: each bit of x's one-hot vector through P(u <= p1 | q1), then P(u <= p2 | q2)."""
    first = [choose({1: at_most(p1 if i == x else q1), 0: 1 - at_most(p1 if i == x else q1)}) for i in range(k)]
    return tuple(choose({1: at_most(p2 if b else q2), 0: 1 - at_most(p2 if b else q2)}) for b in first)


def l_grr(x, k, eps_perm, eps_1, choose):
    """L-GRR (Arcolezi et al.): GRR at eps_perm, then GRR at log(p2 / q2) with the paper's p2 for eps_1."""
    p1 = np.exp(eps_perm) / (np.exp(eps_perm) + k - 1)
    q1 = (1 - p1) / (k - 1)
    e1 = np.exp(eps_1)
    p2 = (q1 - e1 * p1) / ((-p1 * e1) + k * q1 * e1 - q1 * e1 - p1 * (k - 1) + q1)
    return grr(grr(x, k, eps_perm, choose), k, np.log(p2 / ((1 - p2) / (k - 1))), choose)


def l_osue(x, k, eps_perm, eps_1, choose):
    """L-OSUE: OUE (1/2, 1/(e^eps_perm + 1)), then SUE with the paper's p2."""
    p2 = (1 - np.exp(eps_1 + eps_perm)) / (np.exp(eps_1) - np.exp(eps_perm) - np.exp(eps_1 + eps_perm) + 1)
    return two_rounds(x, k, eps_perm, eps_1, 1 / 2, 1 / (np.exp(eps_perm) + 1), p2, 1 - p2, choose)


def l_adp(x, k, eps_perm, eps_1, choose):
    """L-ADP: L-GRR when its variance sig (1 - sig) / ((p1 - q1)^2 (p2 - q2)^2), sig = p2 q1 + q2 (1 - q1), is at
    most L-OSUE's."""

    def variance(p1, q1, p2, q2):
        sig = p2 * q1 + q2 * (1 - q1)
        return sig * (1 - sig) / ((p1 - q1) ** 2 * (p2 - q2) ** 2)

    p1 = np.exp(eps_perm) / (np.exp(eps_perm) + k - 1)
    q1 = (1 - p1) / (k - 1)
    e1 = np.exp(eps_1)
    p2 = (q1 - e1 * p1) / ((-p1 * e1) + k * q1 * e1 - q1 * e1 - p1 * (k - 1) + q1)
    u2 = (1 - np.exp(eps_1 + eps_perm)) / (np.exp(eps_1) - np.exp(eps_perm) - np.exp(eps_1 + eps_perm) + 1)
    if variance(p1, q1, p2, (1 - p2) / (k - 1)) <= variance(1 / 2, 1 / (np.exp(eps_perm) + 1), u2, 1 - u2):
        return l_grr(x, k, eps_perm, eps_1, choose)
    return l_osue(x, k, eps_perm, eps_1, choose)


def dbit(x, k, b, d_bits, eps_perm, choose):
    """dBitFlipPM (Ding et al.): d_bits of the b buckets uniformly without replacement, each 1 with P(u <= p1) at
    x's bucket int(x / (k / b)), P(u <= 1 - p1) elsewhere, SUE's p1 = e^(eps/2) / (e^(eps/2) + 1); the rest -1."""
    p1 = np.exp(eps_perm / 2) / (np.exp(eps_perm / 2) + 1)
    bucket = int(x / (k / b))
    subset = choose({s: F(1, math.comb(b, d_bits)) for s in itertools.combinations(range(b), d_bits)})
    t = {i: p1 if i == bucket else 1 - p1 for i in subset}
    return tuple(choose({1: at_most(t[i]), 0: 1 - at_most(t[i])}) if i in t else -1 for i in range(b))


def local_hashing(x, g, seeds, randomize, choose):
    """LH (Wang et al.): a published seed (uniform over the seed model's ``seeds``), x's hash xxh32(str(x), seed) % g
    through ``randomize`` (GRR or L-GRR over g values)."""
    import xxhash

    seed = choose({s: F(1, len(seeds)) for s in seeds})
    return (randomize(xxhash.xxh32(str(x), seed=seed).intdigest() % g), seed)


def olh_range(eps: float) -> int:
    """OLH's g = round(e^eps) + 1 (Wang et al.); BLH's is 2."""
    return int(round(np.exp(eps))) + 1


def l_olh_range(eps_perm: float, eps_1: float) -> int:
    """L-OLH's g (Arcolezi et al., EDBT 2023): the root of the variance's derivative, rounded, at least 2."""
    e, alpha = np.exp, eps_1 / eps_perm
    a, b = e(eps_perm), e(eps_perm * alpha)
    disc = e(4 * eps_perm) - 14 * e(2 * eps_perm) - 12 * e(2 * eps_perm * (alpha + 1))
    disc = disc + 12 * e(eps_perm * (alpha + 1)) + 12 * e(eps_perm * (alpha + 3)) + 1
    return int(max(np.rint((np.sqrt(disc) - e(2 * eps_perm) + 6 * a - 6 * b + 1) / (6 * (a - b))), 2))


def long_lh(x, k, eps_perm, eps_1, optimal, choose):
    """L-LH: local hashing whose randomizer over the g hash values is L-GRR (g: BLH's 2 or L-OLH's)."""
    g = l_olh_range(eps_perm, eps_1) if optimal else 2
    return local_hashing(x, g, separating_seeds(k, g), lambda h: l_grr(h, g, eps_perm, eps_1, choose), choose)


def oracle_reference(name, choose, max_k):
    """The reference of one attribute's randomizer ``name`` (as the solutions' names spell it), called as
    ``fn(value, size, *its parameters)``."""
    import importlib

    def traced(module):
        fn = getattr(importlib.import_module(f"multi_freq_ldpy.long_freq_est.{module}"), f"{module}_Client")

        def run(v, size, eps_perm, eps_1):
            first, p2, q2 = traced_thresholds(fn, v, (size, eps_perm, eps_1))
            return two_rounds(v, size, eps_perm, eps_1, first[v], first[1 - v if v < 1 else 0], p2, q2, choose)

        return run

    def lh(v, size, eps, optimal):
        g = olh_range(eps) if optimal else 2
        return local_hashing(v, g, separating_seeds(max_k, g), lambda h: grr(h, g, eps, choose), choose)

    return {
        "GRR": lambda v, size, eps: grr(v, size, eps, choose),
        "UE": lambda v, size, eps, optimal: ue(v, size, eps, optimal, choose),
        "LH": lh,
        "SS": lambda v, size, eps: subset_selection(v, size, eps, choose),
        "ADP": lambda v, size, eps, optimal: adaptive(v, size, eps, optimal, choose),
        "L_GRR": lambda v, size, eps_perm, eps_1: l_grr(v, size, eps_perm, eps_1, choose),
        "L_OSUE": lambda v, size, eps_perm, eps_1: l_osue(v, size, eps_perm, eps_1, choose),
        "L_ADP": lambda v, size, eps_perm, eps_1: l_adp(v, size, eps_perm, eps_1, choose),
        "L_OUE": traced("L_OUE"),
        "L_SUE": traced("L_SUE"),
        "L_SOUE": traced("L_SOUE"),
        "dBitFlipPM": lambda v, size, b, d_bits, eps: dbit(v, size, b, d_bits, eps, choose),
    }[name]


def mdim(case, x, choose):
    """SMP: a uniform attribute (published) and its randomizer at the full budgets; SPL: every attribute's at the
    budgets divided by d (dBitFlipPM: its attribute's bucket count from lst_b)."""
    solution, name = case.mechanism.removesuffix("_Client").split("_", 1)
    args = case.spec.args
    lst_k = args[0]
    fn = oracle_reference(name, choose, max(lst_k))
    if name == "dBitFlipPM":
        lst_b, d_bits, d, eps = args[1:]

        def params(i, scale):
            return (lst_b[i], d_bits, eps / scale)
    else:
        d, budgets, rest = (
            args[1],
            args[2:4] if name.startswith("L_") else args[2:3],
            args[3:] if len(args) == 4 else (),
        )
        rest = () if name.startswith("L_") else rest

        def params(i, scale):
            return (*(b / scale for b in budgets), *rest)

    if solution == "SMP":
        att = choose({a: F(1, d) for a in range(d)})
        return (att, fn(x[att], lst_k[att], *params(att, 1)))
    return tuple(fn(x[i], lst_k[i], *params(i, d)) for i in range(d))


def random_sampling_fake_data(case, x, choose):
    """RS+FD (Arcolezi et al., CIKM 2021): one uniform attribute (not published) through its randomizer at the
    amplified log(d (e^eps - 1) + 1); every other attribute a fake report: a uniform value (GRR), UE of the zero
    vector (UE-zero) or of a uniform value (UE-rnd); ADP takes GRR when the paper's variance of RS+FD[GRR] is at
    most RS+FD[OUE-z]'s (n = 1, f = 0)."""
    lst_k, d, eps = case.spec.args[:3]
    optimal = case.spec.args[3] if len(case.spec.args) > 3 else None
    kind = case.mechanism.removeprefix("RSpFD_").removesuffix("_Client")
    amp = np.log(d * (np.exp(eps) - 1) + 1)
    att = choose({a: F(1, d) for a in range(d)})

    def uses_grr(k):
        if kind != "ADP":
            return kind == "GRR"
        p = np.exp(amp) / (np.exp(amp) + k - 1)
        q = (1 - p) / (k - 1)
        pu, qu = (0.5, 1 / (np.exp(amp) + 1)) if optimal else (np.exp(amp / 2) / (np.exp(amp / 2) + 1), 0.0)
        qu = qu if optimal else 1 - pu
        s_grr = (q + (d - 1) / k) / d
        s_ue = (d * qu) / d
        return d**2 * s_grr * (1 - s_grr) / (p - q) ** 2 <= d**2 * s_ue * (1 - s_ue) / (pu - qu) ** 2

    def report(i):
        k = lst_k[i]
        if uses_grr(k):
            return grr(x[i], k, amp, choose) if i == att else choose({v: F(1, k) for v in range(k)})
        if i == att:
            return ue(x[i], k, amp, optimal, choose)
        fake = choose({v: F(1, k) for v in range(k)}) if kind == "UE_rnd" else None
        return ue(fake, k, amp, optimal, choose)

    return tuple(report(i) for i in range(d))


def protocol_reference(case, x, choose):
    import importlib

    args = case.spec.args
    if case.mechanism == "L_GRR_Client":
        return l_grr(x, *args, choose)
    if case.mechanism == "L_OSUE_Client":
        return l_osue(x, *args, choose)
    if case.mechanism == "L_ADP_Client":
        return l_adp(x, *args, choose)
    if case.mechanism == "L_LH_Client":
        return long_lh(x, *args, choose)
    if case.mechanism.startswith("L_"):  # L_OUE, L_SUE, L_SOUE: the thresholds traced from the library's source
        fn = getattr(importlib.import_module(f"multi_freq_ldpy.{case.spec.module}"), case.mechanism)
        first, p2, q2 = traced_thresholds(fn, x, args)
        p1, q1 = first[x], first[1 - x if x < 1 else 0]
        return two_rounds(x, args[0], args[1], args[2], p1, q1, p2, q2, choose)
    if case.mechanism == "dBitFlipPM_Client":
        return dbit(x, *args, choose)
    if case.mechanism.startswith("RSpFD"):
        return random_sampling_fake_data(case, x, choose)
    return mdim(case, x, choose)


def reference(case, x, choose):
    c = case.spec
    if not hasattr(c, "epsilon"):
        return protocol_reference(case, x, choose)
    if case.mechanism == "GRR_Client":
        return grr(x, c.k, c.epsilon, choose)
    if case.mechanism == "UE_Client":
        return ue(x, c.k, c.epsilon, c.optimal, choose)
    if case.mechanism == "SS_Client":
        return subset_selection(x, c.k, c.epsilon, choose)
    if case.mechanism == "ADP_Client":
        return adaptive(x, c.k, c.epsilon, c.optimal, choose)
    return oracle_reference("LH", choose, c.k)(x, c.k, c.epsilon, c.optimal)


@pytest.mark.parametrize("label", [c.label for c in cases()])
def test_clients_against_references(label):
    (case,) = cases(label)
    ref = {x: brute.distribution(lambda x, choose: reference(case, x, choose), x) for x in case.spec.inputs}
    assert dict(zip(case.spec.inputs, distributions(case))) == ref
    (row,) = audit_multifreq(only=label)
    ratio = brute.local_ratio(ref)
    assert row.ratio_exact == str(ratio) and row.verdict == brute.audit_verdict(case.spec.claim, ratio)


def test_at_least_twenty_cases():
    assert len(cases()) >= 20 and len({c.label for c in cases()}) == len(cases())


def test_compiled_draws_of_the_protocols_agree_with_the_models():
    """The compiled longitudinal, dBitFlipPM and multidimensional clients against the models of their source."""
    rows = [
        r
        for o in ("L_OSUE_Client k=4", "dBitFlipPM_Client k=6", "SPL_UE_Client lst_k=[2, 2]")
        for r in audit_multifreq(sample=20_000, only=o, processes=1)
    ]
    assert len(rows) == 3 and all([s.draws for s in r.samples] == [20_000, 20_000] and r.model_agrees for r in rows)


@pytest.mark.parametrize(
    "label",
    [
        "L_LH_Client k=4, eps_perm=2.0, eps_1=1.0, optimal=True",
        "SPL_LH_Client lst_k=[3, 3]",
        "SMP_SS_Client lst_k=[3, 4]",
        "RSpFD_UE_rnd_Client lst_k=[2, 2]",
        "RSpFD_ADP_Client lst_k=[2, 3]",
        "SPL_L_ADP_Client",
        "SPL_dBitFlipPM_Client lst_k=[4, 3]",
    ],
)
def test_compiled_draws_of_the_compositions_agree_with_the_models(label):
    """Local hashing's solutions (each report counted as whether it is the value's hash), SMP, SPL, RS+FD and the
    longitudinal multidimensional solutions: the library's own reports against the models of their source."""
    (row,) = audit_multifreq(sample=10_000, only=label, processes=1)
    assert [s.draws for s in row.samples] == [10_000, 10_000] and row.model_agrees


def test_compiled_draws_agree_with_the_models():
    rows = audit_multifreq(sample=20_000, only="epsilon=1.0, k=", processes=1)
    assert {r.mechanism for r in rows} == {"GRR_Client", "UE_Client", "LH_Client", "SS_Client", "ADP_Client"}
    assert all([s.draws for s in r.samples] == [20_000, 20_000] and r.model_agrees for r in rows)


def test_command_line(capsys):
    assert main(["audit", "multi-freq-ldpy", "--only", "GRR_Client epsilon=1.0, k=2", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["library"] == "multi-freq-ldpy" and out["violated"] == 1


@pytest.mark.parametrize(
    "label",
    [
        "GRR_Client epsilon=1.0, k=2",
        "LH_Client epsilon=1.0, k=4, optimal=False",
        "SS_Client epsilon=0.5, k=4",
        "SS_Client epsilon=3.0, k=3",
        "ADP_Client epsilon=0.1, k=8, optimal=True",
        "L_GRR_Client k=2",
        "L_SUE_Client k=4",
        "L_LH_Client k=4, eps_perm=2.0, eps_1=1.0, optimal=False",
        "SMP_LH_Client lst_k=[3, 3]",
        "SPL_SS_Client lst_k=[4, 3]",
        "SMP_SS_Client lst_k=[3, 4]",
        "SMP_ADP_Client lst_k=[2, 4]",
        "RSpFD_GRR_Client lst_k=[2, 3]",
        "RSpFD_UE_rnd_Client lst_k=[2, 3]",
        "RSpFD_UE_zero_Client lst_k=[2, 2]",
        "RSpFD_ADP_Client lst_k=[4, 2]",
        "SMP_L_ADP_Client",
        "SPL_L_SOUE_Client",
        "SMP_dBitFlipPM_Client lst_k=[4, 3]",
        "L_OSUE_Client k=4",
        "dBitFlipPM_Client k=6",
        "SMP_UE_Client lst_k=[2, 3]",
        "SPL_GRR_Client lst_k=[3, 3]",
    ],
)
def test_reports_run_with_the_library_alone(tmp_path, label):
    """The report's script, with wmcdp unimportable, prints the witness's two probabilities (given the published
    seeds, over local hashing) and the exact ratio of the reference randomizer."""
    assert main(["audit", "multi-freq-ldpy", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    text = path.read_text()
    lines = script_output(text, alone=label == "GRR_Client epsilon=1.0, k=2")  # one in a fresh interpreter
    (case,) = cases(label)
    ref = {x: brute.distribution(lambda x, choose: reference(case, x, choose), x) for x in case.spec.inputs}
    (witness,) = [line for line in text.splitlines() if line.startswith("x, x_prime, y = ")]
    x, xp, y = ast.literal_eval(witness.split(" = ", 1)[1])
    if "LH" not in case.mechanism:  # (over local hashing the script's are given the published seeds)
        assert lines[:2] == [f"P(y | x)  = {ref[x].get(y, 0)}", f"P(y | x') = {ref[xp].get(y, 0)}"]
    assert f"exact ratio: {brute.local_ratio(ref)}" in lines and lines[-1].startswith("VIOLATED")
