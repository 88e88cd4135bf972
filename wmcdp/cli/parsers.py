"""The ``wmcdp`` commands' options, and what :func:`wmcdp.cli.main` needs before a command runs.

This module imports only the standard library and :mod:`wmcdp.base.errors` / :mod:`wmcdp.base.limits`:
``wmcdp --help`` and ``wmcdp privacy --help`` build these parsers without loading a compiler, numpy or
networkx. Each command's run function is named here and imported when that command runs (:func:`_run`).
The names the options list (backends, neighbour relations, formats, accountants) are written out here;
tests/test_startup.py checks them against the implementation's own tables.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from fractions import Fraction
from importlib import import_module
from typing import Any, NoReturn

from ..base.errors import WmcdpError, brief, suggest
from ..base.limits import MAX_MEMORY
from ..plan.forced import PLANS

#: the knowledge compilers (``wmcdp.compile.BACKENDS``)
BACKENDS = ("bdd", "sdd")
#: the built-in neighbour relations (``wmcdp.lang.relations.NEIGHBOURS``)
NEIGHBOURS = ("hamming", "one-entry", "all-entries", "monotone", "add-remove")
#: the formats of rows (``wmcdp.report.tables.FORMATS``)
FORMATS = ("table", "csv", "markdown", "latex", "json")
#: how ``--compose`` composes (``wmcdp.notions.approximate.ACCOUNTANTS``)
ACCOUNTANTS = ("exact", "dp-accounting")


#: argparse's refusal of a value outside the choices (Python 3.12.8 and later leave the choices unquoted)
_CHOICE = re.compile(r"invalid choice: (.+?) \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse that raises a :class:`WmcdpError` (one line, exit 2) instead of exiting, and ends its refusal of an
    unknown option or choice with the closest known ones (``did you mean --neighbours?``)."""

    def error(self, message: str) -> NoReturn:
        m = _CHOICE.search(message)
        near = m and suggest(m.group(1).strip("'\""), [c.strip(" '\"") for c in m.group(2).split(",")])
        if m and near:  # before the list of choices, which a long line shortens
            message = f"{message[: m.start()]}invalid choice: {m.group(1)}; {near} (choose from {m.group(2)})"
        raise WmcdpError(message)

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        parsed: argparse.Namespace
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            unknown = next((word.partition("=")[0] for word in extra if word.startswith("-")), None)
            near = unknown and suggest(unknown, self._options(parsed))
            text = f"unrecognized arguments: {brief(' '.join(extra))}"
            raise WmcdpError(f"{text}; {near}" if near else text)
        return parsed

    def _options(self, parsed: argparse.Namespace) -> list[str]:
        """The option strings of this parser and of the command ``parsed`` chose (its subparser)."""
        options = [s for action in self._actions for s in action.option_strings]
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, Parser):
                    options += chosen._options(parsed)
        return options


class Disagreement(Exception):
    """A check contradicts the exact result (exit status 1); the message is the full report."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]i?[bB]?|[bB])?\s*$")
_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_size(text: str) -> int:
    """``--max-memory``: bytes, or a number with K, M, G or T (binary units: 4G = 4 GiB)."""
    m = _SIZE.match(text)
    if not m:
        raise WmcdpError(f"--max-memory {brief(repr(text))} is not a size such as 4G, 512M or 1073741824")
    unit = (m.group(2) or "b")[0].lower()
    number = m.group(1)
    whole_digits = len(number.partition(".")[0].lstrip("0"))
    if whole_digits > 20 or len(number) > 60 or (size := int(Fraction(number) * _UNITS[unit])) > MAX_MEMORY:
        raise WmcdpError(f"--max-memory {text:.40} is not a size from 1M to 1 EiB (2^60 bytes)")
    return size


def _run(module: str, function: str) -> Callable[[argparse.Namespace], str]:
    """The run of a command: ``wmcdp.cli.<module>.<function>``, imported only when the command runs."""

    def run(args: argparse.Namespace) -> str:
        text: str = getattr(import_module(f"{__package__}.{module}"), function)(args)
        return text

    return run


# -- shared options -------------------------------------------------------------------------


class _StepParam(argparse.Action):
    """``-p``: a parameter of the program, or of the last ``--then`` step once one is given."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, value: Any, option: Any = None) -> None:
        steps = getattr(namespace, "then", None)
        if steps:
            steps[-1]["param"].append(value)
        else:  # a new list, as argparse's append does: the default one is shared by every parse
            namespace.param = [*namespace.param, value]


