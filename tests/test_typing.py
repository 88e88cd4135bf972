"""The public API is typed for its users: a type checker sees every name ``wmcdp`` exports with its real signature
(not ``Any``, though the names load lazily), and the package says so to type checkers with ``py.typed`` (PEP 561)
in the wheel it builds."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import pytest

import wmcdp

ROOT = Path(__file__).parent.parent
NAMES = sorted(set(wmcdp.__all__) - {"__version__"})


@pytest.fixture(scope="module")
def revealed(tmp_path_factory) -> dict[str, str]:
    """``{name: the type mypy reveals for wmcdp.name}``, and ``"<errors>"``: the errors of a call with wrong types."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    folder = tmp_path_factory.mktemp("typing")
    snippet = folder / f"snippet_{uuid.uuid4().hex}.py"  # a new module: mypy's cache replays an old one's path
    lines = ["import wmcdp", "from wmcdp import synthesize_privacy"]
    lines += [f"reveal_type(wmcdp.{name})" for name in NAMES]
    lines += ["reveal_type(synthesize_privacy)", 'synthesize_privacy("rr", backend=3)']
    snippet.write_text("\n".join(lines) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(snippet)],
        capture_output=True,
        text=True,
        cwd=ROOT,  # the checkout's own wmcdp, and mypy's cache of it
    ).stdout
    found: dict[str, str] = {"<errors>": ""}
    for line in out.splitlines():
        number = int(line.split(":")[1]) if line.startswith(f"{snippet}:") else 0
        if 'Revealed type is "' in line:
            name = NAMES[number - 3] if number - 3 < len(NAMES) else "from wmcdp import synthesize_privacy"
            found[name] = line.split('Revealed type is "', 1)[1].rstrip('"')
        elif ": error:" in line:
            found["<errors>"] += line + "\n"
    return found


def test_reveal_type_shows_the_signature(revealed):
    sig = revealed["synthesize_privacy"]
    assert sig.startswith("def (prog: wmcdp.lang.program.Program | wmcdp.compile.Compiled, C: ")
    assert "backend: str =" in sig and sig.endswith("-> wmcdp.notions.results.PrivacyResult")
    assert revealed["from wmcdp import synthesize_privacy"] == sig


def test_no_exported_name_is_any(revealed):
    assert {name: revealed.get(name) for name in NAMES if revealed.get(name, "Any") == "Any"} == {}


def test_a_wrong_call_is_an_error(revealed):
    errors = revealed["<errors>"]
    assert re.search(r'Argument 1 to "synthesize_privacy" has incompatible type "str"', errors)
    assert re.search(r'Argument "backend" to "synthesize_privacy" has incompatible type "int"', errors)


def test_the_type_checkers_names_are_the_exports():
    """The ``if TYPE_CHECKING:`` imports of ``wmcdp/__init__.py`` name exactly the lazily loaded exports, each
    from the module it loads from."""
    tree = ast.parse((ROOT / "wmcdp" / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    imported = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name  # an explicit re-export
    }
    assert imported == wmcdp._EXPORTS


def test_the_wheel_carries_py_typed(tmp_path):
    """Build the wheel from a copy of the checkout (no build files left in it)."""
    source = tmp_path / "source"
    for part in ("wmcdp", "programs", "symmetry_sets", "compat"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)
    build = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    name = subprocess.run(
        [sys.executable, "-c", build, str(tmp_path)], capture_output=True, text=True, check=True, cwd=source
    ).stdout.split()[-1]
    with zipfile.ZipFile(tmp_path / name) as wheel:
        files = set(wheel.namelist())
    assert {"wmcdp/py.typed", "wmcdp/__init__.py", "wmcdp/sets.py", "wmcdp/programs/__init__.py"} <= files
    assert "wmcdp/report/wmcdp-1.json" in files  # the JSON Schema of --json
    # the built-in programs and proved sets install inside wmcdp; the top-level names are 0.1's aliases alone
    top = {name for name in files if name.split("/")[0] in ("programs", "symmetry_sets")}
    assert top == {"programs/__init__.py", "symmetry_sets/__init__.py"}


def test_import_wmcdp_stays_cheap():
    """The type checkers' imports never run: ``import wmcdp`` loads none of its submodules (PEP 562 loading)."""
    script = "import sys, wmcdp; print(sorted(m for m in sys.modules if m.startswith('wmcdp')))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['wmcdp']"
