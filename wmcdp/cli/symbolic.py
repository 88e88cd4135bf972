"""``--symbolic NAME=LO:HI`` on ``wmcdp privacy`` and ``wmcdp accuracy``: the bound as a function of a parameter.

The bound is a piecewise function of one parameter (:mod:`wmcdp.notions.piecewise`), printed as pieces, as a
LaTeX ``cases`` environment, as JSON, or drawn with its breakpoints."""

from __future__ import annotations

import argparse
import math
import os
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError, brief
from ..base.numbers import format_number, parse_number
from ..base.polys import poly_at
from ..base.roots import point_text
from ..lang.parameter import Parameter
from ..lang.registry import build_program
from ..notions.piecewise_results import PiecewiseAccuracyResult, PiecewiseDeltaResult, latex, lines, pieces_json
from ..report.schema import envelope, witness_of
from .common import dumps, params, program_of, subsampled, table


def parameter_of(args: argparse.Namespace) -> Parameter | None:
    """The Parameter of ``--symbolic NAME=LO:HI`` (None without the option)."""
    spec = getattr(args, "symbolic", None)
    if not spec:
        if getattr(args, "fmt", "table") == "latex" or getattr(args, "plot", None):
            raise WmcdpError("--format latex and --plot show a bound as a function: give --symbolic NAME=LO:HI")
        return None
    if getattr(args, "plot", None):
        _check_writable(args.plot)
    name, sep, interval = spec.partition("=")
    lo, colon, hi = interval.partition(":")
    if not sep or not colon or not name.strip() or not lo.strip() or not hi.strip():
        raise WmcdpError(f"malformed --symbolic {brief(repr(spec))}: expected NAME=LO:HI, e.g. --symbolic lam=0:1/2")
    ends = [parse_number(text, exact=True) for text in (lo, hi)]  # decimals are read exactly: 0.5 is 1/2
    return Parameter(name.strip(), ends[0], ends[1])


def _check_writable(path: str) -> None:
    """Refuse a ``--plot`` file that cannot be written before anything is computed."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise WmcdpError(f"--plot {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise WmcdpError(f"--plot {path}: not writable")


def program_and_parameter(args: argparse.Namespace) -> tuple[Any, Parameter | None]:
    """The program of ``-p`` (and ``--symbolic``), and its symbolic parameter (None without one)."""
    parameter = parameter_of(args)
    if parameter is None:
        return program_of(args), None
    if getattr(args, "workers", None) or getattr(args, "scheduler", None):
        raise WmcdpError("--symbolic runs in one process; leave out --workers and --scheduler")
    return subsampled(args, build_program(args.program, symbolic_params(args, parameter))), parameter


def symbolic_params(args: argparse.Namespace, parameter: Parameter) -> dict[str, Any]:
    """``-p`` parameters with the symbolic one added (it must not be given with ``-p`` too)."""
    fixed = params(args.param, True)
    if parameter.name in fixed:
        raise WmcdpError(f"{parameter.name} is symbolic (--symbolic); do not also give -p {parameter.name}=...")
    return {**fixed, parameter.name: parameter}


def symbolic_head(command: str, program: Any, neighbours: str | None) -> dict[str, Any]:
    """The ``wmcdp/1`` head of a piecewise result: exact (its pieces are exact rational functions), the parameters
    as given (the symbolic one by its name; its interval is the result's ``parameter``)."""
    shown = {k: str(v) for k, v in program.params.items()}
    return envelope(command, program, neighbours=neighbours, exact=True, params=shown)


def output(args: argparse.Namespace, r: Any, program: Any, extra: dict[str, Any], kind: str) -> str:
    """The human, LaTeX or JSON text of a piecewise result, and the figure with ``--plot``."""
    accuracy, delta = isinstance(r, PiecewiseAccuracyResult), isinstance(r, PiecewiseDeltaResult)
    if args.plot:
        plot(r, args.plot, program.name)
    if args.fmt == "json" or getattr(args, "json", False):
        out = {
            **extra,
            "parameter": {
                "name": r.parameter.name,
                "from": format_number(r.parameter.lo),
                "to": format_number(r.parameter.hi),
            },
            "pieces": pieces_json(r, witness_of),
            "degree": r.degree,
            "diagram_size": r.diagram_size,
            "seconds": r.seconds,
            **({"alpha": format_number(r.alpha)} if accuracy else {}),
            **({"ratio": format_number(r.ratio)} if delta else {}),
        }
        return dumps(out)
    if args.fmt == "latex":
        return latex(r, r"1-\beta" if accuracy else r"\delta" if delta else r"\varepsilon")
    what = "1 - beta" if accuracy else "delta" if delta else "e^eps"
    rows = lines(r, what) + [
        ("counts", f"{r.degree + 1} exact counts (degree bound {r.degree})"),
        ("diagram size", f"{r.diagram_size} nodes"),
        *([("plan", r.plan.text())] if r.plan is not None else []),
        ("seconds", f"{r.seconds:.4f}"),
    ]
    title = f"{program.label()}: tight {kind} as a function of {r.parameter.describe()}"
    if accuracy:
        title += f" at alpha = {format_number(r.alpha)}"
    if delta:
        title += f" at e^epsilon = {format_number(r.ratio)}"
    return table(title, rows)


def plot(r: Any, path: str, name: str) -> None:
    """ε (or 1 − β) against the parameter, 400 exact points per piece range, breakpoints marked."""
    # deferred: report.plot loads every notion (notions.catalogue, 0.25 s), which privacy and accuracy do not need
    from ..report.plot import new_figure

    fig = new_figure(6, 3.6)
    ax = fig.subplots()
    linear = isinstance(r, (PiecewiseAccuracyResult, PiecewiseDeltaResult))
    label = "1 − β" if isinstance(r, PiecewiseAccuracyResult) else "δ" if linear else "ε"
    p = r.parameter
    for piece in r.pieces:
        start, end = float(piece.start), float(piece.end)
        ts = [start + (end - start) * k / 399 for k in range(400)]
        ys = [_value(piece, Fraction(t), linear) for t in ts]
        ax.plot(ts, ys, color="C0")
    for piece in r.pieces[1:]:
        ax.axvline(float(piece.start), color="0.6", linestyle=":", linewidth=1)
    ax.set_xlabel(p.name)
    ax.set_ylabel(label)
    ax.set_title(f"{name}: {label} on [{point_text(p.lo)}, {point_text(p.hi)}]")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise WmcdpError(f"--plot {path}: {e.strerror or e}") from None


def _value(piece: Any, t: Fraction, linear: bool) -> float:
    if piece.den.is_zero():
        return math.inf
    den = poly_at(piece.den, t)
    if den == 0:
        return math.inf
    value = poly_at(piece.num, t) / den
    if linear:
        return float(value)
    return math.log(value) if value > 0 else -math.inf
