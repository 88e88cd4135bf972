"""Noise on all of the integers (two-sided and one-sided geometric, discrete Gaussian), run in windows.

The laws, for a ratio ``a`` in (0, 1) (``alpha=a``, or ``scale=s`` for ``a = e^(-1/s)``):

* :func:`geometric` — the two-sided geometric (discrete Laplace) noise of Ghosh, Roughgarden and Sundararajan
  (2009; Inusah and Kozubowski 2006): ``P(Z = z) = (1 - a) / (1 + a) a^|z|`` for every integer ``z``;
* :func:`one_sided_geometric` — ``P(Z = k) = (1 - a) a^k`` for ``k >= 0``;
* :func:`discrete_gaussian` — the discrete Gaussian of Canonne, Kamath and Steinke (2020):
  ``P(Z = z) = e^(-z^2 / (2 sigma2)) / N`` with ``N = sum over all integers j of e^(-j^2 / (2 sigma2))``.

Each draw returns ``center + Z``. :func:`released_geometric` releases ``center + Z`` of the two-sided law as an
output with its tails merged into two values, which is exact for every privacy notion and needs no window.

**Windows, never a clamp.** A diagram has finitely many values, so a run fixes a half-width ``W``
(:func:`window`): each draw takes the values ``center + z`` with ``|z| <= W`` (``0 <= z <= W`` one-sided),
with its law *conditioned* on that window (so the compiled program is an ordinary finite one), and the run
records the draw's tail mass ``t_i = P(Z outside the window)``: ``2 a^(W+1) / (1 + a)`` two-sided, ``a^(W+1)``
one-sided (exact rationals for a rational ``a``), and for the discrete Gaussian a certified upper bound
``tail / (window + tail)`` with ``tail = 2 e^(-(W+1)^2 / (2 sigma2)) / (1 - e^(-(W+1) / sigma2))`` (each term past
``W + 1`` is at most the previous one times ``e^(-(W+1) / sigma2)``, since ``z^2 >= (W+1)^2 + 2 (W+1)(z - W - 1)``)
and ``window`` the exact sum inside, both in arb ball arithmetic.

**The bracket.** The noise ``Z_i = draw_i - center_i`` of each draw is independent of everything drawn before
it, so the event ``G`` "every draw falls in its window" has ``P(G) = prod (1 - t_i)`` on every input, and given
``G`` the program's law is exactly the windowed program's ``Pw`` (each draw conditioned on its window). By the
law of total probability, for every event ``S`` of the output, with ``T = 1 - prod (1 - t_i)``::

    P(S | x) = (1 - T) Pw(S | x) + T P(S | x, not G),   so   (1 - T) Pw(S | x) <= P(S | x) <= (1 - T) Pw(S | x) + T.

Every draw of the trace counts (a draw off the path only makes ``T`` larger, which keeps both sides true); a
larger ``t_i`` keeps them true too, so upper bounds of the tails do. :mod:`wmcdp.notions.windowed` turns this into
brackets of the notions.

Outside a window (a plain compile) a draw refuses to be traced (:class:`UnboundedDraw`); a concrete execution
(:meth:`wmcdp.Program.run`) samples the unbounded law itself.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..base.certified import Real
from ..base.errors import WmcdpError
from ..base.numbers import as_number, format_number, is_symbolic
from .circuit import TRUE, Circuit
from .geometric import geometric_ratio
from .releases import ReleasedSum
from .values import Bool, Compared, Int, _as_int, _selected, current, discrete

#: the precision (bits) of the discrete Gaussian's certified tail bound
TAIL_PRECISION = 128


class UnboundedDraw(WmcdpError):
    """A draw of unbounded noise traced outside a window: only windowed runs compile it."""


@dataclass
class Window:
    """A run's window: the half-width of every draw and the tail masses each trace recorded."""

    half_width: int
    #: per trace made (by the circuit's id, the circuit kept alive): each draw's tail mass as a function of ``W``
    traces: dict[int, tuple[Circuit, list[Callable[[int], Fraction]]]] = field(default_factory=dict)

    def record(self, tail: Callable[[int], Fraction]) -> None:
        circuit = current()
        self.traces.setdefault(id(circuit), (circuit, []))[1].append(tail)

    @property
    def draws(self) -> int:
        """The number of unbounded draws of the program (the most any trace made)."""
        return max((len(tails) for _, tails in self.traces.values()), default=0)

    def tail(self, half_width: int | None = None) -> Fraction:
        """``T = 1 - prod (1 - t_i)`` over the draws of a trace (the largest over the traces made), at this window
        or, for a prediction, at another ``half_width``."""
        w = self.half_width if half_width is None else half_width
        products = (math.prod((1 - t(w) for t in tails), start=Fraction(1)) for _, tails in self.traces.values())
        return 1 - min(products, default=Fraction(1))


