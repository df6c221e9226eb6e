"""``hygiene tokens create`` as a plain function: the secret-bearing outcome first.

Order, and why:

1. The inventory is opened before anything is sent: if it is unusable, no token is created.
2. Log in and pick the organization. A stop request (Ctrl-C) up to here creates nothing.
3. Create the PAT. From the moment the request leaves, the run is shielded: the answer holds
   a live token's value, shown only this once. The answer is checked before anything of it is
   shown or stored (:func:`check_created`): the value must be a PAT (the core's pattern,
   bounded, nothing else in it), the id a plausible token id (it goes into a URL path and a
   terminal line later), the expiry a date. A server that answers anything else gets an
   ApiError (exit 2): nothing is printed as a token and nothing is recorded; when the value was
   a PAT, the message names its fingerprint, so the token can be found and revoked.
4. Record it (token id, organization, fingerprints; never the value), before the value is
   shown: a value shown but not recorded could never be traced back to its id when it leaks.
   Where the inventory fails at that moment (a shared database gone away), the record goes to
   the ``fallback`` inventory (the local file) and the run says so; where no inventory takes
   it, the value is never shown and the token is revoked at once: nobody has seen it, so
   nothing is lost. Otherwise ``show_value`` is called right after the record, once.
5. Log out, bounded in time. A failed logout (or a record in the fallback) is reported after
   the value, never instead of it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from hygiene.api.client import ControlPlaneClient, CreatedPat
from hygiene.api.config import Config
from hygiene.detection import AIC_PAT, PAT_PREFIX, find_secrets, fingerprint
from hygiene.errors import ApiError, HygieneError, one_line
from hygiene.inventory import Inventory, Location, open_inventory
from hygiene.revoke.flow import MakeClient, close_bounded
from hygiene.stopping import StopRequest

# The SPEC's PAT (prefix, then the secret part) with a bound no real token comes near.
_PAT_VALUE = re.compile(re.escape(PAT_PREFIX) + r"[A-Za-z0-9_-]{8,1024}")
# A token id as the service may name one: it is put in a URL path (DELETE .../{token_id}),
# a terminal line and the inventory, so no "/", "?", "#", "%", "..", space or control.
_TOKEN_ID = re.compile(r"(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9._:-]{0,199}")
_MAX_EXPIRY = 64  # characters of an ISO 8601 date and time, with room to spare


def _is_pat(value: object) -> bool:
    if not isinstance(value, str) or not _PAT_VALUE.fullmatch(value):
        return False
    found = find_secrets(value)  # the core's judgement too: not a placeholder, not an example
    return len(found) == 1 and found[0].type_id == AIC_PAT and found[0].token == value


def _is_token_id(value: object) -> bool:
    if not isinstance(value, str) or not _TOKEN_ID.fullmatch(value):
        return False
    return not value.startswith(PAT_PREFIX) and not find_secrets(value)  # never show a secret


def _expiry(value: object) -> str | None:
    """``value`` as an ISO 8601 date and time (UTC when it names no zone), or None."""
    if not isinstance(value, str) or len(value) > _MAX_EXPIRY or not value.isascii():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):  # fromisoformat reads a "Z" only from Python 3.11 on
        text = text[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()


def check_created(created: CreatedPat) -> CreatedPat:
    """``created`` if the service's answer is a usable PAT (see the module's docstring), with
    its expiry normalised; else an ApiError that shows nothing of the answer but a
    fingerprint."""
    problems = []
    if not _is_pat(created.value):
        problems.append("the value is not a pat_AIC_ token")
    if not _is_token_id(created.token_id):
        problems.append("the token id is not a token id")
    expires_at = _expiry(created.expires_at)
    if expires_at is None:
        problems.append("the expiry is not a date")
    if expires_at is not None and not problems:
        return replace(created, expires_at=expires_at)
    message = f"create token: the service's answer cannot be used ({'; '.join(problems)})"
    if _is_pat(created.value):
        message += (
            f"; a token was created and not recorded: revoke it on the service "
            f"(fingerprint {fingerprint(created.value)})"
        )
    raise ApiError(message, code="UNUSABLE_ANSWER")


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
    shown: bool = True  # False: no inventory took the record, so the value was withheld


def create_token(
    config: Config,
    inventory_path: Location,
    request: tuple[str, Sequence[str], int],
    *,
    show_value: Callable[[str], None],
    fallback: Location | None = None,
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
                created = check_created(client.create_pat(name, list(scopes), days))
                record = _Record(created, name, org)
                record_error = record.into(inventory, fallback)
                if record.kept:
                    show_value(created.value)
                else:
                    why = record_error or "inventory: no record"
                    record_error = why + _revoked_unseen(client, created.token_id, org)
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
        shown=record.kept,
    )


class _Record:
    """Recording a new token: in the inventory, else in the fallback; ``kept`` when either
    took it."""

    def __init__(self, created: CreatedPat, name: str, org: str | None) -> None:
        self.created, self.name, self.org = created, name, org
        self.kept = False

    def _add(self, inventory: Inventory) -> None:
        c = self.created
        inventory.add(
            c.token_id, c.value, name=self.name, scopes=c.scopes, expires_at=c.expires_at,
            org_id=self.org,
        )  # fmt: skip
        self.kept = True

    def into(self, inventory: Inventory, fallback: Location | None) -> str | None:
        """Record it; the error to report (after the value) when the fallback took it."""
        try:
            self._add(inventory)
            return None
        except (HygieneError, sqlite3.Error) as exc:
            reason = f"{self.created.token_id} could not be recorded ({one_line(str(exc))})"
        if fallback is None:
            return f"inventory: {reason}"
        try:
            with open_inventory(fallback) as local:
                self._add(local)
        except (HygieneError, sqlite3.Error) as exc:
            return f"inventory: {reason}, nor in {fallback} ({one_line(str(exc))})"
        return (
            f"inventory: {reason}; recorded in {fallback} instead: move it into the shared "
            "inventory with `hygiene tokens export` and `hygiene tokens import`"
        )


def _revoked_unseen(client: ControlPlaneClient, token_id: str, org: str | None) -> str:
    """Revoke a token whose value no inventory took and nobody has seen."""
    try:
        client.revoke_pat(token_id, org=org)
    except HygieneError as exc:
        return f"; revoking it failed too ({one_line(str(exc))}): its value was never shown"
    return "; its value was never shown, and it is revoked"


__all__ = ["Minted", "check_created", "create_token"]
