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
