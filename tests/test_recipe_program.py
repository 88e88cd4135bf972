"""CONTRIBUTING.md's recipe "Adding a program from the literature", step by step, with AboveThreshold.

Dwork and Roth's AboveThreshold (tests/recipe_above_threshold.py) is written with the public helpers of
``wmcdp.programs.suite`` and registered once with its origin and its published claim; it equals an enumeration of
every noise value (tests/brute.py), and it appears in ``wmcdp programs`` (and ``--json``), in the table of
docs/programs.md and in experiments/peers_suite.py (run at n = 2); unregistered, it is gone from all of them."""

from __future__ import annotations

import importlib
import itertools
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import brute
import pytest
from test_geometric import all_entries, check_against, tgeom_pmf

from wmcdp import synthesize_privacy
from wmcdp.cli import main
from wmcdp.programs import ORIGINS, PROGRAMS
from wmcdp.programs.registry import program_table, unregister, with_program_table

ROOT = Path(__file__).resolve().parent.parent
ALPHA, M, T = Fraction(1, 2), 1, 1
NAME = "above_threshold"


@pytest.fixture
def recipe():
    """Step 2's registration: importing the program's module registers it; the test ends by unregistering it."""
    module = importlib.import_module("recipe_above_threshold")
    yield module
    if NAME in PROGRAMS:
        unregister(NAME)
    sys.modules.pop("recipe_above_threshold", None)


def reference(x: tuple[int, ...], choose, margin: int = 1) -> int:
    """AboveThreshold in plain Python: the first ``i`` with ``TGeom_a(x_i) >= TGeom_{a^2}(T)``, else ``n``."""
    lo, hi = -margin, M + margin
    threshold = choose(tgeom_pmf(T, lo, hi, ALPHA**2))
    noisy = [choose(tgeom_pmf(q, lo, hi, ALPHA)) for q in x]
    return next((i for i, v in enumerate(noisy) if v >= threshold), len(x))


def neighbours(x: tuple[int, ...]):
    return all_entries(x, 0, M)


@pytest.mark.parametrize("n", [2, 3])
def test_step_1_the_program_equals_brute_force(recipe, n):
    inputs = list(itertools.product(range(M + 1), repeat=n))
    want = brute.tight_ratio(reference, inputs, neighbours)
    got = synthesize_privacy(PROGRAMS[NAME](n=n, m=M, T=T, alpha=ALPHA)).ratio
    assert got == want and isinstance(got, Fraction)
    assert got <= recipe.ABOVE_THRESHOLD.ratio({"alpha": ALPHA})  # within the published claim at these sizes


def test_step_1_every_probability_equals_brute_force(recipe):
    prog = PROGRAMS[NAME](n=2, m=M, T=T, alpha=ALPHA)
    check_against(prog, lambda x: brute.distribution(reference, x), neighbours, backend="bdd", exact=True)


def test_step_2_it_is_listed_with_its_summary_origin_and_claim(recipe, capsys):
    assert main(["programs"]) == 0
    out = capsys.readouterr().out
    origin = "Dwork and Roth, The Algorithmic Foundations of DP, 2014, Alg. 1"
    assert ORIGINS[NAME] == origin
    summary = "AboveThreshold: the index of the first noisy answer at or above the noisy threshold T, else n."
    assert f"{NAME}(n, m, T, eps0=None, margin=1, alpha=None)\n    {summary}\n    origin: {origin}\n" in out
    assert main(["programs", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)["programs"]}
    assert listed[NAME]["claims"] == [{"benchmark": "Dwork and Roth 2014", "name": "AboveThreshold (Alg. 1)",
                                       "private": True}]
    unregister(NAME)
    assert main(["programs"]) == 0
    assert f"\n{NAME}(" not in "\n" + capsys.readouterr().out and NAME not in PROGRAMS and NAME not in ORIGINS


def test_step_3_it_is_a_row_of_the_docs_table(recipe):
    row = next(line for line in program_table().splitlines() if line.startswith(f"| `{NAME}` |"))
    assert "AboveThreshold: the index of the first noisy answer" in row
    assert row.endswith("| Dwork and Roth 2014 AboveThreshold (Alg. 1): private |")
    page = (ROOT / "docs" / "programs.md").read_text()
    assert row in with_program_table(page) and row not in page  # the page lists the built-ins only
    unregister(NAME)
    assert f"`{NAME}`" not in program_table()


def test_step_4_the_peers_suite_runs_it(recipe, monkeypatch, capsys):
    """The suite's row of the claim, and its measurement at n = 2 with the suite's own command (run in this
    process: a fresh one per size is the suite's way, seconds each)."""
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    suite = importlib.import_module("peers_suite")
    row = next(r for r in suite.rows() if r.program == NAME)
    assert (row.names, row.params, row.size, row.checkdp) == (["Dwork and Roth 2014 AboveThreshold (Alg. 1)"],
                                                              {"m": M, "T": T, "alpha": ALPHA}, "n", "")
    assert suite.spec(NAME) == f"{ROOT / 'tests' / 'recipe_above_threshold.py'}:{NAME}"

    def in_process(program, params, timeout, memory):
        assert main(suite.arguments(program, params, timeout, memory)) == 0
        return {**json.loads(capsys.readouterr().out), "wall": 0.0}, ""

    monkeypatch.setattr(suite, "run", in_process)
    (record,), why = suite.measure(row, timeout=120, memory="2G", sizes=[2])
    want = brute.tight_ratio(reference, list(itertools.product(range(M + 1), repeat=2)), neighbours)
    assert why == "" and Fraction(record["ratio"]) == want
    assert record["claim_eps"] == pytest.approx(math.log(16)) and record["epsilon"] == pytest.approx(math.log(want))
    unregister(NAME)
    assert all(r.program != NAME for r in suite.rows())
