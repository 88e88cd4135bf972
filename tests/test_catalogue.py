"""The catalogue of bad input (README, "Errors"): every case through the API and the CLI.

Each case names the exact message. The API raises a WmcdpError (a ValueError) with it;
the CLI prints ``wmcdp: error: <message>`` as its only line on stderr and exits with 2.
The README's table must show every message, so the documentation stays true.
"""

import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from programs import randomized_response, rr_counting
from wmcdp import (Bits, IntVector, Program, WmcdpError, discrete, flip, inference, synthesize_accuracy,
                   synthesize_privacy, uniform)
from wmcdp.cli import main
from wmcdp.registry import build_program

MECH = textwrap.dedent('''
    from wmcdp import Bits, IntVector, Program, discrete, flip, uniform

    def coin(p=0.5):
        return Program("coin", Bits(1), lambda x: x[0] ^ flip(p))

    def dice(w="2/5"):
        return Program("dice", Bits(1), lambda x: discrete(["1/2", w]))

    def dice_float(w=0.4):
        return Program("dice", Bits(1), lambda x: discrete([0.5, w]))

    def backwards(lo=3, hi=1):
        return Program("backwards", Bits(1), lambda x: uniform(lo, hi))

    def empty_domain(lo=2, hi=1):
        return Program("empty", IntVector(2, lo, hi), lambda x: x[0])

    def nothing():
        return Program("nothing", Bits(1), lambda x: None)

    def adjacent():
        return Program("adj", Bits(1), lambda x: x[0] ^ flip(0.5), neighbours="adjacent")

    def float_coin():
        return Program("coin", Bits(1), lambda x: x[0] ^ flip(0.2))

    def uncovered_privacy(**params):
        return [((0,), (1,), 0)], [((0,), 0)]

    def uncovered_accuracy(alpha, **params):
        return [(0, 0)], [((0, 0), 0)]
''')


def _coin(p):
    return Program("coin", Bits(1), lambda x: x[0] ^ flip(p))


