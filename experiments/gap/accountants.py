"""The numerical accountants on a :class:`gap.pairs.Pair` composed K times: ε(δ), an upper bound each.

Each adapter takes the pair (both orders are accounted, the larger value returned), the number of runs K and δ;
a missing library raises :class:`Missing` with the ``pip install`` line (``pip install -e '.[accountants]'``
installs prv-accountant and autodp, ``'.[accounting]'`` dp-accounting).

* :func:`pld` — dp-accounting 0.6.0 ``from_two_probability_mass_functions`` (the pair's log masses by keyword:
  the *upper* distribution is P, ``pessimistic_estimate=True``, value discretisation ``interval``), then
  ``self_compose(K)`` and ``get_epsilon_for_delta``. Never ``PLDAccountant.compose(RandomizedResponseDpEvent,
  count)``: that path ignores ``count`` in 0.6.0 (``experiments/accounting_defect.py``).
* :func:`rdp` — the pair's exact Rényi divergences ``D_α = ln(Σ P^α Q^(1−α))/(α − 1)`` (both orders, the larger),
  times K, converted by dp-accounting's ``rdp_privacy_accountant.compute_epsilon`` over :data:`ORDERS` (its
  default orders). For RR this equals dp-accounting's own RR RDP.
* :func:`prv` — prv-accountant 0.2.0's ``PRVAccountant`` on a privacy random variable built from the pair (the
  loss ``ln P/Q`` under P, a discrete distribution, with its exact RDP for the domain size), errors
  ``eps_error`` (default 1% of the RDP bound) and ``delta_error`` (δ/1000); the value is its upper estimate.
* :func:`autodp_rdp` — autodp 0.2.3.1's ``Composition`` of a mechanism whose RDP curve is the pair's exact one
  (for RR that is autodp's own ``RDP_randresponse``); :func:`autodp_poisson_rr` is autodp's own route for
  Poisson-subsampled RR: ``AmplificationBySampling(PoissonSampling=True)`` on ``RandresponseMechanism``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .pairs import Pair, _log

#: dp-accounting's default RDP orders
ORDERS = np.concatenate([1 + np.arange(1, 100) / 10.0, np.arange(12, 64), [128, 256, 512, 1024]]).astype(float)


class Missing(RuntimeError):
    """An optional accountant is not installed."""


def _import(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise Missing(f"{module.split('.')[0]} is not installed: pip install -e '.[{extra}]'") from None


def _logs(pair: Pair) -> tuple[list[float], list[float]]:
    return [_log(x) for x in pair.p], [_log(x) for x in pair.q]


def renyi(pair: Pair, alpha: float) -> float:
    """max over both orders of D_α(P‖Q) = ln(Σ_c P_c^α Q_c^(1−α))/(α − 1), in log space (α > 1)."""
    lp, lq = (np.array(v) for v in _logs(pair))

    def one(a: np.ndarray, b: np.ndarray) -> float:
        keep = a > -math.inf
        if np.any(b[keep] == -math.inf):
            return math.inf
        return float(logsumexp(alpha * a[keep] + (1 - alpha) * b[keep]) / (alpha - 1))

    return max(one(lp, lq), one(lq, lp))


def pld(pair: Pair, k: int, delta: float, interval: float = 1e-4) -> float:
    """dp-accounting's pessimistic PLD of the pair (both orders), self-composed K times: ε(δ)."""
    library = _import("dp_accounting.pld.privacy_loss_distribution", "accounting")
    best = 0.0
    for upper, lower in (_logs(pair), _logs(pair)[::-1]):
        dist = library.from_two_probability_mass_functions(
            log_probability_mass_function_lower={i: v for i, v in enumerate(lower) if v > -math.inf},
            log_probability_mass_function_upper={i: v for i, v in enumerate(upper) if v > -math.inf},
            pessimistic_estimate=True,
            value_discretization_interval=interval,
            symmetric=True,
        )
        if k > 1:
            dist = dist.self_compose(k)
        best = max(best, float(dist.get_epsilon_for_delta(delta)))
    return best


