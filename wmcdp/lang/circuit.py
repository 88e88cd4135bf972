"""The weighted Boolean formula (paper Def. 3) that tracing a program produces.

A :class:`Circuit` is a hash-consed DAG of Boolean gates over variables. Variables are
either *input* bits (unweighted: they are conditioned on, never summed) or *random* bits
with both literal weights ``w(v)`` and ``w(not v)`` (a :class:`~wmcdp.lang.weights.BitWeight`,
each computed directly). Variables are numbered in order of
first use; that order becomes the decision-diagram variable order, which is why reading
``x[i]`` right before drawing its noise keeps randomized response linear (paper Table 2).

Node 0 is FALSE and node 1 is TRUE. Gates are folded on construction (constants,
idempotence, ``a & ~a``) so that constant program parts never reach the compiler.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from ..base.limits import check
from .weights import BitWeight

FALSE = 0
TRUE = 1

VAR, NOT, AND, OR, XOR = "var", "not", "and", "or", "xor"

#: a gate: ("const", value), (VAR, variable id), (NOT, node), or (AND | OR | XOR, node, node); its length varies
#: with its kind, which callers test before they index it
Gate = tuple[Any, ...]


class Circuit:
    """Hash-consed gates plus the weight of every random variable."""

    def __init__(self, rng: random.Random | None = None, *, exact_floats: bool = False) -> None:
        self.rng = rng  # when set, random choices are drawn now (concrete execution)
        #: read every float probability as the exact rational value of its binary64
        self.exact_floats = exact_floats
        self.gates: list[Gate] = [("const", False), ("const", True)]
        self._index: dict[Gate, int] = {}
        self.var_node: list[int] = []  # variable id -> its node
        self.weights: dict[int, BitWeight] = {}  # random variable id -> its literal weights
        self.inputs: set[int] = set()  # input variable ids
        #: the releases whose tails are merged (:func:`wmcdp.lang.unbounded.released_geometric`), by name
        self.merged: list[str] = []
        #: variables drawn after the place they belong to (:func:`wmcdp.lang.releases.merged_release`): each with
        #: the variable it follows in the order of first use (:meth:`rank`)
        self.placed: dict[int, int] = {}

    # -- variables -------------------------------------------------------------------
    def _new_var(self) -> int:
        v = len(self.var_node)
        node = self._add((VAR, v))
        self.var_node.append(node)
        return v

    def input_var(self) -> int:
        """A fresh unweighted input variable; returns its node."""
        v = self._new_var()
        self.inputs.add(v)
        return self.var_node[v]

    def random_var(self, weight: BitWeight) -> int:
        """A fresh random variable with the given literal weights; returns its node.

        In concrete execution (``rng`` set) the choice is drawn at once and the result is
        the constant node, so the whole program folds to constants.
        """
        if weight.is_false:
            return FALSE
        if weight.is_true:
            return TRUE
        if self.rng is not None:
            return TRUE if self.rng.random() < weight.one else FALSE
        v = self._new_var()
        self.weights[v] = weight
        return self.var_node[v]

    @property
    def num_vars(self) -> int:
        return len(self.var_node)

    # -- gates -----------------------------------------------------------------------
    def _add(self, gate: Gate) -> int:
        node = self._index.get(gate)
        if node is None:
            node = len(self.gates)
            if node % 4096 == 0:
                check("tracing the program", node)
            self.gates.append(gate)
            self._index[gate] = node
        return node

    def negate(self, a: int) -> int:
        if a <= TRUE:
            return 1 - a
        gate = self.gates[a]
        if gate[0] == NOT:
            child: int = gate[1]
            return child
        return self._add((NOT, a))

    def _complementary(self, a: int, b: int) -> bool:
        ga, gb = self.gates[a], self.gates[b]
        complementary: bool = (ga[0] == NOT and ga[1] == b) or (gb[0] == NOT and gb[1] == a)
        return complementary

    def conj(self, a: int, b: int) -> int:
        return self._junction(AND, FALSE, a, b)

    def disj(self, a: int, b: int) -> int:
        return self._junction(OR, TRUE, a, b)

    def _junction(self, kind: str, absorbing: int, a: int, b: int) -> int:
        """``a AND b`` (``kind`` AND, ``absorbing`` FALSE) or ``a OR b`` (OR, TRUE), simplified: the absorbing
        constant wins, the other constant (``1 - absorbing``) drops out, and ``a`` with ``a`` or ``NOT a`` folds."""
        if a == absorbing or b == absorbing:
            return absorbing
        if a == 1 - absorbing:
            return b
        if b == 1 - absorbing or a == b:
            return a
        if self._complementary(a, b):
            return absorbing
        return self._add((kind, min(a, b), max(a, b)))

    def xor(self, a: int, b: int) -> int:
        if a == FALSE:
            return b
        if b == FALSE:
            return a
        if a == TRUE:
            return self.negate(b)
        if b == TRUE:
            return self.negate(a)
        if a == b:
            return FALSE
        if self._complementary(a, b):
            return TRUE
        return self._add((XOR, min(a, b), max(a, b)))

    def ite(self, c: int, a: int, b: int) -> int:
        """``(c and a) or (not c and b)``."""
        if c == TRUE or a == b:
            return a
        if c == FALSE:
            return b
        return self.disj(self.conj(c, a), self.conj(self.negate(c), b))

    def any(self, nodes: Iterable[int]) -> int:
        """The disjunction of ``nodes`` as a balanced tree (a long chain would make the compiler
        build every prefix: the output bits of a sum of n bits cost n^3 instead of n^2 log n)."""
        return self._balanced(list(nodes), self.disj, FALSE)

    def all(self, nodes: Iterable[int]) -> int:
        """The conjunction of ``nodes`` as a balanced tree."""
        return self._balanced(list(nodes), self.conj, TRUE)

    @staticmethod
    def _balanced(nodes: list[int], op: Callable[[int, int], int], unit: int) -> int:
        if not nodes:
            return unit
        while len(nodes) > 1:
            nodes = [op(nodes[k], nodes[k + 1]) if k + 1 < len(nodes) else nodes[k] for k in range(0, len(nodes), 2)]
        return nodes[0]

    # -- analysis --------------------------------------------------------------------
    def rank(self, v: int) -> tuple[int, ...]:
        """Variable ``v``'s place in the order of first use: its id, or for a variable :attr:`placed` after
        another, that one's place followed by its own id (-1, constants, first)."""
        anchor = self.placed.get(v)
        return (v,) if anchor is None else (*self.rank(anchor), v)

    def last_var(self, roots: list[int]) -> list[int]:
        """For each root, the last variable it depends on in the order of first use (:meth:`rank`; -1 for
        constants).

        One pass over the gates in creation order (children are created before their parents).
        """
        last = [-1, -1]
        latest: Callable[[Iterable[int]], int] = max if not self.placed else lambda vs: max(vs, key=self.rank)
        for gate in self.gates[2 : max(roots, default=TRUE) + 1]:
            last.append(gate[1] if gate[0] == VAR else latest(last[k] for k in gate[1:]))
        return [last[r] for r in roots]
