"""Credentials masking finds inside encodings, as the scanner does: PATs carried in base64
(a Kubernetes Secret's ``data:``, docker's ``auth``, ``.dockerconfigjson``, a whole base64
config, MIME parts) and UTF-16 fragments inside other bytes.

The scanner's own decoders (:mod:`hygiene.scan.decoders.embedded`) say where an encoded PAT
lies, so masking hides exactly what the scanner would report, never a copy of its needles.
A base64 run holding one is replaced whole, by the base64 of its decoded bytes masked (the
same alphabet, padding and line length: a Secret's ``data:`` stays valid base64 and decodes
to readable text with ``pat_AIC_…k3Xz`` in it); where that cannot be done faithfully (the
run does not decode at its start, or the masked bytes would still carry a secret), by the
base64 of the masked form alone. A UTF-16 fragment becomes its masked form in UTF-16 (same
byte order; ``pat_AIC_...k3Xz``, ASCII). Nothing a replacement leaves behind decodes to a secret: ``mask()`` stays
idempotent.

The decoders are imported on first need: most texts hold none of their needles
(:func:`may_hold_encoded`, a few ``memchr`` passes), and a logging filter should not pay for
loading the scanner.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable, Sequence
from typing import Final

from hygiene.detection import ELLIPSIS, masked_form
from hygiene.masking.spans import Span, splice

Mask = Callable[[str], str]
# The scanner's needles (hygiene.scan.decoders.b64: base64 of `pat_AIC_`, plain and UTF-16,
# and base64 of those) each hold a `Q`, `U` or `Y`; a test keeps this so. Only a text holding
# one is searched for the needles themselves.
GATE_CHARS: Final = ("Q", "U", "Y")
_LONG: Final = 256
_RUN_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_LINE_BREAK: Final = re.compile(r"\r?\n")
# What a base64 run may go on over (the decoders' runs cross line breaks; padding follows).
_RUN_ON: Final = _RUN_CHARS | frozenset("=\r\n")


@functools.cache
def encoded_needles() -> tuple[str, ...]:
    """What a text carrying an encoded PAT holds, as written: the scanner's base64 needles
    (:mod:`hygiene.scan.decoders.b64`, derived from the core's PAT prefix) and NUL (UTF-16
    interleaves them). The compiled filter is handed these with the rule table's hints."""
    from hygiene.scan.decoders import b64

    texts = tuple(n.text.decode("ascii") for n in (*b64.NEEDLES, *b64.NESTED_NEEDLES))
    return (*texts, "\x00")


@functools.cache
def _needles() -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, encoded_needles()[:-1])))


def may_hold_encoded(text: str) -> bool:
    """Whether ``text`` may carry an encoded PAT (False: :func:`encoded_spans` finds none).

    The one gate of encoded PATs: :func:`encoded_spans` (and so ``mask()``) and the filter's
    Python twin ask it; the compiled filter is handed :func:`encoded_needles` instead."""
    if "\x00" in text:  # UTF-16 interleaves NULs (rare in text: the decoders look further)
        return True
    # GATE_CHARS spelled out: three `in` tests cost a third of a loop over the tuple, and
    # this runs on every record without a hint.
    if not ("Q" in text or "U" in text or "Y" in text):
        return False
    # A long text: the decoders' own search (one Hyperscan pass) costs less than this regex.
    return len(text) >= _LONG or _needles().search(text) is not None


def may_hold_needles(data: bytes) -> bool:
    """Whether a block of a stream may hold one of :func:`cased_needles` (False: none is
    there): :func:`may_hold_encoded`'s first test, on bytes (every needle holds a gate
    character or a NUL)."""
    return b"Q" in data or b"U" in data or b"Y" in data or b"\x00" in data


def cased_needles() -> tuple[bytes, ...]:
    """What a stream's lines are searched for (case-sensitive) besides the hints of
    ``mask()``'s rules: the scanner's base64 needles and the UTF-16 ``pat_AIC_`` (either
    byte order). A line holding one goes through ``mask()``."""
    from hygiene.scan.decoders import b64, utf16

    return (*(n.text for n in (*b64.NEEDLES, *b64.NESTED_NEEDLES)), utf16.NEEDLE)


def mask_mime_block(data: bytes, mask: Mask) -> bytes:
    """``data`` (whole lines of a stream) with the PATs of its MIME base64 parts masked: a
    part is read across its line breaks, as the scanner reads it (a PAT's needle may be split
    by one, which no line alone shows)."""
    from hygiene.scan.decoders.b64 import MIME_HINTS

    if not any(hint in data for hint in MIME_HINTS):
        return data
    text = data.decode("latin-1")  # one character per byte: offsets stay byte offsets
    spans = encoded_spans(text, mask)
    return splice(text, spans).encode("latin-1") if spans else data


def encoded_spans(text: str, mask: Mask, pats: Sequence[Span] = ()) -> list[Span]:
    """The parts of ``text`` carrying an encoded PAT, each with its replacement (in order,
    apart); ``mask`` masks the text a base64 run decodes to (``mask()`` itself: passed in,
    as ``mask()`` asks here). ``pats``: plain PATs found in ``text`` (see :func:`_outside`)."""
    if not may_hold_encoded(_outside(text, pats) if pats else text):
        return []
    from hygiene.scan.decoders.embedded import embedded_secrets

    # One byte per character (a non-ASCII character is never part of base64 or of the UTF-16
    # of ASCII), so the decoders' offsets are the text's.
    data = text.encode("ascii", "replace")
    spans: list[Span] = []
    for secret in sorted(embedded_secrets(data), key=lambda s: (s.start, -s.end)):
        if spans and secret.start < spans[-1].end:
            continue  # another alignment or depth of a run already replaced
        if b"\x00" in data[secret.start : secret.end]:
            spans.append(_utf16_span(text, secret.start, secret.end, secret.token))
        else:
            span = _base64_span(text, secret.start, secret.end, secret.token, mask)
            if spans and span.start < spans[-1].end:  # runs that touch: hidden as one
                spans[-1] = Span(spans[-1].start, max(span.end, spans[-1].end), ELLIPSIS)
            else:
                spans.append(span)
    return spans


