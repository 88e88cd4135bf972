"""The catalogue of bad input (docs/errors.md): every case through the API and the CLI.

Each case names the exact message. The API raises a WmcdpError (a ValueError) with it;
the CLI prints ``wmcdp: error: <message>`` as its only line on stderr and exits with 2.
The table in docs/errors.md must show every message, so the documentation stays true.
"""

import html
import re
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from wmcdp.programs import kary_rr, opendp_noisy_max, opendp_rr_bitvec, randomized_response, rr_counting
from wmcdp import (Bits, IntVector, Program, WmcdpError, discrete, flip, inference, synthesize_accuracy,
                   synthesize_privacy, uniform)
from wmcdp.audit.opendp import cases as audit_cases
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.cli import main
from wmcdp.notions.renyi import synthesize_renyi
from wmcdp.lang.registry import build_program

MECH = textwrap.dedent("""
    from fractions import Fraction
    from wmcdp import Bits, IntVector, Program, discrete, flip, ite, uniform

    def coin(p=0.5):
        return Program("coin", Bits(1), lambda x: x[0] ^ flip(p))

    def andcoin(p=0.5):
        return Program("andcoin", Bits(1), lambda x: x[0] & flip(p))

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

    def branchy():
        return Program("branchy", Bits(1), lambda x: flip(0.5) if x[0] else flip(0.25))

    def modulo():
        return Program("modulo", IntVector(1, 0, 3), lambda x: x[0] % 2)

    def half():
        return Program("half", IntVector(1, 0, 3), lambda x: x[0] < 1.5)

    def crash():
        return Program("crash", Bits(1), lambda x: 1 / 0)

    def half_bits(n=2.5):
        return Program("half_bits", Bits(n), lambda x: x[0])

    def nan_target():
        return Program("nan", Bits(2), lambda x: (x[0] ^ flip(0.2)) + (x[1] ^ flip(0.2)), target=lambda x: float("nan"))

    def uncovered_privacy(**params):
        return [((0,), (1,), 0)], [((0,), 0)]

    def uncovered_accuracy(alpha, **params):
        return [(0, 0)], [((0, 0), 0)]

    def fractional_input(**params):
        return [((0.9, 0), (1, 0), 0)], [((0.9, 0), 0), ((1, 0), 0)]

    def float_output(**params):
        return [((0, 0), (1, 0), 0.0)], [((0, 0), 0.0), ((1, 0), 0.0)]

    def no_sets(alpha, **params):
        return None, None

    def one_way(x):
        return [(1,)] if x == (0,) else []
""")


def _coin(p):
    return Program("coin", Bits(1), lambda x: x[0] ^ flip(p))


def one_way(x):
    return [(1,)] if x == (0,) else []


