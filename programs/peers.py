"""DP-Sniper's and StatDP's benchmark programs with discrete noise.

DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev, S&P 2021; ``eth-sri/dp-sniper``,
``dpsniper/mechanisms/*.py``) and StatDP (Ding, Wang, Wang, Zhang, Kifer, CCS 2018;
``cmla-psu/statdp``, ``statdp/algorithms.py``) test mechanisms written with continuous noise. Here,
as in :mod:`wmcdp.programs.suite` and :mod:`wmcdp.programs.checkdp`, the answers lie in ``{0..m}``,
``Lap(b)`` becomes the truncated geometric mechanism of ratio ``e^(-1/b)`` (a clamped discrete
Laplace) and exponential noise of scale ``b`` becomes one-sided geometric noise of ratio
``e^(-1/b)`` clamped at ``m + margin`` (:func:`~wmcdp.programs.suite.one_sided_geometric`).

Most of their programs are built-ins already and are mapped, not repeated (:data:`PEERS` names the
built-in of each). New here: Lyu et al.'s Alg. 2 (:func:`svt_resampled`), RAPPOR and one-time RAPPOR
(:func:`rappor`, :func:`one_time_rappor`, with DP-Sniper's Bloom filter: MurmurHash3 of the value's
decimal text), DP-Sniper's parallel compositions (:func:`geometric_parallel`, :func:`svt34_parallel`);
the two one-sided noisy max programs live in :mod:`wmcdp.programs.suite`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_number, format_number, positive_int
from wmcdp.lang import Bool, IntVector, Program, flip, ite

from .registry import Claim, Published, program
from .suite import Answers, finest_ratio, isvt3, isvt4, sparse_vector_family

# -- sparse vector with a fresh threshold after every TRUE (Lyu, Su, Li 2017, Alg. 2) --------------


@program(origin="Lyu, Su, Li 2017, Alg. 2")
def svt_resampled(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None
) -> Program:
    """SVT that draws a fresh noisy threshold after every TRUE, stopping after N TRUEs; claimed eps-DP.

    Lyu, Su, Li 2017, Alg. 2 (Dwork and Roth 2014); DP-Sniper's ``SparseVectorTechnique2``. Threshold
    noise Lap(2N/eps): ratio ``a^2``; query noise Lap(4N/eps): ``a = e^(-eps0/(4N))`` (or ``alpha``).
    Codes 0 = FALSE, 1 = TRUE, 2 = stopped. Private (Lyu et al.).
    """
    return sparse_vector_family(
        "svt_resampled",
        n,
        m,
        T,
        N,
        eps0,
        margin,
        alpha,
        laplace_scale=lambda e, N: 4 * N / e,
        threshold_power=lambda N: 2,
        query_power=1,
        report=None,
        description="SVT with a fresh noisy threshold after each TRUE; codes 0=FALSE 1=TRUE 2=stopped",
        resample=True,
    )


@program()
def svt34_parallel(
    n: int, m: int, T: int, N: int, eps0: object = None, margin: int = 1, alpha: object = None
) -> Program:
    """DP-Sniper's ``SVT34Parallel``: Lyu et al.'s Alg. 3 and Alg. 4 on the same answers, independent noise.

    Alg. 3 is :func:`~wmcdp.programs.suite.isvt4`, Alg. 4 :func:`~wmcdp.programs.suite.isvt3`; the output is the
    pair of their outputs.

    Each part claims eps0, so the pair claims 2 eps0. ``a = e^(-eps0/(4N))`` (or ``alpha``) is the finest ratio:
    Alg. 3's query noise is ``a^2``, its threshold ``a^(2N)``; Alg. 4's threshold ``a^N``, its query noise
    ``a^(3N)``. Not private (both parts are not).
    """
    a, budget = finest_ratio(eps0, alpha, lambda e: 4 * positive_int(N, "N") / e)
    args: dict[str, Any] = {"n": n, "m": m, "T": T, "N": N, "margin": margin}
    three = isvt4(**args, **({"eps0": eps0} if alpha is None else {"alpha": a**2}))
    four = isvt3(**args, **({"eps0": eps0} if alpha is None else {"alpha": a**N}))
    params = {**three.params, **budget}  # alpha: a, not Alg. 3's a^2
    return Program(
        "svt34_parallel",
        three.inputs,
        lambda x: (three.body(x), four.body(x)),
        params=params,
        neighbours="all-entries",
        description="Lyu et al.'s Alg. 3 and Alg. 4 side by side (independent noise)",
    )


@program()
def geometric_parallel(n: int, m: int, eps0: object = None, margin: int = 1, alpha: object = None) -> Program:
    """DP-Sniper's ``LaplaceParallel``: ``n`` independent ``TGeom_a(c)`` of one count ``c`` in ``{0..m}``.

    ``a = e^(-eps0/n)`` (DP-Sniper: n Laplace mechanisms of eps0/n each) or ``alpha``; claimed eps0-DP
    (``e^eps = a^(-n)``), neighbours: the count moves by one. Private (sequential composition).
    """
    count = positive_int(n, "n")
    ans = Answers(1, m, margin)
    a, budget = finest_ratio(eps0, alpha, lambda e: count / e)
    return Program(
        "geometric_parallel",
        ans.domain,
        lambda x: tuple(ans.noisy(x[0], a) for _ in range(count)),
        params={"n": count, "m": ans.m, **budget, "margin": ans.margin},
        neighbours="one-entry",
        description="n independent truncated geometric releases of one count",
    )


# -- RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014), as DP-Sniper runs it ---------------------------


_MASK = 0xFFFFFFFF


def _rotl(v: int, r: int) -> int:
    return ((v << r) | (v >> (32 - r))) & _MASK


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit of ``data`` as a signed 32-bit integer (what the ``mmh3`` package's ``hash`` gives)."""
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, _MASK
    h = seed & mask
    rotl = _rotl
    body = len(data) - len(data) % 4
    for i in range(0, body, 4):
        k = rotl((int.from_bytes(data[i : i + 4], "little") * c1) & mask, 15) * c2 & mask
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & mask
    tail = int.from_bytes(data[body:], "little")
    if len(data) % 4:
        h ^= rotl((tail * c1) & mask, 15) * c2 & mask
    h ^= len(data)
    for shift, mult in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        h = ((h ^ (h >> shift)) * mult) & mask
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def bloom_bits(value: int, hashes: int, size: int) -> frozenset[int]:
    """DP-Sniper's Bloom filter of ``value``: bit ``murmur3_32(str(value), seed=i) mod size`` for ``i < hashes``."""
    return frozenset(murmur3_32(str(value).encode(), i) % size for i in range(hashes))


