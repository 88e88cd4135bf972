"""Audit Tumult's tmlt.core 0.20: geometric noise and geometric partition selection, certified.

tmlt.core samples exactly: its geometric noise comes from Canonne, Kamath and Steinke's samplers over
rationals and uniform integers (``random/discrete_gaussian.py``), so the distribution is the ideal one —
at the noise scale the sampler is given, which is ``alpha.to_float(round_up=True)``: the claimed scale
rounded *up* to a double (``measurements/noise_mechanisms.py``, ``AddGeometricNoise.__call__``). Its
probabilities are powers of ``q = e^(-1/s)``, irrational, so the audit computes with exact reals and
certified enclosures (:mod:`wmcdp.base.certified`): a verdict is decided by the enclosure, never by a float.

* ``AddGeometricNoise(alpha)`` claims ``d_in / alpha``-DP (``privacy_function``). Its output is the input plus
  a noise with ``P(k) = (1 − q)/(1 + q) · q^|k|``, so every pair of inputs ``d_in`` apart has the ratios of
  ``0`` and ``d_in``; the likelihood ratio of an output ``k`` is ``q^(|k| − |k − d_in|)``, the same for every
  ``k <= 0`` and for every ``k >= d_in``. The model's outputs are ``k`` in ``0 .. d_in`` and the two tails
  (each tail merges outputs of one ratio, which changes neither the largest ratio nor a hockey-stick sum):
  the certified pure epsilon of the model is the mechanism's.
* ``GeometricPartitionSelection`` from ``create_partition_selection_measurement(epsilon, delta)``
  (``measurements/aggregations.py``) releases a partition's count plus that noise when it reaches the
  threshold (``spark_measurements.py``, ``GeometricPartitionSelection.call``) and claims the
  ``(epsilon, delta)`` its ``privacy_function(1)`` returns (exact expressions, enclosed as exact reals).
  One user's partition: counts ``n = 0`` (absent: never released) to ``threshold + 1``; outputs
  "dropped", each released count up to ``threshold + 2`` and the tail above (one ratio, ``q``, for every
  pair of counts there). For counts ``n, n + 1 >= 1`` every ratio is within ``1/q``: a released count's is
  ``q^(±1)``, and dropping's is ``P(Z <= m) / P(Z <= m − 1)``, which is ``1/q`` for ``m <= 0`` and
  ``(1 + q − q^(m+1)) / (1 + q − q^m) < 1/q`` above; so at the claimed ``epsilon >= 1/s`` only the pair
  (absent, one user) adds to delta, and the window
  holds it and its neighbours. The audit encloses the tight delta at the claimed epsilon and compares it with
  the claimed delta.

* ``AddDiscreteGaussianNoise(sigma_squared)`` claims ``rho = d_in^2 / (2 sigma^2)``-zCDP and samples at
  ``sigma_squared.to_float(round_up=True) = s``. Shifted by an integer, a discrete Gaussian has
  ``D_α = α d_in^2 / (2 s)`` at every integer order and at most that at the others (Canonne, Kamath and
  Steinke 2020, Proposition 5: the tight rho is ``d_in^2 / (2 s)``); the verdict compares these rationals.
  wmcdp checks the closed form on the model: outputs ``−W .. d_in + W`` with both tails merged (``W`` past
  which each tail holds less than ``2^-200``; merging can only lower a divergence), the normaliser an
  exact real (a partial sum and the bound of its tail), and the certified ``D_2`` must lie within
  ``2^-100`` relative below ``2 d_in^2 / (2 s)`` — else the audit stops with an error.

* ``SparseVectorPrefixSums(alpha, threshold_fraction)`` (``spark_measurements.py``) claims ``4 d_in / alpha``
  (``privacy_function``). Its ``call`` on one group of counts ``c_0 .. c_{m-1}`` (by rank): running sums
  ``S_j``; the threshold ``T = (max_j S_j * threshold_fraction).cast("long") + AddGeometricNoise(alpha / 2)``
  (a double product truncated toward zero); ``S_j + AddGeometricNoise(alpha)`` per rank; the first rank whose
  noisy sum reaches ``T``, else the last rank (whose noise never matters). Given ``T = t`` the ranks' noises are
  independent, so ``P(k) = Σ_t P(T = t) Π_{j<k} P(N_j < t) P(N_k >= t)`` over every integer ``t``: the model
  sums the thresholds within ``w`` of the unnoised one and encloses the rest by their mass, ``2 r^(w+1)/(1 + r)``
  (each term is at most ``P(T = t)``), with ``w`` growing with the working precision (:func:`crossing`). The
  audit takes every vector of a few counts in a small range and every two of them ``d_in`` apart in the sum
  of absolute differences (the input metric ``OnColumn(count, SumOf(AbsoluteDifference()))``).

With ``--sample K``, the library's own ``AddGeometricNoise`` draws ``K`` noises on each input of the witness
(for partition selection, then the threshold of its ``call``; the Spark group-by around it is not run),
``AddDiscreteGaussianNoise`` its own noise (tails merged as in the model), and ``SparseVectorPrefixSums`` its
noises through ``AddNoiseToSeries`` as its ``call`` adds them, the rank chosen as its Spark filter does (Spark
itself runs in the tests only: a session takes tens of seconds).

Needs the optional extra ``pip install 'wmcdp[tmlt]'`` (tmlt.core 0.20 and scipy); tmlt.core needs numpy below
2, so it lives in its own virtual environment.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..base.certified import Real, arb_of, float_bracket
from ..base.errors import WmcdpError
from ..lang import IntVector, Program, discrete
from ..notions.approximate import synthesize_approximate
from ..notions.privacy import synthesize_privacy
from ..notions.renyi import synthesize_renyi
from .core import (
    AuditCase,
    AuditedLibrary,
    AuditRow,
    Mechanism,
    Modelled,
    certified_verdict,
    choice_program,
    library,
    with_tight_delta,
)


def _tmlt() -> Any:
    return library("tmlt.core.measurements.noise_mechanisms", "tmlt", "tmlt.core", "tmlt")


#: the version of the library the models follow
MODELLED = "0.20.0"


@dataclass(frozen=True, kw_only=True)
class Measurement:
    """A case's measurement (its :class:`~wmcdp.audit.core.AuditCase`'s ``spec``): ``AddGeometricNoise(alpha)``
    or ``AddDiscreteGaussianNoise(sigma_squared)`` at ``d_in``, partition selection at a requested
    ``(epsilon, delta)``, or ``SparseVectorPrefixSums(alpha, threshold_fraction)`` on every vector of ``ranks``
    counts in ``counts`` (low, high), neighbours ``d_in`` apart in the sum of absolute differences."""

    mechanism: str  # a name of CLAIMS
    alpha: Fraction | None = None  # the geometric's alpha, or the discrete Gaussian's sigma^2
    d_in: int = 1
    epsilon: Fraction | None = None
    delta: Fraction | None = None
    ranks: int = 0
    counts: tuple[int, int] = (0, 0)
    fraction: float = 0.95

    @property
    def params(self) -> str:
        if self.mechanism == "SparseVectorPrefixSums":
            low, high = self.counts
            return (
                f"ranks={self.ranks}, counts={low}..{high}, alpha={self.alpha}, threshold_fraction={self.fraction}, "
                f"d_in={self.d_in}"
            )
        if self.mechanism == "AddGeometricNoise":
            return f"alpha={self.alpha}, d_in={self.d_in}"
        if self.mechanism == "AddDiscreteGaussianNoise":
            return f"sigma_squared={self.alpha}, d_in={self.d_in}"
        return f"epsilon={self.epsilon}, delta={self.delta}"


#: how every tmlt.core model is validated
VALIDATION = "the library's own noise on the witness's two inputs against the model (chi-square)"
#: where each measurement's claim is read
CLAIMS = {
    "AddGeometricNoise": "pure epsilon = d_in / alpha (privacy_function)",
    "AddDiscreteGaussianNoise": "rho = d_in^2 / (2 sigma_squared), zCDP (privacy_function)",
    "GeometricPartitionSelection": "(epsilon, delta) = privacy_function(1)",
    "SparseVectorPrefixSums": "pure epsilon = privacy_function(d_in) = 4 d_in / alpha",
}


def _case(spec: Measurement) -> AuditCase:
    """The case of one measurement: its claim from :data:`CLAIMS`, its model certified, its draws the library's."""
    return AuditCase(
        library="tmlt",
        mechanism=spec.mechanism,
        params=spec.params,
        claim=CLAIMS[spec.mechanism],
        model=_sampled_row,
        draw=draw_counts,
        validation=VALIDATION,
        spec=spec,
    )


