"""The control-plane client: the API document's calls over httpx, safe to share between threads.

Headers follow the document: ``Authorization`` on every call but login (the auth flow adds it),
``X-Active-Org-Id`` on every call but login and memberships (added here once the organization
is chosen). TLS verification is on; every call has connect, read, write and pool timeouts and a
wall-clock deadline, the client an optional overall one (``Config.deadline``); retries, pacing,
size caps and renewal live in the transport wrapper and the auth flow. Every error is one line
naming the step (login, memberships, create token, revoke ID, logout...).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import httpx

from hygiene.api import logs
from hygiene.api.answers import TRUNCATED, CompressedAnswer
from hygiene.api.auth import ORG_HEADER, SessionAuth, error_code, error_message
from hygiene.api.config import Config, mask_url
from hygiene.api.deadline import BoundedTransport
from hygiene.api.endpoints import USER_AGENT
from hygiene.api.ids import is_org_id, shown
from hygiene.api.ratelimit import RateGate
from hygiene.api.transport import (
    DEFAULT_TIMEOUT,
    GRACE,
    UNSAFE,
    DeadlineExceeded,
    RetryPolicy,
    RetryTransport,
)
from hygiene.detection import PAT_PREFIX
from hygiene.errors import ApiError, AuthFailed, InputError, UsageError
from hygiene.inventory import check_token_id

PAT_ABSOLUTE_MAX_TTL_DAYS = 180
API = "/api/v1"
NOT_FOUND = "NOT_FOUND"


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:  # HTML, garbage, a body cut at the size limit
        return None


@dataclass(frozen=True)
class Memberships:
    active_org_id: str
    orgs: dict[str, str]  # org_id -> role


def _orgs(members: list[Any]) -> dict[str, str]:
    """``org_id -> role`` of a memberships answer; an entry whose org_id is no id is dropped
    (it would go into a header), and a role is kept as a short printable word."""
    orgs: dict[str, str] = {}
    for member in members:
        org = member.get("org_id") if isinstance(member, dict) else None
        if not isinstance(org, str) or not is_org_id(org):
            logs.info("memberships: an entry without a usable org_id was left out")
            continue
        role = member.get("role")
        orgs[org] = role[:64] if isinstance(role, str) and role.isprintable() else ""
    return orgs


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
        self.auth = SessionAuth(
            config.base_url,
            email=config.email,
            password=config.password,
            token=config.token,
            clock=clock,
        )
        policy = policy or RetryPolicy()
        self.gate = RateGate(
            clock=clock, sleep=sleep, wall_clock=wall_clock, max_wait=policy.max_retry_after
        )
        self.transport = RetryTransport(
            transport or BoundedTransport(),
            policy=policy,
            gate=self.gate,
            sleep=sleep,
            clock=clock,
            wall_clock=wall_clock,
            rng=rng,
            deadline=config.deadline,
            stale=self.auth.stale,
        )
        self.http = httpx.Client(
            base_url=config.base_url,
            transport=self.transport,
            auth=self.auth,
            timeout=DEFAULT_TIMEOUT,
            follow_redirects=False,
            # Bodies are capped as received; compressed ones could unfold far past the cap.
            headers={
                "User-Agent": USER_AGENT,
                "Accept-Encoding": "identity",
            },
        )
        self.org_id: str | None = None
        self._home_org: str | None = None  # active_org_id, for logout if AIC_ORG_ID was refused
        self._memberships: Memberships | None = None

    # plumbing -------------------------------------------------------------------------------
    def _send(
        self, method: str, path: str, step: str, *, org: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        """One call; a network failure is an ApiError naming the step that was under way."""
        headers: dict[str, str] = {}
        if org != "":
            headers[ORG_HEADER] = org or self.use_org()
        self.auth.clear_step()
        try:
            return self.http.request(method, API + path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise ApiError(self._network_error(step, exc)) from None

    def _network_error(self, step: str, exc: httpx.HTTPError) -> str:
        where = mask_url(self.config.base_url)
        if isinstance(exc, (DeadlineExceeded, CompressedAnswer)):
            return f"{self.auth.step or step}: {exc} ({where})"
        if isinstance(exc, httpx.TimeoutException):
            what = f"no answer in time ({type(exc).__name__})"
        else:
            what = type(exc).__name__
        return f"{self.auth.step or step}: {what} talking to {where}"

    def _fail(self, response: httpx.Response, what: str) -> ApiError | AuthFailed:
        code, message = error_code(response), error_message(response)
        code = self.auth.hide(code) if code else None  # shown in results as the service's word
        status = response.status_code
        detail = f"HTTP {status}" + (f" {code}" if code else "")
        if code is None and response.content:
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            detail += f" (not the service's JSON: {kind or 'no content type'})"
        if response.extensions.get(TRUNCATED):
            detail += " (answer body over the size limit, cut)"
        if message:
            detail += f": {message}"
        detail = self.auth.hide(detail)
        if status == 401:
            return AuthFailed(f"{what}: the service refused the credentials ({detail})")
        return ApiError(f"{what}: {detail}", status=status, code=code)

    # calls ----------------------------------------------------------------------------------
    def memberships(self) -> Memberships:
        response = self._send("GET", "/org/memberships", "memberships", org="")
        body = _json(response) if response.status_code == 200 else None
        if not isinstance(body, dict) or not isinstance(body.get("memberships"), list):
            raise self._fail(response, "memberships")
        orgs = _orgs(body["memberships"])
        active = body.get("active_org_id")
        if not isinstance(active, str) or not active:
            raise ApiError("memberships: the answer holds no active_org_id", status=200)
        if not is_org_id(active):
            raise ApiError(
                f"memberships: the answer's active_org_id {shown(active)} is not an "
                "organization id; refused",
                status=200,
            )
        return Memberships(active, orgs)

    def organizations(self) -> list[str]:
        """The caller's organizations: the one calls act in first, then the others, sorted."""
        home = self.use_org()
        found = self._memberships
        others = sorted(set(found.orgs) - {home}) if found is not None else []
        return [home, *others]

    def use_org(self) -> str:
        """The organization every call acts in: ``AIC_ORG_ID`` or ``active_org_id``."""
        if self.org_id is None:
            found = self._memberships or self.memberships()
            self._memberships = found
            self._home_org = found.active_org_id
            wanted = self.config.org_id or found.active_org_id
            self._check_member(wanted, "AIC_ORG_ID")
            self.org_id = self.auth.org_id = wanted
        return self.org_id

    def _check_member(self, org: str, what: str) -> None:
        found = self._memberships
        if found is not None and org not in found.orgs:
            raise UsageError(
                f"{what} {org!r} is not one of your organizations: "
                f"{', '.join(sorted(found.orgs)) or 'none'}"
            )

    def create_pat(self, name: str, scopes: list[str], days: int) -> CreatedPat:
        """Create a PAT (never retried once it may have reached the server)."""
        check_days(days)
        body = {"name": name, "scopes": scopes, "expires_in_days": days}
        response = self._send(
            "POST", "/auth/api-tokens", "create token", json=body, extensions={UNSAFE: True}
        )
        if response.status_code not in (200, 201):
            raise self._fail(response, "create token")
        data = _json(response)
        value = find_pat_value(data)
        token_id = data.get("token_id") or data.get("id") if isinstance(data, dict) else None
        if value is None or not isinstance(token_id, str):
            raise ApiError("create token: the answer holds no pat_AIC_ value or token id")
        expires = data.get("expires_at")
        if not isinstance(expires, str):
            expires = (datetime.now(timezone.utc) + timedelta(days=days)).isoformat()
        logs.info("created token %s", token_id)
        return CreatedPat(token_id, name, tuple(scopes), expires, value)

    def revoke_pat(self, token_id: str, *, org: str | None = None) -> int:
        """DELETE the PAT (in ``org``, default the client's); 204 revoked, 404 not found.

        404 counts only when it is the service's JSON ``NOT_FOUND`` answer; any other 404 (a
        proxy's HTML page, another error code) and any other status is an ApiError with it.
        """
        try:
            check_token_id(token_id, "revoke")
        except InputError as exc:
            # Never sent: '..' would be resolved to another path by the URL machinery or a proxy.
            raise ApiError(str(exc), code="INVALID_TOKEN_ID") from None
        what = f"revoke {token_id}"
        if org is not None:
            self.use_org()
            self._check_member(org, "organization")
        path = "/auth/api-tokens/" + quote(token_id, safe="")
        response = self._send("DELETE", path, what, org=org)
        status = response.status_code
        if status == 204 or (status == 404 and error_code(response) == NOT_FOUND):
            return status
        raise self._fail(response, what)

    def safes(self) -> list[Any]:
        response = self._send("GET", "/safes", "safes")
        body = _json(response) if response.status_code == 200 else None
        if not isinstance(body, list):
            raise self._fail(response, "safes")
        return body

    def logout(self) -> None:
        """End the session this client opened (nothing to do with ``AIC_TOKEN``).

        Without a known organization (memberships failed) the logout is still sent, with
        ``AIC_ORG_ID`` if set, else without the header: a session left alive is worse.
        """
        if not self.auth.has_session:
            return
        if self.auth.expired:
            self.auth.forget()  # ended by itself: nothing to send
            return
        org = self.org_id or self._home_org or self.config.org_id or ""
        try:
            # GRACE: sent even when the command's deadline has passed (bounded on its own).
            response = self._send(
                "POST", "/auth/logout", "logout", org=org, extensions={GRACE: True}
            )
        finally:
            self.auth.forget()
        if response.status_code == 401:
            # It ended by itself on the way (expired in flight): nothing is left alive.
            logs.info("logout: the session had already ended")
            return
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
