"""Run a scan over files, standard input or a stream of blobs; collect a :class:`ScanResult`.

Small runs (a pre-commit hook's handful of files) stay in this process; runs over many bytes
are split across worker processes by :mod:`hygiene.scan.parallel`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from typing import BinaryIO

from hygiene.scan.engine import DEFAULT_CHUNK_SIZE, Hit, StreamScanner
from hygiene.scan.findings import Detection, ScanResult, finding_for
from hygiene.scan.linecount import Recount, file_recount
from hygiene.scan.needles import NeedleFinder, finder_for
from hygiene.scan.sources import GZIP_ERRORS, FileTarget, open_target

# Below this many bytes, starting worker processes costs more than it saves. Measured on 2
# cores (hygiene scan, wall): a 64 MB log 0.15 s with workers vs 0.15 s without, 128 MB 0.19 vs
# 0.19 s, 256 MB 0.24 vs 0.30 s; a 98 MB source tree 0.20 s vs 0.16 s, a 242 MB one 0.29 vs
# 0.28 s (forked CPython 3.11 workers copy every page of objects they touch: small files gain
# only with more cores).
PARALLEL_THRESHOLD = 128 << 20


def scan_stream(
    stream: BinaryIO,
    display: str,
    result: ScanResult,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    finder: NeedleFinder | None = None,
    recount: Recount | None = None,
) -> None:
    """Scan one open stream into ``result`` (a file's errors are the caller's to catch).
    Without a ``finder``, the one for a stream of unknown size; ``recount`` where the
    stream can be read again (see :meth:`StreamScanner.scan`)."""
    scanner = StreamScanner(chunk_size, full_count=False, finder=finder or finder_for(None))
    try:
        _record(scanner.scan(stream.read, recount), display, result)
    finally:
        result.bytes += scanner.bytes_read


def _record(hits: Iterable[Hit], display: str, result: ScanResult) -> None:
    for hit in hits:
        finding = finding_for(hit.secret, display, hit.line, hit.column)
        result.detections.append(Detection(finding, hit.secret))


def _scan_small(
    target: FileTarget, result: ScanResult, chunk_size: int, finder: NeedleFinder
) -> bool:
    """Scan a file smaller than a chunk in one round, without the streaming machinery (most
    files of a source tree). False, having scanned nothing, when the bytes read are not the
    size seen (the file changed since, or it is a /proc file, whose size says nothing)."""
    with open(target.fspath, "rb", buffering=0) as raw:
        data = raw.read(chunk_size)
    if len(data) != target.size:
        return False
    result.bytes += len(data)
    scanner = StreamScanner(chunk_size, full_count=False, finder=finder)
    _record(scanner.scan_whole(data), target.display, result)
    return True


def scan_target(
    target: FileTarget, result: ScanResult, chunk_size: int, finder: NeedleFinder
) -> None:
    """Scan one file into ``result``; an unreadable or corrupt file becomes one error line."""
    try:
        if (
            target.gzipped
            or target.size >= chunk_size
            or not _scan_small(target, result, chunk_size, finder)
        ):
            recount = None if target.gzipped else file_recount(target.fspath)
            with open_target(target) as stream:
                scan_stream(stream, target.display, result, chunk_size, finder, recount)
    except GZIP_ERRORS as exc:
        result.errors.append(f"{target.display}: not a valid gzip file ({exc})")
    except OSError as exc:
        result.errors.append(f"{target.display}: {exc.strerror or exc}")
    else:
        result.files += 1


def scan_targets(
    targets: Sequence[FileTarget],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    jobs: int | None = None,
    keep_secrets: bool = True,
    parallel_threshold: int = PARALLEL_THRESHOLD,
) -> ScanResult:
    """Scan files. With ``keep_secrets`` false and enough bytes, in worker processes (whose
    results carry findings only: tokens never travel between processes)."""
    started = time.perf_counter()
    workers = jobs if jobs is not None else min(os.cpu_count() or 1, 8)
    total = sum(t.size for t in targets)
    if not keep_secrets and workers > 1 and total > parallel_threshold:
        from hygiene.scan.parallel import scan_parallel

        result = scan_parallel(targets, workers, chunk_size)
    else:
        result = ScanResult()
        finder = finder_for(total)
        for target in targets:
            scan_target(target, result, chunk_size, finder)
    result.seconds = time.perf_counter() - started
    return result


def merge(results: Iterable[ScanResult]) -> ScanResult:
    """One result from several (e.g. files and standard input)."""
    merged = ScanResult()
    for r in results:
        merged.detections += r.detections
        merged.findings_only += r.findings_only
        merged.errors += r.errors
        merged.files += r.files
        merged.bytes += r.bytes
        merged.seconds += r.seconds
    return merged
