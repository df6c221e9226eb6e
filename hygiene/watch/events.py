"""What ``hygiene watch`` reports: one :class:`Event` per new leak, as a masked text line or a
JSON object (one per line). An event holds fingerprints and masked forms only; its path, token
id and error (a file name, the service's words) are shown escaped and masked."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from hygiene.display import json_text, quote
from hygiene.errors import masked_text, one_line
from hygiene.fingerprints import short_fingerprint

NONE, REVOKE, LOGOUT = "none", "revoke", "logout"
FOUND = "found"


@dataclass(frozen=True)
class Event:
    """A leak seen in a followed stream, and what was done about it.

    ``action``: ``none`` (reported only), ``revoke`` (a PAT) or ``logout`` (a session token);
    ``status``: ``found`` without an action, else the revoke statuses (``revoked``,
    ``not_found``, ``failed``, ``unresolved``, ``logged_out``, ``not_live``, and ``foreign``
    for another issuer's credential, never sent: ``error`` then names the issuer and where to
    revoke it); ``latency``:
    seconds from the moment the line was read to the action's answer.
    """

    fingerprint: str
    type: str
    masked: str
    path: str
    line: int
    column: int
    action: str = NONE
    status: str = FOUND
    token_id: str | None = None
    http_status: int | None = None
    error: str | None = None
    latency: float | None = None

    def as_json(self) -> str:
        doc = asdict(self)
        if self.latency is not None:
            doc["latency"] = round(self.latency, 4)
        if self.error:
            doc["error"] = masked_text(self.error)
        return json_text(json.dumps(doc, ensure_ascii=False))

    def as_text(self) -> str:
        digest = short_fingerprint(self.fingerprint)
        parts = [
            f"{quote(self.path)}:{self.line}:{self.column}: {self.type} {self.masked} {digest}"
        ]
        if self.action != NONE:
            parts.append(f"{self.action} {self.status}")
            if self.token_id:
                parts.append(one_line(self.token_id))
            if self.http_status is not None:
                parts.append(f"HTTP {self.http_status}")
            if self.error:
                parts.append(one_line(self.error))
            if self.latency is not None:
                parts.append(f"({self.latency:.3f} s)")
        return " ".join(parts)


__all__ = ["FOUND", "LOGOUT", "NONE", "REVOKE", "Event"]
