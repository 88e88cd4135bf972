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
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import WmcdpError
from ..base.numbers import is_symbolic, size_text
from ..compile import Compiled
from ..count.probabilities import Counter, exhaustive_outputs, inference, number_system
from ..lang.program import Program, Trace
from ..lang.registry import is_builtin
from ..lang.relations import Relation, check_relation, neighbour_relation
from ..lang.sets import MAX_PAIRS, check_exhaustive
from ..lang.shape import leaves
from .choose import WHOLE_PLANS, choose_privacy, exhaustive_privacy, exhaustive_report
from .forced import NOT_WEIGHED, no_product, no_symmetry, refuse
from .given_input import MARGIN, GivenInputPlan
from .pairs import ExhaustivePairs, PairWitness, auto_pairs, check_some_pair
from .planner import (
    Budget,
    PlanReport,
    Product,
    announce,
    answered,
    combine_max,
    compiled_whole,
    detection_budget,
    disagreement,
    log_of,
    orbit_estimate,
    preparation_estimate,
    prepared,
    product_of,
    rows_estimate,
    traced,
    with_detection,
)
from .protocol import Plan, Proof, Refused, Setting, registered_plan
from .shuffled_binary import ShuffledReports, scaled_estimate
from .shuffled_rr import SCALE_FROM, ShuffledBinary, ShuffledCounting
from .sums import counted_estimate, counted_pairs, counted_reports
from .symmetry.group import PairOrbits, PairTypes
from .symmetry.runs import MAX_PAIRS as ORBIT_MAX_PAIRS
from .symmetry.runs import (
    accuracy_plan,
    pair_counts,
    pair_output_orbits,
    proved_symmetry,
    refuse_default,
    relation_claim,
)


def _symbolic(trace: Any) -> bool:
    """Some weight of the trace is a function of a symbolic parameter (a sum of parts' ε as functions is not
    formed: such products are planned on the whole program)."""
    return any(is_symbolic(w.one) for w in trace.circuit.weights.values())


def _relation(program: Program, neighbours: Any) -> Relation:
    return neighbour_relation(neighbours or program.neighbours)


def _lowest_row(compiled: Compiled, exact: Any) -> tuple[Any, np.ndarray]:
    """The arithmetic of a part and its row of ``P(y | lo)`` over every output ``y`` (``lo`` in every entry)."""
    counter = Counter(compiled, number_system(compiled, exact))
    digits = np.zeros((1, compiled.domain.n), dtype=np.int64)
    ((_, row),) = list(counter.distributions(digits))
    return counter.arith, row[0]


def _likeliest(compiled: Compiled, exact: Any) -> Any:
    """The most likely output of a part at its lowest input (``lo`` in every entry), the first of equals."""
    arith, row = _lowest_row(compiled, exact)
    if arith.exact:
        probs = [arith.probability(v) for v in row]
        return compiled.shape.value_at(max(range(len(probs)), key=lambda k: (probs[k], -k)))
    return compiled.shape.value_at(int(np.argmax(arith.as_log(row))))


# -- pure epsilon -------------------------------------------------------------------------------


def planned_privacy(
    prog: Program | Compiled,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    run: Callable[..., Any],
    plan: str | None = None,
) -> Any:
    """Algorithm 2 under the planner (module docstring of :mod:`.planner`), or the one ``plan`` named
    (:func:`_forced_privacy`); ``run`` is :func:`wmcdp.synthesize_privacy`, called with ``C`` ``"exhaustive"``, a
    proved :class:`~wmcdp.plan.symmetry.PrivacyPlan`, one witness triple (a recount), or None (a part, through the
    planner again). The plans that split the program come first: a product of independent parts
    (:func:`_product_privacy`), then the parts given the input (:class:`~.given_input.GivenInputPlan`), each
    part planned again. On the whole compiled program: the exhaustive sets when no structure is sought (a user
    relation, or their estimate below :data:`~.costs.QUICK_SECONDS`), else the cheapest proved plan by estimate
    (:func:`~.choose.choose_privacy`: chain, hub, registered plans, symmetry, exhaustive). A plan whose witness's
    recount does not bear it out is noted in ``considered`` and the next one runs."""
    start = time.perf_counter()
    if plan is not None:
        return _forced_privacy(prog, neighbours, backend, exact, force, run, plan, start)
    progress.phase("planning", "pure epsilon")
    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    relation = _relation(program, neighbours)
    notes: list[tuple[Any, ...]] = []
    split = Setting(
        None, relation, exact, force, run, None, None, None, start, notes, program, trace, compiled, backend
    )
    for splitting in (PRODUCT, GIVEN_INPUT):  # each part is planned again
        proof = splitting.prove(split)
        if isinstance(proof, Refused):
            notes += [(splitting.name, None, proof.why)] if proof.why else []
            continue
        estimate = splitting.estimate(split, proof)
        r, why = splitting.privacy(split, proof, estimate)
        if r is not None:
            return replace(r, plan=replace(r.plan, considered=(*notes, *r.plan.considered)))
        notes.append((splitting.name, estimate, why))
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) * whole.shape.size if relation.builtin else None
    budget, estimate = detection_budget(whole, relation)
    considered: list[tuple[Any, ...]] = [
        ("exhaustive", estimate, "" if estimate is not None or budget is None else "over the size limits")
    ] + notes
    preparation = preparation_estimate(whole, compiled is None)
    setting = Setting(whole, relation, exact, force, run, budget, estimate, exhaustive_size, start, considered)
    if budget is not None:
        return _prepared(choose_privacy(setting), preparation)
    why = "exhaustive sets are quick" if relation.builtin else f"user relation {relation.name}"
    r = exhaustive_privacy(setting, f"no structure sought ({why})", estimate, 0.0)
    return _prepared(r, preparation)


