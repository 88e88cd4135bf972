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

from wmcdp import LimitExceeded, synthesize_approximate, synthesize_privacy
from wmcdp.base.limits import reserve, resource_limits
from wmcdp.cli import main
from wmcdp.compile import compile_program
from wmcdp.lang.registry import build_program

ROOT = Path(__file__).parent.parent
LONGEST = 200


def _one_line(capsys, status, expected):
    """The run's stderr: one line under :data:`LONGEST` characters, no traceback, with the expected status."""
    err = capsys.readouterr().err
    assert status == expected, err
    assert err.count("\n") == 1 and len(err) < LONGEST, err
    assert "Traceback" not in err
    return err


def _python(code, timeout=120):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _wmcdp(args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "wmcdp", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


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


# -- --max-memory -------------------------------------------------------------------------------


def test_a_table_past_the_memory_cap_is_refused_before_it_is_made():
    # 2001 count distributions of 2001 extended floats and the 2 x 2001 powers they are made of: 183 MiB
    r = _wmcdp(["approx", "rr_counting", "-p", "n=2000", "-p", "lam=0.27", "--epsilon", "0.02", "--max-memory", "200M"])
    assert r.returncode == 3 and r.stdout == "", r.stderr
    assert r.stderr.count("\n") == 1 and len(r.stderr) < LONGEST and "Traceback" not in r.stderr
    assert r.stderr.startswith("wmcdp: stopped: the count distributions of 2000 reports would take about 183 MiB")
    assert "over the memory cap of 200 MiB" in r.stderr


def test_a_run_over_the_memory_cap_stops_at_a_checkpoint(capsys):
    # this process holds more than 1 MiB: the first checkpoint under the cap stops the run
    status = main(["privacy", "randomized_response", "-p", "n=2", "-p", "lam=1/4", "--max-memory", "1M"])
    err = _one_line(capsys, status, 3)
    assert err.startswith("wmcdp: stopped: the run used ") and "over --max-memory (max_memory) 1 MiB" in err
    with pytest.raises(LimitExceeded, match="over --max-memory"), resource_limits(max_memory=1 << 20):
        synthesize_privacy(build_program("randomized_response", {"n": 2, "lam": "1/4"}))


def test_reserve_refuses_what_does_not_fit_and_passes_what_does():
    with resource_limits(max_memory=1 << 30):
        reserve(1 << 20, "a small table")
        with pytest.raises(LimitExceeded, match=r"^a large table would take about 2048 MiB, over the memory cap"):
            reserve(2 << 30, "a large table")
