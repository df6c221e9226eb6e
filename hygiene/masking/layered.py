"""``hygiene mask`` on what is not plain text: the layers the scanner reads, masked.

* A compressed log (gzip, bzip2, xz, known by its magic bytes, not its name) is written
  **decompressed**, masked, as ``zcat`` would: ``hygiene mask`` writes one stream to standard
  output, where plain files and compressed ones may follow each other, and a pipe to
  ``gzip`` restores the compression. It is decoded within the scanner's bounds
  (:class:`~hygiene.scan.limits.DecodeLimits`: the ratio; 64 GiB in all), and its masked text
  is held aside (in memory, then a temporary file) until the whole stream has decoded: a
  corrupt or truncated stream, or a bomb, is an error with nothing written, never half a file.
* UTF-16 text (a BOM, or the NUL-interleaving of ASCII text) is masked as text and written
  back in UTF-16, in its byte order, its BOM kept.
* An archive (zip family, tar, also inside a compressed stream) and the compressed formats
  the scanner does not decode (zstd, 7-Zip, RAR) cannot be masked in place: an error that
  names the input, exit 2, nothing of it written. Never a silent copy.

Everything else is masked byte for byte as before (:mod:`hygiene.masking.stream`).
"""

from __future__ import annotations

import codecs
import functools
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from hygiene.errors import InputError
from hygiene.masking.stream import mask_stream
from hygiene.peeking import peek

if TYPE_CHECKING:
    from hygiene.scan.limits import DecodeLimits

Reader = Callable[[int], bytes]
Writer = Callable[[bytes], object]
# Enough to recognise every format (tar's magic lies at offset 257).
HEAD_SIZE: Final = 512
# Formats seen in log folders that no decoder of the scanner reads: refused, never copied.
_UNREAD: Final = {
    b"\x28\xb5\x2f\xfd": "zstd-compressed",
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive",
    b"Rar!\x1a\x07": "a RAR archive",
}
# Heads told apart by their first bytes: compressed streams, 7-Zip and RAR, zip, UTF-16 BOMs.
_SHORT_MAGIC: Final = (
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ",
    *_UNREAD,
    b"PK",
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)
_SPOOL_IN_MEMORY: Final = 8 << 20
# The scanner's bounds (a ratio of 1000 past the first MiB, at most 1000 times the file's
# size), but for the total: the scanner reads at most 1 GiB of one input, a log rotated at
# 200 MB compressed is more when masked whole. The masked text is held on disk meanwhile.
_MAX_BYTES: Final = 64 << 30
_COPY_BLOCK: Final = 1 << 20


class Unmaskable(InputError):
    """An input ``hygiene mask`` cannot write masked (an archive, an unread compression)."""


def _peek(read: Reader) -> tuple[bytes, Reader]:
    """The first bytes of ``read`` and a reader of the whole: :data:`HEAD_SIZE` bytes, or what
    the first reads gave once that tells the format (a pipe's first line goes through at
    once: ``tail -f app.log | hygiene mask``)."""
    return peek(read, HEAD_SIZE, enough=_decided, top_up=False)


def _decided(head: bytes) -> bool:
    """Whether ``head`` is enough to tell the format: every magic but tar's lies in its first
    six bytes, and tar headers and UTF-16 without a BOM hold NULs (which plain text lacks);
    a short first line (`ok`) that begins no magic is text."""
    if b"\x00" in head:
        return len(head) >= 8 and head.startswith(_SHORT_MAGIC)
    if len(head) >= 8:
        return True
    return b"\n" in head and not any(m.startswith(head[: len(m)]) for m in _SHORT_MAGIC)


def refusal(head: bytes) -> str | None:
    """Why bytes starting with ``head`` cannot be masked (what they are), or None."""
    from hygiene.scan.decoders.archives import archive_of

    archive = archive_of(head)
    if archive is not None:
        return f"a {archive} archive"
    return next((what for magic, what in _UNREAD.items() if head.startswith(magic)), None)


def compression(head: bytes) -> str | None:
    """``gzip``, ``bzip2`` or ``xz`` when ``head`` starts such a stream."""
    from hygiene.scan.decoders.compressed import compression_of

    return compression_of(head)


