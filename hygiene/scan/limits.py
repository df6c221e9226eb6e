"""How every input of a scan is read: how far the scanner looks inside encodings and archives
(each decoder is bounded), and the settings' line allowlist."""

from __future__ import annotations

from dataclasses import dataclass

from hygiene.scan.matcher.allowlines import Searcher


@dataclass(frozen=True)
class AllowLines:
    """Which lines hide the findings on them: the settings' ``allow-lines`` patterns (see
    :mod:`hygiene.scan.matcher.allowlines`), and whether the inline markers
    (``hygiene: allow``, ``pragma: allowlist secret``) count. Markers are for tracked source,
    where a reviewer sees them; in a log, whoever writes a line (a User-Agent, a query string)
    could write one, so a caller reading logs turns them off."""

    patterns: tuple[Searcher[bytes], ...] = ()
    markers: bool = True


@dataclass(frozen=True)
class DecodeLimits:
    """Bounds on decoding: how deep archives and encodings may nest, how many bytes one
    top-level input may expand to, and how far a compressed member may expand (a bomb is
    reported and skipped, the scan goes on)."""

    max_depth: int = 4
    max_bytes: int = 1 << 30
    max_ratio: int = 1000


__all__ = ["AllowLines", "DecodeLimits"]
