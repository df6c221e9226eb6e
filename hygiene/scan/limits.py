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
    top-level input may expand to, how far a compressed member may expand, and how many
    archive members one top-level input may hold, all its nested archives together (past a
    bound the input is reported as an error and the rest of it skipped; the scan goes on).

    ``max_members``: each member costs tens of microseconds of parsing whatever its size (a
    tar.gz of a million empty members is 9 MB); 100,000 is past the largest source tarballs
    and jars, and bounds one input's member parsing to a few seconds."""

    max_depth: int = 4
    max_bytes: int = 1 << 30
    max_ratio: int = 1000
    max_members: int = 100_000


__all__ = ["AllowLines", "DecodeLimits"]
