"""Each notion under the planner (:mod:`.planner`): pure ε, accuracy, and the notions over pairs.

A notion asks the planner for a plan, runs it, and attaches the :class:`~.planner.PlanReport`.
Product plans run the same notion on one representative of each class of equal parts (through
the planner again) and combine the parts' values by the rule of the relation. The notion itself comes in
as ``run`` (its entry point, given the sets to use): the planner chooses, the notion counts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.numbers import is_symbolic
from ..compile import Compiled
from ..count.probabilities import Counter, number_system
from ..lang.program import Program
from ..lang.relations import Relation, neighbour_relation
from .planner import (
    PlanReport,
    Product,
    combine_max,
    compiled_whole,
    detection_budget,
    log_of,
    orbit_estimate,
    product_of,
    traced,
)


def _symbolic(trace: Any) -> bool:
    """Some weight of the trace is a function of a symbolic parameter (a sum of parts' ε as functions is not
    formed: such products are planned on the whole program)."""
    return any(is_symbolic(w.one) for w in trace.circuit.weights.values())


def _relation(program: Program, neighbours: Any) -> Relation:
    return neighbour_relation(neighbours or program.neighbours)


def _likeliest(compiled: Compiled, exact: Any) -> tuple[Any, Any]:
    """The most likely output of a part at its lowest input (``lo`` in every entry), and its probability."""
    counter = Counter(compiled, number_system(compiled, exact))
    digits = np.zeros((1, compiled.domain.n), dtype=np.int64)
    ((_, row),) = list(counter.distributions(digits))
    row = row[0]
    arith = counter.arith
    if getattr(arith, "interned", False):  # a parametric run: likeliest at the middle of the interval
        middle = (arith.parameter.lo + arith.parameter.hi) / 2
        probs = [arith.probability(v)(middle) for v in row]
        best = max(range(len(probs)), key=lambda k: (probs[k], -k))
        return compiled.shape.value_at(best), probs[best]
    if arith.exact:
        probs = [arith.probability(v) for v in row]
        best = max(range(len(probs)), key=lambda k: (probs[k], -k))
        return compiled.shape.value_at(best), probs[best]
    logs = arith.as_log(row)
    best = int(np.argmax(logs))
    return compiled.shape.value_at(best), float(logs[best])


def _product_probability(factors: list[tuple[Any, int]], exact: bool) -> Any:
    """``prod p^count`` of the factors (exact Fractions, or floats given as natural logs when not exact)."""
    if exact:
        out = Fraction(1)
        for p, count in factors:
            out *= Fraction(p) ** count
        return out
    total = sum(p * count for p, count in factors)
    return math.exp(total) if total > -745.2 else 0.0


# -- pure epsilon -------------------------------------------------------------------------------


def planned_privacy(
    prog: Program | Compiled, neighbours: Any, backend: str, exact: Any, force: bool, run: Callable[..., Any]
):
    """Algorithm 2 under the planner (module docstring of :mod:`.planner`); ``run`` is
    :func:`wmcdp.synthesize_privacy`, called with ``C`` ``"exhaustive"``, a proved
    :class:`~wmcdp.plan.symmetry.PrivacyPlan`, or None (a part, through the planner again)."""
    from .symmetry.runs import privacy_plan

    start = time.perf_counter()
    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    relation = _relation(program, neighbours)
    product = product_of(program, trace, relation, backend)
    if product is not None and not (product.rule == "sum" and _symbolic(trace)):
        return _product_privacy(product, relation, exact, force, start, run)
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) * whole.shape.size if relation.builtin else None
    budget, estimate = detection_budget(whole, relation)
    considered = [("exhaustive", estimate, "" if estimate is not None or budget is None else "over the size limits")]
    if budget is None:
        r = run(whole, "exhaustive", neighbours=relation, exact=exact, force=force)
        why = "exhaustive sets are quick" if relation.builtin else f"user relation {relation.name}"
        plan = PlanReport(
            "exhaustive",
            f"no structure sought ({why})",
            exhaustive_size,
            exhaustive_size,
            estimate,
            0.0,
            time.perf_counter() - start,
            considered=tuple(considered),
        )
        return replace(r, seconds=plan.seconds, plan=plan)
    sym = privacy_plan(whole, relation, budget=budget)
    triples, pairs = sym.sizes()
    orbit = orbit_estimate(whole, pairs, triples)
    considered.append(("symmetry", orbit, sym.symmetry.describe()))
    if estimate is not None and estimate <= orbit:
        r = run(whole, "exhaustive", neighbours=relation, exact=exact, force=force)
        plan = PlanReport(
            "exhaustive",
            f"symmetry {sym.symmetry.describe()} does not pay",
            exhaustive_size,
            exhaustive_size,
            estimate,
            sym.seconds,
            time.perf_counter() - start,
            considered=tuple(considered),
        )
        return replace(r, seconds=plan.seconds, plan=plan)
    r = run(whole, sym, neighbours=relation, exact=exact, force=force)
    plan = PlanReport(
        "symmetry",
        f"{sym.symmetry.describe()}; per output: {sym.per_output}",
        triples,
        exhaustive_size,
        orbit,
        sym.seconds,
        time.perf_counter() - start,
        considered=tuple(considered),
    )
    return replace(r, seconds=plan.seconds, plan=plan)


def _product_privacy(product: Product, relation: Relation, exact: Any, force: bool, start: float, run: Callable):
    """The parts' results combined: the result of the worst part (rule "max") or of the first (rule "sum"), with
    the whole program's ε, witness and probabilities."""
    results = [run(c, None, neighbours=relation, exact=exact, force=force) for c in product.compiled]
    if any(getattr(r, "pieces", None) is not None for r in results):
        return _piecewise_product(product, results, relation, exact, start)
    exact_run = all(r.exact for r in results)
    counts = [len(m) for m in product.members]
    if product.rule == "max":
        c = combine_max([r.ratio if exact_run else r.epsilon for r in results])
        r, index = results[c], product.members[c][0]
        xs, xps, ys = {index: r.witness.x}, {index: r.witness.x_prime}, {index: r.witness.y}
        factors_x: list[tuple[Any, int]] = [(r.p_x if exact_run else _log_of(r, "x"), 1)]
        factors_xp: list[tuple[Any, int]] = [(r.p_x_prime if exact_run else _log_of(r, "x_prime"), 1)]
        for j, compiled in enumerate(product.compiled):
            others = [m for m in product.members[j] if m != index]
            if not others:
                continue
            y, p = _likeliest(compiled, exact)
            ys.update({m: y for m in others})
            factors_x.append((p, len(others)))
            factors_xp.append((p, len(others)))
        epsilon, ratio = r.epsilon, r.ratio
    else:
        xs, xps, ys, factors_x, factors_xp = {}, {}, {}, [], []
        for r, members in zip(results, product.members):
            for m in members:
                xs[m], xps[m], ys[m] = r.witness.x, r.witness.x_prime, r.witness.y
            factors_x.append((r.p_x if exact_run else _log_of(r, "x"), len(members)))
            factors_xp.append((r.p_x_prime if exact_run else _log_of(r, "x_prime"), len(members)))
        if exact_run and all(r.ratio != math.inf for r in results):
            ratio = Fraction(1)
            for r, count in zip(results, counts):
                ratio *= Fraction(r.ratio) ** count
            epsilon = log_of(ratio)
        else:
            epsilon = sum(r.epsilon * count for r, count in zip(results, counts))
            ratio = math.exp(epsilon) if epsilon < 709.78 else math.inf  # the text forms it from epsilon
    base = results[c] if product.rule == "max" else results[0]
    witness = replace(
        base.witness, x=product.embed_input(xs), x_prime=product.embed_input(xps), y=product.embed_output(ys)
    )
    size = sum(r.plan.size or 0 for r in results if r.plan is not None)
    domain, shape = product.program.inputs, product.trace.shape
    seconds = time.perf_counter() - start
    plan = product.report([r.plan for r in results], size, relation.count_pairs(domain) * shape.size, seconds)
    logs = (None, None) if exact_run else (sum(p * c for p, c in factors_x), sum(p * c for p, c in factors_xp))
    return replace(
        base,
        epsilon=epsilon,
        ratio=ratio,
        witness=witness,
        p_x=_product_probability(factors_x, exact_run),
        p_x_prime=_product_probability(factors_xp, exact_run),
        exact=exact_run,
        diagram_size=sum(r.diagram_size for r in results),
        seconds=seconds,
        sets=None,
        plan=plan,
        log_p_x=logs[0],
        log_p_x_prime=logs[1],
    )


