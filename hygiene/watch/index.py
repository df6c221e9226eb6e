"""The inventory as the watcher asks it: fingerprint -> entry, in memory, read again only when
the inventory changed (:class:`hygiene.inventory.Reader`: a SQLite file's stamp, a PostgreSQL
database's one cheap query). A flood of PATs the inventory does not know costs a dictionary
look-up each, not an inventory open (5 ms each, which held a watcher to 750 of them a second).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable

from hygiene.inventory import Entry, Location, Reader


class InventoryIndex:
    """Fingerprint -> inventory entry, refreshed when the inventory changes."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.generation = 0  # bumped at each change seen: a new chance for unresolved leaks
        self._reader = Reader(location)
        self._stamp: Hashable = None
        self._read = False
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def entry(self, fingerprint: str, *, fresh: bool = False) -> Entry | None:
        """The entry with this ``sha256:`` fingerprint, as of the last :meth:`refresh` (the
        watcher refreshes once per poll, not once per leak) or, ``fresh``, as of now."""
        with self._lock:
            if fresh or not self._read:
                self._refresh()
            return self._entries.get(fingerprint)

    def refresh(self) -> int:
        """Read the inventory again if it changed; the generation after."""
        with self._lock:
            self._refresh()
            return self.generation

    def _refresh(self) -> None:
        stamp = self._reader.stamp()
        if self._read and stamp == self._stamp:
            return
        entries = self._reader.entries() if stamp is not None else []
        self._entries = {e.fingerprint: e for e in entries}
        self._stamp, self._read = stamp, True
        self.generation += 1

    def close(self) -> None:
        self._reader.close()


__all__ = ["InventoryIndex"]
