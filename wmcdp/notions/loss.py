"""The privacy-loss distribution of a pair, and the exact composition of K runs on the same pair.

For a pair ``(x, x')`` the privacy loss is the random variable

    L = ln(P(Y|x) / P(Y|x'))   with Y ~ P(.|x),

which takes the value ``+∞`` with the mass of the outputs that ``x'`` never produces.
Outputs with equal likelihood ratio are *grouped*: a group keeps its ``P(.|x)``-mass ``a``
and its ``P(.|x')``-mass ``b`` (so its ratio is ``a/b``), which loses nothing for the
hockey-stick divergence ``δ(ε) = Σ_groups max(0, a − e^ε b) = E[max(0, 1 − e^{ε − L})]``.
Exact mode groups by the exact rational ratio (masses stay integer numerators over the
program's denominator ``D``); float mode by float log-ratios that agree to a relative
1e-12 (:data:`TOLERANCE`: equal ratios reached along different roundings; masses as logs),
which moves δ by no more than that relative amount.

K runs on the same pair have the K-fold product distributions, whose groups are the
products of K groups: ratios multiply, masses multiply (numerators over ``D^K``), and
equal ratios merge again (:func:`power`, by repeated squaring). That is the exact
composed privacy loss used by ``compose=K`` with ``accountant="exact"``; its support can
grow as fast as ``(number of groups)^K``, so it is for small K (see
:mod:`wmcdp.notions.accounting` for large K).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import check
from ..base.numbers import as_number, format_number, ln_ratio
from ..compile import Compiled, compile_trace
from ..count import wmc
from ..count.probabilities import Logs
from ..lang.program import Program, Value
from ..plan.losses import MAX_GROUPS, Groups, TooManyLosses, too_many
from ..plan.losses import MAX_PRODUCTS as MAX_PRODUCTS  # re-exported: its 0.2 path
from ..plan.losses import TOLERANCE as TOLERANCE  # re-exported: its 0.2 path
from ..plan.pairs import PairSet, PairSource, PairWitness, RowPairs, log1mexp, logsumexp, pair_source

#: most multinomial outcomes times runs an exact K-fold power enumerates (10^4 runs of a two-loss pair: 10^8)
MAX_MULTINOMIAL = 1 << 27


def compose_count(compose: Any) -> int:
    """The number of runs to compose: a whole number >= 1, or a one-line error."""
    k = as_number(compose, "compose")
    if not isinstance(k, int) or k < 1:
        raise WmcdpError(f"compose must be a whole number >= 1, got {format_number(k)}")
    return k


def power(groups: Groups, k: int, limit: int = MAX_GROUPS) -> Groups:
    """The groups of the k-fold product: exact groups through their multinomial outcomes when there are at most
    ``4 limit`` of them and their number times ``k`` (the size of their integers) is at most
    :data:`MAX_MULTINOMIAL` (:func:`_multinomial`), else by repeated squaring, refused at once when a step must
    pass the limits (:func:`_check_power`; ``limit`` distinct losses)."""
    outcomes = math.comb(k + len(groups.a) - 1, len(groups.a) - 1)
    if groups.arith.exact and outcomes <= 4 * limit and outcomes * k <= MAX_MULTINOMIAL:
        return _multinomial(groups, k, limit)
    _check_power(groups, k, limit)
    result: Groups | None = None
    base = groups
    while k:
        if k & 1:
            result = base if result is None else result.compose(base, limit)
        k >>= 1
        if k:
            base = base.compose(base, limit)
    assert result is not None
    return result


def _multinomial(groups: Groups, k: int, limit: int) -> Groups:
    """The exact groups of the k-fold product through its multinomial outcomes: ``n`` runs in each group
    (``Σ n_i = k``) have ratio ``Π r_i^{n_i}`` (infinite when some ``n_i > 0`` is), masses
    ``k!/Π n_i! · Π a_i^{n_i}`` and ``k!/Π n_i! · Π b_i^{n_i}``; equal ratios merge."""
    g = len(groups.a)
    powers = [[_powers(gmpy2.mpz(x), k) for x in column] for column in (groups.a, groups.b)]
    ratios = [None if r is None else _powers(r, k) for r in groups.ratios]
    merged: dict[Any, list[Any]] = {}

    def visit(i: int, left: int, n: list[int]) -> None:
        if i == g - 1:
            n.append(left)
            check("composing privacy losses")
            ratio: Any = gmpy2.mpq(1)
            a = b = gmpy2.mpz(1)
            rest = k
            for j, nj in enumerate(n):
                coefficient = gmpy2.comb(rest, nj)
                rest -= nj
                a, b = a * coefficient * powers[0][j][nj], b * coefficient * powers[1][j][nj]
                pj = ratios[j]
                ratio = None if ratio is None or (pj is None and nj) else ratio if pj is None else ratio * pj[nj]
            cell = merged.setdefault(ratio, [0, 0])
            cell[0] += a
            cell[1] += b
            n.pop()
            return
        for nj in range(left + 1):
            n.append(nj)
            visit(i + 1, left - nj, n)
            n.pop()

    visit(0, k, [])
    if len(merged) > limit:
        raise too_many(limit)
    keys = list(merged)
    arith = wmc.Scaled(groups.arith.denominator**k)
    return Groups(arith, keys, [int(merged[key][0]) for key in keys], [int(merged[key][1]) for key in keys])


def _powers(x: Any, k: int) -> list[Any]:
    out = [x**0]
    for _ in range(k):
        out.append(out[-1] * x)
    return out


def _check_power(groups: Groups, k: int, limit: int = MAX_GROUPS) -> None:
    """Refuse before any work when :func:`power` would pass :data:`MAX_PRODUCTS` or ``limit`` groups on its way.

    Exact losses only (float ones merge within :data:`TOLERANCE`): with ``g`` distinct finite losses, a ``j``-fold
    product has at least ``j (g − 1) + 1`` distinct finite losses (a sum of ``j`` losses from a set of ``g`` reals
    takes at least that many values), plus the infinite one when some output of ``x`` is never one of ``x'``.
    The steps of the repeated squaring are replayed on these lower bounds; each step that the bound already puts
    over a limit would be refused when reached."""
    if not groups.arith.exact:
        return
    finite = sum(r is not None for r in groups.ratios)
    infinite = int(None in groups.ratios)

    def least(j: int) -> int:
        return (j * (finite - 1) + 1 if finite else 0) + infinite

    if least(k) > limit:
        raise too_many(limit)
    folds, base = 0, 1  # the runs in the result so far and in the current square
    while k:
        if k & 1:
            if folds and least(folds) * least(base) > MAX_PRODUCTS:
                raise too_many(limit)
            folds += base
        k >>= 1
        if k:
            if least(base) ** 2 > MAX_PRODUCTS:
                raise too_many(limit)
            base *= 2


def composed_pairs(source: PairSource, k: int) -> RowPairs:
    """Every pair of ``source`` replaced by the grouped K-fold product of its two distributions."""
    keys: list[int] = []
    composed: list[Groups] = []
    for chunk_keys, A, B in source.all_rows():
        for key, a, b in zip(chunk_keys, A, B):
            composed.append(power(Groups.of(source.arith, a, b), k))
            keys.append(int(key))
    width = max(len(g.a) for g in composed)
    exact = source.arith.exact
    arith = wmc.Scaled(source.arith.denominator**k) if exact else Logs
    table = np.full((2 * len(composed), width), 0 if exact else -np.inf, dtype=object if exact else np.float64)
    for i, g in enumerate(composed):
        a, b = g.arrays()
        table[2 * i, : len(a)] = a
        table[2 * i + 1, : len(b)] = b
    src = np.arange(0, 2 * len(composed), 2, dtype=np.int64)
    order = np.argsort(keys)
    return RowPairs(
        arith,
        table,
        src[order],
        src[order] + 1,
        np.array(keys, dtype=np.int64)[order],
        source.witness,
        source.diagram_size,
    )


def hockey_curves(groups: list[Groups], exact: bool) -> np.ndarray:
    """``H_i(t) = sum_j max(0, a_ij - t b_ij)`` of every pair ``i`` at every breakpoint ``t`` of any pair (its
    finite ratios) and one ``t`` beyond them all. Each ``H_i`` is piecewise linear in ``t`` with its kinks at
    those ratios, and every ``H_i`` tends to 1 as ``t -> 0``: comparing curves at these points compares them
    everywhere on ``t > 0``. Float groups give ``ln H`` from their log masses and log ratios (no ``t`` is
    formed, so ratios past 2^1023 and masses below 1e-308 stay exact in logs)."""
    if exact:
        ts = sorted({r for g in groups for r in g.ratios if r is not None})
        ts.append((ts[-1] if ts else Fraction(1)) + 1)
        return np.array(
            [[sum(max(Fraction(0), Fraction(a) - t * b) for a, b in zip(g.a, g.b)) for t in ts] for g in groups],
            dtype=object,
        )
    logs = sorted({float(r) for g in groups for r in g.ratios if np.isfinite(r)})
    log_ts = np.array(logs + [(logs[-1] if logs else 0.0) + 1.0])
    rows = []
    for g in groups:
        la, lb = np.array(g.a)[:, None], np.array(g.b)[:, None]
        gap = log_ts[None, :] + lb - la  # ln(t b / a): a term counts where it is below 0
        terms = np.full(gap.shape, -np.inf)
        live = gap < 0
        terms[live] = np.broadcast_to(la, gap.shape)[live] + log1mexp(gap[live])
        rows.append(logsumexp(terms.T))
    return np.array(rows)


def dominant(groups: list[Groups]) -> int | None:
    """A pair whose hockey-stick curve is at least every other pair's for every ``t = e^ε > 0`` (the others are
    then garblings of it, Blackwell), or None. Such a pair stays the worst when composed with any other pair, so
    a product's worst pair takes it in every part. Exact groups only: the curves are compared as rationals."""
    if not groups:
        return None
    curves = hockey_curves(groups, True)
    winners = np.flatnonzero((curves >= curves.max(axis=0)).all(axis=1))
    return int(winners[0]) if len(winners) else None


