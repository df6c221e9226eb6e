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


def mask_pair_block(data: bytes) -> bytes:
    """``data`` (whole lines of a stream) with the credentials of name/value pairs masked:
    a pair spans lines (an indented HAR or Postman file), which the line-by-line masking of
    the stream does not see together."""
    # Lowercasing a block costs more than these searches (most blocks hold neither word).
    if not (
        (b"alue" in data or b"ALUE" in data or b"xample" in data or b"XAMPLE" in data)
        and (b"oken" in data or b"OKEN" in data or b"uthoriz" in data or b"UTHORIZ" in data)
    ):
        return data
    text = data.decode("utf-8", "surrogateescape")
    spans = pair_spans(text) if may_hold_pair(text.lower()) else []
    return splice(text, spans).encode("utf-8", "surrogateescape") if spans else data


__all__ = ["mask_pair_block", "may_hold_pair", "pair_spans"]
