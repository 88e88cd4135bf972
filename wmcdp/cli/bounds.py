"""``wmcdp privacy`` and ``wmcdp accuracy``: Algorithms 2 and 3 on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import format_number, log_text, parse_number
from ..lang.program import Program
from ..lang.registry import find_relation
from ..lang.shape import jsonable, witness_text
from ..notions.accuracy import AccuracyResult, synthesize_accuracy
from ..notions.privacy import PrivacyResult, synthesize_privacy
from ..plan.given_sets import find_sets
from ..report.schema import envelope, exact_value, witness_of
from .common import (
    dumps,
    exact_mode,
    forced_plan_of,
    interval_json,
    interval_rows,
    json_number,
    mode_text,
    parse_input,
    plan_json,
    plan_rows,
    sets_label,
    show,
    table,
    workers_of,
)
from .every_n import run_every_n
from .symbolic import output, program_and_parameter, symbolic_head


def privacy_json(r: PrivacyResult, head: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The ``wmcdp/1`` object of a privacy bound: ``head`` (:func:`wmcdp.report.schema.envelope`), the bound, then
    ``extra`` (what ran)."""
    epsilon = json_number(r.epsilon) if r.log_epsilon is None else log_text(r.log_epsilon)
    return {
        **head,
        "epsilon": epsilon,
        "ratio": json_number(r.ratio, r.epsilon),
        "ratio_exact": exact_value(r.ratio, r.exact),
        "witness": witness_of(r.witness),
        "p_y_given_x": json_number(r.p_x, r.log_p_x),
        "p_y_given_x_prime": json_number(r.p_x_prime, r.log_p_x_prime),
        "p_y_given_x_exact": exact_value(r.p_x, r.exact),
        "p_y_given_x_prime_exact": exact_value(r.p_x_prime, r.exact),
        **({} if r.approached is None else {"approached": r.approached}),
        **interval_json(r),
        "diagram_size": r.diagram_size,
        "seconds": r.seconds,
        **extra,
    }


