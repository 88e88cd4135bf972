"""Dwork and Roth's AboveThreshold: the program CONTRIBUTING.md's recipe for a program from the literature adds.

tests/test_recipe_program.py follows the recipe with it; a built-in would live in programs/.

Importing this module registers the program; the test unregisters it when it is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from wmcdp.lang import Int, Program, ite
from wmcdp.programs.registry import Claim, program
from wmcdp.programs.suite import Answers, finest_ratio, threshold_value

#: the claim: eps0-DP with query noise Lap(4/eps0), so e^eps = alpha^-4 in the finest ratio alpha = e^(-eps0/4)
ABOVE_THRESHOLD = Claim(
    "Dwork and Roth 2014",
    "AboveThreshold (Alg. 1)",
    {"m": 1, "T": 1, "alpha": Fraction(1, 2)},
    lambda params: params["alpha"] ** -4,
    private=True,
)


@program(origin="Dwork and Roth, The Algorithmic Foundations of DP, 2014, Alg. 1", claims=[ABOVE_THRESHOLD])
def above_threshold(n: int, m: int, T: int, eps0: object = None, margin: int = 1, alpha: object = None) -> Program:
    """AboveThreshold: the index of the first noisy answer at or above the noisy threshold ``T``, else ``n``.

    Dwork and Roth 2014, Alg. 1, with geometric noise: threshold noise Lap(2/eps0) (ratio ``a^2``), query noise
    Lap(4/eps0) (``a = e^(-eps0/4)``, or ``alpha``). Claimed eps0-DP; neighbours: every answer moves by at most one.
    """
    ans = Answers(n, m, margin)
    t = threshold_value(T, ans.m)
    a, budget = finest_ratio(eps0, alpha, lambda e: 4 / e)

    def body(x: Sequence[Any]) -> Int | int:
        noisy_threshold = ans.noisy(t, a**2)
        above = [ans.noisy(x[i], a) >= noisy_threshold for i in range(ans.n)]
        first: Int | int = ans.n
        for i in reversed(range(ans.n)):
            first = ite(above[i], i, first)
        return first

    return ans.program("above_threshold", body, "all-entries", {"T": t, **budget}, "first noisy answer above T")
