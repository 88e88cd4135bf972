"""Mechanisms written in the wmcdp DSL, by name (see ``wmcdp programs``)."""

from .checkdp import (
    CHECKDP,
    adaptive_svt,
    bad_adaptive_svt,
    bad_gap_svt,
    bad_partial_sum,
    bad_smart_sum,
    bad_svt1,
    gap_svt,
    monotone_svt,
    num_svt,
    partial_sum,
    prefix_sum,
    smart_sum,
    svt,
)
from .geometric import geometric_above_threshold, truncated_geometric
from .kary import kary_rr
from .opendp import (
    opendp_geometric_bounded,
    opendp_noisy_max,
    opendp_rr_bitvec,
    opendp_rr_bitvec_lengths,
    opendp_rr_bool,
    opendp_rr_categorical,
)
from .peers import PEERS, STATDP_NAMES, geometric_parallel, one_time_rappor, rappor, svt34_parallel, svt_resampled
from .randomized_response import kary_rr_histogram, randomized_response, rr_counting
from .suite import (
    histogram,
    histogram_wrong_scale,
    isvt1,
    isvt2,
    isvt3,
    isvt4,
    noisy_max,
    noisy_max_exponential,
    noisy_max_exponential_value,
    noisy_max_value,
    sparse_vector,
)

#: name -> factory taking the program's parameters as keyword arguments
PROGRAMS = {
    "randomized_response": randomized_response,
    "rr_counting": rr_counting,
    "kary_rr_histogram": kary_rr_histogram,
    "truncated_geometric": truncated_geometric,
    "geometric_above_threshold": geometric_above_threshold,
    "noisy_max": noisy_max,
    "noisy_max_value": noisy_max_value,
    "histogram": histogram,
    "histogram_wrong_scale": histogram_wrong_scale,
    "sparse_vector": sparse_vector,
    "isvt1": isvt1,
    "isvt2": isvt2,
    "isvt3": isvt3,
    "isvt4": isvt4,
    "kary_rr": kary_rr,
    "opendp_rr_bool": opendp_rr_bool,
    "opendp_rr_categorical": opendp_rr_categorical,
    "opendp_rr_bitvec": opendp_rr_bitvec,
    "opendp_rr_bitvec_lengths": opendp_rr_bitvec_lengths,
    "opendp_geometric_bounded": opendp_geometric_bounded,
    "opendp_noisy_max": opendp_noisy_max,
    "svt": svt,
    "monotone_svt": monotone_svt,
    "gap_svt": gap_svt,
    "num_svt": num_svt,
    "adaptive_svt": adaptive_svt,
    "partial_sum": partial_sum,
    "prefix_sum": prefix_sum,
    "smart_sum": smart_sum,
    "bad_svt1": bad_svt1,
    "bad_gap_svt": bad_gap_svt,
    "bad_adaptive_svt": bad_adaptive_svt,
    "bad_partial_sum": bad_partial_sum,
    "bad_smart_sum": bad_smart_sum,
    "noisy_max_exponential": noisy_max_exponential,
    "noisy_max_exponential_value": noisy_max_exponential_value,
    "svt_resampled": svt_resampled,
    "rappor": rappor,
    "one_time_rappor": one_time_rappor,
    "geometric_parallel": geometric_parallel,
    "svt34_parallel": svt34_parallel,
}

_STATDP = "StatDP (Ding et al., CCS 2018)"
_CHECKDP = "CheckDP (Wang et al., CCS 2020), cmla-psu/checkdp"
_OPENDP = "OpenDP's measurement, as written in the DSL (programs/opendp.py)"

_DPSNIPER = "DP-Sniper (Bichsel et al., S&P 2021), eth-sri/dp-sniper"
_STATDP_CODE = "cmla-psu/statdp statdp/algorithms.py"


def _peer_origins(programs: dict[str, str]) -> dict[str, str]:
    """``programs`` (name -> origin) with every DP-Sniper program and StatDP function that a built-in runs added."""
    out = dict(programs)
    for peer in PEERS:
        if peer.tool == "DP-Sniper":
            mention = f"{_DPSNIPER} {peer.source} ({peer.name})"
            out[peer.program] = f"{out[peer.program]}; {mention}" if out.get(peer.program) else mention
    for name, function in STATDP_NAMES.items():
        out[name] = f"{out[name]}; {_STATDP_CODE} {function}"
    return out


#: name -> where the program comes from (``wmcdp programs`` prints it)
ORIGINS = {
    "randomized_response": "Warner 1965; the wmcdp paper's running example",
    "rr_counting": "randomized response with a released count (the wmcdp paper)",
    "kary_rr_histogram": "k-ary randomized response histogram (Kairouz, Oh, Viswanath 2014)",
    "truncated_geometric": "Ghosh, Roughgarden, Sundararajan 2009",
    "geometric_above_threshold": "the wmcdp paper, Alg. 5",
    "noisy_max": f"{_STATDP} Alg. 5; {_CHECKDP} examples/noisymax.c (NoisyMax)",
    "noisy_max_value": f"{_STATDP} Alg. 7; {_CHECKDP} examples/badnoisymax.c (BadNoisyMax)",
    "histogram": f"{_STATDP} Alg. 9",
    "histogram_wrong_scale": f"{_STATDP} Alg. 10",
    "sparse_vector": f"{_STATDP} Alg. 11 (Lyu, Su, Li 2017, Alg. 1)",
    "isvt1": f"{_STATDP} Alg. 12",
    "isvt2": f"{_STATDP} Alg. 14; {_CHECKDP} examples/badsparsevector2.c (BadSVT2)",
    "isvt3": f"{_STATDP} Alg. 13; {_CHECKDP} examples/badsparsevector3.c (BadSVT3)",
    "isvt4": f"{_STATDP} Alg. 15",
    "kary_rr": "Kairouz, Oh, Viswanath 2014",
    **{name: _OPENDP for name in PROGRAMS if name.startswith("opendp_")},
    **{
        b.program: f"{_CHECKDP} {b.source} ({b.name})"
        for b in CHECKDP
        if b.program not in ("noisy_max", "noisy_max_value", "isvt2", "isvt3")
    },
    "noisy_max_exponential": f"{_STATDP} Alg. 6",
    "noisy_max_exponential_value": f"{_STATDP} Alg. 8",
    "svt_resampled": "Lyu, Su, Li 2017, Alg. 2",
    "rappor": "Erlingsson, Pihur, Korolova, CCS 2014 (RAPPOR)",
    "one_time_rappor": "Erlingsson, Pihur, Korolova, CCS 2014 (one-time RAPPOR)",
}
ORIGINS = _peer_origins(ORIGINS)

__all__ = ["CHECKDP", "ORIGINS", "PEERS", "PROGRAMS", *PROGRAMS]
