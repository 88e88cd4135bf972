"""The DP-tester suite (noisy max, histogram, sparse vector family) against independent brute force.

Each mechanism is written a second time below in plain Python, straight from StatDP's
pseudocode (Algorithms 5, 7, 9-15) with every Laplace(b) replaced by truncated geometric
noise of ratio e^(-1/b) on {-margin..m+margin}; every noise combination is enumerated.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from wmcdp.programs import (histogram, histogram_wrong_scale, isvt1, isvt2, isvt3, isvt4, noisy_max, noisy_max_value,
                      sparse_vector)
from test_geometric import all_entries, check_against, enumerate_outputs, one_entry, tgeom_pmf
from wmcdp import synthesize_privacy
from wmcdp.base.errors import WmcdpError

FALSE, TRUE, STOPPED = 0, 1, 2


def noisy(q: int, m: int, margin: int, a) -> dict:
    return tgeom_pmf(q, -margin, m + margin, a)


# -- reference mechanisms: x -> {y: P(y | x)} ---------------------------------------------

def noisy_max_ref(m, margin, a, report_value: bool):
    def output(v):
        return max(v) if report_value else max(range(len(v)), key=lambda i: (v[i], -i))
    return lambda x: enumerate_outputs([noisy(q, m, margin, a) for q in x], output)


def histogram_ref(m, margin, a):
    return lambda x: enumerate_outputs([noisy(q, m, margin, a) for q in x], tuple)


def svt_ref(m, margin, T, N, a_threshold, a_query, report_value: bool):
    """StatDP's SVT loop; ``a_query=None``: no query noise; ``N=None``: no bound; stopped answers are explicit."""
    def run(x, values):
        threshold, noise = values[0], values[1:]
        out, count = [], 0
        for i, q in enumerate(x):
            if N is not None and count >= N:
                out.append((STOPPED, 0) if report_value else STOPPED)
                continue
            v = q if a_query is None else noise[i]
            if v >= threshold:
                out.append((TRUE, v) if report_value else TRUE)
                count += 1
            else:
                out.append((FALSE, 0) if report_value else FALSE)
        return tuple(out)

    def dist(x):
        queries = [] if a_query is None else [noisy(q, m, margin, a_query) for q in x]
        return enumerate_outputs([noisy(T, m, margin, a_threshold)] + queries, lambda values: run(x, values))

    return dist


# -- cases: (program factory call, reference, neighbour relation) -------------------------

FACTORIES = {"noisy_max": noisy_max, "noisy_max_value": noisy_max_value, "histogram": histogram,
             "histogram_wrong_scale": histogram_wrong_scale, "sparse_vector": sparse_vector, "isvt1": isvt1,
             "isvt2": isvt2, "isvt3": isvt3, "isvt4": isvt4}

# reference builders from the finest noise ratio a (the programs' documented alpha)
REFERENCES = {
    "noisy_max": lambda m, margin, a: noisy_max_ref(m, margin, a, False),
    "noisy_max_value": lambda m, margin, a: noisy_max_ref(m, margin, a, True),
    "histogram": histogram_ref,
    "histogram_wrong_scale": histogram_ref,
    "sparse_vector": lambda m, margin, a, T, N: svt_ref(m, margin, T, N, a ** N, a, False),
    "isvt1": lambda m, margin, a, T: svt_ref(m, margin, T, None, a, None, False),
    "isvt2": lambda m, margin, a, T: svt_ref(m, margin, T, None, a, a, False),
    "isvt3": lambda m, margin, a, T, N: svt_ref(m, margin, T, N, a, a ** 3, False),
    "isvt4": lambda m, margin, a, T, N: svt_ref(m, margin, T, N, a ** N, a, True),
}

# the finest noise's Laplace scale b in StatDP's pseudocode (Delta = 1); its ratio is e^(-1/b)
LAPLACE_SCALES = {
    "noisy_max": lambda e, extra: 2 / e,
    "noisy_max_value": lambda e, extra: 2 / e,
    "histogram": lambda e, extra: 1 / e,
    "histogram_wrong_scale": lambda e, extra: e,
    "sparse_vector": lambda e, extra: 2 * extra["N"] / e,
    "isvt1": lambda e, extra: 1 / e,
    "isvt2": lambda e, extra: 2 / e,
    "isvt3": lambda e, extra: 4 / e,
    "isvt4": lambda e, extra: 2 * extra["N"] / e,
}

