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
* ``RAPPORClient`` (``rappor/rappor_client.py``, lines 48-73): a cohort ``random.randint(0, cohorts - 1)``
  (published), its ``k`` hash functions set bits of an ``m``-bit Bloom filter, and each bit is reported 1
  when ``random.random() < 1 - 0.5 f`` (a set bit) or ``< 1/2 * f`` (a clear one). The hash functions are
  the library's ``generate_hash(m, seed)`` at the seeds ``0, 1, ...`` (the server draws them at random).
  RAPPOR takes ``f``, not epsilon: the claims are the library's ``convert_f_to_eps(f, k)`` (the server's
  ``epsilon``), and, for ``f = convert_eps_to_f(epsilon)`` (its documented way to set ``f`` from an
  epsilon), that epsilon.

``--sample`` runs the public ``privatise`` with the library's own generators and tests the model's
distribution on the witness's two inputs (for local hashing: whether the report equals the item's hash
under its seed, as the seeds themselves are too many to count).

Needs the optional extra: ``pip install 'wmcdp[pureldp]'`` (pure-ldp 1.2.0, with the scikit-learn and
statsmodels its package imports, xxhash below 4, whose 4.0 refuses the ``str`` the library hashes, and scipy).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..notions.privacy import synthesize_privacy
from ..notions.sweep import ProgressCallback
from .core import AuditRow, check_options, choice_program, installed_version, library, run_audit, select_cases, verdict
from .execution import exact_distribution

#: the pure-ldp version the models follow
MODELLED = "1.2.0"


def _pure_ldp() -> Any:
    return library("pure_ldp.frequency_oracles", "pure-ldp", "pure-ldp", "pureldp")


def pureldp_version() -> str:
    return installed_version(_pure_ldp, "pure-ldp")


@dataclass(frozen=True)
class Case:
    """One client at one set of parameters; the inputs are the items ``1 .. d``, every two neighbours. ``call``
    builds the client and ``claim`` reads its claimed epsilon (``client`` names it), both Python expressions
    over ``pure_ldp.frequency_oracles`` and ``pure_ldp.core.generate_hash``: the reproducers run them too."""

    mechanism: str
    params: str
    call: str
    claim: str
    d: int
    family: str  # the reproducer's randomizer: de, ue, lh, hr or rappor
    run: Callable[[Any, int], Hashable]  # (client, item) -> output: the part enumerated exactly
    view: Callable[[Any, int, Hashable], Hashable] = lambda client, x, y: y  # what a sampling check counts

    @property
    def label(self) -> str:
        return f"{self.mechanism} {self.params}"

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(range(1, self.d + 1))

    def build(self) -> Any:
        from pure_ldp.core import generate_hash

        return eval(self.call, {**vars(_pure_ldp()), "generate_hash": generate_hash})  # noqa: S307 (our text)

    def claimed(self, client: Any) -> float:
        return float(eval(self.claim, {"client": client}))  # noqa: S307 (our text)


def _bits(v: Any) -> tuple[int, ...]:
    return tuple(int(b) for b in v)


def _privatise(client: Any, x: int) -> Hashable:
    """The library's own ``privatise``, its report as a hashable value."""
    return _plain(client.privatise(x))


def _plain(y: Any) -> Hashable:
    """An output as a hashable Python value (numpy integers and arrays, RAPPOR's list)."""
    if isinstance(y, tuple):
        return tuple(_plain(v) for v in y)
    if isinstance(y, (list, np.ndarray)):
        return _bits(y)
    return int(y) if isinstance(y, (int, np.integer)) else y


def _case(mechanism: str, params: str, d: int, family: str, claim: str = "client.epsilon", **kw: Any) -> Case:
    return Case(mechanism, params, f"{mechanism}({params})", claim, d, family, kw.pop("run", _privatise), **kw)


def _de(eps: float, d: int) -> Case:
    return _case("DEClient", f"epsilon={eps!r}, d={d}", d, "de")


def _ue(eps: float, d: int, oue: bool) -> Case:
    return _case("UEClient", f"epsilon={eps!r}, d={d}, use_oue={oue}", d, "ue")


@lru_cache(maxsize=64)
def separating_seeds(d: int, g: int, candidates: range) -> tuple[int, ...]:
    """Seeds from ``candidates``, in order, such that every pair of indices ``0 .. d - 1`` is hashed apart by
    one of them (``xxh32(str(index), seed) % g``, lh_client.py line 74); each seed kept separates a pair not
    separated before."""
    import xxhash

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


def _hit(client: Any, x: int, y: Hashable) -> Hashable:
    """Whether a local-hashing report ``(value, seed)`` is the item's own hash under its seed."""
    import xxhash

    value, seed = y  # type: ignore[misc]
    return value == xxhash.xxh32(str(client.index_mapper(x)), seed=seed).intdigest() % client.g


def _seeded(client: Any, x: int) -> Hashable:
    """LHClient.privatise under the seed model (module docstring): a seed of :func:`separating_seeds`."""
    import random

    seeds = separating_seeds(client.d, client.g, range(10_000))
    seed = seeds[random.randrange(len(seeds))]
    return (_plain(client._perturb(x, seed)), seed)


def _lh(eps: float, d: int, olh: bool) -> Case:
    params = f"epsilon={eps!r}, d={d}, " + ("use_olh=True" if olh else "g=2")
    return _case("LHClient", params, d, "lh", run=_seeded, view=_hit)


def _fast_lh(eps: float, d: int, k: int) -> Case:
    return _case("FastLHClient", f"epsilon={eps!r}, d={d}, k={k}, use_olh=True", d, "lh")


