"""The storage interface both stores implement: transactions, statements, the schema version.

:class:`~hygiene.inventory.store.Inventory` speaks only this interface and one SQL dialect that
SQLite (3.24 and later) and PostgreSQL share (``ON CONFLICT ... DO UPDATE``, ``excluded.``);
placeholders are written ``?`` and each backend turns them into its own.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

Row = tuple[Any, ...]


class Backend(Protocol):
    """One open connection to a store."""

    kind: str  # "sqlite" or "postgresql"
    display: str  # where it lives, printable (no password)

    def transaction(self) -> AbstractContextManager[None]:
        """A write transaction: everything inside commits together or not at all; concurrent
        writers wait for each other (SQLite: BEGIN IMMEDIATE; PostgreSQL: row locks)."""
        ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Run one statement (``?`` placeholders) and return its rows (none for a write)."""
        ...

    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement per row; returns the rows it changed in all."""
        ...

    def schema_version(self) -> int:
        """The version recorded in the store; 0 for a store that holds nothing yet."""
        ...

    def set_schema_version(self, version: int) -> None:
        """Record ``version`` (inside a transaction)."""
        ...

    def foreign_tables(self) -> set[str]:
        """Tables that are not the inventory's: a store holding them is not an inventory."""
        ...

    def stamp(self) -> Hashable:
        """What changes with every committed change to the records, cheap to take: only ever
        compared with an earlier stamp (a watcher reads the records again when it differs).
        SQLite: the file's identity, size, mtime and change counter (None with no file);
        PostgreSQL: one aggregate query."""
        ...

    def close(self) -> None: ...


__all__ = ["Backend", "Row"]
