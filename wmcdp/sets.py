"""Deprecated: ``wmcdp.sets``, the 0.1 path of the inference, privacy and accuracy sets and the neighbour relations.

Its home is now :mod:`wmcdp.lang.sets` and :mod:`wmcdp.lang.relations`.

Importing it warns (a DeprecationWarning naming the new path); it re-exports the names it held in 0.1, the
same objects as at their new home, and is kept for at least one minor version (removed no earlier than
0.4). New code imports the public names from ``wmcdp`` itself."""

from __future__ import annotations

from .base.deprecation import warn_moved
from .lang.relations import Relation, neighbour_relation
from .lang.sets import (
    MAX_PAIRS,
    MAX_TRIPLES,
    AccuracySet,
    ExhaustiveAccuracy,
    ExhaustiveInference,
    ExhaustivePrivacy,
    InferenceSet,
    PrivacySet,
    accuracy_targets,
    all_outputs,
    check_exhaustive,
    describe_pair,
    exhaustive_accuracy,
    exhaustive_inference,
    exhaustive_privacy,
    neighbour_pairs,
)

__all__ = [
    "InferenceSet",
    "PrivacySet",
    "AccuracySet",
    "MAX_PAIRS",
    "MAX_TRIPLES",
    "neighbour_pairs",
    "check_exhaustive",
    "all_outputs",
    "ExhaustiveInference",
    "ExhaustivePrivacy",
    "ExhaustiveAccuracy",
    "exhaustive_inference",
    "exhaustive_privacy",
    "exhaustive_accuracy",
    "describe_pair",
    "accuracy_targets",
    "Relation",
    "neighbour_relation",
]

warn_moved(__name__, "wmcdp.lang.sets and wmcdp.lang.relations")
