"""CONTRIBUTING.md, "Adding a notion", followed step by step: a new notion — the total-variation distance
``max over ordered neighbouring pairs of Σ_y |P(y|x) − P(y|x')| / 2`` — defined here in one place (its result,
its run over the shared orchestration, its row, its Markdown and its record), registered, and checked through the
API, ``wmcdp sweep``, the tables, the plot and the Markdown against tests/brute.py. No other file changes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import brute
from wmcdp.base.numbers import Number, exact_text
from wmcdp.cli import main
from wmcdp.lang.program import Program
from wmcdp.plan.given_sets import find_sets
from wmcdp.lang.shape import format_value
from wmcdp.notions.markdown import code, markdown_table
from wmcdp.notions.notion import PAIR, PROGRAM, TAIL, VALUE, Notion, Rendered, register, swept_axis, unregister
from wmcdp.notions.orchestrate import Pairs, by_rules, over_pairs, worst_part
from wmcdp.notions.rows import head
from wmcdp.notions.sweep import sweep
from wmcdp.plan.pairs import Best, PairSource, PairWitness
from wmcdp.programs import randomized_response, rr_counting
from wmcdp.report.tables import render_rows

# -- step 1: the result, with the notion's own math ---------------------------------------------------


@dataclass(frozen=True)
class TVResult(Rendered):
    """The total-variation distance over the pairs and the first pair attaining it."""

    distance: float | Fraction
    witness: PairWitness
    exact: bool
    diagram_size: int | None
    seconds: float
    plan: Any = None


def _scan(source: PairSource, report: Callable[[], Any], start: float) -> TVResult:
    """max over the pairs of Σ_y |P(y|x) − P(y|x')| / 2 (exact: integer masses over one denominator)."""
    exact = source.arith.exact

    def partial(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        return (abs(a - b).sum(axis=1) if exact else np.abs(np.exp(a) - np.exp(b)).sum(axis=1),)

    best = Best()
    for keys, totals in source.totals(partial, lambda x, y: (x[0] + y[0],)):
        best.update(totals[0], keys)
    distance = Fraction(int(best.value), 2 * source.arith.denominator) if exact else float(best.value) / 2
    assert best.key is not None
    return TVResult(distance, source.witness(best.key), exact, source.diagram_size, time.perf_counter() - start,
                    report())


def total_variation(prog: Any, pairs: Any = None, I: Any = None, *, at: Any = None, neighbours: Any = None,
                    backend: str = "bdd", exact: Any = None, force: bool = False) -> TVResult:
    """The run: the shared orchestration (planner or the caller's pairs → pair source → scan). Over a product
    of independent parts the worst pair moves one part (hamming, one-entry): the max rule only."""
    start = time.perf_counter()
    return over_pairs(
        prog,
        Pairs(pairs, I, at, neighbours, backend, exact, force),
        start,
        scan=lambda source, report: _scan(source, report, start),
        part=lambda c: total_variation(c, exact=exact, force=force),
        combine=lambda planned, parts: worst_part(planned, parts, [r.distance for r in parts], start),
        planner=by_rules(("max",)),
    )


# -- step 2: the row of a sweep, the sweep point and the Markdown ----------------------------------


@dataclass(frozen=True)
class TVRow:
    program: str
    parameter: str
    value: Number
    distance: float | Fraction
    witness: PairWitness
    exact: bool
    diagram_size: int | None
    seconds: float

    kind = "tv"

    def record(self) -> dict[str, Any]:
        out = head(self)
        out.update(distance=float(self.distance), witness_x=format_value(self.witness.x),
                   witness_x_prime=format_value(self.witness.x_prime), diagram_size=self.diagram_size,
                   seconds=self.seconds)
        if self.exact:
            out.update(distance_exact=exact_text(self.distance))
        return out


def _point(program: Program, variant: str, parameter: str, value: Number, *, sets: str, backend: str,
           exact: Any) -> TVRow:
    P, I = find_sets("pairs", sets, program)
    r = total_variation(program, P, I, backend=backend, exact=exact)
    return TVRow(variant, parameter, value, r.distance, r.witness, r.exact, r.diagram_size, r.seconds)


def _markdown(r: TVResult) -> str:
    rows = [("TV", exact_text(r.distance) if r.exact else f"{r.distance:.10g}"),
            ("witness x, x′", f"{code(r.witness.x)}, {code(r.witness.x_prime)}")]
    return markdown_table("**Total-variation distance**", rows, r.plan, r.seconds)


# -- step 3: the record ------------------------------------------------------------------------------

TV = Notion(
    name="tv",
    command="tv",
    help="total-variation distance",
    run=total_variation,
    result=TVResult,
    row=TVRow,
    point=_point,
    columns=[PROGRAM, VALUE, ("distance", "TV", r"$\mathrm{TV}$"), *PAIR, *TAIL],
    series=lambda r: (r.program, float(r.value), float(r.distance)),
    axes=lambda rows: ("total-variation distance", swept_axis(rows), f"TV vs {rows[0].parameter}"),
    markdown=_markdown,
    exact=frozenset({"value", "distance"}),
)


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
    text = tv.run(randomized_response(2, LAMS[1]), exact=True)._repr_markdown_()
    assert text.startswith("**Total-variation distance**") and f"| TV | {_brute_tv(2, LAMS[1])[0]} |" in text


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
    with pytest.raises(ValueError, match="the sweep command 'privacy' is already taken"):
        register(replace(TV, name="tv2", command="privacy"))
    with pytest.raises(ValueError, match="unknown notion 'nope'; the notions are privacy, accuracy, approximate, "
                                         "renyi, profile, tv"):
        sweep("nope", ["randomized_response"], {"n": 2}, "lam", LAMS)
    with pytest.raises(ValueError, match="the notion 'profile' has no sweep"):
        sweep("profile", ["randomized_response"], {"n": 2}, "lam", LAMS)
    with pytest.raises(ValueError, match="tv sweeps take no option 'alpha'"):
        sweep("tv", ["randomized_response"], {"n": 2}, "lam", LAMS, alpha=1)
