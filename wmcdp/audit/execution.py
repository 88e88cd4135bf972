"""Exact execution of a library's own Python code over every random choice it makes.

A local-DP randomizer written in Python draws from ``random`` and ``numpy.random``: uniform integers
(``random.randint``, ``np.random.randint``) and uniform doubles (``random.random()``,
``np.random.random_sample()``), each double ``u = k 2^-53`` with ``k`` uniform on ``0 .. 2^53 - 1``
(CPython's ``random_random`` and numpy's legacy ``random_standard_uniform``, both 53 bits from two 32-bit
Mersenne-Twister words). :func:`exact_distribution` runs a function once per path through its random
choices, with those draws replaced:

* an integer below ``n`` branches ``n`` ways, each of probability ``1/n`` (CPython's ``_randbelow`` and
  numpy's legacy bounded integers reject draws out of range, so each value is exactly equally likely);
  Python's ``randint`` and ``randrange`` run as they are (their argument handling included) on top of it;
* a double is a :class:`GridUniform`: the set of grid points ``k`` still possible on this path. Comparing it
  with a float ``t`` splits that set exactly (``k 2^-53 < t`` iff ``k < t 2^53``, both sides exact doubles) and
  the path branches with the two parts' shares. Any other use of it (arithmetic, ``float()``) is refused:
  the model covers code that only compares its uniform doubles;
* a double times a positive float (``random() * total`` in ``random.choices`` with weights, which then bisects
  the cumulative weights) is a :class:`ScaledUniform`: ``fl(k 2^-53 c)`` is monotone in ``k``, so a comparison
  with a float is a grid count found by bisection with the float product itself;
* ``np.random.binomial(1, p)`` follows numba's BINV (:func:`_np_binomial`), for the library code that numba
  compiles and the audit runs as plain Python (``.py_func``); with ``size`` it is numpy's legacy
  ``RandomState.binomial`` (``random_binomial_inversion``), the same rule for ``n = 1`` when its
  ``qn = exp(n log q)`` is ``q`` (checked), each entry an independent draw;
* ``np.random.choice(a)`` is a uniform index (``randint(0, len(a))``, in numpy and in numba);
  ``np.random.choice(a, size, p=p)`` follows numpy's legacy ``RandomState.choice`` (numpy/random/mtrand.pyx):
  ``cdf = p.cumsum(); cdf /= cdf[-1]``, then ``cdf.searchsorted(u, side='right')`` per uniform double ``u``,
  that is the number of ``cdf`` entries ``<= u``, here by comparisons of a :class:`GridUniform`;
  ``np.random.choice(a, size, replace=False)`` is the first ``size`` entries of a Fisher-Yates shuffle of
  uniform integers (:func:`_without_replacement`, numba's and numpy's legacy ``permutation``);
* ``np.random.rand(*shape)`` is an array of those doubles, compared with a number elementwise (:class:`GridArray`).

Paths are walked depth first by replaying the function with the choices made so far, so the function must
be deterministic apart from these draws. The result maps each output to its exact probability (a Fraction).
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import numpy as np

from ..base.errors import WmcdpError

#: the grid of a uniform double
GRID = 2**53
#: the most ways an integer draw may branch (a larger range needs a model of its own: a seed model)
MAX_BRANCHES = 2**16
#: the most paths of one execution
MAX_PATHS = 2_000_000


class _Path:
    """The choices of one run: replayed from ``prefix``, then the first option of each new choice."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.widths: list[int] = []
        self.weight = Fraction(1)

    def choose(self, shares: list[Fraction]) -> int:
        """The index of the option taken among options of the given conditional probabilities (> 0)."""
        depth = len(self.taken)
        i = self.prefix[depth] if depth < len(self.prefix) else 0
        self.taken.append(i)
        self.widths.append(len(shares))
        self.weight *= shares[i]
        return i

    def next_prefix(self) -> list[int] | None:
        """The choices of the next path in depth-first order, or None after the last."""
        for depth in range(len(self.taken) - 1, -1, -1):
            if self.taken[depth] + 1 < self.widths[depth]:
                return self.taken[:depth] + [self.taken[depth] + 1]
        return None


