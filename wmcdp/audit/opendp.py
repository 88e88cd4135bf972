"""Audit OpenDP's finite pure-DP measurements: the epsilon each privacy map claims against the tight one.

For every case of :data:`CASES` the audit builds the OpenDP measurement, reads the claimed
epsilon from its privacy map at ``d_in``, and computes with wmcdp the tight epsilon of a model of
the sampler as OpenDP implements it (:mod:`programs.opendp`), over OpenDP's own neighbour
relation, with float parameters read as their exact binary64 values. The verdict compares the two:

* ``tight``: the claim is at least the tight epsilon and at most 4 ulp above it (or 2^-50 above,
  for an epsilon near 0) — for the float model of permute-and-flip, within a relative 1e-12;
* ``loose``: the claim is further above;
* ``VIOLATED``: the tight epsilon is larger than the claim (decided exactly for exact models:
  the natural log of the tight ratio is compared with the claim at 200 bits).

With ``sample`` draws, OpenDP itself is run ``sample`` times on each input of the witness and the
counts are compared with the model's distribution by a chi-square test at level ``level``: the
audit checks the model, not only its arithmetic.

Needs the optional extra: ``pip install 'wmcdp[audit]'`` (opendp 0.16 and scipy).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..compile import Compiled, compile_program
from ..errors import WmcdpError
from ..inference import inference
from ..lang.program import Program
from ..privacy import synthesize_privacy

#: the number of ulps of the claim within which a sound claim is tight
TIGHT_ULPS = 4
#: an epsilon this close to 0 above the tight one is tight too (claims near 0 are ratios near 1)
TIGHT_ABSOLUTE = 2.0 ** -50
#: relative tolerance of the float model (permute-and-flip, whose probabilities are irrational)
FLOAT_TOLERANCE = 1e-12


def _opendp():
    try:
        import opendp.prelude as dp
    except ImportError:
        raise WmcdpError("the OpenDP audit needs opendp: pip install 'wmcdp[audit]'") from None
    dp.enable_features("contrib")
    return dp


@dataclass(frozen=True)
class Case:
    """One OpenDP measurement at one set of parameters, with its model and how inputs and outputs translate."""

    mechanism: str                          # the OpenDP constructor
    params: str                             # the parameters, as shown
    d_in: int
    build: Callable[[Any], Any]             # dp -> the OpenDP measurement
    model: Callable[[], Program]            # the wmcdp model of its sampler
    to_opendp: Callable[[tuple], Any]       # a model input -> OpenDP's input
    from_opendp: Callable[[Any], Any]       # OpenDP's output -> the model's output
    show: Callable[[tuple], str] = repr     # a model input as OpenDP's value, for people
    show_output: Callable[[Any], str] = repr  # a model output as OpenDP's value, for people
    exact: Any = "binary"                   # "binary": exact binary64 parameters; False: a float model


@dataclass(frozen=True)
class SampleCheck:
    """OpenDP's draws on one witness input against the model's distribution."""

    input: str
    draws: int
    statistic: float
    degrees: int
    p_value: float
    level: float

    @property
    def agrees(self) -> bool:
        return self.p_value >= self.level


@dataclass(frozen=True)
class AuditRow:
    mechanism: str
    params: str
    d_in: int
    claimed: float
    epsilon: float
    ratio_exact: str | None
    verdict: str
    witness: tuple[str, str, str]
    seconds: float
    samples: tuple[SampleCheck, ...] = field(default=())

    @property
    def model_agrees(self) -> bool:
        return all(s.agrees for s in self.samples)


# -- the cases ------------------------------------------------------------------------------

def _bool(x: tuple) -> bool:
    return bool(x[0])


def _category(t: int) -> Callable[[tuple], str]:
    return lambda x: f"c{x[0]}" if x[0] < t else "not-a-category"


def _bits_to_bytes(x: tuple) -> bytes:
    """Model bits (bit i of the vector) as OpenDP's bytes (Lsb0: bit i is bit i % 8 of byte i // 8)."""
    out = bytearray(len(x) // 8)
    for i, b in enumerate(x):
        out[i // 8] |= b << (i % 8)
    return bytes(out)


def _bytes_to_bits(data: Any) -> tuple:
    data = bytes(data)
    return tuple((data[i // 8] >> (i % 8)) & 1 for i in range(8 * len(data)))


def _lengths_to_opendp(n: int) -> Callable[[tuple], bytes]:
    return lambda x: bytes(2 * n // 8 if x[0] else n // 8)


def _cases() -> list[Case]:
    from programs import opendp as models

    def rr_bool(prob: float) -> Case:
        return Case("make_randomized_response_bool", f"prob={prob!r}", 1,
                    lambda dp: dp.m.make_randomized_response_bool(prob), lambda: models.opendp_rr_bool(prob),
                    _bool, int, lambda x: str(bool(x[0])), lambda y: str(bool(y)))

    def rr_categorical(t: int, prob: float, label: str) -> Case:
        names = [f"c{k}" for k in range(t)]
        return Case("make_randomized_response", f"t={t}, prob={label}", 1,
                    lambda dp: dp.m.make_randomized_response(names, prob=prob),
                    lambda: models.opendp_rr_categorical(t, prob),
                    lambda x: names[x[0]] if x[0] < t else "not-a-category", lambda y: names.index(y), _category(t),
                    lambda y: names[y])

    def bitvec(n: int, m: int, f: float) -> Case:
        return Case("make_randomized_response_bitvec", f"{n} bits, max_weight={m}, f={f!r}", 1,
                    lambda dp: dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=m),
                                                                    dp.discrete_distance(), f),
                    lambda: models.opendp_rr_bitvec(n, m, f), _bits_to_bytes, _bytes_to_bits,
                    lambda x: _bits_to_bytes(x).hex(), lambda y: _bits_to_bytes(y).hex())

    def bitvec_lengths(n: int, m: int, f: float) -> Case:
        def to_model(data: Any) -> tuple:
            bits = _bytes_to_bits(data)
            return (len(bits),) + bits + (0,) * (2 * n - len(bits))
        return Case("make_randomized_response_bitvec", f"{n} or {2 * n} bits, max_weight={m}, f={f!r}", 1,
                    lambda dp: dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=m),
                                                                    dp.discrete_distance(), f),
                    lambda: models.opendp_rr_bitvec_lengths(n, m, f), _lengths_to_opendp(n), to_model,
                    lambda x: bytes(2 * n // 8 if x[0] else n // 8).hex(),
                    lambda y: _bits_to_bytes(y[1:1 + y[0]]).hex())

    def geometric(T: str, lower: int, upper: int, scale: float, d_in: int) -> Case:
        return Case("make_geometric", f"T={T}, bounds=({lower}, {upper}), scale={scale!r}", d_in,
                    lambda dp: dp.m.make_geometric(dp.atom_domain(T=T), dp.absolute_distance(T=T), scale=scale,
                                                   bounds=(lower, upper)),
                    lambda: models.opendp_geometric_bounded(lower, upper, scale, d_in, T),
                    lambda x: x[0], int, lambda x: str(x[0]), str)

    def noisy_max(n: int, top: int, scale: float, d_in: int, monotonic: bool) -> Case:
        return Case("make_noisy_max", f"{n} scores in 0..{top}, scale={scale!r}, monotonic={monotonic}", d_in,
                    lambda dp: dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T="i32")),
                                                   dp.linf_distance(T="i32", monotonic=monotonic),
                                                   dp.max_divergence(), scale),
                    lambda: models.opendp_noisy_max(n, top, scale, d_in, monotonic),
                    lambda x: list(x), int, lambda x: str(list(x)), str, exact=False)

    return [
        rr_bool(0.75), rr_bool(0.5),
        rr_categorical(3, 1 / 3, "1/3"), rr_categorical(9, 1 / 9, "1/9"), rr_categorical(4, 1 / 4, "1/4"),
        rr_categorical(5, 0.5, "0.5"),
        bitvec(8, 5, 0.5), bitvec(8, 2, 0.5), bitvec_lengths(8, 5, 0.5),
        geometric("i32", 0, 1, 1.0, 2), geometric("i32", 0, 5, 2.0, 1), geometric("u32", 0, 5, 10.0, 1),
        geometric("u32", 0, 5, 2.0, 1),
        noisy_max(3, 3, 1.0, 1, False), noisy_max(2, 4, 2.0, 1, True),
    ]


