"""The cost model's module (wmcdp.plan.costs): every constant says what it measures and names the script that
checks it, and the planner's modules read the very same objects."""

from __future__ import annotations

import re
from pathlib import Path

from wmcdp.plan import costs, hub, planner

ROOT = Path(__file__).resolve().parent.parent


def _constants() -> list[tuple[str, list[str]]]:
    """Each constant of costs.py with the ``#:`` comment lines just above it."""
    lines = (ROOT / "wmcdp" / "plan" / "costs.py").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^([A-Z][A-Z_]*) = ", line)
        if m:
            above = []
            j = i - 1
            while j >= 0 and lines[j].startswith("#:"):
                above.insert(0, lines[j])
                j -= 1
            out.append((m.group(1), above))
    return out


def test_every_constant_says_what_it_measures_and_what_checks_it():
    constants = _constants()
    assert len(constants) >= 35
    for name, above in constants:
        assert len(above) >= 2, name
        checked = above[-1]
        assert checked.startswith("#: checked by: "), name
        scripts = re.findall(r"python (experiments/\w+\.py)", checked)
        assert scripts or "none" in checked, name
        assert all((ROOT / s).is_file() for s in scripts), (name, scripts)


def test_the_old_homes_give_the_same_objects():
    for name, _ in _constants():
        if hasattr(planner, name):
            assert getattr(planner, name) is getattr(costs, name), name
    assert hub.HUB_SECONDS is costs.HUB_SECONDS