def _dominant_pair(source: PairSource, keys: list[int], groups: list[Groups]) -> int | None:
    """:func:`dominant` among the pairs of ``source`` (``groups``, in the order of ``keys``), decided exactly.

    Float sources are recounted exactly first: the same pairs on the same circuit with every weight read as the
    exact rational value of its float (:func:`_binary_weights`), so the claim never rests on a tolerance. None
    when a float source does not say what it counted."""
    if source.arith.exact:
        return dominant(groups)
    if source.compiled is None:
        return None
    pairs = PairSet.of([(w.x, w.x_prime) for w in map(source.witness, keys)], both_orders=False)
    exact = pair_source(_binary_weights(source.compiled), pairs, exact=True)
    recounted = {int(k): Groups.of(exact.arith, a, b) for K, A, B in exact.all_rows() for k, a, b in zip(K, A, B)}
    return dominant([recounted[k] for k in range(len(keys))])


def _binary_weights(compiled: Compiled) -> Compiled:
    """The compiled program again with every float weight read as the exact rational value of that float (both
    literal weights as they are, so the exact count is that of the float run's own weights)."""
    circuit = copy.copy(compiled.trace.circuit)
    circuit.weights = {
        v: replace(w, one=Fraction(w.one), zero=Fraction(w.zero)) for v, w in compiled.trace.circuit.weights.items()
    }
    circuit.exact_floats = True
    trace = replace(compiled.trace, circuit=circuit)
    return compile_trace(compiled.program, trace, "bdd", exact_floats=True)


