"""Neighbour relations: which inputs of a program's domain are neighbours (docs/dsl.md, "Neighbour relations").

``hamming`` (differ in exactly one entry), ``one-entry`` (one entry moves by +-1, all others equal),
``all-entries`` (every entry moves by at most 1), ``monotone`` (every entry moves by 0 or +1, or every entry by 0 or
-1, not all by 0: query answers that all move the same way), ``add-remove`` (one record is added to or removed from
a slot holding the *absent* value, :func:`add_remove`), or a user relation given as a generator of neighbours or as
a symmetric predicate (:func:`relation_from_function`). A program declares one (:class:`wmcdp.Program`'s
``neighbours``); the sets, plans and notions enumerate its pairs (:meth:`Relation.directions`).
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import USER_FAILURES, WmcdpError, brief, suggest
from ..base.limits import LimitExceeded, check
from ..base.numbers import as_int
from .domain import Vector
from .shape import format_value

Generator = Callable[[Vector, tuple[int, ...]], Iterator[tuple[int, ...]]]

#: the most items a user relation's generator may give for one input (it may also give at most twice the domain)
MAX_LISTED = 1 << 22


@dataclass(frozen=True)
class Relation:
    """A neighbour relation: ``neighbours(domain, x)`` lists the neighbours of ``x`` in a fixed order."""

    name: str
    neighbours: Generator
    builtin: bool = False
    checked: bool = field(default=True, compare=False)

    def __call__(self, domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        return self.neighbours(domain, x)

    @property
    def per_entry(self) -> bool:
        """Whether the relation is a condition on the per-entry pairs ``(x_i, x'_i)`` alone, each from one set of
        pair types and counted only (hamming, one-entry, all-entries); ``monotone`` is not (its entries must all
        move the same way), so plans built on per-entry pair types (symmetry orbits, products) leave it out."""
        return self.builtin and self.name in PER_ENTRY

    def related(self, domain: Vector, x: tuple[int, ...], xp: tuple[int, ...]) -> bool:
        """Whether ``(x, x')`` is a neighbour pair of the domain: for the built-in relations by their definitions
        (add-remove and user relations by listing the neighbours of ``x``)."""
        inside = all(len(v) == domain.n and all(domain.lo <= e <= domain.hi for e in v) for v in (x, xp))
        if not inside:
            return False
        if not self.builtin:
            return any(tuple(v) == tuple(xp) for v in self.neighbours(domain, x))
        moved = [b - a for a, b in zip(x, xp) if a != b]
        if self.name == "hamming":
            return len(moved) == 1
        if self.name == "one-entry":
            return moved in ([1], [-1])
        if self.name == "monotone":
            return set(moved) in ({1}, {-1})
        return bool(moved) and all(abs(s) == 1 for s in moved)  # all-entries

    def directions(self, domain: Vector) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The relation as index arithmetic on input codes (built-in relations only).

        Yields, in the relation's order of neighbours, one ``(codes of x, codes of x')`` per *direction* (of
        :meth:`direction_count`; the codes of ``x`` ascending): the inputs the direction moves and their
        neighbours. For every ``x`` the directions that move it list its neighbours exactly in the order of
        :meth:`neighbours`. A step on every entry takes its inputs as a product of each entry's digits that can take
        the step (its cost is the pairs it has, not the domain), walked depth first so that the directions sharing
        a prefix of steps share its product: ``all-entries`` has ``3^n - 1`` directions.
        """
        if not self.builtin:
            raise ValueError("only built-in relations have directions")
        k, n = len(domain.entry_values), domain.n
        place = [k ** (n - 1 - i) for i in range(n)]
        if self.name == "hamming":  # entry i set to value v
            codes = np.arange(domain.size, dtype=np.int64)
            for i in range(n):
                digit = (codes // place[i]) % k
                for v in range(k):
                    valid = digit != v
                    yield codes[valid], codes[valid] + (v - digit[valid]) * place[i]
        elif self.name == "all-entries":  # every nonzero step in {-1, 0, 1}^n, in product order
            yield from _every_step(n, k, place)
        else:  # one entry by -1 then +1, entry by entry; or monotone's nonzero 0/1 steps, each up then down
            for step in _monotone_steps(n) if self.name == "monotone" else _one_entry_steps(n):
                src = _movable(step, k, place)
                yield src, src + sum(s * p for s, p in zip(step, place))

    def direction_count(self, domain: Vector) -> int:
        """How many directions :meth:`directions` has (built-in relations only)."""
        n, k = domain.n, len(domain.entry_values)
        return int({"hamming": n * k, "one-entry": 2 * n, "monotone": 2 * (2**n - 1)}.get(self.name, 3**n - 1))

    def step(self, domain: Vector, x: tuple[int, ...], rank: int) -> tuple[int, ...]:
        """The neighbour of ``x`` in direction ``rank`` of :meth:`directions`."""
        n, k = domain.n, len(domain.entry_values)
        if self.name == "hamming":
            i, v = divmod(rank, k)
            return x[:i] + (domain.lo + v,) + x[i + 1 :]
        if self.name == "one-entry":
            i, up = divmod(rank, 2)
            return x[:i] + (x[i] + (1 if up else -1),) + x[i + 1 :]
        if self.name == "monotone":
            return tuple(v + s for v, s in zip(x, _monotone_step(n, rank)))
        index = rank + (rank >= sum(3 ** (n - 1 - i) for i in range(n)))  # skip the all-zero steps
        steps = [(index // 3 ** (n - 1 - i)) % 3 - 1 for i in range(n)]
        return tuple(v + s for v, s in zip(x, steps))

    def pair_slices(self, domain: Vector) -> Iterator[Slices]:
        """The relation as slices of the table of all inputs (built-in relations only).

        With the inputs laid out as an array with one axis per entry (``(k,) * n``), each item
        ``(a, b, forward, backward)`` selects, by an index per entry axis (an int or a slice),
        the inputs ``x`` (``a``) and their neighbours ``x'`` (``b``) in matching positions; the
        pairs ``(x, x')`` are direction ``forward`` of :meth:`directions` and the pairs
        ``(x', x)`` direction ``backward``. Every ordered neighbour pair appears exactly once.
        """
        if not self.builtin:
            raise ValueError("only built-in relations have slices")
        slices = {"hamming": _hamming_slices, "one-entry": _one_entry_slices, "monotone": _monotone_slices}.get(
            self.name, _all_entries_slices
        )
        return slices(len(domain.entry_values), domain.n)

    def count_pairs(self, domain: Vector) -> int:
        """The number of ordered neighbour pairs ``(x, x')`` of the domain."""
        n, k = domain.n, len(domain.entry_values)
        if self.name == "hamming":
            return domain.size * n * (k - 1)
        if self.name == "one-entry":
            return int(n * 2 * (k - 1) * k ** (n - 1))  # int(): typeshed gives int ** int as Any
        if self.name == "all-entries":
            return int((3 * k - 2) ** n - k**n)
        if self.name == "monotone":  # per direction and nonzero 0/1 step s: (k - 1)^|s| k^(n - |s|) inputs
            return int(2 * ((2 * k - 1) ** n - k**n))
        return sum(1 for x in domain.values() for _ in self.neighbours(domain, x))

    def count_neighbours(self, domain: Vector, x: tuple[int, ...]) -> int:
        """The number of neighbours of ``x`` (those :meth:`neighbours` lists): the built-in relations by their
        definitions, without listing them (all-entries' are up to ``3^n - 1``), the others by listing."""
        if not self.builtin:
            return sum(1 for _ in self.neighbours(domain, x))
        if self.name == "hamming":
            return domain.n * (len(domain.entry_values) - 1)
        up, down = ([int(v < domain.hi) for v in x], [int(v > domain.lo) for v in x])
        if self.name == "one-entry":
            return sum(up) + sum(down)
        if self.name == "monotone":
            return math.prod(1 + u for u in up) + math.prod(1 + d for d in down) - 2
        return math.prod(1 + u + d for u, d in zip(up, down)) - 1  # all-entries


#: one item of :meth:`Relation.pair_slices`: the index of x, that of x', and the two directions
Slices = tuple[tuple[Any, ...], tuple[Any, ...], int, int]


def _hamming_slices(k: int, n: int) -> Iterator[Slices]:
    """Hamming neighbours: entry ``i`` is ``u`` in x and ``v > u`` in x' (directions ``i k + v`` and ``i k + u``)."""
    full = (slice(None),) * n
    for i in range(n):
        for u in range(k):
            for v in range(u + 1, k):
                yield full[:i] + (u,) + full[i + 1 :], full[:i] + (v,) + full[i + 1 :], i * k + v, i * k + u


def _one_entry_slices(k: int, n: int) -> Iterator[Slices]:
    """One-entry neighbours: entry ``i`` one step up from x to x' (direction ``2i + 1``; back down ``2i``)."""
    full = (slice(None),) * n
    for i in range(n):
        yield full[:i] + (slice(0, k - 1),) + full[i + 1 :], full[:i] + (slice(1, k),) + full[i + 1 :], 2 * i + 1, 2 * i


def _all_entries_slices(k: int, n: int) -> Iterator[Slices]:
    """All-entries neighbours: a step of -1, 0 or +1 on every entry, not all 0, whose first nonzero step is +1 (the
    opposite steps are the backward direction); directions rank the nonzero steps in product order."""
    middle: int = sum(3 ** (n - 1 - i) for i in range(n))  # the all-zero steps in product order

    def rank(steps: tuple[int, ...]) -> int:
        """The position of ``steps`` among the nonzero steps in product order."""
        index: int = sum((s + 1) * 3 ** (n - 1 - i) for i, s in enumerate(steps))
        return index - (index > middle)

    for steps in itertools.product((-1, 0, 1), repeat=n):
        nonzero = [s for s in steps if s]
        if not nonzero or nonzero[0] != 1:
            continue
        a = tuple(slice(0, k - 1) if s > 0 else slice(1, k) if s < 0 else slice(None) for s in steps)
        b = tuple(slice(1, k) if s > 0 else slice(0, k - 1) if s < 0 else slice(None) for s in steps)
        yield a, b, rank(steps), rank(tuple(-s for s in steps))


def _digits(step: int, k: int) -> np.ndarray:
    """The digits of an entry that can take ``step`` (within ``0 .. k - 1`` after it), ascending."""
    return np.arange(max(0, -step), min(k, k - step), dtype=np.int64)


def _movable(steps: tuple[int, ...], k: int, place: list[int]) -> np.ndarray:
    """The codes, ascending, of the inputs whose entry ``i`` can move by ``steps[i]`` for every ``i``: the product of
    each entry's movable digits at its place value."""
    out = np.zeros(1, dtype=np.int64)
    for step, value in zip(steps, place):
        out = (out[:, None] + _digits(step, k) * value).reshape(-1)
    return out


def _every_step(n: int, k: int, place: list[int]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The directions of ``all-entries`` in product order of their steps (the all-zero step left out), as
    :meth:`Relation.directions` gives them: depth first over the entries, a prefix's product extended by the next
    entry's digits."""
    digits = {step: _digits(step, k) for step in (-1, 0, 1)}

    def walk(i: int, src: np.ndarray, delta: int, moved: bool) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if i == n:
            if moved:
                yield src, src + delta
            return
        for step in (-1, 0, 1):
            extended = (src[:, None] + digits[step] * place[i]).reshape(-1)
            yield from walk(i + 1, extended, delta + step * place[i], moved or step != 0)

    return walk(0, np.zeros(1, dtype=np.int64), 0, False)


def _one_entry_steps(n: int) -> Iterator[tuple[int, ...]]:
    """Every direction of the one-entry relation in rank order: entry by entry, down by one then up by one."""
    for i in range(n):
        for step in (-1, 1):
            yield tuple(step if j == i else 0 for j in range(n))


def _monotone_step(n: int, rank: int) -> tuple[int, ...]:
    """Direction ``rank`` of the monotone relation: the nonzero 0/1 steps in product order, each up then down."""
    index, down = divmod(rank, 2)
    bits = index + 1  # the all-zero step is skipped
    return tuple((-1 if down else 1) * ((bits >> (n - 1 - i)) & 1) for i in range(n))


def _monotone_steps(n: int) -> Iterator[tuple[int, ...]]:
    """Every direction of the monotone relation in rank order (:func:`_monotone_step`)."""
    return (_monotone_step(n, rank) for rank in range(2 * (2**n - 1)))


def _monotone_slices(k: int, n: int) -> Iterator[Slices]:
    """Monotone neighbours: the entries of a nonzero 0/1 step one value up from x to x' (direction ``2 r``, ``r``
    the step's rank among the nonzero steps), the others equal; back down is direction ``2 r + 1``."""
    for r, bits in enumerate(range(1, 2**n)):
        moved = [(bits >> (n - 1 - i)) & 1 for i in range(n)]
        a = tuple(slice(0, k - 1) if s else slice(None) for s in moved)
        b = tuple(slice(1, k) if s else slice(None) for s in moved)
        yield a, b, 2 * r, 2 * r + 1


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


def _monotone(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every entry one up or the same, or every entry one down or the same, not all the same: the nonzero 0/1
    steps in product order, each up then down, those that stay in the domain."""
    for step in _monotone_steps(len(x)):
        xp = tuple(v + s for v, s in zip(x, step))
        if all(domain.lo <= v <= domain.hi for v in xp):
            yield xp


@dataclass(frozen=True)
class _AddRemove:
    """The neighbours of ``x`` under add/remove with the absent value ``absent`` (None: the domain's ``lo``).

    A slot holding ``absent`` is empty; a neighbour adds a record to one empty slot (any other value, in increasing
    order) or removes the record of one full slot (it becomes ``absent``), entries in order. The relation is
    symmetric by construction: adding ``v`` to slot ``i`` of ``x`` and removing it from ``x'`` are the same pair.
    """

    absent: int | None

    def __call__(self, domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        absent = domain.lo if self.absent is None else self.absent
        if not domain.lo <= absent <= domain.hi:
            raise WmcdpError(
                f"the add-remove relation's absent value {absent} is outside the entry range {domain.lo}..{domain.hi}"
            )
        for i, xi in enumerate(x):
            for v in domain.entry_values if xi == absent else (absent,):
                if v != xi:
                    yield x[:i] + (v,) + x[i + 1 :]


def add_remove(absent: int | None = None) -> Relation:
    """Add/remove neighbours: ``x`` and ``x'`` differ in exactly one entry, and one of the two values there is
    ``absent`` (the value of a slot with no record; default: the domain's lower end ``lo``).

    ``add_remove()`` is the named relation ``"add-remove"``. On bits (``{0,1}^n``) it is ``hamming`` whichever
    value is absent: a changed bit always has a 0 and a 1 on its two sides. It is listed input by input (as a
    relation you write, without the symmetry check): the planner's independent parts and proved symmetries
    cover ``hamming``, ``one-entry`` and ``all-entries`` only, so on bits ``neighbours="hamming"`` gives the
    same bound with those plans.
    """
    if absent is None:
        return _ADD_REMOVE
    value = as_int(absent, "the absent value")
    return Relation(f"add-remove(absent={value})", _AddRemove(value))


_ADD_REMOVE = Relation("add-remove", _AddRemove(None))

NEIGHBOURS: dict[str, Relation] = {
    "hamming": Relation("hamming", _hamming, builtin=True),
    "one-entry": Relation("one-entry", _one_entry, builtin=True),
    "all-entries": Relation("all-entries", _all_entries, builtin=True),
    "monotone": Relation("monotone", _monotone, builtin=True),
    "add-remove": _ADD_REMOVE,
}
#: the built-in relations that are a condition on each entry's pair (x_i, x'_i) alone (:attr:`Relation.per_entry`)
PER_ENTRY = ("hamming", "one-entry", "all-entries")


def neighbour_relation(relation: str | Relation | Callable[..., Any]) -> Relation:
    """A built-in relation by name, a :class:`Relation`, or a user function (:func:`relation_from_function`)."""
    if isinstance(relation, Relation):
        return relation
    if callable(relation):
        return relation_from_function(relation)
    try:
        return NEIGHBOURS[relation]
    except (KeyError, TypeError):
        near = suggest(relation, NEIGHBOURS) if isinstance(relation, str) else None
        raise WmcdpError(
            f"unknown neighbour relation {brief(repr(relation))}; {near + ' ' if near else ''}choose one of "
            f"{', '.join(NEIGHBOURS)}, or give a function (FILE.py:FUNC)"
        ) from None


def relation_from_function(fn: Callable[..., Any], name: str | None = None) -> Relation:
    """A user relation: ``fn(x)`` yields the neighbours of ``x``, or ``fn(x, x_prime)`` says whether they are.

    Which one is read from the number of parameters ``fn`` requires (one: a generator,
    two: a predicate). A predicate is asked about every pair of the domain (so it suits
    small domains); a generator's neighbours are checked to lie in the domain, to differ from
    ``x`` and to be listed symmetrically (see :func:`check_relation`).
    """
    label = str(name or getattr(fn, "__name__", "user relation"))
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
            for k, xp in enumerate(domain.values()):
                if k % 1024 == 0:
                    check("listing neighbours")
                if xp != x and _call_relation(fn, label, x, xp):
                    yield xp
    elif len(params) == 1:

        def neighbours(domain: Vector, x: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
            result = _call_relation(fn, label, x)
            try:
                items = iter(result)
            except TypeError:
                raise WmcdpError(
                    f"the neighbour relation {label} returned {type(result).__name__}, not an iterable of neighbours"
                ) from None
            seen = set()
            most = min(2 * domain.size, MAX_LISTED)
            for k, xp in enumerate(_user_items(items, label, x)):
                if k % 1024 == 0:
                    check("listing neighbours")
                if k == most:
                    raise WmcdpError(
                        f"the neighbour relation {label} lists more than {most} neighbours of {format_value(x)} "
                        f"(the domain has {domain.size} inputs); it must list each neighbour once and end"
                    )
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
    return Relation(label, neighbours, checked=False)


def _call_relation(fn: Callable[..., Any], label: str, *args: Any) -> Any:
    try:
        return fn(*args)
    except (WmcdpError, LimitExceeded):
        raise
    except USER_FAILURES as exc:
        raise _failed(label, args, exc) from None


def _user_items(items: Iterator[Any], label: str, x: tuple[int, ...]) -> Iterator[Any]:
    """The items of a user's iterator, its failures (raised while it runs) reported as :func:`_call_relation` does."""
    while True:
        try:
            item = next(items)
        except StopIteration:
            return
        except (WmcdpError, LimitExceeded):
            raise
        except USER_FAILURES as exc:
            raise _failed(label, (x,), exc) from None
        yield item


def _failed(label: str, args: tuple[Any, ...], exc: BaseException) -> WmcdpError:
    return WmcdpError(
        f"the neighbour relation {label} failed on {', '.join(format_value(a) for a in args)}: "
        f"{type(exc).__name__}: {exc}"
    )


def check_relation(relation: Relation, domain: Vector, inputs: Iterable[tuple[int, ...]] | None = None) -> None:
    """A user relation must be symmetric: ``x'`` a neighbour of ``x`` exactly when ``x`` is one of ``x'``.

    Checked over ``inputs`` (default: the whole domain); the first asymmetric pair is named.
    """
    if relation.checked:
        return
    cache: dict[tuple[Any, ...], set[Any]] = {}

    def of(x: tuple[int, ...]) -> set[Any]:
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
