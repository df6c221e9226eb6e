"""From findings and ids to a plan: the token ids to revoke, and what could not be resolved."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

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
# What a user does about a PAT the inventory does not know (it cannot be revoked by hash).
UNRESOLVED_STEP = (
    "not in the token inventory: record it (`hygiene tokens register --token-id ID < value`, "
    "or `hygiene tokens import FILE`) and run again, or revoke it by id (--token-id ID)"
)
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
    # For the confirmation question: the inventory's name, and where the leak was seen.
    name: str = ""
    masked: str = ""
    where: str = ""


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
    next_step: str = ""  # foreign: where a human revokes it; unresolved: how to resolve it

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
        if self.issuer or self.next_step:
            data["next_step"] = self.next_step
        return data


@dataclass
class Plan:
    targets: list[Target] = field(default_factory=list)
    unresolved: list[Result] = field(default_factory=list)
    note: str | None = None  # why PATs stay unresolved, when the inventory is the reason


def _unresolved(finding: Leak) -> Result:
    fp = finding.key if finding.key.startswith("sha256:") else None
    # A report holds no value, so a session token named there cannot be logged out.
    if finding.type == BEARER_TOKEN:
        return Result(
            None, fp, UNRESOLVED, error=SESSION_HINT, where=finding.where, masked=finding.masked
        )
    return Result(
        None, fp, UNRESOLVED, where=finding.where, masked=finding.masked, next_step=UNRESOLVED_STEP
    )


def make_plan(findings: Iterable[Leak], ids: Iterable[str], inventory: Inventory) -> Plan:
    """Resolve findings through the inventory; each token id appears once, in given order."""
    plan = Plan()
    seen_ids: set[str] = set()
    seen_keys: set[str] = set()

    def add(token_id: str, entry: Entry | None, leak: Leak | None = None) -> None:
        if token_id not in seen_ids:
            seen_ids.add(token_id)
            masked, where = (leak.masked, leak.where) if leak is not None else ("", "")
            if entry is None:
                plan.targets.append(Target(token_id, masked=masked, where=where))
            else:
                target = Target(token_id, entry.fingerprint, entry.org_id, entry.state)
                plan.targets.append(replace(target, name=entry.name, masked=masked, where=where))

    for finding in findings:
        if finding.key in seen_keys:
            continue
        seen_keys.add(finding.key)
        entry = inventory.by_fingerprint(finding.key)
        if entry is not None:
            add(entry.token_id, entry, finding)
        elif finding.required:
            plan.unresolved.append(_unresolved(finding))
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
    "UNRESOLVED_STEP",
    "WOULD_LOG_OUT",
    "WOULD_REVOKE",
    "Plan",
    "Result",
    "Target",
    "make_plan",
]
