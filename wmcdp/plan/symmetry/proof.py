"""Finding a program's symmetries and proving each one on its compiled diagram.

A candidate generator is a permutation ``pi`` of input entries together with

* a renaming of input bits: bit ``b`` of entry ``e`` becomes bit ``b`` of entry ``pi(e)``;
* a map of output bits (the group's output action, :mod:`.group`): none, the bits of
  tuple part ``e`` becoming those of part ``pi(e)``, or the index value ``v`` becoming
  ``pi^-1(v)`` (substituted as the Boolean functions that compute the relabelled code);
* a bijection ``rho`` of random bits that keeps both literal weights of every bit exactly
  (equal :class:`~wmcdp.lang.weights.BitWeight`: the same Fractions, or the same floats).

The generator is **proved** when substituting all three into the diagram
``phi(x, y, theta)`` (one simultaneous CUDD composition) gives back the same canonical
node, i.e. the same Boolean function. Then ``P(sigma(y) | pi(x)) = P(y | x)`` for every
``x`` and ``y``: the weighted model count sums over all assignments of the random bits,
and ``rho`` maps them one to one onto assignments of the same weight. For one fixed
output ``y`` the same check on the cofactor ``phi | y`` (no output map) proves
``P(y | pi(x)) = P(y | x)``.

Heuristics only propose candidates; the diagram equality decides. Candidates for ``rho``
come from the trace: the random bits first created after an entry is first read and
before the next entry is (its *segment*), or the random bits that first meet exactly one
entry in a gate (its *own* bits), matched position by position; and the identity. A
candidate whose weights differ is never tried; one that fails to prove is dropped.
"""

from __future__ import annotations

import bisect
import itertools
import random
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ...base.limits import LimitExceeded, check, memory_cap
from ...base.partition import Partition
from ...compile import Compiled
from ...compile.support import cube, valid_inputs
from ...lang.circuit import NOT, VAR, Circuit
from .colours import circuit_blocks
from .group import INDEX, TUPLE, UNCHANGED, Block, OutputAction, Symmetry
from .probes import Probes
from .windows import adjacent_runs

FIXED = "fixed"  # a cofactor phi | y: no output bits left to map

#: satisfying assignments of a diagram on which candidates are first evaluated (a cheap refutation)
SAMPLES = 24
#: proof attempts (diagram compositions) one detection may spend joining blocks pairwise
MAX_ATTEMPTS = 4000
#: CUDD memory a budgeted diagram operation may add per diagram node of the budget left (a renaming that blows up
#: is stopped by the cap before it touches more nodes than the budget has), at least 16 MiB and at most 1 GiB
BYTES_PER_NODE = 8


