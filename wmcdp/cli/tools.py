"""``wmcdp sample``, ``crosscheck``, ``size`` and ``programs``: running, checking and inspecting programs."""

from __future__ import annotations

import argparse
import decimal
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import format_number
from ..base.windows import WindowBracket
from ..compile import BACKENDS, compile_program
from ..compile.dot import to_dot
from ..count.probabilities import inference
from ..lang.docstrings import description, summary
from ..lang.program import Program, Value
from ..lang.registry import builtin_programs, find_relation, parameters, program_claims, program_origin
from ..lang.shape import jsonable, witness_text
from ..lang.unbounded import UnboundedDraw
from ..notions.sampling import crosscheck, sample
from ..notions.windowed import windowed_probabilities
from ..plan.given_sets import find_sets
from ..report.schema import envelope, neighbours_name, witness_of
from .common import (
    Disagreement,
    compiled_of,
    dumps,
    exact_mode,
    json_number,
    parse_input,
    program_of,
    table,
    workers_of,
)

#: `wmcdp size` reports per-input sizes over all inputs up to this many
PER_INPUT_LIMIT = 4096


def _positive(value: int, option: str) -> int:
    if value < 1:
        raise WmcdpError(f"{option} must be at least 1, got {value}")
    return value


def _probabilities(program: Program, x: Value, ys: list[Value], exact: Any) -> list[Any]:
    """``P(y | x)`` of each shown output: counted, or for a program with unbounded noise a bracket
    (:class:`~wmcdp.base.windows.WindowBracket`) from :func:`~wmcdp.notions.windowed.windowed_probabilities`."""
    try:
        probabilities = inference(program, [(x, y) for y in ys], exact=exact)
    except UnboundedDraw:  # never a silent clamp: the probabilities are bracketed in windows, one run per window
        return windowed_probabilities(program, x, ys)
    return [probabilities.probability(x, y) for y in ys]


def _probability_text(p: Any) -> str:
    """A probability to 6 digits; a bracket with its ends rounded outwards to 6 digits."""
    if not isinstance(p, WindowBracket):
        return f"{float(p):.6g}"
    ends = []
    for end, rounding in ((p.lo, decimal.ROUND_FLOOR), (p.hi, decimal.ROUND_CEILING)):
        q = Fraction(end)
        context = decimal.Context(prec=6, rounding=rounding)
        ends.append(format(context.divide(Decimal(q.numerator), Decimal(q.denominator)), "g"))
    return f"[{ends[0]}, {ends[1]}]"


def run_sample(args: argparse.Namespace) -> str:
    program = program_of(args)
    x = parse_input(args.input, program)
    _positive(args.show, "--show")
    counts = sample(program, x, args.k, args.seed)
    shown = counts.most_common(args.show)
    exact = _probabilities(program, x, [y for y, _ in shown], exact_mode(args))
    if args.json:
        return dumps(
            {
                **envelope("sample", program, exact=all(not isinstance(p, (float, WindowBracket)) for p in exact)),
                "x": jsonable(x),
                "samples": args.k,
                "seed": args.seed,
                "outputs": [
                    {"y": jsonable(y), "count": c, "frequency": c / args.k, **_probability_json(p)}
                    for (y, c), p in zip(shown, exact)
                ],
            }
        )
    width = max(len(witness_text(y)) for y, _ in shown)
    lines = [
        f"{program.label()} on x = {witness_text(x)}: {args.k} samples (seed {args.seed}), "
        f"{len(counts)} distinct outputs",
        f"  {'output':<{width}}  {'count':>8}  {'frequency':>10}  exact P(y | x)",
    ]
    lines += [
        f"  {witness_text(y):<{width}}  {c:>8}  {c / args.k:>10.6f}  {_probability_text(p)}"
        for (y, c), p in zip(shown, exact)
    ]
    return "\n".join(lines)


def _probability_json(p: Any) -> dict[str, Any]:
    """``exact`` (the counted probability), or for unbounded noise ``exact`` null and ``exact_interval``."""
    if isinstance(p, WindowBracket):
        return {"exact": None, "exact_interval": p.as_list()}
    return {"exact": float(p)}


