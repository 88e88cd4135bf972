"""Symmetry detection refutes candidates by counting a few (input, output) pairs before any diagram proof.

Refuting never loses a true symmetry (the groups of the built-ins are those proved before counts
refuted anything, and their bounds are the brute-force ones), it does refute what counts tell apart
(checked against an enumeration of every random choice), and noisy max, which has no exact entry
symmetry, is planned in about a second instead of renaming its diagram hundreds of times.
"""

import math
import time
from fractions import Fraction

import pytest
from brute import distribution, tight_epsilon
from brute import flip as bflip

from wmcdp import Bits, Program, flip, synthesize_privacy
from wmcdp.cli import main
from wmcdp.compile import compile_program
from wmcdp.lang.registry import builtin_programs
from wmcdp.plan.symmetry.group import INDEX, UNCHANGED
from wmcdp.plan.symmetry.proof import Prover
from wmcdp.plan.symmetry.runs import find_symmetry

B = builtin_programs()

#: the groups proved before probes refuted anything (written from a run of the earlier detection)
GROUPS = [
    (
        B["randomized_response"](6, Fraction(1, 5)),
        "S_6 on entries 0..5, outputs permuted with inputs, each entry's value reflected with its output",
    ),
    (
        B["randomized_response"](5, 0.2),
        "S_5 on entries 0..4, outputs permuted with inputs, each entry's value reflected with its output",
    ),
    (B["rr_counting"](7, Fraction(1, 4)), "S_7 on entries 0..6, outputs unchanged"),
    (B["rr_counting"](7, 0.25), "S_7 on entries 0..6, outputs unchanged"),
    (B["histogram"](4, 2, 1), "S_4 on entries 0..3, outputs permuted with inputs"),
    (B["histogram"](3, 2, None, 1, Fraction(1, 2)), "S_3 on entries 0..2, outputs permuted with inputs"),
]


@pytest.mark.parametrize("program, described", GROUPS, ids=lambda p: getattr(p, "name", ""))
def test_probes_keep_every_true_symmetry(program, described):
    assert find_symmetry(program).describe() == described


def test_probes_never_refute_a_proved_generator():
    """Every transposition of RR counting (exact and float weights) is a symmetry: the counts never refute it."""
    for lam in (Fraction(1, 4), 0.25):
        prover = Prover(compile_program(B["rr_counting"](5, lam)))
        for a in range(5):
            for b in range(a + 1, 5):
                perm = {a: b, b: a}
                assert not prover.probes.refutes(a, prover._image(perm, UNCHANGED, None))
                assert prover.prove(perm, UNCHANGED)
        assert prover.probes.counts > 0 and prover.probes.refutations == 0


def test_probes_refute_what_the_enumeration_tells_apart():
    """Noisy max with ties to the lowest index: P(0 | x) != P(1 | x) at a constant x (enumerated), so the
    transposition relabelling the index is refuted by the counts alone, without a diagram proof."""
    n, alpha = 3, Fraction(1, 2)
    program = B["noisy_max"](n, 1, None, 1, alpha)

    def noisy(q, choose):
        # truncated geometric on {-1 .. 2} around q with ratio alpha (as the suite's TGeom)
        support = range(-1, 3)
        weights = {v: alpha ** abs(v - q) for v in support}
        total = sum(weights.values())
        return choose({v: w / total for v, w in weights.items()})

    def noisy_max(x, choose):
        best, index = noisy(x[0], choose), 0
        for i in range(1, n):
            v = noisy(x[i], choose)
            if v > best:
                best, index = v, i
        return index

    dist = distribution(noisy_max, (0,) * n)
    assert dist[0] != dist[1]
    prover = Prover(compile_program(program))
    relabel = prover._relabelling({0: 1, 1: 0})
    assert prover.probes.refutes(0, prover._image({0: 1, 1: 0}, INDEX, relabel))
    before = prover.diagram + prover.abandoned
    assert not prover.prove({0: 1, 1: 0}, INDEX)
    assert prover.diagram + prover.abandoned == before  # refuted before any diagram proof


