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

import functools
import math

from wmcdp.numbers import Number
from wmcdp.sets import AccuracySet, InferenceSet, PrivacySet


@functools.lru_cache(maxsize=4)
def _u(n: int) -> tuple[tuple[int, ...], ...]:
    """``(u_0, ..., u_n)``, each tuple made once and shared by the sets below (``u_0 = 0^n``)."""
    return tuple((1,) * i + (0,) * (n - i) for i in range(n + 1))


def privacy_set(n: int) -> PrivacySet:
    """Eqs. 7-8: 2n triples."""
    u = _u(n)
    zero = u[0]
    up = [(u[i], u[i + 1], zero) for i in range(n)]
    down = [(u[i], u[i - 1], zero) for i in range(1, n + 1)]
    return PrivacySet.of(up + down)


def privacy_inference_set(n: int) -> InferenceSet:
    """Eq. 9: n + 1 pairs."""
    u = _u(n)
    return InferenceSet.of((x, u[0]) for x in u)


def accuracy_set(n: int) -> AccuracySet:
    """Eq. 10: n + 1 inputs."""
    return AccuracySet.of(_u(n))


def accuracy_inference_set(n: int, alpha: Number) -> InferenceSet:
    """Eq. 11: the outputs within ``alpha`` of each representative's count."""
    return InferenceSet.of((x, y) for i, x in enumerate(_u(n))
                           for y in range(math.ceil(i - alpha), math.floor(i + alpha) + 1))
