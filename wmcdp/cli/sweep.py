"""``wmcdp sweep privacy|accuracy|approx|renyi NAME... -p key=value ... --over key=start:stop:step``.

One row per (program, value) in a table, CSV, Markdown, LaTeX or JSON, optionally to a
file (``--output``) and as a curve (``--plot``). A progress bar appears on stderr when
the run lasts over a second and stdout is a terminal (never with ``--format json`` or
``--quiet``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import parse_number
from ..compile import BACKENDS
from ..notions.sweep import Row, parse_over, sweep_accuracy, sweep_approximate, sweep_privacy, sweep_renyi
from ..report.progress import Progress
from ..report.tables import FORMATS, render_rows
from .common import exact_mode, limit_args, number_args, params


def register(sub: Any) -> None:
    """Register ``sweep`` on the ``wmcdp`` subparsers."""
    q = sub.add_parser("sweep", help="a bound over a range of one parameter: table, CSV, LaTeX, JSON, plot")
    q.add_argument(
        "kind",
        choices=["privacy", "accuracy", "approx", "renyi"],
        help="tight epsilon, tight 1 - beta, tight (epsilon, delta), or tight Rényi divergences",
    )
    q.add_argument("program", nargs="+", metavar="NAME", help="built-in program(s) or path/to/file.py:function")
    q.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="fixed parameter")
    q.add_argument(
        "--over",
        required=True,
        metavar="KEY=RANGE",
        help="swept parameter: start:stop[:step] (stop included when reached) or v1,v2,...",
    )
    q.add_argument("--alpha", help="accuracy radius alpha >= 0 (accuracy sweeps)")
    q.add_argument("--delta", help="approx sweeps: epsilon(delta) at this delta")
    q.add_argument("--epsilon", help="approx sweeps: delta(epsilon) at this epsilon (ln:3/2 is exact)")
    q.add_argument("--compose", type=int, default=1, metavar="K", help="approx sweeps: K runs on the same pair")
    q.add_argument("--orders", help="renyi sweeps: Rényi orders > 1, e.g. 1.5,2,inf")
    q.add_argument("--sets", default="plan", metavar="plan|exhaustive|symmetry|auto|FILE.py:FUNC")
    q.add_argument("--neighbours", metavar="RELATION|FILE.py:FUNC", help="exhaustive privacy sets: neighbour relation")
    q.add_argument("--backend", choices=sorted(BACKENDS), default="bdd")
    number_args(q)
    q.add_argument("--format", choices=FORMATS, default="table", dest="fmt")
    q.add_argument("--json", action="store_true", help="the same as --format json")
    q.add_argument("--output", metavar="FILE", help="write the rows to FILE instead of stdout")
    q.add_argument("--plot", metavar="FILE", help="draw the curve into FILE (.png, .pdf or .svg; needs matplotlib)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    limit_args(q)
    q.set_defaults(run=run_sweep)


def _show_progress(args: argparse.Namespace) -> bool:
    return not args.quiet and args.fmt != "json" and sys.stdout.isatty() and sys.stderr.isatty()


#: the options that belong to one kind of sweep only
_OWN = {"alpha": "accuracy", "delta": "approx", "epsilon": "approx", "orders": "renyi"}


def _check_options(args: argparse.Namespace) -> None:
    """Each option belongs to its kinds of sweep; each kind gets what it needs."""
    for option, kind in _OWN.items():
        if getattr(args, option) is not None and args.kind != kind:
            raise WmcdpError(f"--{option} applies to {kind} sweeps")
    if args.compose != 1 and args.kind != "approx":
        raise WmcdpError("--compose applies to approx sweeps")
    if args.kind == "accuracy" and args.neighbours:
        raise WmcdpError("--neighbours applies to privacy, approx and renyi sweeps")
    if args.kind == "accuracy" and args.alpha is None:
        raise WmcdpError("an accuracy sweep needs --alpha")
    if args.kind == "renyi" and args.orders is None:
        raise WmcdpError("a renyi sweep needs --orders")


def run_sweep(args: argparse.Namespace) -> str:
    """Run the sweep; return the rows as text, or "" when they went to ``--output``."""
    if args.json:
        if args.fmt not in ("table", "json"):
            raise WmcdpError("--json and --format are two ways to choose the format; give one")
        args.fmt = "json"
    _check_options(args)
    fixed = params(args.param, args.exact)
    parameter, values = parse_over(args.over, exact=args.exact)
    if args.plot:
        from ..report.plot import require_matplotlib

        require_matplotlib(args.plot)
    exact = exact_mode(args)
    with Progress(len(args.program) * len(values), enabled=_show_progress(args)) as bar:
        progress = lambda done, total, note: bar.update(done, note)  # noqa: E731
        common = {"sets": args.sets, "backend": args.backend, "exact": exact, "progress": progress}
        rows: Sequence[Row]
        if args.kind == "privacy":
            rows = sweep_privacy(args.program, fixed, parameter, values, neighbours=args.neighbours, **common)
        elif args.kind == "accuracy":
            rows = sweep_accuracy(
                args.program, fixed, parameter, values, parse_number(args.alpha, exact=True), **common
            )
        elif args.kind == "approx":
            rows = sweep_approximate(
                args.program,
                fixed,
                parameter,
                values,
                epsilon=args.epsilon,
                delta=args.delta,
                compose=args.compose,
                neighbours=args.neighbours,
                **common,
            )
        else:
            rows = sweep_renyi(
                args.program, fixed, parameter, values, args.orders, neighbours=args.neighbours, **common
            )
    return emit(rows, args)


def emit(rows: list, args: argparse.Namespace) -> str:
    """Rows in the format ``args.fmt``, drawn to ``args.plot`` and written to ``args.output`` when given."""
    text = render_rows(rows, args.fmt)
    try:
        if args.plot:
            from ..report.plot import plot_rows

            plot_rows(rows, args.plot)
        if args.output:
            Path(args.output).write_text(text + "\n")
            return ""
    except OSError as exc:
        raise WmcdpError(f"cannot write {exc.filename or args.output}: {exc.strerror or exc}") from None
    return text


__all__ = ["register", "run_sweep", "emit"]
