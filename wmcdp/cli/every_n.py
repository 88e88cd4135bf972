"""``wmcdp privacy NAME --every-n N``: ε(n) of a program family for n up to N, and what holds for every n."""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..base.errors import WmcdpError
from ..base.numbers import json_number
from ..lang.registry import build_program
from ..lang.shape import jsonable
from ..notions.every_n import EveryN, every_n
from ..notions.witness_rule import WitnessRule
from ..report.schema import envelope
from .common import dumps, params

#: options a run over every n does not take (they belong to one program's run)
_ALONE = ("at", "plan", "symbolic", "subsample", "subsample_n", "workers", "scheduler", "width")


def run_every_n(args: argparse.Namespace) -> str:
    """The table of ε(n) and the statement for every n (text or ``--json``)."""
    given = params(args.param, True)
    if "n" in given:
        raise WmcdpError("--every-n runs the family at n = 1 .. N: leave out -p n=...")
    clashing = [f"--{k.replace('_', '-')}" for k in _ALONE if getattr(args, k, None) not in (None, False)]
    if getattr(args, "sets", "plan") != "plan":
        clashing.append("--sets")
    if clashing or getattr(args, "certified", False):
        raise WmcdpError(f"--every-n takes none of {', '.join(clashing or ['--certified'])}")
    start = args.every_n_from
    if not 1 <= start <= args.every_n:
        raise WmcdpError(f"--every-n-from must be between 1 and --every-n ({args.every_n}), got {start}")
    r = every_n(
        lambda **kw: build_program(args.program, kw),
        up_to=args.every_n,
        start=start,
        neighbours=args.neighbours,
        **given,
    )
    return dumps(as_json(r)) if args.json else as_text(r)


def as_text(r: EveryN) -> str:
    """The per-size table, then the statement (or why there is none)."""
    head = ", ".join(f"{k}={v}" for k, v in r.params.items())
    lines = [f"{r.name}({head}) at every n, neighbours {r.relation}:", "       n  epsilon         e^eps  plan"]
    lines += [f"  {s.n:>6}  {_size_text(s)}  {s.plan}" for s in r.sizes]
    if r.statement is None:
        lines.append(f"every n: no statement ({r.reason})")
        if r.extension is not None:
            lines.append(f"every n, a lower bound: {r.extension.text}")
            lines += [f"  claim  {claim}: {how}" for claim, how in r.extension.proof]
        elif r.extension_reason:
            lines.append(f"  no lower bound for every n ({r.extension_reason})")
        if r.alignment is not None:
            lines.append(f"every n, an upper bound: {r.alignment.text}")
            lines += [f"  claim  {claim}: {how}" for claim, how in r.alignment.proof]
        elif r.alignment_reason:
            lines.append(f"  no upper bound for every n ({r.alignment_reason})")
        if r.growth is not None:
            lines.append(f"every n, growth: {r.growth.text}")
            lines += [f"  claim  {claim}: {how}" for claim, how in r.growth.proof]
        if r.extension is not None and r.alignment is not None:
            top = r.extension.sizes[-1]
            low, high = r.extension.bound(top), r.alignment.epsilon
            lines.append(f"every n: sup_n eps(n) lies in [{_eps(low)}, {_eps(high)}] (the lower end from n = {top} on)")
    else:
        lines.append(f"every n: {r.statement.text}")
        lines += [f"  claim  {claim}: {how}" for claim, how in r.statement.proof]
    lines.append(f"  seconds {r.seconds:.2f}")
    return "\n".join(lines)


