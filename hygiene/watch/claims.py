"""One leak, one revocation, across a fleet of watchers sharing an inventory.

Sidecars on every host may follow copies of one log (or logs of one service) and see the same
leak within milliseconds. Before a watcher revokes a PAT it claims the leak in the inventory
(``claims``, schema version 2): the claim is one atomic insert, so exactly one watcher holds
it. That one revokes and records the outcome; every other waits for the outcome (bounded) and
reports it, so each sidecar's log says what happened without a second DELETE. A claim left by
a watcher that died is taken over after :data:`~hygiene.inventory.store.CLAIM_STALE_AFTER`;
a claim whose revocation failed is released at once, so another watcher may try again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import socket
import time
from collections.abc import Callable
from typing import TypeVar

from hygiene.errors import InputError
from hygiene.inventory import Inventory, Location, open_inventory
from hygiene.revoke.plan import FAILED, NOT_FOUND, REVOKED, Result

# Outcomes that end a leak for every watcher; any other is released for another try.
FINAL = (REVOKED, NOT_FOUND)
# How long a watcher waits for the one holding the claim before it reports the leak failed
# (the holder's DELETE is bounded by the client's own deadline, well under this).
WAIT_FOR_HOLDER = 60.0
POLL = 0.2
# Tries of one claim, settlement or release before a watcher gives up on the inventory.
TRIES = 5

T = TypeVar("T")


def watcher_name() -> str:
    """Who claims: host, process and a random part (two watchers never share one)."""
    return f"{socket.gethostname()[:64]}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclasses.dataclass
class Claims:
    """Claims in the inventory at ``location`` on behalf of ``who``."""

    location: Location
    who: str
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def once(self, fingerprint: str, act: Callable[[], Result]) -> Result:
        """``act()`` if this watcher wins the claim on ``fingerprint``; else the outcome the
        holder records. An inventory without claims (an old shared schema), or one that stays
        unreadable through :data:`TRIES` tries, acts alone: a second DELETE is better than
        none."""
        try:
            held, outcome = self._retried(lambda inv: inv.claim(fingerprint, self.who))
        except InputError:
            return act()
        if not held:
            return self._outcome(fingerprint, outcome)
        result = act()
        with contextlib.suppress(InputError):  # unrecorded: the claim goes stale, then others
            if result.status in FINAL:
                self._retried(lambda inv: inv.settle(fingerprint, self.who, result.status))
            else:
                self._retried(lambda inv: inv.release(fingerprint, self.who))
        return result

    def _retried(self, step: Callable[[Inventory], T]) -> T:
        """``step`` on the inventory, tried again after a pause when it fails: SQLite shared by
        processes answers a write now and then with a transient error ("disk I/O error")."""
        for attempt in range(TRIES):
            try:
                with open_inventory(self.location, create=False) as inventory:
                    return step(inventory)
            except InputError:
                if attempt == TRIES - 1:
                    raise
                self.sleep(POLL)
        raise AssertionError("unreachable")  # pragma: no cover

    def _outcome(self, fingerprint: str, outcome: str | None) -> Result:
        deadline = self.clock() + WAIT_FOR_HOLDER
        while outcome is None and self.clock() < deadline:
            self.sleep(POLL)
            # A read that fails now and then is read again until the deadline.
            with (
                contextlib.suppress(InputError),
                open_inventory(self.location, create=False) as inventory,
            ):
                outcome = inventory.outcome(fingerprint)
        if outcome is None:
            return Result(None, fingerprint, FAILED, None, "CLAIMED_BY_ANOTHER_WATCHER")
        return Result(None, fingerprint, outcome, None, "by another watcher")


__all__ = ["FINAL", "Claims", "watcher_name"]
