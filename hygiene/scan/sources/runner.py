"""Run a scan over files, standard input or a stream of blobs; collect a :class:`ScanResult`.

Small runs (a pre-commit hook's handful of files) stay in this process; runs over many bytes
are split across worker processes by :mod:`hygiene.scan.sources.parallel`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence

from hygiene.scan.decoders import finder_for
from hygiene.scan.findings import ScanResult
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.one_file import scan_target

# Below this many bytes, starting worker processes costs more than it saves. Measured on 2
# cores (hygiene scan, wall): a 64 MB log 0.15 s with workers vs 0.15 s without, 128 MB 0.19 vs
# 0.19 s, 256 MB 0.24 vs 0.30 s; a 98 MB source tree 0.20 s vs 0.16 s, a 242 MB one 0.29 vs
# 0.28 s (forked CPython 3.11 workers copy every page of objects they touch: small files gain
# only with more cores).
PARALLEL_THRESHOLD = 128 << 20


def scan_targets(
    targets: Sequence[FileTarget],
    ctx: ScanContext | None = None,
    *,
    parallel_threshold: int = PARALLEL_THRESHOLD,
) -> ScanResult:
    """Scan files. Without ``ctx.keep_secrets`` and with enough bytes, in worker processes
    (whose results carry findings only: tokens never travel between processes). Streams
    (pipes, FIFOs, devices) are read here, once, never by a worker. ``ctx.progress`` hears
    of each file and chunk (of each worker's unit)."""
    started = time.perf_counter()
    ctx = ctx or ScanContext()
    workers = ctx.jobs if ctx.jobs is not None else min(os.cpu_count() or 1, 8)
    files = [t for t in targets if not t.stream]
    total = sum(t.size for t in files)
    if not ctx.keep_secrets and workers > 1 and total > parallel_threshold:
        from hygiene.scan.sources.parallel import scan_parallel

        result = scan_parallel(files, ctx, workers)
    else:
        result = ScanResult()
        each = ctx.using(finder_for(total))
        for target in files:
            result.add(scan_target(target, each))
    for target in targets:
        if target.stream:
            result.add(scan_target(target, ctx))
    result.seconds = time.perf_counter() - started
    return result


def merge(results: Iterable[ScanResult]) -> ScanResult:
    """One result from several (e.g. files and standard input)."""
    merged = ScanResult()
    for r in results:
        merged.add(r)
    return merged
