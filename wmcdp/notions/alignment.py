"""Bounds of ε for every n of a sparse vector: an alignment of its shared threshold, checked per entry type.

A program that declares its law as a shared noisy threshold (:class:`~wmcdp.lang.shared_noise.SharedThreshold`)
has, for every output ``y`` and inputs ``x``, ``x'``,

    P(y | x) = sum_t P(T + ρ = t) prod_(i read) f(y_i | x_i, t).

Shift the threshold by ``s`` on the ``x'`` side (``t -> t + s``, a bijection of Z). If ``P(ρ) <= A P(ρ + s)`` and
``f(y_i | u, t) <= c_i f(y_i | v, t + s)`` for every ``t`` in Z and every entry's pair ``(u, v)``, then
``P(y | x) <= A prod_i c_i P(y | x')`` (Lyu, Su, Li 2017; the randomness alignments of LightDP and ShadowDP, here
taken per hub value rather than per noise value). With ``a`` each noise's ratio, ``d = s + u - v`` and the
two-sided geometric law's survival function ``G(k) = P(ν >= k)``, the per-type ratios and their suprema over
``t`` are, by the log-concavity of the two-sided geometric law (its survival and distribution functions are
log-concave, so their ratios at a fixed offset are monotone in ``t`` and the supremum is the limit in a tail):

- the threshold: ``P(ρ) / P(ρ + s) <= a_t^-|s|``, attained;
- FALSE, ``(1 - G(k)) / (1 - G(k + d))`` with ``k = t - u``: at most 1 when ``d >= 0`` (approached as ``t -> ∞``),
  else ``a_q^d``;
- TRUE, ``G(k) / G(k + d)``: ``a_q^-d`` when ``d >= 0`` (attained for ``k >= 1``), else at most 1;
- a TRUE answer's gap ``g = x_i + ν_i - t``: ``P(ν = g + k) / P(ν = g + k + d) <= a_q^-|d|``, attained;
- a fresh release: ``a_r^-|u - v|``, attained (its merged tails too);
- STOPPED reads nothing: 1.

Under a relation whose pairs move any number of entries (``all-entries``, ``monotone``: each direction apart) every
FALSE entry's supremum must be 1 — else no bound is uniform in n — and at most ``N`` entries answer TRUE, so
``e^ε(n) <= a_t^-|s| (max_δ c_TRUE(s + δ))^N`` for every n, the shift ``s`` chosen to make it least; under one that
moves one entry (``one-entry``, ``hamming``) the unmoved entries pay ``c(s)`` and the moved one its largest extra.
Report noisy max (:class:`~wmcdp.lang.shared_noise.SharedMax`) is aligned alike with the winner's noisy value as the
hub: the winner pays ``a_q^-|s + u - v|`` (its own answer's law), every other answer the FALSE answer's supremum,
which must be 1 (:func:`_align_max`). The bound is exact (a rational in the ratios) and its certificate — the shift
and every type's supremum per move — is re-verified by :func:`check_alignment` from the closed forms alone, on a
range of ``t`` wide enough for the tails to have settled, and against every computed size's lower end of ε. The
declared law is a claim: before use it must equal the program's own law, exactly, with every draw in a window of
half-width :data:`CHECKED_HALF_WIDTH` on every input of :data:`CHECKED_SIZES` entries (:func:`model_problems`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..base.certified import weights_at
from ..base.errors import WmcdpError
from ..compile import compile_program
from ..count.probabilities import inference
from ..lang.program import Program
from ..lang.shared_noise import (
    AdaptiveThreshold,
    Moves,
    SharedMax,
    SharedThreshold,
    at_least,
    directions,
    inputs,
    pmf,
    released,
    windowed_law,
)
from ..lang.unbounded import window

#: a declared law of shared noise
Shared = SharedThreshold | SharedMax | AdaptiveThreshold

#: the half-width of the windows and the sizes at which a declared law is compared with the program's
CHECKED_HALF_WIDTH = 2
CHECKED_SIZES = (1, 2, 3)
#: the threshold shifts tried
SHIFTS = range(-4, 5)
#: how close to its supremum a tail's ratio must come on the checked range of t (relative)
SETTLED = Fraction(1, 10**9)


@dataclass(frozen=True)
class Aligned:
    """One direction's alignment: the threshold ``shift``, the bound ``ratio`` of ``e^ε(n)`` for every n, and the
    per-type suprema it was made from, ``(type, u - v, supremum)``."""

    moves: Moves
    shift: int
    ratio: Fraction
    suprema: tuple[tuple[str, int, Fraction], ...]


@dataclass(frozen=True)
class Alignment:
    """``e^ε(n) <= ratio`` for every n (the largest of the directions'), with its ``text`` and ``proof``."""

    directions: tuple[Aligned, ...]
    ratio: Fraction
    text: str
    proof: tuple[tuple[str, str], ...]

    @property
    def epsilon(self) -> float:
        return math.log(self.ratio)


def _true(model: SharedThreshold, d: int, delta: int) -> Fraction:
    """The supremum over t of a TRUE answer's ratio (its report's too), at offset ``d`` and move ``delta``."""
    a = model.query_ratio
    code = a ** -abs(d) if model.report == "gap" else a ** -max(0, d)
    if model.report == "fresh":
        assert model.release_ratio is not None
        code *= model.release_ratio ** -abs(delta)
    return code


def _false(model: SharedThreshold, d: int) -> Fraction:
    """The supremum over t of a FALSE answer's ratio at offset ``d``."""
    return model.query_ratio ** -max(0, -d)


def align(model: Shared, moves: Moves) -> Aligned | None:
    """The least bound over the shifts of :data:`SHIFTS` for one direction, or None when none is uniform in n."""
    if isinstance(model, SharedMax):
        return _align_max(model, moves)
    if isinstance(model, AdaptiveThreshold):
        return _align_adaptive(model, moves)
    best: Aligned | None = None
    for s in SHIFTS:
        hub = model.threshold_ratio ** -abs(s)
        false = {delta: _false(model, s + delta) for delta in moves.deltas}
        true = {delta: _true(model, s + delta, delta) for delta in moves.deltas}
        if moves.one:
            if _false(model, s) != 1:
                continue
            c0 = _true(model, s, 0)
            extra = max([Fraction(1), *false.values(), *(t / c0 for t in true.values())])
            if model.bound is None and c0 != 1:
                continue
            ratio = hub * extra * (c0**model.bound if model.bound is not None else 1)
        else:
            if any(f != 1 for f in false.values()):
                continue
            top = max(true.values())
            if model.bound is None and top != 1:
                continue
            ratio = hub * (top**model.bound if model.bound is not None else 1)
        if best is None or ratio < best.ratio:
            suprema = (
                ("threshold", s, hub),
                *(("FALSE", delta, f) for delta, f in false.items()),
                *(("TRUE", delta, t) for delta, t in true.items()),
            )
            best = Aligned(moves, s, ratio, suprema)
    return best


def _align_max(model: SharedMax, moves: Moves) -> Aligned | None:
    """Report noisy max: the winner's noisy value is the hub, shifted by ``s`` on the ``x'`` side. The winner pays
    ``P(ν = z) / P(ν = z + d) <= a^-|d|`` (it reads its own answer), every other answer the FALSE answer's
    supremum (``< v`` or ``<= v``: the same offsets)."""
    best: Aligned | None = None
    for s in SHIFTS if model.report == "index" else (0,):  # a released maximum is the hub itself: no shift
        winner = {delta: model.query_ratio ** -abs(s + delta) for delta in moves.deltas}
        other = {delta: model.query_ratio ** -max(0, -(s + delta)) for delta in moves.deltas}
        if moves.one:
            if s < 0:
                continue
            ratio = max([*winner.values(), *(model.query_ratio**-s * o for o in other.values())])
        else:
            if any(o != 1 for o in other.values()):
                continue
            ratio = max(winner.values())
        if best is None or ratio < best.ratio:
            suprema = (*(("winner", d, w) for d, w in winner.items()), *(("other", d, o) for d, o in other.items()))
            best = Aligned(moves, s, ratio, suprema)
    return best


def _adaptive_costs(model: AdaptiveThreshold, s: int, delta: int) -> dict[str, Fraction]:
    """Each answer type's supremum over t of an adaptive sparse vector, the threshold shifted by ``s``, the entry
    moved by ``delta`` (``d = s + delta``): FALSE pays both comparisons' distribution-function ratios, TRUE the
    top comparison's and the lower gap's law, TOP its gap's law (its released answer's, which needs ``s <= 0``:
    a shift up makes ``z - t >= cut`` hold on one side only)."""
    d, top, low = s + delta, model.top_ratio, model.low_ratio
    below = top ** -max(0, -d)
    out = {"FALSE": below * low ** -max(0, -d), "TRUE": below * low ** -abs(d)}
    if model.top_report == "gap":
        out["TOP"] = top ** -abs(d)
    elif s <= 0:
        out["TOP"] = top ** -abs(delta)
    return out


def _spendings(model: AdaptiveThreshold, tops: Fraction, trues: Fraction) -> Fraction | None:
    """The largest product ``tops^k1 trues^k2`` over the counts of TOP and TRUE answers the budget lets through:
    each is read while the spending is at most ``limit``, so the spending before the last paying answer is; None
    when a free code makes the count unbounded and its cost is above 1."""
    if (model.top_cost <= 0 and tops != 1) or (model.low_cost <= 0 and trues != 1):
        return None
    room = model.limit - model.start
    best = Fraction(1)
    most = room + max(model.top_cost, model.low_cost)
    for k1 in range(most // max(model.top_cost, 1) + 1 if model.top_cost > 0 else 1):
        for k2 in range(most // max(model.low_cost, 1) + 1 if model.low_cost > 0 else 1):
            paid = [c for c, k in ((model.top_cost, k1), (model.low_cost, k2)) if k]
            if not paid or model.top_cost * k1 + model.low_cost * k2 - max(paid) <= room:
                best = max(best, tops**k1 * trues**k2)
    return best


def _align_adaptive(model: AdaptiveThreshold, moves: Moves) -> Aligned | None:
    """An adaptive sparse vector: the threshold shifted by ``s``; every FALSE answer free, the TOP and TRUE answers
    as many as the budget lets through (:func:`_spendings`). All-entries and monotone moves only."""
    if moves.one:
        return None
    best: Aligned | None = None
    for s in SHIFTS:
        costs = {delta: _adaptive_costs(model, s, delta) for delta in moves.deltas}
        if any("TOP" not in c or c["FALSE"] != 1 for c in costs.values()):
            continue
        tops, trues = max(c["TOP"] for c in costs.values()), max(c["TRUE"] for c in costs.values())
        spent = _spendings(model, tops, trues)
        if spent is None:
            continue
        ratio = model.threshold_ratio ** -abs(s) * spent
        if best is None or ratio < best.ratio:
            suprema = (
                ("threshold", s, model.threshold_ratio ** -abs(s)),
                *((kind, delta, c[kind]) for delta, c in costs.items() for kind in ("FALSE", "TRUE", "TOP")),
            )
            best = Aligned(moves, s, ratio, suprema)
    return best


def find_alignment(
    family: Callable[..., Program], params: dict[str, Any], relation: str, lowers: Sequence[float]
) -> tuple[Alignment | None, str | None]:
    """The alignment bound of ``family`` (its declared law checked first), or None and why there is none;
    ``lowers`` are the computed sizes' lower ends of ε, which the bound must not be below."""
    model = family(n=1, **params).shared_noise
    if not isinstance(model, (SharedThreshold, SharedMax, AdaptiveThreshold)):
        return None, "the program declares no shared noise (a threshold or a noisy maximum)"
    moves = directions(relation, model)
    if moves is None:
        return None, f"no alignment is made under the relation {relation!r}"
    found = [align(model, m) for m in moves]  # from the declared law alone: cheap, so before the law is checked
    missing = [m.name for m, a in zip(moves, found) if a is None]
    if missing:
        return None, (
            "no shift makes every answer free, and TRUE answers are not bounded in number"
            if isinstance(model, SharedThreshold) and model.bound is None
            else f"no shift of the shared noise makes every FALSE answer free ({', '.join(missing)})"
        )
    problems = model_problems(family, params)
    if problems:
        return None, problems[0]
    aligned = tuple(a for a in found if a is not None)
    ratio = max(a.ratio for a in aligned)
    out = Alignment(aligned, ratio, _text(aligned, ratio), _proof(aligned, model))
    problems = check_alignment(out, model, lowers)
    return (None, problems[0]) if problems else (out, None)


def _text(aligned: tuple[Aligned, ...], ratio: Fraction) -> str:
    hub = "winner" if aligned[0].suprema[0][0] == "winner" else "threshold"
    shifts = ", ".join(f"{a.moves.name}: {hub} + {a.shift}" for a in aligned)
    return f"e^eps(n) <= {ratio} for every n (eps <= {math.log(ratio):.10g}; alignment {shifts})"


def _proof(aligned: tuple[Aligned, ...], model: Shared) -> tuple[tuple[str, str], ...]:
    sizes = ", ".join(map(str, CHECKED_SIZES))
    per = "; ".join(
        f"{a.moves.name}: " + ", ".join(f"{kind}({d}) {sup}" for kind, d, sup in a.suprema) for a in aligned
    )
    return (
        (
            "the program's law is the declared shared threshold",
            f"equal, exactly, on every input and output at n = {sizes} with every draw in windows of half-width "
            f"{CHECKED_HALF_WIDTH}",
        ),
        (
            "P(y | x) <= A prod_i c_i P(y | x') for every n",
            _counted(model),
        ),
        ("each type's supremum over t", f"closed forms, by log-concavity, checked on a range of t ({per})"),
        ("at least every computed size's eps", "the bound is at least each computed size's lower end"),
    )


def _counted(model: Shared) -> str:
    """How the answers that pay are counted, in words."""
    if isinstance(model, SharedMax):
        return "the winner's noisy value shifted on the x' side, per value; one winner, every other answer free"
    if isinstance(model, AdaptiveThreshold):
        return (
            "the threshold shifted on the x' side, per threshold value; TOP and TRUE answers as many as the budget "
            f"lets through (from {model.start}, costs {model.top_cost} and {model.low_cost}, up to {model.limit}), "
            "every FALSE one free"
        )
    return (
        "the threshold shifted on the x' side, per threshold value; TRUE answers at most N = "
        f"{model.bound if model.bound is not None else 'inf'}, every FALSE one free"
    )


def model_problems(family: Callable[..., Program], params: dict[str, Any]) -> list[str]:
    """Where ``family``'s law differs from its declared shared threshold in windows (module docstring)."""
    for n in CHECKED_SIZES:
        program = family(n=n, **params)
        model = program.shared_noise
        try:
            with window(CHECKED_HALF_WIDTH), weights_at(128):
                compiled = compile_program(program, exact_floats=True)
            for x in inputs(model, n):
                law = windowed_law(model, x, CHECKED_HALF_WIDTH)
                table = inference(compiled, [(x, y) for y in law], exact=True)
                for y, p in law.items():
                    if Fraction(table.probability(x, y)) != p:
                        return [f"the declared law differs from the program's at n = {n}: P({y} | {x})"]
        except WmcdpError as exc:
            return [f"the declared law could not be compared with the program's at n = {n}: {exc}"]
    return []


def _range(a: Fraction) -> range:
    """Offsets wide enough for a tail of ratio ``a`` to settle within :data:`SETTLED`."""
    k = math.ceil(math.log(float(SETTLED)) / math.log(float(a))) + 2
    return range(-k, k + 1)


def _ratios(model: Shared, kind: str, d: int, delta: int, shift: int) -> Iterable[Fraction]:
    """The type's ratio at every offset of the checked range, from the closed forms."""
    if isinstance(model, AdaptiveThreshold):
        return _adaptive_ratios(model, kind, d, delta, shift)
    a = model.query_ratio
    if kind == "winner":
        return (pmf(a, k) / pmf(a, k + d) for k in _range(a))
    if kind == "other":
        return ((1 - at_least(a, k)) / (1 - at_least(a, k + d)) for k in _range(a))
    assert isinstance(model, SharedThreshold)
    if kind == "threshold":
        return (
            pmf(model.threshold_ratio, r) / pmf(model.threshold_ratio, r + shift) for r in _range(model.threshold_ratio)
        )
    if kind == "FALSE":
        return ((1 - at_least(a, k)) / (1 - at_least(a, k + d)) for k in _range(a))
    if model.report == "gap":
        code = [pmf(a, k) / pmf(a, k + d) for k in _range(a)]
    else:
        code = [at_least(a, k) / at_least(a, k + d) for k in _range(a)]
    if model.report != "fresh":
        return code
    assert model.release_ratio is not None
    u, v = model.lo + max(0, delta), model.lo + max(0, -delta)  # two centers with u - v = delta
    p, q = released(model.release_ratio, u, model.lo, model.hi), released(model.release_ratio, v, model.lo, model.hi)
    rel = max(p[z] / q[z] for z in p)
    return (c * rel for c in code)


def _below(a: Fraction, k: int, d: int) -> Fraction:
    """``P(ν < k) / P(ν < k + d)``."""
    return (1 - at_least(a, k)) / (1 - at_least(a, k + d))


def _adaptive_ratios(model: AdaptiveThreshold, kind: str, d: int, delta: int, shift: int) -> list[Fraction]:
    """An adaptive sparse vector's type ratios on the checked range (the TRUE answer's two factors read different
    noise, so its supremum is the product of theirs; FALSE's at one and the same t)."""
    top, low = model.top_ratio, model.low_ratio
    if kind == "threshold":
        a = model.threshold_ratio
        return [pmf(a, r) / pmf(a, r + shift) for r in _range(a)]
    if kind == "FALSE":
        return [_below(top, k + model.cut, d) * _below(low, k, d) for k in _range(max(top, low))]
    if kind == "TRUE":
        gap = max(pmf(low, k) / pmf(low, k + d) for k in _range(low))
        return [_below(top, k, d) * gap for k in _range(top)]
    if model.top_report == "gap":
        return [pmf(top, k) / pmf(top, k + d) for k in _range(top)]
    return [pmf(top, k) / pmf(top, k + delta) for k in _range(top)]


def check_alignment(result: Alignment, model: Shared, lowers: Sequence[float]) -> list[str]:
    """The problems of ``result`` (an empty list: verified): each direction's bound recomputed from its shift and
    suprema, each supremum against the type's ratios on a range of t (never above it, and within
    :data:`SETTLED` of it at the range's end or attained), and the bound at least every computed lower end."""
    problems = []
    for a in result.directions:
        redone = align(model, a.moves)
        if redone is None or (redone.shift, redone.ratio, redone.suprema) != (a.shift, a.ratio, a.suprema):
            problems.append(f"{a.moves.name}: the shift {a.shift} and bound {a.ratio} are not the least alignment")
        for kind, delta, sup in a.suprema:
            d = a.shift + delta if kind != "threshold" else a.shift
            values = list(_ratios(model, kind, d, delta, a.shift))
            top = max(values)
            if top > sup or sup - top > sup * SETTLED:
                problems.append(f"{a.moves.name}: {kind}({delta}) reaches {float(top)!r}, not its supremum {sup}")
    if result.ratio != max((a.ratio for a in result.directions), default=Fraction(0)):
        problems.append("the bound is not the largest direction's")
    for lo in lowers:
        if lo > result.epsilon and not math.isclose(lo, result.epsilon, rel_tol=1e-9):
            problems.append(f"a computed size's eps, {lo!r}, exceeds the bound {result.epsilon!r}")
    return problems


__all__ = ["Aligned", "Alignment", "Moves", "align", "check_alignment", "directions", "find_alignment"]
