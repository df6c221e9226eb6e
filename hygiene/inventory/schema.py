"""The inventory's schema, versioned, and its forward migrations (the same for both stores).

Version 1 is the tokens table every release so far wrote. Version 2 adds ``claims``: which
process took charge of revoking a leak, so a fleet of ``watch --revoke`` sidecars seeing one
leak at once revokes it once. A client meeting a schema newer than it knows stops with a
one-line error instead of guessing; an older schema is upgraded by the first write that needs
it (SQLite: every open, the file is the user's own; PostgreSQL: ``tokens create``, ``tokens
import`` and ``hygiene inventory migrate``, which a team runs as the database's owner).
"""

from __future__ import annotations

from typing import Final

from hygiene.errors import InputError
from hygiene.inventory.backend import Backend

MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: (
        """CREATE TABLE IF NOT EXISTS tokens (
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
        )""",
        "CREATE INDEX IF NOT EXISTS tokens_fingerprint ON tokens (fingerprint)",
        "CREATE INDEX IF NOT EXISTS tokens_sha1 ON tokens (sha1)",
    ),
    2: (
        """CREATE TABLE IF NOT EXISTS claims (
            fingerprint TEXT PRIMARY KEY,
            claimed_by  TEXT NOT NULL,
            claimed_at  TEXT NOT NULL,
            outcome     TEXT,
            settled_at  TEXT
        )""",
    ),
}
LATEST: Final = max(MIGRATIONS)


def check_version(version: int, where: str) -> None:
    """A schema newer than this client knows is an error, never a guess."""
    if version > LATEST:
        raise InputError(
            f"token inventory {where} has schema version {version}, newer than this "
            f"aic-token-hygiene understands ({LATEST}): upgrade aic-token-hygiene"
        )


def migrate(backend: Backend) -> tuple[int, int]:
    """Bring the store to :data:`LATEST` in one transaction; returns (from, to)."""
    with backend.transaction():
        lock = getattr(backend, "lock_schema", None)
        if lock is not None:
            lock()
        version = backend.schema_version()
        check_version(version, backend.display)
        if version == 0 and backend.foreign_tables():
            raise InputError(
                f"{backend.display} is not a token inventory (it holds other tables): give "
                "the inventory a file, database or schema of its own"
            )
        for step in range(version + 1, LATEST + 1):
            for statement in MIGRATIONS[step]:
                backend.query(statement)
        if version != LATEST:
            backend.set_schema_version(LATEST)
    return version, LATEST


__all__ = ["LATEST", "MIGRATIONS", "check_version", "migrate"]
