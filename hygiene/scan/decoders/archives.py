"""Archives: the zip family (zip, jar, whl, docx/xlsx, apk ...: stored and deflated members)
and tar (plain; its compressed forms arrive here already inflated). Each yields its regular
members as ``(name, read, compressed_size)``; the caller scans each under ``ARCHIVE!MEMBER``.

``tarfile``, ``zipfile`` and ``tempfile`` are imported when an archive is met: together they
cost every start-up some 9 ms (a pre-commit run over plain text never needs them)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, BinaryIO

from hygiene.scan.decoders.bounds import DecodeError

if TYPE_CHECKING:
    import zipfile

Reader = Callable[[int], bytes]
Member = tuple[str, Reader, int | None]

# A zip starts with a local file header (or, empty, with its end record).
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_SPOOL_IN_MEMORY = 8 << 20


@functools.cache
def archive_errors() -> tuple[type[Exception], ...]:
    """What a damaged or truncated archive raises while it is read."""
    import tarfile
    import zipfile

    return (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        tarfile.TarError,
        EOFError,
        NotImplementedError,  # a zip compression method Python lacks (deflate64, ...)
        ValueError,
    )


def archive_of(head: bytes) -> str | None:
    """``zip`` or ``tar`` when ``head`` (at least 263 bytes of a tar) starts one."""
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if head[257:262] == b"ustar":
        return "tar"
    return None


class ReaderFile:
    """A ``read(n)`` function as the file object stream decoders read from."""

    def __init__(self, read: Reader) -> None:
        self.read = read

    def readable(self) -> bool:
        return True


@contextmanager
def seekable(read: Reader, given: BinaryIO | None) -> Iterator[IO[bytes]]:
    """``given`` (a real file) or the stream spooled to memory, then to a temporary file: a
    zip's directory is at its end."""
    if given is not None:
        given.seek(0)
        yield given
        return
    import tempfile

    with tempfile.SpooledTemporaryFile(_SPOOL_IN_MEMORY) as spool:
        while block := read(1 << 20):
            spool.write(block)
        spool.seek(0)
        yield spool


def open_zip(file: IO[bytes]) -> zipfile.ZipFile:
    """The zip ``file``, its directory read (raises what a damaged one raises)."""
    import zipfile

    return zipfile.ZipFile(file)


def zip_members(archive: zipfile.ZipFile) -> Iterator[Member]:
    """The regular members of ``archive``; encrypted ones are skipped (unreadable)."""
    for info in archive.infolist():
        if info.is_dir() or info.flag_bits & 0x1:
            continue
        with archive.open(info) as member:
            yield info.filename, member.read, info.compress_size


def tar_members(read: Reader) -> Iterator[Member]:
    """The regular members of the tar stream ``read`` (read once, in order)."""
    import tarfile

    with tarfile.open(  # type: ignore[call-overload]
        fileobj=ReaderFile(read), mode="r|", tarinfo=_bounded_tarinfo()
    ) as archive:
        for info in archive:
            # A streamed tar still keeps every member's header it met: forget them, or a
            # million empty members hold half a gigabyte.
            archive.members.clear()
            if not info.isfile():
                continue
            member = archive.extractfile(info)
            if member is None:
                continue
            yield info.name, member.read, None


# A member's long name or its pax attributes, which tarfile reads whole, in memory, before the
# member: real ones are a few hundred bytes; a larger one is refused (an error line), not held.
MAX_TAR_HEADER = 1 << 20


@functools.cache
def _bounded_tarinfo() -> type:
    import tarfile

    extended = (
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
    )

    class BoundedTarInfo(tarfile.TarInfo):
        def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
            if self.type in extended and self.size > MAX_TAR_HEADER:
                raise tarfile.HeaderError(f"an extended header of {self.size} bytes")
            proc: tarfile.TarInfo = super()._proc_member(tarfile_)  # type: ignore[misc]
            return proc

    return BoundedTarInfo


_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"


def zip_entry_count(file: IO[bytes]) -> int | None:
    """How many members the zip ``file`` declares in its end record (zip64 too), read before
    ``zipfile`` loads its whole directory into memory; None when there is no end record. The
    file is left at its start."""
    try:
        return _declared(file)
    finally:
        file.seek(0)


def _declared(file: IO[bytes]) -> int | None:
    size = file.seek(0, 2)
    tail_size = min(size, 22 + 0xFFFF)  # the end record, then a comment of at most 64 KiB
    file.seek(size - tail_size)
    tail = file.read(tail_size)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        return None
    entries = int.from_bytes(tail[at + 10 : at + 12], "little")
    if entries == 0xFFFF and at >= 20 and tail[at - 20 : at - 16] == _EOCD64_LOCATOR:
        file.seek(int.from_bytes(tail[at - 12 : at - 4], "little"))
        record = file.read(56)
        if record.startswith(_EOCD64) and len(record) == 56:
            entries = int.from_bytes(record[32:40], "little")
    return entries


def archive_error(kind: str, exc: BaseException) -> DecodeError:
    """The one line for an archive that cannot be read (truncated, corrupt)."""
    detail = str(exc) or type(exc).__name__
    return DecodeError(f"not a valid or a truncated {kind} archive ({detail})")


__all__ = [
    "ZIP_MAGIC",
    "ReaderFile",
    "archive_error",
    "archive_errors",
    "archive_of",
    "open_zip",
    "seekable",
    "tar_members",
    "zip_entry_count",
    "zip_members",
]
