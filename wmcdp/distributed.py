"""Deprecated: ``wmcdp.distributed``, the 0.1 path of exhaustive runs over Dask workers.

Its home is now :mod:`wmcdp.count.distributed`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .count.distributed import Workers, check_workers, worker_counter

__all__ = ["Workers", "worker_counter", "check_workers"]

warn_moved(__name__, "wmcdp.count.distributed")
