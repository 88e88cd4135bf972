"""Lower bounds of ε at every n from outputs that extend (wmcdp.notions.extension), against brute force.

The references are CheckDP's sparse-vector loops written in plain Python (test_peers_programs), whose ε(n) at
each n comes from enumerating every random choice and every neighbour pair (tests/brute.py); a checker must
reject every perturbed certificate, and families whose outputs do not extend must get no lower bound."""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction

import pytest
from test_alignment import reference_epsilon
from test_peers_programs import brute_ratio

from wmcdp import every_n
from wmcdp.cli import main
from wmcdp.lang import Bits, IntVector, Program, truncated_geometric
from wmcdp.notions.extension import check_extension, extends, find_extension, traced
from wmcdp.programs import CHECKDP, PROGRAMS

BENCH = {b.name: b for b in CHECKDP}
HALF = Fraction(1, 2)


def _run(name: str, up_to: int, **extra):
    bench = BENCH[name]
    return every_n(PROGRAMS[bench.program], up_to=up_to, alpha=HALF, **bench.params, **extra)


@pytest.mark.parametrize("name", ["SVT", "MonotoneSVT", "NumSVT", "BadSVT1", "BadSVT2", "BadSVT3"])
def test_lower_ends_are_the_brute_force_eps_and_it_never_decreases(name):
    r = _run(name, 4)
    ext = r.extension
    assert r.statement is None and ext is not None, r.extension_reason
    brute = [brute_ratio(BENCH[name], n, 1)[1] for n in range(1, 5)]
    assert all(a <= b for a, b in zip(brute, brute[1:]))  # the theorem, on the enumeration
    for size, want in zip(r.sizes, brute):
        assert size.ratio == want  # each lower end is the exact eps(n) of the clamped mechanism
    for n in range(ext.start, 9):  # the bound at n is the largest eps computed up to n: eps(min(n, 4))
        want = brute[min(n, 4) - 1]
        assert ext.bound(n) == r.sizes[min(n, 4) - 1].epsilon
        assert ext.bound(n) == math.inf if want == math.inf else math.isclose(ext.bound(n), math.log(want))


def test_an_infinite_eps_holds_at_every_larger_size():
    r = _run("BadSVT1", 4)
    assert r.extension.infinite_from() == 2
    assert r.extension.text.startswith("eps(n) = inf for every n >= 2")
    assert [brute_ratio(BENCH["BadSVT1"], n, 1)[1] == math.inf for n in (1, 2, 3)] == [False, True, True]


def test_published_noise_gives_bracketed_sizes_and_their_lower_ends():
    r = _run("BadSVT1", 3, noise="unbounded")  # exact with unbounded noise: compared draws
    assert r.extension.infinite_from() == 2
    declared = _run("SVT", 3, noise="unbounded")  # exact at each size from its declared law
    published = [reference_epsilon("SVT", n) for n in (1, 2, 3)]
    assert [s.plan for s in declared.sizes] == ["declared"] * 3 and declared.extension is not None
    assert [s.epsilon for s in declared.sizes] == pytest.approx(published, rel=1e-11)
    assert declared.extension.bound(3) == declared.sizes[-1].epsilon

    def undeclared(**params):  # the same program without its declared law: bracketed in windows
        return dataclasses.replace(PROGRAMS["svt"](**params), shared_noise=None)

    bench = BENCH["SVT"]
    r = every_n(undeclared, up_to=3, alpha=HALF, **bench.params, noise="unbounded")
    ext = r.extension
    assert ext is not None and all(s.ratio is None and s.interval[0] <= s.interval[1] for s in r.sizes)
    assert ext.bound(3) == max(s.interval[0] for s in r.sizes) == r.sizes[-1].epsilon
    for a, b in zip(r.sizes, r.sizes[1:]):  # eps(n + 1) >= eps(n): the brackets allow it
        assert b.interval[1] >= a.interval[0]
    clamped = [math.log(brute_ratio(BENCH["SVT"], n, 1)[1]) for n in (1, 2, 3)]
    assert any(abs(c - s.epsilon) > 1e-3 for c, s in zip(clamped, r.sizes))  # the published mechanism, not the clamp


def _mutations(ext):
    low = ext.lower[0]
    x, xp, y = low.witness
    other = tuple(1 - v for v in y) if all(v in (0, 1) for v in y) else y
    return {
        "start": dataclasses.replace(ext, start=ext.start + 1),
        "sizes": dataclasses.replace(ext, sizes=ext.sizes[1:]),
        "lower": dataclasses.replace(ext, lower=(dataclasses.replace(low, epsilon=low.epsilon + 1), *ext.lower[1:])),
        "ratio": dataclasses.replace(ext, lower=(dataclasses.replace(low, ratio=low.ratio * 2), *ext.lower[1:])),
        "witness pair": dataclasses.replace(ext, lower=(dataclasses.replace(low, witness=(x, x, y)), *ext.lower[1:])),
        "witness y": dataclasses.replace(ext, lower=(dataclasses.replace(low, witness=(x, xp, other)), *ext.lower[1:])),
        "pad": dataclasses.replace(ext, pad=7),
    }


