"""Bounds, budgets, pacing and renewal of the client: MockTransport and an injected clock."""

from __future__ import annotations

import itertools
import random

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.api.answers import TRUNCATED, parse_retry_after
from hygiene.api.config import check_base_url, load_config, mask_url, read_deadline
from hygiene.api.ratelimit import RateGate
from hygiene.api.transport import RetryPolicy, RetryTransport
from hygiene.errors import ApiError, UsageError
from tests.api.fakes import FakeClock, FakeService, make_client, reply
from tests.helpers import SecretGuard

LOGIN, REFRESH, LOGOUT = (
    "POST /api/v1/auth/login",
    "POST /api/v1/auth/refresh",
    "POST /api/v1/auth/logout",
)


def gated(handler: object, clock: FakeClock, policy: RetryPolicy | None = None) -> httpx.Client:
    policy = policy or RetryPolicy()
    wrapped = RetryTransport(
        httpx.MockTransport(handler),  # type: ignore[arg-type]
        policy=policy,
        gate=RateGate(clock, clock.sleep, wall_clock=clock, max_wait=policy.max_retry_after),
        sleep=clock.sleep,
        clock=clock,
        wall_clock=clock,
        rng=random.Random(1),
    )
    return httpx.Client(transport=wrapped, base_url="https://x.test")


# renewal ---------------------------------------------------------------------------------------
def test_renews_60_seconds_before_expiry_even_for_short_lifetimes() -> None:
    service, clock = FakeService(lifetime=90), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 29
        client.safes()
        assert REFRESH not in service.paths()
        clock.now += 1
        client.safes()
    assert service.paths().count(REFRESH) == 1


def test_a_retry_after_a_wait_renews_first_and_never_resends_a_stale_token() -> None:
    service, clock = FakeService(lifetime=100), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 30
        first = service.tokens[-1]
        service.script["/api/v1/safes"] = [reply(429, headers={"retry-after": "20"})]
        client.safes()
    paths = service.paths()
    at = paths.index(REFRESH)
    assert paths[at - 1 : at + 2] == ["GET /api/v1/safes", REFRESH, "GET /api/v1/safes"]
    assert service.requests[at + 1].headers["authorization"] != f"Bearer {first}"


def test_renewal_by_login_logs_the_old_session_out() -> None:
    service, clock = FakeService(lifetime=600, refresh=False), FakeClock()
    logged_out: list[str] = []

    def logout(request: httpx.Request) -> httpx.Response:
        logged_out.append(request.headers["authorization"])
        return httpx.Response(204)

    service.handlers["/api/v1/auth/logout"] = logout
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 541
        client.safes()
        tokens = list(service.tokens)
    assert logged_out == [f"Bearer {tokens[0]}", f"Bearer {tokens[1]}"]
    assert service.paths().count(LOGIN) == 2


def test_an_expired_session_is_not_logged_out_again() -> None:
    service, clock = FakeService(lifetime=600, refresh=False), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        clock.now += 700
        client.safes()
    assert service.paths().count(LOGOUT) == 1  # the closing one only


# budgets and pacing ------------------------------------------------------------------------------
def test_429_forever_gives_up_after_the_stall_budget() -> None:
    clock = FakeClock()
    policy = RetryPolicy(stall=60.0, max_retry_after=30.0)
    client = gated(lambda r: reply(429, headers={"retry-after": "20"}), clock, policy)
    start = clock.now
    assert client.get("/a").status_code == 429
    assert clock.now - start <= 60.0 + 1e-6
    assert len(clock.sleeps) == 3


def test_a_retry_after_beyond_the_longest_wait_is_given_up_at_once() -> None:
    clock = FakeClock()
    policy = RetryPolicy(max_retry_after=30.0)
    client = gated(lambda r: reply(429, headers={"retry-after": "999999"}), clock, policy)
    assert client.get("/a").status_code == 429
    assert clock.sleeps == []


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "", "soon"])
def test_unusable_retry_after_backs_off_instead_of_hammering(value: str) -> None:
    clock = FakeClock()
    answers = [reply(429, headers={"retry-after": value})] * 3 + [reply(200, {})]
    client = gated(lambda r: answers.pop(0), clock)
    assert client.get("/a").status_code == 200
    assert len(clock.sleeps) == 3
    assert all(s > 0.05 for s in clock.sleeps)


