"""``hygiene tokens create | register | list``: PATs and the local inventory."""

from __future__ import annotations

import getpass
import json
import os
import sys
from datetime import datetime, timezone
from typing import TextIO

import click

from hygiene.api.client import check_days
from hygiene.api.config import load_config, tty_prompt
from hygiene.commands.inventory import export_command, import_command
from hygiene.commands.lines import error_text
from hygiene.commands.options import text_or_json
from hygiene.commands.signals import trapped
from hygiene.commands.terminal import can_prompt
from hygiene.detection import AIC_PAT, PAT_PREFIX, find_secrets
from hygiene.errors import EXIT_ERROR, EXIT_OK, InputError, one_line
from hygiene.inventory import Entry, default_location, open_inventory
from hygiene.minting import create_token
from hygiene.testing.state import SCOPES

PROG_CREATE = "hygiene tokens create"


@click.group(name="tokens")
def group() -> None:
    """Create PATs, register existing ones, and list, export and import the token inventory.

    The service and who you are come from the environment only: AIC_BASE_URL, AIC_EMAIL and
    AIC_PASSWORD (asked without echo on a terminal when unset) or AIC_TOKEN, and AIC_ORG_ID
    (default: your active organization). The inventory is where HYGIENE_INVENTORY points: a
    SQLite file (default: aic-token-hygiene/inventory.sqlite3 in the user's data folder,
    ~/.local/share on Linux) or a team's postgresql:// URL (password from PGPASSWORD or
    ~/.pgpass); it holds fingerprints, never a token.
    """


@group.command(short_help="Create a PAT; print its value once; record it.")
@click.option("--name", required=True, help="Label of the new token.")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    metavar="SCOPE",
    help="A scope of the token (repeatable). The stand-in (hygiene fake-server) knows "
    f"{', '.join(SCOPES)}; the service names its own when given one it does not know.",
)
@click.option("--days", type=int, required=True, help="Lifetime in days (at most 180).")
def create(name: str, scopes: tuple[str, ...], days: int) -> int:
    """Create a PAT, print its value ONCE on stdout and record it (never the value).

    The value is printed as soon as the service returns it, whatever happens after; a failed
    record or logout is reported after it (exit 2). Ctrl-C before the token is requested
    creates nothing; after, the value is still printed and the session logged out (exit 130).
    """
    check_days(days)
    config = load_config(os.environ, prompt=tty_prompt(can_prompt()))
    location = default_location(os.environ)
    # A shared inventory that fails at the moment of recording: the local file takes the
    # record (and the run says so) rather than a value being shown that no inventory knows.
    local = default_location({k: v for k, v in os.environ.items() if k != "HYGIENE_INVENTORY"})
    fallback = local if location.is_postgres else None

    def show_value(value: str) -> None:
        click.echo(value)
        sys.stdout.flush()

    request = (name, scopes, days)
    with trapped(PROG_CREATE) as stop:
        minted = create_token(
            config, location, request, show_value=show_value, fallback=fallback, stop=stop
        )
    # The id and expiry were checked (minting.check_created); the organization is the
    # service's word and the name the user's: the line is masked and escaped as a whole.
    shown = "the value above is shown only this once" if minted.shown else "no value shown"
    done = f"created {minted.token_id} ({name}) in {minted.org_id}, expires {minted.expires_at}"
    click.echo(f"{one_line(done)}; {shown}", err=True)
    status = EXIT_OK
    for error in (minted.record_error, minted.logout_error):
        if error is not None:
            click.echo(error_text(error), err=True)
            status = EXIT_ERROR
    return 128 + minted.signum if minted.signum is not None else status


def _read_value(stdin: TextIO) -> str:
    if stdin.isatty():
        value = getpass.getpass("Token value (not echoed): ")
    else:
        value = next((line.strip() for line in stdin if line.strip()), "")
    secrets = find_secrets(value)
    whole = len(secrets) == 1 and secrets[0].type_id == AIC_PAT and secrets[0].token == value
    if not value.startswith(PAT_PREFIX) or not whole:
        raise InputError("standard input does not hold a pat_AIC_ token value")
    return value


