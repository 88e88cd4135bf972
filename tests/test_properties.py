"""Property-based check: random small DSL programs against brute-force enumeration.

Hypothesis draws straight-line programs of up to 14 statements (flips, discrete, uniform, input reads, Boolean
connectives, bounded-int arithmetic and comparisons, if-then-else, abs, clamp, counting
loops) over small input domains and a tuple of outputs. Each program is interpreted twice:
by wmcdp (traced, compiled to BDD and SDD, counted in float and exact arithmetic) and by a
plain-Python interpreter whose random choices :func:`brute.distribution` enumerates.
Every P(y | x) must agree (to 1e-12 in float mode, exactly in exact mode) and every output
distribution must sum to one.

CI runs the ``ci`` profile (200 examples per test, about 10 s each on this 2-core machine; the count is arbitrary,
new programs each run); ``WMCDP_HYPOTHESIS_PROFILE=long`` runs 5000.
"""

import os
from fractions import Fraction
from unittest.mock import patch

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import brute
from wmcdp import Bits, IntVector, Program, discrete, flip, inference, ite, uniform
from wmcdp.compile import compile_program
from wmcdp.count import steps
from wmcdp.lang.sets import exhaustive_inference

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("WMCDP_HYPOTHESIS_PROFILE", "ci"))

PROBS = [Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(2, 5), Fraction(3, 7),
         Fraction(9, 10)]
CMPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
MAX_CHOICES = 200  # product of the numbers of outcomes of all random statements (keeps brute force small)


@st.composite
def programs(draw):
    bits = draw(st.booleans())
    n = draw(st.integers(1, 3 if bits else 2))
    domain = Bits(n) if bits else IntVector(n, 0, 2)
    stmts, types = [], []  # types[i] is "bool" or "int"
    branching = 1

    def pick(kind):
        choices = [i for i, t in enumerate(types) if t == kind]
        return draw(st.sampled_from(choices)) if choices else None

    for _ in range(draw(st.integers(1, 14))):
        ops = ["input", "not", "and", "or", "xor", "cmp", "add", "addc", "ite", "abs", "clamp"]
        if branching * 3 <= MAX_CHOICES:
            ops += ["flip", "discrete", "uniform", "count"]
        op = draw(st.sampled_from(ops))
        b, i = pick("bool"), pick("int")
        if op == "flip":
            stmt, t = ("flip", draw(st.sampled_from(PROBS))), "bool"
            branching *= 2
        elif op == "discrete":
            values = draw(st.lists(st.integers(-2, 3), min_size=1, max_size=3, unique=True))
            weights = draw(st.lists(st.integers(0, 3), min_size=len(values), max_size=len(values)))
            if sum(weights) == 0:
                weights[0] = 1
            stmt, t = ("discrete", {v: Fraction(w, sum(weights)) for v, w in zip(values, weights)}), "int"
            branching *= len(values)
        elif op == "uniform":
            lo = draw(st.integers(-1, 2))
            stmt, t = ("uniform", lo, lo + draw(st.integers(0, 2))), "int"
            branching *= 3
        elif op == "count":
            stmt, t = ("count", draw(st.integers(1, 2)), draw(st.sampled_from(PROBS))), "int"
            branching *= 4
        elif op == "input":
            stmt, t = ("input", draw(st.integers(0, n - 1))), "bool" if bits else "int"
        elif op == "not" and b is not None:
            stmt, t = ("not", b), "bool"
        elif op in ("and", "or", "xor") and b is not None:
            stmt, t = (op, b, pick("bool")), "bool"
        elif op == "cmp" and i is not None:
            rhs = pick("int") if draw(st.booleans()) else ("const", draw(st.integers(-1, 3)))
            stmt, t = ("cmp", draw(st.sampled_from(sorted(CMPS))), i, rhs), "bool"
        elif op == "add" and (i is not None or b is not None):
            a = i if i is not None else b
            other = draw(st.sampled_from([k for k, tt in enumerate(types)]))
            stmt, t = (draw(st.sampled_from(["add", "sub"])), a, other), "int"
        elif op == "addc" and i is not None:
            stmt, t = ("addc", i, draw(st.integers(-2, 2))), "int"
        elif op == "ite" and b is not None and (i is not None or len(types) > 1):
            kind = draw(st.sampled_from(["bool", "int"] if i is not None else ["bool"]))
            stmt, t = ("ite", b, pick(kind), pick(kind)), kind
        elif op == "abs" and i is not None:
            stmt, t = ("abs", i), "int"
        elif op == "clamp" and i is not None:
            lo = draw(st.integers(-1, 2))
            stmt, t = ("clamp", i, lo, lo + draw(st.integers(0, 2))), "int"
        else:
            stmt, t = ("flip", Fraction(1, 2)), "bool"
            branching *= 2
        stmts.append(stmt)
        types.append(t)
    # the last statement is always an output, so most of the program reaches the diagram
    outputs = [len(stmts) - 1] + draw(st.lists(st.integers(0, len(stmts) - 1), max_size=2))
    return domain, stmts, outputs