class _OnlyCompared(ABC):
    """A uniform double of the model, used only in comparisons: ``>`` and ``>=`` from its ``<=`` and ``<``, every
    other use refused (the model covers code that only compares its uniform doubles)."""

    __array_ufunc__ = None  # numpy scalars compared with it defer to its reflected comparisons
    #: the double as the refusals name it
    kind = "a uniform double"

    @abstractmethod
    def __lt__(self, t: Any) -> bool: ...

    @abstractmethod
    def __le__(self, t: Any) -> bool: ...

    def __gt__(self, t: Any) -> bool:
        return not self.__le__(t)

    def __ge__(self, t: Any) -> bool:
        return not self.__lt__(t)

    def __eq__(self, t: object) -> bool:
        raise TypeError(f"{self.kind} is only compared by <, <=, > and >= here")

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        raise TypeError("the exact model follows code that only compares its uniform doubles")


class GridUniform(_OnlyCompared):
    """A uniform double ``k 2^-53`` whose ``k`` ranges over ``lo .. hi`` on the current path; a comparison with
    a float splits the range and the path branches (:mod:`wmcdp.audit.execution`)."""

    def __init__(self, path: _Path) -> None:
        self.path, self.lo, self.hi = path, 0, GRID - 1

    def _below(self, count: int) -> bool:
        """Whether ``k < count`` on this path (branching when the range straddles ``count``)."""
        if count <= self.lo:
            return False
        if count > self.hi:
            return True
        size = self.hi - self.lo + 1
        below = count - self.lo
        if self.path.choose([Fraction(below, size), Fraction(size - below, size)]) == 0:
            self.hi = count - 1
            return True
        self.lo = count
        return False

    @staticmethod
    def _scaled(t: Any) -> Fraction:
        if isinstance(t, GridUniform) or not isinstance(t, (float, int, np.floating, np.integer)):
            raise TypeError(f"a uniform double is compared only with numbers here, not {type(t).__name__}")
        if math.isnan(t):
            raise TypeError("a uniform double compared with nan")
        return Fraction(float(t)) * GRID if math.isfinite(t) else Fraction(GRID * 4 if t > 0 else -GRID * 4)

    def __lt__(self, t: Any) -> bool:  # k < t 2^53
        return self._below(min(max(math.ceil(self._scaled(t)), 0), GRID))

    def __le__(self, t: Any) -> bool:  # k <= floor(t 2^53)
        return self._below(min(max(math.floor(self._scaled(t)) + 1, 0), GRID))

    def __mul__(self, c: Any) -> ScaledUniform:
        return ScaledUniform(self, c)

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"GridUniform(k in {self.lo}..{self.hi})"


class ScaledUniform(_OnlyCompared):
    """``u * c`` in floats for a :class:`GridUniform` ``u`` and a positive finite float ``c``: ``fl(k 2^-53 c)`` is
    monotone in ``k`` (a product of an exact double by a positive constant, correctly rounded), so the ``k`` whose
    product compares below a float ``t`` are those below a count that bisection with the product itself finds;
    the comparison splits ``u``'s range there."""

    kind = "a scaled uniform double"

    def __init__(self, u: GridUniform, c: Any) -> None:
        if isinstance(c, (GridUniform, ScaledUniform)) or not isinstance(c, (float, int, np.floating, np.integer)):
            raise TypeError(f"a uniform double is scaled only by a number here, not {type(c).__name__}")
        if not (math.isfinite(c) and c > 0):
            raise TypeError(f"a uniform double is scaled only by a positive finite number here, not {c!r}")
        self.u, self.c = u, float(c)

    def _first_failing(self, test: Callable[[float], bool]) -> int:
        """The least ``k`` in ``0 .. 2^53`` with ``not test(fl(k 2^-53 c))`` (``test`` holds below it)."""
        lo, hi = 0, GRID
        while lo < hi:
            mid = (lo + hi) // 2
            if test(mid / GRID * self.c):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def __lt__(self, t: Any) -> bool:
        GridUniform._scaled(t)  # (refuses what is not a number)
        return self.u._below(self._first_failing(lambda v: v < float(t)))

    def __le__(self, t: Any) -> bool:
        GridUniform._scaled(t)
        return self.u._below(self._first_failing(lambda v: v <= float(t)))


