"""Bounds as exact piecewise functions of one parameter (parametric weighted model counting).

Give a program a :class:`~wmcdp.lang.parameter.Parameter` in place of a number (``lam = Parameter("lam", 0,
Fraction(1, 2))``, ``randomized_response(10, lam)``): every weight that depends on it is a rational function
of the parameter, checked to be a probability on the whole interval; :mod:`wmcdp.count.parametric` counts,
and the notions here take the envelopes (:mod:`wmcdp.base.envelope`, breakpoints isolated exactly by
:mod:`wmcdp.base.roots`) over what the scans collected: pure ε, 1 − β and δ at a rational e^ε as
:mod:`.piecewise_results` with a witness per piece."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.envelope import Piece, envelope, ratio_envelope
from ..base.errors import WmcdpError
from ..base.numbers import is_symbolic
from ..base.polys import Poly, fmpq, poly_at
from ..base.roots import Point, between, compare, real_roots
from ..count.parametric import EnvelopeScan, Parametric, _groups
from ..count.probabilities import Counter, as_compiled, number_system
from ..lang.relations import check_relation, neighbour_relation
from ..plan.pairs import PairWitness, pair_directions
from .piecewise_results import PiecewiseAccuracyResult, PiecewiseDeltaResult, PiecewisePrivacyResult


def piecewise_privacy(
    arith: Parametric, scan: EnvelopeScan, witness_of: Callable[[Any], Any], diagram_size: int, start: float
) -> PiecewisePrivacyResult:
    """Pure ε as a function: the upper envelope of ``P(y|x) / P(y|x')`` over the distinct pairs of the scan, with
    the numeric run's value at every point where a probability vanishes
    (:func:`~wmcdp.base.envelope.ratio_envelope`)."""
    p = arith.parameter
    pieces = ratio_envelope(scan.candidates(), p.lo, p.hi)
    pieces = [Piece(q.start, q.end, q.num, q.den, witness_of(q.witness)) for q in pieces]
    return PiecewisePrivacyResult(p, tuple(pieces), arith.degree, diagram_size, time.perf_counter() - start)


def piecewise_accuracy(
    arith: Parametric, alpha: Any, inputs: Sequence[Any], windows: Sequence[np.ndarray], diagram_size: int, start: float
) -> PiecewiseAccuracyResult:
    """1 − β as a function: the lower envelope over the inputs of the sum of their window's ``P(y | x)``."""
    p = arith.parameter
    candidates = [(arith.sum_function(ids), arith.denominator, x) for x, ids in zip(inputs, windows)]
    pieces = envelope(candidates, p.lo, p.hi, upper=False)
    return PiecewiseAccuracyResult(p, alpha, tuple(pieces), arith.degree, diagram_size, time.perf_counter() - start)


def piecewise_delta(compiled: Any, relation: Any, ratio: Fraction, start: float) -> PiecewiseDeltaResult:
    """δ(ε) at ``e^ε = ratio`` as a function: the upper envelope over the ordered neighbour pairs of
    ``sum_y max(0, P(y|x) - ratio P(y|x'))``.

    Every pair is reduced to its *signature*, the multiset of its outputs' ``(id of P(y|x), id of P(y|x'))``
    (sorted codes, grouped exactly like the cells of a count), so each distinct signature is worked out once.
    A signature's δ is piecewise itself: its terms switch on and off at the roots of
    ``Q_a - ratio Q_b``; on each stretch between them it is the sum of the positive terms. The envelope of
    these partial functions is the bound.
    """

    counter = Counter(compiled, number_system(compiled, True))
    arith = counter.arith
    if not getattr(arith, "interned", False):
        raise WmcdpError("piecewise_delta needs a program with a symbolic parameter")
    table = counter.table()
    n_ids = len(arith._vectors)
    signatures: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    for src, dst, order in pair_directions(compiled.domain, relation, max(1, (1 << 22) // max(table.shape[1], 1))):
        signatures.append(np.sort(table[src] * n_ids + table[dst], axis=1))
        keys.append(order)
    rows = np.concatenate(signatures)
    order_keys = np.concatenate(keys)
    first, inverse = _groups([rows[:, j] for j in range(rows.shape[1])])
    best_key = np.full(len(first), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best_key, inverse, order_keys)
    p = arith.parameter
    candidates = []
    for g, k in enumerate(first):
        codes, counts = np.unique(rows[k], return_counts=True)
        terms = [(int(c) // n_ids, int(c) % n_ids, int(m)) for c, m in zip(codes, counts)]
        candidates += _signature_pieces(arith, terms, ratio, p.lo, p.hi, int(best_key[g]))
    candidates.sort(key=lambda c: c[2])  # the first pair in the exhaustive set's order wins a tie
    pieces = envelope(candidates, p.lo, p.hi, upper=True)
    witness = {}
    for q in pieces:
        if q.witness not in witness:
            witness[q.witness] = _pair_witness(compiled, relation, q.witness)
    pieces = [Piece(q.start, q.end, q.num, q.den, witness[q.witness]) for q in pieces]
    return PiecewiseDeltaResult(p, ratio, tuple(pieces), arith.degree, compiled.size, time.perf_counter() - start)


def _signature_pieces(
    arith: Parametric, terms: list[tuple[int, int, int]], ratio: Fraction, lo: Fraction, hi: Fraction, key: int
) -> list[tuple[Poly, Poly, Any, Point, Point]]:
    """The pieces of one signature's ``sum max(0, Q_a - ratio Q_b) / D`` as partial candidates."""
    r = fmpq(ratio)
    diffs = [(arith.function(a) - arith.function(b) * r, m) for a, b, m in terms if (a, b) != (0, 0)]
    cuts: list[Point] = [lo, hi]
    for d, _ in diffs:
        if not d.is_zero() and d.degree() > 0:
            cuts += [x for x, _ in real_roots(d, lo, hi)]

    cuts = sorted(cuts, key=functools.cmp_to_key(compare))
    distinct = [c for i, c in enumerate(cuts) if i == 0 or compare(cuts[i - 1], c) != 0]
    out: list[tuple[Poly, Poly, Any, Point, Point]] = []
    for a, b in zip(distinct, distinct[1:]):
        s = between(a, b)
        total = Poly([])
        for d, m in diffs:
            if poly_at(d, s) > 0:
                total += d * m
        if out and out[-1][0] == total:
            out[-1] = (total, out[-1][1], key, out[-1][3], b)
        else:
            out.append((total, arith.denominator, key, a, b))
    return out


def _pair_witness(compiled: Any, relation: Any, key: int) -> Any:

    domain = compiled.domain
    if relation.builtin:
        code, rank = divmod(key, relation.direction_count(domain))
        return PairWitness(domain.at(code), relation.step(domain, domain.at(code), rank))
    pairs = [(x, xp) for x in domain.values() for xp in relation.neighbours(domain, x)]
    return PairWitness(*pairs[key])


def symbolic_parameter(prog: Any) -> Any:
    """The symbolic parameter of a compiled program, or of a program that lists it among its ``params``."""
    if hasattr(prog, "symbolic"):
        return prog.symbolic
    for value in getattr(prog, "params", {}).values():
        if is_symbolic(value):
            return value.parameter
    return None


def piecewise_approximate(
    prog: Any,
    pairs: Any,
    I: Any,
    threshold: Any,
    delta: Any,
    compose: int,
    at: Any,
    neighbours: Any,
    backend: str,
    start: float,
) -> PiecewiseDeltaResult:
    """:func:`wmcdp.synthesize_approximate` for a program with a symbolic parameter: δ at a rational e^ε over
    the exhaustive pairs, as a function (:func:`piecewise_delta`)."""

    name = symbolic_parameter(prog).name
    if threshold is None or delta is not None:
        raise WmcdpError(
            f"with the symbolic parameter {name}, (epsilon, delta) is computed as delta at a fixed epsilon; "
            "give epsilon as ln:R with R rational"
        )
    if threshold.ratio is None:
        raise WmcdpError(
            f"with the symbolic parameter {name}, give epsilon as ln:R with R rational (e^epsilon = R), "
            f"not {threshold.epsilon!r}"
        )
    if compose != 1 or at is not None or I is not None or pairs not in (None, "exhaustive"):
        raise WmcdpError(
            f"with the symbolic parameter {name}, delta is computed over the exhaustive pairs of one run; "
            "leave out pairs, I, at and compose"
        )
    compiled = as_compiled(prog, backend, True)
    relation = neighbour_relation(neighbours or compiled.program.neighbours)
    check_relation(relation, compiled.domain)
    return piecewise_delta(compiled, relation, Fraction(threshold.ratio), start)
