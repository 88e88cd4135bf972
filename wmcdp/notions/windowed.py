"""Brackets of pure ε, δ(ε), ε(δ) and output probabilities of programs with unbounded noise, in doubling windows.

A program that draws noise on all of the integers (:mod:`wmcdp.lang.unbounded`) is compiled with every draw in a
window of half-width ``W`` around its center, conditioned on it, and counted exactly (every weight at its exact
value, or at its midpoint at :data:`PRECISION` bits when some are exact reals); the windowed answer and the tail
mass ``T`` give a bracket of the true one (:mod:`wmcdp.base.windows`). ``W`` starts at :data:`START_HALF_WIDTH`
and grows (:func:`_next_half_width`) until the bracket is at most ``width`` wide, relative
(:func:`wmcdp.base.windows.narrow_to`), or passes ``max_half_width``; the result's ``interval`` (a
:class:`~wmcdp.base.windows.WindowBracket`) gives the bracket, the window, the tail mass and whether it narrowed.

Pure ε has a finite upper end only when it is proved: the output is made of Booleans (its values do not depend on
the window) and every output value is reached from every input at the window (every output the program declares
it can give, :attr:`~wmcdp.lang.Program.outputs`, when it does), or, for explicit triples, each
triple's output is reached from its ``x'``. A program whose output has an
integer is refused when that integer's range grows with the window (it releases an unbounded value: infinitely
many outputs), else its upper end is infinite with the reason; for an infinite upper end the run stops when the
lower end is within ``width`` of the windowed ε. ε(δ) is bracketed from δ(ε)'s bracket (:func:`windowed_epsilon`),
the Rényi divergences and zCDP's ρ in :mod:`wmcdp.notions.windowed_renyi`.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, TypeVar

from ..base.certified import exp_bound, log_down, log_up, weights_at
from ..base.errors import NoRatioError, WmcdpError
from ..base.windows import (
    WindowBracket,
    delta_bracket,
    narrow_to,
    probability_bracket,
    ratio_bracket,
    ratio_upper,
)
from ..compile import Compiled, compile_program
from ..compile.support import cube, output_support, valid_inputs
from ..count.extremes import smallest_probabilities
from ..count.probabilities import inference
from ..lang.program import OutputProduct, Program, Value
from ..lang.sets import ExhaustiveInference, PrivacySet
from ..lang.shape import BoolShape, ConstShape, Shape, TupleShape, witness_text
from ..lang.unbounded import UnboundedDraw, window
from ..plan.hub.smallest import smallest_owned
from .results import AccuracyResult, ApproximateResult, PrivacyResult
from .threshold import Threshold

#: the relative width a bracket narrows to by default
DEFAULT_WIDTH = 1e-6
#: the first half-width of the windows, and the largest
START_HALF_WIDTH = 2
MAX_HALF_WIDTH = 1 << 12
#: the widest first window tried while every output asked about has probability 0 in the window (they may lie
#: beyond it: a released value far from the inputs)
UNREACHED_HALF_WIDTH = 64
#: the precision (bits) of exact-real weights' midpoints in a windowed run
PRECISION = 128
#: below this tail mass a windowed bracket is about proportional to ``T``: the next window is the one predicted
LINEAR_TAIL = Fraction(1, 10)
#: a window predicted from the last one's windowed values is judged at this many times its tail mass (those values
#: still move with the window: from half-width 8 to 34, by 0.3% for num_svt at n = 10)
PREDICTION_MARGIN = 4
#: a program with Boolean outputs has its smallest probability bounded in one pass when it has at most this many
#: (and a product of declared outputs is listed when it has at most this many, else bounded by entry)
LISTED_OUTPUTS = 1 << 12

#: a notion's function
Notion = TypeVar("Notion", bound=Callable[..., Any])
#: the outputs a program declares: listed, or a product of per-part values
Declared = tuple[Value, ...] | OutputProduct
#: the ends of a bracket, why its upper end is infinite ("" when it is not), and the end the width is measured to;
#: a fifth item, when given, is the ends this window's windowed values would give at another tail mass (the next
#: window's prediction, :func:`_next_half_width`)
Ends = tuple[Any, ...]


@dataclass(frozen=True)
class WindowRun:
    """One window's run: the notion's result on the windowed program, its compiled form, the tail mass ``T``,
    the weights' radius ``E`` and the number of unbounded draws."""

    result: Any
    compiled: Compiled
    half_width: int
    tail: Fraction
    radius: Fraction
    draws: int
    predict: Callable[[int], Fraction]  # the tail mass T at another half-width


