"""The planner, the default of every notion: it proves structure and runs the cheapest proved plan by estimate.

Every plan gives the bound of the exhaustive sets; they differ in what they count. The plans, by the ``kind``
their reports give (:data:`.forced.PLANS`):

* ``exhaustive``: every input, output and neighbour pair (:mod:`wmcdp.notions.privacy`, :mod:`wmcdp.plan.pairs`).
* ``product``: the output splits into independent parts (:mod:`wmcdp.plan.parts`, read off the
  traced circuit). With ``P(y | x) = prod_c P_c(y_c | x_c)``:

  - a neighbour under ``hamming`` or ``one-entry`` changes one entry, so one part: every ratio,
    hockey-stick sum and Rényi sum of the other parts cancels, and each notion is the **maximum
    over the parts** (pure ε, δ(ε), ε(δ), profiles, Rényi D_α, K runs on the same pair);
  - under ``all-entries`` every part may move at once: pure ε and Rényi divergences of a product
    are **sums over the parts** (each part's maximum includes "not moved", value 0); (ε, δ) of a
    product is not a function of the parts' values, so (ε, δ) there is planned on the whole program.

  Parts with one canonical form are analysed once (each through the planner again).
* ``given-input``: parts independent given the input (:mod:`.given_input`); ``chain``: a chain of blocks whose
  ratio is a max-product over states (:mod:`.chain`); ``hub``: parts independent once a hub of random bits is
  fixed (:mod:`.hub`). Pure ε only; none of them lists the triples.
* ``count-of-reports``: a sum of one 0/1 report per entry, its rows by convolution (:mod:`.sums`; the notions
  over pairs).
* ``symmetry``: orbit sets of the program's proved symmetries (:mod:`wmcdp.plan.symmetry`).

**How it chooses.** Every plan of the whole compiled program is behind the plan protocol (:mod:`.protocol`):
it proves its factorization (or says why not), estimates its run from counted work before it runs, and runs.
Pure ε (:func:`~.planned.planned_privacy`): the plans that split the program first, ``product`` (not under the
rule "sum" with a symbolic weight) then ``given-input``, each part planned again; then, on the compiled program,
the exhaustive sets at once for a user relation or when their estimate ``E`` (:func:`exhaustive_estimate`) is
below :data:`~.costs.QUICK_SECONDS`; otherwise :func:`~.choose.choose_privacy`: ``chain``, ``hub`` and every
registered plan are proved and estimated and run cheapest first while their estimate is below ``E`` (or ``E`` is
None: the exhaustive sets do not fit); when that leaves the exhaustive sets, a symmetry is sought (for relations
that are a condition on each entry) and its orbit sets run when their estimate is below ``E``, else the
exhaustive sets. A plan whose witness, recounted on the whole program (:func:`recount`), does not bear it out is
dropped, its line in ``considered`` says why, and the next one runs. The notions over pairs
(:func:`~.planned.planned_pairs`): ``count-of-reports``, ``product``, ``given-input`` below ``E``, then symmetry
against ``E`` as above, else exhaustive; one float run of δ(ε), ε(δ) or a profile of a count of two-report users
takes the shuffle at scale when its estimate is below the count of reports' (:func:`~.planned.planned_scale`). Accuracy
(:func:`~.planned.planned_accuracy`): exhaustive when ``E`` is quick, else the orbit inputs unless they save less
than half of the inputs. At one database (:func:`~.structured_at.structured_privacy_at`): the parts of a product,
else ``given-input``, ``chain`` and ``hub`` in that order when the exhaustive at sets are not quick. A forced plan
(:mod:`.forced`) runs only the plan named.

**Never a cliff.** Independence costs one pass over the circuit. Symmetry detection and the structured plans
cost diagram operations, so they run under a budget of counted work: when the exhaustive sets fit the limits,
detection may touch ``DETECTION_SHARE * E * WORK_PER_SECOND`` diagram nodes (with a CUDD memory cap from the
work left), else :data:`~.costs.UNFIT_DETECTION_WORK`; proofs past either are *abandoned* (not failed): the group
is what was proved within the budget. ``E`` is a fixed function of counted work (:mod:`.costs`), in seconds only
as a unit, and no decision reads a clock, so one command gives the same plan on any machine. The estimate a plan
reports adds the tracing and compiling that every plan shares (:func:`preparation_estimate`), as its measured
seconds do. Every result reports its plan and the claims it relies on, each with how it was proved
(:class:`PlanReport`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..base import progress
from ..base.errors import NoRatioError, WmcdpError
from ..base.numbers import ln, size_text
from ..compile import Compiled, compile_trace
from ..count.exact import Scaled
from ..count.floats import Extended, Linear
from ..count.probabilities import exhaustive_outputs, exhaustive_work, number_system
from ..lang.program import Program, Trace
from ..lang.relations import Relation, neighbour_relation
from ..lang.sets import MAX_PAIRS, MAX_TRIPLES
from ..lang.shape import leaves
from . import costs
from .costs import (
    DETECTION_SHARE,
    DETECTION_UNIT_SECONDS,
    GATE_SECONDS,
    NODE_SECONDS,
    OBJECT_ORBIT_TRIPLE_SECONDS,
    OBJECT_PAIR_NODE_SECONDS,
    OBJECT_TRIPLE_SECONDS,
    ORBIT_PAIR_SECONDS,
    ORBIT_TRIPLE_SECONDS,
    PAIR_NODE_SECONDS,
    PREPARE_SECONDS,
    QUICK_SECONDS,
    ROW_NODE_SECONDS,
    UNFIT_DETECTION_WORK,
    WORK_PER_SECOND,
)
from .parts import Part, classes, part_program, part_trace, split

#: notions that split over a product under each relation: "max" or "sum" (absent: no split)
PRODUCT_RULE = {"hamming": "max", "one-entry": "max", "all-entries": "sum"}
#: why each rule holds, from the built-in relations' definitions (for the plan's claims)
_RULE_PROOF = {
    "max": "by definition: a neighbour changes exactly one entry, hence one part; the other parts' factors cancel",
    "sum": "by definition: every entry may move by at most one, independently, so any set of parts may move at once",
}


@dataclass
class PlanReport:
    """How a bound was computed: the plan's ``kind``, the structure found, sizes against exhaustive, seconds."""

    kind: str
    """The plan that answered, one of :data:`.forced.PLANS`: ``exhaustive``, ``product``, ``given-input``,
    ``chain``, ``hub``, ``count-of-reports`` (the notions over pairs) or ``symmetry``."""
    structure: str  # what was proved, in words
    size: int | None = None  # triples (pure ε), pairs (other notions) or inputs (accuracy) scanned
    exhaustive_size: int | None = None
    estimated_seconds: float | None = None
    detection_seconds: float = 0.0
    seconds: float = 0.0
    parts: int = 0  # independent parts (product plans)
    distinct_parts: int = 0  # parts analysed (one per canonical form)
    part_plans: tuple[PlanReport, ...] = ()  # the plan of each distinct part
    considered: tuple[tuple[str, float | None, str], ...] = ()  # (kind, estimated seconds, note) of every plan weighed
    claims: tuple[tuple[str, str], ...] = ()  # (claim, how it was proved) of every fact the plan relies on
    detection_work: int = 0  # work units symmetry detection spent (diagram nodes, circuit nodes and edges visited)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "structure": self.structure,
            "size": _big(self.size),
            "exhaustive_size": _big(self.exhaustive_size),
            "estimated_seconds": self.estimated_seconds,
            "detection_seconds": self.detection_seconds,
            "detection_work": self.detection_work,
            "seconds": self.seconds,
        }
        if self.kind == "product":
            out.update(
                parts=self.parts, distinct_parts=self.distinct_parts, part_plans=[p.as_dict() for p in self.part_plans]
            )
        out["considered"] = [{"kind": k, "estimated_seconds": e, "note": note} for k, e, note in self.considered]
        out["claims"] = [{"claim": claim, "how": how} for claim, how in self.claims]
        return out

    def claims_text(self) -> list[str]:
        """One line per claim the plan relies on (its parts' claims after its own): ``claim: how``."""
        own = [f"{claim}: {how}" for claim, how in self.claims]
        return own + [line for part in self.part_plans for line in part.claims_text() if line not in own]

    def text(self) -> str:
        """One line for people: the kind, the structure and the sizes."""
        sizes = ""
        if self.size is not None and self.exhaustive_size is not None:
            sizes = f"; {size_text(self.size)} of {size_text(self.exhaustive_size)} exhaustive"
        return f"{self.kind} ({self.structure}{sizes})"


