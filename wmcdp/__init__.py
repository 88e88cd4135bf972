"""``wmcdp``: exact, tight differential-privacy and accuracy bounds by weighted model counting.

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
:mod:`.report` (tables, figures), and on top :mod:`.audit` and :mod:`.cli`. The modules at the top of the
package beside this one (``wmcdp.sets``, ``wmcdp.approximate``, ...) are the 0.1 paths, deprecated aliases
that warn and re-export (kept until at least 0.4). Two 0.1 modules have no alias: ``wmcdp.inference`` and
``wmcdp.sample`` are the names of functions the package exports, and a module imported under such a name
takes the function's place on the package (``wmcdp.sample`` would become a module for every caller in the
process). Importing one fails with a message naming its new home (``wmcdp.count.probabilities``,
``wmcdp.notions.sampling``), and ``from wmcdp import inference, sample`` gives the functions as in 0.1.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

#: public name -> the module that defines it
_EXPORTS = {
    # the DSL
    "Bits": "lang",
    "Bool": "lang",
    "Int": "lang",
    "IntVector": "lang",
    "Program": "lang",
    "OutputProduct": "lang",
    "AdaptiveThreshold": "lang",
    "SharedMax": "lang",
    "SharedThreshold": "lang",
    "discrete": "lang",
    "flip": "lang",
    "ite": "lang",
    "truncated_geometric": "lang",
    "geometric": "lang",
    "one_sided_geometric": "lang",
    "released_geometric": "lang",
    "compared_geometric": "lang",
    "discrete_gaussian": "lang",
    "uniform": "lang",
    "subsample": "lang.subsampling",
    "is_builtin": "lang.registry",
    # compilation and Algorithm 1
    "compile_program": "compile",
    "Compiled": "compile",
    "inference": "count.probabilities",
    "DenseTable": "count.probabilities",
    "ProbabilityTable": "count.probabilities",
    # Algorithms 2 and 3, and the notions beyond pure epsilon
    "synthesize_privacy": "notions.privacy",
    "every_n": "notions.every_n",
    "check_every_n": "notions.every_n",
    "EveryN": "notions.every_n",
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
    "certified_zcdp": "notions.zcdp",
    "ZcdpEnclosure": "notions.zcdp",
    "privacy_loss_distribution": "notions.loss",
    "PrivacyLoss": "notions.loss",
    "compose_approximate": "notions.sequence",
    "ComposedResult": "notions.sequence",
    "PairSet": "plan.pairs",
    "ShuffledReports": "plan.shuffled_binary",
    "PairWitness": "plan.pairs",
    # sets, plans and symmetry
    "AccuracySet": "lang.sets",
    "InferenceSet": "lang.sets",
    "PrivacySet": "lang.sets",
    "Relation": "lang.relations",
    "add_remove": "lang.relations",
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
    "json_schema": "report.schema",
    "plot_rows": "report.plot",
    # audits of DP libraries
    # exact reals and certified enclosures
    "Real": "base.certified",
    "Enclosure": "base.certified",
    "WindowBracket": "base.windows",
    "windowed_probability": "notions.windowed",
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

if TYPE_CHECKING:  # the same names, re-exported for type checkers and editors (a test holds both lists equal)
    from .audit.diffprivlib import audit_diffprivlib as audit_diffprivlib
    from .audit.multifreq import audit_multifreq as audit_multifreq
    from .audit.opendp import AuditRow as AuditRow
    from .audit.opendp import audit_opendp as audit_opendp
    from .audit.pureldp import audit_pureldp as audit_pureldp
    from .audit.pydp import audit_pydp as audit_pydp
    from .audit.tmlt import audit_tmlt as audit_tmlt
    from .base.certified import Enclosure as Enclosure
    from .base.certified import Real as Real
    from .base.errors import CoverageError as CoverageError
    from .base.errors import WmcdpError as WmcdpError
    from .base.limits import LimitExceeded as LimitExceeded
    from .base.limits import resource_limits as resource_limits
    from .base.windows import WindowBracket as WindowBracket
    from .compile import Compiled as Compiled
    from .compile import compile_program as compile_program
    from .count.distributed import Workers as Workers
    from .count.probabilities import DenseTable as DenseTable
    from .count.probabilities import ProbabilityTable as ProbabilityTable
    from .count.probabilities import inference as inference
    from .lang import AdaptiveThreshold as AdaptiveThreshold
    from .lang import Bits as Bits
    from .lang import Bool as Bool
    from .lang import Int as Int
    from .lang import IntVector as IntVector
    from .lang import OutputProduct as OutputProduct
    from .lang import Program as Program
    from .lang import SharedMax as SharedMax
    from .lang import SharedThreshold as SharedThreshold
    from .lang import compared_geometric as compared_geometric
    from .lang import discrete as discrete
    from .lang import discrete_gaussian as discrete_gaussian
    from .lang import flip as flip
    from .lang import geometric as geometric
    from .lang import ite as ite
    from .lang import one_sided_geometric as one_sided_geometric
    from .lang import released_geometric as released_geometric
    from .lang import truncated_geometric as truncated_geometric
    from .lang import uniform as uniform
    from .lang.models import GridModel as GridModel
    from .lang.models import grid_model as grid_model
    from .lang.parameter import Parameter as Parameter
    from .lang.registry import is_builtin as is_builtin
    from .lang.relations import Relation as Relation
    from .lang.relations import add_remove as add_remove
    from .lang.sets import AccuracySet as AccuracySet
    from .lang.sets import InferenceSet as InferenceSet
    from .lang.sets import PrivacySet as PrivacySet
    from .lang.sets import exhaustive_accuracy as exhaustive_accuracy
    from .lang.sets import exhaustive_inference as exhaustive_inference
    from .lang.sets import exhaustive_privacy as exhaustive_privacy
    from .lang.subsampling import subsample as subsample
    from .notions.accuracy import AccuracyResult as AccuracyResult
    from .notions.accuracy import synthesize_accuracy as synthesize_accuracy
    from .notions.approximate import ApproximateResult as ApproximateResult
    from .notions.approximate import ProfilePoint as ProfilePoint
    from .notions.approximate import privacy_profile as privacy_profile
    from .notions.approximate import synthesize_approximate as synthesize_approximate
    from .notions.every_n import EveryN as EveryN
    from .notions.every_n import check_every_n as check_every_n
    from .notions.every_n import every_n as every_n
    from .notions.loss import PrivacyLoss as PrivacyLoss
    from .notions.loss import privacy_loss_distribution as privacy_loss_distribution
    from .notions.piecewise_results import PiecewiseAccuracyResult as PiecewiseAccuracyResult
    from .notions.piecewise_results import PiecewiseDeltaResult as PiecewiseDeltaResult
    from .notions.piecewise_results import PiecewisePrivacyResult as PiecewisePrivacyResult
    from .notions.privacy import PrivacyResult as PrivacyResult
    from .notions.privacy import PrivacyWitness as PrivacyWitness
    from .notions.privacy import synthesize_privacy as synthesize_privacy
    from .notions.renyi import RenyiOrder as RenyiOrder
    from .notions.renyi import RenyiResult as RenyiResult
    from .notions.renyi import synthesize_renyi as synthesize_renyi
    from .notions.sampling import crosscheck as crosscheck
    from .notions.sampling import sample as sample
    from .notions.sequence import ComposedResult as ComposedResult
    from .notions.sequence import compose_approximate as compose_approximate
    from .notions.sweep import AccuracyRow as AccuracyRow
    from .notions.sweep import PrivacyRow as PrivacyRow
    from .notions.sweep import parse_over as parse_over
    from .notions.sweep import sweep_accuracy as sweep_accuracy
    from .notions.sweep import sweep_approximate as sweep_approximate
    from .notions.sweep import sweep_privacy as sweep_privacy
    from .notions.sweep import sweep_renyi as sweep_renyi
    from .notions.sweep import to_dataframe as to_dataframe
    from .notions.windowed import windowed_probability as windowed_probability
    from .notions.zcdp import ZcdpEnclosure as ZcdpEnclosure
    from .notions.zcdp import certified_zcdp as certified_zcdp
    from .plan import PlanReport as PlanReport
    from .plan.pairs import PairSet as PairSet
    from .plan.pairs import PairWitness as PairWitness
    from .plan.shuffled_binary import ShuffledReports as ShuffledReports
    from .plan.symmetry import AutoSets as AutoSets
    from .plan.symmetry import find_symmetry as find_symmetry
    from .plan.symmetry import pair_distributions as pair_distributions
    from .plan.symmetry import privacy_plan as privacy_plan
    from .report.plot import plot_rows as plot_rows
    from .report.schema import json_schema as json_schema
    from .report.tables import render_rows as render_rows

__all__ = ["__version__", *_EXPORTS]

#: the 0.1 modules named as exported functions are (no alias: see the module docstring) -> their new homes
_RENAMED = {"wmcdp.inference": "wmcdp.count.probabilities", "wmcdp.sample": "wmcdp.notions.sampling"}


class _Renamed:
    """The finder, last on ``sys.meta_path``, that refuses the modules of :data:`_RENAMED` naming their new homes."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        new = _RENAMED.get(name)
        if new is not None:
            function = name.rpartition(".")[2]
            raise ModuleNotFoundError(
                f"{name} is {new} since wmcdp 0.2: import from {new} (from wmcdp import {function} is the function)",
                name=name,
            )


if not any(type(f).__module__ == __name__ and type(f).__name__ == "_Renamed" for f in sys.meta_path):
    sys.meta_path.append(_Renamed())


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'wmcdp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
