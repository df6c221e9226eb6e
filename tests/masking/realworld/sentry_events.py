"""Reading what the file transport of the Sentry apps captured."""

from __future__ import annotations

import json
from typing import Any

TEMPLATE = "token refresh failed for %s"


def events(raw: bytes) -> list[dict[str, Any]]:
    """Every event (``logentry`` or ``exception``) in the captured envelopes."""
    found = []
    for line in raw.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and ("logentry" in item or "exception" in item):
            found.append(item)
    return found


def grouping_problems(raw: bytes, expected: int) -> list[str]:
    """What breaks Sentry's grouping and reports: template, params, stack, request data."""
    evs = events(raw)
    problems = []
    refresh = [e for e in evs if "refresh failed" in json.dumps(e.get("logentry", {}))]
    templates = {e["logentry"].get("message") for e in refresh}
    if len(refresh) < expected or templates != {TEMPLATE}:
        problems.append(
            f"Sentry grouping: {len(refresh)} refresh events, templates {sorted(map(str, templates))[:3]}"
        )
    if any(len(e["logentry"].get("params") or []) != 1 for e in refresh):
        problems.append("Sentry logentry.params lost their shape")
    failed = [e for e in evs if "UpstreamError" in json.dumps(e.get("exception", {}))]
    frames = [
        f
        for e in failed
        for v in e["exception"]["values"]
        for f in (v.get("stacktrace") or {}).get("frames", [])
    ]
    if not failed or not frames:
        problems.append("Sentry exception event without its stack trace")
    if b'"type":"log"' not in raw.replace(b" ", b"") or b"issued token {token}" not in raw:
        problems.append("Sentry logs missing, or their template changed")
    if not any(e.get("request", {}).get("headers") for e in evs):
        problems.append("Sentry events without request data")
    return problems