def answered(
    r: Any,
    kind: str,
    structure: str,
    sizes: tuple[int | None, int | None],
    estimate: float | None,
    start: float,
    considered: Sequence[tuple[Any, ...]],
    claims: tuple[tuple[str, str], ...] = (),
    detection: tuple[float, int] = (0.0, 0),
) -> Any:
    """The result ``r`` of a plan that answered, with its report: its ``kind`` and ``structure``, ``sizes`` (the
    size of its set and of the exhaustive one), its ``estimate``, the seconds since ``start`` (the result's seconds
    too), the plans ``considered``, its ``claims`` and ``detection`` (its seconds and work units)."""
    plan = PlanReport(
        kind,
        structure,
        *sizes,
        estimate,
        detection[0],
        time.perf_counter() - start,
        considered=tuple(considered),
        claims=claims,
        detection_work=detection[1],
    )
    return replace(r, seconds=plan.seconds, plan=plan)


def _big(n: int | None) -> Any:
    """A set size for JSON: an int, or its text when a float could not hold it exactly."""
    if n is None or n.bit_length() <= 53:
        return n
    return size_text(n)


# -- traces and compilation ----------------------------------------------------------------------


def traced(prog: Program | Compiled, exact: Any, terms: bool = False) -> tuple[Program, Trace, Compiled | None]:
    """The program, its trace (with ``terms``, of the terms of a sum it returns: :meth:`Program.trace`), and its
    compilation if it was given compiled."""
    if isinstance(prog, Compiled):
        return prog.program, prog.trace, prog
    if not isinstance(prog, Program):
        raise WmcdpError(f"expected a wmcdp Program, got {type(prog).__name__}")
    return prog, prog.trace(exact_floats=exact == "binary", terms=terms), None


