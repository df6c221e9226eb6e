"""The matcher: needle finders, the stream scanner and late line counting (bytes in, hits out).

It knows nothing of files, git or reports: :mod:`hygiene.scan.sources` feeds it bytes.
"""

from __future__ import annotations

from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE, Hit, StreamScanner, scan_bytes
from hygiene.scan.matcher.needles import NeedleFinder, finder_for

__all__ = ["DEFAULT_CHUNK_SIZE", "Hit", "NeedleFinder", "StreamScanner", "finder_for", "scan_bytes"]
