"""Audit multi-freq-ldpy 0.2.5 (PyPI ``multi-freq-ldpy``): the pure epsilon-LDP its frequency oracles claim.

The clients ``GRR_Client`` and ``UE_Client`` are compiled by numba (``@jit(nopython=True)``); the audit runs
their Python source (``.py_func``) with the draws of :mod:`wmcdp.audit.execution`, which follow numba's own
generator: its ``np.random.random()`` is 53 bits of its Mersenne Twister (``get_next_double`` in
numba/cpython/randomimpl.py, the grid ``k 2^-53``), its ``randint`` and ``choice(a)`` reject draws out of
range (exactly uniform), and its ``binomial(1, p)`` is numba's BINV (:func:`wmcdp.audit.execution` models it
line by line). The thresholds are computed with numpy's ``np.exp`` in Python and with libm's ``exp`` in the
compiled code: the audit checks that the two agree on every case's epsilon (and refuses otherwise). The
inputs are the values ``0 .. k - 1``, every two neighbours; the exact epsilon of the program of their
distributions is compared with the claimed ``epsilon``. Following the source of 0.2.5:

* ``GRR_Client`` (``pure_frequency_oracles/GRR.py``, lines 27-38): ``np.random.binomial(1, p) == 1`` keeps the
  value, else ``np.random.choice`` of the others;
* ``UE_Client`` (``pure_frequency_oracles/UE.py``, lines 29-55; SUE with ``optimal=False``, OUE): each bit is
  1 when ``np.random.random() <= p`` (the value's) or ``<= q`` (the others);
* ``LH_Client`` (``pure_frequency_oracles/LH.py``, plain Python; BLH with ``optimal=False``, OLH): a seed
  ``np.random.randint(0, sys.maxsize)`` (published), ``xxh32(str(value), seed) % g``, then ``GRR_Client`` on
  the hash over ``g`` values. As for pure-ldp's local hashing the seed is part of the output and drawn alike
  for every value: the audit enumerates a set of seeds that separates every pair (the seed model of
  :mod:`wmcdp.audit.pureldp`), and runs ``GRR_Client``'s Python source in place of the compiled one;
* ``SS_Client`` (``pure_frequency_oracles/SS.py``, lines 11-46): ``sub_k = int(max(1, np.rint(k / (np.exp(eps)
  + 1))))``; when ``np.random.random() <= p_v`` the report is the value followed by ``np.random.choice`` of
  ``sub_k - 1`` others without replacement, else ``sub_k`` others; numba draws those as the first entries of a
  Fisher-Yates shuffle (:mod:`wmcdp.audit.execution`). The report is the ordered array the client returns;
* ``ADP_Client`` (``pure_frequency_oracles/ADP.py``, plain Python): ``GRR_Client`` when ``VAR_Pure`` of GRR's
  parameters is at most UE's, else ``UE_Client``; both are run as their Python source.

The longitudinal solutions (``long_freq_est``: ``L_GRR``, ``L_OUE``, ``L_SUE``, ``L_OSUE``, ``L_SOUE``, ``L_ADP``,
``L_LH``; claim ``eps_1`` per report, the output of one call with both rounds), ``dBitFlipPM`` (claim
``eps_perm``), the multidimensional solutions (``mdim_freq_est``: SMP samples a published attribute, SPL splits
epsilon over the ``d`` attributes, both over GRR, UE, LH, SS and ADP; RS+FD (``RSpFD_*``) runs one attribute
``np.random.randint(d)``, not published, through its oracle at the amplified ``log(d (e^epsilon - 1) + 1)`` and
reports fake values for the others; claim ``epsilon`` over tuples, every two tuples neighbours) and SMP and SPL
over the longitudinal protocols (``long_mdim_freq_est``) are :class:`Protocol` cases: run with every compiled
function of the package replaced by its Python source (:func:`_pythonised`) and numpy's ``exp`` and ``log``
checked against libm's on every value (:func:`_libm_checked`). Those over local hashing (``L_LH``, ``SMP_LH``,
``SPL_LH``) draw each published seed from the seeds of the seed model (:func:`_seed_model`), for the ``g`` their
source passes to the GRR step (:func:`_hash_range`).

Needs the optional extra: ``pip install 'wmcdp[multifreq]'`` (multi-freq-ldpy 0.2.5, numba, xxhash below 4).
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..base.errors import WmcdpError
from .core import AuditCase, AuditedLibrary, Mechanism, Modelled, library, local_row
from .execution import exact_distribution
from .pureldp import TAIL

#: the multi-freq-ldpy version the models follow
MODELLED = "0.2.5"


def _oracles() -> Any:
    """The package ``multi_freq_ldpy.pure_frequency_oracles`` with its modules GRR, UE and LH imported."""
    for name in ("GRR", "UE", "LH", "SS", "ADP"):
        library(f"multi_freq_ldpy.pure_frequency_oracles.{name}", "multi-freq-ldpy", "multi-freq-ldpy", "multifreq")
    return sys.modules["multi_freq_ldpy.pure_frequency_oracles"]


@dataclass(frozen=True)
class Client:
    """A case's parameters (its :class:`~wmcdp.audit.core.AuditCase`'s ``spec``): the client at one epsilon and
    domain size ``k``; ``optimal`` chooses OUE or OLH."""

    mechanism: str
    epsilon: float
    k: int
    optimal: bool | None = None

    @property
    def params(self) -> str:
        extra = "" if self.optimal is None else f", optimal={self.optimal}"
        return f"epsilon={self.epsilon!r}, k={self.k}{extra}"

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(range(self.k))

    @property
    def claim(self) -> float:
        return self.epsilon


#: how every multi-freq-ldpy model is validated
VALIDATION = (
    "the client's Python source (.py_func) run on every path of numba's draws (exact); the compiled client's "
    "reports against the model (chi-square)"
)


def _case(mechanism: str, epsilon: float, k: int, optimal: bool | None = None) -> AuditCase:
    return _audited(Client(mechanism=mechanism, epsilon=epsilon, k=k, optimal=optimal), "epsilon")


def _audited(spec: Client | Protocol, claim: str) -> AuditCase:
    """The case of a client or a solution: its claim named by ``claim``, its model exact (:func:`_row`)."""
    return AuditCase(
        library="multi-freq-ldpy",
        mechanism=spec.mechanism,
        params=spec.params,
        claim=claim,
        model=_row,
        draw=draw_counts,
        validation=VALIDATION,
        spec=spec,
    )


@dataclass(frozen=True)
class Protocol:
    """A longitudinal or multidimensional solution (a :class:`~wmcdp.audit.core.AuditCase`'s ``spec``): the function
    ``mechanism`` of ``multi_freq_ldpy.<module>`` called as ``mechanism(x, *args)`` on every input, claiming pure
    ``claim``-LDP per report (``eps_1`` for the longitudinal solutions, ``eps_perm`` for ``dBitFlipPM``, ``epsilon``
    for the multidimensional ones); ``family`` says how its report is composed: ``long-<protocol>``, ``dbit``,
    ``smp-<oracle>`` or ``smp`` (one sampled attribute), ``spl-<oracle>`` or ``spl`` (every attribute), ``rspfd``;
    a family ending in ``lh`` runs local hashing (its seed model)."""

    mechanism: str
    module: str
    args: tuple[Any, ...]
    claim: float
    inputs: tuple[Hashable, ...]
    params: str
    family: str


def _protocol(mechanism: str, module: str, args: tuple[Any, ...], names: str, claim: float, family: str) -> AuditCase:
    """A case of a solution over the values ``0 .. k - 1`` (``args[0]`` is ``k``) or, for a multidimensional one
    (``args[0]`` the list of domain sizes), over every tuple of values."""
    first = args[0]
    inputs: tuple[Hashable, ...] = (
        tuple(itertools.product(*(range(k) for k in first))) if isinstance(first, list) else tuple(range(first))
    )
    params = ", ".join(f"{n}={v!r}" for n, v in zip(names.split(), args))
    spec = Protocol(
        mechanism=mechanism, module=module, args=args, claim=claim, inputs=inputs, params=params, family=family
    )
    return _audited(spec, [n for n in names.split() if n != "optimal"][-1])


def _protocols() -> list[AuditCase]:
    """The longitudinal solutions (claim ``eps_1`` per report: the second round of sanitization of the memoized
    first; ``L_LH`` hashes first), ``dBitFlipPM`` (claim ``eps_perm``) and the multidimensional SMP and SPL
    solutions over every oracle (claim ``epsilon``)."""
    out = []
    for name, settings in (
        ("L_GRR", ((3, 2.0, 1.0), (4, 4.0, 1.0), (2, 1.0, 0.5))),
        ("L_OUE", ((4, 2.0, 1.0), (3, 4.0, 2.0))),
        ("L_SUE", ((4, 2.0, 1.0),)),
        ("L_OSUE", ((4, 2.0, 1.0), (3, 3.0, 0.5))),
        ("L_SOUE", ((4, 2.0, 1.0),)),
        ("L_ADP", ((3, 2.0, 1.0), (4, 1.0, 0.5))),
        ("L_LH", ((4, 2.0, 1.0, False), (4, 2.0, 1.0, True), (6, 4.0, 1.0, True), (3, 1.0, 0.5, False))),
    ):
        names = "k eps_perm eps_1" + (" optimal" if name == "L_LH" else "")
        family = f"long-{name[2:].lower()}"
        out += [_protocol(f"{name}_Client", f"long_freq_est.{name}", s, names, s[2], family) for s in settings]
    out += [
        _protocol("dBitFlipPM_Client", "long_freq_est.dBitFlipPM", s, "k b d_bits eps_perm", s[3], "dbit")
        for s in ((4, 4, 1, 1.0), (4, 2, 2, 2.0), (6, 3, 2, 1.0))
    ]
    for solution in ("SMP", "SPL"):
        module = f"mdim_freq_est.{solution}_solution"
        for oracle, grid in (
            ("GRR", (([2, 3], 2, 1.0), ([3, 3], 2, 4.0))),
            ("UE", (([2, 2], 2, 1.0, True), ([2, 3], 2, 2.0, False))),
            ("LH", (([3, 4], 2, 1.0, False), ([3, 3], 2, 2.0, True))),
            ("SS", (([4, 3], 2, 1.0), ([3, 4], 2, 0.5))),
            ("ADP", (([2, 6], 2, 0.2, True), ([2, 4], 2, 0.2, False))),
        ):
            names = "lst_k d epsilon" + ("" if oracle in ("GRR", "SS") else " optimal")
            family = f"{solution.lower()}-{oracle.lower()}"
            out += [_protocol(f"{solution}_{oracle}_Client", module, s, names, s[2], family) for s in grid]
    return out + _random_sampling_fake_data() + _longitudinal_multidimensional()


def _random_sampling_fake_data() -> list[AuditCase]:
    """RS+FD (``mdim_freq_est.RSpFD_solution``, claim ``epsilon`` over tuples): the sampled attribute's oracle at
    the amplified ``log(d (e^epsilon - 1) + 1)``, fake reports for the others."""
    module, out = "mdim_freq_est.RSpFD_solution", []
    for name, settings in (
        ("GRR", (([2, 3], 2, 1.0), ([3, 3], 2, 2.0))),
        ("UE_zero", (([2, 3], 2, 1.0, True), ([2, 2], 2, 2.0, False))),
        ("UE_rnd", (([2, 3], 2, 1.0, True), ([2, 2], 2, 2.0, False))),
        ("ADP", (([2, 3], 2, 1.0, True), ([4, 2], 2, 0.5, False))),
    ):
        names = "lst_k d epsilon" + ("" if name == "GRR" else " optimal")
        out += [_protocol(f"RSpFD_{name}_Client", module, s, names, s[2], "rspfd") for s in settings]
    return out


def _longitudinal_multidimensional() -> list[AuditCase]:
    """SMP and SPL over the longitudinal protocols (``long_mdim_freq_est``): claim ``eps_1`` per report (``eps_perm``
    for ``dBitFlipPM``) over tuples; SPL splits both budgets over the ``d`` attributes (its cases over two binary
    attributes: every bit of UE runs two rounds of draws)."""
    out = []
    for solution, sizes in (("SMP", [2, 3]), ("SPL", [2, 2])):
        module = f"long_mdim_freq_est.L_{solution}_Solution"
        args = (sizes, 2, 2.0, 1.0)
        out += [
            _protocol(f"{solution}_{name}_Client", module, args, "lst_k d eps_perm eps_1", 1.0, solution.lower())
            for name in ("L_GRR", "L_OUE", "L_OSUE", "L_SUE", "L_SOUE", "L_ADP")
        ]
        out += [
            _protocol(
                f"{solution}_dBitFlipPM_Client", module, s, "lst_k lst_b d_bits d eps_perm", s[4], solution.lower()
            )
            for s in (([4, 4], [2, 2], 1, 2, 1.0), ([4, 3], [2, 3], 2, 2, 2.0))
        ]
    return out


@contextmanager
def _pythonised() -> Iterator[None]:
    """Every numba-compiled function of multi-freq-ldpy's loaded modules replaced by its Python source
    (``.py_func``) for the block, so that the draws of :mod:`wmcdp.audit.execution` reach all the code a
    solution runs (its own and the oracles it calls through its module's imports)."""
    saved = []
    for name, module in list(sys.modules.items()):
        if name.startswith("multi_freq_ldpy.") and module is not None:
            for attr, value in list(vars(module).items()):
                if hasattr(value, "py_func") and callable(value.py_func):
                    saved.append((module, attr, value))
                    setattr(module, attr, value.py_func)
    try:
        yield
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)


@contextmanager
def _libm_checked() -> Iterator[None]:
    """``np.exp`` and ``np.log`` on scalars checked against libm's (``math.exp``, ``math.log``) for the block: the
    Python source computes with numpy, the compiled code with libm, and the model holds only where they agree."""
    saved = np.exp, np.log

    def checked(numpy_fn: Any, libm: Callable[[float], float]) -> Callable[..., Any]:
        def fn(t: Any, *rest: Any, **kw: Any) -> Any:
            value = numpy_fn(t, *rest, **kw)
            if np.ndim(t) == 0 and not rest and not kw and float(t) > 0 and float(value) != libm(float(t)):
                raise WmcdpError(
                    f"numpy's {numpy_fn.__name__}({float(t)!r}) is not libm's: the Python source is "
                    "not the compiled code here"
                )
            return value

        return fn

    np.exp, np.log = checked(saved[0], math.exp), checked(saved[1], math.log)  # type: ignore[assignment]
    try:
        yield
    finally:
        np.exp, np.log = saved


def _solution(spec: Protocol) -> Callable[..., Any]:
    library(f"multi_freq_ldpy.{spec.module}", "multi-freq-ldpy", "multi-freq-ldpy", "multifreq")
    return cast(Callable[..., Any], getattr(sys.modules[f"multi_freq_ldpy.{spec.module}"], spec.mechanism))


def _run_protocol(spec: Protocol, x: Hashable) -> Hashable:
    """One report of the solution on ``x`` as its Python source computes it (inside the enumeration, itself inside
    :func:`_pythonised` and :func:`_libm_checked`)."""
    fn = _solution(spec)
    return _plain(getattr(fn, "py_func", fn)(x, *spec.args))


def _cases() -> list[AuditCase]:
    out = [_case("GRR_Client", eps, k) for eps, k in ((0.1, 2), (0.5, 3), (1.0, 2), (1.0, 10), (2.0, 4))]
    out += [_case("GRR_Client", eps, k) for eps, k in ((3.0, 5), (5.0, 2), (8.0, 6))]
    out += [_case("UE_Client", eps, 4, opt) for eps in (0.5, 1.0, 3.0) for opt in (False, True)]
    out += [_case("UE_Client", eps, 6, opt) for eps, opt in ((2.0, True), (5.0, False))]
    out += [_case("LH_Client", eps, k, opt) for eps, k, opt in ((1.0, 4, False), (2.0, 4, False), (0.5, 4, True))]
    out += [_case("LH_Client", eps, k, opt) for eps, k, opt in ((1.0, 6, True), (3.0, 4, True))]
    out += [_case("SS_Client", eps, k) for eps, k in ((0.5, 4), (1.0, 6), (0.5, 6), (2.0, 4), (3.0, 3))]
    out += [
        _case("ADP_Client", eps, k, opt)
        for eps, k, opt in ((1.0, 3, True), (1.0, 8, True), (0.1, 8, True), (0.5, 8, False))
    ]
    return out + _protocols()


#: every client of ``multi_freq_ldpy.pure_frequency_oracles`` and the other solutions, described once
MECHANISMS = (
    Mechanism(
        "GRR_Client",
        "audited",
        "kept when `np.random.binomial(1, p) == 1`, else `np.random.choice` of the other values",
    ),
    Mechanism(
        "UE_Client",
        "audited",
        "SUE with `optimal=False`, OUE: each bit 1 when `np.random.random() <= p` (the value's) or `<= q`",
    ),
    Mechanism(
        "LH_Client",
        "audited",
        "BLH with `optimal=False`, OLH: seed `np.random.randint(0, sys.maxsize)` "
        "(published; the seed model of pure-ldp's local hashing), `xxh32(str(value), seed) % g`, then "
        "`GRR_Client` over `g` values",
    ),
    Mechanism(
        "SS_Client",
        "audited",
        "subset selection of `sub_k = max(1, rint(k / (e^ε + 1)))` values: the value "
        "first when `np.random.random() <= p_v`, then `np.random.choice` without replacement of the others "
        "(numba's: the first entries of a Fisher-Yates shuffle); the report is the ordered array",
    ),
    Mechanism(
        "ADP_Client",
        "audited",
        "plain Python: `GRR_Client` or `UE_Client` (their Python source) by the smaller `VAR_Pure` variance",
    ),
    Mechanism("HE_Client", "not auditable", "histogram encoding adds continuous Laplace noise"),
    Mechanism(
        "L_GRR_Client",
        "audited",
        "longitudinal: `GRR_Client` at `eps_perm` (the memoized first round), then at `log(p2 / q2)`; the claim is "
        "`eps_1` per report (the output of one call, both rounds composed)",
    ),
    *(
        Mechanism(
            f"L_{name}_Client",
            "audited",
            f"longitudinal {rounds}: every bit through two rounds of `np.random.random() <= threshold`; claim `eps_1` "
            "per report",
        )
        for name, rounds in (("OUE", "OUE then OUE"), ("SUE", "SUE then SUE"), ("OSUE", "OUE then SUE"))
    ),
    Mechanism(
        "L_SOUE_Client",
        "audited",
        "longitudinal SUE then OUE: every bit through two rounds of `np.random.random() <= threshold`; claim "
        "`eps_1` per report",
    ),
    Mechanism(
        "L_ADP_Client",
        "audited",
        "plain Python: `L_GRR_Client` or `L_OSUE_Client` by the smaller `VAR_Long_Pure`; claim `eps_1` per report",
    ),
    Mechanism(
        "dBitFlipPM_Client",
        "audited",
        "`d_bits` of `b` buckets by `np.random.choice(..., replace=False)` (numba's Fisher-Yates), each bit SUE at "
        "`eps_perm` (the value's bucket or not), the rest -1; claim `eps_perm` per report",
    ),
    Mechanism(
        "L_LH_Client",
        "audited",
        "longitudinal local hashing: seed `np.random.randint(0, sys.maxsize)` (published; the seed model of "
        "`LH_Client`), `xxh32(str(value), seed) % g` (BLH's `g = 2`, L-OLH's rounded closed form), then "
        "`L_GRR_Client` over `g` values; claim `eps_1` per report",
    ),
    *(
        Mechanism(
            f"{solution}_{oracle}_Client",
            "audited",
            (
                "sampling: a published attribute `np.random.randint(d)` and its oracle at ε"
                if solution == "SMP"
                else "splitting: every attribute's oracle at ε / d"
            )
            + f" (`{oracle}_Client`'s Python source{'; the seed model of `LH_Client`' if oracle == 'LH' else ''}); "
            "inputs every tuple of values",
        )
        for solution in ("SMP", "SPL")
        for oracle in ("GRR", "UE", "LH", "SS", "ADP")
    ),
    *(
        Mechanism(
            f"RSpFD_{name}_Client",
            "audited",
            "random sampling plus fake data: an attribute `np.random.randint(d)` (not published) through "
            f"{oracle} at the amplified `log(d (e^ε - 1) + 1)`, every other attribute {fake}; inputs every tuple",
        )
        for name, oracle, fake in (
            ("GRR", "`GRR_Client`", "a fake `np.random.randint(k)`"),
            ("UE_zero", "`UE_Client`", "`UE_Client(None, ...)` (UE of the zero vector)"),
            ("UE_rnd", "`UE_Client`", "`UE_Client` of a fake `np.random.randint(k)`"),
            (
                "ADP",
                "`GRR_Client` or `UE_Client` (by `VAR_RSpFD_GRR <= VAR_RSpFD_UE_zero`)",
                "the fake of the same choice (`np.random.randint(k)` or UE of the zero vector)",
            ),
        )
    ),
    *(
        Mechanism(
            f"{solution}_{name}_Client",
            "audited",
            (
                "sampling: a published attribute `np.random.randint(d)` and its"
                if solution == "SMP"
                else "splitting: every attribute's"
            )
            + f" `{name}_Client`"
            + (" at the full budgets" if solution == "SMP" else " at the budgets divided by `d`")
            + (" (`lst_b[i]` buckets); claim `eps_perm`" if name == "dBitFlipPM" else "; claim `eps_1` per report")
            + ", inputs every tuple",
        )
        for solution in ("SMP", "SPL")
        for name in ("L_GRR", "L_OUE", "L_OSUE", "L_SUE", "L_SOUE", "L_ADP", "dBitFlipPM")
    ),
)


#: multi-freq-ldpy as an audited library
def _neighbours(case: AuditCase) -> str:
    """Local DP: any two inputs; for the multidimensional solutions any two tuples (the standard notion)."""
    if case.mechanism.startswith(("SMP_", "SPL_", "RSpFD_")):
        return "any two tuples of values (local DP; they may differ in every attribute)"
    return "any two values of the domain (local DP)"


#: the library's source line behind each violated mechanism's claim, where the model knows it (0.2.5)
SOURCES = tuple(
    (
        f"RSpFD_{oracle}_Client",
        f"multi_freq_ldpy/mdim_freq_est/RSpFD_solution.py:{line}, RSpFD_{oracle}_Client: `amp_eps = np.log(d * "
        "(np.exp(epsilon) - 1) + 1)` amplifies epsilon for one sampled attribute, which holds only for tuples "
        "that differ in one attribute",
    )
    for oracle, line in (("GRR", 22), ("UE_zero", 55), ("UE_rnd", 89), ("ADP", 122))
)

LIBRARY = AuditedLibrary(
    "multi-freq-ldpy",
    "multi-freq-ldpy",
    "multi-freq-ldpy",
    "multifreq",
    __name__,
    _oracles,
    _cases,
    MECHANISMS,
    _neighbours,
    SOURCES,
)
cases = LIBRARY.cases
audit_multifreq = LIBRARY.audit
multifreq_version = LIBRARY.version


def _plain(y: Any) -> Hashable:
    if isinstance(y, (tuple, list)):
        return tuple(_plain(v) for v in y)
    if isinstance(y, np.ndarray):
        return tuple(int(v) for v in y)
    return int(y)


@functools.lru_cache(maxsize=64)
def separating_seeds(k: int, g: int) -> tuple[int, ...]:
    """Seeds ``0, 1, ...`` kept when they hash (``xxh32(str(value), seed) % g``, LH.py) a pair of values apart
    that no earlier kept seed separates, until every pair is separated."""
    import xxhash  # deferred: xxhash comes with the audited library's extra

    apart: set[tuple[int, int]] = set()
    pairs = {(i, j) for i in range(k) for j in range(i + 1, k)}
    chosen = []
    seed = 0
    while apart != pairs:
        h = [xxhash.xxh32(str(v), seed=seed).intdigest() % g for v in range(k)]
        new = {(i, j) for i, j in pairs - apart if h[i] != h[j]}
        if new:
            chosen.append(seed)
            apart |= new
        seed += 1
        if seed > 100_000:
            raise WmcdpError(f"no seed below 100000 separates every pair of {k} values modulo {g}")
    return tuple(chosen)


def _g(case: AuditCase) -> int:
    """LH.py's hash range: 2, or ``int(round(np.exp(epsilon))) + 1`` for OLH."""
    return int(round(np.exp(case.spec.epsilon))) + 1 if case.spec.optimal else 2


def _run(case: AuditCase, seeds: tuple[int, ...], x: int) -> Hashable:
    """One report of the client on ``x`` as its Python source computes it (called inside the enumeration), local
    hashing's published seeds drawn from ``seeds`` (:func:`_seed_model`)."""
    if isinstance(case.spec, Protocol):
        with _seed_model(seeds):
            return _run_protocol(case.spec, x)
    lib, c = _oracles(), case.spec
    if c.mechanism == "GRR_Client":
        return _plain(lib.GRR.GRR_Client.py_func(x, c.k, c.epsilon))
    if c.mechanism == "UE_Client":
        return _plain(lib.UE.UE_Client.py_func(x, c.k, c.epsilon, c.optimal))
    if c.mechanism == "SS_Client":
        return _plain(lib.SS.SS_Client.py_func(x, c.k, c.epsilon))
    if c.mechanism == "ADP_Client":
        return _python_clients(lib.ADP, lambda: lib.ADP.ADP_Client(x, c.k, c.epsilon, c.optimal))
    compiled, lib.LH.GRR_Client = lib.LH.GRR_Client, lib.GRR.GRR_Client.py_func
    try:
        with _seed_model(seeds):
            return _plain(lib.LH.LH_Client(x, c.k, c.epsilon, c.optimal))
    finally:
        lib.LH.GRR_Client = compiled


def _hash_range(case: AuditCase) -> int | None:
    """The hash range ``g`` of a case over local hashing (None for the others): LH.py's for ``LH_Client``; for a
    solution over ``LH_Client`` or ``L_LH_Client``, the ``g`` its Python source passes to the GRR step
    (``GRR_Client(hashed, g, epsilon)``, ``L_GRR_Client(hashed, g, eps_perm, eps_1)``), read by running it once
    with that step recorded."""
    if isinstance(case.spec, Client):
        return _g(case) if case.mechanism == "LH_Client" else None
    spec: Protocol = case.spec
    if not spec.family.endswith("lh"):
        return None
    lh = _oracles().LH
    library("multi_freq_ldpy.long_freq_est.L_LH", "multi-freq-ldpy", "multi-freq-ldpy", "multifreq")
    long_lh: Any = sys.modules["multi_freq_ldpy.long_freq_est.L_LH"]
    seen: set[int] = set()

    def step(value: int, g: int, *rest: Any) -> int:
        seen.add(int(g))
        return value

    saved = lh.GRR_Client, long_lh.L_GRR_Client
    lh.GRR_Client = long_lh.L_GRR_Client = step
    try:
        fn = _solution(spec)
        getattr(fn, "py_func", fn)(spec.inputs[0], *spec.args)
    finally:
        lh.GRR_Client, long_lh.L_GRR_Client = saved
    (g,) = seen
    return g


def _seeds(case: AuditCase) -> tuple[int, ...]:
    """The seeds of the case's seed model: every pair of its values hashed apart (none without local hashing)."""
    g = _hash_range(case)
    if g is None:
        return ()
    first = case.spec.k if isinstance(case.spec, Client) else case.spec.args[0]
    return separating_seeds(max(first) if isinstance(first, list) else first, g)


@contextmanager
def _seed_model(seeds: tuple[int, ...]) -> Iterator[None]:
    """The seed model of local hashing for the block (inside the enumeration): the published seed
    ``np.random.randint(0, sys.maxsize)`` of LH.py and L_LH.py drawn uniformly from ``seeds`` (none: unchanged).
    The seed is drawn alike for every value, so its probability cancels from every ratio, and a report's ratio
    depends only on whether the seed hashes the two values apart: seeds that separate every pair give the
    exact epsilon of the whole seed range."""
    randint = np.random.randint
    if seeds:
        np.random.randint = lambda low, high=None, size=None, dtype=int: (  # type: ignore[assignment]
            seeds[randint(0, len(seeds))] if (low, high) == (0, sys.maxsize) else randint(low, high, size, dtype)
        )
    try:
        yield
    finally:
        np.random.randint = randint


def _python_clients(module: Any, run: Callable[[], Any]) -> Hashable:
    """``run()`` with the compiled ``GRR_Client`` and ``UE_Client`` that ``module`` imported replaced by their
    Python source (the draws of :mod:`wmcdp.audit.execution` reach only Python code)."""
    lib = _oracles()
    compiled = module.GRR_Client, module.UE_Client
    module.GRR_Client, module.UE_Client = lib.GRR.GRR_Client.py_func, lib.UE.UE_Client.py_func
    try:
        return _plain(run())
    finally:
        module.GRR_Client, module.UE_Client = compiled


def _public(case: AuditCase, x: int) -> Hashable:
    """One report of the library's own (compiled) client, with numba's generator."""
    if isinstance(case.spec, Protocol):
        return _plain(_solution(case.spec)(x, *case.spec.args))
    lib, c = _oracles(), case.spec
    if c.mechanism == "GRR_Client":
        return _plain(lib.GRR.GRR_Client(x, c.k, c.epsilon))
    if c.mechanism == "UE_Client":
        return _plain(lib.UE.UE_Client(x, c.k, c.epsilon, c.optimal))
    if c.mechanism == "SS_Client":
        return _plain(lib.SS.SS_Client(x, c.k, c.epsilon))
    if c.mechanism == "ADP_Client":
        return _plain(lib.ADP.ADP_Client(x, c.k, c.epsilon, c.optimal))
    return _plain(lib.LH.LH_Client(x, c.k, c.epsilon, c.optimal))


def _view(case: AuditCase, g: int | None, x: Any, y: Any) -> Hashable:
    """What a sampling check counts: over local hashing (range ``g``), for each (report, seed) whether the report
    is the value's hash, whose probability is the same for every seed (module docstring); else the report."""
    if g is None:
        return cast(Hashable, y)
    family = case.spec.family if isinstance(case.spec, Protocol) else ""
    if family.startswith("smp"):
        return (y[0], _hashed(x[y[0]], y[1], g))
    if family.startswith("spl"):
        return tuple(_hashed(v, pair, g) for v, pair in zip(x, y))
    return _hashed(x, y, g)


def _hashed(x: int, pair: tuple[int, int], g: int) -> bool:
    """Whether the report of ``(report, seed)`` is ``x``'s hash: ``xxh32(str(x), seed) % g`` (LH.py, L_LH.py)."""
    import xxhash  # deferred: xxhash comes with the audited library's extra

    report, seed = pair
    return bool(report == xxhash.xxh32(str(x), seed=int(seed)).intdigest() % g)


def _check_exp(case: AuditCase) -> None:
    """The Python source computes with numpy's exp, the compiled code with libm's: they must agree here."""
    for t in (case.spec.epsilon, case.spec.epsilon / 2):
        if float(np.exp(t)) != math.exp(t):
            raise WmcdpError(f"numpy's exp({t!r}) is not libm's: the Python source is not the compiled client here")


def distributions(case: AuditCase) -> list[dict[Hashable, Fraction]]:
    """The exact report distribution of the client on every value of the case."""
    if isinstance(case.spec, Client):
        _check_exp(case)
        return [exact_distribution(functools.partial(_run, case, _seeds(case), x)) for x in case.spec.inputs]
    _solution(case.spec)  # (loads its module before the compiled functions are replaced)
    seeds = _seeds(case)
    with _pythonised(), _libm_checked():
        return [exact_distribution(functools.partial(_run, case, seeds, x)) for x in case.spec.inputs]


def draw_counts(case: AuditCase, x: int, draws: int) -> Counter[Any]:
    """``draws`` reports of the library's compiled client on ``x``, as the case counts them."""
    g = _hash_range(case)
    return Counter(_view(case, g, x, _public(case, x)) for _ in range(draws))


def _row(case: AuditCase) -> Modelled:
    spec: Client | Protocol = case.spec
    return local_row(
        case,
        spec.inputs,
        distributions(case),
        spec.claim,
        lambda x, xp, y: reproducer(case, LIBRARY.version(), x, xp, y),
        functools.partial(_view, case, _hash_range(case)),
    )


__all__ = [
    "MODELLED",
    "LIBRARY",
    "MECHANISMS",
    "VALIDATION",
    "Client",
    "Protocol",
    "audit_multifreq",
    "cases",
    "distributions",
    "draw_counts",
    "multifreq_version",
    "reproducer",
]


# -- reproducers ----------------------------------------------------------------------------------

_SCRIPT = '''"""{label}: multi-freq-ldpy {version} claims epsilon = {claim!r} per report (local DP), yet the report
y = {y!r} is more likely under the value x = {x!r} than e^epsilon times its probability under x' = {xp!r}.
Needs only multi-freq-ldpy (its numba): the exact probabilities follow the clients' lines and numba's
generator, whose np.random.random() is k / 2**53 for k uniform in 0 .. 2**53 - 1 (numba/cpython/randomimpl.py,
get_next_double) and whose np.random.binomial(1, p) is BINV (numba/np/random/legacy.py, binomial_impl). A
solution over a tuple of values is read from its own code: run with every client it calls recorded, its first
np.random.randint the attribute and the later ones fake values, the report's probability is the mean over the
attribute drawn of the product of the recorded clients' probabilities (the mechanism's own draws are uniform).
Over local hashing the probabilities are given the published seeds, drawn alike for every value (they cancel
from the ratio)."""
import importlib
import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import xxhash

GRID = 2**53
claim = {claim!r}
x, x_prime, y = {x!r}, {xp!r}, {y!r}
module = importlib.import_module("multi_freq_ldpy.{module}")
name, args = {mechanism!r}, {args!r}


def at_most(t):  # P(u <= t)
    return Fraction(min(math.floor(Fraction(float(t)) * GRID) + 1, GRID), GRID)


def binomial_one(p):  # P(np.random.binomial(1, p) == 1): u <= q gives X = 0, u - q <= p q / q gives X = 1 (u - q
    flipped = p > 0.5  # is exact there), a larger u draws again; X is flipped back when p was
    p = 1.0 - p if flipped else p
    q = 1.0 - p
    px = (1 * p * q) / (1 * q)
    zero = math.floor(Fraction(q) * GRID) + 1
    one = min(math.floor((Fraction(q) + Fraction(px)) * GRID) + 1, GRID) - zero
    return Fraction(zero if flipped else one, zero + one)


def grr(value, report, size, eps):  # GRR.py lines 27-38: kept when binomial(1, p) == 1, else one of the others
    keep = binomial_one(np.exp(eps) / (np.exp(eps) + size - 1))
    return keep if report == value else (1 - keep) / (size - 1)


def ue(value, report, size, eps, optimal=True):  # UE.py lines 29-55: bit i is 1 when np.random.random() <= p or q
    p = np.exp(eps / 2) / (np.exp(eps / 2) + 1)
    p, q = (1 / 2, 1 / (np.exp(eps) + 1)) if optimal else (p, 1 - p)
    out = Fraction(1)
    for i, bit in enumerate(report):
        one = at_most(p if i == value else q)
        out *= one if bit else 1 - one
    return out


def ss(value, report, size, eps):  # SS.py: the value first when np.random.random() <= p_v, the rest an ordered
    sub_k = int(max(1, np.rint(size / (np.exp(eps) + 1))))  # sample of the others without replacement (uniform:
    p_v = sub_k * np.exp(eps) / (sub_k * np.exp(eps) + size - sub_k)  # numba's Fisher-Yates shuffle)
    keep = at_most(p_v)
    out = Fraction(0)
    if report[0] == value and value not in report[1:]:
        out += keep / math.perm(size - 1, sub_k - 1)
    if value not in report:
        out += (1 - keep) / math.perm(size - 1, sub_k)
    return out


def adp(value, report, size, eps, optimal=True):  # ADP.py: GRR_Client or UE_Client, by VAR_Pure's smaller variance
    from multi_freq_ldpy.pure_frequency_oracles.Variance_PURE import VAR_Pure

    p_grr = np.exp(eps) / (np.exp(eps) + size - 1)
    p_ue = np.exp(eps / 2) / (np.exp(eps / 2) + 1)
    p_ue, q_ue = (1 / 2, 1 / (np.exp(eps) + 1)) if optimal else (p_ue, 1 - p_ue)
    if VAR_Pure(p_grr, (1 - p_grr) / (size - 1)) <= VAR_Pure(p_ue, q_ue):
        return grr(value, report, size, eps)
    return ue(value, report, size, eps, optimal)


def lh(value, report, size, eps, optimal=True):  # LH.py: the published seed is drawn alike for every value, so its
    g = int(round(np.exp(eps))) + 1 if optimal else 2  # probability cancels from the ratio
    hashed, seed = report
    return grr(xxhash.xxh32(str(value), seed=seed).intdigest() % g, hashed, g, eps)


def recorded(within, callee, caller, value, caller_args):  # the arguments of caller's calls of callee
    seen, real = [], getattr(within, callee)
    setattr(within, callee, lambda *a: (seen.append(a), a[0])[1])
    try:
        getattr(within, caller)(value, *caller_args)
    finally:
        setattr(within, callee, real)
    return seen


def traced_rounds(fn, value, fn_args):  # the thresholds fn's Python source compares its doubles with: answering
    def run(answer):  # every comparison "<=" with True (every bit 1) or False shows the first round's thresholds,
        seen = []  # then the second round's after a 1 (p2) and after a 0 (q2)

        class Probe:
            def __le__(self, t):
                seen.append(float(t))
                return answer

        draw, np.random.random = np.random.random, Probe
        try:
            fn.py_func(value, *fn_args)
        finally:
            np.random.random = draw
        return seen

    size = fn_args[0]
    ones, zeros = run(True), run(False)
    return ones[:size], ones[size], zeros[size]


def long_ue(fn):  # L_*UE.py: each bit through two rounds of np.random.random() <= threshold
    def prob(value, report, *fn_args):
        first, p2, q2 = traced_rounds(fn, value, fn_args)
        out = Fraction(1)
        for i, bit in enumerate(report):
            one = at_most(first[i]) * at_most(p2) + (1 - at_most(first[i])) * at_most(q2)
            out *= one if bit else 1 - one
        return out

    return prob


def long_grr(value, report, size, eps_perm, eps_1):  # L_GRR.py lines 44-51: GRR_Client at eps_perm, then at
    from multi_freq_ldpy.long_freq_est import L_GRR  # eps_sec_round = log(p2 / q2), as L_GRR_Client computes them

    (_, _, first), (_, _, second) = recorded(L_GRR, "GRR_Client", "L_GRR_Client", value, (size, eps_perm, eps_1))
    return sum(grr(value, z, size, first) * grr(z, report, size, second) for z in range(size))


def long_adp(value, report, size, eps_perm, eps_1):  # L_ADP.py: L_GRR_Client or L_OSUE_Client, by VAR_Long_Pure
    from multi_freq_ldpy.long_freq_est import L_ADP

    if recorded(L_ADP, "L_GRR_Client", "L_ADP_Client", value, (size, eps_perm, eps_1)):
        return long_grr(value, report, size, eps_perm, eps_1)
    return long_ue(L_ADP.L_OSUE_Client)(value, report, size, eps_perm, eps_1)


def long_lh(value, report, size, eps_perm, eps_1, optimal=True):  # L_LH.py: the published seed cancels; the hash
    from multi_freq_ldpy.long_freq_est import L_LH  # through L_GRR_Client over g values, g as L_LH_Client computes it

    ((_, g, _, _),) = recorded(L_LH, "L_GRR_Client", "L_LH_Client", value, (size, eps_perm, eps_1, optimal))
    hashed, seed = report
    return long_grr(xxhash.xxh32(str(value), seed=seed).intdigest() % g, hashed, g, eps_perm, eps_1)


def dbit(value, report, size, b, d_bits, eps_perm):  # dBitFlipPM.py lines 27-52: d_bits of the b buckets sampled
    p1 = np.exp(eps_perm / 2) / (np.exp(eps_perm / 2) + 1)  # without replacement (uniform), each reported 1 when
    q1 = 1 - p1  # np.random.random() <= p1 (the value's bucket) or q1
    bucket = int(value / (size / b))
    sampled = [i for i, v in enumerate(report) if v != -1]
    out = Fraction(1, math.comb(b, d_bits)) if len(sampled) == d_bits else Fraction(0)
    for i in sampled:
        one = at_most(p1 if i == bucket else q1)
        out *= one if report[i] else 1 - one
    return out


CLIENTS = {{
    "GRR_Client": grr,
    "UE_Client": ue,
    "SS_Client": ss,
    "ADP_Client": adp,
    "LH_Client": lh,
    "L_GRR_Client": long_grr,
    "L_ADP_Client": long_adp,
    "L_LH_Client": long_lh,
    "dBitFlipPM_Client": dbit,
}}
for protocol in ("L_OUE", "L_SUE", "L_OSUE", "L_SOUE"):
    fn = getattr(importlib.import_module(f"multi_freq_ldpy.long_freq_est.{{protocol}}"), f"{{protocol}}_Client")
    CLIENTS[f"{{protocol}}_Client"] = long_ue(fn)


class Fake:  # np.random.randint(n) drawn by RS+FD for a fake value: uniform on 0 .. n - 1
    def __init__(self, n):
        self.n = n


class Call:  # a recorded call of a client
    def __init__(self, client, value, client_args):
        self.client, self.value, self.args = client, value, client_args


def traced(value, attribute):  # the solution's run on the tuple, its first randint(d) answered with the attribute
    draws, saved = [], {{c: getattr(module, c) for c in CLIENTS if hasattr(module, c)}}

    def randint(n, *rest, **kw):
        draws.append(n)
        return attribute if len(draws) == 1 else Fake(n)

    for c in saved:
        setattr(module, c, lambda v, *a, c=c: Call(c, v, a))
    real, np.random.randint = np.random.randint, randint
    try:
        out = getattr(module, name)(value, *args)
        return bool(draws), out
    finally:
        np.random.randint = real
        for c, fn in saved.items():
            setattr(module, c, fn)


def chance(part, report):  # the probability that the recorded part of the solution's output gives the report
    if isinstance(part, Fake):
        return Fraction(int(report in range(part.n)), part.n)
    fn = CLIENTS[part.client]
    if isinstance(part.value, Fake):
        return sum(fn(v, report, *part.args) for v in range(part.value.n)) / part.value.n
    return fn(part.value, report, *part.args)


def prob(value):
    if not isinstance(value, tuple):
        return CLIENTS[name](value, y, *args)
    total = Fraction(0)
    for attribute in range(len(value)):
        drew, out = traced(value, attribute)
        if isinstance(out, tuple):  # SMP: (the attribute, its report)
            weight = Fraction(int(out[0] == y[0])) * chance(out[1], y[1])
        else:  # SPL, RS+FD: one report per attribute
            weight = math.prod((chance(part, r) for part, r in zip(out, y)), start=Fraction(1))
        if not drew:
            return weight
        total += weight / len(value)
    return total

'''


def reproducer(case: AuditCase, version: str, x: Hashable, xp: Hashable, y: Hashable) -> str:
    """A standalone script (multi-freq-ldpy alone) printing the witness's probabilities, ratio and verdict."""
    spec = case.spec
    if isinstance(spec, Protocol):
        module, args = spec.module, spec.args
    else:
        module = f"pure_frequency_oracles.{case.mechanism.removesuffix('_Client')}"
        args = (spec.k, spec.epsilon) + (() if spec.optimal is None else (spec.optimal,))
    return (
        _SCRIPT.format(
            label=case.label,
            version=version,
            module=module,
            mechanism=case.mechanism,
            claim=spec.claim,
            x=x,
            xp=xp,
            y=y,
            args=args,
        )
        + TAIL
    )