def accuracy_json(r: AccuracyResult, head: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The ``wmcdp/1`` object of an accuracy bound, as :func:`privacy_json` is of a privacy bound."""
    return {
        **head,
        "one_minus_beta": float(r.one_minus_beta),
        "beta": float(r.beta),
        "one_minus_beta_exact": exact_value(r.one_minus_beta, r.exact),
        "beta_exact": exact_value(r.beta, r.exact),
        "witness": witness_of(r.witness),
        "top": [
            {"x": jsonable(x), "one_minus_beta": float(v), "one_minus_beta_exact": exact_value(v, r.exact)}
            for x, v in r.top
        ],
        "alpha": json_number(r.alpha),
        **interval_json(r),
        "diagram_size": r.diagram_size,
        "seconds": r.seconds,
        **extra,
    }


def sets_json(sets: Any) -> dict[str, Any]:
    """The ``symmetry`` and ``set_sizes`` keys of a run with ``--sets auto`` (nothing otherwise)."""
    if sets is None:
        return {}
    d = sets.as_dict()
    return {"symmetry": d.pop("symmetry"), "set_sizes": d}


def sets_rows(sets: Any, kind: str) -> list[tuple[str, str]]:
    """Table rows for a run with ``--sets auto``: the group and the set sizes against the exhaustive ones."""
    if sets is None:
        return []
    name = "|C|" if kind == "privacy" else "|A|"
    rows = [("symmetry", sets.symmetry)]
    if sets.per_output:
        rows.append(("per output", sets.per_output))
    rows += [
        (f"sets {name}", f"{format_number(sets.size)} (exhaustive {format_number(sets.exhaustive_size)})"),
        ("sets |I|", f"{format_number(sets.inference)} (exhaustive {format_number(sets.exhaustive_inference)})"),
        ("proofs", f"{sets.proofs} of {sets.attempts} candidates, {sets.seconds:.4f} s"),
    ]
    if sets.note:
        rows.append(("note", sets.note))
    return rows


def privacy_sets(args: argparse.Namespace, program: Program) -> tuple[Any, Any, Any, str]:
    """``(C, I, neighbours for the API, neighbours as shown)`` from ``--sets`` and ``--neighbours``."""
    C, I = find_sets("privacy", args.sets, program)
    if C not in (None, "auto", "exhaustive"):
        if args.neighbours:
            raise WmcdpError("--neighbours applies to exhaustive sets only")
        return C, I, None, "(fixed by the privacy set)"
    relation = find_relation(args.neighbours) if args.neighbours else None
    shown = args.neighbours or (
        program.neighbours
        if isinstance(program.neighbours, str)
        else getattr(program.neighbours, "name", "the program's own")
    )
    return C, I, relation, shown


def run_privacy(args: argparse.Namespace) -> str:
    if args.every_n is not None:
        return run_every_n(args)
    program, parameter = program_and_parameter(args)
    C, I, relation, shown = privacy_sets(args, program)
    at = parse_input(args.at, program) if args.at else None
    with workers_of(args) as workers:
        r = synthesize_privacy(
            program,
            C,
            I,
            neighbours=relation,
            backend=args.backend,
            exact=exact_mode(args),
            force=args.force,
            at=at,
            workers=workers,
            certified=args.certified,
            width=args.width,
            **forced_plan_of(args, at=True),
        )
    extra = {
        "sets": args.sets,
        "backend": args.backend,
        "at": args.at,
        **sets_json(r.sets),
        **plan_json(r.plan),
    }
    if parameter is not None:
        return output(args, r, program, {**symbolic_head("privacy", program, shown), **extra}, "privacy bound")
    if args.json:
        return dumps(privacy_json(r, envelope("privacy", program, neighbours=shown, exact=r.exact), extra))
    rows = [
        ("epsilon", format_number(r.epsilon) if r.log_epsilon is None else log_text(r.log_epsilon)),
        *interval_rows(r),
        ("ratio e^eps", show(r.ratio, r.exact, r.epsilon)),
        ("witness x", witness_text(r.witness.x)),
        ("witness x'", witness_text(r.witness.x_prime)),
        ("witness y", witness_text(r.witness.y)),
        *([] if r.approached is None else [("approached", r.approached)]),
        ("P(y | x)", show(r.p_x, r.exact, r.log_p_x)),
        ("P(y | x')", show(r.p_x_prime, r.exact, r.log_p_x_prime)),
        ("diagram size", f"{r.diagram_size} nodes"),
        *sets_rows(r.sets, "privacy"),
        *plan_rows(r.plan),
        ("seconds", f"{r.seconds:.4f}"),
    ]
    where = f" at {args.at}" if args.at else ""
    title = (
        f"{program.label()}: tight privacy bound ({sets_label(args.sets, r.plan)}{where}, neighbours {shown}, "
        f"{args.backend}, {mode_text(r.exact, args)})"
    )
    return table(title, rows)


def run_accuracy(args: argparse.Namespace) -> str:
    program, parameter = program_and_parameter(args)
    alpha = parse_number(args.alpha, exact=True)
    A, I = find_sets("accuracy", args.sets, program, alpha)
    with workers_of(args) as workers:
        r = synthesize_accuracy(
            program,
            A,
            None,
            alpha,
            I,
            top=args.top,
            backend=args.backend,
            exact=exact_mode(args),
            force=args.force,
            workers=workers,
            width=args.width,
            **forced_plan_of(args),
        )
    extra = {"sets": args.sets, "backend": args.backend, **sets_json(r.sets), **plan_json(r.plan)}
    if parameter is not None:
        return output(args, r, program, {**symbolic_head("accuracy", program, None), **extra}, "accuracy bound")
    if args.json:
        return dumps(accuracy_json(r, envelope("accuracy", program, exact=r.exact), extra))
    rows = [
        ("1 - beta", show(r.one_minus_beta, r.exact)),
        ("beta", show(r.beta, r.exact)),
        *interval_rows(r),
        ("witness x", witness_text(r.witness)),
        ("diagram size", f"{r.diagram_size} nodes"),
        *sets_rows(r.sets, "accuracy"),
        *plan_rows(r.plan),
        ("seconds", f"{r.seconds:.4f}"),
    ]
    title = (
        f"{program.label()}: tight accuracy bound at alpha = {format_number(alpha)} "
        f"({sets_label(args.sets, r.plan)}, {args.backend}, {mode_text(r.exact, args)})"
    )
    text = table(title, rows)
    if r.top:
        width = max(len(witness_text(x)) for x, _ in r.top)
        lines = [f"the {len(r.top)} inputs with the lowest 1 - beta:", f"  {'input':<{width}}  1 - beta"]
        lines += [f"  {witness_text(x):<{width}}  {show(v, r.exact)}" for x, v in r.top]
        text += "\n" + "\n".join(lines)
    return text
