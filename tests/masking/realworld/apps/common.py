"""What a careless app does with each request: log it all, mint tokens, fail with a secret.

Shared by every server app of the battery; the framework adapters call :func:`handle`.
"""

from __future__ import annotations

import inspect
import json
import logging
import secrets
import sys
import urllib.parse
from pathlib import Path
from typing import Any

LOG = logging.getLogger("app")
PAT_PREFIX = "pat_" + "AIC_"  # split: the repo holds no token-shaped literal


class UpstreamError(RuntimeError):
    """The exception that holds a PAT in its message."""


def new_pat() -> str:
    return PAT_PREFIX + secrets.token_urlsafe(24)


def attach(mode: str, **install_kwargs: Any) -> None:
    """``install()``, with the stream guard when this core has it (``install(streams=True)``)."""
    import hygiene.masking

    if "streams" in inspect.signature(hygiene.masking.install).parameters:
        install_kwargs.setdefault("streams", True)
    hygiene.masking.install(**install_kwargs)


def handle(
    method: str, path: str, query: str, headers: dict[str, str], body: bytes
) -> tuple[int, dict[str, Any]]:
    """The app's answer to one request, logging as careless apps do."""
    LOG.info("incoming %s %s?%s headers=%s", method, path, query, headers)
    if body:
        LOG.info("body: %s", body.decode("utf-8", "replace"))
    LOG.info("request seen", extra={"request_headers": headers, "query": query})
    params = dict(urllib.parse.parse_qsl(query))
    if path == "/tokens":
        created = {"id": 7, "token": new_pat()}
        LOG.info("created token response: %s", json.dumps(created))
        return 201, created
    if path == "/fail":
        fail(headers, params)
    if path == "/refresh":
        LOG.error("token refresh failed for %s", params.get("access_token", ""))
    return 200, {"ok": True}


def fail(headers: dict[str, str], params: dict[str, str]) -> None:
    """Raise an exception holding a PAT, with a session token in a plainly named local."""
    lowered = {k.lower(): v for k, v in headers.items()}
    current = lowered.get("authorization", "").split(" ")[-1]  # an ordinary name
    reason = f"upstream rejected {params.get('access_token')}"
    raise UpstreamError(reason, len(current))  # `current` on the raise line: diagnosers show it


def args() -> tuple[str, Path, int]:
    """``mode workdir port`` from the command line."""
    mode, workdir, port = (
        sys.argv[1],
        Path(sys.argv[2]),
        int(sys.argv[3]) if len(sys.argv) > 3 else 0,
    )
    return mode, workdir, port
