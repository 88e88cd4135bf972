"""User-facing errors.

Every mistake a user can make (a bad parameter, an uncovered set, an unknown program)
raises a subclass of :class:`WmcdpError`, which is a :class:`ValueError`. The CLI prints
its message as one line and exits with status 2.
"""


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
