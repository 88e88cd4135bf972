"""Automatic symmetry sets: Algorithms 2 and 3 over orbit representatives of proved symmetries.

**Pure ε.** ``e^eps = max over y of max over neighbours x ~ x' of P(y|x) / P(y|x')``.
For a proved symmetry ``(pi, sigma)`` of the program, ``P(sigma(y) | pi x) = P(y | x)`` and
built-in neighbour relations are invariant under ``pi``, so the inner maximum is the same for
``y`` and ``sigma(y)``: one output per orbit of the program's group ``G`` suffices (outputs
with ``P(y | x) = 0`` for every ``x`` are left out when the support of the output is small
enough to list). For each such ``y`` the inner maximum runs over neighbour pairs up to
``H_y``, a group of entry permutations that leave ``P(y | .)`` unchanged: the part of ``G``
that fixes ``y``, enlarged by transpositions proved on ``phi | y`` itself (for at most
:data:`PER_OUTPUT_LIMIT` output orbits, when their candidate transpositions number at most
:data:`PER_OUTPUT_CHECKS`); entries outside the support of ``phi | y`` are not
read by ``P(y | .)`` and are fixed to the domain's lowest value in ``x`` and ``x'`` (only
their moves would change nothing). The privacy set is thus the set of orbits of triples
``(x, x', y)``; each orbit is scanned once, the witness is a real triple of the program
that attains the bound.

**Accuracy.** ``P(. | pi x) = P(. | x)`` for the blocks whose outputs are unchanged, so
``1 - beta`` is the same on an orbit when the target ``V`` is invariant too; ``A`` is one
input per orbit. ``V``'s invariance is decided exactly (:func:`accuracy_blocks`): ``V`` is
traced on symbolic inputs (the DSL values a program body gets) and each generator proved on its
diagram as the program's are; a ``V`` that cannot be traced is evaluated on every input (at most
:data:`V_ENUMERATION_LIMIT`), else its symmetry is not used. Never sampled.

**Pairs for (ε, δ) and Rényi DP** (:func:`pair_distributions`): neighbour pairs up to
``G``, each with its output distribution over output orbits of the stabilizer of the pair,
with multiplicities, so sums over all outputs are exact. When the outputs of nonzero probability are few
(:func:`listed_support`, fewer than the whole output shape), only they are listed and grouped into the
stabilizer's orbits; the others add 0 to every such sum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

import numpy as np

from ...base.errors import WmcdpError
from ...base.limits import LimitExceeded, check
from ...base.numbers import size_text
from ...compile import Compiled, compile_trace
from ...compile.support import SUPPORT_LIMIT, Support
from ...count.probabilities import Counter, as_compiled, number_system
from ...lang.circuit import Circuit
from ...lang.program import Program, SymbolicInput, Trace
from ...lang.relations import NEIGHBOURS, Relation, neighbour_relation
from ...lang.sets import MAX_PAIRS as SET_MAX_PAIRS
from ...lang.sets import AccuracySet, accuracy_targets
from ...lang.shape import shape_of
from ...lang.values import Bool, Int, tracing
from .group import (
    INDEX,
    TUPLE,
    UNCHANGED,
    Block,
    OutputAction,
    PairOrbits,
    PairTypes,
    Symmetry,
    canonical_inputs,
    input_orbits,
    multiset_count,
    multisets,
    orbit_set_sizes,
    product_rows,
)
from .proof import MAX_ATTEMPTS, Prover, detect, read_entries, refine

#: per-output groups are proved (on phi | y) for at most this many output orbits
PER_OUTPUT_LIMIT = 2048
#: ... and when their candidate transpositions (per output orbit, adjacent entries and then every pair of
#: entries, up to the proof's own cap) number at most this many in all: past it the cost is known to be out
#: of proportion and the orbit sets use the program's group alone
PER_OUTPUT_CHECKS = 1 << 18
#: cells (rows times entries) of one batch of pairs
BATCH_CELLS = 1 << 23
#: a target V that cannot be traced is evaluated on every input when there are at most this many (the calls an
#: exhaustive run makes anyway, on top of counting every input); past it, its symmetry is not used
V_ENUMERATION_LIMIT = 1 << 20
#: inputs (all lowest, all highest, alternating) on which a traced V is compared with V itself: a difference
#: shows V reads its input in a way tracing does not see, and V is then enumerated (this refutes, never proves)
V_PROBES = 4

#: orbit sets over these sizes are refused unless forced (each orbit triple is a batched count, not a table cell)
MAX_TRIPLES = 1 << 28
MAX_PAIRS = 1 << 24


@dataclass(frozen=True)
class AutoSets:
    """What ``sets="auto"`` found and used, for the result and the report."""

    symmetry: str  # the program's group, e.g. "S_10 on entries 0..9, outputs permuted with inputs"
    order: int  # its number of elements
    per_output: str  # how per-output groups were used (privacy), or ""
    size: int  # |C| triples (privacy) or |A| inputs (accuracy)
    inference: int  # |I|: (x, y) pairs whose probability the sets ask for
    exhaustive_size: int
    exhaustive_inference: int
    proofs: int  # diagram equalities that held
    attempts: int  # candidate generators tried
    seconds: float  # detection and proofs
    note: str = ""
    claims: tuple[tuple[str, str], ...] = ()  # (claim, how it was proved) of every fact the sets rely on

    def as_dict(self) -> dict[str, Any]:
        return {
            "symmetry": self.symmetry,
            "group_order": self.order,
            "per_output": self.per_output,
            "size": self.size,
            "inference_size": self.inference,
            "exhaustive_size": self.exhaustive_size,
            "exhaustive_inference_size": self.exhaustive_inference,
            "proofs": self.proofs,
            "attempts": self.attempts,
            "detection_seconds": self.seconds,
            "note": self.note,
            "claims": [{"claim": claim, "how": how} for claim, how in self.claims],
        }


def refuse_default(exhaustive: str, orbits: str, symmetry: str) -> NoReturn:
    """The one-line refusal of a default plan none of whose runs fits the limits: the sizes of each, what the user
    may do instead, and the symmetry last (a line cut to 200 characters keeps its start and its end)."""
    raise WmcdpError(
        f"the default plan finds no run within the limits: exhaustive sets {exhaustive}; orbit sets {orbits}; use "
        f"--force or --sets FILE.py:FUNC (symmetry proved: {symmetry})"
    )


# -- detection ---------------------------------------------------------------------------------


def prover_for(compiled: Compiled, budget: Any = None) -> tuple[Prover, str]:
    """A :class:`Prover` on a BDD of the program (SDD programs are recompiled to a BDD for the proofs);
    ``budget`` (:class:`wmcdp.plan.planner.Budget`) bounds its diagram proofs."""
    if compiled.backend.name == "bdd":
        return Prover(compiled, budget), ""
    bdd = compile_trace(compiled.program, compiled.trace, "bdd", exact_floats=compiled.exact_floats)
    return Prover(bdd, budget), "symmetry proved on a BDD compilation of the program"


def _detected(prover: Prover, note: str) -> Symmetry:
    sym = detect(prover)
    return replace(sym, note="; ".join(t for t in (note, sym.note) if t))


def find_symmetry(prog: Program | Compiled, *, backend: str = "bdd", budget: Any = None) -> Symmetry:
    """The program's proved symmetry group (see :mod:`wmcdp.plan.symmetry.proof`); ``budget`` bounds the diagram
    proofs."""
    return proved_symmetry(as_compiled(prog, backend), budget)[0]


def proved_symmetry(compiled: Compiled, budget: Any = None) -> tuple[Symmetry, Prover]:
    """The program's proved symmetry group and the prover that proved it (whose :meth:`Prover.how` says how)."""
    prover, note = prover_for(compiled, budget)
    return _detected(prover, note), prover


