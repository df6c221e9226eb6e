"""PATs carried in base64: Kubernetes Secret ``data:``, docker ``config.json`` ``auth``,
``Authorization: Basic base64(user:PAT)``, PowerShell ``-EncodedCommand`` (UTF-16 inside).

Nothing is decoded blindly. ``pat_AIC_`` encodes to one of three strings depending on its
alignment in the 3-byte groups of base64; the characters that do not depend on the bytes around
it are needles. Where one lies, the run of base64 around it is decoded (a bounded window) and
the PAT rule of :mod:`hygiene.detection` judges the decoded bytes. Standard and URL-safe
alphabets share the needles (they differ only in ``+/`` against ``-_``); MIME line breaks
inside a run are skipped.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass

from hygiene.detection import AIC_PAT, MAX_TOKEN_LENGTH, PAT_PREFIX, RULES, Secret, secret_at
from hygiene.ruletable import BASE64
from hygiene.scan.decoders import utf16

# The rule the table says this decoder's output may carry (the plain PAT's).
_PAT_RULE = next(rule for rule in RULES if BASE64 in rule.decoders)


@dataclass(frozen=True)
class Needle:
    """``text`` starts ``offset`` characters into a 4-character group; the prefix starts at
    byte ``skip`` of the group's 3 decoded bytes; ``wide``: the text encoded is UTF-16LE."""

    text: bytes
    offset: int
    skip: int
    wide: bool


def _needles(prefix: bytes, wide: bool) -> list[Needle]:
    found = []
    for skip in range(3):
        low = base64.b64encode(b"\x00" * skip + prefix + b"\x00\x00\x00")
        high = base64.b64encode(b"\xff" * skip + prefix + b"\xff\xff\xff")
        # The characters every encoding of the prefix at this alignment holds.
        stable = [i for i, (a, b) in enumerate(zip(low, high, strict=True)) if a == b]
        first = stable[0]
        last = first
        while last + 1 in stable:
            last += 1
        found.append(Needle(low[first : last + 1], first % 4, skip, wide))
    return found


NEEDLES: tuple[Needle, ...] = tuple(
    _needles(PAT_PREFIX.encode(), False) + _needles(PAT_PREFIX.encode("utf-16-le"), True)
)
# Characters of a base64 run from a group start: enough for the longest PAT, MIME line breaks
# allowed between characters.
# Base64 of base64 (a Kubernetes `.dockerconfigjson` holds docker's `auth` inside `data:`):
# the first-order needles, encoded in turn.
NESTED_NEEDLES: tuple[Needle, ...] = tuple(
    nested for needle in NEEDLES for nested in _needles(needle.text, False)
)

_FIRST_ORDER = tuple(needle.text for needle in NEEDLES)
# Characters of a base64 run that encode the longest PAT (plain or UTF-16).
_MARGIN = (2 * MAX_TOKEN_LENGTH + 32) * 4 // 3 + 8
# A needle's first look: enough for a PAT of 40 characters or so.
_SHORT_WINDOW = 96
# A window decoded at once: eight margins, so each window moves seven margins on.
WINDOW = 8 * _MARGIN
# A run of base64; MIME line breaks inside it are skipped over (one regex: no Python per line).
_RUN = re.compile(rb"[A-Za-z0-9+/_-]*(?:\r?\n[A-Za-z0-9+/_-]+)*")
# The fewest characters that carry a PAT (`pat_AIC_` and 8 more: 16 bytes) at any alignment.
SHORTEST = 22
_URLSAFE = bytes.maketrans(b"-_", b"+/")


def _decode(run: bytes) -> bytes:
    usable = len(run) - len(run) % 4 if len(run) % 4 == 1 else len(run)
    padded = run[:usable] + b"=" * (-usable % 4)
    if b"-" in padded or b"_" in padded:
        padded = padded.translate(_URLSAFE)
    try:
        return binascii.a2b_base64(padded)
    except binascii.Error:
        return b""


