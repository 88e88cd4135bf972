"""Audit OpenDP's finite and integer pure-DP measurements: the epsilon each privacy map claims against the tight one.

For every case of :func:`cases` the audit builds the OpenDP measurement, reads the claimed
epsilon from its privacy map at ``d_in``, and computes with wmcdp the tight epsilon of a model of
the sampler as OpenDP implements it (:mod:`programs.opendp`), over OpenDP's own neighbour
relation, with float parameters read as their exact binary64 values. The verdict compares the two:

* ``tight``: the claim is at least the tight epsilon and at most 4 ulp above it (or 2^-50 above,
  for an epsilon near 0) — for the float model of permute-and-flip, within a relative 1e-12;
* ``loose``: the claim is further above;
* ``VIOLATED``: the tight epsilon is larger than the claim (decided exactly for exact models:
  the natural log of the tight ratio is compared with the claim at 200 bits).

The discrete Laplace on an integer type (``make_geometric`` without bounds, ``make_laplace`` on ``i32``, ``u32``,
``i64``) has an infinite support: its probabilities are exact reals (powers of ``e^(-1/scale)``), kept exactly on
a window of outputs around the two inputs with the tails beyond merged, and its epsilon is a certified enclosure
(:func:`discrete_laplace_outputs`, :func:`_laplace_row`); the verdict is ``tight`` when the claim lies in the
enclosure or within 4 ulp above it, ``VIOLATED`` when the enclosure lies above the claim.

``make_noisy_top_k`` under max divergence peels ``k`` rounds of permute-and-flip, each accepting a candidate
with probability ``e^(-gap / scale)``: its probabilities are exact reals too (:func:`noisy_top_k_outputs`),
over every score vector of the case, and its epsilon a certified enclosure (:func:`_top_k_row`). Under
``zero_concentrated_divergence`` each round draws with replacement, the exponential mechanism (:func:`exponential`),
and the claimed rho is compared with the certified ``sup over alpha > 1 of D_alpha / alpha`` over every neighbouring
pair (:func:`~wmcdp.notions.zcdp.certified_zcdp`, :func:`_zcdp_row`); ``make_private_quantile`` likewise, and
``make_report_noisy_max_gumbel`` is ``make_noisy_max`` (one round of permute-and-flip).

``make_gaussian_threshold`` claims approximate zCDP ``(rho, delta)`` (Bun and Steinke's Definition 8.1, which
OpenDP's proof cites): the tight delta at the claimed rho is compared with the claimed delta
(:func:`_gaussian_threshold_row`).

With ``sample`` draws, OpenDP itself is run ``sample`` times on each input of the witness and the
counts are compared with the model's distribution by a chi-square test at level ``level``: the
audit checks the model, not only its arithmetic. The draws come in batches of :data:`BATCH` from
OpenDP's own ``make_composition`` of copies of the measurement, which invokes the same sampler
once per copy inside OpenDP (one call from Python per batch instead of one per draw).

Needs the optional extra: ``pip install 'wmcdp[audit]'`` (opendp 0.16 and scipy).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from wmcdp.programs import opendp as models

from ..base.certified import Real, float_bracket
from ..base.errors import WmcdpError
from ..compile import Compiled, compile_program
from ..count.probabilities import Counter as ModelCounter
from ..count.probabilities import number_system
from ..lang.program import Program
from ..notions.approximate import synthesize_approximate
from ..notions.privacy import synthesize_privacy
from ..notions.zcdp import certified_zcdp
from .core import (
    TIGHT_ULPS,
    AuditCase,
    AuditedLibrary,
    AuditRow,
    Mechanism,
    Modelled,
    SampleCheck,
    certified_verdict,
    check_model,
    choice_program,
    library,
    verdict,
    with_tight_delta,
)
from .pureldp import TAIL
from .tmlt import _gauss_tail, _gauss_term, discrete_gaussian_row, gauss_window

#: draws per call into OpenDP when sampling (the size of one composition of the measurement)
BATCH = 10_000


def _opendp() -> Any:
    dp = library("opendp.prelude", "OpenDP", "opendp", "audit")
    dp.enable_features("contrib")
    return dp


#: the version of the library the models follow
MODELLED = "0.16.0"


@dataclass(frozen=True, kw_only=True)
class Measurement:
    """A case's OpenDP measurement (its :class:`~wmcdp.audit.core.AuditCase`'s ``spec``), with its model and how
    inputs and outputs translate, declared with keywords."""

    d_in: int
    build: Callable[[Any], Any]  # dp -> the OpenDP measurement
    model: Callable[[], Program]  # the wmcdp model of its sampler
    to_opendp: Callable[[tuple[Any, ...]], Any]  # a model input -> OpenDP's input
    from_opendp: Callable[[Any], Any]  # OpenDP's output -> the model's output
    show: Callable[[tuple[Any, ...]], str] = repr  # a model input as OpenDP's value, for people
    show_output: Callable[[Any], str] = repr  # a model output as OpenDP's value, for people
    exact: Any = "binary"  # "binary": exact binary64 parameters; False: a float model
    script: str | None = None  # a violation's standalone script (OpenDP alone): the head, formatted per finding


#: how every OpenDP model is validated
VALIDATION = (
    "OpenDP's own draws (batches from make_composition) on the witness's two inputs against the model (chi-square)"
)
#: where the claims are read: a pure epsilon, certified against an enclosure of the tight value or not
PURE = "pure epsilon: the privacy map at d_in"
CERTIFIED = "pure epsilon: the privacy map at d_in (certified)"
CERTIFIED_ZCDP = "zCDP rho: the privacy map at d_in (certified)"


def _case(*, mechanism: str, params: str, claim: str, model: Callable[[AuditCase], Modelled], spec: Any) -> AuditCase:
    """An OpenDP case: its claim checked by ``model``, its draws from OpenDP's own code (:func:`draw_counts`)."""
    return AuditCase(
        library="opendp",
        mechanism=mechanism,
        params=params,
        claim=claim,
        model=model,
        draw=draw_counts,
        validation=VALIDATION,
        spec=spec,
    )


def _measured(mechanism: str, params: str, spec: Measurement) -> AuditCase:
    """A case whose sampler is a model program (:mod:`programs.opendp`) and whose claim is a pure epsilon."""
    return _case(mechanism=mechanism, params=params, claim=PURE, model=_row, spec=spec)


# -- the cases ------------------------------------------------------------------------------


def _bool(x: tuple[Any, ...]) -> bool:
    return bool(x[0])


def _category(t: int) -> Callable[[tuple[Any, ...]], str]:
    return lambda x: f"c{x[0]}" if x[0] < t else "not-a-category"


