"""The wmcdp DSL: symbolic Booleans and bounded integers, random choices, programs."""

from .geometric import truncated_geometric
from .program import Bits, IntVector, OutputProduct, Program, Trace, Vector
from .shared_noise import AdaptiveThreshold, SharedMax, SharedThreshold
from .unbounded import compared_geometric, discrete_gaussian, geometric, one_sided_geometric, released_geometric
from .values import Bool, Int, discrete, flip, ite, uniform

__all__ = [
    "Bits",
    "IntVector",
    "Vector",
    "OutputProduct",
    "AdaptiveThreshold",
    "SharedMax",
    "SharedThreshold",
    "Program",
    "Trace",
    "Bool",
    "Int",
    "flip",
    "discrete",
    "uniform",
    "ite",
    "truncated_geometric",
    "geometric",
    "one_sided_geometric",
    "released_geometric",
    "compared_geometric",
    "discrete_gaussian",
]
