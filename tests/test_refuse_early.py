"""Early refusals where wmcdp used to crash or run for minutes: runs-form counts past the domain and non-ASCII
digits, huge ``--times`` counts, inputs too many to enumerate, and the hub plan on noises with zero-weight values
or gaps in their support.

Each refusal runs through ``wmcdp.cli.main`` (exit status 2, one line ``wmcdp: error: ...`` under 200 characters,
within a few seconds) and, where there is one, through the API (a :class:`WmcdpError`). Answers are compared with
a brute-force enumeration (tests/brute.py), the exhaustive sets or a closed form.
"""

import itertools
import json
import math
import time
from fractions import Fraction as F

import brute
import pytest

import wmcdp.compile as compile_module
from wmcdp import Bits, IntVector, Program, WmcdpError, discrete, flip, ite, synthesize_privacy, synthesize_renyi
from wmcdp.cli import main
from wmcdp.compile import MAX_COMPILE_LOOKUPS, compile_program, compile_trace
from wmcdp.lang.program import MAX_ENTRIES
from wmcdp.lang.registry import build_program
from wmcdp.lang.relations import neighbour_relation
from wmcdp.lang.shape import read_witness
from wmcdp.lang.subsampling import subsample
from wmcdp.notions.approximate import synthesize_approximate
from wmcdp.notions.sequence import MAX_WORK, compose_approximate, power_work
from wmcdp.plan.hub import HUB_SECONDS, MAX_OUTPUTS, Diagrams, find_blocks, hub_estimate, hub_plan
from wmcdp.lang.sets import MAX_PAIRS
from wmcdp.plan.planner import UNFIT_DETECTION_WORK, Budget, unfit_work
from wmcdp.plan import shuffled_rr
from wmcdp.plan.shuffled_rr import MAX_TERMS, Binary, window_terms, worst_delta
from wmcdp.plan.symmetry.runs import privacy_plan

#: seconds a refusal may take (the work is estimated before anything is allocated)
QUICK = 10.0

RR3 = ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/4"]


def _refused(capsys, argv, *words):
    """Run ``argv``; it must be refused in one line naming ``words``, quickly."""
    start = time.perf_counter()
    code = main(argv)
    seconds = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("wmcdp: error: ") and err.count("\n") <= 1 and "Traceback" not in err
    assert len(err.strip()) < 200, err
    assert seconds < QUICK, seconds
    for word in words:
        assert word in err, err
    return err


# -- the runs form ------------------------------------------------------------------------------


def test_a_run_past_the_domain_is_refused(capsys):
    _refused(capsys, [*RR3, "--at", "0^99999999999999999999"], "more than 3 entries", "99999999999999999999")
    _refused(capsys, [*RR3, "--at", "(0^4)"], "more than 3 entries")


def test_sample_input_run_past_the_domain_is_refused(capsys):
    argv = ["sample", "randomized_response", "-p", "n=3", "-p", "lam=1/4", "-k", "10", "--input"]
    _refused(capsys, [*argv, "0^99999999999999999999"], "more than 3 entries")
    _refused(capsys, [*argv, "0^\u0662\u0660\u0660"])  # Arabic-Indic digits: 200


@pytest.mark.parametrize("text", ["0^\u0663", "\u0660\u0661\u0660", "0,\u0661,0", "0^3\u0663"])
def test_runs_forms_and_digit_strings_take_ascii_digits_only(capsys, text):
    _refused(capsys, [*RR3, "--at", text])


def test_the_runs_form_reader_refuses_before_it_builds():
    with pytest.raises(WmcdpError, match="more than 3 entries"):
        read_witness("0^99999999999999999999", most=3)
    with pytest.raises(WmcdpError, match="more than 5 entries"):
        read_witness("(1^3, 2^3)", most=5)
    with pytest.raises(WmcdpError):
        read_witness("1^\u0663")
    assert read_witness("0^3 1", most=4) == (0, 0, 0, 1)
    assert read_witness("(2^2, [0^4 1])", most=5) == (2, 2, (0, 0, 0, 0, 1))


# -- domains too large to trace ------------------------------------------------------------------------------


