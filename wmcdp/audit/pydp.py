"""Audit Google's differential-privacy library through python-dp 1.1.5.

The audited parts: partition selection, and the Laplace
noise of ``Count``, ``BoundedSum`` (integers or floats) and ``LaplaceMechanism.add_noise`` (an integer or a float).

A partition selection strategy decides, for a partition with ``n`` users, whether to release it; the
library claims (epsilon, delta)-DP for a user who adds one to the counts of at most
``max_partitions_contributed`` partitions. The audit models the strategy's keep probability for every
``n``, builds the wmcdp program of ``m = max_partitions_contributed`` partitions (one keep bit each, the
counts as the input, a user's neighbour adding one to any nonempty set of them), and computes exactly

* ``delta``: the tight delta at the claimed epsilon (:func:`wmcdp.synthesize_approximate`, exact, both
  orders), compared with the claimed delta rigorously (:func:`delta_exceeds`);
* ``epsilon``: the tight epsilon at the claimed delta.

The models follow python-dp 1.1.5's C++ (Google's ``cc/algorithms``):

* the truncated-geometric strategy (``NearTruncatedGeometricPartitionSelection`` in
  ``partition-selection.h``): ``ShouldKeep(n)`` is ``UniformDouble() <= ProbabilityOfKeep(n)``, and
  ``UniformDouble`` (``rand.cc``) draws a 52-bit mantissa and a geometric binade, so each double ``r`` in
  ``[0, 1)`` has probability ``ulp(r)`` and ``P(r <= t) = t + ulp(t)`` exactly for a double ``t < 1``
  (1 for ``t >= 1``). ``t`` is the library's own ``probability_of_keep(n)``;
* pre-thresholding (``PartitionSelectionStrategyWithPreThresholding``) over the truncated-geometric
  strategy: ``ShouldKeep(n)`` returns false without a draw while ``n < pre_threshold``, and is the wrapped
  strategy's ``ShouldKeep(n - pre_threshold + 1)`` from there on: the same comparison;
* the Laplace and Gaussian strategies add continuous noise in C++ that Python cannot reach per draw; their
  model is the keep probability the library states (``probability_of_keep``), and the rows say so
  (``declared``). ``--sample`` checks every model against the library's own ``should_keep``: the declared
  ones at the witness's counts and at every count of their transition (keep probability in 1 % .. 99 %),
  so the sampler itself, not only the formula, is tested.

``n = 0`` is a partition that does not exist: never released (probability 0), never sampled. The
counts are unbounded; the window ``0 .. N`` ends at the first ``N`` with ``probability_of_keep(N) >= 1``,
past which every keep probability is 1 (the C++ returns 1 past its second crossover; checked here for
the next :data:`WINDOW_CHECK` counts), so neighbours beyond the window have equal distributions and add
nothing to delta. A strategy whose probability never reaches 1 within :data:`MAX_WINDOW` is refused.

The integer noise follows ``AddInt64Noise`` (``numerical-mechanisms.cc``) and ``LaplaceDistribution`` /
``GeometricDistribution`` (``distributions.cc``) of the C++ python-dp 1.1.5 pins (google/differential-privacy
e59bbcf): ``round(s K g)``, the granularity ``g`` a power of two, a fair sign ``s`` redrawn while ``K = 0`` and
``s < 0``, and ``K`` drawn by a binary search over ``[0, INT64_MAX)`` whose every step compares ``UniformDouble()``
with a double ``q`` (:class:`LaplaceNoise`). The window of the noise is exact; the claim of pure epsilon fails at the
noise's bounded support (``|N| <= round(2^63 g)``), whose edge has positive probability
(:meth:`LaplaceNoise.log_largest`) against 0 one value further. The float noise follows ``AddDoubleNoise``:
``RoundToNearestMultiple(value, g) + double(s K) g`` in doubles (:func:`released`), the same draw on the granularity
grid, not rounded; binned as ``std::round`` bins it, its exact noise has the integer noise's probabilities, and its
support ends at ``2^63 g`` as well.

Needs the optional extra: ``pip install 'wmcdp[pydp]'`` (python-dp 1.1.5 and scipy).
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..base.certified import exp_bound
from ..base.errors import WmcdpError
from ..lang import IntVector, Program, flip
from ..lang.relations import relation_from_function
from ..notions.approximate import synthesize_approximate
from .core import TIGHT_ULPS, AuditCase, AuditedLibrary, AuditRow, Mechanism, Modelled, library, verdict

#: the largest window of user counts a model may need
MAX_WINDOW = 20_000
#: counts past the window checked to keep probability 1
WINDOW_CHECK = 10_000


def _pydp() -> Any:
    return library("pydp.algorithms.partition_selection", "python-dp", "python-dp", "pydp")


def _laplacian() -> Any:
    return library("pydp.algorithms.laplacian", "python-dp", "python-dp", "pydp")


#: the version of the library the models follow
MODELLED = "1.1.5"


@dataclass(frozen=True)
class Strategy:
    """A case's partition selection strategy (its :class:`~wmcdp.audit.core.AuditCase`'s ``spec``) at one
    (epsilon, delta, max_partitions_contributed)."""

    strategy: str  # "truncated_geometric", "laplace" or "gaussian"
    epsilon: float
    delta: float
    partitions: int = 1
    pre_threshold: int | None = None

    @property
    def mechanism(self) -> str:
        name = {"truncated_geometric": "TruncatedGeometric", "laplace": "Laplace", "gaussian": "Gaussian"}
        text = f"{name[self.strategy]}PartitionSelection"
        return text + ("" if self.exact else " (declared)")

    @property
    def exact(self) -> bool:
        """The model follows the sampler itself (not only the probability the library states)."""
        return self.strategy == "truncated_geometric"

    @property
    def params(self) -> str:
        text = f"epsilon={self.epsilon!r}, delta={self.delta!r}, max_partitions_contributed={self.partitions}"
        return text + ("" if self.pre_threshold is None else f", pre_threshold={self.pre_threshold}")

    def build(self) -> Any:
        return _pydp().create_partition_strategy(
            self.strategy, self.epsilon, self.delta, self.partitions, pre_threshold=self.pre_threshold
        )


#: how every python-dp model is validated
VALIDATION = (
    "the library's own should_keep on every nonzero count of the witness (and, for a declared model, of its "
    "transition) against the model (chi-square)"
)


def _case(
    strategy: str, epsilon: float, delta: float, partitions: int = 1, pre_threshold: int | None = None
) -> AuditCase:
    spec = Strategy(strategy, epsilon, delta, partitions, pre_threshold)
    claim = "(epsilon, delta)-DP at the epsilon and delta it is built with"
    return AuditCase("pydp", spec.mechanism, spec.params, claim, _row, draw_counts, VALIDATION, spec)


def _cases() -> list[AuditCase]:
    out = [
        _case("truncated_geometric", eps, delta)
        for eps, delta in ((0.1, 1e-10), (1.0, 1e-5), (1.0, 1e-10), (1.0, 1e-16), (5.0, 1e-5), (40.0, 1e-5))
    ]
    out += [_case("truncated_geometric", 2.0, 1e-5, 2), _case("truncated_geometric", 1.0, 1e-5, 1, pre_threshold=5)]
    out += [_case(kind, 1.0, 1e-5) for kind in ("laplace", "gaussian")]
    out += [_summed_case(eps) for eps in (0.1, 0.5, 1.0, 2.0, 5.0, 40.0)]
    out += [_summed_case(1.0, l0=2), _summed_case(1.0, linf=3)]
    out += [_summed_case(1.0, bounds=(0, 5)), _summed_case(0.5, linf=2, bounds=(-3, 2))]
    out += [_summed_case(1.0, sensitivity=1), _summed_case(0.5, sensitivity=3)]
    out += [_summed_case(eps, sensitivity=s, real=True) for eps, s in ((1.0, 1.0), (0.5, 0.3), (40.0, 2.5))]
    out += [_summed_case(1.0, bounds=(-1.5, 2.5), real=True), _summed_case(0.5, linf=2, bounds=(-0.3, 0.2), real=True)]
    return out


#: every public mechanism of ``pydp.algorithms``, described once
MECHANISMS = (
    Mechanism(
        "TruncatedGeometricPartitionSelection",
        "audited",
        "`should_keep(n)` is `UniformDouble() <= "
        "probability_of_keep(n)` in the C++; `UniformDouble` draws a 52-bit mantissa in a geometric binade, "
        "so `P(UniformDouble() <= t) = t + ulp(t)` exactly for a double `t < 1`; with `pre_threshold`, no "
        "draw (never kept) below it, the same comparison from there on",
    ),
    Mechanism(
        "LaplacePartitionSelection (declared)",
        "audited",
        "continuous noise added in C++ that Python cannot "
        "reach per draw: the model is the keep probability the library states (`probability_of_keep`), so the "
        "verdict is about that statement; `--sample` tests the sampler itself, `should_keep`, against it at the "
        "witness's counts and at every count whose keep probability is in 1 % .. 99 %",
    ),
    Mechanism("GaussianPartitionSelection (declared)", "audited", "as the Laplace strategy"),
    Mechanism(
        "Count",
        "audited",
        "the count plus `AddInt64Noise`'s integer Laplace noise `round(s K g)`: `g` the power of two next above "
        "`(l1 / epsilon) / 2^40`, a fair sign `s` redrawn while `K = 0` and `s < 0`, and `K` from "
        "`GeometricDistribution::Sample`'s binary search over `[0, 2^63 - 1)`, each step left with probability "
        "`P(UniformDouble() <= q) = q + ulp(q)` for the double `q` the C++ computes: exact for `|noise| <= 16` (the "
        "search's path to each bin edge), the tails as two masses; `K <= 2^63 - 2` bounds the noise, so the output "
        "`1 + round(2^63 g)` has positive probability from one entry and none from no entry (VIOLATED, epsilon inf)",
    ),
    Mechanism(
        "BoundedSum (int)",
        "audited",
        "dtype `int` with fixed bounds: the sum of the entries clamped to the bounds plus the same integer "
        "noise as `Count` (`l1 = l0 linf max(|lower|, |upper|)`), rounded back to an integer",
    ),
    Mechanism(
        "LaplaceMechanism (int)",
        "audited",
        "numerical_mechanisms' `add_noise` of an integer: the integer plus the same integer noise as `Count` "
        "(`l1 = sensitivity`)",
    ),
    Mechanism(
        "`BoundedSum` (int, without bounds)",
        "planned",
        "the bounds are first chosen by `ApproxBounds` (a noisy histogram of magnitudes against a threshold); a model "
        "of that choice, composed with the sum's noise, is missing",
    ),
    Mechanism(
        "LaplaceMechanism (float)",
        "audited",
        "numerical_mechanisms' `add_noise` of a float: `AddDoubleNoise`, `RoundToNearestMultiple(result, g) + s K g` "
        "in doubles, the result moved to the granularity grid (`fmod`, ties up) plus the same signed draw as `Count` "
        "on that grid, not rounded; the noise's bins (`std::round`) have the integer noise's exact probabilities; "
        "`|s K g| <= 2^63 g`, so the output `RoundToNearestMultiple(sensitivity, g) + 2^63 g` has positive "
        "probability from the sensitivity and none from 0 (VIOLATED, epsilon inf)",
    ),
    Mechanism(
        "BoundedSum (float)",
        "audited",
        "dtype `float` with fixed bounds: the sum of the entries clamped to the bounds, in doubles, then "
        "`AddDoubleNoise` as `LaplaceMechanism` (float) (`l1 = l0 linf max(|lower|, |upper|)`), not rounded",
    ),
    Mechanism(
        "`BoundedMean`, `BoundedVariance`, `BoundedStandardDeviation`",
        "planned",
        "float outputs built from several noisy sums on the granularity grid (the mean from a noisy count and a noisy "
        "normalized sum), then clamped to the bounds: no model of the ratio of the grid noises yet",
    ),
    Mechanism(
        "`Max`, `Min`, `Median`, `Percentile`",
        "planned",
        "float outputs interpolated in a quantile tree of noisy counts (Laplace or Gaussian noise, both on a "
        "granularity grid, not continuous): a model of the tree's search over the noisy counts is missing",
    ),
    Mechanism(
        "`GaussianMechanism` (numerical_mechanisms)",
        "planned",
        "`add_noise` draws a binomial by Bringmann et al.'s rejection loop with a float acceptance probability "
        "(`ApproximateBinomialProbability`) on a granularity grid; a certified series of that loop is missing",
    ),
)


#: python-dp as an audited library
def _neighbours(case: AuditCase) -> str:
    """python-dp's own notion: one user added or removed (its contribution bounds), or results the sensitivity apart."""
    if case.mechanism.startswith("LaplaceMechanism"):
        return "two results at most the sensitivity apart"
    if case.mechanism in ("Count", "BoundedSum (int)", "BoundedSum (float)"):
        return "one user added or removed, with at most linf_sensitivity entries in each of l0_sensitivity partitions"
    return "one user added or removed, in at most max_partitions_contributed partitions"


