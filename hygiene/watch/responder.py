"""Acting on a leak without asking (``hygiene watch --revoke``), with the same pieces as
``revoke-leaked``: a PAT is resolved through the inventory and deleted with the user's
session (``ControlPlaneClient``: renewal, organization, rate limits, retries); a session token
is checked and logged out with itself (the bearer client: never redirected elsewhere), unless
it cannot be the service's session (:mod:`hygiene.issuers`): that one is reported ``foreign``,
its issuer and where to revoke it in the event's ``error``, and never sent.

One client of each kind serves the whole watch, shared by the action threads; :meth:`close`
logs the watcher's own session out. The inventory is asked through an in-memory index
(:mod:`hygiene.watch.index`): :meth:`triage` settles a PAT the inventory does not know at once,
on the reading thread, so unknown PATs never queue for an action.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable

import httpx

from hygiene.api.bearer import bearer_client
from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.detection import AIC_PAT, Secret
from hygiene.errors import AuthFailed, InputError, one_line
from hygiene.inventory import REVOKED as STATE_REVOKED
from hygiene.inventory import Location, open_inventory
from hygiene.issuers import issuer_of
from hygiene.revoke.plan import FAILED, NOT_FOUND, REVOKED, UNRESOLVED, Result, Target
from hygiene.revoke.run import revoke_one
from hygiene.revoke.sessions import (
    SessionTarget,
    learn_shape,
    log_out_one,
    service_shape,
    unproven,
)
from hygiene.watch.claims import Claims, watcher_name
from hygiene.watch.index import InventoryIndex

MakeClient = Callable[[Config], ControlPlaneClient]


class Responder:
    """Revokes leaked PATs and logs leaked sessions out at the configured service."""

    def __init__(
        self, config: Config, inventory: Location, make_client: MakeClient = ControlPlaneClient
    ) -> None:
        self._inventory = inventory
        self._config = config
        self._base_url = config.base_url
        self._shape = service_shape(config.token)  # AIC_TOKEN: a session of the service
        self._index = InventoryIndex(inventory)
        self._claims = Claims(inventory, watcher_name())
        self._client = make_client(config)
        self._stack = contextlib.ExitStack()
        self._bearer: httpx.Client = self._stack.enter_context(bearer_client(config.base_url))
        self._stack.callback(self._index.close)  # a PostgreSQL inventory's connection

    def check(self) -> None:
        """Log in and pick the organization now: AuthFailed for refused credentials, ApiError
        when the service cannot be reached (the watch may go on and try again later)."""
        self._client.use_org()
        if self._shape is None and self._config.email and self._config.password:
            # A login of our own shows what the service's sessions look like (then logged out).
            self._shape = learn_shape(self._base_url, self._config.email, self._config.password)

    def triage(self, fingerprint: str, type_id: str) -> Result | None:
        """Without the network: ``unresolved`` for a PAT the inventory does not hold (as of the
        last :meth:`generation`); None when the leak needs an action (a PAT the inventory
        holds, a session token)."""
        if type_id != AIC_PAT:
            return None
        try:
            entry = self._index.entry(fingerprint)
        except InputError:
            return None  # the action says what is wrong with the inventory
        return Result(None, fingerprint, UNRESOLVED) if entry is None else None

    def generation(self) -> int:
        """Read the inventory again if its file changed; a number that changes with it
        (unresolved PATs may resolve now)."""
        try:
            return self._index.refresh()
        except InputError:
            return -1

    def act(self, secret: Secret, where: str) -> Result:
        """Revoke the PAT, or log the session out; never raises for one leak's failure."""
        if secret.type_id == AIC_PAT:
            return self.revoke(secret.fingerprint)
        target = SessionTarget(secret.fingerprint, where, secret.masked, secret.token)
        issuer = issuer_of(secret.token, self._base_url, self._shape)
        if issuer is None:
            result = log_out_one(self._bearer, target)
            return result if self._shape is not None else unproven(result)
        foreign = target.foreign(issuer)
        # An event has no issuer field of its own: the next step is what a reader needs.
        return dataclasses.replace(
            foreign, error=f"issuer: {issuer.name}; not sent; {issuer.next_step}"
        )

    def revoke(self, fingerprint: str) -> Result:
        """Revoke the PAT with this fingerprint through the inventory (its value is not needed:
        a leak an earlier run only reported is revoked from the state file)."""
        try:
            entry = self._index.entry(fingerprint, fresh=True)
        except InputError as exc:
            return Result(None, fingerprint, FAILED, None, one_line(str(exc)))
        if entry is None:
            return Result(None, fingerprint, UNRESOLVED)
        # In the token's own organization: only there does NOT_FOUND mean it is gone.
        target = Target(entry.token_id, entry.fingerprint, entry.org_id)
        # Once across every watcher sharing the inventory: the one that claims it revokes.
        result = self._claims.once(fingerprint, lambda: self._revoke(target))
        return dataclasses.replace(result, token_id=entry.token_id)

    def _revoke(self, target: Target) -> Result:
        try:
            result = revoke_one(self._client, target)
        except AuthFailed as exc:
            return Result(target.token_id, target.fingerprint, FAILED, 401, str(exc))
        if result.status in (REVOKED, NOT_FOUND):
            with open_inventory(self._inventory, create=False) as inventory:
                inventory.mark([target.token_id], STATE_REVOKED)
        return result

    def close(self) -> None:
        """Log out the watcher's own session (a failure is only noted) and close clients."""
        self._client.close(quiet=True)
        self._stack.close()


__all__ = ["Responder"]
