"""Algorithm 2 (Privacy Bound Synthesis): the tight pure-DP bound and its witness.

``e^eps = max over (x, x', y) in C of M(x, y) / M(x', y)`` (paper Problem 1, Def. 4).
A triple with ``M(x, y) > 0 = M(x', y)`` gives ``eps = inf``; 0/0 triples are skipped.
Ties keep the first triple in ``C``'s order (in float mode ratios whose logs differ by
at most 1e-12 are ties), so the witness is the same on every run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Iterator

import numpy as np

from .errors import CoverageError, WmcdpError
from .inference import as_compiled, inference
from .lang.program import Program, Value
from .compile import Compiled
from .lang.shape import format_value
from .limits import check, limited
from .sets import (InferenceSet, PrivacySet, all_outputs, check_exhaustive, describe_pair, exhaustive_inference,
                   exhaustive_privacy)


@dataclass(frozen=True)
class PrivacyWitness:
    """The worst-case triple: neighbouring inputs ``x``, ``x_prime`` and output ``y``."""

    x: Value
    x_prime: Value
    y: Value


@dataclass(frozen=True)
class PrivacyResult:
    """Tight ``epsilon`` (natural log) and ``ratio = e^epsilon``; exact runs give a Fraction ratio."""

    epsilon: float
    ratio: float | Fraction
    witness: PrivacyWitness
    p_x: float | Fraction          # P(y | x) at the witness
    p_x_prime: float | Fraction    # P(y | x') at the witness
    exact: bool
    diagram_size: int
    seconds: float


def check_privacy_coverage(C: PrivacySet, I: InferenceSet) -> None:
    """Algorithm 2's precondition: ``(x, y)`` and ``(x', y)`` are in ``I`` for every triple of ``C``."""
    for x, xp, ys in C.blocks:
        for side in (x, xp):
            y = I.first_missing(side, ys)
            if y is not None:
                raise CoverageError(f"the inference set is missing the pair {describe_pair(side, y)} needed by the "
                                    f"privacy triple ({format_value(x)}, {format_value(xp)}, {format_value(y)})")


def _chunks(blocks: tuple, entries: int = 1 << 20) -> Iterator[list]:
    """Consecutive blocks that share one ``ys`` tuple, about ``entries`` triples at a time."""
    chunk: list = []
    for block in blocks:
        if chunk and (block[2] is not chunk[0][2] or len(chunk) * len(block[2]) >= entries):
            yield chunk
            chunk = []
        chunk.append(block)
    if chunk:
        yield chunk


@limited
def synthesize_privacy(prog: Program | Compiled,
                       C: PrivacySet | Iterable[tuple[Value, Value, Value]] | None = None,
                       I: InferenceSet | Iterable[tuple[Value, Value]] | None = None, *,
                       neighbours: str | None = None, backend: str = "bdd",
                       exact: bool | None = None, force: bool = False) -> PrivacyResult:
    """Algorithm 2. ``C`` and ``I`` default to the exhaustive sets of the program's domain.

    ``neighbours`` (for the exhaustive ``C``) defaults to the program's declared relation;
    ``force`` runs exhaustive sets over the size limits of :func:`wmcdp.sets.check_exhaustive`.
    Keyword arguments ``max_nodes`` and ``timeout`` apply :func:`wmcdp.limits.limits`.
    """
    start = time.perf_counter()
    compiled = as_compiled(prog, backend)
    relation = neighbours or compiled.program.neighbours
    if C is None or I is None:
        check_exhaustive(compiled.domain, compiled.shape.size, relation if C is None else None, force)
        outputs = all_outputs(compiled.shape)
    if C is None:
        C = exhaustive_privacy(compiled.domain, outputs, relation, force=True)
    elif not isinstance(C, PrivacySet):
        C = PrivacySet.of(C)
    if I is None:
        I = exhaustive_inference(compiled.domain, outputs, force=True)
    elif not isinstance(I, InferenceSet):
        I = InferenceSet.of(I)
    if len(C.blocks) == 0:
        raise WmcdpError("the privacy set is empty")
    check_privacy_coverage(C, I)
    M = inference(compiled, I, exact=exact)
    sr = M.semiring
    best_key, best = None, None
    for chunk in _chunks(C.blocks):
        check("privacy synthesis")
        ys = chunk[0][2]
        a = np.stack([M.row(x, ys) for x, _, _ in chunk]).ravel()
        b = np.stack([M.row(xp, ys) for _, xp, _ in chunk]).ravel()
        found = sr.best_ratio(a, b)  # the first best in C's order (row-major: blocks, then ys)
        if found is not None and sr.better(found[1], best_key):
            row, col = divmod(found[0], len(ys))
            best_key, best = found[1], (chunk[row][0], chunk[row][1], ys[col])
    if best is None:
        raise WmcdpError("every triple of the privacy set has P(y|x) = P(y|x') = 0; there is no ratio to bound")
    x, xp, y = best
    epsilon, ratio = sr.epsilon_and_ratio(best_key)
    return PrivacyResult(epsilon=epsilon, ratio=ratio, witness=PrivacyWitness(x, xp, y),
                         p_x=M.probability(x, y), p_x_prime=M.probability(xp, y), exact=sr.exact,
                         diagram_size=compiled.size, seconds=time.perf_counter() - start)
