"""What the stand-in control plane knows: accounts, organizations, sessions and PATs.

Thread-safe (one lock): the HTTP server answers from many threads. Values of sessions and PATs
are kept only as SHA-256 digests, like a real service would, so a test that prints the state
cannot leak them.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hygiene.detection import PAT_PREFIX, is_placeholder

PAT_ABSOLUTE_MAX_TTL_DAYS = 180
# Scopes a PAT may carry and the endpoint family each one opens.
SCOPES = ("safes:read", "tokens:write", "org:read")

MAX_USES = 100_000

Clock = Callable[[], float]


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Account:
    """A user: email, password digest, memberships (org_id -> role) and default org."""

    email: str
    password_digest: str = field(repr=False)
    memberships: tuple[tuple[str, str], ...]
    active_org_id: str

    def is_member(self, org_id: str) -> bool:
        return any(org == org_id for org, _ in self.memberships)


@dataclass
class Session:
    email: str
    expires_at: float
    valid: bool = True
    serial: int = 0  # 1 for the first session issued, 2 for the next...
    issued_at: float = 0.0


@dataclass(frozen=True)
class SessionUse:
    """A request authenticated by a session, in the server's time: which session (``serial``),
    what it asked (``what``: method and path), when, and the session's own times."""

    serial: int
    what: str
    at: float
    issued_at: float
    expires_at: float

    def past(self, before_expiry: float) -> bool:
        """Whether it came ``before_expiry`` seconds or less before the session's expiry (the
        API document's renewal point, 60 s): a client should have renewed by then."""
        return self.at >= self.expires_at - before_expiry


@dataclass
class Pat:
    """A personal access token as the service stores it (never its value)."""

    token_id: str
    email: str
    org_id: str
    name: str
    scopes: tuple[str, ...]
    expires_at: float
    revoked: bool = False


@dataclass(frozen=True)
class Principal:
    """Who is calling: a session (full access) or a PAT (its scopes only)."""

    email: str
    pat: Pat | None = None

    def allows(self, scope: str | None) -> bool:
        if self.pat is None or scope is None:
            return True
        return scope in self.pat.scopes


class State:
    """Accounts, sessions and PATs of the stand-in; ``clock`` is injectable (seconds)."""

    def __init__(self, clock: Clock = time.time, token_lifetime: float = 900.0) -> None:
        self.clock = clock
        self.token_lifetime = token_lifetime
        self._lock = threading.Lock()
        self._accounts: dict[str, Account] = {}
        self._sessions: dict[str, Session] = {}
        self._pats: dict[str, Pat] = {}
        self._pat_by_digest: dict[str, str] = {}
        # The latest uses only: `hygiene fake-server` may run for days.
        self._uses: deque[SessionUse] = deque(maxlen=MAX_USES)

    # accounts -------------------------------------------------------------------------------
    def add_account(
        self, email: str, password: str, memberships: Iterable[tuple[str, str]]
    ) -> Account:
        """Create an account; its first membership is its ``active_org_id``."""
        members = tuple(memberships)
        if not members:
            raise ValueError("an account needs at least one membership")
        account = Account(email, _digest(password), members, members[0][0])
        with self._lock:
            self._accounts[email] = account
        return account

    def account(self, email: str) -> Account:
        with self._lock:
            return self._accounts[email]

    # sessions -------------------------------------------------------------------------------
    def login(self, email: str, password: str) -> tuple[str, int] | None:
        """A new session token and its lifetime, or None (the reason is never told)."""
        with self._lock:
            account = self._accounts.get(email)
            ok = account is not None and secrets.compare_digest(
                account.password_digest, _digest(password)
            )
            if not ok:
                return None
            return self._new_session(email)

    def _new_session(self, email: str) -> tuple[str, int]:
        token = "eyJ" + secrets.token_urlsafe(24) + "." + secrets.token_urlsafe(16)
        lifetime = self.token_lifetime
        now = self.clock()
        serial = len(self._sessions) + 1
        self._sessions[_digest(token)] = Session(email, now + lifetime, True, serial, now)
        return token, max(1, round(lifetime))

    def refresh(self, token: str) -> tuple[str, int] | None:
        """Swap a valid session token for a new one; the old one stops working."""
        with self._lock:
            session = self._live_session(token)
            if session is None:
                return None
            session.valid = False
            return self._new_session(session.email)

    def logout(self, token: str) -> bool:
        with self._lock:
            session = self._live_session(token)
            if session is None:
                return False
            session.valid = False
            return True

    def invalidate_sessions(self) -> int:
        """Invalidate every session at once (a fault: a 401 in the middle of a run)."""
        with self._lock:
            live = [s for s in self._sessions.values() if s.valid]
            for session in live:
                session.valid = False
            return len(live)

    def _live_session(self, token: str) -> Session | None:
        session = self._sessions.get(_digest(token))
        if session is None or not session.valid or self.clock() >= session.expires_at:
            return None
        return session

    def authenticate(self, token: str, what: str = "") -> Principal | None:
        """The caller behind a bearer token (session or PAT), or None; a session's use is
        recorded (``what``: the request, for :meth:`session_uses`)."""
        with self._lock:
            session = self._live_session(token)
            if session is not None:
                at = self.clock()
                use = SessionUse(session.serial, what, at, session.issued_at, session.expires_at)
                self._uses.append(use)
                return Principal(session.email)
            token_id = self._pat_by_digest.get(_digest(token))
            pat = self._pats.get(token_id) if token_id else None
            if pat is None or pat.revoked or self.clock() >= pat.expires_at:
                return None
            return Principal(pat.email, pat)

    def session_uses(self) -> list[SessionUse]:
        """Every request a live session authenticated, in the order they came."""
        with self._lock:
            return list(self._uses)

    # PATs -----------------------------------------------------------------------------------
    def create_pat(
        self, email: str, org_id: str, name: str, scopes: Iterable[str], days: int
    ) -> tuple[Pat, str]:
        """Record a new PAT and return it with its value (shown once, never stored)."""
        if not 1 <= days <= PAT_ABSOLUTE_MAX_TTL_DAYS:
            raise ValueError(f"expires_in_days must be 1..{PAT_ABSOLUTE_MAX_TTL_DAYS}")
        value = _new_pat_value()
        pat = Pat(
            token_id="tok_" + secrets.token_hex(8),
            email=email,
            org_id=org_id,
            name=name,
            scopes=tuple(scopes),
            expires_at=self.clock() + days * 86400,
        )
        with self._lock:
            self._pats[pat.token_id] = pat
            self._pat_by_digest[_digest(value)] = pat.token_id
        return pat, value

    def revoke_pat(self, org_id: str, token_id: str) -> bool:
        """Revoke a PAT of ``org_id``; False when unknown there or already revoked."""
        with self._lock:
            pat = self._pats.get(token_id)
            if pat is None or pat.org_id != org_id or pat.revoked:
                return False
            pat.revoked = True
            return True

    def pat(self, token_id: str) -> Pat:
        with self._lock:
            return self._pats[token_id]

    def pats(self) -> list[Pat]:
        with self._lock:
            return list(self._pats.values())


def _new_pat_value() -> str:
    while True:
        body = secrets.token_urlsafe(30)
        if not is_placeholder(body):
            return PAT_PREFIX + body


__all__ = [
    "PAT_ABSOLUTE_MAX_TTL_DAYS",
    "SCOPES",
    "Account",
    "Pat",
    "Principal",
    "SessionUse",
    "State",
]
