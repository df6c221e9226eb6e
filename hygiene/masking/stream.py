"""Masking a byte stream (``hygiene mask``): fast on big files, line by line on pipes.

Reads go through ``os.read``-like calls that return what is available: a file delivers full
1 MiB blocks, a pipe (``tail -f app.log | hygiene mask``) delivers each line as it comes, and
every complete line read is written and flushed at once. A partial last line waits for its end
(a secret may continue in it), except past ``max_line`` bytes, where it is cut at a space so
memory stays bounded.

Clean lines are copied as bytes: the block is lowercased once and searched for the hints of
:mod:`hygiene.masking.text`; only the lines around a hit are decoded (``surrogateescape``, so
invalid UTF-8 comes out byte for byte) and masked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from hygiene.masking.keys import KEY_HINTS
from hygiene.masking.text import mask

BLOCK: Final = 1 << 20
MAX_LINE: Final = 8 << 20
# A cut inside an over-long line keeps this much back, so no token is split by it.
_KEEP: Final = 8192

_HINTS: Final = (
    *(h.encode() for h in KEY_HINTS),
    b"pat_aic_",
    b"pat%5faic%5f",
    b"bearer",
    b"\x1b",
)
# URLs are everywhere in logs; only those with a password in their userinfo need masking.
_USERINFO: Final = re.compile(rb"""://[^/\s:@'"<>]{0,256}:[^/\s@'"<>]{1,1024}@""")


def mask_block(data: bytes) -> bytes:
    """``data`` (whole lines) with every secret masked; clean lines are copied untouched."""
    lines = _lines_with_hints(data)
    if not lines:
        return data
    out: list[bytes] = []
    last = 0
    for start, end in lines:
        out.append(data[last:start])
        out.append(mask_line(data[start:end]))
        last = end
    out.append(data[last:])
    return b"".join(out)


def mask_line(line: bytes) -> bytes:
    """One line of bytes, masked; bytes that are not valid UTF-8 pass through unchanged."""
    text = line.decode("utf-8", "surrogateescape")
    masked = mask(text)
    return line if masked is text else masked.encode("utf-8", "surrogateescape")


def _lines_with_hints(data: bytes) -> list[tuple[int, int]]:
    low = data.lower()
    lines: dict[int, int] = {}
    for hint in _HINTS:
        pos = low.find(hint)
        while pos != -1:
            pos = _note_line(data, pos, lines)
            pos = low.find(hint, pos)
    pos = data.find(b"://")
    while pos != -1:
        if _USERINFO.match(data, pos):
            pos = _note_line(data, pos, lines)
        pos = data.find(b"://", pos + 3)
    return sorted(lines.items())


def _note_line(data: bytes, pos: int, lines: dict[int, int]) -> int:
    """Record the line holding ``pos``; return where the search goes on (the line's end)."""
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    end = len(data) if end == -1 else end
    lines[start] = end
    return end


def mask_stream(
    read: Callable[[int], bytes],
    write: Callable[[bytes], object],
    flush: Callable[[], object],
    *,
    block: int = BLOCK,
    max_line: int = MAX_LINE,
) -> None:
    """Copy ``read`` to ``write`` masked, flushing after each batch of complete lines."""
    carry = b""
    while chunk := read(block):
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) > max_line:
            cut = _cut_long_line(data)
        if cut:
            write(mask_block(data[:cut]))
            flush()
        carry = data[cut:]
    if carry:
        write(mask_block(carry))
        flush()


def _cut_long_line(data: bytes) -> int:
    limit = len(data) - _KEEP
    space = max(data.rfind(b" ", 0, limit), data.rfind(b"\t", 0, limit))
    return space + 1 if space > 0 else limit
