"""The wmcdp command: tables, JSON, exact output, and one-line errors with exit status 2."""

import json
import math
import subprocess
import sys
import textwrap

import pytest

from wmcdp.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_privacy_json_exact(capsys):
    code, out, err = run(capsys, "privacy", "randomized_response", "-p", "n=4", "-p", "lam=0.2", "--exact", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["ratio_exact"] == "4" and data["ratio"] == 4.0
    assert data["epsilon"] == pytest.approx(math.log(4), abs=1e-15)
    assert data["witness"] == {"x": [0, 0, 0, 0], "x_prime": [1, 0, 0, 0], "y": [0, 0, 0, 0]}
    assert data["p_y_given_x_exact"] == "256/625"  # (4/5)^4
    assert isinstance(data["diagram_size"], int) and data["seconds"] >= 0


def test_rational_parameter_is_exact_without_flag(capsys):
    code, out, _ = run(capsys, "privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/3", "--json")
    assert json.loads(out)["ratio_exact"] == "2"


def test_privacy_symmetry_sets_match_exhaustive(capsys):
    outs = []
    for sets in ("exhaustive", "symmetry"):
        code, out, _ = run(capsys, "privacy", "randomized_response", "-p", "n=5", "-p", "lam=0.3",
                           "--sets", sets, "--json", "--backend", "sdd")
        outs.append(json.loads(out))
    assert outs[0]["epsilon"] == pytest.approx(outs[1]["epsilon"], abs=1e-12) == pytest.approx(math.log(7 / 3))


def test_infinite_epsilon_json(capsys):
    code, out, _ = run(capsys, "privacy", "randomized_response", "-p", "n=2", "-p", "lam=0", "--json")
    data = json.loads(out)
    assert code == 0 and data["epsilon"] == "inf" and data["ratio"] == "inf" and data["ratio_exact"] == "inf"


def test_accuracy_json_top(capsys):
    code, out, _ = run(capsys, "accuracy", "rr_counting", "-p", "n=8", "-p", "lam=0.2", "--alpha", "3",
                       "--top", "4", "--exact", "--json")
    data = json.loads(out)
    assert data["one_minus_beta_exact"] == "73728/78125" and data["beta_exact"] == "4397/78125"
    assert data["one_minus_beta"] == pytest.approx(0.9437184)
    assert data["witness"] == {"x": [0] * 8}
    assert [t["one_minus_beta"] for t in data["top"]] == pytest.approx([0.9437184, 0.9437184, 0.9723904, 0.9723904])
    assert set(data) >= {"one_minus_beta", "beta", "witness", "top", "diagram_size", "seconds"}


def test_human_tables(capsys):
    code, out, _ = run(capsys, "privacy", "randomized_response", "-p", "n=2", "-p", "lam=1/5")
    assert code == 0 and "ratio e^eps" in out and "4  (= 4)" in out and "witness x'" in out
    code, out, _ = run(capsys, "accuracy", "rr_counting", "-p", "n=4", "-p", "lam=0.2", "--alpha", "1", "--top", "2",
                       "--sets", "symmetry")
    assert code == 0 and "1 - beta" in out and "the 2 inputs with the lowest 1 - beta" in out
    code, out, _ = run(capsys, "programs")
    assert "randomized_response(n, lam)" in out and "rr_counting(n, lam)" in out
    code, out, _ = run(capsys, "size", "randomized_response", "-p", "n=20", "-p", "lam=0.2")
    assert code == 0 and "BDD" in out and "SDD" in out
    code, out, _ = run(capsys, "size", "randomized_response", "-p", "n=5", "-p", "lam=0.2", "--json")
    assert json.loads(out)["bdd_per_input"] == {"min": 6, "max": 6}  # n coins + CUDD's terminal


def test_user_program_file(capsys, tmp_path):
    f = tmp_path / "mech.py"
    f.write_text(textwrap.dedent("""
        from wmcdp import Bits, Program, flip

        def coin(p=0.25):
            return Program("coin", Bits(1), lambda x: x[0] ^ flip(p))
    """))
    code, out, _ = run(capsys, "privacy", f"{f}:coin", "-p", "p=1/4", "--json")
    assert code == 0 and json.loads(out)["ratio_exact"] == "3"


@pytest.mark.parametrize("argv, message", [
    (["privacy", "nosuch"], "unknown program 'nosuch'"),
    (["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1.5"], r"lam must be in [0, 1], got 1.5"),
    (["privacy", "randomized_response", "-p", "n"], "malformed -p 'n'"),
    (["privacy", "randomized_response", "-p", "n=3", "-p", "lam=0.2", "-p", "k=1"], "has no parameter 'k'"),
    (["privacy", "randomized_response", "-p", "n=3"], "needs lam"),
    (["privacy", "randomized_response", "-p", "n=3", "-p", "lam=0.2", "--exact", "-p", "lam=x"], "lam must be a number, got 'x'"),
    (["accuracy", "randomized_response", "-p", "n=3", "-p", "lam=0.2", "--alpha", "1"], "numeric output"),
    (["accuracy", "rr_counting", "-p", "n=3", "-p", "lam=0.2", "--alpha", "-1"], "alpha must be"),
    (["privacy", "rr_counting", "-p", "n=3", "-p", "lam=0.2", "--sets", "symmetry"], "no symmetry sets"),
    (["privacy", "/nonexistent/file.py:f"], "no such program file"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("wmcdp: error: ") and message in err


def test_user_file_that_fails_to_import(capsys, tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("import not_a_module_anywhere\n")
    code, _, err = run(capsys, "privacy", f"{f}:g")
    assert code == 2 and "could not import" in err and "ModuleNotFoundError" in err


def test_installed_command_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "wmcdp", "privacy", "randomized_response", "-p", "n=2",
                           "-p", "lam=7"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "wmcdp: error: lam must be in [0, 1], got 7"


def test_output_piped_into_a_closed_reader():
    # about 107 kB of output, more than a pipe holds (64 KiB), so the writer meets the closed pipe
    command = (f"{sys.executable} -m wmcdp sample randomized_response -p n=12 -p lam=0.5 --input 000000000000 "
               "-k 3000 --show 2500 | head -c 5")
    proc = subprocess.run(command, shell=True, capture_output=True, text=True)
    assert proc.stdout == "rando" and proc.stderr == ""


def test_inputs_without_commas_when_every_entry_is_one_digit(capsys):
    """``--at 111`` on {0..2}^3 is the input (1, 1, 1), as ``--at 1,1,1`` is."""
    import json

    args = ["privacy", "geometric_above_threshold", "-p", "n=3", "-p", "k=2", "-p", "t=1", "-p", "alpha=1/2", "--json"]
    assert main(args + ["--at", "111"]) == 0
    digits = json.loads(capsys.readouterr().out)
    assert main(args + ["--at", "1,1,1"]) == 0
    commas = json.loads(capsys.readouterr().out)
    assert digits["ratio_exact"] == commas["ratio_exact"] and digits["witness"] == commas["witness"]
    assert 1 in (digits["witness"]["x"] + digits["witness"]["x_prime"])
