"""User-facing errors.

Every mistake a user can make (a bad parameter, an uncovered set, an unknown program)
raises a subclass of :class:`WmcdpError`, which is a :class:`ValueError`. The CLI prints
its message as one line and exits with status 2.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence


class WmcdpError(ValueError):
    """A problem with the user's program, parameters or sets."""


class NoRatioError(WmcdpError):
    """Every triple of a privacy set has ``P(y | x) = P(y | x') = 0``: there is no ratio to bound."""


class CoverageError(WmcdpError):
    """A privacy or accuracy set needs a pair that the inference set does not contain."""


#: what a call into the user's own code (a program factory or body, sets, a neighbour relation, a target) may
#: raise that wmcdp reports as one line naming that code: any error, and ``SystemExit`` (``sys.exit()`` in a
#: user's function must not end wmcdp silently with the user's status)
USER_FAILURES = (Exception, SystemExit)


#: the longest line the command line prints for an error, its ``wmcdp: error: `` prefix included
MAX_LINE = 199
#: the most characters of a user's value (an input, a name, a number's text) a message quotes in full
MAX_VALUE = 60


def brief(text: str, limit: int = MAX_VALUE) -> str:
    """``text`` (a user's value as a message shows it) when it has at most ``limit`` characters; else its start and
    end around ``...`` and its length, so that a 200-entry input or a long name keeps a message on one short line."""
    if len(text) <= limit:
        return text
    tail = max(limit // 4, 1)
    return f"{text[: limit - tail - 3]}...{text[-tail:]} ({len(text)} characters)"


#: a file path of three or more parts: what a long line keeps of it is ``.../`` and its last two
_PATH = re.compile(r"(?<![\w.])/(?:[^\s/:]+/)+(?=[^\s/:]+/[^\s/:]+)")


def one_line(message: str, limit: int) -> str:
    """``message`` as one line of at most ``limit`` characters: line breaks and runs of spaces become one space; a
    line still too long names files by their last two path parts (``.../dir/file.py``), and then keeps its start
    and end around ``...`` (every error the command line prints)."""
    line = " ".join(message.split())
    if len(line) > limit:
        line = _PATH.sub(".../", line)
    if len(line) <= limit:
        return line
    tail = limit // 3
    return f"{line[: limit - tail - 5]} ... {line[-tail:]}"


def suggest(name: str, known: Iterable[str]) -> str | None:
    """``did you mean a, b?`` with the (at most 3) names of ``known`` closest to the unknown ``name``
    (:func:`difflib.get_close_matches`), or None when none is close: a message about ``name`` ends with it."""
    near = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.6)
    return f"did you mean {', '.join(near)}?" if near else None


def listing(names: Sequence[str], limit: int = 100) -> str:
    """``names`` joined by commas; past ``limit`` characters the first ones only and how many there are in all."""
    shown: list[str] = []
    for name in names:
        if len(", ".join([*shown, name])) > limit:
            return f"{', '.join(shown)}, ... ({len(names)} in all)"
        shown.append(name)
    return ", ".join(shown)