class Prover:
    """Proves candidate symmetries on a BDD-compiled program."""

    def __init__(self, compiled: Compiled, budget: Any = None) -> None:
        assert compiled.backend.name == "bdd"
        self.compiled = compiled
        self.budget = budget  # a wmcdp.plan.planner.Budget (counted work), or None: diagram proofs without a budget
        self.abandoned = 0  # diagram proofs not attempted or stopped past the budget
        self.structural = 0  # proofs that held on the circuit itself (no diagram operation)
        self.diagram = 0  # proofs by diagram equality
        self.reflections = 0  # value reflections proved (by diagram equality)
        self.refined = 0  # proofs on the circuit whose candidate colour refinement found (counted in structural too)
        self.windows = 0  # adjacent transpositions proved by a local check of the diagram (:mod:`.windows`)
        self._sizes: dict[int, tuple[Any, int]] = {}
        self.backend = compiled.backend
        self.n = compiled.domain.n
        self.bits = {e: list(v) for e, v in compiled.trace.input_bits.items() if v}
        self.weights = compiled.weights
        self.action = OutputAction(compiled.shape, self.n)
        self.attempts = 0
        self.proofs = 0
        self.valid = self._valid_inputs()
        self.phi = self.backend.conj(compiled.phi, self.valid)
        self._segments = self._make_segments()
        self._owned: dict[int, list[int]] | None = None
        self._last_kind: str | None = None
        self._sample_cache: dict[int, tuple[Any, list[dict[int, bool]]]] = {}
        self.probes = Probes(compiled, budget)

    def _valid_inputs(self) -> Any:
        """The input bit patterns that encode values of the domain (every entry's code below ``k``)."""
        return valid_inputs(self.compiled)

    def cofactor(self, offsets: Sequence[int]) -> tuple[Any, Any]:
        """``(phi | y, (phi and valid inputs) | y)`` for the output with leaf offsets ``offsets``, each charged the
        nodes of its operand and of its result."""
        assignment: dict[int, bool] = {}
        for group, offset in zip(self.compiled.output_groups, offsets):
            w = len(group.variables)
            assignment.update({v: bool((int(offset) >> (w - 1 - b)) & 1) for b, v in enumerate(group.variables)})
        be = self.backend
        plain, u = be.condition(self.compiled.phi, assignment), be.condition(self.phi, assignment)
        self._charge(self._size(self.compiled.phi) + self._size(self.phi) + be.size(plain) + be.size(u))
        return plain, u

    # -- candidate maps of random bits ------------------------------------------------------
    def _make_segments(self) -> dict[int, list[int]]:
        """Per entry, the random bits created after its first read and before the next entry's."""
        firsts = sorted((bits[0], e) for e, bits in self.bits.items())
        randoms = sorted(self.weights)
        out: dict[int, list[int]] = {}
        for k, (first, e) in enumerate(firsts):
            lo = bisect.bisect_right(randoms, first)
            hi = bisect.bisect_left(randoms, firsts[k + 1][0]) if k + 1 < len(firsts) else len(randoms)
            out[e] = randoms[lo:hi]
        return out

    def _owners(self) -> dict[int, list[int]]:
        """Per entry, the random bits whose first gate with any input reads that entry alone (computed once)."""
        if self._owned is None:
            entry_of = {v: e for e, bits in self.bits.items() for v in bits}
            self._owned = _first_owners(self.compiled.trace.circuit, entry_of, self.weights)
        return self._owned

    def _random_maps(self, perm: dict[int, int]) -> Iterator[dict[int, int]]:
        seen: list[dict[int, int]] = []
        sources: tuple[Callable[[], dict[int, list[int]]], ...] = (lambda: self._segments, self._owners)
        for source in sources:
            m = _positional(source(), perm)
            if m is not None and m not in seen and all(self.weights[v] == self.weights[w] for v, w in m.items()):
                seen.append(m)
                yield m
        if {} not in seen:
            yield {}

    # -- output maps ------------------------------------------------------------------------
    def _output_renaming(self, perm: dict[int, int], kind: str) -> dict[int, int] | None:
        """Output variable -> the output variable that replaces it (None: the kind does not apply)."""
        act = self.action
        if kind in (UNCHANGED, FIXED):
            return {}
        if act.parts is None or any(not act.same_part(e, f) for e, f in perm.items()):
            return None
        groups = self.compiled.output_groups
        renamed: dict[int, int] = {}
        for e, f in perm.items():
            (a, b), (a2, _) = act.parts[e], act.parts[f]
            for j in range(b - a):
                renamed.update(zip(groups[a + j].variables, groups[a2 + j].variables))
        return renamed

    def _index_functions(self, moved: dict[int, int]) -> dict[int, Any]:
        """Index action: each output bit as the function of the output bits that spells the relabelled code."""
        be = self.backend
        variables = self.compiled.output_groups[0].variables
        width = len(variables)
        is_moved = {src: cube(be, variables, src) for src in moved}
        none_moved = be.true
        for node in is_moved.values():
            none_moved = be.conj(none_moved, be.negate(node))
        out = {}
        for k, v in enumerate(variables):
            f = be.conj(none_moved, be.var(v))
            for src, dst in moved.items():
                if (dst >> (width - 1 - k)) & 1:
                    f = be.disj(f, is_moved[src])
            out[v] = f
        return out

    def _relabelling(self, perm: dict[int, int]) -> dict[int, int] | None:
        """Index action: output offset of ``v`` -> offset of ``perm^-1(v)``, moved labels only (None: out of range)."""
        moved = {}
        for e, f in perm.items():
            src, dst = self.action.index_offset(f), self.action.index_offset(e)
            if src is None or dst is None:
                return None
            moved[src] = dst
        return moved

    # -- quick refutation -------------------------------------------------------------------
    def _samples(self, u: Any) -> list[dict[int, bool]]:
        """A few satisfying assignments of ``u`` (random paths, seeded), to refute candidates cheaply.

        Variables a path skips are absent from an assignment and read as False (any value satisfies).
        """
        key = int(u)  # the node's address: the cache keeps ``u`` alive, so no other node takes it
        if key not in self._sample_cache:
            rng = random.Random(0)
            models = [self.backend.random_model(u, rng) for _ in range(SAMPLES)]
            if len(self._sample_cache) > 4096:
                self._sample_cache.clear()
            self._sample_cache[key] = (u, [m for m in models if m is not None])
        return self._sample_cache[key][1]

    def _refuted(self, u: Any, renaming: dict[int, int], relabel: dict[int, int] | None) -> bool:
        """True when some sample assignment ``a`` of ``u`` has ``u(S a) = 0``: the candidate is no symmetry.

        (A failed refutation proves nothing; only the diagram equality does.)
        """
        out_vars = self.compiled.output_groups[0].variables if relabel else ()
        width = len(out_vars)
        for a in self._samples(u):
            self._charge(len(a))  # an assignment renamed and evaluated on the diagram
            b = dict(a)
            for v, w in renaming.items():
                b[v] = a.get(w, False)
            if relabel:
                offset = 0
                for v in out_vars:
                    offset = (offset << 1) | a.get(v, False)
                offset = relabel.get(offset, offset)
                for k, v in enumerate(out_vars):
                    b[v] = bool((offset >> (width - 1 - k)) & 1)
            if not self.backend.holds(u, b):
                return True
        return False

    def _image(self, perm: dict[int, int], kind: str, relabel: dict[int, int] | None) -> Any:
        """The candidate's map of (input digits, output offsets) pairs, as the substitution of :meth:`prove` moves
        assignments (:meth:`_refuted`): ``x'_e = x_pi(e)``; a tuple part ``e`` takes part ``pi(e)``'s values, an
        index its relabelled code; other outputs stay. A symmetry has ``P(y' | x') = P(y | x)``."""
        parts = self.action.parts

        def image(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
            moved_x = tuple(x[perm.get(e, e)] for e in range(len(x)))
            if kind == TUPLE and parts is not None:
                moved_y = list(y)
                for e, f in perm.items():
                    (a, b), (a2, _) = parts[e], parts[f]
                    moved_y[a:b] = y[a2 : a2 + b - a]
                return moved_x, tuple(moved_y)
            if relabel is not None:
                return moved_x, (relabel.get(y[0], y[0]),)
            return moved_x, y

        return image

    # -- proofs -----------------------------------------------------------------------------
    def _output_maps(self, perm: dict[int, int], kind: str) -> tuple[dict[int, int] | None, dict[int, int]] | None:
        """``(relabel, out_renaming)`` of the output action ``kind`` under ``perm``: for the index action the
        relabelled offsets (:meth:`_relabelling`) and no renamed output variable, else no relabelling and the
        renamed output variables (:meth:`_output_renaming`); None when the action does not apply."""
        if kind != INDEX:
            out_renaming = self._output_renaming(perm, kind)
            return None if out_renaming is None else (None, out_renaming)
        relabel = self._relabelling(perm) if self.action.applicable(INDEX) else None
        return None if relabel is None else (relabel, {})

    def _renamed(self, target: Any, renaming: dict[int, int], relabel: dict[int, int] | None) -> Any:
        """``target`` under the substitution (one CUDD rename, or a composition that also substitutes the
        index functions of :meth:`_index_functions`), within the budget (:meth:`_budgeted`; None: abandoned)."""
        be = self.backend
        if relabel is None:
            return self._budgeted(lambda: be.rename(target, renaming), target)
        mapping = {v: be.var(w) for v, w in renaming.items()}
        mapping.update(self._index_functions(relabel))
        return self._budgeted(lambda: be.compose(target, mapping), target)

    def _renamings(self, perm: dict[int, int], out_renaming: dict[int, int]) -> Iterator[dict[int, int]]:
        """The candidate substitutions of ``perm``: its input bits renamed (bit ``b`` of entry ``e`` to bit ``b``
        of ``perm[e]``), with each candidate map of random bits (:meth:`_random_maps`) and the output renaming;
        only those that permute the variables (each counted as an attempt)."""
        in_map = {v: w for e, f in perm.items() for v, w in zip(self.bits[e], self.bits[f])}
        for rmap in self._random_maps(perm):
            check("symmetry detection")
            self.attempts += 1
            renaming = {**in_map, **rmap, **out_renaming}
            if set(renaming) == set(renaming.values()):  # only a permutation of variables proves anything
                yield renaming

    def prove(self, perm: dict[int, int], kind: str, u: Any = None) -> bool:
        """Whether ``perm`` (entry -> entry, moved entries only) with the output action ``kind`` is
        proved a symmetry of ``phi`` (or, kind ``fixed``, of the cofactor ``u`` of :meth:`cofactor`).

        Both are restricted to valid input codes (:attr:`valid`, which every entry permutation keeps).
        """
        perm = {e: f for e, f in perm.items() if e != f}
        if not perm:
            return True
        if any(e not in self.bits for e in perm):
            # entries the program never reads: permuting them alone changes nothing
            return kind in (UNCHANGED, FIXED) and all(e not in self.bits for e in perm)
        maps = self._output_maps(perm, kind)
        return maps is not None and self._prove_renamings(perm, kind, u, *maps)

    def _prove_renamings(
        self, perm: dict[int, int], kind: str, u: Any, relabel: dict[int, int] | None, out_renaming: dict[int, int]
    ) -> bool:
        """:meth:`prove` for a permutation of read entries whose output action applies: each candidate
        substitution (:meth:`_renamings`) in turn is refuted by samples (:meth:`_refuted`, cheaper than a walk
        over the circuit), proved on the circuit (:meth:`_structural`), refuted by counts at probe pairs (asked
        once, a refutation of every candidate), or proved or refuted by diagram equality (module docstring;
        abandoned past the budget). A refutation is a counterexample, so the order changes the work, not what is
        proved."""
        target = self.phi if u is None else u
        counted: bool | None = None  # whether counts at the probe pairs refute the candidate (asked once)
        for renaming in self._renamings(perm, out_renaming):
            if self._refuted(target, renaming, relabel):
                continue
            if u is None and relabel is None and self._structural(renaming, out_renaming):
                self.proofs += 1
                self.structural += 1
                return True
            if counted is None:
                counted = u is None and self.probes.refutes(min(perm), self._image(perm, kind, relabel))
            if counted:
                return False
            image = self._renamed(target, renaming, relabel)
            if image is None:
                return False
            if image == target:
                self.proofs += 1
                self.diagram += 1
                return True
        return False

    def prove_flip(self, e: int) -> bool:
        """Whether reflecting entry ``e`` together with its output part, ``x_e -> lo + hi - x_e`` and
        ``y_e -> lo_y + hi_y - y_e``, leaves ``phi`` unchanged (random bits untouched): then
        ``P(R(y) | R(x)) = P(y | x)``. For a bit entry with a Bool part this is the flip ``x_e -> 1 - x_e``,
        ``y_e -> 1 - y_e``. When the entry's values and the part's are each a power of two in number, the
        reflection complements every bit of their codes, so it is a substitution of variables by their own
        negations: every node stays at its level, the diagram cannot grow, and the proof costs one pass over
        ``phi``. Other ranges are not tried."""
        if self.action.parts is None or e not in self.bits:
            return False
        a, b = self.action.parts[e]
        k, size = len(self.compiled.domain.entry_values), self.action.sizes[a]
        if b - a != 1 or not _power_of_two(k) or not _power_of_two(size):
            return False
        x_vars, y_vars = self.bits[e], self.compiled.output_groups[a].variables
        if len(x_vars) != k.bit_length() - 1 or len(y_vars) != size.bit_length() - 1:
            return False
        be = self.backend
        self.attempts += 1
        image = self._budgeted(
            lambda: be.compose(self.phi, {v: be.negate(be.var(v)) for v in (*x_vars, *y_vars)}), self.phi
        )
        if image is None or image != self.phi:
            return False
        self.proofs += 1
        self.reflections += 1
        return True

    def describe_proofs(self) -> str:
        """How the proofs went, for the report: those that held on the circuit alone, and those abandoned."""
        parts = []
        if self.structural:
            parts.append(f"{self.structural} proved on the circuit")
        if self.abandoned:
            parts.append(f"{self.abandoned} diagram proofs abandoned past the detection budget")
        return "; ".join(parts)

    # -- proofs on the circuit, and the budget of diagram proofs -------------------------------
    def _structural(self, renaming: dict[int, int], out_renaming: dict[int, int]) -> bool:
        """Whether renaming the input and random variables maps the circuit of every output bit ``o_j`` onto
        the very gate of ``o_sigma(j)`` (``sigma``: the output renaming). The circuit is hash-consed with
        commutative gates normalised, so the same gate is the same formula: then
        ``o_j(rho x, rho theta) = o_sigma(j)(x, theta)`` for every assignment, which is the symmetry.
        Only existing gates are looked up (nothing is added); a miss proves nothing."""
        trace = self.compiled.trace
        out_vars = self.compiled.output_vars
        position = {v: j for j, v in enumerate(out_vars)}
        image: dict[int, int] = {0: 0, 1: 1}
        for j, root in enumerate(trace.output_roots):
            want = trace.output_roots[position[out_renaming.get(out_vars[j], out_vars[j])]]
            if not self._map_cone(root, renaming, image) or image[root] != want:
                self._charge(len(image))
                return False
        self._charge(len(image))
        return True

    def _map_cone(self, root: int, renaming: dict[int, int], image: dict[int, int]) -> bool:
        """Extend ``image`` (gate -> the existing gate of its renamed formula) over the cone of ``root``, children
        first; False when some image does not exist (a variable renamed past the circuit's, or a gate never
        built, :func:`_existing_gate`)."""
        circuit = self.compiled.trace.circuit
        gates, var_node = circuit.gates, circuit.var_node
        stack = [root]
        while stack:
            node = stack[-1]
            if node in image:
                stack.pop()
                continue
            gate = gates[node]
            if gate[0] == VAR:
                v: int = gate[1]
                w = renaming.get(v, v)
                if w >= len(var_node):
                    return False
                image[node] = var_node[w]
                stack.pop()
                continue
            pending = [c for c in gate[1:] if c not in image]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            found = _existing_gate(circuit, gate[0], [image[c] for c in gate[1:]])
            if found is None:
                return False
            image[node] = found
        return True

    def how(self) -> str:
        """How this prover's proofs were made, for a plan's claims (counts of each kind of proof)."""
        kinds = [
            (
                self.structural,
                "on the circuit (renaming maps every output gate onto its image's gate"
                + (f"; {self.refined} found by colour refinement of the circuit)" if self.refined else ")"),
            ),
            (
                self.windows,
                "adjacent transpositions by a local check of the diagram (both orders of two neighbouring entries' "
                "levels lead to one node)",
            ),
            (self.diagram, "by diagram equality after renaming (one canonical CUDD node)"),
            (
                self.reflections,
                "value reflections by diagram equality (bits negated; one entry per block, whose permutations carry "
                "it to the others)",
            ),
        ]
        done = [f"{count} {text}" for count, text in kinds if count]
        if self.abandoned:
            done.append(f"{self.abandoned} abandoned past the work budget (not used)")
        return "proved: " + "; ".join(done) if done else "no generator needed a proof"

    def _charge(self, units: int) -> None:
        if self.budget is not None:
            self.budget.charge(units)

    def over_budget(self) -> bool:
        """True once the detection budget's work is spent (diagram proofs are then abandoned, not failed)."""
        return self.budget is not None and self.budget.exhausted()

    def _budgeted(self, operation: Any, target: Any) -> Any:
        """A diagram operation on ``target`` under the budget of counted work: None (abandoned) when the nodes of
        ``target`` alone would pass the work left, or when the operation would grow CUDD's memory past what the
        work left allows (:data:`BYTES_PER_NODE`: a renaming can blow a diagram up exponentially). The operation
        is charged the nodes of its operand and of its result, counted by wmcdp (never a statistic of CUDD's,
        whose computed table is a cache keyed by node addresses); one stopped by the memory cap is charged the
        work left, which it was about to pass. No clock is read and nothing charged depends on CUDD's caches: the
        same command spends the same work and abandons the same proofs on every run."""
        size = self._size(target)
        if self.budget is None:
            return operation()
        if not self.budget.affords(size):
            self.abandoned += 1
            return None
        left = self.budget.left()
        bdd = self.backend.bdd
        allowance = int(min(1 << 30, max(16 << 20, (left or 0) * BYTES_PER_NODE)))
        bdd.configure(max_memory=min(memory_cap(), _memory_in_use(bdd) + allowance))
        try:
            result = operation()
        except LimitExceeded:
            self.abandoned += 1
            self.budget.charge(max(size, left or 0))
            return None
        finally:
            bdd.configure(max_memory=memory_cap())
        self.budget.charge(size + self.backend.size(result))
        return result

    def _size(self, target: Any) -> int:
        """The nodes of the diagram ``target``, counted once per diagram."""
        key = int(target)  # the node's address: the cache keeps ``target`` alive, so no other node takes it
        if key not in self._sizes:
            self._sizes[key] = (target, self.backend.size(target))
        size: int = self._sizes[key][1]
        return size

    def _prove_any(self, perm: dict[int, int], kinds: Sequence[str], u: Any = None) -> str | None:
        order = sorted(kinds, key=lambda k: k != self._last_kind)
        for kind in order:
            if self.prove(perm, kind, u):
                self._last_kind = kind
                return kind
        return None

    # -- groups -----------------------------------------------------------------------------
    def _prove_whole(self, entries: list[int], kinds: Sequence[str], u: Any) -> str | None:
        """An output action under which every permutation of ``entries`` is proved: a transposition and a
        cycle, which generate the symmetric group of ``entries``; None when no action in ``kinds`` proves both."""
        for kind in sorted(kinds, key=lambda k: k != self._last_kind):
            first = {entries[0]: entries[1], entries[1]: entries[0]}
            cycle = {e: entries[(k + 1) % len(entries)] for k, e in enumerate(entries)}
            if self.prove(first, kind, u) and (len(entries) == 2 or self.prove(cycle, kind, u)):
                self._last_kind = kind
                return kind
        return None

    def _join(self, joined: _Joined, a: int, b: int, kinds: Sequence[str], u: Any) -> None:
        """Join the blocks of ``a`` and ``b`` when the transposition ``(a b)`` is proved under their blocks'
        action (any of ``kinds`` when neither block has one yet; blocks of two different actions stay apart)."""
        ra, rb = joined.partition.find(a), joined.partition.find(b)
        if ra == rb:
            return
        known: set[str] = {k for k in (joined.kind_of[ra], joined.kind_of[rb]) if k is not None}
        if len(known) > 1:
            return
        kind = self._prove_any({a: b, b: a}, list(known) or kinds, u)
        if kind is not None:
            joined.union(a, b, kind)

    def blocks(
        self, entries: Sequence[int], kinds: Sequence[str], start: Sequence[Sequence[int]] = (), u: Any = None
    ) -> list[Block]:
        """Blocks of ``entries`` joined by proved generators, starting from the known blocks ``start``
        (whose action must be ``kinds[0]``).

        First the whole of ``entries`` is tried at once (:meth:`_prove_whole`); else adjacent entries, then the
        blocks pairwise (at most :data:`MAX_ATTEMPTS` proof attempts, within the budget), by transpositions.
        """
        entries = sorted(entries)
        if len(entries) < 2:
            return []
        joined = _Joined(entries, start, kinds[0])
        if len(joined.roots()) > 1:
            whole = self._prove_whole(entries, kinds, u)
            if whole is not None:
                return [Block(tuple(entries), whole)]
        in_a_row = 0  # joins abandoned one after the other past the budget
        for a, b in zip(entries, entries[1:]):
            abandoned = self.abandoned
            self._join(joined, a, b, kinds, u)
            in_a_row = in_a_row + 1 if self.over_budget() and self.abandoned > abandoned else 0
            if in_a_row >= MAX_ABANDONED_IN_A_ROW:
                break  # the circuit proves none of these joins: the others stay apart
        spent = self.attempts
        for a, b in itertools.combinations(joined.roots(), 2):
            if self.attempts - spent > MAX_ATTEMPTS or self.over_budget():
                break
            self._join(joined, a, b, kinds, u)
        return joined.blocks()


#: past the budget, adjacent entries are joined on the circuit alone; this many abandoned one after the other end
#: the search (sparse vector, no symmetry: each join would otherwise cost a refutation and a circuit walk, O(n^2))
MAX_ABANDONED_IN_A_ROW = 8


class _Joined:
    """Entries joined into blocks: a :class:`~wmcdp.base.partition.Partition` of the entries and, per block
    (its smallest entry), the output action of the generators that joined it (None: a single entry)."""

    def __init__(self, entries: list[int], start: Sequence[Sequence[int]], kind: str) -> None:
        self.entries = entries
        self.partition = Partition(entries[-1] + 1)
        self.kind_of: dict[int, str | None] = {e: None for e in entries}
        for block in start:
            members = [e for e in block if e in self.kind_of]
            for e in members[1:]:
                self.union(members[0], e, kind)

    def union(self, a: int, b: int, kind: str) -> None:
        """Join the blocks of ``a`` and ``b``, joined by generators of action ``kind``."""
        self.kind_of[self.partition.union(a, b)] = kind

    def roots(self) -> list[int]:
        """The blocks' smallest entries, in order."""
        return sorted({self.partition.find(e) for e in self.entries})

    def blocks(self) -> list[Block]:
        """The blocks of more than one entry (action ``fixed`` when none was recorded)."""
        groups: dict[int, list[int]] = {}
        for e in self.entries:
            groups.setdefault(self.partition.find(e), []).append(e)
        return [Block(tuple(g), self.kind_of[r] or FIXED) for r, g in sorted(groups.items()) if len(g) > 1]


def _first_owners(circuit: Circuit, entry_of: dict[int, int], weights: Any) -> dict[int, list[int]]:
    """Per entry, the random bits whose first gate with any input reads that entry alone: one pass over the
    gates (children before parents) carrying the entries and the random bits each gate reads as bit masks,
    until every random bit has met its first input."""
    reads = [0] * len(circuit.gates)
    randoms = [0] * len(circuit.gates)
    owned = 0
    every = sum(1 << v for v in weights)
    out: dict[int, list[int]] = {}
    for node, gate in enumerate(circuit.gates):
        if owned == every:  # each random bit has met its first input
            break
        if node % 4096 == 0:
            check("symmetry detection")
        if gate[0] == VAR:
            v = gate[1]
            if v in entry_of:
                reads[node] = 1 << entry_of[v]
            elif v in weights:
                randoms[node] = 1 << v
            continue
        if gate[0] == "const":
            continue
        e = r = 0
        for arg in gate[1:]:
            e |= reads[arg]
            r |= randoms[arg]
        reads[node], randoms[node] = e, r
        new = r & ~owned
        if e and new:
            owned |= new
            if e & (e - 1) == 0:
                out.setdefault(e.bit_length() - 1, []).extend(_bits_of(new))
    return {e: sorted(vs) for e, vs in out.items()}


def _existing_gate(circuit: Circuit, kind: str, kids: list[int]) -> int | None:
    """The gate ``kind(kids)`` when the hash-consed circuit already has it (None otherwise): NOT of a constant
    is the other constant and NOT of a NOT its argument, as the circuit builds them; a binary gate is looked
    up with its children in order."""
    gates, index = circuit.gates, circuit._index
    if kind == NOT:
        a = kids[0]
        return 1 - a if a <= 1 else gates[a][1] if gates[a][0] == NOT else index.get((NOT, a))
    return index.get((kind, min(kids), max(kids)))


def _positional(source: dict[int, list[int]], perm: dict[int, int]) -> dict[int, int] | None:
    """Random bits of entry ``e`` mapped position by position to those of ``perm[e]`` (the shortest
    list's length); None when some moved entry has none."""
    lengths = [len(source.get(e, ())) for e in perm]
    if not lengths or min(lengths) == 0:
        return None
    length = min(lengths)
    return {source[e][p]: source[f][p] for e, f in perm.items() for p in range(length)}


def _memory_in_use(bdd: Any) -> int:
    """CUDD's memory in use, in bytes (it bounds a budgeted operation's memory cap, never its charge)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dd warns that "mem" is in bytes since 0.5.7
        return int(bdd.statistics()["mem"])


def _power_of_two(k: int) -> bool:
    return k > 1 and k & (k - 1) == 0


def _bits_of(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def detect(prover: Prover) -> Symmetry:
    """The program's symmetry group: blocks of entries whose permutations are proved on ``phi``, and value
    reflections of entries with their output parts (:meth:`Prover.prove_flip`: bit flips with Bool parts,
    and reflections of ranges of 2^m values)."""
    act = prover.action
    kinds = [k for k in (TUPLE, INDEX, UNCHANGED) if act.applicable(k)]
    read = sorted(prover.bits)
    blocks = [
        Block(b.entries, b.kind, True) if b.kind == TUPLE and prover.prove_flip(b.entries[0]) else b
        for b in _entry_blocks(prover, read, kinds)
    ]
    unread = [e for e in range(prover.n) if e not in prover.bits]
    if len(unread) > 1:
        blocks.append(Block(tuple(unread), UNCHANGED))
    blocks.sort(key=lambda b: b.entries[0])
    return Symmetry(prover.n, tuple(blocks), prover.proofs, prover.attempts, prover.describe_proofs())


def _entry_blocks(prover: Prover, read: list[int], kinds: Sequence[str]) -> list[Block]:
    """Blocks of the read entries, cheapest proofs first: runs of entries adjacent in the variable order whose
    transpositions a local look at the diagram proves (:func:`~.windows.adjacent_runs`, outputs unchanged: array
    operations over the diagram once), then blocks proved on the circuit from the cells of colour refinement
    (:func:`~.colours.circuit_blocks`: a few passes over the circuit). When these are not one block of every
    read entry, the candidates of :meth:`Prover.blocks` (diagram renamings included) start from the blocks of
    the first kind, and the other blocks are kept where they meet no block of that search. Each block's
    generators are proved on their own, so the blocks generate their product."""
    if len(read) < 2:
        return []
    found = [Block(tuple(sorted(r)), UNCHANGED) for r in adjacent_runs(prover, read)]
    if not _one_block(found, read):
        found = _merged(circuit_blocks(prover, kinds) + found)
    if _one_block(found, read):
        return found
    searched = prover.blocks(read, kinds, [b.entries for b in found if b.kind == kinds[0]])
    covered = {e for b in searched for e in b.entries}
    return searched + [b for b in found if covered.isdisjoint(b.entries)]


def _one_block(blocks: list[Block], read: list[int]) -> bool:
    return len(blocks) == 1 and list(blocks[0].entries) == read


def _merged(blocks: list[Block]) -> list[Block]:
    """Blocks of one action that share an entry joined (the symmetric groups on two overlapping sets generate the
    one on their union); a block that meets a block of another action is left out."""
    out: list[Block] = []
    for block in blocks:
        entries, clash = set(block.entries), False
        for other in [b for b in out if not entries.isdisjoint(b.entries)]:
            if other.kind != block.kind:
                clash = True
                break
            entries |= set(other.entries)
            out.remove(other)
        if not clash:
            out.append(Block(tuple(sorted(entries)), block.kind))
    return sorted(out, key=lambda b: b.entries[0])


def read_entries(prover: Prover, offsets: Sequence[int]) -> tuple[list[int], Any] | None:
    """The entries ``P(y | x)`` reads for the output with leaf ``offsets`` (those with a bit in the support of
    ``phi | y``), and the cofactor the proofs use; None when ``P(y | x) = 0`` for every ``x``."""
    be = prover.backend
    plain, u = prover.cofactor(offsets)
    if u == be.false:
        return None
    prover._charge(prover._size(plain))  # the support is read off every node of phi | y
    support = {be.var_id(name) for name in be.bdd.support(plain)}
    return [e for e in range(prover.n) if any(v in support for v in prover.bits.get(e, ()))], u


def refine(
    prover: Prover, offsets: Sequence[int], stabilizer: Sequence[Sequence[int]]
) -> tuple[list[list[int]], list[int]] | None:
    """For one output ``y`` (leaf ``offsets``): blocks of entries whose permutations leave ``P(y | x)``
    unchanged, and the entries ``P(y | x)`` does not depend on; None when ``P(y | x) = 0`` for every ``x``.

    ``stabilizer``: the blocks already known (the program's symmetries that fix ``y``).
    Entries none of whose bits is in the support of ``phi | y`` are not read by ``P(y | x)``.
    """
    read = read_entries(prover, offsets)
    if read is None:
        return None
    relevant, u = read
    irrelevant = [e for e in range(prover.n) if e not in relevant]
    keep = set(relevant)
    start = [[e for e in b if e in keep] for b in stabilizer]
    blocks = prover.blocks(relevant, [FIXED], [b for b in start if len(b) > 1], u=u)
    covered = {e for b in blocks for e in b.entries}
    return [list(b.entries) for b in blocks] + [[e] for e in relevant if e not in covered], irrelevant


__all__ = ["Prover", "detect", "refine", "read_entries", "FIXED", "MAX_ATTEMPTS"]
