"""verify_tokens against the stand-in: live, dead, unknown; never anywhere but base_url."""

from __future__ import annotations

import httpx
import pytest

from hygiene.api.verify import verify_tokens
from hygiene.detection import fingerprint
from hygiene.errors import UsageError
from hygiene.progress import ItemProgress
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard


def test_live_dead_and_revoked(control_plane: ControlPlane, guard: SecretGuard) -> None:
    state = control_plane.state
    live_pat, live = state.create_pat(control_plane.email, "org_main", "a", ["safes:read"], 30)
    gone_pat, gone = state.create_pat(control_plane.email, "org_main", "b", ["safes:read"], 30)
    state.revoke_pat("org_main", gone_pat.token_id)
    unknown = guard.pat()
    guard.remember(live)
    guard.remember(gone)
    result = verify_tokens([live, gone, unknown, live], control_plane.base_url)
    assert result == {
        fingerprint(live): "live",
        fingerprint(gone): "dead",
        fingerprint(unknown): "dead",
    }
    sent = [r for r in control_plane.requests if r.path == "/api/v1/org/memberships"]
    assert len(sent) == 3
    assert live_pat.token_id
    guard.capture(repr(result))


def test_errors_are_unknown(control_plane: ControlPlane, guard: SecretGuard) -> None:
    _, value = control_plane.state.create_pat(control_plane.email, "org_main", "a", ["x"], 30)
    guard.remember(value)
    control_plane.switches.fail_next = 10
    assert verify_tokens([value], control_plane.base_url) == {fingerprint(value): "unknown"}


def test_redirects_are_not_followed(guard: SecretGuard) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(302, headers={"location": "https://evil.example/collect"})

    value = guard.pat()
    result = verify_tokens(
        [value], "https://pam.example.test", transport=httpx.MockTransport(handler)
    )
    assert result == {fingerprint(value): "unknown"}
    assert seen == ["https://pam.example.test/api/v1/org/memberships"]


def test_plain_http_to_a_remote_host_is_refused(guard: SecretGuard) -> None:
    with pytest.raises(UsageError):
        verify_tokens([guard.pat()], "http://pam.example.com")
    assert verify_tokens([], "https://pam.example.com") == {}


def test_progress_counts_each_answer_unknown_as_failed(
    control_plane: ControlPlane, guard: SecretGuard
) -> None:
    state = control_plane.state
    _, live = state.create_pat(control_plane.email, "org_main", "a", ["safes:read"], 30)
    guard.remember(live)
    progress = ItemProgress()
    assert verify_tokens([live, guard.pat(), live], control_plane.base_url, progress=progress)
    assert (progress.total, progress.done, progress.failed) == (2, 2, 0)
    control_plane.switches.fail_next = 10
    progress = ItemProgress()
    verify_tokens([live], control_plane.base_url, progress=progress)
    assert (progress.total, progress.done, progress.failed) == (1, 1, 1)
