"""Secrets inside URL-encoded text: nested query strings, encoded headers and JSON.

A redirect parameter holding another URL (``next=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3D...``),
a header dumped URL-encoded (``Authorization%3A%20Bearer%20...``), JSON in a query string
(``%22password%22%3A%22...%22``), each maybe encoded twice (``%253D``): the key rules see no
separator after the key. Such a text is decoded (``%XX`` to its character, up to three times,
as long as it changes), every rule of ``mask()`` runs over the decoded view, and what they
mask there is mapped back onto the encoded characters. The replacement (a masked form, plain
text) stands where the encoded value stood.

Only texts where an encoded separator follows a key hint are decoded (a cheap regex first),
so URLs with ordinary escapes cost one search.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from hygiene.masking.keys import KEY_HINTS
from hygiene.masking.spans import Span, alternation

# A key hint, the rest of a key, and an encoded `=`, `:` or `"` (encoded up to three times).
_ENCODED_KEY: Final = re.compile(
    rf"{alternation(KEY_HINTS)}[a-z0-9_.-]{{0,64}}(?:%(?:25){{0,3}}22)?%(?:25){{0,3}}3[ad]"
)
_ESCAPE: Final = re.compile(r"%([0-9a-fA-F]{2})")
_ROUNDS: Final = 3

Find = Callable[[str], list[Span]]


def decoded_spans(text: str, low: str, find: Find) -> list[Span]:
    """What ``find`` masks in the URL-decoded view of ``text``, as spans of ``text``; empty
    when no encoded separator follows a key hint."""
    if _ENCODED_KEY.search(low) is None:
        return []
    # A form encoding writes a space as `+` (a `+` of the value is `%2B`): read as a server
    # reads it, once (a `+` that decoding makes is the value's). The original text's rules
    # still see a raw `+` as part of a credential.
    view = text.replace("+", " ")
    starts = list(range(len(text)))
    ends = list(range(1, len(text) + 1))
    for _ in range(_ROUNDS):
        decoded = _decode_once(view, starts, ends)
        if decoded is None:
            break
        view, starts, ends = decoded
    if view == text:
        return []
    return [Span(starts[s], ends[e - 1], new) for s, e, new in find(view) if e > s]


def _decode_once(
    view: str, starts: list[int], ends: list[int]
) -> tuple[str, list[int], list[int]] | None:
    """``view`` with every ``%XX`` decoded, and where each of its characters came from in
    the original text (first and past-last positions); None when nothing was decoded."""
    pieces: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    last = 0
    for m in _ESCAPE.finditer(view):
        pieces.append(view[last : m.start()])
        new_starts.extend(starts[last : m.start()])
        new_ends.extend(ends[last : m.start()])
        pieces.append(chr(int(m.group(1), 16)))
        new_starts.append(starts[m.start()])
        new_ends.append(ends[m.end() - 1])
        last = m.end()
    if not pieces:
        return None
    pieces.append(view[last:])
    new_starts.extend(starts[last:])
    new_ends.extend(ends[last:])
    return "".join(pieces), new_starts, new_ends
