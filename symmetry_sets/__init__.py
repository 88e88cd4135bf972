"""Hand-proved inference / privacy / accuracy / pair sets, by program name.

``PRIVACY[name](**params)`` returns ``(C, I)``; ``ACCURACY[name](alpha, **params)``
returns ``(A, I)``; ``PAIRS[name](**params)`` returns ``(P, I)`` for approximate DP,
Rényi DP and privacy-loss distributions (``P`` a pair set, ``I`` None — whole output
distributions from the compiled program — or the rows' own proved source). Each set comes
with a test that it gives the exhaustive bound.
"""

from __future__ import annotations

from . import randomized_response as rr

PRIVACY = {
    "randomized_response": lambda n, **_: (rr.privacy_set(n), rr.privacy_inference_set(n)),
}

PAIRS = {
    "randomized_response": lambda n, **_: (rr.pairs(n), None),
    "rr_counting": rr.counting_sets,
    "kary_rr_histogram": rr.kary_sets,
}

ACCURACY = {
    "rr_counting": lambda alpha, n, **_: (rr.accuracy_set(n), rr.accuracy_inference_set(n, alpha)),
}

__all__ = ["PRIVACY", "ACCURACY", "PAIRS"]