def product_pairs(
    parts: list[tuple[PairSource, int]], witness: Callable[[list[PairWitness]], PairWitness]
) -> RowPairs | None:
    """One pair: the worst of a product of independent parts under a relation that may move every part
    (all-entries), ``parts`` giving each distinct part's pairs and how many parts are like it. When every part
    has a dominant pair (:func:`dominant`), the product's worst pair takes it in every part (hockey-stick
    divergences only grow under composition, so moving every part is worst), and its privacy-loss distribution
    is the composition of theirs: δ(ε), ε(δ) and profiles of the product are exactly those of this one pair.
    None when some part has no dominant pair (or the composition grows past :data:`MAX_GROUPS`). ``witness``
    embeds the parts' witness pairs into one pair of the program's inputs."""
    total: Groups | None = None
    chosen: list[PairWitness] = []
    for source, count in parts:
        keys: list[int] = []
        groups: list[Groups] = []
        for chunk_keys, A, B in source.all_rows():
            for key, a, b in zip(chunk_keys, A, B):
                keys.append(int(key))
                groups.append(Groups.of(source.arith, a, b))
        i = _dominant_pair(source, keys, groups)
        if i is None:
            return None
        chosen.append(source.witness(keys[i]))
        try:
            part = power(groups[i], count)
            total = part if total is None else total.compose(part)
        except WmcdpError:
            return None
    assert total is not None
    a, b = total.arrays()
    exact = total.arith.exact
    table = np.full((2, len(a)), 0 if exact else -np.inf, dtype=object if exact else np.float64)
    table[0], table[1] = a, b
    pair = witness(chosen)
    zero = np.zeros(1, dtype=np.int64)
    sizes = [source.diagram_size for source, _ in parts]
    size = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
    out = RowPairs(total.arith if exact else Logs, table, zero, zero + 1, zero, lambda key: pair, size)
    how = "as exact rationals" if exact else "recounted exactly on the floats' binary values, as rationals"
    out.claims = (
        (
            "each part has a dominant pair (hockey-stick curve at least every other pair's for every e^eps > 0)",
            f"the curves compared at every kink (every pair's likelihood ratios) and beyond, {how}",
        ),
    )
    return out


