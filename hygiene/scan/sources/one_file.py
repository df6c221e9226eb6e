"""Scanning one file or stream: its :class:`~hygiene.scan.findings.ScanResult`.

Shared by the serial run (:mod:`~hygiene.scan.sources.runner`) and the worker processes
(:mod:`~hygiene.scan.sources.parallel`). Every input goes through the decoders
(:mod:`hygiene.scan.decoders`): compressed streams, archives, UTF-16, base64.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO

from hygiene.scan.decoders import finder_for, scan_buffer
from hygiene.scan.decoders.layers import Reader, layer_parts
from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.linecount import Recount, fd_recount
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget, open_file, open_target


def _counted(read: Reader, ctx: ScanContext) -> Reader:
    return read if ctx.progress is None else ctx.progress.counting(read)


def scan_stream(
    stream: BinaryIO, display: str, ctx: ScanContext, recount: Recount | None = None
) -> ScanResult:
    """Scan one open stream, through every decoder (without a finder in ``ctx``, the one for
    a stream of unknown size). What it held before a read failed is in the result, and the
    failure one error line; what a decoder cannot read is an error line too. ``recount``
    where the stream can be read again (see :meth:`StreamScanner.scan`); ``ctx.progress``
    hears of every chunk read. The result counts one file when the stream was read to its
    end."""
    return _read_all(lambda: layer_parts(_counted(stream.read, ctx), display, ctx), display)


def _read_all(parts: Callable[[], Iterator[ScanResult]], display: str) -> ScanResult:
    """The parts ``parts()`` yields merged; an OSError becomes the input's error line."""
    result = ScanResult()
    try:
        for part in parts():
            result.add(part)
    except OSError as exc:
        result.errors.append(f"{display}: {exc.strerror or exc}")
    else:
        result.files = 1
    return result


def _scan_small(target: FileTarget, ctx: ScanContext) -> ScanResult | None:
    """Scan a file smaller than a chunk in one round, without the streaming machinery (most
    files of a source tree). None, having scanned nothing, when the bytes read are not the
    size seen (the file changed since, or it is a /proc file, whose size says nothing)."""
    with open_file(target) as raw:
        data = raw.read(ctx.chunk_size)
    if len(data) != target.size:
        return None
    result = scan_buffer(data, target.display, ctx)
    result.files = 1
    return result


def _scan_file(target: FileTarget, ctx: ScanContext) -> ScanResult:
    def parts() -> Iterator[ScanResult]:
        raw = open_file(target)
        with raw:
            yield from layer_parts(
                _counted(raw.read, ctx),
                target.display,
                ctx,
                recount=fd_recount(raw),
                file=raw,
                size=target.size,
            )

    return _read_all(parts, target.display)


def scan_target(target: FileTarget, ctx: ScanContext) -> ScanResult:
    """Scan one file (with ``ctx``'s finder); an unreadable or corrupt file is one error
    line of its result. A stream (pipe, FIFO, device) is opened once and read to its end
    (``ctx.on_wait``: see :func:`~hygiene.scan.sources.files.open_target`), with the finder
    for a stream. ``ctx.progress`` hears of each chunk read and of the file's end."""
    result = _scan_any(target, ctx)
    if ctx.progress is not None:
        found = len(result.detections) + len(result.findings_only)
        ctx.progress.file_done(result.bytes, found)
    return result


def _scan_any(target: FileTarget, ctx: ScanContext) -> ScanResult:
    if target.stream:
        try:
            with open_target(target, ctx.on_wait) as stream:
                return scan_stream(stream, target.display, ctx.using(finder_for(None)))
        except OSError as exc:
            return ScanResult(errors=[f"{target.display}: {exc.strerror or exc}"])
    if target.size < ctx.chunk_size:
        try:
            small = _scan_small(target, ctx)
        except OSError as exc:
            return ScanResult(errors=[f"{target.display}: {exc.strerror or exc}"])
        if small is not None:
            return small
    return _scan_file(target, ctx)


__all__ = ["scan_stream", "scan_target"]
