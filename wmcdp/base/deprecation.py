"""Module paths that moved: the old path still imports, with a warning naming the new one."""

from __future__ import annotations

import warnings

#: the first minor version that may drop a path deprecated in this one (each alias is kept for at least one minor
#: version after its deprecation)
REMOVED_IN = "0.4"


def warn_moved(old: str, new: str) -> None:
    """Warn, from the module ``old`` as it is imported, that it moved to ``new``.

    The warning points at the user's import statement (the import machinery's frames are skipped), so Python's
    default filters show it when the import is in ``__main__`` and test runners show it everywhere."""
    warnings.warn(
        f"{old} is deprecated and will be removed in wmcdp {REMOVED_IN}: import from {new} "
        f"(or the names from wmcdp itself) instead",
        DeprecationWarning,
        stacklevel=3,
    )