def compiled_whole(program: Program, trace: Trace, compiled: Compiled | None, backend: str) -> Compiled:
    """The whole program compiled (``compiled`` when the caller gave it). When its inputs alone put the exhaustive
    sets over the limits, the plans that might answer and symmetry detection share
    :data:`UNFIT_DETECTION_WORK` of counted work, and the compilation takes no more (:func:`unfit_work`)."""
    if compiled is not None:
        return compiled
    return compile_trace(program, trace, backend, exact_floats=trace.circuit.exact_floats, limit=unfit_work(program))


def unfit_work(program: Program) -> int | None:
    """The diagram operations the whole program's compilation may be estimated to take: :data:`UNFIT_DETECTION_WORK`
    when one output per input already puts the exhaustive pairs over :data:`MAX_PAIRS` (no exhaustive run, only
    the work the plans share), else None (a compilation's own limit, :data:`~wmcdp.compile.MAX_COMPILE_LOOKUPS`)."""
    return UNFIT_DETECTION_WORK if program.inputs.size > MAX_PAIRS else None


@dataclass
class Product:
    """A program split into independent parts: one compiled representative per class of equal parts."""

    program: Program
    trace: Trace
    parts: list[Part]
    members: list[tuple[int, ...]]  # per class: the indices of its parts
    compiled: list[Compiled]  # per class: its representative, compiled
    rule: str  # "max" or "sum"
    seconds: float  # analysis
    relation: str = "hamming"  # the built-in relation the rule comes from

    def structure(self, bound: str | None = None) -> str:
        """The parts found, and how the bound comes from them (``bound``, default the rule over the parts)."""
        sizes = sorted({len(self.parts[m[0]].entries) for m in self.members})
        per = "one entry each" if sizes == [1] else f"{'-'.join(map(str, sizes))} entries each"
        return (
            f"{len(self.parts)} independent parts ({per}), {len(self.members)} distinct; "
            f"bound = {bound or f'{self.rule} over the parts'}"
        )

    def report(
        self,
        plans: Sequence[PlanReport | None],
        size: int | None,
        exhaustive: int | None,
        seconds: float,
        bound: str | None = None,
        claims: Sequence[tuple[str, str]] = (),
    ) -> PlanReport:
        """The product plan, with the plans of its distinct parts (``plans``, one per class) and the claims it
        relies on (independence and equal parts, then ``claims``, e.g. the dominance of a pair)."""
        return PlanReport(
            "product",
            self.structure(bound),
            size,
            exhaustive,
            None,
            self.seconds,
            seconds,
            len(self.parts),
            len(self.members),
            tuple(q for q in plans if q is not None),
            claims=self.claims() + tuple(claims),
        )

    def claims(self) -> tuple[tuple[str, str], ...]:
        """Independence of the parts and equality of the parts in one class, with how each was decided."""
        out = [
            (
                f"the {len(self.parts)} output parts are independent (P(y | x) is the product of the parts')",
                "read off the traced circuit: the parts' cones share no gate, random bit or input entry",
            )
        ]
        if len(self.members) < len(self.parts):
            out.append(
                (
                    f"the parts fall into {len(self.members)} class(es), one mechanism each",
                    "equal canonical forms of the parts' sub-circuits and output shapes (isomorphic circuits, weights "
                    "kept, the same output values)",
                )
            )
        out.append((f"the relation {self.relation} moves parts as the rule '{self.rule}' says", _RULE_PROOF[self.rule]))
        return tuple(out)

    # -- mapping a part's witness back to the program's inputs and outputs ------------------------
    def embed_input(self, values: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
        """A program input: the part inputs ``values[part index]`` on their entries, the domain's lowest value
        elsewhere."""
        domain = self.program.inputs
        x = [domain.lo] * domain.n
        for index, local in values.items():
            for entry, v in zip(self.parts[index].entries, local):
                x[entry] = v
        return tuple(x)

    def embed_output(self, values: dict[int, Any]) -> Any:
        """A program output from each part's output (a part's value: its leaf, or the tuple of its leaves)."""
        shape = self.trace.shape
        leaf_values: list[Any] = [None] * len(leaves(shape))
        for index, value in values.items():
            part = self.parts[index]
            items = value if len(part.leaves) > 1 else (value,)
            for k, v in zip(part.leaves, _flatten(items, len(part.leaves))):
                leaf_values[k] = v
        return shape._build(iter(leaf_values))


def _flatten(value: Any, count: int) -> list[Any]:
    """The leaf values of a part's output (a tuple of ``count`` leaf values, nested tuples flattened)."""
    out: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
        else:
            out.append(item)
    assert len(out) == count
    return out


def product_of(
    program: Program, trace: Trace, relation: Relation, backend: str, *, rules: Sequence[str] = ("max", "sum")
) -> Product | None:
    """The program's independent parts when it has at least two and the relation lets the notion split."""
    rule = PRODUCT_RULE.get(relation.name) if relation.builtin else None
    if rule is None or rule not in rules:
        return None
    start = time.perf_counter()
    parts = split(trace)
    if parts is None:
        return None
    groups = classes(parts)
    compiled = []
    for group in groups:
        index = group.members[0]
        sub = part_program(program, parts[index], index)
        sub = replace(sub, neighbours=relation.name)
        compiled.append(
            compile_trace(sub, part_trace(trace, parts[index]), backend, exact_floats=trace.circuit.exact_floats)
        )
    return Product(
        program, trace, parts, [g.members for g in groups], compiled, rule, time.perf_counter() - start, relation.name
    )


# -- what a listener hears (wmcdp.base.progress) ----------------------------------------------


def announce(kind: str, estimate: float | None = None, detail: str = "") -> None:
    """The plan about to run, for a listener of :mod:`wmcdp.base.progress`: its ``kind``, a few words of
    ``detail`` and its estimated seconds (``plan: exhaustive sets, estimated 10 s``)."""
    seconds = "" if estimate is None else f"estimated {estimate:.3g} s"
    progress.phase("plan", ", ".join(w for w in (kind, detail, seconds) if w))


# -- the recount of a plan's witness -----------------------------------------------------------


def recount(
    run: Callable[..., Any],
    whole: Compiled,
    relation: Relation,
    exact: Any,
    triple: tuple[Any, Any, Any],
    claimed: Any,
    tolerance: float = 0.0,
    at: tuple[int, ...] | None = None,
) -> tuple[Any | None, str]:
    """A plan's witness ``triple = (x, x', y)`` counted on the whole program by ``run`` (Algorithm 2 on that one
    triple, the ordinary counter): ``(its result, "")`` when it bears the plan out, else ``(None, why not)``, and
    the plan is dropped (the next plan answers). It fails when ``(x, x')`` is no neighbour pair (or, with ``at``,
    a data-centric plan's database ``x0``, is no pair of ``x0``), when ``P(y | x) = 0`` (both sides 0: no ratio at
    all), or when its ratio is not the plan's ``claimed`` one: in an exact run the ratio itself, in a float run ε
    within ``tolerance * max(1, ε)`` (``claimed`` None: the count is the answer)."""
    x, xp, y = triple
    progress.phase("recount", "the plan's witness on the whole program")
    if not relation.related(whole.domain, x, xp):
        return None, f"dropped: its witness (x, x') is no {relation.name} pair"
    if at is not None and at not in (tuple(x), tuple(xp)):
        return None, "dropped: its witness (x, x') is no pair of the database given (at)"
    try:
        r = run(whole, [triple], [(x, y), (xp, y)], neighbours=relation, exact=exact)
    except NoRatioError:
        return None, "dropped: its witness output has P(y | x) = P(y | x') = 0"
    positive = r.p_x > 0 or (r.log_p_x is not None and r.log_p_x > -math.inf)
    why = disagreement(positive, r.ratio if r.exact else r.epsilon, claimed, r.exact, tolerance)
    return (None, why) if why else (r, "")


#: what a structured plan's report adds when it ran on the data-centric pairs of one database (``at``)
AT_NOTE = "; at x0: the pairs (x0, x') and (x', x0) only"


def exhaustive_triples(whole: Compiled, relation: Relation, at: tuple[int, ...] | None = None) -> int:
    """The triples of the exhaustive sets a plan's report sets its size beside: every neighbour pair's, or with
    ``at`` (a database ``x0``) those of its data-centric pairs (:func:`~.pairs.pairs_at`: two per neighbour), times
    every output."""
    pairs = relation.count_pairs(whole.domain) if at is None else 2 * relation.count_neighbours(whole.domain, at)
    return int(pairs * whole.shape.size)


def at_offsets(whole: Compiled, at: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The entry offsets (``x_i - lo``) of a database ``at`` of the program's domain (None: every pair)."""
    return None if at is None else tuple(v - whole.domain.lo for v in at)


def disagreement(positive: bool, counted: Any, claimed: Any, exact: bool, tolerance: float = 0.0) -> str:
    """Why a witness's count does not bear a plan out (``""`` when it does): ``P(y | x) = 0`` (not ``positive``),
    or its ratio (``exact``; ε in float runs, within ``tolerance * max(1, ε)``) is not the plan's ``claimed`` one
    (None: not compared)."""
    if not positive:
        return "dropped: its witness output has P(y | x) = 0"
    if claimed is None or (counted == claimed if exact else _near(counted, claimed, tolerance)):
        return ""
    what = "ratio" if exact else "epsilon"
    return f"dropped: its {what} is {_short(claimed)} but its witness counts {_short(counted)}"


def _near(counted: float, claimed: float, tolerance: float) -> bool:
    """``counted`` within ``tolerance * max(1, |claimed|)`` of ``claimed`` (infinities equal only to themselves)."""
    if math.isinf(counted) or math.isinf(claimed):
        return bool(counted == claimed)
    return abs(counted - claimed) <= tolerance * max(1.0, abs(claimed))


def _short(value: Any) -> str:
    """A ratio or ε for a plan's note: a Fraction of many digits as ``e^`` its log."""
    text = str(value)
    if len(text) <= 24:
        return text
    return f"e^{log_of(value):.12g}" if isinstance(value, Fraction) else f"{float(value):.12g}"


# -- estimates -------------------------------------------------------------------------------


def exhaustive_fits(compiled: Compiled, relation: Relation, triples: bool = True) -> bool:
    """The exhaustive sets are within the limits: ``|X| |Y|`` pairs and (``triples``) every neighbour pair times
    ``|Y|``, ``|Y|`` the outputs the exhaustive table lists (the producible ones when they are listed:
    :func:`~wmcdp.count.probabilities.exhaustive_outputs`, counted only when the whole shape is over the limits and
    one output per input is not)."""
    if _fits(compiled, relation, triples, compiled.shape.size):
        return True
    return _fits(compiled, relation, triples, 1) and _fits(compiled, relation, triples, exhaustive_outputs(compiled))


def _fits(compiled: Compiled, relation: Relation, triples: bool, outputs: int) -> bool:
    if compiled.domain.size * outputs > MAX_PAIRS:
        return False
    return not triples or not relation.builtin or relation.count_pairs(compiled.domain) * outputs <= MAX_TRIPLES


def exhaustive_estimate(
    compiled: Compiled, relation: Relation | None, pairs: bool = False, exact: Any = None, logs: bool = False
) -> float:
    """Seconds of an exhaustive run: each work count of :func:`exhaustive_terms` times the constant of
    :mod:`~wmcdp.plan.costs` it is keyed by (infinite past the float range)."""
    seconds = 0.0
    for name, count in exhaustive_terms(compiled, relation, pairs, exact, logs).items():
        seconds += _seconds(count, getattr(costs, name))
    return seconds


def exhaustive_terms(
    compiled: Compiled, relation: Relation | None, pairs: bool = False, exact: Any = None, logs: bool = False
) -> dict[str, int]:
    """The work an exhaustive run counts, keyed by the name of the constant of :mod:`~wmcdp.plan.costs` each count
    is charged at (:func:`exhaustive_estimate` sums their products): the count of the whole table, over the
    producible outputs when it lists them (its cells, entries and levels, from a dry run of the count,
    :func:`~wmcdp.count.probabilities.exhaustive_work`; cells under the outputs on top charged as such), a user
    relation's pairs listed in Python (:func:`user_pairs`) with their outputs, and every triple (pair, output) when
    a built-in relation is given, at the dearest of the cost of a triple in the numbers of the run (``exact`` as the
    notions take it), the least cost of a sliced triple under all-entries and (``pairs``: summed per pair over the
    outputs, as (epsilon, delta) and Renyi DP do) the cost of a pass over pairs, plus each slice of the table the
    pairs come in. ``logs``: the pass runs in float logs whatever the number system (Renyi DP's, whose exact
    candidates are recounted apart), so its triples cost as floats."""
    outputs = compiled.shape.size
    if compiled.backend.name == "bdd":
        outputs, (cells, steps, layers) = exhaustive_work(compiled)
    else:
        cells, steps, layers = 2 * compiled.domain.size * outputs, compiled.size, 0
    table = compiled.domain.size * outputs
    per_cell = "TOP_CELL_SECONDS" if compiled.outputs_on_top else "CELL_SECONDS"
    terms = {"BASE_SECONDS": 1, "STEP_SECONDS": steps, "LAYER_SECONDS": layers, per_cell: max(cells, table)}
    if relation is None:
        return terms
    if not relation.builtin:
        listed = user_pairs(compiled, relation)
        return terms | {"USER_PAIR_SECONDS": listed, "TRIPLE_SECONDS": listed * outputs}
    charged = ["TRIPLE_SECONDS" if pairs and logs else triple_constant(compiled, exact)]
    if relation.name == "all-entries":
        charged.append("SLICED_TRIPLE_SECONDS")
    if pairs:
        charged.append("PAIR_TRIPLE_SECONDS")
    per_triple = max(charged, key=lambda name: float(getattr(costs, name)))
    slices = relation.direction_count(compiled.domain)
    return terms | {"SLICE_SECONDS": slices, per_triple: relation.count_pairs(compiled.domain) * outputs}


def user_pairs(compiled: Compiled, relation: Relation) -> int:
    """The neighbour pairs of a user relation, estimated as the domain's size times the number of neighbours of its
    first input (a Python function's pairs are not known without listing them all)."""
    first = next(iter(compiled.domain.values()))
    return compiled.domain.size * sum(1 for _ in relation.neighbours(compiled.domain, first))


def triple_seconds(compiled: Compiled, exact: Any = None) -> float:
    """Seconds per scanned triple in the number system of the run (:func:`triple_constant`)."""
    return float(getattr(costs, triple_constant(compiled, exact)))


def triple_constant(compiled: Compiled, exact: Any = None) -> str:
    """The constant of :mod:`~wmcdp.plan.costs` a scanned triple costs in the number system of the run
    (:func:`wmcdp.count.probabilities.number_system`): float arrays, int64 or Python int numerators over a common
    denominator, or rationals (and functions of a symbolic parameter)."""
    arith = number_system(compiled, exact)
    if arith is Linear or arith is Extended:
        return "TRIPLE_SECONDS"
    if isinstance(arith, Scaled):
        return {object: "OBJECT_TRIPLE_SECONDS", np.int64: "INT_TRIPLE_SECONDS"}.get(arith.dtype, "TRIPLE_SECONDS")
    return "RATIONAL_TRIPLE_SECONDS"


def orbit_estimate(compiled: Compiled, counted: int, scanned: int, pairs: int = 0, exact: Any = None) -> float:
    """Seconds of an orbit-set run: ``counted`` (input, output) pairs one at a time, ``scanned`` ratios, and the
    listing of ``pairs`` neighbour pairs with their output orbits (pair runs), in the numbers of the run (``exact``
    as the notions take it: Python numbers cost more a node and a triple)."""
    objects = triple_seconds(compiled, exact) >= OBJECT_TRIPLE_SECONDS
    return (
        _seconds(counted * max(compiled.size, 1), OBJECT_PAIR_NODE_SECONDS if objects else PAIR_NODE_SECONDS)
        + _seconds(scanned, OBJECT_ORBIT_TRIPLE_SECONDS if objects else ORBIT_TRIPLE_SECONDS)
        + _seconds(pairs, ORBIT_PAIR_SECONDS)
    )


def rows_estimate(compiled: Compiled, inputs: int, exact: Any = None) -> float:
    """Seconds of an accuracy orbit run: one row per orbit input (``inputs``), each counted in one pass over the
    diagram (:data:`ROW_NODE_SECONDS` a node; Python numbers as :func:`orbit_estimate` charges them, 5 x)."""
    objects = triple_seconds(compiled, exact) >= OBJECT_TRIPLE_SECONDS
    per_node = ROW_NODE_SECONDS * (OBJECT_PAIR_NODE_SECONDS / PAIR_NODE_SECONDS if objects else 1)
    return _seconds(inputs * max(compiled.size, 1), per_node)


def preparation_estimate(compiled: Compiled, here: bool) -> float:
    """Seconds a plan spends before any plan is weighed, when it traced and compiled the program itself (``here``;
    else 0): :data:`GATE_SECONDS` per gate of the traced circuit, :data:`NODE_SECONDS` per node of the diagram
    (flattened and dry-run for the estimates) and :data:`PREPARE_SECONDS`. Every plan of the program pays it, so
    it decides nothing; it is part of the seconds a plan reports (:func:`prepared`)."""
    if not here:
        return 0.0
    return PREPARE_SECONDS + len(compiled.trace.circuit.gates) * GATE_SECONDS + compiled.size * NODE_SECONDS


def prepared(plan: PlanReport, preparation: float) -> PlanReport:
    """``plan`` with its estimate (when it has one) counting the ``preparation`` seconds its measured seconds
    count too (:func:`preparation_estimate`)."""
    if plan.estimated_seconds is None:
        return plan
    return replace(plan, estimated_seconds=plan.estimated_seconds + preparation)


def with_detection(estimate: float | None, budget: Budget | None) -> float | None:
    """A plan's estimate of all it spends: its run's ``estimate`` plus the work its detection spent (``budget``),
    at :data:`DETECTION_UNIT_SECONDS` a unit (None when the run has no estimate)."""
    spent = budget.spent if budget is not None else 0
    return None if estimate is None else estimate + spent * DETECTION_UNIT_SECONDS


def _seconds(count: int, per: float) -> float:
    """``count * per`` seconds, infinite for counts past the float range (set sizes are ints of any size)."""
    return count * per if count.bit_length() < 1000 else math.inf


@dataclass
class Budget:
    """Work that symmetry detection may spend, counted in diagram nodes (``work`` None: no limit but the run's).

    Every diagram operation of a proof is charged the nodes of its operand and of its result, every proof on
    the circuit the gates it visits; an operation whose operand alone would pass the budget is *abandoned*
    (not failed). Nothing here reads a clock: the same command spends the same work and proves the same group
    on any machine."""

    work: int | None
    spent: int = 0

    def left(self) -> int | None:
        return None if self.work is None else self.work - self.spent

    def charge(self, units: int) -> None:
        self.spent += units

    def affords(self, units: int) -> bool:
        return self.work is None or self.spent + units <= self.work

    def exhausted(self) -> bool:
        return self.work is not None and self.spent >= self.work


def detection_budget(
    compiled: Compiled, relation: Relation | None, triples: bool = True, pairs: bool = False, logs: bool = False
) -> tuple[Budget | None, float | None]:
    """``(budget for symmetry detection, exhaustive estimate)``; a None budget means: run exhaustive at once.

    The estimate is a fixed function of counted work (cells, diagram entries, triples: :func:`exhaustive_estimate`),
    in seconds of this machine only as a unit; the budget is :data:`DETECTION_SHARE` of it, in diagram nodes
    (:data:`WORK_PER_SECOND`)."""
    if relation is not None and not relation.builtin:
        return None, exhaustive_estimate(compiled, relation)
    if not exhaustive_fits(compiled, relation or neighbour_relation("hamming"), triples and relation is not None):
        return Budget(UNFIT_DETECTION_WORK), None
    estimate = exhaustive_estimate(compiled, relation, pairs, logs=logs)
    if estimate < QUICK_SECONDS:
        return None, estimate
    return Budget(int(DETECTION_SHARE * estimate * WORK_PER_SECOND)), estimate


def combine_max(values: Sequence[Any]) -> int:
    """The index of the largest value (the first on ties; values are Fractions, floats or inf)."""
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


def log_of(value: Any) -> float:
    """``ln`` of a positive ratio (a Fraction correctly rounded, a float as it is, inf for inf)."""
    if isinstance(value, Fraction):
        return ln(value)
    return math.inf if value == math.inf else math.log(value)


__all__ = [
    "PlanReport",
    "answered",
    "Product",
    "product_of",
    "Budget",
    "detection_budget",
    "exhaustive_estimate",
    "orbit_estimate",
    "rows_estimate",
    "with_detection",
    "preparation_estimate",
    "prepared",
    "exhaustive_fits",
    "traced",
    "compiled_whole",
    "combine_max",
    "log_of",
    "recount",
    "disagreement",
    "QUICK_SECONDS",
    "DETECTION_SHARE",
    "WORK_PER_SECOND",
    "PRODUCT_RULE",
]