def test_an_input_vector_past_the_entry_limit_is_refused(capsys):
    _refused(capsys, ["privacy", "randomized_response", "-p", "n=1000000000000", "-p", "lam=1/4"], "1000000000000")
    with pytest.raises(WmcdpError, match="over the limit of 1048576 entries"):
        IntVector(MAX_ENTRIES + 1, 0, 2)
    assert IntVector(MAX_ENTRIES, 0, 2).n == MAX_ENTRIES


@pytest.mark.parametrize("params", [["m=2", "eps0=1"], ["m=1", "alpha=1/2"]])
def test_a_compilation_past_its_work_limit_is_refused_early(capsys, params):
    """Sparse vector, n = 1000: the gate-by-gate compilation, quadratic in n, ran for minutes (with m = 1, about
    4e7 diagram operations, within the limit of a compilation alone, then the hub plan for minutes more). Its inputs
    alone put the exhaustive sets over the limits, so the compilation may take no more than the work the plans
    share: its work extrapolated from the first gates is refused within seconds."""
    argv = ["privacy", "sparse_vector", "-p", "n=1000", "-p", "T=1", "-p", "N=1"]
    for p in params:
        argv += ["-p", p]
    _refused(capsys, argv, "1000 entries read", "diagram operations", f"limit {UNFIT_DETECTION_WORK:.2g}")


def test_the_compilation_limit_is_the_plans_work_only_when_no_exhaustive_run_is_possible():
    """Inputs alone over the pair limit: the plans' shared work; otherwise a compilation's own limit."""
    big = build_program("sparse_vector", {"n": 40, "m": 1, "T": 1, "N": 1, "alpha": "1/2"})
    small = build_program("sparse_vector", {"n": 4, "m": 1, "T": 1, "N": 1, "alpha": "1/2"})
    assert big.inputs.size > MAX_PAIRS >= small.inputs.size
    assert unfit_work(big) == UNFIT_DETECTION_WORK < MAX_COMPILE_LOOKUPS and unfit_work(small) is None


