"""The hub plan's estimate before it runs (wmcdp.plan.hub.estimate.planned_terms): its counts against a hand count.

Each count is of work known before the plan runs (the outputs some input produces, the blocks' levels, the output
leaves); the planner chooses by these counts times ``HUB_PLANNED_SECONDS``."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from programs.suite import noisy_max, sparse_vector
from wmcdp import Bits, Program, flip
from wmcdp.compile import compile_program
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.choose import HUB
from wmcdp.plan.costs import HUB_PLANNED_SECONDS
from wmcdp.plan.hub import find_blocks
from wmcdp.plan.hub.estimate import planned_estimate, planned_terms
from wmcdp.plan.planner import Budget
from wmcdp.plan.protocol import Proof, Setting

HALF = Fraction(1, 2)


def _shared(n: int) -> Program:
    """One coin drawn before the inputs (the hub), then per entry its bit and one coin: ``y_i = (x_i ^ c_i) | t``.
    Every output is produced (t = 0, each c_i chosen), each entry's block is 2 levels, each output has n leaves."""
    def body(x):
        t = flip(Fraction(1, 3))
        return tuple((x[i] ^ flip(Fraction(1, 4))) | t for i in range(n))

    return Program("shared", Bits(n), body, neighbours="all-entries")


def _terms(program: Program) -> tuple[dict[str, int], int]:
    compiled = compile_program(program)
    return planned_terms(compiled, find_blocks(compiled.trace)), compiled.size


def test_a_shared_coin_with_outputs_by_entry_counts_one_search():
    """Each y_i reads the hub and entry i's block alone (outputs factored by entry): one search over the 2^n
    outputs, a table per hub class (one bit: at most 2) and own value (2) over every block level, the leaves
    conjoined once."""
    n = 3
    terms, nodes = _terms(_shared(n))
    levels, values, own, classes = 2 * n, 2, 2, 2
    assert terms == {
        "base": 1,
        "node": nodes,
        "output": 1,
        "table": classes * own * levels * values,
        "operation": n * levels,
        "multiset": 0,  # a hub bit: no entry is pinned
    }


def test_sparse_vector_counts_only_the_outputs_some_input_produces():
    """N = 1: the first TRUE stops it, so n + 1 outputs of the 3^n tuples (TRUE, FALSE or unanswered)."""
    n = 4
    terms, _ = _terms(sparse_vector(n, 2, 1, 1, alpha=HALF))
    assert terms["output"] == n + 1 and terms["multiset"] == 0
    compiled = compile_program(sparse_vector(n, 2, 1, 1, alpha=HALF))
    hub = find_blocks(compiled.trace)
    levels = sum(b.end - b.start for b in hub.blocks)
    assert terms["table"] == (n + 1) * levels * 3 and terms["operation"] == (n + 1) * n * levels


def test_noisy_max_pins_an_entry_and_counts_the_multisets_of_the_others():
    """No bit is drawn before the inputs: per output (the winner, n of them) the other n - 1 entries' values in
    0..m as a multiset, C(n - 1 + m, m) of them; one Int output, so no prefixes are conjoined."""
    n, m = 3, 2
    terms, _ = _terms(noisy_max(n, m, 1))
    assert terms["output"] == n
    assert terms["multiset"] == n * math.comb(n - 1 + m, m) == 18
    assert terms["operation"] == 0


@pytest.mark.parametrize("program", [_shared(3), noisy_max(3, 2, 1)], ids=["shared", "noisy-max"])
def test_the_planner_chooses_by_the_counts_times_the_constants(program):
    compiled = compile_program(program)
    hub = find_blocks(compiled.trace)
    expected = sum(HUB_PLANNED_SECONDS[k] * c for k, c in planned_terms(compiled, hub).items())
    assert planned_estimate(compiled, hub) == pytest.approx(expected, rel=1e-12)
    relation = neighbour_relation(compiled.program.neighbours)
    setting = Setting(compiled, relation, None, False, lambda *a, **k: None, Budget(None), None, None, 0.0)
    assert HUB.estimate(setting, Proof(hub, "")) == pytest.approx(expected, rel=1e-12)
