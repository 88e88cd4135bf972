"""``wmcdp symmetry``: the structure wmcdp proves for a program and the sizes of its orbit sets.

The structure is the program's independent parts and its symmetry group."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.numbers import format_number
from ..lang.registry import find_relation
from ..plan.parts import classes, split
from ..plan.symmetry import accuracy_report, privacy_plan
from ..report.schema import envelope
from .common import compiled_of, dumps, program_of, table


def run_symmetry(args: argparse.Namespace) -> str:
    program = program_of(args)
    compiled = compiled_of(args, program)
    relation = find_relation(args.neighbours) if args.neighbours else None
    parts = split(compiled.trace)
    groups = classes(parts) if parts else []
    independence = {"parts": len(parts) if parts else 1, "distinct_parts": len(groups) if parts else 1}
    plan = privacy_plan(compiled, relation)
    privacy = plan.report()
    accuracy = accuracy_report(compiled) if compiled.shape.is_numeric and program.target is not None else None
    if args.json:
        out: dict[str, Any] = {
            **envelope("symmetry", program, neighbours=str(plan.relation)),
            "independence": independence,
            "symmetry": privacy.symmetry,
            "group_order": privacy.order,
            "privacy": privacy.as_dict(),
        }
        if accuracy is not None:
            out["accuracy"] = accuracy.as_dict()
        return dumps(out)
    parts_text = (
        "none: the output is one part"
        if not parts
        else f"{independence['parts']} parts sharing no entry and no random bit "
        f"({independence['distinct_parts']} distinct)"
    )
    n = format_number  # set sizes can have 10^5 digits: shown in scientific form past 12000 bits
    rows = [
        ("independence", parts_text),
        ("symmetry", privacy.symmetry),
        ("group order", n(privacy.order)),
        ("proofs", f"{privacy.proofs} of {privacy.attempts} candidates, {privacy.seconds:.4f} s"),
        ("per output", privacy.per_output),
        ("privacy |C|", f"{n(privacy.size)} triples (exhaustive {n(privacy.exhaustive_size)})"),
        ("privacy |I|", f"{n(privacy.inference)} pairs (exhaustive {n(privacy.exhaustive_inference)})"),
    ]
    if accuracy is not None:
        rows += [
            ("accuracy group", accuracy.symmetry),
            ("accuracy |A|", f"{n(accuracy.size)} inputs (exhaustive {n(accuracy.exhaustive_size)})"),
            ("accuracy |I|", f"{n(accuracy.inference)} pairs (exhaustive {n(accuracy.exhaustive_inference)})"),
        ]
    if privacy.note:
        rows.append(("note", privacy.note))
    return table(f"{program.label()}: proved structure (neighbours {plan.relation})", rows)
