"""Rational functions of one symbolic parameter: the weights and the probabilities of a parametric run.

A :class:`Parameter` ``t`` ranges over a closed rational interval ``[lo, hi]``. Arithmetic with it (``1 - t``,
``t / 2``, ``(1 - t) / (1 + t) * t**3``) gives :class:`Function` values ``p(t) / q(t)`` with rational
coefficients (python-flint ``fmpq_poly``), kept in lowest terms with a monic denominator, so two equal
functions have equal parts. A random choice may take a function as its weight when it lies in [0, 1] on the
whole interval (:meth:`Function.check_probability`, decided exactly from the real roots of ``p``, ``q`` and
``q - p``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..base.errors import WmcdpError
from ..base.numbers import as_number, format_number
from ..base.polys import Poly, coefficients, fmpq, fraction
from ..base.roots import nonnegative_on


class Function:
    """``num(t) / den(t)`` for the parameter ``parameter``; ``den`` is monic and coprime to ``num``."""

    is_symbolic = True
    __slots__ = ("num", "den", "parameter")

    def __init__(self, num: Poly, den: Poly, parameter: Parameter) -> None:
        if den.is_zero():
            raise WmcdpError(f"division by zero in a function of the symbolic parameter {parameter.name}")
        if num.is_zero():
            num, den = Poly([]), Poly([1])
        else:
            g = num.gcd(den)
            if not g.is_one():
                num, den = num // g, den // g
            lead = den.leading_coefficient()
            if lead != 1:
                num, den = num / lead, den / lead
        self.num, self.den, self.parameter = num, den, parameter

    # -- arithmetic ------------------------------------------------------------------------
    def _lift(self, other: object) -> Function:
        if isinstance(other, Function):
            if other.parameter is not self.parameter:
                raise WmcdpError(
                    f"a run has one symbolic parameter; {self.parameter.name} and {other.parameter.name} "
                    "appear together"
                )
            return other
        if isinstance(other, float):
            raise WmcdpError(
                f"a function of the symbolic parameter {self.parameter.name} takes exact numbers, "
                f"got the float {other!r}; give it as a fraction"
            )
        value = as_number(other, "a number combined with a symbolic parameter")
        return Function(Poly([fmpq(Fraction(value))]), Poly([1]), self.parameter)

    def __add__(self, other: object) -> Function:
        o = self._lift(other)
        return Function(self.num * o.den + o.num * self.den, self.den * o.den, self.parameter)

    __radd__ = __add__

    def __sub__(self, other: object) -> Function:
        o = self._lift(other)
        return Function(self.num * o.den - o.num * self.den, self.den * o.den, self.parameter)

    def __rsub__(self, other: object) -> Function:
        return self._lift(other) - self

    def __mul__(self, other: object) -> Function:
        o = self._lift(other)
        return Function(self.num * o.num, self.den * o.den, self.parameter)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Function:
        o = self._lift(other)
        if o.num.is_zero():
            raise WmcdpError(f"division by a function of {self.parameter.name} that is zero everywhere")
        return Function(self.num * o.den, self.den * o.num, self.parameter)

    def __rtruediv__(self, other: object) -> Function:
        return self._lift(other) / self

    def __neg__(self) -> Function:
        return Function(-self.num, self.den, self.parameter)

    def __pow__(self, k: int) -> Function:
        if not isinstance(k, int):
            raise WmcdpError(f"a function of {self.parameter.name} is raised only to whole powers, got {k!r}")
        if k < 0:
            return Function(self.den**-k, self.num**-k, self.parameter)
        return Function(self.num**k, self.den**k, self.parameter)

    def __eq__(self, other: object) -> bool:
        try:
            o = self._lift(other)
        except WmcdpError:
            return False
        return bool(self.num == o.num and self.den == o.den)

    def __hash__(self) -> int:
        return hash((str(self.num), str(self.den)))

    def __bool__(self) -> bool:
        return not self.num.is_zero()

    def _no_order(self, other: object) -> bool:
        raise WmcdpError(
            f"a function of the symbolic parameter {self.parameter.name} has no single value to compare; "
            "wmcdp checks weights over the whole interval itself"
        )

    __lt__ = __le__ = __gt__ = __ge__ = _no_order

    # -- values ------------------------------------------------------------------------------
    def __call__(self, t: int | Fraction) -> Fraction:
        """The value at ``t`` (an error where the denominator vanishes)."""
        q = fmpq(t)
        d = self.den(q)
        if d == 0:
            raise WmcdpError(f"{self} is undefined at {self.parameter.name} = {format_number(Fraction(t))}")
        return fraction(self.num(q) / d)

    @property
    def degree(self) -> int:
        """``max(deg num, deg den)``."""
        return max(self.num.degree(), self.den.degree(), 0)

    def __str__(self) -> str:
        return function_text(self.num, self.den, self.parameter.name)

    __repr__ = __str__

    def check_probability(self, name: str) -> Function:
        """This function as a probability: in [0, 1] for every value of the parameter's interval."""
        lo, hi = self.parameter.lo, self.parameter.hi
        t = self.parameter.name
        bad = nonnegative_on(self.den, lo, hi, strict=True)
        if bad is not None:
            raise WmcdpError(f"{name} {self} is undefined at {t} = {format_number(bad)} (in [{_interval(self)}])")
        for poly in (self.num, self.den - self.num):  # p >= 0 and q - p >= 0, with q > 0 on the interval
            bad = nonnegative_on(poly, lo, hi)
            if bad is not None:
                raise WmcdpError(
                    f"{name} {self} must lie in [0, 1] for every {t} in [{_interval(self)}]; "
                    f"at {t} = {format_number(bad)} it is {format_number(self(bad))}"
                )
        return self

    def check_open_unit(self, name: str) -> Function:
        """This function in (0, 1) on the whole interval (the ratio of a geometric mechanism)."""
        self.check_probability(name)
        lo, hi = self.parameter.lo, self.parameter.hi
        for poly in (self.num, self.den - self.num):
            bad = nonnegative_on(poly, lo, hi, strict=True)
            if bad is not None:
                raise WmcdpError(
                    f"{name} {self} must lie in (0, 1) for every {self.parameter.name} in [{_interval(self)}]; "
                    f"at {self.parameter.name} = {format_number(bad)} it is {format_number(self(bad))}"
                )
        return self


