"""The session as an ``httpx.Auth`` flow: log in, renew before expiry, re-authenticate on 401.

* The first request logs in (``POST /api/v1/auth/login``) and reads ``expires_in``.
* ``RENEW_BEFORE`` (60 s, as the service recommends, whatever the lifetime) before expiry the
  session is renewed: through ``/auth/refresh`` while the service has it, else by logging in
  again (and logging the old session out before the next request, so it does not stay
  alive); once refresh answers 404 it is never tried again. A lifetime of 60 s
  or less is renewed at half-life. A lifetime counts from when the login (or refresh) was
  sent, so the client's renewal point never comes after the server's.
* A request is never sent with a token due for renewal: the transport asks :meth:`stale`
  right before each send (after any rate-limit wait, on every retry) and hands a request that
  is due back unsent (marked ``STALE``); it is renewed and sent again, a bounded number of
  times (a rate limit too tight for the lifetime ends in an error, not in a stale token).
* A 401 on a request renews once (by login) and sends the request again; a 401 for a token
  another thread has replaced meanwhile just resends with the current one.
* With a fixed token (``AIC_TOKEN``) there is nothing to renew: a 401 is passed on.

Threads share one instance; renewal happens under a lock, once for all of them. The step in
progress on each thread (login, refresh, logout of the old session) is kept so that a network
failure during it is reported as that step, not as the request that triggered it.
"""

from __future__ import annotations

import collections
import re
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

import httpx

from hygiene.api import logs
from hygiene.api.transport import DEFAULT_TIMEOUT, GRACE, SENT_AT, STALE
from hygiene.errors import ApiError, AuthFailed, UsageError, hide_values
from hygiene.masking import mask

RENEW_BEFORE = 60.0
LOGIN_PATH = "/api/v1/auth/login"
REFRESH_PATH = "/api/v1/auth/refresh"
LOGOUT_PATH = "/api/v1/auth/logout"
ORG_HEADER = "X-Active-Org-Id"
# Resends of one request after a 401 for a token another thread had already replaced, or after
# the transport handed it back for a renewal.
MAX_STALE_RESENDS = 3
# What a bearer token may hold: visible ASCII, no space. Anything else (CR/LF above all) is
# refused before httpx or httpcore see it, as their errors and debug logs would show it.
# Bounded: a token is sent in every request's headers, and a server could hand us a megabyte.
_BEARER_OK = re.compile(r"[\x21-\x7e]{1,8192}")

_CODE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")

Clock = Callable[[], float]
Flow = Generator[httpx.Request, httpx.Response, None]


def check_bearer(token: str, what: str) -> str:
    """``token`` if it can go in an ``Authorization`` header; else a UsageError (no value)."""
    if not _BEARER_OK.fullmatch(token):
        raise UsageError(f"{what} holds a space, line break or control character; refused")
    return token


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def error_code(response: httpx.Response) -> str | None:
    """The ``error`` field of an error body, if there is one and it is shaped like a code
    (1..64 of letters, digits, ``_ . : -``): it is kept in results and shown, and a line break,
    markup or a megabyte there is not the service's code."""
    body = _json(response)
    code = body.get("error") if isinstance(body, dict) else None
    return code if isinstance(code, str) and _CODE.fullmatch(code) else None


def error_message(response: httpx.Response) -> str | None:
    """The ``message`` field of an error body (one line, masked, at most 200 characters)."""
    body = _json(response)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        return None
    # The service's words: masked with the engine (a server may echo a credential in a shape
    # only its key rules know, "password=..."); shown escaped later (errors.one_line).
    line = mask(" ".join(message.split()))
    return line if len(line) <= 200 else line[:199] + "…"


def sent_at(request: httpx.Request, clock: Clock) -> float:
    """When the transport last sent ``request`` (after any rate-limit wait); now if unknown."""
    stamp = request.extensions.get(SENT_AT)
    return stamp if isinstance(stamp, float) else clock()


