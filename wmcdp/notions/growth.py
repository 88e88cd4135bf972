"""Growth of ε with n from a declared law: a witness family whose ratio is a closed form in n, for every n.

A report noisy max that releases the largest noisy answer itself (:class:`~wmcdp.lang.shared_noise.SharedMax`
with ``report="value"``) has ``P(v | x) = prod_i F(v + 1 - x_i) - prod_i F(v - x_i)`` with ``F(k) = P(ν < k)``.
Take every answer ``x_i = c`` on one side and ``x'_i = c + 1`` on the other, and the released value ``v = c - 1``:
each argument of ``F`` is at most 0, where the two-sided geometric law's lower tail is ``F(k) = a^(1 - k)/(1 + a)``,
so

    P(v | x) / P(v | x') = (F(0)^n - F(-1)^n) / (F(-1)^n - F(-2)^n) = a^-n      for every n,

and ε(n) >= n ln(1/a): it grows without bound, by ``ln(1/a)`` per entry, under any relation that lets every entry
move up by one (``all-entries``, ``monotone``). :func:`check_growth` recomputes the ratio from the law's closed
forms at n = 1 .. :data:`CHECKED` and compares it with each computed size's upper end of ε. The declared law is
checked against the program first (:func:`~wmcdp.notions.alignment.model_problems`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..lang.program import Program
from ..lang.shared_noise import SharedMax, at_least
from .alignment import model_problems

#: the sizes at which the family's ratio is recomputed from the law
CHECKED = 16
#: the relations under which every entry may move up by one at once
ALL_UP = ("all-entries", "monotone")


@dataclass(frozen=True)
class Growth:
    """``e^ε(n) >= factor^n`` for every n, attained by ``x_n = [x]*``, ``x'_n = [x_prime]*`` and the output
    ``y``; ``text`` and ``proof``."""

    factor: Fraction
    x: int
    x_prime: int
    y: int
    text: str
    proof: tuple[tuple[str, str], ...]

    def ratio(self, n: int) -> Fraction:
        return self.factor**n


def family_ratio(model: SharedMax, n: int, x: int, x_prime: int, y: int) -> Fraction:
    """``P(y | [x]^n) / P(y | [x_prime]^n)`` of a released noisy maximum, from the law's closed form."""

    def below(k: int) -> Fraction:
        return 1 - at_least(model.query_ratio, k)

    def p(c: int) -> Fraction:
        return below(y + 1 - c) ** n - below(y - c) ** n

    return p(x) / p(x_prime)


def find_growth(
    family: Callable[..., Program], params: dict[str, Any], relation: str, uppers: Sequence[float]
) -> tuple[Growth | None, str | None]:
    """The growth family of ``family`` (module docstring), or None and why there is none; ``uppers`` are the
    computed sizes' upper ends of ε (by size from 1), which the family must not exceed."""
    model = family(n=1, **params).shared_noise
    if not (isinstance(model, SharedMax) and model.report == "value"):
        return None, "no growth family is known for the program's declared law (only a released noisy maximum)"
    if relation not in ALL_UP or model.hi <= model.lo:
        return None, f"the relation {relation!r} does not let every entry move up by one"
    problems = model_problems(family, params)
    if problems:
        return None, problems[0]
    a = model.query_ratio
    x, y = model.lo, model.lo - 1
    text = (
        f"e^eps(n) >= {1 / a}^n for every n: eps(n) grows without bound, by {math.log(1 / a):.10g} per entry; "
        f"witness x_n = [{x}]*, x'_n = [{x + 1}]*, y_n = {y}"
    )
    proof = (
        ("the program's law is the declared noisy maximum", "equal, exactly, in windows at n = 1, 2, 3"),
        (
            "P(y | x_n) / P(y | x'_n) = a^-n",
            "every argument of F(k) = P(nu < k) is at most 0, where F(k) = a^(1 - k)/(1 + a)",
        ),
        ("the ratio at n = 1 .. 16", "recomputed from the law's closed forms"),
    )
    growth = Growth(1 / a, x, x + 1, y, text, proof)
    problems = check_growth(growth, model, uppers)
    return (None, problems[0]) if problems else (growth, None)


def check_growth(growth: Growth, model: SharedMax, uppers: Sequence[float]) -> list[str]:
    """The problems of ``growth``: its ratio recomputed at n = 1 .. :data:`CHECKED` from the law, and not above any
    computed size's upper end of ε."""
    problems = []
    for n in range(1, CHECKED + 1):
        got = family_ratio(model, n, growth.x, growth.x_prime, growth.y)
        if got != growth.ratio(n):
            problems.append(f"at n = {n} the family's ratio is {got}, not {growth.ratio(n)}")
            break
    for n, hi in enumerate(uppers, start=1):
        if math.log(growth.ratio(n)) > hi * (1 + 1e-9):
            problems.append(f"at n = {n} the family's eps exceeds the computed upper end {hi!r}")
    return problems


__all__ = ["Growth", "check_growth", "family_ratio", "find_growth"]