@group.command(short_help="Record an existing PAT (its value from stdin).")
@click.option("--token-id", required=True, help="The token's id on the service.")
@click.option("--name", help="Label (default: the token id).")
@click.option("--scope", "scopes", multiple=True, metavar="SCOPE", help="Scope (repeatable).")
@click.option("--expires", "expires", metavar="DATE", help="Expiry, ISO 8601 (e.g. 2026-12-31).")
@click.option(
    "--org-id",
    metavar="ORG",
    help="The organization the token belongs to (revoke-leaked revokes it there; without it, "
    "a NOT_FOUND answer cannot prove the token is gone).",
)
def register(
    token_id: str,
    name: str | None,
    scopes: tuple[str, ...],
    expires: str | None,
    org_id: str | None,
) -> int:
    """Record an existing PAT; its value is read from standard input, never the command line."""
    expires_at = None
    if expires:
        try:
            when = datetime.fromisoformat(expires)
        except ValueError:
            raise InputError(f"--expires: not an ISO 8601 date: {expires!r}") from None
        expires_at = (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()
    value = _read_value(sys.stdin)
    with open_inventory(default_location(os.environ)) as inventory:
        entry = inventory.add(
            token_id,
            value,
            name=name or token_id,
            scopes=scopes,
            expires_at=expires_at,
            org_id=org_id,
        )
    click.echo(f"registered {one_line(entry.token_id)} ({entry.fingerprint[:19]})", err=True)
    return EXIT_OK


def _as_json(entry: Entry, now: datetime) -> dict[str, object]:
    return {
        "token_id": entry.token_id,
        "name": entry.name,
        "scopes": list(entry.scopes),
        "expires_at": entry.expires_at,
        "state": entry.current_state(now),
        "near_expiry": entry.near_expiry(now),
        "org_id": entry.org_id,
        "fingerprint": entry.fingerprint,
        "sha1": entry.sha1,
    }


# The text listing's columns; the last one is free text.
_HEADER = ("TOKEN ID", "STATE", "EXPIRES", "FINGERPRINT", "NAME [SCOPES]")


def _as_row(entry: Entry, now: datetime) -> tuple[str, ...]:
    # Every cell may come from an imported file or the service: masked and escaped, so a name
    # cannot forge a row, move the cursor or hide in another column.
    expiry = entry.expires_at[:10] if entry.expires_at else "-"
    flag = "  (expires soon)" if entry.near_expiry(now) else ""
    return (
        one_line(entry.token_id),
        entry.current_state(now),
        one_line(expiry),
        entry.fingerprint[:19],
        f"{one_line(entry.name)} [{one_line(','.join(entry.scopes))}]{flag}",
    )


def _table(rows: list[tuple[str, ...]]) -> str:
    """Rows under :data:`_HEADER`, each column as wide as its widest cell."""
    rows = [_HEADER, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    )


@group.command(name="list", short_help="List the inventory: expiry, state, near-expiry.")
@text_or_json("text: a table; json: every field, and where the inventory lives.")
def list_(fmt: str) -> int:
    """List the inventory (where it lives on stderr): expiry, state, near-expiry flag."""
    location = default_location(os.environ)
    with open_inventory(location, create=False) as inventory:
        entries = inventory.entries()
    now = datetime.now(timezone.utc)
    if fmt == "json":
        doc = {"inventory": location.display, "tokens": [_as_json(e, now) for e in entries]}
        click.echo(json.dumps(doc, indent=2))
        return EXIT_OK
    click.echo(f"inventory: {one_line(str(location))}", err=True)
    if entries:
        click.echo(_table([_as_row(e, now) for e in entries]))
    else:
        click.echo(f"no tokens in {one_line(str(location))}", err=True)
    return EXIT_OK


group.add_command(export_command)
group.add_command(import_command)
