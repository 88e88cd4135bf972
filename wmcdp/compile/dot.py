"""Graphviz DOT export of a compiled diagram ``phi``, with meaningful variable names.

Input bits are ``x<i>`` (``x<i>.b<k>`` for bit ``k`` of an integer entry, most
significant first), output bits ``y<j>`` (bit ``j`` of the output encoding, in output
order) and random bits ``r<v> (p=...)`` with their probability of being true.
"""

from __future__ import annotations

from ..base.numbers import format_number
from . import Compiled


def variable_labels(compiled: Compiled) -> dict[int, str]:
    """Variable id -> display name."""
    trace = compiled.trace
    labels = {v: f"r{v} (p={format_number(w.one)})" for v, w in trace.circuit.weights.items()}
    for i, var_ids in trace.input_bits.items():
        for k, v in enumerate(var_ids):
            labels[v] = f"x{i}" if len(var_ids) == 1 else f"x{i}.b{k}"
    labels.update({v: f"y{j}" for j, v in enumerate(compiled.output_vars)})
    return labels


def to_dot(compiled: Compiled) -> str:
    """The diagram ``phi`` of ``compiled`` as a DOT digraph (BDD or SDD, as compiled)."""
    text: str = compiled.backend.to_dot(compiled.phi, variable_labels(compiled))
    return text


__all__ = ["to_dot", "variable_labels"]
