"""wmcdp's probabilities against brute-force enumeration of every random choice."""

from fractions import Fraction

import pytest

import brute
from wmcdp.programs import randomized_response, rr_counting
from wmcdp import Bits, IntVector, Program, discrete, flip, inference, ite, uniform
from wmcdp.compile import compile_program
from wmcdp.lang.sets import InferenceSet, exhaustive_inference
from wmcdp.count import steps
from wmcdp.count.floats import Extended


def _rr_ref(lam):
    return lambda x, choose: tuple(xi ^ brute.flip(choose, lam) for xi in x)


def _count_ref(lam):
    return lambda x, choose: sum(xi ^ brute.flip(choose, lam) for xi in x)


def _mixed(p):
    """Int inputs, discrete and uniform noise, clamp, abs, comparisons, ite on Ints."""
    def body(x):
        d = discrete({0: p, 1: 1 - 2 * p, 2: p})
        v = (x[0] + d - 1).clamp(0, 2)
        u = uniform(0, 2)
        return (ite(v > x[1], 1, 0), abs(x[1] - u), v == u)

    def ref(x, choose):
        d = choose({0: p, 1: 1 - 2 * p, 2: p})
        v = min(max(x[0] + d - 1, 0), 2)
        u = choose({0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)})
        return (1 if v > x[1] else 0, abs(x[1] - u), int(v == u))

    return Program("mixed", IntVector(2, 0, 2), body), ref


def _boolean(p, q):
    """Bit inputs, Boolean connectives, ite on Bools, Bool arithmetic, products."""
    def body(x):
        a, b = flip(p), flip(q)
        c = ite(a, x[0] & b, x[1] | ~b)
        s = x[0] + x[1] + x[2] + a
        t = s * 2 - b
        return (c ^ x[2], s <= 2, t != 3, t)

    def ref(x, choose):
        a, b = brute.flip(choose, p), brute.flip(choose, q)
        c = (x[0] & b) if a else (x[1] | (1 - b))
        s = x[0] + x[1] + x[2] + a
        t = s * 2 - b
        return (c ^ x[2], int(s <= 2), int(t != 3), t)

    return Program("boolean", Bits(3), body), ref


def _cases(exact):
    num = (lambda s: Fraction(s)) if exact else (lambda s: float(Fraction(s)))
    lam = num("1/5")
    yield randomized_response(3, lam), _rr_ref(Fraction(1, 5))
    yield rr_counting(3, lam), _count_ref(Fraction(1, 5))
    prog, ref = _mixed(num("1/4"))
    yield prog, _mixed(Fraction(1, 4))[1]
    prog, ref = _boolean(num("1/3"), num("3/7"))
    yield prog, _boolean(Fraction(1, 3), Fraction(3, 7))[1]


@pytest.fixture(params=["joint", "stripes", "batch of inputs", "batch of pairs"])
def inference_pass(request, monkeypatch):
    """Force each of Algorithm 1's ways of counting: the joint table (whole or in stripes of outputs),
    a batch of inputs with whole output distributions, or a batch of (input, output) pairs. Every
    buffer goes through the pool, so reuse happens even on these small programs."""
    import importlib
    inf = importlib.import_module("wmcdp.count.probabilities")
    monkeypatch.setattr(steps.Pool, "MIN_CELLS", 1)
    if request.param == "stripes":
        monkeypatch.setattr(inf, "memory_budget", lambda: 1)
    if request.param == "batch of inputs":
        monkeypatch.setattr(inf, "DENSE_RATIO", 1 << 30)
    if request.param == "batch of pairs":
        monkeypatch.setattr(inf, "DENSE_RATIO", 0)
    return request.param


