"""Results as Markdown, for notebooks: the bound, its witness and the plan that computed it.

Each notion's record (:class:`wmcdp.notions.notion.Notion`) names its function here, and its result's
``_repr_markdown_`` (:class:`wmcdp.notions.notion.Rendered`) calls it, so a result that is the last expression of
a Jupyter cell shows as a small table instead of a dataclass repr. A new notion writes its own with
:func:`markdown_table` and :func:`code`.
"""

from __future__ import annotations

from typing import Any

from ..base.numbers import show
from ..lang.shape import format_value


def markdown_table(title: str, rows: list[tuple[str, str]], plan: Any = None, seconds: float | None = None) -> str:
    """``title`` over a two-column table of ``(key, value)`` rows, then the plan and the time when given."""
    if plan is not None:
        rows.append(("plan", plan.text()))
    if seconds is not None:
        rows.append(("seconds", f"{seconds:.3g}"))
    body = "\n".join(f"| {key} | {_cell(value)} |" for key, value in rows)
    return f"{title}\n\n| | |\n|---|---|\n{body}\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def code(value: Any) -> str:
    """A program value as inline code."""
    return f"`{format_value(value)}`"


def privacy_markdown(r: Any) -> str:
    """A :class:`wmcdp.PrivacyResult`: ε, e^ε, the witness triple and its two probabilities."""
    w = r.witness
    rows = [
        ("ε", f"{r.epsilon:.10g}"),
        ("e^ε", show(r.ratio, r.exact)),
        ("witness x, x′, y", f"{code(w.x)}, {code(w.x_prime)}, {code(w.y)}"),
        ("P(y \\| x)", show(r.p_x, r.exact, r.log_p_x)),
        ("P(y \\| x′)", show(r.p_x_prime, r.exact, r.log_p_x_prime)),
    ]
    return markdown_table(f"**Tight privacy bound** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def accuracy_markdown(r: Any) -> str:
    """A :class:`wmcdp.AccuracyResult`: 1 − β at α, the worst input and the ``top`` list."""
    rows = [
        ("α", str(r.alpha)),
        ("1 − β", show(r.one_minus_beta, r.exact)),
        ("β", show(r.beta, r.exact)),
        ("worst input x", code(r.witness)),
    ]
    rows += [(f"top {k}", f"{code(x)}: {show(v, r.exact)}") for k, (x, v) in enumerate(r.top, 1)]
    return markdown_table(f"**Tight accuracy bound** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def approximate_markdown(r: Any) -> str:
    """A :class:`wmcdp.ApproximateResult`: the point (ε, δ) and the pair attaining it."""
    rows = [
        ("ε", f"{r.epsilon:.10g}"),
        ("δ", show(r.delta, r.exact, r.log_delta)),
        ("witness x, x′", f"{code(r.witness.x)}, {code(r.witness.x_prime)}"),
    ]
    if r.compose > 1:
        rows.append(("runs composed", f"{r.compose} ({r.accountant})"))
    return markdown_table(f"**Tight (ε, δ)** ({'exact' if r.exact else 'float'})", rows, r.plan, r.seconds)


def renyi_markdown(r: Any) -> str:
    """A :class:`wmcdp.RenyiResult`: D_α per order with its pair, and zCDP ρ."""
    rows = [(f"D_{o.order:g}", f"{o.epsilon:.10g} at {code(o.witness.x)}, {code(o.witness.x_prime)}") for o in r.orders]
    if r.zcdp_rho is not None:
        rows.append(("zCDP ρ", f"{r.zcdp_rho:.10g} (order {r.zcdp_order:g})"))
    return markdown_table("**Rényi divergences**", rows, r.plan, r.seconds)


__all__ = [
    "markdown_table",
    "code",
    "privacy_markdown",
    "accuracy_markdown",
    "approximate_markdown",
    "renyi_markdown",
]
