"""Audit pure-LDP 1.2.0 (PyPI ``pure-ldp``): the pure epsilon-LDP its frequency oracles' clients claim.

Each client's ``privatise`` is run by :func:`wmcdp.audit.execution.exact_distribution` on every path of its
draws (the library's own code, with ``random`` and ``numpy.random`` replaced by exact choices: uniform
integers branch, uniform doubles ``k 2^-53`` are compared with the library's float thresholds exactly).
The distributions of the inputs ``1 .. d`` (the default ``index_mapper`` maps item ``x`` to index ``x - 1``)
become one wmcdp program whose tight epsilon over every pair of distinct inputs (local DP) is computed
exactly and compared with the claim. The clients, following pure-LDP 1.2.0's source:

* ``DEClient`` (``direct_encoding/de_client.py``, lines 26-34): ``random.random() < self.p`` keeps the
  item, else ``random.randint(0, d - 2)`` picks one of the others;
* ``UEClient`` (``unary_encoding/ue_client.py``, lines 44-48; SUE, and OUE with ``use_oue=True``):
  ``np.random.choice([1, 0], size=d, p=[q, 1 - q])`` sets each bit, then the item's bit is
  ``random.random() < self.p``;
* ``LHClient`` (``local_hashing/lh_client.py``, lines 67-78, 92; BLH with ``g=2``, OLH with
  ``use_olh=True``): ``seed = random.randint(0, sys.maxsize)`` is published with the report, the item is
  hashed by ``xxh32(str(index), seed) % g``, and ``np.random.random_sample() > self.p - self.q`` replaces
  it by ``np.random.randint(0, g)``. The seed (2^63 values) is drawn independently of the item and is part
  of the output, so the ratio at an output ``(y, seed)`` is that of the perturbation given the seed, and
  it depends only on whether the seed hashes ``x`` and ``x'`` to ``y``. The seed model: the audit
  enumerates a set of seeds that separates every pair of items (found by xxh32 itself); conditioning
  the seed on that set scales both inputs' probabilities alike, so the epsilon is the same as over all
  seeds. ``FastLHClient`` draws its seed from ``0 .. k - 1``: every seed is enumerated;
* ``HadamardResponseClient`` (``hadamard_response/hr_client.py`` and ``internal/k2k_hadamard.py``): for
  ``epsilon <= 1`` ``Hadamard_Rand_high_priv.encode_symbol`` (lines 44-71: a uniform output and its
  partner, kept by ``random.random() > pri_para``); above 1
  ``Hadamard_Rand_general_original.encode_symbol`` (lines 339-371) of the permuted item, with the identity
  permutation as ``hash_funcs`` (a bijection of the items: every pair is still audited);
* ``CMSClient`` (``apple_cms/cms_client.py``, lines 54-84, with ``is_hadamard=False``): a hash index
  ``random.randint(0, k - 1)`` (published), the ``-1/+1`` one-hot vector of ``h_j(str(item))`` and each entry
  flipped where ``np.random.rand(m) < self.prob``; the hash functions are ``generate_hash_funcs(k, m)``, the
  ones ``CMSServer`` makes (``generate_hash(m, i)``, ``i < k``). With ``is_hadamard=True`` (HCMS, lines
  86-105): the hash index, a row ``l = random.randint(0, m - 1)`` (both published) and the entry of the Hadamard
  column of ``h_j(str(item))`` there, times ``random.choices([-1, 1], weights=[prob, 1 - prob])``, which CPython
  computes as a bisection of ``random() * total`` in the cumulative weights (a float product of the uniform
  double, followed exactly by :class:`wmcdp.audit.execution.ScaledUniform`);
* ``SketchResponseClient`` (``sketch_response/sketch_response_client.py``, lines 88-109, count-mean
  sketching): a hash index ``random.randint(0, k - 1)`` (published), then its default ``FastLHClient`` (OLH,
  ``lh_k`` seeds, ``index_mapper`` the identity) on ``h_j(index)``, with ``generate_hash_funcs(k, m)``. With
  ``count_sketch=True``: ``FastLHClient`` over ``2 m`` values on ``cs_map((h(index) + 1) * g)``, ``g = 2 s(index)
  - 1``, with the hash pairs ``(h, s) = (generate_hash(m, 2i), generate_hash(2, 2i + 1))`` (the library leaves
  them to its caller);
* ``PCSClient`` (``priv_count_sketch/pcs_client.py``, lines 38-62): a hash index ``np.random.randint(0, l)``
  (published), every entry ``2 * np.random.binomial(1, 0.5, w) - 1`` (numpy's legacy inversion: 0 when
  ``u <= 0.5``, so ``P(1) = 1/2 - 2^-53``), then the item's bucket ``h(str(item))`` set to its sign ``g`` times
  ``random.choices([1, -1], weights=[bias, 1 - bias])``; hash pairs as for count sketch, ``(generate_hash(w, 2i),
  generate_hash(2, 2i + 1))``;
* ``HadamardMechClient`` (``hadamard_mechanism/hadamard_mechanism_client.py``, lines 38-87): ``t`` indices
  ``random.randint(0, d - 1)`` (published) with their coefficients ``(-1)^popcount(index & j)``; when
  ``random.random() >= self.p`` the coefficients are replaced by one of the other ``2^t - 1`` sign vectors,
  ``random.randint(0, len(new_hashes) - 1)``, and the report is a ``zip`` of the pairs (read as a tuple);
* ``RAPPORClient`` (``rappor/rappor_client.py``, lines 48-73): a cohort ``random.randint(0, cohorts - 1)``
  (published), its ``k`` hash functions set bits of an ``m``-bit Bloom filter, and each bit is reported 1
  when ``random.random() < 1 - 0.5 f`` (a set bit) or ``< 1/2 * f`` (a clear one). The hash functions are
  the library's ``generate_hash(m, seed)`` at the seeds ``0, 1, ...`` (the server draws them at random).
  RAPPOR takes ``f``, not epsilon: the claims are the library's ``convert_f_to_eps(f, k)`` (the server's
  ``epsilon``), and, for ``f = convert_eps_to_f(epsilon)`` (its documented way to set ``f`` from an
  epsilon), that epsilon.

The heavy hitters (``pure_ldp.heavy_hitters``) report strings: the inputs are every bit string of
``max_string_length`` (the default index mapper, ``_hh_client.py`` line 33, reads the bits before the padding
``*``), every two neighbours, and the claim is the client's ``epsilon`` for its whole report:

* ``PEMClient`` (``prefix_extending/pem_client.py``, lines 35-48): a published group ``random.randint(0, g - 1)``,
  the frequency oracle's domain set to ``2^size`` and its report of the prefix of that size; the oracle keeps the
  epsilon it was built with (PEM passes its own only to the default ``LHClient``);
* ``TreeHistClient`` (``treehistogram/treehist_client.py``, lines 26-34, 49-51, 65-68): the oracle at
  ``epsilon / 2``, two copies; a prefix of ``n``-grams chosen by ``np.random.randint`` (not published), padded, is
  reported by one, the word by the other;
* ``SFPClient`` (``apple_sfp/sfp_client.py``, lines 41-55, 69-72, 86-89): a published start ``l``
  (``np.random.choice`` of the fragment starts), the fragment ``str(xxh64(word, seed=10) % 256) + "_" + word[l: l +
  n]`` and the word, each reported by a copy of a sketch at ``epsilon / 2``. Only the sketches run: the client
  reads ``fo_client.sketch_based``, which no other oracle (and not the default ``None``) has, and with
  ``SketchResponseClient`` it maps the fragment by the bit-string index mapper, which refuses its ``_``.

The whole report is run exactly, the oracles' draws as above. Their default ``LHClient`` draws a 63-bit seed: for
PEM a set of seeds that separates every two indices (its report is one local-hashing report given the group); for
TreeHist the fragment's report mixes the prefixes' reports, so its ratio at ``(y, seed)`` depends on the seed
through the hash values of every index, and its seeds give each of the ``g^d`` vectors of hash values
(:func:`complete_seeds`): whatever a seed of the family does to the indices, one of these does the same, so the
tight ratio over them is that over all seeds (the word's report needs separating seeds only; the two reports are
independent, their tight ratios multiply).

``--sample`` runs the public ``privatise`` with the library's own generators and tests the model's
distribution on the witness's two inputs (for local hashing: whether the report equals the item's hash
under its seed, as the seeds themselves are too many to count; for TreeHist's fragment, which of the prefixes it
equals the hash of, whose distribution the model takes over its seeds, uniform over the hash vectors).

Needs the optional extra: ``pip install 'wmcdp[pureldp]'`` (pure-ldp 1.2.0, with the scikit-learn and
statsmodels its package imports, xxhash below 4, whose 4.0 refuses the ``str`` the library hashes, and scipy).
"""

