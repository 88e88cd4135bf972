"""The curve of a sweep or a profile (matplotlib, optional): epsilon, 1 - beta, epsilon or delta
of (epsilon, delta), or D_alpha against the swept parameter; delta against epsilon for a profile.

Install with ``pip install -e '.[plot]'``. One line per program variant (and Rényi order);
an infinite value leaves a gap in its line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ..base.errors import WmcdpError
from ..notions.catalogue import notion
from ..notions.sweep import Row

SUFFIXES = (".png", ".pdf", ".svg")


def require_matplotlib(path: str | Path) -> None:
    """Fail early, with one line, if ``path`` has no supported suffix or matplotlib is missing."""
    if Path(path).suffix.lower() not in SUFFIXES:
        raise WmcdpError(f"--plot {path}: the file must end in {', '.join(SUFFIXES)}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise WmcdpError("--plot needs matplotlib: pip install 'wmcdp[plot]' (or pip install matplotlib)") from None


def _curves(rows: Sequence[Row]) -> tuple[dict[str, list[tuple[float, float]]], str, str, str]:
    """Per line label, its ``(x, y)`` points (the notion's ``series``); the y label, the x label and the title."""
    kind = notion(rows[0].kind)
    lines: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        label, x, y = kind.series(r)
        lines.setdefault(label, []).append((x, y))
    return (lines, *kind.axes(rows))


def plot_rows(
    rows: Sequence[Row], path: str | Path, *, title: str | None = None, xlabel: str | None = None, log_y: bool = False
) -> None:
    """Draw ``rows`` (all of one kind) into ``path``; the format follows the file suffix."""
    require_matplotlib(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines, ylabel, default_x, default_title = _curves(rows)
    fig, ax = plt.subplots(figsize=(6, 4))
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


__all__ = ["plot_rows", "require_matplotlib"]