def _piecewise_product(product: Product, results: list, relation: Relation, exact: Any, start: float):
    """A product's ε as a function (rule "max"): each part's pieces are ratios of real triples of the part, so
    the envelope of all of them, each embedded into a triple of the whole program, is the bound."""
    from ..base.envelope import Piece, envelope

    likeliest = [_likeliest(c, exact)[0] for c in product.compiled]
    candidates = []
    for c, r in enumerate(results):
        index = product.members[c][0]
        for piece in r.pieces:
            w = piece.witness
            xs, xps, ys = {index: w.x}, {index: w.x_prime}, {index: w.y}
            for j, members in enumerate(product.members):
                ys.update({m: likeliest[j] for m in members if m != index})
            whole = replace(w, x=product.embed_input(xs), x_prime=product.embed_input(xps), y=product.embed_output(ys))
            candidates.append((piece.num, piece.den, whole))
    p = results[0].parameter
    pieces = envelope(candidates, p.lo, p.hi)
    seconds = time.perf_counter() - start
    domain, shape = product.program.inputs, product.trace.shape
    plan = product.report([r.plan for r in results], None, relation.count_pairs(domain) * shape.size, seconds)
    return replace(
        results[0],
        pieces=tuple(Piece(q.start, q.end, q.num, q.den, q.witness) for q in pieces),
        degree=max(r.degree for r in results),
        diagram_size=sum(r.diagram_size for r in results),
        seconds=seconds,
        plan=plan,
    )


