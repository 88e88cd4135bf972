"""The pure-LDP audit of the heavy hitters (SFP, PEM, TreeHist): the exact execution of each client's whole report
against references written from the protocols (a published group or fragment start, a uniform prefix level, the
frequency oracles' references of test_audit_pureldp with the library's float parameters), every random choice
enumerated by ``tests/brute.py``; the local-hashing seed model against the supremum over every hash vector; the
reproducers; the library's own draws against the models. Skips without pure-ldp."""

from __future__ import annotations

import copy
import itertools
import math
from fractions import Fraction as F

import pytest

pytest.importorskip("pure_ldp.heavy_hitters")

import brute  # noqa: E402
from reports import script_output  # noqa: E402
from test_audit_pureldp import (  # noqa: E402
    _report,
    at_most,
    check_case,
    cms_reference,
    de_reference,
    hcms_reference,
    lh_perturb,
    ue_reference,
    uniform,
)

from wmcdp.audit.pureldp import audit_pureldp, cases, complete_seeds, separating_seeds  # noqa: E402


def bits(text: str) -> int:
    """A string's index: its bits before the padding (every input here is a bit string)."""
    head = text.split("*")[0]
    return int(head, 2) if head else 0


def oracle(c, data: str, choose, seeds=()):
    """The report of ``data`` by the frequency oracle ``c`` from its reference; local hashing draws its seed
    uniformly from ``seeds`` (LHClient's seed model) or ``0 .. k - 1`` (FastLHClient)."""
    from pure_ldp.frequency_oracles import CMSClient, DEClient, FastLHClient, LHClient, UEClient

    if isinstance(c, CMSClient):
        return (hcms_reference if c.is_hadamard else cms_reference)(c, data, choose)
    item = bits(data) + 1
    if isinstance(c, DEClient):
        return de_reference(c, item, choose)
    if isinstance(c, UEClient):
        return ue_reference(c, item, choose)
    assert isinstance(c, LHClient)
    seed = choose(uniform(c.k)) if isinstance(c, FastLHClient) else choose(dict.fromkeys(seeds, F(1, len(seeds))))
    return (lh_perturb(c, item, seed, choose), seed)


def pem_reference(c, x, choose, seeds=()):
    """PEM: a published group uniform in ``0 .. g - 1``, the oracle (its domain 2^size) on the prefix of that size."""
    group = choose(uniform(c.g))
    size = c.start_length + (group + 1) * c.fragment_length
    sub = copy.copy(c.client)
    try:
        sub.update_params(d=2**size)
    except TypeError:  # CMS has no domain size
        pass
    return (oracle(sub, x[:size], choose, seeds), group)


