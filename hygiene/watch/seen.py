"""What the watcher has seen and done, by fingerprint: kept in memory and, with ``--state FILE``,
on disk as an append-only log (:mod:`hygiene.watch.statefile`), so a restart neither re-alerts
nor re-revokes, and a ``--revoke`` run finishes what earlier runs left open. Only fingerprints,
types, masked forms, modes and statuses are stored, never a token.

Each leak's last record says how it was handled (``mode``: ``report`` or ``revoke``) and how it
ended (``status``). A report-only run reports a leak once, whatever any run did with it. A
``--revoke`` run acts on every leak whose status is not settled: ``found`` (only reported),
``unresolved`` (not in the inventory then), ``failed`` and ``deferred`` (the action queue was
full); it never acts again on ``revoked``, ``not_found``, ``logged_out`` or ``not_live``.

Besides, each followed file's position: ``{"path": key, "dev": .., "ino": .., "offset": ..}``,
the key a SHA-256 of the path (a path is never stored), the file named by (device, inode), the
offset what was scanned of it, so a restart resumes each file where the last run stopped. The
log is compacted while running too, once it holds over twice the records it names.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from hygiene.errors import InputError
from hygiene.fingerprints import FINGERPRINT_PATTERN
from hygiene.watch.statefile import Appender, read_records, rewrite

REPORT, REVOKE = "report", "revoke"
DEFERRED = "deferred"
SETTLED = frozenset({"revoked", "not_found", "logged_out", "not_live"})
SYNC_EVERY = 512  # records buffered before an append and fsync (else each poll syncs)
# Compacted at start past this many records, when they are over twice the leaks they name.
COMPACT_AFTER = 4096
_FINGERPRINT = re.compile(FINGERPRINT_PATTERN)
_WORD = re.compile(r"[a-z_-]{1,32}")
_MASKED_MAX = 64
_PATH_KEY = re.compile(r"[0-9a-f]{64}")
Position = tuple[int, int, int]  # (device, inode, offset)


def path_key(path: str) -> str:
    """What a followed path is kept under: a hash of its absolute form (paths stay private)."""
    return hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()


def _position(path: Path, doc: dict[str, object]) -> tuple[str, Position]:
    key = doc.get("path")
    if not (isinstance(key, str) and _PATH_KEY.fullmatch(key)):
        raise InputError(f"state file {path}: a position's path is not a key")
    dev, ino, offset = (_count(doc.get(name)) for name in ("dev", "ino", "offset"))
    if dev is None or ino is None or offset is None:
        raise InputError(f"state file {path}: a position is not three counts")
    return key, (dev, ino, offset)


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


@dataclass(frozen=True)
class Record:
    """The last thing recorded for one leak."""

    fingerprint: str
    status: str
    mode: str = REPORT
    type: str = ""
    masked: str = ""

    def as_dict(self) -> dict[str, object]:
        doc: dict[str, object] = {"fp": self.fingerprint, "mode": self.mode}
        doc["status"] = self.status
        if self.type:
            doc["type"] = self.type
        if self.masked:
            doc["masked"] = self.masked
        return doc


def _record(path: Path, doc: dict[str, object]) -> Record:
    fp, status, mode = doc.get("fp"), doc.get("status"), doc.get("mode", REPORT)
    kind, masked = doc.get("type", ""), doc.get("masked", "")
    if not (isinstance(fp, str) and _FINGERPRINT.fullmatch(fp)):
        raise InputError(f"state file {path}: keys must be sha256 fingerprints")
    words = (status, mode, kind or "x")
    if not all(isinstance(w, str) and _WORD.fullmatch(w) for w in words):
        raise InputError(f"state file {path}: a record's status, mode or type is not a word")
    if not isinstance(masked, str) or len(masked) > _MASKED_MAX or "\n" in masked:
        raise InputError(f"state file {path}: a record's masked form is not one")
    return Record(fp, str(status), str(mode), str(kind), masked)


@dataclass
class Seen:
    """Fingerprint -> the last record for it; with a path, every change is appended there."""

    path: Path | None = None
    records: dict[str, Record] = field(default_factory=dict)
    positions: dict[str, Position] = field(default_factory=dict)
    _lines: int = 0
    _appender: Appender | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, path: Path | None) -> Seen:
        """The state kept at ``path`` (a missing file is an empty state); InputError if it is
        broken, a symbolic link, not a regular file, or too large. The old format is migrated,
        a log grown past a bound compacted, and the file kept open for appending."""
        seen = cls(path)
        read = read_records(path) if path is not None else None
        if path is None:
            return seen
        lines = 0
        if read is not None:
            docs, needs_compacting = read
            for doc in docs:
                if "path" in doc:
                    key, position = _position(path, doc)
                    seen.positions[key] = position
                else:
                    record = _record(path, doc)
                    seen.records[record.fingerprint] = record
                lines += 1
            seen._lines = lines
            if needs_compacting[0] or seen._grown(lines):
                seen._compact()
        seen._appender = Appender(path)
        return seen

    def _grown(self, lines: int) -> bool:
        return lines > max(COMPACT_AFTER, 2 * (len(self.records) + len(self.positions)))

    def _compact(self) -> None:
        assert self.path is not None  # noqa: S101 - only with a file
        docs = [r.as_dict() for r in self.records.values()]
        docs += [_position_doc(k, p) for k, p in self.positions.items()]
        rewrite(self.path, docs)
        self._lines = len(docs)

    def position(self, key: str) -> Position | None:
        """Where the last run stopped in the file followed under ``key``, if it was."""
        with self._lock:
            return self.positions.get(key)

    def place(self, key: str, position: Position) -> None:
        """Remember a followed file's position (appended only when it changed)."""
        with self._lock:
            if self.positions.get(key) == position:
                return
            self.positions[key] = position
            self._add(_position_doc(key, position))

    def _add(self, doc: dict[str, object]) -> None:
        if self._appender is not None:
            self._lines += 1
            if self._appender.add(doc) >= SYNC_EVERY:
                self._appender.sync()

    def get(self, fingerprint: str) -> Record | None:
        with self._lock:
            return self.records.get(fingerprint)

    def settled(self, fingerprint: str, acting: bool) -> bool:
        """Whether nothing is left to do for this leak: a report-only run reports a leak once;
        a ``--revoke`` run acts until the leak is revoked, gone or logged out."""
        with self._lock:
            record = self.records.get(fingerprint)
        if record is None:
            return False
        return record.status in SETTLED if acting else True

    def unsettled(self) -> list[Record]:
        """The leaks a ``--revoke`` run still has to act on, oldest first."""
        with self._lock:
            return [r for r in self.records.values() if r.status not in SETTLED]

    def record(self, record: Record) -> None:
        """Remember ``record`` as the leak's last; with a state file, buffer its append (each
        :data:`SYNC_EVERY` records, and at every :meth:`sync`, written and fsync'd)."""
        with self._lock:
            self.records.pop(record.fingerprint, None)  # re-inserted last: oldest first stays
            self.records[record.fingerprint] = record
            self._add(record.as_dict())

    def sync(self) -> None:
        """Write and fsync what is buffered (the watcher calls this once per poll)."""
        with self._lock:
            if self._appender is None:
                return
            self._appender.sync()
            if self._grown(self._lines):
                # Positions change every second: without this the log would outgrow its bound.
                self._appender.close()
                self._compact()
                self._appender = Appender(self._appender.path)

    def close(self) -> None:
        """Write what is buffered and close the file."""
        with self._lock:
            if self._appender is not None:
                self._appender.close()
                self._appender = None


def _position_doc(key: str, position: Position) -> dict[str, object]:
    dev, ino, offset = position
    return {"path": key, "dev": dev, "ino": ino, "offset": offset}


__all__ = [
    "DEFERRED",
    "REPORT",
    "REVOKE",
    "SETTLED",
    "Position",
    "Record",
    "Seen",
    "path_key",
]
