"""Deprecated: ``programs``, 0.1's top-level package of the built-in programs; their home is :mod:`wmcdp.programs`.

Importing it warns (a DeprecationWarning naming the new path) and makes ``programs`` and each ``programs.x`` the
very modules of ``wmcdp.programs``. Kept for at least one minor version (removed no earlier than 0.4). From a
checkout's root, where the current folder comes first on the import path, ``import programs`` finds the source
folder instead."""

from wmcdp.base.deprecation import alias_package

alias_package(__name__, "wmcdp.programs")
