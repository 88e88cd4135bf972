"""The phases of a long run, told to whoever listens; nothing happens while nobody does.

The layers that know what a run is doing say so: the planner its phase and the plan it chose with the plan's
estimate (:func:`phase`), a counting loop how many of its steps are done (:func:`advance`), the recount of a
plan's witness its phase again. The command line installs a listener (:func:`listening`) that draws one line on
stderr (:class:`wmcdp.report.progress.PhaseLine`), and a sweep or an audit tells which of its points it is at
(:func:`point`); the library installs none, so a call from Python or a notebook
costs one test of an empty list per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

T = TypeVar("T")


class Listener(Protocol):
    """What hears of a run's phases (:func:`phase`) and of the steps of the phase under way (:func:`advance`)."""

    def phase(self, name: str, detail: str) -> None: ...

    def advance(self, done: int, total: int) -> None: ...

    def outer(self, done: int, total: int, note: str) -> None: ...


_listeners: list[Listener] = []


def phase(name: str, detail: str = "") -> None:
    """A new phase begins: ``name`` (``planning``, ``plan``, ``counting``, ``recount``) and a few words on it."""
    if _listeners:
        _listeners[-1].phase(name, detail)


def advance(done: int, total: int) -> None:
    """``done`` of the ``total`` steps of the phase under way are finished."""
    if _listeners:
        _listeners[-1].advance(done, total)


def point(done: int, total: int, note: str = "") -> None:
    """``done`` of the ``total`` points of a sweep (or cases of an audit) are finished; ``note`` names the one under
    way, whose own phases follow."""
    if _listeners:
        _listeners[-1].outer(done, total, note)


def listening() -> bool:
    """Whether a listener hears the phases (a loop may skip the work of describing itself otherwise)."""
    return bool(_listeners)


@contextmanager
def listener(heard: Listener) -> Iterator[Listener]:
    """``heard`` hears every phase and step within the block (the innermost listener only)."""
    _listeners.append(heard)
    try:
        yield heard
    finally:
        _listeners.remove(heard)


def steps(items: Iterable[T], total: int) -> Iterator[T]:
    """The ``total`` items of ``items``, telling :func:`advance` how many are done before each and after the
    last."""
    done = 0
    for item in items:
        advance(done, total)
        yield item
        done += 1
    advance(done, max(total, done))


__all__ = ["Listener", "advance", "listener", "listening", "phase", "point", "steps"]
