"""Parts independent given the input: outputs that read the same input entries with disjoint random bits.

Several releases of one count (DP-Sniper's LaplaceParallel), or a Bloom filter of one value with each bit
randomized on its own (RAPPOR), split into parts ``c`` that share input entries but no random bit
(:func:`~.parts.split_given_input`, proved on the traced circuit). For every input ``x`` the parts' random bits
are disjoint, so ``P(y | x) = prod_c P_c(y_c | x)``, and for a pair ``(x, x')`` the largest ratio over the
outputs is the product of the parts' largest ratios (each ``y_c`` chosen alone):

    e^eps = max over neighbour pairs (x, x') of prod_c max_{y_c : P_c(y_c | x) > 0} P_c(y_c | x) / P_c(y_c | x'),

a part's ratio infinite when some ``y_c`` has ``P_c(y_c | x) > 0 = P_c(y_c | x')``. (Outputs with
``P(y | x) = 0`` have ratio 0 or are the skipped 0/0; every part has an output with ``P_c(y_c | x) > 0``.)

Each part's table ``P_c(. | x_{E_c})`` is counted once for every value of the entries ``E_c`` it reads (parts
with equal canonical forms once), so the count costs ``sum_c |X_c| |Y_c|`` cells rather than ``|X| prod_c |Y_c|``.
The neighbour pairs are listed (the built-in relations as index arithmetic on input codes, a user relation by its
generator), and each part's largest log-ratio is taken for every distinct pair of its entries' values, in floats.
The largest sum over the parts chooses the witness ``(x, x', y)``, ``y`` the tuple of the parts' maximisers. In
exact mode every pair whose float sum is within a margin far above the sums' rounding of the largest is evaluated
again exactly (Fractions, each part's maximum over all its outputs), and the exact maximum is the bound; in float
mode the witness is recounted. Either way the witness is recounted by the ordinary counter (Algorithm 2 on that
one triple): it must be a neighbour pair with ``P(y | x) > 0`` whose ratio is the plan's value (exactly in exact
mode, within the margin in floats), or the plan is dropped and the planner runs the next one.

The parts and their tables are :mod:`.given_parts`'; the notions over pairs (δ(ε), ε(δ), profiles, Rényi, zCDP)
multiply the parts' loss distributions instead (:mod:`.given_pairs`, :meth:`GivenInputPlan.approximate`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.limits import check
from ..base.numbers import is_symbolic, ratio_times, size_text
from ..compile import Compiled, compile_trace
from ..count.probabilities import Counter, number_system
from ..lang.program import Program, Trace, Vector
from ..lang.relations import MAX_LISTED, Relation, check_relation
from ..lang.sets import MAX_PAIRS, MAX_TRIPLES
from ..lang.shape import leaves
from .costs import CELL_SECONDS, GATE_SECONDS, PREPARE_SECONDS, TRIPLE_SECONDS
from .given_pairs import BOUND, given_pairs, listed_pairs
from .given_parts import MARGIN, GivenInput, Slot, Table, digits_of
from .parts import Part, classes, grouped_trace, part_program, part_trace, split_given_input
from .planner import (
    AT_NOTE,
    PlanReport,
    announce,
    exhaustive_estimate,
    preparation_estimate,
    recount,
)
from .protocol import Plan, Proof, Refused, Setting
from .symmetry.runs import MAX_PAIRS as MAX_LISTED_PAIRS

#: (pair, output) cells of one step of the scan
CHUNK_CELLS = 1 << 22


def _builtin_pairs(relation: Relation, domain: Vector, rows: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The ordered neighbour pairs as input codes, ``rows`` at a time, by the relation's directions."""
    for xa, xb in relation.directions(domain):
        for start in range(0, len(xa), rows):
            yield xa[start : start + rows], xb[start : start + rows]


