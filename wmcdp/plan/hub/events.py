"""The output events of the hub plan: each output value's event as a BDD in the hub's variable order."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from dd import cudd

from ...base.errors import WmcdpError
from ...base.limits import check
from ...compile import _compile_gates
from ...compile.bdd import BDDBackend
from ...lang.program import Trace
from ...lang.shape import IntShape, leaves
from ..parts import _weight_tokens

#: output events the plan lists at most (all before any is counted) before it gives up (then another plan runs)
MAX_OUTPUTS = 1024


class Diagrams:
    """The output bits as BDDs over the program's variables in the hub's order (``order[level]`` is the variable
    at a level)."""

    def __init__(self, trace: Trace, order: Sequence[int], source: Any = None) -> None:
        self.trace = trace
        self.source = source  # the compiled program whose diagram may give the value guards (:meth:`_guards`)
        self.order = list(order)
        self.be = BDDBackend(self.order)
        self.work = 0  # BDD nodes visited
        self.operations = 0  # nodes of the prefix events conjoined while the output events were formed
        self.cofactors = 0  # restrictions of events to one hub bit (or to a pinned block's class)
        self.next_pin = 0  # the block tried first as the next event's pinned entry (.conditioned._decompose)
        #: per (the entry's number of values, the block's nodes as roles and edges, :func:`.conditioned._shape`):
        #: the block's table, shared by every entry whose block has that shape
        self.tables: dict[tuple[int, Any], tuple[Any, ...]] = {}
        #: per (entry, node at the top of its block): the block's table and the node below it, and the node
        self.cuts: dict[tuple[int, int], tuple[tuple[tuple[Any, ...], Any] | None, Any]] = {}

    @functools.cached_property
    def weight_tokens(self) -> dict[int, int]:
        """Each random variable's weight token (:func:`~wmcdp.plan.parts._weight_tokens`)."""
        return _weight_tokens(self.trace.circuit)

    def events(self, most: int, work: int | None = None) -> list[tuple[tuple[Any, ...], Any]] | None:
        """Every output value (as the tuple of its leaf values) whose event is satisfiable, with its event; None
        when there are more than ``most``, when compiling the output bits in the hub's order is extrapolated past
        ``work`` (diagram operations, :func:`~wmcdp.compile._compile_gates`), or when forming the events passes it
        (:attr:`operations`, the nodes of the events conjoined, checked at every conjunction)."""
        trace, be = self.trace, self.be
        codes = sorted(trace.output_guards) if trace.output_guards is not None else []
        roots = [trace.output_guards[c] for c in codes] if trace.output_guards is not None else trace.output_roots
        built = self._guards(codes) if trace.output_guards is not None else None
        try:  # the output bits (or value guards) in the hub's order, refused when extrapolated past ``work``
            built = _compile_gates(trace, be, roots, work) if built is None else built
        except WmcdpError:
            return None
        if trace.output_guards is not None:  # one Int output: its value guards are the events
            shape = trace.shape
            assert isinstance(shape, IntShape)
            out = [((shape.lo + offset,), guard) for offset, guard in zip(codes, built) if guard != be.false]
            return out if len(out) <= most else None
        return self._prefixes(self.leaf_conditions(built), most, work)

    def output_bits(self, work: int | None) -> list[Any] | None:
        """The output bits as BDDs in the hub's order; None when compiling them is extrapolated past ``work``."""
        try:
            return _compile_gates(self.trace, self.be, self.trace.output_roots, work)
        except WmcdpError:
            return None

    def leaf_conditions(self, bits: list[Any]) -> list[list[tuple[Any, Any]]]:
        """Per output leaf, each value whose event is satisfiable with its event (over the leaf's share of
        ``bits``, the output bits)."""
        conditions = []
        for leaf in leaves(self.trace.shape):
            conditions.append(self._leaf_values(leaf, bits[: leaf.width]))
            bits = bits[leaf.width :]
        return conditions

    def _guards(self, codes: Sequence[int]) -> list[Any] | None:
        """The value guards of one Int output, each the compiled program's diagram ``phi`` restricted to the
        value's output bits (``phi | y = [A(x, theta) = y]``) and moved into the hub's manager (by variable name,
        rebuilt in the hub's order), when the program was compiled on a BDD; else None (they are compiled)."""
        source = self.source
        if source is None or source.backend.name != "bdd":
            return None
        shape, src = self.trace.shape, source.backend
        assert isinstance(shape, IntShape)
        out = []
        for offset in codes:
            check("hub plan: output events")
            guard = src.condition(source.phi, source.output_assignment(shape.encode(shape.lo + offset)))
            out.append(cudd.copy_bdd(guard, self.be.bdd))
        return out

    def _leaf_values(self, leaf: Any, bits: list[Any]) -> list[tuple[Any, Any]]:
        """Each value of one output leaf whose event ``[leaf = value]`` (over the leaf's ``bits``) is satisfiable."""
        out = []
        for value in leaf.values():
            cond = self.be.true
            for o, b in zip(bits, leaf.encode(value) or ()):
                cond = cond & (o if b else ~o)
            if cond != self.be.false:
                out.append((value, cond))
        return out

    def _prefixes(
        self, conditions: list[list[tuple[Any, Any]]], most: int, work: int | None
    ) -> list[tuple[tuple[Any, ...], Any]] | None:
        """The satisfiable prefixes of the output leaves, one leaf deeper per round (breadth first): each
        satisfiable prefix extends to at least one output, so more than ``most`` of them at any depth means more
        than ``most`` outputs, found while the prefixes' events are still small. Each conjunction is charged the
        nodes of the prefix's event (:attr:`operations`; a chain's grow with the depth, so the rounds cost about
        the cube of the leaves); None as soon as the charge passes ``work``."""
        prefixes: list[tuple[tuple[Any, ...], Any]] = [((), self.be.true)]
        for values in conditions:
            deeper = []
            for prefix, event in prefixes:
                size = event.dag_size
                for value, cond in values:
                    check("hub plan: output events")
                    self.operations += size
                    if work is not None and self.operations > work:
                        return None
                    joint = event & cond
                    if joint != self.be.false:
                        deeper.append(((*prefix, value), joint))
                if len(deeper) > most:
                    return None
            prefixes = deeper
        return prefixes


def _children(f: Any) -> tuple[Any, Any]:
    """``(low, high)`` of a CUDD node with its complement applied."""
    lo, hi = f.low, f.high
    return (~lo, ~hi) if f.negated else (lo, hi)