def run_crosscheck(args: argparse.Namespace) -> str:
    program = program_of(args)
    C, I = find_sets("privacy", args.sets, program)
    if C not in (None, "auto", "exhaustive") and args.neighbours:
        raise WmcdpError("--neighbours applies to exhaustive sets only")
    relation = find_relation(args.neighbours) if args.neighbours else None
    with workers_of(args) as workers:
        r = crosscheck(
            compiled_of(args, program),
            C,
            I,
            k=args.k,
            seed=args.seed,
            confidence=args.confidence,
            neighbours=relation,
            force=args.force,
            exact=exact_mode(args),
            workers=workers,
        )
    w = r.privacy.witness
    verdict = "AGREE" if r.agrees else "DISAGREE: the exact probabilities are outside the sampling intervals"
    if args.json:
        neighbours = "(fixed by the privacy set)" if C not in (None, "auto", "exhaustive") else None
        out = dumps(
            {
                **envelope(
                    "crosscheck",
                    program,
                    neighbours=neighbours or neighbours_name(program, args.neighbours),
                    exact=r.privacy.exact,
                ),
                "epsilon": json_number(r.privacy.epsilon),
                "witness": witness_of(w),
                "confidence": r.confidence,
                "agrees": r.agrees,
                "checks": [
                    {
                        "x": jsonable(row.x),
                        "exact": float(row.exact),
                        "count": row.count,
                        "samples": row.samples,
                        "interval": [row.low, row.high],
                        "rule": row.rule,
                        "agrees": row.agrees,
                    }
                    for row in r.rows
                ],
            }
        )
    else:
        lines = [
            f"{program.label()}: epsilon = {format_number(r.privacy.epsilon)} at x = {witness_text(w.x)}, "
            f"x' = {witness_text(w.x_prime)}, y = {witness_text(w.y)}",
            f"  {'input':<8}  {'exact P(y|input)':>16}  {'sampled':>10}  {r.confidence:.1%} interval",
        ]
        for name, row in zip(("x", "x'"), r.rows):
            lines.append(
                f"  {name:<8}  {float(row.exact):>16.6g}  {row.count / row.samples:>10.6g}  "
                f"[{row.low:.6g}, {row.high:.6g}]  {'ok' if row.agrees else 'OUTSIDE'}"
                f"{'' if row.rule == 'wilson' else '  (' + row.rule + ')'}"
            )
        lines.append(verdict)
        out = "\n".join(lines)
    if not r.agrees:
        raise Disagreement(out)
    return out


def run_size(args: argparse.Namespace) -> str:
    program = program_of(args)
    compiled = {name: compile_program(program, name) for name in ([args.backend] if args.backend else BACKENDS)}
    if args.dot:
        try:
            with open(args.dot, "w") as f:
                f.write(to_dot(compiled[args.backend or "bdd"]))
        except OSError as exc:
            raise WmcdpError(f"cannot write {args.dot}: {exc.strerror}") from None
    sizes = {name: c.size for name, c in compiled.items()}
    xs = (
        [parse_input(args.input, program)]
        if args.input
        else list(program.inputs.values())
        if program.inputs.size <= PER_INPUT_LIMIT
        else []
    )
    per_input = {name: [c.output_size(x) for x in xs] for name, c in compiled.items()} if xs else {}
    if args.json:
        out: dict[str, Any] = {**envelope("size", program), **{f"{k}_size": v for k, v in sizes.items()}}
        out.update({f"{k}_per_input": {"min": min(v), "max": max(v)} for k, v in per_input.items()})
        return dumps(out)
    rows = [(k.upper(), f"{v} nodes (phi with symbolic inputs)") for k, v in sizes.items()]
    which = f"input {witness_text(xs[0])}" if args.input else f"each of the {len(xs)} inputs"
    rows += [
        (f"{k.upper()} per input", f"{min(v)}..{max(v)} nodes (output bits for {which})") for k, v in per_input.items()
    ]
    return table(f"{program.label()}: compiled diagram sizes", rows)


def run_programs(args: argparse.Namespace) -> str:
    """The built-in programs: each with its parameters, its summary (the docstring's first line, one sentence) and
    origin; with ``--json`` the ``wmcdp/1`` object of them, with the benchmarks' claims and descriptions too."""
    programs = sorted(builtin_programs().items())
    if args.json:
        return dumps({**envelope("programs"), "programs": [_program_json(name, f) for name, f in programs]})
    lines = []
    for name, factory in programs:
        params = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default}" for p in parameters(factory))
        lines.append(f"{name}({params})\n    {summary(factory)}\n    origin: {program_origin(name)}")
    return "\n".join(lines)


def _program_json(name: str, factory: Any) -> dict[str, Any]:
    """One built-in for ``programs --json``: its parameters (a default as text, null when required), origin,
    the benchmarks' claims and description."""
    return {
        "name": name,
        "parameters": [
            {
                "name": p.name,
                "required": p.default is p.empty,
                "default": None if p.default is p.empty else str(p.default),
            }
            for p in parameters(factory)
        ],
        "origin": program_origin(name),
        "claims": program_claims(name),
        "description": description(factory),
    }