class _Then(argparse.Action):
    """``--then NAME``: start a new step of a sequence (its ``-p`` and ``--times`` follow it)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, value: Any, option: Any = None) -> None:
        namespace.then = [*(namespace.then or []), {"program": value, "param": [], "times": None}]


class _Times(argparse.Action):
    """``--times K``: how many runs of the step it follows (the positional program before any ``--then``)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, value: Any, option: Any = None) -> None:
        if namespace.then:
            namespace.then[-1]["times"] = value
        else:
            namespace.times = value


def program_args(q: argparse.ArgumentParser, optional: bool = False) -> None:
    q.add_argument("program", nargs="?" if optional else None, help="built-in program name or path/to/file.py:function")
    q.add_argument(
        "-p",
        "--param",
        action=_StepParam,
        default=[],
        metavar="KEY=VALUE",
        help="program parameter (repeatable); '1/5' is exact",
    )
    q.add_argument("--json", action="store_true", help="print one JSON object")
    progress_arg(q)


def progress_arg(q: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress``: the run's phases on stderr, whatever stderr is (default: on a terminal
    after a second, never with JSON output)."""
    q.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show the run's phases and progress on stderr from the start (default: on a terminal after 1 s, "
        "not with JSON output); --no-progress: never",
    )


def number_args(q: argparse.ArgumentParser) -> None:
    mode = q.add_mutually_exclusive_group()
    mode.add_argument("--exact", action="store_true", help="exact rationals (decimals parse as fractions)")
    mode.add_argument(
        "--exact-floats",
        action="store_true",
        help="exact rationals, reading each float probability as its exact binary64 value",
    )


def limit_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("--max-nodes", type=int, metavar="N", help="stop (exit 3) when the diagram exceeds N nodes")
    q.add_argument("--timeout", type=float, metavar="S", help="stop (exit 3) after S seconds")
    q.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="memory cap, e.g. 4G (default: 3/4 of the machine's memory); counts use at most a quarter",
    )


def certified_arg(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--certified",
        action="store_true",
        help="a rigorous enclosure for weights given as exp, log or sqrt of rationals (-p lam='1/(1+exp(1/2))')",
    )


def width_arg(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--width",
        type=float,
        help="for unbounded noise (geometric, discrete_gaussian): the relative width to narrow the bracket to "
        "(default 1e-6)",
    )


def synthesis_args(q: argparse.ArgumentParser, optional: bool = False) -> None:
    program_args(q, optional)
    q.add_argument(
        "--sets",
        default="plan",
        metavar="plan|exhaustive|symmetry|auto|FILE.py:FUNC",
        help="the planner's choice (default: independent parts, proved symmetries or exhaustive sets, "
        "whichever is cheapest), exhaustive sets, the program's hand-proved symmetry sets, orbit "
        "sets of the symmetries wmcdp proves (auto), or your own",
    )
    q.add_argument("--backend", default="bdd", metavar="|".join(BACKENDS), help="knowledge compiler")
    number_args(q)
    q.add_argument("--force", action="store_true", help="run exhaustive sets over the size limits")
    limit_args(q)
    spread = q.add_mutually_exclusive_group()
    spread.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="spread exhaustive sets over N local processes, at most two per processor "
        "(a Dask LocalCluster; needs wmcdp[distributed])",
    )
    spread.add_argument("--scheduler", metavar="ADDRESS", help="spread exhaustive sets over a running Dask cluster")


def plan_arg(q: argparse.ArgumentParser) -> None:
    """``--plan NAME``: one plan of the planner, run even where exhaustive sets are quick (:mod:`wmcdp.plan.forced`)."""
    q.add_argument(
        "--plan",
        metavar="|".join(PLANS) + "|NAME",
        help="run this plan of the planner even where exhaustive sets are quick (refused when it does not apply); "
        "NAME: a plan registered through wmcdp.plan.protocol (pure epsilon)",
    )


def privacy_args(q: argparse.ArgumentParser, optional: bool = False) -> None:
    synthesis_args(q, optional)
    q.add_argument(
        "--neighbours",
        "--neighbors",
        metavar="|".join(NEIGHBOURS) + "|FILE.py:FUNC",
        help="default: the program's own relation",
    )


def symbolic_args(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--symbolic",
        metavar="NAME=LO:HI",
        help="the bound as a function of the parameter NAME over [LO, HI] (rationals): exact pieces",
    )
    q.add_argument(
        "--format",
        dest="fmt",
        default="table",
        choices=["table", "json", "latex"],
        help="with --symbolic: the pieces as a table, JSON, or a LaTeX cases environment",
    )
    q.add_argument("--plot", metavar="FILE", help="with --symbolic: draw the bound against the parameter")


def composition_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("--compose", type=int, default=1, metavar="K", help="K runs on the same pair (default 1)")
    q.add_argument(
        "--accountant",
        default="exact",
        metavar="|".join(ACCOUNTANTS),
        help="compose exactly (default) or through dp-accounting's PLD (needs wmcdp[accounting])",
    )
    q.add_argument(
        "--interval",
        type=float,
        default=1e-4,
        metavar="H",
        help="dp-accounting's discretisation interval (default 1e-4)",
    )


def subsample_args(q: argparse.ArgumentParser) -> None:
    """``--subsample Q`` / ``--subsample-n N`` (and ``--absent V``): the program on a random subsample of its records
    (:func:`wmcdp.subsample`)."""
    how = q.add_mutually_exclusive_group()
    how.add_argument(
        "--subsample",
        metavar="Q",
        help="run the program on a Poisson subsample at rate Q, under add/remove neighbours ('1/5' is exact)",
    )
    how.add_argument(
        "--subsample-n",
        metavar="N",
        help="the program's m entries are m of N records drawn without replacement, under substitution (hamming)",
    )
    q.add_argument(
        "--absent", metavar="V", help="with --subsample: the entry value of an empty slot (default: the lowest)"
    )


def sequence_args(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--then",
        action=_Then,
        metavar="NAME",
        help="compose with this program next, on the same pair (repeatable; its -p and --times follow it)",
    )
    q.add_argument("--times", action=_Times, type=int, metavar="K", help="runs of the step this follows (default 1)")
    q.add_argument("--steps", metavar="FILE", help="a JSON list of steps: {program, params, times} each")
    q.add_argument(
        "--max-groups",
        type=int,
        default=1 << 20,
        metavar="N",
        help="a sequence: most distinct losses held exactly, else clusters of the bracket (default 2^20)",
    )


def shuffle_arg(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--shuffle",
        metavar="N",
        help="the program is one user's local randomizer with two reports (-p n=1 for a built-in one): the bound "
        "of N users' shuffled reports over every dataset (float, with a certified enclosure)",
    )


def pair_args(q: argparse.ArgumentParser, optional: bool = False) -> None:
    privacy_args(q, optional)
    q.add_argument("--at", metavar="X", help="the data-centric pairs of the database X only (0101 or 2,0,1)")


def sampling_args(q: argparse.ArgumentParser, k: int) -> None:
    q.add_argument("-k", type=int, default=k, help=f"number of samples (default {k})")
    q.add_argument("--seed", type=int, default=0, help="seed of the random number generator (default 0)")


# -- the commands ---------------------------------------------------------------------------


def _bounds(sub: Any) -> None:
    q = sub.add_parser("privacy", help="tight epsilon and its witness (Algorithm 2)")
    privacy_args(q)
    q.add_argument(
        "--at",
        metavar="X",
        help="the data-centric epsilon of the database X (0101 or 2,0,1): the pairs of X and its neighbours only",
    )
    subsample_args(q)
    symbolic_args(q)
    certified_arg(q)
    width_arg(q)
    plan_arg(q)
    q.add_argument(
        "--every-n",
        type=int,
        metavar="N",
        help="the family at n = 1 .. N (leave out -p n): exact eps(n) per size and a proved statement for every n",
    )
    q.add_argument("--every-n-from", type=int, default=1, metavar="N0", help="with --every-n: the first size (1)")
    q.set_defaults(run=_run("bounds", "run_privacy"))

    q = sub.add_parser("accuracy", help="tight (alpha, beta)-accuracy and the worst inputs (Algorithm 3)")
    synthesis_args(q)
    q.add_argument("--alpha", required=True, help="accuracy radius alpha >= 0")
    q.add_argument("--top", type=int, default=0, help="also list the K inputs with the lowest 1 - beta")
    symbolic_args(q)
    width_arg(q)
    plan_arg(q)
    q.set_defaults(run=_run("bounds", "run_accuracy"))


def _beyond(sub: Any) -> None:
    q = sub.add_parser("approx", help="tight (epsilon, delta): delta(epsilon) or epsilon(delta), and its pair")
    pair_args(q, optional=True)
    sequence_args(q)
    q.add_argument("--delta", help="find the smallest epsilon >= 0 with delta(epsilon) <= DELTA")
    q.add_argument("--epsilon", help="find delta(EPSILON); ln:3/2 is epsilon = ln(3/2), exact (give one of the two)")
    composition_args(q)
    subsample_args(q)
    shuffle_arg(q)
    symbolic_args(q)
    certified_arg(q)
    width_arg(q)
    plan_arg(q)
    q.set_defaults(run=_run("beyond", "run_approx"))

    q = sub.add_parser("renyi", help="tight Rényi divergences D_alpha and zCDP rho, with their pairs")
    pair_args(q)
    q.add_argument("--orders", required=True, help="Rényi orders > 1, e.g. 1.5,2,4,inf")
    subsample_args(q)
    certified_arg(q)
    width_arg(q)
    plan_arg(q)
    q.set_defaults(run=_run("beyond", "run_renyi"))

    q = sub.add_parser("profile", help="the privacy profile delta(epsilon) over a grid of epsilons")
    pair_args(q)
    q.add_argument("--epsilons", required=True, help="start:stop:step, a list v1,v2,..., or both; ln:R is exact")
    composition_args(q)
    subsample_args(q)
    shuffle_arg(q)
    q.add_argument("--format", choices=FORMATS, default="table", dest="fmt")
    q.add_argument("--output", metavar="FILE", help="write the rows to FILE instead of stdout")
    q.add_argument("--plot", metavar="FILE", help="draw delta against epsilon into FILE (.png, .pdf or .svg)")
    plan_arg(q)
    q.set_defaults(run=_run("beyond", "run_profile"))


def _tools(sub: Any) -> None:
    q = sub.add_parser("sample", help="run a program on one concrete input with a seeded RNG")
    program_args(q)
    number_args(q)
    limit_args(q)
    q.add_argument("--input", required=True, help="the input: 0101 for bits, 2,0,1 for integers")
    sampling_args(q, 10_000)
    q.add_argument("--show", type=int, default=20, help="list this many most frequent outputs")
    q.set_defaults(run=_run("tools", "run_sample"))

    q = sub.add_parser("crosscheck", help="confirm the probabilities behind the privacy bound by sampling")
    privacy_args(q)
    sampling_args(q, 100_000)
    q.add_argument("--confidence", type=float, default=0.999, help="interval confidence (default 0.999)")
    q.set_defaults(run=_run("tools", "run_crosscheck"))

    q = sub.add_parser("size", help="compiled diagram sizes (BDD and SDD)")
    program_args(q)
    q.add_argument("--backend", choices=sorted(BACKENDS), help="only this backend (default: both)")
    q.add_argument("--dot", metavar="FILE", help="write the diagram phi as Graphviz DOT (the BDD unless --backend sdd)")
    q.add_argument("--input", help="report the output-bit size for this concrete input (as Dice counts)")
    limit_args(q)
    q.set_defaults(run=_run("tools", "run_size"))

    q = sub.add_parser("programs", help="list the built-in programs and their parameters")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(run=_run("tools", "run_programs"))


def _symmetry(sub: Any) -> None:
    q = sub.add_parser("symmetry", help="the symmetries wmcdp proves for a program and its orbit-set sizes")
    program_args(q)
    q.add_argument(
        "--backend", default="bdd", metavar="|".join(BACKENDS), help="knowledge compiler (proofs always use a BDD)"
    )
    q.add_argument(
        "--neighbours", "--neighbors", metavar="|".join(NEIGHBOURS), help="default: the program's own relation"
    )
    limit_args(q)
    q.set_defaults(run=_run("symmetry", "run_symmetry"))


def register(sub: Any) -> None:
    """Add the commands defined here (all but ``sweep`` and ``audit``) to the ``wmcdp`` subparsers."""
    _bounds(sub)
    _beyond(sub)
    _tools(sub)
    _symmetry(sub)


__all__ = [
    "ACCOUNTANTS",
    "BACKENDS",
    "FORMATS",
    "NEIGHBOURS",
    "Disagreement",
    "Parser",
    "certified_arg",
    "composition_args",
    "limit_args",
    "memory_size",
    "number_args",
    "pair_args",
    "privacy_args",
    "program_args",
    "progress_arg",
    "register",
    "sampling_args",
    "shuffle_arg",
    "subsample_args",
    "symbolic_args",
    "synthesis_args",
]
