"""The control-plane client: the API document's calls over httpx, safe to share between threads.

Headers follow the document: ``Authorization`` on every call but login (the auth flow adds it),
``X-Active-Org-Id`` on every call but login and memberships (added here once the organization
is chosen). TLS verification is on, every call has a timeout, and retries, pacing and renewal
live in the transport wrapper and the auth flow.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx

from hygiene.api import logs
from hygiene.api.auth import ORG_HEADER, SessionAuth, error_code
from hygiene.api.config import Config
from hygiene.api.endpoints import TIMEOUT, USER_AGENT
from hygiene.api.ratelimit import RateGate
from hygiene.api.transport import UNSAFE, RetryPolicy, RetryTransport
from hygiene.detection import PAT_PREFIX
from hygiene.errors import ApiError, AuthFailed, UsageError

PAT_ABSOLUTE_MAX_TTL_DAYS = 180
API = "/api/v1"


@dataclass(frozen=True)
class Memberships:
    active_org_id: str
    orgs: dict[str, str]  # org_id -> role


@dataclass(frozen=True)
class CreatedPat:
    """A new PAT: its value is here once, for the caller to show; ``repr`` hides it."""

    token_id: str
    name: str
    scopes: tuple[str, ...]
    expires_at: str
    value: str = field(repr=False)


def find_pat_value(body: Any) -> str | None:
    """The first string starting with ``pat_AIC_`` anywhere in a JSON body."""
    if isinstance(body, str):
        return body if body.startswith(PAT_PREFIX) else None
    items = body.values() if isinstance(body, dict) else body if isinstance(body, list) else ()
    for item in items:
        found = find_pat_value(item)
        if found is not None:
            return found
    return None


def check_days(days: int) -> None:
    """Refuse a lifetime the service would refuse, before anything is sent."""
    if not 1 <= days <= PAT_ABSOLUTE_MAX_TTL_DAYS:
        message = f"{{days}} must be between 1 and {PAT_ABSOLUTE_MAX_TTL_DAYS}, got {days}"
        raise UsageError(message, options=("days",))


class ControlPlaneClient:
    """One session with the service; use as a context manager so it always logs out."""

    def __init__(
        self,
        config: Config,
        *,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        wall_clock: Callable[[], float] = time.time,
        policy: RetryPolicy | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        inner = transport or httpx.HTTPTransport(
            verify=True, limits=httpx.Limits(max_connections=32, max_keepalive_connections=32)
        )
        self.gate = RateGate(clock=clock, sleep=sleep, wall_clock=wall_clock)
        self.transport = RetryTransport(
            inner, policy=policy, gate=self.gate, sleep=sleep, wall_clock=wall_clock, rng=rng
        )
        self.auth = SessionAuth(
            config.base_url,
            email=config.email,
            password=config.password,
            token=config.token,
            clock=clock,
        )
        self.http = httpx.Client(
            base_url=config.base_url,
            transport=self.transport,
            auth=self.auth,
            timeout=TIMEOUT,
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
        )
        self.org_id: str | None = None
        self._home_org: str | None = None  # active_org_id, for logout if AIC_ORG_ID was refused

    # plumbing -------------------------------------------------------------------------------
    def _send(
        self, method: str, path: str, *, org: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers: dict[str, str] = {}
        if org != "":
            headers[ORG_HEADER] = org or self.use_org()
        try:
            return self.http.request(method, API + path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise ApiError(
                f"{method} {API}{path}: {type(exc).__name__} talking to {self.config.base_url}"
            ) from None

    @staticmethod
    def _fail(response: httpx.Response, what: str) -> ApiError | AuthFailed:
        code = error_code(response)
        status = response.status_code
        detail = f"HTTP {status}" + (f" {code}" if code else "")
        if status == 401:
            return AuthFailed(f"{what}: the service refused the credentials ({detail})")
        return ApiError(f"{what}: {detail}", status=status, code=code)

    # calls ----------------------------------------------------------------------------------
    def memberships(self) -> Memberships:
        response = self._send("GET", "/org/memberships", org="")
        body = response.json() if response.status_code == 200 else None
        if not isinstance(body, dict) or not isinstance(body.get("memberships"), list):
            raise self._fail(response, "memberships")
        orgs = {
            str(m.get("org_id")): str(m.get("role"))
            for m in body["memberships"]
            if isinstance(m, dict)
        }
        return Memberships(str(body.get("active_org_id")), orgs)

    def use_org(self) -> str:
        """The organization every call acts in: ``AIC_ORG_ID`` or ``active_org_id``."""
        if self.org_id is None:
            found = self.memberships()
            self._home_org = found.active_org_id
            wanted = self.config.org_id or found.active_org_id
            if wanted not in found.orgs:
                raise UsageError(
                    f"AIC_ORG_ID {wanted!r} is not one of your organizations: "
                    f"{', '.join(sorted(found.orgs)) or 'none'}"
                )
            self.org_id = self.auth.org_id = wanted
        return self.org_id

    def create_pat(self, name: str, scopes: list[str], days: int) -> CreatedPat:
        """Create a PAT (never retried once it may have reached the server)."""
        check_days(days)
        body = {"name": name, "scopes": scopes, "expires_in_days": days}
        response = self._send("POST", "/auth/api-tokens", json=body, extensions={UNSAFE: True})
        if response.status_code not in (200, 201):
            raise self._fail(response, "create token")
        data = response.json()
        value = find_pat_value(data)
        token_id = data.get("token_id") or data.get("id") if isinstance(data, dict) else None
        if value is None or not isinstance(token_id, str):
            raise ApiError("create token: the answer holds no pat_AIC_ value or token id")
        expires = data.get("expires_at")
        if not isinstance(expires, str):
            expires = (datetime.now(timezone.utc) + timedelta(days=days)).isoformat()
        logs.info("created token %s", token_id)
        return CreatedPat(token_id, name, tuple(scopes), expires, value)

    def revoke_pat(self, token_id: str) -> int:
        """DELETE the PAT; 204 (revoked) or 404 (unknown or already revoked), else ApiError."""
        response = self._send("DELETE", f"/auth/api-tokens/{token_id}")
        if response.status_code not in (204, 404):
            raise self._fail(response, f"revoke {token_id}")
        return response.status_code

    def safes(self) -> list[Any]:
        response = self._send("GET", "/safes")
        body = response.json() if response.status_code == 200 else None
        if not isinstance(body, list):
            raise self._fail(response, "safes")
        return body

    def logout(self) -> None:
        """End the session this client opened (nothing to do with ``AIC_TOKEN``)."""
        if not self.auth.has_session:
            return
        org = self.org_id or self._home_org or self.use_org()
        response = self._send("POST", "/auth/logout", org=org)
        self.auth.forget()
        if response.status_code != 204:
            raise self._fail(response, "logout")
        logs.info("logged out")

    def close(self, *, quiet: bool = False) -> None:
        """Log out (if logged in) and close the connections.

        ``quiet``: a failed logout is only logged (another error is already on its way).
        """
        try:
            self.logout()
        except ApiError as exc:
            if not quiet:
                raise
            logs.info("logout failed: %s", exc)
        finally:
            self.http.close()

    def __enter__(self) -> ControlPlaneClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        self.close(quiet=exc_type is not None)


__all__ = [
    "PAT_ABSOLUTE_MAX_TTL_DAYS",
    "ControlPlaneClient",
    "CreatedPat",
    "Memberships",
    "check_days",
    "find_pat_value",
]
