"""Grid models of float samplers (wmcdp.lang.models) against closed forms: exact counts of k * 2^-53 per output,
the monotonicity checks that refuse a sampler the bisection cannot follow, and a model used in a program."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from wmcdp import Bits, Program, WmcdpError, discrete, synthesize_privacy
from wmcdp.lang.models import GRID, grid_model


def test_power_of_two_buckets_are_exact():
    m = grid_model(lambda u: int(u * 4))
    assert m.counts() == {0: GRID // 4, 1: GRID // 4, 2: GRID // 4, 3: GRID // 4}
    assert m.calls < 1000 + 10_000 and m.checked == 10_000  # the bisection, then the random checks


def test_a_threshold_counts_the_grid_points_below_the_double():
    """u < 0.3 holds for the k with k * 2^-53 below the double nearest 0.3 (an exact rational)."""
    m = grid_model(lambda u: u < 0.3)
    below = math.ceil(F(0.3) * GRID)
    assert m.counts() == {True: below, False: GRID - below}
    assert m.distribution()[True] == F(below, GRID)


def test_float_rounding_is_modelled_not_assumed():
    """floor(u * 3): near each third, u * 3 rounds; the counts are those of the doubles, checked one by one."""
    m = grid_model(lambda u: math.floor(u * 3))
    for r in m.runs[:-1]:
        assert math.floor((r.end / GRID) * 3) == r.output and math.floor(((r.end + 1) / GRID) * 3) != r.output
    assert sum(m.counts().values()) == GRID and set(m.counts()) == {0, 1, 2}


def test_a_sampler_that_returns_to_a_value_needs_segments():
    with pytest.raises(WmcdpError, match="returns to the output|not a monotone step function"):
        grid_model(lambda u: int(u * 8) % 2)
    m = grid_model(lambda u: int(u * 8) % 2, segments=[(k << 50, ((k + 1) << 50) - 1) for k in range(8)])
    assert m.counts() == {0: GRID // 2, 1: GRID // 2}


def test_random_checks_catch_a_blip_the_ends_hide():
    with pytest.raises(WmcdpError, match="not a monotone step function on the grid segment"):
        grid_model(lambda u: 1 if 0.25 < u < 0.5 else 0)


def test_segments_must_cover_the_grid():
    with pytest.raises(WmcdpError, match="must cover"):
        grid_model(lambda u: 0, segments=[(0, 10)])


def test_a_model_as_an_input_dependent_choice():
    """Randomized response as a library would sample it: flip when u * (e^eps + 1) > e^eps, with e^eps = 3."""
    models = {v: grid_model(lambda u, v=v: v ^ (u * 4.0 > 3.0)) for v in (0, 1)}
    prog = Program("rr", Bits(1), lambda x: discrete(lambda v: models[v].distribution(), x[0]))
    r = synthesize_privacy(prog, "exhaustive")
    keep = 3 * 2**51 + 1  # k <= 3 * 2^51 keep the bit (the comparison is strict); the other 2^51 - 1 flip it
    assert models[0].counts() == {0: keep, 1: GRID - keep}
    assert r.ratio == F(keep, GRID - keep)  # not 3: the grid has one more point on the keeping side


def test_integer_draws():
    """A library that compares a 64-bit integer with round(p * 2^64): the keep count is that integer, and an
    integer grid of 2^64 points (a double cannot name every one of them)."""
    threshold = round(F(1, 3) * 2**64)
    m = grid_model(lambda k: k < threshold, draw="uint64")
    assert m.counts() == {True: threshold, False: 2**64 - threshold} and m.size == 2**64
    assert m.distribution()[True] == F(threshold, 2**64)
    with pytest.raises(WmcdpError, match="must cover 0 .. 2\\^64 - 1"):
        grid_model(lambda k: 0, draw="uint64", segments=[(0, GRID - 1)])
    with pytest.raises(WmcdpError, match="unknown draw 'int32'"):
        grid_model(lambda k: 0, draw="int32")
