"""Truncated geometric primitive and geometric above threshold against independent brute force.

The reference draws every noise value from the closed form of the truncated geometric
mechanism (not from wmcdp's sign/magnitude encoding), enumerates every combination of
noise values and adds up P(y | x) exactly. The helpers are reused by test_suite.py.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Callable, Iterable, Sequence

import pytest

from wmcdp.programs import geometric_above_threshold, truncated_geometric
from wmcdp import inference, synthesize_privacy
from wmcdp.compile import compile_program
from wmcdp.base.errors import WmcdpError
from wmcdp.lang import Int, IntVector, Program, flip, ite, truncated_geometric as tgeom


# -- independent reference ------------------------------------------------------------

def tgeom_pmf(c: int, lo: int, hi: int, a) -> dict[int, object]:
    """Closed form (DESIGN.md): P(lo) = a^(c-lo)/(1+a), P(hi) = a^(hi-c)/(1+a), else (1-a)/(1+a) a^|z-c|."""
    if lo == hi:
        return {lo: 1}
    pmf = {}
    for z in range(lo, hi + 1):
        if z == lo:
            pmf[z] = a ** (c - lo) / (1 + a)
        elif z == hi:
            pmf[z] = a ** (hi - c) / (1 + a)
        else:
            pmf[z] = (1 - a) / (1 + a) * a ** abs(z - c)
    return pmf


def enumerate_outputs(noises: Sequence[dict[int, object]], output: Callable[[tuple], object]) -> dict:
    """``{y: P(y)}`` for independent noise values drawn from ``noises``, by enumerating all combinations."""
    dist: dict = {}
    for combo in itertools.product(*(pmf.items() for pmf in noises)):
        p = 1
        for _, q in combo:
            p *= q
        y = output(tuple(v for v, _ in combo))
        dist[y] = dist.get(y, 0) + p
    return dist


def one_entry(x: tuple, lo: int, hi: int) -> Iterable[tuple]:
    """Inputs that differ from ``x`` in exactly one entry, by exactly one."""
    for i in range(len(x)):
        for d in (-1, 1):
            if lo <= x[i] + d <= hi:
                yield x[:i] + (x[i] + d,) + x[i + 1:]


def all_entries(x: tuple, lo: int, hi: int) -> Iterable[tuple]:
    """Inputs other than ``x`` whose every entry is within one of ``x``'s."""
    for xp in itertools.product(*([v for v in (xi - 1, xi, xi + 1) if lo <= v <= hi] for xi in x)):
        if xp != x:
            yield xp


def brute_ratio(dists: dict, neighbours: Callable[[tuple], Iterable[tuple]]):
    """Tight ``e^eps`` by definition: max over neighbours and outputs of P(y|x)/P(y|x'); inf if P(y|x') = 0."""
    best = 0
    for x, px in dists.items():
        for xp in neighbours(x):
            for y, p in px.items():
                if p == 0:
                    continue
                q = dists[xp].get(y, 0)
                best = max(best, math.inf if q == 0 else p / q)
    return best


def check_against(prog: Program, reference: Callable[[tuple], dict], neighbours, *, backend: str, exact: bool):
    """Every P(y|x) of ``prog`` equals (exact) or is within 1e-9 of (float) the reference, and so is the tight ratio."""
    compiled = compile_program(prog, backend)
    xs = list(prog.inputs.values())
    ys = list(compiled.shape.values())
    table = inference(compiled, [(x, y) for x in xs for y in ys], exact=exact)
    dists = {x: reference(x) for x in xs}
    got = {(x, y): p for x, y, p in table.items()}
    assert len(got) == len(xs) * len(ys)
    for x in xs:
        assert set(dists[x]) <= set(ys), f"reference outputs outside the program's output space for {x}"
        for y in ys:
            want = dists[x].get(y, 0)
            if exact:
                assert got[x, y] == want, (x, y)
            else:
                assert got[x, y] == pytest.approx(float(want), rel=1e-9, abs=1e-12), (x, y)
    if not any(True for x in xs for _ in neighbours(x)):
        return None  # a one-point domain has no neighbours to compare
    result = synthesize_privacy(compiled, exact=exact)
    want = brute_ratio(dists, neighbours)
    if exact:
        assert result.ratio == want
    elif math.isinf(want):
        assert math.isinf(result.epsilon)
    else:
        assert result.epsilon == pytest.approx(math.log(want), rel=1e-9, abs=1e-12)
    return result


# -- the primitive ---------------------------------------------------------------------

def test_reference_pmf_sums_to_one():
    for lo, hi in [(0, 0), (0, 1), (-2, 3)]:
        for c in range(lo, hi + 1):
            assert sum(tgeom_pmf(c, lo, hi, Fraction(2, 7)).values()) == 1


@pytest.mark.parametrize("lo, hi", [(0, 1), (0, 4), (-2, 3), (3, 3)])
@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("backend", ["bdd", "sdd"])
def test_primitive_with_symbolic_value(lo, hi, exact, backend):
    a = Fraction(3, 5) if exact else 0.3
    prog = Program("tg", IntVector(1, lo, hi), lambda x: tgeom(x[0], lo, hi, alpha=a), neighbours="one-entry")
    check_against(prog, lambda x: tgeom_pmf(x[0], lo, hi, a), lambda x: one_entry(x, lo, hi),
                  backend=backend, exact=exact)


