"""The ``wmcdp`` command.

    wmcdp privacy NAME -p key=value ... [--sets exhaustive|symmetry|FILE.py:FUNC] [--neighbours REL]
                  [--backend bdd|sdd] [--exact] [--json]
    wmcdp accuracy NAME -p key=value ... --alpha A [--top K] [--sets ...] [--exact] [--json]
    wmcdp size NAME -p key=value ... [--backend bdd|sdd] [--dot FILE]
    wmcdp sweep privacy|accuracy NAME... -p key=value ... --over key=start:stop:step [--format F]
    wmcdp sample NAME -p key=value ... --input 0101 [-k 10000] [--seed S]
    wmcdp crosscheck NAME -p key=value ... [-k 100000] [--confidence 0.999]
    wmcdp programs

NAME is a built-in program or ``path/to/file.py:function``. User errors print one line
on stderr and exit with status 2; ``--max-nodes`` / ``--timeout`` stops exit with 3; a
crosscheck whose sampling contradicts the exact probabilities exits with 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from fractions import Fraction
from typing import Any, Sequence

from .accuracy import AccuracyResult, synthesize_accuracy
from .compile import BACKENDS, compile_program
from .errors import WmcdpError
from .limits import LimitExceeded, limits
from .lang.shape import format_value, jsonable
from .numbers import exact_text, format_number, parse_number
from .inference import inference
from .privacy import PrivacyResult, synthesize_privacy
from .sample import crosscheck, sample
from .registry import build_program, builtin_programs, find_sets, parameters
from .sets import NEIGHBOURS
from .sweep_cli import add_sweep_command

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_LIMIT = 3
EXIT_DISAGREE = 1
#: `wmcdp size` reports per-input sizes over all inputs up to this many
PER_INPUT_LIMIT = 4096


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise WmcdpError(message)


def _params(items: Sequence[str], exact: bool) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise WmcdpError(f"malformed -p {item!r}: expected key=value, e.g. -p lam=0.2")
        params[key.strip()] = parse_number(value, exact=exact)
    return params


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(value)



def _privacy_json(r: PrivacyResult, extra: dict) -> dict:
    out = {"epsilon": _json_number(r.epsilon), "ratio": _json_number(r.ratio)}
    if r.exact:
        out["ratio_exact"] = exact_text(r.ratio)
    out["witness"] = {"x": jsonable(r.witness.x), "x_prime": jsonable(r.witness.x_prime), "y": jsonable(r.witness.y)}
    out["p_y_given_x"] = _json_number(r.p_x)
    out["p_y_given_x_prime"] = _json_number(r.p_x_prime)
    if r.exact:
        out["p_y_given_x_exact"] = exact_text(r.p_x)
        out["p_y_given_x_prime_exact"] = exact_text(r.p_x_prime)
    out.update(diagram_size=r.diagram_size, seconds=r.seconds, **extra)
    return out


def _accuracy_json(r: AccuracyResult, extra: dict) -> dict:
    out: dict[str, Any] = {"one_minus_beta": float(r.one_minus_beta), "beta": float(r.beta)}
    if r.exact:
        out["one_minus_beta_exact"] = exact_text(r.one_minus_beta)
        out["beta_exact"] = exact_text(r.beta)
    out["witness"] = {"x": jsonable(r.witness)}
    out["top"] = [{"x": jsonable(x), "one_minus_beta": float(v), **({"one_minus_beta_exact": exact_text(v)}
                                                                   if r.exact else {})} for x, v in r.top]
    out.update(alpha=_json_number(r.alpha), diagram_size=r.diagram_size, seconds=r.seconds, **extra)
    return out


def _show(value: Any, exact: bool) -> str:
    """A probability or ratio for people: the fraction too when exact."""
    if exact and not isinstance(value, float):
        return f"{float(value):.10g}  (= {format_number(Fraction(value))})"
    return format_number(float(value))


def _table(title: str, rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join([title] + [f"  {k:<{width}}  {v}" for k, v in rows])


def _cmd_privacy(args: argparse.Namespace) -> str:
    program = build_program(args.program, _params(args.param, args.exact))
    compiled = compile_program(program, args.backend)
    neighbours = args.neighbours or program.neighbours
    C, I = find_sets("privacy", args.sets, program)
    if C is not None:
        if args.neighbours:
            raise WmcdpError("--neighbours applies to exhaustive sets only")
        neighbours = "(fixed by the privacy set)"
    r = synthesize_privacy(compiled, C, I, neighbours=None if C is not None else neighbours,
                           exact=True if args.exact else None, force=args.force)
    extra = {"program": program.name, "params": {k: format_number(v) for k, v in program.params.items()},
             "sets": args.sets, "neighbours": neighbours, "backend": args.backend}
    if args.json:
        return json.dumps(_privacy_json(r, extra))
    rows = [("epsilon", format_number(r.epsilon)), ("ratio e^eps", _show(r.ratio, r.exact)),
            ("witness x", format_value(r.witness.x)), ("witness x'", format_value(r.witness.x_prime)),
            ("witness y", format_value(r.witness.y)), ("P(y | x)", _show(r.p_x, r.exact)),
            ("P(y | x')", _show(r.p_x_prime, r.exact)), ("diagram size", f"{r.diagram_size} nodes"),
            ("seconds", f"{r.seconds:.4f}")]
    title = (f"{program.label()}: tight privacy bound ({args.sets} sets, neighbours {neighbours}, "
             f"{args.backend}, {'exact' if r.exact else 'float'})")
    return _table(title, rows)


def _cmd_accuracy(args: argparse.Namespace) -> str:
    program = build_program(args.program, _params(args.param, args.exact))
    alpha = parse_number(args.alpha, exact=True)
    compiled = compile_program(program, args.backend)
    A, I = find_sets("accuracy", args.sets, program, alpha)
    r = synthesize_accuracy(compiled, A, None, alpha, I, top=args.top, exact=True if args.exact else None,
                            force=args.force)
    extra = {"program": program.name, "params": {k: format_number(v) for k, v in program.params.items()},
             "sets": args.sets, "backend": args.backend}
    if args.json:
        return json.dumps(_accuracy_json(r, extra))
    rows = [("1 - beta", _show(r.one_minus_beta, r.exact)), ("beta", _show(r.beta, r.exact)),
            ("witness x", format_value(r.witness)), ("diagram size", f"{r.diagram_size} nodes"),
            ("seconds", f"{r.seconds:.4f}")]
    title = (f"{program.label()}: tight accuracy bound at alpha = {format_number(alpha)} "
             f"({args.sets} sets, {args.backend}, {'exact' if r.exact else 'float'})")
    text = _table(title, rows)
    if r.top:
        width = max(len(format_value(x)) for x, _ in r.top)
        lines = [f"the {len(r.top)} inputs with the lowest 1 - beta:", f"  {'input':<{width}}  1 - beta"]
        lines += [f"  {format_value(x):<{width}}  {_show(v, r.exact)}" for x, v in r.top]
        text += "\n" + "\n".join(lines)
    return text


def _parse_input(text: str, program) -> tuple[int, ...]:
    """``0101`` for bit vectors, ``2,0,1`` for integer vectors."""
    t = text.strip()
    parts = t.split(",") if "," in t else list(t) if program.inputs.is_bits else [t]
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise WmcdpError(f"--input {text!r} is not a list of integers (e.g. 0101 or 2,0,1)") from None
    return program.inputs.check(values)


def _cmd_sample(args: argparse.Namespace) -> str:
    program = build_program(args.program, _params(args.param, False))
    x = _parse_input(args.input, program)
    counts = sample(program, x, args.k, args.seed)
    shown = counts.most_common(args.show)
    table = inference(program, [(x, y) for y, _ in shown], backend="bdd")
    if args.json:
        return json.dumps({"program": program.name, "x": jsonable(x), "samples": args.k, "seed": args.seed,
                           "outputs": [{"y": jsonable(y), "count": c, "frequency": c / args.k,
                                        "exact": float(table.probability(x, y))} for y, c in shown]})
    width = max(len(format_value(y)) for y, _ in shown)
    lines = [f"{program.label()} on x = {format_value(x)}: {args.k} samples (seed {args.seed}), "
             f"{len(counts)} distinct outputs",
             f"  {'output':<{width}}  {'count':>8}  {'frequency':>10}  exact P(y | x)"]
    lines += [f"  {format_value(y):<{width}}  {c:>8}  {c / args.k:>10.6f}  {float(table.probability(x, y)):.6f}"
              for y, c in shown]
    return "\n".join(lines)


def _cmd_crosscheck(args: argparse.Namespace) -> str:
    program = build_program(args.program, _params(args.param, args.exact))
    C, I = find_sets("privacy", args.sets, program)
    r = crosscheck(compile_program(program, args.backend), C, I, k=args.k, seed=args.seed,
                   confidence=args.confidence, neighbours=args.neighbours, force=args.force,
                   exact=True if args.exact else None)
    w = r.privacy.witness
    verdict = "AGREE" if r.agrees else "DISAGREE: the exact probabilities are outside the sampling intervals"
    if args.json:
        out = json.dumps({"program": program.name, "epsilon": _json_number(r.privacy.epsilon),
                          "witness": {"x": jsonable(w.x), "x_prime": jsonable(w.x_prime), "y": jsonable(w.y)},
                          "confidence": r.confidence, "agrees": r.agrees,
                          "checks": [{"x": jsonable(row.x), "exact": float(row.exact), "count": row.count,
                                      "samples": row.samples, "interval": [row.low, row.high],
                                      "agrees": row.agrees} for row in r.rows]})
    else:
        lines = [f"{program.label()}: epsilon = {format_number(r.privacy.epsilon)} at x = {format_value(w.x)}, "
                 f"x' = {format_value(w.x_prime)}, y = {format_value(w.y)}",
                 f"  {'input':<8}  {'exact P(y|input)':>16}  {'sampled':>10}  {r.confidence:.1%} interval"]
        for name, row in zip(("x", "x'"), r.rows):
            lines.append(f"  {name:<8}  {float(row.exact):>16.6g}  {row.count / row.samples:>10.6g}  "
                         f"[{row.low:.6g}, {row.high:.6g}]  {'ok' if row.agrees else 'OUTSIDE'}")
        lines.append(verdict)
        out = "\n".join(lines)
    if not r.agrees:
        raise Disagreement(out)
    return out


class Disagreement(Exception):
    """Sampling contradicts the exact probabilities (exit status 1)."""


def _cmd_size(args: argparse.Namespace) -> str:
    program = build_program(args.program, _params(args.param, False))
    compiled = {name: compile_program(program, name) for name in ([args.backend] if args.backend else BACKENDS)}
    if args.dot:
        from .compile.dot import to_dot

        try:
            with open(args.dot, "w") as f:
                f.write(to_dot(compiled[args.backend or "bdd"]))
        except OSError as exc:
            raise WmcdpError(f"cannot write {args.dot}: {exc.strerror}") from None
    sizes = {name: c.size for name, c in compiled.items()}
    xs = [_parse_input(args.input, program)] if args.input else \
        list(program.inputs.values()) if program.inputs.size <= PER_INPUT_LIMIT else []
    per_input = {name: [c.output_size(x) for x in xs] for name, c in compiled.items()} if xs else {}
    if args.json:
        out: dict[str, Any] = {"program": program.name, **{f"{k}_size": v for k, v in sizes.items()}}
        out.update({f"{k}_per_input": {"min": min(v), "max": max(v)} for k, v in per_input.items()})
        return json.dumps(out)
    rows = [(k.upper(), f"{v} nodes (phi with symbolic inputs)") for k, v in sizes.items()]
    which = f"input {format_value(xs[0])}" if args.input else f"each of the {len(xs)} inputs"
    rows += [(f"{k.upper()} per input", f"{min(v)}..{max(v)} nodes (output bits for {which})")
             for k, v in per_input.items()]
    return _table(f"{program.label()}: compiled diagram sizes", rows)


def _cmd_programs(args: argparse.Namespace) -> str:
    lines = []
    for name, factory in sorted(builtin_programs().items()):
        params = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default}" for p in parameters(factory))
        doc = (factory.__doc__ or "").strip().splitlines()[0] if factory.__doc__ else ""
        lines.append(f"{name}({params})\n    {doc}")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="wmcdp", description="Exact, tight DP and accuracy bounds by weighted model counting.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def program_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("program", help="built-in program name or path/to/file.py:function")
        q.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                       help="program parameter (repeatable); '1/5' is exact")
        q.add_argument("--json", action="store_true", help="print one JSON object")

    def synthesis_args(q: argparse.ArgumentParser) -> None:
        program_args(q)
        q.add_argument("--sets", default="exhaustive", metavar="exhaustive|symmetry|FILE.py:FUNC",
                       help="exhaustive sets (default), the program's symmetry sets, or your own")
        q.add_argument("--backend", default="bdd", metavar="|".join(BACKENDS), help="knowledge compiler")
        q.add_argument("--exact", action="store_true", help="exact rationals (decimals parse as fractions)")
        q.add_argument("--force", action="store_true", help="run exhaustive sets over the size limits")
        q.add_argument("--max-nodes", type=int, metavar="N", help="stop (exit 3) when the diagram exceeds N nodes")
        q.add_argument("--timeout", type=float, metavar="S", help="stop (exit 3) after S seconds")

    def privacy_args(q: argparse.ArgumentParser) -> None:
        synthesis_args(q)
        q.add_argument("--neighbours", metavar="|".join(NEIGHBOURS), help="default: the program's own relation")

    def sampling_args(q: argparse.ArgumentParser, k: int) -> None:
        q.add_argument("-k", type=int, default=k, help=f"number of samples (default {k})")
        q.add_argument("--seed", type=int, default=0, help="seed of the random number generator (default 0)")

    q = sub.add_parser("privacy", help="tight epsilon and its witness (Algorithm 2)")
    privacy_args(q)
    q.set_defaults(run=_cmd_privacy)

    q = sub.add_parser("accuracy", help="tight (alpha, beta)-accuracy and the worst inputs (Algorithm 3)")
    synthesis_args(q)
    q.add_argument("--alpha", required=True, help="accuracy radius alpha >= 0")
    q.add_argument("--top", type=int, default=0, help="also list the K inputs with the lowest 1 - beta")
    q.set_defaults(run=_cmd_accuracy)

    q = sub.add_parser("sample", help="run a program on one concrete input with a seeded RNG")
    program_args(q)
    q.add_argument("--input", required=True, help="the input: 0101 for bits, 2,0,1 for integers")
    sampling_args(q, 10_000)
    q.add_argument("--show", type=int, default=20, help="list this many most frequent outputs")
    q.set_defaults(run=_cmd_sample)

    q = sub.add_parser("crosscheck", help="confirm the probabilities behind the privacy bound by sampling")
    privacy_args(q)
    sampling_args(q, 100_000)
    q.add_argument("--confidence", type=float, default=0.999, help="interval confidence (default 0.999)")
    q.set_defaults(run=_cmd_crosscheck)

    q = sub.add_parser("size", help="compiled diagram sizes (BDD and SDD)")
    program_args(q)
    q.add_argument("--backend", choices=sorted(BACKENDS), help="only this backend (default: both)")
    q.add_argument("--dot", metavar="FILE", help="write the diagram phi as Graphviz DOT (the BDD unless --backend sdd)")
    q.add_argument("--input", help="report the output-bit size for this concrete input (as Dice counts)")
    q.set_defaults(run=_cmd_size)

    add_sweep_command(sub, _params, BACKENDS)

    q = sub.add_parser("programs", help="list the built-in programs and their parameters")
    q.set_defaults(run=_cmd_programs)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        with limits(getattr(args, "max_nodes", None), getattr(args, "timeout", None)):
            text = args.run(args)
    except WmcdpError as exc:
        print(f"wmcdp: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("wmcdp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except LimitExceeded as exc:
        print(f"wmcdp: stopped: {exc}", file=sys.stderr)
        return EXIT_LIMIT
    except Disagreement as exc:
        print(exc)
        return EXIT_DISAGREE
    except MemoryError:
        print("wmcdp: stopped: out of memory; no bound was computed (use symmetry sets or --max-nodes)",
              file=sys.stderr)
        return EXIT_LIMIT
    try:
        if text:
            print(text, flush=True)
    except BrokenPipeError:  # e.g. piped into head: the reader has gone, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
