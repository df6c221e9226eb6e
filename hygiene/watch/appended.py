"""Scanning a stream that grows: data is pushed as it arrives, lines are scanned once complete
(with the decoders' hook, so PATs in base64 and Basic credentials are found as in a scan).

A partial line is held until its newline comes (or the stream rotates away). A line that grows
past :data:`MAX_HELD` is scanned in cuts, as the scanner's engine cuts a chunk without a
newline: everything but the last ``WINDOW`` bytes is scanned, only matches starting before the
cut are reported, and the rest is carried. No match is longer than ``WINDOW``, so each is seen
whole exactly once, and memory stays bounded for endless streams and huge lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from hygiene.detection import Secret
from hygiene.scan.decoders import finder_for, refine
from hygiene.scan.matcher import Hit, NeedleFinder, scan_bytes
from hygiene.scan.matcher.engine import WINDOW, decoded_len, safe_cut

MAX_HELD = 1 << 20


@dataclass
class AppendScanner:
    """The scanning state of one followed stream: what is held, and where it stands."""

    finder: NeedleFinder
    held: bytes = b""
    line: int = 1  # the line number of held[0]
    col_base: int = 0  # code points before held[0] on its line
    offset: int = 0  # stream offset of held[0]
    reported_end: int = 0  # stream offset where the last reported match ended

    @classmethod
    def new(cls) -> AppendScanner:
        """A scanner with the fastest finder for an unbounded stream."""
        return cls(finder_for(None))

    def push(self, data: bytes) -> list[Hit]:
        """The hits of every line ``data`` completes (line numbers count from the stream's
        start); the incomplete rest is held."""
        buffer = self.held + data if self.held else data
        cut = buffer.rfind(b"\n") + 1
        if cut == 0 and len(buffer) > MAX_HELD:
            cut = safe_cut(buffer, len(buffer) - WINDOW)
        return self._scan(buffer, cut)

    def flush(self) -> list[Hit]:
        """The hits of what is held (the stream ended, or was rotated away)."""
        return self._scan(self.held, len(self.held))

    def _scan(self, buffer: bytes, cut: int) -> list[Hit]:
        hits: list[Hit] = []
        if cut:
            # Markers off: a log's lines are written by whoever the service logs (a User-Agent
            # holding `hygiene: allow` must not hide the token beside it).
            for hit in scan_bytes(buffer, finder=self.finder, refine=refine, markers=False):
                start = self.offset + hit.secret.start
                if hit.secret.start >= cut or start < self.reported_end:
                    continue
                hits.append(self._moved(hit))
                self.reported_end = self.offset + hit.secret.end
            self._advance(buffer, cut)
        self.held = buffer[cut:]
        return hits

    def _moved(self, hit: Hit) -> Hit:
        column = hit.column + (self.col_base if hit.line == 1 else 0)
        secret = hit.secret
        moved = Secret(
            secret.type_id, self.offset + secret.start, self.offset + secret.end, secret.token
        )
        return Hit(self.line + hit.line - 1, column, moved)

    def _advance(self, buffer: bytes, cut: int) -> None:
        newlines = buffer.count(b"\n", 0, cut)
        if newlines:
            last = buffer.rfind(b"\n", 0, cut)
            self.col_base = decoded_len(buffer[last + 1 : cut])
        else:
            self.col_base += decoded_len(buffer[:cut])
        self.line += newlines
        self.offset += cut


__all__ = ["MAX_HELD", "AppendScanner"]
