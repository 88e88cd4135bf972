"""Reports a library maintainer can act on: one Markdown file per violated claim.

Each file gives the case, the claimed epsilon, the exact ratio and epsilon, the witness (two neighbouring
inputs and an output), the output's exact probability under each input where the audit knows them, the
number of reports a statistical tester would need to see the violation, and, where the audit writes one,
a standalone script that shows it with the library alone.

The tester's sample size: drawing ``n`` outputs under each input, the log of the ratio of the two counts of
``y`` has standard deviation about ``sqrt((1 - p)/(n p) + (1 - p')/(n p'))`` (the delta method), so seeing
``ln(p/p')`` above the claim at ``z`` standard deviations (one-sided level :data:`LEVEL`) takes

    n = z^2 ((1 - p)/p + (1 - p')/p') / (ln(p/p') - claim)^2.

When ``p' = 0`` the claim still allows ``p' >= e^-claim p``; never seeing ``y`` under ``x'`` in ``n`` draws
then has probability about ``exp(-n p e^-claim)``, at most :data:`LEVEL` once ``n = e^claim ln(1/LEVEL)/p``.

An (epsilon, delta) claim is broken by an event ``E`` (a set of outputs) with ``P(E | x) - e^epsilon P(E | x')``
above delta. Estimating that difference from ``n`` draws per input has standard deviation about
``sqrt((p (1 - p) + e^(2 epsilon) p' (1 - p')) / n)``, so seeing it above delta at ``z`` standard deviations takes

    n = z^2 (p (1 - p) + e^(2 epsilon) p' (1 - p')) / (p - e^epsilon p' - delta)^2.

The probabilities a row carries are exact fractions or decimal strings (an exact real's enclosure midpoint);
any audit that fills ``witness_probabilities`` (and, for a delta claim, ``witness_event``) gets these lines.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import gmpy2

from ..base.errors import WmcdpError
from .core import AuditRow
from .severity import NEGLIGIBLE_LOG2, SEEN

#: the one-sided level of the tester whose sample size the reports give
LEVEL = 1e-3
#: its z-score: the standard normal's upper LEVEL quantile
Z = 3.090232306167813


def samples_needed(p: Fraction, p_prime: Fraction, claim: float) -> float:
    """Outputs per input a tester needs to see ``P(y | x) = p`` against ``P(y | x') = p_prime`` break the claim
    (module docstring); ``inf`` when the ratio does not break it."""
    with gmpy2.context(precision=200):
        if p_prime == 0:
            return float(gmpy2.exp(gmpy2.mpfr(claim)) * gmpy2.log(1 / gmpy2.mpfr(LEVEL)) / gmpy2.mpq(p))
        r = p / p_prime
        gap = gmpy2.log(gmpy2.mpq(r.numerator, r.denominator)) - gmpy2.mpfr(claim)
        if gap <= 0:
            return math.inf
        spread = gmpy2.mpq((1 - p) / p + (1 - p_prime) / p_prime)
        return float(gmpy2.mpfr(Z) ** 2 * spread / gap**2)


def samples_needed_delta(p: Fraction, p_prime: Fraction, epsilon: float, delta: float) -> float:
    """Outputs per input a tester needs to see ``P(E | x) - e^epsilon P(E | x')`` above ``delta`` (module
    docstring); ``inf`` when the event does not break the claim."""
    with gmpy2.context(precision=200):
        e = gmpy2.exp(gmpy2.mpfr(epsilon))
        pp, qq = gmpy2.mpq(p), gmpy2.mpq(p_prime)
        gap = pp - e * qq - gmpy2.mpfr(delta)
        if gap <= 0:
            return math.inf
        return float(gmpy2.mpfr(Z) ** 2 * (pp * (1 - pp) + e**2 * qq * (1 - qq)) / gap**2)


def _negligible(row: AuditRow) -> str:
    return f" (negligible: delta < 2^{NEGLIGIBLE_LOG2})" if row.shown_verdict != row.verdict else ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=]+", "-", text).strip("-")[:120]


def report_text(library: str, version: str, row: AuditRow) -> str:
    """The Markdown report of one violated row."""
    lines = (
        _delta_lines(library, version, row) if row.claimed_delta is not None else _epsilon_lines(library, version, row)
    )
    lines += _context_lines(row) + _severity_lines(row)
    lines += ["", "## Reproduce it with the library alone", ""]
    if row.reproducer is None:
        lines += ["The audit writes no standalone script for this case yet: the witness above is the finding."]
    else:
        lines += [
            "The script computes the probabilities with the library's own code and thresholds "
            "(no wmcdp), then prints them and the verdict:",
            "",
            "```python",
            row.reproducer.rstrip(),
            "```",
        ]
    return "\n".join(lines) + "\n"


#: the scope of a delta needed (wmcdp.audit.severity), as reports say it
OUTPUT = "witness output"
SCOPES = {
    "tight": "the tight delta at the claimed epsilon, over every neighbouring pair",
    "witness pair": "the witness pair's, sum over y of max(0, P(y | x) - e^epsilon P(y | x')): a lower bound of the "
    "tight delta",
    OUTPUT: "what the witness output alone needs, P(y | x) - e^epsilon P(y | x'): a lower bound of the tight delta",
}


def _context_lines(row: AuditRow) -> list[str]:
    """The neighbouring notion the verdict is under and the library's source line behind it, where known."""
    lines = [] if row.neighbours is None else [f"- **Neighbours:** {row.neighbours}."]
    return lines + ([] if row.source is None else [f"- **Source:** {row.source}."])


def _severity_lines(row: AuditRow) -> list[str]:
    """The verdict and the violation's weight (:mod:`wmcdp.audit.severity`): the delta the claim needs and the
    draws that show the violation with probability 0.95."""
    weight = row.severity
    lines = ["", "## Severity", "", f"- **Verdict:** {row.shown_verdict}."]
    if weight is None:
        return lines + ["- **Delta needed:** not known (the audit does not give the witness's probabilities)."]
    scope = SCOPES[weight.scope]
    lines.append(f"- **Delta needed for the claimed epsilon to hold:** {weight.delta} ({scope}).")
    if weight.note is not None:
        lines.append(f"- **Why not the tight delta:** {weight.note}.")
    if weight.times_claimed is not None:
        lines.append(f"- **Times the claimed delta:** {weight.times_claimed:.4g} (above it by {weight.excess}).")
    if weight.event_probability is not None:
        lines.append(
            f"- **The witness event's probability** (under the input where it is likelier): {weight.event_probability}."
        )
    lines.append(
        f"- **Draws to see the violation:** {'' if weight.scope == OUTPUT else 'at least '}{weight.draws}: fewer "
        f"outputs under `x` come, with probability "
        f"{SEEN:g}, only from the part of its distribution the claim allows (`n = ceil(ln(1/{1 - SEEN:.2g}) / "
        "-ln(1 - m))`, `m` the mass the claim cannot account for: the delta needed, less the claimed delta"
        + (
            "; the witness output's excess, so the pair's tight delta may show in fewer)."
            if weight.scope == OUTPUT
            else ")."
        )
    )
    if weight.negligible:
        lines.append(
            f"- **Negligible:** the delta needed is below 2^{NEGLIGIBLE_LOG2}; the claim is false, yet no run of the "
            "mechanism will show it."
        )
    return lines


def _zcdp_lines(library: str, version: str, row: AuditRow) -> list[str]:
    """The head of the report of a violated approximate zCDP (rho, delta) claim: the pair and the tight delta."""
    x, xp, y = row.witness
    return [
        f"# {library} {version}: `{row.mechanism}` breaks its claimed approximate zCDP (rho, delta)",
        "",
        f"- **Case:** `{row.mechanism} {row.params}`",
        f"- **Claim:** (rho, delta) = ({row.claimed!r}, {row.claimed_delta!r}): for neighbouring `x`, `x'` there are "
        "events of probability at least `1 - delta` under each output distribution on which the conditional "
        "distributions have `D_alpha <= rho alpha` for every `alpha > 1`, both ways (Bun and Steinke 2016, "
        "Definition 8.1).",
        f"- **Exact:** the tight delta at rho = {row.claimed!r} is {row.delta!r} (certified).",
        f"- **Witness:** `x = {x}`, `x' = {xp}`, the output `{y}`.",
    ] + _event_lines(row)


def _event_lines(row: AuditRow) -> list[str]:
    """``P(E | x)`` and ``P(E | x')`` of the witness event, where the audit gives them."""
    if row.witness_probabilities is None:
        return []
    return [f"- **P(E | x)** = {row.witness_probabilities[0]}", f"- **P(E | x')** = {row.witness_probabilities[1]}"]


def _delta_lines(library: str, version: str, row: AuditRow) -> list[str]:
    """The head of the report of a violated (epsilon, delta) claim: the event, its probabilities, the samples."""
    if row.measure == "approximate zCDP":
        return _zcdp_lines(library, version, row)
    x, xp, _ = row.witness
    lines = [
        f"# {library} {version}: `{row.mechanism}` breaks its claimed (epsilon, delta)" + _negligible(row),
        "",
        f"- **Case:** `{row.mechanism} {row.params}`",
        f"- **Claim:** (epsilon, delta) = ({row.claimed!r}, {row.claimed_delta!r}): `P(E | x) <= e^epsilon P(E | x') "
        "+ delta` for neighbouring `x`, `x'` and every event `E`.",
        f"- **Exact:** the tight delta at epsilon = {row.claimed!r} is {row.delta!r} (certified); the tight epsilon at "
        f"the claimed delta is {row.epsilon!r}.",
        f"- **Witness:** `x = {x}`, `x' = {xp}`"
        + ("." if row.witness_event is None else f", `E = {row.witness_event}`."),
    ]
    if row.witness_probabilities is not None and row.claimed_delta is not None:
        p, pp = (Fraction(v) for v in row.witness_probabilities)
        n = samples_needed_delta(p, pp, row.claimed, row.claimed_delta)
        lines += _event_lines(row) + [
            f"- **Samples a statistical tester needs:** about {n:.3g} outputs under each input (`n = z^2 (p (1 - p) + "
            f"e^(2 epsilon) p' (1 - p')) / (p - e^epsilon p' - delta)^2` with `z = {Z:.4f}`, one-sided level "
            f"{LEVEL:g}: the estimated `P(E | x) - e^epsilon P(E | x')` must exceed delta by z standard deviations).",
        ]
    return lines


def _epsilon_lines(library: str, version: str, row: AuditRow) -> list[str]:
    """The head of the report of a violated pure epsilon claim: the witness, its probabilities, the samples."""
    x, xp, y = row.witness
    lines = [
        f"# {library} {version}: `{row.mechanism}` breaks its claimed epsilon" + _negligible(row),
        "",
        f"- **Case:** `{row.mechanism} {row.params}`",
        f"- **Claim:** epsilon = {row.claimed!r}: `P(y | x) <= e^epsilon P(y | x')` for neighbouring `x`, `x'`.",
        f"- **Exact:** `P(y | x) / P(y | x')` = {row.ratio_exact or 'an exact real'}, so epsilon = {row.epsilon!r} "
        "(the claim is compared with the logarithm of the exact ratio at 200 bits, or with a certified enclosure).",
        f"- **Witness:** `x = {x}`, `x' = {xp}`, `y = {y}`.",
    ]
    if row.witness_probabilities is not None:
        p, pp = (Fraction(v) for v in row.witness_probabilities)
        n = samples_needed(p, pp, row.claimed)
        lines += [
            f"- **P(y | x)** = {p} (about {float(p):.6g})",
            f"- **P(y | x')** = {pp} (about {float(pp):.6g})",
            f"- **Samples a statistical tester needs:** about {n:.3g} outputs under each input "
            + (
                f"(`n = e^claim ln(1/{LEVEL:g}) / P(y | x)`: `y` is impossible under `x'`, and the claim allows it "
                f"with probability at least `e^-claim P(y | x)`, so never seeing it is evidence at level {LEVEL:g})."
                if pp == 0
                else f"(`n = z^2 ((1 - p)/p + (1 - p')/p') / (ln(p/p') - claim)^2` with `z = {Z:.4f}`, one-sided "
                f"level {LEVEL:g}: the log of the ratio of the two counts must exceed the claim by z standard "
                "deviations)."
            ),
        ]
    return lines


def write_reports(directory: str | Path, library: str, version: str, rows: list[AuditRow]) -> list[Path]:
    """One Markdown file per VIOLATED row in ``directory`` (created if need be); the paths written."""
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for k, row in enumerate(r for r in rows if r.verdict == "VIOLATED"):
            path = folder / f"{k + 1:03d}-{_slug(row.mechanism + ' ' + row.params)}.md"
            path.write_text(report_text(library, version, row))
            written.append(path)
    except OSError as exc:
        raise WmcdpError(f"cannot write the reports to {str(directory)!r}: {exc.strerror or exc}") from None
    return written


__all__ = ["LEVEL", "Z", "report_text", "samples_needed", "samples_needed_delta", "write_reports"]
