"""The pure-LDP audit: the exact execution of the clients against reference mechanisms written from the papers'
randomizers with the library's float parameters, the grid of each comparison counted here by hand and every
random choice enumerated by ``tests/brute.py``; the verdicts against a 50-digit logarithm; the library's own
draws against the models; the command line. Skips without pure-ldp (``pip install 'wmcdp[pureldp]'``)."""

from __future__ import annotations

import itertools
import json
import math
import random
from decimal import Decimal, localcontext
from fractions import Fraction as F

import numpy as np
import pytest

pytest.importorskip("pure_ldp.frequency_oracles")

import brute  # noqa: E402
from reports import script_output  # noqa: E402

from wmcdp.audit.execution import GRID, exact_distribution  # noqa: E402
from wmcdp.audit.pureldp import audit_pureldp, cases, distributions  # noqa: E402
from wmcdp.cli import main  # noqa: E402


def below(t: float) -> F:
    """P(u < t) for u = k 2^-53: the k below t 2^53."""
    return F(min(max(math.ceil(F(t) * GRID), 0), GRID), GRID)


def at_most(t: float) -> F:
    """P(u <= t)."""
    return F(min(max(math.floor(F(t) * GRID) + 1, 0), GRID), GRID)


def check_case(label: str, reference) -> None:
    """The audit's row of the case against ``reference(client, x, choose)`` enumerated by brute force."""
    (case,) = cases(label)
    client = case.spec.build()
    ref = {x: brute.distribution(lambda x, choose: reference(client, x, choose), x) for x in case.spec.inputs}
    assert dict(zip(case.spec.inputs, distributions(case))) == ref
    (row,) = audit_pureldp(only=label)
    ratio = brute.local_ratio(ref)
    assert row.ratio_exact == ("inf" if ratio == math.inf else str(ratio))
    assert row.verdict == brute.audit_verdict(case.spec.claimed(client), ratio)


def oracle_labels(mechanism: str, family: str | None = None) -> list[str]:
    """The labels of a frequency oracle's own cases (a heavy hitter's label names the oracle it wraps too)."""
    return [c.label for c in cases(mechanism) if c.mechanism == mechanism and family in (None, c.spec.family)]


def uniform(n: int) -> dict:
    return {v: F(1, n) for v in range(n)}


def de_reference(c, x, choose):
    if choose({True: below(c.p), False: 1 - below(c.p)}):
        return x - 1
    other = choose(uniform(c.d - 1))
    return c.d - 1 if other == x - 1 else other


@pytest.mark.parametrize("label", oracle_labels("DEClient"))
def test_direct_encoding(label):
    check_case(label, de_reference)


def ue_reference(c, x, choose):
    """numpy's choice([1, 0], p=[q, 1 - q]) is 1 when u < cdf[0], cdf = cumsum(p) / its last entry."""
    cdf0 = c.q / (c.q + (1 - c.q))
    bits = [choose({1: below(cdf0), 0: 1 - below(cdf0)}) for _ in range(c.d)]
    bits[x - 1] = choose({1: below(c.p), 0: 1 - below(c.p)})
    return tuple(bits)


@pytest.mark.parametrize("label", oracle_labels("UEClient"))
def test_unary_encoding(label):
    check_case(label, ue_reference)


def lh_perturb(c, x, seed, choose):
    import xxhash

    h = xxhash.xxh32(str(x - 1), seed=seed).intdigest() % c.g
    keep = at_most(c.p - c.q)  # perturbed when u > p - q
    return h if choose({True: keep, False: 1 - keep}) else choose(uniform(c.g))


def test_local_hashing_with_its_seed_model():
    """BLH and OLH over the seeds the audit enumerates; the tight ratio is the closed form of the perturbation
    (a + (1 - a)/g) / ((1 - a)/g), a = P(u <= p - q), whatever seed separates the pair."""
    from wmcdp.audit.pureldp import separating_seeds

    for case in cases("LHClient"):
        if case.mechanism != "LHClient":
            continue
        client = case.spec.build()
        seeds = separating_seeds(case.spec.d, client.g, range(10_000))
        check_case(
            case.label,
            lambda c, x, choose, seeds=seeds: (lambda s: (lh_perturb(c, x, s, choose), s))(
                choose(dict.fromkeys(seeds, F(1, len(seeds))))
            ),
        )
        a = at_most(client.p - client.q)
        (row,) = audit_pureldp(only=case.label)
        assert row.ratio_exact == str((a + (1 - a) / client.g) / ((1 - a) / client.g))