def _bits_to_bytes(x: tuple[Any, ...]) -> bytes:
    """Model bits (bit i of the vector) as OpenDP's bytes (Lsb0: bit i is bit i % 8 of byte i // 8)."""
    out = bytearray(len(x) // 8)
    for i, b in enumerate(x):
        out[i // 8] |= b << (i % 8)
    return bytes(out)


def _bytes_to_bits(data: Any) -> tuple[Any, ...]:
    data = bytes(data)
    return tuple((data[i // 8] >> (i % 8)) & 1 for i in range(8 * len(data)))


def _lengths_to_opendp(n: int) -> Callable[[tuple[Any, ...]], bytes]:
    return lambda x: bytes(2 * n // 8 if x[0] else n // 8)


def _rr_bool(*, prob: float) -> AuditCase:
    return _measured(
        "make_randomized_response_bool",
        f"prob={prob!r}",
        Measurement(
            d_in=1,
            build=lambda dp: dp.m.make_randomized_response_bool(prob),
            model=lambda: models.opendp_rr_bool(prob),
            to_opendp=_bool,
            from_opendp=int,
            show=lambda x: str(bool(x[0])),
            show_output=lambda y: str(bool(y)),
        ),
    )


def _rr_categorical(*, t: int, prob: float, label: str) -> AuditCase:
    names = [f"c{k}" for k in range(t)]
    return _measured(
        "make_randomized_response",
        f"t={t}, prob={label}",
        Measurement(
            d_in=1,
            build=lambda dp: dp.m.make_randomized_response(names, prob=prob),
            model=lambda: models.opendp_rr_categorical(t, prob),
            to_opendp=lambda x: names[x[0]] if x[0] < t else "not-a-category",
            from_opendp=lambda y: names.index(y),
            show=_category(t),
            show_output=lambda y: names[y],
            script=_fill(
                _RR_SCRIPT,
                call=f"dp.m.make_randomized_response({names!r}, prob={prob!r})",
                categories=repr(names),
                prob=repr(prob),
            ),
        ),
    )


def _bitvec_measurement(m: int, f: float) -> Callable[[Any], Any]:
    """``dp -> make_randomized_response_bitvec`` over bit vectors of at most ``m`` ones, flipping with ``f / 2``."""
    return lambda dp: dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=m), dp.discrete_distance(), f)


def _bitvec(*, n: int, m: int, f: float) -> AuditCase:
    return _measured(
        "make_randomized_response_bitvec",
        f"{n} bits, max_weight={m}, f={f!r}",
        Measurement(
            d_in=1,
            build=_bitvec_measurement(m, f),
            model=lambda: models.opendp_rr_bitvec(n, m, f),
            to_opendp=_bits_to_bytes,
            from_opendp=_bytes_to_bits,
            show=lambda x: _bits_to_bytes(x).hex(),
            show_output=lambda y: _bits_to_bytes(y).hex(),
        ),
    )


def _bitvec_lengths(*, n: int, m: int, f: float) -> AuditCase:
    """Inputs of ``n`` or ``2 n`` bits; the model's output is its length, then ``2 n`` bits (zero past the length)."""

    def to_model(data: Any) -> tuple[Any, ...]:
        bits = _bytes_to_bits(data)
        return (len(bits),) + bits + (0,) * (2 * n - len(bits))

    call = f"make_randomized_response_bitvec(dp.bitvector_domain(max_weight={m}), dp.discrete_distance(), {f!r})"
    return _measured(
        "make_randomized_response_bitvec",
        f"{n} or {2 * n} bits, max_weight={m}, f={f!r}",
        Measurement(
            d_in=1,
            build=_bitvec_measurement(m, f),
            model=lambda: models.opendp_rr_bitvec_lengths(n, m, f),
            to_opendp=_lengths_to_opendp(n),
            from_opendp=to_model,
            show=lambda x: bytes(2 * n // 8 if x[0] else n // 8).hex(),
            show_output=lambda y: _bits_to_bytes(y[1 : 1 + y[0]]).hex(),
            script=_fill(_BITVEC_SCRIPT, call=call, f=repr(f)),
        ),
    )


def _geometric(*, T: str, lower: int, upper: int, scale: float, d_in: int) -> AuditCase:
    call = (
        f"dp.m.make_geometric(dp.atom_domain(T={T!r}), dp.absolute_distance(T={T!r}), scale={scale!r}, "
        f"bounds=({lower}, {upper}))"
    )
    return _measured(
        "make_geometric",
        f"T={T}, bounds=({lower}, {upper}), scale={scale!r}",
        Measurement(
            d_in=d_in,
            build=lambda dp: dp.m.make_geometric(
                dp.atom_domain(T=T), dp.absolute_distance(T=T), scale=scale, bounds=(lower, upper)
            ),
            model=lambda: models.opendp_geometric_bounded(lower, upper, scale, d_in, T),
            to_opendp=lambda x: x[0],
            from_opendp=int,
            show=lambda x: str(x[0]),
            show_output=str,
            script=_fill(_GEOMETRIC_SCRIPT, call=call),
        ),
    )


def _noisy_max(*, n: int, top: int, scale: float, d_in: int, monotonic: bool) -> AuditCase:
    return _measured(
        "make_noisy_max",
        f"{n} scores in 0..{top}, scale={scale!r}, monotonic={monotonic}",
        Measurement(
            d_in=d_in,
            build=lambda dp: dp.m.make_noisy_max(
                dp.vector_domain(dp.atom_domain(T="i32")),
                dp.linf_distance(T="i32", monotonic=monotonic),
                dp.max_divergence(),
                scale,
            ),
            model=lambda: models.opendp_noisy_max(n, top, scale, d_in, monotonic),
            to_opendp=list,
            from_opendp=int,
            show=lambda x: str(list(x)),
            show_output=str,
            exact=False,
        ),
    )


def _laplace(*, mechanism: str, T: str, scale: float, inputs: tuple[int, int]) -> AuditCase:
    """OpenDP's discrete Laplace on an integer type: ``make_geometric`` without bounds, ``make_laplace``, or
    ``make_noise`` under ``max_divergence``."""

    def build(dp: Any) -> Any:
        space = (dp.atom_domain(T=T), dp.absolute_distance(T=T))
        if mechanism == "make_noise":
            return dp.m.make_noise(*space, dp.max_divergence(), scale=scale)
        return getattr(dp.m, mechanism)(*space, scale=scale)

    spec = IntegerLaplace(T=T, scale=scale, inputs=inputs, build=build)
    low, high = spec.window
    shown = "max_divergence" if mechanism == "make_noise" else "no bounds"
    params = f"T={T}, {shown}, scale={scale!r}, inputs {inputs[0]} and {inputs[1]}, outputs {low}..{high}"
    return _case(mechanism=mechanism, params=params, claim=CERTIFIED, model=_laplace_row, spec=spec)


def _gaussian(*, mechanism: str, T: str, scale: float, d_in: int) -> AuditCase:
    """OpenDP's discrete Gaussian on an integer type: ``make_gaussian``, or ``make_noise`` under zCDP."""

    def build(dp: Any) -> Any:
        space = (dp.atom_domain(T=T), dp.absolute_distance(T=T))
        if mechanism == "make_noise":
            return dp.m.make_noise(*space, dp.zero_concentrated_divergence(), scale=scale)
        return dp.m.make_gaussian(*space, scale=scale)

    spec = IntegerGaussian(T=T, scale=scale, d_in=d_in, build=build)
    x0, x1 = spec.inputs
    params = f"T={T}, zCDP, scale={scale!r}, inputs {x0} and {x1}"
    return _case(mechanism=mechanism, params=params, claim=CERTIFIED_ZCDP, model=_gaussian_row, spec=spec)


def _threshold(*, mechanism: str, scale: float, level: int, d_in: tuple[int, int, int]) -> AuditCase:
    """``make_laplace_threshold``, or ``make_noise_threshold`` under ``approximate(max_divergence())``."""

    def build(dp: Any) -> Any:
        domain = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i32"))
        metric = dp.l01inf_distance(dp.absolute_distance(T="i32"))
        if mechanism == "make_noise_threshold":
            measure = dp.approximate(dp.max_divergence())
            return dp.m.make_noise_threshold(domain, metric, measure, scale=scale, threshold=level)
        return dp.m.make_laplace_threshold(domain, metric, scale=scale, threshold=level)

    return _case(
        mechanism=mechanism,
        params=f"one key's count, scale={scale!r}, threshold={level}, d_in={d_in}",
        claim="(epsilon, delta): the privacy map at d_in (certified)",
        model=_threshold_row,
        spec=NoiseThreshold(scale=scale, threshold=level, d_in=d_in, build=build),
    )


def _gaussian_threshold(*, scale: float, level: int, d_in: tuple[int, int, int]) -> AuditCase:
    def build(dp: Any) -> Any:
        domain = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i32"))
        metric = dp.l02inf_distance(dp.absolute_distance(T="i32"))
        return dp.m.make_gaussian_threshold(domain, metric, scale=scale, threshold=level)

    window = gauss_window(Fraction(scale) ** 2) + level + 2
    return _case(
        mechanism="make_gaussian_threshold",
        params=f"one key's count, scale={scale!r}, threshold={level}, d_in={d_in}",
        claim="approximate zCDP (rho, delta): the privacy map at d_in (certified)",
        model=_gaussian_threshold_row,
        spec=NoiseThreshold(scale=scale, threshold=level, d_in=d_in, build=build, window=window),
    )


def _quantile(
    *, candidates: tuple[int, ...], alpha: float, scale: float, values: int, size: int, zcdp: bool = False
) -> AuditCase:
    return _case(
        mechanism="make_private_quantile",
        params=f"{'zero_concentrated_divergence, ' if zcdp else ''}candidates={list(candidates)}, alpha={alpha!r}, "
        f"scale={scale!r}, datasets of up to {size} values in 0..{values - 1}",
        claim=CERTIFIED_ZCDP if zcdp else CERTIFIED,
        model=_quantile_row,
        spec=PrivateQuantile(candidates=candidates, alpha=alpha, scale=scale, values=values, size=size, zcdp=zcdp),
    )


def _top_k(*, n: int, top: int, k: int, scale: float, monotonic: bool, zcdp: bool = False) -> AuditCase:
    def build(dp: Any) -> Any:
        domain = dp.vector_domain(dp.atom_domain(T="i32"), size=n)
        metric = dp.linf_distance(T="i32", monotonic=monotonic)
        measure = dp.zero_concentrated_divergence() if zcdp else dp.max_divergence()
        return dp.m.make_noisy_top_k(domain, metric, measure, k, scale)

    return _case(
        mechanism="make_noisy_top_k",
        params=f"{'zero_concentrated_divergence, ' if zcdp else ''}k={k} of {n} scores in 0..{top}, scale={scale!r}, "
        f"monotonic={monotonic}",
        claim=CERTIFIED_ZCDP if zcdp else CERTIFIED,
        model=_top_k_row,
        spec=NoisyTopK(n=n, top=top, k=k, scale=scale, d_in=1, monotonic=monotonic, build=build, replacement=zcdp),
    )


def _gumbel(*, n: int, top: int, scale: float, optimize: str) -> AuditCase:
    def build(dp: Any) -> Any:
        domain = dp.vector_domain(dp.atom_domain(T="i32"), size=n)
        with warnings.catch_warnings():  # deprecated since 0.14: an alias of make_noisy_max
            warnings.simplefilter("ignore", DeprecationWarning)
            return dp.m.make_report_noisy_max_gumbel(domain, dp.linf_distance(T="i32"), scale, optimize)

    return _case(
        mechanism="make_report_noisy_max_gumbel",
        params=f"{n} scores in 0..{top}, scale={scale!r}, optimize={optimize}",
        claim=CERTIFIED,
        model=_top_k_row,
        spec=NoisyTopK(n=n, top=top, k=1, scale=scale, d_in=1, monotonic=False, build=build, negate=optimize == "min"),
    )


def _cases() -> list[AuditCase]:
    """Every OpenDP case, in the order the audit runs and shows them."""
    return [
        _rr_bool(prob=0.75),
        _rr_bool(prob=0.6),
        _rr_bool(prob=0.5),
        _rr_categorical(t=3, prob=1 / 3, label="1/3"),
        _rr_categorical(t=9, prob=1 / 9, label="1/9"),
        _rr_categorical(t=4, prob=1 / 4, label="1/4"),
        _rr_categorical(t=5, prob=0.5, label="0.5"),
        _bitvec(n=8, m=5, f=0.5),
        _bitvec(n=8, m=2, f=0.5),
        _bitvec_lengths(n=8, m=5, f=0.5),
        _geometric(T="i32", lower=0, upper=1, scale=1.0, d_in=2),
        _geometric(T="i32", lower=0, upper=5, scale=2.0, d_in=1),
        _geometric(T="u32", lower=0, upper=5, scale=10.0, d_in=1),
        _geometric(T="u32", lower=0, upper=5, scale=2.0, d_in=1),
        _noisy_max(n=3, top=3, scale=1.0, d_in=1, monotonic=False),
        _noisy_max(n=2, top=4, scale=2.0, d_in=1, monotonic=True),
        _laplace(mechanism="make_geometric", T="i32", scale=2.0, inputs=(0, 1)),
        _laplace(mechanism="make_geometric", T="i32", scale=0.5, inputs=(-1, 2)),
        _laplace(mechanism="make_geometric", T="u32", scale=3.0, inputs=(0, 1)),
        _laplace(mechanism="make_laplace", T="i32", scale=0.1, inputs=(2**31 - 4, 2**31 - 1)),
        _laplace(mechanism="make_laplace", T="i64", scale=1.0, inputs=(5, 7)),
        _top_k(n=3, top=2, k=2, scale=1.0, monotonic=False),
        _top_k(n=3, top=2, k=2, scale=2.0, monotonic=True),
        _top_k(n=3, top=2, k=1, scale=1.0, monotonic=False, zcdp=True),
        _top_k(n=3, top=2, k=2, scale=1.0, monotonic=True, zcdp=True),
        _top_k(n=2, top=3, k=1, scale=0.5, monotonic=True, zcdp=True),
        _gumbel(n=3, top=2, scale=1.0, optimize="max"),
        _gumbel(n=3, top=2, scale=2.0, optimize="min"),
        _laplace(mechanism="make_noise", T="i32", scale=1.5, inputs=(0, 1)),
        _gaussian(mechanism="make_gaussian", T="i32", scale=1.0, d_in=1),
        _gaussian(mechanism="make_gaussian", T="i32", scale=0.7, d_in=2),
        _gaussian(mechanism="make_gaussian", T="i64", scale=3.0, d_in=1),
        _gaussian(mechanism="make_gaussian", T="u32", scale=2.0, d_in=1),
        _gaussian(mechanism="make_noise", T="i32", scale=1.5, d_in=2),
        _threshold(mechanism="make_laplace_threshold", scale=1.0, level=5, d_in=(1, 1, 1)),
        _threshold(mechanism="make_laplace_threshold", scale=2.0, level=20, d_in=(1, 1, 1)),
        _threshold(mechanism="make_laplace_threshold", scale=1.0, level=5, d_in=(1, 2, 2)),
        _threshold(mechanism="make_laplace_threshold", scale=1.0, level=5, d_in=(0, 0, 0)),
        _threshold(mechanism="make_noise_threshold", scale=0.5, level=4, d_in=(1, 1, 1)),
        _gaussian_threshold(scale=1.0, level=6, d_in=(1, 1, 1)),
        _gaussian_threshold(scale=2.0, level=4, d_in=(1, 1, 1)),
        _gaussian_threshold(scale=1.5, level=6, d_in=(1, 2, 2)),
        _gaussian_threshold(scale=1.0, level=3, d_in=(0, 0, 0)),
        _quantile(candidates=(0, 1, 2), alpha=0.5, scale=1.0, values=4, size=3),
        _quantile(candidates=(1, 2), alpha=0.25, scale=0.5, values=4, size=3),
        _quantile(candidates=(0, 2), alpha=0.3, scale=1.0, values=3, size=3),
        _quantile(candidates=(0, 1, 2), alpha=0.5, scale=1.0, values=4, size=3, zcdp=True),
        _quantile(candidates=(1, 2), alpha=0.25, scale=0.5, values=4, size=3, zcdp=True),
    ]


# -- the discrete Laplace over an integer type: an infinite support, certified -------------------

#: the range of each integer type OpenDP's FFI takes for the integer Laplace
INTEGER_RANGES = {
    "i32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "u64": (0, 2**64 - 1),
}
#: the model keeps every output within ``WINDOW_SCALES * scale`` of the inputs (the rest has mass below e^-40)
WINDOW_SCALES = 40
#: the merged outputs below and above the window
BELOW, ABOVE = "below the window", "above the window"


@dataclass(frozen=True)
class IntegerLaplace:
    """A case of OpenDP's discrete Laplace on an integer atom domain (``make_geometric`` without bounds, or
    ``make_laplace``): its inputs ``x0 < x1`` at distance ``d_in``, the type ``T`` and the scale; the model
    keeps the outputs ``x0 - W .. x1 + W`` (clipped to the type) and merges the rest into :data:`BELOW` and
    :data:`ABOVE`."""

    T: str
    scale: float
    inputs: tuple[int, int]
    build: Callable[[Any], Any]

    @property
    def d_in(self) -> int:
        return self.inputs[1] - self.inputs[0]

    @property
    def window(self) -> tuple[int, int]:
        lower, upper = INTEGER_RANGES[self.T]
        w = math.ceil(WINDOW_SCALES * self.scale)
        return max(lower, self.inputs[0] - w), min(upper, self.inputs[1] + w)

    def to_opendp(self, x: Any) -> Any:
        return x

    def from_opendp(self, y: Any) -> Hashable:
        low, high = self.window
        return BELOW if y < low else ABOVE if y > high else int(y)


def discrete_laplace_outputs(spec: IntegerLaplace) -> list[dict[Hashable, Real]]:
    """``P(y | x)`` for each input ``x`` of ``spec``, as exact reals. OpenDP 0.16 casts the input to a big
    integer, adds ``Z = sample_discrete_laplace(scale)`` and casts back saturating (``make_int_to_bigint``,
    ``then_saturating_cast``). The sampler (``traits/samplers/cks20``) is Canonne, Kamath and Steinke's, exact
    at the scale's binary64 value ``s`` read as a rational: a fair sign, a magnitude ``G`` with
    ``P(G = m) = (1 - q) q^m`` (``sample_geometric_exp_fast`` at ``1/s``), a negative zero rejected; so
    ``P(Z = z) = (1 - q) / (1 + q) q^|z|`` with ``q = e^(-1/s)``, and ``P(Z >= m) = P(Z <= -m) = q^m / (1 + q)``
    for ``m >= 0``. The type's least and greatest values take the tails beyond them; outside the window the
    two merged outputs take ``P(Z <= low - 1 - x)`` and ``P(Z >= high + 1 - x)``."""
    lower, upper = INTEGER_RANGES[spec.T]
    low, high = spec.window
    q = Real(f"exp(-{1 / Fraction(spec.scale)})")

    def tail(m: int) -> Real:  # P(Z >= m) = P(Z <= -m) for m >= 0
        return q**m / (1 + q)

    def at(o: int, x: int) -> Real:
        if o == upper:
            return tail(upper - x)
        if o == lower:
            return tail(x - lower)
        return (1 - q) / (1 + q) * q ** abs(o - x)

    out = []
    for x in spec.inputs:
        dist: dict[Hashable, Real] = {o: at(o, x) for o in range(low, high + 1)}
        if low > lower:
            dist[BELOW] = tail(x - low + 1)
        if high < upper:
            dist[ABOVE] = tail(high + 1 - x)
        out.append(dist)
    return out


def _laplace_row(case: AuditCase) -> Modelled:
    """The claim of the privacy map at ``d_in`` against the certified tight epsilon between the case's two
    inputs. Merging outputs never raises a ratio (a merged ratio lies between the merged ones), and the largest
    ratio, ``e^(d_in / s)``, is attained at every kept output at or below ``x0``: the model's epsilon is the
    mechanism's on this pair, and no other pair at distance ``d_in`` does worse (``P(y | x) / P(y | x')`` is at
    most ``e^(|x - x'| / s)`` for every ``y``, the saturated ones included). So the exact epsilon is ``d_in / s``."""
    spec: IntegerLaplace = case.spec
    claimed = float(spec.build(_opendp()).map(spec.d_in))
    dists = discrete_laplace_outputs(spec)
    row, _ = _certified_row(case, claimed, spec.inputs, lambda a, b: a != b, dists, str)
    return row, [(str(v), {y: float(p) for y, p in dists[k].items()}, v) for k, v in enumerate(spec.inputs)]


def _certified_row(
    case: AuditCase,
    claimed: float,
    inputs: Sequence[Any],
    neighbours: Callable[[Any, Any], bool],
    dists: list[dict[Hashable, Any]],
    show: Callable[[Any], str],
) -> tuple[AuditRow, tuple[int, int]]:
    """The row of a case whose output distributions ``dists`` (one per input, exact reals) are a choice program:
    its certified tight epsilon over the ``neighbours`` pairs against ``claimed``, the witness shown by ``show``;
    and the witness pair's places in ``inputs``."""
    prog, outputs, relation = choice_program(case.mechanism, inputs, neighbours, dists)
    r = synthesize_privacy(prog, "exhaustive", neighbours=relation, force=True, certified=True)
    i, j = r.witness.x[0], r.witness.x_prime[0]
    row = AuditRow(
        case.mechanism,
        case.params,
        case.spec.d_in,
        claimed,
        r.interval.hi,
        None,
        certified_verdict(claimed, claimed, r.interval.lo, r.interval.hi),
        (show(inputs[i]), show(inputs[j]), show(outputs[r.witness.y])),
        0.0,
    )
    return with_tight_delta(row, prog, relation, certified=True), (i, j)


def _zcdp_row(
    case: AuditCase,
    claimed: float,
    inputs: Sequence[Any],
    neighbours: Callable[[Any, Any], bool],
    dists: list[dict[Hashable, Any]],
    show: Callable[[Any], str],
) -> tuple[AuditRow, tuple[int, int]]:
    """The row of a zCDP claim ``claimed`` whose output distributions ``dists`` (one per input, exact reals) are
    known exactly: the certified tight ``rho = max over neighbouring pairs (both orders) of sup over alpha > 1 of
    D_alpha / alpha`` (:func:`~wmcdp.notions.zcdp.certified_zcdp`) against the claim; the witness is the pair and the
    order where the lower end is attained (order 1: the limit alpha -> 1, the KL divergence); and the pair's places
    in ``inputs``."""
    ordered = [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if neighbours(inputs[a], inputs[b])]
    outputs = sorted({y for d in dists for y in d}, key=lambda y: (str(type(y)), y))
    pairs = [([dists[a].get(y, 0) for y in outputs], [dists[b].get(y, 0) for y in outputs]) for a, b in ordered]
    r = certified_zcdp(pairs)
    i, j = ordered[r.pair]
    row = AuditRow(
        case.mechanism,
        case.params,
        case.spec.d_in,
        claimed,
        float(r.hi),
        None,
        certified_verdict(claimed, claimed, float(r.lo), float(r.hi)),
        (show(inputs[i]), show(inputs[j]), f"rho at order {r.alpha!r}" if r.alpha > 1 else "rho as alpha -> 1"),
        0.0,
    )
    return row, (i, j)


# -- the discrete Gaussian over an integer type (zCDP): an infinite support, certified ------------------


@dataclass(frozen=True)
class IntegerGaussian:
    """A case of OpenDP's discrete Gaussian on an integer atom domain (``make_gaussian``, or ``make_noise`` under
    ``zero_concentrated_divergence``): inputs ``base`` and ``base + d_in``, where ``base`` is 0 for a signed type
    and, for an unsigned one, past the model's window (:func:`~wmcdp.audit.tmlt.gauss_window`), so that the
    saturating cast at 0 only ever meets the merged lower tail."""

    T: str
    scale: float
    d_in: int
    build: Callable[[Any], Any]

    @property
    def variance(self) -> Fraction:
        """``sigma^2``: the scale's binary64 value read as a rational (``integerize_scale(scale, 0)``), squared."""
        return Fraction(self.scale) ** 2

    @property
    def window(self) -> int:
        return gauss_window(self.variance)

    @property
    def base(self) -> int:
        return 0 if INTEGER_RANGES[self.T][0] < 0 else self.window + 1

    @property
    def inputs(self) -> tuple[int, int]:
        return self.base, self.base + self.d_in

    def to_opendp(self, x: Any) -> Any:
        return self.inputs[x]

    def from_opendp(self, y: Any) -> Hashable:
        """An output as the model codes it (:func:`~wmcdp.audit.tmlt.gauss_outputs`): 0 below the window, then the
        window's outputs ``base - W .. base + d_in + W``, then one code above it."""
        w = self.window
        return min(max(int(y) - self.base, -w - 1), self.d_in + w + 1) + w + 1


def _gaussian_row(case: AuditCase) -> Modelled:
    """The claim of the privacy map at ``d_in`` (``(d_in / scale)^2 / 2`` rounded up to a double) against the
    tight rho. OpenDP 0.16 adds ``sample_discrete_gaussian(scale)`` (``traits/samplers/cks20``) to the input in
    big integers and casts back saturating (``nature/integer``, ``ZExpFamily<2>::sample``): CKS20's rejection
    sampler, exact at ``sigma^2 = scale^2`` for the scale's binary64 value, so ``P(Z = z)`` is proportional to
    ``e^(-z^2 / (2 sigma^2))``. Shifted by ``d_in``, its Renyi divergence of every order ``alpha`` is at most
    ``alpha d_in^2 / (2 sigma^2)`` (equal at integer orders; the saturating cast is a post-processing, which
    cannot raise it): the tight rho is ``d_in^2 / (2 sigma^2)``, checked against the certified ``D_2`` of the
    windowed model (:func:`~wmcdp.audit.tmlt.discrete_gaussian_row`)."""
    spec: IntegerGaussian = case.spec
    claimed = float(spec.build(_opendp()).map(spec.d_in))
    x0, x1 = spec.inputs
    row, dists = discrete_gaussian_row(
        case, case.params, spec.variance, claimed, (claimed, claimed), (str(x0), str(x1))
    )
    return row, [(str(spec.inputs[k]), {y: float(p) for y, p in dists[k].items()}, k) for k in (0, 1)]


# -- the discrete Laplace threshold on counts: (epsilon, delta), certified ---------------------------

#: the partition's absence from the input (no key), which OpenDP's metric reads as a count of 0
ABSENT = "absent"
#: the partition's absence from the output
DROPPED = "dropped"


@dataclass(frozen=True)
class NoiseThreshold:
    """A case of ``make_laplace_threshold`` (or ``make_noise_threshold`` under ``approximate(max_divergence())``)
    on ``map_domain(atom_domain(str), atom_domain(i32))`` with ``l01inf_distance``: one key's count, from
    :data:`ABSENT` and ``0`` to ``threshold + 1``; ``d_in = (l0, l1, linf)``."""

    scale: float
    threshold: int
    d_in: tuple[int, int, int]
    build: Callable[[Any], Any]
    window: int = 2  # released counts up to threshold + window are kept apart

    @property
    def inputs(self) -> list[Any]:
        return [ABSENT, *range(self.threshold + 2)]

    @property
    def top(self) -> int:
        """The greatest released count the model keeps apart; those above are merged."""
        return self.threshold + self.window

    def neighbours(self, a: Any, b: Any) -> bool:
        """``d_in``-close by OpenDP's definition (``metrics/mod.rs``, ``L0PInfDistance``): a missing key is the
        additive identity, 0, so an absent key and a count of 0 are at distance 0."""
        n, m = (0 if v == ABSENT else v for v in (a, b))
        change = abs(n - m)
        l0, l1, linf = self.d_in
        return a != b and (change == 0 or (l0 >= 1 and change <= min(l1, linf)))

    def to_opendp(self, x: Any) -> Any:
        return {} if x == ABSENT else {"a": x}

    def from_opendp(self, y: Any) -> Hashable:
        if "a" not in y:
            return DROPPED
        return min(int(y["a"]), self.top + 1)

    def show_output(self, y: Hashable) -> str:
        return f"a > {self.top}" if y == self.top + 1 else str(y) if y == DROPPED else f"a = {y}"


def threshold_outputs(spec: NoiseThreshold) -> list[dict[Hashable, Real]]:
    """``P(output | input)`` for each input of ``spec``, as exact reals. OpenDP 0.16 adds
    ``sample_discrete_laplace(scale)`` to each count in big integers (``noise_threshold/nature/integer``,
    ``make_int_to_bigint_threshold``) and keeps the keys whose noisy count is at least the threshold
    (``noise_threshold/mod.rs``: ``cmp(&threshold) != Less``); an absent key is never released. With
    ``P(Z = z) = (1 - q)/(1 + q) q^|z|``, ``q = e^(-1/s)``, a count ``n`` is dropped with probability
    ``P(Z <= threshold - 1 - n)``, released as ``c`` in ``threshold .. top`` with ``P(Z = c - n)``, and above
    ``top`` with ``P(Z >= top + 1 - n)``; every count above ``top`` has the same ratio between two inputs up to
    ``top``, so merging them changes no hockey-stick sum."""
    q = Real(f"exp(-{1 / Fraction(spec.scale)})")
    c = (1 - q) / (1 + q)

    def at_least(m: int) -> Real:  # P(Z >= m)
        return q**m / (1 + q) if m >= 0 else 1 - q ** (1 - m) / (1 + q)

    out: list[dict[Hashable, Real]] = []
    for x in spec.inputs:
        if x == ABSENT:
            out.append({DROPPED: Real("1")})
            continue
        dist: dict[Hashable, Real] = {DROPPED: 1 - at_least(spec.threshold - x)}
        for count in range(spec.threshold, spec.top + 1):
            dist[count] = c * q ** abs(count - x)
        dist[spec.top + 1] = at_least(spec.top + 1 - x)
        out.append(dist)
    return out


def _threshold_row(case: AuditCase) -> Modelled:
    """The claim ``(epsilon, delta)`` of the privacy map at ``d_in`` against the certified tight delta at the
    claimed epsilon over every ``d_in``-close pair of the case's inputs (both orders), and the tight epsilon at the
    claimed delta. The verdict compares the deltas (``VIOLATED`` when the enclosure lies above the claim)."""
    spec: NoiseThreshold = case.spec
    eps, delta = (float(v) for v in spec.build(_opendp()).map(spec.d_in))
    dists = threshold_outputs(spec)
    prog, outputs, relation = choice_program(case.mechanism, spec.inputs, spec.neighbours, dists)
    at_eps = synthesize_approximate(prog, epsilon=eps, neighbours=relation, certified=True, force=True)
    at_delta = synthesize_approximate(prog, delta=Fraction(delta), neighbours=relation, certified=True, force=True)
    i, j = at_eps.witness.x[0], at_eps.witness.x_prime[0]
    row = AuditRow(
        case.mechanism,
        case.params,
        1,
        eps,
        at_delta.interval.hi,
        None,
        certified_verdict(delta, delta, at_eps.interval.lo, at_eps.interval.hi),
        (repr(spec.to_opendp(spec.inputs[i])), repr(spec.to_opendp(spec.inputs[j])), ""),
        0.0,
        claimed_delta=delta,
        delta=at_eps.interval.hi,
        witness_probabilities=(_release(dists[i]), _release(dists[j])),
        witness_event="released",
    )
    if row.verdict == "VIOLATED" and ABSENT in (spec.inputs[i], spec.inputs[j]):
        present = spec.inputs[j] if spec.inputs[i] == ABSENT else spec.inputs[i]
        row = replace(row, reproducer=threshold_reproducer(case, eps, delta, present))
    return row, [(repr(spec.to_opendp(spec.inputs[k])), _floats(dists[k]), spec.inputs[k]) for k in (i, j)]


_THRESHOLD_SCRIPT = '''"""{label}: OpenDP {version} claims (epsilon, delta) = ({epsilon!r}, {delta!r}) at d_in = {d_in},
yet the input {{"a": {n}}} releases the key "a" more often than delta, while the input {{}} (at distance
{distance} under l01inf_distance: a missing key counts as 0) never releases it: P(released | {{"a": {n}}}) <= delta
is what the claim needs. The measurement adds the discrete Laplace Z at the scale to the count and keeps the key
when the noisy count is at least the threshold, so P(released) = P(Z >= threshold - {n}) = q^m / (1 + q) with
q = e^(-1/scale), m = threshold - {n}; the privacy map's delta is the tail P(Z > threshold - l_inf), one step
further out. Needs only OpenDP."""
import math
from decimal import Decimal, getcontext

import opendp.prelude as dp

dp.enable_features("contrib")
scale, threshold = {scale!r}, {threshold!r}
domain = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i32"))
metric = dp.l01inf_distance(dp.absolute_distance(T="i32"))
measurement = {call}
epsilon, delta = measurement.map({d_in})
print(f"the privacy map at d_in = {d_in}: ({{epsilon!r}}, {{delta!r}})")
getcontext().prec = 50
q = (-1 / Decimal(scale)).exp()
exact = q ** (threshold - {n}) / (1 + q)
print(f"P(released | {{{{'a': {n}}}}}) = {{exact:.30e}} exactly")
n = 10000
batch = dp.c.make_composition([measurement] * n)  # the same sampler, n runs in one call
k = sum(1 for out in batch({{"a": {n}}}) if "a" in out)
never = sum(1 for out in batch({{}}) if "a" in out)
low = k / n - 6 * math.sqrt(k * (n - k) / n) / n  # six standard errors below the frequency
print(f"released from {{{{'a': {n}}}}} in {{k}} of {{n}} runs (at least {{low:.6f}} at six standard errors), "
      f"from {{{{}}}} in {{never}} of {{n}}")
print("VIOLATED" if exact > Decimal(delta) else "holds")
'''


def threshold_reproducer(case: AuditCase, epsilon: float, delta: float, n: int) -> str:
    """A standalone script (OpenDP alone) for a violated threshold claim whose witness pair is a key with ``n``
    users against no key: the exact release probability, OpenDP's own release frequency, and the verdict."""
    if case.mechanism == "make_noise_threshold":
        call = "dp.m.make_noise_threshold(domain, metric, dp.approximate(dp.max_divergence()), scale, threshold)"
    else:
        call = "dp.m.make_laplace_threshold(domain, metric, scale=scale, threshold=threshold)"
    return _threshold_script(_THRESHOLD_SCRIPT, case, n, epsilon=epsilon, delta=delta, call=call)


def _threshold_script(template: str, case: AuditCase, n: int, **claim: Any) -> str:
    """``template`` filled for a threshold case (:class:`NoiseThreshold`) whose witness is a key with ``n`` users
    against no key, ``claim`` its claimed values (and the measurement's call, where the template takes it)."""
    spec: NoiseThreshold = case.spec
    return template.format(
        label=case.label,
        version=LIBRARY.version(),
        d_in=spec.d_in,
        distance=(min(n, 1), n, n),
        n=n,
        scale=spec.scale,
        threshold=spec.threshold,
        **claim,
    )


def _release(dist: dict[Hashable, Real]) -> str:
    """``P(released)`` of a threshold's output distribution, as a 17-digit decimal (its certified midpoint)."""
    mid, _ = (1 - dist[DROPPED]).enclosure(128)
    return repr(float(mid))


def _floats(dist: dict[Hashable, Real]) -> dict[Hashable, float]:
    return {y: float(p) for y, p in dist.items() if p > 0}


# -- the discrete Gaussian threshold on counts: approximate zCDP (rho, delta), certified ------------------


#: evaluations the check of a threshold's rho may spend (its lower end only checks the model against the bound)
THRESHOLD_BUDGET = 500


def gaussian_threshold_outputs(spec: NoiseThreshold) -> list[dict[Hashable, Real]]:
    """``P(output | input)`` for each input of ``spec`` (:class:`NoiseThreshold` of ``make_gaussian_threshold``), as
    exact reals. OpenDP 0.16 adds ``sample_discrete_gaussian(scale)`` (CKS20, exact at ``sigma^2 = scale^2`` for
    the scale's binary64 value) to each count in big integers and keeps the keys whose noisy count is at least the
    threshold, as :func:`threshold_outputs`; with ``P(Z = z) = e^(-z^2 / (2 sigma^2)) / N``, a count ``n`` is
    released as ``c`` in ``threshold .. top`` with ``P(Z = c - n)``, above ``top`` with ``P(Z > top - n)`` (the model's
    ``top`` is past the window of :func:`~wmcdp.audit.tmlt.gauss_window`: that tail holds less than 2^-200) and
    dropped with ``P(Z <= threshold - 1 - n)``."""
    s = Fraction(spec.scale) ** 2
    norm = 1 + 2 * _gauss_tail(s, 0)

    def above(m: int) -> Real:  # P(Z > m)
        return _gauss_tail(s, m) / norm if m >= 0 else 1 - _gauss_tail(s, -m - 1) / norm

    out: list[dict[Hashable, Real]] = []
    for x in spec.inputs:
        if x == ABSENT:
            out.append({DROPPED: Real("1")})
            continue
        dist: dict[Hashable, Real] = {DROPPED: 1 - above(spec.threshold - 1 - x)}
        for count in range(spec.threshold, spec.top + 1):
            dist[count] = _gauss_term(s, count - x) / norm
        dist[spec.top + 1] = above(spec.top - x)
        out.append(dist)
    return out


def _gaussian_threshold_row(case: AuditCase) -> Modelled:
    """The claim ``(rho, delta)`` of the privacy map at ``d_in`` against the tight delta at the claimed rho, under
    OpenDP's approximate zCDP: the proof of ``make_gaussian_threshold`` (``NoiseThresholdPrivacyMap`` for
    ``ZExpFamily<2>``) and the composition of ``Approximate<ZeroConcentratedDivergence>`` cite Bun and Steinke
    (2016, Definition 8.1): ``x, x'`` are ``(rho, delta)``-close when events ``E``, ``E'`` of probability at least
    ``1 - delta`` under ``M(x)``, ``M(x')`` exist with ``D_alpha(M(x)|E || M(x')|E') <= rho alpha`` (and the reverse)
    for every ``alpha > 1``.

    * A present count ``n`` against no key (``M`` of no key is "dropped" surely): every divergence is infinite
      unless ``M(n)|E`` is "dropped" only, so the pair needs exactly ``delta = P(released | n) = P(Z >= threshold -
      n)``, at any rho.
    * Two present counts ``c`` apart: both outputs are post-processings of ``n + Z``, so ``D_alpha <= alpha c^2 /
      (2 sigma^2)`` (CKS20, Proposition 5): when that is at most the claimed rho (checked in exact rationals, else
      the audit stops) the pair needs no delta. The row's ``epsilon`` is their tight rho: at most ``c^2 / (2
      sigma^2)``, and at least the certified :func:`~wmcdp.notions.zcdp.certified_zcdp` lower end of the model
      (merging the tails past the window is a post-processing, which lowers every divergence).

    So the tight delta at the claimed rho is the largest release probability of a count that is a neighbour of no
    key; the verdict compares it with the claimed delta (``VIOLATED`` when its enclosure lies above the claim)."""
    spec: NoiseThreshold = case.spec
    rho, delta = (float(v) for v in spec.build(_opendp()).map(spec.d_in))
    dists, inputs = gaussian_threshold_outputs(spec), spec.inputs
    pairs = [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if spec.neighbours(inputs[a], inputs[b])]
    closed = _present_rho(case, dists, [(a, b) for a, b in pairs if ABSENT not in (inputs[a], inputs[b])], rho)
    delta_low, delta_high, k = _largest_release(dists, inputs, pairs)
    row = AuditRow(
        case.mechanism,
        case.params,
        1,
        rho,
        closed,
        None,
        certified_verdict(delta, delta, delta_low, delta_high),
        (repr(spec.to_opendp(ABSENT)), repr(spec.to_opendp(inputs[k])), "released"),
        0.0,
        claimed_delta=delta,
        delta=delta_high,
        measure="approximate zCDP",
        witness_probabilities=(_release(dists[0]), _release(dists[k])),
        witness_event="released",
    )
    if row.verdict == "VIOLATED":
        row = replace(row, reproducer=gaussian_threshold_reproducer(case, rho, delta, inputs[k]))
    shown = [(repr(spec.to_opendp(inputs[m])), _floats(dists[m]), inputs[m]) for m in (0, k)]
    return row, shown


def _largest_release(
    dists: list[dict[Hashable, Real]], inputs: list[Any], pairs: list[tuple[int, int]]
) -> tuple[float, float, int]:
    """The largest ``P(released | x')`` over the pairs ``(absent, x')`` (never none: a count of 0 is at distance 0), as
    floats below and above it, and the place of that ``x'``."""
    releases = [(1 - dists[b][DROPPED], b) for a, b in pairs if inputs[a] == ABSENT]
    needed, k = max(releases, key=lambda r: r[0])
    mid, radius = needed.enclosure(128)
    return max(float_bracket(mid - radius)[0], 0.0), float_bracket(mid + radius)[1], k


def _present_rho(
    case: AuditCase, dists: list[dict[Hashable, Real]], present: list[tuple[int, int]], rho: float
) -> float:
    """``c^2 / (2 sigma^2)`` rounded up, for ``c`` the largest change between two present counts of the ``present``
    pairs: at most the claimed ``rho`` (else the audit stops: the tight delta would need the pairs' events), and at
    least the certified lower end of the model's rho over those pairs (else the model is wrong)."""
    spec: NoiseThreshold = case.spec
    worst = max((abs(spec.inputs[a] - spec.inputs[b]) for a, b in present), default=0)
    bound = Fraction(worst * worst) / (2 * Fraction(spec.scale) ** 2)
    if bound > Fraction(rho):
        raise WmcdpError(f"{case.label}: the claimed rho {rho!r} is below c^2 / (2 sigma^2) at c = {worst}")
    closed = float_bracket(bound)[1]
    if worst:
        outputs = sorted({y for d in dists for y in d}, key=lambda y: (str(type(y)), y))
        vectors = [([dists[a].get(y, 0) for y in outputs], [dists[b].get(y, 0) for y in outputs]) for a, b in present]
        lower = float(certified_zcdp(vectors, budget=THRESHOLD_BUDGET).lo)
        if lower > closed:
            raise WmcdpError(f"{case.label}: the model's certified rho {lower!r} exceeds the bound {closed!r}")
    return closed


_GAUSS_THRESHOLD_SCRIPT = '''"""{label}: OpenDP {version} claims approximate zCDP (rho, delta) =
({rho!r}, {delta!r}) at d_in = {d_in}, yet the input {{"a": {n}}} releases the key "a" more often than delta,
while the input {{}} (at distance {distance} under l02inf_distance: a missing key counts as 0) never releases it.
Approximate zCDP (Bun and Steinke 2016, Definition 8.1, which OpenDP's proof cites) needs an event of probability at
least 1 - delta under {{"a": {n}}} on which "a" is never released, so P(released | {{"a": {n}}}) <= delta. The
measurement adds the discrete Gaussian Z (sigma = scale) to the count and keeps the key when the noisy count is at
least the threshold, so P(released) = P(Z >= threshold - {n}); the privacy map bounds P(Z > threshold - l_inf), one
step further out.
Needs only OpenDP."""
import math
from decimal import Decimal, getcontext

import opendp.prelude as dp

dp.enable_features("contrib")
scale, threshold = {scale!r}, {threshold!r}
domain = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i32"))
metric = dp.l02inf_distance(dp.absolute_distance(T="i32"))
measurement = dp.m.make_gaussian_threshold(domain, metric, scale=scale, threshold=threshold)
rho, delta = measurement.map({d_in})
print(f"the privacy map at d_in = {d_in}: ({{rho!r}}, {{delta!r}})")
getcontext().prec = 50
s = Decimal(scale) ** 2  # the sampler's exact sigma^2 (the double scale, squared)
bound = int(60 * scale) + threshold + 10  # the terms past it are below 1e-700


def weight(j):
    return (-Decimal(j * j) / (2 * s)).exp()


norm = sum(weight(j) for j in range(-bound, bound + 1))
exact = sum(weight(j) for j in range(threshold - {n}, bound + 1)) / norm
print(f"P(released | {{{{'a': {n}}}}}) = {{exact:.30e}}")
n = 10000
batch = dp.c.make_composition([measurement] * n)  # the same sampler, n runs in one call
k = sum(1 for out in batch({{"a": {n}}}) if "a" in out)
never = sum(1 for out in batch({{}}) if "a" in out)
low = k / n - 6 * math.sqrt(k * (n - k) / n) / n  # six standard errors below the frequency
print(f"released from {{{{'a': {n}}}}} in {{k}} of {{n}} runs (at least {{low:.6g}} at six standard errors), "
      f"from {{{{}}}} in {{never}} of {{n}}")
print("VIOLATED" if exact > Decimal(delta) else "holds")
print("the frequency shows it" if low > delta else "the frequency alone does not show it at six standard errors")
'''


def gaussian_threshold_reproducer(case: AuditCase, rho: float, delta: float, n: int) -> str:
    """A standalone script (OpenDP alone) for a violated ``make_gaussian_threshold`` claim whose witness is a key
    with ``n`` users against no key: the release probability to 30 digits, OpenDP's own release frequency in 10 000
    runs, and the verdict."""
    return _threshold_script(_GAUSS_THRESHOLD_SCRIPT, case, n, rho=rho, delta=delta)


# -- make_private_quantile under max divergence: scores, then noisy min by permute-and-flip -------------

#: the alpha granularity OpenDP falls back to when the size is unknown (``score_candidates_constants``)
ALPHA_GRANULARITY = 10_000


@dataclass(frozen=True)
class PrivateQuantile:
    """A case of ``make_private_quantile(vector_domain(atom_domain(i32)), symmetric_distance(), measure,
    candidates, alpha, scale)`` with ``max_divergence()`` or, when ``zcdp``, ``zero_concentrated_divergence()``:
    every dataset of at most ``size`` values in ``0 .. values - 1`` (as a sorted tuple: the scores depend on the
    multiset only) is an input, neighbours one value added or removed (``d_in = 1``)."""

    candidates: tuple[int, ...]
    alpha: float
    scale: float
    values: int
    size: int
    d_in: int = 1
    zcdp: bool = False

    def build(self, dp: Any) -> Any:
        domain = dp.vector_domain(dp.atom_domain(T="i32"))
        measure = dp.zero_concentrated_divergence() if self.zcdp else dp.max_divergence()
        return dp.m.make_private_quantile(
            domain, dp.symmetric_distance(), measure, list(self.candidates), self.alpha, self.scale
        )

    @property
    def inputs(self) -> list[tuple[int, ...]]:
        return [x for n in range(self.size + 1) for x in itertools.combinations_with_replacement(range(self.values), n)]

    def neighbours(self, x: tuple[int, ...], y: tuple[int, ...]) -> bool:
        short, long = sorted((x, y), key=len)
        return len(long) == len(short) + 1 and all(long.count(v) >= short.count(v) for v in set(short))

    def to_opendp(self, x: Any) -> Any:
        return list(x)

    def from_opendp(self, y: Any) -> Hashable:
        return int(y)


def alpha_fraction(alpha: float) -> tuple[int, int]:
    """``(alpha_num, alpha_den)`` of ``score_candidates_constants`` for an unknown size: the double's own fraction
    when its denominator is below :data:`ALPHA_GRANULARITY`, else ``round(alpha * 10000.0)`` over 10000 (``round_cast``
    of the double product: to nearest, halves away from zero)."""
    exact = Fraction(alpha)
    if exact.denominator < ALPHA_GRANULARITY:
        return exact.numerator, exact.denominator
    return math.floor(Fraction(alpha * float(ALPHA_GRANULARITY)) + Fraction(1, 2)), ALPHA_GRANULARITY


def quantile_scores(x: Sequence[int], candidates: Sequence[int], alpha: float) -> tuple[int, ...]:
    """``score_candidates`` (``transformations/quantile_score_candidates``) for an unknown size: for each candidate
    ``c``, ``|(den - num) #(x < c) - num #(x > c)|`` (the counts capped at ``u64::MAX // den``, never reached here)."""
    num, den = alpha_fraction(alpha)
    return tuple(abs((den - num) * sum(1 for v in x if v < c) - num * sum(1 for v in x if v > c)) for c in candidates)


def quantile_outputs(spec: PrivateQuantile, x: tuple[int, ...]) -> dict[Hashable, Real]:
    """``P(candidate | x)``: ``make_noisy_max(..., scale * den, negate=true)`` is one round of OpenDP's
    permute-and-flip (:func:`permute_and_flip`; with replacement, :func:`exponential`, under zCDP) on the negated
    scores at the double ``scale * den``, read exactly."""
    _, den = alpha_fraction(spec.alpha)
    scores = tuple(-v for v in quantile_scores(x, spec.candidates, spec.alpha))
    p = (exponential if spec.zcdp else permute_and_flip)(scores, Fraction(spec.scale * float(den)))
    return {spec.candidates[i]: p[i] for i in range(len(spec.candidates))}


def _quantile_row(case: AuditCase) -> Modelled:
    """The claim of the privacy map at 1 against the certified tight epsilon over every pair of neighbouring
    datasets of the case. Before modelling, the model's scores are checked against OpenDP's own
    ``make_quantile_score_candidates`` on every dataset (exact agreement, or the audit stops)."""
    spec: PrivateQuantile = case.spec
    dp = _opendp()
    claimed = float(spec.build(dp).map(spec.d_in))
    library_scores = dp.t.make_quantile_score_candidates(
        dp.vector_domain(dp.atom_domain(T="i32")), dp.symmetric_distance(), list(spec.candidates), spec.alpha
    )
    for x in spec.inputs:
        ours, theirs = quantile_scores(x, spec.candidates, spec.alpha), tuple(library_scores(list(x)))
        if ours != theirs:
            raise WmcdpError(f"{case.label}: the model scores {list(x)} as {list(ours)}, OpenDP as {list(theirs)}")
    inputs = spec.inputs
    dists: list[dict[Hashable, Any]] = [quantile_outputs(spec, x) for x in inputs]
    certify = _zcdp_row if spec.zcdp else _certified_row
    row, (i, j) = certify(case, claimed, inputs, spec.neighbours, dists, _show_dataset)
    return row, [(str(list(inputs[m])), _floats(dists[m]), inputs[m]) for m in (i, j)]


def _show_dataset(v: Any) -> str:
    """A dataset as OpenDP's list (an output, a candidate, as it is)."""
    return str(list(v)) if isinstance(v, tuple) else str(v)


# -- noisy top-k under max divergence: k rounds of permute-and-flip, exact reals -------------------


@dataclass(frozen=True)
class NoisyTopK:
    """A case of ``make_noisy_top_k(vector_domain(atom_domain(i32), size=n), linf_distance(monotonic),
    max_divergence(), k, scale)``: every score vector in ``0..top`` is an input, neighbours at L-infinity
    distance at most ``d_in`` (all moving the same way when ``monotonic``)."""

    n: int
    top: int
    k: int
    scale: float
    d_in: int
    monotonic: bool
    build: Callable[[Any], Any]
    replacement: bool = False  # zero_concentrated_divergence: each round the exponential mechanism
    negate: bool = False  # the bottom k: the scores negated

    @property
    def inputs(self) -> list[tuple[int, ...]]:
        return list(itertools.product(range(self.top + 1), repeat=self.n))

    def outputs(self, x: tuple[int, ...]) -> dict[Hashable, Real]:
        """``P(y | x)``: :func:`noisy_top_k_outputs` on the scores (negated for the bottom ``k``)."""
        scores = tuple(-v for v in x) if self.negate else x
        return noisy_top_k_outputs(scores, Fraction(self.scale), self.k, self.replacement)

    def neighbours(self, x: tuple[int, ...], y: tuple[int, ...]) -> bool:
        steps = [b - a for a, b in zip(x, y)]
        close = x != y and max(abs(t) for t in steps) <= self.d_in
        return close and (not self.monotonic or min(steps) >= 0 or max(steps) <= 0)

    def to_opendp(self, x: Any) -> Any:
        return list(x)

    def from_opendp(self, y: Any) -> Hashable:
        """The released indices (a list, or one index for ``make_report_noisy_max_gumbel``) as a tuple."""
        return tuple(int(i) for i in y) if isinstance(y, list) else (int(y),)


def permute_and_flip(scores: tuple[int, ...], scale: Fraction) -> list[Real]:
    """``P(i)`` of OpenDP's ``permute_and_flip`` without replacement (``measurements/noisy_top_k/mod.rs``): the
    candidates in a uniformly random order (Fisher-Yates with exact uniform draws), each accepted with
    probability ``a_j = e^(-(max - x_j) / scale)`` (``sample_bernoulli_exp``, exact); the first accepted is the
    output. So ``P(i) = a_i sum over the sets S of other candidates visited first of
    |S|! (n - 1 - |S|)! / n! prod over S of (1 - a_j)``."""
    n, best = len(scores), max(scores)
    accept = [Real(f"exp(-{Fraction(best - x) / scale})") for x in scores]
    out = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        total = Real("0")
        for size in range(n):
            for first in itertools.combinations(others, size):
                term = Real(str(Fraction(math.factorial(size) * math.factorial(n - 1 - size), math.factorial(n))))
                for j in first:
                    term = term * (1 - accept[j])
                total = total + term
        out.append(accept[i] * total)
    return out


def exponential(scores: tuple[int, ...], scale: Fraction) -> list[Real]:
    """``P(i)`` of OpenDP's ``permute_and_flip`` with replacement (``Sequence::Zero``, the measure
    ``zero_concentrated_divergence``): a uniform candidate ``j`` (``sample_uniform_uint_below``), accepted with
    probability ``a_j = e^(-(max - x_j) / scale)`` (``sample_bernoulli_exp``, exact), else drawn again; so
    ``P(i) = a_i / sum_j a_j``, the exponential mechanism of weights ``e^(x_i / scale)``."""
    best = max(scores)
    accept = [Real(f"exp(-{Fraction(best - x) / scale})") for x in scores]
    total = sum(accept[1:], accept[0])
    return [a / total for a in accept]


def noisy_top_k_outputs(
    scores: tuple[int, ...], scale: Fraction, k: int, replacement: bool = False
) -> dict[Hashable, Real]:
    """``P(y)`` of ``peel_permute_and_flip``: ``k`` rounds of :func:`permute_and_flip` (or, with ``replacement``,
    of :func:`exponential`), each on the scores not yet released; ``y`` the released indices in the order
    released."""
    if k == 0:
        return {(): Real("1")}
    out: dict[Hashable, Real] = {}
    for i, p in enumerate((exponential if replacement else permute_and_flip)(scores, scale)):
        rest = scores[:i] + scores[i + 1 :]
        for tail, q in noisy_top_k_outputs(rest, scale, k - 1, replacement).items():
            assert isinstance(tail, tuple)
            out[(i,) + tuple(j + (j >= i) for j in tail)] = p * q
    return out


def _top_k_row(case: AuditCase) -> Modelled:
    """The claim of the privacy map at ``d_in`` against the certified tight value over every pair of neighbouring
    score vectors: under max divergence ``k`` times the range distance over the scale against the tight epsilon;
    under zCDP (rounds with replacement) ``k (range / scale)^2 / 8`` against the tight rho (:func:`_zcdp_row`)."""
    spec: NoisyTopK = case.spec
    claimed = float(spec.build(_opendp()).map(spec.d_in))
    inputs = spec.inputs
    dists: list[dict[Hashable, Any]] = [spec.outputs(x) for x in inputs]
    certify = _zcdp_row if spec.replacement else _certified_row
    row, (i, j) = certify(case, claimed, inputs, spec.neighbours, dists, lambda v: str(list(v)))
    return row, [(str(list(inputs[m])), {y: float(p) for y, p in dists[m].items()}, inputs[m]) for m in (i, j)]


# -- sampling ---------------------------------------------------------------------------------


def model_distribution(compiled: Compiled, x: tuple[Any, ...], exact: Any) -> dict[Any, Any]:
    """``{y: P(y | x)}`` over the outputs the model gives a positive probability (one whole distribution)."""
    counter = ModelCounter(compiled, number_system(compiled, exact))
    digits = compiled.domain.digit_array([compiled.domain.check(x)])
    ((_, block),) = counter.distributions(digits)
    row, arith = block[0], counter.arith
    return {compiled.shape.value_at(int(k)): arith.probability(row[k]) for k in np.flatnonzero(row != arith.zero)}


def draw(dp: Any, measurement: Any, value: Any, draws: int) -> Iterator[Any]:
    """``draws`` outputs of ``measurement(value)``, :data:`BATCH` at a time from a composition of copies."""
    full, rest = divmod(draws, BATCH)
    for size, times in ((BATCH, full), (rest, 1 if rest else 0)):
        if times:
            batch = dp.c.make_composition([measurement] * size)
            for _ in range(times):
                yield from batch(value)


def draw_counts(case: AuditCase, x: tuple[Any, ...], draws: int) -> Counter[Any]:
    """OpenDP's outputs on the model input ``x`` of the case, as model outputs and counted."""
    dp, spec = _opendp(), case.spec
    return Counter(spec.from_opendp(y) for y in draw(dp, spec.build(dp), spec.to_opendp(x), draws))


# -- the audit --------------------------------------------------------------------------------


def _row(case: AuditCase) -> Modelled:
    """The case's row: the claim of OpenDP's privacy map against the tight epsilon of the model, and the
    witness's two inputs to sample with the model's distributions there."""
    spec: Measurement = case.spec
    measurement = spec.build(_opendp())
    claimed = float(measurement.map(spec.d_in))
    compiled = compile_program(spec.model(), exact_floats=spec.exact == "binary")
    r = synthesize_privacy(compiled, exact=spec.exact, force=True)
    w = r.witness
    dists = [model_distribution(compiled, x, spec.exact) for x in (w.x, w.x_prime)]
    shown = (spec.show(w.x), spec.show(w.x_prime), spec.show_output(w.y))
    found = verdict(claimed, r.ratio, r.epsilon, bool(r.exact))
    row = AuditRow(
        case.mechanism,
        case.params,
        spec.d_in,
        claimed,
        r.epsilon,
        None if not r.exact else ("inf" if r.ratio == math.inf else str(r.ratio)),
        found,
        shown,
        0.0,
        witness_probabilities=(str(dists[0].get(w.y, 0)), str(dists[1].get(w.y, 0))) if r.exact else None,
        reproducer=reproducer(case, claimed, *shown) if found == "VIOLATED" and spec.script else None,
    )
    row = with_tight_delta(row, compiled, exact=spec.exact)
    return row, [(spec.show(x), d, x) for x, d in zip((w.x, w.x_prime), dists)]


# -- reproducers: a script per finding that needs OpenDP alone ----------------------------------------

_HEAD = '''"""{label}: OpenDP {version} claims epsilon = {claim!r} at d_in = {d_in}, yet the output y = {y!r}
is more likely under x = {x!r} than e^epsilon times its probability under x' = {xp!r}.
Needs only OpenDP."""
from decimal import Decimal, getcontext
from fractions import Fraction

import opendp.prelude as dp

dp.enable_features("contrib")
claim = {claim!r}
x, x_prime, y = {x!r}, {xp!r}, {y!r}
'''

#: make_randomized_response: the witness's probabilities from the library's lines and its stored double
_RR_SCRIPT = """measurement = {call}
print(f"the privacy map at d_in = 1: {measurement.map(1)!r}")
categories, p = {categories}, Fraction({prob})


def prob(item):  # measurements/randomized_response/mod.rs: the truth kept with probability prob (an exact
    # Bernoulli of the stored double, sample_bernoulli_float), else one of the other categories uniformly
    return p if item == y else (1 - p) / (len(categories) - 1)

"""

#: make_randomized_response_bitvec on inputs of two lengths: each output keeps its input's length
_BITVEC_SCRIPT = """from collections import Counter

measurement = dp.m.{call}
print(f"the privacy map at d_in = 1: {measurement.map(1)!r}")
q = Fraction({f}) / 2


def prob(item):  # measurements/randomized_response_bitvec: each bit flipped with probability f / 2, the length kept
    data, out = bytes.fromhex(item), bytes.fromhex(y)
    if len(data) != len(out):
        return Fraction(0)
    flips = sum(bin(a ^ b).count("1") for a, b in zip(data, out))
    return q**flips * (1 - q) ** (8 * len(data) - flips)


lengths = Counter(len(measurement(bytes.fromhex(x_prime))) for _ in range(1000))  # the code path
print(f"output lengths in bytes under x' in 1000 runs: {dict(lengths)}")
"""

#: make_geometric with bounds at the type's least value: the event's frequency, from OpenDP's own draws
_GEOMETRIC_SCRIPT = """import math

measurement = {call}
print(f"the privacy map at d_in = 1: {measurement.map(1)!r}")
batch = dp.c.make_composition([measurement] * 10000)  # the same sampler, 10 000 draws per call
n = 20000  # draws under each input: the frequencies, not a computation, show the violation


def count(item):
    return sum(sum(1 for o in batch(int(item)) if o == int(y)) for _ in range(n // 10000))


k, k_prime = count(x), count(x_prime)
log = math.log(k / k_prime)
spread = math.sqrt(1 / k - 1 / n + 1 / k_prime - 1 / n)  # the log ratio's standard error (delta method)
print(f"y under x: {k} of {n}; under x': {k_prime} of {n}")
print(f"ln of the frequency ratio = {log:.4f} (standard error {spread:.4f}); claimed = {claim!r}")
print("VIOLATED" if log - 6 * spread > claim else "not shown at 6 standard errors")
"""


def _fill(template: str, **values: str) -> str:
    """``template`` with each ``{name}`` replaced by its value (the scripts' own braces stay as they are)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def reproducer(case: AuditCase, claimed: float, x: str, xp: str, y: str) -> str:
    """A standalone script (OpenDP alone) for a violated case: the claim from the measurement's own map, then the
    witness's probabilities from the library's lines (randomized response) or its frequency in OpenDP's draws."""
    spec: Measurement = case.spec
    assert spec.script is not None
    head = _HEAD.format(label=case.label, version=LIBRARY.version(), claim=claimed, d_in=spec.d_in, x=x, xp=xp, y=y)
    return head + spec.script + ("" if "batch" in spec.script else TAIL)


#: OpenDP's measurement constructors (``opendp.measurements``), described once
MECHANISMS = (
    Mechanism(
        "make_randomized_response_bool",
        "audited",
        "keep the bit with probability `prob` (a Bernoulli of the stored double, sampled exactly)",
    ),
    Mechanism(
        "make_randomized_response",
        "audited",
        "keep the category with probability `prob`, else a uniform "
        "other one; an input outside the categories answers uniformly",
    ),
    Mechanism(
        "make_randomized_response_bitvec",
        "audited",
        "each bit flipped with probability `f / 2`, the claim from `max_weight`; inputs of two lengths too",
    ),
    Mechanism(
        "make_geometric",
        "audited",
        "with bounds: the bounded geometric sampler over the integer type, on every input of the bounds (`i32`, "
        "`u32`); without bounds: OpenDP's exact discrete Laplace sampler added in big integers and cast back "
        "saturating (`i32`, `u32`), certified: a window of outputs exactly, the tails beyond it merged",
    ),
    Mechanism(
        "make_laplace",
        "audited",
        "on integer domains (`i32`, `i64`): the discrete Laplace of `make_geometric` without bounds, at the type's "
        "greatest value too",
    ),
    Mechanism(
        "make_noisy_max",
        "audited",
        "report-noisy-max over small integer scores (float model of the sampler: its probabilities are irrational)",
    ),
    Mechanism(
        "make_gaussian",
        "audited",
        "on integer domains (`i32`, `i64`, `u32`), zCDP: CKS20's exact discrete Gaussian at `sigma = scale` added "
        "in big integers and cast back saturating; the claimed rho against the tight `d_in^2 / (2 scale^2)`, checked "
        "against the certified `D_2` of a window of outputs (tails merged, each under 2^-200)",
    ),
    Mechanism(
        "make_noise",
        "audited",
        "on integer domains: under `zero_concentrated_divergence` the discrete Gaussian of `make_gaussian`, under "
        "`max_divergence` the discrete Laplace of `make_laplace`",
    ),
    Mechanism(
        "make_noisy_top_k",
        "audited",
        "under max divergence (k > 1): k rounds of permute-and-flip on the scores left (exact reals, certified), over "
        "every vector of 3 scores in `0..2`; under `zero_concentrated_divergence`: k rounds of the exponential "
        "mechanism (permute-and-flip with replacement), the claimed rho against the certified sup over every Renyi "
        "order of `D_alpha / alpha` over every neighbouring pair",
    ),
    Mechanism(
        "make_private_quantile",
        "audited",
        "on `i32` datasets (every multiset of at most 3 values in a small range) with `symmetric_distance`: the "
        "scores of `make_quantile_score_candidates` (checked against the library's own transformation on every "
        "dataset), then one round of permute-and-flip on the negated scores at `scale * den` (exact reals, "
        "certified); under `zero_concentrated_divergence` one round of the exponential mechanism, its rho certified "
        "as `make_noisy_top_k`'s",
    ),
    Mechanism(
        "make_laplace_threshold",
        "audited",
        "on one key's `i32` count (absent, 0 .. threshold + 1) under `l01inf_distance`, where a missing key counts "
        "as 0: the discrete Laplace added exactly, the key kept when the noisy count is at least the threshold; the "
        "certified tight delta at the claimed epsilon against the claimed delta",
    ),
    Mechanism(
        "make_noise_threshold",
        "audited",
        "under `approximate(max_divergence())`: the discrete Laplace threshold of `make_laplace_threshold`",
    ),
    Mechanism(
        "make_gaussian_threshold",
        "audited",
        "approximate zCDP (rho, delta) as Bun and Steinke define it (the definition OpenDP's proof cites), on one "
        "key's `i32` count under `l02inf_distance`: the discrete Gaussian added exactly, the key kept when the noisy "
        "count is at least the threshold; the tight delta at the claimed rho (a key against none needs its release "
        "probability; two counts need none, their rho at most `c^2 / (2 sigma^2)`) against the claimed delta",
    ),
    Mechanism(
        "make_report_noisy_max_gumbel",
        "audited",
        'deprecated alias of `make_noisy_max` under max divergence (`optimize="min"` negates the scores): one round '
        "of permute-and-flip, certified as `make_noisy_top_k`'s, over every vector of 3 scores in `0..2`",
    ),
    Mechanism("`make_laplace`, `make_gaussian`, `make_noise` on float domains", "not auditable", "continuous output"),
    Mechanism("make_canonical_noise", "not auditable", "continuous output"),
    Mechanism(
        "`make_alp_queryable`, `make_private_expr`, `make_private_lazyframe`, `make_user_measurement`",
        "not auditable",
        "queryables, Polars plans and user code: no fixed sampler to model",
    ),
)


#: OpenDP as an audited library
def _neighbours(case: AuditCase) -> str:
    """OpenDP's own: inputs within the privacy map's ``d_in`` under the measurement's input metric."""
    if "threshold" in case.mechanism:
        return "maps within d_in = (l0, l1, linf) under l01inf/l02inf_distance, a missing key counting as 0"
    return "inputs within the privacy map's d_in under the measurement's input metric"


#: the library's source behind each violated mechanism, where the model knows it (OpenDP 0.16.0's Rust crate)
_THRESHOLD_SOURCE = (
    "rust/src/measurements/noise_threshold/mod.rs: the privacy map's delta bounds the tail P(Z > threshold - linf), "
    "while the release test `cmp(&threshold) != Less` keeps a noisy count equal to the threshold"
)

LIBRARY = AuditedLibrary(
    "opendp",
    "OpenDP",
    "opendp",
    "audit",
    __name__,
    _opendp,
    _cases,
    MECHANISMS,
    _neighbours,
    tuple(
        (name, _THRESHOLD_SOURCE)
        for name in ("make_laplace_threshold", "make_noise_threshold", "make_gaussian_threshold")
    ),
)
cases = LIBRARY.cases
audit_opendp = LIBRARY.audit
opendp_version = LIBRARY.version


__all__ = [
    "MODELLED",
    "BATCH",
    "TIGHT_ULPS",
    "AuditRow",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "IntegerGaussian",
    "IntegerLaplace",
    "Measurement",
    "NoiseThreshold",
    "PrivateQuantile",
    "NoisyTopK",
    "SampleCheck",
    "audit_opendp",
    "cases",
    "check_model",
    "draw",
    "discrete_laplace_outputs",
    "draw_counts",
    "model_distribution",
    "noisy_top_k_outputs",
    "exponential",
    "gaussian_threshold_outputs",
    "permute_and_flip",
    "quantile_outputs",
    "quantile_scores",
    "threshold_outputs",
    "opendp_version",
    "verdict",
]
