"""Mechanisms written in the wmcdp DSL, by name (see ``wmcdp programs``)."""

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
from .randomized_response import kary_rr_histogram, randomized_response, rr_counting
from .suite import (
    histogram,
    histogram_wrong_scale,
    isvt1,
    isvt2,
    isvt3,
    isvt4,
    noisy_max,
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
}

__all__ = ["PROGRAMS", *PROGRAMS]
