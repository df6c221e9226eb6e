"""Reading what a server sends without trusting it: ``retry-after`` values and capped bodies."""

from __future__ import annotations

import email.utils
import math

import httpx

from hygiene.api.ratelimit import finite

# Response extension: the body was longer than the cap; what is kept is its beginning.
TRUNCATED = "hygiene.truncated"
# Headers that describe the body as sent, no longer true once it is decoded and kept here.
_BODY_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``retry-after`` value (delta seconds or HTTP date), or None.

    ``now`` is the wall-clock time (seconds since the epoch) an HTTP date is measured from.
    Negative values read as 0; ``nan``, ``inf`` and garbage as None.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    number = finite(text, 0.0, math.inf)
    if number is not None:
        return number if math.isfinite(number) else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    try:
        return max(0.0, when.timestamp() - now)
    except (OverflowError, ValueError):
        return None


def read_capped(response: httpx.Response, request: httpx.Request, cap: int) -> httpx.Response:
    """The answer with its body read (decoded) up to ``cap`` bytes; a longer one is cut.

    The original response is closed: fully read, its connection goes back to the pool; cut
    short, the connection is dropped, so the rest of a 1 GiB body is never read or stored.
    """
    chunks: list[bytes] = []
    size = 0
    truncated = False
    try:
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                truncated = True
                break
    finally:
        response.close()
    body = b"".join(chunks)[:cap]
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_HEADERS]
    extensions = dict(response.extensions)
    if truncated:
        extensions[TRUNCATED] = True
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=body,
        extensions=extensions,
        request=request,
    )


__all__ = ["TRUNCATED", "parse_retry_after", "read_capped"]
