"""docs/findings.md's reproducers run as a maintainer runs them: with wmcdp unimportable (each needs only the library
it is about, or only the standard library), printing what the page says they print."""

import re
from importlib.util import find_spec
from pathlib import Path

import pytest

from reports import script_output

PAGE = Path(__file__).parent.parent / "docs" / "findings.md"

#: the library each reproducer imports (None: the standard library alone), in the page's order
NEEDS = ["opendp", "multi_freq_ldpy", "diffprivlib", None]
#: a printed line that varies between runs, as the pattern it must match (OpenDP's own draws)
VARIES = {"OpenDP released": r"OpenDP released 'a' in ([1-9]\d*) of 3000 runs from \{'a': 0\} and in 0 from \{\}"}


def reproducers():
    """``(script, the lines the page says it prints)`` for every ```py block, the plain block after it."""
    text = PAGE.read_text()
    found = re.findall(r"^```py\n(.*?)^```\n\n.*?\n\n```\n(.*?)^```", text, re.M | re.S)
    assert len(found) == len(NEEDS) == text.count("```py\n")
    return [(script, printed.splitlines()) for script, printed in found]


@pytest.mark.parametrize("k", range(len(NEEDS)), ids=[n or "stdlib" for n in NEEDS])
def test_reproducer_prints_what_the_page_says(k):
    script, printed = reproducers()[k]
    if NEEDS[k] is not None:
        pytest.importorskip(NEEDS[k])
    assert NEEDS[k] is None or f"import {NEEDS[k]}" in script or f"from {NEEDS[k]}" in script
    lines = script_output(f"```python\n{script}```")
    assert len(lines) == len(printed)
    for got, want in zip(lines, printed):
        key = next((k for k in VARIES if want.startswith(k)), None)
        if key is None:
            assert got == want
        else:
            assert re.fullmatch(VARIES[key], got) and re.fullmatch(VARIES[key], want), got


def test_the_shuffle_reproducer_needs_no_library():
    script, _ = reproducers()[NEEDS.index(None)]
    imported = {m.split(".")[0] for m in re.findall(r"^(?:from|import) (\S+)", script, re.M)}
    assert imported <= {"decimal", "fractions", "math"}
    assert all(find_spec(m) is not None for m in imported)
