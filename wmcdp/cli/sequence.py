"""``wmcdp approx`` over a sequence of programs: ``--then NAME -p ... --times K`` or ``--steps FILE``.

The positional program is the first step; each ``--then NAME`` starts the next, and the ``-p`` and
``--times K`` options after it belong to it (``--times`` before any ``--then`` counts the first step). A steps
file is a JSON list of ``{"program": NAME, "params": {KEY: VALUE}, "times": K}`` objects (``params`` and
``times`` optional; a value such as ``"1/4"`` is exact). All steps run on the same pair of neighbours
(:func:`wmcdp.notions.sequence.compose_approximate`). With ``--subsample Q`` or ``--subsample-n N``
every step runs on its own fresh subsample (each run of each step samples anew, as in DP-SGD).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import exact_text, format_number
from ..lang.program import Program
from ..lang.registry import build_program, find_relation
from ..lang.shape import witness_text
from ..notions.approximate import Threshold
from ..notions.sequence import ComposedResult, compose_approximate, format_bracket
from ..report.schema import envelope, exact_value, neighbours_name, witness_of
from .common import dumps, exact_mode, json_number, params, subsampled, table


def _file_steps(path: str, exact: bool) -> list[tuple[Program, int]]:
    try:
        with open(path, encoding="utf-8") as handle:
            items = json.load(handle)
    except (OSError, ValueError) as exc:
        raise WmcdpError(f"cannot read the steps file {path}: {exc}") from None
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) and "program" in i for i in items):
        raise WmcdpError(f'the steps file {path} must hold a non-empty JSON list of {{"program": NAME, ...}} objects')
    out = []
    for item in items:
        values = item.get("params", {})
        if not isinstance(values, dict):
            raise WmcdpError(f"the steps file {path}: params of {item['program']!r} must be an object")
        given = [f"{k}={v}" for k, v in values.items()]
        out.append((build_program(str(item["program"]), params(given, exact)), _times(item.get("times", 1))))
    return out


def _times(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WmcdpError(f"--times (the runs of a step) must be a whole number >= 1, got {value!r}")
    return value


def _steps(args: argparse.Namespace) -> list[tuple[Program, int]]:
    """The steps as given, each on its own subsample when ``--subsample`` or ``--subsample-n`` is given."""
    return [(subsampled(args, program), times) for program, times in _given_steps(args)]


def _given_steps(args: argparse.Namespace) -> list[tuple[Program, int]]:
    exact = bool(getattr(args, "exact", False))
    if args.steps:
        if args.program or args.then:
            raise WmcdpError("give the steps either in --steps FILE or as PROGRAM ... --then NAME ..., not both")
        return _file_steps(args.steps, exact)
    if not args.program:
        raise WmcdpError("give a program (or --steps FILE)")
    first = (build_program(args.program, params(args.param, exact)), _times(1 if args.times is None else args.times))
    rest = [
        (build_program(s["program"], params(s["param"], exact)), _times(1 if s["times"] is None else s["times"]))
        for s in args.then or []
    ]
    return [first, *rest]


def _pairs(args: argparse.Namespace) -> Any:
    if args.at or args.sets not in ("plan", "exhaustive"):
        raise WmcdpError("a sequence of steps takes every pair of neighbours (--sets plan or exhaustive, no --at)")
    return None


def run_sequence(args: argparse.Namespace) -> str:
    """``wmcdp approx`` with ``--then``, ``--times`` or ``--steps``."""
    if args.compose != 1 or args.certified or args.symbolic or getattr(args, "shuffle", None):
        raise WmcdpError(
            "a sequence counts its runs with --times per step; leave out --compose, --certified, --symbolic, --shuffle"
        )
    steps = _steps(args)
    r = compose_approximate(
        steps,
        epsilon=args.epsilon,
        delta=args.delta,
        pairs=_pairs(args),
        neighbours=find_relation(args.neighbours) if args.neighbours else None,
        exact=exact_mode(args),
        max_groups=args.max_groups,
        backend=args.backend,
    )
    if args.json:
        head = envelope("approx", neighbours=neighbours_name(steps[0][0], args.neighbours), exact=r.exact)
        return dumps(composed_json(r, head))
    shown = f"delta({Threshold.of(args.epsilon).text()})" if r.given == "epsilon" else f"epsilon({args.delta})"
    rows = [
        (shown, format_bracket(r)),
        ("exact", "yes" if r.exact else "no: a certified bracket"),
        ("width", format_number(r.width)),
        ("witness x", witness_text(r.pair.x)),
        ("witness x'", witness_text(r.pair.x_prime)),
        *((f"step {i}", f"{label} x{count}") for i, (label, count) in enumerate(r.steps, 1)),
        ("K", str(r.K)),
        ("groups", f"{r.groups} (most distinct losses or clusters of one pair)"),
        ("pairs composed", str(r.pairs)),
        ("seconds", f"{r.seconds:.4f}"),
    ]
    return table(f"composition of {len(r.steps)} step(s), {r.K} runs on one pair of neighbours", rows)


def composed_json(r: ComposedResult, head: dict[str, Any]) -> dict[str, Any]:
    """The ``wmcdp/1`` object of a sequence's bracket: ``head`` (:func:`wmcdp.report.schema.envelope`, no one
    program: the steps are listed), the given ε or δ, the bracket ``[lower, upper]`` and the steps."""
    out: dict[str, Any] = {**head, "given": r.given}
    if r.epsilon is not None:
        out["epsilon"] = json_number(r.epsilon)
    if r.delta is not None:
        out["delta"] = exact_text(r.delta)
    exact = r.exact and not isinstance(r.lower, float)
    out.update(
        lower=json_number(r.lower),
        upper=json_number(r.upper),
        lower_exact=exact_value(r.lower, exact),
        upper_exact=exact_value(r.upper, exact),
        ratio_exact=None if r.ratio is None else exact_value(r.ratio, not isinstance(r.ratio, float)),
    )
    out.update(
        width=json_number(r.width),
        relative_width=json_number(r.relative_width),
        witness=witness_of(r.pair),
        witness_runs={"x": witness_text(r.pair.x), "x_prime": witness_text(r.pair.x_prime)},
        steps=[{"program": label.partition("(")[0], "label": label, "times": count} for label, count in r.steps],
        K=r.K,
        groups=r.groups,
        pairs=r.pairs,
        seconds=r.seconds,
    )
    return out


__all__ = ["run_sequence", "composed_json"]
