"""How every input of a scan is read: how far the scanner looks inside encodings and archives
(each decoder is bounded), and the settings' line allowlist."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The settings' line allowlist (see hygiene.scan.matcher.allowlines).
AllowLines = tuple[re.Pattern[bytes], ...]


@dataclass(frozen=True)
class DecodeLimits:
    """Bounds on decoding: how deep archives and encodings may nest, how many bytes one
    top-level input may expand to, and how far a compressed member may expand (a bomb is
    reported and skipped, the scan goes on)."""

    max_depth: int = 4
    max_bytes: int = 1 << 30
    max_ratio: int = 1000


__all__ = ["AllowLines", "DecodeLimits"]
