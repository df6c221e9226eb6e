"""What a line of ``hygiene mask`` needs beyond itself: the lines before it, and tracebacks'
frame variables.

The stream masks line by line, but some credentials are named on another line than the one
holding them: a Kubernetes ``- name: API_TOKEN`` above its ``value:``, a netrc ``machine``
above its ``password``, an ``Authorization`` header above its folded continuation. A line
that *opens* such a context (:func:`opens`) has the next :data:`FOLLOWING` lines masked with
it, and a line that needs one (:func:`needs_before`) is masked with the lines before it; the
stream keeps the last lines of each block for the next (a pipe delivers one line at a time).
Only the masked line's own spans are applied: the lines before were written already.

A traceback with locals (loguru's ``diagnose``, structlog's ``dict_tracebacks``) shows a
variable's value under any name (``current = 'eyJ...'``): lines holding their markers
(:data:`FRAME_HINTS`) are masked as :func:`~hygiene.masking.recipes.frames.mask_rendered`
masks rendered frames, loguru's values cut at 128 characters (``'eyJ...``) included.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Final

from hygiene.detection import ELLIPSIS
from hygiene.masking.keys import is_sensitive_key, safe_masked_form
from hygiene.masking.recipes.frames import mask_rendered
from hygiene.masking.spans import Span, splice, without_overlaps
from hygiene.masking.text import find_spans, mask
from hygiene.masking.values import looks_random

# How many lines after an opening line may hold what it names, and how many lines before a
# line are read with it (a netrc entry: machine, login, account, password).
FOLLOWING: Final = 3
BEFORE: Final = 4
# The lines kept for the next block are cut to this many bytes (a longer line gives no
# context: it would cost every following line a long masking).
MAX_CONTEXT: Final = 4096

# Markers of rendered frame variables (bytes: the stream searches its blocks for them):
# loguru's `└ value` under a source line, structlog's `"locals": {...}`.
FRAME_HINTS: Final = ("\u2514".encode(), b'"locals"')

_NAME_LINE: Final = re.compile(
    r"""(?:^|[\s{,-])\\?["']?name\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<name>[a-z0-9_.-]{1,64})"""
)
_HEADER_LINE: Final = re.compile(r"[ \t]*(?:proxy-)?authorization[ \t]*:")
# Each starts with its word and looks behind it after: `re` skips to each occurrence at C
# speed, where `(?:^|\s)` first was tried at every position (a fifth of a second on 4 MB).
_NETRC_LINES: Final = tuple(
    (word, re.compile(rf"{word}(?<!\S{word})(?:\s|$)")) for word in ("machine", "default")
)
_BARE_PASSWORD: Final = re.compile(r"password(?<!\Spassword)[ \t]+\S")
# A quoted value that loguru cut at 128 characters (`└ 'value...`, `└ ['a', 'value...`):
# no closing quote for mask_rendered to find.
_CUT: Final = re.compile(r"""(?P<q>['"])(?P<value>[A-Za-z0-9._~+/=-]{16,})\.\.\.$""")


# What a line that opens or needs a context holds (bytes: the stream looks for them first).
CONTEXT_WORDS: Final = (b"name", b"authoriz", b"machine", b"default", b"password")


def opens(low: str, seen: Container[str] | None = None) -> bool:
    """Whether the lowercased line ``low`` names a credential that following lines hold;
    ``seen``: what answers ``word in`` as ``low`` does (:func:`~hygiene.masking.present.words_in`)."""
    if seen is None:
        seen = low
    if "name" in seen and "value" not in seen:
        m = _NAME_LINE.search(low)
        # (upper: an environment variable's `*_PASS` names a password only in capitals)
        if m is not None and is_sensitive_key(m.group("name").upper()):
            return True
    if "authoriz" in seen and _HEADER_LINE.match(low):
        return True
    return any(word in seen and line.search(low) is not None for word, line in _NETRC_LINES)


def needs_before(low: str, seen: Container[str] | None = None) -> bool:
    """Whether the lowercased line ``low`` holds a value that lines before it name (a netrc
    ``password`` on a line of its own); ``seen`` as for :func:`opens`."""
    return "password" in (low if seen is None else seen) and _BARE_PASSWORD.search(low) is not None


def mask_with_before(before: str, line: str) -> str:
    """``line`` masked as the end of ``before + line``: what rules reading the lines before
    find in it, and what :func:`~hygiene.masking.mask` finds in the line alone."""
    offset = len(before)
    spans = list(find_spans(line))
    for start, end, new in find_spans(before + line):
        if end > offset:
            if start < offset:  # begun in a line written already: hide the rest whole
                start, new = offset, ELLIPSIS
            spans.append(Span(start - offset, end - offset, new))
    return splice(line, without_overlaps(spans)) if spans else line


def mask_frame_line(line: str) -> str:
    """A line of a rendered traceback with locals, masked (module docs)."""
    masked = mask_rendered(line)
    if "\u2514" not in masked:
        return masked
    m = _CUT.search(masked)
    if m is None or not looks_random(m.group("value")):
        return masked
    return (
        masked[: m.start("value")] + safe_masked_form(m.group("value")) + masked[m.end("value") :]
    )


def tail(data: bytes) -> bytes:
    """The last :data:`BEFORE` lines of ``data`` (whole lines), kept for the next block;
    nothing when they are longer than :data:`MAX_CONTEXT` bytes."""
    start = len(data)
    for _ in range(BEFORE):
        start = data.rfind(b"\n", 0, max(0, start - 1)) + 1
        if start == 0:
            break
    return data[start:] if len(data) - start <= MAX_CONTEXT else b""


_FRAME_MARKS: Final = tuple(hint.decode() for hint in FRAME_HINTS)


def mask_text(text: str) -> str:
    """``mask(text)``, and its lines that show frame variables masked as
    :func:`mask_frame_line` masks them (what the stream guard writes: loguru's ``diagnose``
    through a sink that held ``sys.stderr``)."""
    masked = mask(text)
    if not any(mark in masked for mark in _FRAME_MARKS):
        return masked
    return "".join(
        mask_frame_line(line) if any(mark in line for mark in _FRAME_MARKS) else line
        for line in masked.splitlines(keepends=True)
    )


def is_frame_line(line: bytes) -> bool:
    """Whether ``line`` holds a marker of rendered frame variables."""
    return any(hint in line for hint in FRAME_HINTS)


__all__ = [
    "BEFORE",
    "CONTEXT_WORDS",
    "FOLLOWING",
    "FRAME_HINTS",
    "MAX_CONTEXT",
    "is_frame_line",
    "mask_frame_line",
    "mask_text",
    "mask_with_before",
    "needs_before",
    "opens",
    "tail",
]
