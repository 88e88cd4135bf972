"""CONTRIBUTING.md's recipe "Adding an audited mechanism", followed step by step for a toy library defined here:
a local randomizer over ``k`` values whose keep probability is ``e^eps / (e^eps + 1)``, right for ``k = 2`` only,
so it breaks its claimed epsilon for ``k >= 3``. The audit's exact ratio and verdict are checked against the
randomizer's every random choice enumerated by ``tests/brute.py``."""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from fractions import Fraction

import brute
import pytest

from wmcdp.audit.core import AuditCase, AuditedLibrary, Mechanism, Modelled, coverage_table, local_row
from wmcdp.audit.execution import GRID, exact_distribution

#: step 1: the version of the (toy) library the model follows
MODELLED = "1.0"


def toy_randomize(x: int, k: int, epsilon: float) -> int:
    """The toy library's client: keep ``x`` when ``random.random() < p``, else one of the other values."""
    p = math.exp(epsilon) / (math.exp(epsilon) + 1)  # the bug: e^eps / (e^eps + k - 1) is meant
    if random.random() < p:
        return x
    other = random.randrange(k - 1)
    return other if other < x else other + 1


# step 2: the model (the library's own code run on every path of its draws) and the library's own draws
def _model(case: AuditCase) -> Modelled:
    k, epsilon = case.spec
    inputs = tuple(range(k))
    dists = [exact_distribution(functools.partial(toy_randomize, x, k, epsilon)) for x in inputs]
    return local_row(case, inputs, dists, epsilon)


def _draw(case: AuditCase, x: int, draws: int) -> Counter:
    k, epsilon = case.spec
    return Counter(toy_randomize(x, k, epsilon) for _ in range(draws))


# step 3: one AuditCase per parameter set, one Mechanism description, the library record
def _case(k: int, epsilon: float) -> AuditCase:
    validation = "toy_randomize run on every path of its draws; its own draws against the model (chi-square)"
    return AuditCase(
        library="toy",
        mechanism="toy_randomize",
        params=f"epsilon={epsilon!r}, k={k}",
        claim="epsilon",
        model=_model,
        draw=_draw,
        validation=validation,
        spec=(k, epsilon),
    )


MECHANISMS = (Mechanism("toy_randomize", "audited", "kept when `random.random() < p`, else a uniform other value"),)
LIBRARY = AuditedLibrary(
    "toy", "toy", "toy", "toy", __name__, lambda: None, lambda: [_case(k, e) for k, e in CASES], MECHANISMS
)
CASES = ((2, 0.5), (2, 1.0), (3, 1.0), (4, 2.0))


def _below(t: float) -> Fraction:
    """P(u < t) for u = k 2^-53 uniform."""
    return Fraction(min(max(math.ceil(Fraction(t) * GRID), 0), GRID), GRID)


def _reference(k: int, epsilon: float):
    """The toy randomizer written from its lines, every random choice made by brute.distribution's ``choose``."""
    keep = _below(math.exp(epsilon) / (math.exp(epsilon) + 1))

    def run(x: int, choose) -> int:
        if brute.flip(choose, keep):
            return x
        return choose({v: Fraction(1, k - 1) for v in range(k) if v != x})

    return {x: brute.distribution(run, x) for x in range(k)}



def test_the_recipe_audits_the_toy_library_against_brute_force():
    rows = LIBRARY.audit(sample=0, processes=1)
    assert [r.mechanism for r in rows] == ["toy_randomize"] * len(CASES)
    for row, (k, epsilon) in zip(rows, CASES):
        ratio = brute.local_ratio(_reference(k, epsilon))
        assert row.ratio_exact == str(ratio)
        assert row.verdict == brute.audit_verdict(epsilon, ratio)
    # the bug: for k = 3 the keep probability is e^eps / (e^eps + 1), twice e^eps times an other value's
    assert rows[2].verdict == "VIOLATED" and abs(rows[2].epsilon - (1.0 + math.log(2))) < 1e-9


def test_the_recipe_checks_each_model_against_the_library_draws():
    pytest.importorskip("scipy")  # the chi-square checks (the audit extras install it)
    rows = LIBRARY.audit(sample=20_000, processes=1)
    assert all(row.model_agrees and len(row.samples) == 2 for row in rows)


def test_the_description_is_the_coverage_row():
    assert coverage_table(LIBRARY).splitlines()[2].startswith("| `toy_randomize` | audited | kept when")
