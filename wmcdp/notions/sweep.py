"""Sweeps: a notion's tight bound of programs over a range of one of their parameters.

For each program and each value ``v`` of the swept parameter, the program is built with its fixed parameters
plus ``parameter = v`` and the notion's record (:class:`wmcdp.notions.notion.Notion`) runs one point:
Algorithm 2 (tight epsilon, ratio and witness triple), Algorithm 3 (tight 1 - beta at radius alpha and the worst
input), approximate DP (δ(ε) or ε(δ) and the witness pair) or Rényi DP (``D_α`` per order and its pair), on the
planned, exhaustive or symmetry sets. One row per (program, value), and per order for Rényi. :func:`sweep` sweeps
a notion by name; the privacy profile's rows (:class:`ProfileRow`, one per ε) share the same tables.

>>> rows = sweep_privacy(["randomized_response"], {"n": 3}, "lam", parse_over("lam=1/4,1/2")[1])
>>> [(r.value, r.ratio) for r in rows]
[(Fraction(1, 4), Fraction(3, 1)), (Fraction(1, 2), Fraction(1, 1))]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import Number, format_number, is_exact, parse_number
from ..lang.registry import build_program, find_program, parameters
from .catalogue import notion
from .notion import Notion
from .rows import (
    AccuracyRow,
    ApproximateRow,
    PrivacyRow,
    ProfileRow,
    RenyiRow,
    Row,
    records,
    to_dataframe,
)

#: most points one sweep may have
MAX_POINTS = 100_000
#: (done, total, what is under way) after each point
ProgressCallback = Callable[[int, int, str], None]


# -- the swept values --------------------------------------------------------------------


def _number(text: str, item: str, exact: bool) -> Number:
    try:
        value = parse_number(text, exact=exact)
    except WmcdpError as exc:
        if "is not a number" in str(exc):
            raise WmcdpError(f"--over {item!r}: {text.strip()!r} is not a number") from None
        raise WmcdpError(f"--over {item!r}: {exc}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise WmcdpError(f"--over {item!r}: {text.strip()!r} is not a finite number")
    return value


def _range(start: Number, stop: Number, step: Number, item: str) -> list[Number]:
    """``start, start + step, ...`` up to ``stop`` (included when it lands on it), exact when all three are."""
    if step == 0:
        raise WmcdpError(f"--over {item!r}: the step is zero")
    span = (Fraction(stop) - Fraction(start)) / Fraction(step)
    if span < 0:
        raise WmcdpError(f"--over {item!r} is an empty range (stop is on the wrong side of start for that step)")
    exact = all(is_exact(v) for v in (start, stop, step))
    count = math.floor(span if exact else span + Fraction(1, 10**9)) + 1
    if count > MAX_POINTS:
        raise WmcdpError(f"--over {item!r} has {count} points, more than {MAX_POINTS}")
    if exact:
        whole = all(isinstance(v, int) for v in (start, stop, step))
        return [start + k * step if whole else Fraction(start) + k * Fraction(step) for k in range(count)]
    return [float(f"{start + k * step:.12g}") for k in range(count)]


def parse_over(text: str, *, exact: bool = False) -> tuple[str, list[Number]]:
    """``"lam=0.05:0.5:0.05"`` (stop included when it lands on it) or ``"lam=0.1,0.2"`` -> ``("lam", values)``.

    ``start:stop`` steps by 1. Fractions such as ``1/20`` stay exact, and so do decimals with
    ``exact=True``.
    """
    key, sep, spec = text.partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec:
        raise WmcdpError(f"malformed --over {text!r}: expected key=start:stop[:step] or key=v1,v2,...")
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
            raise WmcdpError(f"malformed --over {text!r}: expected key=start:stop[:step]")
        start, stop = (_number(p, text, exact) for p in parts[:2])
        step = _number(parts[2], text, exact) if len(parts) == 3 else 1
        return key, _range(start, stop, step, text)
    items = spec.split(",")
    if not all(item.strip() for item in items):
        raise WmcdpError(f"malformed --over {text!r}: an empty value in the list")
    return key, [_number(item, text, exact) for item in items]


# -- running -----------------------------------------------------------------------------


def _variant(spec: str, fixed: Mapping[str, Number]) -> str:
    name = find_program(spec)[0]
    return f"{name}({', '.join(f'{k}={format_number(v)}' for k, v in fixed.items())})"


def _check(specs: Sequence[str], fixed: Mapping[str, Number], parameter: str, values: Sequence[Number]) -> None:
    if not specs:
        raise WmcdpError("a sweep needs at least one program")
    if not values:
        raise WmcdpError(f"the sweep over {parameter} has no values")
    if parameter in fixed:
        raise WmcdpError(f"{parameter} is both fixed (-p) and swept (--over)")
    for spec in specs:
        name, factory = find_program(spec)
        names = [p.name for p in parameters(factory)]
        if parameter not in names:
            raise WmcdpError(
                f"program {name} has no parameter {parameter!r} to sweep; its parameters are {', '.join(names)}"
            )


def _options(kind: Notion, options: Mapping[str, Any]) -> None:
    """The options belong to the notion's sweep; ``neighbours`` go with the sets that take a relation."""
    own = {"sets", "backend", "exact"} | {o.name for o in kind.options}
    for name in options:
        if name not in own:
            raise WmcdpError(f"{kind.name} sweeps take no option {name!r}")
    if options.get("sets", "plan") not in ("plan", "exhaustive", "auto") and options.get("neighbours"):
        raise WmcdpError("neighbours apply to the planned, exhaustive and automatic sets only")