from __future__ import annotations

import functools
import itertools
import random
import warnings
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..base.errors import WmcdpError
from .core import AuditCase, AuditedLibrary, Mechanism, Modelled, library, local_row
from .execution import exact_distribution

#: the pure-ldp version the models follow
MODELLED = "1.2.0"


def _pure_ldp() -> Any:
    return library("pure_ldp.frequency_oracles", "pure-ldp", "pure-ldp", "pureldp")


@dataclass(frozen=True, kw_only=True)
class Client:
    """A case's client (the :class:`~wmcdp.audit.core.AuditCase`'s ``spec``); the inputs are the items
    ``1 .. d``, every two neighbours. ``call`` builds the client and ``claim`` reads its claimed epsilon
    (``client`` names it), both Python expressions over ``pure_ldp.frequency_oracles`` and
    ``pure_ldp.core.generate_hash``: the reproducers run them too."""

    call: str
    claim: str
    d: int
    family: str  # the reproducer's randomizer: de, ue, lh, hr, cms, sr, hm, rappor, or hh (a heavy hitter)
    run: Callable[[Any, Any], Hashable]  # (client, item) -> output: the part enumerated exactly
    view: Callable[[Any, Any, Hashable], Hashable] = lambda client, x, y: y  # what a sampling check counts
    items: tuple[str, ...] = ()  # a heavy hitter's inputs (its strings); else the items 1 .. d

    @property
    def inputs(self) -> tuple[Any, ...]:
        return self.items or tuple(range(1, self.d + 1))

    def build(self) -> Any:
        # deferred: pure-ldp is an optional extra
        from pure_ldp import heavy_hitters
        from pure_ldp.core import generate_hash, generate_hash_funcs

        names = {**vars(_pure_ldp()), **vars(heavy_hitters)}
        names |= {"generate_hash": generate_hash, "generate_hash_funcs": generate_hash_funcs}
        return eval(self.call, names)  # noqa: S307 (our text)

    def claimed(self, client: Any) -> float:
        return float(eval(self.claim, {"client": client}))  # noqa: S307 (our text)


def _bits(v: Any) -> tuple[int, ...]:
    return tuple(int(b) for b in v)


def _privatise(client: Any, x: Any) -> Hashable:
    """The library's own ``privatise``, its report as a hashable value."""
    return _plain(client.privatise(x))


def _plain(y: Any) -> Hashable:
    """An output as a hashable Python value (numpy integers and arrays, RAPPOR's list, the Hadamard mechanism's
    list or ``zip`` of pairs)."""
    if isinstance(y, zip) or (isinstance(y, list) and any(isinstance(v, tuple) for v in y)):
        y = tuple(y)
    if isinstance(y, tuple):
        return tuple(_plain(v) for v in y)
    if isinstance(y, (list, np.ndarray)):
        return _bits(y)
    return int(y) if isinstance(y, (int, np.integer)) else y


#: how every pure-ldp model is validated
VALIDATION = (
    "the client's own privatise run on every path of its draws (exact); its reports with the library's own "
    "generators against the model (chi-square)"
)


def _case(
    mechanism: str,
    params: str,
    d: int,
    family: str,
    claim: str = "client.epsilon",
    run: Callable[[Any, Any], Hashable] = _privatise,
    **client: Any,
) -> AuditCase:
    """The case of the client ``mechanism(params)`` over the items ``1 .. d`` (or ``client``'s ``items``): its claim
    read by ``claim``, its reports from ``run`` enumerated exactly; ``client`` holds :class:`Client`'s other fields."""
    spec = Client(call=f"{mechanism}({params})", claim=claim, d=d, family=family, run=run, **client)
    return AuditCase(
        library="pure-ldp",
        mechanism=mechanism,
        params=params,
        claim=claim,
        model=_row,
        draw=draw_counts,
        validation=VALIDATION,
        spec=spec,
    )


def _de(eps: float, d: int) -> AuditCase:
    return _case("DEClient", f"epsilon={eps!r}, d={d}", d, "de")


def _ue(eps: float, d: int, oue: bool) -> AuditCase:
    return _case("UEClient", f"epsilon={eps!r}, d={d}, use_oue={oue}", d, "ue")


