"""Secrets encoded inside text being scanned (base64, UTF-16 fragments): the scanner's
:data:`~hygiene.scan.matcher.engine.Refine` hook, and a plain function over bytes for sources
that scan pieces (history).

Needles first, as the matcher does: a buffer lacking a needle's rarest bytes is skipped with a
memchr, so text without base64 or UTF-16 costs a few passes of ``in``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from hygiene.detection import AIC_PAT, BEARER_TOKEN, Secret, drop_overlaps
from hygiene.scan.decoders import b64, utf16

# Bytes from the rarest to the most common in text and code.
_RARITY = b"ZQXJKVBPYGFWMUCLDRHSNIOATEzqxjkvbpygfwmucldrhsnioate"


def _rare(needle: bytes, count: int) -> tuple[bytes, ...]:
    ranked = sorted(set(needle), key=lambda b: _RARITY.find(b) % (len(_RARITY) + 1))
    return tuple(bytes([b]) for b in ranked[:count])


Finder = Callable[[bytes, int], list[Secret]]


def _one(finder: Callable[[bytes, int], Secret | None]) -> Finder:
    def listed(data: bytes, pos: int) -> list[Secret]:
        found = finder(data, pos)
        return [] if found is None else [found]

    return listed


_SEARCHES: tuple[tuple[bytes, tuple[bytes, ...], Finder], ...] = (
    *(
        (n.text, _rare(n.text, 3), _one(functools.partial(b64.secret_at, needle=n)))
        for n in b64.NEEDLES
    ),
    *((n.text, _rare(n.text, 3), b64.nested_at) for n in b64.NESTED_NEEDLES),
    (utf16.NEEDLE, (b"\x00", b"C"), _one(utf16.secret_at)),
)


def _positions(
    data: bytes, needle: bytes, rare: tuple[bytes, ...], end: int, present: dict[bytes, bool]
) -> Iterator[int]:
    for byte in rare:
        # Needles share their rare bytes (five hold `Q`): each is looked for once per buffer.
        seen = present.get(byte)
        if seen is None:
            seen = present[byte] = byte in data
        if not seen:
            return
    pos = data.find(needle, 0, end + len(needle))
    while pos != -1:
        if pos < end:
            yield pos
        pos = data.find(needle, pos + 1, end + len(needle))


def embedded_secrets(data: bytes, cut: int | None = None) -> list[Secret]:
    """The PATs encoded in ``data`` (base64, UTF-16) whose encoded text starts before ``cut``,
    each located on its encoded text."""
    end = len(data) if cut is None else cut
    found: list[Secret] = []
    present: dict[bytes, bool] = {}
    for needle, rare, finder in _SEARCHES:
        for pos in _positions(data, needle, rare, end, present):
            found.extend(finder(data, pos))
    return found


def refine(data: bytes, cut: int, found: list[Secret]) -> list[Secret]:
    """The scanner's hook: ``found`` plus the encoded PATs. A bearer credential that carries
    one (``Basic base64(user:PAT)``) is that PAT: the PAT's fingerprint is the one an
    inventory holds, so it is reported instead."""
    extra = embedded_secrets(data, cut)
    if not extra:
        return found
    kept = [
        s
        for s in found
        if s.type_id != BEARER_TOKEN or not any(e.start < s.end and s.start < e.end for e in extra)
    ]
    return kept + extra


def decoded_secrets(data: bytes) -> list[Secret]:
    """Every secret of ``data`` the decoders add to the rules' own (in order, no overlaps):
    for sources that scan pieces of text themselves."""
    return drop_overlaps([s for s in embedded_secrets(data) if s.type_id == AIC_PAT])


__all__ = ["decoded_secrets", "embedded_secrets", "refine"]