def _cases() -> list[AuditCase]:
    """Every tmlt.core case, in the order the audit runs and shows them."""
    out = [
        _case(Measurement(mechanism="AddGeometricNoise", alpha=Fraction(a), d_in=d))
        for a, d in (("1/3", 1), ("1", 1), ("5/2", 1), ("10", 1), ("1/10", 2), ("1/3", 2))
    ]
    out += [
        _case(Measurement(mechanism="AddDiscreteGaussianNoise", alpha=Fraction(v), d_in=d))
        for v, d in (("1/3", 1), ("1", 2), ("1/100", 1))
    ]
    out += [
        _case(Measurement(mechanism="GeometricPartitionSelection", epsilon=Fraction(e), delta=Fraction(d)))
        for e, d in (("1", "1e-5"), ("3", "1e-5"), ("1/2", "1e-10"), ("5/2", "1e-16"), ("40", "1e-5"))
    ]
    out += [
        _case(Measurement(mechanism="SparseVectorPrefixSums", alpha=Fraction(a), d_in=d, ranks=m, counts=c, fraction=f))
        for m, c, a, f, d in (
            (2, (0, 3), "2", 0.95, 1),
            (3, (0, 2), "2", 0.95, 1),
            (3, (0, 2), "4", 0.5, 1),
            (3, (-1, 1), "2", 0.95, 1),
            (2, (0, 3), "1/2", 1.0, 1),
            (3, (0, 2), "2", 0.95, 2),
        )
    ]
    return out


