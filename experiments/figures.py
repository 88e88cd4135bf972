"""The experiments' figures: a distinct colour, marker and line style for every series, and the legend outside
the data.

``style(i)`` combines matplotlib's ten colours with seven markers (coprime cycles: the first 70 series differ in
colour and marker together) and four line styles, so neither a colour nor a marker alone has to tell two series
apart; ``legend_outside`` puts one legend for all of a figure's panels to their right or below them (saved with
``bbox_inches="tight"``, which keeps it in the picture).
"""

from __future__ import annotations

from typing import Any

COLOURS = [f"C{i}" for i in range(10)]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
LINESTYLES = ["-", "--", ":", "-."]


def style(i: int) -> dict[str, Any]:
    """The keyword arguments of ``Axes.plot`` for the ``i``-th series of a figure."""
    return {
        "color": COLOURS[i % len(COLOURS)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[i % len(LINESTYLES)],
        "markersize": 5,
        "linewidth": 1.3,
    }


def legend_outside(fig: Any, axes: Any, where: str = "right", fontsize: float = 8, ncol: int = 1) -> None:
    """One legend for every labelled line of ``axes`` (each label once), to the right of the panels or below them."""
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if where == "right":
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.97), fontsize=fontsize, ncol=ncol)
    else:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=fontsize, ncol=ncol)
