"""BDD backend: CUDD through ``dd.cudd`` (the default).

CUDD uses complemented edges; :meth:`BDDBackend.flatten` resolves them into separate
entries for a node and its complement, so no count ever forms ``1 - WMC(f)`` (which would
cancel catastrophically in floating point). CUDD's memory is capped by the limits in
force (:func:`wmcdp.base.limits.memory_cap`); exhausting it raises
:class:`~wmcdp.base.limits.LimitExceeded` instead of failing inside CUDD.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import numpy as np
from dd import cudd

from ..base.limits import memory_cap, out_of_memory
from ..lang.circuit import XOR
from .base import OperatorBackend
from .flat import Flat, build_flat

T = TypeVar("T")


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

    def operators(self) -> dict[str, Any]:
        return {**super().operators(), XOR: functools.partial(self.bdd.apply, "xor")}

    def guarded(self) -> AbstractContextManager[None]:
        return _cudd_memory()

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

    def lookups(self) -> int:
        """CUDD's computed-table lookups so far (one per recursive step of an operation)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # dd warns that "mem" is in bytes since 0.5.7
            return int(self.bdd.statistics()["cache_lookups"])

    @staticmethod
    def size(u: Any) -> int:
        """Nodes of ``u`` as CUDD counts them (one terminal, complemented edges)."""
        size: int = u.dag_size  # dd.cudd has no annotations
        return size

    @staticmethod
    def shared_size(nodes: Sequence[Any]) -> int:
        """Nodes of several diagrams, shared nodes counted once."""
        count: int = cudd.count_nodes(list(nodes))  # dd.cudd has no annotations
        return count

    def flatten(self, u: Any) -> Flat:
        """``u`` as a :class:`~wmcdp.compile.flat.Flat` diagram, complemented edges resolved.

        CUDD writes ``u``'s node table in its DDDMP text format (in C: one line per node,
        children before parents, a negative id for a complemented edge) and numpy reads it
        back. An entry of the flat diagram is a node taken with one polarity; the entries
        reachable from the root are found one level at a time, from the top.
        """
        with tempfile.TemporaryDirectory(prefix="wmcdp-") as tmp:
            path = os.path.join(tmp, "u.dddmp")
            self.bdd.dump(path, [u], filetype="dddmp")
            with open(path) as f:
                head, _, body = f.read().partition(".nodes\n")
        found = re.search(r"^\.rootids (-?\d+)$", head, re.M)
        if found is None:
            raise RuntimeError("CUDD wrote a DDDMP file without root ids")
        root = int(found.group(1))
        tokens = body[: body.rindex(".end")].split()
        count = len(tokens) // 5  # nodes are numbered 1..count in the file's order
        names = np.array(tokens[1::5])
        then = np.zeros(count + 1, dtype=np.int64)
        other = np.zeros(count + 1, dtype=np.int64)
        then[1:] = np.array(tokens[3::5], dtype=np.int64)
        other[1:] = np.array(tokens[4::5], dtype=np.int64)
        variable = np.full(count + 1, -1, dtype=np.int64)
        level = np.full(count + 1, self.levels, dtype=np.int64)
        labels, inverse = np.unique(names, return_inverse=True)  # "T" names the terminal TRUE
        variable[1:] = np.array([self._var_of.get(label, -1) for label in labels.tolist()], dtype=np.int64)[inverse]
        decision = variable >= 0
        level[decision] = [self._level[v] for v in variable[decision].tolist()]
        flip = (other < 0).astype(np.int64)
        other = np.abs(other)
        reach = np.zeros((count + 1, 2), dtype=bool)  # (node, polarity) reachable from the root
        reach[abs(root), int(root < 0)] = True
        nodes = np.flatnonzero(decision)
        nodes = nodes[np.argsort(level[nodes], kind="stable")]
        for layer in np.split(nodes, np.flatnonzero(np.diff(level[nodes])) + 1) if len(nodes) else []:
            for polarity in (0, 1):
                live = layer[reach[layer, polarity]]
                reach[then[live], polarity] = True
                reach[other[live], polarity ^ flip[live]] = True
        entries = np.flatnonzero(reach.reshape(-1))  # node * 2 + polarity: children come first
        index = np.full(2 * (count + 1), -1, dtype=np.int64)
        index[entries] = np.arange(len(entries))
        node, polarity = entries // 2, entries % 2  # type: ignore[assignment]
        terminal = ~decision[node]
        var = np.where(terminal, -1 - polarity, variable[node])
        hi = np.where(terminal, -1, index[then[node] * 2 + polarity])
        lo = np.where(terminal, -1, index[other[node] * 2 + (polarity ^ flip[node])])
        return build_flat(var, level[node], hi, lo, self.levels)

    def random_model(self, u: Any, rng: random.Random) -> dict[int, bool] | None:
        """A random path of ``u`` to TRUE as ``{variable: value}`` (variables the path skips are absent,
        any value of them satisfies ``u``); None when ``u`` is FALSE. Walks one path, no traversal of ``u``."""
        var_of, model = self._var_of, {}
        f, negated = u, u.negated  # CUDD's children belong to the regular node: complements accumulate
        while f.var is not None:
            h, low = f.high, f.low
            h_neg, low_neg = negated ^ h.negated, negated ^ low.negated
            value = (low.var is None and low_neg) or (not (h.var is None and h_neg) and rng.random() < 0.5)
            model[var_of[f.var]] = value
            f, negated = (h, h_neg) if value else (low, low_neg)
        return None if negated else model

    def holds(self, u: Any, assignment: Mapping[int, bool]) -> bool:
        """``u`` under ``assignment`` (variables it leaves out read as False), along one path."""
        name = self._name
        values = {name[v]: b for v, b in assignment.items()}
        f, negated = u, u.negated
        while f.var is not None:
            f = f.high if values.get(f.var, False) else f.low
            negated ^= f.negated
        return not negated

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


@contextlib.contextmanager
def _cudd_memory() -> Iterator[None]:
    """CUDD out of its memory cap (a NULL node) becomes a limit, not a crash."""
    try:
        yield
    except (ValueError, RuntimeError) as exc:  # dd reports CUDD's NULL node either way
        if "NULL" in str(exc) or "out of memory" in str(exc):
            raise out_of_memory("a decision-diagram operation") from None
        raise


def _guarded(operation: Callable[[], T]) -> T:
    """Run one CUDD operation under :func:`_cudd_memory`."""
    with _cudd_memory():
        return operation()


def _quote(text: str) -> str:

    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
