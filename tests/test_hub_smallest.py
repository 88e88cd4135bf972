"""The smallest probability of outputs factored by entry (wmcdp.plan.hub.smallest) and declarations of outputs as
a product (wmcdp.OutputProduct), against brute-force enumeration and enumerations with certified tails.

``smallest_owned`` must equal ``min over x and over y in the product of P(y | x)`` of brute force exactly on the
random owned programs of test_hub_owned (None exactly when that minimum is 0); iSVT2 with unbounded noise, which
declares every code sequence as a product, must bracket the enumerated ε without listing its outputs (the listing
counter is made to fail), and wrong product declarations are refused in one line."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from fractions import Fraction as F

import brute
import pytest
from test_hub_owned import _program, _recipe, _reference
from test_peers_unbounded import at_least, point, tail

from wmcdp import OutputProduct, WmcdpError, compile_program, synthesize_privacy
from wmcdp.notions import windowed
from wmcdp.plan.hub.smallest import smallest_owned
from wmcdp.programs import PROGRAMS
from wmcdp.programs.suite import FALSE, TRUE

HALF = F(1, 2)


def _leaf_values(r, dists):
    """Per output position, the values brute force sees there (every satisfiable value of that leaf)."""
    width = len(next(iter(next(iter(dists.values())))))
    return [sorted({y[j] for d in dists.values() for y in d}) for j in range(width)]


@pytest.mark.parametrize("seed", range(24))
def test_the_smallest_probability_is_brute_forces(seed):
    rng = random.Random(seed)
    r = _recipe(rng)
    if seed % 2:  # one leaf per entry with noise of its own: every output reached, a minimum above 0
        r["leaves"] = [[rng.choice(["above", "below", "code", "coin"])] for _ in range(r["n"])]
        r["slots"] = [(e, 0) for e in range(r["n"])]
    inputs = list(itertools.product(range(3), repeat=r["n"]))
    dists = {x: brute.distribution(_reference(r), x) for x in inputs}
    values = _leaf_values(r, dists)
    if rng.random() < 0.5:  # a narrower declaration: one leaf with one value fewer
        j = rng.randrange(len(values))
        if len(values[j]) > 1:
            values[j] = values[j][1:]
    want = min(dists[x].get(y, 0) for x in inputs for y in itertools.product(*values))
    leaves = [frozenset(v) for v, slot in zip(values, r["slots"]) if slot[0] != "const"]  # (constants: no leaf)
    got = smallest_owned(compile_program(_program(r, exact=True)), leaves)
    assert got == (None if want == 0 else want)


def test_a_declared_value_no_input_gives_is_not_bounded():
    r = _recipe(random.Random(3))
    compiled = compile_program(_program(r, exact=True))
    dists = {x: brute.distribution(_reference(r), x) for x in itertools.product(range(3), repeat=r["n"])}
    values = [frozenset(v) | {99} for v, slot in zip(_leaf_values(r, dists), r["slots"]) if slot[0] != "const"]
    assert smallest_owned(compiled, values) is None
    assert smallest_owned(compiled, values[1:]) is None  # (one set per leaf, or no bound)


def _isvt2_table(n: int, a: F, reach: int) -> tuple[dict, F]:
    """iSVT2 (T = 1, no bound) on ``{0, 1}^n`` as published: threshold ``1 + Z_a``, answers ``x_i + Z_a``, every
    code sequence, summed over ``|Z| <= reach`` of the threshold's noise."""
    table = {}
    for x in itertools.product((0, 1), repeat=n):
        for y in itertools.product((FALSE, TRUE), repeat=n):
            p = F(0)
            for t in range(-reach, reach + 1):
                q = point(t, a)
                for xi, yi in zip(x, y):
                    above = at_least(1 + t - xi, a)
                    q *= above if yi == TRUE else 1 - above
                p += q
            table[x, y] = p
    return table, tail(reach, a)


