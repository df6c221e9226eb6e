"""The control plane's paths (``control-plane-api.md``) and what every request of ours carries."""

from __future__ import annotations

import httpx

from hygiene import __version__

API = "/api/v1"
LOGIN = API + "/auth/login"
REFRESH = API + "/auth/refresh"
LOGOUT = API + "/auth/logout"
MEMBERSHIPS = API + "/org/memberships"
API_TOKENS = API + "/auth/api-tokens"

USER_AGENT = f"aic-token-hygiene/{__version__}"
TIMEOUT = httpx.Timeout(15.0, connect=5.0)

__all__ = [
    "API",
    "API_TOKENS",
    "LOGIN",
    "LOGOUT",
    "MEMBERSHIPS",
    "REFRESH",
    "TIMEOUT",
    "USER_AGENT",
]
