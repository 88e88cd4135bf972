"""Certified bounds for irrational weights: enclosures ``[lo, hi]`` of ε, δ(ε), ε(δ) and Rényi divergences.

A :class:`Real` is an exact real number — rationals combined with ``+ - * /``, powers, ``exp``, ``log``
and ``sqrt`` — that evaluates to an arb ball (python-flint) at any precision. In a program it is a
probability like any other: float runs use its correctly rounded double, and a *certified* run
(``certified=True``, ``--certified``) encloses the exact answer.

**The enclosure.** At precision ``P`` every random bit whose weight is a :class:`Real` gets a rational
midpoint ``m_i`` (the ball's centre) and a radius ``r_i`` with the true weight in ``[m_i − r_i, m_i + r_i]``;
the program with the midpoints is counted exactly. Each output distribution is a function of the random
bits, and changing bit ``i``'s probability by ``r_i`` moves the joint distribution of the bits by at most
``r_i`` in total variation, so every probability moves by at most ``E = Σ r_i``. A nonzero probability is
at least the smallest path weight ``w`` of the diagram (a path's weight is a product of its literals'
weights), and a zero stays zero (a probability that vanishes at interior weights has no path), so every
nonzero probability is within a relative ``ρ = E / (w − E)`` of its midpoint value. Then, uniformly over
every pair the notion maximises over:

* pure ε: the ratio within a factor ``(1 ± ρ) / (1 ∓ ρ)`` of the midpoint run's;
* δ(ε): each hockey-stick sum within ``2E (1 + e^ε)`` (both output distributions move by at most ``E`` in
  total variation, i.e. ``2E`` in L1);
* ε(δ): between the midpoint run's ε at ``δ + η`` and at ``δ − η``, with ``η = 2E (1 + e^ε)`` at the upper end;
* Rényi of order α: ``Σ p^α q^{1−α}`` within ``(1 + ρ)^{±(α + |1−α|)}``, so ``D_α`` within
  ``(α + |1 − α|) · ln(1/(1 − ρ)) / |α − 1|``.

The precision is doubled until the enclosure is narrower than ``2^-50`` relative; the result says the
precision used.
"""

from __future__ import annotations

import ast
import math
import operator
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import gmpy2

from .errors import WmcdpError

#: the first precision (bits) of a certified run, and the last one tried
START_PRECISION = 64
MAX_PRECISION = 1 << 15
#: a certified run ends when the enclosure is this narrow, relative to its size
RELATIVE_WIDTH = 2.0**-50
#: MPFR's widest exponent range: no bound of an exact number under- or overflows
_WIDE = {"emax": gmpy2.get_emax_max(), "emin": gmpy2.get_emin_min()}

#: the functions an exact real may apply
FUNCTIONS = frozenset({"exp", "log", "sqrt"})
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def _flint() -> Any:
    import flint  # deferred: python-flint takes 0.1 s to load and only a certified run needs it

    return flint