@functools.lru_cache(maxsize=64)
def separating_seeds(d: int, g: int, candidates: range) -> tuple[int, ...]:
    """Seeds from ``candidates``, in order, such that every pair of indices ``0 .. d - 1`` is hashed apart by
    one of them (``xxh32(str(index), seed) % g``, lh_client.py line 74); each seed kept separates a pair not
    separated before."""
    import xxhash  # deferred: xxhash comes with the audited library's extra

    apart: set[tuple[int, int]] = set()
    pairs = set(itertools.combinations(range(d), 2))
    chosen = []
    for seed in candidates:
        h = [xxhash.xxh32(str(i), seed=seed).intdigest() % g for i in range(d)]
        new = {(i, j) for i, j in pairs - apart if h[i] != h[j]}
        if new:
            chosen.append(seed)
            apart |= new
        if apart == pairs:
            return tuple(chosen)
    return tuple(chosen)


def _lh_hit(lh: Any, index: int, report: Any) -> bool:
    """Whether a local-hashing report ``(value, seed)`` is the index's own hash under its seed."""
    import xxhash  # deferred: xxhash comes with the audited library's extra

    value, seed = report
    return bool(value == xxhash.xxh32(str(index), seed=seed).intdigest() % lh.g)


def _hit(client: Any, x: int, y: Hashable) -> Hashable:
    """Whether a local-hashing report ``(value, seed)`` is the item's own hash under its seed."""
    return _lh_hit(client, client.index_mapper(x), y)


def _seed_model(lh: Any, seeds: tuple[int, ...]) -> None:
    """``lh.privatise`` (lh_client.py lines 93-94) with its published seed, ``random.randint(0, sys.maxsize)``,
    drawn uniformly from ``seeds`` instead: the seed model (module docstring)."""

    def privatise(data: Any) -> tuple[Any, int]:
        seed = seeds[random.randrange(len(seeds))]
        return lh._perturb(data, seed), seed

    lh.privatise = privatise


def _seeded(client: Any, x: int) -> Hashable:
    """LHClient.privatise under the seed model (module docstring): a seed of :func:`separating_seeds`."""
    _seed_model(client, separating_seeds(client.d, client.g, range(10_000)))
    return _privatise(client, x)


def _lh(eps: float, d: int, olh: bool) -> AuditCase:
    params = f"epsilon={eps!r}, d={d}, " + ("use_olh=True" if olh else "g=2")
    return _case("LHClient", params, d, "lh", run=_seeded, view=_hit)


def _fast_lh(eps: float, d: int, k: int) -> AuditCase:
    return _case("FastLHClient", f"epsilon={eps!r}, d={d}, k={k}, use_olh=True", d, "lh")


def _hr(eps: float, d: int) -> AuditCase:
    return _case("HadamardResponseClient", f"epsilon={eps!r}, d={d}, hash_funcs=list(range({d}))", d, "hr")


def _cms(eps: float, d: int, k: int, m: int) -> AuditCase:
    """The hash functions are ``generate_hash_funcs(k, m)`` (``generate_hash(m, i)`` for ``i < k``), CMSServer's."""
    case = _case("CMSClient", f"epsilon={eps!r}, hash_funcs=generate_hash_funcs({k}, {m}), m={m}", d, "cms")
    return replace(case, params=f"epsilon={eps!r}, k={k}, m={m}, d={d}")


def _hcms(eps: float, d: int, k: int, m: int) -> AuditCase:
    """Hadamard count-mean sketch: ``is_hadamard=True`` with ``generate_hash_funcs(k, m)`` (``m`` a power of 2)."""
    call = f"epsilon={eps!r}, hash_funcs=generate_hash_funcs({k}, {m}), m={m}, is_hadamard=True"
    case = _case("CMSClient", call, d, "hcms")
    return replace(case, params=f"is_hadamard=True, epsilon={eps!r}, k={k}, m={m}, d={d}")


def _count_sketch_pairs(k: int, m: int) -> str:
    """``k`` count-sketch hash pairs as text: ``(generate_hash(m, 2i), generate_hash(2, 2i + 1))``, a bucket and a
    sign bit (the library leaves choosing them to its caller)."""
    return f"[(generate_hash({m}, 2 * i), generate_hash(2, 2 * i + 1)) for i in range({k})]"


def _pcs(eps: float, d: int, l: int, w: int) -> AuditCase:  # noqa: E741 (the library's name)
    case = _case("PCSClient", f"epsilon={eps!r}, l={l}, w={w}, hash_funcs={_count_sketch_pairs(l, w)}", d, "pcs")
    return replace(case, params=f"epsilon={eps!r}, l={l}, w={w}, d={d}")


def _sketch_response_cs(eps: float, d: int, k: int, m: int, lh_k: int) -> AuditCase:
    """Sketch response with ``count_sketch=True``: the default ``FastLHClient`` over ``2 m`` values."""
    call = f"epsilon={eps!r}, m={m}, hash_funcs={_count_sketch_pairs(k, m)}, lh_k={lh_k}, count_sketch=True"
    case = _case("SketchResponseClient", call, d, "srcs")
    return replace(case, params=f"count_sketch=True, epsilon={eps!r}, k={k}, m={m}, lh_k={lh_k}, d={d}")


def _sketch_response(eps: float, d: int, k: int, m: int, lh_k: int) -> AuditCase:
    """Count-mean sketching (``count_sketch=False``) with ``generate_hash_funcs(k, m)`` and the default
    ``FastLHClient`` (OLH) over ``lh_k`` seeds, every one enumerated."""
    call = f"epsilon={eps!r}, m={m}, hash_funcs=generate_hash_funcs({k}, {m}), lh_k={lh_k}"
    case = _case("SketchResponseClient", call, d, "sr")
    return replace(case, params=f"epsilon={eps!r}, k={k}, m={m}, lh_k={lh_k}, d={d}")


def _hm(eps: float, d: int, t: int) -> AuditCase:
    return _case("HadamardMechClient", f"epsilon={eps!r}, d={d}, t={t}", d, "hm")


def _rappor(d: int, m: int, k: int, cohorts: int, f: float | None = None, eps: float | None = None) -> AuditCase:
    """With ``eps``: ``f = RAPPORClient.convert_eps_to_f(eps)`` (the method does not read its client) and the
    claim is ``eps``; else the claim is ``convert_f_to_eps(f, k)``. The hash functions: seeds ``0, 1, ...``."""
    ff = f"RAPPORClient.convert_eps_to_f(None, {eps!r})" if eps is not None else repr(f)
    family = f"[[generate_hash({m}, c * {k} + j) for j in range({k})] for c in range({cohorts})]"
    claim = repr(eps) if eps is not None else f"client.convert_f_to_eps(client.f, {k})"
    case = _case("RAPPORClient", f"f={ff}, m={m}, hash_funcs={family}, num_of_cohorts={cohorts}", d, "rappor", claim)
    shown = f"f=convert_eps_to_f({eps!r})" if eps is not None else f"f={f!r}"
    return replace(case, params=f"{shown}, m={m}, k={k}, cohorts={cohorts}, d={d}")


