"""The paper's restricted sets for randomized response (Sec. 5.3-5.4, proved there).

With ``u_i = 1^i 0^(n-i)``:

* privacy set (eqs. 7-8): ``{(u_i, u_{i+1}, 0^n)}_{i<n} U {(u_i, u_{i-1}, 0^n)}_{i>=1}``,
  valid because ``P(RR(x) = y)`` depends only on the number of flipped bits (Lemma 1) and
  neighbours change that number by one (Lemma 2) — Thms. 5-6;
* inference set for privacy (eq. 9): ``{(u_i, 0^n)}_{i=0..n}``;
* accuracy set for RR counting (eq. 10): ``{u_i}_{i=0..n}`` (Lemma 3, Thm. 7);
* inference set for accuracy (eq. 11): ``{(u_i, y) : y in [i - alpha, i + alpha]}`` (Thm. 8).

Pair sets for approximate DP, Rényi DP and privacy-loss distributions (every quantity there
is, per pair, a function of the two output distributions ``P(.|x)`` and ``P(.|x')`` alone,
maximised over the pairs in both orders):

* randomized response, :func:`pairs`: ``{(0^n, 1 0^(n-1)), (1 0^(n-1), 0^n)}``. *Proof.* A
  Hamming pair differs in one entry ``i``; ``P(y|x) = Q(y_{-i}) p(y_i|x_i)`` and
  ``P(y|x') = Q(y_{-i}) p(y_i|x'_i)`` with the same ``Q`` (the other users' reports), so every
  ``Σ_y f(P(y|x), P(y|x'))`` with ``f`` positively homogeneous (``max(0, a − t b)``,
  ``a^α b^(1−α)``) and the privacy loss ``ln(p(y_i|x_i)/p(y_i|x'_i))`` depend only on
  ``(x_i, x'_i)``, which is ``(0, 1)`` or ``(1, 0)``: the values of these two pairs. ∎
* RR counting, :func:`counting_pairs`: ``{(u_k, u_{k+1}), (u_{k+1}, u_k)}`` for ``k = 0..n-1``.
  *Proof.* The count is a sum of independent reports, ``Bin(#ones, 1 − lam) + Bin(#zeros, lam)``,
  so ``P(.|x)`` depends on ``x`` only through its number of ones ``|x|`` (Lemma 1 of the paper,
  summed over the outputs with the same count), and ``P(.|x) = P(.|u_{|x|})``. Hamming
  neighbours differ in one bit, so ``{|x|, |x'|} = {k, k + 1}`` for ``k = min(|x|, |x'|)`` in
  ``0..n-1``: every ordered pair has the output distributions of ``(u_k, u_{k+1})`` or of
  ``(u_{k+1}, u_k)``, and every pair listed is itself a Hamming pair. ∎
  :func:`counting_inference` gives their rows from the one-user randomizer by
  convolution (:class:`wmcdp.plan.shuffle.ShuffledInference`; the count is the histogram of the
  reports restricted to the ones). Past ``n = 1000`` users (:data:`wmcdp.plan.shuffled_rr.SCALE_FROM`)
  :func:`counting_sets` hands out the same pairs as :class:`wmcdp.plan.shuffled_rr.ShuffledCounting`, which
  reduces each pair to one threshold and searches the ``n`` configurations with proved block bounds
  (the module's docstring proves both), in log space with certified enclosures.
* shuffled k-ary RR (``kary_rr_histogram``), :func:`kary_pairs`: with ``v(h)`` the sorted
  input whose histogram of values is ``h``, the pairs ``(v(h), v(h − e_0 + e_1))`` and their
  reverses for every ``h`` with ``h_0 ≥ 1`` and ``h_2 ≥ h_3 ≥ … ≥ h_{k−1}``. *Proof.* As for
  counting, ``P(.|x)`` depends only on the histogram of ``x`` (independent reports, then the
  histogram). Relabelling the values by a permutation ``σ`` of ``0..k-1`` relabels each
  user's report distribution the same way (truth with ``1 − lam``, each other value with
  ``lam/(k − 1)``), so ``P(σ(c) | σ(x)) = P(c | x)`` for the full histogram ``c`` of reports,
  which is a one-to-one function of the output (the last count is ``n`` minus the others).
  A Hamming pair moves one user from a value ``i`` to ``j ≠ i``; a ``σ`` with ``σ(i) = 0``,
  ``σ(j) = 1`` that sorts the counts of the remaining values (largest first) maps it to a
  listed pair with the same pair of distributions up to a relabelling of outputs, which
  leaves every sum over outputs unchanged. ∎
  Past ``n = 1000`` users :func:`kary_sets` hands out, for ``k = 2``, the pairs as
  :class:`wmcdp.plan.shuffled_rr.ShuffledCounting` (2-ary RR's count of reports 0 is ``n`` minus RR counting's
  count of ones on the same dataset; reduction 0 of that module), and refuses ``k ≥ 3`` in one line: the
  others' histograms there are not reduced to a small family by a proof (enumerating every dataset at ``n = 5``,
  ``k = 3`` shows that neither "all others at a third value" nor "all others at the pair's two values" is always
  worst, ``tests/test_shuffled_binary.py``), and the ``(n+1)^k`` histograms above cannot be listed.
"""

