"""Deprecated: ``wmcdp.registry``, the 0.1 path of finding programs, neighbour relations and sets by name.

Its home is now :mod:`wmcdp.lang.registry` and :mod:`wmcdp.plan.given_sets`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .lang.registry import build_program, builtin_programs, find_program, find_relation, load_function, parameters
from .plan.given_sets import find_sets

__all__ = [
    "builtin_programs",
    "load_function",
    "find_program",
    "parameters",
    "build_program",
    "find_relation",
    "find_sets",
]

warn_moved(__name__, "wmcdp.lang.registry and wmcdp.plan.given_sets")