# -- verdicts ---------------------------------------------------------------------------------

def verdict(claim: float, ratio: Fraction | float, epsilon: float, exact: bool) -> str:
    """``tight``, ``loose`` or ``VIOLATED`` (see the module docstring)."""
    if ratio == math.inf or epsilon == math.inf:
        return "tight" if claim == math.inf else "VIOLATED"
    if claim == math.inf:
        return "loose"
    if not exact:
        if epsilon > claim * (1 + FLOAT_TOLERANCE) + 1e-300:
            return "VIOLATED"
        return "tight" if claim - epsilon <= FLOAT_TOLERANCE * max(abs(claim), 1e-300) else "loose"
    with gmpy2.context(precision=200):
        r = Fraction(ratio)
        true = gmpy2.log(gmpy2.mpq(r.numerator, r.denominator)) if r > 0 else gmpy2.mpfr("-inf")
        gap = gmpy2.mpfr(claim) - true
    if gap < 0:
        return "VIOLATED"
    return "tight" if gap <= max(TIGHT_ULPS * math.ulp(claim), TIGHT_ABSOLUTE) else "loose"


# -- sampling ---------------------------------------------------------------------------------

def _chi_square(counts: Counter, expected: dict, draws: int) -> tuple[float, int, float]:
    """Pearson's chi-square of ``counts`` against ``draws`` times ``expected`` (outputs expecting fewer than
    5 draws are pooled); an output the model gives probability 0 but OpenDP produced fails outright."""
    from scipy.stats import chi2

    if any(expected.get(y, 0) == 0 for y in counts):
        return math.inf, 0, 0.0
    cells, pooled_obs, pooled_exp = [], 0, 0.0
    for y, p in expected.items():
        e = float(p) * draws
        if e >= 5:
            cells.append((counts.get(y, 0), e))
        else:
            pooled_obs += counts.get(y, 0)
            pooled_exp += e
    if pooled_exp > 0:
        cells.append((pooled_obs, pooled_exp))
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    degrees = max(len(cells) - 1, 1)
    return statistic, degrees, float(chi2.sf(statistic, degrees))


