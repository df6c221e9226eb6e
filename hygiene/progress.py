"""Counts and rates of long work (a scan, verification, revocation): what the domain feeds and
the text of the one line the command layer draws.

Sources call a hook per file, chunk, commit or answer (never per line) and only add to
counters; whoever shows progress reads them at its own pace through :class:`Frames`: nothing
for the first :data:`DELAY` seconds, then at most one frame per :data:`EVERY`. A frame holds
counts, sizes, rates and elapsed time, never a path or a value (a path can hold a secret).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

DELAY = 2.0  # seconds of work before anything is shown
EVERY = 0.1  # seconds between frames: at most 10 redraws a second
WINDOW = 5.0  # seconds a rate is measured over

Clock = Callable[[], float]
Reader = Callable[[int], bytes]


def count(n: int) -> str:
    """``1,234``."""
    return f"{n:,}"


def size(n: float) -> str:
    """Bytes in decimal units as pip and gh show them: ``512 B``, ``45.6 MB``, ``1.2 GB``."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 999.95 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" or n >= 99.95 else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def duration(seconds: float) -> str:
    """``7 s``, ``1:05``, ``1:02:03``."""
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    minutes, s = divmod(s, 60)
    return f"{minutes}:{s:02d}" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d}:{s:02d}"


def plural(n: int, noun: str) -> str:
    return f"{count(n)} {noun}" if n == 1 else f"{count(n)} {noun}s"


class Rate:
    """Per second over the last :data:`WINDOW` seconds (since the start until then)."""

    def __init__(self, start: float, window: float = WINDOW) -> None:
        self.window = window
        self._samples: deque[tuple[float, float]] = deque([(start, 0.0)])

    def update(self, now: float, value: float) -> float:
        samples = self._samples
        samples.append((now, value))
        # Keep one sample at or before the window's start: the rate spans the whole window.
        while len(samples) > 2 and now - samples[1][0] >= self.window:
            samples.popleft()
        then, before = samples[0]
        return (value - before) / (now - then) if now > then else 0.0


@dataclass(frozen=True)
class ScanCounts:
    """A scan's counts at one moment; ``total_*`` None where not known up front."""

    files: int = 0
    bytes: int = 0
    findings: int = 0
    commits: int = 0
    blobs: int = 0
    total_files: int | None = None
    total_bytes: int | None = None


