"""Refuse early, never crash: set sizes past an index, and refusals that come as soon as the cost is known.

Orbit-set sizes are counted in closed form (Python ints of any size) and checked against the sum
over every output orbit; a default plan none of whose runs fits the limits is refused at once, in
one line naming its own sizes, through the API (WmcdpError) and the command line (exit 2).
"""

import math
import time
from dataclasses import replace
from fractions import Fraction

import pytest
from brute import distribution, tight_epsilon
from brute import flip as bflip

from wmcdp import (
    Bits,
    IntVector,
    Program,
    flip,
    ite,
    synthesize_accuracy,
    synthesize_approximate,
    synthesize_privacy,
    uniform,
)
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.compile import compile_program
from wmcdp.lang.registry import builtin_programs
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.planner import exhaustive_estimate
from wmcdp.plan.symmetry.group import OutputAction, PairTypes, orbit_set_sizes
from wmcdp.plan.symmetry.runs import privacy_plan

B = builtin_programs()
SECONDS = 12  # every refusal below comes well inside this (they used to run to a timeout or crash)

PROGRAMS = """
from wmcdp import Bits, Program, flip, uniform

def chain(n=40):
    def body(x):
        return tuple((x[i] ^ (x[i - 1] if i else False)) ^ flip(0.25) for i in range(n))
    return Program("chain", Bits(n), body)

def weighted_sum(n=40):
    return Program("weighted_sum", Bits(n), lambda x: sum((i + 1) * x[i] for i in range(n)) + uniform(0, 1))

def weighted_sum_target(n=40):
    return Program("weighted_sum", Bits(n), lambda x: sum((i + 1) * x[i] for i in range(n)) + uniform(0, 1),
                   target=lambda x: sum((i + 1) * x[i] for i in range(n)))
"""


def chain(n):
    return Program(
        "chain", Bits(n), lambda x: tuple((x[i] ^ (x[i - 1] if i else False)) ^ flip(0.25) for i in range(n))
    )


def weighted_sum(n):
    return Program("weighted_sum", Bits(n), lambda x: sum((i + 1) * x[i] for i in range(n)) + uniform(0, 1))


def one_hot(n):
    """The index of the only entry whose flipped bit is up, else n: outputs relabelled with the inputs."""

    def body(x):
        ups = [(x[i] >= 1) ^ flip(Fraction(1, 4)) for i in range(n)]
        count = sum(ite(u, 1, 0) for u in ups)
        return ite(count == 1, sum(ite(u, i, 0) for i, u in enumerate(ups)), n)

    return Program("one_hot", IntVector(n, 0, 2), body)


SMALL = [
    B["randomized_response"](4, Fraction(1, 5)),
    B["kary_rr_histogram"](3, 3, Fraction(1, 5)),
    B["histogram"](3, 2, 1),
    B["isvt1"](3, 2, 1, 1),
    B["sparse_vector"](3, 2, 1, 1, 1),
    one_hot(3),
    Program(
        "parts", IntVector(3, 0, 2), lambda x: tuple((x[i] + uniform(0, 1), (x[i] < 1) ^ flip(0.25)) for i in range(3))
    ),
    Program("mixed", Bits(4), lambda x: tuple(x[i] ^ flip(0.25 if i < 2 else 0.3 + i / 10) for i in range(4))),
]


@pytest.mark.parametrize("relation", ["hamming", "one-entry", "all-entries"])
@pytest.mark.parametrize("program", SMALL, ids=lambda p: p.name)
def test_orbit_set_sizes_in_closed_form_equal_the_sum_over_output_orbits(program, relation):
    plan = privacy_plan(program, relation)
    k = len(plan.compiled.domain.entry_values)
    act = OutputAction(plan.compiled.shape, plan.symmetry.n)
    every = replace(plan, outputs=None, listed=False, output_reps=lambda: act.orbits(plan.symmetry))
    triples = pairs = 0
    for _, orbits in every.items():
        triples += orbits.count()
        pairs += orbits.inputs(k)
    assert orbit_set_sizes(plan.symmetry, act, PairTypes.of(relation, k), k) == (triples, pairs)
    assert every.sizes() == (triples, pairs)


def test_sizes_past_an_index_are_python_ints():
    """isvt1 over 50 entries: 2^258 orbit triples (it used to end in an OverflowError from len)."""
    plan = privacy_plan(B["isvt1"](50, 10, 5, 1))
    triples, pairs = plan.sizes()
    assert triples > 2**63 and isinstance(triples, int) and isinstance(pairs, int)


def test_a_chain_of_bools_sized_in_closed_form_is_the_exhaustive_count():
    """No symmetry: the orbit sets are the exhaustive sets, 2^70 outputs times 70 * 2^70 pairs (never listed)."""
    plan = privacy_plan(chain(70))
    assert plan.symmetry.blocks == ()
    assert plan.sizes() == (2**70 * 70 * 2**70, 2**70 * 2**70)


def _quick(fn, *args, **kwargs):
    start = time.perf_counter()
    with pytest.raises(WmcdpError) as info:
        fn(*args, **kwargs)
    assert time.perf_counter() - start < SECONDS
    return str(info.value)