def _relation_name(compiled: Compiled, neighbours: str | Relation | None) -> str:
    relation = neighbour_relation(neighbours or compiled.program.neighbours)
    per_entry = ", ".join(name for name, r in NEIGHBOURS.items() if r.per_entry)
    if not relation.builtin:
        raise WmcdpError(
            f"automatic symmetry sets need a built-in neighbour relation ({per_entry}), "
            f"not the user relation {relation.name}"
        )
    if not relation.per_entry:  # its orbits are built on per-entry pair types (PairTypes)
        raise WmcdpError(
            f"automatic symmetry sets need a neighbour relation that is a condition on each entry ({per_entry}), "
            f"not {relation.name}"
        )
    return relation.name


#: each built-in relation as a condition on the per-entry pairs (x_i, x'_i), the same for every entry
RELATION_DEFINITIONS = {
    "hamming": "x_i != x'_i at exactly one entry",
    "one-entry": "|x_i - x'_i| = 1 at exactly one entry, x_i = x'_i elsewhere",
    "all-entries": "|x_i - x'_i| <= 1 at every entry, != at some",
}


def relation_claim(relation: str, k: int, reflections: bool) -> tuple[str, str]:
    """The claim that the built-in ``relation`` is invariant under the group, and its proof: the relation is a
    condition on the per-entry pairs ``(x_i, x'_i)`` that is the same for every entry and counts entries only,
    so permuting entries keeps it; with value reflections ``v -> lo + hi - v`` the set of per-entry pair types
    (:class:`PairTypes`, ``k`` values) is checked, exactly, to be closed under the reflection (``|r(a) - r(b)| =
    |a - b|``)."""
    moves = "entry permutations" + (" and value reflections" if reflections else "")
    how = f"by definition ({RELATION_DEFINITIONS[relation]}: the same condition at every entry)"
    if reflections:
        types = PairTypes.of(relation, k)
        pairs = set(zip(types.x.tolist(), types.x_prime.tolist()))
        if {(k - 1 - a, k - 1 - b) for a, b in pairs} != pairs:
            raise AssertionError(f"the relation {relation} is not closed under value reflections")
        how += f"; its {len(pairs)} per-entry pair types checked closed under the reflection"
    return f"the neighbour relation {relation} is invariant under {moves}", how


# -- outputs -------------------------------------------------------------------------------------


def _listed_outputs(support: Support, prover: Prover, sym: Symmetry) -> np.ndarray:
    """The orbit representatives of the outputs in the support, in output order."""
    return np.unique(prover.action.canonical(support.rows(), sym), axis=0)


def listed_support(prover: Prover, outputs: int) -> Support | None:
    """The outputs with nonzero probability for some input (:attr:`wmcdp.compile.Compiled.support`) when they are
    to be listed instead of ``outputs`` outputs: at most :data:`SUPPORT_LIMIT` and fewer; None otherwise. Nothing is
    enumerated: the support is counted on its diagram (the existential quantification of ``phi`` over every bit
    but the outputs'), once per program."""
    support = prover.compiled.support
    return support if support is not None and support.size <= SUPPORT_LIMIT and support.size < outputs else None


def _pair_support(prover: Prover) -> np.ndarray | None:
    """The outputs each neighbour pair lists (rows of leaf offsets): those of nonzero probability when
    :func:`listed_support` lists them instead of the whole output shape; None for the whole shape."""
    listed = listed_support(prover, math.prod(prover.action.sizes))
    return None if listed is None else listed.rows()


def pair_output_orbits(prover: Prover, sym: Symmetry) -> int:
    """The output orbits per neighbour pair a pair run is sized by: the group's (counted in closed form,
    :meth:`~.group.OutputAction.count_orbits`), or the outputs of nonzero probability when these are listed
    (:func:`_pair_support`) and fewer."""
    orbits = prover.action.count_orbits(sym)
    listed = listed_support(prover, math.prod(prover.action.sizes))
    return orbits if listed is None else min(orbits, listed.size)