def _probability(value: object, name: str) -> Number:
    p = as_number(value, name)
    if not 0 <= p <= 1:
        raise WmcdpError(f"{name} must be a probability in [0, 1], got {format_number(p)}")
    return p


def _rappor(
    name: str,
    n: object,
    h: object,
    f: object,
    lo: int,
    hi: int,
    respond: Callable[[Bool], Bool],
    extra: dict[str, Any],
    text: str,
) -> Program:
    """Bloom filter of ``n`` bits with ``h`` hashes of the value ``x_0`` in ``{lo..hi}``; each bit is kept with
    probability ``1 - f``, else set to 1 or 0 with ``f/2`` each (permanent randomized response), then ``respond``."""
    size, hashes, f_rate = positive_int(n, "n"), positive_int(h, "h"), _probability(f, "f")
    if not (isinstance(lo, int) and isinstance(hi, int) and lo < hi):
        raise WmcdpError(f"the values lo..hi must be two integers with lo < hi, got {lo!r}..{hi!r}")
    filters = {v: bloom_bits(v, hashes, size) for v in range(lo, hi + 1)}

    def bit(j: int) -> Callable[[int], Number]:
        return lambda v: 1 - f_rate / 2 if j in filters[v] else f_rate / 2

    def body(x: Sequence[Any]) -> tuple[Bool, ...]:
        permanent = [flip(bit(j), x[0]) for j in range(size)]  # every permanent bit first, then the responses
        return tuple(respond(b) for b in permanent)

    return Program(
        name,
        IntVector(1, lo, hi),
        body,
        params={"n": size, "h": hashes, "f": f_rate, **extra, "lo": lo, "hi": hi},
        neighbours="hamming",
        description=text,
    )


