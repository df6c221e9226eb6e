"""The inventory over either store: records, look-ups, states, claims, export and import.

Every method is one transaction (or one read); a store's own error (a server that went away,
a locked or damaged file) becomes a one-line :class:`~hygiene.errors.InputError` naming where
the inventory lives, never its password.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hygiene.detection import fingerprint, sha1_hex
from hygiene.errors import InputError
from hygiene.inventory.backend import Backend
from hygiene.inventory.entries import (
    ACTIVE,
    FIELDS,
    REVOKED,
    Entry,
    check_token_id,
    entry_from_row,
    now_utc,
)
from hygiene.inventory.location import Location, parse_location
from hygiene.inventory.schema import LATEST, check_version, migrate

if TYPE_CHECKING:
    from hygiene.inventory.sqlite_store import FileStamp

_COLUMNS = ", ".join(FIELDS)
_PLACES = ", ".join("?" for _ in FIELDS)
# Built from FIELDS, constants: no input reaches the statement's text.
_UPSERT = (
    f"INSERT INTO tokens ({_COLUMNS}) VALUES ({_PLACES}) ON CONFLICT (token_id) DO UPDATE SET "  # noqa: S608
    + ", ".join(f"{f} = excluded.{f}" for f in FIELDS[1:])
)
# A claim older than this, never settled, was left by a process that died: another may take it.
CLAIM_STALE_AFTER = timedelta(minutes=5)


class Inventory:
    """An open inventory. Use :func:`~hygiene.inventory.open_inventory`."""

    def __init__(self, backend: Backend, store_errors: tuple[type[Exception], ...]) -> None:
        self._backend = backend
        self._errors = store_errors
        self.where = backend.display
        self.kind = backend.kind

    @contextmanager
    def _store(self, write: bool = False) -> Iterator[Backend]:
        try:
            if write:
                with self._backend.transaction():
                    yield self._backend
            else:
                yield self._backend
        except self._errors as exc:
            reason = getattr(self._backend, "reason", str)(exc)
            raise InputError(f"token inventory {self.where}: {reason}") from None

    def prepare(self, *, upgrade: bool, create: bool) -> None:
        """Check the schema; with ``upgrade``, bring an older one to the latest. A reader
        (neither) of a store that holds no inventory yet is told how to make one."""
        with self._store() as db:
            version = db.schema_version()
            check_version(version, self.where)
            if upgrade and version < LATEST:
                migrate(db)
            elif version == 0 and not create:
                raise InputError(
                    f"token inventory {self.where} is empty: run `hygiene inventory migrate` "
                    "(as the database's owner) or `hygiene tokens create` first"
                )

    def upgrade(self) -> tuple[int, int]:
        """Bring the schema to the latest (``hygiene inventory migrate``); (from, to)."""
        with self._store() as db:
            return migrate(db)

    def add(
        self,
        token_id: str,
        value: str,
        *,
        name: str,
        scopes: Iterable[str],
        expires_at: str | None,
        org_id: str | None = None,
    ) -> Entry:
        """Record a PAT by its fingerprints (the value itself is hashed, never stored).

        The token id must pass :func:`check_token_id` (InputError otherwise).
        """
        check_token_id(token_id, "token id")
        now = now_utc().isoformat()
        entry = Entry(
            token_id,
            name,
            tuple(scopes),
            expires_at,
            ACTIVE,
            org_id,
            fingerprint(value),
            sha1_hex(value),
            now,
            now,
        )
        with self._store(write=True) as db:
            db.query(_UPSERT, entry.row())
        return entry

    def mark(self, token_ids: Iterable[str], state: str) -> int:
        """Set the state of these PATs; returns how many were in the inventory."""
        now = now_utc().isoformat()
        rows = [(state, now, tid) for tid in token_ids]
        with self._store(write=True) as db:
            return db.execute_many(
                "UPDATE tokens SET state = ?, updated_at = ? WHERE token_id = ?", rows
            )

    def _select(self, where: str = "", *args: str) -> list[Entry]:
        sql = f"SELECT {_COLUMNS} FROM tokens {where} ORDER BY created_at, token_id"  # noqa: S608
        with self._store() as db:
            rows = db.query(sql, args)
        return [entry_from_row(row, f"inventory row {n}") for n, row in enumerate(rows, 1)]

    def entries(self) -> list[Entry]:
        return self._select()

    def get(self, token_id: str) -> Entry | None:
        found = self._select("WHERE token_id = ?", token_id)
        return found[0] if found else None

    def by_fingerprint(self, value: str) -> Entry | None:
        """The PAT with this SHA-256 fingerprint (``sha256:...``) or SHA-1 hex, if recorded."""
        column = "fingerprint" if value.startswith("sha256:") else "sha1"
        found = self._select(f"WHERE {column} = ?", value.lower())
        return found[0] if found else None

    def import_entries(self, entries: Iterable[Entry]) -> tuple[int, int]:
        """Merge records made elsewhere, in one transaction; returns (added, updated).

        A record replaces the one here only when it is newer (``updated_at``), and a token
        recorded here as revoked never comes back as active.
        """
        added = updated = 0
        with self._store(write=True) as db:
            for entry in entries:
                rows = db.query(
                    "SELECT state, updated_at FROM tokens WHERE token_id = ?", (entry.token_id,)
                )
                if not rows:
                    added += 1
                elif _newer(entry, rows[0][1]) and not (
                    rows[0][0] == REVOKED and entry.state == ACTIVE
                ):
                    updated += 1
                else:
                    continue
                db.query(_UPSERT, entry.row())
        return added, updated

    def claim(self, fp: str, who: str, now: datetime | None = None) -> tuple[bool, str | None]:
        """Take charge of acting on the leak ``fp``: (True, None) when this caller holds the
        claim now; (False, outcome) when another does (its outcome once it settled)."""
        moment = now or now_utc()
        stale = (moment - CLAIM_STALE_AFTER).isoformat()
        self._require(2, "claims")
        with self._store(write=True) as db:
            db.query(
                "INSERT INTO claims (fingerprint, claimed_by, claimed_at) VALUES (?, ?, ?) "
                "ON CONFLICT (fingerprint) DO NOTHING",
                (fp, who, moment.isoformat()),
            )
            db.query(
                "UPDATE claims SET claimed_by = ?, claimed_at = ? WHERE fingerprint = ? "
                "AND outcome IS NULL AND claimed_at < ? AND claimed_by <> ?",
                (who, moment.isoformat(), fp, stale, who),
            )
            holder, outcome = db.query(
                "SELECT claimed_by, outcome FROM claims WHERE fingerprint = ?", (fp,)
            )[0]
        return (holder == who and outcome is None), outcome

    def settle(self, fp: str, who: str, outcome: str) -> None:
        """Record the outcome of the claim ``who`` holds on ``fp`` (others then report it)."""
        self._require(2, "claims")
        with self._store(write=True) as db:
            db.query(
                "UPDATE claims SET outcome = ?, settled_at = ? WHERE fingerprint = ? "
                "AND claimed_by = ?",
                (outcome, now_utc().isoformat(), fp, who),
            )

    def release(self, fp: str, who: str) -> None:
        """Give up the claim ``who`` holds on ``fp`` unsettled (its action failed): any
        watcher may claim it at once. Marked stale, not deleted: responders need no DELETE."""
        self._require(2, "claims")
        with self._store(write=True) as db:
            db.query(
                "UPDATE claims SET claimed_at = '' WHERE fingerprint = ? AND claimed_by = ? "
                "AND outcome IS NULL",
                (fp, who),
            )

    def outcome(self, fp: str) -> str | None:
        """The settled outcome of the leak ``fp``, if any process recorded one."""
        self._require(2, "claims")
        with self._store() as db:
            rows = db.query("SELECT outcome FROM claims WHERE fingerprint = ?", (fp,))
        return rows[0][0] if rows else None

    def schema_version(self) -> int:
        with self._store() as db:
            return db.schema_version()

    def stamp(self) -> Hashable:
        """What changes when the records change (:meth:`Backend.stamp`): compared, never read."""
        with self._store() as db:
            return db.stamp()

    def _require(self, version: int, what: str) -> None:
        if self.schema_version() < version:
            raise InputError(
                f"token inventory {self.where} has no {what} yet (schema version "
                f"{self.schema_version()}): run `hygiene inventory migrate` as its owner"
            )

    def close(self) -> None:
        self._backend.close()


def _as_location(where: Location | Path | str) -> Location:
    if isinstance(where, Location):
        return where
    return parse_location(str(where))


class Reader:
    """The inventory read again only when it changed (a watcher's view, asked once per poll):
    a SQLite file by its stamp (no connection at all while nothing changed), a PostgreSQL
    database by one cheap query on a connection held open."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self._pg: Inventory | None = None
        self._file: FileStamp | None = None

    def stamp(self) -> Hashable:
        """What changes when the records change; None while there is no inventory."""
        if self.location.path is not None:
            # The file's own stamp, taken without opening a connection, through a descriptor
            # held open (the watcher's other connections keep their locks: see FileStamp).
            if self._file is None:
                from hygiene.inventory.sqlite_store import FileStamp

                self._file = FileStamp(self.location.path)
            return self._file()
        return self._postgres().stamp()

    def entries(self) -> list[Entry]:
        """Every record, read now (SQLite: read-only, so the file does not change)."""
        if self.location.path is None:
            return self._postgres().entries()
        import sqlite3

        from hygiene.inventory.sqlite_store import SqliteBackend

        backend = SqliteBackend(self.location.path, create=False, read_only=True)
        try:
            return Inventory(backend, (sqlite3.Error,)).entries()
        finally:
            backend.close()

    def _postgres(self) -> Inventory:
        if self._pg is None:
            from hygiene.inventory.postgres_store import PostgresBackend

            backend = PostgresBackend(self.location.url or "")
            self._pg = Inventory(backend, backend.errors)
            self._pg.prepare(upgrade=False, create=False)
        return self._pg

    def close(self) -> None:
        if self._pg is not None:
            self._pg.close()
            self._pg = None


@contextmanager
def open_inventory(
    where: Location | Path | str, *, create: bool = True, upgrade: bool | None = None
) -> Iterator[Inventory]:
    """Open the inventory at ``where``; InputError when it is unusable.

    A missing SQLite file is created, or with ``create=False`` read as an empty inventory
    (for commands that only read: nothing appears on disk). ``upgrade`` (default: always for
    SQLite, with ``create`` for PostgreSQL) brings an older schema to the latest.
    """
    location = _as_location(where)
    backend: Backend
    if location.url is not None:
        from hygiene.inventory.postgres_store import PostgresBackend

        pg = PostgresBackend(location.url)
        backend, errors = pg, pg.errors
        upgrade = create if upgrade is None else upgrade
    else:
        import sqlite3

        from hygiene.inventory.sqlite_store import SqliteBackend

        backend = SqliteBackend(location.path or Path(), create=create)
        errors = (sqlite3.Error,)
        upgrade = True if upgrade is None else upgrade
    inventory = Inventory(backend, errors)
    try:
        inventory.prepare(upgrade=upgrade, create=create)
        yield inventory
    finally:
        backend.close()


def _newer(entry: Entry, stored: Any) -> bool:
    try:
        return datetime.fromisoformat(entry.updated_at) > datetime.fromisoformat(str(stored))
    except (TypeError, ValueError):
        return True


def export_lines(entries: Iterable[Entry]) -> Iterator[str]:
    """One JSON object a line per record (``tokens export``): fingerprints, never a value."""
    for entry in entries:
        yield json.dumps(entry.record(), sort_keys=True)


__all__ = [
    "CLAIM_STALE_AFTER",
    "LATEST",
    "Inventory",
    "Reader",
    "export_lines",
    "open_inventory",
]