class Real:
    """An exact real number, evaluated as an arb ball at a requested precision.

    ``Real("exp(-1/2)")`` parses rationals, ``+ - * /``, ``**`` and ``exp``, ``log``, ``sqrt``; Reals
    combine with ints, Fractions and each other by the same operators. ``float(r)`` is correctly rounded.
    """

    __slots__ = ("_fn", "_cache", "text")

    def __init__(self, text: str | None = None, *, ball: Callable[[], Any] | None = None) -> None:
        if ball is None:
            if text is None:
                raise WmcdpError("Real needs an expression such as 'exp(-1/2)'")
            ball = _parse(text)
        self._fn = ball
        self._cache: dict[int, Any] = {}  # precision -> ball (a number is often a part of many sums)
        self.text = text if text is not None else "?"

    def _ball(self) -> Any:
        """The ball at the working precision (python-flint's ``ctx.prec``), computed once per precision."""
        precision = _flint().ctx.prec
        value = self._cache.get(precision)
        if value is None:
            value = self._cache[precision] = self._fn()
        return value

    def ball(self, precision: int) -> Any:
        """The arb ball of this number at ``precision`` bits (an error when it is not a finite real:
        ``1/0``, ``log(-1)``, ``sqrt(-2)``)."""
        flint = _flint()
        with flint.ctx.workprec(precision):
            b = self._ball()
        if not b.is_finite():
            raise WmcdpError(f"{self.text} is not a finite real number")
        return b

    def enclosure(self, precision: int) -> tuple[Fraction, Fraction]:
        """``(midpoint, radius)`` as exact rationals, the number within ``radius`` of ``midpoint``."""
        b = self.ball(precision)
        return _fraction(b.mid()), _fraction(b.rad())

    def __float__(self) -> float:
        precision = 128
        while precision <= MAX_PRECISION:
            mid, rad = self.enclosure(precision)
            a, c = _round(mid - rad), _round(mid + rad)
            if a == c:
                return a
            precision *= 2
        raise WmcdpError(f"cannot round {self.text} to a float (it may be exactly between two floats)")

    def sign(self) -> int:
        """-1, 0 or 1, decided at increasing precision; 0 only for a number whose ball is exactly 0."""
        precision = 64
        while precision <= MAX_PRECISION:
            b = self.ball(precision)
            if b.mid() == 0 and b.rad() == 0:
                return 0
            if b > 0:
                return 1
            if b < 0:
                return -1
            precision *= 2
        raise WmcdpError(f"cannot decide the sign of {self.text} (is it exactly 0?)")

    def __bool__(self) -> bool:
        return self.sign() != 0

    def _combine(self, other: object, op: Callable[[Any, Any], Any], symbol: str, swap: bool = False) -> Real:
        if isinstance(other, Real):
            right = other
        elif isinstance(other, (int, Fraction)) and not isinstance(other, bool):
            right = Real(_text(other), ball=_constant(Fraction(other)))
        else:
            return NotImplemented  # type: ignore[no-any-return]  # (typeshed types it as Any) Python tries the other side
        a, b = (right, self) if swap else (self, right)
        return Real(f"({a.text}) {symbol} ({b.text})", ball=lambda: op(a._ball(), b._ball()))

    def __add__(self, o: object) -> Real:
        return self._combine(o, operator.add, "+")

    def __radd__(self, o: object) -> Real:
        return self._combine(o, operator.add, "+", True)

    def __sub__(self, o: object) -> Real:
        return self._combine(o, operator.sub, "-")

    def __rsub__(self, o: object) -> Real:
        return self._combine(o, operator.sub, "-", True)

    def __mul__(self, o: object) -> Real:
        return self._combine(o, operator.mul, "*")

    def __rmul__(self, o: object) -> Real:
        return self._combine(o, operator.mul, "*", True)

    def __truediv__(self, o: object) -> Real:
        return self._combine(o, operator.truediv, "/")

    def __rtruediv__(self, o: object) -> Real:
        return self._combine(o, operator.truediv, "/", True)

    def __pow__(self, k: int) -> Real:
        if isinstance(k, bool) or not isinstance(k, int):
            return NotImplemented
        return Real(f"({self.text})**{k}", ball=lambda: self._ball() ** k)

    def log(self) -> Real:
        """The natural log (of a positive number)."""
        return Real(f"log({self.text})", ball=lambda: self._ball().log())

    def __neg__(self) -> Real:
        return Real(f"-({self.text})", ball=lambda: -self._ball())

    def _compare(self, other: object) -> int:
        self.ball(64)  # a number that is not finite is refused in its own words
        diff = self - other
        if diff is NotImplemented:
            raise TypeError(f"cannot compare a Real with {other!r}")
        return diff.sign()

    def __lt__(self, o: object) -> bool:
        return self._compare(o) < 0

    def __le__(self, o: object) -> bool:
        return self._compare(o) <= 0

    def __gt__(self, o: object) -> bool:
        return self._compare(o) > 0

    def __ge__(self, o: object) -> bool:
        return self._compare(o) >= 0

    def __eq__(self, o: object) -> bool:
        if not isinstance(o, (Real, int, Fraction)):
            return NotImplemented
        return self._compare(o) == 0

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Real({self.text!r})"

    def __str__(self) -> str:
        return self.text


def is_real(value: object) -> bool:
    return isinstance(value, Real)


def _fraction(x: Any) -> Fraction:
    """An exact arb midpoint or radius (a dyadic number) as a Fraction."""
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def _round(q: Fraction) -> float:
    with gmpy2.context(precision=53, emax=1024, emin=-1073, subnormalize=True):
        return float(gmpy2.mpq(q.numerator, q.denominator))


def _text(q: int | Fraction) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def arb_of(q: Fraction | int) -> Any:
    """The ball of a rational at the working precision (exact when it is dyadic and fits)."""
    q = Fraction(q)
    return _flint().arb(q.numerator) / q.denominator


def _constant(q: Fraction) -> Callable[[], Any]:
    return lambda: arb_of(q)


