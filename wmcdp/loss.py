"""Deprecated: ``wmcdp.loss``, the 0.1 path of privacy-loss distributions and composition.

Its home is now :mod:`wmcdp.notions.loss`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .notions.loss import (
    MAX_GROUPS,
    MAX_PRODUCTS,
    TOLERANCE,
    Groups,
    PrivacyLoss,
    compose_count,
    composed_pairs,
    power,
    privacy_loss_distribution,
)

__all__ = [
    "MAX_GROUPS",
    "MAX_PRODUCTS",
    "TOLERANCE",
    "Groups",
    "compose_count",
    "power",
    "composed_pairs",
    "PrivacyLoss",
    "privacy_loss_distribution",
]

warn_moved(__name__, "wmcdp.notions.loss")
