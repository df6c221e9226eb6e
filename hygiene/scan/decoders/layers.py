"""One input through its layers: compressed streams (by magic bytes), archives (zip family,
tar), UTF-16 text, then the byte scanner with the embedded-secret hook (base64, UTF-16
fragments).

Every layer is bounded (:mod:`~hygiene.scan.decoders.bounds`): depth, decoded bytes, ratio.
What a layer cannot read becomes one line in the result's ``errors`` (its ``ARCHIVE!MEMBER``
path first) and the scan goes on with the next member and the next file. Findings inside an
archive carry the path ``ARCHIVE!MEMBER`` (nested: ``a.zip!lib/b.jar!config.yml``) and their
member; lines and columns count within the member.

Each layer yields its results part by part (:func:`layer_parts`), each part a
:class:`~hygiene.scan.findings.ScanResult` of its own: what was found before a failure is the
caller's already when the failure propagates, with nothing passed down to be filled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from hygiene.peeking import peek
from hygiene.scan.decoders import utf16
from hygiene.scan.decoders.archives import (
    archive_error,
    archive_errors,
    archive_of,
    open_zip,
    seekable,
    tar_members,
    zip_entry_count,
    zip_members,
)
from hygiene.scan.decoders.bounds import Budget, DecodeError, check_ratio
from hygiene.scan.decoders.compressed import Inflater, compression_of
from hygiene.scan.decoders.embedded import finder_for, refine
from hygiene.scan.findings import Detection, ScanResult, detection_for
from hygiene.scan.matcher.engine import Hit, StreamScanner
from hygiene.scan.matcher.linecount import Recount
from hygiene.scan.scancontext import ScanContext

Reader = Callable[[int], bytes]
# Enough to recognise every format handled here (tar's magic lies at offset 257).
HEAD_SIZE = 512


def sniff(head: bytes) -> str | None:
    """What decoder the bytes ``head`` call for: a compression, an archive, ``utf-16``; None
    for bytes scanned as they are."""
    kind = compression_of(head) or archive_of(head)
    if kind is None and utf16.sniff(head) is not None:
        return "utf-16"
    return kind


@dataclass(frozen=True)
class Where:
    """The path a layer is shown as, and its part inside the top-level archive."""

    display: str
    member: str | None = None

    def child(self, name: str) -> Where:
        member = name if self.member is None else f"{self.member}!{name}"
        return Where(f"{self.display}!{name}", member)


@dataclass
class _Walk:
    """What one top-level input's layers share: how it is read, its budget and member count
    (results are returned by each layer, not kept here)."""

    ctx: ScanContext  # with its finder
    budget: Budget
    members: int = 0  # archive members met so far in this top-level input, at any depth

    def admit(self, count: int = 1) -> None:
        """Count ``count`` members about to be read; past ``max_members``, a bomb."""
        self.members += count
        if self.members > self.ctx.limits.max_members:
            raise DecodeError(
                f"holds more than {self.ctx.limits.max_members} archive members; rest not scanned",
                bomb=True,
            )

    def error(self, where: Where, exc: DecodeError) -> ScanResult:
        """The result that says what ``where``'s layer could not read."""
        if exc.bomb:
            self.budget.exhausted = True  # one line per bomb: the rest of the input is skipped
        if not str(exc):  # an empty message repeats a failure already reported
            return ScanResult()
        return ScanResult(errors=[f"{where.display}: {exc}"], skipped=1)


def scanner_for(ctx: ScanContext) -> StreamScanner:
    """The byte scanner every source uses: the context's chunk size, finder (or the one for
    an input of unknown size) and line allowlist, the embedded-secret hook; lines counted
    only once a secret shows up."""
    return StreamScanner(
        ctx.chunk_size,
        full_count=False,
        finder=ctx.finder or finder_for(None),
        refine=refine,
        allow_lines=ctx.allow.patterns,
        markers=ctx.allow.markers,
    )


