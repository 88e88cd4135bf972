"""The curve of a sweep or a profile, drawn with matplotlib (optional).

The curve is epsilon, 1 - beta, epsilon or delta of (epsilon, delta), or D_alpha against the swept parameter;
delta against epsilon for a profile.

Install with ``pip install -e '.[plot]'``. One line per program variant (and Rényi order);
an infinite value leaves a gap in its line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..base.errors import WmcdpError
from ..notions.catalogue import notion
from ..notions.sweep import Row

SUFFIXES = (".png", ".pdf", ".svg")


def require_matplotlib(path: str | Path | None = None) -> None:
    """Fail early, with one line, if ``path`` (when given) has no supported suffix or matplotlib is missing."""
    if path is not None and Path(path).suffix.lower() not in SUFFIXES:
        raise WmcdpError(f"--plot {path}: the file must end in {', '.join(SUFFIXES)}")
    try:
        import matplotlib  # noqa: F401  # deferred: matplotlib is the optional extra plot
    except ImportError:
        raise WmcdpError("--plot needs matplotlib: pip install 'wmcdp[plot]' (or pip install matplotlib)") from None


def new_figure(width: float, height: float) -> Any:
    """A matplotlib figure of its own, outside pyplot: making, drawing and saving it changes no backend (a
    notebook's inline plots keep working) and leaves no figure open in pyplot."""
    require_matplotlib()
    from matplotlib.figure import Figure  # deferred: matplotlib is the optional extra plot

    return Figure(figsize=(width, height))


def _curves(rows: Sequence[Row]) -> tuple[dict[str, list[tuple[float, float]]], str, str, str]:
    """Per line label, its ``(x, y)`` points (the notion's ``series``); the y label, the x label and the title."""
    kind = notion(rows[0].kind)
    lines: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        label, x, y = kind.series(r)
        lines.setdefault(label, []).append((x, y))
    return (lines, *kind.axes(rows))


def plot_rows(
    rows: Sequence[Row],
    path: str | Path | None = None,
    *,
    ax: Any = None,
    title: str | None = None,
    xlabel: str | None = None,
    log_y: bool = False,
) -> Any:
    """Draw ``rows`` (all of one kind) on the matplotlib axes ``ax``, or on a new figure of 6 x 4 inches; write it
    to ``path`` when given (the format follows the suffix). Returns the figure (``ax.figure``); matplotlib's
    backend is never changed."""
    if not rows:
        raise WmcdpError("plot_rows needs at least one row")
    if path is not None:
        require_matplotlib(path)
    if ax is None:
        fig = new_figure(6, 4)
        ax = fig.subplots()
    else:
        fig = ax.figure
    lines, ylabel, default_x, default_title = _curves(rows)
    for label, points in lines.items():
        ax.plot(
            [x for x, _ in points], [y if math.isfinite(y) else math.nan for _, y in points], marker="o", label=label
        )
    if log_y:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel or default_x)
    ax.set_title(title or default_title)
    ax.grid(alpha=0.3)
    ax.legend()
    if path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    return fig


__all__ = ["new_figure", "plot_rows", "require_matplotlib"]
