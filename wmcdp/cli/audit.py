"""``wmcdp audit LIBRARY [--sample K] [--level L] [--only TEXT] [--report DIR] [--json | --format table|markdown]``.

LIBRARY is opendp, diffprivlib, pydp, tmlt, pure-ldp or multi-freq-ldpy.

One row per case: the mechanism, its parameters, the library's claimed epsilon, the exact tight
epsilon of the model of its sampler (for an (epsilon, delta) claim: the claimed delta, the tight
delta at the claimed epsilon and the tight epsilon at the claimed delta), the verdict, the
witness, for a violated claim its severity (the delta its claimed epsilon needs and the draws that
show the violation, :mod:`wmcdp.audit.severity`), and with ``--sample`` the chi-square p-values
of the library's own draws against the model. Exit status 1 when a claim is violated (negligibly too:
the claim is false) or a model check fails.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from ..audit.core import LIBRARIES, POWER, audited, version_warning
from ..audit.findings import write_reports
from ..audit.severity import NEGLIGIBLE_LOG2
from ..base import progress
from ..base.errors import WmcdpError
from ..report.schema import envelope
from .common import Disagreement, dumps
from .parsers import progress_arg

FORMATS = ("table", "markdown", "json")
HEADERS = ("mechanism", "parameters", "d_in", "claimed eps", "exact eps", "verdict", "x", "x'", "y")
DELTA_HEADERS = ("claimed delta", "exact delta")
#: a violated row's weight (wmcdp.audit.severity): the delta its claimed epsilon needs, the draws that show it
SEVERITY_HEADERS = ("delta needed", "draws to see")


def _number(value: float) -> str:
    """Every digit of a float (ulps matter here)."""
    return repr(value)


def _weakest(checks: Any) -> float | None:
    """The largest relative shift of one output's probability among the checks' powers (None when none is known)."""
    shifts = [c.detectable_relative for c in checks if math.isfinite(c.detectable_relative)]
    return max(shifts) if shifts else None


def _exact_part(row: Any) -> str:
    bad = [e for e in row.exact if not e.agrees]
    if bad:
        return f"exact FAILS on {bad[0].input}: {bad[0].mismatch}"
    return f"exact at {sum(e.points for e in row.exact)} points"


def _sampled_part(row: Any) -> str:
    weakest = _weakest(row.samples)
    checks = ", ".join(f"{s.p_value:.3g}" for s in row.samples)
    return f"p = {checks}" + ("" if weakest is None else f", detects a {weakest:.2%} shift")


def _model_check(row: Any) -> str:
    """The row's model checks: the exact ones (points of the library's own code), then the sampled ones with
    their p-values and power (the weakest of the row's: the smallest relative shift of one output's probability
    it detects with probability POWER)."""
    parts = ([_exact_part(row)] if row.exact else []) + ([_sampled_part(row)] if row.samples else [])
    return f"{'ok' if row.model_agrees else 'FAILS'} ({'; '.join(parts)})"


def _cells(rows: list[Any], sampled: bool) -> tuple[list[str], list[list[str]]]:
    """The rows' cells; (epsilon, delta) claims add the claimed delta and the tight delta at the claimed
    epsilon (the exact eps column is then the tight epsilon at the claimed delta)."""
    deltas = any(r.claimed_delta is not None for r in rows)
    headers = list(HEADERS[:5]) + (list(DELTA_HEADERS) if deltas else []) + list(HEADERS[5:])
    checked = sampled or any(r.exact for r in rows)
    weighed = any(r.severity is not None for r in rows)
    headers += list(SEVERITY_HEADERS) if weighed else []
    headers += ["model check"] if checked else []
    cells = []
    for r in rows:
        row = [r.mechanism, r.params, str(r.d_in), _number(r.claimed), _number(r.epsilon)]
        if deltas:
            row += ["", ""] if r.claimed_delta is None else [_number(r.claimed_delta), _number(r.delta)]
        row += [r.shown_verdict, *r.witness] + (_weight(r) if weighed else [])
        cells.append(row + ([_model_check(r)] if checked else []))
    return headers, cells


def _weight(row: Any) -> list[str]:
    """A violated row's severity cells: the delta its claim needs (and its excess over a claimed delta) and the
    draws that show the violation."""
    weight = row.severity
    if weight is None:
        return ["", ""]
    needed = weight.delta if weight.excess is None else f"{weight.delta} (+{weight.excess})"
    return [needed, weight.draws or ""]


def _table(headers: list[str], cells: list[list[str]]) -> str:
    widths = [max(len(h), *(len(c[k]) for c in cells)) for k, h in enumerate(headers)]
    return "\n".join("  ".join(s.ljust(w) for s, w in zip(items, widths)).rstrip() for items in [headers, *cells])


def _markdown(headers: list[str], cells: list[list[str]]) -> str:
    rule = ["---:" if h in ("d_in", "claimed eps", "exact eps", *DELTA_HEADERS) else "---" for h in headers]
    return "\n".join(
        "| " + " | ".join(s.replace("|", "\\|") for s in items) + " |" for items in [headers, rule, *cells]
    )


def _passed(failed: int) -> str:
    return "all pass" if not failed else f"{failed} FAIL"


def _summary(rows: list[Any], sampled: bool, level: float) -> str:
    counts = {v: sum(r.verdict == v for r in rows) for v in ("tight", "loose", "VIOLATED")}
    text = f"{len(rows)} cases: {counts['tight']} tight, {counts['loose']} loose, {counts['VIOLATED']} VIOLATED"
    negligible = sum(r.severity is not None and r.severity.negligible for r in rows)
    if negligible:
        text += f" ({negligible} negligible: delta < 2^{NEGLIGIBLE_LOG2})"
    exact = [e for r in rows for e in r.exact]
    if exact:
        text += f"; {len(exact)} exact model checks: " + _passed(sum(not e.agrees for e in exact))
    return text + (_sampled_summary([s for r in rows for s in r.samples], level) if sampled else "")


def _sampled_summary(checks: list[Any], level: float) -> str:
    """The chi-square checks of a run: how many, at which level, how many fail, and the weakest one's power."""
    text = f"; {len(checks)} model checks at family-wise level {level:g} (each at {level:g}/{len(checks)}): "
    text += _passed(sum(not s.agrees for s in checks))
    weakest = _weakest(checks)
    if weakest is not None:
        text += f"; the weakest detects a {weakest:.2%} relative shift of one output's probability"
        text += f" with probability {POWER:g}"
    return text


