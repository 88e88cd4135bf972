"""wmcdp: exact, tight differential-privacy and accuracy bounds by weighted model counting.

>>> from programs import randomized_response
>>> from wmcdp import synthesize_privacy
>>> synthesize_privacy(randomized_response(3, "1/5")).ratio
Fraction(4, 1)

The names below load on first use (PEP 562), so ``import wmcdp`` is cheap and the ``wmcdp``
command can report an interrupt during start-up in one line.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "synthesize_accuracy": "accuracy", "AccuracyResult": "accuracy",
    "compile_program": "compile", "Compiled": "compile",
    "WmcdpError": "errors", "CoverageError": "errors",
    "inference": "inference", "DenseTable": "inference", "ProbabilityTable": "inference",
    "Bits": "lang", "Bool": "lang", "Int": "lang", "IntVector": "lang", "Program": "lang", "discrete": "lang",
    "flip": "lang", "ite": "lang", "truncated_geometric": "lang", "uniform": "lang",
    "synthesize_privacy": "privacy", "PrivacyResult": "privacy", "PrivacyWitness": "privacy",
    "AccuracySet": "sets", "InferenceSet": "sets", "PrivacySet": "sets", "Relation": "sets",
    "exhaustive_accuracy": "sets", "exhaustive_inference": "sets", "exhaustive_privacy": "sets",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'wmcdp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
