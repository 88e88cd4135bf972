"""The experiments' figure helpers (experiments/figures.py, results_io.read_csv): every series of a figure drawn
differently, the legend outside the panels, and the stored results read back as they were written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# experiments/ is not a package: put it on the path for the import only
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
try:
    import figures
    import results_io
finally:
    sys.path.pop(0)


def test_every_series_has_its_own_colour_and_marker() -> None:
    styles = [figures.style(i) for i in range(70)]
    assert len({(s["color"], s["marker"]) for s in styles}) == 70  # colour and marker together tell them apart
    assert len({(s["color"], s["marker"], s["linestyle"]) for s in styles[:30]}) == 30
    for a, b in zip(styles, styles[1:]):  # neighbours in a legend differ in each of the three
        assert a["color"] != b["color"] and a["marker"] != b["marker"] and a["linestyle"] != b["linestyle"]


@pytest.mark.parametrize("where", ["right", "below"])
def test_the_legend_is_outside_the_panels(where: str) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(6, 3))
    for ax in axes:
        for i in range(12):
            ax.plot([1, 2, 3], [i, i + 1, i + 2], label=f"series {i}", **figures.style(i))
    fig.tight_layout()
    figures.legend_outside(fig, axes, where=where, ncol=1 if where == "right" else 6)
    fig.canvas.draw()
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [f"series {i}" for i in range(12)]  # each label once
    box = legend.get_window_extent()
    for ax in axes:
        assert not box.overlaps(ax.get_window_extent())
    plt.close(fig)


def test_read_csv_gives_back_what_write_csv_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results_io, "RESULTS", tmp_path)
    rows = [
        {"name": "a b", "n": 5, "x": 0.125, "ratio": "889/137", "missing": None, "flag": False},
        {"name": "c", "n": 10, "x": 1e-300, "ratio": "inf", "missing": 2.5, "flag": True},
    ]
    results_io.write_csv(rows, "t.csv", digits=None)
    back = results_io.read_csv("t.csv")
    assert back[0] == {**rows[0], "flag": "False"} and back[1]["x"] == 1e-300 and back[1]["missing"] == 2.5
    assert back[1]["ratio"] == float("inf") and back[1]["flag"] == "True"


def test_the_peers_figure_reads_every_stored_row_back() -> None:
    """``peers_suite.py --plot-only``: the committed CSV's records fall into the script's rows, one per size."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    try:
        import peers_suite
    finally:
        sys.path.pop(0)
    measured = peers_suite.stored()
    assert len(measured) == len(peers_suite.rows())
    for row, records in measured:
        assert [r["n"] for r in records] == peers_suite.SIZES and {r["program"] for r in records} == {row.program}
