"""One record per notion: everything the sweeps, the tables, the plots, the Markdown and the CLI need.

A notion (pure ε, accuracy, (ε, δ), Rényi, a privacy profile, ...) is a :class:`Notion`: its run function and
result type, how one sweep point runs (``point``), its rows' columns, how a row becomes a point of a curve
(``series``, ``axes``), how a result reads in Markdown, and the sweep options of its own. :func:`register` adds
one to :data:`NOTIONS`; :mod:`wmcdp.notions.sweep`, :mod:`wmcdp.report.tables`, :mod:`wmcdp.report.plot` and
``wmcdp sweep`` read the record instead of dispatching on the kind. A notion's module registers its own record
(so a result finds its Markdown); :mod:`wmcdp.notions.catalogue` imports the built-in ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ..base.errors import WmcdpError, brief
from ..base.numbers import exact_text, format_number
from ..lang.registry import find_relation
from ..lang.shape import format_value
from .fields import PAIR, PROGRAM, TAIL, VALUE, Column, columns_of, derived, exact_of, text_of
from .markdown import markdown_of

#: one point of a curve: (line label, x, y)
Point = tuple[str, float, float]


@dataclass(frozen=True)
class Option:
    """A sweep option of a notion's own: the keyword of its ``point`` and the CLI flag ``--name``."""

    name: str
    help: str
    required: bool = False
    default: Any = None
    metavar: str | None = None
    type: Callable[[str], Any] | None = None  # argparse's conversion of the flag's text
    parse: Callable[[Any], Any] | None = None  # conversion of the CLI value before the sweep (its errors: one line)
    aliases: tuple[str, ...] = ()  # other names of the flag (``--neighbors`` for ``--neighbours``)


@dataclass(frozen=True)
class Notion:
    """A notion's record.

    ``name`` is its rows' ``kind`` (the key of :data:`NOTIONS`); ``run`` its public function and ``result`` the
    type it returns; ``row`` the type of its sweep rows (a ``kind`` and ``record()``, :mod:`wmcdp.notions.rows`).
    ``command`` is the word of ``wmcdp sweep COMMAND`` (None: no sweep) and ``help`` its help.
    ``point(program, variant, parameter, value, **options)`` runs the notion at one point of a sweep and returns
    its row (or rows); ``options`` are the keywords ``point`` takes besides ``sets``, ``backend`` and ``exact``
    (each also a ``wmcdp sweep`` flag). ``columns`` are the columns people read (:mod:`wmcdp.report.tables`),
    ``text`` the columns among them that are not numbers, ``exact`` those shown as the record's ``KEY_exact``
    when it has one. ``series(row)`` is the row's point of a curve and ``axes(rows)`` the curve's (y label,
    x label, title). ``markdown(result)`` renders a result for notebooks.

    A row that declares its columns on its fields (:mod:`wmcdp.notions.fields`) gives ``columns``, ``text`` and
    ``exact`` when they are left out, and a result with a ``title`` (:func:`wmcdp.notions.markdown.markdown_of`)
    gives ``markdown``.
    """

    name: str
    run: Callable[..., Any]
    result: type
    row: type
    series: Callable[[Any], Point]
    axes: Callable[[Sequence[Any]], tuple[str, str, str]]
    columns: Sequence[Column] = ()
    markdown: Callable[[Any], str] | None = None
    point: Callable[..., Any] | None = None
    command: str | None = None
    options: Sequence[Option] = ()
    text: frozenset[str] = frozenset()
    exact: frozenset[str] = frozenset()
    help: str = ""

    def __post_init__(self) -> None:
        derive = derived(self.row)
        if not self.columns:
            if not derive:
                raise WmcdpError(f"the notion {self.name!r} gives no columns and its row declares none")
            object.__setattr__(self, "columns", columns_of(self.row))
        if not self.text:
            object.__setattr__(self, "text", text_of(self.row) if derive else _TEXT)
        if not self.exact:
            object.__setattr__(self, "exact", exact_of(self.row) if derive else _EXACT)
        if self.markdown is None and bool(getattr(self.result, "title", None)):
            object.__setattr__(self, "markdown", markdown_of)


#: the text and exact columns of a row that writes its own ``record()``
_TEXT = frozenset({"program", "witness_x", "witness_x_prime", "witness_y"})
_EXACT = frozenset({"value", "epsilon", "delta"})


#: every notion by name, in the order registered
NOTIONS: dict[str, Notion] = {}


#: the neighbour relation option of the notions over neighbouring pairs
NEIGHBOURS = Option(
    "neighbours", "exhaustive privacy sets: neighbour relation", metavar="RELATION|FILE.py:FUNC", aliases=("neighbors",)
)


def relation(neighbours: str | None) -> Any:
    """The relation the ``neighbours`` option names (None: the program's own)."""
    return find_relation(neighbours) if neighbours else None


def swept_axis(rows: Sequence[Any]) -> str:
    """The x label of a swept curve."""
    return f"{rows[0].parameter} (swept program parameter)"