def _audit(args: argparse.Namespace) -> str:
    lib = audited(args.library)
    if args.json:
        if args.fmt != "table":
            raise WmcdpError("--json and --format are two ways to choose the format; give one")
        args.fmt = "json"
    steps = len(lib.cases(args.only)) * (2 if args.sample else 1)  # (an --only naming no case fails first)
    version = lib.version()
    warning = version_warning(version, lib.modelled, lib.distribution)
    if warning:
        print(f"wmcdp: warning: {warning}", file=sys.stderr)
    progress.point(0, steps)
    rows = lib.audit(args.sample, args.level, args.only, progress=progress.point)
    sampled = args.sample > 0
    reports = [] if args.report is None else write_reports(args.report, args.library, version, rows)
    failed = any(r.verdict == "VIOLATED" or not r.model_agrees for r in rows)
    if args.fmt == "json":
        out = dumps(
            {
                **envelope("audit", exact=all(r.ratio_exact is not None for r in rows)),
                "library": args.library,
                "version": version,
                "sample": args.sample,
                "level": args.level,
                "rows": [r.as_dict() for r in rows],
                "violated": sum(r.verdict == "VIOLATED" for r in rows),
                "negligible": sum(r.severity is not None and r.severity.negligible for r in rows),
                "model_failures": sum(not r.model_agrees for r in rows),
                **({} if args.report is None else {"reports": [str(p) for p in reports]}),
            }
        )
    else:
        headers, cells = _cells(rows, sampled)
        body = (_markdown if args.fmt == "markdown" else _table)(headers, cells)
        out = f"{body}\n\n{_summary(rows, sampled, args.level)} ({args.library} {version})"
        if args.report is not None:
            out += f"\n{len(reports)} report(s) of violated claims in {args.report}"
    if failed:
        raise Disagreement(out)
    return out


def register(sub: Any) -> None:
    """Register ``audit`` on the ``wmcdp`` subparsers."""
    q = sub.add_parser("audit", help="check a DP library's claimed epsilons against exact tight ones")
    q.add_argument(
        "library",
        choices=list(LIBRARIES),
        help="the library to audit (each needs its extra: wmcdp[audit] for opendp, else wmcdp[LIBRARY] as in the docs)",
    )
    q.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="K",
        help="also draw K outputs from the library on each witness input and test the model (chi-square)",
    )
    q.add_argument(
        "--level",
        type=float,
        default=1e-3,
        metavar="L",
        help="family-wise level of the chi-square tests: each of the m tests runs at L/m (default 0.001)",
    )
    q.add_argument(
        "--report",
        metavar="DIR",
        help="write one Markdown report per violated claim into DIR (witness, probabilities, a reproducer)",
    )
    q.add_argument("--only", metavar="TEXT", help="only the cases whose 'mechanism parameters' label contains TEXT")
    q.add_argument("--format", choices=FORMATS, default="table", dest="fmt")
    q.add_argument("--json", action="store_true", help="the same as --format json")
    progress_arg(q)
    q.set_defaults(run=_audit)


__all__ = ["register"]
