"""Start-up: ``wmcdp --version`` and ``--help`` load no compiler, numpy or networkx; a command loads its own
implementation only when it runs; the names the light parsers list agree with the implementation's tables."""

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("dd", "networkx", "flint", "numpy")

#: a fresh interpreter runs ``wmcdp.cli.main`` on argv and prints which heavy modules it loaded (on stderr, after
#: the command's own output; ``--help`` ends in SystemExit)
SCRIPT = (
    "import sys\n"
    "from wmcdp.cli import main\n"
    "try:\n"
    "    sys.exit(main(sys.argv[1:]))\n"
    "finally:\n"
    f"    print('loaded:', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
)


def _loaded(argv: list[str]) -> tuple[int, str, list[str]]:
    r = subprocess.run([sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, timeout=120,
                       cwd=Path(__file__).parent.parent)
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("loaded: "), r.stderr
    return r.returncode, r.stdout, eval(last.removeprefix("loaded: "))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["privacy", "--help"], ["approx", "--help"],
                                  ["sample", "--help"], ["nonsense"]])
def test_help_and_version_load_nothing_heavy(argv):
    code, out, loaded = _loaded(argv)
    assert code == (2 if argv == ["nonsense"] else 0)
    assert loaded == []
    if argv == ["--help"]:  # every command is listed, the ones loaded when chosen too
        for name in ("privacy", "accuracy", "sweep", "audit", "symmetry", "programs"):
            assert f"    {name} " in out


def test_a_command_loads_what_it_runs():
    code, out, loaded = _loaded(["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/4"])
    assert code == 0 and "epsilon" in out and {"dd", "numpy"} <= set(loaded)


def test_the_listed_commands_match_their_parsers():
    """``sweep`` and ``audit`` are listed by name and help until chosen: the same text as their full parsers."""
    from wmcdp.cli import _parser

    assert _parser("").format_help() == _parser().format_help()
    assert _parser("sweep").format_help() == _parser().format_help()


def test_the_parsers_list_the_implementation_names():
    from wmcdp.cli import parsers
    from wmcdp.compile import BACKENDS
    from wmcdp.lang.relations import NEIGHBOURS
    from wmcdp.notions.approximate import ACCOUNTANTS
    from wmcdp.report.tables import FORMATS

    assert tuple(BACKENDS) == parsers.BACKENDS
    assert tuple(NEIGHBOURS) == parsers.NEIGHBOURS
    assert tuple(FORMATS) == parsers.FORMATS
    assert tuple(ACCOUNTANTS) == parsers.ACCOUNTANTS
