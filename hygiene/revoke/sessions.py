"""Invalidate leaked session tokens by logging out with each one, at ``AIC_BASE_URL`` only.

A credential goes only to its issuer: :func:`split_foreign` first sets aside every value that
cannot be this service's session (:func:`hygiene.issuers.issuer_of`: a known third-party
format, a ``Basic`` password, a JWT of another host, a value unlike the service's own session
when one is at hand). Those are reported ``foreign``, with their issuer and where to revoke
them, and are never sent anywhere.

For each distinct token: ``GET /api/v1/org/memberships`` with it (no organization header), then
``POST /api/v1/auth/logout`` with it and its ``active_org_id`` as ``X-Active-Org-Id``.

* ``logged_out``: logout answered 204;
* ``not_live``: the service does not take the token (401): expired, or logged out already;
* ``failed``: anything else after the transport's retries (403, 5xx, 429, a redirect, a network
  error), with the HTTP status and error code when there was an answer. Never guessed.

Redirects are not followed, so a token never travels to another host. No credentials of the
user are needed: the leaked token authenticates its own logout.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import httpx

from hygiene.api.auth import ORG_HEADER, error_code
from hygiene.api.bearer import bearer_client, bearer_headers
from hygiene.api.endpoints import LOGIN, LOGOUT, MEMBERSHIPS
from hygiene.api.transport import RetryPolicy
from hygiene.detection import PAT_PREFIX, fingerprint
from hygiene.errors import HygieneError, hide_values
from hygiene.issuers import Issuer, SessionShape, is_basic, issuer_of, known_issuer
from hygiene.revoke.plan import FAILED, FOREIGN, LOGGED_OUT, NOT_LIVE, Result
from hygiene.revoke.pool import run_stoppable
from hygiene.scan import Detection
from hygiene.stopping import StopRequest


@dataclass(frozen=True)
class SessionTarget:
    """A leaked session token to log out; ``repr`` hides the token."""

    fingerprint: str
    where: str
    masked: str
    token: str = field(repr=False)

    def result(
        self, status: str, http_status: int | None = None, error: str | None = None
    ) -> Result:
        return Result(None, self.fingerprint, status, http_status, error, self.where, self.masked)

    def foreign(self, issuer: Issuer) -> Result:
        """This target reported as another issuer's: never sent, revoked where it was issued."""
        return Result(
            None,
            self.fingerprint,
            FOREIGN,
            where=self.where,
            masked=self.masked,
            issuer=issuer.name,
            next_step=issuer.next_step,
        )


NOT_OURS_HINT = (
    "not a live session of this service; its issuer is unknown (set AIC_EMAIL and "
    "AIC_PASSWORD or AIC_TOKEN to tell): if another service issued it, revoke it there"
)


def unproven(result: Result) -> Result:
    """Without the service's session shape, a 401 says only "not a live session here": the
    value may be another service's key, live there. Say so beside ``not_live``."""
    if result.status != NOT_LIVE or result.error:
        return result
    return dataclasses.replace(result, error=NOT_OURS_HINT)


def service_shape(sample: str | None) -> SessionShape | None:
    """The shape of the service's sessions, learned from ``sample`` (the user's own session
    token, ``AIC_TOKEN``); None for no sample, a PAT, or a value that is not the service's."""
    # A known format or a password is no session; a JWT naming any issuer is fine here: the
    # shape only narrows what the static rules let through (it can never widen them).
    if not sample or sample.startswith(PAT_PREFIX) or known_issuer(sample) or is_basic(sample):
        return None
    return SessionShape.learn(sample)