_WINDOW: ContextVar[Window | None] = ContextVar("wmcdp_window", default=None)


@contextmanager
def window(half_width: int) -> Iterator[Window]:
    """Inside the block every unbounded draw takes the values within ``half_width`` of its center."""
    if isinstance(half_width, bool) or not isinstance(half_width, int) or half_width < 0:
        raise WmcdpError(f"a window's half-width must be a whole number >= 0, got {half_width!r}")
    w = Window(half_width)
    token = _WINDOW.set(w)
    try:
        yield w
    finally:
        _WINDOW.reset(token)


def _draw(
    name: str,
    center: Int | Bool | int,
    weights: Callable[[int], dict[int, Any]],
    tail: Callable[[int], Fraction],
    sample: Callable[[random.Random], int],
) -> Int:
    """``center + Z``: sampled in a concrete execution; in a window of half-width ``W``, ``weights(W)`` gives the
    conditioned probabilities of the offsets and ``tail(W)`` the mass outside (recorded); elsewhere refused."""
    value, sampled = _center(name, center, sample)
    if sampled is not None:
        return sampled
    w = _WINDOW.get()
    if w is None:
        raise UnboundedDraw(
            f"{name}() draws noise on all of the integers: only pure epsilon, (epsilon, delta), Renyi and accuracy "
            "bracket it, in windows (wmcdp privacy, approx, renyi, accuracy)"
        )
    offsets = weights(w.half_width)
    w.record(tail)
    return _selected(name, lambda v: {v + z: p for z, p in offsets.items()}, [value], discrete)


def _center(name: str, center: Int | Bool | int, sample: Callable[[random.Random], int]) -> tuple[Int, Int | None]:
    """The draw's center as an Int, and in a concrete execution (its center a constant) ``center + sample``."""
    if isinstance(center, ReleasedSum):
        center._refused()
    value = _as_int(center)
    if value is None:
        raise WmcdpError(f"{name}() needs an Int, Bool or int center, got {type(center).__name__}")
    rng = current().rng
    if rng is None:
        return value, None
    v = next(k for k, g in value.guards.items() if g == TRUE)
    return value, Int.const(v + sample(rng))


def _ratio(alpha: object, scale: object, name: str) -> Fraction:
    """The exact ratio: a rational ``alpha`` as it is, a float one (or ``e^(-1/scale)``) as its binary64 value."""
    if is_symbolic(alpha) or is_symbolic(scale):
        raise WmcdpError(f"{name}() needs a number for its ratio, not a symbolic parameter")
    return Fraction(geometric_ratio(alpha, scale))


def _one_sided(a: Fraction, rng: random.Random) -> int:
    """A sample of ``P(k) = (1 - a) a^k``: ``P(k >= j) = a^j = P(U <= a^j)``."""
    return math.floor(math.log(1.0 - rng.random()) / math.log(float(a)))


def geometric(center: Int | Bool | int, alpha: object = None, scale: object = None) -> Int:
    """``center + Z`` with two-sided geometric noise ``P(Z = z) = (1 - a)/(1 + a) a^|z|`` on all of Z (module
    docstring; Ghosh, Roughgarden, Sundararajan 2009). ``alpha`` is the ratio ``a``; ``scale`` gives
    ``a = e^(-1/scale)`` (read as its binary64 value, exactly)."""
    a = _ratio(alpha, scale, "geometric")

    def weights(W: int) -> dict[int, Any]:
        inside = 1 + a - 2 * a ** (W + 1)  # (1 + a) P(|Z| <= W) / (1 - a)
        return {z: (1 - a) * a ** abs(z) / inside for z in range(-W, W + 1)}

    def tail(W: int) -> Fraction:
        return 2 * a ** (W + 1) / (1 + a)

    return _draw("geometric", center, weights, tail, lambda rng: _one_sided(a, rng) - _one_sided(a, rng))


