"""Hand-proved inference / privacy / accuracy sets, by program name.

``PRIVACY[name](**params)`` returns ``(C, I)``; ``ACCURACY[name](alpha, **params)``
returns ``(A, I)``. Each set comes with a test that it gives the exhaustive bound.
"""

from __future__ import annotations

from . import randomized_response as rr

PRIVACY = {
    "randomized_response": lambda n, **_: (rr.privacy_set(n), rr.privacy_inference_set(n)),
}

ACCURACY = {
    "rr_counting": lambda alpha, n, **_: (rr.accuracy_set(n), rr.accuracy_inference_set(n, alpha)),
}

__all__ = ["PRIVACY", "ACCURACY"]