@program(origin="Erlingsson, Pihur, Korolova, CCS 2014 (one-time RAPPOR)")
def one_time_rappor(n: int = 20, h: int = 4, f: object = Fraction(19, 20), lo: int = -10, hi: int = 10) -> Program:
    """One-time RAPPOR: the permanent randomized response of an ``n``-bit Bloom filter with ``h`` hashes.

    Erlingsson et al. 2014, steps 1-2; DP-Sniper's ``OneTimeRappor``. Claimed ``eps_inf = 2h ln((1 - f/2)/(f/2))``;
    any two values of ``{lo..hi}`` are neighbours. Private.
    """
    return _rappor(
        "one_time_rappor", n, h, f, lo, hi, lambda b: b, {}, "permanent randomized response of a Bloom filter"
    )


@program(origin="Erlingsson, Pihur, Korolova, CCS 2014 (RAPPOR)")
def rappor(
    n: int = 20,
    h: int = 4,
    f: object = Fraction(3, 4),
    p: object = Fraction(9, 20),
    q: object = Fraction(11, 20),
    lo: int = -10,
    hi: int = 10,
) -> Program:
    """RAPPOR: :func:`one_time_rappor`, then each bit reported as 1 with probability ``q`` if set, ``p`` if not.

    Erlingsson et al. 2014, steps 1-3; DP-Sniper's ``Rappor``. Claimed ``eps_1 = h ln(q*(1 - p*)/(p*(1 - q*)))``
    with ``q* = f/2 (p + q) + (1 - f) q``, ``p* = f/2 (p + q) + (1 - f) p``. Private.
    """
    p, q = _probability(p, "p"), _probability(q, "q")
    return _rappor(
        "rappor", n, h, f, lo, hi, lambda b: ite(b, flip(q), flip(p)), {"p": p, "q": q}, "RAPPOR report of a value"
    )


def rappor_claim(h: int, f: Number, p: Number | None = None, q: Number | None = None) -> Number:
    """The claimed ``e^eps`` of RAPPOR (``p``, ``q`` given: ``e^eps_1``) or of one-time RAPPOR (``e^eps_inf``)."""
    if p is None or q is None:
        return ((1 - f / 2) / (f / 2)) ** (2 * h)
    q_star, p_star = f / 2 * (p + q) + (1 - f) * q, f / 2 * (p + q) + (1 - f) * p
    return (q_star * (1 - p_star) / (p_star * (1 - q_star))) ** h


# -- the list ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Peer:
    """One program of DP-Sniper's or StatDP's benchmark: the built-in that runs it and what the literature claims.

    ``claim(params)`` is the claimed ``e^eps`` of the built-in at ``params`` (its discrete noise, its parameters).
    """

    tool: str  # "DP-Sniper" or "StatDP"
    name: str  # the tool's name for it
    program: str  # the wmcdp built-in
    source: str  # the file in the tool's repository (and the paper's algorithm)
    params: dict[
        str, Any
    ]  # the built-in's small parameters, alpha included; the size (``size``) is added by the caller
    claim: Callable[[dict[str, Any]], Number]
    private: bool  # the literature's verdict at the claimed eps
    published: Published | None = None
    size: str = "n"  # the parameter that grows
    note: str = field(default="", compare=False)

    def as_claim(self) -> Claim:
        """This program as a :class:`~wmcdp.programs.registry.Claim` of its built-in; DP-Sniper's are cited in the
        built-in's origin."""
        cite = f"{DPSNIPER_CITE} {self.source} ({self.name})" if self.tool == "DP-Sniper" else ""
        return Claim(self.tool, self.name, self.params, self.claim, self.private, self.size, cite, self.published)


def _alpha_power(k: int) -> Callable[[dict[str, Any]], Number]:
    return lambda params: params["alpha"] ** -k


def _svt_power(k: int) -> Callable[[dict[str, Any]], Number]:
    return lambda params: params["alpha"] ** -(k * params["N"])


def _wrong_scale_claim(params: dict[str, Any]) -> Number:
    """StatDP Alg. 10 claims eps0 with noise ratio ``e^(-1/eps0)``: ``e^eps0 = e^(-1/ln alpha)``."""
    return math.exp(-1 / math.log(params["alpha"]))


