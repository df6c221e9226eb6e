"""UTF-16 text (PowerShell output, ``.reg`` exports), little- and big-endian, with or without
a byte order mark.

A stream whose head is UTF-16 (a BOM, or the NUL-interleaving of ASCII text) is transcoded to
UTF-8 as it is read, so every rule applies and lines and columns count in the text. Inside
other bytes (a binary's resources, a database page) the UTF-16 form of ``pat_AIC_`` is a needle,
decoded around where it lies.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable, Iterator

from hygiene.detection import AIC_PAT, MAX_TOKEN_LENGTH, PAT_PREFIX, RULES, Secret
from hygiene.detection import secret_at as rule_secret_at
from hygiene.ruletable import UTF16

Reader = Callable[[int], bytes]

# Common to both byte orders: LE is `p\0a\0...`, BE is `\0p\0a...`.
NEEDLE = PAT_PREFIX.encode("utf-16-le")[:-1]
# The rule the table says this decoder's output may carry (the plain PAT's).
_PAT_RULE = next(rule for rule in RULES if UTF16 in rule.decoders)
_PRINTABLE = frozenset(b"\t\n\r" + bytes(range(0x20, 0x7F)))
_SAMPLE = 512
_SHORT = 2 * (len(PAT_PREFIX) + 64)


def sniff(head: bytes) -> tuple[str, int] | None:
    """The codec of a stream starting with ``head`` and how many BOM bytes to skip, when it is
    UTF-16 text; else None. Without a BOM, nearly every other byte must be NUL and the others
    printable ASCII (binary files full of NULs are not text)."""
    if head.startswith(codecs.BOM_UTF16_LE) and not head.startswith(codecs.BOM_UTF32_LE):
        return "utf-16-le", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", 2
    sample = head[: min(len(head), _SAMPLE) // 2 * 2]
    if len(sample) < 16 or b"\x00" not in sample:  # a memchr: most heads hold no NUL
        return None
    even, odd = sample[0::2], sample[1::2]
    for text, zeros, codec in ((even, odd, "utf-16-le"), (odd, even, "utf-16-be")):
        if zeros.count(0) >= 0.95 * len(zeros) and _mostly_printable(text):
            return codec, 0
    return None


def _mostly_printable(text: bytes) -> bool:
    return sum(b in _PRINTABLE for b in text) >= 0.95 * len(text)


def transcoder(read: Reader, codec: str) -> Reader:
    """``read`` of UTF-16 bytes as a reader of the same text in UTF-8 (bad units replaced)."""
    decoder = codecs.getincrementaldecoder(codec)("replace")

    def transcoded(n: int) -> bytes:
        while True:
            raw = read(n)
            text = decoder.decode(raw, final=not raw)
            if text or not raw:
                return text.encode("utf-8", "surrogatepass")

    return transcoded


# UTF-16 of `pat_AIC_` and eight token characters, either byte order: candidates located at C
# speed; each is then decoded and judged by the core.
_TOKEN = rb"[A-Za-z0-9_-]"
_CANDIDATES_PATTERN = (
    re.escape(PAT_PREFIX.encode("utf-16-le"))
    + rb"(?:"
    + _TOKEN
    + rb"\x00){8}"
    + rb"|"
    + re.escape(PAT_PREFIX.encode("utf-16-be")[1:])
    + rb"(?:\x00"
    + _TOKEN
    + rb"){8}"
)


@functools.cache
def _candidates() -> re.Pattern[bytes]:
    # Compiled on first use (4 ms): most runs never meet the UTF-16 needle.
    return re.compile(_CANDIDATES_PATTERN)


def candidates(data: bytes, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where a UTF-16 PAT may lie in ``data``: the offsets :func:`secret_at` takes."""
    stop = len(data) if end is None else end
    for m in _candidates().finditer(data, start, min(len(data), stop + 32)):
        if m.start() < stop:
            yield m.start()


def secret_at(data: bytes, pos: int) -> Secret | None:
    """The PAT in UTF-16 (either byte order) whose needle lies at ``pos`` in ``data``, located
    on its encoded bytes, or None."""
    for start, codec in ((pos, "utf-16-le"), (pos - 1, "utf-16-be")):
        if start < 0:
            continue
        # A short window first: most needles (adversarial ones above all) end early.
        for span in (_SHORT, 2 * (len(PAT_PREFIX) + MAX_TOKEN_LENGTH + 1)):
            raw = data[start : min(len(data), start + span)]
            text = raw[: len(raw) // 2 * 2].decode(codec, "replace").encode("utf-8", "replace")
            found = rule_secret_at(text, 0, _PAT_RULE)
            if found is None or found.end < len(text) or len(raw) < span:
                break
        if found is not None:
            return Secret(AIC_PAT, start, start + 2 * found.end, found.token)
    return None


__all__ = ["NEEDLE", "candidates", "secret_at", "sniff", "transcoder"]