def _operand(s, env):
    return s[1] if isinstance(s, tuple) else env[s]


# operations that read the same on symbolic values and on plain ints
SHARED = {
    "input": lambda s, env, x: x[s[1]],
    "and": lambda s, env, x: env[s[1]] & env[s[2]],
    "or": lambda s, env, x: env[s[1]] | env[s[2]],
    "xor": lambda s, env, x: env[s[1]] ^ env[s[2]],
    "add": lambda s, env, x: env[s[1]] + env[s[2]],
    "sub": lambda s, env, x: env[s[1]] - env[s[2]],
    "addc": lambda s, env, x: env[s[1]] + s[2],
    "abs": lambda s, env, x: abs(env[s[1]]),
}


def _dsl_ops(as_number):
    """wmcdp's reading of each statement (traced and compiled)."""
    return {**SHARED,
            "flip": lambda s, env, x: flip(as_number(s[1])),
            "discrete": lambda s, env, x: discrete({k: as_number(p) for k, p in s[1].items()}),
            "uniform": lambda s, env, x: uniform(s[1], s[2]),
            "count": lambda s, env, x: sum(flip(as_number(s[2])) for _ in range(s[1])),
            "not": lambda s, env, x: ~env[s[1]],
            "cmp": lambda s, env, x: CMPS[s[1]](env[s[2]], _operand(s[3], env)),
            "ite": lambda s, env, x: ite(env[s[1]], env[s[2]], env[s[3]]),
            "clamp": lambda s, env, x: env[s[1]].clamp(s[2], s[3])}


def _reference_ops(choose):
    """The plain-Python reading: Booleans are 0/1 ints, random choices go through ``choose``."""
    return {**SHARED,
            "flip": lambda s, env, x: brute.flip(choose, s[1]),
            "discrete": lambda s, env, x: choose(s[1]),
            "uniform": lambda s, env, x: choose({k: Fraction(1, s[2] - s[1] + 1) for k in range(s[1], s[2] + 1)}),
            "count": lambda s, env, x: sum(brute.flip(choose, s[2]) for _ in range(s[1])),
            "not": lambda s, env, x: 1 - env[s[1]],
            "cmp": lambda s, env, x: int(CMPS[s[1]](env[s[2]], _operand(s[3], env))),
            "ite": lambda s, env, x: env[s[2]] if env[s[1]] else env[s[3]],
            "clamp": lambda s, env, x: min(max(env[s[1]], s[2]), s[3])}


def _run(stmts, outputs, ops, x):
    env = []
    for s in stmts:
        env.append(ops[s[0]](s, env, x))
    return tuple(env[k] for k in outputs)


@given(programs())
def test_random_programs_match_brute_force(case):
    with patch.object(steps.Pool, "MIN_CELLS", 1):  # every buffer through the pool: reuse on small programs too
        _match_brute_force(case)


