"""What the two backends share: Boolean operations through the libraries' operators.

Both ``dd.cudd.Function`` and ``pysdd.sdd.SddNode`` overload ``&``, ``|`` and ``~``.
A backend adds ``var``, ``xor``, ``condition``, ``size``, ``node_count`` and ``wmc``.
"""

from __future__ import annotations

from typing import Any


class OperatorBackend:
    @staticmethod
    def conj(a: Any, b: Any) -> Any:
        return a & b

    @staticmethod
    def disj(a: Any, b: Any) -> Any:
        return a | b

    @staticmethod
    def negate(a: Any) -> Any:
        return ~a