@pytest.mark.parametrize(
    "program, plan", [(weighted_sum(40), None), (B["isvt1"](50, 10, 5, 1), "symmetry")], ids=["weighted_sum", "isvt1"]
)
def test_default_plan_refused_at_once_naming_its_sizes(program, plan):
    """Refused at once: weighted_sum by default; isvt1 (which the hub plan answers, searching its outputs by
    entry) when its symmetry's orbit sets are asked for."""
    message = _quick(synthesize_privacy, program, timeout=2 * SECONDS, plan=plan)
    assert "default plan" in message and "automatic symmetry sets" not in message
    assert "--force" in message and "--sets" in message and "triples" in message


def test_a_chain_of_bools_is_answered_by_the_chain_plan():
    """Pure ε of the chain of 40 Bools (refused before the chain plan): entry i enters y_i and y_(i+1), each through
    its own flip(1/4), so e^eps = 3^2 (wmcdp.plan.chain)."""
    prog = Program(
        "chain",
        Bits(40),
        lambda x: tuple((x[i] ^ (x[i - 1] if i else False)) ^ flip(Fraction(1, 4)) for i in range(40)),
    )
    r = synthesize_privacy(prog, exact=True)
    assert r.plan.kind == "chain" and r.ratio == 9


def test_default_pair_plan_refused_at_once_naming_its_sizes():
    # (chain(40)'s coins are its own per output: the given-input plan answers its pairs)
    message = _quick(synthesize_approximate, weighted_sum(40), delta=1e-6, timeout=2 * SECONDS)
    assert "default plan" in message and "pairs" in message


def test_default_accuracy_plan_refused_at_once_naming_its_sizes():
    program = Program(
        "weighted_sum",
        Bits(40),
        lambda x: sum((i + 1) * x[i] for i in range(40)) + uniform(0, 1),
        target=lambda x: sum((i + 1) * x[i] for i in range(40)),
    )
    message = _quick(synthesize_accuracy, program, alpha=1, timeout=2 * SECONDS)
    assert "default plan" in message and "automatic symmetry sets" not in message and "pairs" in message


def test_auto_sets_past_the_limit_refused_at_once():
    message = _quick(synthesize_privacy, B["histogram"](30, 3, Fraction(7, 10)), "auto", timeout=2 * SECONDS)
    assert "automatic symmetry sets are too large" in message


def _cli(tmp_path, capsys, *args):
    (tmp_path / "progs.py").write_text(PROGRAMS)
    start = time.perf_counter()
    status = main([a.replace("{p}", str(tmp_path / "progs.py")) for a in args] + ["--timeout", str(2 * SECONDS)])
    assert time.perf_counter() - start < SECONDS
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("wmcdp: error: ") and err.count("\n") == 1, (status, err)
    return err


def test_cli_default_plan_refused_at_once(tmp_path, capsys):
    err = _cli(tmp_path, capsys, "privacy", "{p}:weighted_sum")
    assert "default plan" in err and "automatic symmetry sets" not in err


def test_cli_default_pair_plan_refused_at_once(tmp_path, capsys):
    assert "default plan" in _cli(tmp_path, capsys, "approx", "{p}:weighted_sum", "--delta", "1e-6")


def test_cli_default_accuracy_plan_refused_at_once(tmp_path, capsys):
    err = _cli(tmp_path, capsys, "accuracy", "{p}:weighted_sum_target", "--alpha", "1")
    assert "default plan" in err and "automatic symmetry sets" not in err


def test_cli_orbit_sets_past_an_index_refused_in_one_line(tmp_path, capsys):
    _cli(tmp_path, capsys, "privacy", "isvt1", "-p", "n=50", "-p", "m=10", "-p", "T=5", "-p", "eps0=1", "--plan", "symmetry")


def test_cli_auto_sets_refused_at_once(tmp_path, capsys):
    err = _cli(tmp_path, capsys, "privacy", "histogram", "-p", "n=30", "-p", "m=3", "-p", "eps0=0.7", "--sets", "auto")
    assert "automatic symmetry sets are too large" in err


def test_sized_orbit_sets_give_the_brute_force_bound():
    """A chain of 4 Bools (no symmetry): sized in closed form, the planner's bound is the enumerated one."""
    n = 4

    def reference(x, choose):
        return tuple((x[i] ^ (x[i - 1] if i else 0)) ^ bflip(choose, Fraction(1, 4)) for i in range(n))

    prog = Program(
        "chain", Bits(n), lambda x: tuple((x[i] ^ (x[i - 1] if i else False)) ^ flip(Fraction(1, 4)) for i in range(n))
    )
    dists = {x: distribution(reference, x) for x in prog.inputs.values()}
    truth, _ = tight_epsilon(dists, lambda x: [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(n)])
    for sets in (None, "auto"):
        r = synthesize_privacy(prog, sets)
        assert math.isclose(r.epsilon, truth, rel_tol=1e-12) and r.ratio == Fraction(3) ** 2


def test_exhaustive_estimate_counts_the_triples_and_slices_scanned():
    """The count of 7 flipped bits of 8 under all-entries: 6560 slices of the table, 522,240 triples. The
    estimate is checked against the measured time of the run (it used to be 80 times too low)."""
    n = 8
    compiled = compile_program(Program("flip_sum", Bits(n), lambda x: sum(x[i] ^ flip(0.25) for i in range(n - 1))))
    relation = neighbour_relation("all-entries")
    estimate = exhaustive_estimate(compiled, relation)
    start = time.perf_counter()
    synthesize_privacy(compiled, "exhaustive", neighbours=relation)
    measured = time.perf_counter() - start
    assert estimate / 10 < measured < 16 * estimate, (estimate, measured)  # wide: a loaded machine runs slower
