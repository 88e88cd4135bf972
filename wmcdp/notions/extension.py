"""Lower bounds of ε at every input size from outputs that extend: the size-n output is how the size-(n + 1) one begins.

Say ``family(n + 1)``'s first ``k`` output components are traced to the gates of ``family(n)``'s output —
gate for gate, over the same variables (input bits of the same entries, random bits of the same weights) — and
its output shape begins with ``family(n)``'s (:func:`extends`). Then whatever
entry ``n + 1`` holds, the event "the output begins with ``y``" has at size ``n + 1`` the probability
``P_n(y | x)`` it has at size ``n`` (the other random bits sum out: every bit's two weights add up to one). Under
a relation that is a condition on each entry's pair, or monotone (:data:`PADDED`), a neighbour pair ``(x, x')``
of size ``n`` padded with one equal entry is a neighbour pair of size ``n + 1``. Pure ε is a maximum over outputs,
and a ratio of two sums is at most the largest ratio of their terms, so some output in the event has a ratio at
least ``P_n(y | x) / P_n(y | x')``:

    ε(n + 1) >= ε(n),    and ε(n) = ∞ at one size gives ε = ∞ at every larger one.

ε is non-decreasing from the first size ``n0`` at which every computed size extends the one before, so each
size's certified lower end (the exact ε, or a windowed bracket's lower end) bounds every larger size. The
witness family is an event: ``x_n`` and ``x'_n`` are the witness pair of size ``m`` padded with the domain's
lowest value, and ``E_n`` is "the output begins with ``y_m``"; at every computed size past ``m`` the pair is
checked to be a neighbour pair and the event's ratio recounted on the whole program (:func:`check_extension`).
That every larger size extends the one before is taken from the sizes compared, as a chain's repeating block is
(:mod:`.every_n`); a program with noise on all of the integers is traced in windows of half-width
:data:`TRACED_HALF_WIDTH`, and its other windows are taken to extend alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base.certified import weights_at
from ..base.errors import WmcdpError
from ..base.maxtimes import Ratio
from ..lang.circuit import VAR
from ..lang.program import Program, Trace
from ..lang.relations import neighbour_relation
from ..lang.shape import TupleShape
from ..lang.unbounded import UnboundedDraw, window
from .privacy import synthesize_privacy

#: the built-in relations under which a neighbour pair padded with one equal entry is a neighbour pair
PADDED = ("hamming", "one-entry", "all-entries", "monotone")
#: the half-width of the windows a program with unbounded noise is traced in to compare its sizes
TRACED_HALF_WIDTH = 2
#: the weights' precision (bits) of that trace (the windowed runs' :data:`~.windowed.PRECISION`)
TRACED_PRECISION = 128


@dataclass(frozen=True)
class Lower:
    """One computed size's certified lower end of ε (``epsilon``, natural log; ``math.inf`` for ε = ∞), the
    witness ``(x, x', y)`` attaining it, and its exact ``ratio`` e^ε (None: the size was bracketed in windows)."""

    n: int
    epsilon: float
    witness: tuple[Any, Any, Any]
    ratio: Ratio | None = None


@dataclass(frozen=True)
class Extension:
    """ε is non-decreasing for every ``n >= start``: each of the ``sizes`` (consecutive, the last one computed)
    but the last extends to the next. ``lower`` holds each computed size's certified lower end from ``start`` on,
    ``text`` the statement, ``proof`` its ``(claim, how proved)`` pairs; :meth:`bound` is the lower bound at any
    ``n >= start``, and ``witness`` the size whose witness pair and output prefix give the best one."""

    start: int
    sizes: tuple[int, ...]
    lower: tuple[Lower, ...]
    pad: int
    text: str
    proof: tuple[tuple[str, str], ...]

    def bound(self, n: int) -> float:
        """The largest lower end of ε at a computed size from ``start`` up to ``n``: a lower bound of ε(n)."""
        if n < self.start:
            raise ValueError(f"the lower bound holds from n = {self.start} on, not at n = {n}")
        return max((low.epsilon for low in self.lower if low.n <= n), default=0.0)

    @property
    def witness(self) -> Lower:
        """The first computed size whose lower end is the largest (one with a witness)."""
        best = max(low.epsilon for low in self.lower if low.witness[0] is not None)
        return next(low for low in self.lower if low.epsilon == best and low.witness[0] is not None)

    def infinite_from(self) -> int | None:
        """The first size from which ε = ∞ at every larger size, or None."""
        return next((low.n for low in self.lower if low.epsilon == math.inf), None)


def traced(program: Program) -> Trace:
    """``program``'s trace; one with noise on all of the integers in windows of :data:`TRACED_HALF_WIDTH`."""
    try:
        return program.trace()
    except UnboundedDraw:
        with window(TRACED_HALF_WIDTH), weights_at(TRACED_PRECISION):
            return program.trace(exact_floats=True)


def extends(small: Trace, large: Trace) -> str | None:
    """None when ``large``'s output begins with ``small``'s, traced to the same gates over the same variables
    (module docstring); else why not, in words."""
    if not (isinstance(small.shape, TupleShape) and isinstance(large.shape, TupleShape)):
        return "the output is not a tuple of components"
    k = len(small.shape.parts)
    if large.shape.parts[:k] != small.shape.parts:
        return f"the first {k} output components do not have the same values at both sizes"
    roots = small.output_roots
    table: dict[tuple[Any, ...], int] = {}
    want = _keys(small, roots, table)
    got = _keys(large, large.output_roots[: len(roots)], table)
    for j, (u, v) in enumerate(zip(want, got)):
        if u != v:
            return f"output bit {j} is not the same function of the same variables at both sizes"
    return None


def _keys(trace: Trace, roots: Sequence[int], table: dict[tuple[Any, ...], int]) -> list[int]:
    """Each root's structural key in ``table`` (shared by the traces compared): equal keys are the same gates, up
    to the order of an AND's, OR's or XOR's two inputs, over the same variables — a variable by its id, with the
    entry and bit it reads (an input bit) or its two weights (a random bit). Gates are made after their inputs, so
    one pass in node order keys every node of the roots' cone."""
    gates, circuit = trace.circuit.gates, trace.circuit
    entry = {v: (i, j) for i, vs in trace.input_bits.items() for j, v in enumerate(vs)}
    cone, todo = set(), list(roots)
    while todo:
        node = todo.pop()
        if node not in cone:
            cone.add(node)
            gate = gates[node]
            if gate[0] != VAR:
                todo.extend(c for c in gate[1:] if type(c) is int)
    key: dict[int, int] = {}
    for node in sorted(cone):
        gate = gates[node]
        if gate[0] == VAR:
            v = gate[1]
            weight = circuit.weights.get(v)
            form: tuple[Any, ...] = (VAR, v, entry.get(v), None if weight is None else (weight.one, weight.zero))
        elif gate[0] == "const":
            form = gate
        else:
            form = (gate[0], *sorted(key[c] for c in gate[1:]))
        key[node] = table.setdefault(form, len(table))
    return [key[r] for r in roots]


def padded(x: Sequence[int], n: int, pad: int) -> tuple[int, ...]:
    """``x`` padded with ``pad`` to length ``n``."""
    return tuple(x) + (pad,) * (n - len(x))


def find_extension(
    family: Callable[..., Program], params: dict[str, Any], relation: str, lowers: Sequence[Lower]
) -> tuple[Extension | None, str | None]:
    """The extension statement of ``family`` from the computed sizes' lower ends (consecutive, ascending), or
    None and why there is none."""
    if relation not in PADDED:
        return None, f"padding a pair with an equal entry is not proved to keep it a neighbour pair under {relation!r}"
    if len(lowers) < 2:
        return None, "one size computed: no size to extend"
    if all(low.witness[0] is None for low in lowers):
        return None, "no size has a lower end of eps (each was refused)"
    programs = {low.n: family(n=low.n, **params) for low in lowers}
    pad = programs[lowers[0].n].inputs.entry_values[0]
    start, why = lowers[-1].n, ""
    last = traced(programs[start])
    for low in reversed(lowers[:-1]):
        small = programs[low.n]
        if small.inputs.entry_values != programs[low.n + 1].inputs.entry_values:
            why = f"the entries' values differ between n = {low.n} and n = {low.n + 1}"
            break
        this = traced(small)
        problem = extends(this, last)
        if problem is not None:
            why = f"n = {low.n + 1} does not extend n = {low.n}: {problem}"
            break
        start, last = low.n, this
    if start == lowers[-1].n:
        return None, why
    kept = tuple(low for low in lowers if low.n >= start)
    sizes = tuple(low.n for low in kept)
    return _stated(start, sizes, kept, pad, relation), None


def _stated(start: int, sizes: tuple[int, ...], lower: tuple[Lower, ...], pad: int, relation: str) -> Extension:
    """The extension statement with its sentence and proof."""
    probe = Extension(start, sizes, lower, pad, "", ())
    best, top = probe.witness, sizes[-1]
    forever = probe.infinite_from()
    if forever is not None:
        head = f"eps(n) = inf for every n >= {forever}"
    else:
        head = f"eps(n) is non-decreasing for n >= {start}; eps(n) >= {best.epsilon:.10g} for every n >= {best.n}"
    x, xp, y = best.witness
    text = f"{head}; witness x_n = {_seq(x)} [{pad}]*, x'_n = {_seq(xp)} [{pad}]*, the output beginning with {_seq(y)}"
    proof = (
        (
            "each size's output begins with the one before's",
            f"the first components of n + 1's output are n's gates over n's variables at n = "
            f"{', '.join(map(str, sizes[:-1]))} (compared on the traced circuits); larger sizes are taken to extend "
            "likewise",
        ),
        (
            "eps(n + 1) >= eps(n)",
            f"under {relation} a pair padded with one equal entry is a pair, and the event 'the output begins with "
            "y' keeps its probabilities; some output of the event has at least its ratio",
        ),
        (
            "the lower ends",
            f"each size's certified lower end of eps (n = {', '.join(map(str, sizes))}), up to n = {top}",
        ),
    )
    return replace(probe, text=text, proof=proof)


def _seq(v: Any) -> str:
    return " ".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)