def test_tight_rate_limit_slows_down_but_fails_nothing() -> None:
    """1 request per second with headers; 16 ids in a row: no failure, about 16 s."""
    clock = FakeClock()
    window = {"start": -10.0, "used": 0}

    def limited(request: httpx.Request) -> httpx.Response:
        if clock.now - window["start"] >= 1.0:
            window.update(start=clock.now, used=0)
        reset = f"{window['start'] + 1.0 - clock.now:.3f}"
        headers = {"x-ratelimit-limit": "1", "x-ratelimit-reset": reset}
        if window["used"] >= 1:
            return reply(429, headers={**headers, "x-ratelimit-remaining": "0", "retry-after": "1"})
        window["used"] += 1
        return reply(204, headers={**headers, "x-ratelimit-remaining": "0"})

    client = gated(limited, clock)
    start = clock.now
    assert [client.delete(f"/t/{n}").status_code for n in range(16)] == [204] * 16
    assert clock.now - start == pytest.approx(15.0, abs=1.5)


def test_retry_after_only_teaches_the_gate_the_rate() -> None:
    """100 per second, 429 with retry-after only: after one 429, requests are spaced ~10 ms."""
    clock = FakeClock()
    window = {"start": -10.0, "used": 0}
    sent: list[float] = []

    def limited(request: httpx.Request) -> httpx.Response:
        if clock.now - window["start"] >= 1.0:
            window.update(start=clock.now, used=0)
        if window["used"] >= 100:
            return reply(429, headers={"retry-after": "1"})
        window["used"] += 1
        sent.append(clock.now)
        return httpx.Response(204)

    client = gated(limited, clock)
    for n in range(400):
        assert client.delete(f"/t/{n}").status_code == 204
    gaps = [b - a for a, b in itertools.pairwise(sent[150:])]
    assert min(gaps) == pytest.approx(0.0101, rel=0.01)
    # 100 at once, one 1 s wait, then paced: 400 in about 1 + 3.03 s, the floor being 4 s
    assert sent[-1] - sent[0] < 4.3


@given(
    remaining=st.one_of(
        st.text(max_size=12), st.sampled_from(["nan", "inf", "-inf", "-1", "1e308"])
    ),
    reset=st.one_of(st.text(max_size=12), st.sampled_from(["nan", "inf", "999999", "-4", "1e300"])),
    limit=st.one_of(st.text(max_size=12), st.sampled_from(["nan", "0", "-2", "1e400"])),
)
def test_no_rate_limit_header_can_crash_or_stall_the_gate(
    remaining: str, reset: str, limit: str
) -> None:
    clock = FakeClock()
    gate = RateGate(clock, clock.sleep, wall_clock=clock, max_wait=30.0)
    headers = {
        "x-ratelimit-remaining": remaining,
        "x-ratelimit-reset": reset,
        "x-ratelimit-limit": limit,
    }
    for _ in range(3):
        generation = gate.acquire()
        gate.observe(generation, headers)
        gate.release()
    assert sum(clock.sleeps) <= 3 * 30.0 + 3


@given(st.text(max_size=40))
def test_retry_after_never_raises_and_is_never_negative(value: str) -> None:
    wait = parse_retry_after(value, 1_700_000_000.0)
    assert wait is None or 0.0 <= wait < float("inf")


# bodies, ids, tokens, URLs -----------------------------------------------------------------------
def test_bodies_are_cut_at_the_cap() -> None:
    clock = FakeClock()
    policy = RetryPolicy(max_body=1024)
    client = gated(lambda r: httpx.Response(404, content=b"x" * 5_000_000), clock, policy)
    answer = client.get("/a")
    assert len(answer.content) == 1024
    assert answer.extensions[TRUNCATED]