@dataclass
class PrivacyPlan:
    """The orbit sets of a pure-ε run: per output orbit, its neighbour-pair orbits."""

    compiled: Compiled
    symmetry: Symmetry
    relation: str
    outputs: list[tuple[np.ndarray, PairOrbits]] | None  # listed when per-output groups were proved
    output_reps: Callable[[], Iterator[np.ndarray]]
    per_output: str
    note: str
    seconds: float
    proofs: int
    attempts: int
    claims: tuple[tuple[str, str], ...] = ()  # (claim, how it was proved) of every fact the orbit sets rely on
    listed: bool = False  # the output orbits are those of the support, listed from the diagram
    _sizes: tuple[int, int] | None = field(default=None, repr=False)

    def items(self) -> Iterator[tuple[np.ndarray, PairOrbits]]:
        """``(output leaf offsets, pair orbits)`` per output orbit, in output order."""
        if self.outputs is not None:
            yield from self.outputs
            return
        act = OutputAction(self.compiled.shape, self.symmetry.n)
        types = PairTypes.of(self.relation, len(self.compiled.domain.entry_values))
        for chunk in self.output_reps():
            for offsets in chunk:
                blocks = self.symmetry_blocks(act, offsets)
                yield offsets, PairOrbits(self.symmetry.n, blocks, types)

    def symmetry_blocks(self, act: OutputAction, offsets: np.ndarray) -> list[list[int]]:
        stab = act.stabilizer(self.symmetry, offsets)
        covered = {e for b in stab for e in b}
        return stab + [[e] for e in range(self.symmetry.n) if e not in covered]

    def sizes(self) -> tuple[int, int]:
        """``(|C| triples, |I| pairs)`` of the orbit sets, Python ints of any size: in closed form over every
        output orbit of the group (:func:`~.group.orbit_set_sizes`), over the listed support by the shapes of
        its outputs' stabilizers (:func:`_listed_sizes`), else summed over the output orbits whose own groups
        were proved (at most :data:`PER_OUTPUT_LIMIT`); the time it takes counts as detection."""
        if self._sizes is None:
            start = time.perf_counter()
            k = len(self.compiled.domain.entry_values)
            act = OutputAction(self.compiled.shape, self.symmetry.n)
            types = PairTypes.of(self.relation, k)
            if self.outputs is None and not self.listed:
                self._sizes = orbit_set_sizes(self.symmetry, act, types, k)
            elif self.outputs is None:
                self._sizes = _listed_sizes(act, self.symmetry, self.output_reps, types, k)
            else:
                triples = pairs = 0
                for _, orbits in self.items():
                    check("sizing the symmetry sets")
                    triples += orbits.count()
                    pairs += orbits.inputs(k)
                self._sizes = (triples, pairs)
            self.seconds += time.perf_counter() - start
        return self._sizes

    def report(self) -> AutoSets:
        c = self.compiled
        triples, pairs = self.sizes()
        relation = neighbour_relation(self.relation)
        return AutoSets(
            self.symmetry.describe(),
            self.symmetry.order,
            self.per_output,
            triples,
            pairs,
            relation.count_pairs(c.domain) * c.shape.size,
            c.domain.size * c.shape.size,
            self.proofs,
            self.attempts,
            self.seconds,
            self.note,
            self.claims,
        )


def _listed_sizes(
    act: OutputAction, sym: Symmetry, output_reps: Callable[[], Iterator[np.ndarray]], types: PairTypes, k: int
) -> tuple[int, int]:
    """``(|C|, |I|)`` over the listed output orbits: the pair orbits and input orbits of an output's stabilizer
    depend only on the sizes of its blocks (:class:`~.group.PairOrbits`), so the outputs are grouped by those
    sizes (:func:`_stabilizer_shapes`, array operations) and each shape is counted once, times its outputs."""
    shapes: dict[tuple[int, ...], int] = {}
    for chunk in output_reps():
        check("sizing the symmetry sets")
        for shape, count in _stabilizer_shapes(act, sym, chunk).items():
            shapes[shape] = shapes.get(shape, 0) + count
    triples = pairs = 0
    for shape, count in shapes.items():
        ends = np.cumsum(shape).tolist()
        blocks = [list(range(end - size, end)) for size, end in zip(shape, ends)]
        orbits = PairOrbits(sym.n, blocks, types)
        triples += count * orbits.count()
        pairs += count * orbits.inputs(k)
    return triples, pairs


def _stabilizer_shapes(act: OutputAction, sym: Symmetry, offsets: np.ndarray) -> dict[tuple[int, ...], int]:
    """How many outputs of ``offsets`` (rows) have each stabilizer shape: the sizes, in decreasing order, of the
    blocks of :meth:`~.group.OutputAction.stabilizer` with every other entry alone (an unchanged block whole, a
    tuple block cut by equal part codes, an index block less the entry the output names)."""
    rows = len(offsets)
    columns = [np.ones((rows, sym.n - sum(len(b.entries) for b in sym.blocks)), dtype=np.int64)]
    codes = act.part_codes(offsets) if any(b.kind == TUPLE for b in sym.blocks) else None
    for block in sym.blocks:
        m = len(block.entries)
        if block.kind == UNCHANGED:
            columns.append(np.full((rows, 1), m, dtype=np.int64))
        elif block.kind == TUPLE:
            assert codes is not None
            sub = np.sort(codes[:, list(block.entries)], axis=1)
            run = np.concatenate([np.zeros((rows, 1), np.int64), np.cumsum(np.diff(sub, axis=1) != 0, axis=1)], 1)
            lengths = np.zeros((rows, m), dtype=np.int64)
            np.add.at(lengths, (np.repeat(np.arange(rows), m), run.reshape(-1)), 1)
            columns.append(lengths)
        else:
            labels = [label for label in (act.index_offset(e) for e in block.entries) if label is not None]
            named = np.isin(offsets[:, 0], labels).astype(np.int64)
            columns.append(np.stack([m - named, named], axis=1))
    sizes = -np.sort(-np.concatenate(columns, axis=1), axis=1)
    unique, counts = np.unique(sizes, axis=0, return_counts=True)
    return {tuple(int(v) for v in row if v): int(c) for row, c in zip(unique, counts)}


