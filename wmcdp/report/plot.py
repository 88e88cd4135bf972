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
from ..base.numbers import format_number
from ..notions.sweep import AccuracyRow, ApproximateRow, PrivacyRow, ProfileRow, RenyiRow, Row

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
    """Per line label, its ``(x, y)`` points; the y label, the x label and the default title."""
    kind, parameter = rows[0].kind, rows[0].parameter
    lines: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        if isinstance(r, ProfileRow):
            label, x, y = r.program, float(r.epsilon), float(r.delta)
        elif isinstance(r, RenyiRow):
            label, x, y = f"{r.program}, alpha = {format_number(r.order)}", float(r.value), float(r.epsilon)
        elif isinstance(r, ApproximateRow):
            label, x, y = r.program, float(r.value), float(r.epsilon if r.given == "delta" else r.delta)
        elif isinstance(r, PrivacyRow):
            label, x, y = r.program, float(r.value), float(r.epsilon)
        else:
            label, x, y = r.program, float(r.value), float(r.one_minus_beta)
        lines.setdefault(label, []).append((x, y))
    xlabel = f"{parameter} (swept program parameter)"
    if kind == "privacy":
        return lines, "tight epsilon (nats, natural log)", xlabel, f"tight privacy bound vs {parameter}"
    r0 = rows[0]
    if isinstance(r0, AccuracyRow):
        return (
            lines,
            f"tight 1 - beta at alpha = {format_number(r0.alpha)} (probability)",
            xlabel,
            f"tight accuracy bound vs {parameter}",
        )
    if kind == "renyi":
        return lines, "tight Renyi divergence D_alpha (nats)", xlabel, f"tight Renyi DP vs {parameter}"
    if isinstance(r0, ApproximateRow):
        if r0.given == "delta":
            return (
                lines,
                f"tight epsilon at delta = {format_number(r0.delta)} (nats)",
                xlabel,
                f"tight (epsilon, delta) vs {parameter}",
            )
        return (
            lines,
            f"tight delta at epsilon = {format_number(r0.epsilon)} (probability)",
            xlabel,
            f"tight (epsilon, delta) vs {parameter}",
        )
    return lines, "tight delta(epsilon) (probability)", "epsilon (nats, natural log)", "privacy profile"


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
