"""The inventory as the watcher asks it: fingerprint -> entry, in memory, read again only when
the file changed. A flood of PATs the inventory does not know costs a dictionary look-up and a
``stat`` each, not an SQLite open (5 ms each, which held a watcher to 750 of them a second).

The file is read through a read-only connection: ``open_inventory`` prepares the schema in a
write transaction, which would change the very file whose changes are watched.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

from hygiene.errors import InputError
from hygiene.inventory import Entry, Inventory

Stamp = tuple[int, int, int, int, bytes]
# SQLite's file change counter, which every committed write to a rollback-journal file bumps
# (an mtime alone can repeat within the kernel clock's tick).
_COUNTER_AT, _COUNTER_LEN = 24, 4


def _stamp(path: Path) -> Stamp | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        counter = os.pread(fd, _COUNTER_LEN, _COUNTER_AT)
    except OSError:
        return None
    finally:
        os.close(fd)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, counter)


def _entries(path: Path) -> list[Entry]:
    uri = path.absolute().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=30.0, check_same_thread=False)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open token inventory {path}: {exc}") from None
    try:
        return Inventory(db, path).entries()
    except sqlite3.Error as exc:
        raise InputError(f"token inventory {path} is unusable: {exc}") from None
    finally:
        with contextlib.suppress(sqlite3.Error):
            db.close()


class InventoryIndex:
    """Fingerprint -> inventory entry, refreshed when the inventory file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.generation = 0  # bumped at each change seen: a new chance for unresolved leaks
        self._stamp: Stamp | None = None
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def entry(self, fingerprint: str, *, fresh: bool = False) -> Entry | None:
        """The entry with this ``sha256:`` fingerprint, as of the last :meth:`refresh` (the
        watcher refreshes once per poll, not once per leak) or, ``fresh``, as of now."""
        with self._lock:
            if fresh or self._stamp is None:
                self._refresh()
            return self._entries.get(fingerprint)

    def refresh(self) -> int:
        """Read the inventory again if it changed; the generation after."""
        with self._lock:
            self._refresh()
            return self.generation

    def _refresh(self) -> None:
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        entries = _entries(self.path) if stamp is not None else []
        self._entries = {e.fingerprint: e for e in entries}
        self._stamp = stamp
        self.generation += 1


__all__ = ["InventoryIndex"]
