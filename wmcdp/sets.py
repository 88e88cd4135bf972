"""Inference, privacy and accuracy sets (paper Defs. 4-5), neighbour relations, coverage.

* An inference set ``I`` is a set of pairs ``(x, y)``; it is stored grouped by input.
* A privacy set ``C`` is a set of triples ``(x, x', y)``; it is stored as blocks
  ``(x, x', ys)`` so that the exhaustive set never materialises billions of triples.
* An accuracy set ``A`` is a set of inputs.

Exhaustive sets come from a program's declared input domain, its output shape and a
neighbour relation: ``hamming`` (differ in exactly one entry), ``one-entry`` (one entry
moves by +-1, all others equal) or ``all-entries`` (every entry moves by at most 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from .errors import WmcdpError
from .limits import check
from .lang.program import Value, Vector
from .lang.shape import Shape, format_value

#: exhaustive sets larger than this many (x, y) pairs are refused; use symmetry sets
EXHAUSTIVE_LIMIT = 1 << 26


class InferenceSet:
    """``I``: for each input ``x``, the outputs ``y`` whose ``P(y | x)`` Algorithm 1 computes."""

    def __init__(self, by_input: dict[Value, tuple]) -> None:
        self.by_input = by_input
        self._as_set: dict[int, frozenset] = {}

    @classmethod
    def of(cls, pairs: Iterable[tuple[Value, Value]]) -> "InferenceSet":
        grouped: dict[Value, list] = {}
        for x, y in pairs:
            ys = grouped.setdefault(_freeze(x), [])
            y = _freeze(y)
            if y not in ys:
                ys.append(y)
        return cls({x: tuple(ys) for x, ys in grouped.items()})

    def __len__(self) -> int:
        return sum(len(ys) for ys in self.by_input.values())

    def __iter__(self) -> Iterator[tuple[Value, Value]]:
        return ((x, y) for x, ys in self.by_input.items() for y in ys)

    def first_missing(self, x: Value, ys: tuple) -> Value | None:
        """The first ``y`` in ``ys`` with ``(x, y)`` not in this set, else None."""
        have = self.by_input.get(x)
        if have is None:
            return ys[0] if ys else None
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

    blocks: tuple[tuple[Value, Value, tuple], ...]

    @classmethod
    def of(cls, triples: Iterable[tuple[Value, Value, Value]]) -> "PrivacySet":
        blocks: list[tuple[Value, Value, list]] = []
        for x, xp, y in triples:
            x, xp, y = _freeze(x), _freeze(xp), _freeze(y)
            if blocks and blocks[-1][0] == x and blocks[-1][1] == xp:
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
    def of(cls, inputs: Iterable[Value]) -> "AccuracySet":
        return cls(tuple(_freeze(x) for x in inputs))

    def __len__(self) -> int:
        return len(self.inputs)

    def __iter__(self) -> Iterator[Value]:
        return iter(self.inputs)


def _freeze(value: object) -> Value:
    """Lists become tuples so that inputs and outputs can be dictionary keys."""
    if isinstance(value, list) or (isinstance(value, tuple) and not _FLAT.issuperset(map(type, value))):
        return tuple(_freeze(v) for v in value)
    return value


_FLAT = frozenset({int, bool, str, float})


# -- neighbour relations --------------------------------------------------------------

def _hamming(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for i, xi in enumerate(x):
        for v in domain.entry_values:
            if v != xi:
                yield x[:i] + (v,) + x[i + 1:]


def _one_entry(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for i, xi in enumerate(x):
        for v in (xi - 1, xi + 1):
            if domain.lo <= v <= domain.hi:
                yield x[:i] + (v,) + x[i + 1:]


def _all_entries(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    choices = [[v for v in (xi - 1, xi, xi + 1) if domain.lo <= v <= domain.hi] for xi in x]
    for xp in itertools.product(*choices):
        if xp != x:
            yield xp


NEIGHBOURS: dict[str, Callable[[Vector, tuple[int, ...]], Iterator[tuple[int, ...]]]] = {
    "hamming": _hamming,
    "one-entry": _one_entry,
    "all-entries": _all_entries,
}


def neighbour_relation(name: str) -> Callable[[Vector, tuple[int, ...]], Iterator[tuple[int, ...]]]:
    try:
        return NEIGHBOURS[name]
    except KeyError:
        raise WmcdpError(f"unknown neighbour relation {name!r}; choose one of {', '.join(NEIGHBOURS)}") from None


# -- exhaustive sets ------------------------------------------------------------------

#: exhaustive runs over these sizes are refused unless forced (use symmetry sets instead)
MAX_PAIRS = 1 << 24       # |I| = |X| * |Y|
MAX_TRIPLES = 1 << 28     # |C| = (number of neighbour pairs) * |Y|


def neighbour_pairs(domain: Vector, neighbours: str) -> int:
    """The number of ordered neighbour pairs ``(x, x')`` of a domain under a relation."""
    neighbour_relation(neighbours)
    n, k = domain.n, len(domain.entry_values)
    if neighbours == "hamming":
        return domain.size * n * (k - 1)
    if neighbours == "one-entry":
        return n * 2 * (k - 1) * k ** (n - 1)
    return (3 * k - 2) ** n - k ** n  # all-entries


def check_exhaustive(domain: Vector, num_outputs: int, neighbours: str | None = None, force: bool = False) -> None:
    """Refuse exhaustive sets over :data:`MAX_PAIRS` pairs or :data:`MAX_TRIPLES` triples unless ``force``."""
    pairs = domain.size * num_outputs
    triples = 0 if neighbours is None else neighbour_pairs(domain, neighbours) * num_outputs
    if not force and (pairs > MAX_PAIRS or triples > MAX_TRIPLES):
        sizes = f"|I| = {pairs} pairs" + (f" and |C| = {triples} triples" if neighbours else "")
        raise WmcdpError(f"the exhaustive sets are too large ({sizes}; limits {MAX_PAIRS} pairs, {MAX_TRIPLES} "
                         "triples): use symmetry sets, or force the run (--force)")


def _checked(values: Iterable) -> Iterator:
    """``values`` with a limits checkpoint every 4096 (huge forced sets can time out)."""
    for k, v in enumerate(values):
        if k % 4096 == 0:
            check("building exhaustive sets")
        yield v


def _inputs(domain: Vector) -> Iterator[tuple[int, ...]]:
    return _checked(domain.values())


def all_outputs(outputs: Shape | Sequence[Value]) -> tuple:
    """``Y`` as a tuple (a shape's every value, in its order)."""
    if isinstance(outputs, tuple):
        return outputs
    return tuple(_checked(outputs.values() if isinstance(outputs, Shape) else outputs))


def exhaustive_inference(domain: Vector, outputs: Shape | Sequence[Value], *, force: bool = False) -> InferenceSet:
    """``I = X x Y`` (``outputs``: the program's output shape, or Y itself)."""
    check_exhaustive(domain, outputs.size if isinstance(outputs, Shape) else len(outputs), force=force)
    ys = all_outputs(outputs)
    return InferenceSet({x: ys for x in _inputs(domain)})


def exhaustive_privacy(domain: Vector, outputs: Shape | Sequence[Value], neighbours: str = "hamming", *,
                       force: bool = False) -> PrivacySet:
    """``C = {(x, x', y) : x ~ x', y in Y}``, inputs in lexicographic order."""
    relation = neighbour_relation(neighbours)
    check_exhaustive(domain, outputs.size if isinstance(outputs, Shape) else len(outputs), neighbours, force)
    ys = all_outputs(outputs)
    return PrivacySet(tuple((x, xp, ys) for x in _inputs(domain) for xp in relation(domain, x)))


def exhaustive_accuracy(domain: Vector) -> AccuracySet:
    """``A = X``."""
    return AccuracySet(tuple(_inputs(domain)))


def describe_pair(x: Value, y: Value) -> str:
    return f"(x={format_value(x)}, y={format_value(y)})"
