"""Mechanisms written in the wmcdp DSL, by name (see ``wmcdp programs``)."""

from .randomized_response import randomized_response, rr_counting

#: name -> factory taking the program's parameters as keyword arguments
PROGRAMS = {
    "randomized_response": randomized_response,
    "rr_counting": rr_counting,
}

__all__ = ["PROGRAMS", "randomized_response", "rr_counting"]
