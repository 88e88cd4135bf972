"""Mechanisms written in the wmcdp DSL, by name (see ``wmcdp programs``).

Each factory registers itself where it is defined (``@program``, :mod:`wmcdp.programs.registry`); importing the
modules below registers them, and :data:`PROGRAMS`, :data:`ORIGINS` and ``__all__`` are read from the registry.
The names are imported here too so that ``from wmcdp.programs import noisy_max`` type-checks
(tests/test_programs_registry.py checks that these names are the registered ones).
"""

# the factories are re-exported (hence F401 silenced): ``__all__`` is the registry's names
from .checkdp import (  # noqa: F401
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
from .geometric import geometric_above_threshold, truncated_geometric  # noqa: F401
from .kary import kary_rr  # noqa: F401
from .opendp import (  # noqa: F401
    opendp_geometric_bounded,
    opendp_noisy_max,
    opendp_rr_bitvec,
    opendp_rr_bitvec_lengths,
    opendp_rr_bool,
    opendp_rr_categorical,
)
from .peers import (  # noqa: F401
    PEERS,
    STATDP_CODE,
    STATDP_NAMES,
    geometric_parallel,
    one_time_rappor,
    rappor,
    svt34_parallel,
    svt_resampled,
)
from .randomized_response import kary_rr_histogram, randomized_response, rr_counting  # noqa: F401
from .registry import FACTORIES, ORIGIN_TEXTS, add_claims
from .suite import (  # noqa: F401
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

# the benchmarks' claims, CheckDP's first (the peers' suite's order), and the names StatDP's code gives them
for _bench in CHECKDP:
    add_claims(_bench.program, [_bench.as_claim()])
for _peer in PEERS:
    add_claims(_peer.program, [_peer.as_claim()])
for _name, _function in STATDP_NAMES.items():
    add_claims(_name, mentions=[f"{STATDP_CODE} {_function}"])

#: name -> factory taking the program's parameters as keyword arguments (every registered program, live)
PROGRAMS = FACTORIES
#: name -> where the program comes from (``wmcdp programs`` prints it)
ORIGINS = ORIGIN_TEXTS

__all__ = ["CHECKDP", "ORIGINS", "PEERS", "PROGRAMS", *PROGRAMS]