class GridArray:
    """``np.random.rand(*shape)``: independent :class:`GridUniform` doubles whose comparison with a number is
    numpy's elementwise one, a boolean array of that shape (each entry's comparison a branch of the path)."""

    def __init__(self, path: _Path, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.items = [GridUniform(path) for _ in range(math.prod(shape))]

    def _compare(self, test: Callable[[GridUniform], bool]) -> Any:
        return np.array([test(u) for u in self.items], dtype=bool).reshape(self.shape)

    def __lt__(self, t: Any) -> Any:
        return self._compare(lambda u: u < t)

    def __le__(self, t: Any) -> Any:
        return self._compare(lambda u: u <= t)

    def __gt__(self, t: Any) -> Any:
        return self._compare(lambda u: u > t)

    def __ge__(self, t: Any) -> Any:
        return self._compare(lambda u: u >= t)


class _Random(random.Random):
    """CPython's ``random.Random`` with its two primitives made choices of the path."""

    path: _Path

    def random(self) -> Any:
        return GridUniform(self.path)

    def _randbelow(self, n: int) -> int:
        return _uniform_index(self.path, n)


def _uniform_index(path: _Path, n: int) -> int:
    if n > MAX_BRANCHES:
        raise WmcdpError(f"an integer draw below {n} has too many values to enumerate (at most {MAX_BRANCHES})")
    return path.choose([Fraction(1, n)] * n)


def _np_randint(path: _Path) -> Callable[..., int]:
    def randint(low: int, high: int | None = None, size: Any = None, dtype: Any = int) -> int:
        if size is not None:
            raise TypeError("np.random.randint with a size is not modelled")
        lo, hi = (0, low) if high is None else (low, high)
        if hi <= lo:
            raise ValueError("low >= high")
        return int(lo) + _uniform_index(path, int(hi) - int(lo))

    return randint


def _np_random_sample(path: _Path) -> Callable[..., Any]:
    def random_sample(size: Any = None) -> Any:
        if size is not None:
            raise TypeError("np.random.random_sample with a size is not modelled")
        return GridUniform(path)

    return random_sample


def _np_rand(path: _Path) -> Callable[..., Any]:
    def rand(*shape: int) -> Any:
        return GridUniform(path) if not shape else GridArray(path, tuple(int(n) for n in shape))

    return rand


def _np_choice(path: _Path) -> Callable[..., Any]:
    def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        values = np.arange(a) if isinstance(a, (int, np.integer)) else np.array(a)
        if not replace and size is not None:
            return _without_replacement(path, values, size, p)
        if p is None and size is None:  # randint(0, len(a)): numpy's mtrand.pyx and numba's choice_impl
            return values[_uniform_index(path, len(values))]
        p = np.array(p, dtype=np.float64)
        if p.shape != (len(values),) or np.any(p < 0):
            raise ValueError("probabilities are not a vector of non-negative numbers of the population's size")
        if abs(p.sum() - 1.0) > math.sqrt(np.finfo(np.float64).eps):  # mtrand.pyx's check (a plain sum here)
            raise ValueError("probabilities do not sum to 1")
        cdf = p.cumsum()
        cdf /= cdf[-1]
        count = 1 if size is None else int(np.prod(size))
        picks = []
        for _ in range(count):
            u = GridUniform(path)
            picks.append(values[sum(1 for c in cdf if u >= c)])  # searchsorted(u, side='right')
        return picks[0] if size is None else np.array(picks).reshape(size)

    return choice


def _without_replacement(path: _Path, values: Any, size: Any, p: Any) -> Any:
    """``np.random.choice(values, size, replace=False)`` as numba compiles it (numba/np/random/legacy.py
    ``choice_impl``): ``np.random.permutation`` of a copy, a Fisher-Yates shuffle from the last index down with
    ``j = randint(0, i + 1)`` (numba/cpython/randomimpl.py ``do_shuffle_impl``), then its first ``size``
    entries. numpy's legacy ``RandomState.choice`` without ``p`` takes the first ``size`` of its own
    ``permutation``, the same shuffle of exactly uniform integers."""
    if p is not None:
        raise TypeError("np.random.choice without replacement is modelled without p")
    count = int(np.prod(size))
    if count > len(values):
        raise ValueError("Cannot take a larger sample than population when 'replace=False'")
    shuffled = values.copy()
    for i in range(len(shuffled) - 1, 0, -1):
        j = _uniform_index(path, i + 1)
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    return shuffled[:count].reshape(size)


def _np_binomial(path: _Path) -> Callable[..., int]:
    """``np.random.binomial(1, p)`` as numba compiles it (numba/np/random/legacy.py ``binomial_impl``, BINV):
    ``p`` above 1/2 is flipped to ``1.0 - p``, ``q = 1.0 - p``; a double ``u`` gives 0 when ``u <= q``, else
    1 when ``u - q <= (1 * p * q) / (1 * q)`` (float operations), else the loop draws again. The draws are
    independent, so the outcome is the first two cases' grid counts, conditioned on one of them."""

    def binomial(n: int, p: float, size: Any = None) -> Any:
        if n != 1:
            raise TypeError("np.random.binomial is modelled for n = 1 only")
        if size is None:
            return one(float(p))
        q = 1.0 - min(float(p), 1.0 - float(p))
        if math.exp(1 * math.log(q)) != q:
            raise TypeError(f"numpy's legacy binomial at p = {p!r}: its qn = exp(log q) is not q, not modelled")
        shape = (int(size),) if isinstance(size, (int, np.integer)) else tuple(size)
        return np.array([one(float(p)) for _ in range(math.prod(shape))], dtype=np.int64).reshape(shape)

    def one(p: float) -> int:
        if not 0.0 <= p <= 1.0:
            raise ValueError("binomial(): p outside of [0, 1]")
        if p in (0.0, 1.0):
            return int(p)
        flipped = p > 0.5
        if flipped:
            p = 1.0 - p
        q = 1.0 - p
        px = (1 * p * q) / (1 * q)
        zero = min(math.floor(Fraction(q) * GRID) + 1, GRID)  # the k with k 2^-53 <= q
        lo, hi = zero, GRID  # the first k >= zero with k 2^-53 - q > px: the float difference grows with k
        while lo < hi:
            mid = (lo + hi) // 2
            if mid / GRID - q > px:
                hi = mid
            else:
                lo = mid + 1
        ones = lo - zero
        x = path.choose([Fraction(zero, zero + ones), Fraction(ones, zero + ones)])
        return 1 - x if flipped else x

    return binomial


@contextmanager
def _drawing(path: _Path) -> Iterator[None]:
    """``random`` and ``numpy.random``'s module-level draws replaced by the path's choices, for the block."""
    rng = _Random()
    rng.path = path
    replaced = {
        (random, "random"): rng.random,
        (random, "randint"): rng.randint,
        (random, "randrange"): rng.randrange,
        (random, "choices"): rng.choices,
        (np.random, "random_sample"): _np_random_sample(path),
        (np.random, "random"): _np_random_sample(path),
        (np.random, "rand"): _np_rand(path),
        (np.random, "randint"): _np_randint(path),
        (np.random, "choice"): _np_choice(path),
        (np.random, "binomial"): _np_binomial(path),
    }
    saved = {key: getattr(*key) for key in replaced}
    try:
        for (module, name), stub in replaced.items():
            setattr(module, name, stub)
        yield
    finally:
        for (module, name), original in saved.items():
            setattr(module, name, original)


def exact_distribution(fn: Callable[[], Hashable], max_paths: int = MAX_PATHS) -> dict[Hashable, Fraction]:
    """The exact output distribution of ``fn()`` over every path of its draws (module docstring)."""
    out: dict[Hashable, Fraction] = {}
    prefix: list[int] | None = []
    paths = 0
    while prefix is not None:
        paths += 1
        if paths > max_paths:
            raise WmcdpError(f"more than {max_paths} paths of random choices to enumerate")
        path = _Path(prefix)
        with _drawing(path):
            y = fn()
        out[y] = out.get(y, Fraction(0)) + path.weight
        prefix = path.next_prefix()
    return out


__all__ = ["GRID", "GridUniform", "ScaledUniform", "exact_distribution"]