def test_orbit_bound_is_the_brute_force_bound():
    """RR counting of 4 bits (symmetry plan forced through the orbit sets): the enumerated tight epsilon."""
    n, lam = 4, Fraction(1, 4)

    def reference(x, choose):
        return sum(x[i] ^ bflip(choose, lam) for i in range(n))

    prog = Program("rr_count", Bits(n), lambda x: sum(x[i] ^ flip(lam) for i in range(n)))
    dists = {x: distribution(reference, x) for x in prog.inputs.values()}
    truth, _ = tight_epsilon(dists, lambda x: [x[:i] + (1 - x[i],) + x[i + 1 :] for i in range(n)])
    for sets in (None, "auto", "exhaustive"):
        r = synthesize_privacy(prog, sets)
        assert math.isclose(r.epsilon, truth, rel_tol=1e-12) and r.ratio == Fraction(3)


def _run(capsys, *args):
    start = time.perf_counter()
    status = main(list(args))
    seconds = time.perf_counter() - start
    out = capsys.readouterr()
    return status, out.out, out.err, seconds


def _plan_lines(text):
    return [line for line in text.splitlines() if "seconds" not in line and "candidates" not in line]


def test_cli_noisy_max_planned_quickly_and_reproducibly(capsys):
    """Noisy max of 6 answers within its own timeout (it renamed its diagram for about 10 s before), and the same
    command gives the same plan report twice."""
    args = ["privacy", "noisy_max", "-p", "n=6", "-p", "m=5", "-p", "eps0=1", "--timeout", "8"]
    status, out, err, _ = _run(capsys, *args)
    assert status == 0, err
    again = _run(capsys, *args)
    assert again[0] == 0 and _plan_lines(again[1]) == _plan_lines(out)
    assert "epsilon" in out and "plan" in out


def test_cli_noisy_max_value_refused_at_once_when_no_orbit_sets_fit(capsys):
    """Noisy max value of 14 answers in 0..5 (no hub splits it): exhaustive sets past the limits, and the orbit
    sets of S_14 leave over 2^28 triples. Refused in one line at once (noisy max itself is now answered by the hub
    plan, the winner's block pinned per output)."""
    args = ["privacy", "noisy_max_value", "-p", "n=14", "-p", "m=5", "-p", "eps0=1", "--timeout", "20"]
    status, out, err, seconds = _run(capsys, *args)
    assert status == 2 and err.startswith("wmcdp: error: the default plan") and err.count("\n") == 1, (status, err)
    assert seconds < 10 and out == ""


@pytest.mark.parametrize(
    "program",
    [B["noisy_max"](4, 1, None, 1, Fraction(1, 2)), B["sparse_vector"](4, 2, 1, 1, None, 1, Fraction(1, 2))],
    ids=["noisy_max", "sparse_vector"],
)
def test_fewest_triples_never_exceed_the_refined_orbit_sets(program):
    """The bound that skips per-output groups (or stops them early) is, output by output, a lower bound on the
    triples of the groups refine proves."""
    from wmcdp.plan.symmetry.group import PairTypes
    from wmcdp.plan.symmetry.runs import _fewest_triples, privacy_plan

    plan = privacy_plan(program)
    assert plan.outputs is not None  # per-output groups were proved
    prover = Prover(plan.compiled)
    types = PairTypes.of(plan.relation, len(plan.compiled.domain.entry_values))
    bound = _fewest_triples(prover, plan.output_reps, types)
    assert 0 < sum(bound) <= plan.sizes()[0]
    refined = {tuple(offsets): orbits.count() for offsets, orbits in plan.outputs}
    reps = [tuple(offsets) for chunk in plan.output_reps() for offsets in chunk]
    assert len(reps) == len(bound)
    for offsets, fewest in zip(reps, bound):  # output by output (0: an output no input produces)
        assert fewest <= refined[offsets] if offsets in refined else fewest == 0
