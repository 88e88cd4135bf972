"""The docs are the contract: every Python example in README.md and docs/*.md runs, and every ``wmcdp``
command they show parses with the real command line and (but for a few long runs, parsed only; the sampling
commands on fewer draws) exits 0.

The tutorial notebook runs through nbmake (``addopts = "--nbmake"`` in pyproject.toml); the site itself
builds with ``mkdocs build --strict`` in CI, and tests/test_docs_browser.py opens the built pages in headless
Chromium.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: commands that take minutes (the audit samples OpenDP 100 000 times per input; the planner's showcase
#: sizes) or need a running Dask scheduler: the parser checks them, the planner's tests and benchmarks run them
PARSED_ONLY = (
    "--sample 100000",
    "--scheduler",
    "-p n=100000",
    "histogram -p n=1000",
    "accuracy rr_counting -p n=500",
    "approx rr_counting -p n=1000",
    "privacy randomized_response -p n=1000 ",
)
#: whole audits (half a minute or more each; their tests run every case, one at a time)
PARSED_ONLY_EXACT = {"wmcdp audit diffprivlib", "wmcdp audit pure-ldp", "wmcdp audit multi-freq-ldpy"}
#: ``wmcdp sample`` and ``crosscheck`` draw 100 000 samples by default (ten seconds a command): they run on at most
#: this many draws (a ``-k`` added, the last one counts), the same code; tests/test_sample.py checks the draws
DRAWS = 2000
#: the module each audited library needs: without it the audit's commands are only parsed (its tests skip too)
AUDITED = {
    "opendp": "opendp",
    "diffprivlib": "diffprivlib",
    "pydp": "pydp",
    "tmlt": "tmlt.core",
    "pure-ldp": "pure_ldp",
    "multi-freq-ldpy": "multi_freq_ldpy",
}


def missing_library(argv: list[str]) -> bool:
    from importlib.util import find_spec

    if argv[:1] != ["audit"] or len(argv) < 2 or argv[1] not in AUDITED:
        return False
    try:
        return find_spec(AUDITED[argv[1]]) is None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return True


def at_most_draws(argv: list[str]) -> list[str]:
    """``argv`` drawing at most :data:`DRAWS` samples."""
    if argv[0] not in ("sample", "crosscheck"):
        return argv
    k = int(argv[argv.index("-k") + 1]) if "-k" in argv else 100_000
    return argv if k <= DRAWS else [*argv, "-k", str(DRAWS)]


def blocks(page: Path, language: str) -> list[str]:
    """The fenced code blocks of one language on a page, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text(), re.M | re.S)


def commands() -> list[tuple[str, str]]:
    """``(page name, command)`` for every ``wmcdp ...`` in the pages' shell blocks (after ``&&`` too); a command
    shown more than once is listed once, with the first page that shows it."""
    found: dict[str, str] = {}
    for page in PAGES:
        for block in blocks(page, "sh"):
            for line in block.splitlines():
                for part in line.split("&&"):
                    part = part.split("#")[0].strip()
                    if part.startswith("wmcdp "):
                        found.setdefault(part, page.name)
    return [(name, command) for command, name in found.items()]


def test_the_pages_have_examples():
    assert len(commands()) > 30
    assert sum(len(blocks(p, "python")) for p in PAGES) >= 3


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")], ids=lambda p: p.name)
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks(page, "python"):
        exec(compile(block, str(page), "exec"), namespace)


@pytest.mark.parametrize("page,command", commands(), ids=[c for _, c in commands()])
def test_commands_run(page, command, tmp_path, monkeypatch, capsys):
    from wmcdp.cli import _parser, main

    argv = [str(ROOT / a) if a.startswith("docs/") else a for a in shlex.split(command)[1:]]
    _parser().parse_args(argv)  # every documented flag and value is one the command line takes
    if any(marker in command + " " for marker in PARSED_ONLY) or command in PARSED_ONLY_EXACT:
        return
    if missing_library(argv):
        pytest.skip(f"{argv[1]} is not installed")
    monkeypatch.chdir(tmp_path)  # --output, --plot and --dot write here
    code = main(at_most_draws(argv))
    out = capsys.readouterr()
    # an audit that finds a violated claim exits with 1 by design (docs/audits.md): the OpenDP audit does
    assert code == 0 or (code == 1 and argv[0] == "audit" and "VIOLATED" in out.out + out.err), out.err


def test_table_cells_show_their_pipes():
    """Python-Markdown keeps the backslash of ``\\|`` inside a code span in a table, so such a cell is written
    ``<code>a&#124;b</code>``, which the site and GitHub both show as ``a|b``."""
    for page in PAGES:
        for line in page.read_text().splitlines():
            if line.startswith("|"):
                assert not any("\\|" in span for span in re.findall(r"`([^`]*)`", line)), (page.name, line)


#: the bounds docs/symbolic.md shows as formulas: each is what the command prints with --format latex
SYMBOLIC_FORMULAS = [
    "privacy randomized_response -p n=4 --symbolic lam=0:1",
    "privacy truncated_geometric -p m=4 --symbolic alpha=1/10:9/10",
    "accuracy rr_counting -p n=8 --alpha 3 --symbolic lam=0:1/2",
    "approx randomized_response -p n=3 --epsilon ln:3/2 --symbolic lam=0:1",
]


@pytest.mark.parametrize("command", SYMBOLIC_FORMULAS)
def test_the_formulas_on_the_symbolic_page_are_the_commands_latex(command, capsys):
    from wmcdp.cli import main

    assert main([*shlex.split(command), "--format", "latex"]) == 0
    latex = capsys.readouterr().out.strip()
    for name, symbol in (("lam", r"\lambda"), ("alpha", r"\alpha")):  # the page writes the parameters as Greek
        latex = re.sub(rf"(?<![\\a-z]){name}(?![a-z])", lambda _: symbol, latex)
    assert f"$$\n{latex}\n$$" in (ROOT / "docs" / "symbolic.md").read_text()
