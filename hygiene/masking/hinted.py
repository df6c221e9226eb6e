"""Which lines of a block of ``hygiene mask``'s stream hold a hint of a secret.

The hints are the rule table's (:func:`hygiene.ruletable.gate_hints`, in any case), the
frame-variable markers, a MIME part's header, a URL password's shape and the encoded PATs'
needles. Hyperscan finds them in one pass where they are sparse; where they are dense, plain
finds skip to the end of each line they hit, for the hints the block holds at all.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from hygiene.hyperscan_db import CASELESS, SINGLEMATCH, Compiled, compile_all
from hygiene.masking import lines as context_lines
from hygiene.masking.decoded import cased_needles, may_hold_needles
from hygiene.ruletable import gate_hints

# A MIME part's header: the lines after it may carry base64 read across lines (stream.py).
MIME_HEADER: Final = b"transfer-encoding"
# The rule table's hints, in any case, and the frame-variable markers the pipe reads
# (lines.py). URLs are everywhere in logs, and `@` in them: the userinfo rule is found by
# its own pattern, only where a password is in a URL's userinfo.
HINTS: Final = (
    *(h.encode() for h in gate_hints(cased=False, skip=("userinfo",))[0]),
    *context_lines.FRAME_HINTS,
    MIME_HEADER,
)
# URLs are everywhere in logs; only those with a password in their userinfo need masking, or
# a user name long enough to be a token (credentials.is_credential_user judges it).
_USERINFO: Final = re.compile(rb"""://(?:[^/\s:@'"<>]{0,256}:[^/\s@'"<>]+|[^/?#\s:@'"<>]{8,})@""")
# Hyperscan finds every hint in one pass; below this size the plain finds cost less.
_HYPERSCAN_FROM: Final = 1 << 16
# Past one hint per this many bytes of a block, lines are found by plain searches instead.
_DENSE_HINTS: Final = 256


def lines_with_hints(data: bytes) -> list[tuple[int, int]]:
    """The lines of ``data`` (start, end: without its line end) holding a hint, in order."""
    if len(data) >= _HYPERSCAN_FROM:
        ends = _hyperscan_hint_ends(data)
        if ends is not None:
            return _lines_at(data, ends)
        present = _hints_present(data)
        if present is not None:
            return _lines_found(data, *present)
    return _lines_found(data)


def _hints_present(data: bytes) -> tuple[tuple[bytes, ...], tuple[bytes, ...]] | None:
    """The hints and the encoded PATs' needles that ``data`` holds at all, found in one SIMD
    pass (each reported once); None without Hyperscan. Where hints are dense, the plain finds
    look for these only: a find for a hint the block lacks reads the whole block, and the
    dozens of them were most of the time of an adversarial log."""
    databases = _hint_databases(single=True)
    if databases is None:  # no wheel for this platform, or it does not load: all the finds
        return None
    found: set[int] = set()
    for first, db in databases:
        db.scan(data, functools.partial(_note_id, found, first))
    hints = tuple(h for i, h in enumerate(HINTS) if i in found)
    first = len(HINTS)  # (the cased needles follow the hints)
    return hints, tuple(n for i, n in enumerate(cased_needles()) if first + i in found)


def _note_id(found: set[int], first: int, id_: int, *_match: object) -> bool:
    found.add(first + id_)  # (the id among all the databases' expressions)
    return False


def _lines_at(data: bytes, ends: list[int]) -> list[tuple[int, int]]:
    lines: list[tuple[int, int]] = []
    for end in sorted(ends):
        if lines and end <= lines[-1][1]:
            continue  # on a line already noted
        start = data.rfind(b"\n", 0, end - 1) + 1
        stop = data.find(b"\n", end - 1)
        lines.append((start, len(data) if stop == -1 else stop))
    return lines


def _hyperscan_hint_ends(data: bytes) -> list[int] | None:
    """Where hints end in ``data``, all found in one SIMD pass; None without Hyperscan, or
    when hints are dense (more than one per ``_DENSE_HINTS`` bytes: a Python call per hint
    would cost more than the plain finds, which skip to the end of each line they hit)."""
    databases = _hint_databases()
    if databases is None:  # no wheel for this platform, or it does not load: the Python finds
        return None
    ends: list[int] = []  # (in no order: the lines are sorted)
    limit = len(data) // _DENSE_HINTS

    def collect(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> bool:
        ends.append(end)
        return len(ends) > limit  # True ends the scan

    return None if any(db.scan(data, collect) for _, db in databases) else ends


@functools.cache
def _hint_databases(*, single: bool = False) -> tuple[tuple[int, Compiled], ...] | None:
    """The hints' databases, each with the id its first expression has among all: the hints
    (in any case) and the cased needles, then the userinfo pattern; ``single``: each
    expression reported once (which are present). The pattern is compiled apart: with the
    literals, Hyperscan took 14 ms to compile them (33 ms reporting each once), a twentieth
    of a huge line's masking; apart, 2 ms (10 ms), and two passes read a block about as fast
    as one."""
    # The userinfo pattern without its bounds (a wider net; bounded repeats compile slowly).
    userinfo = rb"""://(?:[^/\s:@'"<>]*:[^/\s@'"<>]+|[^/?#\s:@'"<>]{8,})@"""
    # Hex escapes: an expression is a C string, which a NUL (the UTF-16 needle's) would end.
    cased = [b"".join(b"\\x%02x" % byte for byte in n) for n in cased_needles()]
    once = SINGLEMATCH if single else 0
    literals = compile_all(
        [re.escape(h) for h in HINTS] + cased, [CASELESS | once] * len(HINTS) + [once] * len(cased)
    )
    pattern = compile_all([userinfo], [once])
    if literals is None or pattern is None:  # no wheel for this platform, or it does not load
        return None
    return (0, literals), (len(HINTS) + len(cased), pattern)


def _lines_found(
    data: bytes, hints: tuple[bytes, ...] = HINTS, cased: tuple[bytes, ...] | None = None
) -> list[tuple[int, int]]:
    """The lines holding a hint, a URL password or an encoded PAT's needle; ``hints`` and
    ``cased``: only those needles (the ones ``data`` holds), when known."""
    low = data.lower()
    lines: dict[int, int] = {}
    for hint in hints:
        pos = low.find(hint)
        while pos != -1:
            pos = _note_line(data, pos, lines)
            pos = low.find(hint, pos)
    pos = data.find(b"://")
    while pos != -1:
        if _USERINFO.match(data, pos):
            pos = _note_line(data, pos, lines)
        pos = data.find(b"://", pos + 3)
    if may_hold_needles(data):
        for needle in cased_needles() if cased is None else cased:  # encoded PATs
            pos = data.find(needle)
            while pos != -1:
                pos = _note_line(data, pos, lines)
                pos = data.find(needle, pos)
    return sorted(lines.items())


def _note_line(data: bytes, pos: int, lines: dict[int, int]) -> int:
    """Record the line holding ``pos``; return where the search goes on (the line's end)."""
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    end = len(data) if end == -1 else end
    lines[start] = end
    return end


__all__ = ["HINTS", "MIME_HEADER", "lines_with_hints"]