def check_model(case: Case, measurement: Any, compiled: Compiled, x: tuple, draws: int,
                level: float) -> SampleCheck:
    """Run OpenDP ``draws`` times on the witness input ``x`` and test the model's distribution."""
    values = tuple(compiled.shape.values())
    table = inference(compiled, [(x, y) for y in values], exact=case.exact)
    row = table.row(x, values)
    expected = {values[k]: table.arith.probability(row[k]) for k in np.flatnonzero(row != table.arith.zero)}
    value = case.to_opendp(x)
    counts = Counter(case.from_opendp(measurement(value)) for _ in range(draws))
    statistic, degrees, p_value = _chi_square(counts, expected, draws)
    return SampleCheck(case.show(x), draws, statistic, degrees, p_value, level)


# -- the audit --------------------------------------------------------------------------------

def audit(sample: int = 0, level: float = 1e-3, only: str | None = None,
          progress: Callable[[str], None] | None = None) -> list[AuditRow]:
    """Every case of the audit (those whose mechanism contains ``only``), one :class:`AuditRow` each."""
    dp = _opendp()
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise WmcdpError(f"sample must be a whole number >= 0, got {sample!r}")
    if not 0 < level < 1:
        raise WmcdpError(f"level must be in (0, 1), got {level!r}")
    rows = []
    for case in _cases():
        if only and only not in case.mechanism:
            continue
        if progress:
            progress(f"{case.mechanism} {case.params}")
        start = time.perf_counter()
        measurement = case.build(dp)
        claimed = float(measurement.map(case.d_in))
        compiled = compile_program(case.model(), exact_floats=case.exact == "binary")
        r = synthesize_privacy(compiled, exact=case.exact, force=True)
        w = r.witness
        checks: tuple[SampleCheck, ...] = ()
        if sample:
            checks = tuple(check_model(case, measurement, compiled, x, sample, level) for x in (w.x, w.x_prime))
        rows.append(AuditRow(case.mechanism, case.params, case.d_in, claimed, r.epsilon,
                             None if not r.exact else ("inf" if r.ratio == math.inf else str(r.ratio)),
                             verdict(claimed, r.ratio, r.epsilon, bool(r.exact)),
                             (case.show(w.x), case.show(w.x_prime), case.show_output(w.y)), time.perf_counter() - start,
                             checks))
    return rows


__all__ = ["TIGHT_ULPS", "AuditRow", "Case", "SampleCheck", "audit", "verdict"]