#: the public measurements of tmlt.core with a discrete output, described once
MECHANISMS = (
    Mechanism(
        "AddGeometricNoise",
        "audited",
        "claim `d_in / alpha`; inputs 0 and `d_in` (the output is the input "
        "plus a noise that does not depend on it); outputs `k` in `0 .. d_in` and the two tails, each tail "
        "merging outputs of one likelihood ratio",
    ),
    Mechanism(
        "AddDiscreteGaussianNoise",
        "audited",
        "claim ρ = `d_in² / (2 sigma_squared)` (zCDP); the tight ρ "
        "is `d_in² / (2 s)` at the sampled `s` (Canonne, Kamath and Steinke 2020, Prop. 5), checked against "
        "the certified `D_2` of the model (outputs `−W .. d_in + W`, both tails merged, each under 2^-200)",
    ),
    Mechanism(
        "GeometricPartitionSelection",
        "audited",
        "from `create_partition_selection_measurement(epsilon, "
        "delta)`, claim `privacy_function(1)`; one partition's user count 0 (absent) to threshold + 1; "
        'outputs "dropped", the released counts up to threshold + 2 and the tail above; the tight δ at the '
        "claimed ε against the claimed δ (the library's exact expression)",
    ),
    Mechanism("AddLaplaceNoise", "not auditable", "continuous output (float Laplace noise)"),
    Mechanism("AddGaussianNoise", "not auditable", "continuous output (float Gaussian noise)"),
    Mechanism(
        "SparseVectorPrefixSums",
        "audited",
        "claim `privacy_function(d_in)` = `4 d_in / alpha`; every vector of 2 or 3 counts in a small range "
        "(negative counts too), neighbours `d_in` apart in the sum of absolute differences; outputs the ranks, "
        "each a sum over the unbounded noisy threshold as a certified series (the thresholds within `w` of the "
        "unnoised one, the rest bounded by their mass, `w` growing with the precision); sampled with the "
        "library's `AddNoiseToSeries(AddGeometricNoise(...))` as `call` applies them, the rank chosen as its "
        "Spark filter does (the tests run `call` itself in Spark)",
    ),
    Mechanism(
        "`AddNoiseToSeries`, `AddNoiseToColumn`",
        "not auditable",
        "wrappers of the noise measurements above, on a pandas Series or a Spark column: the audited models apply "
        "to each value",
    ),
    Mechanism(
        "NoisyQuantile",
        "not auditable",
        "continuous output (a float drawn uniformly in the interval the exponential mechanism picks); "
        "`create_quantile_measurement` builds it",
    ),
    Mechanism(
        "`Aggregate`, `AggregateByColumn`, `ApplyInPandas`",
        "not auditable",
        "no mechanism of their own: a pandas aggregation measurement (the noise measurements above, "
        "`NoisyQuantile`) applied per column or per group",
    ),
    Mechanism(
        "`create_count_measurement`, `create_count_distinct_measurement`, `create_sum_measurement`",
        "not auditable",
        "no mechanism of their own: a Spark aggregate plus one of the noise measurements above (the audited "
        "models apply to the noisy value; Laplace noise for float sums is continuous)",
    ),
    Mechanism(
        "`create_average_measurement`, `create_variance_measurement`, `create_standard_deviation_measurement`",
        "not auditable",
        "continuous output: float arithmetic on noisy sums and counts, each noise one of the measurements above",
    ),
    Mechanism(
        "create_bounds_measurement",
        "planned",
        "the rank `SparseVectorPrefixSums` (audited) returns over a histogram of the column in power-of-two "
        "buckets, mapped to a bound; its claim composes the histogram's stability with that rank's, and a model "
        "over records and buckets is not built",
    ),
    Mechanism(
        "`PureDPToRhoZCDP`, `PureDPToApproxDP`, `RhoZCDPToApproxDP`",
        "not auditable",
        "no output of their own: the inner measurement's guarantee restated in another notion",
    ),
    Mechanism(
        "`Composition`, `SequentialComposition`, `ParallelComposition`, `ChainTM`, `PostProcess`, "
        "`NonInteractivePostProcess`, `DecorateQueryable`, `MakeInteractive`, `DerivedMeasurement`, "
        "`create_adaptive_composition`",
        "not auditable",
        "combinators: composition, post-processing or interactivity of other measurements, with no noise of their own",
    ),
)


#: tmlt.core as an audited library
def _neighbours(case: AuditCase) -> str:
    return "inputs within d_in under the measurement's input metric"


LIBRARY = AuditedLibrary("tmlt", "tmlt", "tmlt.core", "tmlt", __name__, _tmlt, _cases, MECHANISMS, _neighbours)
cases = LIBRARY.cases
audit_tmlt = LIBRARY.audit
tmlt_version = LIBRARY.version


def sampler_scale(alpha: Fraction) -> Fraction:
    """The scale ``AddGeometricNoise`` samples at: ``alpha`` rounded up to a double, as the library does."""
    return sampler_scale_of("AddGeometricNoise", alpha)