def layer_parts(
    read: Reader,
    display: str,
    ctx: ScanContext,
    *,
    recount: Recount | None = None,
    file: BinaryIO | None = None,
    size: int | None = None,
) -> Iterator[ScanResult]:
    """The input ``read`` (shown as ``display``) through every decoder, as ``ctx`` says (its
    finder, or the one for ``size``): its results part by part, as they are found, so that
    what was found before a failure (an OSError from ``read``, which propagates) is the
    caller's still.

    ``file``: the same input as a seekable file, where it is one (a zip is then read in
    place); ``recount``: see :meth:`StreamScanner.scan`; ``size``: the input's size if known
    (it bounds what it may expand to).
    """
    if ctx.finder is None:
        ctx = ctx.using(finder_for(size))
    walk = _Walk(ctx, Budget(ctx.limits, size))
    top = Where(display)
    try:
        yield from _layer(walk, read, top, 0, recount, file)
    except DecodeError as exc:  # an owner no layer claimed: the input's own failure
        yield walk.error(top, exc)


def scan_layers(
    read: Reader,
    display: str,
    ctx: ScanContext,
    *,
    recount: Recount | None = None,
    file: BinaryIO | None = None,
    size: int | None = None,
) -> ScanResult:
    """:func:`layer_parts` merged into one result (an OSError from ``read`` propagates)."""
    result = ScanResult()
    for part in layer_parts(read, display, ctx, recount=recount, file=file, size=size):
        result.add(part)
    return result


def _layer(
    walk: _Walk,
    read: Reader,
    where: Where,
    depth: int,
    recount: Recount | None = None,
    file: BinaryIO | None = None,
) -> Iterator[ScanResult]:
    if walk.budget.exhausted:
        return
    head, read = peek(read, HEAD_SIZE)
    if not head:
        return  # empty (most members of a padded archive): nothing to scan, nothing to build
    kind = sniff(head)
    limits = walk.ctx.limits
    try:
        if kind is None:
            yield from _plain(walk, read, where, recount)
        elif kind == "utf-16":
            codec, bom = utf16.sniff(head) or ("utf-16-le", 0)
            read(bom)
            yield from _plain(walk, utf16.transcoder(read, codec), where, None)
        elif depth >= limits.max_depth:
            raise DecodeError(f"nested deeper than {limits.max_depth} levels; not scanned")
        elif kind == "zip":
            yield from _zip(walk, read, where, depth, file)
        elif kind == "tar":
            yield from _tar(walk, read, where, depth)
        else:
            inflated = Inflater(read, kind, walk.budget, owner=where)
            yield from _layer(walk, inflated.read, where, depth + 1, None, None)
    except DecodeError as exc:
        if exc.owner is not None and exc.owner != where:
            raise  # an outer layer's failure (its stream ended early): it reports it
        yield walk.error(where, exc)
    except Exception as exc:
        # (Tested here, not in the clause: naming the archive errors imports tarfile.)
        if not isinstance(exc, archive_errors()):
            raise
        yield walk.error(where, archive_error(kind or "", exc))


def _plain(
    walk: _Walk, read: Reader, where: Where, recount: Recount | None
) -> Iterator[ScanResult]:
    scanner = scanner_for(walk.ctx)
    found: list[Detection] = []
    chunk_size = walk.ctx.chunk_size
    try:
        # An input that ends within its first chunk (most members of an archive) is scanned
        # in one round: the streaming machinery costs more than the scan of a small member
        # (measured: the two wheels of the stdlib, 1,500 members, took half a scan's time).
        first = read(chunk_size)
        rest = read(chunk_size) if len(first) < chunk_size else None
        hits: Iterable[Hit]
        if rest == b"":
            hits = scanner.scan_whole(first)
        else:
            hits = scanner.scan(_prepended([first, rest or b""], read), recount)
        found.extend(detection_for(hit, where.display, member=where.member) for hit in hits)
    except Exception:
        # What was read and found before the failure is reported; the failure, by whoever
        # catches it.
        yield _read_part(found, scanner)
        raise
    yield _read_part(found, scanner)


