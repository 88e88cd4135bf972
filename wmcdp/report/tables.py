"""Sweep and profile rows as text: an aligned table, CSV, Markdown, a LaTeX booktabs tabular, or JSON.

CSV and JSON carry every column of :func:`wmcdp.notions.sweep.records` (floats at full
precision, ``*_exact`` fraction strings for exact runs, an infinite epsilon as ``inf``; JSON in the ``wmcdp/1``
schema of :mod:`wmcdp.report.schema`, the witness as one object);
the table, Markdown and LaTeX show the columns people read, a long witness in the runs form
(:func:`wmcdp.lang.shape.witness_text`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from ..base.errors import WmcdpError
from ..base.jsontext import json_text
from ..base.numbers import format_number
from ..lang.shape import RUNS_FROM, read_witness, witness_text
from ..notions.catalogue import notion
from ..notions.sweep import Row, records
from .schema import envelope, witness_of

FORMATS = ("table", "csv", "markdown", "latex", "json")


def _cell(record: dict[str, Any], key: str, exact: frozenset[str]) -> str:
    if key in exact and record.get(f"{key}_exact"):
        text: str = record[f"{key}_exact"]
        return text
    value = record[key]
    if key == "seconds":
        return f"{value:.4f}"
    if key.startswith("witness") and isinstance(value, str):
        return _witness_cell(value)
    return value if isinstance(value, str) else format_number(value)


def _witness_cell(text: str) -> str:
    """A witness as the human formats show it: in the runs form when long (JSON and CSV keep every entry)."""
    if len(text) <= RUNS_FROM:
        return text
    try:
        return witness_text(read_witness(text))
    except WmcdpError:
        return text


def _grid(rows: Sequence[Row], latex: bool = False) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, cells and which columns are numeric, for the human formats."""
    kind = notion(rows[0].kind)
    columns = kind.columns
    parameter = rows[0].parameter
    headers = [
        (rf"\texttt{{{_latex_escape(parameter)}}}" if latex else parameter)
        if plain is None
        else ((tex or plain) if latex else plain)
        for _, plain, tex in columns
    ]
    cells = [[_cell(r, key, kind.exact) for key, _, _ in columns] for r in records(rows)]
    return headers, cells, [key not in kind.text for key, _, _ in columns]


def _table(rows: Sequence[Row]) -> str:
    headers, cells, numeric = _grid(rows)
    widths = [max(len(h), *(len(c[k]) for c in cells)) for k, h in enumerate(headers)]

    def line(items: list[str]) -> str:
        return "  ".join(s.rjust(w) if num else s.ljust(w) for s, w, num in zip(items, widths, numeric)).rstrip()

    return "\n".join([line(headers)] + [line(c) for c in cells])


def _markdown(rows: Sequence[Row]) -> str:
    headers, cells, numeric = _grid(rows)
    rule = ["---:" if num else "---" for num in numeric]
    return "\n".join(
        "| " + " | ".join(s.replace("|", "\\|") for s in items) + " |" for items in [headers, rule, *cells]
    )


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex_cell(text: str, numeric: bool) -> str:
    if numeric:
        return r"$\infty$" if text == "inf" else _latex_escape(text)
    return rf"\texttt{{{_latex_escape(text)}}}"


def _latex(rows: Sequence[Row]) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``), ready to ``\\input``."""
    headers, cells, numeric = _grid(rows, latex=True)
    lines = [
        rf"\begin{{tabular}}{{{''.join('r' if num else 'l' for num in numeric)}}}",
        r"\toprule",
        " & ".join(headers) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(_latex_cell(c, num) for c, num in zip(row, numeric)) + r" \\" for row in cells]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def _csv(rows: Sequence[Row]) -> str:
    flat = records(rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, list(flat[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: repr(v) if isinstance(v, float) else v for k, v in r.items()} for r in flat)
    return out.getvalue().rstrip("\n")


def json_rows(rows: Sequence[Row], head: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``wmcdp/1`` object of rows (:mod:`wmcdp.report.schema`): ``head`` (by default the envelope of a sweep,
    or of a profile for profile rows, with ``exact`` true when every row is), then ``rows``. Each row holds the
    record's columns with the witness as one object (``witness``, not the flat ``witness_*`` texts of CSV), its
    ``exact`` flag and, for a swept row, the program's ``label`` beside its name (``program``)."""
    if head is None:
        command = "profile" if rows and rows[0].kind == "profile" else "sweep"
        head = envelope(command, exact=rows_exact(rows))
    out = []
    for row, record in zip(rows, records(rows)):
        item = {k: v for k, v in record.items() if not k.startswith("witness_")}
        if "program" in item:
            label = item.pop("program")
            item = {"program": label.partition("(")[0], "label": label, **item}
        out.append({**item, "witness": witness_of(getattr(row, "witness", None)), "exact": _exact(row)})
    return {**head, "rows": out}


def _exact(row: Row) -> bool:
    return bool(getattr(row, "exact", False))


def rows_exact(rows: Sequence[Row]) -> bool | None:
    """The ``exact`` of a JSON head over rows: whether every row is exact (None without rows)."""
    return all(_exact(r) for r in rows) if rows else None


def _json(rows: Sequence[Row], head: dict[str, Any] | None) -> str:
    return json_text(json_rows(rows, head), indent=1)


_RENDER: dict[str, Callable[[Sequence[Row]], str]] = {
    "table": _table,
    "csv": _csv,
    "markdown": _markdown,
    "latex": _latex,
}


def render_rows(rows: Sequence[Row], fmt: str = "table", head: dict[str, Any] | None = None) -> str:
    """The rows in one of :data:`FORMATS`; JSON is the ``wmcdp/1`` object of :func:`json_rows` (``head`` its first
    keys)."""
    if fmt == "json":
        return _json(rows, head)
    if fmt not in _RENDER:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not rows:
        return ""
    return _RENDER[fmt](rows)


__all__ = ["FORMATS", "render_rows", "json_rows", "rows_exact"]
