"""The ``--state`` file on disk: opened only as a regular file of bounded size, read line by
line, appended to record by record, rewritten whole only when compacted (atomically).

The file is JSON lines: a header ``{"version": 2, "watch_state": true}``, then one record per
event or outcome. A torn last line (the process was killed mid-write) is skipped. The whole-file
format of version 1 (``{"version": 1, "seen": {fingerprint: status}}``) is read too.

Opening refuses what a hostile swap could put there (:func:`hygiene.safefile.open_checked`): a
symbolic link, a FIFO or a device (a FIFO with no writer never blocks the open), a file of
``/proc`` or ``/sys``, and a file past :data:`MAX_BYTES` (checked by ``fstat``, and again while
reading, for a file growing under the reader).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from hygiene.atomic import write_atomically
from hygiene.errors import InputError
from hygiene.safefile import open_checked

VERSION = 2
HEADER = {"version": VERSION, "watch_state": True}
MAX_BYTES = 256 << 20  # about two million records
MAX_LINE = 4096  # a record is about 200 bytes: a longer line is not one of ours
_READ = 1 << 16
# One encoder for every record: json.dumps with options builds a new one per call (half the
# cost of a record during a flood).
_encode = json.JSONEncoder(separators=(",", ":")).encode


def _refused(path: Path, why: str) -> InputError:
    return InputError(f"state file {path}: {why}")


def open_regular(path: Path, flags: int) -> int:
    """A descriptor for ``path`` if it is a regular file of at most :data:`MAX_BYTES`, never
    reached through a symbolic link (:func:`hygiene.safefile.open_checked`; created 0600 with
    ``O_CREAT``); InputError otherwise, FileNotFoundError when there is nothing there."""
    try:
        return open_checked(path, flags, MAX_BYTES).fd
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _refused(path, exc.strerror or str(exc)) from None


def read_records(path: Path) -> tuple[Iterator[dict[str, object]], list[bool]] | None:
    """The records of the file at ``path`` (None if there is none), read in bounded memory:
    version 2 line by line, version 1 as one document turned into records. The list is set to
    ``[True]`` once the records are read if the file needs compacting (a torn last line, or the
    old format)."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    handle = os.fdopen(fd, "rb")
    first = handle.readline(MAX_LINE + 1)
    with contextlib.suppress(ValueError):
        header = json.loads(first)
        if isinstance(header, dict) and header.get("version") == VERSION:
            flags = [False]
            return _records(path, handle, flags), flags
    handle.close()
    return _version_1(path), [True]


def _records(path: Path, handle: BinaryIO, torn: list[bool]) -> Iterator[dict[str, object]]:
    total, rest, number = 0, b"", 1
    with handle:
        while chunk := handle.read(_READ):
            total += len(chunk)
            if total > MAX_BYTES:
                raise _refused(path, f"is larger than {MAX_BYTES >> 20} MiB")
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            if len(rest) > MAX_LINE:
                raise _refused(path, f"line {number + len(lines) + 1} is too long to be a record")
            for line in lines:
                number += 1
                if line.strip():
                    yield _parse(path, number, line)
    torn[0] = bool(rest)


def _parse(path: Path, number: int, line: bytes) -> dict[str, object]:
    if len(line) > MAX_LINE:
        raise _refused(path, f"line {number} is too long to be a record")
    try:
        doc = json.loads(line)
    except ValueError:
        raise _refused(path, f"line {number} is not a JSON record") from None
    if not isinstance(doc, dict):
        raise _refused(path, f"line {number} is not a JSON object")
    return doc


def _version_1(path: Path) -> Iterator[dict[str, object]]:
    """The whole-file format: ``{"version": 1, "seen": {fingerprint: status}}``."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        raise _refused(path, "is gone") from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _refused(path, f"is larger than {MAX_BYTES >> 20} MiB")
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise _refused(path, f"cannot be read ({exc})") from None
    seen = doc.get("seen") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(seen, dict):
        raise _refused(path, "is neither a watch state (version 2) nor its version 1")
    for fingerprint, status in seen.items():
        # Version 1 kept only a status: `found` was a report-only run's, the rest revoke's.
        yield {
            "fp": fingerprint,
            "status": status,
            "mode": "report" if status == "found" else "revoke",
        }


def rewrite(path: Path, records: list[dict[str, object]]) -> None:
    """Compact: the header and ``records``, replacing the file atomically (a symbolic link at
    ``path`` is replaced, not followed)."""
    lines = [json.dumps(HEADER)] + [_encode(r) for r in records]
    write_atomically(str(path), "\n".join(lines) + "\n", mode=0o600)


class Appender:
    """Records appended to the state file: buffered, written and fsync'd by :meth:`sync`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except FileNotFoundError:
            # O_CREAT: only the folder can be missing.
            raise _refused(path, "cannot be created (no such folder)") from None
        self._buffer: list[bytes] = []
        if os.fstat(self._fd).st_size == 0:
            self._buffer.append(json.dumps(HEADER).encode() + b"\n")

    def add(self, record: dict[str, object]) -> int:
        """Buffer one record; returns how many are buffered."""
        self._buffer.append(_encode(record).encode() + b"\n")
        return len(self._buffer)

    def sync(self) -> None:
        """Write what is buffered in one append and fsync it."""
        if not self._buffer or self._fd < 0:
            return
        data, self._buffer = b"".join(self._buffer), []
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            raise InputError(f"cannot write state file {self.path}: {exc.strerror}") from None

    def close(self) -> None:
        with contextlib.suppress(InputError):
            self.sync()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


__all__ = [
    "MAX_BYTES",
    "VERSION",
    "Appender",
    "open_regular",
    "read_records",
    "rewrite",
]