def as_json(r: EveryN) -> dict[str, Any]:
    """The ``wmcdp/1`` object of an every-n run."""
    st = r.statement
    statement = None
    if st is not None:
        statement = {
            "from_n": st.start,
            "text": st.text,
            "supremum": json_number(_float(st.supremum)),
            "supremum_exact": _exact(st.supremum),
            "attained_at": st.attained,
            "growth_per_entry": st.growth,
            "sizes_compared": list(st.sizes),
            "proof": [{"claim": c, "how": h} for c, h in st.proof],
            "certificate": [_direction(d) for d in st.directions],
            "witness_rule": None if st.witness is None else _rule(st.witness),
            "witness_reason": st.witness_reason,
        }
    sizes = [
        {
            "n": s.n,
            "epsilon": json_number(s.epsilon),
            "ratio": None if s.ratio is None else json_number(_float(s.ratio)),
            "ratio_exact": None if s.ratio is None else _exact(s.ratio),
            "witness": {"x": jsonable(s.witness[0]), "x_prime": jsonable(s.witness[1]), "y": jsonable(s.witness[2])},
            "plan": s.plan,
            "seconds": s.seconds,
            **({} if s.interval is None else {"epsilon_interval": [json_number(v) for v in s.interval]}),
        }
        for s in r.sizes
    ]
    head = envelope("privacy", None, neighbours=r.relation, exact=all(s.interval is None for s in r.sizes))
    body = {"sizes": sizes, "statement": statement, "reason": r.reason, "extension": _extension(r)}
    body["alignment"] = _alignment(r)
    g = r.growth
    body["growth"] = (
        ({"reason": r.growth_reason} if r.growth_reason else None)
        if g is None
        else {"text": g.text, "factor_exact": str(g.factor), "x": g.x, "x_prime": g.x_prime, "y": g.y}
    )
    label = f"{r.name}({', '.join(f'{k}={v}' for k, v in r.params.items())})"
    shown = {k: str(v) for k, v in r.params.items()}
    return {**head, "program": r.name, "label": label, "params": shown, "every_n": body, "seconds": r.seconds}


def _extension(r: EveryN) -> dict[str, Any] | None:
    """The lower bounds of ε at every larger size (:mod:`wmcdp.notions.extension`), or None."""
    ext = r.extension
    if ext is None:
        return None if r.extension_reason is None else {"reason": r.extension_reason}
    best = ext.witness
    return {
        "from_n": ext.start,
        "text": ext.text,
        "sizes_compared": list(ext.sizes),
        "infinite_from": ext.infinite_from(),
        "lower_bound": json_number(ext.bound(ext.sizes[-1])),
        "lower_bound_from": best.n,
        "pad": ext.pad,
        "witness": dict(zip(("x", "x_prime", "y"), map(jsonable, best.witness))),
        "proof": [{"claim": c, "how": h} for c, h in ext.proof],
    }


def _alignment(r: EveryN) -> dict[str, Any] | None:
    """The upper bound of ε at every n from an alignment (:mod:`wmcdp.notions.alignment`), or None."""
    a = r.alignment
    if a is None:
        return None if r.alignment_reason is None else {"reason": r.alignment_reason}
    return {
        "text": a.text,
        "ratio_exact": str(a.ratio),
        "epsilon": json_number(a.epsilon),
        "directions": [
            {
                "moves": d.moves.name,
                "shift": d.shift,
                "ratio_exact": str(d.ratio),
                "suprema": [{"type": k, "move": m, "supremum_exact": str(v)} for k, m, v in d.suprema],
            }
            for d in a.directions
        ],
        "proof": [{"claim": c, "how": h} for c, h in a.proof],
    }


def _size_text(s: Any) -> str:
    """One size's ε and e^ε, or the bracket of ε of a windowed size."""
    if s.interval is None:
        return f"{_eps(s.epsilon):<14}  {_exact(s.ratio):<5}"
    return f"[{_eps(s.interval[0])}, {_eps(s.interval[1])}]"


def _direction(d: Any) -> dict[str, Any]:
    p = d.period
    return {
        "prefix": [[i, _exact(v)] for i, v in d.prefix],
        "matrix": [[[j, _exact(v)] for j, v in row] for row in d.matrix],
        "suffix": [[i, _exact(v)] for i, v in d.suffix],
        "offset": d.offset,
        "modulus": d.modulus,
        "forward": d.forward,
        "transient": p.transient,
        "period": p.period,
        "factor_exact": _exact(p.factor),
        "base_exact": [_exact(b) for b in p.base],
    }


def _rule(rule: WitnessRule) -> dict[str, Any]:
    """A witness rule: each component's pattern, its text and the sizes it was checked and recounted at."""
    parts = {"x": rule.x, "x_prime": rule.x_prime, "y": rule.y}
    out: dict[str, Any] = {
        k: {"head": list(p.head), "block": list(p.block), "tail": list(p.tail), "step": p.step}
        for k, p in parts.items()
    }
    return {**out, "text": rule.text, "sizes_checked": list(rule.sizes), "recounted": list(rule.recounted)}


def _exact(v: Any) -> str:
    return "inf" if v == math.inf else str(v)


def _float(v: Any) -> float:
    return math.inf if v == math.inf else float(v)


def _eps(e: float) -> str:
    return "inf" if e == math.inf else f"{e:.10g}"


__all__ = ["as_json", "as_text", "run_every_n"]