def privacy_plan(
    prog: Program | Compiled,
    neighbours: str | Relation | None = None,
    *,
    backend: str = "bdd",
    budget: Any = None,
    limit: int | None = None,
) -> PrivacyPlan:
    """Detect the program's symmetries and describe the orbit sets of a pure-ε run (nothing counted);
    ``budget`` bounds the diagram proofs (per-output groups past it are abandoned). With ``limit``, per-output
    groups are not sought when even the largest they could be (:func:`_fewest_triples`) leaves more triples."""
    start = time.perf_counter()
    compiled = as_compiled(prog, backend)
    relation = _relation_name(compiled, neighbours)
    prover, note = prover_for(compiled, budget)
    sym = _detected(prover, note)
    reps_count, output_reps, listed_support = _output_representatives(prover, sym)
    k = len(compiled.domain.entry_values)
    types = PairTypes.of(relation, k)
    outputs, per_output = _per_output_groups(prover, sym, reps_count, output_reps, types, limit)
    claims = _privacy_claims(prover, sym, relation, k, reps_count if listed_support else None, outputs)
    return PrivacyPlan(
        compiled,
        sym,
        relation,
        outputs,
        output_reps,
        per_output,
        note,
        time.perf_counter() - start,
        prover.proofs,
        prover.attempts,
        claims,
        listed_support,
    )


#: the output orbits' representatives, in chunks of offsets
OutputReps = Callable[[], Iterator[np.ndarray]]


def _output_representatives(prover: Prover, sym: Symmetry) -> tuple[int, OutputReps, bool]:
    """How many output orbits there are, their representatives, and whether these are the listed support: when
    the outputs of nonzero probability are at most :data:`SUPPORT_LIMIT` and fewer than the orbits, only their
    orbits are listed (:func:`_listed_outputs`); otherwise every orbit of the output action."""
    act = prover.action
    support = listed_support(prover, act.count_orbits(sym))
    if support is not None:
        listed = _listed_outputs(support, prover, sym)
        return len(listed), lambda: iter([listed]), True
    return act.count_orbits(sym), lambda: act.orbits(sym), False


def _per_output_groups(
    prover: Prover, sym: Symmetry, reps_count: int, output_reps: OutputReps, types: PairTypes, limit: int | None
) -> tuple[list[tuple[np.ndarray, PairOrbits]] | None, str]:
    """The groups of ``P(y | .)`` proved for each output orbit (:func:`~.proof.refine`) and the plan's line about
    them; None when they are not sought (too many orbits or transpositions to try, or even the largest groups
    leave more than ``limit`` triples) or abandoned past the detection budget."""
    if reps_count > PER_OUTPUT_LIMIT:
        return None, f"none: {reps_count} output orbits (over {PER_OUTPUT_LIMIT}); each uses the symmetries that fix it"
    if reps_count * _candidates(sym.n) > PER_OUTPUT_CHECKS:
        return None, (
            f"none: {reps_count} output orbits of {sym.n} entries would try over {PER_OUTPUT_CHECKS} transpositions; "
            "each uses the symmetries that fix it"
        )
    fewest = _fewest_triples(prover, output_reps, types) if limit is not None else []
    if limit is not None and sum(fewest) > limit:
        return None, (
            f"none: even one block per output of the entries it reads leaves over {limit} triples; "
            "each uses the symmetries that fix it"
        )
    abandoned = "abandoned past the detection budget; each output uses the symmetries that fix it"
    if prover.over_budget():
        return None, abandoned
    outputs, counted = [], 0
    for index, offsets in enumerate(offsets for chunk in output_reps() for offsets in chunk):
        if prover.over_budget():
            return None, abandoned
        found = refine(prover, offsets, prover.action.stabilizer(sym, offsets))
        if found is not None:
            blocks, irrelevant = found
            outputs.append((offsets, PairOrbits(sym.n, blocks, types, irrelevant)))
            counted += outputs[-1][1].count()
        if limit is not None and counted + sum(fewest[index + 1 :]) > limit:  # the others cannot bring it back
            return None, (
                f"none: the groups proved for {index + 1} output orbits and the largest the others could have "
                f"leave over {limit} triples; each uses the symmetries that fix it"
            )
    if prover.over_budget():
        return None, abandoned
    largest = max((len(b) for _, o in outputs for b in o.blocks), default=1)
    unread = max((len(o.fixed) for _, o in outputs), default=0)
    unread_text = f", up to {unread} entries unread by P(y | .)" if unread else ""
    return outputs, (
        f"groups of P(y | .) proved on phi | y for {len(outputs)} output orbits (blocks up to S_{largest}{unread_text})"
    )


def _privacy_claims(
    prover: Prover,
    sym: Symmetry,
    relation: str,
    k: int,
    listed: int | None,
    outputs: list[tuple[np.ndarray, PairOrbits]] | None,
) -> tuple[tuple[str, str], ...]:
    """The claims a pure-ε plan relies on, each with how it was proved: the program's invariance, the relation's
    over entries of ``k`` values, the listed support (``listed`` orbits) and the per-output groups; none when the
    plan uses no symmetry."""
    if not sym.blocks and outputs is None:
        return ()
    claims = []
    if sym.blocks:
        claims.append((f"the program is invariant under {sym.describe()}", prover.how()))
    claims.append(relation_claim(relation, k, any(b.flips for b in sym.blocks)))
    if listed is not None:
        claims.append(
            (
                f"outputs outside the {listed} listed orbits have probability 0 for every input",
                "the support of phi over the output bits (existential quantification of the diagram)",
            )
        )
    if outputs is not None:
        claims.append(
            (
                f"P(y | .) keeps its per-output blocks and ignores its unread entries ({len(outputs)} output orbits)",
                "proved on each phi | y as the program's generators are (circuit renaming or diagram equality); "
                "unread entries: none of their bits is in the support of phi | y",
            )
        )
    return tuple(claims)


