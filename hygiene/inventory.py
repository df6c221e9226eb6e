"""The token inventory: which PAT (``token_id``) a fingerprint belongs to, in a local SQLite file.

Per PAT: ``token_id``, name, scopes, expiry, state, organization, the SHA-256 fingerprint and
the SHA-1 (detect-secrets baselines' ``hashed_secret``). Never the value.

Every change is one SQLite transaction taken with ``BEGIN IMMEDIATE`` and a busy timeout, so
writes are atomic and two processes at once wait for each other instead of corrupting the file.
A file that is not an inventory is an :class:`~hygiene.errors.InputError` (exit 2).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hygiene.detection import PAT_PREFIX, find_secrets, fingerprint, mask_secrets, sha1_hex
from hygiene.errors import InputError

APP_DIR = "aic-token-hygiene"
FILE_NAME = "inventory.sqlite3"
SCHEMA_VERSION = 1
NEAR_EXPIRY = timedelta(days=14)
ACTIVE, REVOKED, EXPIRED = "active", "revoked", "expired"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    token_id    TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    expires_at  TEXT,
    state       TEXT NOT NULL,
    org_id      TEXT,
    fingerprint TEXT NOT NULL,
    sha1        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_fingerprint ON tokens (fingerprint);
CREATE INDEX IF NOT EXISTS tokens_sha1 ON tokens (sha1);
"""
# What a token id may be: it goes into a URL path (percent-encoded too, but ``.`` and ``..`` would
# still be resolved by a proxy), a terminal line and a report.
TOKEN_ID = re.compile(r"[A-Za-z0-9._:-]{1,200}")


def check_token_id(token_id: str, origin: str) -> str:
    """``token_id`` if it is a valid token id, else an InputError naming ``origin``.

    ``origin`` says where the id came from (``--token-id``, ``inventory row 3``, ``the service``).
    The message never shows a token value: one given as an id is refused as such.
    """
    if token_id.startswith(PAT_PREFIX) or find_secrets(token_id):
        raise InputError(
            f"{origin}: this is a token value, not a token id; give the id (the service's name "
            "for the token, e.g. tok_...), and never put a token value on a command line"
        )
    if TOKEN_ID.fullmatch(token_id) and token_id not in (".", ".."):
        return token_id
    shown = repr(mask_secrets(token_id[:60])) + ("..." if len(token_id) > 60 else "")
    raise InputError(
        f"{origin}: {shown} is not a token id (1 to 200 of A-Z a-z 0-9 . _ : -, not . or ..)"
    )


_COLUMNS = (
    "token_id, name, scopes, expires_at, state, org_id, fingerprint, sha1, created_at, updated_at"
)


def default_path(env: Mapping[str, str], platform: str = sys.platform) -> Path:
    """``HYGIENE_INVENTORY``, else the per-user data folder of the platform."""
    if env.get("HYGIENE_INVENTORY"):
        return Path(env["HYGIENE_INVENTORY"]).expanduser()
    home = Path(env.get("HOME") or Path.home())
    if platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / APP_DIR / FILE_NAME


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Entry:
    """One PAT of the inventory."""

    token_id: str
    name: str
    scopes: tuple[str, ...]
    expires_at: str | None
    state: str
    org_id: str | None
    fingerprint: str
    sha1: str
    created_at: str
    updated_at: str

    def expiry(self) -> datetime | None:
        if not self.expires_at:
            return None
        when = datetime.fromisoformat(self.expires_at)
        return when if when.tzinfo else when.replace(tzinfo=timezone.utc)

    def current_state(self, now: datetime) -> str:
        """``revoked``, ``expired`` (past its expiry) or ``active``."""
        expiry = self.expiry()
        if self.state == ACTIVE and expiry is not None and expiry <= now:
            return EXPIRED
        return self.state

    def near_expiry(self, now: datetime, within: timedelta = NEAR_EXPIRY) -> bool:
        """Active and expiring within ``within`` (14 days by default)."""
        expiry = self.expiry()
        return self.current_state(now) == ACTIVE and expiry is not None and expiry - now <= within


def _entry(row: Sequence[Any], number: int | None = None) -> Entry:
    """An inventory row as an Entry; a row that does not make sense is an InputError."""
    values = list(row)
    where = f"inventory row {number}" if number is not None else "inventory row"
    try:
        scopes = json.loads(values[2])
    except (TypeError, ValueError):
        scopes = None
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InputError(f"{where}: its scopes are not a list of names; fix or delete the row")
    entry = Entry(values[0], values[1], tuple(scopes), *values[3:])
    try:
        entry.expiry()
    except (TypeError, ValueError):
        raise InputError(f"{where}: its expiry is not an ISO 8601 date") from None
    if not isinstance(entry.token_id, str) or not isinstance(entry.state, str):
        raise InputError(f"{where}: it has no token id or state")
    return entry


class Inventory:
    """An open inventory file. Use :func:`open_inventory`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            _rollback(self._db)
            raise
        self._db.execute("COMMIT")

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
        now = _now().isoformat()
        row = (
            token_id,
            name,
            json.dumps(list(scopes)),
            expires_at,
            ACTIVE,
            org_id,
            fingerprint(value),
            sha1_hex(value),
            now,
            now,
        )
        with self._write() as db:
            db.execute(
                f"INSERT OR REPLACE INTO tokens ({_COLUMNS}) VALUES "  # noqa: S608 - constant
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return _entry(row)

    def mark(self, token_ids: Iterable[str], state: str) -> int:
        """Set the state of these PATs; returns how many were in the inventory."""
        now = _now().isoformat()
        with self._write() as db:
            cur = db.executemany(
                "UPDATE tokens SET state = ?, updated_at = ? WHERE token_id = ?",
                [(state, now, tid) for tid in token_ids],
            )
            return cur.rowcount

    def _select(self, where: str = "", *args: str) -> list[Entry]:
        sql = f"SELECT rowid, {_COLUMNS} FROM tokens {where} ORDER BY created_at, token_id"  # noqa: S608
        return [_entry(row[1:], row[0]) for row in self._db.execute(sql, args)]

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

    def close(self) -> None:
        self._db.close()


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fresh = not path.exists()
    db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    if fresh:
        os.chmod(path, 0o600)
    return db


def _in_memory() -> sqlite3.Connection:
    return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        db.execute("ROLLBACK")


def _prepare(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise InputError(f"inventory schema version {version} is not supported")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and tables - {"tokens"}:
            raise InputError("the file is an SQLite database but not a token inventory")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        _rollback(db)
        raise
    db.execute("COMMIT")


@contextmanager
def open_inventory(path: Path, *, create: bool = True) -> Iterator[Inventory]:
    """Open the inventory at ``path``; InputError when it is unusable.

    A missing file is created, or with ``create=False`` read as an empty inventory (for
    commands that only read: nothing appears on disk).
    """
    try:
        db = _connect(path) if create or path.exists() else _in_memory()
    except (OSError, sqlite3.Error) as exc:
        raise InputError(f"cannot open token inventory {path}: {exc}") from None
    try:
        _prepare(db)
        yield Inventory(db, path)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"token inventory {path} is unusable: {exc}") from None
    finally:
        db.close()


__all__ = [
    "ACTIVE",
    "EXPIRED",
    "REVOKED",
    "TOKEN_ID",
    "Entry",
    "Inventory",
    "check_token_id",
    "default_path",
    "open_inventory",
]
