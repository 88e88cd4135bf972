"""The ``wmcdp`` command.

    wmcdp privacy NAME -p key=value ... [--sets exhaustive|symmetry|auto|FILE.py:FUNC] [--neighbours REL]
                  [--backend bdd|sdd] [--exact | --exact-floats] [--json]
    wmcdp accuracy NAME -p key=value ... --alpha A [--top K] [--sets ...] [--exact] [--json]
    wmcdp approx NAME -p key=value ... (--delta D | --epsilon E) [--compose K] [--at X] [--sets ...] [--json]
    wmcdp renyi NAME -p key=value ... --orders 1.5,2,inf [--at X] [--sets ...] [--json]
    wmcdp profile NAME -p key=value ... --epsilons 0:3:0.1 [--format F] [--plot FILE]
    wmcdp size NAME -p key=value ... [--backend bdd|sdd] [--dot FILE]
    wmcdp sweep privacy|accuracy|approx|renyi NAME... -p key=value ... --over key=start:stop:step [--format F]
    wmcdp sample NAME -p key=value ... --input 0101 [-k 10000] [--seed S]
    wmcdp crosscheck NAME -p key=value ... [-k 100000] [--confidence 0.999]
    wmcdp symmetry NAME -p key=value ... [--neighbours REL] [--json]
    wmcdp programs [--json]
    wmcdp audit opendp [--sample K] [--level L] [--only TEXT] [--json | --format table|markdown]

NAME is a built-in program or ``path/to/file.py:function``. User errors print one line (under 200 characters)
on stderr and exit with status 2; limits (``--max-nodes``, ``--timeout``, memory) exit
with 3; a crosscheck whose sampling contradicts the exact probabilities, and an audit that
finds a violated claim or a model its sampling contradicts, exit with 1;
Ctrl-C exits with 130. The parsers load nothing heavy (:mod:`.parsers`): a command imports its implementation
when it runs, inside :func:`main`, so ``wmcdp --help`` starts fast and even an interrupt while a module loads
ends in one line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from .. import __version__

if TYPE_CHECKING:
    import argparse

    from .parsers import Parser

EXIT_USAGE, EXIT_LIMIT, EXIT_DISAGREE, EXIT_INTERRUPTED = 2, 3, 1, 130


#: ``sweep`` and ``audit`` define their options in their own modules, which load their implementation: until one
#: of them is chosen it is only a name and a line of help in ``wmcdp --help``
_LOADED_WHEN_CHOSEN = {
    "sweep": "a bound over a range of one parameter: table, CSV, LaTeX, JSON, plot",
    "audit": "check a DP library's claimed epsilons against exact tight ones",
}


def _parser(command: str | None = None) -> Parser:
    """The ``wmcdp`` parser for a run of ``command``: the other commands in :data:`_LOADED_WHEN_CHOSEN` only
    listed; every command in full when ``command`` is None (the whole tree, as tests read it)."""
    from . import parsers  # deferred: loaded by main inside its try (see main)

    p = parsers.Parser(
        prog="wmcdp",
        description="Exact, tight DP and accuracy bounds by weighted model counting. "
        "wmcdp --version prints the version.",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=parsers.Parser)
    parsers.register(sub)
    for name, text in _LOADED_WHEN_CHOSEN.items():
        if command in (None, name):
            import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=text)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # the module itself loads only the standard library: everything else loads here, inside the try, so that Ctrl-C
    # while wmcdp starts ends in one line
    try:
        from ..base.errors import WmcdpError  # deferred: inside the try, for Ctrl-C while starting
        from ..base.limits import LimitExceeded, resource_limits  # deferred: inside the try, as above
        from .parsers import Disagreement, memory_size  # deferred: inside the try, as above
    except KeyboardInterrupt:
        print("wmcdp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] in (["--version"], ["-V"]):
        return _emit(f"wmcdp {__version__}", 0)
    try:
        args = _parser(arguments[0] if arguments else "").parse_args(arguments)
        memory = getattr(args, "max_memory", None)
        with resource_limits(
            getattr(args, "max_nodes", None),
            getattr(args, "timeout", None),
            None if memory is None else memory_size(memory),
        ):
            text = _with_progress(args)
    except WmcdpError as exc:
        print(_line("wmcdp: error: ", str(exc)), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("wmcdp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except LimitExceeded as exc:
        print(_line("wmcdp: stopped: ", str(exc)), file=sys.stderr)
        return EXIT_LIMIT
    except Disagreement as exc:
        return _emit(str(exc), EXIT_DISAGREE)
    except MemoryError:
        print(
            "wmcdp: stopped: out of memory; no bound was computed (use symmetry sets, --max-memory or --max-nodes)",
            file=sys.stderr,
        )
        return EXIT_LIMIT
    return _emit(text, 0)


def _with_progress(args: argparse.Namespace) -> str:
    """The command's run, its phases drawn on stderr (:class:`wmcdp.report.progress.PhaseLine`): from the start with
    ``--progress``; by default once a second has passed, when stderr is a terminal and the output is no JSON;
    never with ``--no-progress``."""
    chosen = getattr(args, "progress", None)
    if chosen is None:
        json = getattr(args, "json", False) or getattr(args, "fmt", None) == "json"
        chosen = not json and sys.stderr.isatty()
    if not chosen:
        text: str = args.run(args)
        return text
    from ..report.progress import PhaseLine  # deferred: wmcdp.cli loads only the standard library (see main)

    with PhaseLine(delay=0.0 if args.progress else 1.0):
        text = args.run(args)
    return text


def _line(prefix: str, message: str) -> str:
    """The line printed for an error or a limit: ``prefix`` and the message on one line of at most
    :data:`wmcdp.base.errors.MAX_LINE` characters (:func:`wmcdp.base.errors.one_line`)."""
    from ..base.errors import MAX_LINE, one_line  # deferred: loaded by main inside its try (see main)

    return prefix + one_line(message, MAX_LINE - len(prefix))


def _emit(text: str, status: int) -> int:
    """Print the result; a reader that went away (``| head``) is not an error, a full disk is one line."""
    try:
        if text:
            print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"wmcdp: error: cannot write the result: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    return status


__all__ = ["main"]
