"""What the watcher has seen and done, by fingerprint: kept in memory and, with ``--state FILE``,
on disk (JSON, written atomically after every change), so a restart neither re-alerts nor
re-revokes. Only fingerprints and statuses are stored, never a token.

A leak whose action ``failed`` is not settled: the next time it shows up it is tried again.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from hygiene.atomic import write_atomically
from hygiene.errors import InputError

VERSION = 1
UNSETTLED = frozenset({"failed"})
_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass
class Seen:
    """Fingerprint -> the last status reached for it."""

    path: Path | None = None
    statuses: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, path: Path | None) -> Seen:
        """The state kept at ``path`` (a missing file is an empty state); InputError if broken."""
        if path is None or not path.exists():
            return cls(path)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"state file {path}: cannot be read ({exc})") from None
        seen = doc.get("seen") if isinstance(doc, dict) else None
        if doc.get("version") != VERSION or not isinstance(seen, dict):
            raise InputError(f'state file {path}: expected {{"version": 1, "seen": {{...}}}}')
        if not all(_FINGERPRINT.fullmatch(k) and isinstance(v, str) for k, v in seen.items()):
            raise InputError(f"state file {path}: keys must be sha256 fingerprints")
        return cls(path, dict(seen))

    def settled(self, fingerprint: str) -> bool:
        """Whether this leak was dealt with already (reported, revoked, logged out ...)."""
        with self._lock:
            status = self.statuses.get(fingerprint)
        return status is not None and status not in UNSETTLED

    def record(self, fingerprint: str, status: str) -> None:
        """Remember ``status`` for the leak and, with a state file, write it at once."""
        with self._lock:
            self.statuses[fingerprint] = status
            if self.path is not None:
                doc = {"version": VERSION, "seen": dict(sorted(self.statuses.items()))}
                write_atomically(str(self.path), json.dumps(doc, indent=1) + "\n", mode=0o600)


__all__ = ["Seen"]
