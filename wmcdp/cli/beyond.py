"""``wmcdp approx``, ``wmcdp renyi`` and ``wmcdp profile``: approximate DP, Rényi DP and the privacy profile."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import exact_text, format_number
from ..base.windows import WindowBracket
from ..lang.program import Program
from ..lang.registry import find_relation
from ..lang.shape import jsonable, witness_text
from ..notions.accounting import VERSION
from ..notions.approximate import ApproximateResult, Threshold, privacy_profile, synthesize_approximate
from ..notions.renyi import RenyiResult, synthesize_renyi
from ..notions.sweep import ProfileRow, parse_over
from ..plan.given_sets import find_sets
from ..plan.shuffled_binary import ShuffledReports
from ..report.plot import require_matplotlib
from ..report.schema import envelope, exact_value, neighbours_name, witness_of
from ..report.tables import rows_exact
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
    program_of,
    show,
    table,
    window_json,
)
from .sequence import run_sequence
from .shuffled import shuffled_label, shuffled_pairs
from .sweep import emit, json_format


def pair_sets(args: argparse.Namespace, program: Program) -> dict[str, Any]:
    """Keyword arguments ``pairs``, ``I``, ``at``, ``neighbours`` of the API from ``--sets``, ``--at`` and
    ``--neighbours``."""
    P, I = find_sets("pairs", args.sets, program)
    at = parse_input(args.at, program) if getattr(args, "at", None) else None
    if P not in (None, "auto", "exhaustive") and args.neighbours:
        raise WmcdpError("--neighbours applies to exhaustive and auto sets only")
    relation = find_relation(args.neighbours) if args.neighbours else None
    return {"pairs": P, "I": I, "at": at, "neighbours": relation}


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"backend": args.backend, "exact": exact_mode(args), "force": args.force, **forced_plan_of(args)}


def _shown_sets(args: argparse.Namespace, program: Program, plan: Any = None) -> str:
    where = f", at {args.at}" if getattr(args, "at", None) else ""
    neighbours = args.neighbours or (program.neighbours if isinstance(program.neighbours, str) else "own")
    shown = neighbours if args.sets in ("plan", "exhaustive", "auto") else "(fixed by the set)"
    sets = f"planned: {plan.kind}" if plan is not None else f"{args.sets} pairs"
    return f"{sets}{where}, neighbours {shown}"


def _neighbours(args: argparse.Namespace, program: Program, shuffled: ShuffledReports | None = None) -> str:
    """The neighbours of a run as its JSON names them (as :func:`_shown_sets` does in titles)."""
    if shuffled is not None:
        return "one user's value changed"
    if args.sets not in ("plan", "exhaustive", "auto"):
        return "(fixed by the set)"
    return neighbours_name(program, args.neighbours)


def _extra(args: argparse.Namespace, program: Program, shuffled: ShuffledReports | None = None) -> dict[str, Any]:
    """The JSON keys that say what ran; with ``--shuffle N``, ``shuffle`` (N) and ``report_probabilities`` (the
    probability of the counted report at each value of one user, exact)."""
    extra = {
        "sets": args.sets,
        "at": getattr(args, "at", None),
        "backend": args.backend,
    }
    if shuffled is not None:
        extra.update(
            shuffle=shuffled.n,
            counted_report=jsonable(shuffled.one),
            report_probabilities={str(v): exact_text(p) for v, p in zip(shuffled.values, shuffled.probabilities)},
        )
    return extra


# -- approx ------------------------------------------------------------------------------------


def approximate_json(r: ApproximateResult, head: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The ``wmcdp/1`` object of an (ε, δ) bound: ``head`` (:func:`wmcdp.report.schema.envelope`), the bound, then
    ``extra`` (what ran)."""
    out: dict[str, Any] = {
        **head,
        "epsilon": json_number(r.epsilon),
        "delta": json_number(r.delta, r.log_delta),
        "delta_exact": exact_value(r.delta, r.exact),
        "ratio": json_number(r.ratio, r.epsilon),
        "ratio_exact": exact_value(r.ratio, r.exact),
        "witness": witness_of(r.witness),
    }
    out.update(interval_json(r))
    out.update(compose=r.compose, accountant=r.accountant, diagram_size=r.diagram_size, seconds=r.seconds, **extra)
    if r.symmetry:
        out["symmetry"] = r.symmetry
    out.update(plan_json(r.plan))
    return out


