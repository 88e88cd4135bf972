"""What every ``wmcdp`` command shares when it runs: ``-p`` parameters, number modes, output helpers.

The parser and the shared options live in :mod:`.parsers` (which loads nothing heavy); they are named here too."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..base.certified import FUNCTIONS, Real, float_bracket
from ..base.errors import WmcdpError, brief
from ..base.jsontext import json_text
from ..base.numbers import json_number, parse_number, scientific_whole, show
from ..base.windows import WindowBracket
from ..compile import Compiled, compile_program
from ..count.distributed import Workers
from ..lang.program import Program
from ..lang.registry import build_program
from ..lang.shape import read_witness
from ..lang.subsampling import subsample
from .parsers import (
    Disagreement,
    Parser,
    certified_arg,
    limit_args,
    memory_size,
    number_args,
    privacy_args,
    program_args,
    synthesis_args,
)

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_LIMIT = 3
EXIT_DISAGREE = 1


#: an entry of ``--input``: ASCII digits only (``int`` would read other scripts' digits too)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def params(items: Sequence[str], exact: bool) -> dict[str, Any]:
    """``-p key=value`` items: numbers as int, Fraction or float (decimals exact with ``exact``; a whole number in
    scientific notation, ``1e3``, as its int);
    text that is not a number is passed through as a string (the program decides)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise WmcdpError(f"malformed -p {brief(repr(item))}: expected key=value, e.g. -p lam=0.2")
        try:
            whole = scientific_whole(value)  # -p n=1e3 is the integer 1000, in every mode
            out[key.strip()] = parse_number(value, exact=exact) if whole is None else whole
        except WmcdpError as exc:
            if "is not a number" not in str(exc):
                raise WmcdpError(f"{key.strip()}: {exc}") from None
            out[key.strip()] = _real_or_text(value.strip())
    return out


def _real_or_text(text: str) -> Any:
    """An expression such as ``exp(-1/2)`` as an exact real (:class:`wmcdp.Real`); other text as itself."""
    if not any(f"{name}(" in text for name in FUNCTIONS) and "**" not in text:
        return text
    try:
        return Real(text)
    except WmcdpError:
        return text


#: the JSON key of an enclosure of each quantity (``KEY_interval``)
INTERVAL_KEYS = {"1 - beta": "one_minus_beta"}


def interval_rows(r: Any) -> list[tuple[str, str]]:
    """The certified enclosure of a result, when it has one."""
    if r.interval is None:
        return []
    i = r.interval
    return [(f"{i.of} (certified)", i.text())]


def interval_json(r: Any) -> dict[str, Any]:
    """``epsilon_interval``, ``delta_interval`` or ``one_minus_beta_interval`` and ``precision`` of a certified
    result; a bracket of unbounded noise adds ``window``: the windows' half-width, the tail mass ``T`` (rounded
    up), the unbounded draws, whether the bracket narrowed to the width asked, and why an upper end is infinite."""
    i = r.interval
    if i is None:
        return {}
    out: dict[str, Any] = {f"{INTERVAL_KEYS.get(i.of, i.of)}_interval": i.as_list(), "precision": i.precision}
    return {**out, **window_json(i)}


def window_json(i: Any) -> dict[str, Any]:
    """``window`` of a bracket of unbounded noise (:func:`interval_json`); nothing for another enclosure."""
    if not isinstance(i, WindowBracket):
        return {}
    window = {"half_width": i.half_width, "tail": float_bracket(i.tail)[1], "draws": i.draws, "narrowed": i.narrowed}
    return {"window": {**window, "reason": i.reason or None}}


def exact_mode(args: argparse.Namespace) -> Any:
    """The ``exact`` argument of the API: True (--exact), "binary" (--exact-floats) or None."""
    if getattr(args, "exact_floats", False):
        return "binary"
    return True if getattr(args, "exact", False) else None


def program_of(args: argparse.Namespace) -> Program:
    return subsampled(args, build_program(args.program, params(args.param, bool(getattr(args, "exact", False)))))


def subsampled(args: argparse.Namespace, program: Program) -> Program:
    """``program`` on the subsample of ``--subsample Q`` or ``--subsample-n N`` (with ``--absent V``), or
    ``program`` itself without them (:func:`wmcdp.subsample`; ``Q`` parses as ``-p`` values do)."""
    q, n, absent = (getattr(args, name, None) for name in ("subsample", "subsample_n", "absent"))
    if q is None:
        if absent is not None:
            raise WmcdpError("--absent applies with --subsample (Poisson sampling) only")
        if n is None:
            return program

    return subsample(
        program,
        None if q is None else _rate(q, args),
        n=None if n is None else _option_number("--subsample-n", n, True),
        absent=None if absent is None else _option_number("--absent", absent, True),
    )


