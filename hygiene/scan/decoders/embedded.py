"""Secrets encoded inside text being scanned (base64, UTF-16 fragments): the scanner's
:data:`~hygiene.scan.matcher.engine.Refine` hook, and a plain function over bytes for sources
that scan pieces (history).

Needles first, as the matcher does: a buffer lacking a needle's rarest bytes is skipped with a
memchr, so text without base64 or UTF-16 costs a few passes of ``in``.
"""

from __future__ import annotations

from hygiene.detection import AIC_PAT, BEARER_TOKEN, Secret, drop_overlaps
from hygiene.scan.decoders import b64, utf16
from hygiene.scan.matcher.needles import NeedleFinder, literals_database
from hygiene.scan.matcher.needles import finder_for as matcher_finder_for

# Bytes from the rarest to the most common in text and code.
_RARITY = b"ZQXJKVBPYGFWMUCLDRHSNIOATEzqxjkvbpygfwmucldrhsnioate"


def _rare(needle: bytes, count: int) -> tuple[bytes, ...]:
    ranked = sorted(set(needle), key=lambda b: _RARITY.find(b) % (len(_RARITY) + 1))
    return tuple(bytes([b]) for b in ranked[:count])


# Every needle starts a window of base64 decoded at every alignment (first-order needles:
# base64 of a PAT, plain or UTF-16; nested ones: base64 of that). The UTF-16 needle is decoded
# where it lies.
_B64_NEEDLES = tuple(
    (n.text, _rare(n.text, 3), n.offset, nested)
    for nested, group in ((False, b64.NEEDLES), (True, b64.NESTED_NEEDLES))
    for n in group
)
_ALL_TEXTS = tuple(needle for needle, _, _, _ in _B64_NEEDLES)
# The Hyperscan pass also looks for the MIME header's hints and the UTF-16 needle: it saves the
# mime search's own quick tests (four passes of `in` over every buffer) and the UTF-16
# candidates' regex pass wherever a buffer holds NUL bytes and a `C` (binary files).
_MIME_IDS = frozenset(range(len(_ALL_TEXTS), len(_ALL_TEXTS) + len(b64.MIME_HINTS)))
_UTF16_ID = len(_ALL_TEXTS) + len(b64.MIME_HINTS)
_TEXTS = (*_ALL_TEXTS, *b64.MIME_HINTS, utf16.NEEDLE)
_LONGEST = max(map(len, _TEXTS))
# What a finder made by finder_for() looks for besides the rules' needles (ids: indexes here).
NEEDLE_TEXTS = _TEXTS
_UTF16_RARE = (b"\x00", b"C")


def _present(data: bytes, rare: tuple[bytes, ...], seen: dict[bytes, bool]) -> bool:
    for byte in rare:
        # Needles share their rare bytes (most hold `Q`): each is looked for once per buffer.
        here = seen.get(byte)
        if here is None:
            here = seen[byte] = byte in data
        if not here:
            return False
    return True


# Needle hits in one buffer beyond which it is read run by run instead (dense needles, as in
# adversarial input: a Python step per hit would crawl).
DENSE = 32


def _needles_present(data: bytes, end: int) -> frozenset[int] | None:
    """The indexes of the needles in ``data[:end + longest]`` (:data:`_MIME_IDS`: the MIME
    header's hints, :data:`_UTF16_ID`: the UTF-16 needle), found in one SIMD pass; None where
    Hyperscan is not there (the rare-byte prefilter and ``bytes.find`` then decide).
    In source code every needle's rare bytes are present in most chunks, so a pass of
    ``bytes.find`` per needle would cost more than the whole scan (measured: 0.38 s of a
    0.9 s scan of a 98 MB source tree)."""
    db = literals_database(_TEXTS)
    if db is None:
        return None
    ids: set[int] = set()

    def seen(needle_id: int, _start: int, _end: int, _flags: int, _ctx: object) -> None:
        ids.add(needle_id)

    # A view, not a slice: no copy of the buffer.
    db.scan(memoryview(data)[: end + _LONGEST], seen)
    return frozenset(ids)