@pytest.mark.parametrize("field", ["start", "sizes", "lower", "ratio", "witness pair", "witness y", "pad"])
def test_the_checker_rejects_each_perturbed_certificate(field):
    bench = BENCH["SVT"]
    family = PROGRAMS[bench.program]
    params = {**bench.params, "alpha": HALF}
    r = every_n(family, up_to=3, **params)
    ext = r.extension
    lowers = [dataclasses.replace(low) for low in ext.lower]
    assert check_extension(ext, lowers, family, params, r.relation) == []
    mutated = _mutations(ext)[field]
    if field.startswith("witness"):  # the sizes' own records changed alike: the recount must catch it
        lowers = list(mutated.lower)
    assert check_extension(mutated, lowers, family, params, r.relation) != []
    assert check_extension(ext, lowers, family, params, "add-remove") != []


def _shrinking(n: int) -> Program:
    """A noise whose ratio depends on n: the size-n output is not how the size-(n + 1) one begins."""
    a = Fraction(1, n + 1)
    return Program("shrinking", IntVector(n, 0, 1), lambda x: tuple(truncated_geometric(q, -1, 2, a) for q in x))


def _last_read_first(n: int) -> Program:
    """Every answer reads the last entry: entry n + 1 changes the first n answers."""
    return Program(
        "last", IntVector(n, 0, 1), lambda x: tuple(truncated_geometric(q + x[-1], -1, 3, HALF) for q in x)
    )


def _bits(n: int) -> Program:
    """Each entry's randomized bit: outputs extend."""
    from wmcdp.lang import flip

    return Program("rr", Bits(n), lambda x: tuple(x[i] ^ flip(Fraction(1, 4)) for i in range(n)))


@pytest.mark.parametrize(
    "family, why",
    [
        (_shrinking, "is not the same function"),
        (_last_read_first, "is not the same function"),
        (PROGRAMS["noisy_max"], "not a tuple"),
    ],
)
def test_outputs_that_do_not_extend_give_no_lower_bound(family, why):
    params = {"m": 1, "alpha": HALF} if family is PROGRAMS["noisy_max"] else {}
    r = every_n(family, up_to=3, **params)
    assert r.extension is None and why in r.extension_reason


def test_a_randomized_bit_per_entry_extends_and_its_bound_is_its_constant_eps():
    r = every_n(_bits, up_to=6)  # a chain: the closed form is the statement; the extension holds too
    assert r.statement is not None and r.statement.supremum == 3 and r.extension is None
    ext, why = find_extension(_bits, {}, "hamming", [_lower(s) for s in r.sizes])
    assert why is None and ext.start == 1 and ext.bound(50) == math.log(3)
    assert extends(traced(_bits(2)), traced(_bits(3))) is None
    assert extends(traced(_bits(3)), traced(_bits(2))) is not None


def _lower(size):
    from wmcdp.notions.extension import Lower

    return Lower(size.n, size.epsilon, size.witness, size.ratio)


def test_padding_is_refused_under_add_remove_and_user_relations():
    lows = [_lower(s) for s in every_n(_bits, up_to=2).sizes]
    for relation in ("add-remove", ""):
        ext, why = find_extension(_bits, {}, relation, lows)
        assert ext is None and "padding" in why


def test_the_cli_prints_the_lower_bound_and_its_json_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    argv = ["privacy", "isvt3", "-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2", "--every-n", "3"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "every n, a lower bound: eps(n) is non-decreasing for n >= 1" in text
    assert main([*argv, "-p", "noise=unbounded", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    schema = json.loads(resources.files("wmcdp.report").joinpath("wmcdp-1.json").read_text())
    jsonschema.validate(out, schema)
    body = out["every_n"]
    assert body["extension"]["from_n"] == 1 and body["sizes"][0]["plan"] == "declared"  # exact: its declared law
    assert body["extension"]["lower_bound"] == max(s["epsilon"] for s in body["sizes"])


def test_a_released_gap_gets_lower_ends_from_a_windowed_witness_and_is_refuted_for_every_n():
    r = _run("BadGapSVT", 6, noise="unbounded")  # pure eps of each size is refused: it releases the noisy answer
    assert all(s.plan.startswith("refused") and s.interval[1] == math.inf for s in r.sizes)
    ext = r.extension
    assert ext is not None and ext.bound(6) > math.log(HALF ** -BENCH["BadGapSVT"].claim_power(BENCH["BadGapSVT"].params))
    assert all(s.witness[0] is not None and s.epsilon > 0 for s in r.sizes)  # n <= 6: each has its witness's end


def test_an_output_beyond_the_first_window_widens_it():
    from wmcdp import IntVector, Program, geometric, synthesize_privacy

    prog = Program("release", IntVector(1, 0, 1), lambda x: (geometric(x[0], alpha=HALF),))
    r = synthesize_privacy(prog, [((1,), (0,), (10,))], [((1,), (10,)), ((0,), (10,))])  # 10 lies past |Z| <= 2
    assert r.interval.lo <= math.log(2) <= r.interval.hi and r.interval.half_width > 8
