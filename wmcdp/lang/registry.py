"""Finding programs: by name in :mod:`wmcdp.programs`, or as ``path/to/file.py:function``.

A program factory is a function whose keyword parameters are the mechanism's
parameters and which returns a :class:`~wmcdp.lang.Program`.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..base.errors import USER_FAILURES, WmcdpError, brief, suggest
from .domain import Vector
from .program import Program
from .relations import Relation, neighbour_relation, relation_from_function


def builtin_programs() -> Mapping[str, Callable[..., Program]]:
    """Every registered program's factory by name (a live view of :mod:`wmcdp.programs.registry`)."""
    from wmcdp.programs import PROGRAMS  # deferred: it imports (and registers) every built-in, for lookups only

    programs: Mapping[str, Callable[..., Program]] = PROGRAMS
    return programs


def program_origin(name: str) -> str:
    """Where the built-in program ``name`` comes from (its paper, library or benchmark file); "" if not recorded."""
    from wmcdp.programs import ORIGINS  # deferred: as in builtin_programs

    origin: str = ORIGINS.get(name, "")
    return origin


def program_claims(name: str) -> list[dict[str, Any]]:
    """What the benchmarks (or papers) that hold the built-in ``name`` claim of it: per registered claim
    (:class:`wmcdp.programs.registry.Claim`), the benchmark, the program's name there and the literature's verdict
    at the claimed ε (``private``); empty for a program of no benchmark."""
    from wmcdp.programs.registry import all_claims  # deferred: as in builtin_programs

    return [{"benchmark": c.benchmark, "name": c.name, "private": c.private} for n, c in all_claims() if n == name]


def is_builtin(program: Program) -> bool:
    """Whether ``program`` is what the built-in of its name builds from its ``params``, decided on the objects
    rather than the name: the factory is called again and every field but the description and the source must
    match, the functions (body, target, outputs, a neighbour function) by the same code object, defaults and
    captured values (compared the same way, to a depth of 32). A user program that takes a built-in's name, or a
    built-in whose fields were replaced or whose captured values were changed, is not one. Hand-proved sets
    (:mod:`wmcdp.symmetry_sets`) hold for the built-in only."""
    factory = builtin_programs().get(program.name)
    return factory is not None and rebuilds(program, factory)


def rebuilds(program: Program, factory: Callable[..., Any]) -> bool:
    """Whether ``factory(**program.params)`` builds ``program`` again, compared as :func:`is_builtin` does (every
    field but the description and the source; functions by code, defaults and captured values)."""
    if not isinstance(program.params, Mapping):
        return False
    try:
        fresh = factory(**program.params)
    except USER_FAILURES:
        return False
    if not isinstance(fresh, Program):
        return False
    fields = ("name", "inputs", "params", "neighbours", "body", "target", "outputs", "shared_noise")
    seen: dict[tuple[int, int], tuple[Any, Any]] = {}
    return all(_same(getattr(program, f), getattr(fresh, f), 32, seen) for f in fields)


def _same(a: Any, b: Any, depth: int, seen: dict[tuple[int, int], tuple[Any, Any]]) -> bool:
    """``a`` and ``b`` are the same value: identical, equal plain values of one type, containers of such,
    functions with one code object whose defaults and captured cells are the same, or instances of one class
    with the same attributes (:func:`is_builtin`)."""
    if a is b or (id(a), id(b)) in seen:  # a pair met before is being compared already (a cycle, or shared)
        return True
    if depth <= 0 or type(a) is not type(b):
        return False
    seen[id(a), id(b)] = (a, b)  # kept alive, so that no later object takes these ids
    if isinstance(a, types.FunctionType):
        return (
            a.__code__ is b.__code__
            and _same(a.__defaults__, b.__defaults__, depth - 1, seen)
            and _same(a.__kwdefaults__, b.__kwdefaults__, depth - 1, seen)
            and _same(_cells(a), _cells(b), depth - 1, seen)
        )
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(u, v, depth - 1, seen) for u, v in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], depth - 1, seen) for k in a)
    if not isinstance(a, (type, types.ModuleType)) and hasattr(a, "__dict__"):  # an instance: the same attributes
        return _same(vars(a), vars(b), depth - 1, seen)
    try:
        return bool(a == b) if isinstance(a, _PLAIN) else False
    except USER_FAILURES:  # an equality that raises is not a proof of sameness
        return False