def _fewest_triples(prover: Prover, output_reps: Callable[[], Iterator[np.ndarray]], types: PairTypes) -> list[int]:
    """Per output orbit (in the order of ``output_reps``), a lower bound on the orbit triples of any group
    :func:`~.proof.refine` can prove for it: the pair orbits when every entry ``P(y | .)`` reads is in one block
    (the whole symmetric group of those entries: a subgroup, hence any proved one, has at least as many orbits) and
    the others are fixed (0 when ``P(y | x) = 0`` for every ``x``)."""
    fewest = []
    for chunk in output_reps():
        for offsets in chunk:
            check("symmetry detection")
            read = read_entries(prover, offsets)
            if read is None:
                fewest.append(0)
                continue
            relevant = read[0]
            fixed = [e for e in range(prover.n) if e not in relevant]
            fewest.append(PairOrbits(prover.n, [relevant] if relevant else [], types, fixed).count())
    return fewest


def _candidates(n: int) -> int:
    """The most transpositions :meth:`~.proof.Prover.blocks` tries on ``n`` entries: the whole block at once,
    adjacent entries, then pairs of blocks up to :data:`~.proof.MAX_ATTEMPTS`."""
    return 2 + max(n - 1, 0) + min(math.comb(n, 2), MAX_ATTEMPTS)


# -- accuracy ------------------------------------------------------------------------------------


def accuracy_blocks(
    compiled: Compiled, sym: Symmetry, V: Callable[..., Any] | Mapping[Any, Any] | None, budget: Any = None
) -> tuple[list[list[int]], str]:
    """The blocks of ``sym`` whose outputs are unchanged, cut to those under which the target ``V`` is invariant,
    and how that was decided.

    Invariance is decided exactly, never sampled: ``V`` traced on symbolic inputs (:func:`traced_target`) is a
    diagram, and a block's permutations are proved on it as the program's are (:meth:`Prover.blocks`: diagram
    equality after renaming input bits, a transposition and a cycle for a whole block). A ``V`` that does not
    trace (it branches on concrete values, raises, or is a Mapping) is evaluated on every input when there are
    at most :data:`V_ENUMERATION_LIMIT` (:func:`_enumerated_blocks`); past that its symmetry is not used.
    """
    blocks = [list(b.entries) for b in sym.blocks if b.kind == UNCHANGED]
    if not blocks:
        return [], ""
    target = traced_target(compiled, V)
    if target is not None:
        prover = Prover(target, budget)
        found = [list(b.entries) for block in blocks for b in prover.blocks(block, [UNCHANGED])]
        return found, f"V traced on symbolic inputs; {prover.how()}"
    size = compiled.domain.size
    if size > V_ENUMERATION_LIMIT:
        return [], f"not used: V does not trace, and its {size} inputs are over {V_ENUMERATION_LIMIT} to enumerate"
    return _enumerated_blocks(compiled, blocks, accuracy_targets(compiled.program, V)), (
        f"V does not trace; decided by evaluating V on every one of the {size} inputs"
    )


class _TargetInput(SymbolicInput):
    """The symbolic input a target is traced on: comparing or hashing the whole input raises (a ``SymbolicInput``
    would compare by identity, unlike the tuple ``V`` gets), so such a ``V`` is not traced."""

    def __eq__(self, other: object) -> bool:
        raise TypeError("a target compared the whole symbolic input")

    def __ne__(self, other: object) -> bool:
        raise TypeError("a target compared the whole symbolic input")

    __hash__ = None  # type: ignore[assignment]


def traced_target(compiled: Compiled, V: Callable[..., Any] | Mapping[Any, Any] | None) -> Compiled | None:
    """``V`` run on symbolic inputs and compiled (a BDD with ``V``'s value as its output, no random bits), or
    None when it does not trace: a Mapping, an error on symbolic values (``if`` on a symbolic value, comparing
    the whole input), a result that is not a DSL Bool or Int, a random choice, or a value that differs from
    ``V``'s own at one of :data:`V_PROBES` inputs. Under the DSL's semantics (those the program body is traced
    with), the diagram is then ``V`` on every input."""
    fn: Any = compiled.program.target if V is None else V
    if fn is None or isinstance(fn, Mapping) or not callable(fn):
        return None
    program, domain = compiled.program, compiled.domain
    circuit = Circuit()
    x = _TargetInput(domain, circuit)
    try:
        with tracing(circuit):
            value = fn(x)
            if not isinstance(value, (Bool, Int)):
                return None
            shape, roots = shape_of(value, circuit)
    except (LimitExceeded, KeyboardInterrupt, MemoryError):
        raise
    except Exception:
        return None
    if circuit.weights:
        return None
    var_of = {node: v for v, node in enumerate(circuit.var_node)}
    input_bits = {i: [var_of[n] for n in nodes] for i, nodes in sorted(x.entry_nodes.items())}
    guards = {v - value.lo: g for v, g in value.guards.items()} if isinstance(value, Int) else None
    target = compile_trace(program, Trace(circuit, input_bits, shape, roots, guards), "bdd")
    concrete = accuracy_targets(program, fn)
    lo, hi = domain.lo, domain.hi
    probes = [tuple(lo if (i + k) % 2 else hi for i in range(domain.n)) for k in range(2)]
    for x_probe in [(lo,) * domain.n, (hi,) * domain.n, *probes][:V_PROBES]:
        if _traced_value(target, x_probe) != concrete(x_probe):
            return None
    return target


