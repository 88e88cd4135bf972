"""What a user reads when something goes wrong: one line under 200 characters naming the problem (exit 2 for
bad input, 3 for a limit), no traceback, and nothing on stderr after a correct answer.

Each case runs through ``wmcdp.cli.main`` in this process and, where there is one, through the API; the cases
that depend on a fresh process (the memory cap, the interpreter's exit) run ``python -m wmcdp`` in a subprocess.
"""

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from dd import cudd

from wmcdp import synthesize_approximate, synthesize_privacy
from wmcdp.compile import compile_program
from wmcdp.lang.registry import build_program

ROOT = Path(__file__).parent.parent


def _python(code, timeout=120):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


# -- dd's shutdown check ------------------------------------------------------------------------

PROGRAMS = [
    ("noisy_max", {"n": 3, "m": 2, "eps0": 1}),
    ("sparse_vector", {"n": 4, "m": 2, "T": 1, "N": 1, "eps0": 1}),
    ("rappor", {"n": 4}),
    ("kary_rr", {"n": 3, "k": 3, "ratio": 3}),
]


@pytest.mark.parametrize("name, params", PROGRAMS)
def test_no_decision_diagram_is_left_to_the_cycle_collector(name, params):
    # CUDD's manager checks that no node is referenced when it is freed; when a manager and diagrams on it lie in
    # a reference cycle, the collector may free the manager first and dd prints "AssertionError: Still N nodes
    # referenced upon shutdown" (at exit, after a correct answer): no run may leave one in a cycle
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        program = build_program(name, params)
        synthesize_privacy(program)
        synthesize_approximate(program, epsilon=0.5)
        compiled = compile_program(program)
        assert compiled.support is not None
        del program, compiled
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, (cudd.BDD, cudd.Function))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []


def test_results_kept_to_the_end_leave_stderr_empty():
    code = (
        "import wmcdp\n"
        "from wmcdp.compile import compile_program\n"
        "from wmcdp.lang.registry import build_program\n"
        f"kept = []\nfor name, params in {PROGRAMS!r}:\n"
        "    program = build_program(name, params)\n"
        "    compiled = compile_program(program)\n"
        "    kept += [compiled, compiled.support, wmcdp.synthesize_privacy(program)]\n"
        "print(len(kept))\n"
    )
    r = _python(code)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"{3 * len(PROGRAMS)}\n", "")


def test_the_command_line_in_process_leaves_stderr_empty():
    code = (
        "import io, contextlib\nfrom wmcdp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['privacy', 'rappor', '-p', 'n=4']) == 0\n"
        "    assert main(['approx', 'noisy_max', '-p', 'n=3', '-p', 'm=2', '-p', 'eps0=1', '--epsilon', '1']) == 0\n"
    )
    r = _python(code)
    assert (r.returncode, r.stderr) == (0, "")
