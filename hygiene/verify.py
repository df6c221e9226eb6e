"""Is a found PAT live? Ask the service it belongs to, and nobody else.

``verify_tokens`` sends each token once, as the bearer of ``GET /api/v1/org/memberships`` to
``base_url`` (the user's ``AIC_BASE_URL``, https unless loopback): 200 is ``live``, 401 is
``dead``, anything else (403, 429 after retries, 5xx, a redirect, a network error) is
``unknown``. Redirects are not followed, so a token never travels to another host.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import httpx

from hygiene.api.config import check_base_url
from hygiene.api.transport import RetryPolicy, RetryTransport
from hygiene.detection import fingerprint

Liveness = Literal["live", "dead", "unknown"]
MEMBERSHIPS = "/api/v1/org/memberships"
WORKERS = 8
_POLICY = RetryPolicy(attempts=3, throttled_attempts=3, max_retry_after=30.0)


def _check(client: httpx.Client, token: str) -> Liveness:
    try:
        response = client.get(MEMBERSHIPS, headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError:
        return "unknown"
    if response.status_code == 200:
        return "live"
    return "dead" if response.status_code == 401 else "unknown"


def verify_tokens(
    tokens: Iterable[str],
    base_url: str,
    *,
    allow_http: bool = False,
    transport: httpx.BaseTransport | None = None,
    timeout: float = 10.0,
) -> dict[str, Liveness]:
    """``{fingerprint: "live" | "dead" | "unknown"}`` for each distinct token.

    Raises :class:`~hygiene.errors.UsageError` for a ``base_url`` that is not https (plain
    http only for loopback, or with ``allow_http``).
    """
    url = check_base_url(base_url, allow_http)
    unique = {fingerprint(t): t for t in tokens}
    if not unique:
        return {}
    inner = transport or httpx.HTTPTransport(verify=True)
    client = httpx.Client(
        base_url=url,
        transport=RetryTransport(inner, policy=_POLICY),
        timeout=timeout,
        follow_redirects=False,
    )
    with client, ThreadPoolExecutor(max_workers=min(WORKERS, len(unique))) as pool:
        answers = pool.map(lambda token: _check(client, token), unique.values())
        return dict(zip(unique, answers, strict=True))


__all__ = ["Liveness", "verify_tokens"]
