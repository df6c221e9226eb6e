"""Following files as ``tail -F`` does, by polling (a ``stat`` per file and poll: idle costs
next to nothing, and it works on every filesystem, network and container volumes included).

* From the end of each file at start (``from_start``: from its beginning; ``resume``: from
  where a run with the same ``--state`` stopped, or from its beginning if it was replaced or
  truncated meanwhile).
* Rotation by rename: the old file is read to its end, then the new one from its beginning.
* Truncation (copytruncate): reading starts again at the beginning; a file rewritten to the
  same length is told by its first bytes.
* A file that does not exist yet is waited for and read from its beginning once it appears.
* Standard input (``-``) is read by a thread, so a quiet pipe never blocks the loop.
* Never through a symbolic link swapped in, never a device, FIFO or ``/proc`` file
  (:mod:`hygiene.watch.paths`): such a path is said once (``on_refused``) and waited on until
  it is a regular file again.

Each :class:`Follower` hands out the bytes appended since the last poll, and says when the
stream it was reading has ended (rotated away, or standard input closed), so the caller can
scan what was held of an incomplete last line.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from hygiene.watch.paths import Identity, Opened, count_newlines, identity_now, open_followed

READ_SIZE = 4 << 20  # per poll and file: at 100 MB/s growth, 25 polls a second keep up
# How many first bytes identify a file's content (copytruncate detection, as Filebeat does).
HEAD = 64


@dataclass
class Piece:
    """What one poll of one follower gave: bytes, and whether the stream they belong to ended
    after them (the next piece, if any, starts a new stream: line numbers start again).
    ``first_line``, on the first piece of a file opened at its end: the line number its data
    starts at (the newlines before it are counted, so reports name the file's real lines)."""

    data: bytes
    ended: bool = False
    first_line: int | None = None


@dataclass
class FileFollower:
    """One path, followed across rotation and truncation."""

    path: str
    from_start: bool = False
    max_read: int = READ_SIZE
    _file: BinaryIO | None = field(default=None, repr=False)
    _identity: tuple[int, int] | None = None
    _offset: int = 0
    _started: bool = False
    _draining: bool = False  # the file was replaced: read the old one to its end first
    _head: bytes = b""  # the file's first bytes as read: a change means it was rewritten
    _mtime: int = 0
    busy: bool = False  # the last read filled ``max_read``: more is waiting
    on_refused: Callable[[str, str], None] | None = field(default=None, repr=False)
    _linked: bool = False  # a symbolic link at start: followed, to the pinned target only
    # Whether a link at the path at start is followed: yes when the user named it, never for a
    # file found in a folder (a link swapped in between the listing and the open is refused).
    links: bool = True
    _pin: Identity | None = None
    _refused: str | None = None  # the reason last said, so each refusal is said once
    _primed: list[Piece] | None = None  # what the start, taken early (prime), handed out
    # Where an earlier run stopped in this path's file: (device, inode, offset) of what it had
    # scanned. Another inode, or a file now shorter, was replaced meanwhile: read whole.
    resume: tuple[int, int, int] | None = None

    def prime(self) -> None:
        """Take the starting point now (the end of the file, or its start): what is appended
        from here on is read, however long the watcher takes to reach the service."""
        if not self._started:
            self._primed = self._start()

    def _start(self) -> list[Piece]:
        self._started = True
        self._linked = self.links and os.path.islink(self.path)
        self._open(at_end=not self.from_start and self.resume is None)
        if self._file is not None and self.resume is not None:
            self._seek(self._resumed_at())
        if self._file is None or not self._offset:
            return []
        lines = count_newlines(self._file.fileno(), self._offset)
        return [Piece(b"", first_line=1 + lines)]

    def poll(self) -> list[Piece]:
        """The bytes appended since the last poll, at most ``max_read`` per stream."""
        if not self._started:
            return self._start()
        if self._primed is not None:
            primed, self._primed = self._primed, None
            return primed
        if self._file is None:
            self._open(at_end=False)
            return [Piece(self._read())] if self._file is not None else []
        return self._poll_open()

    def _poll_open(self) -> list[Piece]:
        if self._draining or self._replaced():
            # Renamed away (or deleted) and replaced: finish the old file, then the new one.
            self._draining = True
            rest = self._read()
            if self.busy:
                return [Piece(rest)]
            self.close()
            self._open(at_end=False)
            return [Piece(rest, ended=True), Piece(self._read())]
        if self._truncated():
            self._seek_start()
            return [Piece(b"", ended=True), Piece(self._read())]
        return [Piece(self._read())]

    def _replaced(self) -> bool:
        identity = identity_now(self.path, self._linked)
        return identity is not None and identity != self._identity

    def _truncated(self) -> bool:
        """Truncated since the last poll: smaller than what was read, or (copytruncate then a
        write as long as what was read) first bytes that are no longer the ones read."""
        assert self._file is not None  # noqa: S101 - callers check
        try:
            stat = os.fstat(self._file.fileno())
            if stat.st_size < self._offset:
                return True
            if stat.st_mtime_ns == self._mtime or not self._head:
                return False
            self._mtime = stat.st_mtime_ns
            return os.pread(self._file.fileno(), len(self._head), 0) != self._head
        except OSError:
            return False

    def _open(self, *, at_end: bool) -> None:
        opened = open_followed(self.path, self._linked, self._pin)
        if not isinstance(opened, Opened):
            self._refuse(opened)
            return  # not there yet, or refused: waited for
        self._refused = None
        if self._linked and self._pin is None and os.path.islink(self.path):
            self._pin = opened.identity
        handle = os.fdopen(opened.fd, "rb", buffering=0)
        self._file, self._identity = handle, opened.identity
        self._offset = opened.size if at_end else 0
        self._mtime = opened.mtime
        self._head = os.pread(handle.fileno(), min(HEAD, self._offset), 0)
        handle.seek(self._offset)

    def _refuse(self, reason: str | None) -> None:
        if reason is not None and reason != self._refused and self.on_refused is not None:
            self.on_refused(self.path, reason)
        self._refused = reason

    def _resumed_at(self) -> int:
        assert self._file is not None  # noqa: S101 - callers check
        assert self.resume is not None  # noqa: S101 - callers check
        dev, ino, offset = self.resume
        size = os.fstat(self._file.fileno()).st_size
        return offset if self._identity == (dev, ino) and offset <= size else 0

    def _seek(self, offset: int) -> None:
        assert self._file is not None  # noqa: S101 - callers check
        self._file.seek(offset)
        self._offset = offset
        self._head = os.pread(self._file.fileno(), min(HEAD, offset), 0)

    def _seek_start(self) -> None:
        assert self._file is not None  # noqa: S101 - callers check
        self._file.seek(0)
        self._offset, self._head = 0, b""

    def position(self, held: int) -> tuple[int, int, int] | None:
        """(device, inode, offset) of the file being read, up to what was scanned (``held``:
        the bytes read but not scanned yet, an incomplete last line), or None if none is open."""
        if self._file is None or self._identity is None:
            return None
        return (*self._identity, max(0, self._offset - held))

    def _read(self) -> bytes:
        if self._file is None:
            self.busy = False
            return b""
        start = self._offset
        data = self._file.read(self.max_read) or b""
        self._offset += len(data)
        if start < HEAD:
            self._head = (self._head + data)[:HEAD]
        self.busy = len(data) == self.max_read
        return data

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file, self._identity, self._offset, self._head = None, None, 0, b""
        self._draining = self.busy = False


@dataclass
class StreamFollower:
    """Standard input (or any readable file descriptor), read by a thread into a queue."""

    read: Callable[[int], bytes]
    max_read: int = READ_SIZE
    _queue: queue.Queue[bytes] = field(default_factory=queue.Queue, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    ended: bool = False
    busy: bool = False  # never: the queue is drained whole at each poll

    def start(self) -> None:
        self._thread = threading.Thread(target=self._pump, name="hygiene-watch-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            while chunk := self.read(self.max_read):
                self._queue.put(chunk)
        except OSError:
            pass  # a closed or broken input ends like an empty read
        self._queue.put(b"")

    def poll(self) -> list[Piece]:
        if self._thread is None:
            self.start()
        pieces: list[Piece] = []
        while not self.ended:
            try:
                chunk = self._queue.get_nowait()
            except queue.Empty:
                break
            self.ended = not chunk
            pieces.append(Piece(chunk, ended=self.ended))
        return pieces

    def position(self, _held: int) -> tuple[int, int, int] | None:
        """None: a stream cannot be resumed."""
        return None

    def close(self) -> None:
        """Nothing to release: the reading thread ends with the input or the process."""


__all__ = ["READ_SIZE", "FileFollower", "Piece", "StreamFollower"]