#: the C++ source behind the bounded noise's violation (google/differential-privacy as python-dp 1.1.5 pins it)
_BOUNDED = (
    "cc/algorithms/distributions.cc, GeometricDistribution::Sample: the binary search over [0, 2^63 - 1) bounds the "
    "noise at 2^63 granularity (documented upstream as accepted)"
)

LIBRARY = AuditedLibrary(
    "pydp",
    "python-dp",
    "python-dp",
    "pydp",
    __name__,
    _pydp,
    _cases,
    MECHANISMS,
    _neighbours,
    tuple(
        (name, _BOUNDED)
        for name in (
            "Count",
            "BoundedSum (int)",
            "BoundedSum (float)",
            "LaplaceMechanism (int)",
            "LaplaceMechanism (float)",
        )
    ),
)
cases = LIBRARY.cases
audit_pydp = LIBRARY.audit
pydp_version = LIBRARY.version


def uniform_double_at_most(t: float) -> Fraction:
    """``P(UniformDouble() <= t)`` exactly: ``t + ulp(t)`` for a double ``0 <= t < 1``, 1 from 1 on."""
    if t >= 1:
        return Fraction(1)
    if not t >= 0:
        raise WmcdpError(f"a keep probability of {t!r} is not a probability")
    return Fraction(t) + Fraction(math.ulp(t))


