"""The tmlt audit: its models against 60-digit closed forms of the two-sided geometric (mpmath sums that
do not go through wmcdp), the certified verdicts, the command line, and the library's own draws against a
model. Skips without tmlt.core (``pip install 'wmcdp[tmlt]'``, in its own virtualenv: numpy < 2)."""

from __future__ import annotations

import json
from collections import Counter
import math
import sys
from fractions import Fraction as F

import pytest

pytest.importorskip("tmlt.core")
mpmath = pytest.importorskip("mpmath")

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit.tmlt import (  # noqa: E402
    audit_tmlt,
    cases,
    noise_outputs,
    partition_selection,
    sampler_scale,
    selection_outputs,
)
from wmcdp.base.certified import Real  # noqa: E402
from wmcdp.cli import main  # noqa: E402

mpmath.mp.dps = 60


def pmf(k: int, s: F) -> mpmath.mpf:
    """The two-sided geometric at scale s: (1 - q)/(1 + q) q^|k| with q = e^(-1/s)."""
    q = mpmath.exp(-1 / mpmath.mpf(s.numerator) * s.denominator)
    return (1 - q) / (1 + q) * q ** abs(k)


def mp(x: Real) -> mpmath.mpf:
    mid, rad = x.enclosure(300)
    return mpmath.mpf(mid.numerator) / mid.denominator


def test_noise_model_sums_the_pmf():
    s = sampler_scale(F(1, 3))
    assert s > F(1, 3) and s - F(1, 3) < F(1, 10**14)  # rounded up to a double
    for x, dist in zip((0, 2), noise_outputs(Real(f"exp(-1/({s}))"), 2)):
        below = mpmath.nsum(lambda k, x=x: pmf(int(k) - x, s), [-mpmath.inf, -1])
        above = mpmath.nsum(lambda k, x=x: pmf(int(k) - x, s), [3, mpmath.inf])
        inner = [pmf(k - x, s) for k in range(3)]
        for got, want in zip([dist[c] for c in range(5)], [below, *inner, above]):
            assert abs(mp(got) - want) < mpmath.mpf(10) ** -50


def test_geometric_epsilon_is_one_over_the_sampled_scale():
    (row,) = audit_tmlt(only="alpha=1/3, d_in=1")
    s = sampler_scale(F(1, 3))
    true = float(1 / mpmath.mpf(s.numerator) * s.denominator)
    assert row.verdict == "loose" and abs(row.epsilon - true) <= 2 * math.ulp(true) and true < 3


def test_partition_selection_delta_from_the_rounded_scale():
    """At epsilon 3 the threshold is 5 and the claim is 1/(e^9 + e^12) = q^4 / (1 + q) at q = e^-3; the
    noise is drawn at the scale 1/3 rounded up, whose larger q gives one user's partition a larger chance."""
    (case,) = cases("epsilon=3,")
    _, threshold, alpha, _, _ = partition_selection(case)
    assert (threshold, alpha) == (5, F(1, 3))
    s = sampler_scale(alpha)
    q = mpmath.exp(-1 / mpmath.mpf(s.numerator) * s.denominator)
    true = q**4 / (1 + q)
    claim = 1 / (mpmath.exp(9) + mpmath.exp(12))
    dist = selection_outputs(Real(f"exp(-1/({s}))"), threshold)[1]
    assert abs(mp(1 - dist[0]) - true) < mpmath.mpf(10) ** -50  # one user: released with probability q^4/(1+q)
    (row,) = audit_tmlt(only="epsilon=3,")
    assert true > claim and row.verdict == "VIOLATED" and row.epsilon == math.inf
    assert abs(row.delta - float(true)) <= 2 * math.ulp(float(true))


def test_library_draws_agree_with_the_model():
    (row,) = audit_tmlt(sample=5000, only="alpha=5/2", processes=1)
    assert [s.draws for s in row.samples] == [5000, 5000] and row.model_agrees