def _prepared(r: Any, preparation: float) -> Any:
    """The result ``r`` with its plan's estimate counting the ``preparation`` every plan shares."""
    return replace(r, plan=prepared(r.plan, preparation))


def _parts_text(count: int) -> str:
    """``1 distinct part``, ``3 distinct parts``: what a product plan runs, for a listener."""
    return f"{count} distinct part" + "s" * (count != 1)


@dataclass
class _Combined:
    """A product's ε and ``e^ε`` put together from its parts' results, and its witness triple: each member's
    ``x``, ``x'`` and ``y`` (its class's representative's, decoded with the class's output shape, which every
    member shares: :func:`~.parts.classes`)."""

    epsilon: Any
    ratio: Any
    xs: dict[int, Any]
    xps: dict[int, Any]
    ys: dict[int, Any]


def _combine_max(product: Product, results: list[Any], exact_run: bool, exact: Any) -> _Combined:
    """Rule "max" (neighbours differ in one part): the worst part's ε and triple, with every other member of
    the product at its likeliest output at the lowest input (so ``P(y | x)`` and ``P(y | x')`` gain the same
    positive factor per other member)."""
    c = combine_max([r.ratio if exact_run else r.epsilon for r in results])
    r, index = results[c], product.members[c][0]
    combined = _Combined(r.epsilon, r.ratio, {index: r.witness.x}, {index: r.witness.x_prime}, {index: r.witness.y})
    for j, compiled in enumerate(product.compiled):
        others = [m for m in product.members[j] if m != index]
        if others:
            y = _likeliest(compiled, exact)
            combined.ys.update({m: y for m in others})
    return combined


def _sum_epsilon(results: list[Any], counts: list[int], exact_run: bool) -> tuple[Any, Any]:
    """``(ε, e^ε)`` of rule "sum": ``ε = sum_c count_c ε_c``, the ratio ``prod_c ratio_c^count_c`` exactly
    when every part's ratio is exact and finite (else the ratio is formed from ε, as the text shows it)."""
    if exact_run and all(r.ratio != math.inf for r in results):
        ratio = Fraction(1)
        for r, count in zip(results, counts):
            ratio *= Fraction(r.ratio) ** count
        return log_of(ratio), ratio
    epsilon = sum(r.epsilon * count for r, count in zip(results, counts))
    return epsilon, math.exp(epsilon) if epsilon < 709.78 else math.inf


def _combine_sum(product: Product, results: list[Any], exact_run: bool) -> _Combined:
    """Rule "sum" (neighbours may differ in every part): every member of a class at its class's triple, ε the
    sum of the members' ε (:func:`_sum_epsilon`)."""
    combined = _Combined(None, None, {}, {}, {})
    for r, members in zip(results, product.members):
        for m in members:
            combined.xs[m], combined.xps[m], combined.ys[m] = r.witness.x, r.witness.x_prime, r.witness.y
    combined.epsilon, combined.ratio = _sum_epsilon(results, [len(m) for m in product.members], exact_run)
    return combined


def _product_privacy(
    product: Product, relation: Relation, exact: Any, force: bool, start: float, run: Callable[..., Any]
) -> tuple[Any | None, str]:
    """The parts' results combined: the worst part's ε (rule "max", :func:`_combine_max`) or the sum of theirs
    (rule "sum", :func:`_combine_sum`), with the witness triple put together from the parts' and recounted part by
    part (:func:`_recount_product`), whose ``P(y | x)`` and ``P(y | x')`` the result gives. ``(None, why)`` when
    that count does not bear the plan out: the plan is dropped."""
    announce("product", None, _parts_text(len(product.compiled)))
    results = [run(c, None, neighbours=relation, exact=exact, force=force) for c in product.compiled]
    if any(getattr(r, "pieces", None) is not None for r in results):
        return _piecewise_product(product, results, relation, exact, start), ""
    exact_run = all(r.exact for r in results)
    if product.rule == "max":
        combined = _combine_max(product, results, exact_run, exact)
    else:
        combined = _combine_sum(product, results, exact_run)
    witness = replace(
        results[0].witness,
        x=product.embed_input(combined.xs),
        x_prime=product.embed_input(combined.xps),
        y=product.embed_output(combined.ys),
    )
    sides, why = _recount_product(product, witness, combined, relation, exact)
    if sides is None:
        return None, why
    claimed = combined.ratio if exact_run else combined.epsilon
    why = disagreement(sides.positive, sides.ratio if exact_run else sides.epsilon, claimed, exact_run, sides.tolerance)
    if why:
        return None, why
    size = sum(r.plan.size or 0 for r in results if r.plan is not None)
    domain, shape = product.program.inputs, product.trace.shape
    seconds = time.perf_counter() - start
    plan = product.report([r.plan for r in results], size, relation.count_pairs(domain) * shape.size, seconds)
    return replace(
        results[0],
        epsilon=combined.epsilon,
        ratio=combined.ratio,
        witness=witness,
        p_x=sides.probability(0),
        p_x_prime=sides.probability(1),
        exact=exact_run,
        diagram_size=sum(r.diagram_size for r in results),
        seconds=seconds,
        sets=None,
        plan=plan,
        log_p_x=None if exact_run else sides.values[0],
        log_p_x_prime=None if exact_run else sides.values[1],
    ), ""


