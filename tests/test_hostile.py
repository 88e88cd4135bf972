"""Hostile use of the command line: every invocation ends in a result or in one line, never a traceback.

Each case is run through ``wmcdp.cli.main``; the exit status must be the documented one and
stderr must be at most one line (``wmcdp: error: ...`` for status 2, ``wmcdp: stopped: ...``
for 3). A few cases need a real process (a full disk, a program that never returns).
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wmcdp.cli import main

RR = ["randomized_response", "-p", "n=2", "-p", "lam=0.2"]

USER = textwrap.dedent("""
    from wmcdp import Bits, IntVector, Program, flip, uniform, ite
    import numpy as np
    import helper_next_to_me

    def forever():
        def body(x):
            while True:
                pass
        return Program("forever", Bits(1), body)

    def huge():
        return Program("huge", Bits(1), lambda x: uniform(0, 2000000) + x[0])

    def numpy_scalars(p=0.25):
        return Program("np", IntVector(1, 0, 3),
                       lambda x: (x[0] + np.int64(1)).clamp(np.int64(0), 3) + flip(np.float32(p)))

    def bool_times_int():
        return Program("bti", Bits(2), lambda x: 2 * x[1] + (x[0] ^ flip(0.25)))

    def sibling():
        return helper_next_to_me.make()

    def categorical(labels="a,b,c", p="1/2"):
        k = len(labels.split(","))
        return Program("cat", IntVector(1, 0, k - 1), lambda x: ite(flip(p), x[0], uniform(0, k - 1)))

    def exploding(n=14):
        # the parity of x_i & x_{i+n}: the first half is read first, so the diagram is exponential
        def body(x):
            first = [x[i] for i in range(n)]
            out = flip(0.5)
            for i in range(n):
                out = out ^ (first[i] & x[i + n])
            return out
        return Program("exploding", Bits(2 * n), body)
""")

HELPER = textwrap.dedent("""
    from wmcdp import Bits, Program, flip
    def make():
        return Program("sibling", Bits(1), lambda x: x[0] ^ flip(0.25))