def rdp(pair: Pair, k: int, delta: float) -> float:
    """dp-accounting's RDP-to-(ε, δ) conversion of K times the pair's exact Rényi curve."""
    library = _import("dp_accounting.rdp.rdp_privacy_accountant", "accounting")
    curve = [k * renyi(pair, a) for a in ORDERS]
    eps, _ = library.compute_epsilon(list(ORDERS), curve, delta)
    return float(eps)


def _pair_prv(pair: Pair, base: Any) -> Any:
    """A prv-accountant privacy random variable: the loss ln(P/Q) under P of the pair, point masses."""
    lp, lq = _logs(pair)
    support = [(a - b, math.exp(a)) for a, b in zip(lp, lq) if a > -math.inf]
    losses = np.array([s for s, _ in support])
    masses = np.array([m for _, m in support])

    class PairPRV(base):  # type: ignore[misc, valid-type]
        def cdf(self, t: Any) -> Any:
            t = np.asarray(t, dtype=float)
            return np.sum(masses * (losses <= t[..., None]), axis=-1)

        def rdp(self, alpha: float) -> float:
            return renyi(pair, alpha)

    return PairPRV()


def prv(pair: Pair, k: int, delta: float, eps_error: float | None = None, delta_error: float | None = None) -> float:
    """prv-accountant's upper ε(δ) of K runs of the pair (both orders); ``eps_error`` defaults to 1% of the RDP
    bound (:func:`rdp`), ``delta_error`` to δ/1000."""
    library = _import("prv_accountant", "accountants")
    import warnings

    if eps_error is None:
        eps_error = rdp(pair, k, delta) / 100

    best = 0.0
    for one in (pair, pair.reversed()):
        if any(b == 0 and a > 0 for a, b in zip(one.p, one.q)):
            return math.inf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            acc = library.PRVAccountant(
                prvs=[_pair_prv(one, library.PrivacyRandomVariable)],
                max_self_compositions=[k],
                eps_error=eps_error,
                delta_error=delta_error if delta_error is not None else delta / 1000,
            )
            _, _, upper = acc.compute_epsilon(delta=delta, num_self_compositions=[k])
        best = max(best, float(upper))
    return best


def _autodp_compose(mechanism: Any, k: int, delta: float) -> float:
    transformers = _import("autodp.transformer_zoo", "accountants")
    import warnings

    composed = transformers.Composition()([mechanism], [k]) if k > 1 else mechanism
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's optimiser inside autodp's conversion warns on flat pieces
        return float(composed.get_approxDP(delta))


def autodp_rdp(pair: Pair, k: int, delta: float) -> float:
    """autodp's RDP composition (and its RDP-to-DP conversion) of a mechanism with the pair's Rényi curve."""
    core = _import("autodp.autodp_core", "accountants")
    mechanism = core.Mechanism()
    mechanism.name, mechanism.params = pair.name, {}
    curve: Callable[[float], float] = lambda a: renyi(pair, a) if a > 1 else 0.0  # noqa: E731
    mechanism.propagate_updates(curve, "RDP")
    return _autodp_compose(mechanism, k, delta)


def autodp_poisson_rr(lam: float, q: float, k: int, delta: float) -> float:
    """autodp's own route for Poisson-subsampled RR: Zhu–Wang's Poisson amplification of RR's RDP, composed."""
    zoo = _import("autodp.mechanism_zoo", "accountants")
    transformers = _import("autodp.transformer_zoo", "accountants")
    sampled = transformers.AmplificationBySampling(PoissonSampling=True)(zoo.RandresponseMechanism(p=1 - lam), q)
    return _autodp_compose(sampled, k, delta)


__all__ = ["Missing", "ORDERS", "renyi", "pld", "rdp", "prv", "autodp_rdp", "autodp_poisson_rr"]
