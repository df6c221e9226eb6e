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
from collections.abc import Iterable, Iterator
from multiprocessing.pool import AsyncResult
from types import FrameType

from hygiene.gitcmd import stop_all
from hygiene.progress import ScanProgress
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.blobs import BatchResult, scan_objects
from hygiene.scan.sources.objects import GitObject

# Measured on croc's history (147 MB of blobs, 2 cores under a load of 7 to 9): workers
# after 16 MB 1.05-1.15 s, after 64 MB 1.5-1.95 s, never 1.6-1.95 s.
PARALLEL_AFTER = 16 << 20
BATCH_BYTES = 16 << 20
BATCH_OBJECTS = 4096


def _told(batch: BatchResult, progress: ScanProgress) -> BatchResult:
    progress.add(
        commits=batch.messages,
        blobs=batch.blobs,
        nbytes=batch.result.bytes,
        findings=len(batch.found),
    )
    return batch


# In a worker process: how to read every batch (set once, when the worker starts).
_WORKER_CONTEXT: list[ScanContext] = []


def _start_worker(ctx: ScanContext) -> None:
    """Worker initializer: SIGTERM unwinds (``with`` blocks kill and reap their git); the
    context's picklable part is sent once per worker, not with each batch."""
    _WORKER_CONTEXT[:] = [ctx]

    def handler(_signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(143)

    signal.signal(signal.SIGTERM, handler)


def _run(objects: list[GitObject]) -> BatchResult:
    """Worker entry point (module level, so it pickles)."""
    try:
        return scan_objects(objects, _WORKER_CONTEXT[0])
    finally:
        stop_all()  # a git a signal left between its start and its `with` block


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_batches(
    batches: Iterable[list[GitObject]], ctx: ScanContext, progress: ScanProgress
) -> BatchResult:
    """Scan every batch (see the module's docstring), in ``ctx.jobs`` workers (None: one per
    core) unless ``ctx.keep_secrets`` keeps all in this process, with each finding's secret."""
    workers = ctx.jobs or _workers()
    out = BatchResult()
    seen = 0
    it = iter(batches)
    for batch in it:
        out.add(_told(scan_objects(batch, ctx), progress))
        seen += sum(obj.size for obj in batch)
        if seen > PARALLEL_AFTER and workers > 1 and not ctx.keep_secrets:
            for done in _in_workers(it, ctx.for_workers(), workers):
                out.add(_told(done, progress))
            break
    return out


def _in_workers(
    batches: Iterable[list[GitObject]], ctx: ScanContext, workers: int
) -> Iterator[BatchResult]:
    """Each batch's result, as the workers finish them (at most two batches per worker
    wait)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(workers, _start_worker, (ctx,)) as pool:
        pending: deque[AsyncResult[BatchResult]] = deque()
        for batch in batches:
            pending.append(pool.apply_async(_run, (batch,)))
            while len(pending) >= 2 * workers:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


__all__ = ["BATCH_BYTES", "BATCH_OBJECTS", "PARALLEL_AFTER", "run_batches"]
