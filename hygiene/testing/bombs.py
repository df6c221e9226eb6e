"""Compressed answers that unfold far past their size: what a hostile server sends a client
whose HTTP library decodes ``Content-Encoding`` before any cap applies.

Each bomb decodes to ``prefix`` (a short JSON answer) followed by spaces, so that a client
that did decode it would see valid JSON. ``gzip`` and ``deflate`` come from the standard
library (about 1030:1); ``zstd`` is written by hand from RLE blocks (32768:1, no library
needed to make it, though only a client with ``zstandard`` installed decodes it); ``br`` needs
the ``brotli`` package (None without it).
"""

from __future__ import annotations

import functools
import importlib
import struct
import zlib

CODINGS = ("gzip", "deflate", "zstd", "br")
_MIB = 1 << 20
_ZSTD_MAGIC = 0xFD2FB528
_ZSTD_BLOCK = 128 * 1024  # the largest block a zstd frame may hold


def _zlib(prefix: bytes, size: int, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    parts = [packer.compress(prefix)]
    spaces = b" " * _MIB
    for _ in range(size // _MIB):
        parts.append(packer.compress(spaces))
    parts.append(packer.flush())
    return b"".join(parts)


def _zstd_block(last: bool, kind: int, size: int) -> bytes:
    header = int(last) | (kind << 1) | (size << 3)
    return struct.pack("<I", header)[:3]


def _zstd(prefix: bytes, size: int) -> bytes:
    # Frame header: magic, descriptor 0 (no content size, not single-segment), then a window
    # descriptor of 128 KiB (exponent 7). Then one raw block (the prefix) and RLE blocks: each
    # is 4 bytes on the wire and 128 KiB of spaces decoded.
    out = [struct.pack("<I", _ZSTD_MAGIC), b"\x00", bytes([7 << 3])]
    out += [_zstd_block(False, 0, len(prefix)), prefix]
    blocks = max(1, size // _ZSTD_BLOCK)
    for n in range(blocks):
        out += [_zstd_block(n == blocks - 1, 1, _ZSTD_BLOCK), b" "]
    return b"".join(out)


def _brotli(prefix: bytes, size: int) -> bytes | None:
    try:
        brotli = importlib.import_module("brotli")
    except ImportError:
        return None
    packer = brotli.Compressor(quality=5)
    parts = [packer.process(prefix)]
    spaces = b" " * _MIB
    for _ in range(size // _MIB):
        parts.append(packer.process(spaces))
    parts.append(packer.finish())
    return b"".join(parts)


@functools.cache
def bomb(coding: str, size: int, prefix: bytes = b"{}") -> bytes | None:
    """``prefix`` and ``size`` bytes of spaces, compressed with ``coding`` (None: ``br``
    without the ``brotli`` package). Made once per process for each set of arguments."""
    if coding == "gzip":
        return _zlib(prefix, size, 16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _zlib(prefix, size, zlib.MAX_WBITS)
    if coding == "zstd":
        return _zstd(prefix, size)
    if coding == "br":
        return _brotli(prefix, size)
    raise ValueError(f"unknown coding {coding!r}; one of {', '.join(CODINGS)}")


__all__ = ["CODINGS", "bomb"]