AT = "{at}"  # " at FILE:LINE" of the program body's line in the message
# (case, exact message, API call, CLI arguments; "{f}" is the user file)
CASES = [
    ("probability outside [0, 1]", "program coin failed{at}: flip probability must be in [0, 1], got 1.5",
     lambda: inference(_coin(1.5), [((0,), 0)]), ["privacy", "{f}:coin", "-p", "p=1.5"]),
    ("probability NaN", "program coin failed{at}: flip probability is NaN",
     lambda: inference(_coin(float("nan")), [((0,), 0)]), ["privacy", "{f}:coin", "-p", "p=nan"]),
    ("discrete weights not summing to 1 (exact)", "program dice failed{at}: discrete() probabilities sum to 9/10, not 1",
     lambda: inference(Program("dice", Bits(1), lambda x: discrete(["1/2", "2/5"])), [((0,), 0)]),
     ["privacy", "{f}:dice"]),
    ("discrete weights not summing to 1 (float)", "program dice failed{at}: discrete() probabilities sum to 0.9, not 1",
     lambda: inference(Program("dice", Bits(1), lambda x: discrete([0.5, 0.4])), [((0,), 0)]),
     ["privacy", "{f}:dice_float"]),
    ("reversed range", "program backwards failed{at}: uniform(3, 1) is an empty range",
     lambda: inference(Program("backwards", Bits(1), lambda x: uniform(3, 1)), [((0,), 0)]),
     ["privacy", "{f}:backwards"]),
    ("a Python condition on a symbolic value",
     "program branchy failed{at}: TypeError: a symbolic Bool has no Python truth value; "
     "use ite(cond, a, b) instead of if/and/or",
     lambda: inference(Program("branchy", Bits(1), lambda x: flip(0.5) if x[0] else flip(0.25)), [((0,), 0)]),
     ["privacy", "{f}:branchy"]),
    ("an operator the DSL does not have",
     "program modulo failed{at}: the DSL has no % on Int values; Int supports + - * abs, < <= > >= == !=, clamp and ite",
     lambda: inference(Program("modulo", IntVector(1, 0, 3), lambda x: x[0] % 2), [((0,), 0)]),
     ["privacy", "{f}:modulo"]),
    ("an Int compared with a float",
     "program half failed{at}: Int arithmetic and comparisons take whole numbers, got the float 1.5",
     lambda: inference(Program("half", IntVector(1, 0, 3), lambda x: x[0] < 1.5), [((0,), 0)]),
     ["privacy", "{f}:half"]),
    ("any other error in a program body", "program crash failed{at}: ZeroDivisionError: division by zero",
     lambda: inference(Program("crash", Bits(1), lambda x: 1 / 0), [((0,), 0)]), ["privacy", "{f}:crash"]),
    ("input domain of a fractional size", "the number of input entries must be a whole number, got 2.5",
     lambda: Bits(2.5), ["privacy", "{f}:half_bits"]),
    ("empty input domain", "input range 2..1 is empty", lambda: IntVector(2, 2, 1), ["privacy", "{f}:empty_domain"]),
    ("lambda out of range", "lam must be in [0, 1], got 2", lambda: randomized_response(3, 2),
     ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=2"]),
    ("parameter that binary64 rounds to 0 or 1",
     "lam: 0.99999999999999999999 rounds to 1.0 as a binary64 float; give it as a fraction such as "
     "'99999999999999999999/100000000000000000000', or use exact arithmetic (--exact)",
     lambda: randomized_response(3, "0.99999999999999999999"),
     ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=0.99999999999999999999"]),
    ("alpha out of range", "alpha must be a finite number >= 0, got -1",
     lambda: synthesize_accuracy(rr_counting(2, 0.2), alpha=-1),
     ["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "-1"]),
    ("scale out of range", "scale must be > 0, got -1",
     lambda: build_program("truncated_geometric", {"m": 3, "scale": -1}),
     ["privacy", "truncated_geometric", "-p", "m=3", "-p", "scale=-1"]),
    ("a target V that is NaN", "the target V_x of x=00 is NaN",
     lambda: synthesize_accuracy(rr_counting(2, 0.2), alpha=1, V=lambda x: float("nan")),
     ["accuracy", "{f}:nan_target", "--alpha", "1"]),
    ("unknown neighbour relation",
     "unknown neighbour relation 'adjacent'; choose one of hamming, one-entry, all-entries, monotone, "
     "add-remove, or give a function (FILE.py:FUNC)",
     lambda: synthesize_privacy(randomized_response(2, 0.2), neighbours="adjacent"),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--neighbours", "adjacent"]),
    ("a relation name close to known ones",
     "unknown neighbour relation 'haming'; did you mean hamming? choose one of hamming, one-entry, all-entries, "
     "monotone, add-remove, or give a function (FILE.py:FUNC)",
     lambda: synthesize_privacy(randomized_response(2, 0.2), neighbours="haming"),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--neighbors", "haming"]),
    ("program declaring an unknown relation",
     "program adj declares the unknown neighbour relation 'adjacent'; choose one of hamming, one-entry, all-entries, "
     "monotone, add-remove",
     lambda: Program("adj", Bits(1), lambda x: x[0], neighbours="adjacent"), ["privacy", "{f}:adjacent"]),
    ("a neighbour relation that is not symmetric",
     "the neighbour relation one_way is not symmetric: 1 is a neighbour of 0, but not the other way round",
     lambda: synthesize_privacy(_coin(0.25), neighbours=one_way),
     ["privacy", "{f}:coin", "--neighbours", "{f}:one_way"]),
    ("automatic sets with a user relation",
     "automatic symmetry sets need a built-in neighbour relation (hamming, one-entry, all-entries), "
     "not the user relation one_way",
     lambda: synthesize_privacy(_coin(0.25), "auto", neighbours=one_way),
     ["privacy", "{f}:coin", "--sets", "auto", "--neighbours", "{f}:one_way"]),
    ("automatic sets with the monotone relation",
     "automatic symmetry sets need a neighbour relation that is a condition on each entry (hamming, one-entry, "
     "all-entries), not monotone",
     lambda: synthesize_privacy(_coin(0.25), "auto", neighbours="monotone"),
     ["privacy", "{f}:coin", "--sets", "auto", "--neighbours", "monotone"]),
    ("automatic sets over the size limit",
     "the automatic symmetry sets are too large (|C| = 370855680 triples; limit 268435456): force the run (--force)",
     lambda: synthesize_privacy(kary_rr(12, 4, ratio=3), "auto"),
     ["privacy", "kary_rr", "-p", "n=12", "-p", "k=4", "-p", "ratio=3", "--sets", "auto"]),
    ("approx without epsilon or delta",
     "give exactly one of epsilon (for delta(epsilon)) and delta (for epsilon(delta))",
     lambda: synthesize_approximate(randomized_response(2, "1/5")),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5"]),
    ("delta out of range", "delta must be in [0, 1], got 2",
     lambda: synthesize_approximate(randomized_response(2, "1/5"), delta=2),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "2"]),
    ("epsilon as the log of a ratio below 1", "epsilon 'ln:1/2' is negative; it must be a number >= 0",
     lambda: synthesize_approximate(randomized_response(2, "1/5"), epsilon="ln:1/2"),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--epsilon", "ln:1/2"]),
    ("a certified delta at epsilon = inf",
     "a certified run needs a finite epsilon (its enclosure widens with e^epsilon)",
     lambda: synthesize_approximate(randomized_response(2, __import__("wmcdp").Real("1/(1+exp(1/2))")),
                                    epsilon=float("inf"), certified=True),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/(1+exp(1/2))", "--epsilon", "inf", "--certified"]),
    ("compose below 1", "compose must be a whole number >= 1, got 0",
     lambda: synthesize_approximate(randomized_response(2, "1/5"), delta=0.1, compose=0),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "0.1", "--compose", "0"]),
    ("unknown accountant", "unknown accountant 'foo'; choose one of exact, dp-accounting",
     lambda: synthesize_approximate(randomized_response(2, "1/5"), delta=0.1, compose=2, accountant="foo"),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "0.1", "--compose", "2",
      "--accountant", "foo"]),
    ("exact composition past its size limit",
     "composing gives more than 1048576 distinct losses after equal ones merge (or a step more than 4194304 "
     "products); compose fewer runs, or use --accountant dp-accounting",
     lambda: synthesize_approximate(randomized_response(2, 0.2), delta=0.1, compose=2000000),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--delta", "0.1", "--compose", "2000000"]),
    ("Rényi order past the float range",
     "Rényi orders must be at most 1e+12 (or inf: D_inf, their limit, is the pure epsilon), got 1e+308",
     lambda: synthesize_renyi(randomized_response(2, "1/5"), [1e308]),
     ["renyi", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--orders", "1e308"]),
    ("subnormal float probability",
     "program coin failed{at}: flip probability 5e-324 is a subnormal float (below 2^-1022): give a fraction, or "
     "use --exact or --exact-floats",
     lambda: inference(_coin(5e-324), [((0,), 0)]), ["privacy", "{f}:coin", "-p", "p=5e-324"]),
    ("dp-accounting and a loss at +infinity",
     "dp-accounting 0.6.0 cannot compose a privacy loss with mass at +infinity (the pair x=1, x'=0 has outputs that "
     "x' never produces); use the exact accountant (--accountant exact)",
     lambda: synthesize_approximate(Program("andcoin", Bits(1), lambda x: x[0] & flip(0.5)), delta=0.1, compose=2,
                                    accountant="dp-accounting"),
     ["approx", "{f}:andcoin", "-p", "p=0.5", "--delta", "0.1", "--compose", "2", "--accountant", "dp-accounting"]),
    ("dp-accounting interval too wide",
     "the discretisation interval 5 is not below the largest privacy loss (1.38629); give a smaller --interval",
     lambda: synthesize_approximate(randomized_response(2, 0.2), delta=0.1, compose=2, accountant="dp-accounting",
                                    interval=5),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--delta", "0.1", "--compose", "2",
      "--accountant", "dp-accounting", "--interval", "5"]),
    ("Rényi order not above 1", "Rényi orders must be > 1 (or inf), got 0.5",
     lambda: synthesize_renyi(randomized_response(2, "1/5"), [0.5]),
     ["renyi", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--orders", "0.5"]),
    ("data-centric pairs with explicit sets",
     "at (the data-centric pairs of one database) replaces the exhaustive sets; give at or explicit sets, not both",
     lambda: synthesize_approximate(randomized_response(2, "1/5"), [((0, 0), (1, 0))], delta=0.1, at=(0, 0)),
     ["approx", "randomized_response", "-p", "n=2", "-p", "lam=1/5", "--delta", "0.1", "--at", "0,0",
      "--sets", "symmetry"]),
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
    ("sets function that returns no sets", "the sets from {f}:no_sets must be a pair (A, I) of sets, got (None, None)",
     None, ["accuracy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--alpha", "1", "--sets", "{f}:no_sets"]),
    ("input outside the declared domain", "input (0, 2) is outside the domain {0,1}^2",
     lambda: inference(randomized_response(2, 0.2), [((0, 2), (0, 0))]),
     ["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "0,2"]),
    ("an input of a set that is not integers", "input (0.9, 0) is not a sequence of 2 integers",
     lambda: synthesize_privacy(rr_counting(2, 0.2), [((0.9, 0), (1, 0), 0)], [((0.9, 0), 0), ((1, 0), 0)]),
     ["privacy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--sets", "{f}:fractional_input"]),
    ("an output of a set not of the program's form",
     "output 0.0 is not of the program's output form (an integer in 0..2)",
     lambda: synthesize_privacy(rr_counting(2, 0.2), [((0, 0), (1, 0), 0.0)], [((0, 0), 0.0), ((1, 0), 0.0)]),
     ["privacy", "rr_counting", "-p", "n=2", "-p", "lam=0.2", "--sets", "{f}:float_output"]),
    ("program returning a non-symbolic value",
     "the program returned NoneType None, not a symbolic value (Bool, Int, or a tuple of them)",
     lambda: inference(Program("nothing", Bits(1), lambda x: None), [((0,), 0)]), ["privacy", "{f}:nothing"]),
    ("exact arithmetic with float parameters",
     "exact arithmetic needs rational parameters, not the float probability 0.2: give fractions ('1/5'), "
     "--exact-floats for binary64, or certified=True (--certified) for exp, log, sqrt",
     lambda: synthesize_privacy(_coin(0.2), exact=True), ["privacy", "{f}:float_coin", "--exact"]),
    ("exhaustive sets over the size limit",
     "the exhaustive sets are too large (|I| = 4294967296 pairs and |C| = 68719476736 triples; limits 268435456 "
     "pairs, 4294967296 triples): use symmetry sets, or force the run (--force)",
     lambda: synthesize_privacy(randomized_response(16, 0.2), "exhaustive"),
     ["privacy", "randomized_response", "-p", "n=16", "-p", "lam=0.2", "--sets", "exhaustive"]),
    ("unknown parameter", "program randomized_response has no parameter 'k'; its parameters are n, lam",
     lambda: build_program("randomized_response", {"n": 2, "lam": 0.2, "k": 1}),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "-p", "k=1"]),
    ("missing parameter", "program randomized_response needs lam (give -p lam=...)",
     lambda: build_program("randomized_response", {"n": 2}), ["privacy", "randomized_response", "-p", "n=2"]),
    ("a parameter name close to known ones",
     "program randomized_response has no parameter 'lamb'; did you mean lam? its parameters are n, lam",
     lambda: build_program("randomized_response", {"n": 2, "lamb": 0.2}),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lamb=0.2"]),
    ("an option close to known ones (CLI only)",
     "unrecognized arguments: --neigbours hamming; did you mean --neighbours, --neighbors?", None,
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--neigbours", "hamming"]),
    ("unknown program", "unknown program 'nosuch'; wmcdp programs lists them all, or give path/to/file.py:function",
     lambda: build_program("nosuch", {}), ["privacy", "nosuch"]),
    ("a program name close to known ones",
     "unknown program 'randomised_response'; did you mean randomized_response? (wmcdp programs lists them all, or "
     "give path/to/file.py:function)",
     lambda: build_program("randomised_response", {}), ["privacy", "randomised_response"]),
    ("user file that fails to import", "could not import ",
     lambda: build_program("{f}:g", {}), ["privacy", "{f}:g"]),
    ("malformed -p (CLI only)", "malformed -p 'n': expected key=value, e.g. -p lam=0.2", None,
     ["privacy", "randomized_response", "-p", "n"]),
    ("parameter that is not a number", "lam must be a number, got 'x'", lambda: randomized_response(2, "x"),
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=x"]),
    ("sample --show below 1 (CLI only)", "--show must be at least 1, got 0", None,
     ["sample", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--input", "01", "--show", "0"]),
    ("a swept value that is not finite (CLI only)", "--over 'lam=0:1:nan': 'nan' is not a finite number", None,
     ["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0:1:nan"]),
    ("malformed --max-memory (CLI only)", "--max-memory 'lots' is not a size such as 4G, 512M or 1073741824", None,
     ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--max-memory", "lots"]),
    ("OpenDP parameter outside OpenDP's range", "f must be in (0, 1] (OpenDP's range), got 0",
     lambda: opendp_rr_bitvec(8, 5, 0), ["privacy", "opendp_rr_bitvec", "-p", "n=8", "-p", "max_weight=5", "-p", "f=0"]),
    ("a yes/no parameter that is neither", "monotonic must be true or false, got 'maybe'",
     lambda: opendp_noisy_max(2, 4, 2, monotonic="maybe"),
     ["privacy", "opendp_noisy_max", "-p", "n=2", "-p", "top=4", "-p", "scale=2", "-p", "monotonic=maybe"]),
    ("audit --only naming no case",
     "no case of the OpenDP audit matches 'nosuch'; the mechanisms are make_gaussian, make_gaussian_threshold, "
     "make_geometric, make_laplace, make_laplace_threshold, ... (14 in all)",
     lambda: audit_cases("nosuch"), ["audit", "opendp", "--only", "nosuch"]),
]
PREFIX_ONLY = {"unknown program", "user file that fails to import"}  # the rest of the message varies

#: cases that need an optional extra (the module it provides): skipped on an install without it
NEEDS = {"dp-accounting and a loss at +infinity": "dp_accounting", "dp-accounting interval too wide": "dp_accounting"}


def _needs(case):
    if case in NEEDS:
        pytest.importorskip(NEEDS[case], reason=f"the case needs the optional module {NEEDS[case]}")


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


def _matches(text, message, case, files):
    """``{at}`` stands for `` at FILE:LINE`` (where the program body failed)."""
    message = _fill(message, files, case)
    if case in PREFIX_ONLY:
        return text.startswith(message)
    pattern = re.escape(message).replace(re.escape(AT), r" at \S+:\d+")
    return re.fullmatch(pattern, text) is not None


@pytest.mark.parametrize("case, message, api, argv", CASES, ids=[c[0] for c in CASES])
def test_cli(case, message, api, argv, files, capsys):
    _needs(case)
    code = main([_fill(a, files, case) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("wmcdp: error: ")
    text = err[len("wmcdp: error: "):-1]
    assert _matches(text, message, case, files), text


@pytest.mark.parametrize("case, message, api, argv", [c for c in CASES if c[2] is not None],
                         ids=[c[0] for c in CASES if c[2] is not None])
def test_api(case, message, api, argv, files):
    _needs(case)
    call = api
    if case == "user file that fails to import":
        call = lambda: build_program(_fill("{f}:g", files, case), {})  # noqa: E731
    with pytest.raises(WmcdpError) as info:
        call()
    assert isinstance(info.value, ValueError)
    text = str(info.value)
    assert _matches(text, message, case, files), text


def test_body_errors_name_the_line_of_the_users_code(files, capsys):
    good, _ = files
    assert main(["privacy", f"{good}:branchy"]) == 2
    err = capsys.readouterr().err
    line = next(k for k, text in enumerate(MECH.splitlines(), start=1) if "flip(0.5) if x[0]" in text)
    # the line keeps under 200 characters by naming the file by its last two path parts
    assert f" at {good}:{line}: " in err or f" at .../{good.parent.name}/{good.name}:{line}: " in err


def test_the_docs_list_every_message():
    page = html.unescape((Path(__file__).parent.parent / "docs" / "errors.md").read_text())  # <code>a&#124;b</code>
    shown = [message.replace("{f}", "FILE.py").replace(AT, " at FILE:LINE") for _, message, _, _ in CASES]
    missing = [message for message in shown if message not in page]
    assert not missing


def test_limits_exit_3(capsys):
    assert main(["accuracy", "rr_counting", "-p", "n=40", "-p", "lam=0.2", "--alpha", "3", "--sets", "symmetry",
                 "--max-nodes", "500"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("wmcdp: stopped: the decision diagram reached ")
    assert main(["privacy", "randomized_response", "-p", "n=12", "-p", "lam=0.2", "--sets", "exhaustive",
                 "--timeout", "0.05"]) == 3
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
