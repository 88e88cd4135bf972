"""Automatic symmetry (``sets="auto"``): the same bounds as exhaustive sets, witnesses that attain them,
and every claimed symmetry true by brute force.

Probabilities come from independent references: :func:`brute.distribution` over plain-Python
mechanisms, and the suite's closed-form references (``test_suite``, ``test_geometric``).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import brute
from wmcdp.programs import geometric_above_threshold, kary_rr, randomized_response, rr_counting, truncated_geometric
from test_geometric import all_entries, gat_reference, one_entry, tgeom_pmf
from test_suite import case as suite_case
from wmcdp import Bits, IntVector, Program, WmcdpError, compile_program, flip, ite, synthesize_accuracy, \
    synthesize_approximate, synthesize_privacy
from wmcdp.cli import main
from wmcdp.plan.symmetry import find_symmetry, pair_distributions, privacy_plan
from wmcdp.plan.symmetry.group import INDEX, TUPLE, OutputAction

HALF, THIRD, FIFTH = Fraction(1, 2), Fraction(1, 3), Fraction(1, 5)


def hamming(x, lo, hi):
    for i, xi in enumerate(x):
        for v in range(lo, hi + 1):
            if v != xi:
                yield x[:i] + (v,) + x[i + 1:]


def rr_ref(lam):
    return lambda x: brute.distribution(lambda x, c: tuple(xi ^ brute.flip(c, lam) for xi in x), x)


def count_ref(lam):
    return lambda x: brute.distribution(lambda x, c: sum(xi ^ brute.flip(c, lam) for xi in x), x)


def kary_ref(k, ratio):
    keep = Fraction(ratio) / (ratio + k - 1)

    def mechanism(x, choose):
        out = []
        for xi in x:
            if brute.flip(choose, keep):
                out.append(xi)
            else:
                out.append(choose({v: Fraction(1, k - 1) for v in range(k) if v != xi}))
        return tuple(out)
    return lambda x: brute.distribution(mechanism, x)


def builtin_cases():
    """(program, reference x -> {y: P(y|x)}, neighbours x -> iterable), every one small enough for exhaustive sets."""
    out = [
        (randomized_response(4, FIFTH), rr_ref(FIFTH), lambda x: hamming(x, 0, 1)),
        (rr_counting(5, FIFTH), count_ref(FIFTH), lambda x: hamming(x, 0, 1)),
        (truncated_geometric(4, alpha=THIRD), lambda x: tgeom_pmf(x[0], 0, 4, THIRD), lambda x: one_entry(x, 0, 4)),
        (geometric_above_threshold(3, 2, 1, alpha=HALF), gat_reference(3, 2, 1, HALF), lambda x: one_entry(x, 0, 2)),
        (kary_rr(3, 3, ratio=3), kary_ref(3, 3), lambda x: hamming(x, 0, 2)),
    ]
    for name, n, m, margin, extra in [("noisy_max", 3, 2, 1, {}), ("noisy_max", 4, 1, 0, {}),
                                      ("noisy_max_value", 3, 1, 1, {}), ("histogram", 3, 2, 1, {}),
                                      ("histogram_wrong_scale", 2, 1, 2, {}),
                                      ("sparse_vector", 3, 2, 1, {"T": 1, "N": 1}),
                                      ("sparse_vector", 4, 1, 1, {"T": 1, "N": 2}), ("isvt1", 3, 2, 1, {"T": 1}),
                                      ("isvt2", 3, 1, 1, {"T": 0}), ("isvt3", 3, 1, 1, {"T": 1, "N": 2}),
                                      ("isvt4", 2, 1, 1, {"T": 1, "N": 1})]:
        prog, ref = suite_case(name, n, m, margin, THIRD, **extra)
        relation = one_entry if name.startswith("histogram") else all_entries
        out.append((prog, ref, (lambda rel, m: lambda x: rel(x, 0, m))(relation, m)))
    return out


def attained(ref, neighbours, witness) -> Fraction | float:
    """The ratio P(y|x) / P(y|x') of the references at a witness (which must be a neighbour pair)."""
    assert witness.x_prime in set(neighbours(witness.x))
    a, b = ref(witness.x).get(witness.y, 0), ref(witness.x_prime).get(witness.y, 0)
    assert a > 0
    return math.inf if b == 0 else Fraction(a) / Fraction(b)


@pytest.mark.parametrize("prog, ref, neighbours", builtin_cases(), ids=lambda v: v.label() if isinstance(v, Program)
                         else "")
def test_builtin_auto_equals_exhaustive_with_an_attained_witness(prog, ref, neighbours):
    compiled = compile_program(prog)
    exhaustive = synthesize_privacy(compiled)
    auto = synthesize_privacy(compiled, "auto")
    assert auto.ratio == exhaustive.ratio
    assert attained(ref, neighbours, auto.witness) == auto.ratio
    assert (auto.p_x, auto.p_x_prime) == (ref(auto.witness.x)[auto.witness.y],
                                          ref(auto.witness.x_prime).get(auto.witness.y, 0))
    assert auto.sets.size <= auto.sets.exhaustive_size and auto.sets.inference <= auto.sets.exhaustive_inference


@pytest.mark.parametrize("index", [0, 5, 7])
def test_float_mode_and_sdd_backend(index):
    prog, ref, neighbours = builtin_cases()[index]
    exhaustive = synthesize_privacy(prog, exact=False)
    auto = synthesize_privacy(prog, "auto", exact=False, backend="sdd")
    assert auto.epsilon == pytest.approx(exhaustive.epsilon, rel=1e-12)
    assert math.log(attained(ref, neighbours, auto.witness)) == pytest.approx(auto.epsilon, rel=1e-12)
    assert auto.sets.note == "symmetry proved on a BDD compilation of the program"


def test_groups_of_the_builtins():
    assert find_symmetry(randomized_response(6, 0.2)).describe() == \
        "S_6 on entries 0..5, outputs permuted with inputs, each entry's value reflected with its output"
    assert find_symmetry(rr_counting(6, 0.2)).describe() == "S_6 on entries 0..5, outputs unchanged"
    assert find_symmetry(kary_rr(4, 3, eps=1.0)).blocks[0].kind == TUPLE
    # lowest-index tie-breaking makes noisy max asymmetric: only per-output groups exist
    assert find_symmetry(suite_case("noisy_max", 4, 2, 1, THIRD)[0]).blocks == ()
    plan = privacy_plan(suite_case("sparse_vector", 5, 2, 1, THIRD, T=1, N=1)[0])
    fixed = sorted(len(orbits.fixed) for _, orbits in plan.items())
    assert fixed == [0, 0, 1, 2, 3, 4]  # after the TRUE answer, later queries are never read


def test_randomized_response_at_scale():
    r = synthesize_privacy(randomized_response(32, FIFTH), "auto")
    assert r.ratio == 4 and r.sets.exhaustive_size == 32 * 4 ** 32
    assert r.p_x / r.p_x_prime == 4


@pytest.mark.parametrize("n", [3, 6])
def test_accuracy_auto_equals_exhaustive(n):
    compiled = compile_program(rr_counting(n, FIFTH))
    for V in (None, lambda x: sum(x) + x[0]):  # the second target is not invariant: entry 0 splits off
        exhaustive = synthesize_accuracy(compiled, V=V, alpha=1, top=3)
        auto = synthesize_accuracy(compiled, "auto", V=V, alpha=1, top=3)
        assert (auto.one_minus_beta, auto.beta, auto.witness) == \
            (exhaustive.one_minus_beta, exhaustive.beta, exhaustive.witness)
        assert auto.top[0] == exhaustive.top[0]
    assert auto.sets.symmetry.startswith(f"S_{n - 1} on entries 1..{n - 1}" if n > 3 else "S_2 on entries 1, 2")
    assert synthesize_accuracy(compiled, "auto", alpha=1).sets.size == n + 1  # the paper's u_0 .. u_n


def test_kary_rr_against_brute_force():
    from wmcdp import inference

    for n, k, ratio in ((2, 3, Fraction(5, 2)), (3, 2, 3)):
        prog = kary_rr(n, k, ratio=ratio)
        ref = kary_ref(k, ratio)
        c = compile_program(prog)
        ys = list(c.shape.values())
        table = inference(c, [(x, y) for x in prog.inputs.values() for y in ys])
        for x in prog.inputs.values():
            dist = ref(x)
            assert all(table.probability(x, y) == dist.get(y, 0) for y in ys)
        assert synthesize_privacy(c, "auto").ratio == synthesize_privacy(c).ratio == ratio


def test_pair_distributions_cover_every_output():
    prog = randomized_response(4, FIFTH)
    ref = rr_ref(FIFTH)
    pairs = list(pair_distributions(prog))
    assert len(pairs) == 1  # up to flips x = 0000, and up to S_4 the moved entry is the last: x' = 0001
    best = Fraction(0)
    for p in pairs:
        px = [p.arith.probability(v) for v in p.p_x]
        pxp = [p.arith.probability(v) for v in p.p_x_prime]
        assert sum(int(m) * v for m, v in zip(p.multiplicity, px)) == 1
        assert sum(int(m) * v for m, v in zip(p.multiplicity, pxp)) == 1
        best = max(best, sum(int(m) * max(0, a - 2 * b) for m, a, b in zip(p.multiplicity, px, pxp)))
    dists = {x: ref(x) for x in prog.inputs.values()}
    brute_delta = max(sum(max(0, p - 2 * dists[xp].get(y, 0)) for y, p in dists[x].items())
                      for x in dists for xp in hamming(x, 0, 1))
    assert best == brute_delta  # delta(eps = ln 2)


def test_cli_auto_and_symmetry_command(capsys):
    assert main(["privacy", "randomized_response", "-p", "n=10", "-p", "lam=1/5", "--sets", "auto", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ratio_exact"] == "4" and data["symmetry"] == \
        "S_10 on entries 0..9, outputs permuted with inputs, each entry's value reflected with its output"
    # the paper's 2n triples (eqs. 7-11): x = 0^n, one entry moved, y up to the stabilizer
    assert data["set_sizes"]["exhaustive_size"] == 10 * 4 ** 10 and data["set_sizes"]["size"] == 2 * 10
    assert main(["accuracy", "rr_counting", "-p", "n=6", "-p", "lam=1/5", "--alpha", "2", "--sets", "auto"]) == 0
    out = capsys.readouterr().out
    assert "S_6 on entries 0..5, outputs unchanged" in out and "7 (exhaustive 64)" in out
    assert main(["symmetry", "noisy_max", "-p", "n=4", "-p", "m=2", "-p", "eps0=0.7"]) == 0
    out = capsys.readouterr().out
    assert "trivial (no symmetry proved)" in out and "groups of P(y | .) proved on phi | y for 4 output orbits" in out


def test_api_errors():
    prog = randomized_response(2, HALF)
    with pytest.raises(WmcdpError, match="sets 'auto' build their own inference set; leave I out"):
        synthesize_privacy(prog, "auto", [((0, 0), (0, 0))])
    with pytest.raises(WmcdpError, match="C must be a privacy set, None \\(the planner\\), 'exhaustive' or 'auto', got 'all'"):
        synthesize_privacy(prog, "all")
    with pytest.raises(WmcdpError, match="A must be an accuracy set, None \\(the planner\\), 'exhaustive' or 'auto', got 'all'"):
        synthesize_accuracy(rr_counting(2, HALF), "all", alpha=1)


# -- planted programs: one body per entry, and near-symmetric variants ------------------------------

BODIES = ("flipcmp", "addflip", "keep")
OUTPUTS = ("tuple", "sum", "index")
PROBS = (Fraction(1, 4), Fraction(1, 3), Fraction(2, 5), Fraction(1, 2))


@st.composite
def planted(draw):
    bits = draw(st.booleans())
    n = draw(st.integers(2, 4 if bits else 3))
    perturb = draw(st.sampled_from([None, None, "prob", "threshold", "twice"]))
    j = draw(st.integers(0, n - 1))
    return {"bits": bits, "n": n, "body": draw(st.sampled_from(BODIES)), "output": draw(st.sampled_from(OUTPUTS)),
            "p": draw(st.sampled_from(PROBS)), "q": draw(st.sampled_from(PROBS)), "t": draw(st.integers(0, 1)),
            "perturb": perturb, "j": j, "j2": draw(st.sampled_from([i for i in range(n) if i != j]))}


def _entry(spec, i, xi, other, coin, ite_):
    """Entry ``i``'s value from its input ``xi`` (both readings); ``other``: the second read of 'twice'."""
    p = spec["q"] if spec["perturb"] == "prob" and i == spec["j"] else spec["p"]
    t = spec["t"] + 1 if spec["perturb"] == "threshold" and i == spec["j"] else spec["t"]
    body = spec["body"]
    if body == "flipcmp":
        v = (xi >= t) ^ coin(p)
    elif body == "addflip":
        v = ite_(xi >= t, xi + coin(p), xi)
    else:
        v = ite_(coin(p), xi, t)
    if other is not None:
        v = (v & (other >= 1)) if body == "flipcmp" else v + (other >= 1)
    return v


def _output(spec, values, ite_, as_bool):
    n = spec["n"]
    if spec["output"] == "tuple":
        return tuple(values)
    if spec["output"] == "sum":
        return sum(values)
    ups = [as_bool(v) for v in values]
    count = sum(ups)
    index = sum(ite_(u, i, 0) for i, u in enumerate(ups))
    return ite_(count == 1, index, n)


def _body(spec, x, coin, ite_, as_bool):
    values = []
    for i in range(spec["n"]):
        xi = x[i]
        other = x[spec["j2"]] if spec["perturb"] == "twice" and i == spec["j"] else None
        values.append(_entry(spec, i, xi, other, coin, ite_))
    return _output(spec, values, ite_, as_bool)


def planted_program(spec) -> Program:
    domain = Bits(spec["n"]) if spec["bits"] else IntVector(spec["n"], 0, 2)
    as_bool = (lambda v: v) if spec["body"] == "flipcmp" else (lambda v: v >= 1)
    return Program("planted", domain, lambda x: _body(spec, x, flip, ite, as_bool),
                   neighbours="hamming" if spec["bits"] else "all-entries")


def planted_reference(spec):
    def mechanism(x, choose):
        return _body(spec, x, lambda p: brute.flip(choose, p), lambda c, a, b: a if c else b,
                     (lambda v: v) if spec["body"] == "flipcmp" else (lambda v: int(v >= 1)))
    return lambda x: {_plain(y): p for y, p in brute.distribution(mechanism, x).items()}


def _plain(y):
    return tuple(int(v) for v in y) if isinstance(y, tuple) else int(y)


def _swap(x, a, b):
    x = list(x)
    x[a], x[b] = x[b], x[a]
    return tuple(x)


def _sigma(kind, y, a, b):
    if kind == TUPLE:
        return _swap(y, a, b)
    if kind == INDEX:
        return b if y == a else a if y == b else y
    return y


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted())
def test_planted_symmetries_are_found_and_never_false(spec):
    prog = planted_program(spec)
    ref = planted_reference(spec)
    dists = {x: ref(x) for x in prog.inputs.values()}
    compiled = compile_program(prog)
    sym = find_symmetry(compiled)
    # every claimed generator is a true symmetry: P(sigma(y) | pi x) = P(y | x) for all x and y
    for block in sym.blocks:
        for a, b in zip(block.entries, block.entries[1:]):
            for x, dist in dists.items():
                for y, p in dist.items():
                    assert dists[_swap(x, a, b)].get(_sigma(block.kind, y, a, b), 0) == p, (spec, block)
    if spec["perturb"] is None:
        assert [b.entries for b in sym.blocks] == [tuple(range(spec["n"]))], spec
    event(f"{spec['output']} output, {spec['perturb'] or 'symmetric'}: "
          f"{'perturbed entry in a block' if any(spec['j'] in b.entries for b in sym.blocks) else 'entry excluded'}")
    # per-output groups and unread entries are true too
    act = OutputAction(compiled.shape, spec["n"])
    for offsets, orbits in privacy_plan(compiled).items():
        y = _plain(compiled.shape.value_at(act.position(offsets)))
        for block in orbits.blocks:
            for a, b in zip(block, block[1:]):
                assert all(dists[_swap(x, a, b)].get(y, 0) == d.get(y, 0) for x, d in dists.items()), spec
        for f in orbits.fixed:
            assert all(dists[x[:f] + (v,) + x[f + 1:]].get(y, 0) == d.get(y, 0)
                       for x, d in dists.items() for v in prog.inputs.entry_values), spec
    # and the bound is the exhaustive one, attained at the witness
    exhaustive = synthesize_privacy(compiled)
    auto = synthesize_privacy(compiled, "auto")
    assert auto.ratio == exhaustive.ratio
    w = auto.witness
    a, b = dists[w.x].get(_plain(w.y), 0), dists[w.x_prime].get(_plain(w.y), 0)
    assert (a, b) == (auto.p_x, auto.p_x_prime)


def shared_two_bit(n, twist=False):
    """Values 0..3 as two bits; each report xors both bits with noise whose rates one shared coin chooses (so the
    entries are not independent). Reflecting an entry, x -> 3 - x, complements both its bits, and with its report
    reflected, y -> 3 - y, the program is unchanged. ``twist``: entry value 0 draws its high-bit noise at another
    rate, which breaks the reflection (and nothing else)."""

    def noisy(xi, p, q):
        coin = ite(xi == 0, flip(Fraction(1, 7)), flip(p)) if twist else flip(p)
        hi = (xi >= 2) ^ coin
        lo = ((xi == 1) | (xi == 3)) ^ flip(q)
        return ite(hi, ite(lo, 3, 2), ite(lo, 1, 0))

    def body(x):
        c = flip(THIRD)
        return tuple(ite(c, noisy(x[i], FIFTH, Fraction(1, 4)), noisy(x[i], Fraction(1, 4), THIRD)) for i in range(n))

    return Program("shared_two_bit", IntVector(n, 0, 3), body, neighbours="hamming")


def shared_two_bit_ref(twist=False):
    def noisy(c, xi, p, q):
        coin = brute.flip(c, Fraction(1, 7)) if twist and xi == 0 else brute.flip(c, p)
        return 2 * ((xi >= 2) ^ coin) + ((xi % 2) ^ brute.flip(c, q))

    def fn(x, c):
        shared = brute.flip(c, THIRD)
        return tuple(noisy(c, xi, FIFTH, Fraction(1, 4)) if shared else noisy(c, xi, Fraction(1, 4), THIRD) for xi in x)

    return lambda x: brute.distribution(fn, x)


@pytest.mark.parametrize("twist", [False, True])
def test_integer_reflections_are_proved_and_give_the_exhaustive_bounds(twist):
    """x_i -> 3 - x_i with y_i -> 3 - y_i is proved where it holds (and not for the near-symmetric twist); the
    orbit sets then shrink, and pure ε, its witness and δ(1/2) over the orbit pairs equal the enumeration."""
    prog, ref = shared_two_bit(3, twist), shared_two_bit_ref(twist)
    sym = find_symmetry(prog)
    assert sym.describe().endswith("each entry's value reflected with its output") != twist
    assert [b.flips for b in sym.blocks] == [not twist]
    dists = {x: ref(x) for x in prog.inputs.values()}
    neighbours = lambda x: hamming(x, 0, 3)  # noqa: E731
    best = max(Fraction(p) / Fraction(dists[xp][y]) for x in dists for xp in neighbours(x) for y, p in dists[x].items())
    auto = synthesize_privacy(prog, "auto")
    assert auto.ratio == best and attained(ref, neighbours, auto.witness) == best
    assert auto.sets.size == (864 if not twist else 6528)  # 4 output orbits under reflections, 20 without
    ratio = math.exp(0.5)
    brute_delta = max(
        sum(max(0.0, float(p) - ratio * float(dists[xp].get(y, 0))) for y, p in dists[x].items())
        for x in dists for xp in neighbours(x)
    )
    approx = synthesize_approximate(prog, "auto", epsilon=0.5, exact=False)
    assert approx.delta == pytest.approx(brute_delta, rel=1e-12)
    # the ordered neighbour pairs up to the group, counted by canonicalising every pair under it
    reflections = [(0,) * 3] if twist else list(itertools.product((0, 1), repeat=3))

    def canonical(x, xp):
        return min(
            tuple(tuple(3 - v[p] if r else v[p] for p, r in zip(perm, flips)) for v in (x, xp))
            for perm in itertools.permutations(range(3))
            for flips in reflections
        )

    orbits = {canonical(x, xp) for x in dists for xp in neighbours(x)}
    assert approx.symmetry.endswith(f"; {len(orbits)} pairs up to it")  # 18 with reflections, 120 without
