"""Module paths that moved: the old path still imports, with a warning naming the new one."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings
from collections.abc import Callable

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


def renamed(module: str, names: dict[str, tuple[str, object]]) -> Callable[[str], object]:
    """A module ``__getattr__`` for names that moved: ``names`` maps each old name to ``(its new path, the object)``;
    reading an old name warns that it moved and returns the object; any other name is an AttributeError."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, value = names[name]
        warn_moved(f"{module}.{name}", new)
        return value

    return __getattr__


def alias_package(old: str, new: str) -> None:
    """Make the package ``old`` (being imported) the very package ``new`` and its submodules ``new``'s (``old.x``
    is ``new.x``, one module object each), and warn from ``old``'s import that it moved (:func:`warn_moved`)."""
    home = importlib.import_module(new)
    for info in pkgutil.iter_modules(home.__path__):
        importlib.import_module(f"{new}.{info.name}")
    for name, module in list(sys.modules.items()):
        if name.startswith(f"{new}."):
            sys.modules[old + name[len(new) :]] = module
    sys.modules[old] = home
    warnings.warn(
        f"{old} is deprecated and will be removed in wmcdp {REMOVED_IN}: import from {new} instead",
        DeprecationWarning,
        stacklevel=3,
    )
