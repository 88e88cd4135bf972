"""Early refusals and answers where wmcdp used to crash: huge numbers in JSON, user neighbour relations,
many array axes over workers, scheduler addresses, limits at their extremes, odd values in user sets
and ``SystemExit`` in user code.

Each case runs through ``wmcdp.cli.main`` (exit status; stderr at most one line, ``wmcdp: error: ...``
for status 2) and, where there is one, through the API (a :class:`WmcdpError`). Answers are compared
with a brute-force enumeration (tests/brute.py) or a closed form.
"""

import json
import math
import textwrap
import time
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

import brute

from wmcdp import Bits, Program, WmcdpError, synthesize_privacy
from wmcdp.base.limits import resource_limits
from wmcdp.base.numbers import exact_text
from wmcdp.cli import main
from wmcdp.lang.registry import build_program
from wmcdp.plan.given_sets import find_sets
from wmcdp.lang.relations import relation_from_function
from wmcdp.notions.approximate import synthesize_approximate

Q = Fraction(1, 4)

USER = textwrap.dedent("""
    from fractions import Fraction
    import numpy as np
    from wmcdp import Bits, IntVector, Program, flip, uniform

    Q = Fraction(1, 4)

    def rr():
        return Program("rr", Bits(2), lambda x: (x[0] ^ flip(Q), x[1] ^ flip(Q)))

    def chain(n=12, k=66):
        # a chain of 12 Bools, the first 4 observed, and 66 constant Int parts (one value each)
        def body(x):
            ys = [x[0] ^ flip(Q)]
            for i in range(1, n):
                ys.append(ys[-1] ^ x[i] ^ flip(Q))
            return tuple(ys[:4]) + tuple(uniform(i, i) for i in range(k))
        return Program("chain", Bits(n), body)

    def one_input():
        return Program("one", IntVector(70, 0, 0), lambda x: ((x[0] == 0) ^ flip(Q), tuple(True for _ in range(70))))

    def outside(x):
        return [(2, 2), (0, 0, 0)]

    def forever(x):
        while True:
            yield (1 - x[0],) + tuple(x[1:])

    def sets_big():
        y = (10**30, 0)
        return [((0, 0), (0, 1), y)], [((0, 0), y), ((0, 1), y)]

    def sets_numpy():
        a, b, y = np.array([0, 0]), np.array([0, 1]), (np.int64(0), np.int64(0))
        return [(a, b, y), (b, a, y)], [(a, y), (b, y)]

    def sets_exit():
        raise SystemExit(5)

    def neighbours_exit(x):
        raise SystemExit(5)

    def factory_exit():
        raise SystemExit(5)

    def body_exit():
        def body(x):
            raise SystemExit(5)
        return Program("body_exit", Bits(1), body)

    def target_exit():
        def target(x):
            raise SystemExit(5)
        return Program("t", Bits(2), lambda x: x[0] + x[1], target=target)
""")


