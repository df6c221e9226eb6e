"""How results are shown: one line per id (text) or SPEC's JSON document; the exit status.

Token ids, error codes and locations come from reports, the inventory and the service: in
text every one is masked and escaped (:func:`hygiene.errors.one_line`), in json masked (the
encoder escapes the rest).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Sequence

from hygiene.errors import EXIT_FINDINGS, EXIT_OK, masked_text, one_line
from hygiene.revoke.plan import DRY_RUN_STATUSES, FAILED, SETTLED, STATUSES, Result


def summary(results: Sequence[Result], dry_run: bool = False) -> dict[str, int]:
    """Count per status (SPEC's four, ``logged_out``, ``not_live``; ``would_*`` in a dry run)."""
    names = (*STATUSES, *DRY_RUN_STATUSES) if dry_run else STATUSES
    return {name: sum(1 for r in results if r.status == name) for name in names}


def exit_status(results: Sequence[Result]) -> int:
    """0 when every item ended revoked, not_found, logged_out or not_live (or would), else 1:
    a ``foreign`` credential is still live somewhere, for a human to revoke."""
    return EXIT_OK if all(r.status in SETTLED for r in results) else EXIT_FINDINGS


def render_json(results: Sequence[Result], dry_run: bool = False) -> str:
    doc: dict[str, object] = {
        "results": [_masked(r.as_json()) for r in results],
        "summary": summary(results, dry_run),
    }
    if dry_run:
        doc["dry_run"] = True
    return json.dumps(doc, indent=2)


def _masked(doc: dict[str, object]) -> dict[str, object]:
    return {k: masked_text(v) if isinstance(v, str) else v for k, v in doc.items()}


def _line(result: Result) -> str:
    fp = (result.fingerprint or "-")[:19]  # "sha256:" (or "scrypt:") + 12 hex digits
    parts = [f"{result.status:<13}", one_line(result.token_id or "-"), fp]
    if result.http_status is not None:
        parts.append(f"HTTP {result.http_status}")
    if result.error:
        parts.append(one_line(result.error))
    if result.where or result.masked:
        parts.append(one_line(" ".join(p for p in (result.where, result.masked) if p)))
    if result.issuer:
        parts.append(one_line(f"issuer: {result.issuer}; not sent; {result.next_step}"))
    elif result.next_step:
        parts.append(one_line(f"next: {result.next_step}"))
    return "  ".join(parts)


def render_text(results: Sequence[Result]) -> str:
    """One line per result: status, token id, fingerprint prefix, HTTP status, where."""
    return "\n".join(_line(r) for r in results)


def summary_line(results: Sequence[Result], dry_run: bool = False) -> str:
    counts = summary(results, dry_run)
    return ", ".join(f"{n} {name}" for name, n in counts.items()) + (
        " (dry run)" if dry_run else ""
    )


def interrupted_line(results: Sequence[Result], signum: int) -> str:
    """What a stopped run did, in one line: settled, not sent, cut short."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    not_sent = sum(1 for r in results if r.status == FAILED and r.error == "CANCELLED")
    cut = sum(1 for r in results if r.status == FAILED and r.error == "INTERRUPTED")
    settled = sum(1 for r in results if r.status in SETTLED)
    return (
        f"interrupted by {name}: {settled} settled and recorded, {not_sent} not sent, "
        f"{cut} without an answer (state unknown); nothing new was sent after the signal"
    )
