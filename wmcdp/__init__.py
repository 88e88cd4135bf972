"""wmcdp: exact, tight differential-privacy and accuracy bounds by weighted model counting.

>>> from wmcdp.programs import randomized_response
>>> from wmcdp import synthesize_privacy
>>> synthesize_privacy(randomized_response(3, "1/5")).ratio
Fraction(4, 1)

The names below load on first use (PEP 562), so ``import wmcdp`` is cheap and the ``wmcdp``
command can report an interrupt during start-up in one line. No module of the package has
the name of a name it exports (``wmcdp.probabilities`` holds ``inference``, ``wmcdp.sampling``
holds ``sample``), so importing a submodule never hides one.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

#: public name -> the module that defines it
_EXPORTS = {
    # the DSL
    "Bits": "lang",
    "Bool": "lang",
    "Int": "lang",
    "IntVector": "lang",
    "Program": "lang",
    "discrete": "lang",
    "flip": "lang",
    "ite": "lang",
    "truncated_geometric": "lang",
    "uniform": "lang",
    # compilation and Algorithm 1
    "compile_program": "compile",
    "Compiled": "compile",
    "inference": "probabilities",
    "DenseTable": "probabilities",
    "ProbabilityTable": "probabilities",
    # Algorithms 2 and 3, and the notions beyond pure epsilon
    "synthesize_privacy": "privacy",
    "PrivacyResult": "privacy",
    "PrivacyWitness": "privacy",
    "synthesize_accuracy": "accuracy",
    "AccuracyResult": "accuracy",
    "synthesize_approximate": "approximate",
    "privacy_profile": "approximate",
    "ApproximateResult": "approximate",
    "ProfilePoint": "approximate",
    "synthesize_renyi": "renyi",
    "RenyiResult": "renyi",
    "RenyiOrder": "renyi",
    "privacy_loss_distribution": "loss",
    "PrivacyLoss": "loss",
    "PairSet": "pairs",
    "PairWitness": "pairs",
    # sets, plans and symmetry
    "AccuracySet": "sets",
    "InferenceSet": "sets",
    "PrivacySet": "sets",
    "Relation": "sets",
    "exhaustive_accuracy": "sets",
    "exhaustive_inference": "sets",
    "exhaustive_privacy": "sets",
    "PlanReport": "plan",
    "find_symmetry": "symmetry",
    "privacy_plan": "symmetry",
    "pair_distributions": "symmetry",
    "AutoSets": "symmetry",
    # bounds as functions of a parameter
    "Parameter": "parametric",
    "PiecewisePrivacyResult": "parametric",
    "PiecewiseAccuracyResult": "parametric",
    "PiecewiseDeltaResult": "parametric",
    # sweeps, tables and figures
    "sweep_privacy": "sweep",
    "sweep_accuracy": "sweep",
    "sweep_approximate": "sweep",
    "sweep_renyi": "sweep",
    "parse_over": "sweep",
    "to_dataframe": "sweep",
    "PrivacyRow": "sweep",
    "AccuracyRow": "sweep",
    "render_rows": "tables",
    "plot_rows": "plot",
    # audits of DP libraries
    # exact reals and certified enclosures
    "Real": "certified",
    "Enclosure": "certified",
    "audit_opendp": "audit.opendp",
    "audit_diffprivlib": "audit.diffprivlib",
    "audit_pydp": "audit.pydp",
    "audit_tmlt": "audit.tmlt",
    "grid_model": "models",
    "GridModel": "models",
    "AuditRow": "audit.opendp",
    # running programs, and checking bounds by sampling
    "sample": "sampling",
    "crosscheck": "sampling",
    # runs over workers, errors and limits
    "Workers": "distributed",
    "WmcdpError": "errors",
    "CoverageError": "errors",
    "LimitExceeded": "limits",
    "resource_limits": "limits",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'wmcdp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
