"""The SQLite store: one local file, the zero-setup default.

Every change is one transaction taken with ``BEGIN IMMEDIATE`` and a busy timeout, so writes
are atomic and two processes at once wait for each other instead of corrupting the file. The
schema version is SQLite's own ``user_version``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hygiene.errors import InputError
from hygiene.inventory.backend import Row
from hygiene.safefile import open_checked

TABLES = frozenset({"tokens", "claims"})


class SqliteBackend:
    """An open inventory file."""

    kind = "sqlite"

    def __init__(self, path: Path, *, create: bool, read_only: bool = False) -> None:
        self.display = str(path)
        self.path = path
        # The file's stamp through one descriptor held while the backend is open (see
        # FileStamp: a descriptor opened and closed per stamp dropped this process's locks).
        self._stamp = FileStamp(path)
        try:
            if read_only:
                self._db = _read_only(path)
            else:
                self._db = _connect(path) if create or path.exists() else _in_memory()
        except (OSError, sqlite3.Error) as exc:
            raise InputError(f"cannot open token inventory {path}: {exc}") from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(r) for r in self._db.execute(sql, tuple(params))]

    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        return self._db.executemany(sql, [tuple(r) for r in rows]).rowcount

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def set_schema_version(self, version: int) -> None:
        self._db.execute(f"PRAGMA user_version = {int(version)}")

    def foreign_tables(self) -> set[str]:
        names = {
            r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        return names - TABLES

    def stamp(self) -> Hashable:
        return self._stamp()

    def close(self) -> None:
        # The connection first: SQLite lets go of its locks and keeps its own descriptor
        # until no connection of the process holds one; the stamp's goes after it.
        self._db.close()
        self._stamp.close()


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fresh = not path.exists()
    db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    if fresh:
        os.chmod(path, 0o600)
    return db


def _read_only(path: Path) -> sqlite3.Connection:
    # Reads that must not change the file (a watcher tells the inventory's changes by it).
    uri = path.absolute().as_uri() + "?mode=ro"
    return sqlite3.connect(
        uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False
    )


def _stamp_of(fd: int, info: os.stat_result) -> tuple[int, int, int, int, bytes] | None:
    try:
        counter = os.pread(fd, 4, 24)  # the header's change counter, bytes 24-27
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, counter)


class FileStamp:
    """What changes with every committed write to the file, read without opening it as a
    database: its identity, size, mtime and SQLite's file change counter (an mtime alone can
    repeat within the clock's tick); None when there is no file.

    It is read through one descriptor kept open. POSIX locks belong to a process and a file,
    and closing any descriptor of the file drops all of them: a stamp taken by open and close
    dropped the locks SQLite held for this process's connections mid-transaction, and other
    processes then wrote under them ("disk I/O error" in a fleet of watchers). The descriptor
    is closed only when the path names another file (the old one is no longer the inventory)
    or by :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def __call__(self) -> tuple[int, int, int, int, bytes] | None:
        try:
            now = os.stat(self.path)
        except OSError:
            return None
        if self._fd is not None:
            held = os.fstat(self._fd)
            if (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino):
                return _stamp_of(self._fd, held)
        try:
            fd, info = open_checked(self.path, cap=None, follow=True)
        except OSError:
            return None
        self.close()  # another file than the one held (or none was)
        self._fd = fd
        return _stamp_of(fd, info)

    def close(self) -> None:
        """Let the descriptor go (when no connection of this process is open on the file)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _in_memory() -> sqlite3.Connection:
    # A reader of a missing file sees an empty inventory, and nothing appears on disk.
    return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)


# What the store's own errors are, for open_inventory to turn into one-line messages.
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)

__all__ = ["ERRORS", "TABLES", "FileStamp", "SqliteBackend"]
