"""Resource limits: a diagram-size cap, a wall-clock timeout and a memory cap.

Inside ``with resource_limits(max_nodes=..., timeout=..., max_memory=...)`` tracing, compilation,
counting and sampling call :func:`check` at regular points; when a limit is exceeded a
:class:`LimitExceeded` is raised and no partial bound is ever returned. In the main
thread a timer signal also interrupts code that never reaches a checkpoint (a ``while
True`` in a program body). CUDD's own memory is capped by ``max_memory`` (default: three
quarters of the machine's memory), so running out of it is a limit, not a crash. Under an
explicit ``max_memory`` :func:`check` also reads the process's resident memory (at most every
:data:`MEMORY_EVERY` seconds) and stops the run once it is over the cap, and a large table asks
:func:`reserve` first, which refuses it when it would not fit. The CLI maps every limit to exit
status 3.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import WmcdpError


class LimitExceeded(RuntimeError):
    """A ``max_nodes``, ``timeout`` or memory limit stopped the computation."""


@dataclass(frozen=True)
class Limits:
    max_nodes: int | None
    timeout: float | None
    deadline: float | None
    max_memory: int | None


_active: list[Limits] = []

#: the longest wait the timer signal is set for (the platform's timer refuses about 3e8 s and more); a
#: longer timeout still holds: the signal then repeats every 0.05 s and each one checks the deadline
MAX_TIMER = 1e8

#: the largest memory cap (CUDD takes the cap as a C unsigned long)
MAX_MEMORY = 1 << 60

#: under an explicit ``max_memory``, :func:`check` reads the resident memory at most this often (seconds)
MEMORY_EVERY = 0.05
#: when :func:`check` reads the resident memory next (``time.monotonic()``)
_next_memory_read = [0.0]


def physical_memory() -> int:
    """Bytes of memory of this machine (4 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 4 << 30


def resident_memory() -> int:
    """Bytes of this process's resident memory (Linux ``/proc/self/statm``; elsewhere the peak so far)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        import resource  # deferred: a Unix-only module that only this fallback reads

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def memory_cap() -> int:
    """The memory cap in force: the tightest ``max_memory``, else 3/4 of physical memory."""
    caps = [lim.max_memory for lim in _active if lim.max_memory is not None]
    return min(caps) if caps else physical_memory() * 3 // 4


def _timed_out(lim: Limits, stage: str) -> LimitExceeded:
    return LimitExceeded(f"timed out after {lim.timeout:g} s during {stage}; no bound was computed")


def _on_alarm(signum: int, frame: object) -> None:  # pragma: no cover - timing dependent
    check("the computation")


@contextmanager
def resource_limits(
    max_nodes: int | None = None, timeout: float | None = None, max_memory: int | None = None
) -> Iterator[None]:
    """Apply a node cap (live decision-diagram nodes), a timeout (seconds) and a memory cap (bytes)."""
    _check_limits(max_nodes, timeout, max_memory)
    if max_nodes is None and timeout is None and max_memory is None:
        yield
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    lim = Limits(max_nodes, timeout, deadline, max_memory)
    if max_memory is not None:
        _next_memory_read[0] = 0.0  # the first checkpoint reads the resident memory
    with _alarm(timeout if threading.current_thread() is threading.main_thread() else None):
        _active.append(lim)
        try:
            yield
        finally:
            _active.remove(lim)


def _check_limits(max_nodes: int | None, timeout: float | None, max_memory: int | None) -> None:
    """Refuse a node cap below 1, a timeout that is not a positive finite number of seconds, and a memory cap
    outside 1 MiB .. :data:`MAX_MEMORY` (booleans are not numbers here)."""
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise WmcdpError(f"max_nodes must be a whole number >= 1, got {max_nodes!r}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
        raise WmcdpError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    if max_memory is not None and (
        isinstance(max_memory, bool) or not isinstance(max_memory, int) or not 1 << 20 <= max_memory <= MAX_MEMORY
    ):
        raise WmcdpError(f"max_memory must be a number of bytes from 1 MiB to 1 EiB (2^60), got {max_memory!r}")


@contextmanager
def _alarm(timeout: float | None) -> Iterator[None]:
    """A SIGALRM every 0.05 s from ``timeout`` seconds on (at most :data:`MAX_TIMER`, sooner if an outer timer is
    due first), whose handler runs :func:`check`; the outer handler and timer are restored after. None: no alarm
    (no timeout, or not the main thread, where signals cannot be handled)."""
    if timeout is None:
        yield
        return
    previous_handler = signal.signal(signal.SIGALRM, _on_alarm)
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    due = min(timeout, MAX_TIMER) if previous_timer[0] == 0 else min(timeout, MAX_TIMER, previous_timer[0])
    signal.setitimer(signal.ITIMER_REAL, due, 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_timer[0]:
            signal.setitimer(signal.ITIMER_REAL, *previous_timer)


def check(stage: str, nodes: int | None = None, what: str = "the decision diagram") -> None:
    """Raise :class:`LimitExceeded` if the time is up, ``nodes`` is over a cap, or (every :data:`MEMORY_EVERY`
    seconds) the resident memory is over an explicit ``max_memory`` (nested limits all hold)."""
    if _active and time.monotonic() >= _next_memory_read[0]:
        _check_memory(stage)
    for lim in _active:
        if lim.deadline is not None and time.monotonic() > lim.deadline:
            raise _timed_out(lim, stage)
        if nodes is not None and lim.max_nodes is not None and nodes > lim.max_nodes:
            raise LimitExceeded(
                f"{what} reached {nodes} nodes during {stage}, over the limit of {lim.max_nodes}; no bound was computed"
            )


def _check_memory(stage: str) -> None:
    """Stop the run when its resident memory is over the tightest explicit ``max_memory``."""
    _next_memory_read[0] = time.monotonic() + MEMORY_EVERY
    caps = [lim.max_memory for lim in _active if lim.max_memory is not None]
    if caps and (used := resident_memory()) > min(caps):
        raise LimitExceeded(
            f"the run used {used >> 20} MiB during {stage}, over --max-memory (max_memory) {min(caps) >> 20} MiB; "
            "no bound was computed"
        )


def reserve(size: int, stage: str) -> None:
    """Refuse (:class:`LimitExceeded`) to allocate ``size`` bytes for ``stage`` when they and the resident memory
    would pass the cap in force (:func:`memory_cap`): called before a large table is made, so a run that cannot
    fit stops at once instead of growing until it is stopped."""
    cap = memory_cap()
    if size + resident_memory() > cap:
        raise LimitExceeded(
            f"{stage} would take about {_mib(size)} MiB, over the memory cap of {cap >> 20} MiB (--max-memory, "
            "default 3/4 of this machine's); no bound was computed"
        )


def _mib(size: int) -> str:
    """``size`` bytes in MiB, to three significant digits (``1.5e+04``) or whole."""
    mib = size / (1 << 20)
    return f"{mib:.0f}" if mib < 1e6 else f"{mib:.3g}"


def watching_nodes() -> bool:
    """True when a node cap is active (so callers only count nodes when needed)."""
    return any(lim.max_nodes is not None for lim in _active)


def out_of_memory(stage: str) -> LimitExceeded:
    """The limit error for a computation that hit the memory cap."""
    return LimitExceeded(
        f"out of memory during {stage} (cap {memory_cap() >> 20} MiB); no bound was computed "
        "(use symmetry sets, --max-memory or --max-nodes)"
    )


F = TypeVar("F", bound=Callable[..., Any])


def limited(fn: F) -> F:
    """Give ``fn`` keyword arguments ``max_nodes``, ``timeout`` and ``max_memory`` that run it under :func:`limits`."""

    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        max_nodes: int | None = None,
        timeout: float | None = None,
        max_memory: int | None = None,
        **kwargs: Any,
    ) -> Any:
        with resource_limits(max_nodes, timeout, max_memory):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
