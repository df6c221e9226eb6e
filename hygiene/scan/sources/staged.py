"""The git index as a source (``--staged``): the staged blobs, not the work tree.

Blobs stream through one ``git cat-file --batch``, so no large blob is held in memory.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from typing import IO

from hygiene.errors import InputError
from hygiene.gitcmd import GitStream, git_output
from hygiene.progress import ScanProgress
from hygiene.scan.decoders import finder_for, scan_layers
from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.engine import Reader
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import Excluder

_SUBMODULE_MODE = "160000"


@dataclass(frozen=True)
class StagedBlob:
    path: str
    sha: str


def staged_blobs(excluder: Excluder) -> list[StagedBlob]:
    """Added or modified paths of the index and their blob ids (deleted paths have none)."""
    out = git_output(
        [
            "diff",
            "--cached",
            "--raw",
            "-z",
            "--no-renames",
            "--no-abbrev",
            "--no-ext-diff",
            "--no-textconv",
            "--no-relative",
            "--diff-filter=AM",
        ],
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


def blob_reader(stream: IO[bytes], size: int) -> Reader:
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


def feed_lines(stdin: IO[bytes], names: list[str]) -> None:
    """Write one name a line to a ``git cat-file --batch``, then close its input; a git that
    went away early ends the feed quietly (the reader reports what is missing)."""
    try:
        for name in names:
            stdin.write(name.encode("ascii") + b"\n")
    except (OSError, ValueError):
        return
    finally:
        with contextlib.suppress(OSError, ValueError):  # the buffered rest met a dead reader
            stdin.close()


def scan_staged(ctx: ScanContext) -> ScanResult:
    """Scan the staged content of the current repository (the index, not the work tree),
    but for the paths ``ctx.excludes`` names; ``ctx.progress`` hears of each blob and chunk."""
    started = time.perf_counter()
    blobs = staged_blobs(Excluder(ctx.excludes))
    progress = ctx.progress if ctx.progress is not None else ScanProgress()
    progress.expect(len(blobs), None)
    result = _scan_blobs(blobs, ctx, progress) if blobs else ScanResult()
    result.seconds = time.perf_counter() - started
    return result


def _scan_blobs(blobs: list[StagedBlob], ctx: ScanContext, progress: ScanProgress) -> ScanResult:
    result = ScanResult()
    shas = [blob.sha for blob in blobs]
    with GitStream(["cat-file", "--batch"], "{staged}", options=("staged",), stdin=True) as git:
        feeder = threading.Thread(target=feed_lines, args=(git.stdin, shas), daemon=True)
        feeder.start()
        try:
            for blob in blobs:
                result.add(_scan_blob(git.stdout, blob, ctx, progress))
        finally:
            git.kill()  # every blob is read, or nothing more will be
            feeder.join()
    return result


def _scan_blob(
    stdout: IO[bytes], blob: StagedBlob, ctx: ScanContext, progress: ScanProgress
) -> ScanResult:
    """The next blob ``git cat-file --batch`` prints, scanned as ``blob.path``."""
    header = stdout.readline().split()
    if len(header) != 3 or header[1] != b"blob":
        return ScanResult(errors=[f"{blob.path}: staged blob cannot be read"])
    size = int(header[2])
    read = blob_reader(stdout, size)
    result = scan_layers(progress.counting(read), blob.path, ctx.using(finder_for(size)), size=size)
    result.files = 1
    progress.file_done(result.bytes, len(result.detections))
    while read(1 << 16):
        pass  # whatever a corrupt gzip left unread: stay in step with cat-file
    stdout.read(1)  # the newline after each blob
    return result


__all__ = ["blob_reader", "feed_lines", "scan_staged", "staged_blobs"]
