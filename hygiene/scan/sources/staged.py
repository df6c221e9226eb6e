"""The git index as a source (``--staged``): the staged blobs, not the work tree.

Blobs stream through one ``git cat-file --batch``, so no large blob is held in memory.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import IO

from hygiene.errors import InputError
from hygiene.gitcmd import git_output
from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE, Reader, StreamScanner
from hygiene.scan.matcher.needles import finder_for
from hygiene.scan.sources.files import GZIP_ERRORS, Excluder
from hygiene.scan.sources.one_file import AllowLines

_SUBMODULE_MODE = "160000"


@dataclass(frozen=True)
class StagedBlob:
    path: str
    sha: str


def staged_blobs(excluder: Excluder) -> list[StagedBlob]:
    """Added or modified paths of the index and their blob ids (deleted paths have none)."""
    out = git_output(
        ["diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "--diff-filter=AM"],
        "{staged} needs a git repository",
        options=("staged",),
    )
    fields = out.split(b"\0")
    blobs = []
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.decode("ascii", "replace").split()
        if len(parts) < 4 or parts[1] == _SUBMODULE_MODE:
            continue
        path = os.fsdecode(raw_path)
        if not excluder.excludes(path):
            blobs.append(StagedBlob(path, parts[3]))
    return blobs


def _blob_reader(stream: IO[bytes], size: int) -> Reader:
    """Reads exactly ``size`` bytes of ``stream``, then reports end of stream."""
    left = size

    def read(n: int) -> bytes:
        nonlocal left
        if left <= 0:
            return b""
        piece = stream.read(min(n, left))
        if not piece:
            raise InputError("git cat-file ended early")
        left -= len(piece)
        return piece

    return read


def _feed(stdin: IO[bytes], blobs: list[StagedBlob]) -> None:
    try:
        for blob in blobs:
            stdin.write(blob.sha.encode("ascii") + b"\n")
    finally:
        stdin.close()


def scan_staged(
    excluder: Excluder, chunk_size: int = DEFAULT_CHUNK_SIZE, allow_lines: AllowLines = ()
) -> ScanResult:
    """Scan the staged content of the current repository (the index, not the work tree)."""
    started = time.perf_counter()
    blobs = staged_blobs(excluder)
    result = ScanResult()
    if blobs:
        _scan_blobs(blobs, result, chunk_size, allow_lines)
    result.seconds = time.perf_counter() - started
    return result


def _scan_blobs(
    blobs: list[StagedBlob], result: ScanResult, chunk_size: int, allow_lines: AllowLines
) -> None:
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None  # noqa: S101, PT018 - PIPEs
    feeder = threading.Thread(target=_feed, args=(proc.stdin, blobs), daemon=True)
    feeder.start()
    try:
        for blob in blobs:
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                result.errors.append(f"{blob.path}: staged blob cannot be read")
                continue
            read = _blob_reader(proc.stdout, int(header[2]))
            scanner = StreamScanner(
                chunk_size, finder=finder_for(int(header[2])), allow_lines=allow_lines
            )
            _scan_blob(blob, read, result, scanner)
            while read(1 << 16):
                pass  # whatever a corrupt gzip left unread: stay in step with cat-file
            proc.stdout.read(1)  # the newline after each blob
    finally:
        proc.stdout.close()
        proc.wait()
        feeder.join()


class _ReaderFile:
    """A ``read(n)`` function as the file object :class:`gzip.GzipFile` reads from."""

    def __init__(self, read: Reader) -> None:
        self._read = read

    def read(self, n: int) -> bytes:
        return self._read(n)

    def seek(self, n: int) -> object:
        raise io.UnsupportedOperation("a git blob stream cannot seek")


def _scan_blob(blob: StagedBlob, read: Reader, result: ScanResult, scanner: StreamScanner) -> None:
    if blob.path.endswith(".gz"):
        read = gzip.GzipFile(mode="rb", fileobj=_ReaderFile(read)).read
    try:
        result.record(scanner.scan(read), blob.path)
    except GZIP_ERRORS as exc:
        result.errors.append(f"{blob.path}: not a valid gzip file ({exc})")
    else:
        result.files += 1
    finally:
        result.bytes += scanner.bytes_read


__all__ = ["scan_staged", "staged_blobs"]