def test_isvt2_declares_a_product_and_brackets_the_enumerated_epsilon(monkeypatch):
    """The product is never listed: the one-pass counter over listed outputs is made to fail."""
    n = 3
    prog = PROGRAMS["isvt2"](n=n, m=1, T=1, alpha=HALF, noise="unbounded")
    assert isinstance(prog.outputs(), OutputProduct) and len(prog.outputs()) == 2**n

    def listed(*args, **kwargs):
        raise AssertionError("the declared outputs were listed")

    monkeypatch.setattr(windowed, "smallest_probabilities", listed)
    monkeypatch.setattr(windowed, "LISTED_OUTPUTS", 4)  # (a product of at most 4096 outputs is listed)
    table, slack = _isvt2_table(n, HALF, 40)
    xs, ys = sorted({x for x, _ in table}), sorted({y for _, y in table})
    lo = math.log(max(table[x, y] / (table[xp, y] + slack) for x in xs for xp in xs if x != xp for y in ys))
    hi = math.log(max((table[x, y] + slack) / table[xp, y] for x in xs for xp in xs if x != xp for y in ys))
    assert hi - lo < 1e-9
    i = synthesize_privacy(prog, width=1e-6).interval  # (width: in windows, not from its declared law)
    assert not i.reason and i.narrowed
    assert i.lo <= hi and lo <= i.hi and i.hi - i.lo <= 1e-5 * i.hi
    declared = synthesize_privacy(prog)  # exact from its declared law, within the enumeration's bracket
    assert declared.plan.kind == "declared" and lo - 1e-12 <= declared.epsilon <= hi + 1e-12


def test_wrong_product_declarations_are_refused():
    prog = PROGRAMS["isvt2"](n=2, m=1, T=1, alpha=HALF, noise="unbounded")
    narrow = dataclasses.replace(prog, outputs=lambda: OutputProduct(((FALSE, TRUE), (FALSE,))))
    with pytest.raises(WmcdpError, match="declared outputs miss the output 01, which it gives with positive"):
        synthesize_privacy(narrow)
    parts = dataclasses.replace(prog, outputs=lambda: OutputProduct(((FALSE, TRUE),)))
    with pytest.raises(WmcdpError, match="declares outputs of 1 parts for an output of 2 parts"):
        synthesize_privacy(parts)
    outside = dataclasses.replace(prog, outputs=lambda: OutputProduct(((FALSE, TRUE), (FALSE, 7))))
    with pytest.raises(WmcdpError, match="declares the value 7 of output part 1, outside it"):
        synthesize_privacy(outside)
    with pytest.raises(WmcdpError, match="declared outputs miss an output it gives from the input"):
        synthesize_privacy(narrow, backend="sdd")


def test_an_output_product_lists_its_tuples():
    product = OutputProduct([(0, 1), (5,), [2, 3]])
    assert list(product) == [(0, 5, 2), (0, 5, 3), (1, 5, 2), (1, 5, 3)] and len(product) == 4


EXTREMES = [F(1e-300), F(1 - 1e-16), F(2.0**-1074), HALF]


@pytest.mark.parametrize("seed", range(12))
def test_the_smallest_probability_at_extreme_weights(seed):
    """Ratios of 1e-300, 1 - 1e-16 and 2^-1074 (whose powers underflow every float): the float screening that picks
    the candidate cells must not lose the smallest, which is counted exactly."""
    rng = random.Random(1000 + seed)
    r = _recipe(rng)
    r["ratios"] = [rng.choice(EXTREMES) for _ in range(r["n"])]
    r["leaves"] = [[rng.choice(["above", "below", "code", "coin"])] for _ in range(r["n"])]
    r["slots"] = [(e, 0) for e in range(r["n"])]
    inputs = list(itertools.product(range(3), repeat=r["n"]))
    dists = {x: brute.distribution(_reference(r), x) for x in inputs}
    values = _leaf_values(r, dists)
    want = min(dists[x].get(y, 0) for x in inputs for y in itertools.product(*values))
    got = smallest_owned(compile_program(_program(r, exact=True)), [frozenset(v) for v in values])
    assert got == (None if want == 0 else want)
    assert want == 0 or want < F(1, 10**250) or all(a in (HALF, F(1 - 1e-16)) for a in r["ratios"])