def sampler_scale_of(mechanism: str, value: Fraction) -> Fraction:
    """The noise parameter the library's sampler gets: the measurement's own ``alpha`` or ``sigma_squared``
    rounded up to a double (``to_float(round_up=True)``)."""
    noise = _tmlt()
    m = getattr(noise, mechanism)(value)
    exact = m.alpha if mechanism == "AddGeometricNoise" else m.sigma_squared
    return Fraction(exact.to_float(round_up=True))


def _q(scale: Fraction) -> Real:
    return Real(f"exp(-1/({scale.numerator}/{scale.denominator}))")


def _choice_program(name: str, dists: list[dict[int, Any]]) -> Program:
    """The model as a program: input ``i`` (neighbours one apart) draws the codes of ``dists[i]``."""
    return Program(
        name, IntVector(1, 0, len(dists) - 1), lambda x: discrete(lambda i: dists[i], x[0]), neighbours="one-entry"
    )


# -- AddGeometricNoise --------------------------------------------------------------------------


def noise_outputs(q: Real, d: int) -> list[dict[int, Real]]:
    """The model's output distributions for inputs 0 and ``d``: code 0 is ``k < 0``, code ``k + 1`` is
    ``k`` in ``0 .. d``, code ``d + 2`` is ``k > d``."""
    c = (1 - q) / (1 + q)
    out = []
    for x in (0, d):
        dist = {0: q ** (x + 1) / (1 + q)}  # k <= -1: noise <= -(x + 1)
        for k in range(d + 1):
            dist[k + 1] = c * q ** abs(k - x)
        dist[d + 2] = q ** (d + 1 - x) / (1 + q)  # k >= d + 1: noise >= d + 1 - x
        out.append(dist)
    return out


def _noise_program(case: AuditCase) -> Program:
    assert case.spec.alpha is not None
    dists = noise_outputs(_q(sampler_scale(case.spec.alpha)), case.spec.d_in)
    return _choice_program("tmlt_geometric", dists)


# -- AddDiscreteGaussianNoise ------------------------------------------------------------------

#: each merged tail of the discrete Gaussian model holds less than 2^-TAIL_BITS
TAIL_BITS = 200


def _gauss_tail(s: Fraction, m: int) -> Real:
    """``Σ_{j > m} e^(−j²/(2s))`` for ``m >= 0`` as an exact real: a partial sum to a depth fixed by the
    working precision, and the rest bounded by a geometric series (consecutive terms shrink by at least
    ``e^(−(2K + 3)/(2s))`` past ``K``)."""

    def ball() -> Any:
        import flint  # deferred: python-flint (77 ms to import) only when a ball is computed

        depth = m + 1 + math.isqrt(int(2 * s * (flint.ctx.prec + 16)) + 1) + 2
        total = sum((_gauss_exp(s, j) for j in range(m + 1, depth + 1)), flint.arb(0))
        ratio = _gauss_exp(s, 1) ** (2 * depth + 3)  # e^(-(2 depth + 3)/(2s))
        rest = _gauss_exp(s, depth + 1) / (1 - ratio)
        return total + flint.arb(0, rest.mid() + rest.rad())

    return Real(f"sum over j > {m} of exp(-j^2/(2*{s}))", ball=ball)


def _gauss_term(s: Fraction, k: int) -> Real:
    return Real(f"exp(-{k * k}/(2*{s}))", ball=lambda: _gauss_exp(s, k))


def _gauss_exp(s: Fraction, k: int) -> Any:
    """The ball of ``e^(−k²/(2s))`` at the working precision."""
    import flint  # deferred: python-flint (77 ms to import) only when a ball is computed

    return (-flint.arb(k * k) / (2 * arb_of(s))).exp()


def gauss_window(s: Fraction) -> int:
    """``W``: each tail past ``W`` holds less than ``2^-TAIL_BITS`` (``e^(−W²/(2s)) < 2^-(TAIL_BITS + 4)``)."""
    return math.isqrt(int(2 * s * (TAIL_BITS + 4) * math.log(2)) + 1) + 2


def gauss_outputs(s: Fraction, d: int) -> list[dict[int, Real]]:
    """The model's output distributions for inputs 0 and ``d``: code 0 is ``k < −W``, code ``k + W + 1`` is
    ``k`` in ``−W .. d + W``, the last code ``k > d + W``."""
    w = gauss_window(s)
    z = 1 + 2 * _gauss_tail(s, 0)
    out = []
    for x in (0, d):
        dist: dict[int, Real] = {0: _gauss_tail(s, w + x) / z}  # k < -w: noise below -(w + x)
        for k in range(-w, d + w + 1):
            dist[k + w + 1] = _gauss_term(s, k - x) / z
        dist[d + 2 * w + 2] = _gauss_tail(s, d + w - x) / z  # k > d + w: noise above d + w - x
        out.append(dist)
    return out