def _log_of(r: Any, which: str) -> float:
    """``ln P(y | x)`` (``which="x"``) or ``ln P(y | x')`` of a float-mode result (its log when it keeps one)."""
    log = r.log_p_x if which == "x" else r.log_p_x_prime
    if log is not None:
        return log
    p = r.p_x if which == "x" else r.p_x_prime
    return math.log(p) if p > 0 else -math.inf


# -- accuracy -----------------------------------------------------------------------------------


def planned_accuracy(
    prog: Program | Compiled,
    V: Any,
    alpha: Any,
    top: int,
    backend: str,
    exact: Any,
    force: bool,
    run: Callable[..., Any],
):
    """Algorithm 3 under the planner: exhaustive, or one input per orbit of the proved symmetries; ``run`` is
    :func:`wmcdp.synthesize_accuracy`, called with ``A`` ``"exhaustive"`` or a proved
    :class:`~wmcdp.plan.symmetry.AccuracyPlan`."""
    from .symmetry.runs import accuracy_plan

    start = time.perf_counter()
    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    whole = compiled_whole(program, trace, compiled, backend)
    budget, estimate = detection_budget(whole, None, triples=False)
    size = whole.domain.size
    considered = [("exhaustive", estimate, "")]
    if budget is None:
        r = run(whole, "exhaustive", V, alpha, top=top, exact=exact, force=force)
        plan = PlanReport(
            "exhaustive",
            "no structure sought (exhaustive sets are quick)",
            size,
            size,
            estimate,
            0.0,
            time.perf_counter() - start,
            considered=tuple(considered),
        )
        return replace(r, seconds=plan.seconds, plan=plan)
    orbits = accuracy_plan(whole, V, force=force, budget=budget, fallback=estimate is not None)
    if orbits is None:  # the symmetry does not pay
        detection = time.perf_counter() - start
        r = run(whole, "exhaustive", V, alpha, top=top, exact=exact, force=force)
        plan = PlanReport(
            "exhaustive",
            "no symmetry that pays",
            size,
            size,
            estimate,
            detection,
            time.perf_counter() - start,
            considered=tuple(considered),
        )
        return replace(r, seconds=plan.seconds, plan=plan)
    r = run(whole, orbits, V, alpha, top=top, exact=exact, force=force)
    considered.append(("symmetry", orbit_estimate(whole, r.sets.size, 0), r.sets.symmetry))
    plan = PlanReport(
        "symmetry",
        r.sets.symmetry,
        r.sets.size,
        size,
        considered[-1][1],
        r.sets.seconds,
        time.perf_counter() - start,
        considered=tuple(considered),
    )
    return replace(r, seconds=plan.seconds, plan=plan)


# -- pairs: (epsilon, delta), Renyi, profiles ---------------------------------------------------


