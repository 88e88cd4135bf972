"""The recipe "Adding a plan" of CONTRIBUTING.md, followed step by step: a tiny plan behind the plan protocol
(:mod:`wmcdp.plan.protocol`), registered, weighed by the planner, forced by name, and compared with the exhaustive
sets and with an independent enumeration (:mod:`brute`)."""

from __future__ import annotations

import json
from fractions import Fraction as F
from typing import Any

import brute
import numpy as np
import pytest

from wmcdp import IntVector, Program, discrete, synthesize_privacy
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.count.probabilities import Counter, number_system
from wmcdp.plan.costs import BASE_SECONDS, TRIPLE_SECONDS
from wmcdp.plan.planner import answered, recount
from wmcdp.plan.protocol import NotOffered, Plan, Proof, Refused, Setting, registered

NOISE = {-2: F(1, 8), -1: F(1, 4), 0: F(1, 4), 1: F(1, 4), 2: F(1, 8)}


def noisy_value(x):
    """One entry of 0..2 plus noise of -2..2, clamped to 0..2 (every output possible at every input)."""
    return (x[0] + discrete(NOISE)).clamp(0, 2)


def noisy_value_ref(x, choose):
    return min(max(x[0] + choose(NOISE), 0), 2)


class OneEntry(Plan):
    """Step 1: a plan for programs of one input entry: every neighbour pair is two values of that entry, so the
    worst triple is read off one row per value (no pair of the exhaustive table is listed twice)."""

    name = "one-entry-rows"

    def prove(self, setting: Setting) -> Proof | Refused:
        # Step 2: prove the factorization, or say why the plan does not apply
        whole = setting.whole
        if whole.domain.n != 1:
            return Refused(f"{whole.domain.n} input entries, not one")
        if not number_system(whole, setting.exact).exact:
            return Refused("")  # float runs: the plan does not look
        claim = ("every neighbour pair is two values of the one entry", "by definition: the domain has one entry")
        return Proof(None, f"one entry of {len(whole.domain.entry_values)} values", (claim,))

    def estimate(self, setting: Setting, proof: Proof) -> float:
        # Step 3: seconds from counted work, before the plan runs (the constants of wmcdp.plan.costs)
        k, outputs = len(setting.whole.domain.entry_values), setting.whole.shape.size
        return BASE_SECONDS + k * k * outputs * TRIPLE_SECONDS

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        # Step 4: run, then recount the witness on the whole program (the planner drops a plan it does not bear out)
        s, whole = setting, setting.whole
        counter = Counter(whole, number_system(whole, s.exact))
        digits = np.arange(len(whole.domain.entry_values), dtype=np.int64).reshape(-1, 1)
        rows = np.concatenate([row for _, row in counter.distributions(digits)])
        p = [[counter.arith.probability(v) for v in row] for row in rows]
        best: tuple[Any, tuple[Any, Any, Any]] | None = None
        for a, x in enumerate(whole.domain.values()):
            for xp in s.relation.neighbours(whole.domain, x):
                b = whole.domain.code(xp)
                for y, (pa, pb) in enumerate(zip(p[a], p[b])):
                    ratio = float("inf") if pb == 0 < pa else (pa / pb if pb else None)
                    if ratio is not None and (best is None or ratio > best[0]):
                        best = (ratio, (x, xp, whole.shape.value_at(y)))
        if best is None:
            return None, "no neighbour pair"
        r, why = recount(s.run, whole, s.relation, s.exact, best[1], best[0])
        if r is None:
            return None, why
        sizes = (len(p) * len(p[0]), s.exhaustive_size)
        return answered(r, self.name, proof.words, sizes, estimate, s.start, s.considered, proof.claims), ""


