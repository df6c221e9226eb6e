"""Run a scan over files, standard input or a stream of blobs; collect a :class:`ScanResult`.

Small runs (a pre-commit hook's handful of files) stay in this process; runs over many bytes
are split across worker processes by :mod:`hygiene.scan.parallel`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from typing import BinaryIO

from hygiene.scan.engine import DEFAULT_CHUNK_SIZE, StreamScanner
from hygiene.scan.findings import Detection, ScanResult, finding_for
from hygiene.scan.sources import GZIP_ERRORS, FileTarget, open_target

# Below this many bytes, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 32 << 20


def scan_stream(
    stream: BinaryIO, display: str, result: ScanResult, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> None:
    """Scan one open stream into ``result`` (a file's errors are the caller's to catch)."""
    scanner = StreamScanner(chunk_size, full_count=False)
    try:
        for hit in scanner.scan(stream.read):
            finding = finding_for(hit.secret, display, hit.line, hit.column)
            result.detections.append(Detection(finding, hit.secret))
    finally:
        result.bytes += scanner.bytes_read


def scan_target(target: FileTarget, result: ScanResult, chunk_size: int) -> None:
    """Scan one file into ``result``; an unreadable or corrupt file becomes one error line."""
    try:
        with open_target(target) as stream:
            scan_stream(stream, target.display, result, chunk_size)
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
        for target in targets:
            scan_target(target, result, chunk_size)
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
