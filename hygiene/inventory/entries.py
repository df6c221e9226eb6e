"""What the inventory records: one :class:`Entry` per PAT (``token_id``, name, scopes, expiry,
state, organization, the SHA-256 fingerprint and the SHA-1 that detect-secrets baselines call
``hashed_secret``), never the value; and the checks every record passes, whichever store it
comes from or goes to (a row, an imported JSON line)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from hygiene.detection import PAT_PREFIX, find_secrets, mask_secrets
from hygiene.errors import InputError

NEAR_EXPIRY = timedelta(days=14)
ACTIVE, REVOKED, EXPIRED = "active", "revoked", "expired"
STATES = (ACTIVE, REVOKED)  # what is stored; EXPIRED is computed from the expiry

# What a token id may be: it goes into a URL path (percent-encoded too, but ``.`` and ``..``
# would still be resolved by a proxy), a terminal line and a report.
TOKEN_ID = re.compile(r"[A-Za-z0-9._:-]{1,200}")
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")
_SHA1 = re.compile(r"[0-9a-f]{40}")
# The fields of a record, in the stores' column order.
FIELDS = (
    "token_id",
    "name",
    "scopes",
    "expires_at",
    "state",
    "org_id",
    "fingerprint",
    "sha1",
    "created_at",
    "updated_at",
)
_MAX_TEXT = 1000  # a name, an organization id or a date longer than this is not one


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


def now_utc() -> datetime:
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
        return _as_datetime(self.expires_at) if self.expires_at else None

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

    def row(self) -> tuple[str | None, ...]:
        """The entry as the stores keep it (scopes as a JSON list)."""
        return (
            self.token_id,
            self.name,
            json.dumps(list(self.scopes)),
            self.expires_at,
            self.state,
            self.org_id,
            self.fingerprint,
            self.sha1,
            self.created_at,
            self.updated_at,
        )

    def record(self) -> dict[str, Any]:
        """The entry as one JSON object (``tokens export``): fingerprints, never a value."""
        return {**dict(zip(FIELDS, self.row(), strict=True)), "scopes": list(self.scopes)}


def _as_datetime(text: str) -> datetime:
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def entry_from_row(row: Sequence[Any], where: str = "inventory row") -> Entry:
    """A stored row as an Entry; a row that does not make sense is an InputError."""
    values = list(row)
    try:
        scopes = json.loads(values[2])
    except (TypeError, ValueError):
        scopes = None
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InputError(f"{where}: its scopes are not a list of names; fix or delete the row")
    return _checked(Entry(values[0], values[1], tuple(scopes), *values[3:]), where)


def entry_from_record(record: Mapping[str, Any], where: str) -> Entry:
    """An imported JSON object as an Entry, every field checked (InputError naming ``where``)."""
    if not isinstance(record, Mapping) or set(record) != set(FIELDS):
        raise InputError(f"{where}: expected an object with exactly {', '.join(FIELDS)}")
    scopes = record["scopes"]
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InputError(f"{where}: scopes must be a list of names")
    entry = Entry(**{**record, "scopes": tuple(scopes)})
    check_token_id(entry.token_id, where)
    if not isinstance(entry.fingerprint, str) or not _SHA256.fullmatch(entry.fingerprint):
        raise InputError(f'{where}: fingerprint must be "sha256:" and 64 hex digits')
    if not isinstance(entry.sha1, str) or not _SHA1.fullmatch(entry.sha1):
        raise InputError(f"{where}: sha1 must be 40 hex digits")
    if entry.state not in STATES:
        raise InputError(f"{where}: state must be one of {', '.join(STATES)}")
    return _checked(entry, where)


def _checked(entry: Entry, where: str) -> Entry:
    texts = (entry.token_id, entry.name, entry.state, entry.fingerprint, entry.sha1)
    if not all(isinstance(t, str) for t in texts):
        raise InputError(f"{where}: it has no token id, name, state or fingerprint")
    optional = (entry.expires_at, entry.org_id)
    dates = (entry.created_at, entry.updated_at)
    if not all(t is None or isinstance(t, str) for t in optional) or not all(
        isinstance(t, str) for t in dates
    ):
        raise InputError(f"{where}: its expiry, organization and dates must be text")
    if any(len(t or "") > _MAX_TEXT for t in (*texts, *optional, *dates)):
        raise InputError(f"{where}: a field is longer than {_MAX_TEXT} characters")
    try:
        entry.expiry()
    except (TypeError, ValueError):
        raise InputError(f"{where}: its expiry is not an ISO 8601 date") from None
    try:
        _as_datetime(entry.created_at)
        _as_datetime(entry.updated_at)
    except (TypeError, ValueError):
        raise InputError(f"{where}: its created or updated date is not ISO 8601") from None
    return entry


__all__ = [
    "ACTIVE",
    "EXPIRED",
    "FIELDS",
    "NEAR_EXPIRY",
    "REVOKED",
    "STATES",
    "TOKEN_ID",
    "Entry",
    "check_token_id",
    "entry_from_record",
    "entry_from_row",
    "now_utc",
]
