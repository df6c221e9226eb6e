"""The PostgreSQL store: one inventory shared by a team (psycopg 3, the ``postgres`` extra).

libpq does the rest as it is configured: the password comes from the URL, ``PGPASSWORD`` or
``~/.pgpass``; TLS from ``sslmode`` (in the URL or ``PGSSLMODE``) and its certificates. Nothing
of the URL's secret is ever shown: messages name :attr:`display`, and a server message that
repeats the password has it cut out.

Each change is one transaction. Writers of different rows never wait for each other; the
schema's migrations hold a transaction-scoped advisory lock, so two clients upgrading at once
take turns. The schema version is the one row of ``hygiene_schema``.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hygiene.errors import InputError
from hygiene.inventory.backend import Row
from hygiene.inventory.location import redacted_url

TABLES = frozenset({"tokens", "claims", "hygiene_schema"})
# pg_advisory_xact_lock's key for schema changes: "aic-hygiene" folded into a bigint.
_MIGRATION_LOCK = 0x41494348_7967656E
# How long a connection attempt may take before the command gives up (seconds).
CONNECT_TIMEOUT = 10


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise InputError(
            "HYGIENE_INVENTORY is a PostgreSQL URL, but psycopg is not installed: "
            "pip install 'psycopg[binary]>=3.1' (the postgres extra)"
        ) from None
    return psycopg


def _password(url: str) -> str | None:
    try:
        return urllib.parse.urlsplit(url).password
    except ValueError:
        return None


class PostgresBackend:
    """An open connection to a team's inventory database."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        self.display = redacted_url(url)
        self._secret = _password(url)
        psycopg = _driver()
        self.errors: tuple[type[Exception], ...] = (psycopg.Error,)
        try:
            self._conn = psycopg.connect(
                url,
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT,
                application_name="aic-token-hygiene",
            )
        except psycopg.Error as exc:
            message = f"cannot reach token inventory {self.display}: {self.reason(exc)}"
            raise InputError(message) from None

    def reason(self, exc: BaseException) -> str:
        """The server's or libpq's message, first line, with the URL's password cut out."""
        lines = str(exc).strip().splitlines()
        text = lines[0] if lines else type(exc).__name__
        return text.replace(self._secret, "***") if self._secret else text

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._conn.transaction():
            yield

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._conn.cursor() as cur:
            cur.execute(sql.replace("?", "%s"), tuple(params))
            return [tuple(r) for r in cur.fetchall()] if cur.description else []

    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        changed = 0
        with self._conn.cursor() as cur:
            for row in rows:
                cur.execute(sql.replace("?", "%s"), tuple(row))
                changed += max(cur.rowcount, 0)
        return changed

    def lock_schema(self) -> None:
        """Take the migration lock until the transaction ends (two upgrades take turns)."""
        self.query("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))

    def schema_version(self) -> int:
        exists = self.query("SELECT to_regclass('hygiene_schema') IS NOT NULL")[0][0]
        if not exists:
            return 0
        rows = self.query("SELECT max(version) FROM hygiene_schema")
        return int(rows[0][0] or 0)

    def set_schema_version(self, version: int) -> None:
        self.query("CREATE TABLE IF NOT EXISTS hygiene_schema (version INTEGER NOT NULL)")
        self.query("DELETE FROM hygiene_schema")
        self.query("INSERT INTO hygiene_schema (version) VALUES (?)", (int(version),))

    def foreign_tables(self) -> set[str]:
        rows = self.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        return {r[0] for r in rows} - TABLES

    def stamp(self) -> tuple[object, ...]:
        """What changes with every change to the records: one cheap query, not the table."""
        rows = self.query("SELECT count(*), max(updated_at), max(created_at) FROM tokens")
        return tuple(rows[0])

    def close(self) -> None:
        self._conn.close()


__all__ = ["CONNECT_TIMEOUT", "TABLES", "PostgresBackend"]