def _access_token(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    token = body.get("access_token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not 16 <= len(token) <= 16384 or not token.isascii():
        return None
    return token if token.isprintable() and " " not in token else None


SHAPE_BOUND = 10.0  # seconds learning the shape may take: a stalling login costs no more


def learn_shape(
    base_url: str, email: str, password: str, *, deadline: float | None = None
) -> SessionShape | None:
    """Log in once to see what the service's sessions look like, then log that session out;
    None when that does not work (the static rules still hold). A learned shape only ever
    narrows what is sent: a value the static rules refuse stays refused.

    It takes at most :data:`SHAPE_BOUND` seconds, or half the command's ``deadline``."""
    bound = SHAPE_BOUND if deadline is None else min(SHAPE_BOUND, deadline / 2)
    policy = RetryPolicy(
        attempts=2,
        timeout_attempts=1,
        throttled_attempts=2,
        max_retry_after=bound / 2,
        stall=bound,
        request_deadline=bound,
        grace=bound / 2,
    )
    with bearer_client(base_url, policy=policy, timeout=bound, deadline=bound) as client:
        try:
            answer = client.post(LOGIN, json={"email": email, "password": password})
        except (httpx.HTTPError, HygieneError):
            return None
        token = _access_token(answer) if answer.status_code == 200 else None
        if token is None:
            return None
        shape = service_shape(token)
        log_out_one(client, SessionTarget(fingerprint(token), "", "", token))
    return shape


def split_foreign(
    targets: Iterable[SessionTarget], base_url: str | None, shape: SessionShape | None = None
) -> tuple[list[SessionTarget], list[Result]]:
    """The targets that may be sessions of the service at ``base_url``, and a ``foreign``
    result for each of the others (see the module's docstring)."""
    ours: list[SessionTarget] = []
    foreign: list[Result] = []
    for target in targets:
        issuer = issuer_of(target.token, base_url, shape)
        if issuer is None:
            ours.append(target)
        else:
            foreign.append(target.foreign(issuer))
    return ours, foreign


def session_targets(detections: Iterable[Detection]) -> list[SessionTarget]:
    """One target per distinct token (by fingerprint), at its first place, in the given order."""
    seen: dict[str, SessionTarget] = {}
    for d in detections:
        f = d.finding
        if f.fingerprint not in seen:
            where = f"{f.path}:{f.line}"
            seen[f.fingerprint] = SessionTarget(f.fingerprint, where, f.masked, d.secret.token)
    return list(seen.values())


def _org_of(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    org = body.get("active_org_id")
    if isinstance(org, str) and org:
        return org
    members = body.get("memberships")
    first = members[0] if isinstance(members, list) and members else None
    org = first.get("org_id") if isinstance(first, dict) else None
    return org if isinstance(org, str) and org else None


def log_out_one(client: httpx.Client, target: SessionTarget) -> Result:
    """Memberships, then logout, both with the leaked token; see the module's docstring.

    A value of another issuer is refused here too, whoever the caller: ``foreign``, unsent."""
    issuer = issuer_of(target.token, str(client.base_url))
    if issuer is not None:
        return target.foreign(issuer)
    try:
        found = client.get(MEMBERSHIPS, headers=bearer_headers(target.token))
        if found.status_code == 401:
            return target.result(NOT_LIVE, 401)
        org = _org_of(found) if found.status_code == 200 else None
        if org is None:
            said = hide_values(error_code(found) or "MEMBERSHIPS", [target.token])
            return target.result(FAILED, found.status_code, said)
        answer = client.post(LOGOUT, headers=bearer_headers(target.token, **{ORG_HEADER: org}))
    except (httpx.HTTPError, HygieneError) as exc:
        return target.result(FAILED, None, type(exc).__name__)
    if answer.status_code == 204:
        return target.result(LOGGED_OUT, 204)
    if answer.status_code == 401:
        # Dead by now: expired meanwhile, or an earlier attempt of ours reached the service.
        return target.result(NOT_LIVE, 401)
    code = error_code(answer)  # the service's word, which may echo the token it was sent
    return target.result(FAILED, answer.status_code, code and hide_values(code, [target.token]))


def log_out_all(
    targets: Sequence[SessionTarget],
    base_url: str,
    *,
    transport: httpx.BaseTransport | None = None,
    policy: RetryPolicy | None = None,
    on_done: Callable[[Result], None] | None = None,
    deadline: float | None = None,
    stop: StopRequest | None = None,
) -> list[Result]:
    """Log out every target at ``base_url`` (already checked: https, or loopback http); no
    request starts after ``deadline`` seconds.

    Results come in the targets' order; ``on_done`` is called in this thread as each arrives.
    After a stop request no new target is started (those end ``failed`` / ``CANCELLED``).
    """
    if not targets:
        return []
    with bearer_client(base_url, transport=transport, policy=policy, deadline=deadline) as client:
        return run_stoppable(
            lambda target: log_out_one(client, target),
            targets,
            not_sent=lambda t: t.result(FAILED, None, "CANCELLED"),
            cut_short=lambda t: t.result(FAILED, None, "INTERRUPTED"),
            stop=stop,
            on_done=on_done,
        )


__all__ = [
    "NOT_OURS_HINT",
    "SHAPE_BOUND",
    "SessionTarget",
    "learn_shape",
    "log_out_all",
    "log_out_one",
    "service_shape",
    "session_targets",
    "split_foreign",
    "unproven",
]
