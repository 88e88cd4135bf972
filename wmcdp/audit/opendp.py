"""Audit OpenDP's finite pure-DP measurements: the epsilon each privacy map claims against the tight one.

For every case of :func:`cases` the audit builds the OpenDP measurement, reads the claimed
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
audit checks the model, not only its arithmetic. The draws come in batches of :data:`BATCH` from
OpenDP's own ``make_composition`` of copies of the measurement, which invokes the same sampler
once per copy inside OpenDP (one call from Python per batch instead of one per draw).

Needs the optional extra: ``pip install 'wmcdp[audit]'`` (opendp 0.16 and scipy).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..compile import Compiled, compile_program
from ..count.probabilities import Counter as ModelCounter
from ..count.probabilities import number_system
from ..lang.program import Program
from ..notions.privacy import synthesize_privacy
from ..notions.sweep import ProgressCallback
from .core import TIGHT_ULPS, AuditRow, SampleCheck, check_model, check_options, library, verdict, with_checks, workers

#: draws per call into OpenDP when sampling (the size of one composition of the measurement)
BATCH = 10_000


def _opendp() -> Any:
    dp = library("opendp.prelude", "OpenDP", "opendp", "audit")
    dp.enable_features("contrib")
    return dp


#: the version of the library the models follow
MODELLED = "0.16.0"


def opendp_version() -> str:
    """The installed opendp's version (the audit's models follow 0.16)."""
    from importlib.metadata import version

    _opendp()
    return version("opendp")


@dataclass(frozen=True)
class Case:
    """One OpenDP measurement at one set of parameters, with its model and how inputs and outputs translate."""

    mechanism: str  # the OpenDP constructor
    params: str  # the parameters, as shown
    d_in: int
    build: Callable[[Any], Any]  # dp -> the OpenDP measurement
    model: Callable[[], Program]  # the wmcdp model of its sampler
    to_opendp: Callable[[tuple], Any]  # a model input -> OpenDP's input
    from_opendp: Callable[[Any], Any]  # OpenDP's output -> the model's output
    show: Callable[[tuple], str] = repr  # a model input as OpenDP's value, for people
    show_output: Callable[[Any], str] = repr  # a model output as OpenDP's value, for people
    exact: Any = "binary"  # "binary": exact binary64 parameters; False: a float model


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
    from wmcdp.programs import opendp as models

    def rr_bool(prob: float) -> Case:
        return Case(
            "make_randomized_response_bool",
            f"prob={prob!r}",
            1,
            lambda dp: dp.m.make_randomized_response_bool(prob),
            lambda: models.opendp_rr_bool(prob),
            _bool,
            int,
            lambda x: str(bool(x[0])),
            lambda y: str(bool(y)),
        )

    def rr_categorical(t: int, prob: float, label: str) -> Case:
        names = [f"c{k}" for k in range(t)]
        return Case(
            "make_randomized_response",
            f"t={t}, prob={label}",
            1,
            lambda dp: dp.m.make_randomized_response(names, prob=prob),
            lambda: models.opendp_rr_categorical(t, prob),
            lambda x: names[x[0]] if x[0] < t else "not-a-category",
            lambda y: names.index(y),
            _category(t),
            lambda y: names[y],
        )

    def bitvec(n: int, m: int, f: float) -> Case:
        return Case(
            "make_randomized_response_bitvec",
            f"{n} bits, max_weight={m}, f={f!r}",
            1,
            lambda dp: dp.m.make_randomized_response_bitvec(
                dp.bitvector_domain(max_weight=m), dp.discrete_distance(), f
            ),
            lambda: models.opendp_rr_bitvec(n, m, f),
            _bits_to_bytes,
            _bytes_to_bits,
            lambda x: _bits_to_bytes(x).hex(),
            lambda y: _bits_to_bytes(y).hex(),
        )

    def bitvec_lengths(n: int, m: int, f: float) -> Case:
        def to_model(data: Any) -> tuple:
            bits = _bytes_to_bits(data)
            return (len(bits),) + bits + (0,) * (2 * n - len(bits))

        return Case(
            "make_randomized_response_bitvec",
            f"{n} or {2 * n} bits, max_weight={m}, f={f!r}",
            1,
            lambda dp: dp.m.make_randomized_response_bitvec(
                dp.bitvector_domain(max_weight=m), dp.discrete_distance(), f
            ),
            lambda: models.opendp_rr_bitvec_lengths(n, m, f),
            _lengths_to_opendp(n),
            to_model,
            lambda x: bytes(2 * n // 8 if x[0] else n // 8).hex(),
            lambda y: _bits_to_bytes(y[1 : 1 + y[0]]).hex(),
        )

    def geometric(T: str, lower: int, upper: int, scale: float, d_in: int) -> Case:
        return Case(
            "make_geometric",
            f"T={T}, bounds=({lower}, {upper}), scale={scale!r}",
            d_in,
            lambda dp: dp.m.make_geometric(
                dp.atom_domain(T=T), dp.absolute_distance(T=T), scale=scale, bounds=(lower, upper)
            ),
            lambda: models.opendp_geometric_bounded(lower, upper, scale, d_in, T),
            lambda x: x[0],
            int,
            lambda x: str(x[0]),
            str,
        )

    def noisy_max(n: int, top: int, scale: float, d_in: int, monotonic: bool) -> Case:
        return Case(
            "make_noisy_max",
            f"{n} scores in 0..{top}, scale={scale!r}, monotonic={monotonic}",
            d_in,
            lambda dp: dp.m.make_noisy_max(
                dp.vector_domain(dp.atom_domain(T="i32")),
                dp.linf_distance(T="i32", monotonic=monotonic),
                dp.max_divergence(),
                scale,
            ),
            lambda: models.opendp_noisy_max(n, top, scale, d_in, monotonic),
            lambda x: list(x),
            int,
            lambda x: str(list(x)),
            str,
            exact=False,
        )

    return [
        rr_bool(0.75),
        rr_bool(0.6),
        rr_bool(0.5),
        rr_categorical(3, 1 / 3, "1/3"),
        rr_categorical(9, 1 / 9, "1/9"),
        rr_categorical(4, 1 / 4, "1/4"),
        rr_categorical(5, 0.5, "0.5"),
        bitvec(8, 5, 0.5),
        bitvec(8, 2, 0.5),
        bitvec_lengths(8, 5, 0.5),
        geometric("i32", 0, 1, 1.0, 2),
        geometric("i32", 0, 5, 2.0, 1),
        geometric("u32", 0, 5, 10.0, 1),
        geometric("u32", 0, 5, 2.0, 1),
        noisy_max(3, 3, 1.0, 1, False),
        noisy_max(2, 4, 2.0, 1, True),
    ]


# -- sampling ---------------------------------------------------------------------------------


def model_distribution(compiled: Compiled, x: tuple, exact: Any) -> dict[Any, Any]:
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


def draw_counts(number: int, x: tuple, draws: int) -> Counter:
    """OpenDP's outputs on the model input ``x`` of case ``number`` (its position in ``cases()``), as model
    outputs and counted. Module level, so that a worker process can run it: it builds its own measurement."""
    dp = _opendp()
    case = _cases()[number]
    return Counter(case.from_opendp(y) for y in draw(dp, case.build(dp), case.to_opendp(x), draws))


# -- the audit --------------------------------------------------------------------------------


def _numbered(only: str | None) -> list[tuple[int, Case]]:
    everything = _cases()
    chosen = [(k, c) for k, c in enumerate(everything) if not only or only in f"{c.mechanism} {c.params}"]
    if not chosen:
        raise WmcdpError(
            f"no case of the OpenDP audit matches {only!r}; the mechanisms are "
            f"{', '.join(sorted({c.mechanism for c in everything}))}"
        )
    return chosen


def cases(only: str | None = None) -> list[Case]:
    """The audit's cases; with ``only``, those whose ``"mechanism params"`` label contains it."""
    return [c for _, c in _numbered(only)]