def _hr(eps: float, d: int) -> Case:
    return _case("HadamardResponseClient", f"epsilon={eps!r}, d={d}, hash_funcs=list(range({d}))", d, "hr")


def _rappor(d: int, m: int, k: int, cohorts: int, f: float | None = None, eps: float | None = None) -> Case:
    """With ``eps``: ``f = RAPPORClient.convert_eps_to_f(eps)`` (the method does not read its client) and the
    claim is ``eps``; else the claim is ``convert_f_to_eps(f, k)``. The hash functions: seeds ``0, 1, ...``."""
    ff = f"RAPPORClient.convert_eps_to_f(None, {eps!r})" if eps is not None else repr(f)
    family = f"[[generate_hash({m}, c * {k} + j) for j in range({k})] for c in range({cohorts})]"
    case = _case(
        "RAPPORClient",
        f"f={ff}, m={m}, hash_funcs={family}, num_of_cohorts={cohorts}",
        d,
        "rappor",
        repr(eps) if eps is not None else f"client.convert_f_to_eps(client.f, {k})",
    )
    shown = f"f=convert_eps_to_f({eps!r})" if eps is not None else f"f={f!r}"
    return replace(case, params=f"{shown}, m={m}, k={k}, cohorts={cohorts}, d={d}")


def _cases() -> list[Case]:
    out = [_de(eps, d) for eps, d in ((0.1, 2), (0.5, 4), (1.0, 2), (1.0, 16), (2.0, 8), (5.0, 4), (10.0, 3))]
    out += [_ue(eps, 4, False) for eps in (0.5, 1.0, 5.0)]
    out += [_ue(eps, d, True) for eps, d in ((0.5, 4), (1.0, 4), (2.0, 6), (5.0, 4))]
    out += [_lh(eps, d, False) for eps, d in ((1.0, 4), (3.0, 4))]
    out += [_lh(eps, d, True) for eps, d in ((0.5, 4), (1.0, 8), (2.0, 4), (5.0, 4))]
    out += [_fast_lh(1.0, 4, 8)]
    out += [_hr(eps, d) for eps, d in ((0.5, 4), (1.0, 8), (2.0, 4), (5.0, 8))]
    out += [_rappor(4, 8, 1, 2, eps=eps) for eps in (1.0, 5.0, 6.0, 10.0, 12.0)]
    out += [_rappor(4, 8, 2, 2, f=f) for f in (0.5, 0.1)]
    return out


def cases(only: str | None = None) -> list[Case]:
    return select_cases(_cases(), only, "pure-ldp")


def distributions(case: Case) -> list[dict[Hashable, Fraction]]:
    """The exact output distribution of the client on every item of the case (module docstring)."""
    client = case.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # HR's float randint bound (Python 3.11 allows it)
        return [exact_distribution(lambda x=x: case.run(client, x)) for x in case.inputs]


def draw_counts(case: Case, x: int, draws: int) -> Counter:
    """``draws`` reports of the library's own ``privatise`` on ``x`` (its own generators), as the case counts them."""
    client = case.build()
    out: Counter = Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for _ in range(draws):
            out[case.view(client, x, _privatise(client, x))] += 1
    return out


def _draw_numbered(number: int, x: int, draws: int) -> Counter:
    return draw_counts(_cases()[number], x, draws)


def _viewed(case: Case, client: Any, x: int, dist: dict[Hashable, Fraction]) -> dict[Hashable, float]:
    out: dict[Hashable, float] = {}
    for y, p in dist.items():
        key = case.view(client, x, y)
        out[key] = out.get(key, 0.0) + float(p)
    return out


def _row(case: Case) -> tuple[AuditRow, list[tuple[str, dict[Hashable, float], Any]]]:
    """The case's row, and the witness's two inputs to sample with the model's distributions there."""
    dists = distributions(case)
    prog, outputs, relation = choice_program(case.mechanism, case.inputs, lambda a, b: a != b, dists)
    r = synthesize_privacy(prog, "exhaustive", neighbours=relation, force=True, exact=True)
    client = case.build()
    claimed = case.claimed(client)
    i, j, y = r.witness.x[0], r.witness.x_prime[0], outputs[r.witness.y]
    row = AuditRow(
        case.mechanism,
        case.params,
        1,
        claimed,
        r.epsilon,
        "inf" if r.ratio == math.inf else str(r.ratio),
        verdict(claimed, r.ratio, r.epsilon, True),
        (repr(case.inputs[i]), repr(case.inputs[j]), repr(y)),
        0.0,
        witness_probabilities=(str(dists[i].get(y, Fraction(0))), str(dists[j].get(y, Fraction(0)))),
    )
    checks = [(repr(case.inputs[k]), _viewed(case, client, case.inputs[k], dists[k]), case.inputs[k]) for k in (i, j)]
    return row, checks


def audit_pureldp(
    sample: int = 0,
    level: float = 1e-3,
    only: str | None = None,
    progress: ProgressCallback | None = None,
    processes: int = 2,
) -> list[AuditRow]:
    """One :class:`~wmcdp.audit.core.AuditRow` per case (with ``only``: per case whose label contains it);
    with ``sample``, the library's own reports on the witness's two inputs are tested against the model."""
    _pure_ldp()
    check_options(sample, level, processes, "pureldp")
    return run_audit(_cases(), cases(only), _row, _draw_numbered, sample, level, progress, processes)


__all__ = [
    "MODELLED",
    "Case",
    "audit_pureldp",
    "cases",
    "distributions",
    "draw_counts",
    "pureldp_version",
    "separating_seeds",
]
