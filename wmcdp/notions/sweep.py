"""Sweeps: the tight privacy, accuracy, (ε, δ) or Rényi bound of programs over a range of one parameter.

For each program and each value ``v`` of the swept parameter, the program is built with
its fixed parameters plus ``parameter = v``, compiled, and Algorithm 2 (tight epsilon,
ratio and witness triple), Algorithm 3 (tight 1 - beta at radius alpha and the worst
input), approximate DP (δ(ε) or ε(δ) and the witness pair) or Rényi DP (``D_α`` per order
and its pair) is run on the exhaustive or the symmetry sets. One row per (program, value),
and per order for Rényi. The privacy profile's rows (:class:`ProfileRow`, one per ε) share
the same tables.

>>> rows = sweep_privacy(["randomized_response"], {"n": 3}, "lam", parse_over("lam=1/4,1/2")[1])
>>> [(r.value, r.ratio) for r in rows]
[(Fraction(1, 4), Fraction(3, 1)), (Fraction(1, 2), Fraction(1, 1))]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from ..base.errors import WmcdpError
from ..base.numbers import Number, exact_text, format_number, is_exact, parse_number
from ..count.probabilities import as_compiled
from ..lang.program import Program, Value
from ..lang.registry import build_program, find_program, find_relation, parameters
from ..lang.shape import format_value
from ..plan.given_sets import find_sets
from ..plan.pairs import PairWitness
from .accuracy import synthesize_accuracy
from .approximate import synthesize_approximate
from .privacy import PrivacyWitness, synthesize_privacy
from .renyi import synthesize_renyi

#: most points one sweep may have
MAX_POINTS = 100_000
#: (done, total, what is under way) after each point
ProgressCallback = Callable[[int, int, str], None]


@dataclass(frozen=True)
class PrivacyRow:
    """Algorithm 2 at one parameter value: ``epsilon = ln(ratio)`` and the witness triple."""

    program: str  # the program with its fixed parameters, e.g. "randomized_response(n=6)"
    parameter: str
    value: Number
    epsilon: float
    ratio: float | Fraction
    witness: PrivacyWitness
    p_x: float | Fraction
    p_x_prime: float | Fraction
    exact: bool
    diagram_size: int
    seconds: float  # compilation plus synthesis

    kind = "privacy"

    def record(self) -> dict[str, Any]:
        """Flat columns: floats, plus ``*_exact`` fraction strings for exact runs."""
        w = self.witness
        out = _head(self)
        out.update(
            epsilon=float(self.epsilon),
            ratio=float(self.ratio),
            witness_x=format_value(w.x),
            witness_x_prime=format_value(w.x_prime),
            witness_y=format_value(w.y),
            p_y_given_x=float(self.p_x),
            p_y_given_x_prime=float(self.p_x_prime),
            diagram_size=self.diagram_size,
            seconds=self.seconds,
        )
        if self.exact:
            out.update(
                ratio_exact=exact_text(self.ratio),
                p_y_given_x_exact=exact_text(self.p_x),
                p_y_given_x_prime_exact=exact_text(self.p_x_prime),
            )
        return out


@dataclass(frozen=True)
class AccuracyRow:
    """Algorithm 3 at one parameter value: tight ``1 - beta`` at radius ``alpha`` and the worst input."""

    program: str
    parameter: str
    value: Number
    alpha: Number
    one_minus_beta: float | Fraction
    beta: float | Fraction
    witness: Value
    exact: bool
    diagram_size: int
    seconds: float

    kind = "accuracy"

    def record(self) -> dict[str, Any]:
        """Flat columns: floats, plus ``*_exact`` fraction strings for exact runs."""
        out = _head(self)
        out.update(
            alpha=_plain(self.alpha),
            one_minus_beta=float(self.one_minus_beta),
            beta=float(self.beta),
            witness_x=format_value(self.witness),
            diagram_size=self.diagram_size,
            seconds=self.seconds,
        )
        if self.exact:
            out.update(one_minus_beta_exact=exact_text(self.one_minus_beta), beta_exact=exact_text(self.beta))
        return out


@dataclass(frozen=True)
class ApproximateRow:
    """Approximate DP at one parameter value: δ(ε) or ε(δ) of ``compose`` runs, and the witness pair."""

    program: str
    parameter: str
    value: Number
    epsilon: float
    delta: float | Fraction
    witness: PairWitness
    given: str  # "epsilon" or "delta": which one was given
    compose: int
    exact: bool
    diagram_size: int | None
    seconds: float

    kind = "approximate"

    def record(self) -> dict[str, Any]:
        out = _head(self)
        out.update(
            epsilon=float(self.epsilon),
            delta=float(self.delta),
            given=self.given,
            witness_x=format_value(self.witness.x),
            witness_x_prime=format_value(self.witness.x_prime),
            compose=self.compose,
            diagram_size=self.diagram_size,
            seconds=self.seconds,
        )
        if self.exact and isinstance(self.delta, Fraction):
            out.update(delta_exact=exact_text(self.delta))
        return out


@dataclass(frozen=True)
class RenyiRow:
    """The Rényi divergence ``D_α`` at one parameter value and one order, and the witness pair."""

    program: str
    parameter: str
    value: Number
    order: float
    epsilon: float
    witness: PairWitness
    exact: bool
    diagram_size: int | None
    seconds: float

    kind = "renyi"

    def record(self) -> dict[str, Any]:
        out = _head(self)
        out.update(
            order=self.order,
            epsilon=float(self.epsilon),
            witness_x=format_value(self.witness.x),
            witness_x_prime=format_value(self.witness.x_prime),
            diagram_size=self.diagram_size,
            seconds=self.seconds,
        )
        return out


@dataclass(frozen=True)
class ProfileRow:
    """One point of a privacy profile: δ(``epsilon``) and the first pair that attains it."""

    program: str
    epsilon: float
    epsilon_text: str  # as given: "0.5" or "ln(3/2)"
    delta: float | Fraction
    witness: PairWitness
    compose: int = 1

    kind = "profile"
    parameter = "epsilon"

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "witness_x": format_value(self.witness.x),
            "witness_x_prime": format_value(self.witness.x_prime),
        }
        if isinstance(self.delta, Fraction):
            out.update(epsilon_exact=self.epsilon_text, delta_exact=exact_text(self.delta))
        return out


Row = PrivacyRow | AccuracyRow | ApproximateRow | RenyiRow | ProfileRow
#: the rows of a swept parameter (a profile's rows sweep epsilon itself)
SweptRow = PrivacyRow | AccuracyRow | ApproximateRow | RenyiRow
R = TypeVar("R", PrivacyRow, AccuracyRow, ApproximateRow, RenyiRow)


def _plain(value: Any) -> Any:
    """Fractions become floats (whole fractions ints); other values are kept."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def _head(row: SweptRow) -> dict[str, Any]:
    out: dict[str, Any] = {"program": row.program, "parameter": row.parameter, "value": _plain(row.value)}
    if isinstance(row.value, Fraction):
        out["value_exact"] = format_number(row.value)
    return out