@pytest.mark.parametrize("backend", ["bdd", "sdd"])
@pytest.mark.parametrize("exact", [False, True])
def test_every_input_output_matches_brute_force(backend, exact, inference_pass):
    for prog, ref in _cases(exact):
        compiled = compile_program(prog, backend)
        outputs = list(compiled.shape.values())
        I = exhaustive_inference(prog.inputs, outputs)
        if inference_pass.startswith("batch"):
            I = InferenceSet.of(list(I))
        table = inference(compiled, I, exact=exact)
        for x in prog.inputs.values():
            expected = brute.distribution(ref, x)
            assert set(expected) <= set(outputs), prog.name
            total = 0
            for y in outputs:
                got = table.probability(x, y)
                want = expected.get(y, Fraction(0))
                if exact:
                    assert isinstance(got, Fraction)
                    assert got == want, (prog.name, x, y)
                else:
                    assert got == pytest.approx(float(want), abs=1e-12), (prog.name, x, y)
                total += got
            assert total == 1 if exact else abs(total - 1) < 1e-12


def test_per_output_and_whole_distribution_paths_agree():
    """Algorithm 1 counts single outputs by cofactoring and whole distributions in one pass."""
    prog, ref = _boolean(Fraction(1, 3), Fraction(3, 7))
    compiled = compile_program(prog)
    x = (1, 0, 1)
    expected = brute.distribution(ref, x)
    for y, p in expected.items():  # one pair at a time: the cofactor path
        assert inference(compiled, [(x, y)]).probability(x, y) == p


def test_float_mode_does_not_underflow():
    """P(0^n | 1^n) = 0.2^600 is below the smallest float; log-space keeps it and the ratio."""
    n = 600
    prog = randomized_response(n, 0.2)
    zero, ones, almost = (0,) * n, (1,) * n, (1,) * (n - 1) + (0,)
    table = inference(prog, [(ones, zero), (almost, zero)])
    assert table.arith is Extended  # paths of weight 0.2^600 < 2^-1000: a separate exponent per cell
    log_p = table.arith.log_probability(table.rows[ones][1][0])
    assert log_p == pytest.approx(n * __import__("math").log(0.2), rel=1e-14)
    assert table.probability(ones, zero) == 0.0  # as a plain float it does underflow
    from wmcdp import synthesize_privacy
    r = synthesize_privacy(prog, [(almost, ones, zero), (ones, almost, zero)], [(ones, zero), (almost, zero)])
    assert r.ratio == pytest.approx(4.0, rel=1e-12)
    assert r.witness.x == almost


def test_output_outside_the_program_range_has_probability_zero():
    table = inference(rr_counting(2, Fraction(1, 5)), [((0, 0), -1), ((0, 0), 3), ((0, 0), 0)])
    assert table.probability((0, 0), -1) == 0 and table.probability((0, 0), 3) == 0
    assert table.probability((0, 0), 0) == Fraction(16, 25)


def test_diagram_size_is_linear_for_randomized_response():
    ns = (10, 20, 40, 80)
    sizes = [compile_program(randomized_response(n, 0.2)).size for n in ns]
    per_entry = {(b - a) / (m - n) for (n, a), (m, b) in zip(zip(ns, sizes), zip(ns[1:], sizes[1:]))}
    assert len(per_entry) == 1 and per_entry.pop() <= 5  # the same few nodes for every entry


@pytest.mark.parametrize("backend", ["bdd", "sdd"])
def test_output_size_per_input(backend):
    """For a concrete input RR's output bits are the n coins themselves: n nodes plus CUDD's one terminal
    (the paper's Dice count, n + 2, also counts the false terminal); for the SDD they are literals."""
    for n in (3, 10, 40):
        compiled = compile_program(randomized_response(n, 0.2), backend)
        assert compiled.output_size((0,) * n) == compiled.output_size((1, 0) * (n // 2) + (1,) * (n % 2)) \
            == (n + 1 if backend == "bdd" else 0)


@pytest.mark.parametrize("pooled", [False, True])
def test_exhaustive_randomized_response_at_sizes_that_reuse_buffers(pooled, monkeypatch):
    """Closed form |ln((1 - lam)/lam)| where the counting arrays are large enough to be pooled and reused."""
    from wmcdp import synthesize_privacy
    if pooled:
        monkeypatch.setattr(steps.Pool, "MIN_CELLS", 1)
    for n in (9, 10, 11):
        r = synthesize_privacy(randomized_response(n, 0.2))
        assert r.epsilon == pytest.approx(__import__("math").log(4), rel=1e-13)
        assert r.witness.x == (0,) * n and r.witness.x_prime == (1,) + (0,) * (n - 1)