# (case, exact message, API call, CLI arguments; "{f}" is the user file)
CASES = [
    ("probability outside [0, 1]", "flip probability must be in [0, 1], got 1.5",
     lambda: inference(_coin(1.5), [((0,), 0)]), ["privacy", "{f}:coin", "-p", "p=1.5"]),
    ("probability NaN", "flip probability is NaN",
     lambda: inference(_coin(float("nan")), [((0,), 0)]), ["privacy", "{f}:coin", "-p", "p=nan"]),
    ("discrete weights not summing to 1 (exact)", "discrete() probabilities sum to 9/10, not 1",
     lambda: inference(Program("dice", Bits(1), lambda x: discrete(["1/2", "2/5"])), [((0,), 0)]),
     ["privacy", "{f}:dice"]),
    ("discrete weights not summing to 1 (float)", "discrete() probabilities sum to 0.9, not 1",
     lambda: inference(Program("dice", Bits(1), lambda x: discrete([0.5, 0.4])), [((0,), 0)]),
     ["privacy", "{f}:dice_float"]),
    ("reversed range", "uniform(3, 1) is an empty range",
     lambda: inference(Program("backwards", Bits(1), lambda x: uniform(3, 1)), [((0,), 0)]),
     ["privacy", "{f}:backwards"]),
    ("empty input domain", "input range 2..1 is empty", lambda: IntVector(2, 2, 1), ["privacy", "{f}:empty_domain"]),
    ("lambda out of range", "lam must be in [0, 1], got 2", lambda: randomized_response(3, 2),
     ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=2"]),
    ("alpha out of range", "alpha must be a finite number >= 0, got -1",
     lambda: synthesize_accuracy(rr_counting(2, 0.2), alpha=-1),
     ["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "-1"]),
    ("scale out of range", "scale must be > 0, got -1",
     lambda: build_program("truncated_geometric", {"m": 3, "scale": -1}),
     ["privacy", "truncated_geometric", "-p", "m=3", "-p", "scale=-1"]),
    ("unknown neighbour relation",
     "unknown neighbour relation 'adjacent'; choose one of hamming, one-entry, all-entries",
     lambda: synthesize_privacy(randomized_response(2, 0.2), neighbours="adjacent"),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--neighbours", "adjacent"]),
    ("program declaring an unknown relation",
     "program adj declares the unknown neighbour relation 'adjacent'; choose one of hamming, one-entry, all-entries",
     lambda: Program("adj", Bits(1), lambda x: x[0], neighbours="adjacent"), ["privacy", "{f}:adjacent"]),
    ("unknown backend", "unknown backend 'zdd'; choose one of bdd, sdd",
     lambda: synthesize_privacy(randomized_response(2, 0.2), backend="zdd"),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--backend", "zdd"]),
    ("privacy set not covered by the inference set",
     "the inference set is missing the pair (x=1, y=0) needed by the privacy triple (0, 1, 0)",
     lambda: synthesize_privacy(_coin(0.5), [((0,), (1,), 0)], [((0,), 0)]),
     ["privacy", "{f}:coin", "--sets", "{f}:uncovered_privacy"]),
    ("accuracy set not covered by the inference set",
     "the inference set is missing the pair (x=00, y=1) needed for the accuracy of x=00 (|y - V_x| <= 1)",
     lambda: synthesize_accuracy(rr_counting(2, 0.2), [(0, 0)], None, 1, [((0, 0), 0)]),
     ["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "1", "--sets", "{f}:uncovered_accuracy"]),
    ("input outside the declared domain", "input (0, 2) is outside the domain {0,1}^2",
     lambda: inference(randomized_response(2, 0.2), [((0, 2), (0, 0))]),
     ["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "0,2"]),
    ("program returning a non-symbolic value",
     "the program returned NoneType None, not a symbolic value (Bool, Int, or a tuple of them)",
     lambda: inference(Program("nothing", Bits(1), lambda x: None), [((0,), 0)]), ["privacy", "{f}:nothing"]),
    ("exact arithmetic with float parameters",
     "exact arithmetic needs rational parameters, but a random choice has the float probability 0.2; "
     "give parameters as fractions such as '1/5'",
     lambda: synthesize_privacy(_coin(0.2), exact=True), ["privacy", "{f}:float_coin", "--exact"]),
    ("exhaustive sets over the size limit",
     "the exhaustive sets are too large (|I| = 268435456 pairs and |C| = 3758096384 triples; limits 16777216 "
     "pairs, 268435456 triples): use symmetry sets, or force the run (--force)",
     lambda: synthesize_privacy(randomized_response(14, 0.2)),
     ["privacy", "randomized_response", "-p", "n=14", "-p", "lam=0.2"]),
    ("unknown parameter", "program randomized_response has no parameter 'k'; its parameters are n, lam",
     lambda: build_program("randomized_response", {"n": 2, "lam": 0.2, "k": 1}),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "-p", "k=1"]),
    ("missing parameter", "program randomized_response needs lam (give -p lam=...)",
     lambda: build_program("randomized_response", {"n": 2}), ["privacy", "randomized_response", "-p", "n=2"]),
    ("unknown program", "unknown program 'nosuch'; known programs: ",
     lambda: build_program("nosuch", {}), ["privacy", "nosuch"]),
    ("user file that fails to import", "could not import ",
     lambda: build_program("{f}:g", {}), ["privacy", "{f}:g"]),
    ("malformed -p (CLI only)", "malformed -p 'n': expected key=value, e.g. -p lam=0.2", None,
     ["privacy", "randomized_response", "-p", "n"]),
    ("parameter that is not a number (CLI only)", "'x' is not a number", None,
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=x"]),
]
PREFIX_ONLY = {"unknown program", "user file that fails to import"}  # the rest of the message varies


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "mech.py"
    good.write_text(MECH)
    broken = tmp_path / "broken.py"
    broken.write_text("import not_a_module_anywhere\n")
    return good, broken


def _fill(arg, files, case):
    good, broken = files
    return arg.replace("{f}", str(broken if case == "user file that fails to import" else good))


@pytest.mark.parametrize("case, message, api, argv", CASES, ids=[c[0] for c in CASES])
def test_cli(case, message, api, argv, files, capsys):
    code = main([_fill(a, files, case) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("wmcdp: error: ")
    text = err[len("wmcdp: error: "):-1]
    assert text.startswith(message) if case in PREFIX_ONLY else text == message


@pytest.mark.parametrize("case, message, api, argv", [c for c in CASES if c[2] is not None],
                         ids=[c[0] for c in CASES if c[2] is not None])
def test_api(case, message, api, argv, files):
    call = api
    if case == "user file that fails to import":
        call = lambda: build_program(_fill("{f}:g", files, case), {})  # noqa: E731
    with pytest.raises(WmcdpError) as info:
        call()
    assert isinstance(info.value, ValueError)
    text = str(info.value)
    assert text.startswith(message) if case in PREFIX_ONLY else text == message


def test_readme_lists_every_message():
    readme = (Path(__file__).parent.parent / "README.md").read_text().replace("\\|", "|")  # table escapes
    missing = [message for _, message, _, _ in CASES if message not in readme]
    assert not missing


def test_limits_exit_3(capsys):
    assert main(["accuracy", "rr_counting", "-p", "n=40", "-p", "lam=0.2", "--alpha", "3", "--sets", "symmetry",
                 "--max-nodes", "500"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("wmcdp: stopped: the decision diagram reached ")
    assert main(["privacy", "randomized_response", "-p", "n=12", "-p", "lam=0.2", "--timeout", "0.05"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and "timed out after 0.05 s" in err and "no bound was computed" in err


def test_same_command_same_result(capsys):
    """Determinism: repeated runs give the same bound and witness (ties: first in set order)."""
    outs = []
    for backend in ("bdd", "bdd", "sdd"):
        main(["privacy", "rr_counting", "-p", "n=4", "-p", "lam=1/4", "--json", "--backend", backend])
        data = __import__("json").loads(capsys.readouterr().out)
        outs.append((data["ratio_exact"], data["witness"]))
    assert outs[0] == outs[1] == outs[2]
    assert Fraction(outs[0][0]) == 3
