"""Models of OpenDP 0.16's finite pure-DP measurements, written from their sampling code.

Each model follows the sampler as implemented in OpenDP (not the textbook mechanism) and is
meant to be run with float parameters read as their exact binary64 values (``exact="binary"``,
CLI ``--exact-floats``), as OpenDP's exact samplers read the stored doubles. Source lines cite
OpenDP at ``main@bc6e18b`` (the 0.16 samplers; ``wmcdp audit opendp --sample`` checks every model
against the installed library's own draws). Inputs are encoded as small integers (a category's
index, a bit vector's bits); each factory's docstring says how, and the audit translates.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import gmpy2

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_int, as_number, positive_int, probability
from wmcdp.lang import Bits, Bool, Int, IntVector, Program, discrete, flip, ite, uniform
from wmcdp.lang.relations import Relation, relation_from_function

from .registry import program

#: the origin of every model here
OPENDP = "OpenDP's measurement, as written in the DSL (programs/opendp.py)"

#: the integer types OpenDP's Python API dispatches, with their ranges
INTEGER_TYPES = {
    "i32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u64": (0, 2**64 - 1),
}


@program(origin=OPENDP)
def opendp_rr_bool(prob: object) -> Program:
    """``make_randomized_response_bool(prob)``: the input bit, kept with probability ``prob``.

    Sampling (rust/src/measurements/randomized_response/mod.rs:66-68): ``arg ^ !sample_bernoulli_float(prob)``;
    the Bernoulli draw is exact on the stored double (rust/src/traits/samplers/bernoulli/mod.rs:55-128).
    Input and output: 0 = false, 1 = true. Neighbours: the two inputs (discrete distance).

    Parameters: ``prob`` in [0.5, 1], the probability of answering truthfully (a float is read
    as its exact binary64 value with ``--exact-floats``). Example:
    ``wmcdp privacy opendp_rr_bool -p prob=0.75 --exact-floats``.
    """
    p = probability(prob, "prob")
    if not 0.5 <= p <= 1:
        raise WmcdpError(f"prob must be in [0.5, 1] (OpenDP's range), got {p}")
    return Program(
        "opendp_rr_bool",
        Bits(1),
        lambda x: x[0] ^ ~flip(p),
        params={"prob": prob},
        neighbours="hamming",
        description="OpenDP randomized response on a bool",
    )


@program(origin=OPENDP)
def opendp_rr_categorical(t: object, prob: object) -> Program:
    """``make_randomized_response(categories, prob)`` with ``t`` categories.

    Sampling (rust/src/measurements/randomized_response/mod.rs:136-156): the truth's index; a lie
    uniform among the ``t - 1`` other categories, ``sample_uniform_uint_below(t - 1)`` shifted past
    the truth (or uniform among all ``t`` when the input is not a category); ``be_honest =
    sample_bernoulli_float(prob)``; the truth if honest and a category, else the lie. Input: the
    category's index ``0..t-1``, or ``t`` for a value of the type that is not a category (the
    declared domain is every value of the type). Output: a category's index. Neighbours: any two
    different inputs (discrete distance).

    Parameters: ``t >= 2`` categories; ``prob`` in [0, 1], the probability of answering truthfully
    (OpenDP requires ``prob >= fl(1/t)``; give the double, e.g. ``prob=0.3333333333333333`` for
    ``1/3``, with ``--exact-floats``). Example:
    ``wmcdp privacy opendp_rr_categorical -p t=3 -p prob=0.3333333333333333 --exact-floats``.
    """
    k = as_int(t, "t")
    if k < 2:
        raise WmcdpError(f"t must be at least 2, got {k}")
    p = probability(prob, "prob")

    def body(x: Sequence[Any]) -> Int:
        value = x[0]
        member = value < k
        shifted = uniform(0, k - 2) if k > 2 else 0
        lie = shifted + (shifted >= value) if k > 2 else 1 - value.clamp(0, 1)
        honest = flip(p)
        answer: Int = ite(member & honest, value.clamp(0, k - 1), ite(member, lie, uniform(0, k - 1)))
        return answer

    return Program(
        "opendp_rr_categorical",
        IntVector(1, 0, k),
        body,
        params={"t": k, "prob": prob},
        neighbours="hamming",
        description="OpenDP randomized response over t categories",
    )


def _bitvec_params(n: object, max_weight: object, f: object) -> tuple[int, int, Number]:
    """``n >= 1``, ``max_weight >= 0`` and ``f`` in (0, 1] (OpenDP's range for ``f``)."""
    bits, m = positive_int(n, "n"), as_int(max_weight, "max_weight")
    if m < 0:
        raise WmcdpError(f"max_weight must be at least 0, got {m}")
    rate = probability(f, "f")
    if rate == 0:
        raise WmcdpError("f must be in (0, 1] (OpenDP's range), got 0")
    return bits, m, rate


def _bitvec_neighbours(max_weight: int) -> Relation:
    def neighbours(x: tuple[int, ...], x_prime: tuple[int, ...]) -> bool:  # BitVectorDomain(max_weight), discrete
        return sum(x) <= max_weight and sum(x_prime) <= max_weight

    return relation_from_function(neighbours, name=f"any two vectors of weight <= {max_weight}")


@program(origin=OPENDP)
def opendp_rr_bitvec(n: object, max_weight: object, f: object) -> Program:
    """``make_randomized_response_bitvec(bitvector_domain(max_weight), discrete_distance(), f)`` on ``n``-bit vectors.

    Sampling (rust/src/measurements/randomized_response_bitvec/mod.rs:53-66): ``f2 = f / 2`` (exact),
    each bit XORed with its own ``sample_bernoulli_float(f2)``. The declared domain holds vectors of
    any length with at most ``max_weight`` ones; this model fixes the length to ``n`` (see
    :func:`opendp_rr_bitvec_lengths` for two lengths). Neighbours: any two different vectors of
    weight at most ``max_weight``.

    Parameters: ``n >= 1`` bits; ``max_weight >= 0``, the most ones an input may have; ``f`` in
    (0, 1], twice the flip probability of each bit. Example:
    ``wmcdp privacy opendp_rr_bitvec -p n=8 -p max_weight=5 -p f=0.5 --exact-floats``.
    """
    bits, m, rate = _bitvec_params(n, max_weight, f)
    f2 = rate / 2
    return Program(
        "opendp_rr_bitvec",
        Bits(bits),
        lambda x: tuple(xi ^ flip(f2) for xi in x),
        params={"n": bits, "max_weight": m, "f": rate},
        neighbours=_bitvec_neighbours(m),
        description="OpenDP randomized response on a bit vector of fixed length n",
    )


@program(origin=OPENDP)
def opendp_rr_bitvec_lengths(n: object, max_weight: object, f: object) -> Program:
    """The bit-vector mechanism on its declared domain: vectors of ``n`` or ``2n`` bits (weight 0 here).

    Input 0 is the all-zero vector of ``n`` bits, input 1 the all-zero vector of ``2n`` bits; both
    are in the domain and neighbours under the discrete distance. The output has the input's
    length, so the output length (the first part) is ``n`` or ``2n`` and no output of one input is
    possible for the other: the tight epsilon is infinite whatever ``f``. Output: the length, then
    ``2n`` bits (those past the length are 0).

    Parameters: ``n >= 1``, the shorter length in bits; ``max_weight >= 0`` (only labels the
    case: both inputs have weight 0); ``f`` in (0, 1]. Example:
    ``wmcdp privacy opendp_rr_bitvec_lengths -p n=2 -p max_weight=1 -p f=0.5 --exact-floats``.
    """
    short, m, rate = _bitvec_params(n, max_weight, f)

    def body(x: Sequence[Any]) -> tuple[Any, ...]:
        bits = [flip(rate / 2) for _ in range(2 * short)]
        length = ite(x[0], 2 * short, short)
        return (length, *(ite(x[0], b, False) if k >= short else b for k, b in enumerate(bits)))

    return Program(
        "opendp_rr_bitvec_lengths",
        Bits(1),
        body,
        params={"n": short, "max_weight": m, "f": rate},
        neighbours="hamming",
        description="OpenDP bit-vector randomized response on two lengths",
    )


def opendp_probability(scale: float) -> Fraction:
    """``p = 1 -(down) exp_up(-fl(1/scale))`` as a double
    (rust/src/measurements/noise/distribution/geometric/mod.rs:133).

    ``fl(1/scale)`` rounds to nearest, the exponential is rounded up and the subtraction down
    (dashu ``FBig`` with directed rounding at 53 bits); this assumes dashu's upward ``exp`` is
    correctly rounded (one ulp higher would lower the tight epsilon by about 1e-16).
    """
    r = 1.0 / scale
    with gmpy2.context(precision=53, round=gmpy2.RoundUp, emin=-1073, subnormalize=True):
        e = gmpy2.exp(gmpy2.mpfr(-r))
    with gmpy2.context(precision=53, round=gmpy2.RoundDown, emin=-1073, subnormalize=True):
        p = gmpy2.mpfr(1) - e
    return Fraction(float(p))


def _absolute_distance(d_in: int) -> Relation:
    def neighbours(x: tuple[int, ...]) -> list[tuple[int, ...]]:
        return [(x[0] + d,) for d in range(-d_in, d_in + 1) if d]

    return relation_from_function(neighbours, name=f"|x - x'| <= {d_in}")


@program(origin=OPENDP)
def opendp_geometric_bounded(lower: object, upper: object, scale: object, d_in: object = 1, T: str = "i32") -> Program:
    """``make_geometric(atom_domain(T), absolute_distance(T), scale, bounds=(lower, upper))``.

    Sampling (rust/src/traits/samplers/geometric/mod.rs:132-172 and 44-94): ``p`` as in
    :func:`opendp_probability`, ``alpha = 1 - p``; the input clamped to ``[lower, upper]``; repeat:
    a fair direction bit, ``G`` = failures before the first success among ``upper - lower``
    Bernoulli(``p``) draws (so ``P(G = k) = alpha^k p`` for ``k < upper - lower`` and
    ``alpha^(upper - lower)`` for the cap), ``x + G`` or ``x - G`` with the steps stopping at the
    type's bounds, rejected when the direction is negative and the sample equals ``x``; the result
    clamped to ``[lower, upper]``. Rejection is conditioning on acceptance: a negative draw is
    rejected exactly when ``G = 0`` (or always, when ``x`` is the type's minimum: every negative
    step is stuck there), so the accepted direction is positive with probability ``1 / (2 - p)``
    and a negative ``G`` is drawn given ``G >= 1``. Inputs: ``lower..upper`` (values outside are
    clamped to these). Neighbours: ``|x - x'| <= d_in``.

    Parameters: ``lower <= upper``, the bounds (within the type); ``scale``, a positive finite
    float; ``d_in >= 1``, the input distance; ``T``, one of i32, u32, i64, u64 (the defect appears
    when ``lower`` is the type's minimum, e.g. 0 for u32). Example:
    ``wmcdp privacy opendp_geometric_bounded -p lower=0 -p upper=5 -p scale=10 -p T=u32 --exact-floats``.
    """
    lo, hi = as_int(lower, "lower"), as_int(upper, "upper")
    if lo > hi:
        raise WmcdpError(f"lower must be at most upper, got {lo} > {hi}")
    if T not in INTEGER_TYPES:
        raise WmcdpError(f"T must be one of {', '.join(INTEGER_TYPES)}, got {T!r}")
    tmin, tmax = INTEGER_TYPES[T]
    if not tmin <= lo <= hi <= tmax:
        raise WmcdpError(f"bounds ({lo}, {hi}) are outside the type {T}")
    s = as_number(scale, "scale")
    if not 0 < s < math.inf:
        raise WmcdpError(f"scale must be a positive finite number, got {s}")
    d = positive_int(d_in, "d_in")
    p = opendp_probability(float(s))
    alpha = 1 - p
    span = hi - lo
    steps = {k: alpha**k * p for k in range(span)}
    steps[span] = alpha**span
    at_least_one = {k: w / (1 - p) for k, w in steps.items() if k >= 1}

    def body(x: Sequence[Any]) -> Int:
        value: Int = x[0]
        if lo == hi:
            return value
        up = (value + discrete(steps)).clamp(lo, hi)
        down = (value - discrete(at_least_one)).clamp(lo, hi)
        spread: Int = ite(flip(1 / (2 - p)), up, down)
        if lo != tmin:
            return spread
        stuck: Int = ite(value == tmin, up, spread)  # at the type's minimum every negative step is rejected
        return stuck

    return Program(
        "opendp_geometric_bounded",
        IntVector(1, lo, hi),
        body,
        params={"lower": lo, "upper": hi, "scale": scale, "d_in": d, "T": T},
        neighbours=_absolute_distance(d),
        description="OpenDP constant-time geometric with bounds",
    )


def _flag(value: object, name: str) -> bool:
    """A yes/no parameter: a bool, 0 or 1, or (from ``-p``) the text true/false."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, str) and value in (0, 1):
        return bool(value)
    raise WmcdpError(f"{name} must be true or false, got {value!r}")


def _linf_neighbours(d_in: int, monotonic: bool) -> Relation:
    def neighbours(x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for steps in itertools.product(range(-d_in, d_in + 1), repeat=len(x)):
            if any(steps) and (not monotonic or all(s >= 0 for s in steps) or all(s <= 0 for s in steps)):
                yield tuple(v + s for v, s in zip(x, steps))

    return relation_from_function(
        neighbours, name=f"L-infinity distance <= {d_in}" + (", monotonic" if monotonic else "")
    )


@program(origin=OPENDP)
def opendp_noisy_max(n: object, top: object, scale: object, d_in: object = 1, monotonic: object = False) -> Program:
    """``make_noisy_max(..., max_divergence(), scale)``: permute-and-flip on ``n`` scores in ``0..top``.

    The measurement is ``make_noisy_max(vector_domain(atom_domain(i32)), linf_distance(monotonic),
    max_divergence(), scale)``.

    Sampling (rust/src/measurements/noisy_top_k/mod.rs:186-195, 235-261): the scores and the scale
    are read exactly; the candidates are visited in a uniformly random order (Fisher-Yates) and
    candidate ``i`` is accepted with probability ``exp(-(max x - x_i) / scale)``
    (``sample_bernoulli_exp``, exact); the first acceptance is the output. The acceptance
    probabilities are irrational, so this model is in floats (``exp`` to the nearest double): its
    epsilon is within a few ulps of the sampler's. Neighbours: every score moves by at most ``d_in``
    (all up or all down when ``monotonic``); scores stay in ``0..top``.

    Parameters: ``n >= 2`` scores, each in ``0..top``; ``scale``, a positive finite float;
    ``d_in >= 1``, the L-infinity input distance; ``monotonic``, whether all scores move the same
    way. The model enumerates the ``n!`` visiting orders: keep ``n`` small. Example:
    ``wmcdp privacy opendp_noisy_max -p n=3 -p top=3 -p scale=1``.
    """
    size, m, d = as_int(n, "n"), as_int(top, "top"), positive_int(d_in, "d_in")
    one_way = _flag(monotonic, "monotonic")
    if size < 2 or m < 1:
        raise WmcdpError(f"noisy max needs n >= 2 scores in 0..top with top >= 1, got n={size}, top={m}")
    s = float(as_number(scale, "scale"))
    if not 0 < s < math.inf:
        raise WmcdpError(f"scale must be a positive finite number, got {s}")
    orders = list(itertools.permutations(range(size)))

    def accept(gap: Int) -> Bool:
        out: Bool | None = None
        for g in range(gap.lo, gap.hi + 1):
            coin = flip(math.exp(-g / s))
            out = coin if out is None else ite(gap == g, coin, out)
        assert out is not None  # the gap has at least one value
        return out

    def body(x: Sequence[Any]) -> Int | int:
        best = x[0]
        for i in range(1, size):
            best = ite(x[i] > best, x[i], best)
        accepted = [
            accept((best - x[i]).clamp(0, m)) for i in range(size)
        ]  # best >= x[i]: the clamp only tells the range
        order = uniform(0, len(orders) - 1)
        result: Int | int | None = None
        for k, perm in enumerate(orders):
            pick: Int | int = perm[-1]
            for i in reversed(perm[:-1]):
                pick = ite(accepted[i], i, pick)
            result = pick if result is None else ite(order == k, pick, result)
        assert result is not None  # there is at least one order
        return result

    return Program(
        "opendp_noisy_max",
        IntVector(size, 0, m),
        body,
        params={"n": size, "top": m, "scale": scale, "d_in": d, "monotonic": one_way},
        neighbours=_linf_neighbours(d, one_way),
        description="OpenDP permute-and-flip noisy max",
    )


__all__ = [
    "INTEGER_TYPES",
    "opendp_geometric_bounded",
    "opendp_noisy_max",
    "opendp_probability",
    "opendp_rr_bitvec",
    "opendp_rr_bitvec_lengths",
    "opendp_rr_bool",
    "opendp_rr_categorical",
]
