"""Finding programs: by name in :mod:`wmcdp.programs`, or as ``path/to/file.py:function``.

A program factory is a function whose keyword parameters are the mechanism's
parameters and which returns a :class:`~wmcdp.lang.Program`.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.errors import USER_FAILURES, WmcdpError, brief, suggest
from .program import Program
from .relations import neighbour_relation, relation_from_function


def builtin_programs() -> dict[str, Callable[..., Program]]:
    from wmcdp.programs import PROGRAMS  # deferred: the built-ins load (45 ms) when a run names one

    programs: dict[str, Callable[..., Program]] = PROGRAMS
    return programs


def program_origin(name: str) -> str:
    """Where the built-in program ``name`` comes from (its paper, library or benchmark file); "" if not recorded."""
    from wmcdp.programs import ORIGINS  # deferred: the built-ins load (45 ms) when a run names one

    origin: str = ORIGINS.get(name, "")
    return origin


def program_claims(name: str) -> list[dict[str, Any]]:
    """What the benchmarks that hold the built-in ``name`` claim of it: per program of CheckDP's, DP-Sniper's or
    StatDP's that it runs, the benchmark, that program's name there and the literature's verdict at the claimed ε
    (``private``); empty for a program of no benchmark."""
    from wmcdp.programs import CHECKDP, PEERS  # deferred: the built-ins load (45 ms) when a run names one

    out = [{"benchmark": "CheckDP", "name": b.name, "private": b.private} for b in CHECKDP if b.program == name]
    return out + [{"benchmark": p.tool, "name": p.name, "private": p.private} for p in PEERS if p.program == name]


def description(factory: Callable[..., Any]) -> str:
    """The first paragraph of a factory's docstring on one line, as plain text: ````code```` as ``code``, a role
    such as ``:func:`name``` as ``name`` (``~a.b`` as ``b``)."""
    paragraph = inspect.cleandoc(factory.__doc__ or "").split("\n\n")[0]
    text = _ROLE.sub(lambda m: m[2].rsplit(".", 1)[-1] if m[1] else m[2], " ".join(paragraph.split()))
    return _LITERAL.sub(r"\1", text)


#: a reStructuredText role (``:func:`~target```) and a literal (````text```` or ```text```)
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_LITERAL = re.compile(r"``?([^`]+)``?")


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
