"""The data-centric pairs of one database ``x0`` on a product of independent parts, part by part.

Under a relation whose neighbours differ in one part (rule "max": ``hamming``, ``one-entry``), a data-centric pair
``(x0, x')`` or ``(x', x0)`` changes the entries of one part ``m`` only, and every other part keeps its input
``x0``'s: ``P(y | x) / P(y | x') = P_m(y_m | x_m) / P_m(y_m | x'_m)`` (the other factors are equal), and a sum over
the outputs of a function of the two rows (δ(ε), a Rényi divergence) is the part's own sum times the other parts'
total mass 1. So every notion at ``x0`` is the maximum over the parts of the part's value at the part's entries of
``x0``: one run per class of equal parts and distinct part input, never a table over the whole output shape.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.numbers import is_symbolic
from ..compile import Compiled
from ..count.probabilities import Counter, number_system
from ..lang.program import Value
from ..lang.relations import neighbour_relation
from .planner import Product, product_of, traced


@dataclass
class ProductAt(Product):
    """A product under rule "max" read at the database ``x0``: one class per run, the parts (``members[c]``) of one
    class of equal parts whose entries of ``x0`` are ``local[c]``, run as ``compiled[c]`` at ``local[c]``; a part's
    witness is embedded with the other entries at ``x0``'s values."""

    x0: tuple[int, ...] = ()
    local: tuple[tuple[int, ...], ...] = ()

    def embed_input(self, values: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
        """``x0`` with the entries of each part ``values`` names at its value."""
        x = list(self.x0)
        for index, local in values.items():
            for entry, v in zip(self.parts[index].entries, local):
                x[entry] = v
        return tuple(x)


def product_at(prog: Any, x0: Value, neighbours: Any, backend: str, exact: Any) -> ProductAt | None:
    """The runs of the parts at ``x0`` (module docstring) when ``prog`` is a product of at least two independent
    parts under a relation of rule "max" with numeric weights; None otherwise (the whole program runs)."""
    program, trace, _ = traced(prog, exact)
    if any(is_symbolic(w.one) for w in trace.circuit.weights.values()):
        return None  # a bound as a function of a parameter: the whole program's pieces
    relation = neighbour_relation(neighbours or program.neighbours)
    product = product_of(program, trace, relation, backend, rules=("max",))
    if product is None:
        return None
    x = program.inputs.check(x0)
    runs: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for j, members in enumerate(product.members):
        for m in members:
            runs.setdefault((j, tuple(x[e] for e in product.parts[m].entries)), []).append(m)
    fields = {f.name: getattr(product, f.name) for f in dataclasses.fields(Product)}
    fields.update(members=[tuple(ms) for ms in runs.values()], compiled=[product.compiled[j] for j, _ in runs])
    return ProductAt(**fields, x0=x, local=tuple(local for _, local in runs))


def likeliest_at(compiled: Compiled, local: tuple[int, ...], exact: Any) -> tuple[Any, Any, bool]:
    """The most likely output of a part at its input ``local`` (the first on ties), its probability (exact, or its
    natural log when the run is in floats), and whether it is exact."""
    counter = Counter(compiled, number_system(compiled, exact))
    ((_, rows),) = list(counter.distributions(compiled.domain.digit_array([local])))
    row, arith = rows[0], counter.arith
    if arith.exact:
        probs = [arith.probability(v) for v in row]
        best = max(range(len(probs)), key=lambda k: (probs[k], -k))
        return compiled.shape.value_at(best), probs[best], True
    logs = arith.as_log(row)
    best = int(np.argmax(logs))
    return compiled.shape.value_at(best), float(logs[best]), False


__all__ = ["ProductAt", "likeliest_at", "product_at"]