def sweep(
    name: str,
    programs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    *,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> list[Any]:
    """The notion ``name``'s rows (its record's ``point``) of each program for each value of ``parameter``.

    ``programs`` are built-in names or ``file.py:function``; ``fixed`` holds the other parameters; ``options``
    are ``sets``, ``backend``, ``exact`` and the notion's own (:attr:`Notion.options`).
    """
    kind = notion(name)
    if kind.point is None:
        raise WmcdpError(f"the notion {name!r} has no sweep")
    _options(kind, options)
    _check(programs, fixed, parameter, values)
    options = {"sets": "plan", "backend": "bdd", "exact": None, **{o.name: o.default for o in kind.options}, **options}
    total, done, rows = len(programs) * len(values), 0, list[Any]()
    for spec in programs:
        variant = _variant(spec, fixed)
        for value in values:
            if progress:
                progress(done, total, f"{variant} {parameter}={format_number(value)}")
            program = build_program(spec, {**fixed, parameter: value})
            out = kind.point(program, variant, parameter, value, **options)
            rows.extend(out if isinstance(out, list) else [out])
            done += 1
    if progress:
        progress(total, total, "")
    return rows


def _swept(name: str, given: dict[str, Any]) -> list[Any]:
    """:func:`sweep` of the notion ``name`` called with the arguments of one of the functions below (their
    ``locals()``): the programs, the fixed parameters, the swept one and its values, ``progress``, and the rest
    as the notion's options."""
    options = dict(given)
    head = [options.pop(key) for key in ("programs", "fixed", "parameter", "values")]
    return sweep(name, *head, progress=options.pop("progress"), **options)


def sweep_privacy(
    programs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    *,
    sets: str = "plan",
    neighbours: str | None = None,
    backend: str = "bdd",
    exact: Any = None,
    progress: ProgressCallback | None = None,
) -> list[PrivacyRow]:
    """Tight epsilon (Algorithm 2) of each program for each value of ``parameter``.

    ``programs`` are built-in names or ``file.py:function``; ``fixed`` holds the other
    parameters; ``sets`` is ``"plan"`` (the default: the planner), ``"exhaustive"``, ``"auto"`` (these three
    with ``neighbours``, default the program's relation), ``"symmetry"`` (the program's proved sets) or
    ``file.py:function`` (your own, as for ``wmcdp privacy --sets``).
    """
    return _swept("privacy", locals())


def sweep_accuracy(
    programs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    alpha: Number,
    *,
    sets: str = "plan",
    backend: str = "bdd",
    exact: Any = None,
    progress: ProgressCallback | None = None,
) -> list[AccuracyRow]:
    """Tight ``1 - beta`` at radius ``alpha`` (Algorithm 3) of each program for each value of ``parameter``."""
    return _swept("accuracy", locals())


def sweep_approximate(
    programs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    *,
    epsilon: Any = None,
    delta: Any = None,
    compose: int = 1,
    sets: str = "plan",
    neighbours: str | None = None,
    backend: str = "bdd",
    exact: Any = None,
    progress: ProgressCallback | None = None,
) -> list[ApproximateRow]:
    """Tight δ(ε) (given ``epsilon``) or ε(δ) (given ``delta``) of each program for each value of ``parameter``.

    ``sets``: ``"exhaustive"``, ``"symmetry"`` (the program's proved pair sets) or ``file.py:function``.
    """
    if (epsilon is None) == (delta is None):
        raise WmcdpError("give exactly one of epsilon (for delta(epsilon)) and delta (for epsilon(delta))")
    return _swept("approximate", locals())


def sweep_renyi(
    programs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    orders: Any,
    *,
    sets: str = "plan",
    neighbours: str | None = None,
    backend: str = "bdd",
    exact: Any = None,
    progress: ProgressCallback | None = None,
) -> list[RenyiRow]:
    """Tight ``D_α`` of each program for each value of ``parameter``, one row per order."""
    return _swept("renyi", locals())


__all__ = [
    "PrivacyRow",
    "AccuracyRow",
    "ApproximateRow",
    "RenyiRow",
    "ProfileRow",
    "Row",
    "parse_over",
    "sweep",
    "sweep_privacy",
    "sweep_accuracy",
    "sweep_approximate",
    "sweep_renyi",
    "records",
    "to_dataframe",
]