@functools.lru_cache(maxsize=16)
def complete_seeds(d: int, g: int, candidates: range) -> tuple[int, ...]:
    """Seeds from ``candidates``, in order, one for each vector of hash values ``(xxh32(str(i), seed) % g)`` of the
    indices ``i = 0 .. d - 1`` (lh_client.py line 69): every one of the ``g^d`` vectors, so that whatever a seed
    of the whole family does to these indices, one of these seeds does the same."""
    import xxhash  # deferred: xxhash comes with the audited library's extra

    found: dict[tuple[int, ...], int] = {}
    for seed in candidates:
        found.setdefault(tuple(xxhash.xxh32(str(i), seed=seed).intdigest() % g for i in range(d)), seed)
        if len(found) == g**d:
            return tuple(sorted(found.values()))
    raise WmcdpError(f"the seeds {candidates} give {len(found)} of the {g**d} hash vectors of {d} indices mod {g}")


def _strings(length: int) -> tuple[str, ...]:
    """The bit strings of the given length: a heavy hitter's inputs (its default index mapper reads bit strings)."""
    return tuple("".join(bits) for bits in itertools.product("01", repeat=length))


def _hh(mechanism: str, params: str, length: int, fo: str | None, **kw: Any) -> AuditCase:
    """A heavy hitter's case over every bit string of ``length`` (its ``max_string_length``), wrapping the frequency
    oracle ``fo`` (the call's text), or its default ``LHClient`` when ``fo`` is None."""
    params = params if fo is None else f"fo_client={fo}, {params}"  # (a label no other label contains)
    return _case(mechanism, params, 2**length, "hh", items=_strings(length), **kw)


def _index(client: Any, text: str) -> int:
    """The heavy hitter's default index of a string: its bits before the first padding character (_hh_client.py
    line 33)."""
    return int(client.index_mapper(text))


def _pem_prefix(client: Any, x: str, group: int) -> str:
    """PEM's fragment of ``x`` in a group (pem_client.py lines 45-46)."""
    padded = client._pad_string(x)
    return str(padded[: min(client.start_length + (group + 1) * client.fragment_length, len(padded))])


def _pem_seeded(client: Any, x: str) -> Hashable:
    """PEMClient.privatise with its default LHClient under the seed model: seeds that separate every two indices
    of the strings (a group's report is one local-hashing report of its prefix, the group published)."""
    d = len(client.alphabet) ** client.max_string_length
    _seed_model(client.client, separating_seeds(d, client.client.g, range(10_000)))
    return _privatise(client, x)


def _pem_hit(client: Any, x: str, y: Hashable) -> Hashable:
    report, group = cast(tuple[Any, int], y)
    return _lh_hit(client.client, _index(client, _pem_prefix(client, x, group)), report), group


def _tree_prefixes(client: Any, x: str) -> list[str]:
    """TreeHist's possible fragments of ``x``: each n-gram prefix padded (treehist_client.py lines 49-51)."""
    padded, n = client._pad_string(x), client.fragment_length
    pad = client.padding_char
    return [padded[: s + n] + pad * (n * client.num_n_grams - s - n) for s in range(0, len(padded), n)]


def _tree_seeded(client: Any, x: str) -> Hashable:
    """TreeHistClient.privatise with its default LHClient under the seed model. The fragment's report mixes the
    prefixes' reports, so its ratio at ``(y, seed)`` depends on the seed through the hash vector of every index:
    its seeds give every such vector (:func:`complete_seeds`); the word's report is one local-hashing report, its
    seeds separate every pair. The two reports are independent, so the tight ratio of a pair is the product of the
    two parts' tight ratios, each attained on these seeds as on all."""
    d, g = len(client.alphabet) ** client.max_string_length, client.fragment_estimator.g
    _seed_model(client.fragment_estimator, complete_seeds(d, g, range(100_000)))
    _seed_model(client.word_estimator, separating_seeds(d, g, range(10_000)))
    return _privatise(client, x)


def _tree_hits(client: Any, x: str, y: Hashable) -> Hashable:
    """Which prefixes of ``x`` the fragment's report hashes to, and whether the word's report is ``x``'s hash."""
    frag, word = cast(tuple[Any, Any], y)
    hits = tuple(_lh_hit(client.fragment_estimator, _index(client, p), frag) for p in _tree_prefixes(client, x))
    return hits, _lh_hit(client.word_estimator, _index(client, x), word)


def _pem(eps: float, start: int, length: int, step: int, fo: str | None = None) -> AuditCase:
    params = f"epsilon={eps!r}, start_length={start}, max_string_length={length}, fragment_length={step}"
    if fo is not None:
        return _hh("PEMClient", params, length, fo)
    return _hh("PEMClient", params, length, None, run=_pem_seeded, view=_pem_hit)


def _tree(eps: float, step: int, length: int, fo: str | None = None) -> AuditCase:
    params = f"epsilon={eps!r}, fragment_length={step}, max_string_length={length}"
    if fo is not None:
        return _hh("TreeHistClient", params, length, fo)
    return _hh("TreeHistClient", params, length, None, run=_tree_seeded, view=_tree_hits)


def _sfp(eps: float, step: int, length: int, fo: str) -> AuditCase:
    return _hh("SFPClient", f"epsilon={eps!r}, fragment_length={step}, max_string_length={length}", length, fo)


