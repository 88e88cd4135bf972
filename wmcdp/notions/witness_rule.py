"""Witness families of an every-n statement: a rule giving ``(x_n, x'_n, y_n)`` at every size n, checked exactly.

A :class:`Pattern` is a sequence for every length n: a fixed ``head``, then a ``block`` repeated to fill the
length (each repetition adding ``step`` to every entry), then a fixed ``tail``. The simplest patterns are tried
on each computed size's witness (largest size first), component by component: a constant, an arithmetic
progression, a constant with one other entry first or last, a head then a repeated block. A rule is accepted
only if at every computed size from the statement's start its witness is the planner's, or a neighbour pair
whose ratio, recounted on the whole program, is the planner's ``e^ε(n)`` (:func:`find_rule`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..base.maxtimes import Ratio

#: the longest repeated block a pattern is fitted with
LONGEST_BLOCK = 4
#: ``recount(n, (x, x', y))``: the exact ratio of the triple on the whole program of size n, or None when
#: ``(x, x')`` is not a neighbour pair of that program
Recount = Callable[[int, tuple[Any, Any, Any]], "Ratio | None"]


@dataclass(frozen=True)
class Pattern:
    """``head``, then ``block`` repeated to length n (the k-th repetition adding ``k * step``), then ``tail``."""

    head: tuple[int, ...]
    block: tuple[int, ...]
    tail: tuple[int, ...] = ()
    step: int = 0

    def at(self, n: int) -> tuple[int, ...] | None:
        """The sequence of length ``n`` (None when the head and tail do not fit)."""
        fill = n - len(self.head) - len(self.tail)
        if fill < 0 or not self.block:
            return None
        p = len(self.block)
        return (*self.head, *(self.block[j % p] + self.step * (j // p) for j in range(fill)), *self.tail)

    @property
    def text(self) -> str:
        """E.g. ``1 [0]*``, ``[0]* 1``, ``[-1]* +(-1)`` (-1, -2, -3, ...) or ``1 1 0 [-1 -2]*``."""
        block = f"[{' '.join(map(str, self.block))}]*" + (f" +({self.step})" if self.step else "")
        return " ".join(s for s in (" ".join(map(str, self.head)), block, " ".join(map(str, self.tail))) if s)


@dataclass(frozen=True)
class WitnessRule:
    """The witness family ``(x_n, x'_n, y_n)``: ``sizes`` the sizes it was checked at (every computed size from
    the statement's start), ``recounted`` those where it is not the planner's witness and its ratio was
    recounted on the whole program."""

    x: Pattern
    x_prime: Pattern
    y: Pattern
    sizes: tuple[int, ...]
    recounted: tuple[int, ...]

    def at(self, n: int) -> tuple[Any, Any, Any]:
        """The witness at size ``n`` (components None where the pattern does not fit)."""
        return self.x.at(n), self.x_prime.at(n), self.y.at(n)

    @property
    def text(self) -> str:
        return f"x_n = {self.x.text}, x'_n = {self.x_prime.text}, y_n = {self.y.text}"


def fits(s: tuple[Any, ...]) -> Iterator[Pattern]:
    """The patterns of :data:`LONGEST_BLOCK` or shorter blocks that give ``s`` at its length, simplest first."""
    n = len(s)
    if n and len(set(s)) == 1:
        yield Pattern((), (s[0],))
    if n >= 3 and len({b - a for a, b in zip(s, s[1:])}) == 1:
        yield Pattern((), (s[0],), (), s[1] - s[0])
    if n >= 3 and len(set(s[1:])) == 1:
        yield Pattern((s[0],), (s[1],))
    if n >= 3 and len(set(s[:-1])) == 1:
        yield Pattern((), (s[0],), (s[-1],))
    for size in range(2, n + 1):  # head and block together, shortest first; two whole blocks at least
        for p in range(1, min(LONGEST_BLOCK, size) + 1):
            h = size - p
            if n - h >= 2 * p and all(s[k] == s[k - p] for k in range(h + p, n)):
                yield Pattern(tuple(s[:h]), tuple(s[h : h + p]))


def _sequence(v: Any, n: int) -> tuple[int, ...] | None:
    ok = isinstance(v, tuple) and len(v) == n and all(isinstance(e, int) and not isinstance(e, bool) for e in v)
    return v if ok else None


def find_rule(
    witnesses: dict[int, tuple[Any, Any, Any]], ratios: dict[int, Ratio], start: int, recount: Recount
) -> tuple[WitnessRule | None, str | None]:
    """A witness rule (module docstring) for the sizes ``n >= start`` of ``witnesses`` (the planner's, with their
    ``ratios``), or None and the reason."""
    sizes = sorted(n for n in witnesses if n >= start)
    if not sizes:
        return None, "no computed size from the statement's start"
    for n0 in reversed(sizes):
        seqs = [_sequence(v, n0) for v in witnesses[n0]]
        parts = [v for v in seqs if v is not None]
        if len(parts) != 3:
            return None, f"the witness at n = {n0} is not three sequences of n integers"
        x, xp, y = (next(fits(s), None) for s in parts)  # the simplest fit of each component
        if x is None or xp is None or y is None:
            continue
        rule = _checked(WitnessRule(x, xp, y, tuple(sizes), ()), witnesses, ratios, recount)
        if rule is not None:
            return rule, None
    return None, (
        "no rule of the tried forms (a constant, an arithmetic progression, one entry first or last, a head then a "
        f"block of at most {LONGEST_BLOCK} repeated) fitted to a computed witness gives e^eps(n) at every computed "
        f"n >= {start}"
    )


def _checked(
    rule: WitnessRule, witnesses: dict[int, tuple[Any, Any, Any]], ratios: dict[int, Ratio], recount: Recount
) -> WitnessRule | None:
    """``rule`` with the sizes where it was recounted, or None when it fails at one."""
    recounted = []
    for n in rule.sizes:
        triple = rule.at(n)
        if triple == tuple(witnesses[n]):
            continue
        if any(v is None for v in triple) or recount(n, triple) != ratios[n]:
            return None
        recounted.append(n)
    return WitnessRule(rule.x, rule.x_prime, rule.y, rule.sizes, tuple(recounted))


def rule_problems(
    rule: WitnessRule,
    witnesses: dict[int, tuple[Any, Any, Any]],
    ratios: dict[int, Ratio],
    start: int,
    recount: Recount | None,
) -> list[str]:
    """The problems of ``rule`` against the computed sizes: it must cover every computed size from ``start``, and
    at each give the planner's witness or (``recount`` given: at every size, recounted on the whole program) a
    neighbour pair of the planner's ratio; without ``recount`` a size where it is not the planner's witness must
    be among those the rule says were recounted."""
    want = tuple(sorted(n for n in witnesses if n >= start))
    if rule.sizes != want:
        return [f"the witness rule was checked at n = {list(rule.sizes)}, not at every computed n >= {start}"]
    for n in rule.sizes:
        triple = rule.at(n)
        if any(v is None for v in triple):
            return [f"the witness rule gives no witness at n = {n}"]
        if recount is not None:
            got = recount(n, triple)
            if got != ratios[n]:
                return [f"at n = {n} the witness rule's triple has ratio {got}, not e^eps(n) = {ratios[n]}"]
        elif triple != tuple(witnesses[n]) and n not in rule.recounted:
            return [f"at n = {n} the witness rule's triple is not the planner's witness and was not recounted"]
    return []


__all__ = ["Pattern", "WitnessRule", "find_rule", "fits", "rule_problems"]