def _read_part(found: list[Detection], scanner: StreamScanner) -> ScanResult:
    return ScanResult(detections=found, bytes=scanner.bytes_read, suppressed=scanner.suppressed)


def _prepended(pieces: list[bytes], read: Reader) -> Reader:
    """``read``, with ``pieces`` (bytes read from it already) given back first."""
    pending = b"".join(pieces)

    def again(n: int) -> bytes:
        nonlocal pending
        if not pending:
            return read(n)
        piece, pending = pending[:n], pending[n:]
        return piece

    return again


def _bounded(walk: _Walk, read: Reader, compressed: int, where: Where) -> Reader:
    """A member's ``read``, its decoded bytes counted against the budget and the ratio."""
    produced = 0

    def counted(n: int) -> bytes:
        nonlocal produced
        piece = read(n)
        produced += len(piece)
        try:
            walk.budget.spend(len(piece))
            check_ratio(produced, compressed, walk.ctx.limits)
        except DecodeError as exc:
            exc.owner = where  # the member is the bomb
            raise
        return piece

    return counted


def _zip(
    walk: _Walk, read: Reader, where: Where, depth: int, file: BinaryIO | None
) -> Iterator[ScanResult]:
    cap = walk.ctx.limits.max_members
    with seekable(read, file) as spool:
        declared = zip_entry_count(spool)
        if declared is not None and walk.members + declared > cap:
            # Not handed to zipfile, which would hold the whole directory in memory.
            yield walk.error(where, _too_many(declared, cap))
            yield from _plain(walk, spool.read, where, None)
            return
        try:
            archive = open_zip(spool)
        except Exception as exc:
            if not isinstance(exc, archive_errors()):
                raise
            # No directory (truncated, damaged): say so, and scan the bytes as they are (stored
            # members are plain text in them).
            yield walk.error(where, archive_error("zip", exc))
            spool.seek(0)
            yield from _plain(walk, spool.read, where, None)
            return
        with archive:
            for name, member_read, compressed in zip_members(archive):
                walk.admit()
                inner = where.child(name)
                bounded = _bounded(walk, member_read, compressed or 0, inner)
                yield from _layer(walk, bounded, inner, depth + 1)
                if walk.budget.exhausted:
                    break  # a bomb inside: the rest of this input is not read


def _tar(walk: _Walk, read: Reader, where: Where, depth: int) -> Iterator[ScanResult]:
    for name, member_read, _ in tar_members(read):
        walk.admit()
        yield from _layer(walk, member_read, where.child(name), depth + 1, None, None)
        if walk.budget.exhausted:
            break  # a bomb inside: the rest of this input is not read


def _too_many(declared: int, cap: int) -> DecodeError:
    return DecodeError(
        f"declares {declared} archive members, more than the {cap} one input may hold; "
        "its bytes scanned as they are"
    )


def scan_buffer(data: bytes, display: str, ctx: ScanContext) -> ScanResult:
    """Scan a small input held whole (with ``ctx``'s finder, or the one for its size):
    plain bytes in one round, anything else through its layers."""
    if sniff(data[:HEAD_SIZE]) is None:
        scanner = scanner_for(ctx if ctx.finder else ctx.using(finder_for(len(data))))
        result = ScanResult(bytes=len(data))
        result.record(scanner.scan_whole(data), display)
        result.suppressed = scanner.suppressed
        return result
    view = memoryview(data)
    offset = 0

    def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + n])
        offset += len(piece)
        return piece

    # (As read: no size, so no budget of its own beyond the limits.)
    return scan_layers(read, display, ctx if ctx.finder else ctx.using(finder_for(len(data))))


__all__ = [
    "HEAD_SIZE",
    "Where",
    "layer_parts",
    "scan_buffer",
    "scan_layers",
    "scanner_for",
    "sniff",
]
