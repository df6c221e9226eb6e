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
from dataclasses import dataclass

from hygiene.detection import AIC_PAT, MAX_TOKEN_LENGTH, PAT_PREFIX, RULES, Secret, iter_secrets_at

_PAT_RULE = next(rule for rule in RULES if rule.type_id == AIC_PAT)


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
_MAX_CHARS = (MAX_TOKEN_LENGTH + 16) * 8 // 3 + 8
_RUN = re.compile(rb"(?:[A-Za-z0-9+/_-]|\r?\n(?=[A-Za-z0-9+/_-]))*")
_URLSAFE = bytes.maketrans(b"-_", b"+/")


def _decode(run: bytes) -> bytes:
    usable = len(run) - len(run) % 4 if len(run) % 4 == 1 else len(run)
    padded = run[:usable] + b"=" * (-usable % 4)
    try:
        return binascii.a2b_base64(padded.translate(_URLSAFE))
    except binascii.Error:
        return b""


def _raw_offset(raw: bytes, clean_index: int) -> int:
    """Where the ``clean_index``-th base64 character of ``raw`` (line breaks skipped) lies."""
    if b"\n" not in raw:
        return clean_index
    seen = 0
    for i, byte in enumerate(raw):
        if byte in b"\r\n":
            continue
        if seen == clean_index:
            return i
        seen += 1
    return len(raw)


def secret_at(data: bytes, pos: int, needle: Needle) -> Secret | None:
    """The PAT encoded where ``needle`` lies at ``pos`` in ``data``, located on its encoded
    characters (offsets in ``data``), or None."""
    group = pos - needle.offset
    if group < 0:
        return None
    m = _RUN.match(data, group, min(len(data), group + _MAX_CHARS))
    assert m is not None  # noqa: S101 - the pattern matches the empty string
    raw = m.group()
    clean = raw.replace(b"\r", b"").replace(b"\n", b"")
    decoded = _decode(clean)
    text = decoded[needle.skip :]
    if needle.wide:
        text = text[: len(text) - len(text) % 2].decode("utf-16-le", "replace").encode()
    found = next(iter_secrets_at(text, 0, _PAT_RULE), None)
    if found is None:
        return None
    last_byte = needle.skip + found.end * (2 if needle.wide else 1) - 1
    end = group + _raw_offset(raw, min(len(clean), (last_byte // 3 + 1) * 4 - 1)) + 1
    return Secret(AIC_PAT, group, end, found.token)


# Base64 of base64 (a Kubernetes `.dockerconfigjson` holds docker's `auth` inside `data:`):
# the first-order needles, encoded in turn.
NESTED_NEEDLES: tuple[Needle, ...] = tuple(
    nested for needle in NEEDLES if not needle.wide for nested in _needles(needle.text, False)
)
_NESTED_REACH = 16 << 10
_B64_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")


def nested_at(data: bytes, pos: int) -> list[Secret]:
    """The PATs of a base64 run that holds base64 of a PAT, a nested needle lying at ``pos``:
    the run is decoded whole (up to 16 KiB each way) and searched for first-order needles;
    each PAT is located on the outer characters that carry it."""
    start = pos
    low = max(0, pos - _NESTED_REACH)
    while start > low and data[start - 1] in _B64_BYTES:
        start -= 1
    m = _RUN.match(data, start, min(len(data), pos + _NESTED_REACH))
    assert m is not None  # noqa: S101 - the pattern matches the empty string
    raw = m.group()
    decoded = _decode(raw.replace(b"\r", b"").replace(b"\n", b""))
    found = []
    for needle in NEEDLES:
        at = decoded.find(needle.text)
        while at != -1:
            inner = secret_at(decoded, at, needle)
            if inner is not None:
                first = start + _raw_offset(raw, inner.start * 4 // 3)
                last = start + _raw_offset(raw, -(-inner.end * 4 // 3) - 1) + 1
                found.append(Secret(AIC_PAT, first, last, inner.token))
            at = decoded.find(needle.text, at + 1)
    return found


__all__ = ["NEEDLES", "NESTED_NEEDLES", "Needle", "nested_at", "secret_at"]
