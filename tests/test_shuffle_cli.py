"""``wmcdp approx/profile ... --shuffle N``: the shuffle of a local randomizer written in the DSL (a file's function or
a one-user built-in) from the command line. Its result is the API's (:class:`wmcdp.ShuffledReports`), and at small
``N`` it is the maximum over every dataset of ``N`` users and every neighbour, enumerated with every random choice
(``tests/brute.py``, exact Fractions); what it cannot run is one line and exit status 2."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import brute
import pytest

from wmcdp import ShuffledReports, synthesize_approximate
from wmcdp.cli import main
from wmcdp.lang.registry import build_program

PS = (Fraction(1, 5), Fraction(1, 2), Fraction(2, 3))  # P(report 1) at the values 0, 1, 2
LOCAL = """
from wmcdp import IntVector, Program, flip, ite, uniform


def three_values(a, b, c):
    return Program("three_values", IntVector(1, 0, 2),
                   lambda x: ite(x[0] == 0, flip(a), ite(x[0] == 1, flip(b), flip(c))))


def three_reports():
    return Program("three_reports", IntVector(1, 0, 1), lambda x: ite(x[0] == 0, uniform(0, 2), uniform(0, 1)))


def two_users():
    return Program("two_users", IntVector(2, 0, 1), lambda x: x[0] ^ flip(1 / 4))
"""
PARAMS = ["-p", "a=1/5", "-p", "b=1/2", "-p", "c=2/3"]


@pytest.fixture
def user(tmp_path):
    path = tmp_path / "local.py"
    path.write_text(LOCAL)
    return str(path)


def _run(capsys, *argv):
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _datasets(n):
    shuffled = lambda x, choose: sum(brute.flip(choose, PS[w]) for w in x)  # noqa: E731  (the count of ones)
    return {x: brute.distribution(shuffled, x) for x in itertools.product(range(len(PS)), repeat=n)}


def _neighbours(x):
    return [x[:i] + (v,) + x[i + 1 :] for i in range(len(x)) for v in range(len(PS)) if v != x[i]]


def test_a_files_randomizer_equals_the_api(user, capsys):
    out = json.loads(
        _run(capsys, "approx", f"{user}:three_values", *PARAMS, "--shuffle", "10000", "--delta", "1e-6", "--json")
    )
    local = build_program(f"{user}:three_values", {"a": PS[0], "b": PS[1], "c": PS[2]})
    r = synthesize_approximate(local, ShuffledReports.of(local, 10_000), delta=1e-6)
    assert out["epsilon"] == r.epsilon and out["epsilon_interval"] == r.interval.as_list()
    assert (out["witness"]["x"], out["witness"]["x_prime"]) == (list(r.witness.x), list(r.witness.x_prime))
    assert out["witness_runs"] == {"x": "0^10000", "x_prime": "(2, 0^9999)"}
    assert out["shuffle"] == 10_000 and out["report_probabilities"] == {"0": "1/5", "1": "1/2", "2": "2/3"}


def test_a_one_user_built_in_prints_the_runs_form(capsys):
    """kary_rr with n = 1, k = 2 is binary RR reporting the true value with probability 3/4: at ε = ln 3 the
    shuffle of 100000 users has the API's δ, and the witness pair is printed in the runs form."""
    text = _run(
        capsys,
        "approx",
        "kary_rr",
        "-p",
        "n=1",
        "-p",
        "k=2",
        "-p",
        "ratio=3",
        "--shuffle",
        "100000",
        "--epsilon",
        "0.1",
    )
    local = build_program("kary_rr", {"n": 1, "k": 2, "ratio": 3})
    r = synthesize_approximate(local, ShuffledReports.of(local, 100_000), epsilon=0.1)
    rows = dict(line.strip().split("  ", 1) for line in text.splitlines()[1:])
    assert text.startswith("shuffle of 100000 users of kary_rr(n=1, k=2, ratio=3)")
    assert rows["delta"].strip() == f"{r.delta:.10g}" and rows["witness x'"].strip() == "1 0^99999"


@pytest.mark.parametrize("epsilon, t", [("ln:3/2", Fraction(3, 2)), ("ln:11/10", Fraction(11, 10))])
def test_delta_is_the_maximum_over_every_dataset(user, capsys, epsilon, t):
    n = 5
    dists = _datasets(n)
    exact, _ = brute.max_over_pairs(dists, _neighbours, lambda p, q: brute.hockey(p, q, t))
    out = json.loads(
        _run(capsys, "approx", f"{user}:three_values", *PARAMS, "--shuffle", str(n), "--epsilon", epsilon, "--json")
    )
    lo, hi = out["delta_interval"]
    assert float(lo) * (1 - 1e-14) <= exact <= float(hi) * (1 + 1e-14)
    x, x_prime = tuple(out["witness"]["x"]), tuple(out["witness"]["x_prime"])
    assert x_prime in _neighbours(x) and brute.hockey(dists[x], dists[x_prime], t) == exact


