"""BDD backend: CUDD through ``dd.cudd`` (the default).

CUDD uses complemented edges; :meth:`BDDBackend.flatten` resolves them into separate
entries for a node and its complement, so no count ever forms ``1 - WMC(f)`` (which would
cancel catastrophically in floating point). CUDD's memory is capped by the limits in
force (:func:`wmcdp.limits.memory_cap`); exhausting it raises
:class:`~wmcdp.limits.LimitExceeded` instead of failing inside CUDD.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from dd import cudd

from ..limits import out_of_memory, memory_cap
from .base import OperatorBackend
from .flat import Flat, build_flat


class BDDBackend(OperatorBackend):
    """Decision diagrams over variables declared in a fixed order (no dynamic reordering)."""

    name = "bdd"

    def __init__(self, order: Sequence[int]) -> None:
        # CUDD sizes its tables to the machine's memory by default (about 15 ms per manager);
        # small initial tables start in about 1 ms and grow as needed
        self.bdd = cudd.BDD(memory_estimate=1 << 28, initial_cache_size=1 << 12)
        self.bdd.configure(reordering=False, max_memory=memory_cap())
        self._node: dict[int, Any] = {}
        self._var_of: dict[str, int] = {}
        self._name: dict[int, str] = {}
        self._level: dict[int, int] = {}
        for level, v in enumerate(order):
            name = self._name[v] = f"v{v}"
            self.bdd.add_var(name)
            self._node[v] = self.bdd.var(name)
            self._var_of[name] = v
            self._level[v] = level
        self.levels = len(order)
        self.true = self.bdd.true
        self.false = self.bdd.false

    def level_of(self, v: int) -> int:
        return self._level[v]

    def var(self, v: int) -> Any:
        return self._node[v]

    @staticmethod
    def conj(a: Any, b: Any) -> Any:
        return _guarded(lambda: a & b)

    @staticmethod
    def disj(a: Any, b: Any) -> Any:
        return _guarded(lambda: a | b)

    @staticmethod
    def xor(a: Any, b: Any) -> Any:
        return _guarded(lambda: a.bdd.apply("xor", a, b))

    def condition(self, u: Any, assignment: Mapping[int, bool]) -> Any:
        """Cofactor ``u`` on the given variable values (``phi | x``)."""
        if not assignment:
            return u
        name = self._name
        return _guarded(lambda: self.bdd.let({name[v]: b for v, b in assignment.items()}, u))

    def compose(self, u: Any, mapping: Mapping[int, Any]) -> Any:
        """``u`` with each variable ``v`` of ``mapping`` replaced by the diagram ``mapping[v]``."""
        name = self._name
        return _guarded(lambda: self.bdd.let({name[v]: f for v, f in mapping.items()}, u))

    def rename(self, u: Any, mapping: Mapping[int, int]) -> Any:
        """``u`` with each variable ``v`` of ``mapping`` replaced by the variable ``mapping[v]``, simultaneously."""
        name = self._name
        return _guarded(lambda: self.bdd.let({name[v]: name[w] for v, w in mapping.items()}, u))

    def var_id(self, name: str) -> int:
        """The program variable of a CUDD variable name."""
        return self._var_of[name]

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

    def flatten(self, u: Any) -> Flat:
        """``u`` as a :class:`~wmcdp.compile.flat.Flat` diagram, complemented edges resolved."""
        var_of, level_of = self._var_of, self._level
        index: dict[tuple[int, int], int] = {}
        var: list[int] = []
        level: list[int] = []
        hi: list[int] = []
        lo: list[int] = []
        stack: list[tuple[Any, int, bool]] = [(u, 0, False)]
        while stack:
            f, pol, expanded = stack.pop()
            key = (int(f) & ~1, pol ^ f.negated)
            if key in index:
                continue
            if f.var is None:  # the regular terminal is TRUE
                index[key] = len(var)
                var.append(-1 if key[1] == 0 else -2)
                level.append(self.levels)
                hi.append(-1)
                lo.append(-1)
                continue
            h, low = f.high, f.low
            kh, kl = (int(h) & ~1, key[1] ^ h.negated), (int(low) & ~1, key[1] ^ low.negated)
            if not expanded:
                stack.append((f, pol, True))
                if kh not in index:
                    stack.append((h, key[1], False))
                if kl not in index:
                    stack.append((low, key[1], False))
                continue
            index[key] = len(var)
            v = var_of[f.var]
            var.append(v)
            level.append(level_of[v])
            hi.append(index[kh])
            lo.append(index[kl])
        return build_flat(var, level, hi, lo, self.levels)

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


def _guarded(operation):
    """Run a CUDD operation; CUDD out of its memory cap (a NULL node) becomes a limit, not a crash."""
    try:
        return operation()
    except (ValueError, RuntimeError) as exc:  # dd reports CUDD's NULL node either way
        if "NULL" in str(exc) or "out of memory" in str(exc):
            raise out_of_memory("a decision-diagram operation") from None
        raise


def _quote(text: str) -> str:

    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
