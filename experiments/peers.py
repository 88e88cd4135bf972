"""Peer exact engines for randomized response, used by ``table2.py``: Storm and ProbLog.

Each engine computes the same matrix as wmcdp's Algorithm 1 for the paper's Table 2,
``P[a, b] = P(RR(x_a) = y_b)`` for the inputs ``xs`` and outputs ``ys`` of interest
(bit tuples, ``x_0`` first), and reports how long model building and inference took.

* ``storm-per-input`` — the paper's encoding: one explicit DTMC per input (states: the
  client index and the outputs drawn so far), one model-checking call ``P=? [F y]`` per
  (input, output) pair.
* ``storm-one-dtmc`` — a stronger encoding: one DTMC whose initial states are all inputs
  of interest (an input bit is reset once its client has answered, so paths of different
  inputs merge), one model-checking call per output, read at every initial state.
* ``problog-sdd`` — ProbLog with its SDD backend: one program per input, whose queries
  are all outputs of interest (exhaustive sets); one program for all inputs when every
  input asks for a single output (restricted sets).

Both libraries are optional (``pip install -e '.[compare]'``) and are imported lazily.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

Bits = tuple[int, ...]
_NOT = "\\+"  # ProbLog negation as failure


@dataclass
class PeerRun:
    """A peer's probability matrix and its costs."""

    P: np.ndarray            # P[a, b] = P(y_b | x_a)
    build_seconds: float     # writing and building the models
    inference_seconds: float  # model checking / knowledge compilation and evaluation
    solver_runs: int         # model-checking calls (Storm) or programs compiled (ProbLog)
    states: int = 0          # largest DTMC (Storm)
    transitions: int = 0


def _conj(prefix: str, bits: Bits) -> str:
    return " & ".join(f"{prefix}{i}={b}" for i, b in enumerate(bits))


def _prism_model(n: int, lam: float, init: str, x_consts: Bits | None) -> str:
    """RR as a DTMC; with ``x_consts`` the input is fixed, otherwise ``x_i`` are state variables."""
    lines = ["dtmc", f"const double lam = {lam!r};"]
    if x_consts is not None:
        lines += [f"const int x{i} = {b};" for i, b in enumerate(x_consts)]
    lines += ["module rr", f"  i : [0..{n}];"]
    if x_consts is None:
        lines += [f"  x{i} : [0..1];" for i in range(n)]
    lines += [f"  y{i} : [0..1];" for i in range(n)]
    reset = (lambda i: f" & (x{i}'=0)") if x_consts is None else (lambda i: "")
    for i in range(n):
        lines.append(f"  [] i={i} -> (1-lam): (y{i}'=x{i}){reset(i)} & (i'={i + 1}) "
                     f"+ lam: (y{i}'=1-x{i}){reset(i)} & (i'={i + 1});")
    lines += [f"  [] i={n} -> true;", "endmodule", f"init {init} endinit"]
    return "\n".join(lines) + "\n"


def _storm_build(text: str, formulas: Sequence[str]):
    import stormpy

    with tempfile.NamedTemporaryFile("w", suffix=".prism", delete=False) as f:
        f.write(text)
    try:
        program = stormpy.parse_prism_program(f.name)
    finally:
        os.unlink(f.name)
    props = stormpy.parse_properties(";".join(formulas), program)
    options = stormpy.BuilderOptions(props)
    options.set_build_state_valuations()
    return stormpy.build_model(program, options=options), props


def _target(n: int, y: Bits) -> str:
    return f"P=? [F i={n} & {_conj('y', y)}]"


def storm_per_input(n: int, lam: float, xs: Sequence[Bits], ys: Sequence[Bits]) -> PeerRun:
    """The paper's encoding: a DTMC per input, a model-checking call per (input, output)."""
    import stormpy

    P = np.zeros((len(xs), len(ys)))
    build = infer = 0.0
    states = transitions = 0
    for a, x in enumerate(xs):
        start = time.perf_counter()
        model, props = _storm_build(_prism_model(n, lam, f"i=0 & {_conj('y', (0,) * n)}", x),
                                    [_target(n, y) for y in ys])
        mid = time.perf_counter()
        (s0,) = model.initial_states
        for b, prop in enumerate(props):
            P[a, b] = stormpy.model_checking(model, prop, only_initial_states=True).get_value(s0)
        infer += time.perf_counter() - mid
        build += mid - start
        states, transitions = max(states, model.nr_states), max(transitions, model.nr_transitions)
    return PeerRun(P, build, infer, len(xs) * len(ys), states, transitions)


