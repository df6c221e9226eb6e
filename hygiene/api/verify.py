"""Is a found PAT live? Ask the service it belongs to, and nobody else.

``verify_tokens`` sends each token once, as the bearer of ``GET /api/v1/org/memberships`` to
``base_url`` (the user's ``AIC_BASE_URL``, https unless loopback): 200 is ``live``, 401 is
``dead``, anything else (403, 429 after retries, 5xx, a redirect, a network error) is
``unknown``. :func:`verified_findings` marks a scan's findings with the answers; they carry
the answer, never the token.

Liveness never turns unknown into clean: a finding is dropped (``only_live``) only when the
service itself said ``dead``; an unknown one is kept, marked unknown, and so is every PAT when
the service cannot be asked at all (:func:`unknown_findings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import httpx

from hygiene.api.bearer import bearer_client, bearer_headers, each_concurrently
from hygiene.api.config import check_base_url
from hygiene.api.endpoints import MEMBERSHIPS
from hygiene.api.transport import RetryPolicy
from hygiene.detection import AIC_PAT, PAT_PREFIX, fingerprint
from hygiene.errors import HygieneError
from hygiene.progress import ItemProgress

if TYPE_CHECKING:
    from hygiene.scan import Finding, ScanResult

Liveness = Literal["live", "dead", "unknown"]


def _policy(timeout: float) -> RetryPolicy:
    return RetryPolicy(
        attempts=3, throttled_attempts=3, max_retry_after=30.0, request_deadline=timeout
    )


def _is_memberships(response: httpx.Response) -> bool:
    """Only the service's own JSON answer proves the token was taken (a proxy's 200 page or
    a body cut at the size limit does not)."""
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("memberships"), list)


def _check(client: httpx.Client, token: str) -> Liveness:
    try:
        response = client.get(MEMBERSHIPS, headers=bearer_headers(token))
    except (httpx.HTTPError, HygieneError):
        return "unknown"
    if response.status_code == 200:
        return "live" if _is_memberships(response) else "unknown"
    return "dead" if response.status_code == 401 else "unknown"


def verify_tokens(
    tokens: Iterable[str],
    base_url: str,
    *,
    allow_http: bool = False,
    transport: httpx.BaseTransport | None = None,
    timeout: float = 10.0,
    deadline: float | None = None,
    progress: ItemProgress | None = None,
) -> dict[str, Liveness]:
    """``{fingerprint: "live" | "dead" | "unknown"}`` for each distinct token; a value that is
    not a ``pat_AIC_`` token is never sent (``unknown``).

    Raises :class:`~hygiene.errors.UsageError` for a ``base_url`` that is not https (plain
    http only for loopback, or with ``allow_http``). ``timeout`` bounds each check (wall
    clock), ``deadline`` the whole verification: checks not started by then read unknown.
    ``progress`` counts the answers (an unknown one as failed).
    """
    url = check_base_url(base_url, allow_http)
    given = {fingerprint(t): t for t in tokens}
    # Only a PAT is this service's by its very prefix: any other value stays unknown, unsent.
    unique = {fp: t for fp, t in given.items() if t.startswith(PAT_PREFIX)}
    unsent: dict[str, Liveness] = {fp: "unknown" for fp in given if fp not in unique}
    if not unique:
        return unsent
    progress = progress if progress is not None else ItemProgress()
    progress.total = len(unique)
    policy = _policy(timeout)
    with bearer_client(
        url, transport=transport, policy=policy, timeout=timeout, deadline=deadline
    ) as client:
        answers = each_concurrently(
            lambda token: _check(client, token),
            unique.values(),
            on_done=lambda answer: progress.item(failed=answer == "unknown"),
        )
    return {**unsent, **dict(zip(unique, answers, strict=True))}


def verified_findings(
    result: ScanResult,
    base_url: str,
    *,
    allow_http: bool = False,
    only_live: bool = False,
    deadline: float | None = None,
    progress: ItemProgress | None = None,
) -> list[Finding]:
    """The result's findings, PATs marked with their liveness (``only_live``: all but the dead
    ones; ``progress``: see :func:`verify_tokens`)."""
    tokens = [d.secret.token for d in result.detections if d.secret.type_id == AIC_PAT]
    answers = verify_tokens(
        tokens, base_url, allow_http=allow_http, deadline=deadline, progress=progress
    )
    marked = _marked(result.findings, answers)
    return [f for f in marked if f.live != "dead"] if only_live else marked


def _marked(findings: Iterable[Finding], answers: dict[str, Liveness]) -> list[Finding]:
    return [
        dataclasses.replace(f, live=answers.get(f.fingerprint, "unknown"))
        if f.type == AIC_PAT
        else f
        for f in findings
    ]


def unknown_findings(result: ScanResult) -> list[Finding]:
    """The result's findings, every PAT marked ``unknown``: the service could not be asked."""
    return _marked(result.findings, {})


__all__ = ["Liveness", "unknown_findings", "verified_findings", "verify_tokens"]