def _gauss_row(case: AuditCase) -> tuple[AuditRow, list[dict[int, Any]], tuple[int, int]]:
    """The claimed rho ``d_in^2 / (2 sigma_squared)`` against the tight one at the sampled variance."""
    assert case.spec.alpha is not None
    s = sampler_scale_of("AddDiscreteGaussianNoise", case.spec.alpha)
    claim = Fraction(case.spec.d_in**2) / (2 * case.spec.alpha)
    params = case.params + f" (sampled at sigma_squared={float(s)!r})"
    row, dists = discrete_gaussian_row(case, params, s, float(claim), float_bracket(claim), ("0", str(case.spec.d_in)))
    return row, dists, (0, 1)


def discrete_gaussian_row(
    case: AuditCase,
    params: str,
    s: Fraction,
    claimed: float,
    claim: tuple[float, float],
    shown: tuple[str, str],
) -> tuple[AuditRow, list[dict[int, Real]]]:
    """The row of a discrete Gaussian of variance ``s`` added to two integer inputs ``d = case.spec.d_in`` apart
    (shown as ``shown``), which claims the zCDP ``claimed`` (known to lie in ``claim``): the tight rho is
    ``d^2 / (2 s)`` (the module docstring), checked against the certified ``D_2`` of the merged model
    (:func:`gauss_outputs`, whose distributions come back with the row); a disagreement stops the audit."""
    d = case.spec.d_in
    true = Fraction(d * d) / (2 * s)
    dists = gauss_outputs(s, d)
    r = synthesize_renyi(_choice_program("discrete_gaussian", dists), [2], certified=True)
    (interval,) = r.intervals or ()
    closed = float(2 * true)
    if not (interval.lo <= closed and interval.hi >= closed * (1 - 2.0**-40)):
        raise WmcdpError(
            f"{case.label}: the certified D_2 of the model, [{interval.lo!r}, {interval.hi!r}], disagrees with "
            f"the closed form 2 rho = {closed!r}"
        )
    t_low, t_high = float_bracket(true)
    row = AuditRow(
        case.mechanism,
        params,
        d,
        claimed,
        t_high,
        None,
        certified_verdict(*claim, t_low, t_high),
        (*shown, "rho (zCDP)"),
        0.0,
    )
    return row, dists


# -- partition selection ------------------------------------------------------------------------


def partition_selection(case: AuditCase) -> tuple[Any, int, Fraction, float, tuple[float, float]]:
    """The library's measurement for the case: ``(measurement, threshold, alpha, claimed epsilon, claimed
    delta as the floats just below and above it)``. The claimed delta is the library's exact expression
    (such as ``1/(exp(9) + exp(12))``), enclosed as an exact real: its ``to_float(round_up=True)`` adds a
    margin of its own."""
    # deferred: tmlt.core is an optional extra (in its own virtualenv)
    from tmlt.core.domains.spark_domains import SparkDataFrameDomain, SparkStringColumnDescriptor
    from tmlt.core.measurements.aggregations import create_partition_selection_measurement

    domain = SparkDataFrameDomain(schema={"A": SparkStringColumnDescriptor()})
    m = create_partition_selection_measurement(domain, case.spec.epsilon, case.spec.delta)
    eps, delta = m.privacy_function(1)
    alpha = Fraction(str(m.alpha.expr))
    return m, int(m.threshold), alpha, float(Fraction(str(eps.expr))), real_bracket(Real(str(delta.expr)))


def real_bracket(x: Real) -> tuple[float, float]:
    """Floats just below and above an exact real."""
    mid, rad = x.enclosure(256)
    return float_bracket(mid - rad)[0], float_bracket(mid + rad)[1]


def selection_outputs(q: Real, threshold: int) -> list[dict[int, Real]]:
    """``P(output | n)`` for ``n = 0 .. threshold + 1``: code 0 dropped, ``c − threshold + 1`` the released
    count ``c`` in ``threshold .. threshold + 2``, and the last code the counts above."""
    top = threshold + 2
    c = (1 - q) / (1 + q)
    out: list[dict[int, Real | Fraction]] = [{0: Fraction(1)}]
    for n in range(1, threshold + 2):
        dist: dict[int, Real | Fraction] = {}
        for count in range(threshold, top + 1):
            dist[count - threshold + 1] = c * q ** abs(count - n)
        dist[top - threshold + 2] = q ** (top + 1 - n) / (1 + q)  # counts above top (top >= n + 1)
        released = sum(dist.values(), Fraction(0))
        dist[0] = 1 - released
        out.append(dist)
    return out  # type: ignore[return-value]


def _selection_program(q: Real, threshold: int) -> Program:
    dists = selection_outputs(q, threshold)
    return _choice_program("tmlt_partition_selection", dists)


# -- SparseVectorPrefixSums ---------------------------------------------------------------------


def prefix_sums(counts: tuple[int, ...]) -> list[int]:
    """The running sums of the counts in rank order (``sf.sum(count).over(window ordered by rank)``)."""
    return list(itertools.accumulate(counts))


