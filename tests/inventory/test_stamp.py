"""The stamp, on both stores: what a watcher compares to know the records changed.

Every store answers ``stamp()`` through the storage interface; :class:`Reader` takes a SQLite
file's without opening a connection, a PostgreSQL database's with one cheap query.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import pytest

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


# What another process gets when it asks for a lock on the file (timeout 0: no waiting).
_TRY_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    db.execute(sys.argv[2])
except sqlite3.OperationalError as e:
    print('refused:', e)
else:
    print('took the lock')
"""


def _other_process_takes(path: Path, begin: str) -> str:
    import subprocess
    import sys

    other = subprocess.run(
        [sys.executable, "-c", _TRY_LOCK, str(path), begin],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return other.stdout.strip()


def _made(tmp_path: Path) -> Path:
    path = tmp_path / "inv.sqlite3"
    with open_inventory(parse_location(str(path))):
        pass
    return path


def _descriptors_on(path: Path) -> int:
    """How many descriptors of this process name ``path`` (Linux's /proc)."""
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            count += Path(fd).resolve() == path.resolve()
        except OSError:
            continue  # closed while listed (the listing's own descriptor)
    return count


# Each lock this process may hold while a store stamps the file, and what another process
# asks for that the lock must refuse: a writer's RESERVED lock refuses another writer, a
# reader's SHARED lock an exclusive one.
_LOCKS = [
    pytest.param(("BEGIN IMMEDIATE",), "BEGIN IMMEDIATE", id="reserved"),
    pytest.param(("BEGIN", "SELECT count(*) FROM tokens"), "BEGIN EXCLUSIVE", id="shared"),
]


@pytest.mark.parametrize(("hold", "other"), _LOCKS)
def test_an_inventorys_stamp_keeps_the_locks_of_another_connection(
    tmp_path: Path, hold: tuple[str, ...], other: str
) -> None:
    # Inventory.stamp() went through SqliteBackend.stamp(), which opened and closed the file
    # each call: the lock another connection of this process held was gone after it.
    import sqlite3

    path = _made(tmp_path)
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        for statement in hold:
            holder.execute(statement)
        with open_inventory(parse_location(str(path))) as inventory:
            for _ in range(5):
                assert inventory.stamp() is not None
            assert _other_process_takes(path, other) == "refused: database is locked"
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    assert _other_process_takes(path, other) == "took the lock"  # the check can pass


def test_a_backend_stamping_inside_its_own_transaction_keeps_its_lock(tmp_path: Path) -> None:
    path = _made(tmp_path)
    backend = SqliteBackend(path, create=False)
    try:
        with backend.transaction():
            before = backend.stamp()
            backend.execute_many("DELETE FROM tokens WHERE token_id = ?", [("tok_none",)])
            for _ in range(5):
                assert backend.stamp() == before  # nothing committed yet
            assert _other_process_takes(path, "BEGIN IMMEDIATE") == "refused: database is locked"
    finally:
        backend.close()


def test_the_stamps_descriptor_is_held_once_and_closed_with_the_backend(
    tmp_path: Path, guard: SecretGuard
) -> None:
    path = _made(tmp_path)
    before = _descriptors_on(path)
    with open_inventory(parse_location(str(path))) as inventory:
        stamps = [inventory.stamp() for _ in range(3)]
        held = _descriptors_on(path)
        assert held <= before + 2  # the connection's and the stamp's, not one per stamp
        inventory.add("tok_a", guard.pat(), name="a", scopes=[], expires_at=None)
        assert inventory.stamp() != stamps[0]  # the held descriptor sees the write
        assert _descriptors_on(path) == held
    assert _descriptors_on(path) == before


def test_a_stamp_follows_the_file_a_path_names_now(tmp_path: Path, guard: SecretGuard) -> None:
    # The held descriptor is of the file the path named then: one put in its place (a restore
    # from a backup) is the inventory now, and its stamp is what the store tells.
    import os
    import shutil

    path = _made(tmp_path)
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(path, backup)
    backend = SqliteBackend(path, create=False)
    try:
        first = backend.stamp()
        os.replace(backup, path)
        second = backend.stamp()
        assert second is not None
        assert second != first
        assert backend.stamp() == second
    finally:
        backend.close()