def _outside(text: str, pats: Sequence[Span]) -> str:
    """``text`` without the PATs ``pats`` that stand apart (the gate then looks only at the
    rest: a record's token holds most of its `Q`, `U` and `Y`). A PAT stands apart when no
    base64 run can go on past either of its ends (what is next to it is no run character,
    no padding, no line break): a run that meets it then lies inside it, hidden with it."""
    if len(pats) == 1:  # (a record's one token: no list, no sort)
        start, end, _ = pats[0]
        if (start > 0 and text[start - 1] in _RUN_ON) or (end < len(text) and text[end] in _RUN_ON):
            return text
        return text[:start] + text[end:]
    pieces, last = [], 0
    for start, end, _ in sorted(pats):
        if (start > 0 and text[start - 1] in _RUN_ON) or (end < len(text) and text[end] in _RUN_ON):
            continue  # a run may cross this end: its text is looked at
        pieces.append(text[last:start])
        last = max(last, end)
    pieces.append(text[last:])
    return "".join(pieces)


def _utf16_span(text: str, start: int, end: int, token: str) -> Span:
    # ASCII only (`...` for the ellipsis): each character is then its byte and a NUL, so the
    # form reads right in either byte order, even where the decoders read big-endian text as
    # little-endian shifted by one byte.
    ascii_form = masked_form(token).replace(ELLIPSIS, "...")
    codec = "utf-16-be" if text[start] == "\x00" else "utf-16-le"
    return Span(start, end, ascii_form.encode(codec).decode("latin-1"))


def _base64_span(text: str, start: int, end: int, token: str, mask: Mask) -> Span:
    """The whole base64 run around ``text[start:end]`` and what it becomes."""
    multiline = "\n" in text[start:end]
    while start > 0 and (
        text[start - 1] in _RUN_CHARS or (multiline and _continues_back(text, start))
    ):
        start -= 1
    while end < len(text) and (text[end] in _RUN_CHARS or (multiline and _continues_on(text, end))):
        end += 1
    while end < len(text) and text[end] == "=":
        end += 1
    return Span(start, end, _reencoded(text[start:end], token, mask))


def _continues_back(text: str, pos: int) -> bool:
    """A MIME line break at ``pos - 1`` with base64 before it."""
    if text[pos - 1] != "\n":
        return False
    before = pos - 2 if pos >= 2 and text[pos - 2] == "\r" else pos - 1
    return before > 0 and text[before - 1] in _RUN_CHARS


def _continues_on(text: str, pos: int) -> bool:
    """A MIME line break at ``pos`` with base64 after it."""
    m = _LINE_BREAK.match(text, pos)
    return m is not None and m.end() < len(text) and text[m.end()] in _RUN_CHARS


def _reencoded(run: str, token: str, mask: Mask) -> str:
    """``run`` (base64, maybe MIME lines) as the base64 of its decoded bytes masked."""
    lines = _LINE_BREAK.split(run)
    breaks = _LINE_BREAK.findall(run)
    clean = "".join(lines)
    urlsafe = "-" in clean or "_" in clean
    padded = clean.endswith("=")
    masked = _masked_payload(clean, urlsafe, token, mask)
    if masked is None:
        masked = masked_form(token).encode()
    encoded = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(masked).decode()
    if not padded:
        encoded = encoded.rstrip("=")
    if breaks and len(lines[0]) > 0:  # MIME: the same line length and line break
        width = len(lines[0])
        encoded = breaks[0].join(encoded[i : i + width] for i in range(0, len(encoded), width))
    return encoded


def _masked_payload(clean: str, urlsafe: bool, token: str, mask: Mask) -> bytes | None:
    """The decoded bytes of ``clean`` masked; None when they do not decode from its start or
    ``token`` survives in them (it lies at another alignment, or masking judged otherwise)."""
    body = clean.rstrip("=")
    if len(body) % 4 == 1:
        return None
    try:
        raw = body + "=" * (-len(body) % 4)
        payload = (base64.urlsafe_b64decode if urlsafe else base64.b64decode)(raw)
    except (binascii.Error, ValueError):
        return None
    masked = mask_payload(payload, mask)
    forms = (token.encode(), token.encode("utf-16-le"), token.encode("utf-16-be"))
    return None if masked == payload or any(form in masked for form in forms) else masked


def mask_payload(payload: bytes, mask: Mask) -> bytes:
    """Decoded bytes masked as text: UTF-16 (by its BOM or NUL interleaving) in UTF-16, the
    rest as UTF-8 (bytes that are not UTF-8 kept as they are)."""
    from hygiene.scan.decoders.utf16 import sniff

    found = sniff(payload)
    if found is not None:
        codec, bom = found
        body = payload[bom:]
        if len(body) % 2 == 0:
            try:
                text = body.decode(codec)
            except UnicodeDecodeError:
                text = None
            if text is not None:
                return payload[:bom] + mask(text).encode(codec)
    text = payload.decode("utf-8", "surrogateescape")
    return mask(text).encode("utf-8", "surrogateescape")


__all__ = [
    "GATE_CHARS",
    "cased_needles",
    "encoded_needles",
    "encoded_spans",
    "mask_mime_block",
    "mask_payload",
    "may_hold_encoded",
    "may_hold_needles",
]