class ProductPlan(Plan):
    """A product of independent parts behind the plan protocol (:mod:`.protocol`): proved on the trace
    (:func:`~.planner.product_of`), each distinct part planned again (so its estimate is theirs, known as they are
    planned: None here), the parts' values combined by :func:`_product_privacy`."""

    name = "product"

    def prove(self, setting: Setting) -> Proof | Refused:
        s = setting
        product = product_of(s.program, s.trace, s.relation, s.backend)
        if product is None or (product.rule == "sum" and _symbolic(s.trace)):
            return Refused("")  # (a sum of the parts' ε as functions of a symbolic parameter is not formed)
        return Proof(product, product.structure(), product.claims())

    def estimate(self, setting: Setting, proof: Proof) -> None:
        return None

    def privacy(self, setting: Setting, proof: Proof, estimate: float | None) -> tuple[Any | None, str]:
        s = setting
        return _product_privacy(proof.structure, s.relation, s.exact, s.force, s.start, s.run)


#: the plans that split the program before it is compiled, in the order the planner tries them
PRODUCT, GIVEN_INPUT = ProductPlan(), GivenInputPlan()


@dataclass
class _Sides:
    """``P(y | x)`` and ``P(y | x')`` of a product's witness (``values``): exact, or as natural logs when not
    ``exact``; a float ε is compared within the rounding margin of a sum over the ``parts``."""

    exact: bool
    values: tuple[Any, Any]
    parts: int

    @property
    def positive(self) -> bool:
        return bool(self.values[0] > 0) if self.exact else bool(self.values[0] > -math.inf)

    @property
    def ratio(self) -> Any:
        p, q = self.values
        return math.inf if q == 0 else p / q

    @property
    def epsilon(self) -> float:
        p, q = self.values
        return math.inf if q == -math.inf else float(p - q)

    @property
    def tolerance(self) -> float:
        return MARGIN * (1 + self.parts)

    def probability(self, side: int) -> Any:
        """``P(y | x)`` (``side`` 0) or ``P(y | x')`` (1): exact, or a float (0.0 below the float range)."""
        value = self.values[side]
        return value if self.exact else (math.exp(value) if value > -745.2 else 0.0)


def _recount_product(
    product: Product, witness: Any, combined: _Combined, relation: Relation, exact: Any
) -> tuple[_Sides | None, str]:
    """``P(y | x)`` and ``P(y | x')`` of the product's witness counted part by part, ``prod_m P_m(y_m | x_m)``: each
    member's factor counted by the ordinary counter (Algorithm 1) on its class's representative, once per distinct
    (input, output) of the class. ``(None, why)`` when the pair is no neighbour pair or a member's output leaves
    are not its representative's (the class would not be one mechanism with the same outputs)."""
    progress.phase("recount", "the product's witness, part by part")
    if not relation.related(product.program.inputs, witness.x, witness.x_prime):
        return None, f"dropped: its witness (x, x') is no {relation.name} pair"
    shapes = leaves(product.trace.shape)
    factors: list[list[tuple[Any, int]]] = [[], []]
    exact_run = True
    for compiled, members in zip(product.compiled, product.members):
        if any(leaves(compiled.shape) != tuple(shapes[k] for k in product.parts[m].leaves) for m in members):
            return None, "dropped: a part's outputs are not its class representative's"
        wanted: dict[tuple[Any, Any], list[int]] = {}
        for m in members:
            entries = product.parts[m].entries
            for side, x in enumerate((witness.x, witness.x_prime)):
                wanted.setdefault((tuple(x[e] for e in entries), combined.ys[m]), [0, 0])[side] += 1
        table = inference(compiled, list(wanted), exact=exact)
        exact_run = exact_run and table.arith.exact
        for (u, y), counts in wanted.items():
            value = table.row(u, (y,))
            p = table.arith.probability(value[0]) if table.arith.exact else float(table.arith.as_log(value)[0])
            factors[0].append((p, counts[0]))
            factors[1].append((p, counts[1]))
    values = (_product_of(factors[0], exact_run), _product_of(factors[1], exact_run))
    return _Sides(exact_run, values, len(product.parts)), ""


def _product_of(factors: list[tuple[Any, int]], exact: bool) -> Any:
    """``prod p^count`` of the factors (exact Fractions), or ``sum count ln p`` (floats given as natural logs)."""
    factors = [(p, count) for p, count in factors if count]
    if exact:
        out = Fraction(1)
        for p, count in factors:
            out *= Fraction(p) ** count
        return out
    return -math.inf if any(p == -math.inf for p, _ in factors) else math.fsum(p * count for p, count in factors)


def _part_pieces(results: list[Any], parameter: Any) -> list[list[Any]]:
    """Each part's ratio as pieces over the parameter's interval, each piece's witness ``(part, triple)``: a
    part without the parameter is one constant piece (its exact ratio, or ``1/0`` for an infinite one)."""
    from ..base.envelope import Piece  # deferred: python-flint (symbolic only)
    from ..base.polys import Poly, fmpq  # deferred: python-flint (symbolic only)

    parts = []
    for c, r in enumerate(results):
        if getattr(r, "pieces", None) is not None:
            parts.append([Piece(q.start, q.end, q.num, q.den, (c, q.witness)) for q in r.pieces])
            continue
        if r.ratio != math.inf and not isinstance(r.ratio, Fraction):
            raise WmcdpError("a bound as a function of a parameter needs exact weights: give floats as fractions")
        constant = (Poly([1]), Poly([])) if r.ratio == math.inf else (Poly([fmpq(r.ratio)]), Poly([1]))
        parts.append([Piece(parameter.lo, parameter.hi, *constant, (c, r.witness))])
    return parts


