"""Deprecated: ``wmcdp.renyi``, the 0.1 path of Rényi differential privacy.

Its home is now :mod:`wmcdp.notions.renyi`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .notions.renyi import (
    EXACT_FILTER,
    MAX_ORDER,
    PRECISION,
    TOLERANCE,
    RenyiOrder,
    RenyiResult,
    max_log_ratio,
    parse_orders,
    renyi_divergences,
    synthesize_renyi,
)

__all__ = [
    "TOLERANCE",
    "EXACT_FILTER",
    "PRECISION",
    "MAX_ORDER",
    "parse_orders",
    "max_log_ratio",
    "RenyiOrder",
    "RenyiResult",
    "renyi_divergences",
    "synthesize_renyi",
]

warn_moved(__name__, "wmcdp.notions.renyi")
