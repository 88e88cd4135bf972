"""The rows of sweeps and profiles: one flat record per (program, parameter value) or per ε.

Each row class has a ``kind`` (the name of its notion, :mod:`wmcdp.notions.notion`) and ``record()``, its
columns as a flat dict: floats, plus ``*_exact`` fraction strings, None when the run is not exact (the columns are
the same in every mode). The built-in rows declare their columns on their fields (:mod:`wmcdp.notions.fields`),
which gives ``record()`` and their tables' columns; a swept row starts with :func:`head` (program, parameter,
value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from ..base.errors import WmcdpError
from ..base.numbers import Number
from ..lang.program import Value
from ..plan.pairs import PairWitness
from .fields import PAIR, Recorded, SweptRow, column, head, plain, witness
from .notion import Rendered
from .results import PrivacyWitness


@dataclass(frozen=True)
class PrivacyRow(SweptRow):
    """Algorithm 2 at one parameter value: ``epsilon = ln(ratio)`` and the witness triple."""

    epsilon: float = field(metadata=column("epsilon", r"$\varepsilon$", convert=float))
    ratio: float | Fraction = field(metadata=column("e^eps", r"$e^{\varepsilon}$", convert=float, exact=True))
    witness: PrivacyWitness = field(metadata=witness([*PAIR, ("witness_y", "y", "$y$")]))
    p_x: float | Fraction = field(
        metadata=column("P(y|x)", r"$P(y \mid x)$", key="p_y_given_x", convert=float, exact=True)
    )
    p_x_prime: float | Fraction = field(
        metadata=column("P(y|x')", r"$P(y \mid x')$", key="p_y_given_x_prime", convert=float, exact=True)
    )
    exact: bool
    diagram_size: int = field(metadata=column("size"))
    seconds: float = field(metadata=column("seconds"))  # compilation plus synthesis

    kind = "privacy"


@dataclass(frozen=True)
class AccuracyRow(SweptRow):
    """Algorithm 3 at one parameter value: tight ``1 - beta`` at radius ``alpha`` and the worst input."""

    alpha: Number = field(metadata=column("alpha", r"$\alpha$", convert=plain))
    one_minus_beta: float | Fraction = field(metadata=column("1-beta", r"$1-\beta$", convert=float, exact=True))
    beta: float | Fraction = field(metadata=column("beta", r"$\beta$", convert=float, exact=True))
    witness: Value = field(metadata=witness([("witness_x", "worst x", "worst $x$")]))
    exact: bool
    diagram_size: int = field(metadata=column("size"))
    seconds: float = field(metadata=column("seconds"))

    kind = "accuracy"


@dataclass(frozen=True)
class ApproximateRow(SweptRow):
    """Approximate DP at one parameter value: δ(ε) or ε(δ) of ``compose`` runs, and the witness pair."""

    epsilon: float = field(metadata=column("epsilon", r"$\varepsilon$", convert=float))
    delta: float | Fraction = field(metadata=column("delta", r"$\delta$", log="log_delta", exact=True, shown=True))
    given: str = field(metadata=column())  # "epsilon" or "delta": which one was given
    witness: PairWitness = field(metadata=witness(PAIR))
    compose: int = field(metadata=column("K", "$K$"))
    exact: bool
    diagram_size: int | None = field(metadata=column("size"))
    seconds: float = field(metadata=column("seconds"))
    log_delta: float | None = None  # ln δ of a float δ, which may underflow to 0

    kind = "approximate"


@dataclass(frozen=True)
class RenyiRow(SweptRow):
    """The Rényi divergence ``D_α`` at one parameter value and one order, and the witness pair."""

    order: float = field(metadata=column("alpha", r"$\alpha$"))
    epsilon: float = field(metadata=column("D_alpha", r"$D_\alpha$", convert=float))
    witness: PairWitness = field(metadata=witness(PAIR))
    exact: bool
    diagram_size: int | None = field(metadata=column("size"))
    seconds: float = field(metadata=column("seconds"))

    kind = "renyi"


@dataclass(frozen=True)
class ProfileRow(Recorded):
    """One point of a privacy profile: δ(``epsilon``) and the first pair that attains it."""

    program: str
    epsilon: float = field(
        metadata=column("epsilon", r"$\varepsilon$", convert=float, exact="epsilon_text", shown=True)
    )
    epsilon_text: str  # as given: "0.5" or "ln(3/2)"
    delta: float | Fraction = field(metadata=column("delta", r"$\delta$", log="log_delta", exact=True, shown=True))
    witness: PairWitness = field(metadata=witness(PAIR))
    compose: int = 1
    log_delta: float | None = None  # ln δ of a float δ, which may underflow to 0 (δ ≈ 1e-3039 at 10^5 shuffled users)

    kind = "profile"
    parameter = "epsilon"

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
        import pandas as pd  # deferred: pandas is optional
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
    "plain",
    "records",
    "to_dataframe",
]