def test_token_ids_are_path_encoded_and_invalid_ones_never_sent() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        client.revoke_pat("org:tok.1")
        for bad in ("..", ".", "", "../../org/memberships?x=", "a/b"):
            with pytest.raises(ApiError, match="not a token id") as info:
                client.revoke_pat(bad)
            assert info.value.code == "INVALID_TOKEN_ID"
    assert service.requests[-2].url.raw_path == b"/api/v1/auth/api-tokens/org%3Atok.1"
    assert [r.method for r in service.requests].count("DELETE") == 1


def test_only_the_services_json_not_found_is_not_found() -> None:
    service, clock = FakeService(), FakeClock()
    service.script["/api/v1/auth/api-tokens/a"] = [httpx.Response(404, content=b"<html>404</html>")]
    service.script["/api/v1/auth/api-tokens/b"] = [reply(404, {"error": "NO_ROUTE"})]
    with make_client(service, clock) as client:
        for token_id in ("a", "b"):
            with pytest.raises(ApiError) as info:
                client.revoke_pat(token_id)
            assert info.value.status == 404


def test_revoke_in_another_organization_of_the_caller() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        client.revoke_pat("t", org="org_b")
        with pytest.raises(UsageError, match="org_zzz"):
            client.revoke_pat("t", org="org_zzz")
    assert service.requests[2].headers["x-active-org-id"] == "org_b"


@pytest.mark.parametrize("bad", ["\r\nX-Evil: 1", "\n", "\x00", " ", "é"])
def test_a_bearer_token_with_control_characters_is_refused_unseen(
    bad: str, guard: SecretGuard
) -> None:
    token = guard.session_token()
    env = {"AIC_BASE_URL": "https://pam.example.test", "AIC_TOKEN": token[:10] + bad + token[10:]}
    with pytest.raises(UsageError) as info:
        load_config(env)
    guard.capture(str(info.value))


def test_an_access_token_with_a_line_break_from_the_server_is_refused(guard: SecretGuard) -> None:
    service, clock = FakeService(), FakeClock()
    token = guard.session_token()
    service.script["/api/v1/auth/login"] = [
        reply(200, {"access_token": token + "\r\nX: y", "expires_in": 60})
    ]
    with (
        make_client(service, clock) as client,
        pytest.raises(ApiError, match=r"^login failed") as info,
    ):
        client.safes()
    guard.capture(str(info.value))


@pytest.mark.parametrize(
    "url",
    [
        "ftp://user:hunter2secret@host",
        "http://user:hunter2secret@[::1",
        "https://u:hunter2secret@h:x/",
    ],
)
def test_url_errors_never_echo_a_password(url: str) -> None:
    with pytest.raises(UsageError) as info:
        check_base_url(url, False)
    assert "hunter2secret" not in str(info.value)
    assert "hunter2secret" not in mask_url(url)


@pytest.mark.parametrize("text", ["0", "-3", "nan", "inf", "soon", "1e9"])
def test_a_bad_command_deadline_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="HYGIENE_DEADLINE"):
        read_deadline({"HYGIENE_DEADLINE": text})


def test_the_command_deadline_reaches_the_client() -> None:
    env = {
        "AIC_BASE_URL": "https://pam.example.test",
        "AIC_TOKEN": "abc",
        "HYGIENE_DEADLINE": "2.5",
    }
    assert load_config(env).deadline == 2.5
    assert read_deadline({}) is None


def test_stop_lets_no_new_request_start_but_still_logs_out() -> None:
    service, clock = FakeService(), FakeClock()
    with make_client(service, clock) as client:
        client.safes()
        client.transport.stop()
        with pytest.raises(ApiError, match=r"^revoke tok_1: stopped: no new request"):
            client.revoke_pat("tok_1")
    assert service.paths()[-2:] == ["GET /api/v1/safes", LOGOUT]
