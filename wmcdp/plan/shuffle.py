"""Shuffled mechanisms from their local randomizer: whole output distributions by exact convolution.

In the shuffle model each of ``n`` users applies a local randomizer ``R`` to their own value
``x_i``, independently, and a shuffler releases the multiset of reports, i.e. the histogram
of report values. For an input whose histogram of values is ``h`` (``h_v`` users hold ``v``)
the histogram of reports is the sum of independent parts (reports are independent given the
inputs, and the histogram forgets who sent what):

    P(histogram | x) = ⊛_v  (P(. | v))^{⊛ h_v}          (one categorical per user, added up)

so it depends on ``x`` only through ``h``. :class:`ShuffledInference` gets ``P(r | v)`` for
every value ``v`` and report ``r`` by weighted model counting on the compiled *local*
randomizer (Algorithm 1 on a one-user program) and forms the shuffled distributions by
convolution: exact integer numerators over ``D^n`` in exact mode (``D``: the local
program's common denominator), or extended-precision floats (``numpy.longdouble``, whose
exponent reaches 1e-4951, so 0.2^1000 is still a number) returned as natural logs.

It plays the part of an inference set for the pair sets of :mod:`wmcdp.plan.pairs`: a program
that *is* this shuffle of ``R`` (``rr_counting``, ``kary_rr_histogram``) gets the rows of
any inputs without compiling the ``n``-user program, whose diagram grows as ``n^2`` nodes
with an output distribution at each. The test suite checks the rows against the compiled
program's own counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..base.limits import check, reserve
from ..compile import Compiled
from ..count import wmc
from ..count.probabilities import Logs, as_compiled, inference, number_system
from ..lang.program import Program, Value
from ..lang.sets import ExhaustiveInference


@dataclass
class ShuffledInference:
    """Rows of the shuffle of ``local`` over ``n`` users; the output is the counts of the ``counted`` reports.

    ``local`` takes one user's value (input domain of one entry) and returns one report.
    The shuffled program's output is the tuple of the counts of the reports in
    ``counted`` (a single count when ``counted`` has one value), each in ``0..n``; its
    output positions are the count tuples in lexicographic order (the order of the
    program's output shape).
    """

    local: Program | Compiled
    n: int
    counted: tuple[Any, ...]
    backend: str = "bdd"
    _compiled: dict[bool, Compiled] = field(default_factory=dict, repr=False)

    def compiled(self, exact: Any) -> Compiled:
        key = exact == "binary"
        if key not in self._compiled:
            self._compiled[key] = as_compiled(self.local, self.backend, exact)
        compiled: Compiled = self._compiled[key]
        return compiled

    @property
    def diagram_size(self) -> int:
        """Node count of the compiled local randomizer."""
        return self.compiled(None).size

    def local_distribution(self, exact: Any) -> tuple[Any, np.ndarray]:
        """``(arith, M)`` with ``M[v, j] = P(report counted[j] | v)`` and a last column for uncounted reports."""
        c = self.compiled(exact)
        arith = number_system(c, exact)
        if c.domain.n != 1:
            raise WmcdpError(
                f"a local randomizer takes one user's value, but {c.program.name} has {c.domain.n} input entries"
            )
        table = inference(c, ExhaustiveInference(c.domain, c.shape), exact=exact)
        values = list(c.domain.entry_values)
        probs = np.full((len(values), len(self.counted) + 1), arith.zero, dtype=object if arith.exact else float)
        index = {y: j for j, y in enumerate(self.counted)}
        for x, y, p in table.items():
            j = index.get(y, len(self.counted))
            probs[x[0] - c.domain.lo, j] += p
        return arith, probs

    def rows(self, inputs: Sequence[Value], exact: Any = None) -> tuple[Any, np.ndarray]:
        """``(arith, rows)``: the output masses of each input (natural logs, or numerators over
        ``arith.denominator``)."""
        arith, probs = self.local_distribution(exact)
        c = self.compiled(exact)
        lo, k = c.domain.lo, len(c.domain.entry_values)
        histograms = [tuple(x.count(lo + u) for u in range(k)) for x in inputs]
        d = len(self.counted)
        if arith.exact:
            denominator = math.lcm(*(p.denominator for p in probs.ravel() if p != 0))
            steps = np.array([[int(p * denominator) for p in row] for row in probs], dtype=object)
            rows = _distributions(steps, histograms, self.n, d, object)
            return wmc.Scaled(denominator**self.n), rows.reshape(len(inputs), -1)
        _check_range(probs, self.n)
        steps = probs.astype(np.longdouble)
        rows = _distributions(steps, histograms, self.n, d, np.longdouble)
        with np.errstate(divide="ignore"):
            return Logs, np.log(rows.reshape(len(inputs), -1)).astype(np.float64)


def _check_range(probs: np.ndarray, n: int) -> None:
    """Refuse float runs whose smallest product of n local probabilities would underflow ``numpy.longdouble``."""
    positive = [float(p) for p in probs.ravel() if p > 0]
    lowest = n * math.log(min(positive))
    if lowest < float(np.log(np.finfo(np.longdouble).tiny)) + 40:
        raise WmcdpError(
            f"probabilities of the shuffled reports reach e^{lowest:.0f}, below the extended float "
            f"range of this machine; use exact arithmetic (--exact) for this n"
        )


def _step(dist: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One more user whose report is counted ``j`` with weight ``weights[j]`` (last: counted nowhere)."""
    out: np.ndarray = dist * weights[-1]
    for j in range(len(weights) - 1):
        if weights[j] != 0:
            lead = [slice(None)] * dist.ndim
            tail = [slice(None)] * dist.ndim
            lead[j], tail[j] = slice(1, None), slice(None, -1)
            out[tuple(lead)] += dist[tuple(tail)] * weights[j]
    return out


#: the bytes an exact table's cell takes at least (a pointer and a small Python int)
OBJECT_CELL_BYTES = 8 + 32


def _table_bytes(k: int, histograms: list[tuple[int, ...]], n: int, d: int, dtype: Any) -> int:
    """About the bytes :func:`_distributions` holds at once: its output and the powers of each value's distribution
    (one counted report) or the stack of shared prefixes (more), arrays of ``(n + 1)^d`` cells each."""
    item: int = OBJECT_CELL_BYTES if dtype is object else np.dtype(dtype).itemsize
    held = sum(max(h[v] for h in histograms) + 1 for v in range(k)) if d == 1 else n + 1
    return (len(histograms) + held) * math.prod((n + 1,) * d) * item


def _distributions(steps: np.ndarray, histograms: list[tuple[int, ...]], n: int, d: int, dtype: Any) -> np.ndarray:
    """The count distributions (arrays ``(n+1,)*d``) of the given input histograms.

    With one counted report the k-fold powers of each value's distribution are formed once
    and each input's row is one 1-d convolution; with more, the inputs are visited in
    lexicographic order of their histograms and each is built from the longest shared
    prefix of users (values in increasing order) by adding one user at a time. A table that would not fit in the
    memory cap is refused before it is made (:func:`wmcdp.base.limits.reserve`).
    """
    k = steps.shape[0]
    reserve(_table_bytes(k, histograms, n, d, dtype), f"the count distributions of {n} reports")
    start = np.zeros((n + 1,) * d, dtype=dtype)
    start[(0,) * d] = 1
    out = np.empty((len(histograms),) + start.shape, dtype=dtype)
    if d == 1:
        powers: list[list[np.ndarray]] = []
        for v in range(k):
            needed = max(h[v] for h in histograms)
            chain = [start]
            for _ in range(needed):
                check("shuffled distributions")
                chain.append(_step(chain[-1], steps[v]))
            powers.append(chain)
        for r, h in enumerate(histograms):
            check("shuffled distributions")
            row = powers[0][h[0]][: h[0] + 1]  # j users count at most j
            for v in range(1, k):
                row = np.convolve(row, powers[v][h[v]][: h[v] + 1])
            out[r] = 0
            out[r, : len(row)] = row[: n + 1]
        return out
    order = sorted(range(len(histograms)), key=lambda r: histograms[r])
    path: list[int] = []  # the users added so far, as the prefix of values
    stack: list[np.ndarray] = [start]
    for r in order:
        target = [v for v in range(k) for _ in range(histograms[r][v])]
        common = 0
        while common < len(path) and common < len(target) and path[common] == target[common]:
            common += 1
        del path[common:], stack[common + 1 :]
        for v in target[common:]:
            check("shuffled distributions")
            stack.append(_step(stack[-1], steps[v]))
            path.append(v)
        out[r] = stack[-1]
    return out


def counts_index(counts: Sequence[int], n: int) -> int:
    """The output position of a tuple of counts (lexicographic over ``0..n`` each)."""
    index = 0
    for c in counts:
        index = index * (n + 1) + c
    return index


def fraction_rows(arith: Any, rows: np.ndarray) -> list[list[Fraction]]:
    """Exact rows as Fractions (for tests and reports)."""
    return [[Fraction(int(v), arith.denominator) for v in row] for row in rows]


__all__ = ["ShuffledInference", "counts_index", "fraction_rows"]
