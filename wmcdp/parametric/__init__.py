"""Bounds as exact piecewise functions of one parameter (parametric weighted model counting).

Give a program a :class:`Parameter` in place of a number (``lam = Parameter("lam", 0, Fraction(1, 2))``,
``randomized_response(10, lam)``): every weight that depends on it is a rational function of the parameter,
checked to be a probability on the whole interval, and :func:`wmcdp.synthesize_privacy`,
:func:`wmcdp.synthesize_accuracy` and :func:`wmcdp.synthesize_approximate` (δ at a rational e^ε) return the
bound as a piecewise function (:class:`PiecewisePrivacyResult`, :class:`PiecewiseAccuracyResult`,
:class:`PiecewiseDeltaResult`) with a witness per piece. :mod:`.counting` counts, :mod:`.envelope` takes
the maximum (or minimum) over the set, :mod:`.roots` isolates the breakpoints exactly, :mod:`.bounds` puts
them together per notion.
"""

from .functions import Function, Parameter
from .results import PiecewiseAccuracyResult, PiecewiseDeltaResult, PiecewisePrivacyResult

__all__ = ["Function", "Parameter", "PiecewiseAccuracyResult", "PiecewiseDeltaResult", "PiecewisePrivacyResult"]
