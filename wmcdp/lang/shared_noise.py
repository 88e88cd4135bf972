"""An author's account of a shared-noise program's law: a sparse vector's noisy threshold, or a noisy maximum.

A program of the sparse vector family (Lyu, Su, Li 2017, Alg. 1 and its variants) may declare the law it computes,
as :attr:`wmcdp.lang.Program.shared_noise` (a :class:`SharedThreshold`): a threshold ``t = T + ρ`` with two-sided
geometric ``ρ`` of ratio ``threshold_ratio``; entry ``i`` answers TRUE when ``x_i + ν_i >= t`` (``ν_i`` two-sided
geometric of ratio ``query_ratio``, drawn for the entry alone), else FALSE; after ``bound`` TRUE answers every entry
is STOPPED and reads nothing. With ``report`` each answer is ``(code, value)``: the value is 0 but on TRUE, where
it is the gap ``x_i + ν_i - t`` (``"gap"``) or a fresh release ``x_i + ν'_i`` (``"fresh"``, ratio
``release_ratio``, its tails merged below ``lo`` and above ``hi``, the entries' range:
:func:`~wmcdp.lang.unbounded.released_geometric`). Given ``t``, the entries are independent:

    P(y | x) = sum_t P(T + ρ = t) * prod_(entries read) P(y_i | x_i, t).

Report noisy max (:class:`SharedMax`) outputs the index ``k`` of the largest noisy answer ``x_i + ν_i``, the
lowest index on ties; given the winner's noisy value ``v`` the others are independent:

    P(k | x) = sum_v P(x_k + ν_k = v) * prod_(i < k) P(x_i + ν_i < v) * prod_(i > k) P(x_i + ν_i <= v);

one that outputs the largest noisy answer itself has ``P(v | x) = prod_i P(x_i + ν_i <= v) - prod_i
P(x_i + ν_i < v)``.

Adaptive sparse vector (:class:`AdaptiveThreshold`; Ding et al. 2019, Alg. 3) draws two noisy answers per entry:
TOP when ``x_i + ν_i - t >= cut`` (the gap, or the noisy answer itself, released), else TRUE when
``x_i + ν'_i >= t`` (its gap released), else FALSE; a TOP costs ``top_cost``, a TRUE ``low_cost``, from ``start``,
and every entry read once the spending exceeds ``limit`` is STOPPED.

Each is a claim, like :attr:`~wmcdp.lang.Program.outputs`: :func:`windowed_law` gives its law with every draw
conditioned on a window of half-width ``W`` around its center, which a checker compares, exactly, with the
program's own compiled in the same windows (:mod:`wmcdp.notions.alignment`) before it is used.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

#: the reports a declared sparse vector may make with a TRUE answer
REPORTS = (None, "gap", "fresh")


@dataclass(frozen=True)
class SharedThreshold:
    """A declared sparse vector's law (module docstring); ``codes`` are its FALSE, TRUE and STOPPED, and
    ``lo .. hi`` the entries' values."""

    threshold: int
    threshold_ratio: Fraction
    query_ratio: Fraction
    bound: int | None
    report: str | None
    release_ratio: Fraction | None
    codes: tuple[int, int, int]
    lo: int
    hi: int

    def __post_init__(self) -> None:
        if self.report not in REPORTS or (self.report == "fresh") != (self.release_ratio is not None):
            raise ValueError(f"a shared threshold's report is one of {REPORTS}, a release ratio with 'fresh' only")


@dataclass(frozen=True)
class SharedMax:
    """A declared report noisy max (module docstring): noise of ratio ``query_ratio`` on answers in ``lo .. hi``;
    ``report`` ``"index"`` outputs the winner's index, ``"value"`` the largest noisy answer itself."""

    query_ratio: Fraction
    lo: int
    hi: int
    report: str = "index"


@dataclass(frozen=True)
class AdaptiveThreshold:
    """A declared adaptive sparse vector (module docstring): the threshold ``T + ρ`` (ratio ``threshold_ratio``),
    the top answer's noise ``top_ratio`` and the lower one's ``low_ratio``; ``top_report`` is ``"gap"`` or
    ``"value"``; ``codes`` are FALSE, TRUE, STOPPED and TOP, each answer ``(code, value)``."""

    threshold: int
    threshold_ratio: Fraction
    top_ratio: Fraction
    low_ratio: Fraction
    cut: int
    start: int
    limit: int
    top_cost: int
    low_cost: int
    top_report: str
    codes: tuple[int, int, int, int]
    lo: int
    hi: int


@dataclass(frozen=True)
class Moves:
    """One direction of a relation: each moved entry's ``u - v`` is one of ``deltas``; ``one`` when a pair moves
    one entry only (the others ``u = v``)."""

    name: str
    deltas: tuple[int, ...]
    one: bool


def directions(relation: str, model: SharedThreshold | SharedMax | AdaptiveThreshold) -> tuple[Moves, ...] | None:
    """The directions of a built-in relation, or None (one an alignment is not made for)."""
    width = model.hi - model.lo
    return {
        "all-entries": (Moves("all-entries", (-1, 0, 1), False),),
        "monotone": (Moves("up", (-1, 0), False), Moves("down", (0, 1), False)),
        "one-entry": (Moves("one-entry", (-1, 1), True),),
        "hamming": (Moves("hamming", tuple(d for d in range(-width, width + 1) if d), True),),
    }.get(relation)


def pmf(a: Fraction, z: int) -> Fraction:
    """``P(Z = z) = (1 - a)/(1 + a) a^|z|``, the two-sided geometric law of ratio ``a``."""
    return (1 - a) / (1 + a) * a ** abs(z)


