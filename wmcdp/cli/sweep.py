"""``wmcdp sweep KIND NAME... -p key=value ... --over key=start:stop:step``.

``KIND`` is the sweep command of a notion (:func:`wmcdp.notions.notion.commands`: privacy, accuracy, approx,
renyi, and any notion registered since) and its options are those of the notion's record. One row per
(program, value) in a table, CSV, Markdown, LaTeX or JSON, optionally to a file (``--output``) and as a curve
(``--plot``). The points done and the phase of the one under way appear on stderr as for every command
(:func:`wmcdp.cli.main`; ``--quiet`` is ``--no-progress``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..base import progress
from ..base.errors import WmcdpError
from ..compile import BACKENDS
from ..notions.catalogue import commands
from ..notions.notion import Option
from ..notions.sweep import Row, parse_over, sweep
from ..report.plot import plot_rows, require_matplotlib
from ..report.schema import envelope
from ..report.tables import FORMATS, render_rows, rows_exact
from .common import exact_mode, limit_args, number_args, params
from .parsers import progress_arg


def _own_options() -> dict[str, tuple[Option, list[str]]]:
    """Each option of the notions' own, with the sweep commands that take it (options of one notion first)."""
    out: dict[str, tuple[Option, list[str]]] = {}
    for command, kind in commands().items():
        for option in kind.options:
            out.setdefault(option.name, (option, []))[1].append(command)
    return dict(sorted(out.items(), key=lambda item: len(item[1][1]) > 1))


def _add(q: Any, option: Option) -> None:
    extra = {"type": option.type} if option.type else {}
    names = [f"--{name}" for name in (option.name, *option.aliases)]
    q.add_argument(*names, dest=option.name, default=option.default, metavar=option.metavar, help=option.help, **extra)


def _listed(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def register(sub: Any) -> None:
    """Register ``sweep`` on the ``wmcdp`` subparsers: one kind per notion with a sweep command."""
    q = sub.add_parser("sweep", help="a bound over a range of one parameter: table, CSV, LaTeX, JSON, plot")
    kinds = commands()
    helps = [kind.help for kind in kinds.values()]
    q.add_argument("kind", choices=list(kinds), help=f"{', '.join(helps[:-1])}, or {helps[-1]}")
    q.add_argument("program", nargs="+", metavar="NAME", help="built-in program(s) or path/to/file.py:function")
    q.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="fixed parameter")
    q.add_argument(
        "--over",
        required=True,
        metavar="KEY=RANGE",
        help="swept parameter: start:stop[:step] (stop included when reached) or v1,v2,...",
    )
    options = _own_options()
    for option, owners in options.values():
        if len(owners) == 1:
            _add(q, option)
    q.add_argument("--sets", default="plan", metavar="plan|exhaustive|symmetry|auto|FILE.py:FUNC")
    for option, owners in options.values():
        if len(owners) > 1:
            _add(q, option)
    q.add_argument("--backend", choices=sorted(BACKENDS), default="bdd")
    number_args(q)
    q.add_argument("--format", choices=FORMATS, default="table", dest="fmt")
    q.add_argument("--json", action="store_true", help="the same as --format json")
    q.add_argument("--output", metavar="FILE", help="write the rows to FILE instead of stdout")
    q.add_argument("--plot", metavar="FILE", help="draw the curve into FILE (.png, .pdf or .svg; needs matplotlib)")
    progress_arg(q)
    q.add_argument("--quiet", dest="progress", action="store_false", help="the same as --no-progress")
    limit_args(q)
    q.set_defaults(run=run_sweep)


def _notion_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of the sweep's notion, converted; each option belongs to its kinds of sweep and each kind
    gets the options it needs."""
    for option, owners in _own_options().values():
        if getattr(args, option.name) not in (None, option.default) and args.kind not in owners:
            raise WmcdpError(f"--{option.name} applies to {_listed(owners)} sweeps")
    out = {}
    for option in commands()[args.kind].options:
        value = getattr(args, option.name)
        if option.required and value is None:
            raise WmcdpError(f"{'an' if args.kind[0] in 'aeiou' else 'a'} {args.kind} sweep needs --{option.name}")
        out[option.name] = option.parse(value) if option.parse and value is not None else value
    return out


def run_sweep(args: argparse.Namespace) -> str:
    """Run the sweep; return the rows as text, or "" when they went to ``--output``."""
    json_format(args)
    own = _notion_options(args)
    fixed = params(args.param, args.exact)
    parameter, values = parse_over(args.over, exact=args.exact)
    if args.plot:
        require_matplotlib(args.plot)
    exact = exact_mode(args)
    rows = sweep(
        commands()[args.kind].name,
        args.program,
        fixed,
        parameter,
        values,
        progress=progress.point,
        sets=args.sets,
        backend=args.backend,
        exact=exact,
        **own,
    )
    head = envelope("sweep", neighbours=args.neighbours, exact=rows_exact(rows))
    return emit(rows, args, {**head, "notion": commands()[args.kind].name, "parameter": parameter})


def json_format(args: argparse.Namespace) -> None:
    """``--json`` as ``--format json``; with another ``--format`` it is one clear error."""
    if args.json:
        if args.fmt not in ("table", "json"):
            raise WmcdpError("--json and --format are two ways to choose the format; give one")
        args.fmt = "json"


def emit(rows: Sequence[Row], args: argparse.Namespace, head: dict[str, Any] | None = None) -> str:
    """Rows in the format ``args.fmt`` (JSON with ``head`` first), drawn to ``args.plot`` and written to
    ``args.output`` when given."""
    text = render_rows(rows, args.fmt, head)
    try:
        if args.plot:
            plot_rows(rows, args.plot)
        if args.output:
            Path(args.output).write_text(text + "\n")
            return ""
    except OSError as exc:
        raise WmcdpError(f"cannot write {exc.filename or args.output}: {exc.strerror or exc}") from None
    return text


__all__ = ["register", "run_sweep", "emit", "json_format"]