def test_epsilon_is_the_maximum_over_every_dataset(user, capsys):
    n, delta = 5, Fraction(1, 100)
    best, _ = brute.max_over_pairs(_datasets(n), _neighbours, lambda p, q: brute.ratio_for_delta(p, q, delta))
    out = json.loads(
        _run(capsys, "approx", f"{user}:three_values", *PARAMS, "--shuffle", str(n), "--delta", "0.01", "--json")
    )
    lo, hi = out["epsilon_interval"]
    assert float(lo) <= math.log(best) * (1 + 1e-12) and math.log(best) <= float(hi) * (1 + 1e-12)


def test_profile_is_the_maximum_over_every_dataset(user, capsys):
    n = 4
    dists = _datasets(n)
    rows = json.loads(
        _run(
            capsys,
            "profile",
            f"{user}:three_values",
            *PARAMS,
            "--shuffle",
            str(n),
            "--epsilons",
            "ln:3/2,ln:5/4",
            "--json",
        )
    )["rows"]
    for row, t in zip(rows, (Fraction(3, 2), Fraction(5, 4))):
        exact, _ = brute.max_over_pairs(dists, _neighbours, lambda p, q, t=t: brute.hockey(p, q, t))
        assert row["delta"] == pytest.approx(float(exact), rel=1e-12)


def _binomial_delta(n, p, q, q_prime, t):
    """Exact δ at e^ε = t (an integer) between two datasets of n shuffled two-report users: n - 1 of them report 1
    with probability ``p`` in both, the last with ``q`` in one and ``q_prime`` in the other. The count of ones'
    law is a binomial sum; integers over the common denominator keep it fast."""
    a, b = p.numerator, p.denominator
    binomial, up, down = [1], [1], [1]  # C(n - 1, k), a^k, (b - a)^k
    for k in range(n - 1):
        binomial.append(binomial[-1] * (n - 1 - k) // (k + 1))
        up.append(up[-1] * a)
        down.append(down[-1] * (b - a))
    rest = [binomial[k] * up[k] * down[n - 1 - k] for k in range(n)] + [0]  # over b^(n-1)

    def law(r):  # over b^(n-1) * r.denominator
        c, d = r.numerator, r.denominator
        return [rest[k] * (d - c) + (rest[k - 1] * c if k else 0) for k in range(n + 1)]

    d, d_prime = q.denominator, q_prime.denominator
    top = sum(max(0, u * d_prime - t * v * d) for u, v in zip(law(q), law(q_prime)))
    return Fraction(top, b ** (n - 1) * d * d_prime)


def test_profile_prints_a_delta_below_the_float_range(user, capsys):
    """At 8000 users δ(ln 2) is about 1e-468: no float holds it, so it is printed from its log, never as 0 (the
    table and the JSON), and it is the exact δ of the printed witness pair."""
    argv = ["profile", f"{user}:three_values", *PARAMS, "--shuffle", "8000", "--epsilons", "ln:2"]
    table = _run(capsys, *argv).splitlines()[-1].split()[1]
    (row,) = json.loads(_run(capsys, *argv, "--json"))["rows"]
    assert table == row["delta"]
    x, x_prime = row["witness"]["x"], row["witness"]["x_prime"]
    changed = [i for i in range(len(x)) if x[i] != x_prime[i]]
    (i,) = changed
    (other,) = set(x[:i] + x[i + 1 :])
    exact = _binomial_delta(len(x), PS[other], PS[x[i]], PS[x_prime[i]], 2)
    mantissa, exponent = row["delta"].split("e")
    assert int(exponent) < -308
    assert math.log10(float(mantissa)) + int(exponent) == pytest.approx(
        math.log10(exact.numerator) - math.log10(exact.denominator), abs=1e-9
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{u}:three_reports", "--shuffle", "100"], "three_reports has 3 reports"),
        (["kary_rr", "-p", "n=1", "-p", "k=3", "-p", "ratio=3", "--shuffle", "100"], "kary_rr has 3 reports"),
        (["randomized_response", "-p", "n=1", "-p", "lam=0", "--shuffle", "100"], "with probability 0 or 1"),
        (["{u}:two_users", "--shuffle", "100"], "two_users has 2 input entries"),
        (["kary_rr", "-p", "n=2", "-p", "k=2", "-p", "ratio=3", "--shuffle", "100"], "kary_rr has 2 input entries"),
        (["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "0"], "not a whole number of users"),
        (["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "5/2"], "not a whole number of users"),
        (["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "many"], "not a whole number of users"),
        (["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "1e8"], "from 1 to 10,000,000"),
        (
            ["kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "10", "--exact", "--sets", "symmetry"],
            "leave out --sets, --exact",
        ),
    ],
)
@pytest.mark.parametrize("command", [["approx", "--epsilon", "1"], ["profile", "--epsilons", "1"]])
def test_refusals_are_one_line(user, capsys, command, argv, message):
    code = main([command[0], *(a.replace("{u}", user) for a in argv), *command[1:]])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("wmcdp: error: ") and err.count("\n") == 1 and message in err
