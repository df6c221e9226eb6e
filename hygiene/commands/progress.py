"""Progress on a terminal: one self-rewriting line on standard error, for long work only.

What the line says, and when, is :mod:`hygiene.progress` (counts and rates, never a path or a
value; nothing for the first couple of seconds; at most ten redraws a second). This module
draws it: only when standard error is a terminal (and ``TERM`` is not ``dumb``), from a quiet
thread (so a stalled server or a slow pipe still shows the time going by), cut to the
terminal's width (a wrapped line cannot be rewritten), and erased when the work ends, is
interrupted (Ctrl-C) or fails, before the command prints anything else. :func:`say` prints a
line above it.

SIGTERM is left as it is (the process ends at once, the line stays): a Python handler would be
inherited by the scan's forked workers, which ``Pool.terminate`` ends with SIGTERM, and a worker
blocked where the handler cannot run was seen to hang the scan.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

from hygiene.display import escape
from hygiene.progress import (
    EVERY,
    Frames,
    ItemFrames,
    ItemProgress,
    ScanFrames,
    ScanProgress,
    ShowItems,
    ShowScan,
)

_CLEAR = "\r\x1b[K"
_active: list[Line] = []  # the line being drawn, for say()


def wanted(stream: TextIO | None) -> bool:
    """Progress is drawn only on a terminal that can rewrite a line."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return False
    return os.environ.get("TERM", "") != "dumb"


def _width(stream: TextIO) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80
    return columns or 80  # a terminal whose size was never set says 0


class Line:
    """The one line on ``stream`` that is rewritten in place (``\\r``, erase to its end)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = ""
        # Reentrant: say() may run in a signal handler while the main thread is clearing.
        self._lock = threading.RLock()

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.stream.write(text)
            self.stream.flush()

    def draw(self, text: str) -> None:
        text = escape(text)[: max(_width(self.stream) - 1, 10)]
        with self._lock:
            if text != self.shown:
                self._write(_CLEAR + text)
                self.shown = text

    def clear(self) -> None:
        with self._lock:
            if self.shown:
                self._write(_CLEAR)
                self.shown = ""

    def above(self, text: str) -> None:
        """``text`` on a line of its own; the progress line comes back at the next frame."""
        with self._lock:
            self.clear()
            self._write(text + "\n")


def say(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` on standard error (``stream``), above the progress line if one is drawn;
    escaped (:func:`hygiene.display.escape`): a note may name a file, and stays one line."""
    text = escape(text)
    if _active:
        _active[-1].above(text)
    else:
        print(text, file=stream if stream is not None else sys.stderr, flush=True)


def erase_first() -> str:
    """What a signal handler writes (with ``os.write``) before its message: the erase, while a
    progress line is drawn (the line comes back below the message at the next frame)."""
    if _active and _active[-1].shown:
        _active[-1].shown = ""
        return _CLEAR
    return ""


@contextlib.contextmanager
def drawing(stream: TextIO, frames: Frames) -> Iterator[Line | None]:
    """Draw ``frames`` on ``stream`` while the block runs, if ``stream`` is a terminal; the line
    is erased when the block ends, however it ends."""
    if not wanted(stream):
        yield None
        return
    line = Line(stream)
    stopped = threading.Event()

    def loop() -> None:
        while not stopped.wait(EVERY):
            text = frames.next()
            if text is not None:
                line.draw(text)

    thread = threading.Thread(target=loop, name="hygiene-progress", daemon=True)
    _active.append(line)
    thread.start()
    try:
        yield line
    finally:
        stopped.set()
        thread.join(1.0)
        line.clear()
        _active.remove(line)


@contextlib.contextmanager
def scan_progress(stream: TextIO, label: str = "scanning") -> Iterator[ScanProgress | None]:
    """The counters a scan feeds, drawn on ``stream``; None (nothing to feed) off a terminal."""
    if not wanted(stream):
        yield None
        return
    progress = ScanProgress()
    with drawing(stream, ScanFrames(label, progress)):
        yield progress


def scan_bar(stream: TextIO) -> ShowScan:
    """A :data:`~hygiene.progress.ShowScan` drawing on ``stream``."""

    @contextlib.contextmanager
    def show(label: str) -> Iterator[ScanProgress]:
        progress = ScanProgress()
        with drawing(stream, ScanFrames(label, progress)):
            yield progress

    return show


def item_bar(stream: TextIO, noun: str = "", failed_as: str = "failed") -> ShowItems:
    """A :data:`~hygiene.progress.ShowItems` drawing on ``stream``: ``show(label, total)``
    yields the counters of answered items (``total`` 0: not known)."""

    @contextlib.contextmanager
    def show(label: str, total: int) -> Iterator[ItemProgress]:
        progress = ItemProgress(total or None)
        frames = ItemFrames(label, progress, noun, failed_as=failed_as)
        with drawing(stream, frames):
            yield progress

    return show


__all__ = [
    "Line",
    "drawing",
    "erase_first",
    "item_bar",
    "say",
    "scan_bar",
    "scan_progress",
    "wanted",
]
