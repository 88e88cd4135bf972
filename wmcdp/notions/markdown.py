"""Results as Markdown, for notebooks: the bound, its witness and the plan that computed it.

A result's class declares its Markdown on its fields (``field(metadata=shown(...))``: a row's label and how its
value reads), a ``title`` and ``markdown_rows()`` for rows that are no field's; :func:`markdown_of` reads them.
Each notion's record (:class:`wmcdp.notions.notion.Notion`) renders its results so, and a result's
``_repr_markdown_`` (:class:`wmcdp.notions.notion.Rendered`) calls it, so a result that is the last expression of
a Jupyter cell shows as a small table instead of a dataclass repr. :func:`markdown_table` and :func:`code` write
any other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.deprecation import renamed
from ..base.errors import WmcdpError
from ..base.numbers import show
from ..lang.shape import format_value


def markdown_table(title: str, rows: list[tuple[str, str]], plan: Any = None, seconds: float | None = None) -> str:
    """``title`` over a two-column table of ``(key, value)`` rows, then the plan and the time when given."""
    if plan is not None:
        rows.append(("plan", plan.text()))
    if seconds is not None:
        rows.append(("seconds", f"{seconds:.3g}"))
    body = "\n".join(f"| {key} | {_cell(value)} |" for key, value in rows)
    return f"{title}\n\n| | |\n|---|---|\n{body}\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def code(value: Any) -> str:
    """A program value as inline code."""
    return f"`{format_value(value)}`"


@dataclass(frozen=True)
class Shown:
    """How a field of a result reads in its Markdown table: see :func:`shown`."""

    label: str
    style: str
    log: str | None


#: the key of a field's metadata that holds its Markdown row
_KEY = "wmcdp.shown"


def shown(label: str, style: str = "show", *, log: str | None = None) -> dict[str, Shown]:
    """The metadata of a dataclass field of a result that is a row ``label`` of its Markdown table
    (``field(metadata=shown(...))``), in the ``style``:
    ``"show"`` (:func:`wmcdp.base.numbers.show`: the fraction too when exact, ``log`` the field of the value's
    natural log), ``"g"`` (a float to 10 digits), ``"text"`` (``str``) or ``"code"`` (a program value, or each
    side of a witness, as inline code)."""
    if style not in _STYLES:
        raise WmcdpError(f"unknown Markdown style {style!r}; the styles are {', '.join(_STYLES)}")
    return {_KEY: Shown(label, style, log)}


def _show(r: Any, value: Any, spec: Shown) -> str:
    return show(value, r.exact, getattr(r, spec.log) if spec.log else None)


def _code(_: Any, value: Any, __: Shown) -> str:
    if dataclasses.is_dataclass(value):
        return ", ".join(code(getattr(value, side.name)) for side in dataclasses.fields(value))
    return code(value)


_STYLES: dict[str, Callable[[Any, Any, Shown], str]] = {
    "show": _show,
    "g": lambda _, value, __: f"{value:.10g}",
    "text": lambda _, value, __: str(value),
    "code": _code,
}


def markdown_of(r: Any) -> str:
    """A result in Markdown, read off its class: the ``title`` (``{mode}`` becomes exact or float), a row per
    field declared with :func:`shown`, then its ``markdown_rows()``, the plan and the time."""
    rows = [
        (spec.label, _STYLES[spec.style](r, getattr(r, f.name), spec))
        for f in dataclasses.fields(r)
        if (spec := f.metadata.get(_KEY)) is not None
    ]
    title = type(r).title.format(mode="exact" if r.exact else "float")
    return markdown_table(title, [*rows, *r.markdown_rows()], r.plan, r.seconds)


#: the 0.2 functions of one notion each, now :func:`markdown_of` of any result (deprecated aliases)
__getattr__ = renamed(
    __name__,
    {
        f"{notion}_markdown": ("wmcdp.notions.markdown.markdown_of", markdown_of)
        for notion in ("privacy", "accuracy", "approximate", "renyi")
    },
)

__all__ = ["markdown_table", "code", "Shown", "shown", "markdown_of"]
