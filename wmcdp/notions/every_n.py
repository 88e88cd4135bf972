"""Pure ε of a program family at every input size n: the exact ε(n) at the sizes computed, and a proved statement.

``every_n(family, up_to=N)`` runs the tight pure ε (Algorithm 2 through the planner) of ``family(n)`` for
``n = start .. N`` and then looks for a statement about every n. For a chain (a state carried from entry to
entry, :mod:`wmcdp.plan.chain`) the state pairs at each block boundary are lumped into classes of equal futures
(:mod:`wmcdp.plan.chain_classes`); where consecutive boundaries have the same rows the chain is the power of one
max-times matrix ``M`` between a prefix vector ``P`` and a suffix vector ``S``,

    e^ε(n) = P ⊗ M^(n - d) ⊗ S    (d the prefix's and suffix's blocks),

and when ``P``, ``M``, ``S`` and ``d`` are the same at every size from ``n0`` to ``N`` (at least
:data:`MIN_SIZES` of them) the family is taken to repeat that block at every larger size. The cyclicity of
max-times powers (:mod:`wmcdp.base.maxtimes`) then gives ``e^ε(n)`` in closed form for every ``n`` past a
transient: ``q^((n - n1) // c) * base[(n - n1) % c]``. The statement says whether ε(n) is bounded (``q <= 1``:
its supremum and where it is attained) or grows (``q > 1``: by ``ln q / c`` per entry). Its certificate —
``P, M, S, d``, the transient, period and factor, and the sizes checked — is re-verified by :func:`check_every_n` from
the certificate alone and against the per-size ε(n) computed independently by the planner (a test mutates each
field). Each statement also carries a witness family, a rule giving ``(x_n, x'_n, y_n)`` at every n that attains
``e^ε(n)`` at every computed size (:mod:`.witness_rule`), or the reason there is none. Programs that are not
chains, and chains whose lumped steps do not settle, get the per-size values and the reason no statement is made,
and, when each size's output begins with the one before's, the lower bounds that gives at every larger size
(:mod:`.extension`: ε is then non-decreasing in n); a program with noise on all of the integers gets each size's
certified bracket of ε and those lower bounds. A program that declares its law as a shared noisy threshold (the
sparse vector family) gets an upper bound of ε at every n from an alignment of its threshold (:mod:`.alignment`);
one that releases its noisy maximum, a witness family along which ε(n) grows by a closed form (:mod:`.growth`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.maxtimes import Period, Ratio, dot, factor, find_period, matrix_of, row_times, sequence, times_column
from ..compile import compile_program
from ..lang.program import Program
from ..lang.relations import neighbour_relation
from ..lang.shared_noise import SharedThreshold
from ..lang.unbounded import UnboundedDraw
from ..lang.values import Bool
from ..plan.chain_classes import ClassChain, class_chains
from .alignment import Alignment, find_alignment
from .extension import Extension, Lower, check_extension, find_extension
from .growth import Growth, find_growth
from .privacy import synthesize_privacy
from .windowed import UnboundedRelease, run_at
from .witness_rule import Recount, WitnessRule, find_rule, rule_problems

#: the fewest consecutive sizes whose lumped chains must agree before a statement about every n is made
MIN_SIZES = 3
#: the longest transient plus period searched, and the longest period
LONGEST, WIDEST = 400, 32
#: the largest size computed
MAX_SIZE = 400
#: the longest period of repeating block boundaries sought (SmartSum restarts every M entries: period M)
MAX_PERIOD = 8
#: the sizes up to which a size refused for pure ε gets a lower end over a windowed witness, and that window
WITNESS_SIZES, WITNESS_HALF_WIDTH = 6, 3


@dataclass(frozen=True)
class Size:
    """Pure ε of ``family(n)``: ``epsilon``, the exact ``ratio`` e^ε, its witness ``(x, x', y)``, the plan that
    answered and the seconds it took (compiling, planning and lumping the chain). A program with noise on all of
    the integers has the certified bracket ``interval`` of ε instead (``epsilon`` its lower end, ``ratio`` None)."""

    n: int
    epsilon: float
    ratio: Ratio | None
    witness: tuple[Any, Any, Any]
    plan: str
    seconds: float
    interval: tuple[float, float] | None = None

    @property
    def exact(self) -> Ratio:
        """The exact ``e^ε`` (a closed form is made from exact sizes only)."""
        if self.ratio is None:
            raise WmcdpError(f"at n = {self.n} eps is a bracket in windows, not exact")
        return self.ratio


@dataclass(frozen=True)
class Direction:
    """One search direction's part of a certificate, for the sizes ``n = offset + modulus * j``: ``e^ε(n) = P ⊗
    M^j ⊗ S`` (``prefix`` ``P`` and ``suffix`` ``S`` over ``matrix``'s classes; ``M`` one period of ``modulus``
    blocks) with the ``period`` of the forward vectors ``P ⊗ M^j`` (``forward``) or the backward ``M^j ⊗ S``."""

    prefix: tuple[tuple[int, Ratio], ...]
    matrix: tuple[tuple[tuple[int, Ratio], ...], ...]
    suffix: tuple[tuple[int, Ratio], ...]
    offset: int
    forward: bool
    period: Period
    modulus: int = 1

    def covers(self, n: int) -> bool:
        """Whether size ``n`` is one of this direction's, ``offset + modulus * j`` with ``j >= 0``."""
        return n >= self.offset and (n - self.offset) % self.modulus == 0

    def ratio(self, n: int) -> Ratio:
        """``e^ε`` of this direction at size ``n``: the closed form past the transient, the product before it."""
        j = (n - self.offset) // self.modulus
        if j >= self.period.transient:
            return self.period.value(j)
        return dot(sequence(dict(self.prefix), matrix_of(self.matrix), j, True)[-1], dict(self.suffix))


@dataclass(frozen=True)
class Statement:
    """What holds for every ``n >= start``: ``e^ε(n)`` is the largest of the ``directions``' closed forms
    (:meth:`ratio`); ``supremum`` (a ratio, ``inf`` when ε grows), ``attained`` (the first n attaining it, None
    when approached or unbounded), ``growth`` (ln of the factor per entry, 0 when bounded), ``sizes`` (the sizes
    whose chains were compared), ``text`` (one sentence) and ``proof`` (``(claim, how proved)`` pairs); ``witness``
    the witness family's rule (:mod:`.witness_rule`), or None and ``witness_reason``."""

    start: int
    directions: tuple[Direction, ...]
    supremum: Ratio
    attained: int | None
    growth: float
    sizes: tuple[int, ...]
    text: str
    proof: tuple[tuple[str, str], ...]
    witness: WitnessRule | None = None
    witness_reason: str | None = None

    def ratio(self, n: int) -> Ratio:
        """``e^ε(n)`` for any ``n >= start``."""
        if n < self.start:
            raise ValueError(f"the statement holds from n = {self.start} on, not at n = {n}")
        return max(d.ratio(n) for d in self.directions if d.covers(n))


@dataclass(frozen=True)
class EveryN:
    """ε of a family at every size: ``sizes`` (the per-size results), ``statement`` (None when none was proved)
    and ``reason`` (why not), the relation and the total seconds; without a statement, ``extension`` (the lower
    bounds of ε at every larger size from outputs that extend, :mod:`.extension`) or ``extension_reason``, and
    ``alignment`` (an upper bound of ε at every n of a declared shared threshold, :mod:`.alignment`) or
    ``alignment_reason``, and ``growth`` (a witness family along which ε(n) grows without bound, :mod:`.growth`)
    or ``growth_reason``."""

    name: str
    params: dict[str, Any]
    relation: str
    sizes: tuple[Size, ...]
    statement: Statement | None
    reason: str | None
    seconds: float
    problems: tuple[str, ...] = field(default=())
    extension: Extension | None = None
    extension_reason: str | None = None
    alignment: Alignment | None = None
    alignment_reason: str | None = None
    growth: Growth | None = None
    growth_reason: str | None = None


def every_n(
    family: Callable[..., Program],
    *,
    up_to: int = 12,
    start: int = 1,
    neighbours: str | None = None,
    **params: Any,
) -> EveryN:
    """Pure ε of ``family(n=n, **params)`` for ``n = start .. up_to`` and a statement for every n (module
    docstring). ``neighbours`` overrides the family's declared relation (a built-in one's name)."""
    if not (isinstance(start, int) and isinstance(up_to, int) and 1 <= start <= up_to <= MAX_SIZE):
        raise WmcdpError(f"every n: sizes must satisfy 1 <= start <= up_to <= {MAX_SIZE}, got {start} .. {up_to}")
    began = time.perf_counter()
    declared, family = family, _components(family)  # a declared law is of the program as written
    first = family(n=start, **params)
    relation = neighbours or (first.neighbours if isinstance(first.neighbours, str) else "")
    sizes, chains = [], {}
    for n in range(start, up_to + 1):
        size, chains[n] = _size(n, first if n == start else family(n=n, **params), relation, neighbours)
        sizes.append(size)
    statement, reason = _statement(chains, tuple(sizes))
    if statement is not None:
        statement = _with_witness(statement, tuple(sizes), _recount(family, params, relation))
    out = EveryN(first.name, dict(params), relation, tuple(sizes), statement, reason, time.perf_counter() - began)
    problems = tuple(check_every_n(out)) if statement is not None else ()
    if problems:  # the statement's own check failed: report no statement, and why
        out = EveryN(out.name, out.params, relation, out.sizes, None, "; ".join(problems), out.seconds, problems)
    if out.statement is None:
        out = _with_bounds(_with_extension(out, family, params), declared, params)
    return replace(out, seconds=time.perf_counter() - began)


def _with_bounds(out: EveryN, family: Callable[..., Program], params: dict[str, Any]) -> EveryN:
    """``out`` with the bounds of a declared law of shared noise: the alignment's upper bound and a growth family
    (each, or why there is none)."""
    bound, why = find_alignment(family, params, out.relation, [s.epsilon for s in out.sizes])
    uppers = [s.epsilon if s.interval is None else s.interval[1] for s in out.sizes]
    grows, grows_why = find_growth(family, params, out.relation, uppers if out.sizes[0].n == 1 else [])
    return replace(out, alignment=bound, alignment_reason=why, growth=grows, growth_reason=grows_why)


def _with_extension(out: EveryN, family: Callable[..., Program], params: dict[str, Any]) -> EveryN:
    """``out`` with the lower bounds of ε at every larger size (:mod:`.extension`), verified, or why there are
    none."""
    lowers = [Lower(s.n, s.epsilon, s.witness, s.ratio) for s in out.sizes]
    ext, why = find_extension(family, params, out.relation, lowers)
    if ext is not None:
        problems = check_extension(ext, lowers, family, params, out.relation)
        if problems:
            ext, why = None, "; ".join(problems)
    return replace(out, extension=ext, extension_reason=why)


def _components(family: Callable[..., Program]) -> Callable[..., Program]:
    """``family`` with each program whose output is one value (an Int, a release) read as a tuple of one component,
    ``y`` as ``(y,)``: the same ε and witness, and the chain plan's blocks (a one-Int output's bits sit above every
    variable, :func:`wmcdp.compile._variable_order`; a component's below the last variable it reads). A program
    that declares its outputs, or a sparse vector's law (a tuple of answers already), is left as it is."""

    def tupled(**params: Any) -> Program:
        program = family(**params)
        if program.outputs is not None or isinstance(program.shared_noise, SharedThreshold):
            return program
        body = program.body

        def one_component(x: Any) -> object:
            result = body(x)
            return result if isinstance(result, (tuple, list, Bool)) else (result,)

        return replace(program, body=one_component)

    return tupled


def _size(n: int, program: Program, relation: str, neighbours: str | None) -> tuple[Size, list[ClassChain] | None]:
    """Pure ε of one size by the planner, and its lumped chain under ``relation`` (None: no chain), from one
    compilation: the planner is given the compiled program that the chain is read off (``seconds``: both)."""
    began = time.perf_counter()
    try:
        compiled = compile_program(program) if relation else None
    except UnboundedDraw:  # noise on all of the integers: a certified bracket of eps, no chain
        compiled = None
    try:
        r = synthesize_privacy(program if compiled is None else compiled, neighbours=neighbours)
    except UnboundedRelease as exc:  # a released gap or answer: no bracket of this size's eps
        if compiled is not None or not relation:
            raise
        why = str(exc).splitlines()[0]
        low = _witness_lower(program, neighbours) if n <= WITNESS_SIZES else None
        lo, witness = low if low is not None else (0.0, (None, None, None))
        seconds = time.perf_counter() - began
        return Size(n, lo, None, witness, f"refused ({why})", seconds, (lo, math.inf)), None
    w = r.witness
    if r.interval is not None:
        interval = (float(r.interval.lo), float(r.interval.hi))
        plan = getattr(r.plan, "kind", "sets")
        return Size(n, interval[0], None, (w.x, w.x_prime, w.y), plan, time.perf_counter() - began, interval), None
    if not r.exact:
        raise WmcdpError("every n needs exact weights: give the parameters as fractions (alpha=1/2, not 0.5)")
    chains = class_chains(compiled, relation) if compiled is not None else None
    seconds = time.perf_counter() - began
    return Size(n, r.epsilon, r.ratio, (w.x, w.x_prime, w.y), getattr(r.plan, "kind", "sets"), seconds), chains


def _witness_lower(program: Program, neighbours: str | None) -> tuple[float, tuple[Any, Any, Any]] | None:
    """A certified lower end of pure ε of a program refused for it (its output releases an unbounded value): the
    witness of the program with every draw in a window of half-width :data:`WITNESS_HALF_WIDTH`, an output of the
    published program too, bracketed on the published program in both orders of its pair (the larger); None when
    that fails."""
    try:
        w = run_at(program, WITNESS_HALF_WIDTH, "bdd", lambda c: synthesize_privacy(c, neighbours=neighbours)).result
        x, xp, y = w.witness.x, w.witness.x_prime, w.witness.y
        r = synthesize_privacy(program, [(x, xp, y), (xp, x, y)], [(x, y), (xp, y)], neighbours=neighbours, width=1e-3)
    except WmcdpError:
        return None
    return float(r.interval.lo), (r.witness.x, r.witness.x_prime, r.witness.y)


def _recount(family: Callable[..., Program], params: dict[str, Any], relation: str) -> Recount:
    """``recount(n, (x, x', y))``: the exact ratio of the triple on the whole ``family(n)`` (one weighted count of
    each side), None when ``(x, x')`` is not a neighbour pair under ``relation`` or the triple has no ratio."""
    rel = neighbour_relation(relation)

    def recount(n: int, triple: tuple[Any, Any, Any]) -> Ratio | None:
        program = family(n=n, **params)
        x, xp, y = triple
        if not rel.related(program.inputs, x, xp):
            return None
        try:
            r = synthesize_privacy(program, [triple], [(x, y), (xp, y)], neighbours=relation, exact=True)
        except WmcdpError:
            return None
        return r.ratio

    return recount


def _with_witness(st: Statement, sizes: tuple[Size, ...], recount: Recount) -> Statement:
    """``st`` with its witness family's rule (or the reason there is none) in its fields, text and proof."""
    rule, why = find_rule({s.n: s.witness for s in sizes}, {s.n: s.exact for s in sizes}, st.start, recount)
    if rule is None:
        return replace(st, witness_reason=why, text=f"{st.text}; no witness rule ({why})")
    same = [n for n in rule.sizes if n not in rule.recounted]
    how = f"the planner's witness at n = {', '.join(map(str, same)) or 'none'}" + (
        f"; recounted on the whole program at n = {', '.join(map(str, rule.recounted))}" if rule.recounted else ""
    )
    claim = ("the witness family (x_n, x'_n, y_n) attains e^eps(n) at every computed n", how)
    return replace(st, witness=rule, text=f"{st.text}; witness {rule.text}", proof=(*st.proof, claim))


def _statement(
    chains: dict[int, list[ClassChain] | None], sizes: tuple[Size, ...]
) -> tuple[Statement | None, str | None]:
    """The statement for every n from the lumped chains of the sizes computed, or None and the reason."""
    keys: dict[int, tuple[Any, ...]] = {}
    last = max(chains)
    if any(s.interval is not None for s in sizes):
        return None, "noise in windows: eps(n) is a certified bracket at each n, not the exact values of a closed form"
    for n, chain in chains.items():
        key = None if chain is None else _uniform(chain, n)
        if key is not None:
            keys[n] = key
        elif chain is None and n == last:
            return None, (
                f"no chain at n = {n}: the program does not carry one state from entry to entry with a cut of width "
                "one under a built-in relation (shared noise or a hub; every-n bounds for those are not built yet)"
            )
    modulus = keys[last][0][4] if last in keys else 1
    runs = [_last_run(keys, top, modulus) for top in range(last, last - modulus, -1)]
    if min(len(run) for run in runs) < MIN_SIZES:
        return None, (
            f"the lumped chain's steps agree at {min(len(run) for run in runs)} sizes n, n + {modulus}, ... up to "
            f"n = {last}, fewer than {MIN_SIZES}: compute larger sizes (up_to), or the family does not repeat one block"
        )
    directions = []
    for run in runs:
        for prefix, matrix, suffix, offset, step in keys[run[0]]:
            period = _period(prefix, matrix, suffix)
            if period is None:
                return None, "no period of the max-times powers found (parts of the chain grow at different rates)"
            directions.append(Direction(prefix, matrix, suffix, offset, *period, modulus=step))
    compared = sorted(n for run in runs for n in run)
    return _stated(tuple(directions), max(run[0] for run in runs), compared, sizes), None


def _uniform(chains: list[ClassChain], n: int) -> tuple[Any, ...] | None:
    """Per direction ``(P, M, S, offset, p)`` of the longest stretch of boundaries repeating with the shortest
    period ``p`` (at least twice): ``M`` the product of one period's steps, ``P`` up to the stretch, ``S`` from its
    last whole period on; or None."""
    out = []
    for chain in chains:
        found = _stretch(chain.rows)
        if found is None:
            return None
        step, a, e = found
        p: dict[int, Ratio] = {0: 1} if chain.rows[0] else {}
        for k in range(a):
            p = row_times(p, chain.matrix(k))
        m = chain.matrix(a)
        for k in range(a + 1, a + step):
            m = {i: row_times(row, chain.matrix(k)) for i, row in m.items()}
        s: dict[int, Ratio] = {0: 1}
        for k in range(n - 1, e - 1, -1):
            s = times_column(chain.matrix(k), s)
        rows = tuple(tuple(sorted(m[i].items())) for i in range(len(m)))
        out.append((tuple(sorted(p.items())), rows, tuple(sorted(s.items())), n - (e - a), step))
    return tuple(out)


def _stretch(rows: tuple[Any, ...]) -> tuple[int, int, int] | None:
    """``(p, a, e)``: the shortest period ``p <= MAX_PERIOD`` with a stretch ``rows[k] = rows[k + p]`` for ``a <= k <
    e`` of at least ``p`` boundaries (two whole periods), the first longest such stretch, ``e - a`` a multiple of
    ``p``; None when there is none."""
    for step in range(1, MAX_PERIOD + 1):
        best, a = (0, 0), 0
        for k in range(len(rows) - step + 1):
            if k == len(rows) - step or rows[k] != rows[k + step]:
                if k - a > best[1] - best[0]:
                    best = (a, k)
                a = k + 1
        if best[1] - best[0] >= step:
            start, stop = best
            return step, start, start + step * ((stop - start) // step)
    return None


def _last_run(keys: dict[int, tuple[Any, ...]], last: int, step: int) -> list[int]:
    """The sizes ``n0, n0 + step, .., last`` (all in ``keys``) whose keys equal ``last``'s."""
    run: list[int] = []
    n = last
    while n in keys and keys[n] == keys.get(last):
        run.insert(0, n)
        n -= step
    return run


def _period(prefix: Any, matrix: Any, suffix: Any) -> tuple[bool, Period] | None:
    """The period of the forward vectors, else of the backward ones (:func:`~wmcdp.base.maxtimes.find_period`)."""
    m, p, s = matrix_of(matrix), dict(prefix), dict(suffix)
    for forward, begin, end in ((True, p, s), (False, s, p)):
        found = find_period(begin, m, end, forward, LONGEST, WIDEST)
        if found is not None:
            return forward, found
    return None


def _stated(directions: tuple[Direction, ...], start: int, compared: list[int], sizes: tuple[Size, ...]) -> Statement:
    """The statement of ``directions`` from size ``start`` on: its supremum over every n (the sizes below
    ``start`` from the table) and its sentence."""
    growing = [d for d in directions if d.period.factor > 1 and any(b not in (0, math.inf) for b in d.period.base)]
    window = max(d.offset + d.modulus * d.period.transient for d in directions)
    window += math.lcm(*(d.modulus * d.period.period for d in directions))
    probe = Statement(start, directions, 0, None, 0.0, tuple(compared), "", ())
    values = [(s.exact, s.n) for s in sizes if s.n < start]
    values += [(probe.ratio(n), n) for n in range(start, max(start, window) + 1)]
    if growing:
        growth = max(math.log(Fraction(d.period.factor)) / (d.period.period * d.modulus) for d in growing)
        supremum: Ratio = math.inf
        attained = next((n for v, n in values if v == math.inf), None)
    else:
        growth, supremum = 0.0, max(v for v, _ in values)
        attained = next(n for v, n in values if v == supremum)
    text = _sentence(directions, start, supremum, attained, growth)
    return Statement(start, directions, supremum, attained, growth, tuple(compared), text, _proof(directions, compared))


def _form(d: Direction, start: int) -> str:
    """One direction's closed form as text, from size ``start`` on."""
    p = d.period
    n0 = d.offset + d.modulus * p.transient
    first = next(n for n in range(max(start, n0), max(start, n0) + d.modulus) if d.covers(n))
    j = f"n - {n0}" if d.modulus == 1 else f"(n - {n0}) / {d.modulus}"
    base = _text(p.base[0]) if p.period == 1 else f"b[({j}) % {p.period}], b = ({', '.join(map(_text, p.base))})"
    exponent = f"({j})" if p.period == 1 else f"(({j}) // {p.period})"
    power = "" if p.factor == 1 else f" * {_text(p.factor)}^{exponent}"
    sizes = f"n >= {first}" if d.modulus == 1 else f"n = {first}, {first + d.modulus}, ..."
    return f"{base}{power} for {sizes}"


def _sentence(
    directions: tuple[Direction, ...], start: int, supremum: Ratio, attained: int | None, growth: float
) -> str:
    forms = " and ".join(_form(d, start) for d in directions)
    head = f"e^eps(n) = {forms}" if len(directions) == 1 else f"e^eps(n) = the larger of {forms}"
    if supremum == math.inf and growth > 0:
        return f"{head}; eps(n) grows without bound, by {growth:.10g} per entry"
    where = f"attained at n = {attained}" if attained is not None else "approached"
    return f"{head}; sup_n e^eps(n) = {_text(supremum)}, {where}"


def _text(r: Ratio) -> str:
    return "inf" if r == math.inf else str(r)


def _proof(directions: tuple[Direction, ...], compared: list[int]) -> tuple[tuple[str, str], ...]:
    classes = ", ".join(str(len(d.matrix)) for d in directions)
    periods = "; ".join(
        f"{'forward' if d.forward else 'backward'} T = {d.period.transient}, c = {d.period.period}, "
        f"q = {_text(d.period.factor)}"
        for d in directions
    )
    return (
        (
            "the family repeats one block at every size",
            f"the lumped chain's prefix, step matrix ({classes} classes) and suffix are equal at n = "
            f"{', '.join(map(str, compared))} (compared on the compiled diagrams, sizes one period of blocks apart); "
            "larger sizes are taken to repeat the same blocks",
        ),
        (
            "e^eps(n) = P ⊗ M^(n - d) ⊗ S",
            "the chain plan's automaton of state pairs lumped exactly (equal rows into equal classes: a bisimulation "
            "of the max-times automaton)",
        ),
        ("the closed form for every n", f"v_(T + c) = q ⊗ v_T checked exactly ({periods}); later steps by linearity"),
        ("it agrees with the tight eps computed", "equal to the planner's exact e^eps at every size computed"),
    )


def check_every_n(result: EveryN, family: Callable[..., Program] | None = None) -> list[str]:
    """The problems of ``result``'s statement (an empty list: it is verified): each direction's period recomputed
    from its ``P, M, S`` alone, exact and the first one; the closed form equal to every per-size ratio from the
    statement's start on; the sizes compared consecutive, at least :data:`MIN_SIZES`, and computed. With
    ``family`` (and ``result.params``) the lumped chains are recompiled at the compared sizes and must give the
    certificate's ``P, M, S`` and offsets. The witness rule must cover every computed size from the start and give
    the planner's witness there or one recounted (with ``family``: its triple recounted on the whole program at
    every such size, and a neighbour pair of ratio ``e^ε(n)``)."""
    st = result.statement
    if st is None:
        return ["no statement to check"]
    problems = [p for d in st.directions for p in _check_period(d)]
    computed = {s.n for s in result.sizes}
    for d in st.directions:
        run = [n for n in st.sizes if d.covers(n)]
        if len(run) < MIN_SIZES or run != list(range(run[0], run[0] + d.modulus * len(run), d.modulus)):
            problems.append(f"the sizes compared, {run}, are not {MIN_SIZES} or more sizes one period apart")
    first = max((min((n for n in st.sizes if d.covers(n)), default=0) for d in st.directions), default=0)
    if not set(st.sizes) <= computed or st.start != first:
        problems.append(f"the sizes compared, {list(st.sizes)}, are not all computed or do not start at {st.start}")
    if any(not any(d.covers(n) for d in st.directions) for n in range(st.start, st.start + 64)):
        problems.append("some size past the start is covered by no direction")
    for s in result.sizes:
        if s.n >= st.start and not problems:
            claimed = st.ratio(s.n)
            if claimed != s.exact:
                problems.append(f"at n = {s.n} the closed form gives {_text(claimed)}, the planner {_text(s.exact)}")
    family = None if family is None else _components(family)
    if family is not None and not problems:
        problems += _check_sizes(result, family)
    if st.witness is not None and not problems:
        witnesses = {s.n: s.witness for s in result.sizes}
        ratios = {s.n: s.exact for s in result.sizes}
        recount = None if family is None else _recount(family, result.params, result.relation)
        problems += rule_problems(st.witness, witnesses, ratios, st.start, recount)
    return problems


def _check_period(d: Direction) -> list[str]:
    """The period of one direction recomputed (module :mod:`wmcdp.base.maxtimes`)."""
    p = d.period
    if not (p.transient >= 0 and 1 <= p.period <= WIDEST and len(p.base) == p.period and p.factor > 0):
        return [f"malformed period (T = {p.transient}, c = {p.period}, q = {_text(p.factor)})"]
    m, begin, end = (
        matrix_of(d.matrix),
        dict(d.prefix if d.forward else d.suffix),
        dict(d.suffix if d.forward else d.prefix),
    )
    v = sequence(begin, m, p.transient + p.period, d.forward)
    if factor(v[p.transient + p.period], v[p.transient]) != p.factor:
        return [f"v_(T + c) is not {_text(p.factor)} ⊗ v_T (T = {p.transient}, c = {p.period})"]
    if any(dot(v[p.transient + r], end) != b for r, b in enumerate(p.base)):
        return ["the period's readouts are not v_(T + r) ⊗ S"]
    for k in range(1, p.transient + p.period + 1):
        for c in range(1, min(k, WIDEST) + 1):
            if (k, c) < (p.transient + p.period, p.period) and factor(v[k], v[k - c]) is not None:
                return [f"an earlier period exists (T = {k - c}, c = {c}): the certificate's is not the first"]
    return []


def _check_sizes(result: EveryN, family: Callable[..., Program]) -> list[str]:
    """The lumped chains recompiled at the compared sizes give the certificate's directions."""
    st = result.statement
    assert st is not None
    for n in st.sizes:
        want = tuple((d.prefix, d.matrix, d.suffix, d.offset, d.modulus) for d in st.directions if d.covers(n))
        chains = class_chains(compile_program(family(n=n, **result.params)), result.relation)
        if chains is None or _uniform(chains, n) != want:
            return [f"at n = {n} the family's lumped chain is not the certificate's"]
    return []


__all__ = ["Direction", "EveryN", "Size", "Statement", "check_every_n", "every_n"]
