"""Resource limits: a diagram-size cap and a wall-clock timeout.

Inside ``with limits(max_nodes=..., timeout=...)`` compilation and inference call
:func:`check` at regular points; when a limit is exceeded a :class:`LimitExceeded`
is raised and no partial bound is ever returned. The CLI maps it to exit status 3.
"""

from __future__ import annotations

import functools
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, TypeVar

from .errors import WmcdpError


class LimitExceeded(RuntimeError):
    """A ``max_nodes`` or ``timeout`` limit stopped the computation."""


@dataclass(frozen=True)
class Limits:
    max_nodes: int | None
    timeout: float | None
    deadline: float | None


_active: list[Limits] = []


@contextmanager
def limits(max_nodes: int | None = None, timeout: float | None = None) -> Iterator[None]:
    """Apply a node cap (live decision-diagram nodes) and a timeout (seconds) to the block."""
    if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1):
        raise WmcdpError(f"max_nodes must be a whole number >= 1, got {max_nodes!r}")
    if timeout is not None and not timeout > 0:
        raise WmcdpError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    if max_nodes is None and timeout is None:
        yield
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    _active.append(Limits(max_nodes, timeout, deadline))
    try:
        yield
    finally:
        _active.pop()


def check(stage: str, nodes: int | None = None) -> None:
    """Raise :class:`LimitExceeded` if the time is up or ``nodes`` is over a cap (nested limits all hold)."""
    for lim in _active:
        if lim.deadline is not None and time.monotonic() > lim.deadline:
            raise LimitExceeded(f"timed out after {lim.timeout:g} s during {stage}; no bound was computed")
        if nodes is not None and lim.max_nodes is not None and nodes > lim.max_nodes:
            raise LimitExceeded(f"the decision diagram reached {nodes} nodes during {stage}, over the limit of "
                                f"{lim.max_nodes}; no bound was computed")


def watching_nodes() -> bool:
    """True when a node cap is active (so callers only count nodes when needed)."""
    return any(lim.max_nodes is not None for lim in _active)


F = TypeVar("F", bound=Callable)


def limited(fn: F) -> F:
    """Give ``fn`` keyword arguments ``max_nodes`` and ``timeout`` that run it under :func:`limits`."""
    @functools.wraps(fn)
    def wrapper(*args, max_nodes: int | None = None, timeout: float | None = None, **kwargs):
        with limits(max_nodes, timeout):
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]