def test_fast_local_hashing_enumerates_every_seed():
    (case,) = [c for c in cases("FastLHClient") if c.mechanism == "FastLHClient"]
    check_case(case.label, lambda c, x, choose: (lambda s: (lh_perturb(c, x, s, choose), s))(choose(uniform(c.k))))


def hr_reference(c, x, choose):
    """Hadamard response (k2k_hadamard.py): epsilon <= 1, a uniform out1 and its partner out1 ^ (top bit of
    x + 1), out1 kept when its parity with x + 1 is even and u > pri_para; above 1, uniform with probability
    P(u < 2B / (2B - 1 + e^eps)), else uniform over the block's positions where the column of x is one."""
    hr, i = c.hr, x - 1
    if c.epsilon <= 1:
        out1 = choose(uniform(hr.outsz))
        col = i + 1
        out2 = out1 ^ (1 << (col.bit_length() - 1))
        even = bin(out1 & col).count("1") % 2 == 0
        keep = 1 - at_most(hr.pri_para)
        return (out1 if even else out2) if choose({True: keep, False: 1 - keep}) else (out2 if even else out1)
    out1 = choose(uniform(hr.outsz))
    flat = below((2 * hr.part) / (2 * hr.part - 1 + hr.exp))
    if choose({True: flat, False: 1 - flat}):
        return out1
    block, pos = divmod(i, hr.partsz - 1)
    col = pos + 1
    out_pos = out1 & (hr.partsz - 1)
    y = out_pos + (block << hr.tailbit)
    return y if bin(out_pos & col).count("1") % 2 == 0 else y ^ (col & -col)


@pytest.mark.parametrize("label", oracle_labels("HadamardResponseClient"))
def test_hadamard_response(label):
    check_case(label, hr_reference)


def cms_reference(c, x, choose):
    """Apple's count-mean sketch from its definition: a uniform hash index j, the +1 at xxh64(str(x), seed=j) % m
    in a vector of -1s, each entry negated with P(u < prob)."""
    import xxhash

    j = choose(uniform(c.k))
    hot = xxhash.xxh64(str(x), seed=j).intdigest() % c.m
    flip = below(c.prob)
    v = tuple((1 if i == hot else -1) * choose({-1: flip, 1: 1 - flip}) for i in range(c.m))
    return (v, j)


@pytest.mark.parametrize("label", oracle_labels("CMSClient", "cms"))
def test_count_mean_sketch(label):
    check_case(label, cms_reference)


def sr_reference(c, x, choose):
    """Sketch response from its definition: a uniform hash index j, the sketch cell xxh64(str(x - 1), seed=j) % m,
    then optimal local hashing of that cell over lh_k uniform seeds (kept with P(u <= p - q), else uniform)."""
    import xxhash

    j = choose(uniform(c.k))
    cell = xxhash.xxh64(str(x - 1), seed=j).intdigest() % c.m
    lh = c.client
    seed = choose(uniform(lh.k))
    hashed = xxhash.xxh32(str(cell), seed=seed).intdigest() % lh.g
    keep = at_most(lh.p - lh.q)
    return ((hashed if choose({True: keep, False: 1 - keep}) else choose(uniform(lh.g)), seed), j)


@pytest.mark.parametrize("label", oracle_labels("SketchResponseClient", "sr"))
def test_sketch_response(label):
    check_case(label, sr_reference)


def hm_reference(c, x, choose):
    """The Hadamard mechanism from its definition: t uniform indices j, the sign vector of H[x - 1, j] (Sylvester's
    Hadamard matrix, scipy's) kept with P(u < p), else one of the 2^t - 1 others uniformly."""
    from scipy.linalg import hadamard

    size = 1 << (c.d - 1).bit_length()
    h = hadamard(max(size, 2))
    js = tuple(choose(uniform(c.d)) for _ in range(c.t))
    true = tuple(int(h[x - 1, j]) for j in js)
    if not choose({True: below(c.p), False: 1 - below(c.p)}):
        others = [v for v in itertools.product((-1, 1), repeat=c.t) if v != true]
        true = choose({v: F(1, len(others)) for v in others})
    return tuple(zip(js, true))


@pytest.mark.parametrize("label", oracle_labels("HadamardMechClient"))
def test_hadamard_mechanism(label):
    check_case(label, hm_reference)


