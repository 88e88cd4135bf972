"""wmcdp: exact, tight differential-privacy and accuracy bounds by weighted model counting.

>>> from wmcdp.programs import randomized_response
>>> from wmcdp import synthesize_privacy
>>> synthesize_privacy(randomized_response(3, "1/5")).ratio
Fraction(4, 1)

The names below load on first use (PEP 562), so ``import wmcdp`` is cheap and the ``wmcdp``
command can report an interrupt during start-up in one line. No module of the package has
the name of a name it exports (``wmcdp.count.probabilities`` holds ``inference``, ``wmcdp.notions.sampling``
holds ``sample``), so importing a submodule never hides one.

The package is in layers, one folder each, every module importing only from its own layer and those
below: :mod:`.base` (errors, limits, numbers), :mod:`.lang` (the DSL and the sets), :mod:`.compile`
(decision diagrams), :mod:`.count` (weighted model counting, Algorithm 1), :mod:`.plan` (the planner,
independent parts, symmetries), :mod:`.notions` (Algorithms 2 and 3 and the notions beyond pure ε),
:mod:`.report` (tables, figures), and on top :mod:`.audit` and :mod:`.cli`.
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
    "inference": "count.probabilities",
    "DenseTable": "count.probabilities",
    "ProbabilityTable": "count.probabilities",
    # Algorithms 2 and 3, and the notions beyond pure epsilon
    "synthesize_privacy": "notions.privacy",
    "PrivacyResult": "notions.privacy",
    "PrivacyWitness": "notions.privacy",
    "synthesize_accuracy": "notions.accuracy",
    "AccuracyResult": "notions.accuracy",
    "synthesize_approximate": "notions.approximate",
    "privacy_profile": "notions.approximate",
    "ApproximateResult": "notions.approximate",
    "ProfilePoint": "notions.approximate",
    "synthesize_renyi": "notions.renyi",
    "RenyiResult": "notions.renyi",
    "RenyiOrder": "notions.renyi",
    "privacy_loss_distribution": "notions.loss",
    "PrivacyLoss": "notions.loss",
    "PairSet": "plan.pairs",
    "PairWitness": "plan.pairs",
    # sets, plans and symmetry
    "AccuracySet": "lang.sets",
    "InferenceSet": "lang.sets",
    "PrivacySet": "lang.sets",
    "Relation": "lang.sets",
    "exhaustive_accuracy": "lang.sets",
    "exhaustive_inference": "lang.sets",
    "exhaustive_privacy": "lang.sets",
    "PlanReport": "plan",
    "find_symmetry": "plan.symmetry",
    "privacy_plan": "plan.symmetry",
    "pair_distributions": "plan.symmetry",
    "AutoSets": "plan.symmetry",
    # bounds as functions of a parameter
    "Parameter": "lang.parameter",
    "PiecewisePrivacyResult": "notions.piecewise_results",
    "PiecewiseAccuracyResult": "notions.piecewise_results",
    "PiecewiseDeltaResult": "notions.piecewise_results",
    # sweeps, tables and figures
    "sweep_privacy": "notions.sweep",
    "sweep_accuracy": "notions.sweep",
    "sweep_approximate": "notions.sweep",
    "sweep_renyi": "notions.sweep",
    "parse_over": "notions.sweep",
    "to_dataframe": "notions.sweep",
    "PrivacyRow": "notions.sweep",
    "AccuracyRow": "notions.sweep",
    "render_rows": "report.tables",
    "plot_rows": "report.plot",
    # audits of DP libraries
    # exact reals and certified enclosures
    "Real": "base.certified",
    "Enclosure": "base.certified",
    "audit_opendp": "audit.opendp",
    "audit_diffprivlib": "audit.diffprivlib",
    "audit_pydp": "audit.pydp",
    "audit_tmlt": "audit.tmlt",
    "audit_pureldp": "audit.pureldp",
    "audit_multifreq": "audit.multifreq",
    "grid_model": "lang.models",
    "GridModel": "lang.models",
    "AuditRow": "audit.opendp",
    # running programs, and checking bounds by sampling
    "sample": "notions.sampling",
    "crosscheck": "notions.sampling",
    # runs over workers, errors and limits
    "Workers": "count.distributed",
    "WmcdpError": "base.errors",
    "CoverageError": "base.errors",
    "LimitExceeded": "base.limits",
    "resource_limits": "base.limits",
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
