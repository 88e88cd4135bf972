"""The cost model's module (wmcdp.plan.costs) and the scripts that fit its constants again.

Every constant says what it measures and names the script that checks it, the planner's modules read the very same
objects, the exhaustive estimate is the sum of its work counts (what ``experiments/estimates.py --fit`` fits) times
the constants, and each fitting script offers ``--fit``."""

from __future__ import annotations

import importlib.util
import re
import runpy
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from wmcdp.compile import compile_program
from wmcdp.count.probabilities import exhaustive_work
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan import costs, hub, planner
from wmcdp.programs import noisy_max, rr_counting

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str):
    """An experiments/ script loaded as a module (its main not run)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _constants() -> list[tuple[str, list[str]]]:
    """Each constant of costs.py with the ``#:`` comment lines just above it."""
    lines = (ROOT / "wmcdp" / "plan" / "costs.py").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^([A-Z][A-Z_]*) = ", line)
        if m:
            above = []
            j = i - 1
            while j >= 0 and lines[j].startswith("#:"):
                above.insert(0, lines[j])
                j -= 1
            out.append((m.group(1), above))
    return out


def test_every_constant_says_what_it_measures_and_what_checks_it():
    constants = _constants()
    assert len(constants) >= 35
    for name, above in constants:
        assert len(above) >= 2, name
        checked = above[-1]
        assert checked.startswith("#: checked by: "), name
        scripts = re.findall(r"python (experiments/\w+\.py)", checked)
        assert scripts or "none" in checked, name
        assert all((ROOT / s).is_file() for s in scripts), (name, scripts)


def test_the_old_homes_give_the_same_objects():
    for name, _ in _constants():
        if hasattr(planner, name):
            assert getattr(planner, name) is getattr(costs, name), name
    assert hub.HUB_SECONDS is costs.HUB_SECONDS


@pytest.mark.parametrize(
    "program, relation, pairs, exact",
    [
        (rr_counting(6, Fraction(1, 4)), "hamming", False, None),
        (rr_counting(6, Fraction(1, 4)), "all-entries", True, True),
        (noisy_max(3, 3, 1), "hamming", False, False),
        (noisy_max(3, 3, 1), None, False, None),
    ],
    ids=["rr-hamming", "rr-all-entries-pairs", "noisy-max-floats", "noisy-max-count-only"],
)
def test_the_exhaustive_estimate_is_its_terms_times_the_constants(program, relation, pairs, exact):
    """The work counts the fit reads (planner.exhaustive_terms) are those the estimate charges, constant by constant."""
    compiled = compile_program(program)
    rel = neighbour_relation(relation) if relation else None
    terms = planner.exhaustive_terms(compiled, rel, pairs, exact)
    assert terms["BASE_SECONDS"] == 1 and all(isinstance(c, int) and c >= 0 for c in terms.values())
    fitted = set(_script("estimates").FITTED) | {"PAIR_TRIPLE_SECONDS"}
    assert set(terms) <= fitted
    expected = sum(count * getattr(costs, name) for name, count in terms.items())
    assert planner.exhaustive_estimate(compiled, rel, pairs, exact) == pytest.approx(expected, rel=1e-12)
    if rel is not None:  # the scan's triples: every neighbour pair times the outputs the table lists
        scanned = sum(c for name, c in terms.items() if "TRIPLE" in name)
        outputs = exhaustive_work(compiled)[0]
        domain = compiled.domain
        assert scanned == sum(1 for x in domain.values() for _ in rel.neighbours(domain, x)) * outputs


@pytest.mark.parametrize("script", ["estimates", "chain_estimates", "hub_estimates"])
def test_each_fitting_script_offers_fit(script, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [f"{script}.py", "--help"])
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(ROOT / "experiments" / f"{script}.py"), run_name="__main__")
    assert stopped.value.code == 0
    assert "--fit" in capsys.readouterr().out