#: how a program's origin cites DP-Sniper's paper and repository, and StatDP's code
DPSNIPER_CITE = "DP-Sniper (Bichsel et al., S&P 2021), eth-sri/dp-sniper"
STATDP_CODE = "cmla-psu/statdp statdp/algorithms.py"

_HALF = Fraction(1, 2)
_SVT = {"m": 1, "T": 1, "N": 1, "alpha": _HALF}
_MAX = {"m": 1, "alpha": _HALF}
_DPS = "dpsniper/mechanisms/"
_ALG = "statdp/algorithms.py"
_RAPPOR: dict[str, Any] = {"h": 4, "f": Fraction(3, 4), "p": Fraction(9, 20), "q": Fraction(11, 20)}
_ONE_TIME: dict[str, Any] = {"h": 4, "f": Fraction(19, 20)}


def _rappor_params_claim(params: dict[str, Any]) -> Number:
    return rappor_claim(params["h"], params["f"], params.get("p"), params.get("q"))


def _dps(
    name: str,
    program: str,
    source: str,
    params: dict[str, Any],
    claim: Callable[[dict[str, Any]], Number],
    private: bool,
    published: tuple[float, float, tuple[float, float] | None, int | None],
    **kw: Any,
) -> Peer:
    return Peer("DP-Sniper", name, program, _DPS + source, params, claim, private, Published(*published), **kw)


