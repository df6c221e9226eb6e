"""The seven endpoints of the API document, as pure functions of (state, request) -> reply."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from hygiene.testing.faults import Switches
from hygiene.testing.state import PAT_ABSOLUTE_MAX_TTL_DAYS, SCOPES, Principal, State

PREFIX = "/api/v1"
TOKENS_PATH = PREFIX + "/auth/api-tokens"


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None

    @classmethod
    def error(cls, status: int, code: str, message: str) -> Reply:
        return cls(status, {"error": code, "message": message})


AUTH_FAILED = Reply.error(401, "AUTH_FAILED", "Authentication failed.")
UNAUTHORIZED = Reply.error(401, "UNAUTHORIZED", "Token missing, expired or invalid.")
NOT_FOUND = Reply.error(404, "NOT_FOUND", "Not found.")


@dataclass(frozen=True)
class Call:
    state: State
    switches: Switches
    headers: dict[str, str]
    body: bytes
    principal: Principal
    org_id: str


Handler = Callable[[Call], Reply]


def _json(body: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def login(state: State, body: bytes) -> Reply:
    data = _json(body) or {}
    email, password = data.get("email"), data.get("password")
    if not isinstance(email, str) or not isinstance(password, str):
        return AUTH_FAILED
    session = state.login(email, password)
    if session is None:
        return AUTH_FAILED
    return Reply(200, {"access_token": session[0], "expires_in": session[1]})


def memberships(call: Call) -> Reply:
    account = call.state.account(call.principal.email)
    return Reply(
        200,
        {
            "active_org_id": account.active_org_id,
            "memberships": [{"org_id": org, "role": role} for org, role in account.memberships],
        },
    )


def refresh(call: Call) -> Reply:
    if not call.switches.refresh_enabled:
        return NOT_FOUND
    session = call.state.refresh(_bearer(call.headers) or "")
    if session is None:
        return UNAUTHORIZED
    return Reply(200, {"access_token": session[0], "expires_in": session[1]})


def logout(call: Call) -> Reply:
    if not call.state.logout(_bearer(call.headers) or ""):
        return Reply.error(400, "NOT_A_SESSION", "Only a session token can log out.")
    return Reply(204)


def create_token(call: Call) -> Reply:
    data = _json(call.body)
    if data is None:
        return Reply.error(400, "BAD_REQUEST", "Body must be a JSON object.")
    name, scopes, days = data.get("name"), data.get("scopes"), data.get("expires_in_days")
    if not isinstance(name, str) or not 0 < len(name) <= 100:
        return Reply.error(422, "INVALID_NAME", "name must be 1..100 characters.")
    if not isinstance(scopes, list) or not scopes or any(s not in SCOPES for s in scopes):
        return Reply.error(422, "INVALID_SCOPES", f"scopes must be among {', '.join(SCOPES)}.")
    if type(days) is not int or not 1 <= days <= PAT_ABSOLUTE_MAX_TTL_DAYS:
        return Reply.error(422, "INVALID_EXPIRY", "expires_in_days must be 1..180.")
    pat, value = call.state.create_pat(call.principal.email, call.org_id, name, scopes, days)
    expires = datetime.fromtimestamp(pat.expires_at, timezone.utc).isoformat()
    return Reply(
        201,
        {
            "token_id": pat.token_id,
            "token": value,
            "name": pat.name,
            "scopes": list(pat.scopes),
            "expires_at": expires,
        },
    )


def revoke_token(call: Call, token_id: str) -> Reply:
    if not call.state.revoke_pat(call.org_id, token_id):
        return NOT_FOUND
    return Reply(204)


def safes(call: Call) -> Reply:
    return Reply(200, [{"safe_id": f"safe_{call.org_id}_{n}", "name": f"Safe {n}"} for n in (1, 2)])


# (method, path) -> (handler, scope a PAT needs, needs X-Active-Org-Id, session only)
_ROUTES: dict[tuple[str, str], tuple[Handler, str | None, bool, bool]] = {
    ("GET", PREFIX + "/org/memberships"): (memberships, None, False, False),
    ("POST", PREFIX + "/auth/refresh"): (refresh, None, True, True),
    ("POST", PREFIX + "/auth/logout"): (logout, None, True, True),
    ("POST", TOKENS_PATH): (create_token, "tokens:write", True, False),
    ("GET", PREFIX + "/safes"): (safes, "safes:read", True, False),
}


def _find(method: str, path: str) -> tuple[Handler, str | None, bool, bool] | None:
    if method == "DELETE" and path.startswith(TOKENS_PATH + "/"):
        token_id = path[len(TOKENS_PATH) + 1 :]
        if token_id and "/" not in token_id:
            return (lambda call: revoke_token(call, token_id)), "tokens:write", True, False
    return _ROUTES.get((method, path))


def route(
    state: State, switches: Switches, method: str, path: str, headers: dict[str, str], body: bytes
) -> Reply:
    """Answer one request: authentication, organization, scope, then the endpoint."""
    path = path.split("?", 1)[0]
    if (method, path) == ("POST", PREFIX + "/auth/login"):
        return login(state, body)
    found = _find(method, path)
    if found is None:
        return NOT_FOUND
    handler, scope, needs_org, session_only = found
    token = _bearer(headers)
    principal = state.authenticate(token, f"{method} {path}") if token else None
    if principal is None:
        return UNAUTHORIZED
    if session_only and principal.pat is not None:
        return Reply.error(403, "SESSION_REQUIRED", "This call needs a session token.")
    if not principal.allows(scope):
        return Reply.error(403, "SCOPE", "The token lacks the scope this endpoint needs.")
    org_id = headers.get("x-active-org-id", "")
    if needs_org and not org_id:
        return Reply.error(400, "ORG_REQUIRED", "X-Active-Org-Id header is required.")
    if needs_org and not state.account(principal.email).is_member(org_id):
        return Reply.error(403, "NOT_A_MEMBER", "Not a member of that organization.")
    return handler(Call(state, switches, headers, body, principal, org_id))


__all__ = ["Reply", "route"]