def run_approx(args: argparse.Namespace) -> str:
    # deferred: cli.symbolic loads python-flint (0.14 s), which renyi and profile, also here, never need
    from .symbolic import output, program_and_parameter, symbolic_head

    if args.then or args.steps or args.times is not None:
        forced_plan_of(args)
        return run_sequence(args)
    if not args.program:
        raise WmcdpError("give a program (or --steps FILE)")

    program, parameter = program_and_parameter(args)
    shuffled = shuffled_pairs(args, program)
    epsilon = args.epsilon
    r = synthesize_approximate(
        program,
        **(pair_sets(args, program) if shuffled is None else {"pairs": shuffled}),
        epsilon=epsilon,
        delta=args.delta,
        compose=args.compose,
        accountant=args.accountant,
        interval=args.interval,
        certified=args.certified,
        width=args.width,
        **_options(args),
    )
    if parameter is not None:
        extra = {**symbolic_head("approx", program, _neighbours(args, program)), **_extra(args, program)}
        return output(args, r, program, extra, "delta")
    if args.json:
        head = envelope("approx", program, neighbours=_neighbours(args, program, shuffled), exact=r.exact)
        out = approximate_json(r, head, _extra(args, program, shuffled))
        if shuffled is not None:
            out["witness_runs"] = {"x": witness_text(r.witness.x), "x_prime": witness_text(r.witness.x_prime)}
        return dumps(out)
    given = "delta" if args.delta is not None else "epsilon"
    rows = [
        (
            "epsilon",
            format_number(r.epsilon) + ("" if epsilon is None else f"  (given: {Threshold.of(epsilon).text()})"),
        ),
        *(interval_rows(r) if given == "delta" else []),
        ("delta", show(r.delta, r.exact, r.log_delta) + ("  (given)" if given == "delta" else "")),
        *(interval_rows(r) if given == "epsilon" else []),
        ("e^epsilon", show(r.ratio, r.exact, r.epsilon)),
        ("witness x", witness_text(r.witness.x)),
        ("witness x'", witness_text(r.witness.x_prime)),
        ("compose", str(r.compose)),
    ]
    if r.compose > 1:
        rows.append(
            (
                "accountant",
                r.accountant
                if r.accountant == "exact"
                else f"dp-accounting {VERSION} PLD, pessimistic, interval {format_number(args.interval)} "
                "(an upper bound)",
            )
        )
    if r.symmetry:
        rows.append(("symmetry", r.symmetry))
    rows += [("diagram size", f"{r.diagram_size} nodes"), *plan_rows(r.plan), ("seconds", f"{r.seconds:.4f}")]
    title = (
        f"{program.label()}: tight (epsilon, delta) ({_shown_sets(args, program, r.plan)}, {args.backend}, "
        f"{mode_text(r.exact, args)})"
        if shuffled is None
        else f"{shuffled_label(program, shuffled)}: tight (epsilon, delta) (every dataset, one user's value changed, "
        f"{args.backend}, float with a certified enclosure)"
    )
    return table(title, rows)


# -- renyi -------------------------------------------------------------------------------------


