"""``hygiene inventory migrate``, ``hygiene tokens export`` and ``hygiene tokens import``:
the inventory's schema, and moving records between stores (JSON lines, never a value)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import click

from hygiene.errors import EXIT_OK, InputError
from hygiene.inventory import (
    LATEST,
    Entry,
    default_location,
    entry_from_record,
    export_lines,
    open_inventory,
)
from hygiene.safefile import read_input

# An import file larger than this is refused before it is read (a line is about 400 bytes:
# this is some 600,000 tokens).
MAX_IMPORT_BYTES = 256 * 1024 * 1024


@click.group(name="inventory")
def group() -> None:
    """The token inventory's store (HYGIENE_INVENTORY: a SQLite file or a postgresql:// URL)."""


@group.command(name="migrate", short_help="Upgrade the schema (as the database's owner).")
def migrate_command() -> int:
    """Upgrade the inventory's schema to this release's (run it as the database's owner)."""
    location = default_location(os.environ)
    with open_inventory(location, upgrade=False, create=True) as inventory:
        before, _ = inventory.upgrade()
    click.echo(
        f"inventory {location}: schema version {before} -> {LATEST}"
        if before < LATEST
        else f"inventory {location}: schema version {LATEST}, nothing to do",
        err=True,
    )
    return EXIT_OK


@click.command(name="export", short_help="Print every record as JSON lines (no values).")
def export_command() -> int:
    """Print every record as JSON lines (fingerprints, ids, names; never a value)."""
    location = default_location(os.environ)
    with open_inventory(location, create=False) as inventory:
        entries = inventory.entries()
    for line in export_lines(entries):
        click.echo(line)
    click.echo(f"exported {len(entries)} record(s) from {location}", err=True)
    return EXIT_OK


@click.command(name="import", short_help="Merge `tokens export` lines into this inventory.")
@click.argument("source", metavar="FILE|-")
def import_command(source: str) -> int:
    """Merge records that `tokens export` wrote into this inventory, in one transaction.

    A record replaces one already here only when it is newer, and a token recorded here as
    revoked never comes back as active. Nothing is written unless every line is valid.
    """
    entries = list(_read_records(source))
    location = default_location(os.environ)
    with open_inventory(location) as inventory:
        added, updated = inventory.import_entries(entries)
    click.echo(
        f"imported into {location}: {added} added, {updated} updated, "
        f"{len(entries) - added - updated} unchanged",
        err=True,
    )
    return EXIT_OK


def _read_import(source: str) -> tuple[str, bytes]:
    """The file's name and bytes: standard input for ``-``, else a regular file (never a FIFO
    that would hold the import, a device, a /proc file), at most MAX_IMPORT_BYTES of either."""
    if source != "-":
        return source, read_input(source, "import file", MAX_IMPORT_BYTES)
    if sys.stdin is None:  # started with file descriptor 0 closed
        raise InputError("standard input is closed: nothing to import for -")
    data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1)
    if len(data) > MAX_IMPORT_BYTES:
        raise InputError(f"standard input: larger than {MAX_IMPORT_BYTES >> 20} MiB; split it")
    return "standard input", data


def _read_records(source: str) -> Iterator[Entry]:
    name, data = _read_import(source)
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{name} line {number}"
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise InputError(
                f"{where}: not a JSON object (tokens export writes one a line)"
            ) from None
        yield entry_from_record(record, where)


__all__ = ["export_command", "group", "import_command"]
