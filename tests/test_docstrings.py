"""Every module of the package, of its built-in programs and of its proved sets opens its docstring with one
sentence on one line: a capital letter or a backquoted name first, a full stop last, and no sentence ending
inside it (the reference pages and ``help()`` show that line as the module's summary)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import wmcdp
import wmcdp.programs
import wmcdp.symmetry_sets

#: the folders whose modules are checked (the package, and the two that install inside it)
ROOTS = [Path(m.__file__).parent for m in (wmcdp, wmcdp.programs, wmcdp.symmetry_sets)]
#: abbreviations whose full stop ends no sentence
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|et al|cf|vs|Sec|Fig|Eq|Thm|Def|no)\.")


def _modules() -> list[Path]:
    return [p for root in ROOTS for p in sorted(root.rglob("*.py"))]


def _key(path: Path) -> str:
    """``wmcdp/...``, ``programs/...`` or ``symmetry_sets/...``: the path from the folder above the root."""
    root = next(r for r in ROOTS if path.is_relative_to(r))
    return path.relative_to(root.parent).as_posix()


def first_line_problem(doc: str | None) -> str | None:
    """What is wrong with a module docstring's first line, or None when it is one sentence on one line."""
    if doc is None or not doc.strip():
        return "no docstring"
    line = doc.split("\n", 1)[0].strip()
    if not line:
        return "the first line is empty"
    if not (line[0].isupper() or line[0] == "`"):
        return "the first line starts with neither a capital letter nor a backquoted name"
    if not line.endswith("."):
        return "the first line does not end with a full stop (one sentence that fits on the line)"
    inner = ABBREVIATIONS.sub("x", re.sub(r"``.*?``|`[^`]*`", "x", line[:-1]))
    if re.search(r"[.!?]\s+[A-Z(]", inner):
        return "the first line holds more than one sentence"
    return None


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ("Counting: weights of models.\n\nMore.", None),
        ("``wmcdp sweep``: a bound over a range.", None),
        ("The DP-tester suite (Ding et al. CCS'18, Sec. 5).", None),
        (None, "no docstring"),
        ("wmcdp: bounds.", "the first line starts with neither a capital letter nor a backquoted name"),
        ("Plans: how a bound is\ncomputed.", "the first line does not end with a full stop (one sentence that fits on the line)"),
        ("Plans. The planner proves structure.", "the first line holds more than one sentence"),
    ],
)
def test_the_rule(doc, problem):
    assert first_line_problem(doc) == problem


def test_every_module_opens_with_one_sentence():
    modules = _modules()
    assert len(modules) > 100
    bad = []
    for path in modules:
        problem = first_line_problem(ast.get_docstring(ast.parse(path.read_text()), clean=False))
        if problem:
            bad.append(f"{_key(path)}: {problem}")
    assert bad == []
