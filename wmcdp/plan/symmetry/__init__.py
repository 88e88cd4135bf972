"""Automatic symmetry: proved symmetries of a program and the orbit sets they give.

wmcdp finds a program's symmetries, proves each on the compiled diagram,
and builds orbit sets from them (``sets="auto"``, ``--sets auto``).

* :mod:`.group`: the groups (products of symmetric groups on blocks of entries, with their
  action on outputs) and their orbits as arrays;
* :mod:`.windows`: transpositions of entries adjacent in the variable order, proved by a local check of the
  diagram (about one visit for all of them);
* :mod:`.colours`: blocks found by colour refinement of the traced circuit, proved as circuit automorphisms;
* :mod:`.proof`: candidate generators and their proofs (diagram equality after renaming
  input, output and equally weighted random bits), the detection that tries the above first;
* :mod:`.runs`: the orbit sets of Algorithms 2 and 3 (:class:`PrivacyPlan`, :class:`AccuracyPlan`),
  their sizes, and neighbour pairs with whole output distributions for notions beyond pure ε; the
  notions scan them (:class:`wmcdp.plan.triples.OrbitTriples`, :func:`wmcdp.synthesize_accuracy`).
"""

from .group import Block, Symmetry
from .runs import (
    AccuracyPlan,
    AutoSets,
    PairDistribution,
    PrivacyPlan,
    accuracy_plan,
    accuracy_report,
    find_symmetry,
    pair_distributions,
    privacy_plan,
)

__all__ = [
    "Block",
    "Symmetry",
    "AutoSets",
    "PairDistribution",
    "PrivacyPlan",
    "accuracy_report",
    "AccuracyPlan",
    "accuracy_plan",
    "find_symmetry",
    "pair_distributions",
    "privacy_plan",
]
