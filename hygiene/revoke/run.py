"""Revoke a plan's token ids concurrently, each in its own organization; stoppable.

What counts as done: ``revoked`` (204), or ``not_found`` only for the service's JSON
``NOT_FOUND`` answer in the organization the inventory says the token belongs to. A token whose
organization is unknown (an id given directly, an inventory row without one) is asked in each of
the caller's organizations in turn, the one calls act in first: the first 204 is ``revoked``,
``not_found`` needs every one of them to answer ``NOT_FOUND``, and any other answer in one of
them makes it ``failed`` (the token may be live there); past :data:`MAX_FAN_OUT` organizations
the rest are not asked, and such an id is ``failed`` unless found. Any other 404 (a proxy's page, another
error code), a token of an organization the caller is not a member of, and everything else are
``failed`` with what was answered: such a token may still be live.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hygiene.api.client import ControlPlaneClient
from hygiene.errors import ApiError, AuthFailed
from hygiene.revoke.plan import FAILED, NOT_FOUND, REVOKED, Result, Target
from hygiene.revoke.pool import WORKERS, run_stoppable
from hygiene.stopping import StopRequest

SERVICE_NOT_FOUND = "NOT_FOUND"
CANCELLED = "CANCELLED"  # not sent: the run was stopped first
INTERRUPTED = "INTERRUPTED"  # sent, but no answer before the run stopped: state unknown
NOT_A_MEMBER = "NOT_A_MEMBER"
ORG_UNKNOWN = "ORG_UNKNOWN"
# The most organizations one id of unknown organization is asked in.
MAX_FAN_OUT = 64


def delete_in_org(client: ControlPlaneClient, token_id: str, org: str) -> tuple[int, str | None]:
    """``DELETE /api/v1/auth/api-tokens/{token_id}`` in ``org``, through the client (its auth
    flow, retries, deadlines and path encoding).

    Returns the status and the error code of the answer; a network failure is an ApiError, a
    401 (after the auth flow's renewal) is AuthFailed.
    """
    try:
        status = client.revoke_pat(token_id, org=org)
    except AuthFailed:
        raise
    except ApiError as exc:
        if exc.status is None:
            raise
        return exc.status, exc.code
    return status, SERVICE_NOT_FOUND if status == 404 else None


def judge(target: Target, org: str, status: int, code: str | None) -> Result:
    """The result of one DELETE answer; see the module's docstring."""
    tid, fp = target.token_id, target.fingerprint
    if status == 204:
        return Result(tid, fp, REVOKED, 204)
    if status == 404 and code == SERVICE_NOT_FOUND:
        if target.org_id is not None:
            return Result(tid, fp, NOT_FOUND, 404)
        why = f"NOT_FOUND in {org}; the token's organization is unknown (not in the inventory)"
        return Result(tid, fp, FAILED, 404, why)
    return Result(tid, fp, FAILED, status, code or "not the service's JSON error")


def revoke_one(
    client: ControlPlaneClient, target: Target, orgs: Sequence[str] | None = None
) -> Result:
    """Revoke one PAT in its organization (in each of the caller's when unknown); see the
    module's docstring.

    ``orgs``: the caller's organizations, the one calls act in first (asked of the service when
    not given). :class:`~hygiene.errors.AuthFailed` is not a per-id failure: it stops the run.
    """
    if orgs is None:
        orgs = _member_orgs(client, [target])
    if target.org_id is None:
        return _revoke_anywhere(client, target, orgs)
    org = target.org_id
    if org not in orgs:
        why = f"{NOT_A_MEMBER}: the token belongs to {org}, not one of your organizations"
        return Result(target.token_id, target.fingerprint, FAILED, None, why)
    try:
        status, code = delete_in_org(client, target.token_id, org)
    except ApiError as exc:  # AuthFailed is not an ApiError: it stops the whole run
        return Result(target.token_id, target.fingerprint, FAILED, exc.status, exc.code or str(exc))
    return judge(target, org, status, code)


def _revoke_anywhere(client: ControlPlaneClient, target: Target, orgs: Sequence[str]) -> Result:
    """Each organization in turn until one answers 204; NOT_FOUND only if all of them say so.

    At most :data:`MAX_FAN_OUT` of them: a memberships answer listing thousands must not turn
    one id into thousands of DELETEs (an id not found in those asked is then ``failed``).
    """
    tid, fp = target.token_id, target.fingerprint
    failure: Result | None = None
    for org in orgs[:MAX_FAN_OUT]:
        try:
            status, code = delete_in_org(client, tid, org)
        except ApiError as exc:
            failure = failure or Result(tid, fp, FAILED, exc.status, exc.code or str(exc))
            continue
        if status == 204:
            return Result(tid, fp, REVOKED, 204)
        if status != 404 or code != SERVICE_NOT_FOUND:
            failure = failure or judge(target, org, status, code)
    if failure is None and len(orgs) > MAX_FAN_OUT:
        why = (
            f"{ORG_UNKNOWN}: NOT_FOUND in the first {MAX_FAN_OUT} of your {len(orgs)} "
            "organizations; the others were not asked"
        )
        failure = Result(tid, fp, FAILED, 404, why)
    return failure or Result(tid, fp, NOT_FOUND, 404)


def _member_orgs(client: ControlPlaneClient, targets: Sequence[Target]) -> tuple[str, ...]:
    """The caller's organizations, the one calls act in first: logs in and picks it once,
    before the threads start."""
    home = client.use_org()
    if all(t.org_id == home for t in targets):
        return (home,)
    return tuple(client.organizations())


def by_org(targets: Sequence[Target]) -> list[Target]:
    """Targets grouped by organization (stable; unknown organization last)."""
    return sorted(targets, key=lambda t: (t.org_id is None, t.org_id or ""))


def revoke_all(
    client: ControlPlaneClient,
    targets: Sequence[Target],
    *,
    workers: int = WORKERS,
    on_done: Callable[[Result], None] | None = None,
    on_drained: Callable[[], None] | None = None,
    stop: StopRequest | None = None,
) -> list[Result]:
    """Revoke every target with ``workers`` threads; results in the targets' order.

    ``on_done`` sees each result as it arrives, in this thread, and ``on_drained`` is called
    whenever no further result is waiting (record the burst then). On a stop request nothing new
    is sent: ids not sent end ``failed`` / ``CANCELLED``, ids in flight that do not answer
    within the grace ``failed`` / ``INTERRUPTED``. When a call raises (AUTH_FAILED), nothing
    new is sent either, answers on their way still reach ``on_done``, then the error is raised.
    """
    if not targets:
        return []
    orgs = _member_orgs(client, targets)
    ordered = by_org(targets)
    answers = run_stoppable(
        lambda target: revoke_one(client, target, orgs),
        ordered,
        not_sent=lambda t: Result(t.token_id, t.fingerprint, FAILED, None, CANCELLED),
        cut_short=lambda t: Result(t.token_id, t.fingerprint, FAILED, None, INTERRUPTED),
        stop=stop,
        workers=workers,
        on_done=on_done,
        on_drained=on_drained,
    )
    found = {id(t): r for t, r in zip(ordered, answers, strict=True)}
    return [found[id(t)] for t in targets]


__all__ = [
    "CANCELLED",
    "INTERRUPTED",
    "MAX_FAN_OUT",
    "WORKERS",
    "by_org",
    "delete_in_org",
    "judge",
    "revoke_all",
    "revoke_one",
]
