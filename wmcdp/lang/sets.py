"""Inference, privacy and accuracy sets (paper Defs. 4-5) and their coverage.

* An inference set ``I`` is a set of pairs ``(x, y)``; it is stored grouped by input.
* A privacy set ``C`` is a set of triples ``(x, x', y)``; it is stored as blocks
  ``(x, x', ys)``.
* An accuracy set ``A`` is a set of inputs.

Exhaustive sets are *described*, never listed: :class:`ExhaustiveInference`,
:class:`ExhaustivePrivacy` and :class:`ExhaustiveAccuracy` hold the program's input domain,
its outputs and a neighbour relation. Inputs are integer codes (lexicographic order,
:meth:`~wmcdp.lang.program.Vector.code`), outputs are positions in the output shape's
order, and neighbours come from index arithmetic on the codes (:meth:`Relation.directions`).
Coverage of an exhaustive set holds by construction. They still iterate lazily, pair by
pair, for anyone who wants to look.

The neighbour relations the exhaustive sets enumerate are in :mod:`wmcdp.lang.relations`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.errors import USER_FAILURES, WmcdpError
from ..base.limits import check
from ..base.numbers import Number, as_number, size_text
from .program import Program, Value, Vector
from .relations import Relation, neighbour_relation
from .shape import Shape, format_value


class InferenceSet:
    """``I``: for each input ``x``, the outputs ``y`` whose ``P(y | x)`` Algorithm 1 computes."""

    def __init__(self, by_input: dict[Value, tuple[Any, ...]]) -> None:
        self.by_input = by_input
        self._as_set: dict[int, frozenset[Any]] = {}

    @classmethod
    def of(cls, pairs: Iterable[tuple[Value, Value]]) -> InferenceSet:
        grouped: dict[Value, list[Any]] = {}
        seen: set[Any] = set()
        memo: dict[Any, Any] = {}
        for _k, pair in enumerate(pairs):
            x, y = _pair(pair, "inference set", 2)
            x, y = _freeze(x, memo), _freeze(y, memo)
            if (x, y) not in seen:
                seen.add((x, y))
                grouped.setdefault(x, []).append(y)
        return cls({x: tuple(ys) for x, ys in grouped.items()})

    def __len__(self) -> int:
        return sum(len(ys) for ys in self.by_input.values())

    def __iter__(self) -> Iterator[tuple[Value, Value]]:
        return ((x, y) for x, ys in self.by_input.items() for y in ys)

    def first_missing(self, x: Value, ys: Sequence[Any]) -> Value | None:
        """The first ``y`` in ``ys`` with ``(x, y)`` not in this set, else None."""
        have = self.by_input.get(x)
        if have is None:
            return ys[0] if len(ys) else None
        if have is ys:
            return None
        key = id(have)
        as_set = self._as_set.get(key)
        if as_set is None:
            as_set = self._as_set[key] = frozenset(have)
        return next((y for y in ys if y not in as_set), None)


@dataclass(frozen=True)
class PrivacySet:
    """``C``: triples ``(x, x', y)`` as blocks ``(x, x', ys)``, in a fixed order."""

    blocks: tuple[tuple[Value, Value, tuple[Any, ...]], ...]

    @classmethod
    def of(cls, triples: Iterable[tuple[Value, Value, Value]]) -> PrivacySet:
        blocks: list[tuple[Value, Value, list[Any]]] = []
        memo: dict[Any, Any] = {}
        for triple in triples:
            x, xp, y = _pair(triple, "privacy set", 3)
            x, xp, y = _freeze(x, memo), _freeze(xp, memo), _freeze(y, memo)
            if (
                blocks
                and blocks[-1][0] is x
                and blocks[-1][1] is xp
                or blocks
                and blocks[-1][0] == x
                and blocks[-1][1] == xp
            ):
                blocks[-1][2].append(y)
            else:
                blocks.append((x, xp, [y]))
        return cls(tuple((x, xp, tuple(ys)) for x, xp, ys in blocks))

    def __len__(self) -> int:
        return sum(len(ys) for _, _, ys in self.blocks)

    def __iter__(self) -> Iterator[tuple[Value, Value, Value]]:
        return ((x, xp, y) for x, xp, ys in self.blocks for y in ys)


@dataclass(frozen=True)
class AccuracySet:
    """``A``: the inputs whose accuracy Algorithm 3 compares."""

    inputs: tuple[Value, ...]

    @classmethod
    def of(cls, inputs: Iterable[Value]) -> AccuracySet:
        memo: dict[Any, Any] = {}
        return cls(tuple(_freeze(x, memo) for x in inputs))

    def __len__(self) -> int:
        return len(self.inputs)

    def __iter__(self) -> Iterator[Value]:
        return iter(self.inputs)


def _pair(item: object, what: str, size: int) -> tuple[Any, ...]:
    """An element of a set as a tuple of ``size`` parts, or a clear error."""
    if not isinstance(item, (tuple, list)) or len(item) != size:
        shape = "(x, y) pairs" if size == 2 else "(x, x', y) triples"
        raise WmcdpError(f"the {what} must hold {shape}, got {item!r}")
    return tuple(item)


def _freeze(value: object, memo: dict[int, tuple[object, Value]] | None = None) -> Value:
    """Lists become tuples so that inputs and outputs can be dictionary keys (``memo``: by object); numpy arrays
    and scalars become the tuples and Python numbers they hold."""
    if memo is not None:
        hit = memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
    plain = value.tolist() if hasattr(value, "tolist") and hasattr(value, "dtype") else value  # numpy
    if isinstance(plain, list) or (isinstance(plain, tuple) and not _FLAT.issuperset(map(type, plain))):
        frozen: Value = tuple(_freeze(v) for v in plain)
    else:
        frozen = plain
    if memo is not None:
        memo[id(value)] = (value, frozen)
    return frozen


_FLAT = frozenset({int, bool, str, float})


# -- exhaustive sets ------------------------------------------------------------------

#: exhaustive runs over these sizes are refused unless forced (they take minutes; use symmetry sets instead)
MAX_PAIRS = 1 << 28  # |I| = |X| * |Y|
MAX_TRIPLES = 1 << 32  # |C| = (number of neighbour pairs) * |Y|


def neighbour_pairs(domain: Vector, neighbours: str | Relation) -> int:
    """The number of ordered neighbour pairs ``(x, x')`` of a domain under a relation."""
    return neighbour_relation(neighbours).count_pairs(domain)


def check_exhaustive(
    domain: Vector, num_outputs: int, neighbours: str | Relation | None = None, force: bool = False
) -> None:
    """Refuse exhaustive sets over :data:`MAX_PAIRS` pairs or :data:`MAX_TRIPLES` triples unless ``force``."""
    relation = None if neighbours is None else neighbour_relation(neighbours)
    if force:
        return
    pairs = domain.size * num_outputs
    triples = 0
    if relation is not None and (relation.builtin or pairs <= MAX_PAIRS):
        triples = relation.count_pairs(domain) * num_outputs
    if pairs > MAX_PAIRS or triples > MAX_TRIPLES:
        sizes = f"|I| = {size_text(pairs)} pairs" + (f" and |C| = {size_text(triples)} triples" if triples else "")
        raise WmcdpError(
            f"the exhaustive sets are too large ({sizes}; limits {MAX_PAIRS} pairs, {MAX_TRIPLES} "
            "triples): use symmetry sets, or force the run (--force)"
        )


def all_outputs(outputs: Shape | Sequence[Value]) -> tuple[Any, ...]:
    """``Y`` as a tuple (a shape's every value, in its order)."""
    if isinstance(outputs, tuple):
        return outputs
    values = outputs.values() if isinstance(outputs, Shape) else outputs
    out = []
    for k, v in enumerate(values):
        if k % 4096 == 0:
            check("listing outputs")
        out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class ExhaustiveInference:
    """``I = X x Y`` over a program's domain and outputs (``outputs``: the output shape, or Y itself)."""

    domain: Vector
    outputs: Shape | tuple[Any, ...]

    def __len__(self) -> int:
        return self.domain.size * _count(self.outputs)

    def __iter__(self) -> Iterator[tuple[Value, Value]]:
        ys = self.outputs.values if isinstance(self.outputs, Shape) else lambda: iter(self.outputs)
        return ((x, y) for x in self.domain.values() for y in ys())


@dataclass(frozen=True)
class ExhaustivePrivacy:
    """``C = {(x, x', y) : x ~ x', y in Y}``: inputs in lexicographic order, neighbours in the relation's order."""

    domain: Vector
    outputs: Shape | tuple[Any, ...]
    relation: Relation

    def __len__(self) -> int:
        return self.relation.count_pairs(self.domain) * _count(self.outputs)

    def __iter__(self) -> Iterator[tuple[Value, Value, Value]]:
        for x, xp in self.pairs():
            ys = self.outputs.values() if isinstance(self.outputs, Shape) else self.outputs
            for y in ys:
                yield x, xp, y

    def pairs(self) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        for x in self.domain.values():
            for xp in self.relation.neighbours(self.domain, x):
                yield x, xp

    @property
    def blocks(self) -> Iterator[tuple[Value, Value, tuple[Any, ...]]]:
        ys = all_outputs(self.outputs)
        return ((x, xp, ys) for x, xp in self.pairs())


@dataclass(frozen=True)
class ExhaustiveAccuracy:
    """``A = X``, in lexicographic order."""

    domain: Vector

    def __len__(self) -> int:
        return self.domain.size

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return self.domain.values()


def _count(outputs: Shape | tuple[Any, ...]) -> int:
    return outputs.size if isinstance(outputs, Shape) else len(outputs)


def exhaustive_inference(
    domain: Vector, outputs: Shape | Sequence[Value], *, force: bool = False
) -> ExhaustiveInference:
    """``I = X x Y`` (``outputs``: the program's output shape, or Y itself), described, not listed."""
    outputs = outputs if isinstance(outputs, Shape) else tuple(outputs)
    check_exhaustive(domain, _count(outputs), force=force)
    return ExhaustiveInference(domain, outputs)


def exhaustive_privacy(
    domain: Vector, outputs: Shape | Sequence[Value], neighbours: str | Relation = "hamming", *, force: bool = False
) -> ExhaustivePrivacy:
    """``C = {(x, x', y) : x ~ x', y in Y}``, described, not listed."""
    relation = neighbour_relation(neighbours)
    outputs = outputs if isinstance(outputs, Shape) else tuple(outputs)
    check_exhaustive(domain, _count(outputs), relation, force)
    return ExhaustivePrivacy(domain, outputs, relation)


def exhaustive_accuracy(domain: Vector) -> ExhaustiveAccuracy:
    """``A = X``, described, not listed."""
    return ExhaustiveAccuracy(domain)


def describe_pair(x: Value, y: Value) -> str:
    return f"(x={format_value(x)}, y={format_value(y)})"


def accuracy_targets(program: Program, V: Callable[..., Any] | Mapping[Any, Any] | None) -> Callable[[Value], Number]:
    """The target ``V_x`` of every input (Def. 5): ``V`` a function or a mapping of inputs, or the program's
    declared target; a missing, failing or non-finite target is one clear error."""
    if V is None:
        V = program.target
        if V is None:
            raise WmcdpError(f"program {program.name} declares no target V_x; pass V")
    if isinstance(V, Mapping):
        mapping = V

        def lookup(x: Value) -> Any:
            if x not in mapping:
                raise WmcdpError(f"the targets V have no value for the input {format_value(x)}")
            return mapping[x]

        fn: Callable[..., Any] = lookup
    else:
        fn = V

    def target(x: Value) -> Number:
        try:
            value = fn(x)
        except WmcdpError:
            raise
        except USER_FAILURES as exc:
            raise WmcdpError(f"the target V failed on {format_value(x)}: {type(exc).__name__}: {exc}") from None
        if type(value) is int or (type(value) is float and math.isfinite(value)):
            return value  # the common cases, without formatting x for a message
        v = as_number(value, f"the target V_x of x={format_value(x)}")
        if isinstance(v, float) and math.isinf(v):
            raise WmcdpError(f"the target V_x of x={format_value(x)} is infinite")
        return v

    return target
