"""Deprecated: ``symmetry_sets``, 0.1's top-level package of the hand-proved symmetry sets; their home is
:mod:`wmcdp.symmetry_sets`.

Importing it warns (a DeprecationWarning naming the new path) and makes ``symmetry_sets`` and each
``symmetry_sets.x`` the very modules of ``wmcdp.symmetry_sets``. Kept for at least one minor version (removed no
earlier than 0.4). From a checkout's root, where the current folder comes first on the import path, ``import
symmetry_sets`` finds the source folder instead."""

from wmcdp.base.deprecation import alias_package

alias_package(__name__, "wmcdp.symmetry_sets")
