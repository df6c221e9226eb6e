"""``hygiene scan --verify``: mark each PAT finding ``live``, ``dead`` or ``unknown``.

The tokens go to ``AIC_BASE_URL`` only (see :mod:`hygiene.verify`), straight from the
detections in memory; the findings that come back carry the answer, never the token.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from hygiene.detection import AIC_PAT
from hygiene.errors import UsageError
from hygiene.scan.findings import Finding, ScanResult


def verified_findings(
    result: ScanResult, env: Mapping[str, str] | None = None, *, only_live: bool = False
) -> list[Finding]:
    """The result's findings, PATs marked with their liveness (``only_live``: live ones only)."""
    environ = os.environ if env is None else env
    base_url = environ.get("AIC_BASE_URL", "").strip()
    if not base_url:
        raise UsageError("--verify needs AIC_BASE_URL (the service to ask)")
    from hygiene.verify import verify_tokens  # the HTTP client only when asked for

    tokens = [d.secret.token for d in result.detections if d.secret.type_id == AIC_PAT]
    answers = verify_tokens(tokens, base_url, allow_http=environ.get("AIC_ALLOW_HTTP") == "1")
    marked = [
        dataclasses.replace(f, live=answers.get(f.fingerprint, "unknown"))
        if f.type == AIC_PAT
        else f
        for f in result.findings
    ]
    return [f for f in marked if f.live == "live"] if only_live else marked
