"""What a user reads when something goes wrong: one line under 200 characters naming the problem (exit 2 for
bad input, 3 for a limit), no traceback, and nothing on stderr after a correct answer.

Each case runs through ``wmcdp.cli.main`` in this process and, where there is one, through the API; the cases
that depend on a fresh process (the memory cap, the interpreter's exit) run ``python -m wmcdp`` in a subprocess.
"""

import gc
import html
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from dd import cudd

from wmcdp import LimitExceeded, WmcdpError, subsample, synthesize_approximate, synthesize_privacy
from wmcdp.base.errors import brief, listing, one_line, suggest
from wmcdp.base.limits import reserve, resource_limits
from wmcdp.base.numbers import as_int, parse_number, scientific_whole
from wmcdp.cli import main
from wmcdp.compile import compile_program
from wmcdp.lang.registry import build_program
from wmcdp.lang.shape import read_witness

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
    # (forced: by default n = 2000 takes the shuffle at scale, which makes no table)
    args = ["approx", "rr_counting", "-p", "n=2000", "-p", "lam=0.27", "--epsilon", "0.02", "--plan", "count-of-reports"]
    r = _wmcdp([*args, "--max-memory", "200M"])
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


# -- one short line per error --------------------------------------------------------------------

RR = ["randomized_response", "-p", "lam=1/4"]