def _embed_piece_witness(product: Product, part_witness: tuple[int, Any], ys: dict[int, Any]) -> Any:
    """A part's witness triple as one of the program: part ``c``'s first member at the triple, every member of
    class ``j`` at output ``ys[j]``, the other entries at the domain's lowest value."""
    c, w = part_witness
    index = product.members[c][0]
    outputs = {**{m: ys[j] for j, members in enumerate(product.members) for m in members}, index: w.y}
    return replace(
        w,
        x=product.embed_input({index: w.x}),
        x_prime=product.embed_input({index: w.x_prime}),
        y=product.embed_output(outputs),
    )


def _witnessed_pieces(product: Product, maximum: list[Any], outputs: list[list[tuple[Any, Any]]]) -> list[Any]:
    """The pieces of the pointwise maximum with witnesses of the whole program (:func:`_piecewise_product`):
    every other class at its likeliest output inside the piece, plus a single-point piece at each point of the
    piece where a chosen output's probability vanishes (every class's output chosen at that point)."""
    from ..base.envelope import Piece, by_start, point_piece, with_points  # deferred: python-flint (symbolic only)
    from ..base.roots import between, compare, real_roots  # deferred: python-flint (symbolic only)

    pieces, points = [], []
    for q in maximum:
        inside = q.start if compare(q.start, q.end) == 0 else between(q.start, q.end)
        ys = {j: _output_at(row, inside)[0] for j, row in enumerate(outputs)}
        pieces.append(Piece(q.start, q.end, q.num, q.den, _embed_piece_witness(product, q.witness, ys)))
        if compare(q.start, q.end) == 0:
            continue
        chosen = [_output_at(row, inside)[1] for row in outputs]
        for z, _ in (root for num in chosen if num.degree() > 0 for root in real_roots(num, q.start, q.end)):
            at_z = {j: _output_at(row, z)[0] for j, row in enumerate(outputs)}  # every part's output chosen at z
            points.append(point_piece(z, q.num, q.den, _embed_piece_witness(product, q.witness, at_z)))
    points.sort(key=by_start)
    return with_points(pieces, points)


def _piecewise_product(product: Product, results: list[Any], relation: Relation, exact: Any, start: float) -> Any:
    """A product's ε as a function (rule "max"): the pointwise maximum of the parts' ε (a part without the
    parameter is a constant, :func:`_part_pieces`; :func:`~wmcdp.base.envelope.max_of_piecewise`). A piece's
    witness is its part's triple with every other part at an output of positive probability at its lowest input:
    the likeliest inside the piece, and where that one's probability vanishes at a point of the piece, a
    single-point piece there with an output of positive probability at that point (:func:`_witnessed_pieces`)."""
    from ..base.envelope import max_of_piecewise  # deferred: python-flint (symbolic only)

    symbolic = next(r for r in results if getattr(r, "pieces", None) is not None)
    p = symbolic.parameter
    parts = _part_pieces(results, p)
    outputs = [_part_outputs(compiled, exact) for compiled in product.compiled]
    maximum = max_of_piecewise(parts, p.lo, p.hi)
    pieces = _witnessed_pieces(product, maximum, outputs)
    seconds = time.perf_counter() - start
    domain, shape = product.program.inputs, product.trace.shape
    plan = product.report([r.plan for r in results], None, relation.count_pairs(domain) * shape.size, seconds)
    return replace(
        symbolic,
        pieces=tuple(pieces),
        degree=max(getattr(r, "degree", 0) for r in results),
        diagram_size=sum(r.diagram_size for r in results),
        seconds=seconds,
        plan=plan,
    )


def _part_outputs(compiled: Compiled, exact: Any) -> list[tuple[Any, Any]]:
    """``(y, Q)`` for every output of a part at its lowest input, ``P(y | lo)`` as a polynomial ``Q`` (over the
    part's common denominator, which has no zero on the interval, when the part has the parameter)."""
    from ..base.polys import Poly, fmpq  # deferred: python-flint (symbolic only)

    arith, row = _lowest_row(compiled, exact)
    symbolic = getattr(arith, "interned", False)
    values = [arith.function(v) if symbolic else Poly([fmpq(arith.probability(v))]) for v in row]
    return [(compiled.shape.value_at(k), q) for k, q in enumerate(values)]


def _output_at(row: list[tuple[Any, Any]], z: Any) -> tuple[Any, Any]:
    """The likeliest output of ``row`` at the rational ``z`` (the first on a tie), or at an irrational ``z`` the
    first with a positive probability there, with its polynomial."""
    from ..base.polys import poly_at  # deferred: python-flint (symbolic only)
    from ..base.roots import sign_at  # deferred: python-flint (symbolic only)

    if isinstance(z, Fraction):
        return max(row, key=lambda item: abs(poly_at(item[1], z)))  # max keeps the first of equal values
    return next(item for item in row if sign_at(item[1], z) != 0)


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
    plan: str | None = None,
) -> Any:
    """Algorithm 3 under the planner: exhaustive, or one input per orbit of the proved symmetries (or the one
    ``plan`` named, :func:`_forced_accuracy`); ``run`` is :func:`wmcdp.synthesize_accuracy`, called with ``A``
    ``"exhaustive"`` or a proved :class:`~wmcdp.plan.symmetry.AccuracyPlan`."""
    start = time.perf_counter()
    if plan is not None:
        return _forced_accuracy(prog, V, alpha, top, backend, exact, force, run, plan, start)
    progress.phase("planning", "accuracy")
    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    whole = compiled_whole(program, trace, compiled, backend)
    budget, estimate = detection_budget(whole, None, triples=False)
    preparation = preparation_estimate(whole, compiled is None)
    size = whole.domain.size
    considered = [("exhaustive", estimate, "")]
    if budget is None:
        announce("exhaustive sets", estimate)
        r = run(whole, "exhaustive", V, alpha, top=top, exact=exact, force=force)
        r = exhaustive_report(
            r, "no structure sought (exhaustive sets are quick)", size, estimate, 0.0, start, considered
        )
        return replace(r, plan=prepared(r.plan, preparation))
    orbits = accuracy_plan(whole, V, force=force, budget=budget, fallback=estimate is not None, planned=True)
    if orbits is None:  # the symmetry does not pay
        detection = time.perf_counter() - start
        estimated = with_detection(estimate, budget)
        announce("exhaustive sets", estimated, "no symmetry that pays")
        r = run(whole, "exhaustive", V, alpha, top=top, exact=exact, force=force)
        r = exhaustive_report(r, "no symmetry that pays", size, estimated, detection, start, considered)
        return replace(r, plan=prepared(replace(r.plan, detection_work=budget.spent), preparation))
    r = _orbit_accuracy(whole, orbits, (V, alpha, top), exact, force, run, budget, considered, start)
    return replace(r, plan=prepared(r.plan, preparation))


