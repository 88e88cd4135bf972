"""Deprecated: ``wmcdp.approximate``, the 0.1 path of approximate (ε, δ) differential privacy.

Its home is now :mod:`wmcdp.notions.approximate`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself.

``deltas`` now returns records (:class:`wmcdp.notions.approximate.Delta`: ``value``, ``key``, ``log``, ...) where
0.1 gave tuples; ``deltas_with_logs`` of 0.1 was merged into it, and the function here gives its old tuples."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .base.deprecation import warn_moved
from .notions.approximate import (
    ACCOUNTANTS,
    TOLERANCE,
    ApproximateResult,
    ProfilePoint,
    Threshold,
    deltas,
    epsilon_for_delta,
    parse_delta,
    privacy_profile,
    synthesize_approximate,
)
from .plan.pairs import PairSource

__all__ = [
    "TOLERANCE",
    "ACCOUNTANTS",
    "Threshold",
    "parse_delta",
    "deltas",
    "epsilon_for_delta",
    "ApproximateResult",
    "ProfilePoint",
    "synthesize_approximate",
    "privacy_profile",
    "deltas_with_logs",
]


def deltas_with_logs(
    source: PairSource, thresholds: Sequence[Threshold]
) -> list[tuple[float | Fraction, int, float | None]]:
    """``(δ, key, ln δ)`` per threshold, as in 0.1: the fields of :func:`deltas`' records."""
    return [(d.value, d.key, d.log) for d in deltas(source, thresholds)]


warn_moved(__name__, "wmcdp.notions.approximate")