def test_a_whole_number_in_scientific_notation_is_that_integer(capsys):
    assert main(["privacy", *RR, "-p", "n=2e0", "--json"]) == 0
    scientific = json.loads(capsys.readouterr().out)
    assert main(["privacy", *RR, "-p", "n=2", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert scientific["ratio_exact"] == plain["ratio_exact"] == "3" and scientific["program"] == plain["program"]
    assert parse_number("1e3") == 1000.0 and scientific_whole("1e3") == 1000 and scientific_whole("2.5E+3") == 2500
    assert scientific_whole("1.5e0") is None and scientific_whole("1e-3") is None and scientific_whole("1000") is None


@pytest.mark.parametrize(
    "value, text",
    [
        ("2.0", "n must be a whole number, got 2.0"),
        ("1.5e0", "n must be a whole number, got 1.5"),
        ("1e99999999999", "n: 1e99999999999 has an exponent past 10^99999, far outside every number range"),
        ("\u0662", "n must be a number, got '\u0662'"),  # an Arabic-Indic digit two
    ],
)
def test_a_count_that_is_not_a_whole_number_says_what_was_given(value, text, capsys):
    err = _one_line(capsys, main(["privacy", *RR, "-p", f"n={value}"]), 2)
    assert err == f"wmcdp: error: {text}\n"


def test_numbers_are_written_in_ascii_digits():
    with pytest.raises(WmcdpError, match="is not a number"):
        parse_number("\u0662\u0660")
    with pytest.raises(WmcdpError, match="whole number, got 2.0"):
        as_int(2.0, "n")


def test_a_subnormal_subsampling_rate_is_one_clear_line(capsys):
    err = _one_line(capsys, main(["privacy", *RR, "-p", "n=1", "--subsample", "1e-320"]), 2)
    assert err.startswith("wmcdp: error: --subsample 1e-320 is a subnormal float (below 2^-1022)")
    assert "frozen" not in err
    program = subsample(build_program("randomized_response", {"n": 1, "lam": "1/4"}), 1e-320)
    with pytest.raises(WmcdpError, match="flip probability 1e-320 is a subnormal float") as info:
        synthesize_privacy(program)
    assert "frozen" not in str(info.value)


def test_the_exact_run_of_a_subnormal_rate_answers(capsys):
    # q = 10^-320 exactly: the slot holds x with probability q, else 0, so P(1 | x = 1) = 3q/4 + (1 - q)/4 and
    # P(1 | x = 0) = 1/4: the ratio is 1 + 2q
    assert main(["privacy", *RR, "-p", "n=1", "--subsample", "1e-320", "--exact", "--json"]) == 0
    q = Fraction(1, 10**320)
    assert Fraction(json.loads(capsys.readouterr().out)["ratio_exact"]) == 1 + 2 * q


def test_a_long_input_is_shortened_in_its_message(capsys):
    entries = ",".join(["0", "1"] * 100 + ["2"])
    err = _one_line(capsys, main(["sample", *RR, "-p", "n=200", "--input", entries]), 2)
    assert err.startswith("wmcdp: error: input (0, 1, 0, 1,") and "(201 entries, not 200)" in err
    assert "is outside the domain {0,1}^200" in err
    err = _one_line(capsys, main(["sample", *RR, "-p", "n=200", "--input", "01" * 99 + "0"]), 2)
    assert err.endswith(" (199 characters) is outside the domain {0,1}^200 (199 digits, not 200)\n")
    program = build_program("randomized_response", {"n": 200, "lam": "1/4"})
    with pytest.raises(WmcdpError) as info:
        program.inputs.check((0, 1) * 100 + (2,))
    assert len(str(info.value)) < LONGEST and "(603 characters)" in str(info.value)


def test_runs_forms_read_ascii_digits_only(capsys):
    err = _one_line(capsys, main(["sample", *RR, "-p", "n=200", "--input", "0^\u0662\u0660\u0660"]), 2)
    assert err.startswith("wmcdp: error: cannot read '0^")
    with pytest.raises(WmcdpError):
        read_witness("0^\u0662")
    assert read_witness("0^3 1") == (0, 0, 0, 1)


@pytest.mark.parametrize(
    "name, hint",
    [
        ("randomised_response", "did you mean randomized_response? (wmcdp programs lists them all"),
        ("noisymax", "did you mean noisy_max, noisy_max_value, opendp_noisy_max?"),
        ("nosuch", "wmcdp programs lists them all, or give path/to/file.py:function"),
    ],
)
def test_an_unknown_program_name_suggests_the_closest(name, hint, capsys):
    err = _one_line(capsys, main(["privacy", name]), 2)
    assert err.startswith(f"wmcdp: error: unknown program '{name}'; {hint}")
    assert "adaptive_svt" not in err  # not the whole list
    with pytest.raises(WmcdpError, match=re.escape(hint)):
        build_program(name, {})


def test_neighbors_is_the_american_spelling_of_neighbours(capsys):
    assert main(["privacy", *RR, "-p", "n=2", "--neighbors", "one-entry", "--json"]) == 0
    american = json.loads(capsys.readouterr().out)
    assert main(["privacy", *RR, "-p", "n=2", "--neighbours", "one-entry", "--json"]) == 0
    british = json.loads(capsys.readouterr().out)
    assert american["ratio_exact"] == british["ratio_exact"] and american["neighbours"] == "one-entry"


def test_an_audit_case_name_close_to_a_mechanism_is_suggested(capsys):
    pytest.importorskip("opendp")
    err = _one_line(capsys, main(["audit", "opendp", "--only", "make_laplas"]), 2)
    assert (
        err == "wmcdp: error: no case of the OpenDP audit matches 'make_laplas'; did you mean make_laplace, "
        "make_laplace_threshold?\n"
    )
    err = _one_line(capsys, main(["audit", "opendp", "--only", "nosuch"]), 2)
    assert err.endswith("... (14 in all)\n")


def test_a_long_path_in_an_error_keeps_its_last_two_parts(tmp_path, capsys):
    deep = tmp_path.joinpath(*["a_long_directory_name"] * 6)
    deep.mkdir(parents=True)
    (deep / "mech.py").write_text(
        "from wmcdp import Bits, Program, flip\n\ndef coin():\n"
        "    return Program('coin', Bits(1), lambda x: x[0] ^ flip(5e-324))\n"
    )
    err = _one_line(capsys, main(["privacy", f"{deep / 'mech.py'}:coin"]), 2)
    assert " at .../a_long_directory_name/mech.py:4: flip probability 5e-324 is a subnormal float" in err


def test_one_line_keeps_the_start_and_end_of_what_is_too_long():
    assert one_line("a\n  b", 10) == "a b"
    line = one_line("x" * 150 + " middle " + "y" * 150, 100)
    assert len(line) <= 100 and line.startswith("x" * 50) and line.endswith("y" * 30) and " ... " in line
    assert brief("z" * 61) == "z" * 42 + "..." + "z" * 15 + " (61 characters)" and brief("short") == "short"
    assert listing(["a", "b"]) == "a, b" and listing(["abc"] * 40, 20) == "abc, abc, abc, abc, ... (40 in all)"
    assert suggest("randomised", ["randomized", "other"]) == "did you mean randomized?"
    assert suggest("zzz", ["randomized"]) is None


def test_every_catalogued_message_fits_on_a_line():
    page = html.unescape((ROOT / "docs" / "errors.md").read_text())
    messages = re.findall(r"^\| [^|]*(?:\|[^|`]*)*?\| `([^`]*)`", page, flags=re.M)
    assert len(messages) > 60
    long = [m for m in messages if len("wmcdp: error: " + m.replace("FILE:LINE", ".../dir/mech.py:12")) >= LONGEST]
    assert long == []


@pytest.mark.parametrize(
    "argv, start",
    [
        (["privacy", *RR, "-p", "n" * 300], "wmcdp: error: malformed -p 'nnnn"),
        (["privacy", *RR, "-p", "n=2", "--max-memory", "q" * 300], "wmcdp: error: --max-memory 'qqqq"),
        (["privacy", *RR, "-p", "n=2", "--sets", "q" * 300], "wmcdp: error: sets must be plan, exhaustive"),
        (["privacy", "x" * 300], "wmcdp: error: unknown program 'xxxx"),
    ],
)
def test_a_long_value_of_an_option_is_shortened(argv, start, capsys):
    err = _one_line(capsys, main(argv), 2)
    assert err.startswith(start) and re.search(r"\.\.\.[nqx]+' \(30[02] characters\)", err), err
