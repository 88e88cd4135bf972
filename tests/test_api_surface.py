"""The library surface matches the docs: every name README.md, docs/*.md and the tutorial notebook show
imports from ``wmcdp`` as the function or class it documents, in a fresh interpreter and after every
submodule has been imported (no submodule hides a name of the package); ``wmcdp.__version__`` and
``wmcdp --version``; the built-in programs install inside wmcdp's namespace, never as top-level packages."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "docs" / "tutorial.ipynb"]


def _prose(page: Path) -> str:
    """A page's text without mkdocstrings' ``::: module.name`` directives (they name where a thing is defined)."""
    text = page.read_text()
    if page.suffix == ".ipynb":
        text = "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    return "\n".join(line for line in text.splitlines() if not line.startswith(":::"))


def documented_names() -> set[str]:
    """Names in ``from wmcdp import ...`` lines, the functions the Python API page lists as ``- `name(``,
    and the last part of every dotted ``wmcdp.name`` the pages show that is not a module."""
    names: set[str] = set()
    for page in PAGES:
        text = _prose(page)
        for line in re.findall(r"^from wmcdp import (.+)$", text, re.M):
            names.update(n.strip() for n in line.split(","))
        for dotted in re.findall(r"\bwmcdp((?:\.\w+)+)", text):
            path = "wmcdp" + dotted
            builtin = path.startswith(("wmcdp.programs.", "wmcdp.symmetry_sets.", "wmcdp.__"))
            if not builtin and not _is_module(path):
                names.add(path.rpartition(".")[2])
    api = _prose(ROOT / "docs" / "api.md")
    names.update(re.findall(r"^- `(\w+)\(", api, re.M))
    return names


def _is_module(path: str) -> bool:
    try:
        return importlib.util.find_spec(path) is not None
    except ModuleNotFoundError:
        return False


def test_the_docs_name_things_by_their_top_level_name():
    """A dotted ``wmcdp.module.name`` in the docs is a module or a name of a module, never deeper."""
    deep = []
    for page in PAGES:
        for dotted in re.findall(r"\bwmcdp((?:\.\w+)+)", _prose(page)):
            path = "wmcdp" + dotted
            if not _is_module(path) and path.count(".") > 1 and not path.startswith(("wmcdp.programs.",
                                                                                       "wmcdp.symmetry_sets.")):
                deep.append((page.name, path))
    assert not deep


def test_every_documented_name_is_exported():
    import wmcdp

    missing = sorted(documented_names() - set(wmcdp.__all__))
    assert not missing


def test_names_import_after_every_submodule_in_a_fresh_interpreter():
    import wmcdp

    script = f"""
import importlib, inspect, pkgutil, sys
import wmcdp
for module in pkgutil.walk_packages(wmcdp.__path__, "wmcdp."):
    if module.name.startswith("wmcdp.audit") or module.name == "wmcdp.__main__":
        continue  # the audits import their optional libraries; __main__ runs the command
    importlib.import_module(module.name)
names = {sorted(set(wmcdp.__all__) - {'__version__'})!r}
namespace = {{}}
exec("from wmcdp import " + ", ".join(names), namespace)
bad = [n for n in names if inspect.ismodule(namespace[n]) or not (callable(namespace[n]))]
print("BAD", bad)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "BAD []"


def test_version(capsys):
    import wmcdp
    from wmcdp.cli import main

    assert re.fullmatch(r"\d+\.\d+\.\d+", wmcdp.__version__)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"wmcdp {wmcdp.__version__}"
    from importlib.metadata import version

    assert version("wmcdp") == wmcdp.__version__


def test_programs_install_inside_the_wmcdp_namespace(tmp_path):
    """From outside the checkout, ``wmcdp.programs`` and ``wmcdp.symmetry_sets`` import; the top-level names
    ``programs`` and ``symmetry_sets`` are only 0.1's deprecated aliases (compat/), and a user's own ``programs``
    package in the current folder comes first."""
    script = """
import importlib.util
import wmcdp.programs, wmcdp.symmetry_sets
print("geometric_above_threshold" in wmcdp.programs.PROGRAMS)
for name in ("programs", "symmetry_sets"):
    print("/".join(importlib.util.find_spec(name).origin.split("/")[-3:]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["True", "compat/programs/__init__.py", "compat/symmetry_sets/__init__.py"]
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "__init__.py").write_text("MINE = True\n")
    own = "import programs; print(programs.MINE)"
    out = subprocess.run([sys.executable, "-c", own], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["True"]


def test_every_subpackage_is_installed():
    """pyproject.toml lists its packages by hand (four of them live in other folders): none is forgotten."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "wmcdp").rglob("__init__.py")}
    assert found | {"wmcdp.programs", "wmcdp.symmetry_sets", "programs", "symmetry_sets"} == listed


def test_the_api_page_and_the_exports_agree():
    """docs/api.md has a reference entry (``::: module.name``) for every exported name, and every entry is an
    export: its ``module.name`` is the very object ``wmcdp.name``."""
    import wmcdp

    entries = re.findall(r"^::: ([\w.]+)$", (ROOT / "docs" / "api.md").read_text(), re.M)
    referenced = {path.rpartition(".")[2]: path for path in entries}
    assert sorted(set(wmcdp.__all__) - {"__version__"} - set(referenced)) == []
    assert sorted(set(referenced) - set(wmcdp.__all__)) == []
    assert len(entries) == len(referenced)  # no name twice
    for name, path in referenced.items():
        module = importlib.import_module(path.rpartition(".")[0])
        assert getattr(module, name) is getattr(wmcdp, name), path