def test_command_line(capsys, monkeypatch):
    assert main(["audit", "tmlt", "--only", "epsilon=40", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["library"] == "tmlt" and out["rows"][0]["verdict"] == "VIOLATED"
    assert main(["audit", "tmlt", "--only", "alpha=10,"]) == 0
    assert "tight" in capsys.readouterr().out
    assert main(["audit", "tmlt", "--only", "nosuch"]) == 2
    assert "no case of the tmlt audit matches 'nosuch'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tmlt.core.measurements", None)
    with pytest.raises(WmcdpError, match=r"needs tmlt.core: pip install 'wmcdp\[tmlt\]'"):
        audit_tmlt(only="alpha=1,")


def test_discrete_gaussian_model_and_rho():
    """The model's probabilities against the discrete Gaussian's pmf summed by mpmath, and rho: the claim
    d^2 / (2 sigma^2) against d^2 / (2 s) at the rounded-up sigma^2 the sampler gets."""
    s = F(1, 3)
    (case,) = cases("sigma_squared=1/3,")
    from wmcdp.audit.tmlt import gauss_outputs, gauss_window, sampler_scale_of

    scale = sampler_scale_of("AddDiscreteGaussianNoise", s)
    w = gauss_window(scale)
    z = mpmath.nsum(
        lambda k: mpmath.exp(-(k**2) / (2 * mpmath.mpf(scale.numerator) / scale.denominator)), [-mpmath.inf, mpmath.inf]
    )
    dist = gauss_outputs(scale, 1)[1]  # input 1
    for k in (-3, 0, 1, 4):
        want = mpmath.exp(-((k - 1) ** 2) / (2 * mpmath.mpf(scale.numerator) / scale.denominator)) / z
        assert abs(mp(dist[k + w + 1]) - want) < mpmath.mpf(10) ** -50
    assert abs(mpmath.fsum(mp(p) for p in dist.values()) - 1) < mpmath.mpf(10) ** -50
    (row,) = audit_tmlt(only="sigma_squared=1/3,")
    assert row.verdict == "loose" and row.epsilon == pytest.approx(float(F(1) / (2 * scale)), rel=1e-15)
    assert row.epsilon < row.claimed == 1.5


def test_partition_selection_report_runs_with_tmlt_alone(tmp_path):
    """The report's script, with wmcdp unimportable, computes P(released | 1 user) = q^(threshold - 1) / (1 + q) at
    the scale AddGeometricNoise samples at (alpha rounded up to a double), above the claimed delta."""
    from reports import script_output

    label = "epsilon=3, delta=1/100000"
    assert main(["audit", "tmlt", "--only", label, "--report", str(tmp_path)]) == 1
    (path,) = tmp_path.iterdir()
    lines = script_output(path.read_text(), alone=True)
    s = F(float(lines[0].split("s = ")[1].split(" ")[0]))  # to_float(round_up=True): a few ulp above 1/3
    assert lines[0].startswith("threshold = 5, alpha = 1/3, sampled at") and s == sampler_scale(F(1, 3)) > F(1, 3)
    q = mpmath.exp(-1 / (mpmath.mpf(s.numerator) / s.denominator))
    printed = mpmath.mpf(lines[1].split("= ")[1])
    assert abs(printed - q**4 / (1 + q)) < mpmath.mpf(10) ** -40 and lines[-1] == "VIOLATED"


# -- SparseVectorPrefixSums ---------------------------------------------------------------------


def _window_geometric(q: F, w: int) -> dict[int, F]:
    """The two-sided geometric of ratio q on -w .. w (the mass outside, 2 q^(w+1)/(1 + q), left out)."""
    return {k: (1 - q) / (1 + q) * q ** abs(k) for k in range(-w, w + 1)}


def _svps_reference(counts, choose, bins: dict[int, F], noise: dict[int, F], fraction: float):
    """SparseVectorPrefixSums.call on one group, written from tmlt.core's source with every noise a choice:
    running sums by rank, threshold (max running sum * fraction) cast to long plus ``noise``, the first rank
    below the last whose sum plus a ``bins`` noise reaches it (the last rank otherwise)."""
    sums, total = [], 0
    for c in counts:
        total += c
        sums.append(total)
    threshold = int(float(max(sums)) * fraction) + choose(noise)
    for rank, s in enumerate(sums[:-1]):
        if s + choose(bins) >= threshold:
            return rank
    return len(counts) - 1


@pytest.mark.parametrize("counts", [(0, 3), (2, 0), (1, 0, 2), (2, -1, 1), (0, 0, 0)])
def test_prefix_sums_model_against_brute_force(counts):
    """At rational ratios q = 1/8 and r = 1/64 (so the enumeration is exact), the model's certified sums
    against every choice of the noises within 12 of 0, whose left-out mass bounds the difference."""
    from brute import distribution

    from wmcdp.audit.tmlt import svps_outputs

    q, r, w = F(1, 8), F(1, 64), 12
    bins, noise = _window_geometric(q, w), _window_geometric(r, w)
    want = distribution(lambda x, choose: _svps_reference(x, choose, bins, noise, 0.95), counts)
    (got,) = svps_outputs(Real("1/8"), Real("1/64"), [counts], 0.95)
    missing = 2 * r ** (w + 1) / (1 + r) + len(counts) * 2 * q ** (w + 1) / (1 + q)
    assert sum(want.values()) >= 1 - missing and set(got) == set(range(len(counts)))
    for rank, p in got.items():
        mid, rad = p.enclosure(200)
        assert abs(mid - want.get(rank, 0)) <= missing + rad and rad < F(1, 10**40)


def _float_dist(counts, alpha: F, fraction: float) -> dict[int, float]:
    """P(rank | counts) at the scales AddGeometricNoise samples at, in floats, every noise of the ranks that
    matter and of the threshold enumerated within 40 scales (numpy over the grid of their values)."""
    import numpy as np

    sums = np.cumsum(counts)
    t0 = int(float(sums.max()) * fraction)
    noises = []
    for s in (sampler_scale(alpha / 2), *[sampler_scale(alpha)] * (len(counts) - 1)):
        w = int(40 * s) + 1
        k = np.arange(-w, w + 1)
        q = math.exp(-1 / float(s))
        noises.append((k, (1 - q) / (1 + q) * q ** np.abs(k)))
    grids = np.meshgrid(*[k for k, _ in noises], indexing="ij")
    weight = np.ones(grids[0].shape)
    for axis, (_, p) in enumerate(noises):
        weight = weight * p.reshape([-1 if a == axis else 1 for a in range(len(noises))])
    threshold, bins = t0 + grids[0], grids[1:]
    rank = np.full(threshold.shape, len(counts) - 1)
    for j in reversed(range(len(counts) - 1)):  # the first crossing wins: lower ranks written last
        rank = np.where(sums[j] + bins[j] >= threshold, j, rank)
    return {j: float(weight[rank == j].sum()) for j in range(len(counts))}


def test_prefix_sums_epsilon_against_enumeration():
    """The certified epsilon of a case against max |ln P(y|x)/P(y|x')| over its neighbouring count vectors
    (one count apart) from the float enumeration; the claim is the library's privacy_function, 4 / alpha."""
    import itertools

    (row,) = audit_tmlt(only="ranks=2, counts=0..3, alpha=2,")
    inputs = list(itertools.product(range(4), repeat=2))
    dists = {x: _float_dist(x, F(2), 0.95) for x in inputs}
    ratios = {
        (repr(x), repr(xp), f"rank {y}"): math.log(dists[x][y] / dists[xp][y])
        for x, xp in itertools.permutations(inputs, 2)
        if sum(abs(a - b) for a, b in zip(x, xp)) == 1
        for y in dists[x]
    }
    best = max(ratios.values())
    assert abs(row.epsilon - best) < 1e-9 and ratios[row.witness] > best - 1e-9
    assert row.claimed == 2.0 and row.verdict == "loose" and best < 0.5


def test_prefix_sums_library_draws_agree_with_the_model():
    (row,) = audit_tmlt(sample=2000, only="ranks=2, counts=0..3, alpha=2,", processes=1)
    assert [s.draws for s in row.samples] == [2000, 2000] and row.model_agrees


def test_prefix_sums_draws_refute_a_wrong_scale(monkeypatch):
    """A model of noises at twice the sampled scales fails the sampling check: it can tell them apart."""
    import wmcdp.audit.tmlt as tmlt

    scale = tmlt.sampler_scale
    monkeypatch.setattr(tmlt, "sampler_scale", lambda alpha: 2 * scale(alpha))
    (row,) = audit_tmlt(sample=2000, only="ranks=2, counts=0..3, alpha=2,", processes=1)
    assert not row.model_agrees


@pytest.mark.filterwarnings("ignore:distutils Version classes are deprecated:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:In Python 3.6\\+ and Spark 3.0\\+:UserWarning")  # pyspark's own
def test_prefix_sums_spark_call_as_modelled(tmp_path):
    """SparseVectorPrefixSums's own call, run in Spark: at alpha = 0 (AddGeometricNoise(0) adds nothing) on
    every vector of 3 counts in -1..2, each a group, it returns the rank the model's selection gives (running
    sums, the threshold max running sum * 1/2 truncated toward zero, first crossing, last rank else); at
    alpha = 2 on 2000 groups of the counts (0, 2), its ranks agree with the model's probabilities (chi-square)."""
    import itertools
    import shutil

    if shutil.which("java") is None:
        pytest.skip("Spark needs java")
    pytest.importorskip("pyspark")
    import pandas as pd
    from pyspark.sql import SparkSession
    from scipy.stats import chisquare
    from tmlt.core.domains.spark_domains import SparkDataFrameDomain, SparkIntegerColumnDescriptor
    from tmlt.core.measurements.spark_measurements import SparseVectorPrefixSums

    from wmcdp.audit.tmlt import first_rank, prefix_sums, svps_outputs, svps_threshold

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(tmp_path))  # tmlt.core materializes tables there
        .getOrCreate()
    )
    columns = ("group", "rank", "count")
    domain = SparkDataFrameDomain(schema={c: SparkIntegerColumnDescriptor() for c in columns})

    def ranks(groups, alpha, fraction):
        rows = [(g, rank, c) for g, counts in enumerate(groups) for rank, c in enumerate(counts)]
        df = spark.createDataFrame(pd.DataFrame(rows, columns=list(columns)))
        m = SparseVectorPrefixSums(domain, "count", "rank", alpha, ["group"], threshold_fraction=fraction)
        return dict(m(df).toPandas()[["group", "rank"]].itertuples(index=False))

    grid = list(itertools.product(range(-1, 3), repeat=3))
    got = ranks(grid, 0, 0.5)
    assert got == {g: first_rank(prefix_sums(x), svps_threshold(x, 0.5)) for g, x in enumerate(grid)}
    drawn = Counter(ranks([(0, 2)] * 2000, 2, 0.95).values())
    (dist,) = svps_outputs(
        Real(f"exp(-1/({sampler_scale(F(2))}))"), Real(f"exp(-1/({sampler_scale(F(1))}))"), [(0, 2)], 0.95
    )
    assert chisquare([drawn[0], drawn[1]], [2000 * float(dist[0]), 2000 * float(dist[1])]).pvalue > 1e-3


def test_every_public_measurement_is_listed():
    """Every measurement class and create_* function tmlt.core's measurement modules define is named in a row
    of the coverage (docs/audits.md's table), abstract bases aside."""
    import importlib
    import inspect
    import pkgutil
    import re

    import tmlt.core.measurements as package
    from tmlt.core.measurements.base import Measurement

    from wmcdp.audit.tmlt import MECHANISMS

    public = set()
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__ or name.startswith("_"):
                continue
            if inspect.isclass(value) and issubclass(value, Measurement) and not inspect.isabstract(value):
                public.add(name)
            elif (
                inspect.isfunction(value)
                and name.startswith("create_")
                and name.endswith(("measurement", "composition"))
            ):
                public.add(name)
    listed = {n for m in MECHANISMS for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", m.name + " " + m.note)}
    assert len(public) > 20 and public <= listed, sorted(public - listed)
