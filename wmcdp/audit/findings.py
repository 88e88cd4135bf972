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
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import gmpy2

from ..base.errors import WmcdpError
from .core import AuditRow

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


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=]+", "-", text).strip("-")[:120]


def report_text(library: str, version: str, row: AuditRow) -> str:
    """The Markdown report of one violated row."""
    x, xp, y = row.witness
    lines = [
        f"# {library} {version}: `{row.mechanism}` breaks its claimed epsilon",
        "",
        f"- **Case:** `{row.mechanism} {row.params}`",
    ]
    if row.claimed_delta is None:
        lines += [
            f"- **Claim:** epsilon = {row.claimed!r}: `P(y | x) <= e^epsilon P(y | x')` for neighbouring `x`, `x'`.",
            f"- **Exact:** `P(y | x) / P(y | x')` = {row.ratio_exact}, so epsilon = {row.epsilon!r} "
            "(the claim is compared with the logarithm of the exact ratio at 200 bits).",
        ]
    else:
        lines[0] = lines[0].replace("epsilon", "(epsilon, delta)")
        lines += [
            f"- **Claim:** (epsilon, delta) = ({row.claimed!r}, {row.claimed_delta!r}): "
            "`P(S | x) <= e^epsilon P(S | x') + delta` for neighbouring `x`, `x'` and every set of outputs `S`.",
            f"- **Exact:** the tight delta at the claimed epsilon is {row.delta!r} (decided rigorously against the "
            f"claim); the tight epsilon at the claimed delta is {row.epsilon!r}.",
        ]
    lines.append(f"- **Witness:** `x = {x}`, `x' = {xp}`" + (f", `y = {y}`." if y else "."))
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
    lines += ["", "## Reproduce it with the library alone", ""]
    if row.reproducer is None:
        lines += ["The audit writes no standalone script for this library yet: the witness above is the finding."]
    else:
        lines += [
            "The script computes both probabilities from the library's own lines and thresholds "
            "(no wmcdp), then prints the exact ratio and the verdict:",
            "",
            "```python",
            row.reproducer.rstrip(),
            "```",
        ]
    return "\n".join(lines) + "\n"


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


__all__ = ["LEVEL", "Z", "report_text", "samples_needed", "write_reports"]
