"""A row's columns declared on its dataclass's fields: its flat ``record()`` and its table's columns read from them.

A row of a sweep or a profile is a frozen dataclass whose fields carry their column in the field's metadata,
``field(metadata=column(...))`` for a number or a text, ``field(metadata=witness(...))`` for the witness (one
text column per side). A field without one (``exact``, ``log_delta``, ...) is no column. :class:`Recorded`
derives ``record()`` from those fields (the values converted in field order, then the ``KEY_exact`` texts of
the fields marked ``exact``), and :func:`columns_of`, :func:`text_of` and :func:`exact_of` the columns a table
shows, which of them are texts and which show as their ``KEY_exact``; a notion's record
(:class:`wmcdp.notions.notion.Notion`) reads those. :class:`SweptRow` starts a swept row with its program, the
swept parameter and its value.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Half(SweptRow):
...     half: Fraction = field(metadata=column("half", exact=True, shown=True, convert=float))
...     exact: bool
>>> Half("p", "n", 3, Fraction(3, 2), True).record()
{'program': 'p', 'parameter': 'n', 'value': 3, 'value_exact': None, 'half': 1.5, 'half_exact': '3/2'}
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from ..base.numbers import Number, exact_text, format_number, json_number
from ..lang.shape import format_value

#: (record key, plain header, LaTeX header); a None header is the swept parameter's name (the "value" column)
Column = tuple[str, "str | None", "str | None"]

#: the columns most swept rows share
PROGRAM: Column = ("program", "program", "program")
VALUE: Column = ("value", None, None)
PAIR: list[Column] = [("witness_x", "x", "$x$"), ("witness_x_prime", "x'", "$x'$")]
TAIL: list[Column] = [("diagram_size", "size", "size"), ("seconds", "seconds", "seconds")]

#: the key of a field's metadata that holds its column
_KEY = "wmcdp.column"


@dataclass(frozen=True)
class Spec:
    """How a field of a row is a column: see :func:`column` and :func:`witness`."""

    key: str | None = None
    header: str | None = None
    tex: str | None = None
    convert: Callable[[Any], Any] | None = None
    log: str | None = None
    exact: bool | str = False
    shown: bool = False
    sides: Sequence[Column] = ()


def column(
    header: str | None = None,
    tex: str | None = None,
    *,
    key: str | None = None,
    convert: Callable[[Any], Any] | None = None,
    log: str | None = None,
    exact: bool | str = False,
    shown: bool = False,
) -> dict[str, Spec]:
    """The metadata of a dataclass field that is a column of the row's record: ``field(metadata=column(...))``.

    ``key`` names it in the record (default: the field's name); ``convert`` turns the value into the record's
    (``float``, :func:`plain`; default: kept); ``log`` names the field holding the value's natural log, which
    makes the record's value :func:`wmcdp.base.numbers.json_number` (a δ that underflowed reads as ``"1e-600"``).
    ``exact=True`` adds ``KEY_exact``, the exact text of the value of an exact run (:func:`exact_value`), after
    the other columns; ``exact="FIELD"`` takes that text from the field ``FIELD`` of an exact run instead.
    ``header`` (and ``tex``, default ``header``) show the column in tables; without a header it is in the
    record only. ``shown`` shows ``KEY_exact`` instead of the float in tables when there is one.
    """
    spec = Spec(key, header, tex if tex is not None else header, convert, log, exact, shown)
    return {_KEY: spec}


def witness(sides: Sequence[Column]) -> dict[str, Spec]:
    """The metadata of a dataclass field holding a witness: one text column per side (``witness_x``,
    ``witness_x_prime``, ``witness_y`` of a dataclass witness; ``witness_x`` of a single value), with the headers
    of ``sides``."""
    return {_KEY: Spec(sides=tuple(sides))}


def plain(value: Any) -> Any:
    """Fractions become floats (whole fractions ints); other values are kept."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def exact_value(value: Any, exact: bool) -> str | None:
    """A ``KEY_exact`` column: the ``"a/b"`` of an exact run's rational (``"inf"`` for an infinite ratio), None
    otherwise (a float run, or an exact run's float: the columns are the same in every mode)."""
    if not exact or (isinstance(value, float) and math.isfinite(value)):
        return None
    return exact_text(value)


def head(row: Any) -> dict[str, Any]:
    """The first columns of a swept row: its program, the swept parameter and its value (exact when it is)."""
    exact = format_number(row.value) if isinstance(row.value, Fraction) else None
    return {"program": row.program, "parameter": row.parameter, "value": plain(row.value), "value_exact": exact}


def _specs(row: Any) -> list[tuple[str, Spec]]:
    """The fields of a row class (or row) that are columns, with their specs, in order."""
    return [(f.name, f.metadata[_KEY]) for f in dataclasses.fields(row) if _KEY in f.metadata]


def _sides(value: Any) -> list[tuple[str, Any]]:
    """A witness's record columns: one per field of a dataclass witness, else ``witness_x``."""
    if dataclasses.is_dataclass(value):
        return [(f"witness_{side.name}", getattr(value, side.name)) for side in dataclasses.fields(value)]
    return [("witness_x", value)]


class Recorded:
    """A row (a frozen dataclass) whose ``record()`` is read off its fields' columns (:func:`column`,
    :func:`witness`); its ``exact`` field (or property) says whether the run was exact."""

    if TYPE_CHECKING:  # a field or a property of each row class, not of this class (dataclasses would see it)

        @property
        def exact(self) -> bool: ...

    def _head(self) -> dict[str, Any]:
        """The record's first columns (none; a swept row's program, parameter and value)."""
        return {}

    def record(self) -> dict[str, Any]:
        """Flat columns: floats, texts, then ``*_exact`` fraction strings (None when the run is not exact)."""
        out, exact, run_exact = self._head(), {}, self.exact
        for name, spec in _specs(self):
            value = getattr(self, name)
            if spec.sides:
                out.update((key, format_value(side)) for key, side in _sides(value))
                continue
            key = spec.key or name
            if spec.log is not None:
                out[key] = json_number(value, getattr(self, spec.log))
            else:
                out[key] = spec.convert(value) if spec.convert is not None else value
            if isinstance(spec.exact, str):
                exact[f"{key}_exact"] = getattr(self, spec.exact) if run_exact else None
            elif spec.exact:
                exact[f"{key}_exact"] = exact_value(value, run_exact)
        return {**out, **exact}


@dataclass(frozen=True)
class SweptRow(Recorded):
    """A row of a sweep: the program with its fixed parameters (e.g. ``"randomized_response(n=6)"``), the swept
    parameter and its value come first."""

    program: str
    parameter: str
    value: Number

    def _head(self) -> dict[str, Any]:
        return head(self)

    @classmethod
    def of(cls: type[_Row], result: Any, program: str, parameter: str, value: Number, **given: Any) -> _Row:
        """The row of ``result`` at one sweep point: each other field from ``given``, else the result's field
        of the same name."""
        fields = [f.name for f in dataclasses.fields(cls)][3:]
        return cls(program, parameter, value, **{f: given[f] if f in given else getattr(result, f) for f in fields})


#: a row class's own type (the row :meth:`SweptRow.of` builds)
_Row = TypeVar("_Row", bound=SweptRow)


def columns_of(row: type) -> list[Column]:
    """The columns a table shows of rows of the class ``row``: the head's, then each field's with a header."""
    out: list[Column] = [PROGRAM, VALUE] if issubclass(row, SweptRow) else []
    for name, spec in _specs(row):
        if spec.sides:
            out.extend(spec.sides)
        elif spec.header is not None:
            out.append((spec.key or name, spec.header, spec.tex))
    return out


def text_of(row: type) -> frozenset[str]:
    """The columns of ``row`` that are texts, not numbers: the program and the witness's sides."""
    sides = {key for _, spec in _specs(row) for key, _, _ in spec.sides}
    return frozenset({"program", *sides})


def exact_of(row: type) -> frozenset[str]:
    """The columns of ``row`` that tables show as their ``KEY_exact`` when it has one."""
    return frozenset({"value", *(spec.key or name for name, spec in _specs(row) if spec.shown)})


def derived(row: type) -> bool:
    """Whether the class ``row`` declares its columns on its fields (a :class:`Recorded` dataclass)."""
    return issubclass(row, Recorded) and dataclasses.is_dataclass(row)


__all__ = [
    "Column",
    "PROGRAM",
    "VALUE",
    "PAIR",
    "TAIL",
    "Spec",
    "column",
    "witness",
    "plain",
    "exact_value",
    "head",
    "Recorded",
    "SweptRow",
    "columns_of",
    "text_of",
    "exact_of",
    "derived",
]
