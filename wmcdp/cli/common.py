"""What every ``wmcdp`` command shares: the parser, ``-p`` parameters, number modes, output helpers."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.jsontext import json_text
from ..base.limits import MAX_MEMORY
from ..base.numbers import in_float_range, log_text, parse_number, scientific_text, show
from ..compile import BACKENDS, Compiled, compile_program
from ..lang.program import Program
from ..lang.registry import build_program
from ..lang.relations import NEIGHBOURS

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_LIMIT = 3
EXIT_DISAGREE = 1


class Parser(argparse.ArgumentParser):
    """argparse that raises a :class:`WmcdpError` (one line, exit 2) instead of exiting."""

    def error(self, message: str):
        raise WmcdpError(message)


class Disagreement(Exception):
    """A check contradicts the exact result (exit status 1); the message is the full report."""


def params(items: Sequence[str], exact: bool) -> dict[str, Any]:
    """``-p key=value`` items: numbers as int, Fraction or float (decimals exact with ``exact``);
    text that is not a number is passed through as a string (the program decides)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise WmcdpError(f"malformed -p {item!r}: expected key=value, e.g. -p lam=0.2")
        try:
            out[key.strip()] = parse_number(value, exact=exact)
        except WmcdpError as exc:
            if "is not a number" not in str(exc):
                raise WmcdpError(f"{key.strip()}: {exc}") from None
            out[key.strip()] = _real_or_text(value.strip())
    return out


def _real_or_text(text: str) -> Any:
    """An expression such as ``exp(-1/2)`` as an exact real (:class:`wmcdp.Real`); other text as itself."""
    from ..base.certified import FUNCTIONS, Real

    if not any(f"{name}(" in text for name in FUNCTIONS) and "**" not in text:
        return text
    try:
        return Real(text)
    except WmcdpError:
        return text


def certified_arg(q: argparse.ArgumentParser) -> None:
    q.add_argument(
        "--certified",
        action="store_true",
        help="a rigorous enclosure for weights given as exp, log or sqrt of rationals (-p lam='1/(1+exp(1/2))')",
    )


def interval_rows(r: Any) -> list[tuple[str, str]]:
    """The certified enclosure of a result, when it has one."""
    if r.interval is None:
        return []
    i = r.interval
    return [(f"{i.of} (certified)", i.text())]


def interval_json(r: Any) -> dict[str, Any]:
    """``epsilon_interval`` or ``delta_interval`` and ``precision`` of a certified result."""
    if r.interval is None:
        return {}
    return {f"{r.interval.of}_interval": r.interval.as_list(), "precision": r.interval.precision}


def exact_mode(args: argparse.Namespace) -> Any:
    """The ``exact`` argument of the API: True (--exact), "binary" (--exact-floats) or None."""
    if getattr(args, "exact_floats", False):
        return "binary"
    return True if getattr(args, "exact", False) else None


def program_of(args: argparse.Namespace) -> Program:
    return build_program(args.program, params(args.param, bool(getattr(args, "exact", False))))


def compiled_of(args: argparse.Namespace, program: Program | None = None) -> Compiled:
    program = program or program_of(args)
    backend = getattr(args, "backend", None)
    return compile_program(
        program, "bdd" if backend is None else backend, exact_floats=bool(getattr(args, "exact_floats", False))
    )


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]i?[bB]?|[bB])?\s*$")


_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_size(text: str) -> int:
    """``--max-memory``: bytes, or a number with K, M, G or T (binary units: 4G = 4 GiB)."""
    m = _SIZE.match(text)
    if not m:
        raise WmcdpError(f"--max-memory {text!r} is not a size such as 4G, 512M or 1073741824")
    unit = (m.group(2) or "b")[0].lower()
    number = m.group(1)
    whole_digits = len(number.partition(".")[0].lstrip("0"))
    if whole_digits > 20 or len(number) > 60 or (size := int(Fraction(number) * _UNITS[unit])) > MAX_MEMORY:
        raise WmcdpError(f"--max-memory {text:.40} is not a size from 1M to 1 EiB (2^60 bytes)")
    return size