def _orbit_accuracy(
    whole: Compiled,
    orbits: Any,
    target: tuple[Any, Any, int],
    exact: Any,
    force: bool,
    run: Callable[..., Any],
    budget: Budget,
    considered: list[tuple[Any, ...]],
    start: float,
) -> Any:
    """Algorithm 3 on the proved orbit accuracy set ``orbits`` (``target``: ``V``, ``alpha`` and ``top``), its
    plan reported with the ``considered`` options and the detection work ``budget`` spent."""
    V, alpha, top = target
    announce("symmetry", None, "one input per orbit")
    r = run(whole, orbits, V, alpha, top=top, exact=exact, force=force)
    considered.append(("symmetry", rows_estimate(whole, r.sets.size, exact), r.sets.symmetry))
    sizes = (r.sets.size, whole.domain.size)
    estimated = with_detection(considered[-1][1], budget)
    detection = (r.sets.seconds, budget.spent)
    return answered(r, "symmetry", r.sets.symmetry, sizes, estimated, start, considered, r.sets.claims, detection)


# -- pairs: (epsilon, delta), Renyi, profiles ---------------------------------------------------


def _symmetry_pairs(
    whole: Compiled,
    relation: Relation,
    exact: Any,
    force: bool,
    budget: Any,
    estimate: Any,
    considered: list[tuple[Any, ...]],
    exhaustive_size: Any,
) -> tuple[Any, PlanReport] | None:
    """The pair source over orbits of the proved symmetry and its plan, when the symmetry pays (its estimated
    work below the exhaustive estimate, or no exhaustive estimate at all); None otherwise. Adds the symmetry's
    estimate to ``considered``; refuses (over the orbit limits, without ``force``) when nothing else is left."""
    detection = time.perf_counter()
    sym, prover = proved_symmetry(whole, budget)
    blocks = sym.covering()
    flips = {b.entries[0] for b in sym.blocks if b.flips}
    pairs = PairOrbits(
        whole.domain.n,
        blocks,
        PairTypes.of(relation.name, len(whole.domain.entry_values)),
        flipped=frozenset(i for i, b in enumerate(blocks) if b[0] in flips),
    ).count()
    outputs = pair_output_orbits(prover, sym)
    if estimate is None and pairs * outputs > ORBIT_MAX_PAIRS and not force:
        refuse_default(
            f"|I| = {size_text(whole.domain.size * whole.shape.size)} pairs (limit {MAX_PAIRS})",
            f"{size_text(pairs)} pairs with up to {size_text(outputs)} output orbits each "
            f"(limit {ORBIT_MAX_PAIRS} in all)",
            sym.describe(),
        )
    counts = pair_counts(prover.action, sym, pairs, outputs, len(whole.domain.entry_values))
    orbit = orbit_estimate(whole, counts, pairs * outputs, pairs, exact)
    considered.append(("symmetry", orbit, sym.describe()))
    seconds = time.perf_counter() - detection  # detection and sizing; the counts of the pairs come after
    if estimate is not None and orbit >= estimate:
        return None
    source = auto_pairs(whole, relation, exact, symmetry=sym)
    claims = (
        (f"the program is invariant under {sym.describe()}", prover.how()),
        relation_claim(relation.name, len(whole.domain.entry_values), bool(flips)),
    )
    plan = PlanReport(
        "symmetry",
        source.symmetry,
        pairs,
        exhaustive_size,
        with_detection(orbit, budget),
        seconds,
        considered=tuple(considered),
        claims=claims,
        detection_work=budget.spent,
    )
    return source, plan


def _exhaustive_pairs(
    whole: Compiled,
    relation: Relation,
    exact: Any,
    force: bool,
    sought: bool,
    estimate: Any,
    considered: list[tuple[Any, ...]],
    exhaustive_size: Any,
    detection: float,
) -> tuple[Any, PlanReport]:
    """Every neighbouring pair (after the size and relation checks) and its plan; ``sought``: a symmetry was
    sought and did not pay (``detection`` is when the search began)."""
    check_exhaustive(whole.domain, exhaustive_outputs(whole), relation, force)
    check_relation(relation, whole.domain)
    check_some_pair(relation, whole.domain)
    counter = Counter(whole, number_system(whole, exact))
    why = (
        "no symmetry that pays"
        if sought
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
        time.perf_counter() - detection if sought else 0.0,
        considered=tuple(considered),
    )
    return ExhaustivePairs(counter, relation), plan


