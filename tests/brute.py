"""Independent reference: enumerate every random choice of a plain-Python mechanism.

A reference mechanism is ``fn(x, choose)`` where ``choose({value: prob})`` returns one
value. :func:`distribution` re-runs ``fn`` along every sequence of choices (depth first)
and adds up the exact probability of each output. Nothing here touches wmcdp's
compiler or model counter.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Callable


class _Replay(Exception):
    pass


def distribution(fn: Callable, x) -> dict:
    """``{y: P(fn(x) = y)}`` as exact Fractions, by enumerating all random choices."""
    out: dict = {}
    stack: list[list[int]] = [[]]
    while stack:
        prefix = stack.pop()
        taken: list[int] = []
        prob = [Fraction(1)]

        def choose(options: dict):
            items = [(v, Fraction(p)) for v, p in options.items() if p != 0]
            k = len(taken)
            if k < len(prefix):
                idx = prefix[k]
            else:
                for alt in range(1, len(items)):
                    stack.append(prefix + taken[len(prefix):] + [alt])
                idx = 0
            taken.append(idx)
            value, p = items[idx]
            prob[0] *= p
            return value

        y = fn(x, choose)
        out[y] = out.get(y, Fraction(0)) + prob[0]
    return out


def independent_distribution(fn: Callable, x) -> tuple[dict, int]:
    """``(weights, d)`` with ``P(fn(x) = y) = weights[y] / d`` (integers), for a mechanism whose random choices are
    made in a fixed order from distributions that depend on ``x`` alone, never on an earlier choice (noise added
    to the entries, as in PrefixSum, SmartSum or a histogram). A first run records the choices' distributions;
    then every combination of choices is enumerated (``itertools.product``, one run of ``fn`` each, in integers:
    each choice's probabilities over the lcm of their denominators), and every run must see the recorded
    distributions (else the assumption fails and this raises)."""
    seen: list[dict] = []
    fn(x, lambda options: seen.append(options) or next(v for v, p in options.items() if p != 0))
    scales = [math.lcm(*(Fraction(p).denominator for p in o.values())) for o in seen]
    values = [[v for v, p in o.items() if p != 0] for o in seen]
    scaled = [[int(Fraction(p) * d) for p in o.values() if p != 0] for o, d in zip(seen, scales)]
    state: list = [(), 0]

    def choose(options: dict):
        k = state[1]
        if options is not seen[k] and options != seen[k]:
            raise ValueError("a random choice depends on an earlier one: use distribution()")
        state[1] = k + 1
        return state[0][k]

    weights: dict = {}
    for combo, ws in zip(itertools.product(*values), itertools.product(*scaled)):
        state[0], state[1] = combo, 0
        y = fn(x, choose)
        weights[y] = weights.get(y, 0) + math.prod(ws)
    return weights, math.prod(scales)


def pairs_ratio(dists: dict, pairs) -> Fraction | float:
    """max P(y|x) / P(y|x') over the ``pairs`` (x, x') and the outputs, from :func:`independent_distribution`'s
    ``{x: (weights, d)}`` (0/0 skipped, p/0 infinite; integer comparisons, one fraction per pair)."""
    best: Fraction | float = Fraction(0)
    for x, xp in pairs:
        (wx, dx), (wxp, dxp) = dists[x], dists[xp]
        top, bottom = 0, 1
        for y, a in wx.items():
            b = wxp.get(y, 0)
            if b == 0:
                return math.inf
            if a * bottom > top * b:
                top, bottom = a, b
        best = max(best, Fraction(top * dxp, bottom * dx))
    return best


def all_pairs_ratio(dists: dict) -> Fraction | float:
    """max P(y|x) / P(y|x') over every two distinct inputs and the outputs, from :func:`independent_distribution`'s
    ``{x: (weights, d)}``: per output the largest probability over the smallest (a relation that relates every two
    distinct inputs, such as all-entries over entries in {0, 1}; when the largest and smallest coincide at one
    input every input has the same probability, and the ratio 1 is any pair's)."""
    common = math.lcm(*(d for _, d in dists.values()))
    scaled = [(w, common // d) for w, d in dists.values()]  # P(y|x) = w[y] * k / common, in integers
    best: Fraction | float = Fraction(0)
    for y in set().union(*(w for w, _ in scaled)):
        p = [w.get(y, 0) * k for w, k in scaled]
        best = max(best, math.inf if min(p) == 0 else Fraction(max(p), min(p)))
    return best


def flip(choose, p) -> int:
    return choose({1: Fraction(p), 0: 1 - Fraction(p)})


def tight_epsilon(dists: dict, neighbours) -> tuple[float, tuple]:
    """Brute-force Definition of tight eps over all neighbour pairs and outputs."""
    best, witness = -math.inf, None
    for x, px in dists.items():
        for xp in neighbours(x):
            pxp = dists[xp]
            for y in set(px) | set(pxp):
                a, b = px.get(y, 0), pxp.get(y, 0)
                if a == 0 and b == 0:
                    continue
                e = math.inf if b == 0 else (-math.inf if a == 0 else math.log(Fraction(a) / Fraction(b)))
                if e > best:
                    best, witness = e, (x, xp, y)
    return best, witness


def tight_ratio(fn: Callable, inputs, neighbours) -> Fraction | float:
    """max P(y|x) / P(y|x') over ordered neighbours and outputs, exactly (0/0 skipped, p/0 infinite); 0 when
    every triple is 0/0."""
    dists = {x: distribution(fn, x) for x in inputs}
    best: Fraction | float = Fraction(0)
    for x in inputs:
        for xp in neighbours(x):
            for y in set(dists[x]) | set(dists[xp]):
                a, b = dists[x].get(y, 0), dists[xp].get(y, 0)
                if a == 0 and b == 0:
                    continue
                best = max(best, math.inf if b == 0 else Fraction(a) / Fraction(b))
    return best


def local_ratio(dists: dict) -> Fraction | float:
    """Pure local DP of a randomizer: max over distinct inputs x, x' and outputs y of P(y|x) / P(y|x') (at least
    1), from its output distributions ``{x: {y: P(y|x)}}``."""
    best: Fraction | float = Fraction(1)
    for (_, px), (_, pxp) in itertools.permutations(dists.items(), 2):
        for y, p in px.items():
            q = pxp.get(y, 0)
            best = max(best, math.inf if q == 0 else p / q)
    return best


# -- beyond pure epsilon: hockey-stick, Rényi, products (straight from the definitions) ------------

def hockey(p: dict, q: dict, t) -> object:
    """``sum_y max(0, p(y) - t q(y))`` over the outputs of either distribution."""
    return sum((max(0, p.get(y, 0) - t * q.get(y, 0)) for y in set(p) | set(q)), 0)


def max_over_pairs(dists: dict, neighbours, value) -> tuple[object, list]:
    """``(max of value(P(.|x), P(.|x')) over ordered neighbour pairs, the pairs attaining it)``."""
    scores = {(x, xp): value(dists[x], dists[xp]) for x in dists for xp in neighbours(x)}
    best = max(scores.values())
    return best, [pair for pair, v in scores.items() if v == best]


def ratio_for_delta(p: dict, q: dict, delta) -> object:
    """The smallest ``t = e^eps >= 1`` with ``hockey(p, q, t) <= delta`` (Fractions in, Fraction or inf out).

    Outputs sorted by ratio, largest first; on the segment between consecutive ratios the
    sum is ``A - t B`` over the outputs above it, solved for ``t`` on the first segment whose
    left end still exceeds delta.
    """
    A = sum((p[y] for y in p if p[y] > 0 and q.get(y, 0) == 0), Fraction(0))
    if A > delta:
        return math.inf
    finite = sorted({Fraction(p[y]) / q[y] for y in p if p[y] > 0 and q.get(y, 0) > 0}, reverse=True)
    B = Fraction(0)
    for k, r in enumerate(finite):
        A += sum(p[y] for y in p if p[y] > 0 and q.get(y, 0) > 0 and Fraction(p[y]) / q[y] == r)
        B += sum(q[y] for y in p if p[y] > 0 and q.get(y, 0) > 0 and Fraction(p[y]) / q[y] == r)
        left = finite[k + 1] if k + 1 < len(finite) else Fraction(0)
        if A - left * B > delta:
            return max(Fraction(1), (A - delta) / B)
    return Fraction(1)


def renyi(p: dict, q: dict, alpha: float) -> float:
    """``1/(alpha-1) ln sum_y p^alpha q^(1-alpha)`` at 60 digits (``inf`` when some ``p(y) > 0 = q(y)``)."""
    import mpmath

    with mpmath.workdps(60):
        total = mpmath.mpf(0)
        for y, py in p.items():
            if py == 0:
                continue
            qy = q.get(y, 0)
            if qy == 0:
                return math.inf
            f = lambda v: mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator  # noqa: E731
            total += f(py) ** alpha * f(qy) ** (1 - alpha)
        return float(mpmath.log(total) / (alpha - 1))


def product(dist: dict, k: int) -> dict:
    """The k-fold product distribution over tuples of outputs."""
    out = {(): Fraction(1)}
    for _ in range(k):
        out = {ys + (y,): p * q for ys, p in out.items() for y, q in dist.items()}
    return out


# -- subsampling (the mixtures over subsets, written out) ---------------------------------------

def poisson_subsampled(fn: Callable, x: tuple, q, absent) -> dict:
    """``P(y | x)`` of ``fn`` on a Poisson subsample: ``sum over S ⊆ slots of q^|S| (1-q)^(n-|S|) P_fn(y | x_S)``,
    where ``x_S`` keeps the records of ``S`` and puts ``absent`` everywhere else."""
    q, n, out = Fraction(q), len(x), {}
    for kept in itertools.product((0, 1), repeat=n):
        weight = math.prod(q if k else 1 - q for k in kept)
        z = tuple(xi if k else absent for xi, k in zip(x, kept))
        for y, p in distribution(fn, z).items():
            out[y] = out.get(y, Fraction(0)) + weight * p
    return out


def sampled_without_replacement(fn: Callable, x: tuple, m: int) -> dict:
    """``P(y | x)`` of ``fn`` on ``m`` of the records of ``x`` drawn without replacement: the uniform mixture over
    the ``C(n, m)`` subsets ``S`` of ``P_fn(y | (x_s for s in S in increasing order))``."""
    subsets = list(itertools.combinations(range(len(x)), m))
    out: dict = {}
    for S in subsets:
        for y, p in distribution(fn, tuple(x[s] for s in S)).items():
            out[y] = out.get(y, Fraction(0)) + Fraction(p, len(subsets))
    return out


def audit_verdict(claim: float, ratio) -> str:
    """An audit's verdict of a pure-ε claim against the exact ratio: VIOLATED iff ln(ratio) > claim, tight within
    4 ulp of the claim (or 2^-50), else loose; decided with 50 decimal digits."""
    if ratio == math.inf:
        return "VIOLATED"
    with localcontext() as ctx:
        ctx.prec = 50
        gap = Decimal(claim) - (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln()
    if gap < 0:
        return "VIOLATED"
    return "tight" if gap <= Decimal(max(4 * math.ulp(claim), 2.0**-50)) else "loose"