@pytest.mark.parametrize("c", [0, 2, 4])
def test_primitive_with_constant_and_narrower_value(c):
    """A Python int, and an Int whose range is a strict part of {lo..hi} (one noise shared by both)."""
    a = Fraction(1, 3)

    def body(x):
        narrow = ite(flip(Fraction(1, 4)), Int.const(1), Int.const(2))
        return tgeom(c, 0, 4, alpha=a), tgeom(narrow, 0, 4, alpha=a)

    prog = Program("tg2", IntVector(1, 0, 1), body)
    mix = {v: Fraction(1, 4) * p for v, p in tgeom_pmf(1, 0, 4, a).items()}
    for v, p in tgeom_pmf(2, 0, 4, a).items():
        mix[v] += Fraction(3, 4) * p
    want = {(u, v): p * q for u, p in tgeom_pmf(c, 0, 4, a).items() for v, q in mix.items()}
    table = inference(prog, [((0,), y) for y in want], exact=True)
    assert {y: table.probability((0,), y) for y in want} == want


def test_scale_gives_alpha_e_to_minus_one_over_scale():
    r = synthesize_privacy(truncated_geometric(4, scale=0.5))
    assert r.epsilon == pytest.approx(2.0, rel=1e-12)


def test_acceptance_m5_alpha_8_9_ratio_is_exactly_9_8():
    r = synthesize_privacy(truncated_geometric(5, alpha=Fraction(8, 9)))
    assert r.exact and r.ratio == Fraction(9, 8)


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha": 0}, "alpha must be in \\(0, 1\\)"),
    ({"alpha": 1}, "alpha must be in \\(0, 1\\)"),
    ({"alpha": Fraction(3, 2)}, "alpha must be in \\(0, 1\\)"),
    ({"alpha": float("nan")}, "alpha is NaN"),
    ({"scale": 0}, "scale must be > 0"),
    ({"scale": -1.0}, "scale must be > 0"),
    ({"scale": float("inf")}, "scale"),
    ({"scale": 1e-4}, "scale"),
    ({}, "exactly one of alpha"),
    ({"alpha": 0.5, "scale": 1.0}, "exactly one of alpha"),
])
def test_ratio_validation(kwargs, message):
    with pytest.raises(WmcdpError, match=message):
        truncated_geometric(3, **kwargs)


def test_range_validation():
    def run(body):
        compile_program(Program("bad", IntVector(1, 0, 2), body))

    with pytest.raises(WmcdpError, match="range 3..2 is empty"):
        run(lambda x: tgeom(x[0], 3, 2, alpha=0.5))
    with pytest.raises(WmcdpError, match="not inside 1..2"):
        run(lambda x: tgeom(x[0], 1, 2, alpha=0.5))
    with pytest.raises(WmcdpError, match="bounds must be integers"):
        run(lambda x: tgeom(x[0], 0.0, 2, alpha=0.5))
    with pytest.raises(WmcdpError, match="m must be at least 1"):
        truncated_geometric(0, alpha=0.5)


# -- geometric above threshold ------------------------------------------------------------

def gat_reference(n: int, k: int, t: int, a) -> Callable[[tuple], dict]:
    """Paper Alg. 5 as DESIGN.md defines it: first i with TGeom(x_i) > TGeom(t) (strict), else n."""
    def first_above(values: tuple) -> int:
        threshold, vs = values[0], values[1:]
        return next((i for i, v in enumerate(vs) if v > threshold), n)

    return lambda x: enumerate_outputs([tgeom_pmf(t, 0, k, a)] + [tgeom_pmf(xi, 0, k, a) for xi in x], first_above)


@pytest.mark.parametrize("n, k, t", [(1, 1, 0), (2, 1, 0), (3, 1, 1), (2, 2, 1), (3, 2, 0), (2, 3, 2)])
@pytest.mark.parametrize("exact", [True, False])
def test_gat_against_brute_force(n, k, t, exact):
    a = Fraction(2, 5) if exact else math.exp(-1 / 0.7)
    prog = (geometric_above_threshold(n, k, t, alpha=a) if exact
            else geometric_above_threshold(n, k, t, scale=0.7))
    check_against(prog, gat_reference(n, k, t, a), lambda x: one_entry(x, 0, k), backend="bdd", exact=exact)


def test_gat_sdd_backend():
    a = Fraction(1, 3)
    check_against(geometric_above_threshold(2, 2, 1, alpha=a), gat_reference(2, 2, 1, a),
                  lambda x: one_entry(x, 0, 2), backend="sdd", exact=True)


def test_gat_parameter_validation():
    with pytest.raises(WmcdpError, match="t must be an integer in 0..k"):
        geometric_above_threshold(2, 2, 3, scale=0.2)
    with pytest.raises(WmcdpError, match="n must be at least 1"):
        geometric_above_threshold(0, 2, 1, scale=0.2)
    with pytest.raises(WmcdpError, match="exactly one of alpha"):
        geometric_above_threshold(2, 2, 1)


def test_gat_per_input_size_within_the_papers_91_nodes():
    """Paper Fig. 2: Dice's BDD for k = 3, n = 6 has 91 nodes (one program per concrete input)."""
    compiled = compile_program(geometric_above_threshold(6, 3, 2, scale=0.2))
    sizes = [compiled.output_size(x) for x in compiled.domain.values()]
    assert max(sizes) <= 91
    smaller = [compile_program(geometric_above_threshold(n, 3, 2, scale=0.2)).size for n in (3, 4, 5, 6)]
    steps = [b - a for a, b in zip(smaller, smaller[1:])]
    assert max(steps) <= 2 * min(steps)  # phi grows linearly in n