EPS0 = 0.9


def case(name: str, n: int, m: int, margin: int, exact_alpha: Fraction | None, **extra):
    """``name`` built from ``eps0 = EPS0`` (exact_alpha None) or from the exact ``alpha``, and its reference."""
    if exact_alpha is None:
        prog = FACTORIES[name](n=n, m=m, margin=margin, eps0=EPS0, **extra)
        base = math.exp(-1 / LAPLACE_SCALES[name](EPS0, extra))
    else:
        prog = FACTORIES[name](n=n, m=m, margin=margin, alpha=exact_alpha, **extra)
        base = exact_alpha
    return prog, REFERENCES[name](m, margin, base, **extra)


CASES = [  # name, n, m, margin, neighbour relation, extra parameters
    ("noisy_max", 3, 2, 1, all_entries, {}),
    ("noisy_max", 2, 1, 0, all_entries, {}),
    ("noisy_max_value", 3, 1, 1, all_entries, {}),
    ("histogram", 2, 2, 1, one_entry, {}),
    ("histogram_wrong_scale", 2, 1, 2, one_entry, {}),
    ("sparse_vector", 3, 2, 1, all_entries, {"T": 1, "N": 1}),
    ("sparse_vector", 3, 1, 1, all_entries, {"T": 1, "N": 2}),
    ("isvt1", 3, 2, 1, all_entries, {"T": 1}),
    ("isvt2", 3, 1, 1, all_entries, {"T": 0}),
    ("isvt3", 3, 1, 1, all_entries, {"T": 1, "N": 2}),
    ("isvt4", 2, 1, 1, all_entries, {"T": 1, "N": 1}),
    ("isvt4", 3, 1, 0, all_entries, {"T": 1, "N": 2}),
]


@pytest.mark.parametrize("name, n, m, margin, relation, extra", CASES, ids=lambda v: str(v) if isinstance(v, (str, int)) else "")
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_against_brute_force(name, n, m, margin, relation, extra, exact):
    prog, reference = case(name, n, m, margin, Fraction(1, 3) if exact else None, **extra)
    check_against(prog, reference, lambda x: relation(x, 0, m), backend="bdd", exact=exact)


@pytest.mark.parametrize("name, extra", [("noisy_max", {}), ("sparse_vector", {"T": 1, "N": 1}),
                                         ("isvt4", {"T": 0, "N": 1})])
def test_sdd_backend(name, extra):
    prog, reference = case(name, 2, 1, 1, Fraction(2, 5), **extra)
    check_against(prog, reference, lambda x: all_entries(x, 0, 1), backend="sdd", exact=True)


def test_histogram_is_exactly_eps0_private():
    assert synthesize_privacy(histogram(2, 2, alpha=Fraction(1, 3))).ratio == 3


@pytest.mark.parametrize("call, message", [
    (lambda: noisy_max(0, 2, eps0=1), "n must be at least 1"),
    (lambda: noisy_max(2, 0, eps0=1), "m must be at least 1"),
    (lambda: noisy_max(2, 2, eps0=1, margin=-1), "margin must be a whole number >= 0"),
    (lambda: histogram(2, 2), "exactly one of eps0"),
    (lambda: histogram(2, 2, eps0=1, alpha=Fraction(1, 2)), "exactly one of eps0"),
    (lambda: histogram(2, 2, eps0=0), "eps0 must be a positive finite number"),
    (lambda: histogram_wrong_scale(2, 2, eps0=-1.0), "eps0 must be a positive finite number"),
    (lambda: histogram(2, 2, alpha=1), "alpha must be in \\(0, 1\\)"),
    (lambda: sparse_vector(2, 2, T=3, N=1, eps0=1), "T must be an integer in 0..m"),
    (lambda: sparse_vector(2, 2, T=1, N=0, eps0=1), "N must be at least 1"),
    (lambda: isvt3(2, 2, T=Fraction(1, 2), N=1, eps0=1), "T must be an integer"),
])
def test_parameter_validation(call, message):
    with pytest.raises(WmcdpError, match=message):
        call()
