"""The curve of a sweep: epsilon or 1 - beta against the swept parameter (matplotlib, optional).

Install with ``pip install -e '.[plot]'``. One line per program variant; an infinite
epsilon leaves a gap in its line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from .errors import WmcdpError
from .numbers import format_number
from .sweep import Row

SUFFIXES = (".png", ".pdf", ".svg")


def require_matplotlib(path: str | Path) -> None:
    """Fail early, with one line, if ``path`` has no supported suffix or matplotlib is missing."""
    if Path(path).suffix.lower() not in SUFFIXES:
        raise WmcdpError(f"--plot {path}: the file must end in {', '.join(SUFFIXES)}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise WmcdpError("--plot needs matplotlib: pip install 'wmcdp[plot]' (or pip install matplotlib)") from None


def plot_rows(rows: Sequence[Row], path: str | Path, *, title: str | None = None, xlabel: str | None = None) -> None:
    """Draw ``rows`` (all of one kind) into ``path``; the format follows the file suffix."""
    require_matplotlib(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind, parameter = rows[0].kind, rows[0].parameter
    fig, ax = plt.subplots(figsize=(6, 4))
    for variant in dict.fromkeys(r.program for r in rows):
        mine = [r for r in rows if r.program == variant]
        ys = [float(r.epsilon) if kind == "privacy" else float(r.one_minus_beta) for r in mine]
        ax.plot([float(r.value) for r in mine], [y if math.isfinite(y) else math.nan for y in ys],
                marker="o", label=variant)
    if kind == "privacy":
        ax.set_ylabel("tight epsilon (nats, natural log)")
        default = "tight privacy bound"
    else:
        ax.set_ylabel(f"tight 1 - beta at alpha = {format_number(rows[0].alpha)} (probability)")
        default = "tight accuracy bound"
    ax.set_xlabel(xlabel or f"{parameter} (swept program parameter)")
    ax.set_title(title or f"{default} vs {parameter}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


__all__ = ["plot_rows", "require_matplotlib"]
