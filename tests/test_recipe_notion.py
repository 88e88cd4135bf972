"""CONTRIBUTING.md, "Adding a notion", followed step by step: a new notion — the total-variation distance
``max over ordered neighbouring pairs of Σ_y |P(y|x) − P(y|x')| / 2`` — defined here in one place (its result, its
run over the shared orchestration, its row and its record; the record, the columns, the exact columns and the
Markdown are read off the dataclasses' fields), registered, and checked through the API, ``wmcdp sweep``, the
tables, the plot and the Markdown against tests/brute.py. No other file changes. The section between the two
``# ==`` lines is the notion as a module of wmcdp would hold it: a test copies it into one and checks it with
strict mypy."""

from __future__ import annotations

# == the notion ====================================================================================
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from wmcdp.base.numbers import Number
from wmcdp.lang.program import Program
from wmcdp.notions.fields import PAIR, SweptRow, column, witness
from wmcdp.notions.markdown import shown
from wmcdp.notions.notion import Notion, Rendered, swept_axis
from wmcdp.notions.orchestrate import Pairs, by_rules, over_pairs, worst_part
from wmcdp.plan.given_sets import find_sets
from wmcdp.plan.pairs import Best, PairSource, PairWitness


# step 2: the result, its Markdown on its fields
@dataclass(frozen=True, repr=False)
class TVResult(Rendered):
    """The total-variation distance over the pairs and the first pair attaining it."""

    headline = ("distance", "distance_exact", "witness_x", "witness_x_prime")
    title = "**Total-variation distance** ({mode})"

    distance: float | Fraction = field(metadata=shown("TV"))
    witness: PairWitness = field(metadata=shown("witness x, x′", "code"))
    exact: bool
    diagram_size: int | None
    seconds: float
    plan: Any = None


