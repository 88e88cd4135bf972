"""Inference, privacy and accuracy sets (paper Defs. 4-5), neighbour relations, coverage.

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

Neighbour relations: ``hamming`` (differ in exactly one entry), ``one-entry`` (one entry
moves by +-1, all others equal), ``all-entries`` (every entry moves by at most 1), or a
user relation given as a generator of neighbours or as a symmetric predicate
(:func:`relation_from_function`).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import WmcdpError
from .lang.program import Value, Vector
from .lang.shape import Shape, format_value
from .limits import check


class InferenceSet:
    """``I``: for each input ``x``, the outputs ``y`` whose ``P(y | x)`` Algorithm 1 computes."""

    def __init__(self, by_input: dict[Value, tuple]) -> None:
        self.by_input = by_input
        self._as_set: dict[int, frozenset] = {}

    @classmethod
    def of(cls, pairs: Iterable[tuple[Value, Value]]) -> InferenceSet:
        grouped: dict[Value, list] = {}
        seen: set = set()
        memo: dict = {}
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

    def first_missing(self, x: Value, ys: Sequence) -> Value | None:
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

    blocks: tuple[tuple[Value, Value, tuple], ...]

    @classmethod
    def of(cls, triples: Iterable[tuple[Value, Value, Value]]) -> PrivacySet:
        blocks: list[tuple[Value, Value, list]] = []
        memo: dict = {}
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
        memo: dict = {}
        return cls(tuple(_freeze(x, memo) for x in inputs))

    def __len__(self) -> int:
        return len(self.inputs)

    def __iter__(self) -> Iterator[Value]:
        return iter(self.inputs)


def _pair(item: object, what: str, size: int) -> tuple:
    """An element of a set as a tuple of ``size`` parts, or a clear error."""
    if not isinstance(item, (tuple, list)) or len(item) != size:
        shape = "(x, y) pairs" if size == 2 else "(x, x', y) triples"
        raise WmcdpError(f"the {what} must hold {shape}, got {item!r}")
    return tuple(item)


def _freeze(value: object, memo: dict[int, tuple[object, Value]] | None = None) -> Value:
    """Lists become tuples so that inputs and outputs can be dictionary keys (``memo``: by object)."""
    if memo is not None:
        hit = memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
    if isinstance(value, list) or (isinstance(value, tuple) and not _FLAT.issuperset(map(type, value))):
        frozen: Value = tuple(_freeze(v) for v in value)
    else:
        frozen = value
    if memo is not None:
        memo[id(value)] = (value, frozen)
    return frozen


_FLAT = frozenset({int, bool, str, float})


# -- neighbour relations --------------------------------------------------------------

Generator = Callable[[Vector, tuple[int, ...]], Iterator[tuple[int, ...]]]


@dataclass(frozen=True)
class Relation:
    """A neighbour relation: ``neighbours(domain, x)`` lists the neighbours of ``x`` in a fixed order."""

    name: str
    neighbours: Generator
    builtin: bool = False
    checked: bool = field(default=True, compare=False)

    def __call__(self, domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        return self.neighbours(domain, x)

    def directions(self, domain: Vector) -> list[tuple[np.ndarray, np.ndarray]]:
        """The relation as index arithmetic on input codes (built-in relations only).

        Returns, in the relation's order of neighbours, one ``(delta, valid)`` per
        *direction*: ``x' = code + delta[code]`` is the direction's neighbour of the input
        with that code wherever ``valid[code]``. For every ``x`` the valid directions list its
        neighbours exactly in the order of :meth:`neighbours`.
        """
        if not self.builtin:
            raise ValueError("only built-in relations have directions")
        k, n = len(domain.entry_values), domain.n
        codes = np.arange(domain.size, dtype=np.int64)
        place = [k ** (n - 1 - i) for i in range(n)]
        digit = [(codes // place[i]) % k for i in range(n)]
        out: list[tuple[np.ndarray, np.ndarray]] = []
        if self.name == "hamming":
            for i in range(n):
                for v in range(k):
                    out.append(((v - digit[i]) * place[i], digit[i] != v))
        elif self.name == "one-entry":
            for i in range(n):
                for step in (-1, 1):
                    out.append(
                        (
                            np.full(domain.size, step * place[i], dtype=np.int64),
                            (digit[i] + step >= 0) & (digit[i] + step < k),
                        )
                    )
        else:  # all-entries: every entry moves by -1, 0 or +1, in itertools.product order
            for steps in itertools.product((-1, 0, 1), repeat=n):
                if not any(steps):
                    continue
                valid = np.ones(domain.size, dtype=bool)
                delta = 0
                for i, step in enumerate(steps):
                    if step:
                        valid &= (digit[i] + step >= 0) & (digit[i] + step < k)
                        delta += step * place[i]
                out.append((np.full(domain.size, delta, dtype=np.int64), valid))
        return out

    def direction_count(self, domain: Vector) -> int:
        """How many directions :meth:`directions` has (built-in relations only)."""
        n, k = domain.n, len(domain.entry_values)
        return {"hamming": n * k, "one-entry": 2 * n}.get(self.name, 3**n - 1)

    def step(self, domain: Vector, x: tuple[int, ...], rank: int) -> tuple[int, ...]:
        """The neighbour of ``x`` in direction ``rank`` of :meth:`directions`."""
        n, k = domain.n, len(domain.entry_values)
        if self.name == "hamming":
            i, v = divmod(rank, k)
            return x[:i] + (domain.lo + v,) + x[i + 1 :]
        if self.name == "one-entry":
            i, up = divmod(rank, 2)
            return x[:i] + (x[i] + (1 if up else -1),) + x[i + 1 :]
        index = rank + (rank >= sum(3 ** (n - 1 - i) for i in range(n)))  # skip the all-zero steps
        steps = [(index // 3 ** (n - 1 - i)) % 3 - 1 for i in range(n)]
        return tuple(v + s for v, s in zip(x, steps))

    def pair_slices(self, domain: Vector) -> Iterator[tuple[tuple, tuple, int, int]]:
        """The relation as slices of the table of all inputs (built-in relations only).

        With the inputs laid out as an array with one axis per entry (``(k,) * n``), each item
        ``(a, b, forward, backward)`` selects, by an index per entry axis (an int or a slice),
        the inputs ``x`` (``a``) and their neighbours ``x'`` (``b``) in matching positions; the
        pairs ``(x, x')`` are direction ``forward`` of :meth:`directions` and the pairs
        ``(x', x)`` direction ``backward``. Every ordered neighbour pair appears exactly once.
        """
        if not self.builtin:
            raise ValueError("only built-in relations have slices")
        k, n = len(domain.entry_values), domain.n
        full = (slice(None),) * n
        if self.name == "hamming":
            for i in range(n):
                for u in range(k):
                    for v in range(u + 1, k):
                        yield (full[:i] + (u,) + full[i + 1 :], full[:i] + (v,) + full[i + 1 :], i * k + v, i * k + u)
        elif self.name == "one-entry":
            for i in range(n):
                yield (
                    full[:i] + (slice(0, k - 1),) + full[i + 1 :],
                    full[:i] + (slice(1, k),) + full[i + 1 :],
                    2 * i + 1,
                    2 * i,
                )
        else:
            middle = sum(3 ** (n - 1 - i) for i in range(n))  # the all-zero steps in product order
            rank = lambda steps: (lambda index: index - (index > middle))(  # noqa: E731
                sum((s + 1) * 3 ** (n - 1 - i) for i, s in enumerate(steps))
            )
            for steps in itertools.product((-1, 0, 1), repeat=n):
                nonzero = [s for s in steps if s]
                if not nonzero or nonzero[0] != 1:
                    continue
                a = tuple(slice(0, k - 1) if s > 0 else slice(1, k) if s < 0 else slice(None) for s in steps)
                b = tuple(slice(1, k) if s > 0 else slice(0, k - 1) if s < 0 else slice(None) for s in steps)
                yield a, b, rank(steps), rank(tuple(-s for s in steps))

    def count_pairs(self, domain: Vector) -> int:
        """The number of ordered neighbour pairs ``(x, x')`` of the domain."""
        n, k = domain.n, len(domain.entry_values)
        if self.name == "hamming":
            return domain.size * n * (k - 1)
        if self.name == "one-entry":
            return n * 2 * (k - 1) * k ** (n - 1)
        if self.name == "all-entries":
            return (3 * k - 2) ** n - k**n
        return sum(1 for x in domain.values() for _ in self.neighbours(domain, x))


def _hamming(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for i, xi in enumerate(x):
        for v in domain.entry_values:
            if v != xi:
                yield x[:i] + (v,) + x[i + 1 :]


def _one_entry(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for i, xi in enumerate(x):
        for v in (xi - 1, xi + 1):
            if domain.lo <= v <= domain.hi:
                yield x[:i] + (v,) + x[i + 1 :]


def _all_entries(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    choices = [[v for v in (xi - 1, xi, xi + 1) if domain.lo <= v <= domain.hi] for xi in x]
    for xp in itertools.product(*choices):
        if xp != x:
            yield xp


NEIGHBOURS: dict[str, Relation] = {
    "hamming": Relation("hamming", _hamming, builtin=True),
    "one-entry": Relation("one-entry", _one_entry, builtin=True),
    "all-entries": Relation("all-entries", _all_entries, builtin=True),
}


def neighbour_relation(relation: str | Relation | Callable) -> Relation:
    """A built-in relation by name, a :class:`Relation`, or a user function (:func:`relation_from_function`)."""
    if isinstance(relation, Relation):
        return relation
    if callable(relation):
        return relation_from_function(relation)
    try:
        return NEIGHBOURS[relation]
    except (KeyError, TypeError):
        raise WmcdpError(
            f"unknown neighbour relation {relation!r}; choose one of {', '.join(NEIGHBOURS)}, "
            "or give a function (FILE.py:FUNC)"
        ) from None


def relation_from_function(fn: Callable, name: str | None = None) -> Relation:
    """A user relation: ``fn(x)`` yields the neighbours of ``x``, or ``fn(x, x_prime)`` says whether they are.

    Which one is read from the number of parameters ``fn`` requires (one: a generator,
    two: a predicate). A predicate is asked about every pair of the domain (so it suits
    small domains); a generator's neighbours are checked to lie in the domain, to differ from
    ``x`` and to be listed symmetrically (see :func:`check_relation`).
    """
    label = name or getattr(fn, "__name__", "user relation")
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        params = []
    if len(params) == 2:

        def neighbours(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
            for xp in domain.values():
                if xp != x and _call_relation(fn, label, x, xp):  # type: ignore[arg-type]
                    yield xp
    elif len(params) == 1:

        def neighbours(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
            result = _call_relation(fn, label, x)  # type: ignore[arg-type]
            try:
                items = list(result)
            except TypeError:
                raise WmcdpError(
                    f"the neighbour relation {label} returned {type(result).__name__}, not an iterable of neighbours"
                ) from None
            seen = set()
            for xp in items:
                if not domain.contains(xp):  # a neighbour outside the program's inputs is none of its neighbours
                    continue
                xp = domain.check(xp)
                if xp == x:
                    raise WmcdpError(f"the neighbour relation {label} lists {format_value(x)} as its own neighbour")
                if xp not in seen:
                    seen.add(xp)
                    yield xp
    else:
        raise WmcdpError(
            f"a neighbour relation takes x (and yields its neighbours) or x, x_prime (and says "
            f"whether they are neighbours); {label} takes {len(params)} required arguments"
        )
    return Relation(label, neighbours, checked=False)  # type: ignore[arg-type]


def _call_relation(fn: Callable, label: str, *args):
    try:
        return fn(*args)
    except WmcdpError:
        raise
    except Exception as exc:
        raise WmcdpError(
            f"the neighbour relation {label} failed on "
            f"{', '.join(format_value(a) for a in args)}: {type(exc).__name__}: {exc}"
        ) from None


def check_relation(relation: Relation, domain: Vector, inputs: Iterable[tuple[int, ...]] | None = None) -> None:
    """A user relation must be symmetric: ``x'`` a neighbour of ``x`` exactly when ``x`` is one of ``x'``.

    Checked over ``inputs`` (default: the whole domain); the first asymmetric pair is named.
    """
    if relation.checked:
        return
    cache: dict[tuple, set] = {}

    def of(x: tuple[int, ...]) -> set:
        if x not in cache:
            cache[x] = set(relation.neighbours(domain, x))
        return cache[x]

    for k, x in enumerate(domain.values() if inputs is None else inputs):
        if k % 1024 == 0:
            check("checking the neighbour relation")
        for xp in of(x):
            if x not in of(xp):
                raise WmcdpError(
                    f"the neighbour relation {relation.name} is not symmetric: {format_value(xp)} is a "
                    f"neighbour of {format_value(x)}, but not the other way round"
                )


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
        sizes = f"|I| = {_size_text(pairs)} pairs" + (f" and |C| = {_size_text(triples)} triples" if triples else "")
        raise WmcdpError(
            f"the exhaustive sets are too large ({sizes}; limits {MAX_PAIRS} pairs, {MAX_TRIPLES} "
            "triples): use symmetry sets, or force the run (--force)"
        )


def _size_text(n: int) -> str:
    return str(n) if n.bit_length() < 200 else f"about 2^{n.bit_length() - 1}"


def all_outputs(outputs: Shape | Sequence[Value]) -> tuple:
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
    outputs: Shape | tuple

    def __len__(self) -> int:
        return self.domain.size * _count(self.outputs)

    def __iter__(self) -> Iterator[tuple[Value, Value]]:
        ys = self.outputs.values if isinstance(self.outputs, Shape) else lambda: iter(self.outputs)  # type: ignore[arg-type]
        return ((x, y) for x in self.domain.values() for y in ys())


@dataclass(frozen=True)
class ExhaustivePrivacy:
    """``C = {(x, x', y) : x ~ x', y in Y}``: inputs in lexicographic order, neighbours in the relation's order."""

    domain: Vector
    outputs: Shape | tuple
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
    def blocks(self) -> Iterator[tuple[Value, Value, tuple]]:
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


def _count(outputs: Shape | tuple) -> int:
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