@pytest.mark.parametrize(
    "label, reference",
    [
        ("HadamardMechClient epsilon=1.0, d=4, t=2", "hm"),
        ("CMSClient epsilon=1.0, k=1, m=4, d=4", "cms"),
        ("SketchResponseClient epsilon=1.0, k=2, m=4, lh_k=8, d=4", "sr"),
        ("CMSClient is_hadamard=True, epsilon=0.5, k=2, m=4, d=4", "hcms"),
        ("PCSClient epsilon=1.0, l=1, w=4, d=4", "pcs"),
        ("SketchResponseClient count_sketch=True, epsilon=1.0, k=1, m=2, lh_k=4, d=4", "srcs"),
    ],
)
def test_report_of_the_hadamard_mechanism_and_the_sketches(tmp_path, label, reference):
    """The script of a Hadamard mechanism or sketch finding runs without wmcdp and prints the brute-force ratio."""
    randomizer = {"hm": hm_reference, "cms": cms_reference, "sr": sr_reference, "hcms": hcms_reference}.get(reference)
    randomizer = randomizer or {"pcs": pcs_reference, "srcs": srcs_reference}[reference]
    (case,) = cases(label)
    c = case.spec.build()
    ref = {x: brute.distribution(lambda x, choose: randomizer(c, x, choose), x) for x in case.spec.inputs}
    out = script_output(_report(tmp_path, label))
    assert f"exact ratio: {brute.local_ratio(ref)}" in out and out[-1] == "VIOLATED"


def _choices_total_is_one(weight: float) -> None:
    """random.choices([a, b], weights=[w, 1 - w]) compares random() * (w + (1 - w) + 0.0) with w: for these
    weights the total is 1.0, so the comparison is u < w itself."""
    assert weight + (1 - weight) + 0.0 == 1.0


def hcms_reference(c, x, choose):
    """Apple's Hadamard count-mean sketch from its definition: a uniform hash index j and row l of Sylvester's
    Hadamard matrix (scipy's), the entry at column xxh64(str(x), seed=j) % m, its sign flipped with P(u < prob)."""
    import xxhash
    from scipy.linalg import hadamard

    _choices_total_is_one(c.prob)
    j, l = choose(uniform(c.k)), choose(uniform(c.m))
    w = int(hadamard(c.m)[l, xxhash.xxh64(str(x), seed=j).intdigest() % c.m])
    return (choose({-1: below(c.prob), 1: 1 - below(c.prob)}) * w, j, l)


@pytest.mark.parametrize("label", oracle_labels("CMSClient", "hcms"))
def test_hadamard_count_mean_sketch(label):
    check_case(label, hcms_reference)


#: numpy's legacy binomial(1, 0.5): 0 when u <= 1/2, else 1 (u - 1/2 <= 1/2 always): P(1) = 1 - P(u <= 1/2)
FAIR_ONE = 1 - at_most(0.5)


def test_numpy_legacy_binomial_is_the_modelled_rule():
    """Draw for draw from one seed: np.random.binomial(1, 0.5, n) is u > 1/2 on numpy's own doubles."""
    np.random.seed(2024)
    bits = np.random.binomial(1, 0.5, 5000)
    np.random.seed(2024)
    assert (bits == (np.random.random_sample(5000) > 0.5)).all()
    assert exact_distribution(lambda: int(np.random.binomial(1, 0.5, 1)[0])) == {0: 1 - FAIR_ONE, 1: FAIR_ONE}


def test_scaled_uniform_against_cpython_choices():
    """random.choices with weights bisects random() * total in the cumulative weights: the exact execution's
    counts for a total of 2.0 (an exact product: P(2u < 0.5) = 1/4), and CPython's draws against the rule."""
    assert exact_distribution(lambda: random.choices("ab", weights=[0.5, 1.5])[0]) == {"a": F(1, 4), "b": F(3, 4)}
    weights = [0.1, 0.2, 0.3]
    total, cum = sum(weights) + 0.0, list(itertools.accumulate(weights))
    random.seed(5)
    got = [random.choices(range(3), weights=weights)[0] for _ in range(3000)]
    random.seed(5)
    scaled = [random.random() * total for _ in range(3000)]
    assert got == [sum(1 for w in cum[:-1] if x >= w) for x in scaled]  # bisect_right over cum[:-1]


def pcs_reference(c, x, choose):
    """The private count sketch from its definition: a uniform hash index j, every entry a +-1 of numpy's binomial
    (FAIR_ONE), the item's bucket xxh64(str(x), seed=2j) % w set to its sign 2 (xxh64(str(x), seed=2j + 1) % 2) - 1
    times random.choices([1, -1], weights=[bias, 1 - bias])."""
    import xxhash

    _choices_total_is_one(c.bias)
    j = choose(uniform(c.l))
    bits = [2 * choose({1: FAIR_ONE, 0: 1 - FAIR_ONE}) - 1 for _ in range(c.w)]
    h = xxhash.xxh64(str(x), seed=2 * j).intdigest() % c.w
    g = 2 * (xxhash.xxh64(str(x), seed=2 * j + 1).intdigest() % 2) - 1
    bits[h] = g * choose({1: below(c.bias), -1: 1 - below(c.bias)})
    return (tuple(bits), j)