def _counted(
    program: Program, trace: Trace, relation: Relation, exact: Any, backend: str
) -> tuple[tuple[Any, PlanReport] | None, Trace]:
    """For a trace of the terms of a sum the program returns: the pair source and plan of a count of independent
    identical reports (:func:`~.sums.counted_pairs`) when it is one (and not symbolic), else None and the
    program's own trace; any other trace as it is."""
    if trace.total is None:
        return None, trace
    counted = None if _symbolic(trace) else counted_pairs(program, trace, relation, exact, backend)
    return counted, trace if counted is not None else trace.total()


def planned_scale(prog: Program | Compiled, neighbours: Any, backend: str) -> ShuffledBinary | None:
    """The default route of one float run of δ(ε), ε(δ) or a profile (no pairs, rows, ``at`` or plan given) for a
    count of independent identical two-report users under a relation that moves one user's value: the shuffle at
    scale (:class:`~.shuffled_binary.ShuffledReports`, reductions 5-6, with the plans considered), when its estimate
    (:func:`~.shuffled_binary.scaled_estimate`) is below the count-of-reports plan's (:func:`~.sums.counted_estimate`,
    whose rows take ``O(n^2)`` cells); None otherwise (:func:`planned_pairs` plans the program). A built-in whose
    hand-proved pairs are the shuffle at scale takes those without tracing its ``n`` users
    (:func:`_registered_scale`)."""
    registered = _registered_scale(prog, neighbours)
    if registered is not None:
        return registered
    program, trace, _ = traced(prog, "binary", terms=True)  # a float weight is the rational it is (binary64)
    relation = _relation(program, neighbours)
    n, k = program.inputs.n, len(program.inputs.entry_values)
    moves_one = relation.builtin and (relation.name == "hamming" or (relation.name == "one-entry" and k == 2))
    if trace.total is None or _symbolic(trace) or not moves_one:
        return None
    local = counted_reports(program, trace, backend)
    if local is None:
        return None
    try:
        reports = ShuffledReports.of(local.local, n, backend)
    except WmcdpError:  # more than two reports, a certain report, or weights with no exact value
        return None
    counted = counted_estimate(n, k, k * (k - 1) * math.comb(n + k - 2, k - 1))
    scaled = scaled_estimate(n, reports.epsilon0)
    if scaled >= counted:
        return None
    group = f"S_{n} on entries 0..{n - 1}, outputs unchanged"
    considered = (("count-of-reports", counted, group), ("symmetry", scaled, f"shuffled {reports.name}"))
    return replace(reports, considered=considered, estimate=scaled)


def _registered_scale(prog: Program | Compiled, neighbours: Any) -> ShuffledCounting | None:
    """The hand-proved pairs of :data:`wmcdp.symmetry_sets.PAIRS` when they are the shuffle at scale
    (:class:`~.shuffled_rr.ShuffledCounting`, past :data:`~.shuffled_rr.SCALE_FROM` users: binary RR counting and
    2-ary RR) and ``prog`` is the built-in itself under its Hamming relation (:func:`~wmcdp.lang.registry.is_builtin`:
    its code and captured values, not its name); they skip the tracing of the ``n`` users, the rest of the run is
    the same. None otherwise."""
    if not isinstance(prog, Program) or prog.inputs.n <= SCALE_FROM:
        return None
    from wmcdp import symmetry_sets  # deferred: as in given_sets.find_sets, the sets import the plan layer

    make = symmetry_sets.PAIRS.get(prog.name)
    relation = _relation(prog, neighbours)
    if make is None or not (relation.builtin and relation.name == "hamming") or not is_builtin(prog):
        return None
    try:
        pairs, _ = make(**prog.params)
    except WmcdpError:  # k-ary RR with k >= 3 past SCALE_FROM: no scaled reduction, the planner goes on
        return None
    if not isinstance(pairs, ShuffledCounting):
        return None
    n, k = prog.inputs.n, len(prog.inputs.entry_values)
    registered = scaled_estimate(n, pairs.epsilon0, traced=False)
    counted = counted_estimate(n, k, k * (k - 1) * math.comb(n + k - 2, k - 1))
    considered = (
        ("count-of-reports", counted, f"S_{n} on entries 0..{n - 1}, outputs unchanged"),
        ("symmetry", scaled_estimate(n, pairs.epsilon0), f"shuffled {pairs.name}, its {n} users traced"),
        ("symmetry", registered, f"shuffled {pairs.name}, the hand-proved pairs of the built-in {prog.name}"),
    )
    return replace(pairs, builtin=prog.name, considered=considered, estimate=registered)