def test_the_plan_forced_gives_the_exhaustive_and_the_brute_force_bound():
    program = Program("noisy_value", IntVector(1, 0, 2), noisy_value, neighbours="one-entry")
    with registered(OneEntry()):  # Step 5: register it
        forced = synthesize_privacy(program, plan="one-entry-rows", exact=True)
    exhaustive = synthesize_privacy(program, plan="exhaustive", exact=True)
    neighbours = lambda x: [(v,) for v in range(3) if abs(v - x[0]) == 1]  # noqa: E731
    reference = brute.tight_ratio(noisy_value_ref, [(v,) for v in range(3)], neighbours)
    assert forced.plan.kind == "one-entry-rows"
    assert forced.ratio == exhaustive.ratio == reference and 1 < reference < float("inf")
    assert forced.plan.claims[0][0].startswith("every neighbour pair")


def test_a_plan_that_does_not_apply_is_refused_in_one_line_and_forgotten_once_unregistered():
    program = Program("two_values", IntVector(2, 0, 2), lambda x: (x[0] + discrete(NOISE)).clamp(0, 2) + x[1])
    with registered(OneEntry()):
        with pytest.raises(WmcdpError, match="plan 'one-entry-rows' does not apply: 2 input entries, not one"):
            synthesize_privacy(program, plan="one-entry-rows", exact=True)
    with pytest.raises(WmcdpError, match="unknown plan 'one-entry-rows'"):  # unregistered again
        synthesize_privacy(program, plan="one-entry-rows", exact=True)


def test_other_notions_are_not_offered_until_a_plan_adds_them():
    with pytest.raises(NotOffered, match="does not offer"):
        OneEntry().approximate(None, Proof(None, ""))  # type: ignore[arg-type]


# -- the command line: a registered plan is forced by --plan, like the built-in ones ------------------------------

FILE = """
from fractions import Fraction as F
from wmcdp import IntVector, Program, discrete
NOISE = {-2: F(1, 8), -1: F(1, 4), 0: F(1, 4), 1: F(1, 4), 2: F(1, 8)}
def noisy_value():
    return Program("noisy_value", IntVector(1, 0, 2), lambda x: (x[0] + discrete(NOISE)).clamp(0, 2),
                   neighbours="one-entry")
"""


def _cli(tmp_path, capsys, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "one_entry.py"
    path.write_text(FILE)
    code = main(["privacy", f"{path}:noisy_value", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_line_forces_a_registered_plan_by_name(tmp_path, capsys):
    neighbours = lambda x: [(v,) for v in range(3) if abs(v - x[0]) == 1]  # noqa: E731
    reference = brute.tight_ratio(noisy_value_ref, [(v,) for v in range(3)], neighbours)
    with registered(OneEntry()):
        code, out, err = _cli(tmp_path, capsys, "--plan", "one-entry-rows", "--exact", "--json")
    result = json.loads(out)
    assert code == 0 and err == "" and result["plan"]["kind"] == "one-entry-rows"
    assert F(result["ratio_exact"]) == reference


def test_the_command_line_refuses_an_unknown_plan_in_one_line_with_the_names(tmp_path, capsys):
    with registered(OneEntry()):
        code, out, err = _cli(tmp_path, capsys, "--plan", "one-entry-row", "--exact")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown plan 'one-entry-row'; did you mean one-entry-rows?" in err
    assert "choose one of exhaustive, product," in err and err.rstrip().endswith("symmetry, one-entry-rows)")
    code, out, err = _cli(tmp_path, capsys, "--plan", "one-entry-rows", "--exact")  # unregistered again
    assert code == 2 and out == "" and err.count("\n") == 1 and "unknown plan 'one-entry-rows'" in err
    assert "one-entry-rows" not in err.partition("choose one of")[2]


def test_a_registered_plan_that_does_not_offer_one_database_is_refused_at_x0(tmp_path, capsys):
    with registered(OneEntry()):
        code, out, err = _cli(tmp_path, capsys, "--plan", "one-entry-rows", "--at", "1", "--exact")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "plan 'one-entry-rows' does not apply: at (the data-centric pairs of one database) runs the product" in err