def _heavy_hitter_cases() -> list[AuditCase]:
    """PEM, TreeHist and SFP over their default local hashing (PEM, TreeHist) and wrapped oracles."""
    out = [_pem(eps, s, n, 1) for eps, s, n in ((1.0, 0, 2), (2.0, 1, 3), (4.0, 0, 3))]
    out += [_pem(2.0, 1, 3, 1, "DEClient(2.0, 8)"), _pem(0.5, 0, 2, 1, "DEClient(0.5, 4)")]
    out += [_pem(1.0, 0, 2, 1, "UEClient(1.0, 4, use_oue=True)")]
    out += [_pem(2.0, 1, 3, 1, "FastLHClient(2.0, 8, 4, use_olh=True)")]
    out += [_pem(1.0, 0, 2, 1, "CMSClient(1.0, generate_hash_funcs(2, 4), 4)"), _pem(1.0, 0, 2, 1, "DEClient(4.0, 4)")]
    out += [_tree(0.5, 1, 2)]
    out += [_tree(eps, 1, n, f"DEClient({eps!r}, {2**n})") for eps, n in ((2.0, 2), (1.0, 3), (5.0, 2))]
    out += [_tree(1.0, 1, 2, "UEClient(1.0, 4)"), _tree(2.0, 1, 2, "FastLHClient(2.0, 4, 4, use_olh=True)")]
    out += [_tree(2.0, 1, 2, "CMSClient(2.0, generate_hash_funcs(1, 4), 4)")]
    out += [_tree(1.0, 1, 2, "CMSClient(1.0, generate_hash_funcs(2, 4), 4, is_hadamard=True)")]
    out += [_sfp(eps, 1, 2, f"CMSClient({eps!r}, generate_hash_funcs({k}, 4), 4)") for eps, k in ((2.0, 1), (1.0, 1))]
    out += [_sfp(4.0, 2, 4, "CMSClient(4.0, generate_hash_funcs(1, 4), 4, is_hadamard=True)")]
    return out + [
        _sfp(2.0, 1, 2, "CMSClient(2.0, generate_hash_funcs(2, 4), 4, is_hadamard=True)"),
        _sfp(0.5, 1, 3, "CMSClient(0.5, generate_hash_funcs(1, 4), 4, is_hadamard=True)"),
    ]


def _cases() -> list[AuditCase]:
    out = [_de(eps, d) for eps, d in ((0.1, 2), (0.5, 4), (1.0, 2), (1.0, 16), (2.0, 8), (5.0, 4), (10.0, 3))]
    out += [_ue(eps, 4, False) for eps in (0.5, 1.0, 5.0)]
    out += [_ue(eps, d, True) for eps, d in ((0.5, 4), (1.0, 4), (2.0, 6), (5.0, 4))]
    out += [_lh(eps, d, False) for eps, d in ((1.0, 4), (3.0, 4))]
    out += [_lh(eps, d, True) for eps, d in ((0.5, 4), (1.0, 8), (2.0, 4), (5.0, 4))]
    out += [_fast_lh(1.0, 4, 8)]
    out += [_hr(eps, d) for eps, d in ((0.5, 4), (1.0, 8), (2.0, 4), (5.0, 8))]
    out += [_cms(eps, d, k, m) for eps, d, k, m in ((1.0, 4, 1, 4), (2.0, 4, 2, 4), (4.0, 6, 1, 8))]
    out += [_sketch_response(eps, d, k, m, h) for eps, d, k, m, h in ((0.5, 3, 1, 4, 4), (1.0, 4, 2, 4, 8))]
    out += [_sketch_response(2.0, 6, 2, 8, 16)]
    return out + _hadamard_and_rappor_cases() + _count_sketch_cases() + _heavy_hitter_cases()


def _count_sketch_cases() -> list[AuditCase]:
    """HCMS, the private count sketch and sketch response with count sketch."""
    out = [_hcms(eps, d, k, m) for eps, d, k, m in ((1.0, 4, 1, 4), (2.0, 6, 2, 8), (0.5, 4, 2, 4))]
    out += [_pcs(eps, d, l, w) for eps, d, l, w in ((1.0, 4, 1, 4), (2.0, 4, 2, 4), (0.5, 6, 1, 3))]
    out += [_sketch_response_cs(eps, d, k, m, h) for eps, d, k, m, h in ((1.0, 4, 1, 2, 4), (2.0, 4, 2, 2, 8))]
    return out


def _hadamard_and_rappor_cases() -> list[AuditCase]:
    out = [_hm(eps, d, t) for eps, d, t in ((0.5, 4, 1), (1.0, 4, 2), (2.0, 8, 2), (3.0, 4, 3), (1.0, 6, 2))]
    out += [_rappor(4, 8, 1, 2, eps=eps) for eps in (1.0, 5.0, 6.0, 10.0, 12.0)]
    out += [_rappor(4, 8, 2, 2, f=f) for f in (0.5, 0.1)]
    return out


