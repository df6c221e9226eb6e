"""From findings and ids to a plan: the token ids to revoke, and what could not be resolved."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hygiene.detection import BEARER_TOKEN
from hygiene.inventory import Entry, Inventory
from hygiene.revoke.inputs import Leak

REVOKED, NOT_FOUND, FAILED, UNRESOLVED = "revoked", "not_found", "failed", "unresolved"
LOGGED_OUT, NOT_LIVE = "logged_out", "not_live"  # leaked session tokens (--scan)
# A credential of another issuer (hygiene.issuers): never sent; revoked where it was issued.
FOREIGN = "foreign"
# --dry-run; already_revoked: the inventory marks the token revoked (issue 13)
WOULD_REVOKE, WOULD_LOG_OUT, ALREADY_REVOKED = "would_revoke", "would_log_out", "already_revoked"
STATUSES = (REVOKED, NOT_FOUND, FAILED, UNRESOLVED, LOGGED_OUT, NOT_LIVE, FOREIGN)
DRY_RUN_STATUSES = (WOULD_REVOKE, WOULD_LOG_OUT, ALREADY_REVOKED)
SESSION_HINT = "a session token: --scan the files that hold it to log it out"
# The statuses after which nothing is left to do.
SETTLED = (REVOKED, NOT_FOUND, LOGGED_OUT, NOT_LIVE, *DRY_RUN_STATUSES)


@dataclass(frozen=True)
class Target:
    """A token id to revoke, with what the inventory knows of it: fingerprint, organization
    (where it must be revoked) and state."""

    token_id: str
    fingerprint: str | None = None
    org_id: str | None = None
    state: str | None = None


@dataclass(frozen=True)
class Result:
    """The outcome for one token id (or one unresolved finding)."""

    token_id: str | None
    fingerprint: str | None
    status: str
    http_status: int | None = None
    error: str | None = None
    where: str = ""
    masked: str = ""
    issuer: str = ""  # foreign: who issued it
    next_step: str = ""  # foreign: where a human revokes it

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "token_id": self.token_id,
            "fingerprint": self.fingerprint,
            "status": self.status,
            "http_status": self.http_status,
        }
        if self.error:
            data["error"] = self.error
        if self.where:
            data["where"] = self.where
        if self.issuer:
            data["issuer"] = self.issuer
            data["next_step"] = self.next_step
        return data


@dataclass
class Plan:
    targets: list[Target] = field(default_factory=list)
    unresolved: list[Result] = field(default_factory=list)


def make_plan(findings: Iterable[Leak], ids: Iterable[str], inventory: Inventory) -> Plan:
    """Resolve findings through the inventory; each token id appears once, in given order."""
    plan = Plan()
    seen_ids: set[str] = set()
    seen_keys: set[str] = set()

    def add(token_id: str, entry: Entry | None) -> None:
        if token_id not in seen_ids:
            seen_ids.add(token_id)
            if entry is None:
                plan.targets.append(Target(token_id))
            else:
                plan.targets.append(Target(token_id, entry.fingerprint, entry.org_id, entry.state))

    for finding in findings:
        if finding.key in seen_keys:
            continue
        seen_keys.add(finding.key)
        entry = inventory.by_fingerprint(finding.key)
        if entry is not None:
            add(entry.token_id, entry)
        elif finding.required:
            fp = finding.key if finding.key.startswith("sha256:") else None
            # A report holds no value, so a session token named there cannot be logged out.
            hint = SESSION_HINT if finding.type == BEARER_TOKEN else None
            plan.unresolved.append(
                Result(None, fp, UNRESOLVED, error=hint, where=finding.where, masked=finding.masked)
            )
    for token_id in ids:
        add(token_id, inventory.get(token_id))
    return plan


__all__ = [
    "ALREADY_REVOKED",
    "DRY_RUN_STATUSES",
    "FAILED",
    "FOREIGN",
    "LOGGED_OUT",
    "NOT_FOUND",
    "NOT_LIVE",
    "REVOKED",
    "SETTLED",
    "STATUSES",
    "UNRESOLVED",
    "WOULD_LOG_OUT",
    "WOULD_REVOKE",
    "Plan",
    "Result",
    "Target",
    "make_plan",
]
