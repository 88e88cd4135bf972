"""The library surface matches the docs: every name the README shows imports from ``wmcdp`` as the function or
class it documents, in a fresh interpreter and after every submodule has been imported (no submodule hides a
name of the package); ``wmcdp.__version__`` and ``wmcdp --version``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def documented_names() -> set[str]:
    """Names in ``from wmcdp import ...`` lines and the functions the Python API section lists as ``- `name(``."""
    text = README.read_text()
    names: set[str] = set()
    for line in re.findall(r"^from wmcdp import (.+)$", text, re.M):
        names.update(n.strip() for n in line.split(","))
    api = text[text.index("## The Python API"):text.index("### The DSL")]
    names.update(re.findall(r"^- `(\w+)\(", api, re.M))
    return names


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