def _program(prog: Any) -> Program:
    if not isinstance(prog, Program):
        raise WmcdpError("a windowed run compiles the program at several windows: pass the Program, not a Compiled")
    return prog


def run_at(prog: Program, half_width: int, backend: str, run: Callable[[Compiled], Any]) -> WindowRun:
    """``run`` on ``prog`` compiled with windows of ``half_width`` (every trace ``run`` makes is windowed too)."""
    with window(half_width) as w, weights_at(PRECISION) as weights:
        compiled = compile_program(prog, backend, exact_floats=True)
        result = run(compiled)
    return WindowRun(result, compiled, half_width, w.tail(), weights.radius, w.draws, w.tail)


def _next_half_width(
    current: WindowRun,
    lo: Any,
    goal: Any,
    width: float,
    max_half_width: int,
    at_tail: Callable[[Fraction], Ends] | None = None,
) -> int:
    """The next window. While the tail mass is above :data:`LINEAR_TAIL` or the lower end is 0 the bracket is not
    yet about proportional to ``T`` and its prediction overshoots. Then, below :data:`LINEAR_TAIL` and given
    ``at_tail`` (the bracket's formula with this window's windowed values, at another tail mass), the smallest
    half-width whose tail mass times :data:`PREDICTION_MARGIN` (the windowed values still move) gives a bracket
    narrow enough, when one up to ``max_half_width`` does; else twice the window, or four times when the tails
    predict the bracket still too wide at twice. Once it is about proportional, the smallest half-width the tails
    predict narrow enough (by bisection, with a margin of 2, at least an eighth more than the last, at most
    ``max_half_width``): a window costs about the square of its width, so a doubling past what is needed costs up
    to four times the run."""
    half_width = 2 * current.half_width
    if current.tail == 0 or not math.isfinite(goal) or goal <= lo:
        return half_width
    target = Fraction(width) * max(abs(Fraction(lo)), abs(Fraction(goal)), Fraction(width))
    wanted = current.tail * target / (4 * (Fraction(goal) - Fraction(lo)))
    if current.tail > LINEAR_TAIL or lo <= 0:
        if at_tail is not None and current.tail <= LINEAR_TAIL:
            predicted = _predicted_half_width(current, width, max_half_width, at_tail)
            if predicted is not None:
                return predicted
        wider = 2 * half_width <= max_half_width and current.predict(half_width) > wanted
        return 2 * half_width if wider else half_width
    wanted /= 2  # (a margin: the bracket is about, not exactly, proportional to T)
    low, high = current.half_width + max(1, current.half_width // 8) - 1, max_half_width
    if current.predict(high) > wanted:
        return high
    while low + 1 < high:  # predict(high) <= wanted < predict(low) (or low below the least step)
        middle = (low + high) // 2
        low, high = (middle, high) if current.predict(middle) > wanted else (low, middle)
    return high


def _predicted_half_width(
    current: WindowRun, width: float, max_half_width: int, at_tail: Callable[[Fraction], Ends]
) -> int | None:
    """The smallest half-width above the current one at which ``at_tail`` of :data:`PREDICTION_MARGIN` times its
    tail mass is narrow to ``width`` (the bracket narrows as the tail mass falls), None when none up to
    ``max_half_width`` is."""

    def narrow(half_width: int) -> bool:
        lo, _hi, _reason, goal = at_tail(current.predict(half_width) * PREDICTION_MARGIN)[:4]
        return bool(narrow_to(lo, goal, width))

    low, high = current.half_width, max_half_width
    if high <= low or not narrow(high):
        return None
    while low + 1 < high:  # narrow(high), and low is the current window or not narrow
        middle = (low + high) // 2
        low, high = (low, middle) if narrow(middle) else (middle, high)
    return high


def bracketed(
    prog: Any,
    backend: str,
    run: Callable[[Compiled], Any],
    ends: Callable[[WindowRun, WindowRun | None], Ends],
    of: str,
    width: float | None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> tuple[WindowRun, WindowBracket]:
    """The last window's run and bracket: from :data:`START_HALF_WIDTH` the window grows (:func:`_next_half_width`)
    until ``ends`` gives a bracket narrow to ``width``, or past ``max_half_width``. A first window where every
    output asked about has probability 0 on both sides doubles, up to :data:`UNREACHED_HALF_WIDTH`."""
    width, program = _width(width), _program(prog)
    half_width, previous = START_HALF_WIDTH, None
    while True:
        try:
            current = run_at(program, half_width, backend, run)
        except NoRatioError:  # the outputs asked about lie beyond this window: widen, up to UNREACHED_HALF_WIDTH
            if previous is not None or 2 * half_width > min(max_half_width, UNREACHED_HALF_WIDTH):
                raise
            half_width *= 2
            continue
        lo, hi, reason, goal, *at_tail = ends(current, previous)
        done = narrow_to(lo, goal, width)
        bracket = WindowBracket(lo, hi, PRECISION, of, current.half_width, current.tail, current.draws, done, reason)
        half_width = _next_half_width(current, lo, goal, width, max_half_width, at_tail[0] if at_tail else None)
        if done or half_width > max_half_width:
            return current, bracket
        previous = current


def declared_outputs(prog: Any) -> Declared | None:
    """The outputs the program declares it can give (:attr:`~wmcdp.lang.Program.outputs`): listed, or an
    :class:`~wmcdp.lang.program.OutputProduct` (listed only when it is small, :func:`_coverage`); None when it declares
    none."""
    outputs = _program(prog).outputs
    if outputs is None:
        return None
    declared = outputs()
    return declared if isinstance(declared, OutputProduct) else tuple(declared)


def _width(width: float | None) -> float:
    if width is None:
        return DEFAULT_WIDTH
    if isinstance(width, bool) or not isinstance(width, (int, float, Fraction)) or not 0 < width < 1:
        raise WmcdpError(f"width must be a number in (0, 1), got {width!r}")
    return float(width)


def unbounded_branch(branch: Callable[..., Any]) -> Callable[[Notion], Notion]:
    """Decorate a notion's function: a call given ``width``, or whose program draws unbounded noise (the trace
    raises :class:`~wmcdp.lang.unbounded.UnboundedDraw`), is answered by ``branch`` with the same arguments."""

    def decorate(fn: Notion) -> Notion:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get("width") is None:
                try:
                    return fn(*args, **kwargs)
                except UnboundedDraw:  # never a silent clamp: unbounded noise is bracketed in windows
                    pass
            return branch(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


# -- pure epsilon ---------------------------------------------------------------------------


def _bools_only(shape: Shape) -> bool:
    """The output is made of Booleans and constants: its values do not depend on the window."""
    if isinstance(shape, TupleShape):
        return all(_bools_only(part) for part in shape.parts)
    return isinstance(shape, (BoolShape, ConstShape))


def _coverage(
    current: WindowRun, pairs: Sequence[tuple[Value, Value]] | None, declared: Declared | None = None
) -> tuple[Fraction | None, str]:
    """A lower bound of the smallest windowed probability of any output (of the ``declared`` ones, when given) on
    any input (of the ``(x', y)`` of ``pairs``, when given), or None and one that the window does not reach.

    Without ``pairs`` the bound is first taken in one pass over the diagram with the inputs minimised
    (:func:`~wmcdp.count.extremes.smallest_probabilities`: no input is listed); when it is not above the weights'
    radius, every input is counted exactly. Declared outputs are the program's claim that no other output is
    possible at any noise value; the window checks what it can of it (:func:`_check_declared`)."""
    compiled = current.compiled
    if pairs is not None:
        listed = inference(compiled, pairs, exact=True)
        return _smallest((x, y, listed.probability(x, y)) for x, y in pairs)
    if declared is not None:
        _check_declared(current, declared)
    if isinstance(declared, OutputProduct):
        if len(declared) > LISTED_OUTPUTS:  # not listed when it factors by entry
            bound = _product_smallest(compiled, declared)
            if bound is not None and bound > current.radius:
                return bound, ""
        declared = tuple(declared)
    outputs = declared if declared is not None else _few_outputs(compiled.shape)
    if outputs and compiled.backend.name == "bdd":
        bound = min(smallest_probabilities(compiled, outputs))
        if bound > current.radius:
            return bound, ""
    table = inference(compiled, ExhaustiveInference(compiled.domain, outputs or compiled.shape), exact=True)
    if outputs is None:
        return _smallest(table.items())
    return _smallest((x, y, table.probability(x, y)) for x in compiled.domain.values() for y in outputs)


def _product_smallest(compiled: Compiled, declared: OutputProduct) -> Fraction | None:
    """The smallest windowed probability over a product of declared outputs whose parts are single leaves, from
    the factored outputs (:func:`~wmcdp.plan.hub.smallest.smallest_owned`), or None."""
    shape = compiled.shape
    if not isinstance(shape, TupleShape) or any(isinstance(part, TupleShape) for part in shape.parts):
        return None
    allowed = [frozenset(v) for part, v in zip(shape.parts, declared.values) if not isinstance(part, ConstShape)]
    return smallest_owned(compiled, allowed)


def _few_outputs(shape: Shape) -> tuple[Value, ...] | None:
    """Every output value of ``shape`` when there are at most :data:`LISTED_OUTPUTS`, else None."""
    return tuple(shape.values()) if shape.size <= LISTED_OUTPUTS else None


def _smallest(cells: Iterable[tuple[Value, Value, Any]]) -> tuple[Fraction | None, str]:
    """The smallest probability of ``(x, y, P(y | x))`` cells, or None and a pair with probability 0."""
    smallest = None
    for x, y, p in cells:
        if p == 0:
            return None, f"the output {witness_text(y)} is not reached from the input {witness_text(x)} at the window"
        smallest = Fraction(p) if smallest is None else min(smallest, Fraction(p))
    return smallest, ""


def _check_declared(current: WindowRun, declared: Declared) -> None:
    """Refuse a declaration of outputs that misses an output the windowed program gives: every output some valid
    input produces with positive probability (the support of :mod:`wmcdp.compile.support`, on the diagram with
    the random bits of weight 0 or 1 fixed) must be declared. On an SDD every input is counted: the declared
    outputs' probabilities must sum to 1 from each, within the weights' radius."""
    compiled = current.compiled
    if isinstance(declared, OutputProduct):
        _check_product(compiled, declared)
    if compiled.backend.name != "bdd":
        _check_declared_sums(current, tuple(declared))
        return
    if isinstance(declared, OutputProduct):
        _check_declared_parts(current, declared)
        return
    be, support = compiled.backend, _support(current)
    offsets = set()
    for y in declared:
        bits = compiled.shape.encode(y)
        if bits is None:
            raise WmcdpError(f"the program declares the output {witness_text(y)}, outside its output shape")
        offsets.add(sum(bit << (len(bits) - 1 - k) for k, bit in enumerate(bits)))  # the bits, most significant first
    if len(offsets) == compiled.shape.size:  # every value of the shape declared: nothing can be missed
        return
    listed = be.false
    for offset in offsets:
        listed = be.disj(listed, cube(be, compiled.output_vars, offset))
    missed = be.conj(support, be.negate(listed))
    if missed != be.false:
        raise _missed(current, missed)


def _check_product(compiled: Compiled, declared: OutputProduct) -> None:
    """A product of declared outputs has one set of values per part of the output, each a value of its part."""
    shape = compiled.shape
    parts = shape.parts if isinstance(shape, TupleShape) else ()
    if len(parts) != len(declared.values):
        raise WmcdpError(
            f"the program declares outputs of {len(declared.values)} parts for an output of {len(parts)} parts"
        )
    for j, (part, values) in enumerate(zip(parts, declared.values)):
        for v in values:
            if part.encode(v) is None:
                raise WmcdpError(f"the program declares the value {witness_text(v)} of output part {j}, outside it")


def _support(current: WindowRun) -> Any:
    """The outputs some valid input gives with positive probability at the window (on a BDD: the support of
    :mod:`wmcdp.compile.support` on the diagram with the random bits of weight 0 or 1 fixed)."""
    compiled = current.compiled
    be = compiled.backend
    fixed = {v: w.is_true for v, w in compiled.weights.items() if w.is_true or w.is_false}
    if fixed:
        support = output_support(compiled, be.conj(be.condition(compiled.phi, fixed), valid_inputs(compiled)))
    else:  # the program's own support, counted once (the planner's estimates read it too)
        support = compiled.support
    if support is None:
        raise WmcdpError("the program's declared outputs cannot be checked: too many output bits")
    return support.psi


def _missed(current: WindowRun, missed: Any) -> WmcdpError:
    """The refusal of a declaration that misses the outputs ``missed`` (a diagram over the output bits), naming
    one of them."""
    compiled = current.compiled
    model = compiled.backend.random_model(missed, random.Random(0)) or {}
    y = compiled.shape.decode([int(model.get(v, False)) for v in compiled.output_vars])
    return WmcdpError(
        f"the program's declared outputs miss the output {witness_text(y)}, which it gives with positive "
        f"probability at half-width {current.half_width}"
    )


def _check_declared_parts(current: WindowRun, declared: OutputProduct) -> None:
    """:func:`_check_declared` for a product, part by part: the support holds no output whose part ``j`` takes a
    value outside ``declared.values[j]``."""
    compiled = current.compiled
    be, shape, support = compiled.backend, compiled.shape, _support(current)
    assert isinstance(shape, TupleShape)
    start = 0
    for part, values in zip(shape.parts, declared.values):
        bits = compiled.output_vars[start : start + part.width]
        start += part.width
        inside = be.false
        for v in values:
            code = part.encode(v) or []
            inside = be.disj(inside, cube(be, bits, sum(b << (len(code) - 1 - k) for k, b in enumerate(code))))
        missed = be.conj(support, be.negate(inside))
        if missed != be.false:
            raise _missed(current, missed)


def _check_declared_sums(current: WindowRun, declared: tuple[Value, ...]) -> None:
    """:func:`_check_declared` by counting: from every input the declared outputs hold all of the windowed
    probability, within the weights' radius."""
    compiled = current.compiled
    table = inference(compiled, ExhaustiveInference(compiled.domain, declared), exact=True)
    slack = Fraction(current.radius) * len(declared)
    for x in compiled.domain.values():
        total = sum((Fraction(table.probability(x, y)) for y in declared), Fraction(0))
        if total < 1 - slack:
            raise WmcdpError(
                f"the program's declared outputs miss an output it gives from the input {witness_text(x)} "
                f"(they hold {float(total):.6g} of its probability at half-width {current.half_width})"
            )


#: the reason of an infinite upper end at the first window of an integer output
CHECKED_TWICE = "an integer output is checked at two windows"


class UnboundedRelease(WmcdpError):
    """The output's range grows with the window: the program releases an unbounded value, and a notion that needs
    every output's probability (pure ε, Rényi) is refused."""


def reached(
    current: WindowRun,
    previous: WindowRun | None,
    pairs: Sequence[tuple[Value, Value]] | None,
    notion: str,
    declared: Declared | None = None,
) -> tuple[Fraction | None, str]:
    """The smallest windowed probability of any output (of the program's ``declared`` outputs, when it declares
    them) on any input (of ``pairs``' ``(x', y)`` when given), or
    None and why an upper end of a ratio of probabilities is not finite: an output not reached at the window, or an
    integer output (:data:`CHECKED_TWICE` at the first window; one whose range grows with the window releases an
    unbounded value, and ``notion`` of it is refused)."""
    shape = current.compiled.shape
    if pairs is not None or declared is not None or _bools_only(shape):
        return _coverage(current, pairs, declared)
    if previous is None:  # an integer output: its range is checked against the next window
        return None, CHECKED_TWICE
    if previous.compiled.shape != shape:
        raise UnboundedRelease(
            f"the output's range grows with the window ({previous.compiled.shape.describe()} at half-width "
            f"{previous.half_width}, {shape.describe()} at {current.half_width}): {notion} of an unbounded "
            "release is not bracketed; ask for delta(epsilon)"
        )
    return None, "the values of an integer output beyond the window are not proved impossible"


def _witness_probabilities(current: WindowRun) -> tuple[Fraction, Fraction]:
    """The windowed ``P(y | x)`` and ``P(y | x')`` of the run's witness, counted again on the whole program."""
    w = current.result.witness
    table = inference(current.compiled, [(w.x, w.y), (w.x_prime, w.y)], exact=True)
    return Fraction(table.probability(w.x, w.y)), Fraction(table.probability(w.x_prime, w.y))


def _epsilon_ends(
    current: WindowRun,
    previous: WindowRun | None,
    pairs: Sequence[tuple[Value, Value]] | None,
    declared: Declared | None = None,
) -> Ends:
    """The ends of ε; ``pairs``: the ``(x', y)`` of explicit triples (whatever the outputs), else every output
    (every ``declared`` one, when the program declares them)."""
    r = current.result
    if current.tail == 0 and current.radius == 0:  # no unbounded draw, exact weights: the answer itself
        if r.ratio == math.inf:
            return math.inf, math.inf, "", math.inf
        return max(0.0, log_down(Fraction(r.ratio))), log_up(Fraction(r.ratio)), "", log_up(Fraction(r.ratio))
    smallest, reason = reached(current, previous, pairs, "pure epsilon", declared)
    if reason == CHECKED_TWICE:
        return 0.0, math.inf, reason, math.inf
    tail, radius, (p, p_prime) = current.tail, current.radius, _witness_probabilities(current)
    if r.ratio == math.inf:
        reason = f"the output {witness_text(r.witness.y)} is reached from one input of a pair only at the window"
        lower, _ = ratio_bracket(p, p_prime, None, None, radius, tail)
        return max(0.0, log_down(lower)), math.inf, reason, math.inf
    ratio = Fraction(r.ratio)

    def at(tail: Fraction) -> Ends:
        lower, upper = ratio_bracket(p, p_prime, None if reason else ratio, smallest, radius, tail)
        lo = max(0.0, log_down(lower)) if lower > 0 else 0.0
        if upper is None:
            why = reason or "the smallest windowed probability is within the weights' radius"
            return lo, math.inf, why, log_up(ratio)
        hi = log_up(upper)
        return lo, hi, "", hi

    return (*at(tail), at)


def windowed_privacy(
    prog: Any,
    run: Callable[[Compiled], PrivacyResult],
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
    triples: PrivacySet | None = None,
) -> PrivacyResult:
    """Pure ε of a program with unbounded noise: ``run(compiled)`` is the exact privacy run of the windowed
    program; the result is the last window's, with ``interval`` the bracket of ε (module docstring). Given the
    explicit ``triples`` the run maximises over, the upper end needs only their outputs reached (from ``x'``);
    else a program that declares its possible outputs (:attr:`~wmcdp.lang.Program.outputs`) needs only those
    reached from every input (the others have probability 0 everywhere, whatever the noise)."""
    start = time.perf_counter()
    pairs = None if triples is None else [(xp, y) for _, xp, ys in triples.blocks for y in ys]
    declared = None if pairs is not None else declared_outputs(prog)  # every input must reach these

    def ends(current: WindowRun, previous: WindowRun | None) -> Ends:
        return _epsilon_ends(current, previous, pairs, declared)

    current, bracket = bracketed(prog, backend, run, ends, "epsilon", width, max_half_width)
    r = current.result
    return replace(  # type: ignore[no-any-return]
        r,
        exact=False,
        interval=bracket,
        ratio=float(r.ratio),
        p_x=float(r.p_x),
        p_x_prime=float(r.p_x_prime),
        seconds=time.perf_counter() - start,
    )


# -- delta(epsilon) -------------------------------------------------------------------------


def _delta_range(r: ApproximateResult) -> tuple[Fraction, Fraction]:
    """The windowed δ(ε) as rationals ``[low, high]``: exact, its enclosure, or the floats next to it."""
    if isinstance(r.delta, Fraction):
        return r.delta, r.delta
    if r.interval is not None:
        return Fraction(r.interval.lo), Fraction(r.interval.hi)
    d = float(r.delta)
    return Fraction(math.nextafter(d, -math.inf)) if d > 0 else Fraction(0), Fraction(math.nextafter(d, math.inf))


def windowed_delta(
    prog: Any,
    run: Callable[[Compiled], ApproximateResult],
    threshold: Threshold,
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> ApproximateResult:
    """δ(ε) of a program with unbounded noise: ``run(compiled)`` is the exact δ(ε) run of the windowed program;
    the result is the last window's, with ``interval`` the bracket of δ (:func:`wmcdp.base.windows.delta_bracket`;
    exact-real weights move the windowed δ by at most ``2E (1 + e^ε)``)."""
    if threshold.epsilon == math.inf:
        raise WmcdpError("a windowed delta(epsilon) needs a finite epsilon (its bracket widens with e^epsilon)")
    ratio = threshold.ratio if threshold.ratio is not None else exp_bound(threshold.epsilon)

    def ends(current: WindowRun, previous: WindowRun | None) -> Ends:
        low, high = _delta_range(current.result)
        eta = 2 * current.radius * (1 + ratio)
        lo, hi = delta_bracket(max(Fraction(0), low - eta), high + eta, current.tail, ratio)
        return lo, hi, "", hi

    start = time.perf_counter()
    current, bracket = bracketed(prog, backend, run, ends, "delta", width, max_half_width)
    r = current.result
    return replace(  # type: ignore[no-any-return]
        r, exact=False, interval=bracket, delta=float(r.delta), exact_delta=None, seconds=time.perf_counter() - start
    )


# -- epsilon(delta) -------------------------------------------------------------------------

#: the exact ε(δ) run of a windowed program at a rational δ in [0, 1)
EpsilonRun = Callable[[Compiled, Fraction], ApproximateResult]


def _epsilon_at(run: EpsilonRun, current: WindowRun, delta: Fraction, up: bool) -> float:
    """The windowed program's ε(δ) (its ``e^ε`` exact) rounded up or down; 0 at ``δ >= 1``, inf when infinite."""
    if delta >= 1:
        return 0.0
    ratio = run(current.compiled, delta).ratio
    if ratio == math.inf:
        return math.inf
    return log_up(Fraction(ratio)) if up else max(0.0, log_down(Fraction(ratio)))


def _epsilon_upper(run: EpsilonRun, current: WindowRun, delta: Fraction, pure: Fraction | None) -> tuple[float, str]:
    """An ε with ``δ_hi(ε) = (1 - T)(δ_w(ε) + η(ε)) + T <= δ`` (so ``ε(δ) <= ε``), ``η(ε) = 2E (1 + e^ε)``, and
    why there is none; ``pure``: an upper end of ``e^ε(0)`` (the pure ε, at least ``ε(δ)``) or None."""
    tail, radius = current.tail, current.radius
    ends = [(math.inf, "delta is below the tail mass T at this window")]
    if pure is not None:
        ends.append((log_up(pure), ""))
    spare = (delta - tail) / (1 - tail)  # δ_hi(ε) <= δ when δ_w(ε) + η(ε) <= spare
    if spare >= 0:
        first = _epsilon_at(run, current, spare, True)
        if first == math.inf:
            reason = "the windowed epsilon(delta) is infinite: an output is reached from one input of a pair only"
            ends.append((math.inf, reason))
        elif radius == 0:
            ends.append((first, ""))
        else:  # η grows with ε: valid where the end found is below the cap at which η was taken
            cap = first + 1
            less = spare - 2 * radius * (1 + exp_bound(cap))
            second = _epsilon_at(run, current, less, True) if less >= 0 else math.inf
            ends.append((second, "") if second <= cap else (math.inf, "the weights' radius is too wide here"))
    return min(ends, key=lambda end: end[0])


def _epsilon_lower(run: EpsilonRun, current: WindowRun, delta: Fraction) -> float:
    """An ε below which ``δ_lo(ε) = (1 - T)(δ_w(ε) - η(ε)) - e^ε T > δ`` (so ``ε(δ)`` is at least it): below a
    cap ``c``, ``η(ε) <= η(c)`` and ``e^ε <= e^c``, so every ε below ``min(c, ε_w(δ''))`` does, with
    ``δ'' = (δ + e^c T) / (1 - T) + η(c)``. The cap is the windowed ε at ``δ / (1 - T)`` (at least the root)."""
    tail, radius = current.tail, current.radius
    cap = _epsilon_at(run, current, delta / (1 - tail), True)
    if cap == math.inf:  # any cap is sound: the one where e^c T = δ
        cap = max(0.0, log_down(delta / tail)) if tail > 0 and delta > 0 else 0.0
    grow = exp_bound(cap)
    need = (delta + grow * tail) / (1 - tail) + 2 * radius * (1 + grow)
    return min(cap, _epsilon_at(run, current, need, False))


def windowed_epsilon(
    prog: Any,
    run: EpsilonRun,
    delta: Fraction,
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> ApproximateResult:
    """ε(δ) of a program with unbounded noise: ``run(compiled, d)`` is the exact ε(d) run of the windowed program.

    δ(ε) is non-increasing and ``δ_lo(ε) <= δ(ε) <= δ_hi(ε)`` for every ε (:func:`windowed_delta`'s bracket, its
    radius term ``η(ε) = 2E (1 + e^ε)``), so ``{ε : δ_hi(ε) <= δ} ⊆ {ε : δ(ε) <= δ} ⊆ {ε : δ_lo(ε) <= δ}`` and
    ``ε(δ) = inf{ε >= 0 : δ(ε) <= δ}`` lies between the infima of the outer and the inner set (the lower end,
    :func:`_epsilon_lower`; the upper end, :func:`_epsilon_upper`). With ``E = 0`` the upper end is the windowed
    ``ε_w((δ - T) / (1 - T))``, infinite for ``δ < T`` (``δ_hi >= T``), where the pure ε's upper end (outputs
    of Booleans every input reaches, :func:`windowed_privacy`) bounds it instead: ``ε(δ) <= ε(0)``. At δ = 0 that
    is the only finite upper end; at ``δ >= 1`` both ends are 0. When ``T`` stays above δ up to ``max_half_width``
    (always at δ = 0), an infinite upper end is final and the run stops when the lower end is within ``width`` of the
    windowed ε(δ). The result is the last window's ε(δ) run, with ``interval`` the bracket of ε."""

    declared = declared_outputs(prog)

    def ends(current: WindowRun, previous: WindowRun | None) -> Ends:
        pure, why = None, ""
        if delta == 0 or declared is not None or _bools_only(current.compiled.shape):  # (a release's ε(0) is refused)
            smallest, why = reached(current, previous, None, "epsilon(0)", declared)
            ratio = run(current.compiled, Fraction(0)).ratio
            if smallest is not None and ratio != math.inf:
                pure = ratio_upper(Fraction(ratio), smallest, current.radius, current.tail)
        hi, reason = _epsilon_upper(run, current, delta, pure)
        lo, goal = _epsilon_lower(run, current, delta), hi
        if hi == math.inf and current.predict(max_half_width) > delta:  # T stays above δ: stop near the windowed ε
            goal = _epsilon_at(run, current, delta, True)
            goal = math.inf if delta == 0 and why == CHECKED_TWICE else lo if goal == math.inf else goal
            reason = f"epsilon(0) is the pure epsilon ({why or reason})" if delta == 0 else reason
        return lo, hi, reason, goal

    start = time.perf_counter()
    current, bracket = bracketed(prog, backend, lambda c: run(c, delta), ends, "epsilon", width, max_half_width)
    r = current.result
    return replace(  # type: ignore[no-any-return]
        r,
        exact=False,
        interval=bracket,
        ratio=float(r.ratio),
        delta=float(r.delta),
        seconds=time.perf_counter() - start,
    )


# -- accuracy -------------------------------------------------------------------------------


def windowed_accuracy(
    prog: Any,
    run: Callable[[Compiled], AccuracyResult],
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> AccuracyResult:
    """``1 - beta`` of a program with unbounded noise: ``run(compiled)`` is the exact accuracy run of the windowed
    program. Each input's event "within alpha of its target" is bracketed as a probability, so the minimum over the
    inputs lies in ``[(1 - T)(m_w - E), (1 - T)(m_w + E) + T]`` with ``m_w`` the windowed minimum."""

    def ends(current: WindowRun, previous: WindowRun | None) -> Ends:
        lo, hi = probability_bracket(Fraction(current.result.one_minus_beta), current.radius, current.tail)
        return lo, hi, "", hi

    start = time.perf_counter()
    current, bracket = bracketed(prog, backend, run, ends, "1 - beta", width, max_half_width)
    r = current.result
    return replace(  # type: ignore[no-any-return]
        r,
        exact=False,
        interval=bracket,
        one_minus_beta=float(r.one_minus_beta),
        beta=float(r.beta),
        top=tuple((x, float(v)) for x, v in r.top),
        seconds=time.perf_counter() - start,
    )


# -- probabilities --------------------------------------------------------------------------


def windowed_probabilities(
    prog: Program,
    x: Value,
    ys: Sequence[Value],
    *,
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> list[WindowBracket]:
    """Brackets of ``P(y | x)`` for each of ``ys`` for a program with unbounded noise, from one run per window
    (:func:`wmcdp.base.windows.probability_bracket`). Every bracket has the same additive slack, so the window
    grows until the smallest probability's bracket is ``width`` relative (unless ``max_half_width`` comes first);
    each bracket says whether it narrowed."""
    if not ys:
        return []

    def run(compiled: Compiled) -> list[Fraction]:
        counted = inference(compiled, [(x, y) for y in ys], exact=True)
        return [Fraction(counted.probability(x, y)) for y in ys]

    def each(current: WindowRun) -> list[tuple[Fraction, Fraction]]:
        return [probability_bracket(p, current.radius, current.tail) for p in current.result]

    def ends(current: WindowRun, previous: WindowRun | None) -> Ends:
        lo, hi = min(each(current))
        return lo, hi, "", hi

    current, bracket = bracketed(prog, backend, run, ends, "probability", width, max_half_width)
    goal = _width(width)
    return [replace(bracket, lo=lo, hi=hi, narrowed=narrow_to(lo, hi, goal)) for lo, hi in each(current)]


def windowed_probability(
    prog: Program,
    x: Value,
    y: Value,
    *,
    backend: str = "bdd",
    width: float | None = None,
    max_half_width: int = MAX_HALF_WIDTH,
) -> WindowBracket:
    """A bracket of ``P(y | x)`` for a program with unbounded noise (:func:`windowed_probabilities` of ``[y]``),
    its width at most ``width`` relative unless the window limit ``max_half_width`` came first."""
    return windowed_probabilities(prog, x, [y], backend=backend, width=width, max_half_width=max_half_width)[0]


__all__ = [
    "DEFAULT_WIDTH",
    "MAX_HALF_WIDTH",
    "PRECISION",
    "START_HALF_WIDTH",
    "WindowRun",
    "CHECKED_TWICE",
    "EpsilonRun",
    "bracketed",
    "reached",
    "run_at",
    "unbounded_branch",
    "windowed_accuracy",
    "windowed_delta",
    "windowed_epsilon",
    "windowed_privacy",
    "windowed_probabilities",
    "windowed_probability",
]
