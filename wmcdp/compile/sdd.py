"""SDD backend: sentential decision diagrams through ``pysdd``.

The vtree is balanced over the same variable order the BDD backend uses. Automatic
garbage collection and minimisation are off, so node ids stay valid as cache keys.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pysdd.sdd import SddManager, Vtree

from ..base.limits import check
from ..lang.weights import BitWeight
from .base import OperatorBackend


class SDDBackend(OperatorBackend):
    name = "sdd"

    def __init__(self, order: Sequence[int]) -> None:
        count = max(len(order), 1)
        sdd_order = [v + 1 for v in order] or [1]
        self.manager = SddManager.from_vtree(Vtree(var_count=count, var_order=sdd_order, vtree_type="balanced"))
        self.manager.auto_gc_and_minimize_off()
        self.true = self.manager.true()
        self.false = self.manager.false()

    def var(self, v: int) -> Any:
        return self.manager.literal(v + 1)

    @staticmethod
    def xor(a: Any, b: Any) -> Any:
        return (a & ~b) | (~a & b)

    def condition(self, u: Any, assignment: Mapping[int, bool]) -> Any:
        for v, b in assignment.items():
            u = self.manager.condition(v + 1 if b else -(v + 1), u)
        return u

    def node_count(self) -> int:
        """Nodes in the whole manager."""
        count: int = self.manager.count()  # pysdd has no annotations
        return count

    @staticmethod
    def size(u: Any) -> int:
        """Decision nodes of ``u`` (``sdd_count``)."""
        count: int = u.count()  # pysdd has no annotations
        return count

    @staticmethod
    def shared_size(nodes: Sequence[Any]) -> int:
        """Decision nodes of several SDDs, shared nodes counted once."""
        seen: set[int] = set()
        stack = [u for u in nodes if u.is_decision()]
        while stack:
            f = stack.pop()
            if f.id in seen:
                continue
            seen.add(f.id)
            stack.extend(n for pair in f.elements() for n in pair if n.is_decision())
        return len(seen)

    def min_path_log2(self, u: Any, weights: Mapping[int, BitWeight]) -> float:
        """``log2`` of a lower bound on every nonzero value a count of ``u`` forms.

        A literal bounds by its weight, a decision node by its smallest element product
        (the SDD counterpart of :func:`wmcdp.compile.flat.min_path_log2`).
        """

        def leaf(f: Any) -> float:  # -log2 of the bound; -inf: the node is never nonzero
            if f.is_true():
                return 0.0
            if f.is_false():
                return -math.inf
            w = weights.get(abs(f.literal) - 1)
            return 0.0 if w is None else -(w.log_one if f.literal > 0 else w.log_zero) / math.log(2)

        def decision(elements: list[tuple[float, float]]) -> float:
            return max((p + q for p, q in elements if p > -math.inf < q), default=-math.inf)

        cost = fold(u, leaf, decision)
        return 0.0 if cost == -math.inf else -cost

    def to_dot(self, u: Any, labels: Mapping[int, str]) -> str:
        """Graphviz DOT of ``u``: one record node per decision node (``size(u)`` of them) plus ``phi``.

        A decision node lists its elements ``prime | sub``; literals and constants are written
        in place (``labels[variable]``, negated with ``¬``), decision children are edges from
        their cell.
        """

        def text(f: Any) -> str:
            if f.is_true():
                return "true"
            if f.is_false():
                return "false"
            lit = f.literal
            return ("" if lit > 0 else "¬") + labels[abs(lit) - 1]

        lines = ["digraph sdd {", "  node [shape=record];"]
        if not u.is_decision():
            lines.append(f'  phi [shape=plaintext, label="phi = {_record_escape(text(u))}"];')
            return "\n".join(lines + ["}"]) + "\n"
        lines.append('  phi [shape=plaintext, label="phi"];')
        lines.append(f"  phi -> n{u.id};")
        seen: set[int] = set()
        stack = [u]
        while stack:
            f = stack.pop()
            if f.id in seen:
                continue
            seen.add(f.id)
            cells, edges = [], []
            for k, pair in enumerate(f.elements()):
                parts = []
                for side, g in zip("ps", pair):
                    port = f"{side}{k}"
                    if g.is_decision():
                        parts.append(f"<{port}> •")
                        edges.append(f"  n{f.id}:{port} -> n{g.id};")
                        stack.append(g)
                    else:
                        parts.append(f"<{port}> {_record_escape(text(g))}")
                cells.append("{" + " | ".join(parts) + "}")
            lines.append(f'  n{f.id} [label="{" | ".join(cells)}"];')
            lines += edges
        return "\n".join(lines + ["}"]) + "\n"


def fold(u: Any, leaf: Any, decision: Any) -> Any:
    """Evaluate ``u`` bottom-up: ``leaf(f)`` for terminals and literals, ``decision(elements)`` for a
    decision node given its elements' (prime, sub) values; each node once (iterative, so deep SDDs are fine)."""
    values: dict[int, Any] = {}
    stack = [u]
    steps = 0
    while stack:
        steps += 1
        if steps % 4096 == 0:
            check("counting")
        f = stack[-1]
        if f.id in values:
            stack.pop()
            continue
        if not f.is_decision():
            values[f.id] = leaf(f)
        else:
            elements = f.elements()
            pending = [n for pair in elements for n in pair if n.id not in values]
            if pending:
                stack.extend(pending)
                continue
            values[f.id] = decision([(values[p.id], values[q.id]) for p, q in elements])
        stack.pop()
    return values[u.id]


def _record_escape(text: str) -> str:
    """Escape the characters that structure a Graphviz record label."""
    return "".join("\\" + ch if ch in '{}|<>"\\' else ch for ch in text)