@pytest.mark.parametrize("label", oracle_labels("PCSClient"))
def test_private_count_sketch(label):
    check_case(label, pcs_reference)


def srcs_reference(c, x, choose):
    """Sketch response with count sketch from its definition: a uniform hash index j, the signed bucket
    (h + 1) g of index x - 1 mapped to 0 .. 2m - 1 (positive v to v - 1, negative to 2m + v), then optimal local
    hashing of it over lh_k uniform seeds."""
    import xxhash

    j = choose(uniform(c.k))
    h = xxhash.xxh64(str(x - 1), seed=2 * j).intdigest() % c.m
    g = 2 * (xxhash.xxh64(str(x - 1), seed=2 * j + 1).intdigest() % 2) - 1
    v = (h + 1) * g
    cell = v - 1 if v > 0 else 2 * c.m + v
    lh = c.client
    seed = choose(uniform(lh.k))
    hashed = xxhash.xxh32(str(cell), seed=seed).intdigest() % lh.g
    keep = at_most(lh.p - lh.q)
    return ((hashed if choose({True: keep, False: 1 - keep}) else choose(uniform(lh.g)), seed), j)


@pytest.mark.parametrize("label", oracle_labels("SketchResponseClient", "srcs"))
def test_sketch_response_with_count_sketch(label):
    check_case(label, srcs_reference)


def rappor_reference(c, x, choose):
    """A set bit is reported 1 when u < 1 - 0.5 f and left set otherwise (rappor_client.py line 45 only ever
    writes 1): it is always 1; a clear bit is 1 with P(u < f / 2)."""
    cohort = choose(uniform(c.num_of_cohorts))
    filt = [0] * c.m
    for h in c.hash_family[cohort]:
        filt[h(str(x - 1))] = 1
    bits = tuple(1 if b else choose({1: below(0.5 * c.f), 0: 1 - below(0.5 * c.f)}) for b in filt)
    return (bits, cohort)


@pytest.mark.parametrize("label", oracle_labels("RAPPORClient")[::3])
def test_rappor_never_clears_a_bit(label):
    check_case(label, rappor_reference)
    (row,) = audit_pureldp(only=label)
    assert row.epsilon == math.inf and row.verdict == "VIOLATED"


def test_at_least_twenty_cases_over_epsilon_and_domain():
    all_cases = cases()
    assert len(all_cases) >= 20
    assert len({c.label for c in all_cases}) == len(all_cases) and len({c.spec.d for c in all_cases}) >= 5


# -- the exact execution itself ---------------------------------------------------------------


def test_exact_execution_of_python_and_numpy_draws():
    def fn():
        a = random.randint(1, 3)
        u = random.random()
        return a + (u < 0.3) + (u < 0.1) + int(np.random.random_sample() > 0.7) + np.random.randint(2, 4)

    def ref(_, choose):
        a = choose({v: F(1, 3) for v in (1, 2, 3)})
        u = choose({0: below(0.1), 1: below(0.3) - below(0.1), 2: 1 - below(0.3)})  # the two thresholds split u
        return (
            a + (u <= 1) + (u == 0) + choose({1: 1 - at_most(0.7), 0: at_most(0.7)}) + choose({2: F(1, 2), 3: F(1, 2)})
        )

    assert exact_distribution(fn) == brute.distribution(ref, None)


def test_numpy_choice_model_is_numpy_s_own():
    """The modelled np.random.choice (cdf, then searchsorted of a uniform double) gives what numpy gives from
    the same generator state, draw for draw."""
    q = 1 / (math.exp(0.7) + 1)
    np.random.seed(12345)
    real = np.random.choice([1, 0], size=5000, p=[q, 1 - q])
    np.random.seed(12345)
    u = np.random.random_sample(5000)
    cdf = np.array([q, 1 - q]).cumsum()
    cdf /= cdf[-1]
    assert (real == np.array([1, 0])[cdf.searchsorted(u, side="right")]).all()
    assert all((random.random() * GRID).is_integer() for _ in range(1000))  # CPython's doubles are on the grid