#: every client of ``pure_ldp.frequency_oracles``, described once (docs/audits.md shows this table)
MECHANISMS = (
    Mechanism(
        "DEClient",
        "audited",
        "direct encoding (GRR): kept when `random.random() < p`, else `random.randint(0, d - 2)` over the others",
    ),
    Mechanism(
        "UEClient",
        "audited",
        "SUE; OUE with `use_oue=True`: every bit `np.random.choice([1, 0], "
        "p=[q, 1 - q])`, the item's bit `random.random() < p`",
    ),
    Mechanism(
        "LHClient",
        "audited",
        "BLH with `g=2`; OLH with `use_olh=True`: `xxh32(str(index), seed) % g`, "
        "replaced by `np.random.randint(0, g)` when `np.random.random_sample() > p - q`. The seed "
        "(`random.randint(0, sys.maxsize)`) is published and drawn alike for every item, so the ratio at "
        "`(y, seed)` is the perturbation's given the seed: the audit enumerates a set of seeds that hashes "
        "every pair of items apart (conditioning on it scales both inputs alike)",
    ),
    Mechanism("FastLHClient", "audited", "as `LHClient` with the seed from `0 .. k - 1`, every seed enumerated"),
    Mechanism(
        "HadamardResponseClient",
        "audited",
        "ε ≤ 1: `Hadamard_Rand_high_priv.encode_symbol`; above: "
        "`Hadamard_Rand_general_original.encode_symbol` with the identity permutation as `hash_funcs`",
    ),
    Mechanism(
        "RAPPORClient",
        "audited",
        "a published cohort, its hash functions (`generate_hash(m, seed)`, seeds "
        "`0, 1, ...`) set Bloom filter bits, each bit reported by `random.random() <` `1 - 0.5 f` or `f / 2`. "
        "The claims: `convert_f_to_eps(f, k)`, and ε itself for `f = convert_eps_to_f(ε)`",
    ),
    Mechanism(
        "HadamardMechClient",
        "audited",
        "`t` published indices `random.randint(0, d - 1)`, their Hadamard "
        "coefficients `(-1)^popcount(index & j)` kept unless `random.random() >= p`, else another of the "
        "`2^t - 1` sign vectors by `random.randint` (a `zip` of the pairs, read as a tuple)",
    ),
    Mechanism(
        "CMSClient",
        "audited",
        "count-mean sketch with `is_hadamard=False`: a published hash index "
        "`random.randint(0, k - 1)`, the ±1 one-hot vector of `h_j(str(item))`, each entry flipped when "
        "`np.random.rand(m)` is below `prob`; HCMS with `is_hadamard=True`: a published row "
        "`random.randint(0, m - 1)` of the Hadamard column of `h_j(str(item))`, its sign from "
        "`random.choices([-1, 1], weights=[prob, 1 - prob])` (CPython bisects `random() * total` in the "
        "cumulative weights: a float product of the uniform double, followed exactly). The hash functions are "
        "CMSServer's `generate_hash_funcs(k, m)`",
    ),
    Mechanism(
        "SketchResponseClient",
        "audited",
        "a published hash index `random.randint(0, k - 1)`, then the "
        "default `FastLHClient` (OLH over `lh_k` seeds, every one enumerated) on `h_j(index)`; with "
        "`count_sketch=True` on the signed bucket `cs_map((h(index) + 1) g)` over `2 m` values. The hash "
        "functions: `generate_hash_funcs(k, m)`, and for count sketch the pairs `(generate_hash(m, 2i), "
        "generate_hash(2, 2i + 1))`",
    ),
    Mechanism(
        "PCSClient",
        "audited",
        "the private count sketch: a published hash index `np.random.randint(0, l)`, every entry "
        "`2 np.random.binomial(1, 0.5, w) - 1` (numpy's legacy inversion: `P(1) = 1/2 - 2^-53`), the item's "
        "bucket set to its sign times `random.choices([1, -1], weights=[bias, 1 - bias])`; the hash pairs "
        "`(generate_hash(w, 2i), generate_hash(2, 2i + 1))`",
    ),
    Mechanism("HEClient", "not auditable", "histogram encoding adds continuous Laplace noise to every bit"),
    Mechanism(
        "ZeroOracleClient",
        "not auditable",
        "a baseline that reports 0 for every item: no randomness and no ε to check",
    ),
    Mechanism(
        "PEMClient",
        "audited",
        "`pure_ldp.heavy_hitters`, prefix extension over bit strings: a published group `random.randint(0, g - 1)` "
        "and the oracle's report of the prefix of its size, the domain set to `2^size`; the default `LHClient` (PEM's "
        "ε) under the separating seed model, or `DEClient`, OUE, `FastLHClient`, `CMSClient` at the ε they were "
        "built with (PEM does not pass its own)",
    ),
    Mechanism(
        "TreeHistClient",
        "audited",
        "tree histograms: two copies of the oracle at ε / 2, one reporting a prefix of `n`-grams chosen by "
        "`np.random.randint` (not published) and padded, one the word; the default `LHClient` with seeds giving "
        "every vector of hash values of the indices (the fragment's ratio depends on all of them), or `DEClient`, "
        "SUE, `FastLHClient`, `CMSClient` (HCMS too)",
    ),
    Mechanism(
        "SFPClient",
        "audited",
        "Apple's sequence fragment puzzle with `CMSClient` (HCMS too): a published start `np.random.choice` of the "
        'fragment starts, the fragment `str(xxh64(word, seed=10) % 256) + "_" + word[l: l + n]` and the word, '
        "each by a copy of the sketch at ε / 2. No other oracle runs: with the default or a non-sketch oracle the "
        "client raises `AttributeError` (`fo_client.sketch_based`), with `SketchResponseClient` `ValueError` (the "
        "bit-string index mapper applied to the fragment)",
    ),
)


#: pure-ldp as an audited library
def _neighbours(case: AuditCase) -> str:
    return "any two values of the domain (local DP)"


LIBRARY = AuditedLibrary(
    "pure-ldp", "pure-ldp", "pure-ldp", "pureldp", __name__, _pure_ldp, _cases, MECHANISMS, _neighbours
)
cases = LIBRARY.cases
audit_pureldp = LIBRARY.audit
pureldp_version = LIBRARY.version


def distributions(case: AuditCase) -> list[dict[Hashable, Fraction]]:
    """The exact output distribution of the client on every item of the case (module docstring)."""
    spec: Client = case.spec
    client = spec.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # HR's float randint bound (Python 3.11 allows it)
        return [exact_distribution(functools.partial(spec.run, client, x)) for x in spec.inputs]


def draw_counts(case: AuditCase, x: int, draws: int) -> Counter[Any]:
    """``draws`` reports of the library's own ``privatise`` on ``x`` (its own generators), as the case counts them."""
    spec: Client = case.spec
    client = spec.build()
    out: Counter[Any] = Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for _ in range(draws):
            out[spec.view(client, x, _privatise(client, x))] += 1
    return out


def _row(case: AuditCase) -> Modelled:
    """The case's row, and the witness's two inputs to sample with the model's distributions there."""
    spec: Client = case.spec
    client = spec.build()
    claimed = spec.claimed(client)
    return local_row(
        case,
        spec.inputs,
        distributions(case),
        claimed,
        lambda x, xp, y: reproducer(case, LIBRARY.version(), claimed, x, xp, y),
        lambda x, y: spec.view(client, x, y),
    )


__all__ = [
    "MODELLED",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "Client",
    "audit_pureldp",
    "cases",
    "distributions",
    "draw_counts",
    "pureldp_version",
    "reproducer",
    "TAIL",
    "complete_seeds",
    "separating_seeds",
]


# -- reproducers: a script per finding that needs pure-ldp alone ---------------------------------

_HEAD = '''"""{label}: pure-LDP {version} claims epsilon = {claim_text} (local DP), yet the report y = {y!r}
is more likely under the item x = {x} than e^epsilon times its probability under x' = {xp}.
Needs only pure-ldp: the exact probabilities follow the client's own lines, with the thresholds it computes,
and the uniform doubles of random.random() and np.random.random_sample(), k / 2**53 for k uniform in
0 .. 2**53 - 1 (CPython's and numpy's 53-bit doubles)."""
import math
import random
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
from pure_ldp.core import generate_hash, generate_hash_funcs
from pure_ldp.frequency_oracles import *
from pure_ldp.heavy_hitters import *

GRID = 2**53


def below(t):  # P(u < t)
    return Fraction(min(max(math.ceil(Fraction(float(t)) * GRID), 0), GRID), GRID)


def at_most(t):  # P(u <= t)
    return Fraction(min(max(math.floor(Fraction(float(t)) * GRID) + 1, 0), GRID), GRID)


client = {call}
claim = {claim}
x, x_prime, y = {x!r}, {xp!r}, {y!r}
'''