def _parse(text: str) -> Callable[[], Any]:
    """The ball function of an expression over rationals with + - * / **, exp, log and sqrt."""
    if len(text) > 2000:
        raise WmcdpError(f"an expression of {len(text)} characters is too long (at most 2000)")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise WmcdpError(f"{text!r} is not an expression such as 'exp(-1/2)'") from None
    return _build(tree, text)


def _build(node: ast.AST, text: str) -> Callable[[], Any]:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _constant(Fraction(node.value))
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return _constant(Fraction(ast.get_source_segment(text, node) or repr(node.value)))  # the decimal as written
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _build(node.operand, text)
        return (lambda: -inner()) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        op = _OPERATORS[type(node.op)]
        left, right = _build(node.left, text), _build(node.right, text)
        return lambda: op(left(), right())
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        name, arg = node.func.id, _build(node.args[0], text)
        return lambda: getattr(arg(), name)()
    raise WmcdpError(f"{text!r}: only numbers, + - * / **, exp(), log() and sqrt() may appear in a certified number")


# -- a certified run's weights ------------------------------------------------------------


@dataclass
class _Run:
    precision: int
    radius: Fraction = Fraction(0)  # the sum of the radii of the weights made so far


_RUN: ContextVar[_Run | None] = ContextVar("wmcdp_certified_run", default=None)


@contextmanager
def weights_at(precision: int) -> Iterator[_Run]:
    """Inside the block, every :class:`Real` weight becomes its midpoint at ``precision`` bits, and the
    run adds up the radii (compile the program inside it)."""
    run = _Run(precision)
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)


def weight_pair(one: Real, zero: Real) -> tuple[Any, Any]:
    """The two literal weights of a bit with these exact probabilities: midpoints (Fractions, clamped
    into [0, 1], summing to 1) in a certified run, correctly rounded floats otherwise."""
    run = _RUN.get()
    if run is None:
        return float(one), float(zero)
    mid, rad = one.enclosure(run.precision)
    clamped = min(max(mid, Fraction(0)), Fraction(1))
    run.radius += rad + abs(mid - clamped)
    return clamped, 1 - clamped


# -- enclosures -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Enclosure:
    """A rigorous interval ``[lo, hi]`` and the precision that gave it. The ends are floats rounded outwards,
    or exact dyadic Fractions where rounding outwards would leave the float range (a positive lower end below
    the smallest float is never rounded to 0)."""

    lo: float | Fraction
    hi: float | Fraction
    precision: int
    of: str = "epsilon"  # what it encloses: "epsilon" or "delta"

    def as_list(self) -> list[float | str]:
        """The ends for JSON: floats, or (exact ends) strings in scientific notation rounded outwards."""
        return [_json(self.lo, False), _json(self.hi, True)]

    def text(self) -> str:
        return f"[{_end_text(self.lo, False)}, {_end_text(self.hi, True)}] at {self.precision} bits"


def _json(x: float | Fraction, up: bool) -> float | str:
    if isinstance(x, Fraction):
        return _end_text(x, up)
    return ("inf" if x > 0 else "-inf") if math.isinf(x) else x


def _end_text(x: float | Fraction, up: bool) -> str:
    """A float end as Python prints it; an exact end in scientific notation with 17 digits, rounded outwards."""
    if isinstance(x, float):
        return repr(x)
    rounding = gmpy2.RoundUp if up else gmpy2.RoundDown
    with gmpy2.context(precision=96, round=rounding, **_WIDE):
        value = gmpy2.mpfr(gmpy2.mpq(x.numerator, x.denominator))
    return format(value, ".16" + ("U" if up else "D") + "e").replace("e+", "e").replace("e-0", "e-")


def narrow(lo: float | Fraction, hi: float | Fraction) -> bool:
    """The stopping rule: a relative width below :data:`RELATIVE_WIDTH` (or both ends equal)."""
    if lo == hi:
        return True
    if any(isinstance(end, float) and math.isinf(end) for end in (lo, hi)):
        return False
    low, high = Fraction(lo), Fraction(hi)
    return high - low <= Fraction(RELATIVE_WIDTH) * max(abs(low), abs(high))


def relative_error(radius: Fraction, min_path_log2: float) -> Fraction | None:
    """``ρ = E / (w − E)`` with ``w`` a lower bound of the smallest path weight (two bits below the float
    ``log2`` the diagram reports, which covers its rounding); None unless ``ρ < 1`` (``E`` below ``w / 2``): the
    pure ε and Rényi enclosures divide by ``1 − ρ``."""
    if radius == 0:
        return Fraction(0)
    exponent = math.floor(min_path_log2) - 2
    w = Fraction(2) ** exponent
    if 2 * radius >= w:
        return None
    return radius / (w - radius)