def register(notion: Notion) -> Notion:
    """Add ``notion`` (a new name, and a sweep command no other notion has) to :data:`NOTIONS`; return it."""
    if notion.name in NOTIONS:
        raise WmcdpError(f"a notion named {notion.name!r} is already registered")
    if notion.command is not None and notion.command in commands():
        raise WmcdpError(f"the sweep command {notion.command!r} is already taken")
    NOTIONS[notion.name] = notion
    return notion


def unregister(name: str) -> None:
    """Remove the notion ``name`` (one registered for a while, e.g. in a test)."""
    NOTIONS.pop(name, None)


def notion(name: str) -> Notion:
    """The notion whose rows have kind ``name``."""
    if name not in NOTIONS:
        raise WmcdpError(f"unknown notion {name!r}; the notions are {', '.join(NOTIONS)}")
    return NOTIONS[name]


def commands() -> dict[str, Notion]:
    """The notions with a sweep command, by command."""
    return {n.command: n for n in NOTIONS.values() if n.command is not None}


def markdown(result: Any) -> str:
    """``result`` in Markdown, by the record of its type."""
    for n in NOTIONS.values():
        if isinstance(result, n.result) and n.markdown is not None:
            return n.markdown(result)
    raise WmcdpError(f"no notion renders a {type(result).__name__} in Markdown")


class Rendered:
    """A result that shows as Markdown in a notebook through its notion's record, as one short line in a console
    (``repr``: its :attr:`headline` columns, the plan's kind and the seconds), and as one flat row of a table
    (:meth:`record`, what :func:`wmcdp.to_dataframe` puts in its row).

    A result class is a frozen dataclass declared with ``repr=False`` (the dataclass's own repr would list every
    field: a page for a plan report)."""

    #: the columns of :meth:`record` the one-line repr shows, in order
    headline: ClassVar[tuple[str, ...]] = ()
    #: the title of its Markdown (:func:`wmcdp.notions.markdown.markdown_of`; ``{mode}``: exact or float)
    title: ClassVar[str] = ""

    def markdown_rows(self) -> list[tuple[str, str]]:
        """The rows of its Markdown table after its fields' (none)."""
        return []

    def _repr_markdown_(self) -> str:
        return markdown(self)

    def __repr__(self) -> str:
        record = self.record()
        texts = {key: _short(record[key]) for key in self._headline() if record.get(key) is not None}
        shown = [  # an exact value whose float reads the same is shown once
            f"{key}={brief(text, 20)}"
            for key, text in texts.items()
            if not (key.endswith("_exact") and texts.get(key.removesuffix("_exact")) == text)
        ]
        if record.get("plan"):
            shown.append(f"plan={record['plan']}")
        return f"{type(self).__name__}({', '.join(shown)}, {record['seconds']:.3g} s)"

    def _headline(self) -> Sequence[str]:
        """The columns the one-line repr shows (:attr:`headline`)."""
        return self.headline

    def record(self) -> dict[str, Any]:
        """The result as flat columns: numbers as floats (exact ones also as ``KEY_exact`` text), inputs and
        outputs as text (the witness as ``witness_x``, ``witness_x_prime`` and ``witness_y``), the plan as its
        kind; the fields that hold reports (symmetry sets, enclosures, the ``top`` list) are left out."""
        out: dict[str, Any] = {"notion": _kind(self)}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            _column(out, field.name, getattr(self, field.name))
        return out


#: the fields of a result that :meth:`Rendered.record` leaves out (reports and lists, not columns)
_REPORTS = frozenset({"sets", "interval", "intervals", "exact_delta", "top", "orders"})


def _kind(result: Any) -> str:
    """The notion whose result ``result`` is (the class name when no registered notion has it)."""
    return next((n.name for n in NOTIONS.values() if isinstance(result, n.result)), type(result).__name__)


def _column(out: dict[str, Any], name: str, value: Any) -> None:
    """Put the field ``name`` of a result into ``out`` as :meth:`Rendered.record` does."""
    if name in _REPORTS:
        return
    if name == "plan":
        out["plan"] = None if value is None else value.kind
    elif name == "witness" and dataclasses.is_dataclass(value):
        for side in dataclasses.fields(value):
            out[f"witness_{side.name}"] = format_value(getattr(value, side.name))
    elif isinstance(value, Fraction):
        out[name] = float(value)
        out[f"{name}_exact"] = exact_text(value)
    elif value is None or isinstance(value, (bool, int, float, str)):
        out[name] = value
    else:
        out[name] = format_value(value)


def _short(value: Any) -> str:
    """A column of a record as a repr shows it: floats to 6 digits, the rest as text."""
    return f"{value:.6g}" if isinstance(value, float) else format_number(value)


__all__ = [
    "Notion",
    "Option",
    "Column",
    "Point",
    "NOTIONS",
    "register",
    "unregister",
    "notion",
    "commands",
    "markdown",
    "Rendered",
    "relation",
    "swept_axis",
    "NEIGHBOURS",
    "PROGRAM",
    "VALUE",
    "PAIR",
    "TAIL",
]