def _raw_offset(raw: bytes, clean_index: int) -> int:
    """Where the ``clean_index``-th base64 character of ``raw`` (line breaks skipped) lies."""
    if b"\n" not in raw:
        return min(clean_index, len(raw))
    seen = 0
    for i, byte in enumerate(raw):
        if byte in b"\r\n":
            continue
        if seen == clean_index:
            return i
        seen += 1
    return len(raw)


def pats_in(decoded: bytes) -> Iterator[Secret]:
    """The PATs in decoded bytes, plain or UTF-16 (offsets in ``decoded``)."""
    # The pattern finds candidates at C speed; the core judges each (extent, placeholders).
    for m in _PAT_RULE.data.finditer(decoded):
        found = secret_at(decoded, m.start(), _PAT_RULE)
        if found is not None:
            yield found
    for at in utf16.candidates(decoded):
        found = utf16.secret_at(decoded, at)
        if found is not None:
            yield found


def _run_at(data: bytes, start: int, limit: int) -> bytes:
    """The base64 run of ``data`` from ``start`` to ``limit`` at most, MIME line breaks kept."""
    m = _RUN.match(data, start, limit)
    assert m is not None  # noqa: S101 - the pattern matches the empty string
    return m.group()


def _decoded_pats(decoded: bytes, depth: int) -> list[Secret]:
    found = list(pats_in(decoded))
    if depth < 2:
        found += _nested(decoded)
    return found


def _nested(decoded: bytes) -> list[Secret]:
    """PATs in base64 inside ``decoded`` (base64 of base64), offsets in ``decoded``."""
    if len(decoded) < SHORTEST:
        return []
    found = mime_secrets(decoded, len(decoded), depth=2)
    if any(needle in decoded for needle in _FIRST_ORDER):
        found += by_runs(decoded, len(decoded), _FIRST_ORDER, depth=2)
    return found


# What the header that starts a base64 part (`Content-Transfer-Encoding`) holds in its usual
# spellings: callers holding a faster search for these literals (one SIMD pass for many
# needles) pass ``checked`` to :func:`mime_secrets`. (Case-sensitive on purpose: a caseless
# literal slowed that pass six times over on a log.)
MIME_HINTS = (b"ransfer-", b"RANSFER-")
_MIME_PART = re.compile(rb"(?i:content-transfer-encoding):[ \t]*(?i:base64)[ \t]*\r?\n")
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def mime_secrets(data: bytes, end: int, depth: int = 1, *, checked: bool = False) -> list[Secret]:
    """PATs in the base64 parts of e-mail (MIME): a part's body is read across its line
    breaks, so a needle split by one is not missed. ``checked``: the caller saw one of
    :data:`MIME_HINTS` in ``data`` (the quick tests here are then skipped)."""
    found: list[Secret] = []
    # Quick tests before the case-insensitive header search (code mentions base64 often; a
    # MIME header is rare): `Content-Transfer-Encoding` in its usual spellings. Each `in` is a
    # full pass over the buffer (measured: 90 us of the 125 us a 64 KiB chunk of a log costs),
    # so the embedded hook finds the header in its Hyperscan pass instead where it can.
    if not checked and not _may_be_mime(data):
        return found
    for header in _MIME_PART.finditer(data, 0, end):
        blank = _BLANK_LINE.search(data, header.start(), end)
        if blank is None:
            continue
        start = blank.end()
        while start < end:
            secrets, done = window_secrets(data, start, depth, phases=(0,))
            found += secrets
            if done - start < SHORTEST:
                break
            start = done
    return found


# Base64 characters as `A`, the rest as `.`: a run long enough to carry a PAT is `A` * 22.
_MASK = bytes(
    ord("A") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/_-") else ord(".")
    for b in range(256)
)