def log_down(q: Fraction) -> float:
    """A float at most ``ln q`` (``-inf`` for ``q <= 0``)."""
    return _log(q, gmpy2.RoundDown)


def log_up(q: Fraction) -> float:
    """A float at least ``ln q``."""
    return _log(q, gmpy2.RoundUp)


def _log(q: Fraction, rounding: Any) -> float:
    if q <= 0:
        return -math.inf
    with gmpy2.context(precision=max(64, q.numerator.bit_length(), q.denominator.bit_length()) + 64, round=rounding):
        value = gmpy2.log(gmpy2.mpq(q.numerator, q.denominator))
    with gmpy2.context(precision=53, round=rounding, emax=1024, emin=-1073, subnormalize=True):
        return float(gmpy2.mpfr(value))


def exp_bound(x: float, precision: int = 128, up: bool = True) -> Fraction:
    """A rational at least (``up``) or at most ``e^x``, rounded at ``precision`` bits."""
    with gmpy2.context(precision=precision, round=gmpy2.RoundUp if up else gmpy2.RoundDown):
        return Fraction(*gmpy2.exp(gmpy2.mpfr(x)).as_integer_ratio())


def outward(q: Fraction, up: bool) -> float | Fraction:
    """The nearest float on the outer side of ``q`` (below for a lower end, above for an upper end), or ``q``
    itself outside the normal float range (where that float would be subnormal, 0 or infinite)."""
    if q != 0 and not _SMALLEST_NORMAL <= abs(q) <= _LARGEST:
        return q
    down, above = float_bracket(q)
    return above if up else down


def exp_outward(x: float, up: bool) -> float | Fraction:
    """``e^x`` rounded outwards (:func:`outward`): a float, or an exact dyadic Fraction outside the float range
    (``e^{-1000}`` is not 0); ``x = -inf`` gives 0."""
    if x == -math.inf:
        return 0.0
    with gmpy2.context(precision=80, round=gmpy2.RoundUp if up else gmpy2.RoundDown, **_WIDE):
        value = Fraction(*gmpy2.exp(gmpy2.mpfr(x)).as_integer_ratio())
    return outward(value, up)


_SMALLEST_NORMAL = Fraction(2) ** -1022
_LARGEST = Fraction(sys.float_info.max)


def exp_sign(a: int, b: int, x: float) -> int:
    """The sign of ``a − b·e^x`` for integers ``a``, ``b`` and a float ``x`` (``x = ∞`` allowed), decided exactly.

    ``e^x`` is irrational for a float ``x ≠ 0`` (Lindemann), so ``a − b·e^x`` is 0 only when ``a = b = 0``; else
    for ``a, b > 0`` its sign is that of ``ln(a/b) − x``, and ``ln(a/b)`` is bounded by directed rounding at
    doubling precision until the bounds leave ``x`` (no ``e^x`` is formed, so a huge ``x`` costs nothing)."""
    if x == 0 or b == 0:
        return (a > b) - (a < b) if x == 0 else (a > 0) - (a < 0)
    if b < 0:
        return 1 if a >= 0 else -exp_sign(-a, -b, x)
    if a <= 0 or x == math.inf:
        return -1
    if x == -math.inf:
        return 1
    ratio = gmpy2.mpq(a - b, b)
    precision = 64
    while precision <= 1 << 24:
        bounds = []
        for rounding in (gmpy2.RoundDown, gmpy2.RoundUp):
            with gmpy2.context(precision=precision, round=rounding, **_WIDE):
                bounds.append(gmpy2.log1p(gmpy2.mpfr(ratio)))
        if bounds[0] > x:
            return 1
        if bounds[1] < x:
            return -1
        precision *= 2
    raise WmcdpError(f"cannot decide whether {a}/{b} exceeds e^{x!r} by 2^24 bits of precision")