class ScanProgress:
    """The counters a scan's sources feed. Thread-safe (``--history`` feeds it from two
    threads); :meth:`read` alone takes no lock: only the thread reading a file calls it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.files = self.bytes = self.findings = self.commits = self.blobs = 0
        self.total_files: int | None = None
        self.total_bytes: int | None = None
        self.reading = 0  # bytes of the file being read, not yet in ``bytes``

    def expect(self, files: int | None, nbytes: int | None) -> None:
        """The totals, where the source knows them before it starts (a walk of files)."""
        self.total_files, self.total_bytes = files, nbytes

    def read(self, n: int) -> None:
        """``n`` more bytes of the file being read (call per chunk)."""
        self.reading += n

    def file_done(self, nbytes: int, findings: int = 0) -> None:
        """A file (or blob) is scanned: ``nbytes`` in all, holding ``findings``."""
        with self._lock:
            self.reading = 0
            self.files += 1
            self.bytes += nbytes
            self.findings += findings

    def add(
        self,
        *,
        files: int = 0,
        nbytes: int = 0,
        findings: int = 0,
        commits: int = 0,
        blobs: int = 0,
    ) -> None:
        """Work done elsewhere (a worker's unit, a commit's message, a history blob)."""
        with self._lock:
            self.files += files
            self.bytes += nbytes
            self.findings += findings
            self.commits += commits
            self.blobs += blobs

    def counting(self, read: Reader) -> Reader:
        """``read``, telling :meth:`read` what each call returned."""

        def counted(n: int) -> bytes:
            piece = read(n)
            self.reading += len(piece)
            return piece

        return counted

    def snapshot(self) -> ScanCounts:
        with self._lock:
            return ScanCounts(
                self.files,
                self.bytes + self.reading,
                self.findings,
                self.commits,
                self.blobs,
                self.total_files,
                self.total_bytes,
            )


class ItemProgress:
    """Items (tokens verified, revoked, sessions logged out) answered of ``total``, and how
    many of them failed. Fed from one thread (the answers' receiver)."""

    def __init__(self, total: int | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0

    def item(self, *, failed: bool = False) -> None:
        self.done += 1
        self.failed += failed


class Frames:
    """When to redraw, and what: :meth:`next` is None for the first ``delay`` seconds and
    within ``every`` of the last frame, else the text for now."""

    def __init__(
        self, clock: Clock = time.monotonic, delay: float | None = None, every: float = EVERY
    ):
        self.clock, self.every = clock, every
        self.delay = DELAY if delay is None else delay
        self.start = clock()
        self._last: float | None = None

    def next(self) -> str | None:
        now = self.clock()
        if now - self.start < self.delay:
            return None
        if self._last is not None and now - self._last < self.every:
            return None
        self._last = now
        return self.text(now)

    def text(self, now: float) -> str:
        raise NotImplementedError


class ScanFrames(Frames):
    """``scanning: 1,234/5,000 files, 456 MB/1.2 GB, 120 MB/s, 2 findings, 4 s``; history
    shows commits and blobs instead of files."""

    def __init__(
        self, label: str, progress: ScanProgress, clock: Clock = time.monotonic, **kw: float
    ):
        super().__init__(clock, **kw)
        self.label, self.progress = label, progress
        self.rate = Rate(self.start)

    def text(self, now: float) -> str:
        c = self.progress.snapshot()
        parts = []
        if c.commits:
            parts.append(plural(c.commits, "commit"))
        if c.blobs:
            parts.append(plural(c.blobs, "blob"))
        if c.files or not c.commits:
            total = f"/{count(c.total_files)}" if c.total_files is not None else ""
            parts.append(
                f"{count(c.files)}{total} {'file' if c.files == 1 and not total else 'files'}"
            )
        total_bytes = f"/{size(c.total_bytes)}" if c.total_bytes is not None else ""
        parts.append(size(c.bytes) + total_bytes)
        parts.append(f"{size(self.rate.update(now, c.bytes))}/s")
        parts.append(plural(c.findings, "finding"))
        parts.append(duration(now - self.start))
        return f"{self.label}: {', '.join(parts)}"


class ItemFrames(Frames):
    """``verifying: 12/40 tokens, 3.1/s, 4 s``; ``revoking: 12/40, 2 failed, 3.1/s, 4 s``
    (``failed_as`` names the failures)."""

    def __init__(
        self,
        label: str,
        progress: ItemProgress,
        noun: str = "",
        clock: Clock = time.monotonic,
        failed_as: str = "failed",
        **kw: float,
    ):
        super().__init__(clock, **kw)
        self.label, self.progress, self.noun = label, progress, noun
        self.failed_as = failed_as
        self.rate = Rate(self.start)

    def text(self, now: float) -> str:
        p = self.progress
        done, failed = p.done, p.failed
        counted = count(done) if p.total is None else f"{count(done)}/{count(p.total)}"
        parts = [f"{counted} {self.noun}".rstrip()]
        if failed:
            parts.append(f"{count(failed)} {self.failed_as}")
        parts.append(f"{self.rate.update(now, done):.1f}/s")
        parts.append(duration(now - self.start))
        return f"{self.label}: {', '.join(parts)}"


# What the domain asks of whoever shows progress: a context around the work that yields the
# counters to feed; the nulls below show nothing.
ShowItems = Callable[[str, int], contextlib.AbstractContextManager[ItemProgress]]
ShowScan = Callable[[str], contextlib.AbstractContextManager[ScanProgress]]


@contextlib.contextmanager
def no_items(_label: str, total: int) -> Iterator[ItemProgress]:
    """A :data:`ShowItems` that shows nothing."""
    yield ItemProgress(total)


@contextlib.contextmanager
def no_scan(_label: str) -> Iterator[ScanProgress]:
    """A :data:`ShowScan` that shows nothing."""
    yield ScanProgress()


__all__ = [
    "DELAY",
    "EVERY",
    "Frames",
    "ItemFrames",
    "ItemProgress",
    "Rate",
    "ScanCounts",
    "ScanFrames",
    "ScanProgress",
    "ShowItems",
    "ShowScan",
    "count",
    "duration",
    "no_items",
    "no_scan",
    "size",
]