def released_geometric(center: Int | Bool | int, alpha: object = None, scale: object = None) -> Int | ReleasedSum:
    """``center + Z`` with the two-sided geometric noise of :func:`geometric`, released as an output with its tails
    merged: exact on all of the integers, no window.

    With ``lo..hi`` the range of ``center``, the release takes the values ``lo..hi`` with their own probabilities,
    ``lo - 1`` for every value at most ``lo - 1`` and ``hi + 1`` for every value at least ``hi + 1``:
    ``P(Z >= k) = a^k / (1 + a)`` for ``k >= 1``, so given ``center = v`` the ends have ``a^(v - lo + 1) / (1 + a)``
    and ``a^(hi + 1 - v) / (1 + a)``. **Exact for every privacy notion.** Write ``b`` for the rest of the output and
    ``r`` for this value; ``Z`` is drawn for the release alone. For ``r >= hi + 1`` (so ``r - v >= 1`` for every
    ``v``), ``P(b, r | x) = sum_v P(b, v | x) (1 - a)/(1 + a) a^(r - v) = a^r g(b, x)``: given ``b`` and the upper
    tail, ``r`` has the law ``∝ a^r`` on ``r >= hi + 1`` whatever the input. Drawing it so turns the merged
    mechanism back into the published one, and merging is a post-processing too: each mechanism is a
    post-processing of the other (with randomness independent of the input), so every divergence between two
    inputs' output laws — pure ε, δ(ε), Rényi, the privacy-loss distribution — is the same (likewise below
    ``lo``). Accuracy, which reads the values themselves, is refused.

    The result is a :class:`~wmcdp.lang.releases.ReleasedSum`: released values may be added up, with each other
    and with exact values (running sums, prefix sums), and the output is read in increments, each component
    minus the releases before it — exact for every notion too (:mod:`wmcdp.lang.releases`). Nothing else may read
    a released value (a comparison, a draw's center). A concrete execution samples the unbounded law itself.
    """
    a = _ratio(alpha, scale, "released_geometric")
    value, sampled = _center("released_geometric", center, lambda rng: _one_sided(a, rng) - _one_sided(a, rng))
    if sampled is not None:
        return sampled
    return ReleasedSum.drawn(value, a)


def compared_geometric(
    center: Int | Bool | int, alpha: object = None, scale: object = None, against: tuple[int, int] | None = None
) -> Int:
    """``center + Z`` with the two-sided geometric noise of :func:`geometric`, only ever compared with values in
    ``against = (lo, hi)``, its tails merged: exact on all of the integers, no window.

    The result takes the values ``lo..hi`` with their own probabilities, ``lo - 1`` for every value at most
    ``lo - 1`` and ``hi + 1`` for every value at least ``hi + 1``: given ``center = v``, ``P(Z <= lo - 1 - v) =
    P(Z >= v - lo + 1)`` and ``P(Z >= hi + 1 - v)``, with ``P(Z >= k) = a^k / (1 + a)`` for ``k >= 1`` and
    ``1 - a^(1 - k) / (1 + a)`` for ``k <= 0``. **Exact for every notion.** Every value at most ``lo - 1`` is below
    each value in ``lo..hi``, and every value at least ``hi + 1`` above it, so each comparison with a value in
    ``lo..hi`` has the same outcome at every value a merged tail stands for: the program's output, a function of
    those comparisons, has the same law under the merged draw as under the published one. Hence the value may only
    be compared, and only with values in ``lo..hi`` (:class:`~wmcdp.lang.values.Compared` refuses the rest: any
    arithmetic, :func:`~wmcdp.lang.values.ite`, a release, a comparison with a value outside ``lo..hi``). A noisy
    threshold compared with exact query answers in ``0..m`` is one (CheckDP's BadSVT1, StatDP's iSVT1). A concrete
    execution samples the unbounded law itself.
    """
    a = _ratio(alpha, scale, "compared_geometric")
    if (
        not isinstance(against, tuple)
        or len(against) != 2
        or not all(isinstance(e, int) and not isinstance(e, bool) for e in against)
        or against[0] > against[1]
    ):
        raise WmcdpError(f"compared_geometric() needs against=(lo, hi), two whole numbers lo <= hi, got {against!r}")
    value, sampled = _center("compared_geometric", center, lambda rng: _one_sided(a, rng) - _one_sided(a, rng))
    if sampled is not None:
        return sampled
    lo, hi = against

    def at_least(k: int) -> Fraction:  # P(Z >= k)
        return a**k / (1 + a) if k >= 1 else 1 - a ** (1 - k) / (1 + a)

    def weights(v: int) -> dict[int, Fraction]:
        out = {u: (1 - a) / (1 + a) * a ** abs(u - v) for u in range(lo, hi + 1)}
        out[lo - 1], out[hi + 1] = at_least(v - lo + 1), at_least(hi + 1 - v)
        return out

    drawn = _selected("compared_geometric", weights, [value], discrete)  # (the output's law is exact: accuracy too)
    return Compared(drawn.guards, against)


