"""The stamp, on both stores: what a watcher compares to know the records changed.

Every store answers ``stamp()`` through the storage interface; :class:`Reader` takes a SQLite
file's without opening a connection, a PostgreSQL database's with one cheap query.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from hygiene.inventory import REVOKED, Reader, open_inventory, parse_location
from hygiene.inventory.backend import Backend
from hygiene.inventory.postgres_store import PostgresBackend
from hygiene.inventory.sqlite_store import SqliteBackend
from tests.helpers import SecretGuard


def _reader_stamp(location: str) -> Hashable:
    reader = Reader(parse_location(location))
    try:
        return reader.stamp()
    finally:
        reader.close()


def test_every_backend_has_the_stamp_of_the_interface() -> None:
    assert "stamp" in Backend.__dict__
    for backend in (SqliteBackend, PostgresBackend):
        assert callable(backend.__dict__["stamp"]), backend


def test_the_stamp_changes_with_every_write_and_only_then(
    inventory_location: str, guard: SecretGuard
) -> None:
    with open_inventory(inventory_location) as inventory:
        empty = inventory.stamp()
        assert empty == inventory.stamp()
        inventory.add("tok_a", guard.pat(), name="a", scopes=[], expires_at=None)
        added = inventory.stamp()
        assert added != empty
        assert _reader_stamp(inventory_location) == added  # the reader sees the same
        inventory.entries()
        inventory.get("tok_a")
        assert inventory.stamp() == added  # reading changes nothing
        assert inventory.mark(["tok_a"], REVOKED) == 1
        marked = inventory.stamp()
        assert marked not in (empty, added)
        assert _reader_stamp(inventory_location) == marked
        inventory.add("tok_b", guard.pat(), name="b", scopes=[], expires_at=None)
        assert inventory.stamp() not in (empty, added, marked)


def test_no_file_no_stamp(tmp_path: Path) -> None:
    """A SQLite inventory not made yet has no stamp, to the reader and to a reading store."""
    missing = tmp_path / "none" / "inventory.sqlite3"
    assert _reader_stamp(str(missing)) is None
    with open_inventory(missing, create=False) as inventory:
        assert inventory.stamp() is None
    assert not missing.exists()


def test_a_stamp_keeps_the_locks_this_process_holds_on_the_file(tmp_path: Path) -> None:
    # POSIX locks belong to a process and a file: closing any descriptor of the file drops
    # them all. A watcher stamps the inventory while its responder threads hold SQLite write
    # locks on it; a stamp taken by open and close let other processes write under them
    # ("disk I/O error" in a fleet of watchers, and a corrupt file in the worst case).
    import sqlite3
    import subprocess
    import sys

    from hygiene.inventory import Reader, parse_location

    path = tmp_path / "inv.sqlite3"
    with open_inventory(parse_location(str(path))):
        pass
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # this process holds the write lock
    reader = Reader(parse_location(str(path)))
    for _ in range(3):
        assert reader.stamp() is not None
    other = subprocess.run(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         "db = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)\n"
         "try:\n    db.execute('BEGIN IMMEDIATE')\nexcept sqlite3.OperationalError as e:\n"
         "    print('refused:', e)\nelse:\n    print('took the lock')\n",
         str(path)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    writer.execute("ROLLBACK")
    writer.close()
    assert other.stdout.strip() == "refused: database is locked"
