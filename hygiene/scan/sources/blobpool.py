"""Running history's object batches: in this process first, then in worker processes once the
objects listed so far pass :data:`PARALLEL_AFTER` bytes (a small repository never forks).

Each worker reads its batch with its own ``git cat-file --batch`` and sends back findings
only (a :class:`~hygiene.scan.sources.blobs.BatchResult` without secrets): no token crosses a
process boundary. At most two batches per worker wait at a time, so memory stays flat however
big the history. A worker stopped (SIGTERM from the pool closing on an error or a signal)
unwinds, so its git is killed and reaped before it exits.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult
from types import FrameType

from hygiene.detection import Secret
from hygiene.gitcmd import stop_all
from hygiene.progress import ScanProgress
from hygiene.scan.findings import Finding, ScanResult
from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.sources.blobs import BatchResult, Signature, scan_objects
from hygiene.scan.sources.objects import GitObject

# Measured on croc's history (147 MB of blobs, 2 cores under a load of 7 to 9): workers
# after 16 MB 1.05-1.15 s, after 64 MB 1.5-1.95 s, never 1.6-1.95 s.
PARALLEL_AFTER = 16 << 20
BATCH_BYTES = 16 << 20
BATCH_OBJECTS = 4096


@dataclass
class Collected:
    """Every batch's results together."""

    found: list[tuple[str, Finding]] = field(default_factory=list)
    secrets: list[Secret] = field(default_factory=list)
    signatures: dict[str, Signature] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    result: ScanResult = field(default_factory=ScanResult)

    def add(self, batch: BatchResult, progress: ScanProgress) -> None:
        self.found += batch.found
        self.secrets += batch.secrets
        self.signatures.update(batch.signatures)
        self.unreadable += batch.unreadable
        part = batch.result
        self.result.files += part.files
        self.result.bytes += part.bytes
        self.result.skipped += part.skipped
        self.result.errors += part.errors
        self.result.suppressed.update(part.suppressed)
        progress.add(
            commits=batch.messages, blobs=batch.blobs, nbytes=part.bytes, findings=len(batch.found)
        )


def _stop_on_sigterm() -> None:
    """Worker initializer: SIGTERM unwinds (``with`` blocks kill and reap their git)."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(143)

    signal.signal(signal.SIGTERM, handler)


def _run(args: tuple[list[GitObject], DecodeLimits | None, AllowLines]) -> BatchResult:
    """Worker entry point (module level, so it pickles)."""
    objects, limits, allow_lines = args
    try:
        return scan_objects(objects, limits, allow_lines)
    finally:
        stop_all()  # a git a signal left between its start and its `with` block


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_batches(
    batches: Iterable[list[GitObject]],
    limits: DecodeLimits | None,
    allow_lines: AllowLines,
    keep_secrets: bool,
    progress: ScanProgress,
    workers: int | None = None,
) -> Collected:
    """Scan every batch (see the module's docstring); ``keep_secrets`` keeps all in this
    process, with each finding's secret."""
    workers = workers or _workers()
    out = Collected()
    seen = 0
    it = iter(batches)
    for batch in it:
        out.add(scan_objects(batch, limits, allow_lines, keep_secrets), progress)
        seen += sum(obj.size for obj in batch)
        if seen > PARALLEL_AFTER and workers > 1 and not keep_secrets:
            _in_workers(it, limits, allow_lines, workers, out, progress)
            break
    return out


def _in_workers(
    batches: Iterable[list[GitObject]],
    limits: DecodeLimits | None,
    allow_lines: AllowLines,
    workers: int,
    out: Collected,
    progress: ScanProgress,
) -> None:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(workers, initializer=_stop_on_sigterm) as pool:
        pending: deque[AsyncResult[BatchResult]] = deque()
        for batch in batches:
            pending.append(pool.apply_async(_run, ((batch, limits, allow_lines),)))
            while len(pending) >= 2 * workers:
                out.add(pending.popleft().get(), progress)
        while pending:
            out.add(pending.popleft().get(), progress)


__all__ = ["BATCH_BYTES", "BATCH_OBJECTS", "PARALLEL_AFTER", "Collected", "run_batches"]
