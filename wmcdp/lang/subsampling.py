"""Subsampling as a DSL combinator: a program run on a random subsample of its input's records.

:func:`subsample` turns a program ``P`` into an ordinary :class:`~wmcdp.lang.program.Program`, so every notion
(pure ε, δ(ε) and ε(δ), Rényi, the privacy-loss distribution) computes its exact bound. Two samplings:

- **Poisson at rate q, under add/remove.** ``P`` reads ``{lo..hi}^n`` and treats the value ``absent`` as "no
  record in this slot". The subsampled program has the same domain and runs ``P`` on
  ``z_i = ite(flip(q), x_i, absent)``: every slot keeps its record with probability ``q``, independently (a slot
  that is already empty stays empty either way). Its neighbours are :func:`~wmcdp.lang.relations.add_remove`:
  one slot gains or loses a record.
- **Without replacement, m of n records, under substitution.** ``P`` reads ``m`` entries; the subsampled program
  reads ``n >= m`` entries, draws a subset ``S = {s_1 < ... < s_m}`` uniformly among the ``C(n, m)`` subsets of
  slots and runs ``P`` on ``(x_{s_1}, ..., x_{s_m})`` (the chosen records in slot order). Its neighbours are
  ``hamming``: one record is replaced.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import Number, as_int, format_number, probability
from .circuit import FALSE
from .program import Program, Vector
from .relations import add_remove
from .values import MAX_SELECTIONS, Bool, Int, current, flip, ite, uniform


def subsample(
    program: Program, q: Number | str | None = None, *, n: int | None = None, absent: int | None = None
) -> Program:
    """``program`` run on a random subsample of its input's records (module docstring, and docs/dsl.md).

    ``subsample(P, q)``: Poisson sampling at rate ``q`` (a Fraction, an int, a float or a string such as
    ``"1/5"``; exact results for exact ``q``) under add/remove, the slot value ``absent`` (default: the
    domain's lower end) meaning "no record". ``q = 1`` is ``P`` itself; ``q = 0`` runs ``P`` on no records
    (ε = 0). ``subsample(P, n=N)``: the ``m`` entries ``P`` reads are ``m`` of ``N`` records drawn without
    replacement, uniformly (at most 16384 subsets), under substitution (``hamming``).

    Give exactly one of ``q`` and ``n``; a bad value is one :class:`~wmcdp.base.errors.WmcdpError`.
    """
    if not isinstance(program, Program):
        raise WmcdpError(f"subsample() takes a wmcdp Program, got {type(program).__name__}")
    if (q is None) == (n is None):
        raise WmcdpError("subsample() takes a rate q (Poisson sampling) or a number of records n (without replacement)")
    if q is not None:
        return _poisson(program, probability(q, "the subsampling rate q"), absent)
    if absent is not None:
        raise WmcdpError("subsample(): absent applies to Poisson sampling (a rate q) only")
    return _without_replacement(program, as_int(n, "the number of records n"))


def _poisson(program: Program, q: Number, absent: int | None) -> Program:
    """Poisson sampling at rate ``q``: slot ``i`` of ``P``'s input is ``ite(flip(q), x_i, absent)``."""
    domain = program.inputs
    empty = domain.lo if absent is None else as_int(absent, "the absent value")
    if not domain.lo <= empty <= domain.hi:
        raise WmcdpError(
            f"the absent value {empty} is outside the entry range {domain.lo}..{domain.hi} of {program.name}"
        )
    value: bool | int = bool(empty) if domain.is_bits else empty  # a Bool entry needs a Bool constant

    def body(x: Sequence[Any]) -> object:
        return program.body(_Slots(len(x), lambda i: ite(flip(q), x[i], value)))

    lowest = empty == domain.lo
    return Program(
        f"subsampled_{program.name}",
        domain,
        body,
        {**program.params, "subsample_q": q, **({} if lowest else {"absent": empty})},
        neighbours="add-remove" if lowest else add_remove(empty),
        description=f"{program.name} on a Poisson subsample at rate {format_number(q)} (absent value {empty})",
    )


def _without_replacement(program: Program, n: int) -> Program:
    """``m`` of ``n`` records without replacement: a uniform subset index, and slot ``j`` of ``P``'s input is the
    ``j``-th record of the chosen subset (an ``ite`` over the records that can be ``j``-th)."""
    m = program.inputs.n
    if not m <= n:
        raise WmcdpError(f"subsample(): cannot choose the m = {m} records {program.name} reads out of n = {n}")
    count = math.comb(n, m)
    if count > MAX_SELECTIONS:
        raise WmcdpError(
            f"subsample(): choosing m = {m} of n = {n} records is a choice among C({n}, {m}) = {count} subsets "
            f"(limit {MAX_SELECTIONS})"
        )
    subsets = list(itertools.combinations(range(n), m))
    domain = program.inputs

    def body(x: Sequence[Any]) -> object:
        pick = uniform(0, count - 1)
        return program.body(_Slots(m, lambda j: _record(pick, x, [s[j] for s in subsets])))

    return Program(
        f"subsampled_{program.name}",
        Vector(n, domain.lo, domain.hi),
        body,
        {**program.params, "subsample_n": n},
        neighbours="hamming",
        description=f"{program.name} on {m} of {n} records drawn uniformly without replacement",
    )


def _record(pick: Int, x: Sequence[Any], slots: list[int]) -> Any:
    """``x[slots[pick]]``: the record the subset ``pick`` puts in this position, as an ``ite`` over the distinct
    slots (each guarded by the subsets that put it here)."""
    c = current()
    guards: dict[int, list[int]] = {}
    for k, slot in enumerate(slots):
        guards.setdefault(slot, []).append(pick.guards.get(k, FALSE))  # a concrete run keeps the drawn k only
    chosen = sorted(guards)
    out = x[chosen[-1]]
    for slot in reversed(chosen[:-1]):
        out = ite(Bool(c.any(guards[slot])), x[slot], out)
    return out


class _Slots(Sequence[Any]):
    """The inner program's input: slot ``i`` is ``make(i)``, built when first read (so each slot's sampling
    sits beside the record it reads and the noise the inner program draws for it in the variable order)."""

    def __init__(self, size: int, make: Callable[[int], Any]) -> None:
        self._size, self._make = size, make
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(self._size)))
        if not -self._size <= i < self._size:
            raise IndexError(f"input index {i} out of range for {self._size} entries")
        i %= self._size
        if i not in self._made:
            self._made[i] = self._make(i)
        return self._made[i]


__all__ = ["subsample"]
