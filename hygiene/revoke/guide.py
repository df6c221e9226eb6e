"""What ``revoke-leaked`` tells a person before and around a run: the confirmation question
listing what will be revoked and what stays unresolved, and the note that an empty or missing
inventory is why every PAT stays unresolved.

Every listed field comes from a report, the inventory or a scanned file, so each one is masked
and escaped (:func:`hygiene.errors.one_line`); lists are cut at :data:`LIST_BOUND` with a count.
"""

from __future__ import annotations

from collections.abc import Sequence

from hygiene.errors import one_line
from hygiene.inventory import Inventory, Location
from hygiene.revoke.plan import UNRESOLVED_STEP, Plan, Result, Target
from hygiene.revoke.sessions import SessionTarget

# A question no one can read past a screen is no question: the first ones and a count.
LIST_BOUND = 20
FILL_HINT = (
    "`hygiene tokens create` records new tokens; `hygiene tokens register --token-id ID "
    "< value` or `hygiene tokens import FILE` records existing ones (HYGIENE_INVENTORY names "
    "where it lives)"
)


def _row(*fields: str | None) -> str:
    return "  " + "  ".join(one_line(f) for f in fields if f)


def _bounded(title: str, rows: Sequence[str]) -> list[str]:
    if not rows:
        return []
    more = [f"  … and {len(rows) - LIST_BOUND} more"] if len(rows) > LIST_BOUND else []
    return [f"{title} ({len(rows)}):", *rows[:LIST_BOUND], *more]


def _target_row(target: Target) -> str:
    return _row(target.token_id, target.name, target.masked, target.where)


def _unresolved_row(result: Result) -> str:
    return _row((result.fingerprint or "")[:19], result.masked, result.where)


def _session_row(session: SessionTarget) -> str:
    return _row(session.fingerprint[:19], session.masked, session.where)


def _ask(pats: int, logouts: int, base_url: str) -> str:
    if not logouts:
        return f"Revoke {pats} token(s) at {base_url}?"
    if not pats:
        return f"Log out {logouts} leaked session(s) at {base_url}?"
    return f"Revoke {pats} token(s) and log out {logouts} leaked session(s) at {base_url}?"


def question(plan: Plan, sessions: Sequence[SessionTarget], base_url: str) -> str:
    """The yes/no question: what will be revoked (token id, name, masked form, where seen),
    what will be logged out, what stays unresolved; the question itself on the last line."""
    lines = [
        *_bounded("To revoke", [_target_row(t) for t in plan.targets]),
        *_bounded("To log out", [_session_row(s) for s in sessions]),
        *_bounded("Unresolved, not sent", [_unresolved_row(r) for r in plan.unresolved]),
        _ask(len(plan.targets), len(sessions), base_url),
    ]
    return "\n".join(lines)


def inventory_note(location: Location, inventory: Inventory, plan: Plan) -> str | None:
    """One line when PATs stay unresolved because the inventory is missing or empty."""
    if not any(r.next_step == UNRESOLVED_STEP for r in plan.unresolved):
        return None
    if location.path is not None and not location.path.exists():
        state = "does not exist"
    elif not inventory.entries():
        state = "is empty"
    else:
        return None
    return (
        f"the token inventory {location.display} {state}, so no leaked PAT can be resolved to "
        f"a token id: {FILL_HINT}"
    )


__all__ = ["FILL_HINT", "LIST_BOUND", "inventory_note", "question"]