def _listed_pairs(relation: Relation, domain: Vector, rows: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The ordered neighbour pairs of a relation's generator as input codes, ``rows`` at a time."""
    k = len(domain.entry_values)
    xa: list[int] = []
    xb: list[int] = []
    for x in domain.values():
        for xp in relation.neighbours(domain, x):
            xa.append(_code(x, domain.lo, k))
            xb.append(_code(xp, domain.lo, k))
        if len(xa) >= rows:
            yield np.array(xa, dtype=np.int64), np.array(xb, dtype=np.int64)
            xa, xb = [], []
    if xa:
        yield np.array(xa, dtype=np.int64), np.array(xb, dtype=np.int64)


def _at_pairs(relation: Relation, domain: Vector, at: tuple[int, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The data-centric pairs of the database ``at`` as input codes: ``(x0, x')`` for its neighbours ``x'``, then
    ``(x', x0)`` (the pairs of :func:`~.pairs.pairs_at`, listed without its order's search)."""
    k = len(domain.entry_values)
    near = np.array([_code(xp, domain.lo, k) for xp in relation.neighbours(domain, at)], dtype=np.int64)
    here = np.full(len(near), _code(at, domain.lo, k), dtype=np.int64)
    yield here, near
    yield near, here


def _code(x: tuple[int, ...], lo: int, k: int) -> int:
    code = 0
    for v in x:
        code = code * k + v - lo
    return code


def _compiled_part(program: Program, trace: Trace, part: Part, index: int, backend: str) -> Compiled:
    """The part's own sub-circuit, compiled (:func:`~.parts.part_trace`)."""
    sub = part_program(program, part, index)
    return compile_trace(sub, part_trace(trace, part), backend, exact_floats=trace.circuit.exact_floats)


def _table(compiled: Compiled, k: int, exact: Any) -> Table:
    """The part's table over every value of its entries (``k`` values each)."""
    arith = number_system(compiled, exact)
    m = compiled.domain.n
    digits = digits_of(np.arange(k**m, dtype=np.int64), m, k)
    rows = [row for _, row in Counter(compiled, arith).distributions(digits)]
    values = np.concatenate(rows) if arith.exact else None
    logs = np.concatenate([arith.as_log(row) for row in rows])
    return Table(compiled, arith, logs, values)


def _limits(
    parts: list[Part],
    trace: Trace,
    relation: Relation,
    domain: Vector,
    at: tuple[int, ...] | None,
    listed: Callable[[list[Part]], int] | None = None,
) -> tuple[int, str]:
    """``(neighbour pairs, "")`` when the plan is within its limits, else ``(0, why not)``: more than
    :data:`MAX_LISTED_PAIRS` neighbour pairs (or a user relation over more than ``MAX_LISTED`` inputs), more than
    ``MAX_PAIRS`` cells in the parts' tables (the inference sets' limit), more than ``MAX_TRIPLES`` cells
    (pair, part output) in the scan (the privacy sets' limit). With ``at`` (a database), its data-centric pairs;
    with ``listed``, the pairs it counts instead."""
    k = len(domain.entry_values)
    if at is None and not relation.builtin and domain.size > MAX_LISTED:
        return 0, f"a user relation over more than {size_text(MAX_LISTED)} inputs"
    if listed is not None:
        pairs = listed(parts)
    else:
        pairs = relation.count_pairs(domain) if at is None else 2 * relation.count_neighbours(domain, at)
    if pairs > MAX_LISTED_PAIRS:
        return 0, f"{size_text(pairs)} neighbour pairs (limit {size_text(MAX_LISTED_PAIRS)})"
    shapes = leaves(trace.shape)
    sizes = [math.prod(shapes[leaf].size for leaf in part.leaves) for part in parts]
    cells = sum(k ** len(parts[g.members[0]].entries) * sizes[g.members[0]] for g in classes(parts))
    if cells > MAX_PAIRS:
        return 0, f"{size_text(cells)} cells in the parts' tables (limit {size_text(MAX_PAIRS)})"
    if pairs * sum(sizes) > MAX_TRIPLES:
        return 0, f"{size_text(pairs * sum(sizes))} (pair, part output) cells (limit {size_text(MAX_TRIPLES)})"
    return pairs, ""


def given_input_of(
    program: Program,
    trace: Trace,
    relation: Relation,
    backend: str,
    exact: Any,
    at: tuple[int, ...] | None = None,
    listed: Callable[[list[Part]], int] | None = None,
) -> tuple[GivenInput | None, str]:
    """The program's parts given the input with their tables, or None and why the plan does not apply (fewer than
    two parts; over the limits, :func:`_limits`; ``at``: the data-centric pairs of that database only; ``listed``:
    the count of the pairs a notion over pairs lists, :func:`~.given_pairs.listed_pairs`)."""
    start = time.perf_counter()
    parts = split_given_input(trace)
    if parts is None:
        return None, ""
    pairs, why = _limits(parts, trace, relation, program.inputs, at, listed)
    if why:
        return None, why
    groups = classes(parts)
    k = len(program.inputs.entry_values)
    compiled = [_compiled_part(program, trace, parts[g.members[0]], g.members[0], backend) for g in groups]
    estimate = sum(exhaustive_estimate(c, None) + preparation_estimate(c, True) for c in compiled)
    estimate += _scan_seconds(pairs, parts, groups, compiled) + _recount_seconds(trace)
    tables = [_table(c, k, exact) for c in compiled]
    slots: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for t, group in enumerate(groups):
        for m in group.members:
            slots.setdefault((t, parts[m].entries), []).append(m)
    slot_list = [Slot(t, entries, tuple(members)) for (t, entries), members in slots.items()]
    given = GivenInput(program, trace, parts, tables, slot_list, pairs, estimate, time.perf_counter() - start)
    return given, ""


def _recount_seconds(trace: Trace) -> float:
    """Seconds of the witness's recount: the whole program compiled (its gates; its diagram is not built yet) and
    one triple counted (:data:`~.costs.PREPARE_SECONDS`, :data:`~.costs.GATE_SECONDS` a gate)."""
    return PREPARE_SECONDS + len(trace.circuit.gates) * GATE_SECONDS


def _scan_seconds(pairs: int, parts: list[Part], groups: list[Any], compiled: list[Compiled]) -> float:
    """Seconds of the scan: a float cell per (pair, output) of every part, at the cost of a triple of a float
    scan (:data:`~.costs.TRIPLE_SECONDS`), the distinct rows of each class at the cost of a counted cell."""
    cells = sum(len(g.members) * c.shape.size for g, c in zip(groups, compiled))
    return pairs * cells * (TRIPLE_SECONDS + CELL_SECONDS) if pairs * cells < 1 << 1000 else math.inf


# -- the bound and its witness --------------------------------------------------------------------------------


def _exact_best(given: GivenInput, kept: list[tuple[np.ndarray, np.ndarray]]) -> tuple[Any, int, int]:
    """``(exact largest ratio, x, x')`` over the kept pairs (codes): each part's maximum exactly, cached per
    class and pair of rows (a part whose entries do not move has ratio 1)."""
    cache: dict[tuple[int, int, int], Any] = {}
    best: Any = None
    at = (0, 0)
    for xa, xb in kept:
        da, db = given.digits(xa), given.digits(xb)
        rows = [(s, given.local(da, s), given.local(db, s)) for s in given.slots]
        for i in range(len(xa)):
            check("given-input plan: exact ratios")
            value: Any = Fraction(1)
            for slot, us, vs in rows:
                u, v = int(us[i]), int(vs[i])
                if u != v:
                    key = (slot.table, u, v)
                    if key not in cache:
                        cache[key] = given.tables[slot.table].exact_max(u, v)[0]
                    value = ratio_times(value, cache[key] ** len(slot.members))
            if best is None or value > best:
                best, at = value, (int(xa[i]), int(xb[i]))
    return best, at[0], at[1]


def _witness(given: GivenInput, a: int, b: int, exact_run: bool) -> tuple[tuple[int, ...], tuple[int, ...], Any]:
    """The triple ``(x, x', y)`` of the pair of input codes ``(a, b)``: ``y`` has each part's maximiser (exactly
    in an exact run; its first maximiser in floats)."""
    domain = given.program.inputs
    da, db = given.digits(np.array([a])), given.digits(np.array([b]))
    leaf_values: list[Any] = [None] * len(leaves(given.trace.shape))
    for slot in given.slots:
        table = given.tables[slot.table]
        u, v = int(given.local(da, slot)[0]), int(given.local(db, slot)[0])
        y = table.exact_max(u, v)[1] if exact_run else int(given.slot_ratios(slot, da, db)[1][0])
        value = table.compiled.shape.value_at(y)
        for m in slot.members:
            ks = given.parts[m].leaves
            for k, leaf in zip(ks, value if len(ks) > 1 else (value,)):
                leaf_values[k] = leaf
    x = tuple(int(d) + domain.lo for d in da[0])
    xp = tuple(int(d) + domain.lo for d in db[0])
    return x, xp, given.trace.shape._build(iter(leaf_values))


def given_input_run(
    given: GivenInput,
    compiled: Compiled | None,
    relation: Relation,
    backend: str,
    exact: Any,
    run: Callable[..., Any],
    start: float,
    at: tuple[int, ...] | None = None,
) -> tuple[Any | None, str]:
    """The scan of the proved parts ``given`` (:func:`given_input_of`) and the recount of its witness triple on the
    whole program (``compiled``, or compiled now with each part's random bits together,
    :func:`~.parts.grouped_trace`) by ``run`` (Algorithm 2 on that one triple, the ordinary counter): it must bear
    the plan out (:func:`~.planner.recount`: a neighbour pair, ``P(y | x) > 0``, in exact mode the plan's ratio, in
    float mode its ε within the scan's margin). The result with its plan, or ``(None, why)``; with ``at`` (a
    database ``x0`` of the domain) the data-centric ε of ``x0``: its pairs only."""
    program, trace = given.program, given.trace
    announce("given-input", given.estimate, given.describe())
    worst = _worst(given, relation, at)
    if worst is None:
        return None, "no neighbour pair"
    exact_run, claimed, a, b = worst
    triple = _witness(given, a, b, exact_run)
    if compiled is None:
        grouped = grouped_trace(trace, given.parts)
        compiled = compile_trace(program, grouped, backend, exact_floats=trace.circuit.exact_floats)
    r, why = recount(run, compiled, relation, exact, triple, claimed, MARGIN * (1 + len(given.parts)), at)
    if r is None:
        return None, why
    considered = ("given-input", given.estimate, given.describe())
    plan = PlanReport(
        "given-input",
        given.describe() + (AT_NOTE if at is not None else ""),
        given.cells,
        (relation.count_pairs(program.inputs) if at is None else given.pairs) * trace.shape.size,
        given.estimate,
        given.seconds,
        time.perf_counter() - start,
        len(given.parts),
        len(given.tables),
        considered=(considered,),
        claims=given.claims(exact_run),
    )
    return replace(r, seconds=plan.seconds, plan=plan), ""


class GivenInputPlan(Plan):
    """The parts given the input behind the plan protocol (:mod:`.protocol`): proved on the trace, estimated from
    the parts' tables and the pairs' scan (:func:`given_input_of`), run by :func:`given_input_run`."""

    name = "given-input"

    def prove(self, setting: Setting) -> Proof | Refused:
        s = setting
        if any(is_symbolic(w.one) for w in s.trace.circuit.weights.values()):
            return Refused("")
        given, why = given_input_of(s.program, s.trace, s.relation, s.backend, s.exact, s.at)
        return Refused(why) if given is None else Proof(given, given.describe())

    def estimate(self, setting: Setting, proof: Proof) -> float:
        return float(proof.structure.estimate)

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        s = setting
        return given_input_run(proof.structure, s.compiled, s.relation, s.backend, s.exact, s.run, s.start, s.at)

    def privacy_at(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        """The scan over the pairs of ``setting.at`` (proved and estimated with them), reported with every plan the
        planner considered at ``x0``."""
        r, why = self.privacy(setting, proof, estimate)
        if r is None:
            return None, why
        return replace(r, plan=replace(r.plan, considered=tuple(setting.considered))), ""

    def prove_pairs(self, setting: Setting) -> Proof | Refused:
        """The proof for the notions over pairs: the parts with their tables, within the limits of the pairs those
        notions list (:func:`~.given_pairs.listed_pairs`), or why not (symbolic weights: not looked at)."""
        s = setting
        if any(is_symbolic(w.one) for w in s.trace.circuit.weights.values()):
            return Refused("")
        listed = listed_pairs(s.relation, s.program.inputs)
        given, why = given_input_of(s.program, s.trace, s.relation, s.backend, s.exact, listed=listed)
        return Refused(why) if given is None else Proof(given, given.describe(BOUND))

    def approximate(self, setting: Setting, proof: Proof) -> tuple[Any | None, Any]:
        """The pairs δ(ε), ε(δ) and profiles run on, proved by :meth:`prove_pairs`: ``(pair source, plan report)``
        (one pair per signature, each pair's loss distribution the product of its parts',
        :func:`~.given_pairs.given_pairs`), or ``(None, why)``."""
        return given_pairs(proof.structure, setting.relation, setting.start)

    def renyi(self, setting: Setting, proof: Proof) -> tuple[Any | None, Any]:
        """The pairs Rényi DP (every order, ∞ the pure ε) and zCDP run on: the pairs of :meth:`approximate`."""
        return self.approximate(setting, proof)


def _worst(given: GivenInput, relation: Relation, at: tuple[int, ...] | None) -> tuple[bool, Any, int, int] | None:
    """``(exact run, the plan's value, x, x')`` (input codes) over every neighbour pair (module docstring), or with
    ``at`` every data-centric pair of that database, or None when there is no pair; the value is the exact largest
    ratio in exact runs, the largest float ε in float runs."""
    domain = given.program.inputs
    if not relation.builtin:
        check_relation(relation, domain)
    exact_run = all(t.arith.exact for t in given.tables)
    rows = max(1, CHUNK_CELLS // max(t.compiled.shape.size for t in given.tables))
    if at is not None:
        pairs = _at_pairs(relation, domain, at)
    elif relation.builtin:
        pairs = _builtin_pairs(relation, domain, rows)
    else:
        pairs = _listed_pairs(relation, domain, rows)
    best, kept = given.scan(pairs, MARGIN * (1 + len(given.parts)) if exact_run else 0.0)
    if not kept:
        return None
    ratio, a, b = _exact_best(given, kept) if exact_run else (best, 0, 0)
    if exact_run and ratio != math.inf:
        return True, ratio, a, b
    return (exact_run, ratio, *_likeliest_pair(given, kept))


def _likeliest_pair(given: GivenInput, kept: list[tuple[np.ndarray, np.ndarray]]) -> tuple[int, int]:
    """Of pairs with equal float log-ratios (all infinite, in an exact run), the one whose witness output is the
    likeliest under ``x`` (the parts' maximisers; float logs choose the witness, never the value)."""
    best, at = -math.inf, (int(kept[0][0][0]), int(kept[0][1][0]))
    for xa, xb in kept:
        da, db = given.digits(xa), given.digits(xb)
        likelihood = np.zeros(len(xa))
        for slot in given.slots:
            ys = given.slot_ratios(slot, da, db)[1]
            likelihood += len(slot.members) * given.tables[slot.table].logs[given.local(da, slot), ys]
        i = int(np.argmax(likelihood))
        if likelihood[i] > best:
            best, at = float(likelihood[i]), (int(xa[i]), int(xb[i]))
    return at


__all__ = ["MARGIN", "GivenInput", "GivenInputPlan", "Slot", "Table", "given_input_of", "given_input_run"]