def planned_pairs(
    prog: Program | Compiled,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    rules: tuple[str, ...],
    run: Callable[[Any, str], Any] | None,
    symbolic: Callable[[Compiled], Any] | None = None,
) -> tuple[Any, Any]:
    """The plan of a notion over pairs. Returns ``(Product, per-class results)`` for a product plan (its rule one
    of ``rules``), where each class's result is ``run(representative, rule)`` (the notion through the planner
    again, or what the notion needs of a part under that rule), or
    ``(source, report)``: the pair source the notion runs on, and its plan. A program with a symbolic parameter
    gives ``("symbolic", symbolic(compiled program))`` (the notion as a function, :mod:`wmcdp.notions.piecewise`)."""
    from ..lang.relations import check_relation
    from ..lang.sets import check_exhaustive
    from .pairs import ExhaustivePairs, auto_pairs, check_some_pair
    from .symmetry.group import OutputAction, PairOrbits, PairTypes
    from .symmetry.runs import find_symmetry

    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    if _symbolic(trace):
        whole = compiled_whole(program, trace, compiled, backend)
        if symbolic is None:
            whole.refuse_symbolic()  # the one-line refusal of notions that need a number for the parameter
        return "symbolic", symbolic(whole)  # type: ignore[misc]
    relation = _relation(program, neighbours)
    product = product_of(program, trace, relation, backend, rules=rules)
    if product is not None:
        assert run is not None
        return product, [run(c, product.rule) for c in product.compiled]
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) if relation.builtin else None
    budget, estimate = detection_budget(whole, relation, pairs=True)
    considered = [("exhaustive", estimate, "")]
    if budget is not None:
        sym = find_symmetry(whole, budget=budget)
        act = OutputAction(whole.shape, whole.domain.n)
        blocks = sym.covering()
        flips = {b.entries[0] for b in sym.blocks if b.flips}
        pairs = len(
            PairOrbits(
                whole.domain.n,
                blocks,
                PairTypes.of(relation.name, len(whole.domain.entry_values)),
                flipped=frozenset(i for i, b in enumerate(blocks) if b[0] in flips),
            )
        )
        outputs = act.count_orbits(sym)
        orbit = orbit_estimate(whole, 2 * pairs * outputs, pairs * outputs)
        considered.append(("symmetry", orbit, sym.describe()))
        if estimate is None or orbit < estimate:
            source = auto_pairs(whole, relation, exact, symmetry=sym)
            plan = PlanReport(
                "symmetry", source.symmetry, pairs, exhaustive_size, orbit, budget.spent(), considered=tuple(considered)
            )
            return source, plan
    check_exhaustive(whole.domain, whole.shape.size, relation, force)
    check_relation(relation, whole.domain)
    check_some_pair(relation, whole.domain)
    counter = Counter(whole, number_system(whole, exact))
    why = (
        "no symmetry that pays"
        if budget is not None
        else "no structure sought (exhaustive sets are quick)"
        if relation.builtin
        else f"no structure sought (user relation {relation.name})"
    )
    plan = PlanReport(
        "exhaustive",
        why,
        exhaustive_size,
        exhaustive_size,
        estimate,
        0.0 if budget is None else budget.spent(),
        considered=tuple(considered),
    )
    return ExhaustivePairs(counter, relation), plan


def pair_witness(product: Product, index: int, witness: Any) -> Any:
    """A part's witness pair as a pair of the program's inputs (other entries at the domain's lowest value)."""
    from .pairs import PairWitness

    return PairWitness(product.embed_input({index: witness.x}), product.embed_input({index: witness.x_prime}))


def sum_witness(product: Product, witnesses: list[Any]) -> Any:
    """Every part's witness pair at once (all-entries relations: each part moves)."""
    from .pairs import PairWitness

    xs = {m: w.x for w, members in zip(witnesses, product.members) for m in members}
    xps = {m: w.x_prime for w, members in zip(witnesses, product.members) for m in members}
    return PairWitness(product.embed_input(xs), product.embed_input(xps))


def finish(plan: PlanReport, start: float) -> PlanReport:
    return replace(plan, seconds=time.perf_counter() - start)


__all__ = ["planned_privacy", "planned_accuracy", "planned_pairs", "pair_witness", "sum_witness", "finish"]
