"""Bounds of ε for every n from an alignment of a shared threshold (wmcdp.notions.alignment).

The reference is the published sparse vector written out here in plain Python: the threshold's two-sided
geometric law summed over |ρ| <= 80 and each answer's exact probability given the threshold, from the survival
function of the two-sided geometric law (independent of wmcdp's model and compiler). At every n it reaches, ε of
that reference must lie within the bound; the bounds of CheckDP's correct programs are their claims exactly."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
from fractions import Fraction

import pytest

from wmcdp import every_n
from wmcdp.cli import main
from wmcdp.notions.alignment import align, check_alignment, directions, find_alignment, model_problems
from wmcdp.programs import CHECKDP, PROGRAMS

BENCH = {b.name: b for b in CHECKDP}
HALF = Fraction(1, 2)
FALSE, TRUE, STOPPED = 0, 1, 2


def _params(name):
    return {**BENCH[name].params, "alpha": HALF, "noise": "unbounded"}


def _family(name):
    return PROGRAMS[BENCH[name].program]


def _claim(name):
    return HALF ** -BENCH[name].claim_power(BENCH[name].params)


@functools.lru_cache(maxsize=None)
def survival(a, k):
    """P(Z >= k) of P(Z = z) ∝ a^|z|, summed directly over z in k .. k + 400 (or 1 minus the rest)."""
    norm = (1 - a) / (1 + a)
    if k >= 1:
        return sum(norm * a**z for z in range(k, k + 400))
    return 1 - sum(norm * a ** abs(z) for z in range(k - 400, k))


def svt_reference(x, a_t, a_q, T, N, report=None, a_r=None, m=1):
    """The published law of CheckDP's sparse vector on ``x``: {output: probability} (floats), every threshold value
    |ρ| <= 80 (the rest has mass below 1e-40 at a_t <= 1/4)."""
    law = {}
    norm_t = (1 - a_t) / (1 + a_t)
    for rho in range(-80, 81):
        t = T + rho
        w = float(norm_t * a_t ** abs(rho))
        states = {(): (1.0, 0)}
        for q in x:
            nxt = {}
            for out, (p, count) in states.items():
                if count >= N:
                    nxt[(*out, STOPPED)] = (nxt.get((*out, STOPPED), (0.0, count))[0] + p, count)
                    continue
                up = float(survival(a_q, t - q))
                nxt[(*out, FALSE)] = (nxt.get((*out, FALSE), (0.0, count))[0] + p * (1 - up), count)
                nxt[(*out, TRUE)] = (nxt.get((*out, TRUE), (0.0, count + 1))[0] + p * up, count + 1)
            states = nxt
        for out, (p, _) in states.items():
            law[out] = law.get(out, 0.0) + w * p
    return law


def reference_epsilon(name, n, relation="all-entries"):
    b = BENCH[name]
    model = _family(name)(n=1, **_params(name)).shared_noise
    laws = {
        x: svt_reference(x, model.threshold_ratio, model.query_ratio, model.threshold, model.bound)
        for x in itertools.product(range(2), repeat=n)
    }
    best = 0.0
    for x, xp in itertools.permutations(laws, 2):
        moved = [u != v for u, v in zip(x, xp)]
        steps = {v - u for u, v in zip(x, xp) if u != v}
        if (
            relation == "all-entries"
            or (relation == "one-entry" and sum(moved) == 1)
            or (relation == "monotone" and len(steps) == 1)
        ):
            for y, p in laws[x].items():
                if p > 1e-300:
                    best = max(best, math.log(p / laws[xp][y]))
    assert b  # the benchmark exists
    return best


@pytest.mark.parametrize("name", ["NoisyMax", "SVT", "MonotoneSVT", "GapSVT", "NumSVT", "AdaptiveSVT"])
def test_the_bound_of_each_correct_sparse_vector_is_its_claim(name):
    r, why = find_alignment(_family(name), _params(name), _family(name)(n=1, **_params(name)).neighbours, [])
    assert why is None and r.ratio == _claim(name)


def test_bad_variants_get_the_bound_they_have_or_none():
    r, why = find_alignment(_family("BadSVT2"), _params("BadSVT2"), "all-entries", [])
    assert r is None and "not bounded in number" in why  # no stop after N TRUE answers
    r, _ = find_alignment(_family("BadSVT3"), _params("BadSVT3"), "all-entries", [])
    assert r.ratio == 128 > _claim("BadSVT3")  # above the claim, and tight: eps(10) is within 1e-5 of ln 128


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_published_sparse_vector_stays_within_its_bound_at_every_n(n):
    bound, _ = find_alignment(_family("SVT"), _params("SVT"), "all-entries", [])
    eps = reference_epsilon("SVT", n)
    assert eps <= bound.epsilon
    if n in (2, 4):  # the reference is the published mechanism: within wmcdp's bracket of it
        (size,) = [s for s in every_n(_family("SVT"), up_to=n, start=n, **_params("SVT")).sizes]
        assert size.plan == "declared" and size.epsilon == pytest.approx(eps, rel=1e-11)  # exact, its declared law


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_published_monotone_sparse_vector_stays_within_its_bound(n):
    bound, _ = find_alignment(_family("MonotoneSVT"), _params("MonotoneSVT"), "monotone", [])
    assert reference_epsilon("MonotoneSVT", n, "monotone") <= bound.epsilon == math.log(4)


def test_one_entry_moves_give_their_own_bound_above_the_reference():
    model = _family("SVT")(n=1, **_params("SVT")).shared_noise
    (moves,) = directions("one-entry", model)
    a = align(model, moves)
    assert a is not None
    for n in (1, 2, 3):
        assert reference_epsilon("SVT", n, "one-entry") <= math.log(a.ratio)


def noisy_max_reference(x, a):
    """The published report noisy max: P(k | x) = sum_v P(x_k + ν = v) prod_(i < k) P(x_i + ν < v)
    prod_(i > k) P(x_i + ν <= v), v over |v| <= 90 (floats)."""
    norm = (1 - a) / (1 + a)
    law = [0.0] * len(x)
    for k, q in enumerate(x):
        for z in range(-90, 91):
            v = q + z
            p = float(norm * a ** abs(z))
            for i, u in enumerate(x):
                if i != k:
                    p *= 1 - float(survival(a, v - u if i < k else v - u + 1))
            law[k] += p
    return law


@pytest.mark.parametrize("relation", ["all-entries", "one-entry"])
def test_the_published_noisy_max_stays_within_its_bound(relation):
    family, params = _family("NoisyMax"), _params("NoisyMax")
    model = family(n=1, **params).shared_noise
    (moves,) = directions(relation, model)
    bound = math.log(align(model, moves).ratio)
    assert bound == (math.log(4) if relation == "all-entries" else math.log(2))
    for n in (1, 2, 3, 4):
        laws = {x: noisy_max_reference(x, model.query_ratio) for x in itertools.product(range(2), repeat=n)}
        eps = max(
            math.log(laws[x][k] / laws[xp][k])
            for x, xp in itertools.permutations(laws, 2)
            if relation == "all-entries" or sum(u != v for u, v in zip(x, xp)) == 1
            for k in range(n)
        )
        assert eps <= bound + 1e-12
        if n == 3 and relation == "all-entries":  # within wmcdp's bracket of the published mechanism
            (size,) = every_n(family, up_to=3, start=3, **params).sizes
            assert size.plan == "declared" and size.epsilon == pytest.approx(eps, rel=1e-11)  # exact, its declared law


def adaptive_reference(x, a, T=1, cut=1, gaps=12):
    """The published adaptive sparse vector (N = 1: from 2 spend up to 2, TOP costs 1, TRUE 2) on ``x``, over the
    outputs whose gaps are at most ``gaps``: {output: probability} (floats), the threshold over |ρ| <= 40."""
    a_t, low = a**4, a**2
    norm = lambda r: (1 - r) / (1 + r)  # noqa: E731
    law = {}
    for rho in range(-40, 41):
        t, w = T + rho, float(norm(a_t) * a_t ** abs(rho))
        states = {((), 2): w}
        for q in x:
            nxt = {}
            for (out, spent), p in states.items():
                if spent > 2:
                    options = [((2, 0), spent, p)]
                else:
                    below = 1 - float(survival(a, t + cut - q))  # P(q + ν < t + cut): not TOP
                    options = [((0, 0), spent, p * below * (1 - float(survival(low, t - q))))]
                    options += [((3, g), spent + 1, p * float(norm(a) * a ** abs(g + t - q))) for g in range(cut, gaps)]
                    options += [((1, g), spent + 2, p * below * float(norm(low) * low ** abs(g + t - q))) for g in range(gaps)]
                for answer, after, pr in options:
                    key = ((*out, answer), after)
                    nxt[key] = nxt.get(key, 0.0) + pr
            states = nxt
        for (out, _), p in states.items():
            law[out] = law.get(out, 0.0) + p
    return law


@pytest.mark.parametrize("n", [1, 2])
def test_the_published_adaptive_sparse_vector_stays_within_its_bound(n):
    family, params = _family("AdaptiveSVT"), _params("AdaptiveSVT")
    bound, _ = find_alignment(family, params, "all-entries", [])
    assert bound.ratio == 256
    laws = {x: adaptive_reference(x, HALF) for x in itertools.product(range(2), repeat=n)}
    eps = max(math.log(laws[x][y] / laws[xp][y]) for x, xp in itertools.permutations(laws, 2) for y in laws[x])
    assert 0 < eps <= bound.epsilon


def test_the_declared_law_is_checked_against_the_program():
    family, params = _family("SVT"), _params("SVT")
    assert model_problems(family, params) == []
    for change in ({"threshold": 0}, {"query_ratio": Fraction(1, 3)}, {"bound": 2}, {"report": "gap"}):

        def wrong(change=change, **kw):
            p = family(**kw)
            return dataclasses.replace(p, shared_noise=dataclasses.replace(p.shared_noise, **change))

        assert model_problems(wrong, params) != []
        r, why = find_alignment(wrong, params, "all-entries", [])
        assert r is None and "declared law" in why
    family, params = _family("NoisyMax"), _params("NoisyMax")
    assert model_problems(family, params) == []

    def other_ratio(**kw):
        p = family(**kw)
        return dataclasses.replace(p, shared_noise=dataclasses.replace(p.shared_noise, query_ratio=Fraction(1, 3)))

    assert model_problems(other_ratio, params) != []
    family, params = _family("AdaptiveSVT"), _params("AdaptiveSVT")
    assert model_problems(family, params) == []
    for change in ({"cut": 2}, {"top_report": "value"}, {"start": 1}, {"low_ratio": HALF}):

        def adaptive(change=change, **kw):
            p = family(**kw)
            return dataclasses.replace(p, shared_noise=dataclasses.replace(p.shared_noise, **change))

        assert model_problems(adaptive, params) != []


@pytest.mark.parametrize("field", ["shift", "ratio", "supremum", "bound"])
def test_the_checker_rejects_each_perturbed_certificate(field):
    family, params = _family("SVT"), _params("SVT")
    model = family(n=1, **params).shared_noise
    r, _ = find_alignment(family, params, "all-entries", [])
    assert check_alignment(r, model, [2.76598]) == []
    (d,) = r.directions
    changed = {
        "shift": dataclasses.replace(r, directions=(dataclasses.replace(d, shift=2),)),
        "ratio": dataclasses.replace(r, directions=(dataclasses.replace(d, ratio=d.ratio / 2),), ratio=d.ratio / 2),
        "supremum": dataclasses.replace(
            r, directions=(dataclasses.replace(d, suprema=((d.suprema[0][0], d.suprema[0][1], Fraction(2)), *d.suprema[1:])),)
        ),
        "bound": dataclasses.replace(r, ratio=r.ratio * 2),
    }[field]
    assert check_alignment(changed, model, [2.76598]) != []
    assert check_alignment(r, model, [2.8]) != []  # a computed eps above the bound


def test_every_n_gives_the_bound_with_its_lower_bound_and_the_json_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    r = every_n(_family("SVT"), up_to=3, **_params("SVT"))
    assert r.alignment.ratio == 16 and r.extension is not None
    assert all(s.epsilon <= r.alignment.epsilon for s in r.sizes)
    g = every_n(_family("GapSVT"), up_to=2, **_params("GapSVT"))  # a released gap: exact sizes from its declared law
    assert g.alignment.ratio == 16 and all(s.plan == "declared" for s in g.sizes)
    assert 0 < g.extension.bound(2) == g.sizes[-1].epsilon <= g.alignment.epsilon
    argv = ["privacy", "gap_svt", "-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2", "-p", "noise=unbounded"]
    assert main([*argv, "--every-n", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    schema = json.loads(resources.files("wmcdp.report").joinpath("wmcdp-1.json").read_text())
    jsonschema.validate(out, schema)
    assert out["every_n"]["alignment"]["ratio_exact"] == "16"
    assert main([*argv, "--every-n", "2"]) == 0
    assert "every n, an upper bound: e^eps(n) <= 16 for every n" in capsys.readouterr().out


def test_the_cli_brackets_the_supremum_over_n_with_both_bounds(capsys):
    argv = ["privacy", "svt", "-p", "m=1", "-p", "T=1", "-p", "N=1", "-p", "alpha=1/2", "-p", "noise=unbounded"]
    assert main([*argv, "--every-n", "3"]) == 0
    line = next(t for t in capsys.readouterr().out.splitlines() if t.startswith("every n: sup_n"))
    low, high = (float(v) for v in line.split("[")[1].split("]")[0].split(", "))
    assert low <= high == pytest.approx(math.log(16), rel=1e-9)


def max_value_reference(x, a, v):
    """P(the largest noisy answer is v | x) of the published law, from survival sums (floats)."""
    at_most = lambda c, w: 1 - float(survival(a, w - c + 1))  # noqa: E731  P(c + ν <= w)
    return math.prod(at_most(c, v) for c in x) - math.prod(at_most(c, v - 1) for c in x)


def test_a_released_noisy_maximum_grows_along_its_family_at_every_n(capsys):
    from wmcdp.notions.growth import Growth, check_growth, family_ratio, find_growth

    family, params = _family("BadNoisyMax"), _params("BadNoisyMax")
    model = family(n=1, **params).shared_noise
    g, why = find_growth(family, params, "all-entries", [])
    assert why is None and g.factor == 2 and (g.x, g.x_prime, g.y) == (0, 1, -1)
    for n in range(1, 6):  # the published law, summed directly: 2^n exactly (to float rounding)
        ratio = max_value_reference((0,) * n, HALF, -1) / max_value_reference((1,) * n, HALF, -1)
        assert ratio == pytest.approx(2**n, rel=1e-9) and family_ratio(model, n, 0, 1, -1) == 2**n
    assert check_growth(dataclasses.replace(g, factor=Fraction(3)), model, []) != []
    assert check_growth(g, model, [0.5, 1.0]) != []  # above a computed upper end at n = 2
    assert find_growth(family, params, "one-entry", [])[0] is None
    assert find_growth(_family("NoisyMax"), _params("NoisyMax"), "all-entries", [])[0] is None
    assert isinstance(g, Growth)
    r = every_n(family, up_to=3, **params)
    assert r.growth.factor == 2 and r.alignment is None
    argv = ["privacy", "noisy_max_value", "-p", "m=1", "-p", "alpha=1/2", "-p", "noise=unbounded", "--every-n", "2"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["every_n"]["growth"]["factor_exact"] == "2"
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    jsonschema.validate(out, json.loads(resources.files("wmcdp.report").joinpath("wmcdp-1.json").read_text()))
