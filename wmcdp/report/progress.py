"""One line on stderr that shows what a long command-line run is doing, drawn by tqdm.

A :class:`PhaseLine` listens to the phases the planner and the counting loops announce
(:mod:`wmcdp.base.progress`): the phase and its detail (``plan: exhaustive sets, estimated 10 s``), a bar when
the phase counts steps, the time spent and, once some steps are done, the time left at the phase's pace. A
sweep or an audit gives its own steps too (:meth:`PhaseLine.outer`): its bar is then the points done, and the
phase of the point under way follows it. The line appears only once the run has lasted ``delay`` seconds (short
runs stay silent), moves a few times a second even while one long step runs, and is erased when the run ends or
is interrupted. tqdm sizes the line to the terminal and draws and erases it.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Any, TextIO

from ..base import progress

#: how often the line is redrawn while nothing new is heard (seconds)
TICK = 0.2
#: the least time between two draws for steps done (a new phase is drawn at once)
MININTERVAL = 0.05
#: the phases whose words a counting phase right after them keeps
KEPT = ("plan", "recount")


class PhaseLine:
    """``with PhaseLine(): ...`` draws the phases of the block's run on ``stream``; does nothing when disabled."""

    def __init__(self, *, enabled: bool = True, delay: float = 1.0, stream: TextIO | None = None) -> None:
        self.enabled = enabled
        self.delay = delay
        self.stream = stream or sys.stderr
        self.name, self.detail = "loading", ""
        self.done, self.total = 0, 0
        self.note, self.outer_done, self.outer_total = "", 0, 0
        self._since = time.monotonic()  # when the phase under way began (its pace gives the time left)
        self._drawn = 0.0  # when the state was last handed to tqdm
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._bar: Any = None
        self._heard: Any = None

    def __enter__(self) -> PhaseLine:
        if not self.enabled:
            return self
        from tqdm import tqdm  # deferred: tqdm takes 0.3 s to load and only a drawn line needs it

        self._bar = tqdm(
            total=None,
            file=self.stream,
            delay=self.delay,
            leave=False,
            dynamic_ncols=True,
            mininterval=0,
            miniters=0,
            desc="wmcdp loading",
            bar_format="{desc}",
        )
        self._heard = progress.listener(self)
        self._heard.__enter__()
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if not self.enabled:
            return
        self._heard.__exit__(kind, exc, tb)
        self._stop.set()
        self._thread.join()
        with self._lock:
            self._bar.close()

    # -- what the run tells -----------------------------------------------------------------
    def phase(self, name: str, detail: str) -> None:
        """A new phase (:func:`wmcdp.base.progress.phase`): its steps start from none. Counting right after the
        plan was chosen, or as the recount of its witness, keeps their words (``plan: exhaustive sets, estimated
        10 s; counting the ...``)."""
        with self._lock:
            if name == "counting" and self.name in KEPT:
                name, detail = self.name, f"{self.detail}; counting {detail}".rstrip()
            self.name, self.detail, self.done, self.total = name, detail, 0, 0
            self._since = time.monotonic()
            self._draw()

    def advance(self, done: int, total: int) -> None:
        """``done`` of ``total`` steps of the phase under way (:func:`wmcdp.base.progress.advance`)."""
        with self._lock:
            if (done, total) != (self.done, self.total):
                self.done, self.total = done, total
                if time.monotonic() - self._drawn >= MININTERVAL:
                    self._draw()

    def outer(self, done: int, total: int, note: str = "") -> None:
        """``done`` of the ``total`` points of a sweep or cases of an audit; ``note`` names the one under way."""
        with self._lock:
            self.outer_done, self.outer_total, self.note = done, total, note
            self._draw()

    # -- the line ----------------------------------------------------------------------------
    def words(self) -> str:
        """The phase as words: ``plan: exhaustive sets, estimated 10 s``."""
        return f"{self.name}: {self.detail}" if self.detail else self.name

    def left(self) -> str:
        """The time the phase under way has left at its pace so far (empty before its first step is done)."""
        if not 0 < self.done < self.total:
            return ""
        seconds = (time.monotonic() - self._since) * (self.total - self.done) / self.done
        return f"~{seconds:.0f} s left" if seconds >= 1 else ""

    def _draw(self) -> None:
        """Hand the state to tqdm, which draws it once ``delay`` has passed (the lock is held)."""
        bar = self._bar
        if bar is None:
            return
        self._drawn = time.monotonic()
        if self.outer_total:  # the sweep's points are the bar; the phase of the point under way follows its name
            inner = f"{self.done}/{self.total}" if self.total else ""
            desc = " ".join(w for w in (self.note, self.words(), inner) if w)
            done, total, left = self.outer_done, self.outer_total, ""
        else:
            desc, done, total, left = self.words(), self.done, self.total, self.left()
        bar.set_description_str(f"wmcdp {desc}", refresh=False)
        bar.set_postfix_str(left, refresh=False)
        if total > 0:
            bar.bar_format = "{desc} |{bar:24}| {n_fmt}/{total_fmt} {elapsed}{postfix}"
            bar.total = total
        else:
            bar.bar_format = "{desc} {elapsed}"
        bar.update(done - bar.n)

    def _tick(self) -> None:
        """Redraw a few times a second, so that the time spent moves during a long step."""
        while not self._stop.wait(TICK):
            with self._lock:
                self._draw()


__all__ = ["PhaseLine"]
