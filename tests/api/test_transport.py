"""Retries, 429s and pacing: MockTransport, a fake clock, a sleep that only moves the clock."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from email.utils import format_datetime

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.api.ratelimit import RateGate
from hygiene.api.transport import UNSAFE, RetryPolicy, RetryTransport, parse_retry_after
from tests.api.fakes import FakeClock, reply

POLICY = RetryPolicy(attempts=4, throttled_attempts=5, backoff=0.5, backoff_cap=4.0)


def transport(
    answers: list[httpx.Response | Exception], clock: FakeClock
) -> tuple[httpx.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = answers.pop(0) if answers else reply(200, {})
        if isinstance(item, Exception):
            raise item
        return item

    wrapped = RetryTransport(
        httpx.MockTransport(handler),
        policy=POLICY,
        gate=RateGate(clock, clock.sleep),
        sleep=clock.sleep,
        wall_clock=clock,
        rng=random.Random(1),
    )
    return httpx.Client(transport=wrapped, base_url="https://x.test"), seen


def test_429_waits_retry_after_seconds() -> None:
    clock = FakeClock()
    client, seen = transport([reply(429, headers={"retry-after": "3"}), reply(200, {})], clock)
    assert client.get("/a").status_code == 200
    assert len(seen) == 2
    assert sum(clock.sleeps) == pytest.approx(3.0)


def test_429_waits_until_an_http_date() -> None:
    clock = FakeClock()
    when = datetime.fromtimestamp(clock.now + 10, timezone.utc)
    client, _ = transport(
        [reply(429, headers={"retry-after": format_datetime(when, usegmt=True)}), reply(200, {})],
        clock,
    )
    assert client.get("/a").status_code == 200
    assert sum(clock.sleeps) == pytest.approx(10.0, abs=1.0)


def test_429s_are_bounded() -> None:
    clock = FakeClock()
    client, seen = transport([reply(429, headers={"retry-after": "1"})] * 10, clock)
    assert client.get("/a").status_code == 429
    assert len(seen) == POLICY.throttled_attempts


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_back_off_exponentially_with_jitter(status: int) -> None:
    clock = FakeClock()
    client, seen = transport([reply(status)] * 3 + [reply(200, {})], clock)
    assert client.get("/a").status_code == 200
    assert len(seen) == 4
    for attempt, slept in enumerate(clock.sleeps, 1):
        full = min(4.0, 0.5 * 2 ** (attempt - 1))
        assert full / 2 <= slept <= full


def test_server_errors_are_bounded() -> None:
    clock = FakeClock()
    client, seen = transport([reply(500)] * 10, clock)
    assert client.get("/a").status_code == 500
    assert len(seen) == POLICY.attempts


def test_connection_errors_are_retried_then_raised() -> None:
    clock = FakeClock()
    client, seen = transport([httpx.ConnectError("refused"), reply(200, {})], clock)
    assert client.get("/a").status_code == 200
    client, seen = transport([httpx.ReadError("reset")] * 10, clock)
    with pytest.raises(httpx.ReadError):
        client.get("/a")
    assert len(seen) == POLICY.attempts


@pytest.mark.parametrize(
    "answer", [reply(500), reply(503), httpx.ReadError("lost"), httpx.RemoteProtocolError("closed")]
)
def test_unsafe_request_is_not_repeated_once_it_may_have_arrived(
    answer: httpx.Response | Exception,
) -> None:
    clock = FakeClock()
    client, seen = transport([answer, reply(201, {})], clock)
    if isinstance(answer, Exception):
        with pytest.raises(type(answer)):
            client.post("/tokens", json={}, extensions={UNSAFE: True})
    else:
        assert client.post("/tokens", json={}, extensions={UNSAFE: True}).status_code >= 500
    assert len(seen) == 1


@pytest.mark.parametrize(
    "answer", [reply(429, headers={"retry-after": "2"}), httpx.ConnectError("refused")]
)
def test_unsafe_request_is_repeated_when_it_surely_never_arrived(
    answer: httpx.Response | Exception,
) -> None:
    clock = FakeClock()
    client, seen = transport([answer, reply(201, {})], clock)
    assert client.post("/tokens", json={}, extensions={UNSAFE: True}).status_code == 201
    assert len(seen) == 2


def test_gate_waits_for_the_window_once_the_quota_is_spent() -> None:
    clock = FakeClock()
    headers = {"x-ratelimit-limit": "2", "x-ratelimit-remaining": "1", "x-ratelimit-reset": "5"}
    last = {**headers, "x-ratelimit-remaining": "0"}
    client, seen = transport([reply(200, {}, headers), reply(200, {}, last), reply(200, {})], clock)
    start = clock.now
    for _ in range(3):
        client.get("/a")
    assert len(seen) == 3
    assert clock.now - start == pytest.approx(5.0)


def test_gate_ignores_answers_about_an_old_window() -> None:
    clock = FakeClock()
    gate = RateGate(clock, clock.sleep)
    old = gate.acquire()
    gate.throttled(1.0)
    gate.release()
    fresh = gate.acquire()  # waits for the window, refills
    assert clock.sleeps == [1.0]
    gate.observe(old, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9"})
    assert gate.reset_at is None
    assert fresh != old


@given(st.integers(min_value=0, max_value=10**6))
def test_retry_after_seconds_round_trip(seconds: int) -> None:
    assert parse_retry_after(str(seconds), 0.0) == seconds


@pytest.mark.parametrize("value", [None, "", "soon", "Mon, 99 Foo 2020"])
def test_retry_after_garbage_is_none(value: str | None) -> None:
    assert parse_retry_after(value, 0.0) is None


def test_retry_after_date_in_the_past_is_zero() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 2_000_000_000.0) == 0.0


def test_gate_waits_the_reported_reset_not_a_guess() -> None:
    clock = FakeClock()
    gate = RateGate(clock, clock.sleep)
    generation = gate.acquire()
    headers = {"x-ratelimit-limit": "2", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "0.25"}
    gate.observe(generation, headers)
    gate.release()
    gate.acquire()
    assert clock.sleeps == [pytest.approx(0.25)]
    assert gate.remaining == 1


def test_gate_reads_a_unix_time_reset_as_absolute() -> None:
    clock = FakeClock()  # also the wall clock here: 1.7e9
    gate = RateGate(clock, clock.sleep, wall_clock=clock)
    generation = gate.acquire()
    reset = str(clock.now + 3)
    gate.observe(generation, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    gate.release()
    gate.acquire()
    assert clock.sleeps == [pytest.approx(3.0)]