@dataclass(frozen=True, eq=False)
class ExpGap:
    """The exact real ``(A − B·e^x) / D`` for integers ``A``, ``B`` and ``D > 0`` and a float ``x``: δ(ε) of one
    pair at an irrational ``e^ε`` (``x = ε``), whose masses are ``A`` and ``B`` over ``D``. With ``B = 0`` it is the
    rational ``A / D`` (``x`` may then be ∞).

    Gaps compare exactly with each other (of one ``x``), with rationals and with floats (:func:`exp_sign`):
    two are equal only when their rational parts and ``e^x`` parts are equal, since ``e^x`` is irrational.
    :meth:`settle` encloses a positive gap at doubling precision."""

    A: int
    B: int
    D: int
    x: float

    @property
    def rational(self) -> Fraction | None:
        """The value when it is rational (``B = 0``), else None."""
        return Fraction(self.A, self.D) if self.B == 0 else None

    def _sign_minus(self, other: object) -> int:
        """The sign of ``self − other``."""
        if isinstance(other, ExpGap):
            if self.B and other.B and self.x != other.x:
                raise ValueError("gaps at different thresholds do not compare")
            a, b = self.A * other.D - other.A * self.D, self.B * other.D - other.B * self.D
            return exp_sign(a, b, self.x if self.B else other.x)
        if isinstance(other, float) and math.isinf(other):
            return -1 if other > 0 else 1
        if isinstance(other, (int, float, Fraction)):
            q = Fraction(other)
            return exp_sign(self.A * q.denominator - q.numerator * self.D, self.B * q.denominator, self.x)
        raise TypeError(f"cannot compare an exact real with {other!r}")

    def __lt__(self, other: object) -> bool:
        return self._sign_minus(other) < 0

    def __le__(self, other: object) -> bool:
        return self._sign_minus(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._sign_minus(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._sign_minus(other) >= 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (ExpGap, int, float, Fraction)):
            return NotImplemented
        return self._sign_minus(other) == 0

    __hash__ = None  # type: ignore[assignment]

    def bounds(self, precision: int) -> tuple[Fraction, Fraction]:
        """Rationals ``lo ≤ (A − B·e^x)/D ≤ hi``: ``e^x`` rounded up and down at ``precision`` bits beyond the
        integers' own (which stay exact), the difference rounded outwards (no exponent range is left)."""
        if self.B == 0:
            q = Fraction(self.A, self.D)
            return q, q
        bits = max(self.A.bit_length(), self.B.bit_length()) + precision
        ends = []
        for rounding, other in ((gmpy2.RoundDown, gmpy2.RoundUp), (gmpy2.RoundUp, gmpy2.RoundDown)):
            with gmpy2.context(precision=bits, round=other, **_WIDE):
                subtrahend = gmpy2.exp(gmpy2.mpfr(self.x)) * self.B
            with gmpy2.context(precision=bits, round=rounding, **_WIDE):
                difference = gmpy2.mpfr(self.A) - subtrahend
            ends.append(Fraction(*difference.as_integer_ratio()) / self.D)
        return ends[0], ends[1]

    def settle(self) -> tuple[float, float, Enclosure]:
        """``(value, ln value, enclosure)`` of a positive gap: the value and its log rounded to the nearest float
        (the value may round to 0.0 below the float range; its log does not), and an enclosure narrower than
        :data:`RELATIVE_WIDTH` whose lower end is positive — precision doubles until the roundings of both ends
        agree."""
        precision = START_PRECISION
        while precision <= 1 << 24:
            lo, hi = self.bounds(precision)
            if hi <= 0:
                raise ValueError(f"{self} is not positive")
            if lo > 0 and hi - lo <= Fraction(RELATIVE_WIDTH) * lo:
                value, log = _round(lo), _log(lo, gmpy2.RoundToNearest)
                if value == _round(hi) and log == _log(hi, gmpy2.RoundToNearest):
                    enclosure = Enclosure(outward(lo, False), outward(hi, True), precision, "delta")
                    return value, log, enclosure
            precision *= 2
        raise WmcdpError(f"cannot round ({self.A} - {self.B} e^{self.x!r}) / {self.D} by 2^24 bits of precision")


def float_bracket(q: Fraction) -> tuple[float, float]:
    """The largest float at most ``q`` and the smallest float at least ``q``."""
    f = float(q)
    down = f if Fraction(f) <= q else math.nextafter(f, -math.inf)
    up = f if Fraction(f) >= q else math.nextafter(f, math.inf)
    return down, up


__all__ = [
    "arb_of",
    "Enclosure",
    "FUNCTIONS",
    "MAX_PRECISION",
    "RELATIVE_WIDTH",
    "Real",
    "START_PRECISION",
    "exp_bound",
    "exp_sign",
    "ExpGap",
    "float_bracket",
    "is_real",
    "log_down",
    "log_up",
    "narrow",
    "outward",
    "relative_error",
    "weight_pair",
    "weights_at",
]
