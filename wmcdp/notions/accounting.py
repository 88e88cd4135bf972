"""Composition of many runs through Google's dp-accounting PLD (optional extra ``[accounting]``).

For each ordered pair ``(x, x')`` the grouped privacy loss (:class:`wmcdp.notions.loss.Groups`) is
handed to ``dp_accounting.pld.privacy_loss_distribution.from_two_probability_mass_functions``
with ``P(.|x)`` as the *upper* and ``P(.|x')`` as the *lower* distribution (passed by
keyword: the library's first positional argument is the lower one), ``symmetric=True``
(the reverse order is a pair of its own in wmcdp's pair sets), and
``pessimistic_estimate=True``; then ``self_compose(K)`` and
``get_delta_for_epsilon`` / ``get_epsilon_for_delta``. The maximum over the pairs is the
bound, with its first pair.

Pessimistic rounding moves every loss up to the grid ``h·⌈L/h⌉`` (``h`` = ``interval``), so
with K runs the results are upper bounds within the discretisation:
``δ(ε) ≤ δ̃(ε) ≤ δ(ε − K h)`` and ``ε(δ) ≤ ε̃(δ) ≤ ε(δ) + K h`` (plus dp-accounting's
tail truncation of 1e-15 per composition and float rounding; do not read δ̃ below about
1e-12). One limit of dp-accounting 0.6.0 breaks the ε bracket, never the upper bound: its
``get_epsilon_for_delta`` weighs losses by ``exp(-loss)``, which underflows to 0 above a loss of
about 745, so past ε(δ) ≈ 745 it returns a discretised loss quantile above ε(δ) + K h
(``experiments/accounting_defect.py``, K = 1000). wmcdp never goes through ``PLDAccountant`` with a
``RandomizedResponseDpEvent``:
in dp-accounting 0.6.0 ``PLDAccountant.compose(event, count)`` ignores ``count`` for that
event (``experiments/accounting_defect.py`` shows it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..base.numbers import ln_ratio
from ..lang.shape import format_value
from ..plan.pairs import Best, PairSource
from .loss import Groups

#: the dp-accounting release this module is written against
VERSION = "0.6.0"


def _library() -> Any:
    try:
        from dp_accounting.pld import privacy_loss_distribution  # deferred: dp-accounting is an optional extra
    except ImportError:
        raise WmcdpError(
            "the dp-accounting accountant needs the dp-accounting package: pip install 'wmcdp[accounting]'"
        ) from None
    return privacy_loss_distribution


def _logs(groups: Groups) -> tuple[dict[int, float], dict[int, float]]:
    """The two distributions as ``{group: natural log of its mass}`` (exact masses correctly rounded)."""
    if groups.arith.exact:
        d = groups.arith.denominator

        def log(m: int) -> float:
            return ln_ratio(m, d) if m else -math.inf

        return ({i: log(a) for i, a in enumerate(groups.a)}, {i: log(b) for i, b in enumerate(groups.b)})
    return ({i: float(a) for i, a in enumerate(groups.a)}, {i: float(b) for i, b in enumerate(groups.b)})


def pld(groups: Groups, compose: int = 1, interval: float = 1e-4) -> Any:
    """The pessimistic dp-accounting PLD of one ordered pair's groups, self-composed ``compose`` times."""
    library = _library()
    upper, lower = _logs(groups)
    result = library.from_two_probability_mass_functions(
        log_probability_mass_function_lower=lower,
        log_probability_mass_function_upper=upper,
        pessimistic_estimate=True,
        value_discretization_interval=interval,
        symmetric=True,
    )
    return result.self_compose(compose) if compose > 1 else result


def _plds(source: PairSource, compose: int, interval: float) -> Iterator[tuple[int, Any]]:
    """Each pair's dp-accounting PLD, after checking what dp-accounting 0.6.0 cannot take: a loss with mass
    at +infinity (it fails inside its PMF code), and a discretisation interval not below the largest loss."""
    _library()
    if not interval > 0 or not math.isfinite(interval):
        raise WmcdpError(f"the discretisation interval must be a finite number > 0, got {interval}")
    pairs = [
        (int(key), Groups.of(source.arith, a, b)) for keys, A, B in source.all_rows() for key, a, b in zip(keys, A, B)
    ]
    largest = 0.0
    for key, groups in pairs:
        infinite = [i for i, r in enumerate(groups.ratios) if _infinite(groups, i)]
        if infinite:
            w = source.witness(key)
            raise WmcdpError(
                f"dp-accounting {VERSION} cannot compose a privacy loss with mass at +infinity (the pair "
                f"x={format_value(w.x)}, x'={format_value(w.x_prime)} has outputs that x' never produces); "
                "use the exact accountant (--accountant exact)"
            )
        losses = [abs(_loss(groups, i)) for i in range(len(groups.ratios))]
        largest = max([largest, *losses])
    if largest > 0 and interval >= largest:
        raise WmcdpError(
            f"the discretisation interval {interval:g} is not below the largest privacy loss "
            f"({largest:.6g}); give a smaller --interval"
        )
    for key, groups in pairs:
        try:
            yield key, pld(groups, compose, interval)
        except WmcdpError:
            raise
        except Exception as exc:  # the library's own failures, as one line
            raise WmcdpError(
                f"dp-accounting {VERSION} failed on this privacy loss ({type(exc).__name__}: {exc}); "
                "use the exact accountant (--accountant exact)"
            ) from None


def _infinite(groups: Groups, i: int) -> bool:
    """Group ``i`` is the loss +infinity: mass under x and none under x'."""
    if groups.arith.exact:
        return groups.ratios[i] is None
    return bool(groups.b[i] == -math.inf)


def _loss(groups: Groups, i: int) -> float:
    r = groups.ratios[i]
    return ln_ratio(r.numerator, r.denominator) if groups.arith.exact else float(r)


def composed_bound(
    source: PairSource, compose: int, *, epsilon: Any = None, delta: float | None = None, interval: float = 1e-4
) -> tuple[float, int]:
    """dp-accounting's (pessimistic) δ(ε) or ε(δ) of ``compose`` runs, maximised over the pairs: ``(value, key)``."""
    best = Best()
    for key, p in _plds(source, compose, interval):
        value = (
            float(p.get_delta_for_epsilon(epsilon.epsilon))
            if epsilon is not None
            else float(p.get_epsilon_for_delta(delta))
        )
        best.update(_array(value), _array(key))
    return float(best.value), int(best.key)  # type: ignore[arg-type]


def composed_profile(
    source: PairSource, compose: int, thresholds: Sequence[Any], interval: float = 1e-4
) -> list[tuple[float, int]]:
    """dp-accounting's δ(ε) of ``compose`` runs at each threshold, maximised over the pairs."""
    best = [Best() for _ in thresholds]
    for key, p in _plds(source, compose, interval):
        values = p.get_delta_for_epsilon([th.epsilon for th in thresholds])
        for b, value in zip(best, values):
            b.update(_array(float(value)), _array(key))
    return [(float(b.value), int(b.key)) for b in best]  # type: ignore[arg-type]


def _array(value: Any) -> Any:

    return np.array([value])


__all__ = ["pld", "composed_bound", "composed_profile", "VERSION"]