def audit_opendp(
    sample: int = 0,
    level: float = 1e-3,
    only: str | None = None,
    progress: ProgressCallback | None = None,
    processes: int = 2,
) -> list[AuditRow]:
    """One :class:`AuditRow` per case of the audit (with ``only``: per case whose ``"mechanism params"``
    label contains it). With ``sample``, OpenDP's draws are made in ``processes`` worker processes while
    this one computes the next cases (1: all here). ``progress(done, total, note)`` hears of each step:
    a case computed, then (when sampling) a case's draws tested."""
    dp = _opendp()
    check_options(sample, level, processes, "audit")
    chosen = _numbered(only)
    steps = len(chosen) * (2 if sample else 1)
    rows, pending = [], []
    with workers(processes if sample else 1) as submit:
        for done, (number, case) in enumerate(chosen):
            if progress:
                progress(done, steps, f"{case.mechanism} {case.params}")
            start = time.perf_counter()
            measurement = case.build(dp)
            claimed = float(measurement.map(case.d_in))
            compiled = compile_program(case.model(), exact_floats=case.exact == "binary")
            r = synthesize_privacy(compiled, exact=case.exact, force=True)
            w = r.witness
            rows.append(
                AuditRow(
                    case.mechanism,
                    case.params,
                    case.d_in,
                    claimed,
                    r.epsilon,
                    None if not r.exact else ("inf" if r.ratio == math.inf else str(r.ratio)),
                    verdict(claimed, r.ratio, r.epsilon, bool(r.exact)),
                    (case.show(w.x), case.show(w.x_prime), case.show_output(w.y)),
                    time.perf_counter() - start,
                )
            )
            if sample:
                pending.append(
                    [
                        (
                            case.show(x),
                            model_distribution(compiled, x, case.exact),
                            submit(draw_counts, number, x, sample),
                        )
                        for x in (w.x, w.x_prime)
                    ]
                )

        def waiting(k: int) -> None:
            if progress:
                _, case = chosen[k]
                progress(len(chosen) + k, steps, f"OpenDP's draws for {case.mechanism} {case.params}")

        rows = with_checks(rows, pending, level, waiting)
    if progress:
        progress(steps, steps, "")
    return rows


__all__ = [
    "MODELLED",
    "BATCH",
    "TIGHT_ULPS",
    "AuditRow",
    "Case",
    "SampleCheck",
    "audit_opendp",
    "cases",
    "check_model",
    "draw",
    "draw_counts",
    "model_distribution",
    "opendp_version",
    "verdict",
]
