"""The notions of a parametric run: the envelopes of :mod:`.envelope` over what the scans collected."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .counting import EnvelopeScan, Parametric
from .envelope import Piece, envelope
from .results import PiecewiseAccuracyResult, PiecewisePrivacyResult


def piecewise_privacy(
    arith: Parametric, scan: EnvelopeScan, witness_of: Callable[[Any], Any], diagram_size: int, start: float
) -> PiecewisePrivacyResult:
    """Pure ε as a function: the upper envelope of ``P(y|x) / P(y|x')`` over the distinct pairs of the scan."""
    p = arith.parameter
    pieces = envelope(scan.candidates(), p.lo, p.hi, upper=True)
    pieces = [Piece(q.start, q.end, q.num, q.den, witness_of(q.witness)) for q in pieces]
    return PiecewisePrivacyResult(p, tuple(pieces), arith.degree, diagram_size, time.perf_counter() - start)


def piecewise_accuracy(
    arith: Parametric, alpha: Any, inputs: Sequence[Any], windows: Sequence[np.ndarray], diagram_size: int, start: float
) -> PiecewiseAccuracyResult:
    """1 − β as a function: the lower envelope over the inputs of the sum of their window's ``P(y | x)``."""
    p = arith.parameter
    candidates = [(arith.sum_function(ids), arith.denominator, x) for x, ids in zip(inputs, windows)]
    pieces = envelope(candidates, p.lo, p.hi, upper=False)
    return PiecewiseAccuracyResult(p, alpha, tuple(pieces), arith.degree, diagram_size, time.perf_counter() - start)