def at_least(a: Fraction, k: int) -> Fraction:
    """``P(Z >= k)``: ``a^k / (1 + a)`` for ``k >= 1``, ``1 - a^(1 - k) / (1 + a)`` for ``k <= 0``."""
    return a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)


def released(a: Fraction, center: int, lo: int, hi: int) -> dict[int, Fraction]:
    """The law of ``center + Z`` with its tails merged into ``lo - 1`` and ``hi + 1``."""
    law = {z: pmf(a, z - center) for z in range(lo, hi + 1)}
    law[lo - 1] = at_least(a, center - lo + 1)
    law[hi + 1] = at_least(a, hi + 1 - center)
    return law


def _conditioned(a: Fraction, W: int) -> dict[int, Fraction]:
    """``P(Z = z | |Z| <= W)``."""
    inside = sum(pmf(a, z) for z in range(-W, W + 1))
    return {z: pmf(a, z) / inside for z in range(-W, W + 1)}


def windowed_law(
    model: SharedThreshold | SharedMax | AdaptiveThreshold, x: tuple[int, ...], W: int
) -> dict[object, Fraction]:
    """The output law of ``model`` on ``x`` with the threshold's and the answers' noise conditioned on
    ``|ρ| <= W`` and ``|ν_i| <= W`` (a fresh release keeps its merged tails), by enumerating every value."""
    if isinstance(model, AdaptiveThreshold):
        return _adaptive_law(model, x, W)
    law: dict[object, Fraction] = {}
    query = _conditioned(model.query_ratio, W)
    if isinstance(model, SharedMax):
        for noise in itertools.product(query.items(), repeat=len(x)):
            values = [q + nu for q, (nu, _) in zip(x, noise)]
            out: object = values.index(max(values)) if model.report == "index" else max(values)  # lowest on ties
            p = Fraction(1)
            for _, w in noise:
                p *= w
            law[out] = law.get(out, Fraction(0)) + p
        return law
    false, true, stopped = model.codes
    for rho, w in _conditioned(model.threshold_ratio, W).items():
        t = model.threshold + rho
        for out, p in _answers(model, x, t, query, false, true, stopped):
            law[out] = law.get(out, Fraction(0)) + w * p
    return law


def _answers(
    model: SharedThreshold, x: tuple[int, ...], t: int, query: dict[int, Fraction], false: int, true: int, stopped: int
) -> Iterator[tuple[object, Fraction]]:
    """Every output of the entries given the threshold ``t``, with its probability."""
    states: list[tuple[tuple[object, ...], Fraction, int]] = [((), Fraction(1), 0)]
    for q in x:
        nxt = []
        for out, p, count in states:
            if model.bound is not None and count >= model.bound:
                nxt.append(((*out, stopped if model.report is None else (stopped, 0)), p, count))
                continue
            for nu, w in query.items():
                v = q + nu
                if v < t:
                    nxt.append(((*out, false if model.report is None else (false, 0)), p * w, count))
                elif model.report is None:
                    nxt.append(((*out, true), p * w, count + 1))
                elif model.report == "gap":
                    nxt.append(((*out, (true, v - t)), p * w, count + 1))
                else:
                    assert model.release_ratio is not None
                    for z, r in released(model.release_ratio, q, model.lo, model.hi).items():
                        nxt.append(((*out, (true, z)), p * w * r, count + 1))
        states = _merged(nxt)
    for out, p, _ in states:
        yield out, p


def _merged(states: list[tuple[tuple[object, ...], Fraction, int]]) -> list[tuple[tuple[object, ...], Fraction, int]]:
    """Equal partial outputs added up."""
    acc: dict[tuple[tuple[object, ...], int], Fraction] = {}
    for out, p, count in states:
        acc[(out, count)] = acc.get((out, count), Fraction(0)) + p
    return [(out, p, count) for (out, count), p in acc.items()]


def _adaptive_law(model: AdaptiveThreshold, x: tuple[int, ...], W: int) -> dict[object, Fraction]:
    """:func:`windowed_law` of an adaptive sparse vector."""
    false, true, stopped, top = model.codes
    law: dict[object, Fraction] = {}
    upper, lower = _conditioned(model.top_ratio, W), _conditioned(model.low_ratio, W)
    for rho, w in _conditioned(model.threshold_ratio, W).items():
        t = model.threshold + rho
        states: dict[tuple[tuple[object, ...], int], Fraction] = {((), model.start): w}
        for q in x:
            nxt: dict[tuple[tuple[object, ...], int], Fraction] = {}
            for (out, spent), p in states.items():
                if spent > model.limit:
                    moves = [((stopped, 0), spent, p)]
                else:
                    moves = []
                    for nu, wu in upper.items():
                        for mu, wl in lower.items():
                            if q + nu - t >= model.cut:
                                value = q + nu - t if model.top_report == "gap" else q + nu
                                moves.append(((top, value), spent + model.top_cost, p * wu * wl))
                            elif q + mu >= t:
                                moves.append(((true, q + mu - t), spent + model.low_cost, p * wu * wl))
                            else:
                                moves.append(((false, 0), spent, p * wu * wl))
                for answer, after, pr in moves:
                    key = ((*out, answer), after)
                    nxt[key] = nxt.get(key, Fraction(0)) + pr
            states = nxt
        for (out, _), p in states.items():
            law[out] = law.get(out, Fraction(0)) + p
    return law


def inputs(model: SharedThreshold | SharedMax | AdaptiveThreshold, n: int) -> Iterator[tuple[int, ...]]:
    """Every input of ``n`` entries."""
    return itertools.product(range(model.lo, model.hi + 1), repeat=n)


__all__ = [
    "REPORTS",
    "AdaptiveThreshold",
    "Moves",
    "SharedMax",
    "SharedThreshold",
    "at_least",
    "directions",
    "inputs",
    "pmf",
    "released",
    "windowed_law",
]
