"""What the scanner reports: a :class:`Finding` (no token in it) and, for callers in the same
process, a :class:`Detection` pairing a finding with its :class:`~hygiene.detection.Secret`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from hygiene.detection import Secret
from hygiene.scan.matcher.engine import Hit


@dataclass(frozen=True)
class Finding:
    """One leaked secret, described without the secret: safe to print, store and send."""

    path: str
    line: int
    column: int
    type: str
    masked: str
    fingerprint: str
    commit: str | None = None
    live: str | None = None
    # Inside an archive: the path within it (``lib/b.jar!config.yml``); ``path`` is then
    # ``ARCHIVE!MEMBER`` (``a.zip!lib/b.jar!config.yml``).
    member: str | None = None
    # History only: who made the commit that first introduced it (``Name <email>``), when
    # (ISO 8601, the author's date), and whether the secret is still in HEAD's tree.
    author: str | None = None
    date: str | None = None
    present_at_head: bool | None = None

    def sort_key(self) -> tuple[str, str, int, int]:
        return (self.commit or "", self.path, self.line, self.column)


@dataclass(frozen=True)
class Detection:
    """A finding and its secret, for in-process callers (``--verify``, ``revoke-leaked --scan``).

    The secret's ``repr`` hides the token; never serialise a detection, serialise its finding.
    """

    finding: Finding
    secret: Secret = field(repr=False)


def detection_for(
    hit: Hit,
    path: str,
    *,
    line: int | None = None,
    commit: str | None = None,
    member: str | None = None,
) -> Detection:
    """The one place where a matcher's hit becomes a detection at ``path``.

    ``line`` replaces the hit's own line number where the hit was found in a piece of a file
    (history: an added line, numbered in its commit's version of the file); ``member``: the
    path inside an archive (``path`` is then ``ARCHIVE!MEMBER``).
    """
    secret = hit.secret
    where = hit.line if line is None else line
    finding = Finding(
        path,
        where,
        hit.column,
        secret.type_id,
        secret.masked,
        secret.fingerprint,
        commit,
        member=member,
    )
    return Detection(finding, secret)


@dataclass
class ScanResult:
    """Everything one scan produced: detections, per-file errors and the figures for ``stats``."""

    detections: list[Detection] = field(default_factory=list)
    findings_only: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    # Parts of inputs a decoder did not scan (the rest of an archive past its member cap or a
    # bomb, a member nested too deep, an unreadable archive), each also an error line.
    skipped: int = 0
    # Findings the scanned lines hid, by what hid them (inline markers, settings' allow-lines):
    # reports say how many, so no content can silence a scan without a trace.
    suppressed: Counter[str] = field(default_factory=Counter)
    # What the scan chose not to read and says so (one line each, no change to the exit
    # status): e.g. the submodules --all-files did not enter.
    notes: list[str] = field(default_factory=list)

    def add(self, other: ScanResult) -> ScanResult:
        """Take in ``other``'s detections, errors, notes and figures (the one way results of
        parts of a scan are merged); returns this result."""
        if other.detections:
            self.detections += other.detections
        if other.findings_only:
            self.findings_only += other.findings_only
        if other.errors:
            self.errors += other.errors
        if other.notes:
            self.notes += other.notes
        if other.suppressed:
            self.suppressed.update(other.suppressed)
        self.files += other.files
        self.bytes += other.bytes
        self.skipped += other.skipped
        self.seconds += other.seconds
        return self

    def record(self, hits: Iterable[Hit], path: str) -> None:
        """Add a detection for each hit found in the file shown as ``path``."""
        self.detections.extend(detection_for(hit, path) for hit in hits)

    @property
    def findings(self) -> list[Finding]:
        """Every finding once: by path, line and column (history: in git log order)."""
        found = [d.finding for d in self.detections] + self.findings_only
        unique = list({(f.commit, f.path, f.line, f.column): f for f in found}.values())
        if any(f.commit for f in unique):
            return unique  # history: git log's order, newest commit first
        return sorted(unique, key=Finding.sort_key)