def _traced_value(target: Compiled, x: tuple[int, ...]) -> Any:
    """The traced target's value at ``x`` (its diagram conditioned on ``x``: one output assignment is left)."""
    be = target.backend
    u = be.condition(target.phi, target.input_assignment(x))
    names = [be._name[v] for v in target.output_vars]
    model = be.bdd.pick(u, care_vars=names)
    return target.shape.decode([int(model[name]) for name in names])


def _enumerated_blocks(
    compiled: Compiled, blocks: list[list[int]], target: Callable[[tuple[Any, ...]], Any]
) -> list[list[int]]:
    """``blocks`` split where ``V`` is not invariant, decided on every input: ``V(x) == V(tau x)`` for each adjacent
    transposition ``tau`` of a block and every ``x`` (runs of adjacent transpositions that hold generate the
    symmetric group on the run)."""
    domain = compiled.domain
    k, n = len(domain.entry_values), domain.n
    inputs = list(domain.values())
    ids: dict[Any, int] = {}
    values = np.empty(len(inputs), dtype=np.int64)
    for i, x in enumerate(inputs):
        if i % 4096 == 0:
            check("evaluating the target V")
        values[i] = ids.setdefault(target(x), len(ids))
    digits = np.array(inputs, dtype=np.int64).reshape(len(inputs), n) - domain.lo
    weights = k ** np.arange(n - 1, -1, -1, dtype=np.int64)
    by_code = np.empty(k**n, dtype=np.int64)
    by_code[digits @ weights] = values
    good = set()
    for block in blocks:
        for a, b in zip(block, block[1:]):
            swapped = digits.copy()
            swapped[:, [a, b]] = swapped[:, [b, a]]
            if np.array_equal(by_code[swapped @ weights], values):
                good.add((a, b))
    out = []
    for block in blocks:
        run = [block[0]]
        for a, b in zip(block, block[1:]):
            if (a, b) in good:
                run.append(b)
            else:
                out.append(run)
                run = [b]
        out.append(run)
    return [r for r in out if len(r) > 1]


@dataclass(frozen=True)
class AccuracyPlan:
    """Algorithm 3's accuracy set ``A`` over one input per orbit of the proved symmetries whose outputs are
    unchanged and under which ``V`` is invariant; ``report`` describes it (the result's ``sets``)."""

    A: AccuracySet
    report: AutoSets


def accuracy_plan(
    prog: Program | Compiled,
    V: Callable[..., Any] | Mapping[Any, Any] | None = None,
    *,
    backend: str = "bdd",
    force: bool = False,
    budget: Any = None,
    fallback: bool = False,
    planned: bool = False,
) -> AccuracyPlan | None:
    """The orbit accuracy set (:func:`accuracy_blocks`), nothing counted. ``budget`` bounds the diagram proofs;
    with ``fallback``, an orbit set that saves less than half of the inputs is not worth it: None. ``planned``:
    the default plan asked (its refusal names it)."""
    start = time.perf_counter()
    compiled = as_compiled(prog, backend)
    used, count, report = _accuracy_orbits(compiled, V, budget, start)
    domain = compiled.domain
    if fallback and 2 * count > domain.size:
        return None
    if count * compiled.shape.size > MAX_PAIRS and not force and planned:
        refuse_default(
            f"|I| = {size_text(domain.size * compiled.shape.size)} pairs (limit {SET_MAX_PAIRS})",
            f"|I| = {size_text(count * compiled.shape.size)} pairs (limit {MAX_PAIRS})",
            report.symmetry,
        )
    if count * compiled.shape.size > MAX_PAIRS and not force:
        raise WmcdpError(
            f"the automatic symmetry sets are too large (|A| = {count} inputs, |I| = "
            f"{count * compiled.shape.size} pairs; limit {MAX_PAIRS} pairs): force the run (--force)"
        )
    reps = input_orbits(domain.n, len(domain.entry_values), used.covering())
    A = AccuracySet(tuple(tuple(int(v) + domain.lo for v in row) for row in reps))
    return AccuracyPlan(A, replace(report, seconds=time.perf_counter() - start))


def accuracy_report(
    prog: Program | Compiled, V: Callable[..., Any] | Mapping[Any, Any] | None = None, *, backend: str = "bdd"
) -> AutoSets:
    """The accuracy orbit set's sizes alone (for ``wmcdp symmetry``)."""
    return _accuracy_orbits(as_compiled(prog, backend), V, None, time.perf_counter())[2]


def _accuracy_orbits(
    compiled: Compiled, V: Callable[..., Any] | Mapping[Any, Any] | None, budget: Any, start: float
) -> tuple[Symmetry, int, AutoSets]:
    """The group an accuracy orbit set uses (the blocks whose outputs are unchanged and ``V`` invariant), the
    number of input orbits, and their report."""
    if not compiled.shape.is_numeric:
        raise WmcdpError(f"accuracy needs a numeric output, but {compiled.program.name} returns a tuple")
    prover, note = prover_for(compiled, budget)
    sym = _detected(prover, note)
    blocks, how = accuracy_blocks(compiled, sym, V, budget)
    used = Symmetry(sym.n, tuple(Block(tuple(b), UNCHANGED) for b in blocks))
    domain, k = compiled.domain, len(compiled.domain.entry_values)
    count = math.prod(math.comb(len(b) + k - 1, len(b)) for b in blocks) * k ** (domain.n - sum(map(len, blocks)))
    described = used.describe() if blocks else "trivial (no symmetry with unchanged outputs and invariant V)"
    if blocks and used.blocks != tuple(b for b in sym.blocks if b.kind == UNCHANGED) or not blocks and sym.blocks:
        described += f" (program: {sym.describe()})"
    program_blocks = Symmetry(sym.n, tuple(b for b in sym.blocks if b.kind == UNCHANGED))
    claims = []
    if program_blocks.blocks:
        claims.append((f"the program is invariant under {program_blocks.describe()}", prover.how()))
        claims.append((f"the target V is invariant under {used.describe() if blocks else 'no permutation'}", how))
    report = AutoSets(
        described,
        used.order,
        "",
        count,
        count * compiled.shape.size,
        domain.size,
        domain.size * compiled.shape.size,
        prover.proofs,
        prover.attempts,
        time.perf_counter() - start,
        note,
        tuple(claims),
    )
    return used, count, report