def keep_probabilities(case: AuditCase) -> list[Fraction]:
    """``P(keep | n)`` for ``n = 0 .. N`` (the window: ``N`` is the first count kept with probability 1)."""
    strategy = case.spec.build()
    stated = strategy.probability_of_keep
    out = [Fraction(0)]
    for n in range(1, MAX_WINDOW + 1):
        t = float(stated(n))
        if n < (case.spec.pre_threshold or 0):
            out.append(Fraction(0))  # no draw
        else:
            out.append(uniform_double_at_most(t) if case.spec.exact else _declared(t))
        if t >= 1:
            break
    else:
        raise WmcdpError(f"{case.label}: the keep probability stays below 1 up to {MAX_WINDOW} users")
    end = len(out) - 1
    for n in range(end + 1, end + 1 + WINDOW_CHECK):
        if float(stated(n)) < 1:
            raise WmcdpError(f"{case.label}: the keep probability falls below 1 again at {n} users (after {end})")
    return out


def _declared(t: float) -> Fraction:
    if not 0 <= t <= 1:
        raise WmcdpError(f"a keep probability of {t!r} is not a probability")
    return Fraction(t)


def _moves(m: int) -> Callable[[tuple[int, ...]], Iterator[tuple[int, ...]]]:
    """The neighbours of user counts in ``m`` partitions: one user added to, or removed from, any nonempty
    set of them (counts below 0 included: the relation keeps those in the program's domain)."""
    steps = [d for d in itertools.product((0, 1), repeat=m) if any(d)]

    def neighbours(x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for step in steps:
            yield tuple(a + b for a, b in zip(x, step))
            yield tuple(a - b for a, b in zip(x, step))

    return neighbours


def _program(case: AuditCase, keep: list[Fraction]) -> Program:
    m = case.spec.partitions
    relation = relation_from_function(_moves(m), "one user in at most max_partitions_contributed partitions")
    return Program(
        "partition_selection",
        IntVector(m, 0, len(keep) - 1),
        lambda x: tuple(flip(lambda n: keep[n], x[i]) for i in range(m)),
        neighbours=relation,
    )


def distribution(keep: list[Fraction], counts: tuple[int, ...]) -> dict[tuple[bool, ...], Fraction]:
    """The released partitions' distribution for these user counts: independent keep bits."""
    out = {}
    for bits in itertools.product((True, False), repeat=len(counts)):
        p = Fraction(1)
        for b, n in zip(bits, counts):
            p *= keep[n] if b else 1 - keep[n]
        out[bits] = p
    return out


def hockey_stick_exceeds(p: dict[Any, Fraction], q: dict[Any, Fraction], epsilon: float, delta: float) -> bool:
    """Whether ``Σ_y max(0, p(y) − e^ε q(y)) > δ``, decided rigorously: ``e^ε`` enclosed by directed
    rounding at increasing precision (it is irrational for a float ``ε > 0``, so the terms' signs and the
    sum's are decided at some precision; ``ε = 0`` is exact)."""
    claim = Fraction(delta)
    precision = 128
    while True:
        low, high = exp_bound(epsilon, precision, up=False), exp_bound(epsilon, precision)
        # the sum decreases as e^eps grows: its value at `high` bounds it below, at `low` above
        if sum(max(Fraction(0), p[y] - high * q[y]) for y in p) > claim:
            return True
        if sum(max(Fraction(0), p[y] - low * q[y]) for y in p) <= claim:
            return False
        precision *= 2


def delta_verdict(
    case: AuditCase, keep: list[Fraction], delta: float, pairs: list[tuple[tuple[Any, ...], tuple[Any, ...]]]
) -> str:
    """``VIOLATED`` when some pair's delta at the claimed epsilon exceeds the claimed delta (decided
    rigorously), ``tight`` when the largest is within 4 ulp of the claim, ``loose`` otherwise. ``delta`` is
    the largest rounded to nearest: it decides unless it equals the claim, when ``pairs`` (the neighbouring
    pairs, both orders) are decided one by one."""
    claim = case.spec.delta
    if delta > claim:
        return "VIOLATED"
    if delta == claim and any(
        hockey_stick_exceeds(distribution(keep, x), distribution(keep, y), case.spec.epsilon, claim) for x, y in pairs
    ):
        return "VIOLATED"
    return "tight" if claim - delta <= TIGHT_ULPS * math.ulp(claim) else "loose"


def _pairs(case: AuditCase, size: int) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Every ordered pair of neighbouring counts below ``size``."""
    moves = _moves(case.spec.partitions)
    return [
        (x, y)
        for x in itertools.product(range(size), repeat=case.spec.partitions)
        for y in moves(x)
        if all(0 <= v < size for v in y)
    ]


def draw_counts(case: AuditCase, n: int, draws: int) -> Counter[Any]:
    """``draws`` decisions of the library's own ``should_keep(n)``."""
    strategy = case.spec.build()
    return Counter(bool(strategy.should_keep(n)) for _ in range(draws))


def _row(case: AuditCase) -> Modelled:
    """The case's row, and every nonzero count of its witness to sample."""
    keep = keep_probabilities(case)
    prog = _program(case, keep)
    at_eps = synthesize_approximate(prog, epsilon=case.spec.epsilon, exact=True, force=True)
    at_delta = synthesize_approximate(prog, delta=Fraction(case.spec.delta), exact=True, force=True)
    x, xp = at_eps.witness.x, at_eps.witness.x_prime
    pairs = _pairs(case, len(keep)) if at_eps.delta == case.spec.delta else []
    row = AuditRow(
        case.mechanism,
        case.params,
        case.spec.partitions,
        case.spec.epsilon,
        at_delta.epsilon,
        None,
        delta_verdict(case, keep, float(at_eps.delta), pairs),
        (repr(x), repr(xp), ""),
        0.0,
        claimed_delta=case.spec.delta,
        delta=float(at_eps.delta),
    )
    if row.verdict == "VIOLATED" and case.spec.exact:
        row = replace(row, reproducer=reproducer(case, x, xp))
    return row, [(f"n={n}", _expected(keep[n]), n) for n in sampled_counts(case, keep, (*x, *xp))]


#: a declared model is also sampled at every count whose keep probability lies in this range
TRANSITION = (Fraction(1, 100), Fraction(99, 100))


def sampled_counts(case: AuditCase, keep: list[Fraction], witness: tuple[int, ...]) -> list[int]:
    """The counts whose ``should_keep`` draws test the model: the witness's nonzero counts and, for a declared
    model (the Laplace and Gaussian strategies, whose noise the C++ adds out of Python's reach), every count in
    its transition (:data:`TRANSITION`), where a wrong keep probability shows in few draws."""
    counts = {n for n in witness if n > 0}
    if not case.spec.exact:
        counts |= {n for n, p in enumerate(keep) if TRANSITION[0] <= p <= TRANSITION[1]}
    return sorted(counts)


_SCRIPT = '''"""{label}: python-dp {version} claims (epsilon, delta) = ({epsilon!r}, {delta!r}), yet between the
user counts x = {x!r} and x' = {xp!r} (one user in at most {m} partition(s)) the tight delta at that epsilon is larger.
The C++ ShouldKeep(n) (partition-selection.h) is UniformDouble() <= ProbabilityOfKeep(n), and UniformDouble (rand.cc)
draws a 52-bit mantissa in a geometric binade, so P(kept) = t + ulp(t) exactly for the double
t = probability_of_keep(n) < 1, and 1 from 1 on; with a pre_threshold, a count below it is dropped without a draw; a
count of 0 is a partition that does not exist. The partitions are kept independently. Needs only python-dp."""
import itertools
import math
from decimal import Decimal, getcontext
from fractions import Fraction

from pydp.algorithms.partition_selection import create_partition_strategy

epsilon, delta, pre_threshold = {epsilon!r}, {delta!r}, {pre!r}
strategy = create_partition_strategy({kind!r}, epsilon, delta, {m}, pre_threshold=pre_threshold)
x, x_prime = {x!r}, {xp!r}


def kept(n):
    if n == 0 or n < (pre_threshold or 0):
        return Fraction(0)
    t = float(strategy.probability_of_keep(n))
    return Fraction(1) if t >= 1 else Fraction(t) + Fraction(math.ulp(t))


def distribution(counts):  # the released partitions: one keep bit each
    out = {{}}
    for bits in itertools.product((True, False), repeat=len(counts)):
        p = Fraction(1)
        for b, n in zip(bits, counts):
            p *= kept(n) if b else 1 - kept(n)
        out[bits] = p
    return out


getcontext().prec = 80
e = Decimal(epsilon).exp()
p, q = distribution(x), distribution(x_prime)
for n in sorted(set(x) | set(x_prime)):
    print(f"P(kept | {{n}} users) = {{kept(n)}}")


def dec(f):  # a fraction at 80 digits
    return Decimal(f.numerator) / Decimal(f.denominator)


exact = sum(max(Decimal(0), dec(p[o]) - e * dec(q[o])) for o in p)
print(f"delta(epsilon) = {{exact:.30e}}")
print(f"claimed delta  = {{Decimal(delta):.30e}}")
print("VIOLATED" if exact > Decimal(delta) else "holds")
'''


def reproducer(case: AuditCase, x: tuple[int, ...], xp: tuple[int, ...]) -> str:
    """A standalone script (python-dp alone) that computes the witness pair's hockey-stick divergence at the claimed
    epsilon from the library's own ``probability_of_keep`` and the C++ comparison, and prints it with the verdict."""
    spec: Strategy = case.spec
    return _SCRIPT.format(
        label=case.label,
        version=LIBRARY.version(),
        epsilon=spec.epsilon,
        delta=spec.delta,
        pre=spec.pre_threshold,
        kind=spec.strategy,
        m=spec.partitions,
        x=x,
        xp=xp,
    )


def _expected(p: Fraction) -> dict[bool, Fraction]:
    return {y: v for y, v in ((True, p), (False, 1 - p)) if v > 0}


# -- Count, BoundedSum and LaplaceMechanism on integers: the C++ Laplace sampler -----------------------------------

#: ``std::numeric_limits<int64_t>::max()``: GeometricDistribution's binary search runs over ``[0, INT64_MAX)``
INT64_MAX = 2**63 - 1
#: ``kLaplaceGranularityParam``: the granularity is the power of two next above ``diversity / 2^40``
GRANULARITY_PARAM = 2.0**40
#: the integer noise is modelled exactly outcome by outcome up to ``|N| <= NOISE_WINDOW`` at most (beyond it, as two
#: tail masses), and no further than where each tail's mass is below ``NOISE_TAIL``
NOISE_WINDOW = 16
NOISE_TAIL = Fraction(1, 2**100)


@dataclass(frozen=True)
class LaplaceNoise:
    """The C++ ``LaplaceDistribution`` at ``(epsilon, l1)``: its granularity ``g`` (a power of two) and the
    parameter ``lam = g epsilon / (l1 + g)`` of its ``GeometricDistribution``, both as the C++ computes them."""

    granularity: float
    lam: float

    @classmethod
    def of(cls, epsilon: float, l1: float) -> LaplaceNoise:
        """``g = 2^ceil(log2((l1 / epsilon) / 2^40))`` (``GetNextPowerOfTwo``) and ``lam``; a granularity of 1 or
        more also rounds the count to a multiple of it (``AddInt64Noise``), which the model does not cover."""
        g = 2.0 ** math.ceil(math.log2(l1 / epsilon / GRANULARITY_PARAM))
        if g >= 1:
            raise WmcdpError(f"a granularity of {g!r} (epsilon {epsilon!r}, l1 {l1!r}) rounds the count: not modelled")
        return cls(g, g * epsilon / (l1 + g))

    @property
    def half(self) -> int:
        """``1 / (2 g)``: the geometric draws ``k`` with ``round(k g) = j >= 1`` are ``(2j - 1) half <= k <
        (2j + 1) half``."""
        return round(0.5 / self.granularity)

    def split(self, lo: int, hi: int) -> tuple[int, float]:
        """The binary search's split of ``[lo, hi)`` (``GeometricDistribution::Sample``): ``mid`` and the double
        ``q`` it compares ``UniformDouble()`` with (``<= q``: the left part ``[lo, mid)``)."""
        lam = self.lam
        mid = lo - math.floor((math.log(0.5) + math.log1p(math.exp(lam * float(lo - hi)))) / lam)
        mid = min(max(mid, lo + 1), hi - 1)
        return mid, math.expm1(lam * float(lo - mid)) / math.expm1(lam * float(lo - hi))

    def no_overflow(self) -> Fraction:
        """``P(UniformDouble() <= -expm1(-lam INT64_MAX))``: the draw does not return ``INT64_MAX`` at once."""
        return uniform_double_at_most(-math.expm1(-self.lam * float(INT64_MAX)))

    def below(self, k: int) -> Fraction:
        """``P(K < k)`` exactly for the geometric draw ``K`` and ``0 <= k <= INT64_MAX``: the binary search's path
        towards ``k``, each step left with probability ``P(UniformDouble() <= q) = q + ulp(q)``, the left parts
        passed on the way summed."""
        total, path, lo, hi = Fraction(0), self.no_overflow(), 0, INT64_MAX
        while lo < k < hi:
            mid, q = self.split(lo, hi)
            left = uniform_double_at_most(q)
            if k <= mid:
                path, hi = path * left, mid
            else:
                total, path, lo = total + path * left, path * (1 - left), mid
        return total + (path if k >= hi else 0)

    def distribution(self, least: int = 1) -> tuple[dict[int, Fraction], Fraction]:
        """``P(N = j)`` for ``|j| <= W`` and ``P(N > W) = P(N < -W)``, exactly, for the integer noise
        ``N = round(s K g)``: ``LaplaceDistribution::Sample`` redraws ``(K, s)`` while ``K = 0`` and the fair sign
        ``s`` is negative, so ``P(s K = +-k) = P(K = k) / (2 - P(K = 0))`` and ``P(0) = P(K = 0) / (2 - P(K = 0))``
        (``absl::Bernoulli(0.5)`` is exactly 1/2: true for 2^31 of the 2^32 values of its draw, false on the tie);
        ``std::round`` rounds halves away from 0. The window ``W`` is at least ``least`` and at most
        :data:`NOISE_WINDOW`, and ends early once the tail's mass is below :data:`NOISE_TAIL`."""
        zero = self.below(1)
        scale = 2 - zero
        edges = [self.below(self.half)]
        while len(edges) <= least or (len(edges) <= NOISE_WINDOW and 1 - edges[-1] >= NOISE_TAIL * scale):
            edges.append(self.below((2 * len(edges) + 1) * self.half))
        out = {0: (2 * edges[0] - zero) / scale}
        for j in range(1, len(edges)):
            out[j] = out[-j] = (edges[j] - edges[j - 1]) / scale
        return out, (1 - edges[-1]) / scale

    @property
    def edge(self) -> float:
        """The largest ``|s K g|`` in doubles: ``double(INT64_MAX - 1) g = 2^63 g`` (``INT64_MAX`` itself, the draw's
        first exit, converts to the same double ``2^63``)."""
        return float(INT64_MAX - 1) * self.granularity

    @property
    def largest(self) -> int:
        """The largest ``|N|`` of the integer noise: ``round(2^63 g)`` (:attr:`edge`)."""
        return round(self.edge)

    def log_largest(self) -> float:
        """``ln P(K = INT64_MAX - 1)``, a lower bound of ``ln P(N = largest)`` (``P(N = j) >= P(K = k) / 2`` for
        the draws ``k`` that round to ``j``), computed in floats along the search's path that always goes right.
        While ``exp(lam (lo - hi))`` underflows to 0 every step is the same (``mid - lo`` and ``q`` do not depend on
        ``lo``): the number of such steps is found by bisection (the condition is monotone in ``lo``), the rest are
        walked. An error when some step goes right with probability 0 (the edge is then not reachable)."""
        bad, step, q = self._steady_steps()
        log = math.log(self.no_overflow()) + bad * _log_right(q)
        lo = bad * step
        while INT64_MAX - lo > 1:
            lo, q = self.split(lo, INT64_MAX)
            log += _log_right(q)
        return log

    def _steady_steps(self) -> tuple[int, int, float]:
        """``(n, step, q)``: the search's first ``n`` nodes ``[j step, INT64_MAX)`` all split at ``(j + 1) step``
        with the same ``q`` (found by bisection, the condition being monotone in ``j``)."""
        step, q = self.split(0, INT64_MAX)
        if not self._steady(0, step):
            raise WmcdpError(f"the geometric draw at lam {self.lam!r} has no steady start")
        good, bad = 0, INT64_MAX // step + 1  # steady at good * step, not at bad * step
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if self._steady(mid * step, step) else (good, mid)
        return bad, step, q

    def log_at_least(self, m: int) -> float:
        """An upper bound of ``ln P(K >= m)``: reaching ``K >= m`` goes right at every node of the search's
        rightmost path whose split is at most ``m`` (the steady ones, :meth:`_steady_steps`, then walked as
        :meth:`log_largest` walks them), and the first exit (``K = INT64_MAX`` at once) adds ``1 - no_overflow``;
        0 (the bound 1) when that exit has positive probability."""
        if self.no_overflow() != 1:
            return 0.0
        bad, step, q = self._steady_steps()
        steady = min(bad, max(m, 0) // step)
        log, lo = steady * _log_right(q), steady * step
        while steady == bad and INT64_MAX - lo > 1:
            mid, q = self.split(lo, INT64_MAX)
            if mid > m:
                break
            log, lo = log + _log_right(q), mid
        return log

    def _steady(self, lo: int, step: int) -> bool:
        """Whether the search's node ``[lo, INT64_MAX)`` splits at ``lo + step`` with the same ``q`` as at 0."""
        y = self.lam * float(lo - INT64_MAX)
        return math.exp(y) == 0 and math.expm1(y) == -1 and lo + step < INT64_MAX - 1


def _log_right(q: float) -> float:
    right = 1 - uniform_double_at_most(q)
    if right == 0:
        raise WmcdpError(f"a step of the geometric draw goes right with probability 0 (q = {q!r})")
    return math.log(right)


@dataclass(frozen=True)
class Summed:
    """A ``Count``, ``BoundedSum`` (fixed bounds) or ``LaplaceMechanism`` (``add_noise``) case's parameters (its
    :class:`~wmcdp.audit.core.AuditCase`'s ``spec``): each adds the C++ Laplace noise to a value: the count, the sum of
    the entries clamped to ``bounds``, or the one entry given. On integers (``AddInt64Noise``) the noise is
    ``round(s K g)``; on floats (``real``, ``AddDoubleNoise``) the output is ``RoundToNearestMultiple(value, g) +
    s K g``: the value moved to the granularity grid, plus the noise on that grid."""

    mechanism: str  # "Count", "BoundedSum (int)", "LaplaceMechanism (int)", "BoundedSum (float)", ...
    epsilon: float
    l0: int = 1
    linf: int = 1
    bounds: tuple[float, float] | None = None  # BoundedSum's (lower_bound, upper_bound)
    sensitivity: float | None = None  # LaplaceMechanism's

    @property
    def real(self) -> bool:
        """The float path (``dtype="float"``, or ``add_noise`` of a float): ``AddDoubleNoise``."""
        return self.mechanism.endswith("(float)")

    @property
    def params(self) -> str:
        if self.sensitivity is not None:
            return f"epsilon={self.epsilon!r}, sensitivity={float(self.sensitivity)!r}"
        text = f"epsilon={self.epsilon!r}, l0_sensitivity={self.l0}, linf_sensitivity={self.linf}"
        return text + ("" if self.bounds is None else f", lower_bound={self.bounds[0]}, upper_bound={self.bounds[1]}")

    @property
    def entry(self) -> float:
        """The entry that moves the value most: 1 for a count, the bound of largest magnitude for a sum, the
        sensitivity for a mechanism's result."""
        if self.sensitivity is not None:
            return self.sensitivity
        return 1 if self.bounds is None else max(self.bounds, key=abs)

    @property
    def l1(self) -> float:
        """The C++ L1 sensitivity: ``l0 * linf`` (a sum's ``linf`` times the bound of largest magnitude), or the
        mechanism's own."""
        if self.sensitivity is not None:
            return float(self.sensitivity)
        return float(self.l0) * (float(self.linf) * abs(float(self.entry)))

    def value(self, entries: tuple[float, ...]) -> float:
        """The exact count, the sum of the entries clamped to the bounds (in order, in doubles on the float path,
        as ``partial_sum_ += Clamp(lower, upper, t)``), or the mechanism's result (its one entry; none is 0)."""
        if self.bounds is None:
            total = sum(entries) if self.sensitivity is not None else len(entries)
        else:
            low, high = self.bounds
            total = sum(min(max(e, low), high) for e in entries)
        return float(total) if self.real else total

    def shown(self, entries: tuple[float, ...]) -> str:
        """The input as a witness shows it: the data set, or the mechanism's result."""
        return repr(self.value(entries) if self.sensitivity is not None else entries)

    def build(self) -> Any:
        if self.sensitivity is not None:
            mechanisms = library("pydp.algorithms.numerical_mechanisms", "python-dp", "python-dp", "pydp")
            return mechanisms.LaplaceMechanism(epsilon=self.epsilon, sensitivity=float(self.sensitivity))
        kind = _laplacian().Count if self.bounds is None else _laplacian().BoundedSum
        extra = {} if self.bounds is None else {"lower_bound": self.bounds[0], "upper_bound": self.bounds[1]}
        dtype = "float" if self.real else "int"
        return kind(epsilon=self.epsilon, l0_sensitivity=self.l0, linf_sensitivity=self.linf, dtype=dtype, **extra)

    def release(self, algorithm: Any, entries: tuple[float, ...]) -> float:
        """One output of the library's own ``algorithm`` (:meth:`build`) on the entries."""
        cast = float if self.real else int
        if self.sensitivity is not None:
            return cast(algorithm.add_noise(cast(self.value(entries))))
        return cast(algorithm.quick_result([cast(e) for e in entries]))


def round_to_multiple(n: float, base: float) -> float:
    """``RoundToNearestDoubleMultiple`` (``util.cc``), in doubles as the C++ computes it: ``n - fmod(n, base)``, one
    ``base`` further (away from 0) past half of it, and ``n + base / 2`` on a tie."""
    remainder = math.fmod(n, base)
    if abs(remainder) > base / 2:
        return n - remainder + math.copysign(base, remainder)
    if abs(remainder) == base / 2:
        return n + base / 2
    return n - remainder


def noise_bin(noise: Fraction) -> int:
    """The bin of an exact noise: ``std::round``, halves away from 0 (the integer path's noise is this bin)."""
    j = math.floor(abs(noise) + Fraction(1, 2))
    return j if noise >= 0 else -j


def _summed_case(
    epsilon: float,
    l0: int = 1,
    linf: int = 1,
    bounds: tuple[float, float] | None = None,
    sensitivity: float | None = None,
    real: bool = False,
) -> AuditCase:
    base = "LaplaceMechanism" if sensitivity is not None else "Count" if bounds is None else "BoundedSum"
    kind = base if base == "Count" else f"{base} ({'float' if real else 'int'})"
    spec = Summed(kind, epsilon, l0, linf, bounds, sensitivity)
    claim = (
        "epsilon-DP for results at most the sensitivity apart"
        if sensitivity is not None
        else "epsilon-DP for users adding at most linf_sensitivity entries to each of l0_sensitivity partitions"
    )
    return AuditCase("pydp", spec.mechanism, spec.params, claim, _summed_row, draw_sums, SUMMED_VALIDATION, spec)


#: how the Count, BoundedSum and LaplaceMechanism models are validated
SUMMED_VALIDATION = (
    "the library's own outputs on the witness's two data sets against the model (chi-square; a float output as its "
    "exact noise on the granularity grid, binned as std::round bins it; |noise| beyond the model's window pooled into "
    "two tails)"
)

#: the int32 the library returns for dtype "int": a model whose noise reaches it would wrap
INT32_MAX = 2**31 - 1


def summed_noise(spec: Summed) -> LaplaceNoise:
    """The case's noise; an error when the value plus the largest noise could wrap the 32-bit result."""
    noise = LaplaceNoise.of(spec.epsilon, spec.l1)
    if not spec.real and noise.largest + abs(spec.entry) > INT32_MAX:
        raise WmcdpError(f"{spec.mechanism} {spec.params}: the noise reaches {noise.largest}, past a 32-bit result")
    return noise


def released(spec: Summed, noise: LaplaceNoise, value: float, k: int) -> float:
    """The library's output on ``value`` for the signed geometric draw ``k = s K``: on integers (``AddInt64Noise``)
    ``value + std::round(double(k) g)``, halves away from 0; on floats (``AddDoubleNoise``)
    ``RoundToNearestMultiple(value, g) + double(k) g`` in doubles (``signed_sample * granularity_`` converts ``k`` to
    a double first)."""
    if spec.real:
        return round_to_multiple(value, noise.granularity) + float(k) * noise.granularity
    return value + noise_bin(Fraction(float(k) * noise.granularity))


def _summed_row(case: AuditCase) -> Modelled:
    """The case's row and its two data sets to sample. The draw is bounded (``K <= INT64_MAX``, and ``double(K) <=
    2^63``), so from none (value 0, on the grid) every output is at most :attr:`LaplaceNoise.edge` (``2^63 g``) in
    size, rounded or not; one entry ``e`` (value ``v``) has the output ``y`` of the draw ``K = INT64_MAX - 1``
    (:func:`released`) with positive probability (:meth:`LaplaceNoise.log_largest`), and ``|y| > 2^63 g`` (checked:
    on floats the sum is rounded) has probability 0 from none: the tight epsilon is infinite. ``log_largest``
    fails when that probability cannot be shown positive."""
    spec: Summed = case.spec
    noise = summed_noise(spec)
    largest = noise.log_largest()  # raises unless the edge has positive probability
    x: tuple[float, ...] = (spec.entry,)
    v = spec.value(x)
    y = released(spec, noise, v, INT64_MAX - 1 if v > 0 else 1 - INT64_MAX)
    if not abs(y) > noise.edge:
        raise WmcdpError(f"{case.label}: the output {y!r} at the noise's edge is reachable from no entry")
    row = AuditRow(
        case.mechanism,
        case.params,
        spec.l0,
        spec.epsilon,
        math.inf,
        "inf",
        verdict(spec.epsilon, math.inf, math.inf, True),
        (spec.shown(x), spec.shown(()), repr(y)),
        0.0,
        reproducer=summed_reproducer(case, x, y),
        log_witness_probability=edge_log_probability(noise, v, largest),
        delta_note="the tight delta over every pair is not computed: the bounded noise has about 2^64 outputs, past "
        "any model the audit compiles (it is at least this output's probability, which the other data set never gives)",
    )
    dist, tail = noise.distribution()
    window = max(dist)
    return row, [(spec.shown(e), summed_expected(spec, e, dist, tail), (e, window)) for e in (x, ())]


def edge_log_probability(noise: LaplaceNoise, v: float, largest: float) -> tuple[float, float]:
    """An enclosure of ``ln P(y | x)`` for the witness output ``y`` beyond the noise's edge from the value ``v``
    (computed in doubles along the search's path; ``largest`` is :meth:`LaplaceNoise.log_largest`): below, the draw
    ``K = INT64_MAX - 1`` with the sign that reaches ``y`` (``P(s K = k) >= P(K = k) / 2``); above, ``P(K >= m)``
    for the least draw ``m`` that can reach ``y``: ``|y| > 2^63 g`` needs ``K g >= 2^63 g - |v| - 2`` (the value
    moved to the grid by at most ``g``, the sums rounded by far less than 1), and ``double(K)`` is within ``2^10``
    of ``K``."""
    m = math.floor((noise.edge - abs(v) - 2) / noise.granularity) - 2**11
    return largest - math.log(2), noise.log_at_least(m)


def summed_expected(
    spec: Summed, entries: tuple[float, ...], dist: dict[int, Fraction], tail: Fraction
) -> dict[Any, Any]:
    """The output's model distribution on ``entries``: ``value + j`` for the window's noise ``j`` (on floats, the
    bin ``j`` of the noise, :func:`summed_noise_bin`), and the two tails as ``"below"`` and ``"above"``."""
    v = 0 if spec.real else spec.value(entries)
    return {**{v + j: p for j, p in dist.items()}, "below": tail, "above": tail}


def summed_noise_bin(spec: Summed, noise: LaplaceNoise, entries: tuple[float, ...], output: float) -> int | None:
    """The noise of one output on ``entries``, as the bin :func:`noise_bin` of ``output - value`` (an integer: the
    noise itself) or, on floats, of the exact ``output - RoundToNearestMultiple(value, g)``; ``None`` when that
    float noise is off the grid (not a multiple of ``g``), which the model gives probability 0."""
    v = spec.value(entries)
    if not spec.real:
        return int(output - v)
    exact = Fraction(output) - Fraction(round_to_multiple(v, noise.granularity))
    return noise_bin(exact) if (exact / Fraction(noise.granularity)).denominator == 1 else None


def draw_sums(case: AuditCase, data: tuple[tuple[float, ...], int], draws: int) -> Counter[Any]:
    """``draws`` outputs of the library's own ``quick_result`` (or ``add_noise``) on the entries ``data[0]``, keyed
    as :func:`summed_expected` keys them: a noise beyond the window ``data[1]`` counted as ``"below"`` or
    ``"above"``, a float off the grid as ``"off grid"``."""
    entries, window = data
    spec: Summed = case.spec
    noise = summed_noise(spec)
    algorithm = spec.build()
    v = 0 if spec.real else spec.value(entries)
    out: Counter[Any] = Counter()
    for _ in range(draws):
        j = summed_noise_bin(spec, noise, entries, spec.release(algorithm, entries))
        out["off grid" if j is None else v + j if abs(j) <= window else ("above" if j > 0 else "below")] += 1
    return out


_SUMMED_SCRIPT = '''"""{label}: python-dp {version} claims epsilon = {epsilon!r},
yet its Laplace noise is bounded, so no epsilon holds. LaplaceDistribution::Sample
(cc/algorithms/distributions.cc) returns s K g: a fair sign s, a power of two g (the granularity) and K from
GeometricDistribution::Sample, a binary search over [0, 2^63 - 1) whose steps go left when UniformDouble() <= q, with
probability q + ulp(q) (rand.cc); so K <= 2^63 - 2 (the first exit, K = 2^63 - 1, is the same double 2^63) and
{noise} {largest} in size. From the input {x} (value {v}) the output {y} has positive probability; from the
input {xp} (value 0) it has probability 0. The script reads g from the library's own Laplace samples (all multiples of
it), walks the search's path to K = 2^63 - 2 with every q computed as the C++ does, and prints a lower bound of the
output's probability from {x} (the path's probability over 2). Needs only python-dp."""
import math
from fractions import Fraction

from pydp.distributions import LaplaceDistribution

epsilon, l1 = {epsilon!r}, {l1!r}
END = 2**63 - 1  # the search's range [0, END)
samples = [LaplaceDistribution(epsilon=epsilon, sensitivity=l1).sample() for _ in range(2000)]
g = Fraction(1, max(Fraction(s).denominator for s in samples))  # every sample is a multiple of g
print(f"granularity g = {{g}} (the library's samples)")
print(f"the C++ formula: 2^{{math.ceil(math.log2(l1 / epsilon / 2**40))}}")
g = float(g)
lam = g * epsilon / (l1 + g)


def right(q):  # P(UniformDouble() > q) = 1 - q - ulp(q) for a double q < 1
    return 1 - (Fraction(1) if q >= 1 else Fraction(q) + Fraction(math.ulp(q)))


def split(lo, hi):  # GeometricDistribution::Sample's step on [lo, hi)
    mid = lo - math.floor((math.log(0.5) + math.log1p(math.exp(lam * float(lo - hi)))) / lam)
    mid = min(max(mid, lo + 1), hi - 1)
    return mid, math.expm1(lam * float(lo - mid)) / math.expm1(lam * float(lo - hi))


def steady(lo, step):  # exp underflows: this node splits at lo + step with the same q as at 0
    y = lam * float(lo - END)
    return math.exp(y) == 0 and math.expm1(y) == -1 and lo + step < END - 1


step, q = split(0, END)
good, bad = 0, END // step + 1
while bad - good > 1:  # the steady steps, found by bisection
    mid = (good + bad) // 2
    good, bad = (mid, bad) if steady(mid * step, step) else (good, mid)
log = math.log(1 - right(-math.expm1(-lam * float(END)))) + bad * math.log(right(q))
lo = bad * step
while END - lo > 1:
    lo, q = split(lo, END)
    log += math.log(right(q))
largest = {edge}
print(f"largest |noise| = {{largest}}, reached with probability >= 10^{{(log - math.log(2)) / math.log(10):.1f}}")
v = {v!r}  # the value of {x}
{output}
print(f"P(output {{y}} | {x}) > 0 = P(output {{y}} | {xp}): |{{y}} - 0| > {{largest}}")
print("VIOLATED" if abs(y) > largest else "holds")
'''


#: the noise's bound as the script states and computes it, and the witness output at K = 2^63 - 2: on integers, and
#: on floats (the model's own RoundToNearestDoubleMultiple, its source copied into the script)
_SCRIPT_NOISE = {
    False: (
        "AddInt64Noise's noise round(s K g) is at most round(2^63 g) =",
        "round(float(END - 1) * g)",
        "y = v + int(math.copysign(largest, v))  # AddInt64Noise at s K = +-(2^63 - 2)",
    ),
    True: (
        "AddDoubleNoise's output is RoundToNearestMultiple(value, g) + s K g (in doubles), its noise s K g at most\n"
        "2^63 g =",
        "float(END - 1) * g",
        "\n\n" + inspect.getsource(round_to_multiple) + "\n\ny = round_to_multiple(v, g) + math.copysign(largest, v)"
        "  # AddDoubleNoise at s K = +-(2^63 - 2), in doubles",
    ),
}


def summed_reproducer(case: AuditCase, x: tuple[float, ...], y: float) -> str:
    """A standalone script (python-dp alone) that reads the granularity from the library's own Laplace samples,
    walks the C++ geometric draw's path to its largest value and prints the largest noise and a lower bound of the
    witness output's probability, which is 0 on the other data set."""
    spec: Summed = case.spec
    text, edge, output = _SCRIPT_NOISE[spec.real]
    return _SUMMED_SCRIPT.format(
        label=case.label,
        version=LIBRARY.version(),
        epsilon=spec.epsilon,
        l1=spec.l1,
        noise=text,
        largest=summed_noise(spec).edge if spec.real else summed_noise(spec).largest,
        edge=edge,
        output=output,
        x=spec.shown(x),
        xp=spec.shown(()),
        v=spec.value(x),
        y=y,
    )


__all__ = [
    "MODELLED",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "Strategy",
    "audit_pydp",
    "cases",
    "delta_verdict",
    "distribution",
    "draw_counts",
    "hockey_stick_exceeds",
    "INT64_MAX",
    "LaplaceNoise",
    "Summed",
    "SUMMED_VALIDATION",
    "draw_sums",
    "summed_expected",
    "summed_noise",
    "summed_reproducer",
    "keep_probabilities",
    "pydp_version",
    "reproducer",
    "sampled_counts",
    "uniform_double_at_most",
]
