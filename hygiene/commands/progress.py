"""Feedback on long work, on a terminal only: counts, rates and elapsed time, never a secret.

Nothing is drawn for work that ends within :data:`DELAY` seconds, nor when standard error is
not a terminal (callers check :func:`wanted`). The line is redrawn in place (``\\r``) at most
every :data:`EVERY` seconds and erased at the end, so the command's own output stays clean.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

DELAY = 2.0  # seconds before anything is drawn
EVERY = 0.25  # seconds between redraws
_CLEAR = "\r\x1b[K"

Tick = Callable[[Any], None]


def wanted(stream: TextIO) -> bool:
    """Progress is shown only on a terminal."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Meter:
    """One line on ``stream``: ``label done/total (rate/s, elapsed)``; ``total`` may be None."""

    def __init__(
        self,
        stream: TextIO,
        label: str,
        total: int | None = None,
        *,
        delay: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.label, self.total = stream, label, total
        self.done = 0
        self._clock = clock
        self._start = clock()
        self._delay = DELAY if delay is None else delay
        self._drawn_at: float | None = None
        self._lock = threading.Lock()

    def text(self) -> str:
        elapsed = max(self._clock() - self._start, 1e-9)
        if self.total is None and not self.done:
            return f"{self.label}… {elapsed:.0f} s"
        count = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        return f"{self.label} {count} ({self.done / elapsed:.1f}/s, {elapsed:.0f} s)"

    def tick(self, _item: object = None, n: int = 1) -> None:
        with self._lock:
            self.done += n
        self.draw()

    def draw(self) -> None:
        with self._lock:
            now = self._clock()
            if now - self._start < self._delay:
                return
            if self._drawn_at is not None and now - self._drawn_at < EVERY:
                return
            self._drawn_at = now
            with contextlib.suppress(OSError, ValueError):
                self.stream.write(_CLEAR + self.text())
                self.stream.flush()

    def close(self) -> None:
        with self._lock:
            if self._drawn_at is not None:
                with contextlib.suppress(OSError, ValueError):
                    self.stream.write(_CLEAR)
                    self.stream.flush()
                self._drawn_at = None


def progress_bar(stream: TextIO) -> Callable[[str, int], contextlib.AbstractContextManager[Tick]]:
    """A ``Progress`` for the domain: ``progress(label, total)`` yields ``tick(result)``;
    a ``total`` of 0 means unknown (elapsed time only)."""

    @contextlib.contextmanager
    def progress(label: str, total: int) -> Iterator[Tick]:
        meter = Meter(stream, label, total if total > 0 else None)
        with _redrawing(meter):
            yield meter.tick

    return progress


@contextlib.contextmanager
def _redrawing(meter: Meter) -> Iterator[None]:
    # A quiet thread keeps the elapsed time moving while nothing arrives (a slow server).
    stopped = threading.Event()

    def loop() -> None:
        while not stopped.wait(EVERY):
            meter.draw()

    thread = threading.Thread(target=loop, name="hygiene-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stopped.set()
        thread.join(1.0)
        meter.close()


@contextlib.contextmanager
def activity(stream: TextIO | None, label: str) -> Iterator[Meter | None]:
    """Elapsed time for work that reports no counts (a scan, verification): only on a terminal
    (``stream`` None or not a terminal: nothing)."""
    if stream is None or not wanted(stream):
        yield None
        return
    meter = Meter(stream, label)
    with _redrawing(meter):
        yield meter


__all__ = ["DELAY", "Meter", "activity", "progress_bar", "wanted"]