# -- the public result ------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivacyLoss:
    """The privacy-loss random variable of a pair (K runs: ``compose = K``).

    ``losses`` are its finite values in increasing order (natural logs), ``probabilities``
    their probabilities under ``P(.|x)`` (Fractions when exact), ``ratios`` the exact
    ``e^loss`` (exact mode; None in float mode), and ``infinite_mass`` the probability of
    ``+∞``. ``probabilities`` and ``infinite_mass`` sum to 1.
    """

    x: Value
    x_prime: Value
    losses: tuple[float, ...]
    probabilities: tuple[Any, ...]
    ratios: tuple[Any, ...] | None
    infinite_mass: float | Fraction
    compose: int
    exact: bool

    def delta(self, epsilon: float) -> float:
        """``δ(ε) = P(L = ∞) + E[max(0, 1 − e^{ε − L})]`` for this pair in this direction (a float)."""
        total = float(self.infinite_mass)
        for loss, p in zip(self.losses, self.probabilities):
            if loss > epsilon:
                total += float(p) * -math.expm1(epsilon - loss)
        return total

    @property
    def witness(self) -> PairWitness:
        return PairWitness(self.x, self.x_prime)


def privacy_loss_distribution(
    prog: Program | Compiled,
    x: Value,
    x_prime: Value,
    *,
    compose: int = 1,
    I: Any = None,
    backend: str = "bdd",
    exact: Any = None,
) -> PrivacyLoss:
    """The exact privacy-loss distribution of ``(x, x')`` (of ``compose`` runs on that pair).

    ``I`` as for explicit pairs in :func:`wmcdp.plan.pairs.pair_source` (None: the compiled
    program's whole output distributions).
    """
    k = compose_count(compose)
    source = pair_source(prog, PairSet.of([(x, x_prime)], both_orders=False), I, backend=backend, exact=exact)
    ((_, a, b),) = list(source.rows([0]))
    groups = power(Groups.of(source.arith, a, b), k)
    witness = source.witness(0)
    arith = groups.arith
    items = []
    infinite: Any = Fraction(0) if arith.exact else 0.0
    for r, ma, mb in zip(groups.ratios, groups.a, groups.b):
        if arith.exact:
            p = Fraction(ma, arith.denominator)
            if r is None:
                infinite += p
            else:
                items.append((ln_ratio(int(r.numerator), int(r.denominator)), p, Fraction(r)))
        elif mb == -np.inf:
            infinite += math.exp(ma)
        else:
            items.append((float(r), math.exp(ma), None))  # type: ignore[arg-type]
    items.sort(key=lambda t: t[0])
    return PrivacyLoss(
        witness.x,
        witness.x_prime,
        tuple(t[0] for t in items),
        tuple(t[1] for t in items),
        tuple(t[2] for t in items) if arith.exact else None,
        infinite,
        k,
        bool(arith.exact),
    )


__all__ = [
    "PrivacyLoss",
    "privacy_loss_distribution",
    "Groups",
    "power",
    "composed_pairs",
    "compose_count",
    "MAX_GROUPS",
    "hockey_curves",
    "TooManyLosses",
]
