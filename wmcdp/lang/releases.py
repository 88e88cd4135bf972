"""Sums of released geometric noise (running and prefix sums), read at the output in increments.

Exact for every privacy notion, with no window.

:func:`wmcdp.lang.unbounded.released_geometric` gives a :class:`ReleasedSum`: the exact value ``center`` plus one
noise ``Z`` of the two-sided geometric law, drawn for this release alone. Sums and differences of released values,
whole numbers and Ints (``+``, ``-``, unary ``-``, ``* k`` for a whole number ``k``) are again released sums
``s = c + sum_k b_k Z_k``: an exact Int ``c`` (kept as its terms, so equal terms cancel without a gate) and whole
coefficients ``b_k``. Nothing else may read them (a comparison, ``clamp``, a draw's center are refused): the noise
is only ever released.

**Increments.** The output is read component by component, in order (:func:`increments`). A component ``s_i``
whose noises were all released before (in components ``j`` read as ``r_j = e_j + Z_j``, ``e_j`` its exact center)
is given as ``t_i = s_i - sum_j b_ij r_j = c_i - sum_j b_ij e_j``, an exact Int; one that adds exactly one new
noise ``Z_k``, with coefficient ``b = +-1``, as ``t_i = b (s_i - sum_j b_ij r_j) = e_k + Z_k`` with
``e_k = b (c_i - sum_j b_ij e_j)``: a release of ``e_k``, its tails merged as
:func:`~wmcdp.lang.unbounded.released_geometric`'s (exact for every notion: its docstring). A component that adds
two new noises, or one with a coefficient other than +-1, is refused in one line.

**Exact for every notion.** The map from the components ``s`` to the increments ``t`` is integer, unitriangular
up to signs (``t_i`` is ``+-s_i`` minus whole multiples of earlier components) and the same on every input, so it
is a bijection of the output space that reads no input: each of the two mechanisms is a post-processing of the
other, and every divergence between two inputs' output laws (pure ε, δ(ε), Rényi, the privacy-loss distribution)
is the same. Every output is in increments, a witness's and those a user gives (explicit sets, inference):
CheckDP's PrefixSum, which releases ``q_1 + Z_1, q_1 + q_2 + Z_1 + Z_2, ...``, is read as the releases
``q_i + Z_i``. Accuracy reads the values themselves and is refused (as for every merged release). A concrete
execution (:meth:`wmcdp.Program.run`) samples the unbounded law and returns the sums as written.

Inside :func:`~wmcdp.lang.values.ite` a released sum of one noise, coefficient +-1, is released on the spot
(``c +- Z`` has the law of ``c + Z``; the noise is then taken: a later output that reads it is refused), beside a
whole number strictly between its ends only (:class:`~wmcdp.lang.values.Released`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import NoReturn

from ..base.errors import WmcdpError
from .values import Deferred, Int, Released, _as_int, current, discrete

#: an exact part: its terms by identity, each with its whole coefficient
Terms = dict[int, tuple[Int, int]]


class Noise:
    """One two-sided geometric noise ``Z`` of ratio ``ratio``, drawn for one release where the program releases it
    (so its random bits sit in the program's order): ``value`` takes ``-reach..reach`` with their own
    probabilities and ``+-(reach + 1)`` for the tails beyond (:func:`merged_release`); ``taken`` once :func:`ite`
    released it on its own."""

    __slots__ = ("ratio", "reach", "value", "taken")

    def __init__(self, ratio: Fraction, reach: int) -> None:
        self.ratio, self.reach, self.value = ratio, reach, _drawn(ratio, reach)
        self.taken = False


def _drawn(a: Fraction, reach: int) -> Int:
    """``Z`` with ``P(Z = z) = (1 - a)/(1 + a) a^|z|`` for ``|z| <= reach`` and ``P(Z >= reach + 1) = a^(reach + 1)
    / (1 + a)`` at ``reach + 1`` (likewise below)."""
    weights = {z: (1 - a) / (1 + a) * a ** abs(z) for z in range(-reach, reach + 1)}
    weights[-reach - 1] = weights[reach + 1] = a ** (reach + 1) / (1 + a)
    return discrete(weights)


def _added(a: Terms, b: Terms, k: int) -> Terms:
    """``a + k b``, zero coefficients dropped."""
    out = dict(a)
    for key, (term, c) in b.items():
        total = out.get(key, (term, 0))[1] + k * c
        if total:
            out[key] = (term, total)
        else:
            out.pop(key, None)
    return out


def _exact(terms: Terms, const: int) -> Int:
    """The Int ``sum c t + const``."""
    parts = [t if c == 1 else -t if c == -1 else t * c for t, c in terms.values()]
    total: Int = Int.const(const) if not parts else sum(parts[1:], parts[0])
    return total + const if parts and const else total


class ReleasedSum(Deferred):
    """``c + sum_k b_k Z_k`` (the module docstring): ``terms`` and ``const`` the exact part, ``noise`` the
    coefficient of each noise."""

    __slots__ = ("terms", "const", "noise")

    def __init__(self, terms: Terms, const: int, noise: dict[Noise, int]) -> None:
        self.terms, self.const, self.noise = terms, const, noise

    @classmethod
    def drawn(cls, center: Int | int, ratio: Fraction) -> ReleasedSum:
        """``center + Z``, ``Z`` a new noise."""
        if isinstance(center, Int):
            return cls({id(center): (center, 1)}, 0, {Noise(ratio, center.hi - center.lo): 1})
        return cls({}, int(center), {Noise(ratio, 0): 1})

    def _plus(self, other: object, k: int) -> ReleasedSum:
        """``self + k other``."""
        if isinstance(other, ReleasedSum):
            noise = dict(self.noise)
            for z, b in other.noise.items():
                noise[z] = noise.get(z, 0) + k * b
            kept = {z: b for z, b in noise.items() if b}
            return ReleasedSum(_added(self.terms, other.terms, k), self.const + k * other.const, kept)
        if isinstance(other, numbers.Integral):  # (a bool too)
            return ReleasedSum(self.terms, self.const + k * int(other), self.noise)
        o = _as_int(other)
        if o is None:
            return NotImplemented  # type: ignore[no-any-return]  # Python tries the other side
        return ReleasedSum(_added(self.terms, {id(o): (o, 1)}, k), self.const, self.noise)

    def _scaled(self, k: int) -> ReleasedSum:
        return ReleasedSum(_added({}, self.terms, k), k * self.const, {z: k * b for z, b in self.noise.items() if k})

    def __add__(self, other: object) -> ReleasedSum:
        return self._plus(other, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> ReleasedSum:
        return self._plus(other, -1)

    def __rsub__(self, other: object) -> ReleasedSum:
        return self._scaled(-1)._plus(other, 1)

    def __neg__(self) -> ReleasedSum:
        return self._scaled(-1)

    def __mul__(self, other: object) -> ReleasedSum:
        if isinstance(other, numbers.Integral):
            return self._scaled(int(other))
        return self._refused()

    __rmul__ = __mul__

    def _refused(self, *args: object) -> NoReturn:
        raise WmcdpError(
            "a released value (a sum of released geometric noise) is an output only: it may be added to, "
            "subtracted from and multiplied by a whole number, and released; compute with the value before its release"
        )

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __abs__ = __bool__ = clamp = _refused
    __hash__ = None  # type: ignore[assignment]

    def materialized(self) -> Int:
        """This sum formed now, for :func:`ite`: its exact value when it holds no noise; with one noise ``Z``,
        coefficient ``b = +-1``, the release of ``c + b Z``, which has the law of ``c + Z`` (the law is symmetric,
        and ``Z`` is taken from now on: nothing else reads it)."""
        if not self.noise:
            return _exact(self.terms, self.const)
        if len(self.noise) != 1 or not all(b in (1, -1) and not z.taken for z, b in self.noise.items()):
            raise WmcdpError(
                "ite() chooses a released value made of one noise, released once: choose between the exact values "
                "and release the choice"
            )
        ((z, _),) = self.noise.items()
        z.taken = True
        return merged_release(_exact(self.terms, self.const), z)

    def _increment(self, known: dict[Noise, tuple[Terms, int]]) -> Int:
        """This output component in increments, given the noises ``known`` from earlier components (each with
        its exact center); a new noise joins ``known`` (the module docstring)."""
        terms, const, new = self.terms, self.const, []
        for z, b in self.noise.items():
            if z.taken:
                raise WmcdpError(
                    "a released value chosen by ite() is output again inside a sum: release the sum's noise once"
                )
            if z in known:
                center, shift = known[z]
                terms, const = _added(terms, center, -b), const - b * shift
            else:
                new.append((z, b))
        if not new:
            return _exact(terms, const)
        if len(new) > 1 or new[0][1] not in (1, -1):
            raise WmcdpError(
                "an output component adds "
                + ("two noises not released before" if len(new) > 1 else f"{new[0][1]} times a new noise")
                + ": each output must add at most one new noise, once (release it on its own first)"
            )
        ((z, b),) = new
        terms, const = _added({}, terms, b), b * const
        known[z] = (terms, const)
        return merged_release(_exact(terms, const), z)


def merged_release(center: Int, noise: Noise) -> Released:
    """``center + Z`` with its tails merged (:func:`~wmcdp.lang.unbounded.released_geometric`): the values of
    ``center``'s range ``lo..hi`` with their own probabilities, ``lo - 1`` and ``hi + 1`` for the tails.

    It is ``min(max(center + Z, lo - 1), hi + 1)``, a function of the published release, with ``Z`` the noise's
    drawn value: exact when ``hi - lo <= reach``, since a tail value ``Z <= -reach - 1`` gives ``center + Z <= hi -
    reach - 1 <= lo - 1`` (likewise above) and every ``center + Z`` in ``lo..hi`` has ``|Z| <= hi - lo``. A wider
    center (a sum read in increments can be) takes a noise drawn here with the reach it needs (the first draw
    unread), placed in the order of first use right after the last variable the center reads (:func:`_placed`)."""
    lo, hi = center.lo, center.hi
    z = noise.value if hi - lo <= noise.reach else _placed(center, lambda: _drawn(noise.ratio, hi - lo))
    current().merged.append("released_geometric")
    total = center._combine(z, lambda v, w: min(max(v + w, lo - 1), hi + 1))
    return Released(total.guards, (lo - 1, hi + 1))


def _placed(center: Int, draw: Callable[[], Int]) -> Int:
    """``draw()``, its new variables placed right after the last one ``center`` reads
    (:attr:`wmcdp.lang.circuit.Circuit.placed`): the diagram's order is then the one the program would have had
    drawing the noise there, which keeps the per-entry blocks of the chain plan."""
    c = current()
    first = c.num_vars
    anchor = max(c.last_var(list(center.guards.values())), key=c.rank)
    value = draw()
    c.placed.update((v, anchor) for v in range(first, c.num_vars))
    return value


def increments(result: object) -> object:
    """A program's result with every :class:`ReleasedSum` in it read in increments, in output order."""
    known: dict[Noise, tuple[Terms, int]] = {}

    def read(item: object) -> object:
        if isinstance(item, ReleasedSum):
            return item._increment(known)
        if not isinstance(item, (tuple, list)):
            return item
        values = [read(v) for v in item]
        if all(v is w for v, w in zip(values, item)):
            return item  # (nothing released: the sequence as the program made it, a namedtuple too)
        return item._make(values) if hasattr(item, "_make") else type(item)(values)

    return read(result)


__all__ = ["Noise", "ReleasedSum", "increments", "merged_release"]