TAIL = """
p, p_prime = prob(x), prob(x_prime)
print(f"P(y | x)  = {p}")
print(f"P(y | x') = {p_prime}")
getcontext().prec = 60
if p_prime == 0:
    print("exact ratio: inf")
    print(f"VIOLATED: y is impossible under x' and has probability {float(p):.6g} under x")
else:
    ratio = p / p_prime
    log = (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln()
    print(f"exact ratio: {ratio}")
    print(f"ln(ratio) = {log:.40f}")
    print(f"claimed   = {Decimal(claim):.40f}")
    print("VIOLATED" if log > Decimal(claim) else "holds")
"""

#: random.choices' rule in the sketch oracles' scripts: P(fl(u * c) < t) for u on the 2^-53 grid
_SCALED_BELOW = """

def scaled_below(c, t):  # P(fl(u * c) < t): the product grows with k, so bisection finds the count
    lo, hi = 0, GRID
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if mid / GRID * c < t else (lo, mid)
    return Fraction(lo, GRID)
"""

_BODIES = {
    "de": """

def prob(item):  # de_client.py lines 26-34: kept when random.random() < p, else one of the other d - 1
    keep = below(client.p)
    return keep if y == item - 1 else (1 - keep) / (client.d - 1)


k = math.ceil(Fraction(client.p) * GRID)  # the code path: u = (k - 1) / 2**53 keeps the item, u = k / 2**53 not
draw = random.random
random.random = lambda: (k - 1) / GRID
assert client.privatise(x) == x - 1
random.random = lambda: k / GRID
assert client.privatise(x) != x - 1
random.random = draw
""",
    "ue": """

def prob(item):  # ue_client.py lines 44-48: np.random.choice([1, 0], p=[q, 1 - q]) is 1 when u < cdf[0]
    cdf = np.array([client.q, 1 - client.q]).cumsum()  # numpy's RandomState.choice: cdf /= cdf[-1],
    cdf /= cdf[-1]  # then searchsorted(u, side="right")
    out = Fraction(1)
    for i, bit in enumerate(y):
        one = below(client.p) if i == item - 1 else below(cdf[0])  # the item's bit: random.random() < p
        out *= one if bit else 1 - one
    return out

""",
    "lh": """
import xxhash


def prob(item):  # lh_client.py lines 67-78: the seed is published and drawn alike for every item, so its
    value, seed = y  # probability cancels from the ratio; kept when u <= p - q, else np.random.randint(0, g)
    keep = at_most(client.p - client.q)
    hashed = xxhash.xxh32(str(item - 1), seed=seed).intdigest() % client.g
    return (keep if value == hashed else 0) + (1 - keep) / client.g

""",
    "hr": """

def prob(item):  # k2k_hadamard.py: every out1 of the uniform draw, kept or moved
    hr, i = client.hr, item - 1
    total = Fraction(0)
    for out1 in range(hr.outsz):
        if client.epsilon <= 1:  # Hadamard_Rand_high_priv.encode_symbol, lines 44-71
            col = i + 1
            out2 = out1 ^ (1 << (col.bit_length() - 1))
            even = bin(out1 & col).count("1") % 2 == 0
            keep = 1 - at_most(hr.pri_para)  # ra > pri_para
            first, second = (out1, out2) if even else (out2, out1)
        else:  # Hadamard_Rand_general_original.encode_symbol, lines 339-371 (identity permutation)
            keep = below((2 * hr.part) / (2 * hr.part - 1 + hr.exp))  # ra < 2B / (2B - 1 + e^eps): out1
            block, pos = divmod(i, hr.partsz - 1)
            col, out_pos = pos + 1, out1 & (hr.partsz - 1)
            moved = out_pos + (block << hr.tailbit)
            first, second = out1, moved if bin(out_pos & col).count("1") % 2 == 0 else moved ^ (col & -col)
        total += Fraction(1, hr.outsz) * (keep * (first == y) + (1 - keep) * (second == y))
    return total

""",
    "cms": """

def prob(item):  # cms_client.py lines 54-84: a published hash index j, the -1/+1 one-hot vector of h_j(str(item)),
    v, j = y  # each entry flipped when np.random.rand() < prob
    hot, flip = client.hash_funcs[j](str(item)), below(client.prob)
    out = Fraction(1, client.k)
    for i, entry in enumerate(v):
        out *= flip if entry != (1 if i == hot else -1) else 1 - flip
    return out

""",
    "sr": """
import xxhash


def prob(item):  # sketch_response_client.py lines 88-109: a published hash index j, then FastLHClient (index
    (value, seed), j = y  # mapper x -> x) on h_j(item - 1): a published seed in 0 .. lh_k - 1, kept when
    lh = client.client  # u <= p - q, else np.random.randint(0, g)
    keep = at_most(lh.p - lh.q)
    hashed = xxhash.xxh32(str(client.hash_funcs[j](item - 1)), seed=seed).intdigest() % lh.g
    return Fraction(1, client.k * lh.k) * ((keep if value == hashed else 0) + (1 - keep) / lh.g)

""",
    "hm": """

def prob(item):  # hadamard_mechanism_client.py lines 55-87: t uniform indices j (published) and their coefficients
    js, coeffs = tuple(j for j, _ in y), tuple(c for _, c in y)  # (-1)^popcount(index & j), kept when u < p,
    true = tuple((-1) ** bin((item - 1) & j).count("1") for j in js)  # else another sign vector of the 2^t - 1
    keep = below(client.p)
    return Fraction(1, client.d**client.t) * (keep if coeffs == true else (1 - keep) / (2**client.t - 1))

""",
    "hcms": _SCALED_BELOW
    + """

def prob(item):  # cms_client.py lines 86-105: a published hash index j and row l, the sign b of random.choices(
    bw, j, l = y  # [-1, 1], weights=[prob, 1 - prob]) (CPython: -1 when random() * total < prob) times had[l, h_j]
    w = client.had[l, client.hash_funcs[j](str(item))]
    minus = scaled_below(client.prob + (1 - client.prob) + 0.0, client.prob)
    return Fraction(1, client.k * client.m) * (minus if bw == -w else 1 - minus)

""",
    "pcs": _SCALED_BELOW
    + """

def fair_one():  # numpy's legacy binomial(1, 0.5) (random_binomial_inversion): 0 when u <= qn = exp(log(0.5)),
    qn = math.exp(math.log(0.5))  # 1 when u - qn <= px = (1 * 0.5 * qn) / (1 * 0.5), else drawn again
    zero = at_most(qn)
    px = (1 * 0.5 * qn) / (1 * 0.5)
    lo, hi = 0, GRID  # the k with k / 2**53 - qn <= px, counted by bisection (the float difference grows with k)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if mid / GRID - qn <= px else (lo, mid)
    one = Fraction(lo, GRID) - zero
    return one / (zero + one)


def prob(item):  # pcs_client.py lines 38-62: a published hash index np.random.randint(0, l), every entry
    vec, j = y  # 2 * binomial(1, 0.5) - 1, then the item's bucket g * random.choices([1, -1], weights=[bias, ...])
    h_loc, g = client.hash_funcs[j][0](str(item)), 2 * client.hash_funcs[j][1](str(item)) - 1
    one, plus = fair_one(), scaled_below(client.bias + (1 - client.bias) + 0.0, client.bias)
    out = Fraction(1, client.l)
    for i, v in enumerate(vec):
        out *= (plus if v == g else 1 - plus) if i == h_loc else (one if v == 1 else 1 - one)
    return out

""",
    "srcs": """
import xxhash


def prob(item):  # sketch_response_client.py lines 74-89: a published hash index j, the count-sketch value
    (value, seed), j = y  # cs_map((h(index) + 1) * g), then FastLHClient over 2 m values on it
    h, s = client.hash_funcs[j]
    val = client.cs_map((h(item - 1) + 1) * (2 * s(item - 1) - 1))
    lh = client.client
    keep = at_most(lh.p - lh.q)
    hashed = xxhash.xxh32(str(val), seed=seed).intdigest() % lh.g
    return Fraction(1, client.k * lh.k) * ((keep if value == hashed else 0) + (1 - keep) / lh.g)

""",
    "rappor": """

def prob(item):  # rappor_client.py lines 40-46: a set bit is only ever written 1; a clear one is 1 when u < f / 2
    bits, cohort = y
    filt = [0] * client.m
    for h in client.hash_family[cohort]:
        filt[h(str(item - 1))] = 1
    out = Fraction(1, client.num_of_cohorts)
    for set_bit, bit in zip(filt, bits):
        one = 1 if set_bit else below(0.5 * client.f)
        out *= one if bit else 1 - one
    return out


reports = [client.privatise(x) for _ in range(20000)]  # the code path: x's own bits are never reported 0
own = {h(str(x - 1)) for h in client.hash_family[0]}
cleared = sum(1 for bits, cohort in reports if cohort == 0 and any(bits[i] == 0 for i in own))
print(f"reports of x in cohort 0 with one of its own bits cleared: {cleared} of 20000 reports")
""",
}