def _base64_secrets(
    data: bytes, end: int, seen: dict[bytes, bool], present: frozenset[int] | None
) -> list[Secret]:
    found: list[Secret] = []
    if present is not None and present.isdisjoint(range(len(_ALL_TEXTS))):
        return found  # no base64 needle: the common case, without a step per needle
    covered: list[tuple[int, int]] = []  # nested needles: runs decoded whole
    hits = 0
    for index, (needle, rare, offset, nested) in enumerate(_B64_NEEDLES):
        if present is not None and index not in present:
            continue
        if present is None and not _present(data, rare, seen):
            continue
        pos = data.find(needle, 0, end + len(needle))
        while pos != -1 and pos < end:
            start = max(0, pos - offset)
            done = next((b for a, b in covered if a <= start < b), 0) if nested else 0
            if done:  # inside a run decoded whole already: on past it
                pos = data.find(needle, max(pos + 1, done - len(needle)), end + len(needle))
                continue
            hits += 1
            if hits > DENSE:
                return found + b64.by_runs(data, end, _ALL_TEXTS)
            if not nested:
                found += b64.needle_secrets(data, start)
            else:
                # Some outer groups back too: the inner group holding `p` may start before
                # the inner needle, and so before the outer needle's group.
                start = b64.run_back(data, start, 16)
                secrets, done = b64.window_secrets(data, start)
                found += secrets
                covered.append((start, done))
            pos = data.find(needle, pos + 1, end + len(needle))
    return found


def embedded_secrets(
    data: bytes, cut: int | None = None, present: frozenset[int] | None = None
) -> list[Secret]:
    """The PATs encoded in ``data`` (base64, UTF-16) whose encoded text starts before ``cut``,
    each located on its encoded text. ``present``: which of :data:`NEEDLE_TEXTS` ``data``
    holds, where the scanner's finder told already (a superset does no harm)."""
    end = len(data) if cut is None else cut
    seen: dict[bytes, bool] = {}
    if present is None:
        present = _needles_present(data, end)
    found = _base64_secrets(data, end, seen, present)
    if present is None:
        found += b64.mime_secrets(data, end)
    elif not present.isdisjoint(_MIME_IDS):
        found += b64.mime_secrets(data, end, checked=True)
    if _UTF16_ID in present if present is not None else _present(data, _UTF16_RARE, seen):
        after = 0
        for pos in utf16.candidates(data, 0, end):
            if pos < after:
                continue  # a needle inside a PAT found is part of it
            secret = utf16.secret_at(data, pos)
            if secret is not None:
                found.append(secret)
                after = secret.end
    return _unique(found)


def _unique(found: list[Secret]) -> list[Secret]:
    # Windows at several alignments and nested decodes may find one PAT twice.
    return list({(s.start, s.token): s for s in found}.values())


def refine(
    data: bytes, cut: int, found: list[Secret], present: frozenset[int] | None = None
) -> list[Secret]:
    """The scanner's hook: ``found`` plus the encoded PATs. A bearer credential that carries
    one (``Basic base64(user:PAT)``) is that PAT: the PAT's fingerprint is the one an
    inventory holds, so it is reported instead. ``present``: see :func:`embedded_secrets`."""
    extra = embedded_secrets(data, cut, present)
    if not extra:
        return found
    kept = [
        s
        for s in found
        if s.type_id != BEARER_TOKEN or not any(e.start < s.end and s.start < e.end for e in extra)
    ]
    return kept + extra


def finder_for(size: int | None) -> NeedleFinder:
    """The matcher's finder for an input of ``size`` bytes that also looks for
    :data:`NEEDLE_TEXTS`, so that :func:`refine` needs no pass of its own."""
    return matcher_finder_for(size, NEEDLE_TEXTS)


def decoded_secrets(data: bytes) -> list[Secret]:
    """Every secret of ``data`` the decoders add to the rules' own (in order, no overlaps):
    for sources that scan pieces of text themselves."""
    return drop_overlaps([s for s in embedded_secrets(data) if s.type_id == AIC_PAT])


__all__ = ["NEEDLE_TEXTS", "decoded_secrets", "embedded_secrets", "finder_for", "refine"]