def _interval(f: Function) -> str:
    return f"{format_number(f.parameter.lo)}, {format_number(f.parameter.hi)}"


class Parameter(Function):
    """The symbolic parameter ``name`` over ``[lo, hi]`` (rationals, ``lo < hi``): the function ``t``."""

    __slots__ = ("name", "lo", "hi")

    def __init__(self, name: str, lo: object, hi: object) -> None:
        lo_, hi_ = as_number(lo, f"{name} (lower end)"), as_number(hi, f"{name} (upper end)")
        if isinstance(lo_, float) or isinstance(hi_, float):
            lo_, hi_ = Fraction(str(lo_)), Fraction(str(hi_))
        if not lo_ < hi_:
            raise WmcdpError(
                f"the interval of {name} must have lo < hi, got {format_number(lo_)}..{format_number(hi_)}"
            )
        self.name, self.lo, self.hi = name, Fraction(lo_), Fraction(hi_)
        super().__init__(Poly([0, 1]), Poly([1]), self)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__
    __hash__ = Function.__hash__

    def __eq__(self, other: object) -> bool:
        return other is self or Function.__eq__(self, other)

    def describe(self) -> str:
        return f"{self.name} in [{format_number(self.lo)}, {format_number(self.hi)}]"


# -- plain notation -----------------------------------------------------------------------------


def poly_text(p: Poly, t: str, latex: bool = False) -> str:
    """``p`` in plain notation, ``1 - 5/2*t + t^2``, or in LaTeX, ``1 - \\tfrac{5}{2} t + t^{2}``."""
    terms = []
    for k, c in enumerate(coefficients(p)):
        if c == 0:
            continue
        a = abs(c)
        if latex:
            number = str(a.numerator) if a.denominator == 1 else rf"\tfrac{{{a.numerator}}}{{{a.denominator}}}"
            mono, times = ("" if k == 0 else t if k == 1 else f"{t}^{{{k}}}"), " "
        else:
            number, mono, times = format_number(a), ("" if k == 0 else t if k == 1 else f"{t}^{k}"), "*"
        text = number if not mono else mono if a == 1 else f"{number}{times}{mono}"
        terms.append(("-" if c < 0 else "+", text))
    if not terms:
        return "0"
    out = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    return out + "".join(f" {sign} {text}" for sign, text in terms[1:])


def function_text(num: Poly, den: Poly, t: str) -> str:
    """``num/den`` in plain notation, each part in parentheses when it has more than one term."""
    if den.is_one():
        return poly_text(num, t)
    parts = coefficients(num) + coefficients(den)  # shown with coprime integer coefficients: 1/(2*t^2)
    scale = Fraction(math.lcm(*(c.denominator for c in parts)), math.gcd(*(c.numerator for c in parts)))
    num, den = num * fmpq(scale), den * fmpq(scale)
    low = next((c for c in coefficients(den) if c != 0), 0)
    if low < 0:  # show 1 - t rather than -1 + t
        num, den = -num, -den
    top = poly_text(num, t)

    bottom = poly_text(den, t)
    if sum(1 for c in num.coeffs() if c != 0) > 1:
        top = f"({top})"
    if not (bottom.isdigit() or bottom == t or bottom.startswith(f"{t}^")):
        bottom = f"({bottom})"
    return f"{top}/{bottom}"


__all__ = ["Function", "Parameter", "poly_text", "function_text"]