def _may_be_mime(data: bytes) -> bool:
    if b"ase64" not in data and b"ASE64" not in data:
        return False
    return any(hint in data for hint in MIME_HINTS)


def by_runs(data: bytes, end: int, needles: tuple[bytes, ...], depth: int = 1) -> list[Secret]:
    """Every base64 run of ``data[:end]`` long enough to carry a PAT and holding one of
    ``needles``, decoded window by window (each byte once): for dense needles, where a step per
    needle would crawl. Runs are located in a translated copy (base64 characters as ``A``) with
    ``bytes.find``, at C speed."""
    mask = data[:end].translate(_MASK)
    long_run = b"A" * SHORTEST
    found: list[Secret] = []
    pos = mask.find(long_run)
    while pos != -1:
        run_start = mask.rfind(b".", 0, pos) + 1
        run_end = mask.find(b".", pos)
        run_end = end if run_end == -1 else run_end
        run = data[run_start:run_end]
        if any(needle in run for needle in needles):
            start = run_start
            while start < run_end:
                # A run starts at a group boundary: one alignment, windows kept in step. (Not
                # so in a decoded window, which may start inside the inner run.)
                phases = (0,) if depth == 1 else (0, 1, 2, 3)
                secrets, start = window_secrets(data, start, depth, phases)
                found += secrets
            run_end = max(run_end, start)
        pos = mask.find(long_run, run_end)
    return found


def run_back(data: bytes, pos: int, most: int) -> int:
    """``pos`` moved back over at most ``most`` base64 characters."""
    low = max(0, pos - most)
    while pos > low and data[pos - 1] in _B64_BYTES:
        pos -= 1
    return pos


_B64_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")


def needle_secrets(data: bytes, group: int) -> list[Secret]:
    """The PAT encoded from the 4-character group at ``group`` (where a first-order needle put
    it), located on its groups: a short window first, the longest PAT's only when needed."""
    found: list[Secret] = []
    for size in (_SHORT_WINDOW, _MARGIN):
        raw = _run_at(data, group, min(len(data), group + size))
        found, _ = window_secrets(data, group, depth=2, phases=(0,), limit=size)
        if len(raw) < size or all(s.end < group + len(raw) for s in found):
            break
    return found


def window_secrets(
    data: bytes,
    start: int,
    depth: int = 1,
    phases: tuple[int, ...] = (0, 1, 2, 3),
    limit: int = 0,
) -> tuple[list[Secret], int]:
    """The PATs carried in base64 from ``start`` on (a bounded window, decoded at each of
    ``phases``: every alignment by default), each located on the 4-character groups that encode
    it; and the offset up to which the window answered (a needle before it needs no other look;
    a window after it starts there, at the same alignment)."""
    size = limit or WINDOW
    raw = _run_at(data, start, min(len(data), start + size))
    if len(raw) < SHORTEST:
        return [], start + max(len(raw), 1)
    clean = raw.replace(b"\r", b"").replace(b"\n", b"") if b"\n" in raw else raw
    # A run going on past the window: a PAT in its last margin is left to the next window.
    cut = len(raw) >= size - 8 and not limit
    bound = start + (_raw_offset(raw, (len(clean) - _MARGIN) // 4 * 4) if cut else len(raw))
    found = []
    for phase in phases:
        for secret in _decoded_pats(_decode(clean[phase:]), depth):
            first = phase + secret.start // 3 * 4
            last = min(len(clean), phase + ((secret.end - 1) // 3 + 1) * 4)
            where = start + _raw_offset(raw, first)
            if where < bound or not cut:
                end = start + _raw_offset(raw, last - 1) + 1
                found.append(Secret(AIC_PAT, where, end, secret.token))
    return found, max(bound, start + 1)


__all__ = [
    "MIME_HINTS",
    "NEEDLES",
    "NESTED_NEEDLES",
    "SHORTEST",
    "WINDOW",
    "Needle",
    "by_runs",
    "pats_in",
    "window_secrets",
]
