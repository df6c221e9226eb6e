"""Where to connect and as whom: read from the environment (or a no-echo prompt), never argv."""

from __future__ import annotations

import getpass
import ipaddress
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from hygiene.api.auth import check_bearer
from hygiene.errors import UsageError

Prompt = Callable[[str], str]
NO_BASE_URL = "AIC_BASE_URL is not set (the control plane's address)"
# Seconds a whole command may spend on the service (the commands may offer a flag too).
DEADLINE_VAR = "HYGIENE_DEADLINE"
# scheme://userinfo@ (the userinfo ends at the last @ before the path, query or fragment)
_USERINFO = re.compile(r"^([^/?#]*?)//[^/?#]*@")


@dataclass(frozen=True)
class Config:
    """The client's settings. Secrets are kept out of ``repr``."""

    base_url: str
    email: str | None = None
    password: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    org_id: str | None = None
    # Seconds the whole command may spend talking to the service (None: no overall deadline;
    # every request is still bounded on its own).
    deadline: float | None = None


def mask_url(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@``: safe to show in a message."""
    if "//" not in url:
        # Not a URL with an authority ("user:pass@host"): everything before an @ may be secret.
        return "***@" + url.rsplit("@", 1)[1] if "@" in url else url
    return _USERINFO.sub(r"\1//***@", url)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str, allow_http: bool) -> str:
    """``url`` without a trailing slash; plain http only for loopback or when allowed."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise UsageError(f"AIC_BASE_URL is not a valid address: {_shown(url)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"AIC_BASE_URL must be an http(s) address, got {_shown(url)}")
    if parts.username or parts.password:
        raise UsageError("AIC_BASE_URL must not hold credentials; use AIC_EMAIL/AIC_PASSWORD")
    if parts.scheme == "http" and not (allow_http or is_loopback(parts.hostname)):
        raise UsageError(
            "AIC_BASE_URL uses plain http to a non-loopback host; use https "
            "(or set AIC_ALLOW_HTTP=1 if you really mean it)"
        )
    return url.rstrip("/")


def service_url(env: Mapping[str, str], *, missing: str = NO_BASE_URL) -> str:
    """The service's address from ``AIC_BASE_URL``, checked (see :func:`check_base_url`);
    a :class:`UsageError` saying ``missing`` when it is not set."""
    url = env.get("AIC_BASE_URL", "").strip()
    if not url:
        raise UsageError(missing)
    return check_base_url(url, env.get("AIC_ALLOW_HTTP", "") == "1")


def _shown(url: str) -> str:
    # Masked first (no password), then repr'd (no line break can forge output), then cut.
    shown = repr(mask_url(url))
    return shown if len(shown) <= 120 else shown[:117] + "..."


def read_deadline(env: Mapping[str, str], name: str = DEADLINE_VAR) -> float | None:
    """The command deadline in seconds from ``env[name]`` (unset or empty: None)."""
    text = env.get(name, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < 1e7:  # also refuses nan and inf
        raise UsageError(f"{name} must be a number of seconds above 0, got {text[:40]!r}")
    return seconds


def load_config(env: Mapping[str, str], *, prompt: Prompt | None = None) -> Config:
    """Read ``AIC_*`` from ``env``; ``prompt`` (no echo) asks for a missing password.

    ``prompt`` is given only when a terminal is attached (see :func:`tty_prompt`).
    """
    return ask_password(read_config(env, can_ask=prompt is not None), prompt)


def read_config(env: Mapping[str, str], *, can_ask: bool) -> Config:
    """``AIC_*`` from ``env``, checked, without asking anything: the password stays None
    when it is missing and ``can_ask`` (:func:`ask_password` asks it later, so a command can
    put its yes/no question first and check everything else before either)."""
    base_url = service_url(env)
    org_id = env.get("AIC_ORG_ID", "").strip() or None
    deadline = read_deadline(env)
    token = env.get("AIC_TOKEN", "").strip() or None
    if token:
        check_bearer(token, "AIC_TOKEN")
        return Config(base_url, token=token, org_id=org_id, deadline=deadline)
    email = env.get("AIC_EMAIL", "").strip()
    if not email:
        raise UsageError("set AIC_EMAIL and AIC_PASSWORD (or AIC_TOKEN) to reach the service")
    password = env.get("AIC_PASSWORD") or None
    if password is None and not can_ask:
        raise UsageError("AIC_PASSWORD is not set and no terminal is attached to ask for it")
    return Config(base_url, email=email, password=password, org_id=org_id, deadline=deadline)


def ask_password(config: Config, prompt: Prompt | None) -> Config:
    """``config`` with the password ``prompt`` gives when it has an e-mail and no password."""
    if config.token is not None or config.password is not None or config.email is None:
        return config
    password = prompt(f"Password for {config.email}: ") if prompt is not None else None
    if not password:
        raise UsageError(f"no password given for {config.email}")
    return replace(config, password=password)


def tty_prompt(terminal: bool) -> Prompt | None:
    """``getpass.getpass`` (no echo; it asks on the controlling terminal) when ``terminal``
    says one is attached, else None."""
    return getpass.getpass if terminal else None


__all__ = [
    "DEADLINE_VAR",
    "Config",
    "ask_password",
    "check_base_url",
    "is_loopback",
    "load_config",
    "mask_url",
    "read_config",
    "read_deadline",
    "service_url",
    "tty_prompt",
]
