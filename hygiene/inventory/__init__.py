"""The token inventory: which PAT (``token_id``) a fingerprint belongs to; never a value.

Two stores behind one interface (:class:`Inventory` over a :class:`backend.Backend`), chosen
by where ``HYGIENE_INVENTORY`` points: a local SQLite file (the default, in the per-user data
folder) or a ``postgresql://`` URL for a team's shared inventory. Both keep the same records
under the same versioned schema (:mod:`.schema`) with the same guarantees: every change one
transaction, a record made before a new token's value is shown, a revocation recorded as it
is confirmed. A store that is not an inventory, is unreachable or is newer than this client is
a one-line :class:`~hygiene.errors.InputError` (exit 2).
"""

from __future__ import annotations

from hygiene.inventory.entries import (
    ACTIVE,
    EXPIRED,
    REVOKED,
    TOKEN_ID,
    Entry,
    check_token_id,
    entry_from_record,
)
from hygiene.inventory.location import Location, default_location, parse_location
from hygiene.inventory.schema import LATEST, migrate
from hygiene.inventory.store import Inventory, Reader, export_lines, open_inventory

__all__ = [
    "ACTIVE",
    "EXPIRED",
    "LATEST",
    "REVOKED",
    "TOKEN_ID",
    "Entry",
    "Inventory",
    "Location",
    "Reader",
    "check_token_id",
    "default_location",
    "entry_from_record",
    "export_lines",
    "migrate",
    "open_inventory",
    "parse_location",
]