def one_sided_geometric(center: Int | Bool | int, alpha: object = None, scale: object = None) -> Int:
    """``center + Z`` with one-sided geometric noise ``P(Z = k) = (1 - a) a^k`` for ``k >= 0`` (module
    docstring); ``alpha`` and ``scale`` as in :func:`geometric`."""
    a = _ratio(alpha, scale, "one_sided_geometric")

    def weights(W: int) -> dict[int, Any]:
        inside = 1 - a ** (W + 1)
        return {k: (1 - a) * a**k / inside for k in range(W + 1)}

    return _draw("one_sided_geometric", center, weights, lambda W: a ** (W + 1), lambda rng: _one_sided(a, rng))


def _variance(sigma2: object) -> Fraction:
    if is_symbolic(sigma2):
        raise WmcdpError("discrete_gaussian() needs a number for sigma2, not a symbolic parameter")
    s = Fraction(as_number(sigma2, "sigma2"))
    if not s > 0:
        raise WmcdpError(f"discrete_gaussian() needs sigma2 > 0, got {format_number(s)}")
    return s


def _text(q: Fraction) -> str:
    return f"{q.numerator}/{q.denominator}"


def _gaussian_terms(sigma2: Fraction, W: int) -> tuple[dict[int, Real], Real]:
    """``e^(-z^2 / (2 sigma2))`` for ``0 <= z <= W`` and their sum over ``|z| <= W``, exact reals."""
    s = _text(sigma2)
    terms = {z: Real(f"exp(-{z * z}/(2*{s}))") for z in range(W + 1)}
    inside = Real(
        f"sum(exp(-z^2/(2*{s})) for |z| <= {W})",
        ball=lambda: terms[0]._ball() + 2 * sum(terms[z]._ball() for z in range(1, W + 1)),
    )
    return terms, inside


def gaussian_weights(sigma2: Fraction, W: int) -> dict[int, Real]:
    """The discrete Gaussian conditioned on ``|z| <= W``, as exact reals."""
    terms, inside = _gaussian_terms(sigma2, W)
    return {z: terms[abs(z)] / inside for z in range(-W, W + 1)}


def gaussian_tail(sigma2: Fraction, W: int) -> Fraction:
    """A rational upper bound of the discrete Gaussian's mass outside ``|z| <= W`` (module docstring)."""
    _, inside = _gaussian_terms(sigma2, W)
    tail = Real(f"2*exp(-{(W + 1) ** 2}/(2*{_text(sigma2)}))/(1 - exp(-{W + 1}/{_text(sigma2)}))")
    mid, rad = (tail / (inside + tail)).enclosure(TAIL_PRECISION)
    return min(mid + rad, Fraction(1))


def _gaussian_sample(sigma2: Fraction, rng: random.Random) -> int:
    """A sample by Canonne, Kamath and Steinke's rejection from discrete Laplace noise of scale ``t``."""
    s = float(sigma2)
    t = math.floor(math.sqrt(s)) + 1
    a = Fraction(math.exp(-1 / t))
    while True:
        y = _one_sided(a, rng) - _one_sided(a, rng)
        if rng.random() < math.exp(-((abs(y) - s / t) ** 2) / (2 * s)):
            return y


def discrete_gaussian(center: Int | Bool | int, sigma2: object) -> Int:
    """``center + Z`` with discrete Gaussian noise ``P(Z = z) ∝ e^(-z^2 / (2 sigma2))`` on all of Z (module
    docstring; Canonne, Kamath, Steinke 2020). ``sigma2`` is a rational (a float read as its binary64 value); the
    weights are exact reals (:class:`wmcdp.Real`), bracketed with certified bounds."""
    s = _variance(sigma2)
    return _draw(
        "discrete_gaussian",
        center,
        lambda W: gaussian_weights(s, W),
        lambda W: gaussian_tail(s, W),
        lambda rng: _gaussian_sample(s, rng),
    )


__all__ = [
    "UnboundedDraw",
    "Window",
    "compared_geometric",
    "discrete_gaussian",
    "gaussian_tail",
    "gaussian_weights",
    "geometric",
    "one_sided_geometric",
    "released_geometric",
    "window",
]
