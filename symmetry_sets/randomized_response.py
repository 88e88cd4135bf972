"""The paper's restricted sets for randomized response (Sec. 5.3-5.4, proved there).

With ``u_i = 1^i 0^(n-i)``:

* privacy set (eqs. 7-8): ``{(u_i, u_{i+1}, 0^n)}_{i<n} U {(u_i, u_{i-1}, 0^n)}_{i>=1}``,
  valid because ``P(RR(x) = y)`` depends only on the number of flipped bits (Lemma 1) and
  neighbours change that number by one (Lemma 2) — Thms. 5-6;
* inference set for privacy (eq. 9): ``{(u_i, 0^n)}_{i=0..n}``;
* accuracy set for RR counting (eq. 10): ``{u_i}_{i=0..n}`` (Lemma 3, Thm. 7);
* inference set for accuracy (eq. 11): ``{(u_i, y) : y in [i - alpha, i + alpha]}`` (Thm. 8).
"""

from __future__ import annotations

import math

from wmcdp.numbers import Number
from wmcdp.sets import AccuracySet, InferenceSet, PrivacySet


def _u(i: int, n: int) -> tuple[int, ...]:
    return (1,) * i + (0,) * (n - i)


def privacy_set(n: int) -> PrivacySet:
    """Eqs. 7-8: 2n triples."""
    zero = (0,) * n
    up = [(_u(i, n), _u(i + 1, n), zero) for i in range(n)]
    down = [(_u(i, n), _u(i - 1, n), zero) for i in range(1, n + 1)]
    return PrivacySet.of(up + down)


def privacy_inference_set(n: int) -> InferenceSet:
    """Eq. 9: n + 1 pairs."""
    zero = (0,) * n
    return InferenceSet.of((_u(i, n), zero) for i in range(n + 1))


def accuracy_set(n: int) -> AccuracySet:
    """Eq. 10: n + 1 inputs."""
    return AccuracySet.of(_u(i, n) for i in range(n + 1))


def accuracy_inference_set(n: int, alpha: Number) -> InferenceSet:
    """Eq. 11: the outputs within ``alpha`` of each representative's count."""
    return InferenceSet.of((_u(i, n), y) for i in range(n + 1)
                           for y in range(math.ceil(i - alpha), math.floor(i + alpha) + 1))