# -- pairs with whole distributions (for (eps, delta) and Renyi DP) ----------------------------


@dataclass
class PairDistribution:
    """One neighbour pair up to the program's group, with its output distribution over output orbits.

    ``outputs``: leaf offsets of one output per orbit of the pair's stabilizer (rows);
    ``multiplicity``: each orbit's size, so ``sum(multiplicity * f(P(y|x), P(y|x')))`` is the sum
    of ``f`` over every output; ``p_x`` / ``p_x_prime``: the probabilities in the counter's
    number system ``arith`` (float64, natural logs, or integer numerators over
    ``arith.denominator``).
    """

    x: tuple[int, ...]
    x_prime: tuple[int, ...]
    outputs: np.ndarray
    multiplicity: np.ndarray
    p_x: np.ndarray
    p_x_prime: np.ndarray
    arith: Any


def _output_orbits(
    act: OutputAction, sym: Symmetry, x: np.ndarray, xp: np.ndarray, support: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One output per orbit of the stabilizer of ``(x, x')`` in ``sym``, with the orbits' sizes: of the outputs
    ``support`` (rows of leaf offsets) when given, else of the whole output shape."""
    classes = _stabilizer_classes(sym, x, xp)
    if support is not None:
        return _support_orbits(act, classes, support)
    dtype = object if act.n > 60 else np.int64
    if any(kind == TUPLE for kind, _ in classes):
        return _tuple_orbits(act, [c for kind, c in classes if kind == TUPLE], dtype)
    return _index_orbits(act, [c for kind, c in classes if kind == INDEX], dtype)


def _stabilizer_classes(sym: Symmetry, x: np.ndarray, xp: np.ndarray) -> list[tuple[str, list[int]]]:
    """The stabilizer of ``(x, x')`` in ``sym``: each block cut into classes of entries where the pair has the
    same values ``(x_e, x'_e)``, with the block's kind; the stabilizer permutes each class in full."""
    classes: list[tuple[str, list[int]]] = []
    for block in sym.blocks:
        by_type: dict[tuple[int, int], list[int]] = {}
        for e in block.entries:
            by_type.setdefault((int(x[e]), int(xp[e])), []).append(e)
        classes.extend((block.kind, c) for c in by_type.values())
    return classes


def _support_orbits(
    act: OutputAction, classes: list[tuple[str, list[int]]], support: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The orbits, under the stabilizer's ``classes``, of the outputs with nonzero probability (``support``, every
    one of them): since ``P(sigma(y) | pi x) = P(y | x)`` for every element of the program's group, the support is
    a union of orbits, so each orbit is kept as its canonical member (:meth:`~.group.OutputAction.canonical`)
    with the number of support outputs in it, its size; the outputs left out have probability 0 for every input.
    Moves are those :func:`_tuple_orbits` or :func:`_index_orbits` use."""
    kind = TUPLE if any(k == TUPLE for k, _ in classes) else INDEX
    stabilizer = Symmetry(act.n, tuple(Block(tuple(c), kind) for k, c in classes if k == kind and len(c) > 1))
    outputs, sizes = np.unique(act.canonical(support, stabilizer), axis=0, return_counts=True)
    return outputs, sizes.astype(np.int64)


def _tuple_orbits(act: OutputAction, classes: list[list[int]], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """Output orbits when the classes permute output entries (``TUPLE``): per class, the multisets of its
    entries' values, each of multinomial size; entries in no class are fixed (a unit of one); the orbits are the
    products of these, listed in chunks of 2^16."""
    covered = {e for c in classes for e in c}
    units = sorted(classes + [[e] for e in range(act.n) if e not in covered], key=min)
    parts = [multisets(len(unit), act.part_size(unit[0])) for unit in units]
    weights = [np.array([_multinomial(row) for row in rows], dtype=dtype) for rows in parts]
    columns = [e for u in units for e in u]
    codes_list, mult_list = [], []
    for idx in product_rows([np.arange(len(p))[:, None] for p in parts], 1 << 16):
        codes = np.zeros((len(idx), act.n), dtype=np.int64)
        codes[:, columns] = np.concatenate([p[idx[:, j]] for j, p in enumerate(parts)], axis=1)
        mult = np.ones(len(idx), dtype=dtype)
        for j, w in enumerate(weights):
            mult = mult * w[idx[:, j]]
        codes_list.append(act.from_part_codes(codes))
        mult_list.append(mult)
    return np.concatenate(codes_list), np.concatenate(mult_list)


def _index_orbits(act: OutputAction, classes: list[list[int]], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """Output orbits when the classes permute which entry an index output names (``INDEX``): the outputs naming
    entries of one class form one orbit of the class's size, kept as its first entry's output."""
    total = math.prod(act.sizes)
    offsets = act.offsets_of(np.arange(total, dtype=np.int64))
    mult = np.ones(total, dtype=dtype)
    for c in classes:
        if len(c) > 1:
            labels = [act.index_offset(e) for e in c]
            mult[labels[0]] = len(c)
            mult[labels[1:]] = 0  # type: ignore[index]
    keep = mult != 0
    return offsets[keep], mult[keep]


def _multinomial(row: np.ndarray) -> int:
    _, counts = np.unique(row, return_counts=True)
    out = math.factorial(len(row))
    for c in counts:
        out //= math.factorial(int(c))
    return out


def pair_distributions(
    prog: Program | Compiled,
    neighbours: str | Relation | None = None,
    *,
    backend: str = "bdd",
    exact: Any = None,
    symmetry: Symmetry | None = None,
) -> Iterator[PairDistribution]:
    """Every ordered neighbour pair up to the program's proved group ``G`` (both orders, since orbits of
    ordered pairs are listed), each with its whole output distribution grouped by output orbits
    (:class:`PairDistribution`). Maxima over pairs of sums over outputs (δ(ε), Rényi divergences)
    are the same over these pairs as over all pairs, because ``G`` maps pairs to pairs and outputs
    to outputs preserving both probabilities. ``symmetry``: the group, when :func:`find_symmetry` found it already."""
    compiled = as_compiled(prog, backend, exact)
    relation = _relation_name(compiled, neighbours)
    prover, _ = prover_for(compiled)
    sym = detect(prover) if symmetry is None else symmetry
    act = prover.action
    counter = Counter(compiled, number_system(compiled, exact))
    domain = compiled.domain
    support = _pair_support(prover)
    blocks = sym.covering()
    flips = {b.entries[0] for b in sym.blocks if b.flips}
    orbits = PairOrbits(
        domain.n,
        blocks,
        PairTypes.of(relation, len(domain.entry_values)),
        flipped=frozenset(i for i, b in enumerate(blocks) if b[0] in flips),
    )
    for xs, xps in orbits.chunks(1 << 12):
        listed = []
        for x, xp in zip(xs, xps):
            check("pair distributions")
            listed.append((x, xp, *_output_orbits(act, sym, x, xp, support)))
        per_batch = _pairs_per_batch(act, listed)
        for start in range(0, len(listed), per_batch):
            batch = listed[start : start + per_batch]
            for (x, xp, outputs, mult), (p_x, p_xp) in zip(batch, _batch_probabilities(counter, act, sym, batch)):
                yield PairDistribution(
                    tuple(int(v) + domain.lo for v in x),
                    tuple(int(v) + domain.lo for v in xp),
                    outputs,
                    mult,
                    p_x,
                    p_xp,
                    counter.arith,
                )


#: pairs' probabilities are read off whole output distributions (one batched count of the pairs' distinct inputs)
#: when the output shape has at most this many outputs; past it each (input, output) is counted on its own
DISTRIBUTION_OUTPUTS = 1 << 12


def pair_counts(act: OutputAction, sym: Symmetry, pairs: int, outputs: int, k: int) -> int:
    """The counts a pair run makes over ``pairs`` pairs of up to ``outputs`` output orbits each, in passes over the
    diagram: one per distinct input when whole distributions are read (:data:`DISTRIBUTION_OUTPUTS`; at most the
    input orbits of the blocks whose outputs are unchanged, entries of ``k`` values), else one per (input,
    output) of every pair (:func:`_batch_probabilities`)."""
    if math.prod(act.sizes) > DISTRIBUTION_OUTPUTS:
        return 2 * pairs * outputs
    unchanged = [len(b.entries) for b in sym.blocks if b.kind == UNCHANGED]
    orbits: int = math.prod(multiset_count(m, k) for m in unchanged) * k ** (sym.n - sum(unchanged))
    return min(2 * pairs, orbits)


#: a listed pair: (x digits, x' digits, its output orbits' leaf offsets, their sizes)
ListedPair = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _pairs_per_batch(act: OutputAction, listed: list[ListedPair]) -> int:
    """How many listed pairs one count takes: at most :data:`BATCH_CELLS` (input, output) cells, the rows of the
    whole output distribution of both inputs (:data:`DISTRIBUTION_OUTPUTS`), else the pairs' own outputs."""
    width = math.prod(act.sizes)
    if width > DISTRIBUTION_OUTPUTS:
        width = max((len(outputs) for _, _, outputs, _ in listed), default=1)
    return max(1, BATCH_CELLS // (2 * max(width, 1)))


def _batch_probabilities(
    counter: Counter, act: OutputAction, sym: Symmetry, batch: list[ListedPair]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(P(y | x), P(y | x'))`` at each listed pair's outputs, counted for the whole batch at once: from the whole
    output distributions of the batch's distinct inputs (one pass over the diagram, :meth:`Counter.distributions`)
    when the output shape is small (:data:`DISTRIBUTION_OUTPUTS`), else as one batch of (input, output) pairs
    (:meth:`Counter.pairs`). Each is the count of ``phi`` at one input and output. Inputs are first sorted within
    the blocks of ``sym`` whose outputs are unchanged: ``P(. | pi x) = P(. | x)`` there (proved), so inputs of one
    orbit share one distribution."""
    inputs = np.stack([row for x, xp, _, _ in batch for row in (x, xp)])
    if math.prod(act.sizes) <= DISTRIBUTION_OUTPUTS:
        unchanged = [b.entries for b in sym.blocks if b.kind == UNCHANGED]
        distinct, inverse = np.unique(canonical_inputs(inputs, unchanged), axis=0, return_inverse=True)
        which = inverse.reshape(-1)
        rows = np.concatenate([part for _, part in counter.distributions(distinct)])
        strides = np.array([math.prod(act.sizes[j + 1 :]) for j in range(len(act.sizes))], dtype=np.int64)
        out = []
        for k, (_, _, outputs, _) in enumerate(batch):
            positions = outputs @ strides
            out.append((rows[which[2 * k]][positions], rows[which[2 * k + 1]][positions]))
        return out
    digits = np.concatenate([np.repeat(np.stack([x, xp]), len(outputs), axis=0) for x, xp, outputs, _ in batch])
    values = counter.pairs(digits, np.concatenate([np.concatenate([outputs, outputs]) for _, _, outputs, _ in batch]))
    out, at = [], 0
    for _, _, outputs, _ in batch:
        m = len(outputs)
        out.append((values[at : at + m], values[at + m : at + 2 * m]))
        at += 2 * m
    return out


__all__ = [
    "AutoSets",
    "PrivacyPlan",
    "privacy_plan",
    "AccuracyPlan",
    "accuracy_plan",
    "accuracy_blocks",
    "accuracy_report",
    "find_symmetry",
    "pair_distributions",
    "PairDistribution",
    "PER_OUTPUT_LIMIT",
]