#: a heavy hitter's report from its client's lines, over the frequency oracle it wraps
_BODIES["hh"] = (
    _SCALED_BELOW
    + """import xxhash


def oracle(c, data, out):  # P(out | data) for the frequency oracle c, from its own lines
    if isinstance(c, CMSClient):  # cms_client.py lines 48-94: a published hash index j of the item's str
        if c.is_hadamard:  # and row l, the sign of random.choices([-1, 1], weights=[prob, 1 - prob])
            bw, j, l = out
            minus = scaled_below(c.prob + (1 - c.prob) + 0.0, c.prob)
            return Fraction(1, c.k * c.m) * (minus if bw == -c.had[l, c.hash_funcs[j](str(data))] else 1 - minus)
        v, j = out  # or the -1/+1 one-hot vector, each entry flipped when np.random.rand() < prob
        hot, flip = c.hash_funcs[j](str(data)), below(c.prob)
        share = Fraction(1, c.k)
        for i, entry in enumerate(v):
            share *= flip if entry != (1 if i == hot else -1) else 1 - flip
        return share
    index = c.index_mapper(data)
    if isinstance(c, DEClient):  # de_client.py lines 26-34: kept when random.random() < p, else one of d - 1
        keep = below(c.p)
        return keep if out == index else (1 - keep) / (c.d - 1)
    if isinstance(c, UEClient):  # ue_client.py lines 44-48: np.random.choice([1, 0], p=[q, 1 - q]) per bit,
        cdf = np.array([c.q, 1 - c.q]).cumsum()  # 1 when u < cdf[0] (numpy's normalised cumulative sum),
        cdf /= cdf[-1]  # the index's bit random.random() < p
        share = Fraction(1)
        for i, bit in enumerate(out):
            one = below(c.p) if i == index else below(cdf[0])
            share *= one if bit else 1 - one
        return share
    value, seed = out  # lh_client.py lines 66-79: kept when u <= p - q, else np.random.randint(0, g); the
    keep = at_most(c.p - c.q)  # seed: uniform in 0 .. k - 1 (FastLHClient), or random.randint(0, sys.maxsize)
    hashed = xxhash.xxh32(str(index), seed=seed).intdigest() % c.g  # (LHClient: alike for every item, it cancels)
    share = Fraction(1, c.k) if isinstance(c, FastLHClient) else 1
    return share * ((keep if value == hashed else 0) + (1 - keep) / c.g)


def prob(item):
    padded = client._pad_string(item)
    if isinstance(client, PEMClient):  # pem_client.py lines 35-48: a published group, its prefix's report
        out, group = y
        size = client.start_length + (group + 1) * client.fragment_length
        try:  # the domain size privatise sets for the group
            client.client.update_params(d=len(client.alphabet) ** size)
        except TypeError:
            pass
        return Fraction(1, client.g) * oracle(client.client, padded[: min(size, len(padded))], out)
    n = client.fragment_length
    if isinstance(client, TreeHistClient):  # treehist_client.py lines 49-51, 65-68: a uniform prefix, padded,
        frag, word = y  # and the word, each reported by its own copy of the oracle
        width = n * client.num_n_grams
        prefixes = [padded[: s + n] + client.padding_char * (width - s - n) for s in range(0, len(padded), n)]
        mixed = sum(oracle(client.fragment_estimator, p, frag) for p in prefixes) / len(prefixes)
        return mixed * oracle(client.word_estimator, padded, word)
    frag, word, l = y  # sfp_client.py lines 69-72, 86-89: a published start l, the fragment hash_fragment
    r = str(client.hash_256(padded)) + "_" + padded[l : l + n]
    starts = len(range(0, len(padded), n))
    return Fraction(1, starts) * oracle(client.fragment_client, r, frag) * oracle(client.word_client, padded, word)

"""
)


def reproducer(case: AuditCase, version: str, claimed: float, x: int, xp: int, y: Hashable) -> str:
    """A standalone script (pure-ldp alone) that computes the witness's probabilities from the client's lines
    and prints them, the exact ratio and the verdict."""
    head = _HEAD.format(
        label=case.label,
        version=version,
        claim_text=repr(claimed),
        call=case.spec.call,
        claim=case.spec.claim,
        x=x,
        xp=xp,
        y=y,
    )
    return head + _BODIES[case.spec.family] + TAIL