from __future__ import annotations

import functools
import itertools
import math

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number
from wmcdp.lang import Bits, IntVector, Program
from wmcdp.lang.sets import AccuracySet, InferenceSet, PrivacySet
from wmcdp.plan.pairs import PairSet
from wmcdp.plan.shuffle import ShuffledInference
from wmcdp.plan.shuffled_rr import SCALE_FROM, ShuffledCounting
from wmcdp.programs.randomized_response import _respond, kary_report


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
    return InferenceSet.of(
        (x, y) for i, x in enumerate(_u(n)) for y in range(math.ceil(i - alpha), math.floor(i + alpha) + 1)
    )


def pairs(n: int) -> PairSet:
    """Randomized response: one Hamming pair in both orders."""
    zero, one = (0,) * n, (1,) + (0,) * (n - 1)
    return PairSet.of([(zero, one)])


def counting_pairs(n: int) -> PairSet:
    """RR counting: ``(u_k, u_{k+1})`` and its reverse for ``k = 0..n-1`` (2n pairs)."""
    return PairSet.of((_u(n)[k], _u(n)[k + 1]) for k in range(n))


def counting_inference(n: int, lam: Number) -> ShuffledInference:
    """The rows of RR counting: the count of ones among ``n`` shuffled one-bit RR reports."""
    local = Program("rr_report", Bits(1), lambda x: _respond(x, lam)[0], params={"lam": lam})
    return ShuffledInference(local, n, (1,))


def counting_sets(n: int, lam: Number) -> tuple[PairSet | ShuffledCounting, ShuffledInference | None]:
    """``(P, I)`` of RR counting: the 2n pairs and their rows up to :data:`SCALE_FROM` users, beyond it the pairs as
    :class:`ShuffledCounting` (δ(ε), ε(δ) and profiles in float mode)."""
    if n > SCALE_FROM:
        return ShuffledCounting.of(n, lam, counting_inference(n, lam).diagram_size), None
    return counting_pairs(n), counting_inference(n, lam)


def _sorted_input(h: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(v for v, count in enumerate(h) for _ in range(count))


def kary_pairs(n: int, k: int) -> PairSet:
    """Shuffled k-ary RR: ``(v(h), v(h - e_0 + e_1))`` and reverses, ``h_0 >= 1``, ``h_2 >= ... >= h_{k-1}``."""
    out = []
    for h in itertools.product(range(n + 1), repeat=k):
        if sum(h) != n or h[0] < 1 or any(h[j] < h[j + 1] for j in range(2, k - 1)):
            continue
        moved = (h[0] - 1, h[1] + 1) + h[2:]
        out.append((_sorted_input(h), _sorted_input(moved)))
    return PairSet.of(out)


def kary_inference(n: int, k: int, lam: Number) -> ShuffledInference:
    """The rows of shuffled k-ary RR: the counts of the reports ``0..k-2`` of ``n`` one-user k-ary reports."""
    local = Program(
        "kary_rr_report", IntVector(1, 0, k - 1), lambda x: kary_report(x[0], k, lam), params={"k": k, "lam": lam}
    )
    return ShuffledInference(local, n, tuple(range(k - 1)))


def kary_sets(n: int, k: int, lam: Number) -> tuple[PairSet | ShuffledCounting, ShuffledInference | None]:
    """``(P, I)`` of shuffled k-ary RR: the listed pairs and their rows up to :data:`SCALE_FROM` users; beyond it,
    for ``k = 2``, the pairs of RR counting as :class:`ShuffledCounting` (the output ``c`` read as ``n − c``)."""
    if n <= SCALE_FROM:
        return kary_pairs(n, k), kary_inference(n, k, lam)
    if k == 2:
        return ShuffledCounting.of(n, lam, kary_inference(n, k, lam).diagram_size, two_ary=True), None
    raise WmcdpError(
        f"shuffled k-ary RR past n = {SCALE_FROM} users is computed for k = 2 only; for k >= 3 no proved reduction "
        "of the other users' histograms to a small family is known here (neither 'all at a third value' nor 'all at "
        "the pair's two values' is always worst; see wmcdp.plan.shuffled_binary); use n <= 1000"
    )
