"""The one shape of every ``--json`` output: the versioned schema ``wmcdp/1``.

Every command's JSON is one object that starts with the same keys (:func:`envelope`):

* ``schema``: ``"wmcdp/1"`` (:data:`SCHEMA`); a change that removes or retypes a key bumps the version;
* ``command``: the command that wrote it (``privacy``, ``sweep``, ``audit``, ...);
* ``program``, ``label``, ``params``: the program's name, its label with the parameters as the tables print it
  (``randomized_response(n=2, lam=1/5)``) and its parameters as text (all three null for commands that run no one
  program: ``sweep`` rows carry their own, ``audit`` and ``programs``);
* ``neighbours``: the neighbour relation the bound is over (null where none applies: accuracy, sizes);
* ``exact``: whether the numbers are exact (null where no number is computed).

Numbers follow one rule (:mod:`wmcdp.base.jsontext`): a JSON number when a float holds it, else a string —
``"inf"`` and ``"-inf"`` for the infinities, ``"1e-600"`` for a value past the float range. Each exact value has a
``KEY_exact`` beside ``KEY``, the exact rational ``"a/b"`` (``"inf"`` for ∞), always present and null when the run
is not exact. A witness is always the object ``{"x": ..., "x_prime": ..., "y": ...}`` (the keys the notion has:
``x`` for accuracy, ``x`` and ``x_prime`` for pairs) of inputs and outputs as JSON lists (a tuple) or numbers.

The JSON Schema of the format ships beside this module (:data:`SCHEMA_FILE`, :func:`json_schema`).
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from ..base.numbers import exact_text, format_number
from ..lang.program import Program
from ..lang.shape import jsonable

#: the name and version of the JSON format
SCHEMA = "wmcdp/1"
#: the JSON Schema (draft 2020-12) of :data:`SCHEMA`
SCHEMA_FILE = Path(__file__).with_name("wmcdp-1.json")


@cache
def json_schema() -> dict[str, Any]:
    """The JSON Schema of every ``--json`` output, as a dict (validate with the ``jsonschema`` package)."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


def _program_keys(program: Program | None, params: dict[str, str] | None = None) -> dict[str, Any]:
    """``program``, ``label`` and ``params`` of a result (null without a program); ``params`` as text unless given."""
    if program is None:
        return {"program": None, "label": None, "params": None}
    shown = {k: format_number(v) for k, v in program.params.items()} if params is None else params
    return {"program": program.name, "label": program.label(), "params": shown}


def envelope(
    command: str,
    program: Program | None = None,
    *,
    neighbours: str | None = None,
    exact: bool | None = None,
    params: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The keys every ``--json`` object starts with, as the module docstring lists them."""
    return {
        "schema": SCHEMA,
        "command": command,
        **_program_keys(program, params),
        "neighbours": neighbours,
        "exact": exact,
    }


def neighbours_name(program: Program, given: str | None) -> str:
    """The neighbour relation a run is over: the one given (``--neighbours``), else the program's own by name."""
    if given:
        return given
    own = program.neighbours
    return own if isinstance(own, str) else str(getattr(own, "name", "the program's own"))


def exact_value(value: Any, exact: bool) -> str | None:
    """The ``KEY_exact`` of a value: its exact ``"a/b"`` in an exact run (``"inf"`` for ∞), null otherwise and for a
    finite float (an accountant's bound in an exact run)."""
    if not exact or (isinstance(value, float) and math.isfinite(value)):
        return None
    return exact_text(value)


def witness_of(w: Any) -> dict[str, Any]:
    """The witness object of a result's witness: a triple (``x``, ``x_prime``, ``y``), a pair, or one input."""
    if hasattr(w, "x_prime"):
        out = {"x": jsonable(w.x), "x_prime": jsonable(w.x_prime)}
        return {**out, "y": jsonable(w.y)} if hasattr(w, "y") else out
    return {"x": jsonable(w)}


__all__ = [
    "SCHEMA",
    "SCHEMA_FILE",
    "json_schema",
    "envelope",
    "neighbours_name",
    "exact_value",
    "witness_of",
]
