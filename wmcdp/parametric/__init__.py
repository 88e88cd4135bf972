"""Bounds as exact piecewise functions of one parameter (parametric weighted model counting).

Give a program a :class:`Parameter` in place of a number (``lam = Parameter("lam", 0, Fraction(1, 2))``,
``randomized_response(10, lam)``): every weight that depends on it is a rational function of the parameter,
checked to be a probability on the whole interval, and :func:`wmcdp.synthesize_privacy` and
:func:`wmcdp.synthesize_accuracy` return the bound as a piecewise function
(:class:`PiecewisePrivacyResult`, :class:`PiecewiseAccuracyResult`) with a witness per piece, under every
plan. :mod:`.counting` counts, :mod:`.envelope` takes the maximum (or minimum) over the set, :mod:`.roots`
isolates the breakpoints exactly.
"""

from .functions import Function, Parameter
from .results import PiecewiseAccuracyResult, PiecewisePrivacyResult

__all__ = ["Function", "Parameter", "PiecewiseAccuracyResult", "PiecewisePrivacyResult"]