@pytest.fixture
def user(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(USER)
    return str(path)


def _one_line(capsys, code, status):
    out, err = capsys.readouterr()
    assert code == status, err
    assert "Traceback" not in err and err.count("\n") <= 1
    if status == 2:
        assert err.startswith("wmcdp: error: ")
    return out, err


# -- JSON: numbers of any size ------------------------------------------------------------------


def test_json_writes_a_group_order_of_4469_digits_exactly(capsys):
    """The order of S_1472 with value reflections, 1472! 2^1472, and |C| = 1472 2^2944 (hamming pairs times
    outputs), both past Python's 4300-digit int-to-str limit, as exact decimal strings."""
    code = main(["symmetry", "randomized_response", "-p", "n=1472", "-p", "lam=0.2", "--json", "--timeout", "60"])
    out, _ = _one_line(capsys, code, 0)
    data = json.loads(out)
    assert gmpy2.mpz(data["group_order"]) == gmpy2.fac(1472) * gmpy2.mpz(2) ** 1472
    assert gmpy2.mpz(data["privacy"]["exhaustive_size"]) == 1472 * gmpy2.mpz(2) ** 2944
    assert data["privacy"]["size"] == 2944  # small ints stay numbers


def test_json_text_any_size():
    from wmcdp.base.jsontext import json_text

    big = gmpy2.mpz(10) ** 100000 + 7
    text = json_text({"n": int(big), "q": Fraction(1, 3), "small": 2**53, "over": 2**53 + 1, "inf": math.inf,
                      "nan": math.nan, "np": np.int64(5), "t": (1, 2)})
    data = json.loads(text)
    assert gmpy2.mpz(data["n"]) == big
    assert data["q"] == "1/3" and data["small"] == 2**53 and data["over"] == str(2**53 + 1)
    assert data["inf"] == "inf" and data["nan"] == "nan" and data["np"] == 5 and data["t"] == [1, 2]


def test_exact_text_keeps_every_digit():
    q = Fraction(4, 5) ** 8000  # 5^8000 has 5592 digits
    num, den = exact_text(q).split("/")
    assert gmpy2.mpz(num) == gmpy2.mpz(4) ** 8000 and gmpy2.mpz(den) == gmpy2.mpz(5) ** 8000


# -- user neighbour relations -------------------------------------------------------------------


def test_neighbours_outside_the_domain_are_refused(user, capsys):
    for notion in (["approx", "--delta", "0.1"], ["approx", "--epsilon", "0.5"], ["renyi", "--orders", "2"]):
        code = main([notion[0], f"{user}:rr", *notion[1:], "--neighbours", f"{user}:outside"])
        _, err = _one_line(capsys, code, 2)
        assert "gives no pair of neighbouring inputs" in err
    prog = build_program(f"{user}:rr", {})
    with pytest.raises(WmcdpError, match="gives no pair of neighbouring inputs"):
        synthesize_approximate(prog, delta=0.1, neighbours=relation_from_function(lambda x: [(2, 2)]))


def test_an_endless_neighbour_generator_is_refused_quickly(user, capsys):
    start = time.monotonic()
    code = main(["approx", f"{user}:rr", "--delta", "0.1", "--neighbours", f"{user}:forever", "--timeout", "30"])
    _, err = _one_line(capsys, code, 2)
    assert "lists more than 8 neighbours of 00" in err and time.monotonic() - start < 10

    def forever(x):
        while True:
            yield (1 - x[0], x[1])

    with pytest.raises(WmcdpError, match="lists more than 8 neighbours"), resource_limits(timeout=30):
        synthesize_approximate(build_program(f"{user}:rr", {}), delta=0.1, neighbours=relation_from_function(forever))


# -- many array axes ----------------------------------------------------------------------------


def _chain_truth():
    """The exact tight ratio over hamming neighbours, by enumeration. The observed part ``ys[:4]`` reads only
    x_0..x_3 and the coins before it, so inputs that differ past x_3 have the same distribution (ratio 1) and
    the plain-Python reference draws those four coins on x_0..x_3."""

    def fn(x, choose):
        ys = [x[0] ^ brute.flip(choose, Q)]
        for i in range(1, 4):
            ys.append(ys[-1] ^ x[i] ^ brute.flip(choose, Q))
        return tuple(ys)

    inputs = [tuple((k >> (3 - i)) & 1 for i in range(4)) for k in range(16)]
    dists = {x: brute.distribution(fn, x) for x in inputs}
    best = Fraction(1)
    for x, px in dists.items():
        for i in range(4):
            xp = x[:i] + (1 - x[i],) + x[i + 1 :]
            best = max(best, *(a / dists[xp][y] for y, a in px.items()))
    return best


def test_many_constant_output_parts_count_serially(user, capsys):
    code = main(["privacy", f"{user}:chain", "--sets", "exhaustive", "--json"])
    out, _ = _one_line(capsys, code, 0)
    assert Fraction(json.loads(out)["ratio_exact"]) == _chain_truth() == 3


def test_many_constant_output_parts_count_over_workers(user, capsys):
    """Over two workers the bound and its witness are those of a serial run (one cluster: the command line's)."""
    pytest.importorskip("distributed")
    from wmcdp.report.schema import witness_of

    code = main(["privacy", f"{user}:chain", "--sets", "exhaustive", "--workers", "2", "--json"])
    out, _ = _one_line(capsys, code, 0)
    data = json.loads(out)
    serial = synthesize_privacy(build_program(f"{user}:chain", {}), "exhaustive")
    assert Fraction(data["ratio_exact"]) == serial.ratio == _chain_truth()
    assert data["witness"] == witness_of(serial.witness)


def test_a_program_with_one_input_is_refused(user, capsys):
    for argv in (["privacy", "--sets", "exhaustive"], ["approx", "--delta", "0.1"]):
        code = main([argv[0], f"{user}:one_input", *argv[1:]])
        _one_line(capsys, code, 2)


# -- workers and schedulers ---------------------------------------------------------------------

RR = ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--sets", "exhaustive"]


@pytest.mark.parametrize("address", ["garbage", "", "inproc://x", "tcp://h:99999", "udp://a:1"])
def test_a_bad_scheduler_address_is_one_line(address, capsys):
    pytest.importorskip("distributed")
    from wmcdp.count.distributed import Workers

    start = time.monotonic()
    _, err = _one_line(capsys, main([*RR, "--scheduler", address]), 2)
    assert "address" in err and time.monotonic() - start < 10
    with pytest.raises(WmcdpError, match="address"):
        Workers(scheduler=address)


def test_an_unreachable_scheduler_is_one_line_within_seconds(monkeypatch, capsys):
    pytest.importorskip("distributed")
    import wmcdp.count.distributed as distributed

    monkeypatch.setattr(distributed, "CONNECT_SECONDS", 1)
    start = time.monotonic()
    _, err = _one_line(capsys, main([*RR, "--scheduler", "tcp://127.0.0.1:1"]), 2)
    assert "cannot reach the Dask scheduler tcp://127.0.0.1:1" in err and time.monotonic() - start < 15


def test_too_many_local_workers_are_refused_at_once(capsys):
    pytest.importorskip("distributed")
    from wmcdp.count.distributed import Workers, max_local_workers

    start = time.monotonic()
    _, err = _one_line(capsys, main([*RR, "--workers", "64"]), 2)
    assert "64 local workers are more than" in err and time.monotonic() - start < 10
    with pytest.raises(WmcdpError, match="local workers are more than"):
        Workers(max_local_workers() + 1)


# -- limits at their extremes -------------------------------------------------------------------


@pytest.mark.parametrize("timeout", ["1e308", "1e10"])
def test_a_huge_timeout_is_no_practical_limit(timeout, capsys):
    out, _ = _one_line(capsys, main([*RR, "--exact", "--timeout", timeout, "--json"]), 0)
    assert json.loads(out)["ratio_exact"] == "4"  # (1 - 1/5) / (1/5)
    with resource_limits(timeout=1e308):
        assert synthesize_privacy(build_program("randomized_response", {"n": 2, "lam": "1/5"})).ratio == 4


@pytest.mark.parametrize("size", ["99999999999999999999T", "1" + "0" * 5000])
def test_an_impossible_memory_cap_is_one_line(size, capsys):
    _one_line(capsys, main([*RR, "--max-memory", size]), 2)
    with pytest.raises(WmcdpError), resource_limits(max_memory=1 << 70):
        pass


# -- user sets ----------------------------------------------------------------------------------


def test_an_output_past_int64_in_the_sets_is_one_line(user, capsys):
    _one_line(capsys, main(["privacy", f"{user}:rr", "--sets", f"{user}:sets_big"]), 2)


def test_numpy_values_in_the_sets_are_their_python_values(user, capsys):
    out, _ = _one_line(capsys, main(["privacy", f"{user}:rr", "--sets", f"{user}:sets_numpy", "--json"]), 0)
    assert json.loads(out)["ratio_exact"] == "3"  # (3/4)^2 / ((3/4)(1/4))
    prog = build_program(f"{user}:rr", {})
    a, b, y = np.array([0, 0]), np.array([0, 1]), (np.int64(0), np.int64(0))
    assert synthesize_privacy(prog, [(a, b, y), (b, a, y)], [(a, y), (b, y)]).ratio == 3


# -- SystemExit in user code --------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, name",
    [
        (["privacy", "{u}:rr", "--sets", "{u}:sets_exit"], "sets"),
        (["privacy", "{u}:rr", "--neighbours", "{u}:neighbours_exit"], "neighbours_exit"),
        (["privacy", "{u}:factory_exit"], "factory_exit"),
        (["privacy", "{u}:body_exit"], "body_exit"),
        (["accuracy", "{u}:target_exit", "--alpha", "1"], "target"),
    ],
)
def test_system_exit_in_user_code_is_one_line(argv, name, user, capsys):
    try:
        code = main([a.replace("{u}", user) for a in argv])
    except SystemExit as exc:  # the old behaviour: wmcdp ended with the user's status
        pytest.fail(f"SystemExit({exc.code}) escaped")
    _, err = _one_line(capsys, code, 2)
    assert name in err and "SystemExit: 5" in err


def test_system_exit_in_user_code_through_the_api(user):
    prog = build_program(f"{user}:rr", {})
    with pytest.raises(WmcdpError, match="SystemExit"):
        find_sets("privacy", f"{user}:sets_exit", prog)
    with pytest.raises(WmcdpError, match="SystemExit"):
        synthesize_privacy(build_program(f"{user}:body_exit", {}))

    def stop(x):
        raise SystemExit(5)

    with pytest.raises(WmcdpError, match="SystemExit"):
        synthesize_privacy(prog, neighbours=relation_from_function(stop))
    with pytest.raises(WmcdpError, match="SystemExit"):
        synthesize_privacy(Program("bare", Bits(1), lambda x: (_ for _ in ()).throw(SystemExit(5))))
