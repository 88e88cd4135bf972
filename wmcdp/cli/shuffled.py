"""``--shuffle N`` of ``wmcdp approx`` and ``wmcdp profile``: the bound of a shuffled local randomizer.

The program is one user's local randomizer, and the bound is that of ``N`` users' reports after a shuffler, over
every dataset of ``N`` users (:class:`wmcdp.ShuffledReports`, :mod:`wmcdp.plan.shuffled_binary`)."""

from __future__ import annotations

import argparse
from fractions import Fraction

from ..base.errors import WmcdpError
from ..base.numbers import parse_number
from ..lang.program import Program
from ..plan.shuffled_binary import ShuffledReports

#: the most users ``--shuffle`` takes: each witness dataset is built in memory as a tuple of ``N`` values
MAX_USERS = 10**7

#: options whose meaning the shuffle fixes (its pairs, its neighbours, one run in float mode with an enclosure)
_FIXED = {
    "sets": ("--sets", "plan"),
    "neighbours": ("--neighbours", None),
    "at": ("--at", None),
    "compose": ("--compose", 1),
    "accountant": ("--accountant", "exact"),
    "exact": ("--exact", False),
    "exact_floats": ("--exact-floats", False),
    "certified": ("--certified", False),
    "symbolic": ("--symbolic", None),
    "subsample": ("--subsample", None),
    "subsample_n": ("--subsample-n", None),
    "absent": ("--absent", None),
    "workers": ("--workers", None),
    "scheduler": ("--scheduler", None),
}


def users(text: str) -> int:
    """The ``N`` of ``--shuffle N``: a whole number of users from 1 to :data:`MAX_USERS`."""
    try:
        n = parse_number(text, exact=True)
    except WmcdpError:
        n = None
    if not isinstance(n, (int, Fraction)) or n.denominator != 1 or not 1 <= n <= MAX_USERS:
        raise WmcdpError(f"--shuffle {text[:40]!r} is not a whole number of users from 1 to {MAX_USERS:,}")
    return int(n)


def shuffled_pairs(args: argparse.Namespace, program: Program) -> ShuffledReports | None:
    """The pair set of ``--shuffle N`` (None without it): every dataset of ``N`` users, each running ``program``
    on their own value; refuses, in one line, options the shuffle fixes and a program of more than one user."""
    if getattr(args, "shuffle", None) is None:
        return None
    n = users(args.shuffle)
    given = [option for key, (option, default) in _FIXED.items() if getattr(args, key, default) != default]
    if given:
        raise WmcdpError(
            f"--shuffle N fixes the pairs (every dataset of N users, one user's value changed) and runs once in "
            f"float mode with a certified enclosure; leave out {', '.join(given)}"
        )
    entries = program.inputs.n
    if entries != 1:
        raise WmcdpError(
            f"--shuffle takes a local randomizer of one user's value, but {program.name} has {entries} input "
            "entries (a built-in one with -p n=1)"
        )
    return ShuffledReports.of(program, n, args.backend)


def shuffled_label(program: Program, pairs: ShuffledReports) -> str:
    """``shuffle of N users of NAME(params)``: the title of a shuffled run."""
    return f"shuffle of {pairs.n} users of {program.label()}"


__all__ = ["MAX_USERS", "users", "shuffled_pairs", "shuffled_label"]
