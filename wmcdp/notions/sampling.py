"""Concrete sampling, and a statistical cross-check of the exact probabilities behind a bound.

:func:`sample` runs a program on one concrete input ``k`` times with a seeded RNG.
:func:`crosscheck` samples the two inputs of a privacy witness ``(x, x', y)`` and checks
that the exact ``P(y | x)`` and ``P(y | x')`` lie inside two-sided Wilson score intervals
for the observed frequencies — an independent check of compilation and model counting
(the two share only the DSL's semantics).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from ..base.errors import WmcdpError
from ..base.limits import check
from ..compile import Compiled
from ..lang.program import Program, Value
from ..lang.unbounded import window
from .privacy import PrivacyResult, synthesize_privacy


def sample(prog: Program, x: Value, k: int, seed: int = 0) -> Counter[Value]:
    """Counts of each output over ``k`` runs of ``prog`` on input ``x`` (random.Random(seed))."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise WmcdpError(f"the number of samples must be a whole number >= 1, got {k!r}")
    rng = random.Random(seed)
    counts: Counter[Value] = Counter()
    for i in range(k):
        if i % 1024 == 0:
            check("sampling")
        counts[prog.run(x, rng)] += 1
    return counts


def wilson_interval(count: int, k: int, confidence: float) -> tuple[float, float]:
    """Two-sided Wilson score interval for a binomial proportion ``count / k``."""
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise WmcdpError(f"confidence must be in (0, 1), got {confidence}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise WmcdpError(f"the number of samples must be a whole number >= 1, got {k!r}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = count / k
    denom = 1 + z * z / k
    centre = (p + z * z / (2 * k)) / denom
    half = z * math.sqrt(p * (1 - p) / k + z * z / (4 * k * k)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class CheckRow:
    """One sampled input: the exact probability of the witness output and its sampled frequency.

    A probability of exactly 0 or 1 is checked exactly (the output never, or always, occurs);
    any other against the Wilson interval of its count (``rule``).
    """

    x: Value
    exact: float | Fraction
    count: int
    samples: int
    low: float
    high: float

    @property
    def rule(self) -> str:
        return "never" if self.exact == 0 else "always" if self.exact == 1 else "wilson"

    @property
    def agrees(self) -> bool:
        if self.exact == 0:
            return self.count == 0
        if self.exact == 1:
            return self.count == self.samples
        return self.low <= float(self.exact) <= self.high


@dataclass(frozen=True)
class CrosscheckResult:
    privacy: PrivacyResult
    rows: tuple[CheckRow, CheckRow]
    confidence: float

    @property
    def agrees(self) -> bool:
        return all(r.agrees for r in self.rows)


def check_probability(
    prog: Program, x: Value, y: Value, exact: float | Fraction, k: int, seed: int, confidence: float
) -> CheckRow:
    """Sample ``prog`` on ``x`` and compare the frequency of ``y`` with ``exact``."""
    count = sample(prog, x, k, seed)[y]
    low, high = wilson_interval(count, k, confidence)
    return CheckRow(x, exact, count, k, low, high)


def crosscheck(
    prog: Program | Compiled,
    C: Any = None,
    I: Any = None,
    *,
    k: int = 100_000,
    seed: int = 0,
    confidence: float = 0.999,
    **privacy_options: Any,
) -> CrosscheckResult:
    """Synthesize the privacy bound, then confirm ``P(y|x)`` and ``P(y|x')`` at its witness by sampling.

    An infinite epsilon has ``P(y|x') = 0``: its check is that ``y`` never occurs on ``x'``.
    """
    wilson_interval(0, k, confidence)  # validate k and the confidence before any work
    program = prog.program if isinstance(prog, Compiled) else prog
    with window(0):  # (a trace of the body: unbounded draws take one value)
        merged = (prog.trace if isinstance(prog, Compiled) else program.trace()).circuit.merged
    if merged:
        raise WmcdpError(
            f"crosscheck samples {program.name}'s published outputs, but its releases are read with merged tails "
            f"({', '.join(sorted(set(merged)))}: an output stands for a set of them); crosscheck its truncated variant"
        )
    result = synthesize_privacy(prog, C, I, **privacy_options)
    w = result.witness
    rows = (
        check_probability(program, w.x, w.y, result.p_x, k, seed, confidence),
        check_probability(program, w.x_prime, w.y, result.p_x_prime, k, seed + 1, confidence),
    )
    return CrosscheckResult(result, rows, confidence)