def planned_pairs(
    prog: Program | Compiled,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    rules: tuple[str, ...],
    run: Callable[[Any, str], Any] | None,
    symbolic: Callable[[Compiled], Any] | None = None,
    plan: str | None = None,
    logs: bool = False,
) -> tuple[Any, Any]:
    """The plan of a notion over pairs (or the one ``plan`` named, :func:`_forced_pairs`). Returns ``(Product,
    per-class results)`` for a product plan (its rule one of ``rules``), where each class's result is
    ``run(representative, rule)`` (the notion through the planner again, or what the notion needs of a part
    under that rule), or ``(source, report)``: the pair source the notion runs on, and its plan
    (:func:`~.sums.counted_pairs` for a count of independent identical reports, the parts given the input when
    their estimate is below the exhaustive sets' (:func:`_given_pairs`), :func:`_symmetry_pairs` when a proved
    symmetry pays, else :func:`_exhaustive_pairs`). A program with a symbolic parameter gives
    ``("symbolic", symbolic(compiled program))`` (the notion as a function, :mod:`wmcdp.notions.piecewise`).
    ``logs``: the notion's pass over pairs runs in float logs in exact mode too (Rényi DP), as its exhaustive
    estimate counts it (:func:`~.planner.exhaustive_terms`)."""
    if plan is not None:
        return _forced_pairs(prog, neighbours, backend, exact, force, rules, run, plan)
    progress.phase("planning", "neighbouring pairs")
    program, trace, compiled = traced(prog, exact, terms=True)
    backend = compiled.backend.name if compiled is not None else backend
    relation = _relation(program, neighbours)
    counted, trace = _counted(program, trace, relation, exact, backend)
    if counted is not None:
        return counted
    if _symbolic(trace):
        whole = compiled_whole(program, trace, compiled, backend)
        if symbolic is None:
            whole.refuse_symbolic()  # the one-line refusal of notions that need a number for the parameter
        return "symbolic", symbolic(whole)  # type: ignore[misc]
    product = product_of(program, trace, relation, backend, rules=rules)
    if product is not None:
        assert run is not None
        announce("product", None, _parts_text(len(product.compiled)))
        return product, [run(c, product.rule) for c in product.compiled]
    split = _pairs_setting(program, trace, compiled, relation, exact, force, backend, run)
    given = GIVEN_INPUT.prove_pairs(split)
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) if relation.builtin else None
    budget, estimate = detection_budget(whole, relation, pairs=True, logs=logs)
    preparation = preparation_estimate(whole, compiled is None)
    considered: list[tuple[Any, ...]] = [("exhaustive", estimate, "")]
    if isinstance(given, Proof):
        chosen = _given_pairs(split, given, estimate, considered)
        if chosen is not None:
            return chosen
    elif given.why:
        considered.append((GIVEN_INPUT.name, None, given.why))
    detection = time.perf_counter()
    if budget is not None and relation.per_entry:
        chosen = _symmetry_pairs(whole, relation, exact, force, budget, estimate, considered, exhaustive_size)
        if chosen is not None:
            announce("symmetry", chosen[1].estimated_seconds, chosen[1].structure)
            return chosen[0], prepared(chosen[1], preparation)
    sought = budget is not None
    estimated = with_detection(estimate, budget)
    source, report = _exhaustive_pairs(
        whole, relation, exact, force, sought, estimated, considered, exhaustive_size, detection
    )
    announce("exhaustive sets", estimated)
    return source, prepared(replace(report, detection_work=budget.spent if budget is not None else 0), preparation)


def _pairs_setting(
    program: Program,
    trace: Trace,
    compiled: Compiled | None,
    relation: Relation,
    exact: Any,
    force: bool,
    backend: str,
    run: Callable[[Any, str], Any] | None,
) -> Setting:
    """What the given-input plan of a notion over pairs sees (``run``, the notion on a part, is called by none of
    its steps: it recounts no witness)."""
    start = time.perf_counter()
    notion: Any = run  # None for a part under the sum rule: no step of the plan calls it
    return Setting(None, relation, exact, force, notion, None, None, None, start, [], program, trace, compiled, backend)


def _given_pairs(
    split: Setting, proof: Proof, exhaustive: float | None, considered: list[tuple[Any, ...]]
) -> tuple[Any, PlanReport] | None:
    """The given-input plan's pairs and plan (:meth:`~.given_input.GivenInputPlan.approximate`) when its estimate is
    below the exhaustive sets' (or those do not fit: ``exhaustive`` None), else None with the plan noted in
    ``considered``."""
    estimate = GIVEN_INPUT.estimate(split, proof)
    if exhaustive is not None and estimate >= exhaustive:
        considered.append((GIVEN_INPUT.name, estimate, "dearer than the exhaustive sets"))
        return None
    source, report = GIVEN_INPUT.approximate(split, proof)
    if source is None:
        considered.append((GIVEN_INPUT.name, estimate, report))
        return None
    return source, replace(report, considered=(*considered, *report.considered))


def pair_witness(product: Product, index: int, witness: Any) -> Any:
    """A part's witness pair as a pair of the program's inputs (other entries at the domain's lowest value)."""
    return PairWitness(product.embed_input({index: witness.x}), product.embed_input({index: witness.x_prime}))


def sum_witness(product: Product, witnesses: list[Any]) -> Any:
    """Every part's witness pair at once (all-entries relations: each part moves)."""
    xs = {m: w.x for w, members in zip(witnesses, product.members) for m in members}
    xps = {m: w.x_prime for w, members in zip(witnesses, product.members) for m in members}
    return PairWitness(product.embed_input(xs), product.embed_input(xps))


def finish(plan: PlanReport, start: float) -> PlanReport:
    return replace(plan, seconds=time.perf_counter() - start)


# -- forced plans (plan=, --plan: :mod:`.forced`) --------------------------------------------------------------


def _forced_privacy(
    prog: Program | Compiled,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    run: Callable[..., Any],
    plan: str,
    start: float,
) -> Any:
    """Pure ε by the one ``plan`` named, even where exhaustive sets are quick: its proofs run as the planner's do
    (with no detection budget), and a plan that does not apply is refused in one line."""
    program, trace, compiled = traced(prog, exact)
    backend = compiled.backend.name if compiled is not None else backend
    relation = _relation(program, neighbours)
    if plan == "product":
        product = _forced_product(program, trace, relation, backend)
        answer, why = _product_privacy(product, relation, exact, force, start, run)
        if answer is None:
            refuse(plan, why)
        return answer
    if plan == "given-input":
        if _symbolic(trace):
            refuse(plan, "a weight is a function of a symbolic parameter")
        split = Setting(
            None, relation, exact, force, run, None, None, None, start, [], program, trace, compiled, backend
        )
        proof = GIVEN_INPUT.prove(split)
        if isinstance(proof, Refused):
            refuse(plan, proof.why or "the output has no two parts that share no random bit")
        given, why = GIVEN_INPUT.privacy(split, proof, GIVEN_INPUT.estimate(split, proof))
        if given is None:
            refuse(plan, why)
        return given
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) * whole.shape.size if relation.builtin else None
    setting = Setting(whole, relation, exact, force, run, Budget(None), None, exhaustive_size, start, [NOT_WEIGHED])
    chosen = WHOLE_PLANS.get(plan) or registered_plan(plan)
    assert chosen is not None  # forced_plan checked the name
    proof = chosen.prove(setting)
    if isinstance(proof, Refused):
        refuse(plan, proof.why or _unstructured(plan))
    estimate = None if plan == "exhaustive" else chosen.estimate(setting, proof)
    if plan != "exhaustive":
        setting.considered.append((plan, estimate, proof.words))
    r, why = chosen.privacy(setting, proof, estimate)
    if r is None:
        refuse(plan, why)
    return r


