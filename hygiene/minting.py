"""``hygiene tokens create`` as a plain function: the secret-bearing outcome first.

Order, and why:

1. The inventory is opened before anything is sent: if it is unusable, no token is created.
2. Log in and pick the organization. A stop request (Ctrl-C) up to here creates nothing.
3. Create the PAT. From the moment the request leaves, the run is shielded: the answer holds
   a live token's value, shown only this once.
4. Record it (token id, organization, fingerprints; never the value): a local transaction of a
   few milliseconds, done first because a value shown but not recorded could never be traced
   back to its id when it leaks, while a value recorded but never shown is still revocable.
   Whatever happens to that write, ``show_value`` is called right after it, once.
5. Log out, bounded in time. A failed logout (or record) is reported after the value, never
   instead of it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.errors import HygieneError, one_line
from hygiene.inventory import open_inventory
from hygiene.revoke.flow import MakeClient, close_bounded
from hygiene.stopping import StopRequest


@dataclass(frozen=True)
class Minted:
    """What ``create_token`` did; the value was handed to ``show_value``, and is not here."""

    token_id: str
    name: str
    org_id: str | None
    expires_at: str
    record_error: str | None = None  # the token exists but the inventory does not know it
    logout_error: str | None = None
    signum: int | None = None  # a stop request arrived while the token was being created


def create_token(
    config: Config,
    inventory_path: Path,
    request: tuple[str, Sequence[str], int],
    *,
    show_value: Callable[[str], None],
    stop: StopRequest | None = None,
    make_client: MakeClient = ControlPlaneClient,
) -> Minted:
    """Create a PAT (``request`` = name, scopes, days); see the module's docstring."""
    stop = stop if stop is not None else StopRequest()
    name, scopes, days = request
    with open_inventory(inventory_path) as inventory:
        client = make_client(config, sleep=stop.sleep)
        try:
            with stop.shield():  # a request in flight (login, memberships) finishes
                org = client.use_org()
            stop.check()
            with stop.shield():
                created = client.create_pat(name, list(scopes), days)
                record_error = None
                try:
                    inventory.add(
                        created.token_id,
                        created.value,
                        name=name,
                        scopes=created.scopes,
                        expires_at=created.expires_at,
                        org_id=org,
                    )
                except (HygieneError, sqlite3.Error) as exc:
                    record_error = (
                        f"inventory: {created.token_id} was created but could not be recorded "
                        f"({one_line(str(exc))}); record it with `hygiene tokens register`"
                    )
                finally:
                    show_value(created.value)
        except BaseException:
            close_bounded(client, quiet=True)
            raise
        with stop.shield():
            logout_error = close_bounded(client)
    return Minted(
        created.token_id,
        name,
        org,
        created.expires_at,
        record_error,
        logout_error,
        stop.signum,
    )


__all__ = ["Minted", "create_token"]
