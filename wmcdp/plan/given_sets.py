"""Sets given by name: the ``--sets`` choice of the command line and the sweeps.

The choice sits at the plan layer because one of its answers, ``"symmetry"``, is the hand-proved sets of
:mod:`wmcdp.symmetry_sets`, which are built from the planner's pair sources (:mod:`.pairs`, :mod:`.shuffle`).
"""

from __future__ import annotations

from typing import Any

from ..base.errors import USER_FAILURES, WmcdpError, brief
from ..lang.program import Program
from ..lang.registry import is_builtin, load_function


def find_sets(kind: str, spec: str, program: Program, *extra: Any) -> tuple[Any, Any]:
    """``(C, I)`` for ``kind == "privacy"``, ``(A, I)`` for ``"accuracy"``, ``(P, I)`` for ``"pairs"``
    (approximate and Rényi DP; ``I`` may be None there: whole output distributions); ``(None, None)``
    is the planner's choice.

    ``spec`` is ``"plan"`` (the default: :mod:`wmcdp.plan`), ``"exhaustive"`` (``("exhaustive", None)``),
    ``"symmetry"`` (the program's proved sets from :mod:`wmcdp.symmetry_sets`, for the built-in itself only:
    :func:`~wmcdp.lang.registry.is_builtin`), ``"auto"`` (``("auto", None)``: the synthesis finds and proves the
    program's symmetries itself, :mod:`wmcdp.plan.symmetry`) or ``path/to/file.py:function``, called
    as ``function(*extra, **params)`` (``extra`` is alpha for accuracy).
    """
    if spec == "plan":
        return None, None
    if spec == "exhaustive":
        return "exhaustive", None
    if spec == "auto":
        return "auto", None
    if spec == "symmetry":
        from wmcdp import symmetry_sets  # deferred: the command line's start-up does not pay for it

        make = getattr(symmetry_sets, kind.upper()).get(program.name)
        if make is None:
            raise WmcdpError(f"no symmetry sets for {kind} of {program.name}; use exhaustive sets")
        if not is_builtin(program):
            raise WmcdpError(
                f"the symmetry sets of {program.name} are proved for the built-in only, and this program is not what "
                f"the built-in {program.name} builds from its parameters (its body, inputs, neighbours or outputs "
                "differ); use exhaustive or auto sets"
            )
    elif spec.rpartition(":")[0].endswith(".py"):
        make = load_function(spec)
    else:
        raise WmcdpError(
            f"sets must be plan, exhaustive, symmetry, auto or path/to/file.py:function, got {brief(repr(spec))}"
        )
    try:
        result = make(*extra, **program.params)
    except WmcdpError:
        raise
    except USER_FAILURES as exc:  # the user's sets are arbitrary code; report, don't crash
        raise WmcdpError(f"the sets from {spec} failed: {type(exc).__name__}: {exc}") from None
    names = {"privacy": ("C", "I"), "accuracy": ("A", "I"), "pairs": ("P", "I")}[kind]
    if (
        not isinstance(result, (tuple, list))
        or len(result) != 2
        or result[0] is None
        or (kind != "pairs" and result[1] is None)
    ):
        raise WmcdpError(f"the sets from {spec} must be a pair ({names[0]}, {names[1]}) of sets, got {result!r:.80}")
    first, I = result
    return first, I