def _forced_product(
    program: Program, trace: Trace, relation: Relation, backend: str, rules: tuple[str, ...] = ("max", "sum")
) -> Product:
    """The program's product (:func:`~.planner.product_of`, under the notion's ``rules``), or the refusal of a
    forced product plan."""
    product = product_of(program, trace, relation, backend, rules=rules)
    if product is None:
        refuse("product", no_product(relation, rules))
    if product.rule == "sum" and _symbolic(trace):
        refuse("product", "a sum of the parts' epsilon as functions of a symbolic parameter is not formed")
    return product


def _unstructured(plan: str) -> str:
    """Why a plan of the whole program did not look at it (the chain and hub plans: what they need of the relation
    and the weights)."""
    if plan not in ("chain", "hub"):
        return "it does not apply to this program"
    inputs = "Bits inputs (one input bit per entry), " if plan == "chain" else ""
    return f"it needs {inputs}a built-in relation and numeric weights (rational ones in an exact run)"


def _forced_accuracy(
    prog: Program | Compiled,
    V: Any,
    alpha: Any,
    top: int,
    backend: str,
    exact: Any,
    force: bool,
    run: Callable[..., Any],
    plan: str,
    start: float,
) -> Any:
    """Algorithm 3 by the one ``plan`` named (exhaustive, or the orbit inputs of the proved symmetries however
    few they save), even where exhaustive sets are quick."""
    program, trace, compiled = traced(prog, exact)
    whole = compiled_whole(program, trace, compiled, compiled.backend.name if compiled is not None else backend)
    considered: list[tuple[Any, ...]] = [NOT_WEIGHED]
    if plan == "exhaustive":
        r = run(whole, "exhaustive", V, alpha, top=top, exact=exact, force=force)
        reason = "forced (plan 'exhaustive')"
        return exhaustive_report(r, reason, whole.domain.size, None, 0.0, start, considered)
    budget = Budget(None)
    orbits = accuracy_plan(whole, V, force=force, budget=budget, planned=True)
    return _orbit_accuracy(whole, orbits, (V, alpha, top), exact, force, run, budget, considered, start)


def _forced_pairs(
    prog: Program | Compiled,
    neighbours: Any,
    backend: str,
    exact: Any,
    force: bool,
    rules: tuple[str, ...],
    run: Callable[[Any, str], Any] | None,
    plan: str,
) -> tuple[Any, Any]:
    """:func:`planned_pairs` by the one ``plan`` named, even where exhaustive sets are quick."""
    program, trace, compiled = traced(prog, exact, terms=True)
    backend = compiled.backend.name if compiled is not None else backend
    relation = _relation(program, neighbours)
    if plan == "count-of-reports":
        counted = _counted(program, trace, relation, exact, backend)[0]
        if counted is None:
            refuse(
                plan,
                "the output is not a count of independent identical 0/1 reports, one per entry, under a "
                "relation that moves one entry",
            )
        return counted
    trace = trace.total() if trace.total is not None else trace
    if _symbolic(trace):
        refuse(plan, "the program has a symbolic parameter (the notion as a function runs on its own plan)")
    if plan == "product":
        product = _forced_product(program, trace, relation, backend, rules)
        assert run is not None
        return product, [run(c, product.rule) for c in product.compiled]
    if plan == "given-input":
        split = _pairs_setting(program, trace, compiled, relation, exact, force, backend, run)
        proof = GIVEN_INPUT.prove_pairs(split)
        if isinstance(proof, Refused):
            refuse(plan, proof.why or "the output has no two parts that share no random bit")
        source, report = GIVEN_INPUT.approximate(split, proof)
        if source is None:
            refuse(plan, report)
        return source, replace(report, considered=(NOT_WEIGHED, *report.considered))
    whole = compiled_whole(program, trace, compiled, backend)
    exhaustive_size = relation.count_pairs(whole.domain) if relation.builtin else None
    considered: list[tuple[Any, ...]] = [NOT_WEIGHED]
    if plan == "symmetry":
        if not relation.per_entry:
            refuse(plan, no_symmetry(relation))
        chosen = _symmetry_pairs(whole, relation, exact, force, Budget(None), None, considered, exhaustive_size)
        assert chosen is not None  # with no exhaustive estimate to beat, the orbit sets are the plan
        return chosen
    source, report = _exhaustive_pairs(
        whole, relation, exact, force, False, None, considered, exhaustive_size, time.perf_counter()
    )
    return source, replace(report, structure="forced (plan 'exhaustive')")


__all__ = [
    "planned_privacy",
    "planned_scale",
    "planned_accuracy",
    "planned_pairs",
    "pair_witness",
    "sum_witness",
    "finish",
]
