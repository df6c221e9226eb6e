"""Secrets inside URL-encoded text: nested query strings, encoded headers and JSON.

A redirect parameter holding another URL (``next=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3D...``),
a header dumped URL-encoded (``Authorization%3A%20Bearer%20...``), JSON in a query string
(``%22password%22%3A%22...%22``), each maybe encoded twice (``%253D``): the key rules see no
separator after the key. Such a text is decoded (``%XX`` to its character, up to three times,
as long as it changes), every rule of ``mask()`` runs over the decoded view, and what they
mask there is mapped back onto the encoded characters. The replacement (a masked form, plain
text) stands where the encoded value stood.

Only the text around an encoded separator after a key hint is decoded (a cheap regex first),
so URLs with ordinary escapes cost one search.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Final

from hygiene.detection import ELLIPSIS
from hygiene.masking.context_values import JUDGED, dense_rule
from hygiene.masking.dense import Dense, add_dense_pass
from hygiene.masking.keys import KEY_HINTS
from hygiene.masking.spans import Span, alternation

# A key hint, the rest of a key, and an encoded `=`, `:` or `"` (encoded up to three times).
_ENCODED_KEY: Final = re.compile(
    rf"{alternation(KEY_HINTS)}[a-z0-9_.-]{{0,64}}(?:%(?:25){{0,3}}22)?%(?:25){{0,3}}3[ad]"
)
_ESCAPES: Final = re.compile(r"(?:%[0-9a-fA-F]{2})+")
_ROUNDS: Final = 3

Find = Callable[[str], list[Span]]


# How much around an encoded key is decoded: its key and an opening quote before it, and a
# value after it (a longer value is followed to its end: _value_tail).
_BEFORE: Final = 192
_AFTER: Final = 4096
# An encoded value's characters: anything but a space, a quote, `&`, and the escapes of
# `&`, `"`, `,`, `;` and a space (at any depth of encoding).
_VALUE: Final = r"(?:[^%&\s\"'<>]|%(?!(?:25){0,3}(?:26|22|2c|3b|20))[0-9a-f]{2})"
# (The same run in two C-speed scans: its characters, then the first encoded delimiter.)
_VALUE_RUN: Final = re.compile(r"[^&\s\"'<>]*")
_ENCODED_END: Final = re.compile(r"%(?:25){0,3}(?:26|22|2c|3b|20)|%(?![0-9a-f]{2})")
# Past the judged keys: the value after every encoded key hint, hidden unjudged.
# (Its value unrolled: runs of plain characters at C speed between the escapes.)
_ESCAPE_IN_VALUE: Final = r"%(?!(?:25){0,3}(?:26|22|2c|3b|20))[0-9a-f]{2}"
_REST: Final = dense_rule(
    rf"({alternation(KEY_HINTS)}[a-z0-9_.-]{{0,64}}(?:%(?:25){{0,3}}22)?%(?:25){{0,3}}3[ad]"
    rf"(?:%(?:25){{0,3}}(?:20|22))*)"
    rf"((?:[^%&\s\"'<>]|{_ESCAPE_IN_VALUE})[^%&\s\"'<>]*(?:{_ESCAPE_IN_VALUE}[^%&\s\"'<>]*)*)"
)


def decoded_spans(text: str, low: str, find: Find, dense: list[Dense]) -> list[Span]:
    """What ``find`` masks in the URL-decoded view of ``text``, as spans of ``text``; empty
    when no encoded separator follows a key hint.

    Bounded work: the text around each of the first :data:`JUDGED` encoded keys is decoded
    (windows do not overlap); past them, one dense pass (appended to ``dense``) hides every
    later encoded value.
    """
    matches = _ENCODED_KEY.finditer(low)
    spans: list[Span] = []
    covered = 0
    for m in itertools.islice(matches, JUDGED):
        if m.end() <= covered:
            continue  # decoded with the window before
        lo = max(covered, m.start() - _BEFORE)
        hi = min(len(text), m.end() + _AFTER)
        covered = hi
        for start, end, new in _window_spans(text[lo:hi], find):
            if end + lo == hi and hi < len(text):  # a value running on past the window
                end = _value_tail(low, hi) - lo
                new = ELLIPSIS
                covered = end + lo  # (keys inside it are part of it)
            spans.append(Span(start + lo, end + lo, new))
    later = next(matches, None)
    if later is not None:
        add_dense_pass(dense, _REST, text, low, later.start())
    return spans


def _value_tail(low: str, pos: int) -> int:
    """Where an encoded value that goes on at ``pos`` ends."""
    end = _VALUE_RUN.match(low, pos).end()  # type: ignore[union-attr]  # * always matches
    stop = _ENCODED_END.search(low, pos, end)
    return end if stop is None else stop.start()


def _window_spans(text: str, find: Find) -> list[Span]:
    """What ``find`` masks in the decoded view of ``text``, as spans of ``text``."""
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
    for m in _ESCAPES.finditer(view):
        pieces.append(view[last : m.start()])
        new_starts.extend(starts[last : m.start()])
        new_ends.extend(ends[last : m.start()])
        for char, first, past in _characters(bytes.fromhex(m.group().replace("%", ""))):
            pieces.append(char)
            new_starts.append(starts[m.start() + 3 * first])
            new_ends.append(ends[m.start() + 3 * past - 1])
        last = m.end()
    if not pieces:
        return None
    pieces.append(view[last:])
    new_starts.extend(starts[last:])
    new_ends.extend(ends[last:])
    return "".join(pieces), new_starts, new_ends


def _characters(data: bytes) -> list[tuple[str, int, int]]:
    """The characters of escaped bytes, each with the first and past-last byte it came from:
    UTF-8 sequences as one character (a masked form's `…` is one), any other byte as its
    Latin-1 character."""
    out: list[tuple[str, int, int]] = []
    i = 0
    while i < len(data):
        lead = data[i]
        size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        try:
            char = data[i : i + size].decode("utf-8") if size > 1 else chr(lead)
        except UnicodeDecodeError:
            char, size = chr(lead), 1
        if len(char) != 1:
            char, size = chr(lead), 1
        out.append((char, i, i + size))
        i += size
    return out