def _auth_request(method: str, url: str, **kwargs: Any) -> httpx.Request:
    # Requests built by an auth flow do not get the client's timeout: give them one.
    return httpx.Request(method, url, extensions={"timeout": DEFAULT_TIMEOUT.as_dict()}, **kwargs)


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
        # What this client holds and a server may echo back in an error message: the password,
        # AIC_TOKEN, every session it was given (hide() drops them from the server's words).
        self._secrets = tuple(v for v in (password, token) if v)
        self._sessions: collections.deque[str] = collections.deque(maxlen=16)
        self._clock = clock
        self._lock = threading.RLock()
        self._token = None if token is None else check_bearer(token, "AIC_TOKEN")
        self._fixed = token is not None
        self._expires_at: float | None = None
        self._renew_at: float | None = None
        self._local = threading.local()
        self.refresh_missing = False
        self.org_id: str | None = None
        self._replaced: list[str] = []  # sessions replaced by a new login, to log out

    def __repr__(self) -> str:
        return f"SessionAuth({self._base_url!r}, fixed={self._fixed})"

    @property
    def has_session(self) -> bool:
        """A session this client opened (and should close with logout)."""
        return self._token is not None and not self._fixed

    @property
    def step(self) -> str | None:
        """The auth step in progress on this thread (``login``, ``refresh``...), if any."""
        step: str | None = getattr(self._local, "step", None)
        return step

    def hide(self, text: str) -> str:
        """``text`` (a server's words) with every credential this client holds masked."""
        return hide_values(text, (*self._secrets, *self._sessions))

    def clear_step(self) -> None:
        """Forget this thread's step (before a new call)."""
        self._local.step = None

    def forget(self) -> None:
        """Drop the session (after logout): the next request logs in again."""
        with self._lock:
            if not self._fixed:
                self._token = None

    @property
    def expired(self) -> bool:
        """The session's lifetime has run out (nothing left to log out)."""
        return self._expires_at is not None and self._clock() >= self._expires_at

    def stale(self, request: httpx.Request, ahead: float = 0.0) -> bool:
        """True when ``request``'s session token is due for renewal ``ahead`` seconds from now."""
        if self._fixed or request.extensions.get(GRACE):
            return False
        if request.url.path in (LOGIN_PATH, REFRESH_PATH):
            return False
        with self._lock:
            sent = request.headers.get("authorization", "")
            if self._token is None or sent != f"Bearer {self._token}":
                return True  # replaced meanwhile: the one sent is old
            return self._renew_at is not None and self._clock() + ahead >= self._renew_at

    def auth_flow(self, request: httpx.Request) -> Flow:
        if request.extensions.get(GRACE) and self._token is not None:
            # A closing call (logout) ends the session it has, and any replaced one left.
            yield from self._log_out_replaced()
            request.headers["Authorization"] = f"Bearer {self._token}"
            yield request
            return
        # A session replaced by the renewal of an earlier request: ended now, not at once
        # (under a tight rate limit its logout would take the slot that request needed before
        # the new token fell due in turn), and before this request (httpx hands its caller the
        # last answer of the flow).
        yield from self._log_out_replaced()
        yield from self._send(request)

    def _send(self, request: httpx.Request) -> Flow:
        token = yield from self._current_token()
        reauthenticated = False
        for _ in range(MAX_STALE_RESENDS + 2):
            request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            if response.extensions.get(STALE):
                # Due for renewal by the time the transport's wait ends: renew now (the renewal
                # waits in the same queue), then resend.
                token = yield from self._renew(stale=token, allow_refresh=True)
                continue
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
            token = yield from self._renew(stale=token, allow_refresh=False, dead=True)
        raise ApiError(
            f"{request.method} {request.url.path}: the session was renewed "
            f"{MAX_STALE_RESENDS + 2} times and fell due again before the request could be sent "
            "(a rate limit too tight for the session's lifetime?)"
        )

    def _current_token(self) -> Generator[httpx.Request, httpx.Response, str]:
        with self._lock:
            token = self._token
            if token is None:
                return (yield from self._login())
            if self._renew_at is not None and self._clock() >= self._renew_at:
                return (yield from self._renew(stale=token, allow_refresh=True))
            return token

    def _renew(
        self, *, stale: str, allow_refresh: bool, dead: bool = False
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
            token = yield from self._login()
            if not dead and not expired:
                self._replaced.append(stale)
            return token

    def _refresh(self, stale: str) -> Generator[httpx.Request, httpx.Response, str | None]:
        headers = {"Authorization": f"Bearer {stale}"}
        if self.org_id is not None:
            headers[ORG_HEADER] = self.org_id
        self._local.step = "refresh"
        request = _auth_request("POST", self._base_url + REFRESH_PATH, headers=headers)
        response = yield request
        self._local.step = None
        if response.status_code == 404:
            logs.info("refresh answered 404: renewing by login from now on")
            self.refresh_missing = True
            return None
        if response.status_code != 200:
            logs.info("refresh answered HTTP %d: renewing by login", response.status_code)
            return None
        return self._accept(response, "refresh", sent_at(request, self._clock))

    def _log_out_replaced(self) -> Generator[httpx.Request, httpx.Response, None]:
        with self._lock:
            replaced, self._replaced = self._replaced, []
        for old in replaced:
            yield from self._log_out_old(old)

    def _log_out_old(self, old: str) -> Generator[httpx.Request, httpx.Response, None]:
        """The session replaced by a new login stays alive otherwise: end it (best effort)."""
        headers = {"Authorization": f"Bearer {old}"}
        if self.org_id is not None:
            headers[ORG_HEADER] = self.org_id
        self._local.step = "logout of the replaced session"
        # GRACE: it carries the old token on purpose (never handed back as stale).
        request = _auth_request("POST", self._base_url + LOGOUT_PATH, headers=headers)
        request.extensions[GRACE] = True
        try:
            response = yield request
        finally:
            self._local.step = None
        if response.status_code != 204:
            logs.info("logout of the replaced session answered HTTP %d", response.status_code)

    def _login(self) -> Generator[httpx.Request, httpx.Response, str]:
        body = {"email": self._email, "password": self._password}
        self._local.step = "login"
        request = _auth_request("POST", self._base_url + LOGIN_PATH, json=body)
        response = yield request
        self._local.step = None
        code = error_code(response)
        if code == "AUTH_FAILED" or response.status_code in (400, 401, 403):
            refused = self.hide(code or "AUTH_FAILED")
            raise AuthFailed(f"login refused: {refused} (authentication failed)")
        if response.status_code != 200:
            detail = self.hide(f"HTTP {response.status_code}" + (f" {code}" if code else ""))
            raise ApiError(f"login failed: {detail}", status=response.status_code, code=code)
        token = self._accept(response, "login", sent_at(request, self._clock))
        if token is None:
            raise ApiError("login failed: the answer holds no access_token/expires_in", status=200)
        logs.info("logged in as %s", self._email)
        return token

    def _accept(self, response: httpx.Response, step: str, sent_at: float) -> str | None:
        """Take the new token; its lifetime counts from when the request was sent (the server
        started it no earlier), so renewal never comes later than the server's own reckoning,
        however long a rate limit or a slow answer held the login."""
        body = _json(response)
        if not isinstance(body, dict):
            return None
        token, lifetime = body.get("access_token"), body.get("expires_in")
        if not isinstance(token, str) or not isinstance(lifetime, (int, float)):
            return None
        if not 0 < lifetime < 10**9:  # nan, negative, absurd: not a lifetime
            return None
        if not _BEARER_OK.fullmatch(token):
            raise ApiError(f"{step} failed: the answer's access_token is not a usable bearer token")
        self._sessions.append(token)
        self._token = token
        self._expires_at = sent_at + lifetime
        before = RENEW_BEFORE if lifetime > RENEW_BEFORE else lifetime / 2
        self._renew_at = self._expires_at - before
        return token


__all__ = [
    "LOGOUT_PATH",
    "ORG_HEADER",
    "RENEW_BEFORE",
    "SessionAuth",
    "check_bearer",
    "error_code",
    "error_message",
]