#: DP-Sniper's twenty programs (``dpsniper/experiments/exp_default.py``, in its order), then StatDP's programs
#: that DP-Sniper does not run. Published: (eps0, DP-Sniper eps_lcb, StatDP's two eps_lcb, the peer's size).
PEERS = [
    _dps(
        "LaplaceMechanism",
        "truncated_geometric",
        "laplace.py",
        {"alpha": _HALF},
        _alpha_power(1),
        True,
        (0.1, 0.0968, (0.0998, 0.0996), None),
        size="m",
    ),
    _dps(
        "TruncatedGeometric",
        "truncated_geometric",
        "geometric.py",
        {"alpha": Fraction(8, 9)},
        lambda p: Fraction(9, 8),
        True,
        (math.log(9 / 8), 0.1156, (0.1159, 0.1169), 5),
        size="m",
        note="Balcer and Vadhan's GeoSample at eps = 0.1: k = 3, ratio 2^k/(2^k + 1) = 8/9, the same mechanism",
    ),
    _dps("NoisyHist1", "histogram", "noisy_hist.py", _MAX, _alpha_power(1), True, (0.1, 0.0978, (0.0828, 0.0994), 5)),
    _dps(
        "NoisyHist2",
        "histogram_wrong_scale",
        "noisy_hist.py",
        {"m": 1, "alpha": Fraction(1, 4)},
        _wrong_scale_claim,
        False,
        (0.1, 4.602, (9.717, 10.00), 5),
    ),
    _dps(
        "ReportNoisyMax1",
        "noisy_max",
        "report_noisy_max.py",
        _MAX,
        _alpha_power(2),
        True,
        (0.1, 0.0923, (0.0920, 0.0921), 5),
    ),
    _dps(
        "ReportNoisyMax2",
        "noisy_max_exponential",
        "report_noisy_max.py",
        _MAX,
        _alpha_power(2),
        True,
        (0.1, 0.0975, (0.0996, 0.0997), 5),
    ),
    _dps(
        "ReportNoisyMax3",
        "noisy_max_value",
        "report_noisy_max.py",
        _MAX,
        _alpha_power(2),
        False,
        (0.1, 0.2478, (0.1991, 0.1961), 5),
    ),
    _dps(
        "ReportNoisyMax4",
        "noisy_max_exponential_value",
        "report_noisy_max.py",
        _MAX,
        _alpha_power(2),
        False,
        (0.1, 0.3463, (0.1960, 0.1988), 5),
    ),
    _dps("SVT1", "svt", "sparse_vector_technique.py", _SVT, _svt_power(4), True, (0.1, 0.0858, (0.0298, 0.0298), 10)),
    _dps(
        "SVT2",
        "svt_resampled",
        "sparse_vector_technique.py",
        _SVT,
        _svt_power(4),
        True,
        (0.1, 0.0859, (0.0316, 0.0407), 10),
    ),
    _dps(
        "SVT3", "isvt4", "sparse_vector_technique.py", _SVT, _svt_power(2), False, (0.1, 0.1716, (0.0231, 0.1793), 10)
    ),
    _dps(
        "SVT4", "isvt3", "sparse_vector_technique.py", _SVT, _alpha_power(4), False, (0.1, 0.1687, (0.1709, 0.1719), 10)
    ),
    _dps(
        "SVT5",
        "bad_svt1",
        "sparse_vector_technique.py",
        {"m": 1, "T": 1, "alpha": _HALF},
        _alpha_power(2),
        False,
        (0.1, 1.761, (14.31, 14.31), 10),
    ),
    _dps(
        "SVT6",
        "isvt2",
        "sparse_vector_technique.py",
        {"m": 1, "T": 1, "alpha": _HALF},
        _alpha_power(2),
        False,
        (0.1, 0.2720, (0.3220, 0.3200), 10),
    ),
    _dps(
        "Rappor",
        "rappor",
        "rappor.py",
        _RAPPOR,
        _rappor_params_claim,
        True,
        (math.log(_rappor_params_claim(_RAPPOR)), 0.2930, (0.2416, 0.0243), 20),
        note="DP-Sniper compares the values 0, 1 and 2 only (its one-dimensional pattern)",
    ),
    _dps(
        "OneTimeRappor",
        "one_time_rappor",
        "rappor.py",
        _ONE_TIME,
        _rappor_params_claim,
        True,
        (math.log(_rappor_params_claim(_ONE_TIME)), 0.5978, (0.4706, 0.0602), 20),
        note="DP-Sniper compares the values 0, 1 and 2 only (its one-dimensional pattern)",
    ),
    _dps(
        "LaplaceParallel",
        "geometric_parallel",
        "parallel.py",
        _MAX,
        lambda p: p["alpha"] ** -p["n"],
        True,
        (0.1, 0.0350, (0.0126, 0.0135), 20),
    ),
    _dps(
        "SVT34Parallel",
        "svt34_parallel",
        "parallel.py",
        _SVT,
        _svt_power(8),
        False,
        (0.2, 0.2610, (0.1371, 0.1963), 10),
    ),
    _dps(
        "PrefixSum",
        "prefix_sum",
        "prefix_sum.py",
        {"m": 1, "alpha": _HALF},
        _alpha_power(1),
        True,
        (0.1, 0.5040, (0.3516, 0.3446), 10),
        note="DP-Sniper lets every answer move (eps = n eps0 there); wmcdp and CheckDP move one",
    ),
    _dps("NumericalSVT", "num_svt", "sparse_vector_technique.py", _SVT, _svt_power(6), True, (0.1, 0.0343, None, 10)),
    Peer(
        "StatDP", "iSVT1", "isvt1", _ALG + " (paper Alg. 12)", {"m": 1, "T": 1, "alpha": _HALF}, _alpha_power(1), False
    ),
]

#: StatDP's names (``statdp/algorithms.py``) for the built-ins that run them
STATDP_NAMES = {
    "noisy_max": "noisy_max_v1a (Alg. 5)",
    "noisy_max_value": "noisy_max_v1b (Alg. 7)",
    "noisy_max_exponential": "noisy_max_v2a (Alg. 6)",
    "noisy_max_exponential_value": "noisy_max_v2b (Alg. 8)",
    "histogram": "histogram (Alg. 9)",
    "histogram_wrong_scale": "histogram_eps (Alg. 10)",
    "svt": "SVT",
    "isvt1": "iSVT1 (Alg. 12)",
    "bad_svt1": "iSVT1 as coded (threshold noise 2/eps)",
    "isvt2": "iSVT2 (Alg. 14)",
    "isvt3": "iSVT3 (Alg. 13)",
    "isvt4": "iSVT4 (Alg. 15)",
    "sparse_vector": "SVT (Alg. 11 as printed; the code is svt)",
}


__all__ = [
    "PEERS",
    "STATDP_NAMES",
    "Peer",
    "Published",
    "bloom_bits",
    "geometric_parallel",
    "murmur3_32",
    "one_time_rappor",
    "rappor",
    "rappor_claim",
    "svt34_parallel",
    "svt_resampled",
]
