"""Scanning one file or stream into a :class:`~hygiene.scan.findings.ScanResult`.

Shared by the serial run (:mod:`~hygiene.scan.sources.runner`) and the worker processes
(:mod:`~hygiene.scan.sources.parallel`).
"""

from __future__ import annotations

import re
from typing import BinaryIO

from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE, StreamScanner
from hygiene.scan.matcher.linecount import Recount, file_recount
from hygiene.scan.matcher.needles import NeedleFinder, finder_for
from hygiene.scan.sources.files import GZIP_ERRORS, FileTarget, Notice, open_target

# The settings' line allowlist (see hygiene.scan.matcher.allowlines).
AllowLines = tuple[re.Pattern[bytes], ...]


def scan_stream(
    stream: BinaryIO,
    display: str,
    result: ScanResult,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    finder: NeedleFinder | None = None,
    recount: Recount | None = None,
    allow_lines: AllowLines = (),
) -> None:
    """Scan one open stream into ``result`` (a file's errors are the caller's to catch).
    Without a ``finder``, the one for a stream of unknown size; ``recount`` where the
    stream can be read again (see :meth:`StreamScanner.scan`)."""
    finder = finder or finder_for(None)
    scanner = StreamScanner(chunk_size, full_count=False, finder=finder, allow_lines=allow_lines)
    try:
        result.record(scanner.scan(stream.read, recount), display)
    finally:
        result.bytes += scanner.bytes_read


def _scan_small(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    allow_lines: AllowLines,
) -> bool:
    """Scan a file smaller than a chunk in one round, without the streaming machinery (most
    files of a source tree). False, having scanned nothing, when the bytes read are not the
    size seen (the file changed since, or it is a /proc file, whose size says nothing)."""
    with open(target.fspath, "rb", buffering=0) as raw:
        data = raw.read(chunk_size)
    if len(data) != target.size:
        return False
    result.bytes += len(data)
    scanner = StreamScanner(chunk_size, full_count=False, finder=finder, allow_lines=allow_lines)
    result.record(scanner.scan_whole(data), target.display)
    return True


def scan_target(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    on_wait: Notice | None = None,
    allow_lines: AllowLines = (),
) -> None:
    """Scan one file into ``result``; an unreadable or corrupt file becomes one error line.
    A stream (pipe, FIFO, device) is opened once and read to its end (``on_wait``: see
    :func:`~hygiene.scan.sources.files.open_target`)."""
    try:
        if target.stream:
            with open_target(target, on_wait) as stream:
                finder = finder_for(None)
                scan_stream(stream, target.display, result, chunk_size, finder, None, allow_lines)
        elif (
            target.gzipped
            or target.size >= chunk_size
            or not _scan_small(target, result, chunk_size, finder, allow_lines)
        ):
            recount = None if target.gzipped else file_recount(target.fspath)
            with open_target(target) as stream:
                scan_stream(
                    stream, target.display, result, chunk_size, finder, recount, allow_lines
                )
    except GZIP_ERRORS as exc:
        result.errors.append(f"{target.display}: not a valid gzip file ({exc})")
    except OSError as exc:
        result.errors.append(f"{target.display}: {exc.strerror or exc}")
    else:
        result.files += 1


__all__ = ["scan_stream", "scan_target"]