def _match_brute_force(case):
    domain, stmts, outputs = case
    event(f"statements: {len(stmts)}")
    reference = lambda x, choose: _run(stmts, outputs, _reference_ops(choose), x)  # noqa: E731
    expected = {x: brute.distribution(reference, x) for x in domain.values()}
    for exact, as_number in ((True, Fraction), (False, float)):
        ops = _dsl_ops(as_number)
        prog = Program("random", domain, lambda x: _run(stmts, outputs, ops, x))
        for backend in ("bdd", "sdd"):
            compiled = compile_program(prog, backend)
            if backend == "bdd" and exact:
                event(f"bdd nodes: {compiled.size // 20 * 20}-{compiled.size // 20 * 20 + 19}")
            ys = tuple(compiled.shape.values())
            table = inference(compiled, exhaustive_inference(domain, ys), exact=exact)
            for x, dist in expected.items():
                assert set(dist) <= set(ys)
                got = {y: table.probability(x, y) for y in ys}
                if exact:
                    assert all(got[y] == dist.get(y, 0) for y in ys), (stmts, outputs, x, backend)
                    assert sum(got.values()) == 1
                else:
                    assert all(abs(got[y] - float(dist.get(y, 0))) <= 1e-12 for y in ys), (stmts, outputs, x)
                    assert abs(sum(got.values()) - 1) <= 1e-12


EXTREME = [1e-300, 1e-200, 2.5e-100, 1e-20, 1e-9, 0.3, 0.5, 1 - 1e-9, 1 - 1e-16]


@st.composite
def extreme_programs(draw):
    """Programs of the generator above with float weights as small as 1e-300 and as close to 1 as 1 - 1e-16."""
    domain, stmts, outputs = draw(programs())
    out = []
    for s in stmts:
        if s[0] == "flip" or s[0] == "count":
            s = s[:-1] + (draw(st.sampled_from(EXTREME)),)
        elif s[0] == "discrete" and len(s[1]) > 1:
            tiny = draw(st.sampled_from(EXTREME[:5]))
            keys = sorted(s[1])
            s = ("discrete", {k: (tiny if j < len(keys) - 1 else 1 - tiny * (len(keys) - 1))
                              for j, k in enumerate(keys)})
        out.append(s)
    return domain, out, outputs


def _float_ops():
    ops = _dsl_ops(float)
    ops["discrete"] = lambda s, env, x: discrete({k: float(p) for k, p in s[1].items()})
    return ops


@given(extreme_programs())
def test_float_mode_matches_exact_binary_mode_at_extreme_weights(case):
    """Every P(y|x) that is a normal float agrees to 1e-12 (relative) with the exact value of the same binary
    floats; zeros are exact zeros; the tight epsilon agrees to 1e-12 (relative) when finite."""
    from wmcdp import synthesize_privacy
    domain, stmts, outputs = case
    ops = _float_ops()
    prog = Program("extreme", domain, lambda x: _run(stmts, outputs, ops, x))
    for backend in ("bdd", "sdd"):
        floats = compile_program(prog, backend)
        binary = compile_program(prog, backend, exact_floats=True)
        ys = tuple(floats.shape.values())
        I = exhaustive_inference(domain, ys)
        got, want = inference(floats, I, exact=False), inference(binary, I, exact="binary")
        event(f"{backend}: {getattr(got.arith, '__name__', type(got.arith).__name__)}")
        for x in domain.values():
            for y in ys:
                f, e = got.probability(x, y), want.probability(x, y)
                if e == 0:
                    assert f == 0, (stmts, x, y)
                elif e >= Fraction(2.0 ** -1022):
                    assert abs(Fraction(f) - e) <= Fraction(1, 10 ** 12) * e, (stmts, x, y, f, float(e))
        pf = synthesize_privacy(floats, exact=False)
        pe = synthesize_privacy(binary, exact="binary")
        if pe.epsilon == float("inf"):
            assert pf.epsilon == float("inf")
        else:
            assert abs(pf.epsilon - pe.epsilon) <= 1e-12 * max(abs(pe.epsilon), 1e-3), (stmts, pf, pe)
