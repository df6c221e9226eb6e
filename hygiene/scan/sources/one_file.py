"""Scanning one file or stream into a :class:`~hygiene.scan.findings.ScanResult`.

Shared by the serial run (:mod:`~hygiene.scan.sources.runner`) and the worker processes
(:mod:`~hygiene.scan.sources.parallel`). Every input goes through the decoders
(:mod:`hygiene.scan.decoders`): compressed streams, archives, UTF-16, base64.
"""

from __future__ import annotations

from typing import BinaryIO

from hygiene.progress import ScanProgress
from hygiene.scan.decoders import finder_for, scan_buffer, scan_layers
from hygiene.scan.findings import ScanResult
from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE
from hygiene.scan.matcher.linecount import Recount, fd_recount
from hygiene.scan.matcher.needles import NeedleFinder
from hygiene.scan.sources.files import FileTarget, Notice, open_file, open_target


def scan_stream(
    stream: BinaryIO,
    display: str,
    result: ScanResult,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    finder: NeedleFinder | None = None,
    recount: Recount | None = None,
    limits: DecodeLimits | None = None,
    allow_lines: AllowLines = AllowLines(),
    progress: ScanProgress | None = None,
) -> None:
    """Scan one open stream, through every decoder, into ``result`` (a file's OSError is the
    caller's to catch; what a decoder cannot read is an error line of ``result``). Without a
    ``finder``, the one for a stream of unknown size; ``recount`` where the stream can be read
    again (see :meth:`StreamScanner.scan`); ``progress`` hears of every chunk read."""
    scan_layers(
        stream.read if progress is None else progress.counting(stream.read),
        display,
        result,
        limits=limits,
        chunk_size=chunk_size,
        finder=finder,
        recount=recount,
        allow_lines=allow_lines,
    )


def _scan_small(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    limits: DecodeLimits | None,
    allow_lines: AllowLines,
) -> bool:
    """Scan a file smaller than a chunk in one round, without the streaming machinery (most
    files of a source tree). False, having scanned nothing, when the bytes read are not the
    size seen (the file changed since, or it is a /proc file, whose size says nothing)."""
    with open_file(target) as raw:
        data = raw.read(chunk_size)
    if len(data) != target.size:
        return False
    scan_buffer(
        data,
        target.display,
        result,
        finder,
        limits=limits,
        chunk_size=chunk_size,
        allow_lines=allow_lines,
    )
    return True


def _scan_file(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    limits: DecodeLimits | None,
    allow_lines: AllowLines,
    progress: ScanProgress | None,
) -> None:
    with open_file(target) as raw:
        scan_layers(
            raw.read if progress is None else progress.counting(raw.read),
            target.display,
            result,
            limits=limits,
            chunk_size=chunk_size,
            finder=finder,
            recount=fd_recount(raw),
            file=raw,
            size=target.size,
            allow_lines=allow_lines,
        )


def scan_target(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    limits: DecodeLimits | None = None,
    on_wait: Notice | None = None,
    allow_lines: AllowLines = AllowLines(),
    progress: ScanProgress | None = None,
) -> None:
    """Scan one file into ``result``; an unreadable or corrupt file becomes one error line.
    A stream (pipe, FIFO, device) is opened once and read to its end (``on_wait``: see
    :func:`~hygiene.scan.sources.files.open_target`). ``progress`` hears of each chunk read
    and of the file's end."""
    before, found = result.bytes, len(result.detections) + len(result.findings_only)
    try:
        _scan_any(target, result, chunk_size, finder, limits, on_wait, allow_lines, progress)
    except OSError as exc:
        result.errors.append(f"{target.display}: {exc.strerror or exc}")
    else:
        result.files += 1
    if progress is not None:
        now_found = len(result.detections) + len(result.findings_only)
        progress.file_done(result.bytes - before, now_found - found)


def _scan_any(
    target: FileTarget,
    result: ScanResult,
    chunk_size: int,
    finder: NeedleFinder,
    limits: DecodeLimits | None,
    on_wait: Notice | None,
    allow_lines: AllowLines,
    progress: ScanProgress | None,
) -> None:
    """:func:`scan_target`'s reading (OSError propagates)."""
    if target.stream:
        with open_target(target, on_wait) as stream:
            scan_stream(
                stream,
                target.display,
                result,
                chunk_size,
                finder_for(None),
                limits=limits,
                allow_lines=allow_lines,
                progress=progress,
            )
    elif target.size >= chunk_size or not _scan_small(
        target, result, chunk_size, finder, limits, allow_lines
    ):
        _scan_file(target, result, chunk_size, finder, limits, allow_lines, progress)


__all__ = ["scan_stream", "scan_target"]