def test_a_uniform_double_is_only_compared():
    with pytest.raises(TypeError, match="only compares"):
        exact_distribution(lambda: float(random.random()))
    with pytest.raises(TypeError, match="only compared by"):
        exact_distribution(lambda: random.random() == 0.5)
    assert isinstance(random.random(), float)  # the generators are restored


def test_library_draws_agree_with_the_models():
    rows = audit_pureldp(sample=20_000, only="epsilon=1.0, d=", processes=1)
    assert {r.mechanism for r in rows} >= {"DEClient", "UEClient", "LHClient", "HadamardResponseClient"}
    assert all([s.draws for s in r.samples] == [20_000, 20_000] and r.model_agrees for r in rows)


def test_command_line(capsys):
    assert main(["audit", "pure-ldp", "--only", "DEClient epsilon=1.0, d=2", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["library"] == "pure-ldp" and out["violated"] == 1 and out["rows"][0]["verdict"] == "VIOLATED"
    assert main(["audit", "pure-ldp", "--only", "nosuch"]) == 2
    assert "no case of the pure-ldp audit matches 'nosuch'" in capsys.readouterr().err


# -- reports ------------------------------------------------------------------------------------

Z = Decimal("3.090232306167813")  # the standard normal's upper 0.001 quantile


def _report(tmp_path, label: str) -> str:
    assert main(["audit", "pure-ldp", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    return path.read_text()


def _field(text: str, name: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(f"- **{name}**")]
    return line.split(" = ", 1)[1].split(" (about")[0] if " = " in line else line


def test_report_of_direct_encoding(tmp_path):
    """The report's probabilities and sample size against the closed form of DE (below(p), its complement over
    d - 1) and the tester's formula at 50 digits; its script runs and prints the same exact ratio."""
    label = "DEClient epsilon=1.0, d=2"
    text = _report(tmp_path, label)
    (case,) = cases(label)
    c = case.spec.build()
    p, pp = below(c.p), (1 - below(c.p)) / (c.d - 1)
    assert (F(_field(text, "P(y | x)")), F(_field(text, "P(y | x')"))) == (p, pp)
    with localcontext() as ctx:
        ctx.prec = 50
        gap = (Decimal(p.numerator * pp.denominator) / Decimal(pp.numerator * p.denominator)).ln() - Decimal(1.0)
        spread = (1 - p) / p + (1 - pp) / pp
        n = Z**2 * Decimal(spread.numerator) / Decimal(spread.denominator) / gap**2
    assert f"about {float(n):.3g} outputs under each input" in text
    out = script_output(text, alone=True)
    assert f"exact ratio: {p / pp}" in out and out[-1] == "VIOLATED"


def test_report_of_rappor_with_an_impossible_output(tmp_path):
    label = "RAPPORClient f=convert_eps_to_f(5.0)"
    text = _report(tmp_path, label)
    (case,) = cases(label)
    c = case.spec.build()
    (row,) = audit_pureldp(only=label)
    x, y = int(row.witness[0]), eval(row.witness[2])
    assert f"- **Witness:** `x = {row.witness[0]}`, `x' = {row.witness[1]}`, `y = {row.witness[2]}`." in text
    ref = brute.distribution(lambda x, choose: rappor_reference(c, x, choose), x)
    assert F(_field(text, "P(y | x)")) == ref[y] and _field(text, "P(y | x')") == "0"
    n = math.exp(5.0) * math.log(1000) / float(ref[y])
    assert f"about {n:.3g} outputs under each input" in text
    out = script_output(text)
    assert "exact ratio: inf" in out and "with one of its own bits cleared: 0 of 20000" in "\n".join(out)


def test_no_report_without_a_violation_and_an_unwritable_folder(tmp_path, capsys):
    assert main(["audit", "pure-ldp", "--only", "HadamardResponseClient epsilon=0.5", "--report", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["audit", "pure-ldp", "--only", "DEClient epsilon=1.0, d=2", "--report", str(blocker / "in")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("wmcdp: error: cannot write the reports to")


def test_library_draws_agree_with_the_sketch_models():
    """HCMS, the private count sketch and count-sketch sketch response: the library's own reports against the
    exact models (their random.choices and numpy binomial draws included)."""
    rows = [
        r
        for o in ("is_hadamard=True, epsilon=1.0", "PCSClient epsilon=1.0", "count_sketch=True, epsilon=1.0")
        for r in audit_pureldp(sample=20_000, only=o, processes=1)
    ]
    assert len(rows) == 3 and all([s.draws for s in r.samples] == [20_000, 20_000] and r.model_agrees for r in rows)
    assert all(0 < s.detectable_relative < 1 for r in rows for s in r.samples)
