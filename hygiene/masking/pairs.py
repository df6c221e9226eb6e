"""Credentials in name/value pairs (HAR headers, Postman ``auth`` and environments, OpenAPI
examples): ``{"key": "token", "value": "..."}`` names the credential in one field and holds it
in a sibling.

The detection core has the rules for these (``PAIR_PATTERN``, ``PAIR_TOKEN_PATTERN``); masking
asks it rather than keep a copy, and only where a text holds both a pair's value field and a
keyword of one (rare in log records), so the common record pays two substring searches.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Final

from hygiene.detection import RULES, find_secrets, masked_form
from hygiene.masking.spans import Span, splice

# The core's pair rules (the other rules' credentials are the masking rules' own).
_PAIR_RULES: Final = tuple(rule for rule in RULES if rule.name in ("pair", "pair-token"))


def may_hold_pair(low: Container[str]) -> bool:
    """Whether lowercased text may hold a credential in a name/value pair (``low``: the text,
    or what answers ``word in`` as it does: :func:`~hygiene.masking.present.words_in`)."""
    return ("value" in low or "example" in low) and (
        "uthorization" in low or "ccess_token" in low or "token" in low
    )


def pair_spans(text: str) -> list[Span]:
    """The credentials the core's pair rules find in ``text``, each as its masked form."""
    return [Span(s.start, s.end, masked_form(s.token)) for s in find_secrets(text, _PAIR_RULES)]


def mask_pair_block(data: bytes, starts: list[int]) -> bytes:
    """``data`` (whole lines of a stream) with the credentials of name/value pairs masked:
    a pair spans lines (an indented HAR or Postman file), which the line-by-line masking of
    the stream does not see together. ``starts``: where the lines holding a pair's keyword
    (the core's pair needles) start; only the lines from each to :data:`_PAIR_LINES` past it
    are read (a block of a service log holds a few among thousands of lines, and the pair
    rules' case-insensitive search, tried at every position, read all: 5 ms a megabyte)."""
    out: list[bytes] = []
    last = 0
    for start, end in _windows(data, sorted(starts)):
        part = data[start:end]
        # Lowercasing costs more than these searches (most parts hold neither word).
        if not (
            (b"alue" in part or b"ALUE" in part or b"xample" in part or b"XAMPLE" in part)
            and (b"oken" in part or b"OKEN" in part or b"uthoriz" in part or b"UTHORIZ" in part)
        ):
            continue
        text = part.decode("utf-8", "surrogateescape")
        spans = pair_spans(text) if may_hold_pair(text.lower()) else []
        if spans:
            out += (data[last:start], splice(text, spans).encode("utf-8", "surrogateescape"))
            last = end
    if not out:
        return data
    out.append(data[last:])
    return b"".join(out)


# A pair's value lies at most this many lines past its keyword's line (the keyword's own line
# end, a gap of six lines, the value's line: the core's PAIR_PATTERN).
_PAIR_LINES: Final = 8


def _windows(data: bytes, starts: list[int]) -> list[tuple[int, int]]:
    """Disjoint parts of ``data``, in order: from each keyword line (``starts``, sorted) to
    :data:`_PAIR_LINES` lines past the last keyword line within the part."""
    windows: list[tuple[int, int]] = []
    for start in starts:
        end = _lines_after(data, start)
        if windows and start < windows[-1][1]:  # (within the part before: it goes on)
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def _lines_after(data: bytes, pos: int) -> int:
    """The end of the line :data:`_PAIR_LINES` lines past the one holding ``pos``."""
    end = pos
    for _ in range(_PAIR_LINES + 1):
        end = data.find(b"\n", end) + 1
        if end == 0:
            return len(data)
    return end


__all__ = ["mask_pair_block", "may_hold_pair", "pair_spans"]