def _prefix(program: Program, k: int) -> Program:
    """``program`` with its output cut to its first ``k`` components."""
    body = program.body

    def first(x: Any) -> object:
        out: Any = body(x)
        return tuple(out)[:k]

    return replace(program, body=first, outputs=None)


def check_extension(
    ext: Extension, lowers: Sequence[Lower], family: Callable[..., Program], params: dict[str, Any], relation: str
) -> list[str]:
    """The problems of ``ext`` (an empty list: it is verified): its sizes consecutive and computed, its lower ends
    the computed ones, each size traced again and extending the one before, and the witness pair padded to every
    next size a neighbour pair whose output-prefix event has the witness's ratio (recounted on the whole program of
    the next size: exactly with exact weights, its bracket reaching the lower end in windows)."""
    problems = []
    computed = {low.n: low for low in lowers}
    if relation not in PADDED:
        problems.append(f"the relation {relation!r} is not one a padded pair stays a pair under")
    sizes = list(ext.sizes)
    if len(sizes) < 2 or sizes != list(range(ext.start, ext.start + len(sizes))) or sizes[-1] != max(computed):
        problems.append(f"the sizes {sizes} are not consecutive from {ext.start} up to the last computed")
    if any(computed.get(low.n) != low for low in ext.lower) or [low.n for low in ext.lower] != sizes:
        problems.append("the lower ends are not the computed sizes'")
    for low in ext.lower:
        if low.ratio is not None and not _is_log(low.epsilon, low.ratio):
            problems.append(f"at n = {low.n} eps {low.epsilon!r} is not ln {low.ratio}")
    if problems:
        return problems
    programs = {n: family(n=n, **params) for n in sizes}
    for n in sizes[:-1]:
        problem = extends(traced(programs[n]), traced(programs[n + 1]))
        if problem is not None:
            problems.append(f"n = {n + 1} does not extend n = {n}: {problem}")
    rel = neighbour_relation(relation)
    for n in sizes[1:]:
        if problems:
            break
        low = computed[n - 1]
        problems += _recounted(low, programs[n], rel, ext.pad, relation)
    return problems