def tree_reference(c, x, choose, seeds=((), ())):
    """TreeHist: a uniform n-gram prefix padded with '*' to the word's length (not published), its report, and the
    word's report, each by its own copy of the oracle at epsilon / 2."""
    n = c.fragment_length
    start = choose(uniform(len(x) // n)) * n
    prefix = x[: start + n] + "*" * (len(x) - start - n)
    return (oracle(c.fragment_estimator, prefix, choose, seeds[0]), oracle(c.word_estimator, x, choose, seeds[1]))


def sfp_reference(c, x, choose):
    """Apple's sequence fragment puzzle: a published fragment start l, the fragment ``hash(word) % 256 + "_" +
    word[l : l + n]`` (xxh64 with seed 10) and the word, each reported by a copy of the sketch at epsilon / 2."""
    import xxhash

    n = c.fragment_length
    starts = range(0, len(x), n)
    l = choose({s: F(1, len(starts)) for s in starts})  # noqa: E741 (the library's name)
    fragment = f"{xxhash.xxh64(x, seed=10).intdigest() % 256}_{x[l : l + n]}"
    return (oracle(c.fragment_client, fragment, choose), oracle(c.word_client, x, choose), l)


def _labels(mechanism: str, wrapped: bool, skip: tuple[str, ...] = ()) -> list[str]:
    chosen = [c for c in cases(mechanism) if ("fo_client" in c.params) == wrapped]
    return [c.label for c in chosen if not any(s in c.label for s in skip)]


@pytest.mark.parametrize("label", _labels("PEMClient", True))
def test_prefix_extension_over_a_wrapped_oracle(label):
    check_case(label, pem_reference)


@pytest.mark.parametrize("label", _labels("TreeHistClient", True, skip=("UEClient",)))
def test_tree_histogram_over_a_wrapped_oracle(label):
    check_case(label, tree_reference)


@pytest.mark.parametrize("label", _labels("SFPClient", True))
def test_sequence_fragment_puzzle_over_count_mean_sketches(label):
    check_case(label, sfp_reference)


def test_every_heavy_hitter_case_runs_the_library_at_half_epsilon():
    """TreeHist and SFP report twice at epsilon / 2 (their claim epsilon); PEM reports once and leaves a given
    oracle at its own epsilon: the case with DEClient(4.0) under PEM's 1.0 is about 4."""
    for case in cases("TreeHistClient") + cases("SFPClient"):
        c = case.spec.build()
        estimators = (c.fragment_estimator, c.word_estimator) if hasattr(c, "word_estimator") else (c.word_client,)
        assert all(e.epsilon == c.epsilon / 2 for e in estimators)
    (row,) = audit_pureldp(only="PEMClient fo_client=DEClient(4.0, 4), epsilon=1.0")
    assert row.verdict == "VIOLATED" and 4.0 <= row.epsilon < 4.0 + 1e-12
    assert len(cases("PEMClient")) + len(cases("TreeHistClient")) + len(cases("SFPClient")) >= 20
    assert {len(c.spec.inputs) for c in cases("Client fo_client=")} >= {4, 8, 16}


def _lh_keep(lh) -> tuple[F, F]:
    """Local hashing's chances: kept with a = P(u <= p - q), else uniform over g: (a, (1 - a) / g)."""
    a = at_most(lh.p - lh.q)
    return a, (1 - a) / lh.g


def test_prefix_extension_with_its_default_local_hashing():
    """Over the separating seeds, against the reference; the tight ratio is (a + b) / b whatever seeds the
    library draws (some group's prefixes of two strings differ and a seed hashes them apart)."""
    for case in cases("PEMClient epsilon="):
        c = case.spec.build()
        seeds = separating_seeds(len(case.spec.inputs), c.client.g, range(10_000))
        check_case(case.label, lambda c, x, choose, seeds=seeds: pem_reference(c, x, choose, seeds))
        a, b = _lh_keep(c.client)
        (row,) = audit_pureldp(only=case.label)
        assert row.ratio_exact == str((a + b) / b)


def test_tree_histogram_with_its_default_local_hashing():
    """Over the seeds of the seed model, against the reference; and the tight ratio against its supremum over every
    hash function of the indices (every vector in [g]^d, no seed at all): the fragment's mixture over the prefixes
    times the word's report, both maximised at the same pair."""
    (case,) = cases("TreeHistClient epsilon=")
    c = case.spec.build()
    d, g = len(case.spec.inputs), c.fragment_estimator.g
    seeds = (complete_seeds(d, g, range(100_000)), separating_seeds(d, g, range(10_000)))
    check_case(case.label, lambda c, x, choose: tree_reference(c, x, choose, seeds))
    a, b = _lh_keep(c.fragment_estimator)

    def sup(xs: list[int], xps: list[int]) -> F:  # max over hash vectors h and values y of P(y | xs) / P(y | xps)
        return max(
            sum(a * (h[i] == y) + b for i in xs) * len(xps) / (sum(a * (h[i] == y) + b for i in xps) * len(xs))
            for h in itertools.product(range(g), repeat=d)
            for y in range(g)
        )

    def levels(x: str) -> list[int]:
        return [bits(x[: k + 1]) for k in range(len(x))]

    best = max(
        sup(levels(x), levels(xp)) * sup([bits(x)], [bits(xp)]) for x, xp in itertools.permutations(case.spec.inputs, 2)
    )
    (row,) = audit_pureldp(only=case.label)
    assert row.ratio_exact == str(best)


def test_complete_seeds_give_every_hash_vector():
    import xxhash

    seeds = complete_seeds(4, 3, range(100_000))
    vectors = {tuple(xxhash.xxh32(str(i), seed=s).intdigest() % 3 for i in range(4)) for s in seeds}
    assert len(seeds) == len(vectors) == 81
    with pytest.raises(ValueError, match="hash vectors"):
        complete_seeds(4, 3, range(10))


@pytest.mark.parametrize(
    "label, reference",
    [
        ("PEMClient epsilon=2.0", pem_reference),
        ("TreeHistClient fo_client=FastLHClient", tree_reference),
        ("SFPClient fo_client=CMSClient(2.0, generate_hash_funcs(2, 4), 4, is_hadamard=True)", sfp_reference),
        ("PEMClient fo_client=DEClient(4.0, 4)", pem_reference),
    ],
)
def test_report_of_a_heavy_hitter(tmp_path, label, reference):
    """The script of a heavy hitter's finding runs without wmcdp and prints the brute-force ratio (for PEM's local
    hashing over its separating seeds, whose probability the script leaves out: it cancels)."""
    (case,) = cases(label)
    c = case.spec.build()
    seeds = separating_seeds(len(case.spec.inputs), c.client.g, range(10_000)) if case.params.startswith("eps") else ()
    ref = {
        x: brute.distribution(lambda x, choose: reference(c, x, choose, *((seeds,) if seeds else ())), x)
        for x in case.spec.inputs
    }
    out = script_output(_report(tmp_path, label), alone=label == "PEMClient epsilon=2.0")  # one in a fresh interpreter
    assert f"exact ratio: {brute.local_ratio(ref)}" in out and out[-1] == "VIOLATED"


def test_library_draws_agree_with_the_heavy_hitter_models():
    """One case of each client: the library's own reports (its generators, its real 63-bit seeds) against the exact
    models."""
    only = (
        "PEMClient epsilon=1.0",
        "TreeHistClient epsilon=0.5",
        "SFPClient fo_client=CMSClient(2.0, generate_hash_funcs(1",
    )
    rows = [r for o in only for r in audit_pureldp(sample=20_000, only=o, processes=1)]
    assert len(rows) == len(only)
    assert all([s.draws for s in r.samples] == [20_000, 20_000] and r.model_agrees for r in rows)
    assert all(0 < s.detectable_relative < 1 for r in rows for s in r.samples)
    assert not math.isinf(rows[0].epsilon)
