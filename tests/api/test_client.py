"""The client's rules (headers, renewal, refresh 404, one re-auth on 401, the 180-day cap)."""

from __future__ import annotations

import logging

import httpx
import pytest

from hygiene.detection import PAT_PREFIX
from hygiene.errors import ApiError, AuthFailed, UsageError
from tests.api.fakes import PASSWORD, FakeClock, FakeService, make_client, reply
from tests.helpers import SecretGuard

LOGIN, REFRESH = "POST /api/v1/auth/login", "POST /api/v1/auth/refresh"
MEMBERS = "GET /api/v1/org/memberships"


def check_headers(service: FakeService, org: str = "org_a") -> None:
    for request in service.requests:
        path = request.url.path
        has_auth = "authorization" in request.headers
        assert has_auth == (path != "/api/v1/auth/login"), path
        wants_org = path not in ("/api/v1/auth/login", "/api/v1/org/memberships")
        assert request.headers.get("x-active-org-id") == (org if wants_org else None), path


def test_login_memberships_then_both_headers_and_logout() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        assert client.revoke_pat("tok_9") == 204
    assert service.paths() == [
        LOGIN,
        MEMBERS,
        "GET /api/v1/safes",
        "DELETE /api/v1/auth/api-tokens/tok_9",
        "POST /api/v1/auth/logout",
    ]
    check_headers(service)


def test_org_id_must_be_a_membership() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock, org_id="org_b") as client:
        client.safes()
    check_headers(service, "org_b")
    service = FakeService()
    with (
        make_client(service, clock, org_id="org_zzz") as client,
        pytest.raises(UsageError, match="org_zzz"),
    ):
        client.safes()
    assert service.paths()[-1] == "POST /api/v1/auth/logout"
    assert service.requests[-1].headers["x-active-org-id"] == "org_a"


def test_renews_by_refresh_60_seconds_before_expiry() -> None:
    service, clock = FakeService(lifetime=600), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 539
        client.safes()
        assert REFRESH not in service.paths()
        clock.now += 1
        client.safes()
    assert service.paths().count(REFRESH) == 1
    assert service.paths().count(LOGIN) == 1
    # The request after renewal carries the new token.
    assert service.requests[-2].headers["authorization"] == f"Bearer {service.tokens[-1]}"
    check_headers(service)


def test_refresh_404_means_login_and_never_refresh_again() -> None:
    service, clock = FakeService(lifetime=600, refresh=False), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        for _ in range(3):
            clock.now += 560
            client.safes()
    assert service.paths().count(REFRESH) == 1
    assert service.paths().count(LOGIN) == 4
    check_headers(service)


def test_expired_token_is_not_refreshed_but_replaced_by_login() -> None:
    service, clock = FakeService(lifetime=600), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 601
        client.safes()
    assert REFRESH not in service.paths()
    assert service.paths().count(LOGIN) == 2


def test_short_lifetime_renews_at_half_life() -> None:
    service, clock = FakeService(lifetime=10), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 4
        client.safes()
        clock.now += 1
        client.safes()
    assert service.paths().count(REFRESH) == 1


def test_one_reauthentication_on_401() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        service.script["/api/v1/safes"] = [reply(401, {"error": "UNAUTHORIZED"})]
        assert client.safes() == []
        assert service.paths()[-3:] == ["GET /api/v1/safes", LOGIN, "GET /api/v1/safes"]
        service.script["/api/v1/safes"] = [reply(401)] * 2
        with pytest.raises(AuthFailed, match="401"):
            client.safes()
    assert service.paths().count(LOGIN) == 3


def test_auth_failed_is_reported_as_such() -> None:
    service, clock = FakeService(), FakeClock()
    service.script["/api/v1/auth/login"] = [reply(401, {"error": "AUTH_FAILED"})]
    with make_client(service, clock) as client, pytest.raises(AuthFailed, match="AUTH_FAILED"):
        client.safes()
    assert service.paths() == [LOGIN]  # no logout without a session


def test_days_above_180_are_refused_before_sending() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client, pytest.raises(UsageError, match="180"):
        client.create_pat("ci", ["safes:read"], 181)
    assert service.requests == []


def test_create_finds_the_value_by_prefix_and_id_in_any_field(guard: SecretGuard) -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        created = client.create_pat("ci", ["safes:read"], 30)
    guard.remember(created.value)
    guard.capture(repr(created))
    assert created.value.startswith(PAT_PREFIX)
    assert created.token_id == "tok_1"


def test_create_is_not_retried_after_a_500() -> None:
    service, clock = FakeService(), FakeClock()
    service.script["/api/v1/auth/api-tokens"] = [reply(500), reply(201, {})]
    with make_client(service, clock) as client, pytest.raises(ApiError, match="500"):
        client.create_pat("ci", ["safes:read"], 30)
    assert service.paths().count("POST /api/v1/auth/api-tokens") == 1


def test_revoke_statuses() -> None:
    service, clock = FakeService(), FakeClock()
    service.script["/api/v1/auth/api-tokens/a"] = [reply(404, {"error": "NOT_FOUND"})]
    service.script["/api/v1/auth/api-tokens/b"] = [reply(403, {"error": "SCOPE"})]
    with make_client(service, clock) as client:
        assert client.revoke_pat("a") == 404
        with pytest.raises(ApiError) as info:
            client.revoke_pat("b")
    assert (info.value.status, info.value.code) == (403, "SCOPE")


def test_fixed_token_never_logs_in_or_out(guard: SecretGuard) -> None:
    service, clock = FakeService(), FakeClock()
    token = guard.session_token()
    service.tokens.append(token)
    with make_client(service, clock, token=token) as client:
        client.safes()
    assert service.paths() == [MEMBERS, "GET /api/v1/safes"]


def test_network_failure_is_a_one_line_api_error() -> None:
    service, clock = FakeService(), FakeClock()
    service.script["/api/v1/auth/login"] = [httpx.ConnectError("refused")] * 10
    with make_client(service, clock) as client, pytest.raises(ApiError, match="ConnectError"):
        client.safes()


def test_logs_hold_no_token_or_password(
    caplog: pytest.LogCaptureFixture, guard: SecretGuard
) -> None:
    caplog.set_level(logging.DEBUG)
    service, clock = FakeService(lifetime=120, refresh=False), FakeClock()
    service.script["/api/v1/safes"] = [
        reply(500),
        reply(429, headers={"retry-after": "1"}),
        reply(401),
    ]
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 100
        created = client.create_pat("ci", ["safes:read"], 30)
    guard.remember(created.value)
    guard.remember(PASSWORD)
    for token in service.tokens:
        guard.remember(token)
    assert caplog.records, "the client logs its retries and logins"
    guard.capture(caplog.text, *(r.getMessage() for r in caplog.records))
    guard.capture(*(repr(r.args) for r in caplog.records))
