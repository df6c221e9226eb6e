"""Reading what a server sends without trusting it: ``retry-after`` values and capped bodies.

Bodies are read as sent, never decoded: every request asks for ``Accept-Encoding: identity``,
and an answer with any other ``Content-Encoding`` is refused unread
(:class:`CompressedAnswer`). Decoding would run before any cap could apply: 131 KB of zstd
unfold into 4 GB in one call of the decoder, so capping decoded bytes is already too late.
"""

from __future__ import annotations

import email.utils
import math
import re
from collections.abc import Iterator

import httpx

from hygiene.api.ratelimit import finite

# Response extension: the body was longer than the cap; what is kept is its beginning.
TRUNCATED = "hygiene.truncated"
# Headers that describe the body as sent, no longer true once it is decoded and kept here.
_BODY_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
IDENTITY = "identity"
# How an encoding the server named may be shown in a message: a short known-shaped word.
_SHOWN_CODING = re.compile(r"[A-Za-z0-9._-]{1,20}")


class CompressedAnswer(httpx.DecodingError):
    """An answer with a ``Content-Encoding`` other than identity: refused, never decoded."""


def content_codings(response: httpx.Response) -> list[str]:
    """The answer's content codings (lower case), identity and empty entries left out."""
    codings: list[str] = []
    for value in response.headers.get_list("content-encoding"):
        codings += [c.strip().lower() for c in value.split(",")]
    return [c for c in codings if c and c != IDENTITY]


def _shown(codings: list[str]) -> str:
    words = [c if _SHOWN_CODING.fullmatch(c) else "?" for c in codings[:3]]
    return ", ".join(words) + (", ..." if len(codings) > 3 else "")


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


def _raw(response: httpx.Response) -> Iterator[bytes]:
    if response.is_stream_consumed:
        # Built in memory (a mock transport's answer): nothing left on the wire to bound.
        yield response.content
        return
    yield from response.iter_raw()


def read_capped(response: httpx.Response, request: httpx.Request, cap: int) -> httpx.Response:
    """The answer with its body read as sent up to ``cap`` bytes; a longer one is cut.

    Raises :class:`CompressedAnswer` (the body unread) for a ``Content-Encoding`` other than
    identity. The original response is closed: fully read, its connection goes back to the
    pool; cut short or refused, the connection is dropped, so the rest of a 1 GiB body is never
    read or stored.
    """
    codings = content_codings(response)
    if codings:
        response.close()
        raise CompressedAnswer(
            f"the answer is compressed (Content-Encoding: {_shown(codings)}) though identity "
            "was asked for; refused unread",
            request=request,
        )
    chunks: list[bytes] = []
    size = 0
    truncated = False
    try:
        for chunk in _raw(response):
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


__all__ = [
    "IDENTITY",
    "TRUNCATED",
    "CompressedAnswer",
    "content_codings",
    "parse_retry_after",
    "read_capped",
]
