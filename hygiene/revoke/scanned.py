"""``--scan PATH``: scan in this process and split what is found, so no value leaves memory.

PATs become findings known by fingerprint (resolved through the inventory like a report's);
other ``bearer-token`` credentials become session targets, logged out with their own value.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from hygiene.detection import AIC_PAT, PAT_PREFIX
from hygiene.progress import ScanProgress
from hygiene.revoke.inputs import Leak
from hygiene.revoke.sessions import SessionTarget, session_targets
from hygiene.scan.request import STDIN, ScanRequest, run_scan


@dataclass
class Scanned:
    """What ``--scan`` found: PAT findings, session targets, and files it could not read."""

    pats: list[Leak] = field(default_factory=list)
    sessions: list[SessionTarget] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _binary(stdin: TextIO) -> BinaryIO:
    """The bytes behind a text stream (a StringIO, in tests, has none: encode its text)."""
    buffer: BinaryIO | None = getattr(stdin, "buffer", None)
    if buffer is not None:
        return buffer
    return io.BytesIO(stdin.read().encode("utf-8", "surrogateescape"))


def scan_paths(
    paths: Sequence[str], stdin: TextIO, progress: ScanProgress | None = None
) -> Scanned:
    """Scan ``paths`` (files, folders, ``-``) with the package's scanner, secrets kept in memory
    (``progress`` hears of each file and chunk).

    A missing path raises InputError before anything is sent; unreadable files are listed in
    ``errors``.
    """
    if not paths:
        return Scanned()
    source = _binary(stdin) if STDIN in paths else None
    # Markers off: what is scanned to be revoked is often a log, where whoever wrote a line
    # (a User-Agent, a query string) could have added `hygiene: allow` to hide a token.
    request = ScanRequest(paths=tuple(paths), keep_secrets=True, markers=False, progress=progress)
    result = run_scan(request, stdin=source)
    found = Scanned(errors=list(result.errors))
    sessions = []
    for d in result.detections:
        f = d.finding
        if f.type == AIC_PAT or d.secret.token.startswith(PAT_PREFIX):
            where = f"{f.path}:{f.line}"
            found.pats.append(Leak(f.fingerprint, AIC_PAT, where, f.masked))
        else:
            sessions.append(d)
    found.sessions = session_targets(sessions)
    return found


__all__ = ["STDIN", "Scanned", "scan_paths"]