def _is_log(epsilon: float, ratio: Ratio) -> bool:
    """Whether ``epsilon`` is ``ln ratio`` (to a float's rounding)."""
    if ratio == math.inf or epsilon == math.inf:
        return ratio == epsilon
    return math.isclose(epsilon, math.log(ratio), rel_tol=1e-12, abs_tol=1e-300)


def _bears_out(r: Any, ratio: Ratio) -> bool:
    """Whether a recount ``r`` gives the exact ``ratio``: equal, or (unbounded noise, in windows) a certified bracket
    of ε that contains its log, to a float's rounding."""
    if r.interval is None:
        return bool(r.ratio == ratio)
    eps = math.inf if ratio == math.inf else math.log(ratio)
    slack = 1e-12 * max(1.0, abs(eps)) if eps != math.inf else 0.0
    return bool(r.interval.lo - slack <= eps <= r.interval.hi + slack)


def _recounted(low: Lower, program: Program, rel: Any, pad: int, relation: str) -> list[str]:
    """The problems of size ``low.n``'s witness padded to ``program``'s size: a neighbour pair whose event "the
    output begins with y" has ``low``'s exact ratio (in windows: a bracket that contains it, or for a bracketed size
    one that reaches ``low``'s lower end)."""
    x, xp, y = low.witness
    if x is None:  # a size refused for pure eps with no lower end: nothing to recount
        return []
    n = program.inputs.n
    pair = padded(x, n, pad), padded(xp, n, pad)
    if not rel.related(program.inputs, *pair):
        return [f"the witness pair of n = {low.n}, padded, is not a neighbour pair at n = {n}"]
    cut = _prefix(program, len(y) if isinstance(y, (tuple, list)) else 1)
    try:
        r = synthesize_privacy(cut, [(*pair, y)], [(pair[0], y), (pair[1], y)], neighbours=relation)
    except WmcdpError as exc:
        return [f"the witness event of n = {low.n} could not be recounted at n = {n}: {str(exc).splitlines()[0]}"]
    if low.ratio is not None and not _bears_out(r, low.ratio):
        return [f"at n = {n} the witness event of n = {low.n} has e^eps {r.ratio}, not {low.ratio}"]
    if low.ratio is None and (r.interval is None or r.interval.hi < low.epsilon):
        return [f"at n = {n} the witness event of n = {low.n} has eps below {low.epsilon!r}"]
    return []


__all__ = ["PADDED", "Extension", "Lower", "check_extension", "extends", "find_extension", "traced"]