def records(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The rows as flat dicts with the same keys in every row (missing ``*_exact`` values are None)."""
    flat = [row.record() for row in rows]
    keys: dict[str, None] = {}
    for record in flat:
        keys.update(dict.fromkeys(record))
    return [{k: record.get(k) for k in keys} for record in flat]


def to_dataframe(rows: Sequence[Row]):
    """The rows as a :class:`pandas.DataFrame` (pandas is optional)."""
    try:
        import pandas as pd
    except ImportError:
        raise WmcdpError("to_dataframe needs pandas: pip install pandas") from None
    return pd.DataFrame(records(rows))


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


def _privacy_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> PrivacyRow:
    compiled = as_compiled(program, backend, exact)
    C, I = find_sets("privacy", sets, program)
    r = synthesize_privacy(compiled, C, I, neighbours=find_relation(neighbours) if neighbours else None, exact=exact)
    return PrivacyRow(
        variant,
        parameter,
        value,
        r.epsilon,
        r.ratio,
        r.witness,
        r.p_x,
        r.p_x_prime,
        r.exact,
        r.diagram_size,
        compiled.compile_seconds + r.seconds,
    )


def _accuracy_point(
    program: Program, variant: str, parameter: str, value: Number, *, alpha: Number, sets: str, backend: str, exact: Any
) -> AccuracyRow:
    compiled = as_compiled(program, backend, exact)
    A, I = find_sets("accuracy", sets, program, alpha)
    r = synthesize_accuracy(compiled, A, None, alpha, I, exact=exact)
    return AccuracyRow(
        variant,
        parameter,
        value,
        r.alpha,
        r.one_minus_beta,
        r.beta,
        r.witness,
        r.exact,
        r.diagram_size,
        compiled.compile_seconds + r.seconds,
    )


def _approximate_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    epsilon: Any,
    delta: Any,
    compose: int,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> ApproximateRow:
    P, I = find_sets("pairs", sets, program)
    r = synthesize_approximate(
        program,
        P,
        I,
        epsilon=epsilon,
        delta=delta,
        compose=compose,
        neighbours=find_relation(neighbours) if neighbours else None,
        backend=backend,
        exact=exact,
    )
    return ApproximateRow(
        variant,
        parameter,
        value,
        r.epsilon,
        r.delta,
        r.witness,
        "delta" if delta is not None else "epsilon",
        r.compose,
        r.exact,
        r.diagram_size,
        r.seconds,
    )


def _renyi_point(
    program: Program,
    variant: str,
    parameter: str,
    value: Number,
    *,
    orders: Any,
    sets: str,
    neighbours: str | None,
    backend: str,
    exact: Any,
) -> list[RenyiRow]:
    P, I = find_sets("pairs", sets, program)
    r = synthesize_renyi(
        program,
        orders,
        P,
        I,
        neighbours=find_relation(neighbours) if neighbours else None,
        backend=backend,
        exact=exact,
    )
    return [
        RenyiRow(variant, parameter, value, o.order, o.epsilon, o.witness, r.exact, r.diagram_size, r.seconds)
        for o in r.orders
    ]


def _sweep(
    point: Callable[..., R | list[R]],
    specs: Sequence[str],
    fixed: Mapping[str, Number],
    parameter: str,
    values: Sequence[Number],
    progress: ProgressCallback | None,
    **options: Any,
) -> list[R]:
    _check(specs, fixed, parameter, values)
    total, done, rows = len(specs) * len(values), 0, list[R]()
    for spec in specs:
        variant = _variant(spec, fixed)
        for value in values:
            if progress:
                progress(done, total, f"{variant} {parameter}={format_number(value)}")
            program = build_program(spec, {**fixed, parameter: value})
            out = point(program, variant, parameter, value, **options)
            rows.extend(out if isinstance(out, list) else [out])
            done += 1
    if progress:
        progress(total, total, "")
    return rows


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
    if sets not in ("plan", "exhaustive", "auto") and neighbours:
        raise WmcdpError("neighbours apply to the planned, exhaustive and automatic sets only")
    return _sweep(
        _privacy_point,
        programs,
        fixed,
        parameter,
        values,
        progress,
        sets=sets,
        neighbours=neighbours,
        backend=backend,
        exact=exact,
    )


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
    return _sweep(
        _accuracy_point,
        programs,
        fixed,
        parameter,
        values,
        progress,
        alpha=alpha,
        sets=sets,
        backend=backend,
        exact=exact,
    )


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
    if sets not in ("plan", "exhaustive", "auto") and neighbours:
        raise WmcdpError("neighbours apply to the planned, exhaustive and automatic sets only")
    return _sweep(
        _approximate_point,
        programs,
        fixed,
        parameter,
        values,
        progress,
        epsilon=epsilon,
        delta=delta,
        compose=compose,
        sets=sets,
        neighbours=neighbours,
        backend=backend,
        exact=exact,
    )


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
    if sets not in ("plan", "exhaustive", "auto") and neighbours:
        raise WmcdpError("neighbours apply to the planned, exhaustive and automatic sets only")
    return _sweep(
        _renyi_point,
        programs,
        fixed,
        parameter,
        values,
        progress,
        orders=orders,
        sets=sets,
        neighbours=neighbours,
        backend=backend,
        exact=exact,
    )


__all__ = [
    "PrivacyRow",
    "AccuracyRow",
    "ApproximateRow",
    "RenyiRow",
    "ProfileRow",
    "Row",
    "parse_over",
    "sweep_privacy",
    "sweep_accuracy",
    "sweep_approximate",
    "sweep_renyi",
    "records",
    "to_dataframe",
]
