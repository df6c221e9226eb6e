"""Binary field boundaries: where a token stored in a SQLite row ends.

SQLite stores a row's columns back to back with no delimiter: a PAT in a ``TEXT`` column runs
straight into the next column's bytes (``pat_AIC_…alice``), and token characters alone cannot
tell where it stops. The row's header can: it lists each column's serial type, and a text
column's type is ``13 + 2 * length``. So in a SQLite database (or its write-ahead log), a PAT
match is cut at the end of the text field it starts, when a record header that puts a text
field exactly there is found within :data:`LOOK_BACK` bytes before it. Nothing else is cut: a
header must parse whole (valid varints, valid serial types, the field's offset equal to the
match's start), which random bytes practically never do.
"""

from __future__ import annotations

SQLITE_MAGIC = b"SQLite format 3\x00"
WAL_MAGICS = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
# How far before a match a row's header may start (the header and the columns before it).
LOOK_BACK = 2048
_MAX_HEADER = 512


def is_sqlite(head: bytes) -> bool:
    """Whether a stream starting with ``head`` is a SQLite database or write-ahead log."""
    return head.startswith(SQLITE_MAGIC) or head[:4] in WAL_MAGICS


def _varint(data: bytes, pos: int, stop: int) -> tuple[int, int] | None:
    """SQLite's big-endian varint at ``pos`` (at most 9 bytes, before ``stop``)."""
    value = 0
    for i in range(9):
        if pos + i >= stop:
            return None
        byte = data[pos + i]
        if i == 8:
            return (value << 8) | byte, pos + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    return None


_FIXED = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}


def _size(serial: int) -> int | None:
    """The body size of a column of ``serial`` type (None: reserved, not a header)."""
    if serial in _FIXED:
        return _FIXED[serial]
    if serial < 12:
        return None
    return (serial - 12) // 2 if serial % 2 == 0 else (serial - 13) // 2


def _text_field_at(data: bytes, header: int, start: int) -> int | None:
    """The length of the text field a record header at ``header`` places at ``start``."""
    parsed = _varint(data, header, start)
    if parsed is None:
        return None
    size, pos = parsed
    if not 2 <= size <= _MAX_HEADER or header + size > start:
        return None
    stop, offset = header + size, header + size
    while pos < stop:
        parsed = _varint(data, pos, stop)
        if parsed is None:
            return None
        serial, pos = parsed
        length = _size(serial)
        if length is None:
            return None
        if offset == start:
            return length if serial >= 13 and serial % 2 == 1 else None
        offset += length
        if offset > start:
            return None
    return None


def field_end(data: bytes, start: int, end: int, minimum: int) -> int | None:
    """Where the text field holding ``data[start:end]`` ends, when a SQLite record header
    says so and the field is at least ``minimum`` and shorter than the match; else None."""
    for header in range(start - 2, max(-1, start - LOOK_BACK), -1):
        length = _text_field_at(data, header, start)
        if length is not None and minimum <= length < end - start:
            return start + length
    return None


__all__ = ["field_end", "is_sqlite"]
