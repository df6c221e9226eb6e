"""Compressed streams recognised by their magic bytes (not their suffix): gzip (also
concatenated members), bzip2, xz. Each is read through a bounded :class:`Inflater`."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from hygiene.scan.decoders.bounds import Budget, DecodeError, check_ratio

if TYPE_CHECKING:  # imported when met: each costs start-up time a plain scan never needs
    import bz2
    import lzma

Reader = Callable[[int], bytes]

MAGIC = {"gzip": b"\x1f\x8b\x08", "bzip2": b"BZh", "xz": b"\xfd7zXZ\x00"}
_INPUT_BLOCK = 64 << 10


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``bzip2`` or ``xz`` when ``head`` starts with that format's magic bytes."""
    for kind, magic in MAGIC.items():
        if head.startswith(magic):
            if kind == "bzip2" and not (len(head) > 3 and head[3:4] in b"123456789"):
                continue
            return kind
    return None


def _new(kind: str) -> zlib._Decompress | bz2.BZ2Decompressor | lzma.LZMADecompressor:
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if kind == "bzip2":
        import bz2

        return bz2.BZ2Decompressor()
    import lzma

    return lzma.LZMADecompressor()


def _lzma_error() -> type[Exception]:
    # Evaluated only while an exception propagates: lzma stays unimported until then.
    import lzma

    return lzma.LZMAError


class Inflater:
    """``read(n)`` over the decompressed bytes of a compressed stream ``read``.

    Decoded bytes count against ``budget``; beyond the ratio limit, or where the stream ends
    early or is corrupt, reading raises :class:`DecodeError`.
    """

    def __init__(self, read: Reader, kind: str, budget: Budget, owner: object = None) -> None:
        self._owner = owner
        self._failed = False
        self._read = read
        self._kind = kind
        self._budget = budget
        self._d = _new(kind)
        self._input = b""
        self.consumed = 0
        self.produced = 0

    def _more_input(self) -> bytes:
        block = self._read(_INPUT_BLOCK)
        self.consumed += len(block)
        return block

    def _next_member(self) -> bool:
        """After a member's end: start the next concatenated member, if any."""
        rest = self._d.unused_data + self._input
        if not rest:
            rest = self._more_input()
        if not rest.strip(b"\x00") or not rest.startswith(MAGIC[self._kind][:2]):
            return False  # the end, or trailing padding (tar.gz from tape tools)
        self._d = _new(self._kind)
        self._input = rest
        return True

    def read(self, n: int = -1) -> bytes:
        if self._failed:
            raise DecodeError("")  # reported once, where it first failed
        try:
            return self._read_some(n)
        except DecodeError as exc:
            self._failed = True
            exc.owner = exc.owner or self._owner
            raise

    def _read_some(self, n: int) -> bytes:
        size = n if n > 0 else _INPUT_BLOCK
        while True:
            if self._d.eof and not self._next_member():
                return b""
            out = self._step(size)
            if out:
                self.produced += len(out)
                self._budget.spend(len(out))
                check_ratio(self.produced, self.consumed, self._budget.limits)
                return out

    def _step(self, size: int) -> bytes:
        try:
            out = self._decompress(size)
            if out or self._d.eof:
                return out
            block = self._more_input()
            if not block:
                raise DecodeError(f"truncated {self._kind} stream")
            self._input += block
            return self._decompress(size)
        except (zlib.error, OSError, EOFError, _lzma_error()) as exc:
            raise DecodeError(f"not a valid {self._kind} stream ({exc})") from None

    def _decompress(self, size: int) -> bytes:
        d = self._d
        data, self._input = self._input, b""
        if self._kind == "gzip":
            out = d.decompress(data, size)
            self._input = d.unconsumed_tail  # type: ignore[union-attr]
            return out
        if d.needs_input and not data:  # type: ignore[union-attr]
            return b""
        return d.decompress(data, size)


__all__ = ["MAGIC", "Inflater", "compression_of"]
