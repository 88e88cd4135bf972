"""The inputs of an accuracy run, one kind of object per kind of set.

The kinds: every input of the domain over the joint
table (:class:`ExhaustiveInputs`), listed inputs whose every output is read (:class:`ListedInputs`: one
traversal gives whole output distributions of a batch of inputs), and listed inputs of which an explicit
inference set reads only the window (:class:`WindowInputs`). Each gives, for every input, the sums of
``P(y | x)`` inside and outside its accuracy window ``[first, last]`` (Algorithm 3), or for a parametric run the
window's cells: the notion (:func:`wmcdp.synthesize_accuracy`) runs any of them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..compile import Compiled
from ..count.distributed import local_only, worker_counter
from ..count.probabilities import Counter, explicit_rows, listed_support
from ..lang.program import Value
from ..lang.sets import InferenceSet


class ListedInputs:
    """Listed inputs whose every output is read: their whole output distributions, a batch at a time."""

    def __init__(self, inputs: list[Value]) -> None:
        self.inputs = inputs

    def sums(self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int, workers: Any) -> tuple[Any, Any]:
        """Per input, the window sums inside and outside."""
        local_only(workers, "A and I")
        parts_in, parts_out = [], []
        for begin, block in counter.distributions(counter.compiled.domain.digit_array(self.inputs)):
            s_in, s_out = window_sums(
                counter.arith,
                block,
                first[begin : begin + len(block)],
                last[begin : begin + len(block)],
                range(block.shape[1]),
            )
            parts_in.append(s_in)
            parts_out.append(s_out)
        return np.concatenate(parts_in), np.concatenate(parts_out)

    def cells(self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int) -> list[np.ndarray]:
        """Per input, the cells of its accuracy window (the outputs within alpha of its target)."""
        out = []
        for begin, block in counter.distributions(counter.compiled.domain.digit_array(self.inputs)):
            for k in range(len(block)):
                out.append(block[k, int(first[begin + k]) : int(last[begin + k]) + 1])
        return out


class ExhaustiveInputs(ListedInputs):
    """Every input of the domain: window sums from the joint table in stripes, in this process or over workers."""

    def __init__(self, compiled: Compiled, exact: Any = None) -> None:
        super().__init__(list(compiled.domain.values()))
        self.exact = exact  # as the run was asked (workers rebuild its number system from it)

    def sums(self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int, workers: Any) -> tuple[Any, Any]:
        if workers is None or listed_support(counter.compiled) is not None:  # a listed support is counted here
            return _stripe_sums(counter, first, last)
        inside = outside = None
        for s_in, s_out in workers.stripes(counter.compiled, self.exact, _window_task, first, last):
            inside, outside = _plus(counter.arith, inside, s_in), _plus(counter.arith, outside, s_out)
        return inside, outside


class WindowInputs:
    """Listed inputs of which an explicit inference set reads only the outputs in the window (no sum outside)."""

    def __init__(self, inputs: list[Value]) -> None:
        self.inputs = inputs

    def _rows(
        self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int
    ) -> dict[Value, tuple[tuple[Value, ...], np.ndarray]]:
        windows = {x: tuple(range(lo + int(f), lo + int(l) + 1)) for x, f, l in zip(self.inputs, first, last)}
        return explicit_rows(counter, InferenceSet(windows))

    def sums(self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int, workers: Any) -> tuple[Any, None]:
        local_only(workers, "A and I")
        arith = counter.arith
        rows = self._rows(counter, first, last, lo)
        inside = np.array(
            [
                arith.total(rows[x][1][None, :], 1)[0] if x in rows and len(rows[x][1]) else arith.zero
                for x in self.inputs
            ],
            dtype=arith.dtype,
        )
        return inside, None

    def cells(self, counter: Counter, first: np.ndarray, last: np.ndarray, lo: int) -> list[np.ndarray]:
        rows = self._rows(counter, first, last, lo)
        return [rows[x][1] if x in rows else np.zeros(0, dtype=np.int64) for x in self.inputs]


def window_sums(
    arith: Any, table: np.ndarray, first: np.ndarray, last: np.ndarray, outputs: Sequence[int] | np.ndarray
) -> tuple[Any, Any]:
    """Per row, the sums of ``table`` inside and outside the window ``[first, last]`` (``outputs``: the position of
    each column in the output shape)."""
    cols = np.asarray(outputs)
    inside = (cols[None, :] >= first[:, None]) & (cols[None, :] <= last[:, None])
    zeros = np.full(table.shape, arith.zero, dtype=arith.dtype)
    return arith.total(np.where(inside, table, zeros), 1), arith.total(np.where(inside, zeros, table), 1)


def _plus(arith: Any, total: Any, part: Any) -> Any:
    return part if total is None else arith.add(total, part)


def _stripe_sums(
    counter: Counter, first: np.ndarray, last: np.ndarray, fixed: int | None = None, only: Any = None
) -> tuple[Any, Any]:
    """Window sums inside and outside for every input, over the columns of the joint table: the producible outputs
    (:meth:`Counter.columns`; the others add 0 to both sums), or with ``fixed`` and ``only`` chosen stripes of every
    output (see :meth:`Counter.stripes`)."""
    inside = outside = None
    for outputs, table in counter.columns(fixed, only):
        s_in, s_out = window_sums(counter.arith, table, first, last, outputs)
        inside, outside = _plus(counter.arith, inside, s_in), _plus(counter.arith, outside, s_out)
    return inside, outside


def _window_task(
    job: dict[str, Any], fixed: int, stripes: list[int], first: np.ndarray, last: np.ndarray
) -> tuple[Any, Any]:
    """On a worker (:meth:`wmcdp.count.distributed.Workers.stripes`): window sums of some stripes."""
    return _stripe_sums(worker_counter(job), first, last, fixed, stripes)


__all__ = ["ExhaustiveInputs", "ListedInputs", "WindowInputs", "window_sums"]