def json_number(value: Any, log: float | None = None) -> Any:
    """A number for JSON: a float where one holds it; else a string in scientific notation (``"1e-600"``),
    from the exact value or from its natural ``log`` (a float result that over- or underflowed); true
    infinities as ``"inf"`` / ``"-inf"``."""
    if isinstance(value, float):
        if log is not None and math.isfinite(log) and (math.isinf(value) or value == 0.0):
            return log_text(log)
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if not in_float_range(value):
        return scientific_text(value)
    return float(value)


def dumps(data: Any) -> str:
    """The ``--json`` text of a result: numbers of any size written exactly (:mod:`wmcdp.base.jsontext`)."""
    return json_text(data)


def table(title: str, rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join([title] + [f"  {k:<{width}}  {v}" for k, v in rows])


def mode_text(exact: bool, args: argparse.Namespace) -> str:
    """``exact`` / ``exact (binary floats)`` / ``certified`` / ``float``, for titles."""
    if getattr(args, "certified", False):
        return "certified enclosure"
    if not exact:
        return "float"
    if getattr(args, "exact_floats", False):
        return "exact, floats read as binary64 values"
    return "exact" if getattr(args, "exact", False) else "exact: every weight is rational"


# -- shared options -------------------------------------------------------------------------


def program_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("program", help="built-in program name or path/to/file.py:function")
    q.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="program parameter (repeatable); '1/5' is exact",
    )
    q.add_argument("--json", action="store_true", help="print one JSON object")


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


def synthesis_args(q: argparse.ArgumentParser) -> None:
    program_args(q)
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


@contextmanager
def workers_of(args: argparse.Namespace) -> Iterator[Any]:
    """The Dask workers of ``--workers`` / ``--scheduler`` for the block (None without them)."""
    if getattr(args, "workers", None) is None and getattr(args, "scheduler", None) is None:
        yield None
        return
    from ..count.distributed import Workers

    with Workers(args.workers, scheduler=args.scheduler) as workers:
        yield workers


def plan_json(plan: Any) -> dict:
    """The ``plan`` key of a result computed by the planner (nothing otherwise)."""
    return {} if plan is None else {"plan": plan.as_dict()}


def sets_label(sets: str, plan: Any) -> str:
    """The sets of a title: ``planned: product`` for the planner's choice, ``exhaustive sets`` otherwise."""
    if plan is not None:
        return f"planned: {plan.kind}"
    return "exhaustive sets" if sets == "plan" else f"{sets} sets"


def plan_rows(plan: Any) -> list[tuple[str, str]]:
    """Table rows for the planner's report: the plan, the claims it relies on (each with how it was proved), and
    its estimated and actual seconds."""
    if plan is None:
        return []
    estimate = "" if plan.estimated_seconds is None else f"estimated {plan.estimated_seconds:.3g} s, "
    return [
        ("plan", plan.text()),
        *[("claim", line) for line in plan.claims_text()],
        ("plan seconds", f"{estimate}detection {plan.detection_seconds:.4f} s, total {plan.seconds:.4f} s"),
    ]


def privacy_args(q: argparse.ArgumentParser) -> None:
    synthesis_args(q)
    q.add_argument(
        "--neighbours", metavar="|".join(NEIGHBOURS) + "|FILE.py:FUNC", help="default: the program's own relation"
    )


__all__ = [
    "Parser",
    "Disagreement",
    "params",
    "exact_mode",
    "certified_arg",
    "interval_rows",
    "interval_json",
    "program_of",
    "compiled_of",
    "json_number",
    "show",
    "table",
    "program_args",
    "number_args",
    "limit_args",
    "synthesis_args",
    "privacy_args",
    "memory_size",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "EXIT_LIMIT",
    "EXIT_DISAGREE",
    "mode_text",
    "dumps",
    "workers_of",
    "plan_json",
    "plan_rows",
    "sets_label",
]