def mask_input(
    read: Reader,
    write: Writer,
    flush: Callable[[], object],
    *,
    name: str,
    size: int | None = None,
    note: Callable[[str], object] = lambda _: None,
) -> None:
    """Copy the input ``read`` (shown as ``name``; ``size`` bytes when known) to ``write``
    masked, through its layers; ``note`` hears, once, how a compressed input is written.

    Raises :class:`Unmaskable` for an archive, :class:`InputError` for a compressed stream
    that does not decode (in both cases before anything of it is written).
    """
    head, read = _peek(read)
    kind = compression(head)
    if kind is None:
        _refuse(name, head)
        mask_text(read, write, flush, head)
        return
    from hygiene.scan.decoders.bounds import Budget, DecodeError
    from hygiene.scan.decoders.compressed import Inflater

    inflater = Inflater(read, kind, Budget(_limits(), size))
    try:
        inner, inner_read = _peek(inflater.read)
        _refuse(name, inner, f" ({kind}-compressed)")
        with tempfile.SpooledTemporaryFile(_SPOOL_IN_MEMORY) as spool:
            mask_text(inner_read, spool.write, lambda: None, inner)
            note(f"{name}: {kind}-compressed, written decompressed")
            spool.seek(0)
            while block := spool.read(_COPY_BLOCK):
                write(block)
            flush()
    except DecodeError as exc:
        raise InputError(f"{name}: {str(exc) or 'not a valid ' + kind + ' stream'}") from None


def check_input(read: Reader, name: str) -> None:
    """Raise what :func:`mask_input` would for an archive, from the first bytes of
    ``read`` (inflated when compressed): a command masking several files checks each first,
    so that none of the output is written before a refusal."""
    head, read = _peek(read)
    kind = compression(head)
    if kind is None:
        _refuse(name, head)
        return
    from hygiene.scan.decoders.bounds import Budget, DecodeError
    from hygiene.scan.decoders.compressed import Inflater

    try:
        inner, _ = _peek(Inflater(read, kind, Budget(_limits())).read)
    except DecodeError as exc:
        raise InputError(f"{name}: {str(exc) or 'not a valid ' + kind + ' stream'}") from None
    _refuse(name, inner, f" ({kind}-compressed)")


@functools.cache
def _limits() -> DecodeLimits:
    from hygiene.scan.limits import DecodeLimits

    return DecodeLimits(max_bytes=_MAX_BYTES)


def _refuse(name: str, head: bytes, within: str = "") -> None:
    what = refusal(head)
    if what is not None:
        raise Unmaskable(
            f"{name}: {what}{within} cannot be masked: extract it and mask its files one by one"
        )


def mask_text(read: Reader, write: Writer, flush: Callable[[], object], head: bytes) -> None:
    """Mask text from ``read`` (whose first bytes are ``head``): UTF-16 in UTF-16."""
    from hygiene.scan.decoders.utf16 import sniff

    found = sniff(head)
    if found is None:
        mask_stream(read, write, flush)
        return
    codec, bom = found
    if bom:
        write(read(bom))
    tail: list[bytes] = []
    mask_stream(_to_utf8(read, codec, tail), _from_utf8(write, codec), flush)
    if tail and tail[0]:
        write(tail[0])  # an odd last byte, no character: as it came
    flush()


def _to_utf8(read: Reader, codec: str, tail: list[bytes]) -> Reader:
    """``read`` of UTF-16 bytes as UTF-8 (lone surrogates kept, so they go back as they
    came); an odd byte left at the end goes to ``tail``."""
    decoder = codecs.getincrementaldecoder(codec)("surrogatepass")

    def transcoded(n: int) -> bytes:
        while True:
            raw = read(n)
            if not raw:
                tail.append(decoder.getstate()[0])
                return b""
            text = decoder.decode(raw)
            if text:
                return text.encode("utf-8", "surrogatepass")

    return transcoded


def _from_utf8(write: Writer, codec: str) -> Writer:
    decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")

    def transcoded(data: bytes) -> None:
        write(decoder.decode(data).encode(codec, "surrogatepass"))

    return transcoded


__all__ = [
    "HEAD_SIZE",
    "Unmaskable",
    "check_input",
    "compression",
    "mask_input",
    "mask_text",
    "refusal",
]
