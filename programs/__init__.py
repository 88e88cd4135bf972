"""Mechanisms written in the wmcdp DSL, by name (see ``wmcdp programs``)."""

from .geometric import geometric_above_threshold, truncated_geometric
from .randomized_response import randomized_response, rr_counting

#: name -> factory taking the program's parameters as keyword arguments
PROGRAMS = {
    "randomized_response": randomized_response,
    "rr_counting": rr_counting,
    "truncated_geometric": truncated_geometric,
    "geometric_above_threshold": geometric_above_threshold,
}

__all__ = ["PROGRAMS", *PROGRAMS]