# step 3: the math
def _scan(source: PairSource, report: Callable[[], Any], start: float) -> TVResult:
    """max over the pairs of Σ_y |P(y|x) − P(y|x')| / 2 (exact: integer masses over one denominator)."""
    exact = source.arith.exact

    def partial(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        return (abs(a - b).sum(axis=1) if exact else np.abs(np.exp(a) - np.exp(b)).sum(axis=1),)

    best = Best()
    for keys, totals in source.totals(partial, lambda x, y: (x[0] + y[0],)):
        best.update(totals[0], keys)
    assert best.key is not None and best.value is not None
    distance = Fraction(int(best.value), 2 * source.arith.denominator) if exact else float(best.value) / 2
    seconds = time.perf_counter() - start
    return TVResult(distance, source.witness(best.key), exact, source.diagram_size, seconds, report())


# step 4: the run
def total_variation(
    prog: Any, pairs: Any = None, I: Any = None, *, at: Any = None, neighbours: Any = None, backend: str = "bdd",
    exact: Any = None, force: bool = False,
) -> TVResult:
    """The run: the shared orchestration (planner or the caller's pairs → pair source → scan). Over a product
    of independent parts the worst pair moves one part (hamming, one-entry): the max rule only."""
    start = time.perf_counter()
    result: TVResult = over_pairs(
        prog,
        Pairs(pairs, I, at, neighbours, backend, exact, force),
        start,
        scan=lambda source, report: _scan(source, report, start),
        part=lambda c: total_variation(c, exact=exact, force=force),
        combine=lambda planned, parts: worst_part(planned, parts, [r.distance for r in parts], start),
        planner=by_rules(("max",)),
    )
    return result


# step 5: the row, its columns on its fields, and the sweep point
@dataclass(frozen=True)
class TVRow(SweptRow):
    """The total-variation distance at one point of a sweep, and the pair attaining it."""

    distance: float | Fraction = field(metadata=column("TV", r"$\mathrm{TV}$", convert=float, exact=True, shown=True))
    witness: PairWitness = field(metadata=witness(PAIR))
    exact: bool
    diagram_size: int | None = field(metadata=column("size"))
    seconds: float = field(metadata=column("seconds"))

    kind = "tv"


def _point(program: Program, variant: str, parameter: str, value: Number, *, sets: str, backend: str,
           exact: Any) -> TVRow:
    P, I = find_sets("pairs", sets, program)
    return TVRow.of(total_variation(program, P, I, backend=backend, exact=exact), variant, parameter, value)


# step 6: the record (registered by the tests' fixture; a module of wmcdp writes TV = register(Notion(...)))
TV = Notion(
    name="tv",
    command="tv",
    help="total-variation distance",
    run=total_variation,
    result=TVResult,
    row=TVRow,
    point=_point,
    series=lambda r: (r.program, float(r.value), float(r.distance)),
    axes=lambda rows: ("total-variation distance", swept_axis(rows), f"TV vs {rows[0].parameter}"),
)
# == the end of the notion =========================================================================

import ast  # the tests' own imports
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import brute
from wmcdp.base.numbers import show
from wmcdp.cli import main
from wmcdp.notions.catalogue import NOTIONS, commands
from wmcdp.notions.notion import register, unregister
from wmcdp.notions.sweep import sweep
from wmcdp.programs import randomized_response, rr_counting
from wmcdp.report.tables import render_rows

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tv() -> Iterator[Notion]:
    register(TV)
    yield TV
    unregister("tv")


# -- the checks: against an independent enumeration of every random choice ----------------------------


def _brute_tv(n: int, lam: Fraction) -> tuple[Fraction, list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """max over hamming neighbours of the TV of randomized response's output distributions, and the pairs."""
    inputs = [tuple((k >> (n - 1 - i)) & 1 for i in range(n)) for k in range(2 ** n)]
    dists = {x: brute.distribution(lambda x, c: tuple(xi ^ brute.flip(c, lam) for xi in x), x) for x in inputs}

    def neighbours(x: tuple[int, ...]) -> list[tuple[int, ...]]:
        return [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(n)]

    def tv(p: dict, q: dict) -> Fraction:
        return sum((abs(p.get(y, 0) - q.get(y, 0)) for y in set(p) | set(q)), Fraction(0)) / 2

    return brute.max_over_pairs(dists, neighbours, tv)


LAMS = [Fraction(1, 5), Fraction(1, 3)]


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("sets", [None, "exhaustive"])
def test_api_against_enumeration(tv, lam, sets):
    want, attaining = _brute_tv(3, lam)
    r = tv.run(randomized_response(3, lam), sets, exact=True)
    assert r.exact and r.distance == want
    assert (r.witness.x, r.witness.x_prime) in attaining
    assert (r.plan is not None) == (sets is None)


def test_float_run_and_another_program(tv):
    want, _ = _brute_tv(2, Fraction(1, 5))
    assert tv.run(randomized_response(2, 0.2)).distance == pytest.approx(float(want), rel=1e-12)
    # rr_counting: the counts of ones of neighbours x, x' (one bit apart) differ by one
    dists = {x: brute.distribution(lambda x, c: sum(xi ^ brute.flip(c, Fraction(1, 4)) for xi in x), x)
             for x in [(0, 0), (0, 1), (1, 0), (1, 1)]}
    want, _ = brute.max_over_pairs(
        dists, lambda x: [(1 - x[0], x[1]), (x[0], 1 - x[1])],
        lambda p, q: sum((abs(p.get(y, 0) - q.get(y, 0)) for y in set(p) | set(q)), Fraction(0)) / 2)
    assert tv.run(rr_counting(2, Fraction(1, 4)), "exhaustive", exact=True).distance == want


def test_sweep_table_and_markdown(tv):
    rows = sweep("tv", ["randomized_response"], {"n": 2}, "lam", LAMS, exact=True)
    assert [r.distance for r in rows] == [_brute_tv(2, lam)[0] for lam in LAMS]
    table = render_rows(rows, "markdown").splitlines()
    assert table[0] == "| program | lam | TV | x | x' | size | seconds |"
    assert table[2].startswith(f"| randomized_response(n=2) | 1/5 | {_brute_tv(2, LAMS[0])[0]} | ")
    r = tv.run(randomized_response(2, LAMS[1]), exact=True)
    text, want = r._repr_markdown_(), _brute_tv(2, LAMS[1])[0]
    assert text.startswith("**Total-variation distance** (exact)\n")
    assert f"| TV | {float(want):.10g}  (= {want}) |" in text
    assert f"| witness x, x′ | `{''.join(map(str, r.witness.x))}`, `{''.join(map(str, r.witness.x_prime))}` |" in text
    assert "| plan | " in text and "| seconds | " in text
    floats = tv.run(randomized_response(2, float(LAMS[1])))._repr_markdown_()
    assert floats.startswith("**Total-variation distance** (float)") and f"| TV | {float(want):.10g} |" in floats


def test_cli_sweep_json_and_plot(tv, capsys, tmp_path):
    argv = ["sweep", "tv", "randomized_response", "-p", "n=2", "--over", "lam=1/5,1/3", "--exact"]
    assert main([*argv, "--json"]) == 0
    got = [Fraction(r["distance_exact"]) for r in json.loads(capsys.readouterr().out)["rows"]]
    assert got == [_brute_tv(2, lam)[0] for lam in LAMS]
    plot = tmp_path / "tv.png"
    assert main([*argv, "--plot", str(plot), "--quiet"]) == 0
    assert plot.stat().st_size > 0
    assert main([*argv, "--alpha", "1"]) == 2
    assert capsys.readouterr().err.endswith("wmcdp: error: --alpha applies to accuracy sweeps\n")


def test_names_are_unique_and_looked_up(tv):
    with pytest.raises(ValueError, match="already registered"):
        register(TV)
    taken = next(c for c, n in commands().items() if n is not TV)
    with pytest.raises(ValueError, match=f"the sweep command '{taken}' is already taken"):
        register(replace(TV, name="tv2", command=taken))
    names = ", ".join(NOTIONS)  # every registered notion, the built-in ones first and tv last
    assert names.endswith(", tv")
    with pytest.raises(ValueError, match=f"unknown notion 'nope'; the notions are {names}$"):
        sweep("nope", ["randomized_response"], {"n": 2}, "lam", LAMS)
    for name in (n.name for n in NOTIONS.values() if n.point is None):
        with pytest.raises(ValueError, match=f"the notion '{name}' has no sweep"):
            sweep(name, ["randomized_response"], {"n": 2}, "lam", LAMS)
    with pytest.raises(ValueError, match="tv sweeps take no option 'alpha'"):
        sweep("tv", ["randomized_response"], {"n": 2}, "lam", LAMS, alpha=1)


def test_record_and_columns_are_read_off_the_fields(tv):
    row = sweep("tv", ["randomized_response"], {"n": 2}, "lam", LAMS[:1], exact=True)[0]
    want = _brute_tv(2, LAMS[0])[0]
    assert row.record() == {
        "program": "randomized_response(n=2)", "parameter": "lam", "value": 0.2, "value_exact": "1/5",
        "distance": float(want), "witness_x": "".join(map(str, row.witness.x)),
        "witness_x_prime": "".join(map(str, row.witness.x_prime)), "diagram_size": row.diagram_size,
        "seconds": row.seconds, "distance_exact": str(want),
    }
    floats = sweep("tv", ["randomized_response"], {"n": 2}, "lam", [0.2])[0].record()
    assert floats["distance_exact"] is None and floats["value_exact"] is None
    assert [key for key, _, _ in tv.columns] == [
        "program", "value", "distance", "witness_x", "witness_x_prime", "diagram_size", "seconds"
    ]
    assert tv.exact == {"value", "distance"} and tv.text == {"program", "witness_x", "witness_x_prime"}


def _notion_section() -> str:
    """The notion's definition in this file, from its first ``# ==`` line to the last."""
    text = Path(__file__).read_text()
    start = text.index("# == the notion ")
    return "from __future__ import annotations\n\n" + text[start:text.index("# == the end of the notion")]


def _mypy_config(section: str) -> str:
    """Strict mypy that reads the wmcdp modules the notion imports and takes the rest of wmcdp as untyped (so a
    cold run takes seconds, not the half minute of the whole package)."""
    imported = sorted({n.module for n in ast.walk(ast.parse(section))
                       if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("wmcdp.")})
    return ("[mypy]\npython_version = 3.10\nstrict = True\nignore_missing_imports = True\nfollow_imports = silent\n"
            f"[mypy-wmcdp.*]\nfollow_imports = skip\n[mypy-{','.join(imported)}]\nfollow_imports = silent\n")


def _mypy(tmp_path: Path, section: str) -> tuple[int, str]:
    module, config = tmp_path / "tv_notion.py", tmp_path / "mypy.ini"
    module.write_text(section)
    config.write_text(_mypy_config(section))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", str(module)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    return run.returncode, run.stdout


def test_the_notion_passes_strict_mypy(tmp_path):
    section = _notion_section()
    assert "wmcdp.notions.fields" in _mypy_config(section)
    assert _mypy(tmp_path, section) == (0, "")
    # and the check reads wmcdp's types: a row built from a result field of the wrong type is refused
    wrong = section.replace("TVResult(distance, source.witness(best.key)", "TVResult(distance, best.key")
    assert wrong != section
    code, out = _mypy(tmp_path, wrong)
    assert code == 1 and 'has incompatible type "int"; expected "PairWitness"' in out
