"""The smallest probability ``min over x, y of P(y | x)`` of outputs factored by entry, without listing them.

With the outputs factored by entry (:mod:`.owned`), ``P(y | x) = sum_h w_h prod_e T_e[h][(y_e, x_e)]``, so the
minimum over every input and every output whose leaves take declared values is a minimum over each entry's cells
``(y_e, x_e)``; entries with equal tables are one type and only how many of a type take each cell matters. A cell
that is at least another in every hub class never attains the minimum and is dropped (replacing it by the other
lowers every term). The count vectors are screened in floats, in log space (each probability's log taken from
its exact value, so nothing underflows however small), and every one within a factor of 2 of the smallest float
value is counted exactly (Fractions); the float values are within a few units in the last place of the exact ones
(a product and a sum of positive terms, nothing cancels), so the exact minimum is among them, and the answer is
that exact value. Used by windowed pure ε (:func:`wmcdp.notions.windowed._coverage`): a program whose
codes never stop (iSVT1, iSVT2) declares ``2^n`` outputs, each of which would be counted apart.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ...base.limits import check
from ...base.numbers import log_fraction
from ...lang.shape import leaves
from .arith import _Exact
from .blocks import find_blocks
from .events import Diagrams
from .owned import Owned, owned_outputs

#: the most (count vector, hub class) numbers screened in floats
SCREENED = 1 << 24
#: the most count vectors counted exactly after the screening
CONFIRMED = 4096
#: per type of entries, how many there are and the type's cells (each its values per hub class)
Groups = list[tuple[int, list[tuple[Any, ...]]]]


def smallest_owned(compiled: Any, allowed: Sequence[frozenset[Any]]) -> Fraction | None:
    """The exact ``min over valid x and outputs y of P(y | x)`` over the outputs whose leaf ``j`` takes a value in
    ``allowed[j]``, by the factored outputs (module docstring); None when the outputs do not factor by entry, a
    weight is not rational, a declared value is not among its leaf's satisfiable values (a declared output no
    input gives: its probability is 0), or there are more than :data:`SCREENED` numbers to screen."""
    trace = compiled.trace
    if compiled.backend.name != "bdd" or not all(w.exact for w in trace.circuit.weights.values()):
        return None
    hub = find_blocks(trace)
    if hub is None or len(allowed) != len(leaves(trace.shape)):
        return None
    size = len(compiled.domain.entry_values)
    owned = owned_outputs(Diagrams(trace, hub.order, compiled), hub, size, _Exact, None)
    if owned is None or not owned.weights:
        return None
    cells = _allowed_cells(owned, allowed, size)
    if cells is None:
        return None
    types: dict[tuple[Any, ...], list[int]] = {}
    for i, kept in enumerate(cells):
        key = tuple(tuple(owned.tables[k][i][c] for c in kept) for k in range(len(owned.weights)))
        types.setdefault(key, []).append(i)
    groups = [(len(blocks), _undominated(key)) for key, blocks in types.items()]
    return _minimum(owned.weights, groups)


def _allowed_cells(owned: Owned, allowed: Sequence[frozenset[Any]], size: int) -> list[list[int]] | None:
    """Per block, its cells ``value * size + u`` whose own value's leaves take allowed values; None unless every
    combination of allowed values of a block's leaves is one of its own values and each constant leaf allows its
    value alone (else some output of the product has probability 0 from every input)."""
    leaf_of: list[list[int]] = [[] for _ in owned.values]
    for j, owner in enumerate(owned.owners):
        if owner is None:
            if allowed[j] != {owned.constants[j]}:
                return None
        else:
            leaf_of[owner].append(j)
    out = []
    for i, values in enumerate(owned.values):
        kept = [k for k, value in enumerate(values) if all(v in allowed[j] for j, v in zip(leaf_of[i], value))]
        if len(kept) != math.prod(len(allowed[j]) for j in leaf_of[i]):  # (own values are distinct)
            return None
        out.append([k * size + u for k in kept for u in range(size)])
    return out


def _undominated(key: tuple[tuple[Any, ...], ...]) -> list[tuple[Any, ...]]:
    """The columns (cells) of a type's tables, each as its values per hub class, that no other cell is at most in
    every class (of equal cells, the first)."""
    columns = list(zip(*key))
    out = []
    for i, c in enumerate(columns):
        if not any(
            all(p <= q for p, q in zip(d, c)) and (any(p < q for p, q in zip(d, c)) or j < i)
            for j, d in enumerate(columns)
            if j != i
        ):
            out.append(c)
    return out


def _minimum(weights: list[Any], groups: Groups) -> Fraction | None:
    """``min over count vectors of sum_h w_h prod_cells t_c[h]^count_c`` (the groups' count vectors combined),
    screened in floats and confirmed exactly (module docstring); None past :data:`SCREENED`."""
    classes = len(weights)
    vectors = [_count_vectors(count, len(cells)) for count, cells in groups]
    if math.prod(len(v) for v in vectors) * classes > SCREENED:
        return None
    logs = np.array([_log(w) for w in weights])
    total = np.broadcast_to(logs, (1, classes)).copy()
    for counts, (_, cells) in zip(vectors, groups):
        check("hub plan: smallest probability")
        table = np.array([[_log(p) for p in c] for c in cells])  # cells x classes
        rows = np.array(counts, dtype=float)
        with np.errstate(invalid="ignore"):
            part = rows[:, :, None] * table[None, :, :]
        part[np.broadcast_to(rows[:, :, None] == 0, part.shape)] = 0.0  # 0 * log 0: a cell no entry takes
        total = (total[:, None, :] + part.sum(axis=1)[None, :, :]).reshape(-1, classes)
    values = np.logaddexp.reduce(total, axis=1)
    order = np.argsort(values, kind="stable")
    least = values[order[0]]
    if not math.isfinite(least):  # a zero: counted elsewhere
        return None
    near = [int(i) for i in order[: CONFIRMED + 1] if values[i] <= least + math.log(2)]
    if len(near) > CONFIRMED:
        return None
    exact = [_exact_value(weights, groups, vectors, i) for i in near]
    return min(exact)


def _log(p: Any) -> float:
    """``ln p`` of an exact probability to a few ulp, however small (``-inf`` at 0): screening in logs never
    underflows (2^-1074 to a power is a finite log)."""
    return -math.inf if p == 0 else log_fraction(Fraction(p))


def _count_vectors(count: int, cells: int) -> list[tuple[int, ...]]:
    """Every way ``count`` entries take ``cells`` cells (stars and bars)."""
    out = []
    for bars in itertools.combinations(range(count + cells - 1), cells - 1):
        edges = [-1, *bars, count + cells - 1]
        out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(cells)))
    return out


def _exact_value(weights: list[Any], groups: Groups, vectors: list[list[tuple[int, ...]]], index: int) -> Fraction:
    """The exact value of the combined count vector at ``index`` (row-major over the groups' vectors)."""
    chosen = []
    for vs in reversed(vectors):
        index, k = divmod(index, len(vs))
        chosen.append(vs[k])
    chosen.reverse()
    total = Fraction(0)
    for h, w in enumerate(weights):
        term = Fraction(w)
        for counts, (_, cells) in zip(chosen, groups):
            for c, cell in zip(counts, cells):
                if c:
                    term *= Fraction(cell[h]) ** c
        total += term
    return total
