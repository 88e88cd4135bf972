"""Exact pure ε at one n of a declared shared-noise law with unbounded noise: sums in closed form, outputs by type.

A program that declares its law (:attr:`wmcdp.lang.Program.shared_noise`, :mod:`wmcdp.lang.shared_noise`) with
unbounded two-sided geometric noise has, for every output ``y``,

    P(y | x) = sum over t in Z of w(t) prod_i f(y_i | x_i, t),

with ``t`` the shared value: the noisy threshold of a sparse vector (``w`` its law, ``f`` an answer's ``P(x_i + ν_i
>= t)`` for TRUE, ``P(x_i + ν_i < t)`` for FALSE, times a fresh release's law for the value it releases; 1 for
STOPPED), or the winner's noisy value of report noisy max (``w`` the winner's law, ``P(x_i + ν_i < t)`` before it,
``<= t`` after it). Each such sum is an exact rational (:func:`wmcdp.count.shared_sums.shared_sum`). So:

* **outputs by type**: the sum is symmetric in the entries that give the same answer, so ``P(y | x)`` depends only
  on how many entries of each answer take each value: the worst output is one of the *classes* (how many FALSE and
  TRUE answers, which values the TRUEs release, the winner's index), each met by its representative ``FALSE^f
  TRUE^k STOPPED^rest`` (a valid output of the declared loop: after the bound's TRUE every entry is STOPPED);
* **moves by dominance**: under a relation whose pairs move each entry on its own (``all-entries``, each direction
  of ``monotone``) an answer whose ``f`` is monotone in ``x_i`` at every ``t`` (FALSE, TRUE, below the winner) only
  takes the moves ``(u, v)`` no other move beats on both sides (``f(u') >= f(u)`` and ``f(v') <= f(v)`` for every
  ``t``): the ratio of the sums cannot fall when one entry's move is replaced by one that dominates it. Every other
  answer (a winner, a TRUE that releases a value) takes every move. Under ``one-entry`` and ``hamming`` one entry
  moves and the others' values are searched as multisets per answer;
* **the search** lists every class and every multiset of moves (counted before it runs: :func:`count_work`), and
  keeps the largest exact ratio; its pair is assembled entry by entry, a pair that moves no entry never counts. A
  combination is skipped when ``sum_t A(t) / sum_t B(t) <= max_t A(t) / B(t)`` is at most the best ratio found:
  at every t the unmoved entries cancel, so that maximum is at most the product of the moved entries' suprema over
  t (:meth:`Answer.ceiling`, closed forms);
* **a released gap** (one TRUE answer that releases ``g = x_i + ν_i - t``): its factor is ``P(x_i + ν_i = t +
  g)``, and the class's ratio is the supremum over every gap ``g >= 0``, decided exactly
  (:func:`~wmcdp.count.shared_sums.gap_supremum`): attained at some gap, or approached as it grows (the answer's
  ``approached``).

No window and no tail is left out: the answer is the declared law's exact ε at this n. The declaration is the
program author's claim; before it is used it is compared with the program's own law (:func:`witness_problems`: the
witness pair's probabilities with every draw in windows of half-width 2 against the declared law's in the same
windows; and at small n on every input, :func:`wmcdp.notions.alignment.model_problems`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..base.certified import weights_at
from ..base.errors import WmcdpError
from ..compile import compile_program
from ..count.probabilities import inference
from ..count.shared_sums import Factor, gap_supremum, shared_sum, windowed_sum
from ..lang.program import Program, Value
from ..lang.shared_noise import Moves, SharedMax, SharedThreshold, directions, released
from ..lang.unbounded import window
from . import released_max

#: the most (class, moves) combinations the search evaluates before it hands the program to the windows
MAX_COMBINATIONS = 200_000
#: the half-width of the windows in which the witness is compared with the program's law
CHECKED_HALF_WIDTH = 2


@dataclass(frozen=True)
class Answer:
    """One kind of answer in an output: its output component, the factor it puts on the sum at an entry's value
    ``u`` (``(kind, ratio, u + offset)``; None: it reads nothing), a constant ``release[u]`` times it (a fresh
    release's law of the value released), and how ``f`` moves with ``u`` at every t (+1 rising, -1 falling,
    0 neither or constant)."""

    name: str
    output: Value
    kind: str | None
    ratio: Fraction
    offset: int = 0
    release: tuple[Fraction, ...] | None = None
    trend: int = 0
    gap: bool = False  # a TRUE answer that releases its gap: its factor is P(u + ν = t + g), the gap searched

    def factor(self, u: int) -> Factor | None:
        return None if self.kind is None or self.gap else (self.kind, self.ratio, u + self.offset)

    def ceiling(self, u: int, v: int, lo: int) -> Fraction:
        """``sup over t`` of ``f(u, t) / f(v, t)``, in closed form (the law's log-concavity: the ratio at a fixed
        offset is monotone in t, its supremum a tail's limit): ``a^-(v - u)`` for FALSE (``lt``) when ``u < v``,
        ``a^-(u - v)`` for TRUE (``ge``) when ``u > v``, else 1; ``a^-|u - v|`` for a ``pmf``; a release's law
        ratio times it."""
        if self.kind is None or u == v:
            return Fraction(1)
        d = {"lt": v - u, "ge": u - v, "pmf": abs(u - v)}[self.kind]
        bound = self.ratio ** -max(d, 0)
        return bound * (self.release[u - lo] / self.release[v - lo] if self.release is not None else 1)


@dataclass(frozen=True)
class Class:
    """Outputs of one type: the hub's factor (None: the winner's answer is the hub), the answers in output order
    with their counts, and the representative output."""

    hub: Factor | None
    answers: tuple[tuple[Answer, int], ...]
    y: Value


@dataclass(frozen=True)
class DeclaredAnswer:
    """The worst triple ``(x, x', y)``, its exact probabilities and ratio, and the work done. ``approached``: the
    ratio is a supremum over a released gap that no gap attains, approached as it grows (``y`` shows it at a gap
    where the ratio is within a float's rounding of it)."""

    ratio: Fraction | None  # None: P(y | x') = 0 < P(y | x)
    x: tuple[int, ...]
    x_prime: tuple[int, ...]
    y: Value
    p_x: Fraction
    p_x_prime: Fraction
    classes: int
    combinations: int  # listed
    evaluated: int  # evaluated: the others' ceilings were at most the best ratio found
    direction: str
    approached: bool = False


def supported(model: Any, relation: str) -> str:
    """Why the plan does not apply (``""`` when it does)."""
    if isinstance(model, SharedThreshold):
        if model.report == "gap" and model.bound != 1:
            return "it releases more than one TRUE answer's gap per output (one gap's supremum is decided, not more)"
    elif isinstance(model, SharedMax):
        if model.report == "value" and (relation not in released_max.MOVES or model.hi <= model.lo):
            return f"a released maximum's moves are made for {', '.join(released_max.MOVES)} only"
    else:
        return "the declared law is not a shared threshold or a noisy maximum"
    if directions(relation, model) is None:
        return f"no moves are made for the relation {relation!r}"
    return ""


def _threshold_classes(model: SharedThreshold, n: int) -> Iterator[Class]:
    """Every class of a sparse vector's outputs (module docstring)."""
    false, true, stopped = model.codes
    a = model.query_ratio
    fresh = model.report == "fresh"
    code = (lambda c, v=0: (c, v)) if model.report is not None else (lambda c, v=0: c)
    no = Answer("FALSE", code(false), "lt", a, trend=-1)
    idle = Answer("STOPPED", code(stopped), None, a)
    values = range(model.lo - 1, model.hi + 2) if fresh else (None,)
    cap = n if model.bound is None else min(model.bound, n)
    hub = ("pmf", model.threshold_ratio, model.threshold)
    for k in range(cap + 1):
        for released_values in itertools.combinations_with_replacement(values, k):
            for f in range(n - k + 1):
                rest = n - f - k
                if rest and (model.bound is None or k < model.bound):
                    continue  # entries are STOPPED only after the bound's TRUE
                yes = [_true(model, code, true, z) for z in released_values]
                answers = [(no, f), *((t, 1) for t in yes), (idle, rest)]
                y = (code(false),) * f + tuple(t.output for t in yes) + (code(stopped),) * rest
                yield Class(hub, _merged(answers), y)


def _true(model: SharedThreshold, code: Any, true: int, z: int | None) -> Answer:
    """A TRUE answer (with the value ``z`` it releases; with its gap, ``(TRUE, 0)`` stands for every gap)."""
    if model.report == "gap":
        return Answer("TRUE gap", code(true), "pmf", model.query_ratio, gap=True)
    if z is None:
        return Answer("TRUE", code(true), "ge", model.query_ratio, trend=1)
    assert model.release_ratio is not None
    law = tuple(released(model.release_ratio, u, model.lo, model.hi)[z] for u in range(model.lo, model.hi + 1))
    return Answer(f"TRUE {z}", code(true, z), "ge", model.query_ratio, release=law)


def _merged(answers: Sequence[tuple[Answer, int]]) -> tuple[tuple[Answer, int], ...]:
    """Equal answers' counts added, in the order first met; answers of count 0 left out."""
    out: dict[Answer, int] = {}
    for answer, count in answers:
        if count:
            out[answer] = out.get(answer, 0) + count
    return tuple(out.items())


def _max_classes(model: SharedMax, n: int) -> Iterator[Class]:
    """Every output of report noisy max: the winner's index ``k``."""
    a = model.query_ratio
    below = Answer("below the winner", None, "lt", a, trend=-1)
    winner = Answer("winner", None, "pmf", a)
    after = Answer("at or below the winner", None, "lt", a, offset=-1, trend=-1)
    for k in range(n):
        yield Class(None, _merged([(below, k), (winner, 1), (after, n - 1 - k)]), k)


def classes(model: SharedThreshold | SharedMax, n: int) -> Iterator[Class]:
    """Every class of outputs of ``model`` at ``n`` entries."""
    return _max_classes(model, n) if isinstance(model, SharedMax) else _threshold_classes(model, n)


def _moves(answer: Answer, moves: Moves, lo: int, hi: int, moved: bool) -> list[tuple[int, int]]:
    """The moves ``(u, v)`` an answer's entries take: in the direction's deltas (nonzero ones only when
    ``moved``), the dominated ones left out when the answer's factor is monotone (module docstring)."""
    pairs = [(u, u - d) for u in range(lo, hi + 1) for d in moves.deltas if lo <= u - d <= hi and (d != 0 or not moved)]
    if answer.kind is None:
        return pairs[:1]
    if answer.trend == 0 or answer.release is not None or answer.gap:
        return pairs
    s = answer.trend  # f rises with u (s = +1): the numerator wants u high, the denominator v low

    def beats(p: tuple[int, int], q: tuple[int, int]) -> bool:
        return p != q and s * p[0] >= s * q[0] and s * p[1] <= s * q[1]

    return [q for q in pairs if not any(beats(p, q) for p in pairs)]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts`` counts that add up to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


#: one answer's entries: how many take each move ``(u, v)``
Spread = tuple[tuple[tuple[int, int], int], ...]


def _spreads(count: int, pairs: list[tuple[int, int]]) -> Iterator[Spread]:
    for counts in _compositions(count, len(pairs)):
        yield tuple((p, c) for p, c in zip(pairs, counts) if c)


def _combinations(cls: Class, moves: Moves, lo: int, hi: int) -> Iterator[tuple[Spread, ...]]:
    """Every multiset of moves per answer of ``cls`` under ``moves`` (a pair that moves no entry included: the
    caller skips it)."""
    answers = cls.answers
    if not moves.one:
        choices = [list(_spreads(c, _moves(a, moves, lo, hi, False))) for a, c in answers]
        yield from itertools.product(*choices)
        return
    stay = Moves(moves.name, (0,), False)
    for j, (answer, _) in enumerate(answers):
        for pair in _moves(answer, moves, lo, hi, True):
            choices = [list(_spreads(c - (i == j), _moves(a, stay, lo, hi, False))) for i, (a, c) in enumerate(answers)]
            for combo in itertools.product(*choices):
                yield tuple(spread + (((pair, 1),) if i == j else ()) for i, spread in enumerate(combo))


def count_work(model: SharedThreshold | SharedMax, n: int, relation: str) -> int:
    """How many (class, moves) combinations the search evaluates, counted without listing them."""
    if isinstance(model, SharedMax) and model.report == "value":
        return 1  # one triple, from the closed form (:mod:`.released_max`)
    lo, hi, total = model.lo, model.hi, 0
    for moves in directions(relation, model) or ():
        for cls in classes(model, n):
            if not moves.one:
                total += math.prod(
                    math.comb(c + len(p) - 1, len(p) - 1)
                    for a, c in cls.answers
                    for p in [_moves(a, moves, lo, hi, False)]
                )
                continue
            stay = Moves(moves.name, (0,), False)
            for j, (answer, _) in enumerate(cls.answers):
                rest = math.prod(
                    math.comb(c - (i == j) + len(p) - 1, len(p) - 1)
                    for i, (a, c) in enumerate(cls.answers)
                    for p in [_moves(a, stay, lo, hi, False)]
                )
                total += len(_moves(answer, moves, lo, hi, True)) * rest
            if total > MAX_COMBINATIONS:
                return total
    return total


class _Search:
    """The search over classes and moves of one direction (module docstring)."""

    def __init__(self, model: SharedThreshold | SharedMax, n: int, top: Fraction | float | None = None) -> None:
        self.model, self.n = model, n
        self.cache: dict[Any, Fraction] = {}
        self.best: DeclaredAnswer | None = None
        self.top: Fraction | float | None = top  # the best ratio found so far, here or before (math.inf: infinite)
        self.combinations = self.evaluated = 0

    def ceiling(self, cls: Class, combo: tuple[Spread, ...]) -> Fraction:
        """An upper bound of the combination's ratio: ``sum_t A(t) / sum_t B(t) <= max_t A(t) / B(t)``, and at
        every t the unmoved entries cancel, so it is at most the product of the moved entries' suprema."""
        bound = Fraction(1)
        for (answer, _), spread in zip(cls.answers, combo):
            for (u, v), c in spread:
                if u != v:
                    bound *= answer.ceiling(u, v, self.model.lo) ** c
        return bound

    def beaten(self, cls: Class, combo: tuple[Spread, ...]) -> bool:
        """Whether the combination cannot beat the best ratio found (its :meth:`ceiling` is at most it)."""
        return self.top is not None and self.ceiling(cls, combo) <= self.top

    def _counted(self, side: dict[tuple[Answer, int], int], cls: Class) -> tuple[Any, Fraction, int | None]:
        """A side's factors with their counts (sorted: a cache key), the constant of its releases, and the value
        of its entry that releases a gap (None: no gap)."""
        counted: list[tuple[Factor, int]] = [] if cls.hub is None else [(cls.hub, 1)]
        constant, gap = Fraction(1), None
        for (answer, u), count in side.items():
            factor = answer.factor(u)
            if factor is not None:
                counted.append((factor, count))
            if answer.release is not None:
                constant *= answer.release[u - self.model.lo] ** count
            if answer.gap:
                gap = u
        return tuple(sorted(counted)), constant, gap

    def probability(self, counted: Any, constant: Fraction) -> Fraction:
        if counted not in self.cache:
            self.cache[counted] = shared_sum(counted)
        return constant * self.cache[counted]

    def evaluate(
        self, cls: Class, combo: tuple[Spread, ...]
    ) -> tuple[Fraction, Fraction, Fraction | None, Value, bool]:
        """``P(y | x)``, ``P(y | x')``, the ratio (None: infinite; over a released gap, its supremum), the output
        and whether the ratio is a supremum approached, not attained."""
        (num, c, u), (den, d, v) = (self._counted(self._side(cls, combo, k), cls) for k in (0, 1))
        if u is None or v is None:
            p, q = self.probability(num, c), self.probability(den, d)
            return p, q, None if q == 0 else p / q, cls.y, False
        assert isinstance(self.model, SharedThreshold)  # (only a sparse vector releases a gap)
        sup = gap_supremum(num, u, den, v, self.model.query_ratio)
        y = tuple((code, sup.g) if code == self.model.codes[1] else (code, z) for code, z in cls.y)
        return sup.p, sup.q, sup.ratio, y, not sup.attained

    def run(self, moves: Moves) -> None:
        lo, hi = self.model.lo, self.model.hi
        for cls in classes(self.model, self.n):
            for combo in _combinations(cls, moves, lo, hi):
                self.combinations += 1
                pair = self._pair(cls, combo, moves)
                if pair is None or self.beaten(cls, combo):
                    continue
                self.evaluated += 1
                p, q, ratio, y, approached = self.evaluate(cls, combo)
                if p == 0:
                    continue
                if self.best is None or _above(ratio, self.best.ratio):
                    x, xp = pair
                    self.best = DeclaredAnswer(ratio, x, xp, y, p, q, 0, 0, 0, moves.name, approached)
                    self.top = math.inf if ratio is None else max(ratio, self.top or ratio)

    @staticmethod
    def _side(cls: Class, combo: tuple[Spread, ...], side: int) -> dict[tuple[Answer, int], int]:
        out: dict[tuple[Answer, int], int] = {}
        for (answer, _), spread in zip(cls.answers, combo):
            for pair, c in spread:
                key = (answer, pair[side])
                out[key] = out.get(key, 0) + c
        return out

    def _pair(
        self, cls: Class, combo: tuple[Spread, ...], moves: Moves
    ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The pair ``(x, x')`` entry by entry in output order; None when it moves no entry and no entry that reads
        nothing can move (then it is no neighbour pair)."""
        x: list[int] = []
        xp: list[int] = []
        for spread in combo:
            for (u, v), c in spread:
                x += [u] * c
                xp += [v] * c
        if x != xp:
            return tuple(x), tuple(xp)
        idle = [i for i, (answer, _) in enumerate(cls.answers) if answer.kind is None]
        if moves.one or not idle:
            return None
        lo, hi = self.model.lo, self.model.hi
        step = next(((u, u - d) for u in range(lo, hi + 1) for d in moves.deltas if d and lo <= u - d <= hi), None)
        if step is None:
            return None
        at = sum(c for _, c in cls.answers[: idle[0]])  # the first entry that reads nothing
        x[at], xp[at] = step
        return tuple(x), tuple(xp)


def _above(ratio: Fraction | None, best: Fraction | None) -> bool:
    """Whether ``ratio`` is above ``best`` (None: infinite, which nothing is above)."""
    if best is None:
        return False
    return ratio is None or ratio > best


def declared_privacy(model: SharedThreshold | SharedMax, n: int, relation: str) -> DeclaredAnswer:
    """The declared law's exact pure ε at ``n`` entries under ``relation`` (module docstring; a released maximum's:
    :mod:`.released_max`); the caller checks :func:`supported` and :func:`count_work` first."""
    if isinstance(model, SharedMax) and model.report == "value":
        ratio, x, xp, y, p, q = released_max.released_max_privacy(model, n, relation)
        return DeclaredAnswer(ratio, x, xp, y, p, q, 1, 1, 1, relation)
    best: DeclaredAnswer | None = None
    total = evaluated = 0
    for moves in directions(relation, model) or ():
        top = None if best is None else math.inf if best.ratio is None else best.ratio
        search = _Search(model, n, top)
        search.run(moves)
        total, evaluated = total + search.combinations, evaluated + search.evaluated
        found = search.best
        if found is not None and (best is None or _above(found.ratio, best.ratio)):
            best = found
    if best is None:
        raise WmcdpError(f"the declared law at n = {n} has no neighbour pair under {relation}")
    count = sum(1 for _ in classes(model, n))
    return replace(best, classes=count, combinations=total, evaluated=evaluated)


def windowed_probability(model: SharedThreshold | SharedMax, x: tuple[int, ...], y: Value, W: int) -> Fraction:
    """The declared law's ``P(y | x)`` with every draw conditioned on ``|ν| <= W``
    (:func:`~wmcdp.count.shared_sums.windowed_sum`), for an output of :func:`classes`' form."""
    if isinstance(model, SharedMax) and model.report == "value":
        return released_max.probability(model, x, y, W)
    counted, constant = _factors(model, x, y)
    return constant * windowed_sum(counted, W)


def _factors(
    model: SharedThreshold | SharedMax, x: tuple[int, ...], y: Value
) -> tuple[list[tuple[Factor, int]], Fraction]:
    """The factors of ``P(y | x)`` entry by entry, and the constant of the values it releases."""
    a = model.query_ratio
    if isinstance(model, SharedMax):
        k = y
        return [
            (("pmf", a, x[k]), 1),
            *((("lt", a, x[i]), 1) for i in range(k)),
            *((("lt", a, x[i] - 1), 1) for i in range(k + 1, len(x))),
        ], Fraction(1)
    false, true, _ = model.codes
    counted: list[tuple[Factor, int]] = [(("pmf", model.threshold_ratio, model.threshold), 1)]
    constant = Fraction(1)
    for u, out in zip(x, y):
        code, z = out if model.report is not None else (out, None)
        if code == false:
            counted.append((("lt", a, u), 1))
        elif code == true and model.report == "gap":
            assert z is not None
            counted.append((("pmf", a, u - z), 1))  # P(u + ν - t = z)
        elif code == true:
            counted.append((("ge", a, u), 1))
            if z is not None:
                assert model.release_ratio is not None
                constant *= released(model.release_ratio, u, model.lo, model.hi)[z]
    return counted, constant


def witness_problems(
    program: Program, model: SharedThreshold | SharedMax, answer: DeclaredAnswer
) -> tuple[list[str], int]:
    """Where the program's law differs from the declared one at the witness: ``P(y | x)`` and ``P(y | x')`` with
    every draw in windows of half-width :data:`CHECKED_HALF_WIDTH`, counted exactly on the compiled program, against
    the declared law's in the same windows (:func:`windowed_probability`); and the compiled diagram's size. A
    released gap may lie beyond the windows: the witness's output is compared with every gap the windows reach too.
    """
    with window(CHECKED_HALF_WIDTH), weights_at(128):
        compiled = compile_program(program, exact_floats=True)
    outputs = [answer.y]
    if isinstance(model, SharedThreshold) and model.report == "gap":
        true = model.codes[1]
        outputs += [
            tuple((c, g) if c == true else (c, z) for c, z in answer.y) for g in range(4 * CHECKED_HALF_WIDTH + 2)
        ]
    pairs = [(x, y) for y in outputs for x in (answer.x, answer.x_prime)]
    table = inference(compiled, pairs, exact=True)
    problems = []
    for x, y in pairs:
        declared = windowed_probability(model, x, y, CHECKED_HALF_WIDTH)
        if Fraction(table.probability(x, y)) != declared:
            problems.append(f"the declared law differs from the program's at n = {len(x)}: P({y} | {x})")
    return problems, compiled.size


__all__ = [
    "CHECKED_HALF_WIDTH",
    "MAX_COMBINATIONS",
    "Answer",
    "Class",
    "DeclaredAnswer",
    "classes",
    "count_work",
    "declared_privacy",
    "supported",
    "windowed_probability",
    "witness_problems",
]
