"""The session as an ``httpx.Auth`` flow: log in, renew before expiry, re-authenticate on 401.

* The first request logs in (``POST /api/v1/auth/login``) and reads ``expires_in``.
* ``RENEW_BEFORE`` (60 s, or half the lifetime when that is shorter) before expiry the session
  is renewed: through ``/auth/refresh`` while the service has it, else by logging in again;
  once refresh answers 404 it is never tried again.
* A 401 on a request renews once (by login) and sends the request again; a 401 for a token
  another thread has replaced meanwhile just resends with the current one.
* With a fixed token (``AIC_TOKEN``) there is nothing to renew: a 401 is passed on.

Threads share one instance; renewal happens under a lock, once for all of them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from typing import Any

import httpx

from hygiene.api import logs
from hygiene.errors import ApiError, AuthFailed

RENEW_BEFORE = 60.0
LOGIN_PATH = "/api/v1/auth/login"
REFRESH_PATH = "/api/v1/auth/refresh"
ORG_HEADER = "X-Active-Org-Id"
# Resends of one request after a 401 for a token another thread had already replaced.
MAX_STALE_RESENDS = 3

Clock = Callable[[], float]
Flow = Generator[httpx.Request, httpx.Response, None]


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def error_code(response: httpx.Response) -> str | None:
    """The ``error`` field of an error body, if there is one."""
    body = _json(response)
    code = body.get("error") if isinstance(body, dict) else None
    return code if isinstance(code, str) else None


class SessionAuth(httpx.Auth):
    """Bearer authentication with a session token (or a fixed ``AIC_TOKEN``)."""

    requires_response_body = True

    def __init__(
        self,
        base_url: str,
        *,
        email: str | None = None,
        password: str | None = None,
        token: str | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        if token is None and (email is None or password is None):
            raise ValueError("SessionAuth needs a token or an email and a password")
        self._base_url = base_url
        self._email = email
        self._password = password
        self._clock = clock
        self._lock = threading.RLock()
        self._token = token
        self._fixed = token is not None
        self._expires_at: float | None = None
        self._renew_at: float | None = None
        self.refresh_missing = False
        self.org_id: str | None = None

    def __repr__(self) -> str:
        return f"SessionAuth({self._base_url!r}, fixed={self._fixed})"

    @property
    def has_session(self) -> bool:
        """A session this client opened (and should close with logout)."""
        return self._token is not None and not self._fixed

    def forget(self) -> None:
        """Drop the session (after logout): the next request logs in again."""
        with self._lock:
            if not self._fixed:
                self._token = None

    def auth_flow(self, request: httpx.Request) -> Flow:
        token = yield from self._current_token()
        reauthenticated = False
        for _ in range(MAX_STALE_RESENDS + 2):
            request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            if response.status_code != 401 or self._fixed:
                return
            if self._token is not None and self._token != token:
                # Another thread renewed while this request waited (rate limit, backoff): the
                # 401 was for the old token. Not a reason to log in again.
                token = yield from self._current_token()
                continue
            if reauthenticated:
                return
            reauthenticated = True
            logs.info("%s %s: 401, logging in again", request.method, request.url.path)
            token = yield from self._renew(stale=token, allow_refresh=False)

    def _current_token(self) -> Generator[httpx.Request, httpx.Response, str]:
        with self._lock:
            token = self._token
            if token is None:
                return (yield from self._login())
            if self._renew_at is not None and self._clock() >= self._renew_at:
                return (yield from self._renew(stale=token, allow_refresh=True))
            return token

    def _renew(
        self, *, stale: str, allow_refresh: bool
    ) -> Generator[httpx.Request, httpx.Response, str]:
        with self._lock:
            if self._token is not None and self._token != stale:
                return self._token  # another thread renewed already
            if self._fixed:
                return stale
            expired = self._expires_at is not None and self._clock() >= self._expires_at
            if allow_refresh and not self.refresh_missing and not expired:
                token = yield from self._refresh(stale)
                if token is not None:
                    return token
            return (yield from self._login())

    def _refresh(self, stale: str) -> Generator[httpx.Request, httpx.Response, str | None]:
        headers = {"Authorization": f"Bearer {stale}"}
        if self.org_id is not None:
            headers[ORG_HEADER] = self.org_id
        response = yield httpx.Request("POST", self._base_url + REFRESH_PATH, headers=headers)
        if response.status_code == 404:
            logs.info("refresh answered 404: renewing by login from now on")
            self.refresh_missing = True
            return None
        if response.status_code != 200:
            return None
        return self._accept(response)

    def _login(self) -> Generator[httpx.Request, httpx.Response, str]:
        body = {"email": self._email, "password": self._password}
        response = yield httpx.Request("POST", self._base_url + LOGIN_PATH, json=body)
        code = error_code(response)
        if code == "AUTH_FAILED" or response.status_code in (400, 401, 403):
            raise AuthFailed(f"login refused: {code or 'AUTH_FAILED'} (authentication failed)")
        if response.status_code != 200:
            raise ApiError(
                f"login failed: HTTP {response.status_code} {code or ''}".strip(),
                status=response.status_code,
                code=code,
            )
        token = self._accept(response)
        if token is None:
            raise ApiError("login answer holds no access_token/expires_in", status=200)
        logs.info("logged in as %s", self._email)
        return token

    def _accept(self, response: httpx.Response) -> str | None:
        body = _json(response)
        if not isinstance(body, dict):
            return None
        token, lifetime = body.get("access_token"), body.get("expires_in")
        if not isinstance(token, str) or not isinstance(lifetime, (int, float)):
            return None
        now = self._clock()
        self._token = token
        self._expires_at = now + lifetime
        self._renew_at = now + lifetime - min(RENEW_BEFORE, lifetime / 2)
        return token


__all__ = ["ORG_HEADER", "RENEW_BEFORE", "SessionAuth", "error_code"]