""")


@pytest.fixture
def user(tmp_path):
    (tmp_path / "helper_next_to_me.py").write_text(HELPER)
    path = tmp_path / "mech.py"
    path.write_text(USER)
    return str(path)


BAD = [  # (arguments, exit status); "{u}" is the user file
    (["privacy"], 2), (["privacy", ""], 2), (["privacy", ":"], 2), (["privacy", "x.py:"], 2),
    (["privacy", *RR, "-p", "n=2.5"], 2), (["privacy", *RR[:3], "-p", "lam=1e-400"], 2),
    (["privacy", *RR[:3], "-p", "lam=0.99999999999999999999"], 2), (["privacy", *RR[:3], "-p", "lam=1.0000000000000001"], 2),
    (["privacy", *RR[:3], "-p", "lam=1/0"], 2), (["privacy", *RR[:3], "-p", "lam=-0"], 0),
    (["privacy", *RR[:3], "-p", "lam=inf"], 2), (["privacy", *RR[:3], "-p", "lam=1e400"], 2),
    (["privacy", "randomized_response", "-p", "n=1" + "0" * 5000, "-p", "lam=0.2"], 2),
    (["privacy", "randomized_response", "-p", "n=8000", "-p", "lam=0.2", "--sets", "exhaustive"], 2),
    (["privacy", "truncated_geometric", "-p", "m=3", "-p", "scale=1" + "0" * 400], 2),
    (["privacy", "truncated_geometric", "-p", "m=3", "-p", "alpha=1"], 2),
    (["privacy", *RR, "--sets", "nosuch"], 2), (["privacy", *RR, "--sets", "{u}:nosuch"], 2),
    (["privacy", *RR, "--neighbours", "{u}:nosuch"], 2), (["privacy", *RR, "--backend", ""], 2),
    (["privacy", *RR, "--max-nodes", "0"], 2), (["privacy", *RR, "--timeout", "-1"], 2),
    (["privacy", *RR, "--timeout", "nan"], 2), (["privacy", *RR, "--max-memory", "1K"], 2),
    (["privacy", *RR, "--exact", "--exact-floats"], 2),
    (["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "nan"], 2),
    (["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "inf"], 2),
    (["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "1", "--top", "-1"], 2),
    (["sample", *RR, "--input", "012"], 2), (["sample", *RR, "--input", "0"], 2),
    (["sample", *RR, "--input", "01", "-k", "0"], 2), (["sample", *RR, "--input", "01", "--show", "0"], 2),
    (["crosscheck", *RR, "-k", "0"], 2), (["crosscheck", *RR, "--confidence", "1"], 2),
    (["crosscheck", *RR, "--confidence", "nan"], 2),
    (["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0:1:nan"], 2),
    (["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0:1:5e-324"], 2),
    (["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1:0.2:-0.1"], 2),
    (["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam="], 2),
    (["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1", "--format", "csv", "--json"], 2),
    (["sweep", "accuracy", "rr_counting", "-p", "n=2", "--over", "lam=0.1"], 2),
    (["size", *RR, "--input", "2"], 2), (["size", *RR, "--dot", "/nonexistent/dir/x.dot"], 2),
    (["privacy", "{u}:numpy_scalars"], 0), (["privacy", "{u}:bool_times_int"], 0), (["privacy", "{u}:sibling"], 0),
    (["privacy", "{u}:categorical", "-p", "labels=x,y,z,w"], 0),
]


@pytest.mark.parametrize("argv, status", BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_one_line_and_the_documented_status(argv, status, user, capsys):
    code = main([a.replace("{u}", user) for a in argv])
    out, err = capsys.readouterr()
    assert code == status, err
    assert "Traceback" not in err and err.count("\n") <= 1
    if status == 2:
        assert err.startswith("wmcdp: error: ")


def test_sweep_json_flag(capsys):
    assert main(["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=1/4,1/2", "--json"]) == 0
    rows = __import__("json").loads(capsys.readouterr().out)["rows"]
    assert [r["ratio_exact"] for r in rows] == ["3", "1"]


def test_string_parameters_reach_the_factory(user, capsys):
    assert main(["privacy", f"{user}:categorical", "-p", "labels=x,y,z,w", "-p", "p=1/2", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    # truth with probability 1/2 + 1/8, each other value 1/8: ratio 5
    assert out["ratio_exact"] == "5"


def _run(args, timeout=60, **kwargs):
    return subprocess.run([sys.executable, "-m", "wmcdp", *args], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def test_a_program_body_that_never_returns_stops_at_the_timeout(user):
    r = _run(["privacy", f"{user}:forever", "--timeout", "1"])
    assert r.returncode == 3 and "timed out after 1 s" in r.stderr and "Traceback" not in r.stderr


def test_a_huge_uniform_stops_at_the_timeout(user):
    r = _run(["privacy", f"{user}:huge", "--timeout", "2"], timeout=120)
    assert r.returncode == 3 and r.stderr.startswith("wmcdp: stopped: ") and "Traceback" not in r.stderr


def test_cudd_out_of_memory_is_a_limit(user):
    r = _run(["size", f"{user}:exploding", "-p", "n=22", "--backend", "bdd", "--max-memory", "64M"], timeout=300)
    assert r.returncode == 3 and r.stderr.startswith("wmcdp: stopped: ") and "memory" in r.stderr


def test_a_full_disk_is_one_line():
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "wmcdp", "programs"], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("wmcdp: error: cannot write the result")
    assert "Traceback" not in r.stderr


def test_interrupt_while_starting_is_one_line(monkeypatch, capsys):
    import wmcdp.cli as cli

    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "_parser", interrupted)
    assert cli.main(["programs"]) == 130
    assert capsys.readouterr().err == "wmcdp: interrupted\n"


def test_importing_wmcdp_loads_nothing_heavy():
    code = "import sys, wmcdp, wmcdp.cli; print(sorted(m for m in ('numpy', 'dd', 'gmpy2') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=Path(__file__).parent.parent)
    assert r.stdout.strip() == "[]"
