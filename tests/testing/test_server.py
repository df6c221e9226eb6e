"""The stand-in over real loopback sockets, spoken to with plain httpx (no project client)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hygiene.testing import ControlPlane, State
from hygiene.testing.server import RecordedRequest
from tests.helpers import SecretGuard

API = "/api/v1"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def http(control_plane: ControlPlane) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=control_plane.base_url, timeout=10) as client:
        yield client


def login(http: httpx.Client, plane: ControlPlane) -> str:
    response = http.post(
        API + "/auth/login", json={"email": plane.email, "password": plane.password}
    )
    assert response.status_code == 200
    token = response.json()["access_token"]
    assert isinstance(token, str)
    return token


def auth(token: str, org: str | None = "org_main") -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if org:
        headers["X-Active-Org-Id"] = org
    return headers


def test_fixture_is_served_by_the_installed_plugin(control_plane: ControlPlane) -> None:
    assert control_plane.base_url.startswith("http://127.0.0.1:")
    assert not control_plane.base_url.endswith(":0")


@pytest.mark.parametrize(
    "body",
    [
        {"email": "demo@example.test", "password": "wrong"},
        {"email": "nobody@example.test", "password": "wrong"},
        {"email": "demo@example.test"},
        {},
    ],
)
def test_every_login_failure_is_the_same_auth_failed(
    http: httpx.Client, body: dict[str, str]
) -> None:
    response = http.post(API + "/auth/login", json=body)
    assert response.status_code == 401
    assert response.json() == {"error": "AUTH_FAILED", "message": "Authentication failed."}


def test_login_gives_expires_in_and_memberships_need_no_org(
    http: httpx.Client, control_plane: ControlPlane
) -> None:
    credentials = {"email": control_plane.email, "password": control_plane.password}
    response = http.post(API + "/auth/login", json=credentials)
    assert response.json()["expires_in"] == 900
    token = response.json()["access_token"]
    body = http.get(API + "/org/memberships", headers=auth(token, None)).json()
    assert body["active_org_id"] == "org_main"
    assert {m["org_id"] for m in body["memberships"]} == {"org_main", "org_second"}


def test_authorization_and_org_header_are_enforced(
    http: httpx.Client, control_plane: ControlPlane
) -> None:
    token = login(http, control_plane)
    assert http.get(API + "/safes").status_code == 401
    assert http.get(API + "/safes", headers=auth(token, None)).json()["error"] == "ORG_REQUIRED"
    outside = http.get(API + "/safes", headers=auth(token, "org_elsewhere"))
    assert (outside.status_code, outside.json()["error"]) == (403, "NOT_A_MEMBER")
    assert http.get(API + "/safes", headers=auth(token, "org_second")).status_code == 200


def test_logout_invalidates_at_once(http: httpx.Client, control_plane: ControlPlane) -> None:
    token = login(http, control_plane)
    assert http.post(API + "/auth/logout", headers=auth(token)).status_code == 204
    assert http.get(API + "/safes", headers=auth(token)).status_code == 401


def test_session_expires_after_expires_in() -> None:
    clock = FakeClock()
    with (
        ControlPlane(State(clock=clock, token_lifetime=120)) as plane,
        httpx.Client(base_url=plane.base_url) as http,
    ):
        token = login(http, plane)
        clock.now += 119
        assert http.get(API + "/safes", headers=auth(token)).status_code == 200
        clock.now += 1
        assert http.get(API + "/safes", headers=auth(token)).status_code == 401


def test_refresh_swaps_the_token_or_answers_404(
    http: httpx.Client, control_plane: ControlPlane
) -> None:
    token = login(http, control_plane)
    response = http.post(API + "/auth/refresh", headers=auth(token))
    assert response.status_code == 200
    new = response.json()["access_token"]
    assert http.get(API + "/safes", headers=auth(token)).status_code == 401
    assert http.get(API + "/safes", headers=auth(new)).status_code == 200
    control_plane.switches.refresh_enabled = False
    assert http.post(API + "/auth/refresh", headers=auth(new)).status_code == 404


def test_pat_lifecycle_scopes_and_cap(
    http: httpx.Client, control_plane: ControlPlane, guard: SecretGuard
) -> None:
    token = login(http, control_plane)
    create = {"name": "ci", "scopes": ["safes:read"], "expires_in_days": 180}
    response = http.post(API + "/auth/api-tokens", json=create, headers=auth(token))
    assert response.status_code == 201
    value = guard.remember(response.json()["token"])
    token_id = response.json()["token_id"]
    assert value.startswith("pat_AIC_")
    assert len(value) > 30
    assert http.get(API + "/safes", headers=auth(value)).status_code == 200
    scoped = http.post(API + "/auth/api-tokens", json=create, headers=auth(value))
    assert (scoped.status_code, scoped.json()["error"]) == (403, "SCOPE")
    too_long = http.post(
        API + "/auth/api-tokens", json={**create, "expires_in_days": 181}, headers=auth(token)
    )
    assert (too_long.status_code, too_long.json()["error"]) == (422, "INVALID_EXPIRY")
    other_org = http.delete(f"{API}/auth/api-tokens/{token_id}", headers=auth(token, "org_second"))
    assert other_org.status_code == 404
    assert http.delete(f"{API}/auth/api-tokens/{token_id}", headers=auth(token)).status_code == 204
    assert http.delete(f"{API}/auth/api-tokens/{token_id}", headers=auth(token)).status_code == 404
    assert http.get(API + "/safes", headers=auth(value)).status_code == 401
    guard.capture(repr(control_plane.requests), repr(control_plane.state.pats()))


def test_rate_limit_answers_429_with_headers(
    http: httpx.Client, control_plane: ControlPlane
) -> None:
    control_plane.switches.set_rate_limit(3, window=30)
    statuses = [http.post(API + "/auth/login", json={}) for _ in range(4)]
    assert [r.status_code for r in statuses] == [401, 401, 401, 429]
    assert [r.headers["x-ratelimit-remaining"] for r in statuses] == ["2", "1", "0", "0"]
    assert statuses[-1].headers["x-ratelimit-limit"] == "3"
    assert int(statuses[-1].headers["retry-after"]) >= 1
    assert 0 < float(statuses[-1].headers["x-ratelimit-reset"]) <= 30


def test_injected_500s_resets_throttles_and_401s(
    http: httpx.Client, control_plane: ControlPlane
) -> None:
    token = login(http, control_plane)
    switches = control_plane.switches
    switches.fail_next = 1
    assert http.get(API + "/safes", headers=auth(token)).status_code == 500
    switches.throttle_next, switches.throttle_retry_after = 1, "7"
    assert http.get(API + "/safes", headers=auth(token)).headers["retry-after"] == "7"
    switches.reset_next = 1
    with pytest.raises(httpx.TransportError):
        http.get(API + "/safes", headers=auth(token))
    switches.unauthorized_next = 1
    assert http.get(API + "/safes", headers=auth(token)).status_code == 401
    assert http.get(API + "/safes", headers=auth(token)).status_code == 401  # sessions dropped
    assert http.get(API + "/safes", headers=auth(login(http, control_plane))).status_code == 200


def test_fail_probability_is_seeded(http: httpx.Client, control_plane: ControlPlane) -> None:
    def run() -> list[int]:
        control_plane.switches.set_fail_probability(0.5, seed=7)
        return [http.post(API + "/auth/login", json={}).status_code for _ in range(20)]

    first = run()
    assert 500 in first
    assert 401 in first
    assert run() == first


def test_every_request_is_recorded_with_masked_repr(
    http: httpx.Client, control_plane: ControlPlane, guard: SecretGuard
) -> None:
    token = guard.remember(login(http, control_plane))
    http.get(API + "/safes", headers=auth(token))
    recorded = control_plane.requests
    assert [(r.method, r.path) for r in recorded] == [
        ("POST", API + "/auth/login"),
        ("GET", API + "/safes"),
    ]
    assert recorded[1].headers["authorization"] == f"Bearer {token}"
    assert "authorization" not in recorded[0].headers
    guard.capture(repr(recorded), str(recorded[1]))
    assert isinstance(recorded[0], RecordedRequest)


def test_slow_answers(http: httpx.Client, control_plane: ControlPlane) -> None:
    control_plane.switches.delay = 0.3
    with pytest.raises(httpx.ReadTimeout):
        http.post(API + "/auth/login", json={}, timeout=0.05)