def test_the_compile_extrapolation_refuses_only_past_the_limit(monkeypatch):
    """A small compilation is never refused; with the limit lowered the same program is, naming its size (the
    estimate is within a factor of four of the operations counted on the whole compilation)."""
    program = build_program("sparse_vector", {"n": 60, "m": 2, "T": 1, "N": 1, "eps0": 1})
    compiled = compile_trace(program, program.trace())
    lookups = compiled.backend.lookups()
    monkeypatch.setattr(compile_module, "MAX_COMPILE_LOOKUPS", lookups // 4)
    with pytest.raises(WmcdpError, match="60 entries read"):
        compile_trace(program, program.trace())
    monkeypatch.setattr(compile_module, "MAX_COMPILE_LOOKUPS", lookups * 4)
    assert compile_trace(program, program.trace()).size == compiled.size


def test_rr_on_3_of_30_records_is_refused_sooner(capsys):
    """Randomized response on 3 of 30 records (2^30 inputs): symmetry detection spent its whole budget (49 s of CPU,
    56-84 s on a loaded machine) before the refusal; candidates are now refuted by samples and by one batch of
    probe counts before a walk over the circuit, and the per-output groups stop once they cannot fit."""
    argv = ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/4", "--subsample-n", "30"]
    start = time.perf_counter()
    code = main(argv)
    seconds = time.perf_counter() - start
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("wmcdp: error: ") and err.count("\n") == 1, err
    assert "257698037760 triples" in err and "trivial" in err
    assert seconds < 3 * QUICK, seconds


@pytest.mark.parametrize("limit", [1000, 5000, 10**5])
def test_per_output_groups_stop_only_when_they_cannot_fit(limit):
    """The per-output groups stop as soon as those proved and the largest the others could have pass the limit:
    only when all of them, proved, would pass it too (RR on 3 of 8 records: 16384 triples)."""
    program = subsample(build_program("randomized_response", {"n": 3, "lam": F(1, 4)}), n=8)
    whole = privacy_plan(program)
    assert whole.outputs is not None
    plan = privacy_plan(program, limit=limit)
    triples = whole.sizes()[0]
    assert (plan.outputs is None) == (triples > limit)
    assert plan.sizes()[0] == triples == 16384


def test_the_hub_hands_over_when_forming_its_output_events_passes_the_budget():
    """Sparse vector's output events are formed by conjoining every prefix's event with each leaf value (work about
    n^3: at n = 200 it ran for minutes): the conjoined nodes are charged to the detection budget, and past it the
    hub hands the program on (None); without a budget the same plan answers, its estimate counting that work."""
    trace = build_program("sparse_vector", {"n": 12, "m": 2, "T": 1, "N": 1, "eps0": 1}).trace()
    answer = hub_plan(trace, 3, "all-entries", False, None)
    assert answer is not None and answer.operations > 0
    budget = Budget(answer.operations // 2)
    assert hub_plan(trace, 3, "all-entries", False, budget) is None
    assert budget.spent > budget.work
    assert hub_plan(trace, 3, "all-entries", False, Budget(4 * answer.operations + 4 * answer.work)) is not None
    events = HUB_SECONDS["operation"] * answer.operations
    assert hub_estimate(answer, 3, 1) > events > 0


@pytest.mark.parametrize("share", [0.2, 0.5, 0.9])
def test_forming_the_output_events_stops_at_the_conjunction_that_passes_the_work(share):
    """The work is checked at every conjunction, not once per output leaf: at n = 30 a leaf's round conjoins some
    6,000 nodes, a stop overshoots its work by one prefix's event (a few dozen nodes)."""
    trace = build_program("sparse_vector", {"n": 30, "m": 1, "T": 1, "N": 1, "alpha": "1/2"}).trace()
    answer = hub_plan(trace, 2, "all-entries", False, None)
    assert answer is not None
    work = int(share * answer.operations)
    d = Diagrams(trace, find_blocks(trace).order)
    assert d.events(MAX_OUTPUTS, work) is None
    assert 0 < d.operations - work <= answer.operations // 1000


@pytest.mark.parametrize("work", [1000, 100000])
def test_symmetry_detection_stops_at_its_budget(work):
    """Sparse vector has no symmetry: each transposition of adjacent entries is refuted or abandoned in turn. Past
    the budget, eight joins abandoned in a row end the search, so detection spends its budget and about eight
    joins more, not a proof attempt per entry pair (at n = 40: 10.9 million nodes without a budget, 0.25 million
    with a budget of 1000 when every adjacent pair was tried)."""
    whole = compile_program(build_program("sparse_vector", {"n": 40, "m": 1, "T": 1, "N": 1, "alpha": "1/2"}))
    budget = Budget(work)
    sym = privacy_plan(whole, neighbour_relation("all-entries"), budget=budget)
    assert sym.symmetry.describe().startswith("trivial")
    assert work <= budget.spent <= work + 100_000


# -- data-centric bounds of a product, part by part --------------------------------------------------------

LAMS = (F(1, 4), F(1, 3), F(1, 5), F(2, 5))


def _rr_product():
    """Randomized response with a flip probability of its own per bit, and its reference."""

    def body(x):
        return tuple(x[i] ^ flip(lam) for i, lam in enumerate(LAMS))

    def reference(x, choose):
        return tuple(x[i] ^ brute.flip(choose, lam) for i, lam in enumerate(LAMS))

    return Program("rr4", Bits(len(LAMS)), body, neighbours="hamming"), reference


def _data_centric(reference, x0, value):
    """The largest ``value(P(.|x), P(.|x'))`` over the pairs ``(x0, x')`` and ``(x', x0)``, by brute force."""
    p0 = brute.distribution(reference, x0)
    out = []
    for i in range(len(x0)):
        xp = tuple(1 - v if j == i else v for j, v in enumerate(x0))
        q = brute.distribution(reference, xp)
        out += [value(p0, q), value(q, p0)]
    return max(out)


def _ratio(p, q):
    return max(math.inf if q.get(y, 0) == 0 else a / q[y] for y, a in p.items() if a)


def test_rr_n_200_at_one_database_answers_by_its_parts(capsys):
    """The data-centric ε of randomized response at 1 0^199 is one entry's, ln((1 - λ)/λ); δ(0) is the total
    variation distance of one entry's two rows, 1 - 2λ; D_2 = ln((1 - λ)^2/λ + λ^2/(1 - λ)) (before, the pair
    notions refused: "more array axes than 32")."""
    lam = F(1, 4)
    rr = ["randomized_response", "-p", "n=200", "-p", "lam=1/4", "--at", "1 0^199", "--json"]
    start = time.perf_counter()
    outs = []
    for argv in (["privacy", *rr], ["approx", *rr, "--epsilon", "0"], ["renyi", *rr, "--orders", "2"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, err
        outs.append(json.loads(out))
    assert time.perf_counter() - start < 3 * QUICK
    privacy, approx, renyi = outs
    assert F(privacy["ratio_exact"]) == (1 - lam) / lam
    assert privacy["plan"]["kind"] == "product"
    assert F(approx["delta_exact"]) == 1 - 2 * lam
    d2 = math.log((1 - lam) ** 2 / lam + lam**2 / (1 - lam))
    assert renyi["orders"][0]["epsilon"] == pytest.approx(d2, rel=1e-12)
    for r in outs:
        witness = r.get("witness") or r["orders"][0]["witness"]
        x, xp = witness["x"], witness["x_prime"]
        assert [1] + [0] * 199 in (x, xp) and sum(a != b for a, b in zip(x, xp)) == 1


def test_rr_n_20_at_one_database_is_quick(capsys):
    start = time.perf_counter()
    code = main(["privacy", "randomized_response", "-p", "n=20", "-p", "lam=1/4", "--at", "1 0^19"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "epsilon       1.098612289" in out and "product" in out
    assert time.perf_counter() - start < QUICK


@pytest.mark.parametrize("x0", [(1, 0, 1, 1), (0, 0, 0, 0), (0, 1, 1, 0)])
@pytest.mark.parametrize("exact", [True, False])
def test_a_product_at_one_database_is_its_worst_part(x0, exact):
    """ε, δ(ε) and D_2 at x0, part by part, against brute force and (ε) the exhaustive data-centric sets; the
    witness is a data-centric pair and an output that x produces, recounted on the whole program."""
    program, reference = _rr_product()
    prog = (
        program
        if exact
        else Program("rr4", Bits(4), lambda x: tuple(x[i] ^ flip(float(l)) for i, l in enumerate(LAMS)))
    )
    r = synthesize_privacy(prog, at=x0)
    truth = _data_centric(reference, x0, _ratio)
    whole = synthesize_privacy(prog, "exhaustive", at=x0)
    assert r.plan is not None and r.plan.kind == "product"
    if exact:
        assert r.ratio == truth == whole.ratio
    else:
        assert r.epsilon == pytest.approx(math.log(truth), rel=1e-12) == whole.epsilon
    w = r.witness
    assert x0 in (w.x, w.x_prime) and sum(a != b for a, b in zip(w.x, w.x_prime)) == 1
    a, b = brute.distribution(reference, w.x).get(w.y, 0), brute.distribution(reference, w.x_prime).get(w.y, 0)
    assert a > 0 and a / b == truth
    if exact:
        assert (r.p_x, r.p_x_prime) == (a, b)
    else:
        assert (r.p_x, r.p_x_prime) == (pytest.approx(float(a), rel=1e-12), pytest.approx(float(b), rel=1e-12))
    t = math.e
    delta = synthesize_approximate(prog, epsilon=1, at=x0)
    assert float(delta.delta) == pytest.approx(
        float(_data_centric(reference, x0, lambda p, q: brute.hockey(p, q, t))), rel=1e-12
    )
    d2 = synthesize_renyi(prog, [2], at=x0).orders[0].epsilon
    assert d2 == pytest.approx(_data_centric(reference, x0, lambda p, q: brute.renyi(p, q, 2)), rel=1e-12)


def test_a_symbolic_product_at_one_database_stays_one_program(capsys):
    """A bound as a function of a parameter at x0 is the whole program's pieces: e^eps = (1 - lam)/lam."""
    argv = ["privacy", "randomized_response", "-p", "n=3", "--symbolic", "lam=1/10:1/3", "--at", "100"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "e^eps = (1 - lam)/lam" in out and "Traceback" not in err


# -- long compositions ----------------------------------------------------------------------------------------

HUGE = "1000000000000000000000000000000"
RR1 = ["approx", "randomized_response", "-p", "n=1", "-p", "lam=1/4", "--epsilon", "1"]


@pytest.mark.parametrize("lam", ["1/4", "0.25"])
def test_times_past_the_work_limit_is_refused_at_once(capsys, lam):
    argv = ["approx", "randomized_response", "-p", "n=1", "-p", f"lam={lam}", "--epsilon", "1", "--times", HUGE]
    _refused(capsys, argv, f"composing {HUGE} runs", "compose fewer runs")


def test_a_steps_file_past_the_work_limit_is_refused_at_once(capsys, tmp_path):
    path = tmp_path / "steps.json"
    path.write_text(f'[{{"program": "randomized_response", "params": {{"n": 1, "lam": "1/4"}}, "times": {HUGE}}}]')
    _refused(capsys, ["approx", "--steps", str(path), "--epsilon", "1"], f"composing {HUGE} runs")


def test_compose_approximate_refuses_past_the_work_limit():
    rr = build_program("randomized_response", {"n": 1, "lam": F(1, 4)})
    start = time.perf_counter()
    with pytest.raises(WmcdpError, match="compose fewer runs"):
        compose_approximate([(rr, 10**30)], epsilon=1)
    with pytest.raises(WmcdpError, match="compose fewer runs"):
        compose_approximate([(rr, 10**8), (rr, 3)], epsilon=1)
    assert time.perf_counter() - start < QUICK


def test_the_work_estimate_follows_the_plan_of_the_bracket():
    """Multinomial outcomes with their log-factorials while they are few, else the repeated squaring's products
    (two losses: a j-fold power has j + 1 of them until the limit binds)."""
    assert power_work(2, 1, 1 << 20) == 0
    assert power_work(2, 1000, 1 << 20) == 16 * 1000 + 1001 * 2
    # 2^28 runs of two losses: 2^28 + 1 outcomes are too many, so 28 squarings of 2^j + 1 clusters, capped at 2^20
    squares = sum(min(1 << 20, (1 << j) + 1) ** 2 for j in range(28))
    assert power_work(2, 1 << 28, 1 << 20) == squares > MAX_WORK


# -- shuffled reports ---------------------------------------------------------------------------------------


def test_shuffled_reports_past_the_work_limit_are_refused(capsys, monkeypatch):
    """A million users of binary randomized response (ratio 3) at ε = 0.5 form 2.6e8 window entries (about 25 s):
    past the limit the search is refused; the limit is lowered here so that the refusal comes at once."""
    monkeypatch.setattr(shuffled_rr, "MAX_TERMS", 1 << 20)
    argv = ["approx", "kary_rr", "-p", "n=1", "-p", "k=2", "-p", "ratio=3", "--shuffle", "1e6", "--epsilon", "0.5"]
    _refused(capsys, argv, "1000000 shuffled users", f"more than {1 << 20} binomial terms")


def test_the_shuffled_search_refuses_before_its_windows_pass_the_limit(monkeypatch):
    b = Binary(F(1, 4), F(3, 4))
    formed = []
    monkeypatch.setattr(shuffled_rr, "window_terms", lambda *a: formed.append(window_terms(*a)) or formed[-1])
    monkeypatch.setattr(shuffled_rr, "MAX_TERMS", 1 << 20)
    with pytest.raises(WmcdpError, match="binomial terms"):
        worst_delta(10**6, b, 0.5)
    assert sum(formed[:-2]) <= 1 << 20 < sum(formed)  # the configuration that would pass it was not evaluated
    assert window_terms(10, F(1, 4), 100.0) == 11  # at most the N + 1 values


def test_the_shuffled_search_answers_the_documented_scale():
    """ε(δ = 1e-6) of binary RR at λ = 1/4 over 10^5 users (docs/beyond.md) evaluates δ at ε = 0.011347: a search
    of about 1e7 window entries (2 s), within the limit."""
    b = Binary(F(1, 4), F(3, 4))
    assert -14.3 < worst_delta(10**5, b, 0.0113471887757990).log < -13.5
    assert worst_delta(1000, b, 0.5).log < 0  # a thousand users answer


# -- the hub plan on noises with zero-weight values and gaps in their support ----------------------------------


def _gap_chain(n, m, noise, threshold):
    """A gap-releasing chain: ``x_i + noise - t`` where it is at least the noisy threshold ``t``, else -9; and its
    plain-Python reference."""

    def body(x):
        t = discrete(threshold)
        return tuple(ite(x[i] + discrete(noise) >= t, x[i] + discrete(noise) - t, -9) for i in range(n))

    def reference(x, choose):
        t = choose(threshold)
        return tuple(x[i] + choose(noise) - t if x[i] + choose(noise) >= t else -9 for i in range(n))

    return Program("gap_chain", IntVector(n, 0, m), body, neighbours="all-entries"), reference


def _svt(n, m, noise, threshold):
    """Sparse-vector answers ``x_i + noise >= T + threshold noise`` (T = 1), and the reference."""

    def body(x):
        t = 1 + discrete(threshold)
        return tuple(x[i] + discrete(noise) >= t for i in range(n))

    def reference(x, choose):
        t = 1 + choose(threshold)
        return tuple(int(x[i] + choose(noise) >= t) for i in range(n))

    return Program("svt", IntVector(n, 0, m), body, neighbours="all-entries"), reference


def _noisy_max(n, m, noise):
    """The index of the largest ``x_i + noise`` (lowest on ties), and the reference."""

    def body(x):
        index, best = 0, x[0] + discrete(noise)
        for i in range(1, n):
            v = x[i] + discrete(noise)
            index, best = ite(v > best, i, index), ite(v > best, v, best)
        return index

    def reference(x, choose):
        values = [x[i] + choose(noise) for i in range(n)]
        return values.index(max(values))

    return Program("noisy_max", IntVector(n, 0, m), body, neighbours="all-entries"), reference


def _all_entries(m, n):
    def neighbours(x):
        for xp in itertools.product(range(m + 1), repeat=n):
            if xp != x and all(abs(a - b) <= 1 for a, b in zip(x, xp)):
                yield xp

    return neighbours


#: noises with a zero-weight value or a gap in the support (the programs the hub plan crashed on), and
#: deterministic ones (every weight 0 or 1): values that only input codes past the domain's reach
GAPPED = [
    ("gap chain", _gap_chain, (3, 2, {0: F(0), 2: F(1, 4), 3: F(3, 4)}, {-2: F(1), 0: F(0), 1: F(0)})),
    ("gap chain", _gap_chain, (3, 2, {-1: F(1), 1: F(0)}, {-2: F(1), -1: F(0)})),
    ("gap chain", _gap_chain, (2, 2, {-1: F(0), 1: F(0), 2: F(0), 3: F(1)}, {-1: F(1)})),
    ("gap chain", _gap_chain, (2, 2, {-2: F(1, 4), 0: F(1, 2), 2: F(1, 4)}, {-1: F(1, 2), 1: F(1, 2)})),
    ("svt", _svt, (3, 2, {-1: F(0), 0: F(0), 1: F(1), 2: F(0)}, {1: F(1), 2: F(0)})),
    ("svt", _svt, (3, 2, {-2: F(1, 4), 0: F(1, 2), 2: F(1, 4)}, {-1: F(0), 0: F(1, 2), 2: F(1, 2)})),
    ("noisy max", _noisy_max, (3, 2, {-2: F(1, 4), -1: F(0), 0: F(1, 2), 2: F(1, 4)})),
    ("noisy max", _noisy_max, (3, 2, {-1: F(0), 1: F(1, 3), 3: F(2, 3)})),
]


@pytest.mark.parametrize("name, factory, args", GAPPED, ids=[f"{g[0]}-{i}" for i, g in enumerate(GAPPED)])
def test_the_hub_plan_takes_zero_weights_and_gaps(name, factory, args):
    """The hub plan's ratio (exact and float) is the brute-force tight ratio and the exhaustive sets' one."""
    program, reference = factory(*args)
    n, m = args[0], args[1]
    truth = brute.tight_ratio(reference, list(itertools.product(range(m + 1), repeat=n)), _all_entries(m, n))
    assert synthesize_privacy(program, "exhaustive").ratio == truth
    answer = hub_plan(program.trace(), m + 1, "all-entries", True, None)
    assert answer is not None
    best = answer.best
    assert (F(0) if best.num == 0 else float("inf") if best.den == 0 else best.num / best.den) == truth
    x = tuple(best.x.get(e, 0) for e in range(n))
    xp = tuple(best.x_prime.get(e, 0) for e in range(n))
    a, b = brute.distribution(reference, x).get(best.y, 0), brute.distribution(reference, xp).get(best.y, 0)
    assert (best.num, best.den) == (a, b) and a > 0
    floats = hub_plan(program.trace(), m + 1, "all-entries", False, None)
    assert floats is not None
    assert floats.best.log == (math.inf if b == 0 else pytest.approx(math.log(a / b), rel=1e-12, abs=1e-12))
