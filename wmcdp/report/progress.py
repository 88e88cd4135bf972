"""A one-line progress bar on stderr for long command-line runs.

The bar appears only once a run has lasted ``delay`` seconds (short runs stay silent),
is redrawn a few times a second so the elapsed time moves even while one long point is
computed, and is erased when the run ends or is interrupted.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

WIDTH = 24


class Progress:
    """``with Progress(total) as bar: ... bar.update(done, note)``; does nothing when disabled."""

    def __init__(self, total: int, *, enabled: bool = True, delay: float = 1.0, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.enabled = enabled
        self.delay = delay
        self.stream = stream or sys.stderr
        self.done = 0
        self.note = ""
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._shown = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.enabled:
            return
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self._shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def update(self, done: int, note: str = "") -> None:
        """Record that ``done`` of ``total`` steps are finished; ``note`` names the step under way."""
        self.done, self.note = done, note

    def line(self) -> str:
        """The bar as text, e.g. ``[######------]  3/10  lam=0.2  4.1 s``."""
        filled = WIDTH * min(self.done, self.total) // self.total
        elapsed = time.monotonic() - self._start
        return f"[{'#' * filled}{'-' * (WIDTH - filled)}] {self.done}/{self.total}  {self.note}  {elapsed:.1f} s"

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            with self._lock:
                self.stream.write("\r\x1b[K" + self.line())
                self.stream.flush()
                self._shown = True
            if self._stop.wait(0.2):
                return