def svps_threshold(counts: tuple[int, ...], fraction: float) -> int:
    """The threshold before its noise: ``(max prefix sum * threshold_fraction).cast("long")``, a double product
    truncated toward zero, as Spark computes it."""
    return int(float(max(prefix_sums(counts))) * fraction)


def first_rank(noisy: Sequence[int], threshold: int) -> int:
    """The rank ``call`` returns: the first whose noisy prefix sum reaches the noisy threshold, else the last
    (the filter keeps the last rank whatever its sum, and ``row_number() == 1`` keeps the first kept)."""
    return next((j for j, v in enumerate(noisy[:-1]) if v >= threshold), len(noisy) - 1)


def svps_outputs(
    q: Real, r: Real, inputs: Sequence[tuple[int, ...]], fraction: float
) -> list[dict[Hashable, Real | Fraction]]:
    """``P(rank | counts)`` for each input: with ``T`` the noisy threshold (ratio ``r``) and ``N_j`` the noisy
    prefix sums (ratio ``q``), ``P(k) = Σ_t P(T = t) Π_{j<k} P(N_j < t) P(N_k >= t)`` for ``k`` below the last
    rank (:func:`crossing`), and the last rank gets the rest."""
    out = []
    for counts in inputs:
        sums, t0 = prefix_sums(counts), svps_threshold(counts, fraction)
        dist: dict[Hashable, Real | Fraction] = {k: crossing(q, r, sums, t0, k) for k in range(len(counts) - 1)}
        dist[len(counts) - 1] = 1 - sum(dist.values(), Fraction(0))
        out.append(dist)
    return out


def crossing(q: Real, r: Real, sums: Sequence[int], t0: int, k: int) -> Real:
    """``P(first crossing at rank k)`` as an exact real: the sum over thresholds ``t`` within ``w`` of ``t0``,
    where ``P(T = t) = (1 − r)/(1 + r) r^|t − t0|`` and ``P(N_j < t) = G(t − S_j)`` with ``G(z) = q^(1−z)/(1 + q)``
    for ``z <= 0`` and ``1 − q^z/(1 + q)`` above; every term is at most ``P(T = t)``, so the thresholds outside
    the window add a number in ``[0, 2 r^(w+1)/(1 + r)]`` (the ball's radius holds it). ``w`` grows with the
    working precision: the rest stays below ``2^-(precision + 8)``."""

    def ball() -> Any:
        import flint  # deferred: python-flint (77 ms to import) only when a ball is computed

        qb, rb = q.ball(flint.ctx.prec), r.ball(flint.ctx.prec)
        w = math.ceil((flint.ctx.prec + 8) * math.log(2) / -math.log(float(rb.mid()))) + 1
        q_pow = _powers(qb, max(1 + max(sums) - t0, t0 - min(sums)) + w + 1)
        r_pow = _powers(rb, w + 2)

        def below(t: int, s: int) -> Any:  # P(N < t) for N = s + noise
            z = t - s
            return q_pow[1 - z] / (1 + qb) if z <= 0 else 1 - q_pow[z] / (1 + qb)

        total = flint.arb(0)
        for t in range(t0 - w, t0 + w + 1):
            term = r_pow[abs(t - t0)] * (1 - below(t, sums[k]))
            for s in sums[:k]:
                term *= below(t, s)
            total += term
        rest = 2 * r_pow[w + 1] / (1 + rb)
        return (1 - rb) / (1 + rb) * total + flint.arb(0, rest.mid() + rest.rad())

    return Real(f"P(first crossing at rank {k} | prefix sums {list(sums)}, threshold {t0})", ball=ball)


def _powers(x: Any, n: int) -> list[Any]:
    """``[x^0, ..., x^n]`` as balls."""
    out = [x**0]
    for _ in range(n):
        out.append(out[-1] * x)
    return out


def svps_inputs(spec: Measurement) -> list[tuple[int, ...]]:
    """Every vector of ``spec.ranks`` counts in ``spec.counts`` (one count per rank, ranks 0, 1, ...)."""
    low, high = spec.counts
    return list(itertools.product(range(low, high + 1), repeat=spec.ranks))


