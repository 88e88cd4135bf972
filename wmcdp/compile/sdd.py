"""SDD backend: sentential decision diagrams through ``pysdd``.

The vtree is balanced over the same variable order the BDD backend uses. Automatic
garbage collection and minimisation are off, so node ids stay valid as cache keys.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pysdd.sdd import SddManager, Vtree

from ..limits import check
from .base import OperatorBackend
from ..wmc import CountContext


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
        return self.manager.count()

    @staticmethod
    def size(u: Any) -> int:
        """Decision nodes of ``u`` (``sdd_count``)."""
        return u.count()

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

    @staticmethod
    def array_cells(u: Any, free: Sequence[int]) -> None:
        """Not estimated for SDDs (a vtree is no linear order): joint passes stay at 20 bits."""
        return None

    def wmc(self, u: Any, ctx: CountContext) -> Any:
        """``WMC(decision) = sum over elements (p, s) of WMC(p) * WMC(s)``."""
        sr = ctx.semiring
        lookup = ctx.cache.get
        stack = [u]
        steps = 0
        while stack:
            steps += 1
            if steps % 8192 == 0:
                check("inference")
            f = stack[-1]
            key = f.id
            if lookup(key) is not None:
                stack.pop()
                continue
            if f.is_true():
                ctx.store(key, sr.one, f)
            elif f.is_false():
                ctx.store(key, sr.zero, f)
            elif f.is_literal():
                lit = f.literal
                w1, w0 = ctx.literals[abs(lit) - 1]
                ctx.store(key, w1 if lit > 0 else w0, f)
            else:
                elements = f.elements()
                pending = [n for pair in elements for n in pair if lookup(n.id) is None]
                if pending:
                    stack.extend(pending)
                    continue
                total = sr.zero
                for p, s in elements:
                    total = sr.add(total, sr.mul(lookup(p.id), lookup(s.id)))
                ctx.store(key, total, f)
            stack.pop()
        return lookup(u.id)

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


def _record_escape(text: str) -> str:
    """Escape the characters that structure a Graphviz record label."""
    return "".join("\\" + ch if ch in '{}|<>"\\' else ch for ch in text)
