"""What the two backends share: Boolean operations through the libraries' operators.

Both ``dd.cudd.Function`` and ``pysdd.sdd.SddNode`` overload ``&``, ``|`` and ``~``.
A backend adds ``var``, ``xor``, ``condition``, ``size``, ``node_count`` and ``wmc``.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ..lang.circuit import AND, OR, XOR


class OperatorBackend:
    def operators(self) -> dict[str, Callable[[Any, Any], Any]]:
        """The binary gates of a circuit as callables on backend nodes (see :func:`wmcdp.compile._compile_gates`)."""
        return {AND: operator.and_, OR: operator.or_, XOR: self.xor}  # type: ignore[attr-defined]

    def lookups(self) -> int | None:
        """Operations the library has counted so far (computed-table lookups: one a recursive step of an
        operation), or None when it counts none."""
        return None

    def guarded(self) -> AbstractContextManager[None]:
        """A context in which the library's failures become wmcdp errors (none to translate by default)."""
        return contextlib.nullcontext()

    @staticmethod
    def conj(a: Any, b: Any) -> Any:
        return a & b

    @staticmethod
    def disj(a: Any, b: Any) -> Any:
        return a | b

    @staticmethod
    def negate(a: Any) -> Any:
        return ~a