def _rate(text: str, args: argparse.Namespace) -> Any:
    """The rate of ``--subsample``: a float below the normal range is refused in float mode, where its few
    significant bits would break the promise of agreeing with exact mode (``--exact`` reads the decimal exactly,
    ``--exact-floats`` the binary64 value)."""
    q = _option_number("--subsample", text, bool(getattr(args, "exact", False)))
    if isinstance(q, float) and 0 < q < sys.float_info.min and not getattr(args, "exact_floats", False):
        raise WmcdpError(
            f"--subsample {brief(text.strip())} is a subnormal float (below 2^-1022): give a fraction, or use --exact "
            "or --exact-floats"
        )
    return q


def _option_number(option: str, text: str, exact: bool) -> Any:
    """The number an option gives (``1/5`` exact, a decimal a float unless ``exact``), or one line naming it."""
    try:
        return parse_number(text, exact=exact)
    except WmcdpError as exc:
        raise WmcdpError(f"{option}: {exc}") from None


def compiled_of(args: argparse.Namespace, program: Program | None = None) -> Compiled:
    program = program or program_of(args)
    backend = getattr(args, "backend", None)
    return compile_program(
        program, "bdd" if backend is None else backend, exact_floats=bool(getattr(args, "exact_floats", False))
    )


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


@contextmanager
def workers_of(args: argparse.Namespace) -> Iterator[Any]:
    """The Dask workers of ``--workers`` / ``--scheduler`` for the block (None without them)."""
    if getattr(args, "workers", None) is None and getattr(args, "scheduler", None) is None:
        yield None
        return

    with Workers(args.workers, scheduler=args.scheduler) as workers:
        yield workers


def forced_plan_of(args: argparse.Namespace, at: bool = False) -> dict[str, Any]:
    """``{"plan": NAME}`` of ``--plan NAME`` (empty without it); a forced plan is the planner's, so it takes
    none of the options that give the sets or pairs, or spread them (``--at`` only where the notion runs its
    plans at one database: ``at``, pure ε)."""
    if getattr(args, "plan", None) is None:
        return {}
    options: tuple[tuple[str, str], ...] = (("--sets", "sets"), ("--at", "at"), ("--shuffle", "shuffle"))
    options += (("--workers", "workers"), ("--scheduler", "scheduler"), ("--then", "then"), ("--steps", "steps"))
    options += (("--certified", "certified"),)
    given = [
        option
        for option, name in options
        if getattr(args, name, None) not in (None, False, "plan", []) and not (at and name == "at")
    ]
    if given:
        raise WmcdpError(f"--plan runs one of the planner's plans: leave out {', '.join(given)}")
    return {"plan": args.plan}


def plan_json(plan: Any) -> dict[str, Any]:
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
        (
            "plan seconds",
            f"{estimate}detection {plan.detection_seconds:.4f} s"
            + (f" ({plan.detection_work:.3g} work units)" if getattr(plan, "detection_work", 0) else "")
            + f", total {plan.seconds:.4f} s",
        ),
    ]


def parse_input(text: str, program: Program) -> tuple[int, ...]:
    """An input: digits without commas when every entry is one digit (``0101``, ``210`` on ``{0..2}^3``),
    entries separated by commas otherwise (``2,0,1``, ``10,-1``), or a witness as printed (``0^99999 1``,
    ``(3^500, 2)``: :func:`wmcdp.lang.shape.read_witness`, no longer than the domain). ASCII digits only."""
    t = text.strip()
    domain = program.inputs
    if "^" in t or t.startswith("("):
        value = read_witness(t, most=domain.n)
        return domain.check(list(value) if isinstance(value, tuple) else [value])
    one_digit = domain.lo >= 0 and domain.hi <= 9
    digits = t.isascii() and t.isdigit()
    if one_digit and digits and len(t) != domain.n and domain.n > 1:
        raise WmcdpError(
            f"input {brief(t)} is outside the domain {domain.describe()} ({len(t)} digits, not {domain.n})"
        )
    parts = t.split(",") if "," in t else list(t) if one_digit and digits and len(t) == domain.n else [t]
    if not all(_INTEGER.fullmatch(p.strip()) for p in parts):
        raise WmcdpError(f"--input {brief(repr(text))} is not a list of integers (e.g. 0101 or 2,0,1)")
    return domain.check([int(p) for p in parts])


__all__ = [
    "Parser",
    "forced_plan_of",
    "Disagreement",
    "params",
    "exact_mode",
    "certified_arg",
    "interval_rows",
    "interval_json",
    "window_json",
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
    "parse_input",
    "sets_label",
]
