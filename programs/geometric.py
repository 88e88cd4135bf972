"""The truncated geometric mechanism and geometric above threshold (paper Alg. 5, Appendix A)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number, as_number, format_number, positive_int
from wmcdp.lang import Int, IntVector, Program, ite
from wmcdp.lang import truncated_geometric as tgeom
from wmcdp.lang.geometric import geometric_ratio

from .registry import program


def noise_ratio(alpha: object, scale: object) -> tuple[Number, dict[str, Number]]:
    """The ratio ``a`` from ``alpha`` or ``scale``, and the parameter as given (for the label)."""
    a = geometric_ratio(alpha, scale)
    return a, ({"alpha": a} if alpha is not None else {"scale": as_number(scale, "scale")})


@program(origin="Ghosh, Roughgarden, Sundararajan 2009")
def truncated_geometric(m: int, alpha: object = None, scale: object = None) -> Program:
    """``TGeom_a(c)`` on ``{0..m}`` for one count ``c`` in ``{0..m}``; tight eps = -ln(alpha).

    ``P(0) = a^c/(1+a)``, ``P(m) = a^(m-c)/(1+a)``, ``P(z) = (1-a)/(1+a) a^|z-c|`` otherwise,
    with ``a = alpha`` or ``a = e^(-1/scale)``. Neighbours: ``c`` moves by one.
    """
    m = positive_int(m, "m")
    a, noise = noise_ratio(alpha, scale)
    return Program(
        "truncated_geometric",
        IntVector(1, 0, m),
        lambda x: tgeom(x[0], 0, m, alpha=a),
        params={"m": m, **noise},
        neighbours="one-entry",
        description="truncated geometric mechanism on {0..m} applied to one count",
    )


@program(origin="the wmcdp paper, Alg. 5")
def geometric_above_threshold(n: int, k: int, t: int, scale: object = None, alpha: object = None) -> Program:
    """Geometric above threshold: index of the first ``TGeom(x_i) > TGeom(t)`` on ``{0..k}``, else ``n``.

    Inputs ``xs`` in ``{0..k}^n``; noisy threshold ``T^ = TGeom_a(t)``; for ``i = 0..n-1``,
    ``v_i = TGeom_a(x_i)``; output the first ``i`` with ``v_i > T^`` (strict), else ``n``;
    ``a = e^(-1/scale)`` or ``a = alpha``. Neighbours: one entry moves by one.
    """
    n, k = positive_int(n, "n"), positive_int(k, "k")
    t_value = as_number(t, "t")
    if not isinstance(t_value, int) or not 0 <= t_value <= k:
        raise WmcdpError(f"t must be an integer in 0..k = 0..{k}, got {format_number(t_value)}")
    a, noise = noise_ratio(alpha, scale)

    def body(x: Sequence[Any]) -> Int | int:
        threshold = tgeom(t_value, 0, k, alpha=a)
        above = [tgeom(x[i], 0, k, alpha=a) > threshold for i in range(n)]
        first: Int | int = n
        for i in reversed(range(n)):
            first = ite(above[i], i, first)
        return first

    return Program(
        "geometric_above_threshold",
        IntVector(n, 0, k),
        body,
        params={"n": n, "k": k, "t": t_value, **noise},
        neighbours="one-entry",
        description="index of the first noisy entry above the noisy threshold, else n",
    )


__all__ = ["truncated_geometric", "geometric_above_threshold"]
