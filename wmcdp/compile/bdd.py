"""BDD backend: CUDD through ``dd.cudd`` (the default).

CUDD uses complemented edges, so counting keeps, for every regular node, the pair
``(WMC(f), WMC(not f))`` — computing ``1 - WMC(f)`` instead would cancel catastrophically
in floating point.
"""

from __future__ import annotations

import bisect
from typing import Any, Mapping, Sequence

from dd import cudd

from ..limits import check
from .base import OperatorBackend
from ..wmc import CountContext


class BDDBackend(OperatorBackend):
    """Decision diagrams over variables declared in a fixed order (no dynamic reordering)."""

    name = "bdd"

    def __init__(self, order: Sequence[int]) -> None:
        # CUDD sizes its tables to the machine's memory by default (about 15 ms per manager);
        # small initial tables start in about 1 ms and grow as needed
        self.bdd = cudd.BDD(memory_estimate=1 << 28, initial_cache_size=1 << 12)
        self.bdd.configure(reordering=False)
        self._node: dict[int, Any] = {}
        self._var_of: dict[str, int] = {}
        self._name: dict[int, str] = {}
        for v in order:
            name = self._name[v] = f"v{v}"
            self.bdd.add_var(name)
            self._node[v] = self.bdd.var(name)
            self._var_of[name] = v
        self.true = self.bdd.true
        self.false = self.bdd.false

    def var(self, v: int) -> Any:
        return self._node[v]

    @staticmethod
    def xor(a: Any, b: Any) -> Any:
        return a.bdd.apply("xor", a, b)

    def condition(self, u: Any, assignment: Mapping[int, bool]) -> Any:
        """Cofactor ``u`` on the given variable values (``phi | x``)."""
        if not assignment:
            return u
        name = self._name
        return self.bdd.let({name[v]: b for v, b in assignment.items()}, u)

    def node_count(self) -> int:
        """Live nodes in the whole manager."""
        return len(self.bdd)

    @staticmethod
    def size(u: Any) -> int:
        """Nodes of ``u`` as CUDD counts them (one terminal, complemented edges)."""
        return u.dag_size

    @staticmethod
    def shared_size(nodes: Sequence[Any]) -> int:
        """Nodes of several diagrams, shared nodes counted once."""
        return cudd.count_nodes(list(nodes))

    def array_cells(self, u: Any, free: Sequence[int]) -> int:
        """Entries of the arrays a counting pass over ``u`` with ``free`` variables as axes holds:
        a node's array spans the free variables at or below its level."""
        free_levels = sorted(self.bdd.level_of_var(self._name[v]) for v in free)
        seen: set[int] = set()
        cells = 0
        stack = [u]
        while stack:
            f = stack.pop()
            key = int(f) & ~1
            if key in seen or f.var is None:
                continue
            seen.add(key)
            cells += 1 << (len(free_levels) - bisect.bisect_left(free_levels, f.level))
            stack.extend((f.high, f.low))
        return cells

    def wmc(self, u: Any, ctx: CountContext) -> Any:
        """Weighted model count of ``u`` under ``ctx`` (iterative, so deep diagrams are fine)."""
        sr = ctx.semiring
        add, mul = sr.add, sr.mul
        var_of, literal = self._var_of, ctx.literals
        cache = ctx.cache
        stack: list[tuple[Any, Any]] = [(u, None)]
        steps = 0
        while stack:
            steps += 1
            if steps % 8192 == 0:
                check("inference")
            f, expanded = stack.pop()
            if expanded is None:
                key = int(f) & ~1
                if key in cache:
                    continue
                if f.var is None:  # the regular terminal is TRUE
                    ctx.store(key, (sr.one, sr.zero), f)
                    continue
                hi, lo = f.high, f.low
                stack.append((f, (key, hi, lo)))
                stack.append((hi, None))
                stack.append((lo, None))
                continue
            key, hi, lo = expanded
            vh, vl = cache[int(hi) & ~1], cache[int(lo) & ~1]
            if hi.negated:
                vh = (vh[1], vh[0])
            if lo.negated:
                vl = (vl[1], vl[0])
            w1, w0 = literal[var_of[f.var]]
            ctx.store(key, (add(mul(w1, vh[0]), mul(w0, vl[0])), add(mul(w1, vh[1]), mul(w0, vl[1]))), f)
        value = cache[int(u) & ~1]
        return value[1] if u.negated else value[0]

    def to_dot(self, u: Any, labels: Mapping[int, str]) -> str:
        """Graphviz DOT of ``u``: one node per CUDD node (``size(u)`` of them) plus the entry ``phi``.

        Nodes are labelled ``labels[variable]``; solid edges go to the high (true) child,
        dashed ones to the low child, and an edge ending in a circle is complemented.
        """
        lines = ["digraph bdd {", '  phi [shape=plaintext, label="phi"];']
        ids: dict[int, str] = {}

        def name(f: Any) -> str:
            return ids.setdefault(int(f) & ~1, f"n{len(ids)}")

        seen: set[str] = set()
        stack = [u]
        while stack:
            f = stack.pop()
            node = name(f)
            if node in seen:
                continue
            seen.add(node)
            if f.var is None:
                lines.append(f'  {node} [shape=box, label="1"];')
                continue
            lines.append(f"  {node} [label={_quote(labels[self._var_of[f.var]])}];")
            for child, style in ((f.high, "solid"), (f.low, "dashed")):
                mark = ", arrowhead=odot" if child.negated else ""
                lines.append(f"  {node} -> {name(child)} [style={style}{mark}];")
                stack.append(child)
        lines.append(f"  phi -> {name(u)}{' [arrowhead=odot]' if u.negated else ''};")
        return "\n".join(lines + ["}"]) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
