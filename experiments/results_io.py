"""Where the experiments write their results, and how (CSV)."""

from __future__ import annotations

import csv
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_csv(rows: list[dict], name: str, digits: int | None = 6) -> Path:
    """Write ``rows`` (dicts with the same keys) to ``results/name``, floats to ``digits``
    significant digits (all of them with ``None``); return the path."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / name
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows({k: f"{v:.{digits}g}" if digits and isinstance(v, float) else v for k, v in r.items()}
                         for r in rows)
    return path


def read_csv(name: str) -> list[dict]:
    """The rows :func:`write_csv` wrote to ``results/name``: integers and floats as numbers, empty cells as None,
    anything else as text (so a figure can be drawn again from the stored results)."""

    def value(cell: str) -> object:
        if cell == "":
            return None
        for kind in (int, float):
            try:
                return kind(cell)
            except ValueError:
                pass
        return cell

    with open(RESULTS / name, newline="") as f:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(f)]
