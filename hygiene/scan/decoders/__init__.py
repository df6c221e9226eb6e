"""Decoders: what the scanner reads inside encodings and archives, each bounded by
:class:`~hygiene.scan.limits.DecodeLimits`.

* ``layers``: one input through its layers (the entry point sources call: :func:`scan_layers`
  over a ``read(n)`` function, :func:`scan_buffer` over bytes held whole);
* ``compressed``: gzip, bzip2, xz by magic bytes; ``archives``: zip family and tar;
* ``utf16``: UTF-16 text, LE/BE, with or without BOM;
* ``embedded`` (``b64``, ``utf16``): PATs encoded inside the text being scanned, the scanner's
  refine hook, :func:`finder_for` (the matcher's finder, looking for the decoders' needles in
  the same pass), and :func:`decoded_secrets` over bytes for sources that scan pieces.
"""

from __future__ import annotations

from hygiene.scan.decoders.bounds import DecodeError
from hygiene.scan.decoders.embedded import decoded_secrets, finder_for, refine
from hygiene.scan.decoders.layers import scan_buffer, scan_layers, sniff

__all__ = [
    "DecodeError",
    "decoded_secrets",
    "finder_for",
    "refine",
    "scan_buffer",
    "scan_layers",
    "sniff",
]