def within(d_in: int, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Neighbours under the measurement's input metric ``OnColumn(count, SumOf(AbsoluteDifference()))`` at
    ``d_in``: ``0 < Σ |a_i − b_i| <= d_in``."""
    return 0 < sum(abs(u - v) for u, v in zip(a, b)) <= d_in


def svps_measurement(spec: Measurement) -> Any:
    """The library's ``SparseVectorPrefixSums`` of the case, on a DataFrame of integer columns rank and count."""
    # deferred: tmlt.core is an optional extra (in its own virtualenv)
    from tmlt.core.domains.spark_domains import SparkDataFrameDomain, SparkIntegerColumnDescriptor
    from tmlt.core.measurements.spark_measurements import SparseVectorPrefixSums

    columns = {"rank": SparkIntegerColumnDescriptor(), "count": SparkIntegerColumnDescriptor()}
    return SparseVectorPrefixSums(
        SparkDataFrameDomain(schema=columns), "count", "rank", spec.alpha, threshold_fraction=spec.fraction
    )


def _svps_modelled(case: AuditCase) -> Modelled:
    """The claim ``privacy_function(d_in)`` against the certified epsilon over every pair of neighbouring
    inputs of the grid; the witness's two inputs are sampled."""
    spec = case.spec
    assert spec.alpha is not None
    claim = Fraction(str(svps_measurement(spec).privacy_function(spec.d_in).expr))
    inputs = svps_inputs(spec)
    q, r = _q(sampler_scale(spec.alpha)), _q(sampler_scale(spec.alpha / 2))
    dists = svps_outputs(q, r, inputs, spec.fraction)
    prog, outputs, relation = choice_program(case.mechanism, inputs, functools.partial(within, spec.d_in), dists)
    res = synthesize_privacy(prog, "exhaustive", neighbours=relation, force=True, certified=True)
    i, j, y = res.witness.x[0], res.witness.x_prime[0], outputs[res.witness.y]
    row = AuditRow(
        case.mechanism,
        case.params,
        spec.d_in,
        float(claim),
        res.interval.hi,
        None,
        certified_verdict(*float_bracket(claim), res.interval.lo, res.interval.hi),
        (repr(inputs[i]), repr(inputs[j]), f"rank {y}"),
        0.0,
        witness_probabilities=(repr(float(dists[i][y])), repr(float(dists[j][y]))),
    )
    row = with_tight_delta(row, prog, relation, certified=True)
    return row, [(repr(inputs[k]), _floats(dists[k]), inputs[k]) for k in (i, j)]


def _svps_draws(case: AuditCase, counts: tuple[int, ...], draws: int) -> Counter[int]:
    """``draws`` ranks from the library's own noise as ``call`` adds it: ``AddNoiseToSeries(AddGeometricNoise(
    alpha))`` on the prefix sums and ``AddNoiseToSeries(AddGeometricNoise(alpha / 2))`` on the threshold, the
    rank then chosen as ``call``'s Spark filter chooses it (:func:`first_rank`; Spark itself is not run)."""
    # deferred: pandas and tmlt.core come with the tmlt extra
    import pandas as pd
    from tmlt.core.measurements.pandas_measurements.series import AddNoiseToSeries

    noise, spec, m = _tmlt(), case.spec, len(counts)
    sums = pd.Series(prefix_sums(counts) * draws, dtype="int64")
    bins = AddNoiseToSeries(noise.AddGeometricNoise(spec.alpha))(sums).tolist()
    start = pd.Series([svps_threshold(counts, spec.fraction)] * draws, dtype="int64")
    thresholds = AddNoiseToSeries(noise.AddGeometricNoise(spec.alpha / 2))(start).tolist()
    return Counter(first_rank(bins[n * m : (n + 1) * m], t) for n, t in enumerate(thresholds))


# -- verdicts -----------------------------------------------------------------------------------


def draw_counts(case: AuditCase, x: Any, draws: int) -> Counter[Any]:
    """The library's own noise on input ``x`` (an integer, or a vector of counts for ``SparseVectorPrefixSums``;
    codes as the model's outputs)."""
    if case.mechanism == "SparseVectorPrefixSums":
        return _svps_draws(case, x, draws)
    noise = _tmlt()
    if case.mechanism == "AddDiscreteGaussianNoise":
        assert case.spec.alpha is not None
        g, w = (
            noise.AddDiscreteGaussianNoise(case.spec.alpha),
            gauss_window(sampler_scale_of(case.mechanism, case.spec.alpha)),
        )
        return Counter(min(max(g(x * case.spec.d_in), -w - 1), case.spec.d_in + w + 1) + w + 1 for _ in range(draws))
    if case.mechanism == "AddGeometricNoise":
        m = noise.AddGeometricNoise(case.spec.alpha)
        d = case.spec.d_in
        return Counter(_noise_code(m(x * d), d) for _ in range(draws))
    _, threshold, alpha, _, _ = partition_selection(case)
    m = noise.AddGeometricNoise(alpha)
    return Counter(_selection_code(m(x), threshold) if x > 0 else 0 for _ in range(draws))


def noise_label(code: int, d: int) -> str:
    """The output a code of :func:`noise_outputs` stands for."""
    return "k < 0" if code == 0 else f"k > {d}" if code == d + 2 else f"k = {code - 1}"


def _noise_code(k: int, d: int) -> int:
    return 0 if k < 0 else d + 2 if k > d else k + 1


def _selection_code(count: int, threshold: int) -> int:
    if count < threshold:
        return 0
    return min(count, threshold + 3) - threshold + 1


def _floats(dist: dict[int, Any]) -> dict[int, float]:
    return {y: float(p) for y, p in dist.items() if p > 0}


def _sampled_row(case: AuditCase) -> Modelled:
    """The case's row, and the witness's two inputs to sample with the model's distributions there."""
    if case.mechanism == "SparseVectorPrefixSums":
        return _svps_modelled(case)
    row, dists, (x, xp) = _row(case)
    return row, [(f"x={v}", _floats(dists[v]), v) for v in (x, xp)]


def _row(case: AuditCase) -> tuple[AuditRow, list[dict[int, Any]], tuple[int, int]]:
    """The case's row, the model's distributions and the witness's two inputs (as the model numbers them)."""
    if case.mechanism == "AddDiscreteGaussianNoise":
        return _gauss_row(case)
    if case.mechanism == "AddGeometricNoise":
        assert case.spec.alpha is not None
        claim = float(Fraction(case.spec.d_in) / case.spec.alpha)
        prog = _noise_program(case)
        r = synthesize_privacy(prog, "exhaustive", certified=True)
        lo, hi = r.interval.lo, r.interval.hi
        low, high = float_bracket(Fraction(case.spec.d_in) / case.spec.alpha)
        dists = noise_outputs(_q(sampler_scale(case.spec.alpha)), case.spec.d_in)
        row = AuditRow(
            case.mechanism,
            case.params,
            case.spec.d_in,
            claim,
            hi,
            None,
            certified_verdict(low, high, lo, hi),
            (
                str(r.witness.x[0] * case.spec.d_in),
                str(r.witness.x_prime[0] * case.spec.d_in),
                noise_label(r.witness.y, case.spec.d_in),
            ),
            0.0,
        )
        row = with_tight_delta(row, prog, certified=True)
        return row, dists, (r.witness.x[0], r.witness.x_prime[0])
    _, threshold, alpha, eps, (d_low, d_high) = partition_selection(case)
    q = _q(sampler_scale(alpha))
    prog = _selection_program(q, threshold)
    at_eps = synthesize_approximate(prog, epsilon=eps, certified=True)
    at_delta = synthesize_approximate(prog, delta=Fraction(d_high), certified=True)
    row = AuditRow(
        case.mechanism,
        f"{case.params} (threshold={threshold}, alpha={alpha})",
        1,
        eps,
        at_delta.interval.hi,
        None,
        certified_verdict(d_low, d_high, at_eps.interval.lo, at_eps.interval.hi),
        (f"n={at_eps.witness.x[0]}", f"n={at_eps.witness.x_prime[0]}", ""),
        0.0,
        claimed_delta=d_high,
        delta=at_eps.interval.hi,
    )
    if row.verdict == "VIOLATED" and 0 in (at_eps.witness.x[0], at_eps.witness.x_prime[0]):
        n = at_eps.witness.x[0] or at_eps.witness.x_prime[0]
        row = replace(
            row, reproducer=_SELECTION.format(label=case.label, version=LIBRARY.version(), spec=case.spec, n=n)
        )
    return row, selection_outputs(q, threshold), (at_eps.witness.x[0], at_eps.witness.x_prime[0])


_SELECTION = '''"""{label}: tmlt.core {version} claims (epsilon, delta) = privacy_function(1), yet a partition of {n}
user(s) is released more often than delta, while an absent partition never is: P(released | {n}) <= delta is what
the claim needs (every release is impossible without the partition). GeometricPartitionSelection.call releases the
count plus AddGeometricNoise(alpha) when it reaches the threshold, and AddGeometricNoise samples at
alpha.to_float(round_up=True) = s, a little wider than alpha: P(released | {n}) = P(Z >= threshold - {n})
= q^(threshold - {n}) / (1 + q) with q = e^(-1/s), while the claimed delta is computed at alpha itself.
Needs only tmlt.core (no Spark session)."""
from fractions import Fraction

import sympy
from tmlt.core.domains.spark_domains import SparkDataFrameDomain, SparkStringColumnDescriptor
from tmlt.core.measurements.aggregations import create_partition_selection_measurement

domain = SparkDataFrameDomain(schema={{"A": SparkStringColumnDescriptor()}})
requested = sympy.Rational("{spec.epsilon}"), sympy.Rational("{spec.delta}")
measurement = create_partition_selection_measurement(domain, *requested)
epsilon, delta = measurement.privacy_function(1)
threshold, alpha = int(measurement.threshold), measurement.alpha
s = alpha.to_float(round_up=True)
print(f"threshold = {{threshold}}, alpha = {{alpha}}, sampled at s = {{s!r}} (alpha = {{float(alpha.expr)!r}})")
q = sympy.exp(-1 / sympy.Rational(Fraction(s).numerator, Fraction(s).denominator))
exact = q ** (threshold - {n}) / (1 + q)
print(f"P(released | {n}) = {{sympy.N(exact, 40)}}")
print(f"claimed delta    = {{sympy.N(delta.expr, 40)}}")
print("VIOLATED" if sympy.N(exact - delta.expr, 60) > 0 else "holds")
'''


__all__ = [
    "MODELLED",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "Measurement",
    "audit_tmlt",
    "cases",
    "draw_counts",
    "noise_outputs",
    "discrete_gaussian_row",
    "gauss_outputs",
    "gauss_window",
    "sampler_scale",
    "sampler_scale_of",
    "selection_outputs",
    "crossing",
    "first_rank",
    "prefix_sums",
    "svps_inputs",
    "svps_measurement",
    "svps_outputs",
    "svps_threshold",
    "within",
    "tmlt_version",
]
