"""Witnesses at scale: long witnesses print in the runs form (``0^99999 1``), which reads back to the same value;
short ones print as before; JSON keeps every entry."""

import json
import random

import pytest

from wmcdp.cli import main
from wmcdp.lang.shape import format_value, read_witness, witness_text


def _runny(rng: random.Random, n: int, values: list) -> tuple:
    """n entries from ``values`` in runs of random lengths (some long, some of one entry)."""
    out: list = []
    while len(out) < n:
        out += [rng.choice(values)] * rng.choice([1, 1, 2, 3, 4, 5, 9, 40, 300])
    return tuple(out[:n])


def _values(rng: random.Random):
    for _ in range(300):
        n = rng.randint(1, 400)
        kind = rng.randrange(4)
        if kind == 0:  # a bit vector
            yield _runny(rng, n, [0, 1])
        elif kind == 1:  # an int vector
            yield _runny(rng, n, [-3, 0, 2, 17])
        elif kind == 2:  # a tuple of bit vectors and ints
            yield tuple(_runny(rng, rng.randint(1, 200), [0, 1]) if rng.random() < 0.5 else rng.randint(-2, 9)
                        for _ in range(rng.randint(1, 6)))
        else:  # nested tuples with repeated parts
            part = (_runny(rng, rng.randint(2, 30), [0, 1]), rng.randint(0, 5))
            yield (part,) * rng.randint(1, 30) + (rng.randint(0, 3),)


def test_the_runs_form_reads_back_to_the_same_value():
    rng = random.Random(31)
    compact = 0
    for value in _values(rng):
        text = witness_text(value)
        if text == format_value(value):  # short, or the runs would not shorten it
            continue
        compact += 1
        assert len(text) < len(format_value(value))
        assert read_witness(text) == value, (value, text)
    assert compact > 100  # the runs form was exercised on every kind


@pytest.mark.parametrize("value,text", [
    ((0,) * 99999 + (1,), "0^99999 1"),
    ((1,) * 3 + (0,) * 5 + (1,) * 80, "111 0^5 1^80"),
    ((3,) * 500 + (2,), "(3^500, 2)"),
    (((0,) * 100 + (1,), 4), "([0^100 1], 4)"),
    (((1, 0),) * 50, "([10]^50)"),
])
def test_the_runs_form(value, text):
    assert witness_text(value) == text and read_witness(text) == value


@pytest.mark.parametrize("value", [(0, 1, 1, 0), (0,) * 80, (2, 0, 1), ((0, 1), 3), 7, (1,) * 40 + (0,) * 40])
def test_short_witnesses_print_as_before(value):
    assert witness_text(value) == format_value(value)


def test_a_witness_of_20000_bits_prints_in_short_lines(capsys):
    """20000 bits are 40000 characters written out, far past the runs form's threshold (the same code path as
    100000 bits, whose run spends 10 s or more planning, not printing)."""
    assert main(["privacy", "randomized_response", "-p", "n=20000", "-p", "lam=0.2"]) == 0
    lines = {line.split("  ")[1].strip(): line for line in capsys.readouterr().out.splitlines() if "witness" in line}
    assert lines.keys() == {"witness x", "witness x'", "witness y"}
    assert all(len(line) < 100 for line in lines.values())
    x, x_prime, y = (read_witness(lines[k].split(k, 1)[1].strip()) for k in ("witness x", "witness x'", "witness y"))
    assert len(x) == len(x_prime) == len(y) == 20000
    assert sum(a != b for a, b in zip(x, x_prime)) == 1  # hamming neighbours


def test_json_keeps_every_entry_and_input_takes_the_printed_form(capsys):
    argv = ["privacy", "randomized_response", "-p", "n=500", "-p", "lam=1/4"]
    assert main(argv) == 0
    printed = {line.split("  ")[1].strip(): line.rsplit("  ", 1)[1] for line in capsys.readouterr().out.splitlines()
               if "witness" in line}
    assert main([*argv, "--json"]) == 0
    witness = json.loads(capsys.readouterr().out)["witness"]
    assert [len(witness[k]) for k in ("x", "x_prime", "y")] == [500] * 3
    assert read_witness(printed["witness x'"]) == tuple(witness["x_prime"])
    # the printed witness is an input the command line reads back
    plain = "".join(map(str, witness["x_prime"]))
    assert main(["sample", *argv[1:], "--input", printed["witness x'"], "-k", "50"]) == 0
    from_runs = capsys.readouterr().out
    assert main(["sample", *argv[1:], "--input", plain, "-k", "50"]) == 0
    assert capsys.readouterr().out == from_runs and "^" in printed["witness x'"]


def test_an_input_outside_the_domain_is_named_in_the_runs_form(capsys):
    argv = ["sample", "randomized_response", "-p", "n=200", "-p", "lam=0.2", "--input", "(0^199, 7)"]
    assert main(argv) == 2
    assert capsys.readouterr().err == "wmcdp: error: input (0^199, 7) is outside the domain {0,1}^200\n"


@pytest.mark.parametrize("argv,shown", [
    (["approx", "randomized_response", "-p", "n=200", "-p", "lam=1/4", "--epsilon", "ln:2"], "1 0^199"),
    (["renyi", "randomized_response", "-p", "n=200", "-p", "lam=1/4", "--orders", "2,inf"], "1 0^199"),
    (["accuracy", "rr_counting", "-p", "n=100", "-p", "lam=1/4", "--alpha", "3", "--top", "2"], "1^100"),
])
def test_every_printer_writes_long_witnesses_in_runs(argv, shown, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert shown in out and "0" * 81 not in out and "1" * 81 not in out


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_sweep_tables_write_long_witnesses_in_runs_and_json_keeps_them(fmt, capsys):
    # randomized_response's worst triple at any lam < 1/2: x = 0^n, x' = 1 0^(n-1), y = 0^n
    argv = ["sweep", "privacy", "randomized_response", "-p", "n=120", "--over", "lam=1/10,1/5", "--exact"]
    assert main(argv + ["--format", fmt]) == 0
    out = capsys.readouterr().out.replace(r"\textasciicircum{}", "^")  # LaTeX writes ^ as a text symbol
    assert "0^120" in out and "0^119" in out and "0" * 81 not in out
    assert main(argv + ["--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["witness"] for r in rows] == [{"x": [0] * 120, "x_prime": [1] + [0] * 119, "y": [0] * 120}] * 2
