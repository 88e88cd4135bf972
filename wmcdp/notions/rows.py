"""The rows of sweeps and profiles: one flat record per (program, parameter value) or per ε.

Each row class has a ``kind`` (the name of its notion, :mod:`wmcdp.notions.notion`) and ``record()``, its
columns as a flat dict: floats, plus ``*_exact`` fraction strings, None when the run is not exact (the columns are
the same in every mode). A swept row starts with
:func:`head` (program, parameter, value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from ..base.errors import WmcdpError
from ..base.numbers import Number, exact_text, format_number, json_number
from ..lang.program import Value
from ..lang.shape import format_value
from ..plan.pairs import PairWitness
from .notion import Rendered

if TYPE_CHECKING:
    from .privacy import PrivacyWitness


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
        out = head(self)
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
            ratio_exact=_exact(self.ratio, self.exact),
            p_y_given_x_exact=_exact(self.p_x, self.exact),
            p_y_given_x_prime_exact=_exact(self.p_x_prime, self.exact),
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
        out = head(self)
        out.update(
            alpha=_plain(self.alpha),
            one_minus_beta=float(self.one_minus_beta),
            beta=float(self.beta),
            witness_x=format_value(self.witness),
            diagram_size=self.diagram_size,
            seconds=self.seconds,
            one_minus_beta_exact=_exact(self.one_minus_beta, self.exact),
            beta_exact=_exact(self.beta, self.exact),
        )
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
    log_delta: float | None = None  # ln δ of a float δ, which may underflow to 0

    kind = "approximate"

    def record(self) -> dict[str, Any]:
        out = head(self)
        out.update(
            epsilon=float(self.epsilon),
            delta=json_number(self.delta, self.log_delta),
            given=self.given,
            witness_x=format_value(self.witness.x),
            witness_x_prime=format_value(self.witness.x_prime),
            compose=self.compose,
            diagram_size=self.diagram_size,
            seconds=self.seconds,
            delta_exact=_exact(self.delta, self.exact and isinstance(self.delta, Fraction)),
        )
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
        out = head(self)
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
    log_delta: float | None = None  # ln δ of a float δ, which may underflow to 0 (δ ≈ 1e-3039 at 10^5 shuffled users)

    kind = "profile"
    parameter = "epsilon"

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": float(self.epsilon),
            "delta": json_number(self.delta, self.log_delta),
            "witness_x": format_value(self.witness.x),
            "witness_x_prime": format_value(self.witness.x_prime),
            "epsilon_exact": self.epsilon_text if self.exact else None,
            "delta_exact": _exact(self.delta, self.exact),
        }
        return out

    @property
    def exact(self) -> bool:
        """Whether δ is exact (a rational)."""
        return isinstance(self.delta, Fraction)


class Row(Protocol):
    """A row of a table or a curve: its notion's ``kind``, its program, the swept ``parameter`` (``"epsilon"`` for a
    profile) and its flat ``record()``."""

    @property
    def kind(self) -> str: ...

    @property
    def program(self) -> str: ...

    @property
    def parameter(self) -> str: ...

    def record(self) -> dict[str, Any]: ...


def _plain(value: Any) -> Any:
    """Fractions become floats (whole fractions ints); other values are kept."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def head(row: Any) -> dict[str, Any]:
    """The first columns of a swept row: its program, the swept parameter and its value (exact when it is)."""
    exact = format_number(row.value) if isinstance(row.value, Fraction) else None
    return {"program": row.program, "parameter": row.parameter, "value": _plain(row.value), "value_exact": exact}


def _exact(value: Any, exact: bool) -> str | None:
    """A ``KEY_exact`` column: the exact ``"a/b"`` of an exact run, None otherwise (the same columns in every mode)."""
    return exact_text(value) if exact else None


def records(rows: Sequence[Row | Rendered]) -> list[dict[str, Any]]:
    """The rows (of sweeps and profiles, or results of the notions' functions, :meth:`Rendered.record`) as flat
    dicts with the same keys in every row (missing ``*_exact`` values are None)."""
    wrong = next((row for row in rows if not callable(getattr(row, "record", None))), None)
    if wrong is not None:
        raise WmcdpError(
            f"expected results of wmcdp's notions or rows of sweeps and profiles, got a {type(wrong).__name__}"
        )
    flat = [row.record() for row in rows]
    keys: dict[str, None] = {}
    for record in flat:
        keys.update(dict.fromkeys(record))
    return [{k: record.get(k) for k in keys} for record in flat]


def to_dataframe(rows: Sequence[Row | Rendered]) -> Any:
    """The rows of sweeps and profiles, or results (:func:`wmcdp.synthesize_privacy`, ...), as a
    :class:`pandas.DataFrame`, one row each (pandas is optional)."""
    try:
        import pandas as pd
    except ImportError:
        raise WmcdpError("to_dataframe needs pandas: pip install pandas") from None
    return pd.DataFrame(records(rows))


__all__ = [
    "PrivacyRow",
    "AccuracyRow",
    "ApproximateRow",
    "RenyiRow",
    "ProfileRow",
    "Row",
    "head",
    "records",
    "to_dataframe",
]
