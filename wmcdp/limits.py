"""Deprecated: ``wmcdp.limits``, the 0.1 path of resource limits.

Its home is now :mod:`wmcdp.base.limits`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .base.limits import (
    LimitExceeded,
    Limits,
    check,
    limited,
    memory_cap,
    out_of_memory,
    physical_memory,
    resource_limits,
    watching_nodes,
)

__all__ = [
    "LimitExceeded",
    "Limits",
    "physical_memory",
    "memory_cap",
    "resource_limits",
    "check",
    "watching_nodes",
    "out_of_memory",
    "limited",
]

warn_moved(__name__, "wmcdp.base.limits")