def renyi_json(r: RenyiResult, head: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The ``wmcdp/1`` object of Rényi divergences, as :func:`approximate_json` is of an (ε, δ) bound."""
    intervals = r.intervals or [None] * len(r.orders)
    return {
        **head,
        "orders": [
            {
                "order": json_number(o.order),
                "epsilon": json_number(o.epsilon, o.log_epsilon),
                **({} if i is None else {"epsilon_interval": i.as_list(), "precision": i.precision}),
                **window_json(i),
                "witness": witness_of(o.witness),
            }
            for o, i in zip(r.orders, intervals)
        ],
        "zcdp_rho": None if r.zcdp_rho is None else json_number(r.zcdp_rho, r.log_zcdp_rho),
        "zcdp_order": None if r.zcdp_order is None else json_number(r.zcdp_order),
        **({} if r.zcdp_interval is None else {"zcdp_rho_interval": r.zcdp_interval.as_list()}),
        "diagram_size": r.diagram_size,
        "seconds": r.seconds,
        **extra,
        **({"symmetry": r.symmetry} if r.symmetry else {}),
        **plan_json(r.plan),
    }


def _certified_text(i: Any) -> str:
    """An order's enclosure after its row: the ends, and the windows of a bracket of unbounded noise."""
    if i is None:
        return ""
    return f"  certified {i.text()}" if isinstance(i, WindowBracket) else f"  certified [{i.lo!r}, {i.hi!r}]"


def run_renyi(args: argparse.Namespace) -> str:
    program = program_of(args)
    r = synthesize_renyi(
        program, args.orders, **pair_sets(args, program), certified=args.certified, width=args.width, **_options(args)
    )
    if args.json:
        head = envelope("renyi", program, neighbours=_neighbours(args, program), exact=r.exact)
        return dumps(renyi_json(r, head, _extra(args, program)))
    width = max(len(witness_text(o.witness.x)) for o in r.orders)
    lines = [
        f"{program.label()}: tight Rényi divergences ({_shown_sets(args, program, r.plan)}, {args.backend}, "
        f"{mode_text(r.exact, args)})",
        f"  {'order':>8}  {'D_alpha':>14}  {'witness x':<{width}}  witness x'",
    ]
    lines += [
        f"  {format_number(o.order):>8}  {show(o.epsilon, False, o.log_epsilon):>14}  "
        f"{witness_text(o.witness.x):<{width}}  {witness_text(o.witness.x_prime)}" + _certified_text(i)
        for o, i in zip(r.orders, r.intervals or [None] * len(r.orders))
    ]
    if r.zcdp_rho is not None:
        lines.append(
            f"  zCDP rho (max of D_alpha / alpha over the finite orders) = {show(r.zcdp_rho, False, r.log_zcdp_rho)} "
            f"at order {format_number(r.zcdp_order)}"
            + ("" if r.zcdp_interval is None else f", certified {r.zcdp_interval.text()}")
        )
    if r.symmetry:
        lines.append(f"  symmetry: {r.symmetry}")
    lines += [f"  {key}: {value}" for key, value in plan_rows(r.plan)]
    lines.append(f"  diagram size {r.diagram_size} nodes, {r.seconds:.4f} seconds")
    return "\n".join(lines)


# -- profile -----------------------------------------------------------------------------------


def parse_epsilons(text: str) -> list[Any]:
    """``0:3:0.1`` (stop included when the steps land on it), ``0,0.5,ln:2``, or a mix of both."""
    out: list[Any] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise WmcdpError(f"malformed --epsilons {text!r}: an empty value in the list")
        if item.lower().startswith("ln"):
            out.append(item)
        elif ":" in item:
            try:
                out.extend(parse_over(f"epsilon={item}")[1])
            except WmcdpError as exc:  # name the option the user gave
                raise WmcdpError(str(exc).replace(f"--over 'epsilon={item}'", f"--epsilons {item!r}")) from None
        else:
            out.append(item)
    return out


def run_profile(args: argparse.Namespace) -> str:
    json_format(args)
    if args.plot:
        require_matplotlib(args.plot)
    program = program_of(args)
    shuffled = shuffled_pairs(args, program)
    points = privacy_profile(
        program,
        parse_epsilons(args.epsilons),
        **(pair_sets(args, program) if shuffled is None else {"pairs": shuffled}),
        compose=args.compose,
        accountant=args.accountant,
        interval=args.interval,
        **_options(args),
    )
    label = program.label() if shuffled is None else shuffled_label(program, shuffled)
    rows = [ProfileRow(label, p.epsilon, p.epsilon_text, p.delta, p.witness, args.compose, p.log_delta) for p in points]
    head = envelope("profile", program, neighbours=_neighbours(args, program, shuffled), exact=rows_exact(rows))
    return emit(rows, args, {**head, "compose": args.compose, "backend": args.backend})


__all__ = ["run_approx", "run_renyi", "run_profile", "pair_sets", "approximate_json", "renyi_json", "parse_epsilons"]
