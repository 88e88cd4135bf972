"""Results as Markdown, for notebooks: the bound, its witness and the plan that computed it.

Each result class's ``_repr_markdown_`` calls the function here for its kind, so a result that is the
last expression of a Jupyter cell shows as a small table instead of a dataclass repr.
"""

from __future__ import annotations

from typing import Any

from ..base.numbers import show
from ..lang.shape import format_value


def _table(title: str, rows: list[tuple[str, str]], plan: Any = None, seconds: float | None = None) -> str:
    if plan is not None:
        rows.append(("plan", plan.text()))
    if seconds is not None:
        rows.append(("seconds", f"{seconds:.3g}"))
    body = "\n".join(f"| {key} | {_cell(value)} |" for key, value in rows)
    return f"{title}\n\n| | |\n|---|---|\n{body}\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(value: Any) -> str:
    return f"`{format_value(value)}`"


def privacy_markdown(r: Any) -> str:
    """A :class:`wmcdp.PrivacyResult`: ε, e^ε, the witness triple and its two probabilities."""
    w = r.witness
    rows = [
        ("ε", f"{r.epsilon:.10g}"),
        ("e^ε", show(r.ratio, r.exact)),
        ("witness x, x′, y", f"{_code(w.x)}, {_code(w.x_prime)}, {_code(w.y)}"),
        ("P(y \\| x)", show(r.p_x, r.exact, r.log_p_x)),
        ("P(y \\| x′)", show(r.p_x_prime, r.exact, r.log_p_x_prime)),
    ]
    return _table(f"**Tight privacy bound** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def accuracy_markdown(r: Any) -> str:
    """A :class:`wmcdp.AccuracyResult`: 1 − β at α, the worst input and the ``top`` list."""
    rows = [
        ("α", str(r.alpha)),
        ("1 − β", show(r.one_minus_beta, r.exact)),
        ("β", show(r.beta, r.exact)),
        ("worst input x", _code(r.witness)),
    ]
    rows += [(f"top {k}", f"{_code(x)}: {show(v, r.exact)}") for k, (x, v) in enumerate(r.top, 1)]
    return _table(f"**Tight accuracy bound** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def approximate_markdown(r: Any) -> str:
    """A :class:`wmcdp.ApproximateResult`: the point (ε, δ) and the pair attaining it."""
    rows = [
        ("ε", f"{r.epsilon:.10g}"),
        ("δ", show(r.delta, r.exact, r.log_delta)),
        ("witness x, x′", f"{_code(r.witness.x)}, {_code(r.witness.x_prime)}"),
    ]
    if r.compose > 1:
        rows.append(("runs composed", f"{r.compose} ({r.accountant})"))
    return _table(f"**Tight (ε, δ)** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def renyi_markdown(r: Any) -> str:
    """A :class:`wmcdp.RenyiResult`: D_α per order with its pair, and zCDP ρ."""
    rows = [
        (f"D_{o.order:g}", f"{o.epsilon:.10g} at {_code(o.witness.x)}, {_code(o.witness.x_prime)}") for o in r.orders
    ]
    if r.zcdp_rho is not None:
        rows.append(("zCDP ρ", f"{r.zcdp_rho:.10g} (order {r.zcdp_order:g})"))
    return _table("**Rényi divergences**", rows, r.plan, r.seconds)
