"""wmcdp: exact, tight differential-privacy and accuracy bounds by weighted model counting.

>>> from programs import randomized_response
>>> from wmcdp import synthesize_privacy
>>> synthesize_privacy(randomized_response(3, "1/5")).ratio
Fraction(4, 1)
"""

from .accuracy import AccuracyResult, synthesize_accuracy
from .compile import Compiled, compile_program
from .errors import CoverageError, WmcdpError
from .inference import DenseTable, ProbabilityTable, inference
from .lang import Bits, Bool, Int, IntVector, Program, discrete, flip, ite, truncated_geometric, uniform
from .privacy import PrivacyResult, PrivacyWitness, synthesize_privacy
from .sets import (AccuracySet, InferenceSet, PrivacySet, Relation, exhaustive_accuracy, exhaustive_inference,
                   exhaustive_privacy)

__version__ = "0.1.0"

__all__ = [
    "inference", "synthesize_privacy", "synthesize_accuracy", "compile_program", "Compiled",
    "PrivacyResult", "PrivacyWitness", "AccuracyResult", "ProbabilityTable", "DenseTable",
    "InferenceSet", "PrivacySet", "AccuracySet", "Relation", "exhaustive_inference", "exhaustive_privacy",
    "exhaustive_accuracy", "Program", "Bits", "IntVector", "Bool", "Int", "flip", "discrete", "uniform", "ite",
    "truncated_geometric",
    "WmcdpError", "CoverageError",
]