#: values compared by ``==`` (anything else must be the same object, a container or a function)
_PLAIN = (str, bytes, int, float, complex, Fraction, bool, type(None), range, frozenset, set, Vector, Relation)


def _cells(f: types.FunctionType) -> tuple[Any, ...] | None:
    """The values ``f`` captured, each empty cell as one marker (equal only to itself)."""
    if f.__closure__ is None:
        return None
    values = []
    for cell in f.__closure__:
        try:
            values.append(cell.cell_contents)
        except ValueError:  # a cell not yet filled
            values.append(_EMPTY)
    return tuple(values)


_EMPTY = object()


def load_function(spec: str) -> Callable[..., Any]:
    """The function named by ``path/to/file.py:function``."""
    return _load_file(spec)[1]


def _load_file(spec: str) -> tuple[str, Callable[..., Any]]:
    """Import ``path/to/file.py`` (its folder first on the import path, so it can import its
    neighbours) and return ``(function name, function)``."""
    path_text, _, func_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise WmcdpError(f"no such program file: {path_text}")
    module_name = f"wmcdp_user_{abs(hash(path.resolve()))}"
    module = sys.modules.get(module_name)
    if module is None:
        folder = str(path.resolve().parent)
        sys.path.insert(0, folder)
        try:
            module_spec = importlib.util.spec_from_file_location(module_name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_name] = module
            module_spec.loader.exec_module(module)
        except WmcdpError:
            sys.modules.pop(module_name, None)
            raise
        except USER_FAILURES as exc:  # the user's file is arbitrary code; report, don't crash
            sys.modules.pop(module_name, None)
            raise WmcdpError(f"could not import {path_text}: {type(exc).__name__}: {exc}") from None
        finally:
            if folder in sys.path:
                sys.path.remove(folder)
    factory = getattr(module, func_name, None)
    if not callable(factory):
        raise WmcdpError(f"{path_text} has no function {func_name!r}")
    return func_name, factory


def find_program(spec: str) -> tuple[str, Callable[..., Program]]:
    """``(name, factory)`` for a built-in name or ``file.py:function``."""
    if ":" in spec and spec.rpartition(":")[0].endswith(".py"):
        return _load_file(spec)
    programs = builtin_programs()
    if spec not in programs:
        near = suggest(spec, programs)
        everything = "wmcdp programs lists them all, or give path/to/file.py:function"
        hint = f"{near} ({everything})" if near else everything
        raise WmcdpError(f"unknown program {brief(repr(spec))}; {hint}")
    return spec, programs[spec]


def parameters(factory: Callable[..., Program]) -> list[inspect.Parameter]:
    return [
        p for p in inspect.signature(factory).parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def build_program(spec: str, params: dict[str, Any]) -> Program:
    """Call the factory with ``params``, naming any unknown or missing parameter."""
    name, factory = find_program(spec)
    known = parameters(factory)
    names = [p.name for p in known]
    for key in params:
        if key not in names:
            near = suggest(key, names)
            raise WmcdpError(
                f"program {name} has no parameter {brief(repr(key))}; {near + ' ' if near else ''}its parameters are "
                f"{', '.join(names)}"
            )
    missing = [p.name for p in known if p.default is p.empty and p.name not in params]
    if missing:
        raise WmcdpError(f"program {name} needs {', '.join(missing)} (give -p {missing[0]}=...)")
    try:
        program = factory(**params)
    except WmcdpError:
        raise
    except USER_FAILURES as exc:
        raise WmcdpError(f"program {name} failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(program, Program):
        raise WmcdpError(f"{spec} returned {type(program).__name__}, not a wmcdp Program")
    path, _, func = spec.rpartition(":")
    program.source = f"{Path(path).resolve()}:{func}" if path.endswith(".py") else spec
    return program


def find_relation(spec: str) -> Any:
    """A neighbour relation: a built-in name or ``path/to/file.py:function``
    (see :func:`wmcdp.lang.relations.relation_from_function`)."""
    if spec.rpartition(":")[0].endswith(".py"):
        return relation_from_function(load_function(spec))
    return neighbour_relation(spec)