def storm_one_dtmc(n: int, lam: float, xs: Sequence[Bits], ys: Sequence[Bits]) -> PeerRun:
    """One DTMC whose initial states are all inputs; a model-checking call per output."""
    import stormpy

    start = time.perf_counter()
    inputs = " | ".join(f"({_conj('x', x)})" for x in xs) if len(xs) < 2 ** n else "true"
    model, props = _storm_build(_prism_model(n, lam, f"i=0 & {_conj('y', (0,) * n)} & ({inputs})", None),
                                [_target(n, y) for y in ys])
    valuation = re.compile(r"\bx(\d+)=(\d)")
    row = {}
    for s in model.initial_states:
        bits = dict(valuation.findall(model.state_valuations.to_string(s)))
        row[s] = tuple(int(bits[str(i)]) for i in range(n))
    index = {x: a for a, x in enumerate(xs)}
    mid = time.perf_counter()
    P = np.zeros((len(xs), len(ys)))
    for b, prop in enumerate(props):
        result = stormpy.model_checking(model, prop, only_initial_states=True)
        for s, x in row.items():
            P[index[x], b] = result.get_value(s)
    return PeerRun(P, mid - start, time.perf_counter() - mid, len(ys), model.nr_states, model.nr_transitions)


def _problog_rules(n: int, lam: float) -> list[str]:
    return [f"{lam!r}::f({i})." for i in range(n)]


def _output_query(name: str, y: Bits, answer: Callable[[int], str]) -> list[str]:
    body = ", ".join(answer(i) if b else _NOT + answer(i) for i, b in enumerate(y))
    return [f"{name} :- {body}.", f"query({name})."]


def _problog_evaluate(lines: list[str]) -> dict[str, float]:
    from problog import get_evaluatable
    from problog.program import PrologString

    result = get_evaluatable("sdd").create_from(PrologString("\n".join(lines))).evaluate()
    return {str(k): float(v) for k, v in result.items()}


def problog_sdd(n: int, lam: float, xs: Sequence[Bits], ys: Sequence[Bits]) -> PeerRun:
    """ProbLog (SDD): ``y_i`` is ``f_i`` or its negation according to ``x_i``."""
    P = np.zeros((len(xs), len(ys)))
    build = infer = 0.0
    if len(ys) == 1:  # one program, one query per input
        start = time.perf_counter()
        lines = _problog_rules(n, lam)
        for a, x in enumerate(xs):
            lines += [f"y({a}, {i}) :- {_NOT if b else ''}f({i})." for i, b in enumerate(x)]
            lines += _output_query(f"o({a})", ys[0], lambda i, a=a: f"y({a}, {i})")
        mid = time.perf_counter()
        values = _problog_evaluate(lines)
        for a in range(len(xs)):
            P[a, 0] = values[f"o({a})"]
        return PeerRun(P, mid - start, time.perf_counter() - mid, 1)
    for a, x in enumerate(xs):  # a program per input, one query per output
        start = time.perf_counter()
        lines = _problog_rules(n, lam) + [f"y({i}) :- {_NOT if b else ''}f({i})." for i, b in enumerate(x)]
        for b, y in enumerate(ys):
            lines += _output_query(f"o({b})", y, lambda i: f"y({i})")
        mid = time.perf_counter()
        values = _problog_evaluate(lines)
        P[a] = [values[f"o({b})"] for b in range(len(ys))]
        build += mid - start
        infer += time.perf_counter() - mid
    return PeerRun(P, build, infer, len(xs))


PEERS: dict[str, Callable[[int, float, Sequence[Bits], Sequence[Bits]], PeerRun]] = {
    "storm-per-input": storm_per_input,
    "storm-one-dtmc": storm_one_dtmc,
    "problog-sdd": problog_sdd,
}
