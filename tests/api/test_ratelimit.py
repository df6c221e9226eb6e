"""The rate gate's paced wait and the command's deadline: a slot the learned pace reserves past
the deadline is refused at once (nothing slept, nothing taken), as the window's wait is; a
closing call (logout) is not left behind by it. MockTransport and an injected clock."""

from __future__ import annotations

import httpx
import pytest

from hygiene.api.ratelimit import RateGate
from hygiene.api.transport import RetryPolicy
from hygiene.errors import EXIT_ERROR, ApiError
from tests.api.fakes import BASE, PASSWORD, FakeClock, FakeService, make_client, reply
from tests.helpers import SecretGuard

LOGOUT = "POST /api/v1/auth/logout"


def _paced(clock: FakeClock, interval: float, queued: int = 0) -> RateGate:
    """A gate that has learned ``interval`` and holds ``queued`` slots after now reserved by
    threads still asleep (their sleeps are theirs: the clock does not move for them)."""
    asleep = {"others": True}

    def sleep(seconds: float) -> None:
        if not asleep["others"]:
            clock.sleep(seconds)

    gate = RateGate(clock, sleep, wall_clock=clock)
    gate.interval = interval
    for _ in range(queued + 1):  # the slot free now, then the queued ones
        gate.acquire()
        gate.release()
    asleep["others"] = False
    return gate


@pytest.mark.parametrize("interval", [0.05, 1.0, 10.0])
@pytest.mark.parametrize("queued", [0, 1, 31])
@pytest.mark.parametrize("left", [0.0001, 0.5, 0.999])  # of the wait, the deadline comes at
def test_a_paced_slot_at_or_past_the_deadline_is_refused_unslept_and_untaken(
    interval: float, queued: int, left: float
) -> None:
    clock = FakeClock()
    gate = _paced(clock, interval, queued)
    wait = (queued + 1) * interval  # the free slot is one interval after the queued ones
    start = clock.now
    with pytest.raises(TimeoutError, match="pace would pass the deadline"):
        gate.acquire(start + left * wait)
    assert clock.sleeps == []  # refused before any wait
    # Nothing was taken: the next caller with time enough gets that very slot.
    gate.acquire(start + wait + 1.0)
    assert clock.sleeps == [pytest.approx(wait)]


def test_a_paced_slot_exactly_at_the_deadline_is_refused() -> None:
    # As the window's wait: a request leaving at its deadline has no time left for an answer.
    clock = FakeClock(start=0.0)
    gate = _paced(clock, 2.0, queued=1)
    with pytest.raises(TimeoutError):
        gate.acquire(4.0)
    assert clock.sleeps == []


@pytest.mark.parametrize("interval", [0.05, 10.0])
def test_a_paced_slot_before_the_deadline_is_waited_for(interval: float) -> None:
    clock = FakeClock()
    gate = _paced(clock, interval)
    gate.acquire(clock.now + interval * 1.001)
    assert clock.sleeps == [pytest.approx(interval)]


def test_a_closing_call_goes_at_once_rather_than_past_its_bound() -> None:
    clock = FakeClock()
    gate = _paced(clock, 10.0, queued=3)
    start = clock.now
    gate.acquire(start + 5.0, closing=True)
    assert clock.sleeps == []
    gate.release()
    # It reserved nothing: the queue's next slot is where it was.
    gate.acquire(start + 100.0)
    assert clock.sleeps == [pytest.approx(40.0)]


def test_a_closing_call_within_its_bound_keeps_the_pace() -> None:
    clock = FakeClock()
    gate = _paced(clock, 2.0)
    gate.acquire(clock.now + 5.0, closing=True)
    assert clock.sleeps == [pytest.approx(2.0)]


def test_the_window_wait_past_the_deadline_is_refused_as_before() -> None:
    clock = FakeClock()
    gate = RateGate(clock, clock.sleep, wall_clock=clock)
    generation = gate.acquire()
    gate.observe(generation, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"})
    gate.release()
    with pytest.raises(TimeoutError, match="wait would pass the deadline"):
        gate.acquire(clock.now + 10.0)
    assert clock.sleeps == []


def _learning_service(retry_after: str) -> FakeService:
    """The stand-in's answers; the second DELETE is throttled with ``retry-after`` only (the
    gate learns a pace of about ``retry_after`` seconds from one answer before it)."""
    service = FakeService()
    deletes = {"n": 0}

    def delete(request: httpx.Request) -> httpx.Response:
        deletes["n"] += 1
        if deletes["n"] == 2:
            return reply(429, {"error": "RATE_LIMITED"}, {"retry-after": retry_after})
        return httpx.Response(204)

    for n in range(1, 6):
        service.handlers[f"/api/v1/auth/api-tokens/tok_{n}"] = delete
    return service


# The gate learns R/3 apart (login, memberships and tok_1 went before the 429), plus 1%: tok_2
# goes at R, tok_3's slot is at about 1.34 R, after the deadline.
@pytest.mark.parametrize(("retry_after", "deadline"), [("8", 10.0), ("3", 4.0), ("9.5", 12.0)])
def test_the_learned_pace_never_waits_past_the_commands_deadline(
    guard: SecretGuard, retry_after: str, deadline: float
) -> None:
    # tok_1 goes; tok_2's 429 teaches the pace and tok_2 goes after the wait; tok_3's slot
    # lies past the deadline. It used to be slept for, and the DELETE sent after the deadline
    # (on a real socket: a ConnectTimeout instead of a word about the rate limit).
    guard.remember(PASSWORD)
    service, clock = _learning_service(retry_after), FakeClock()
    start = clock.now
    with make_client(service, clock, deadline=deadline) as client:
        assert client.revoke_pat("tok_1") == 204
        assert client.revoke_pat("tok_2") == 204
        gate = client.transport.gate
        assert gate.interval == pytest.approx(1.01 * float(retry_after) / 3)  # the pace, learned
        assert gate.remaining is None  # no window to wait for: the pace alone is in the way
        with pytest.raises(ApiError) as raised:
            client.revoke_pat("tok_3")
        assert clock.now - start < deadline  # nothing slept past it
    for token in service.tokens:
        guard.remember(token)
    message = str(raised.value)
    guard.capture(message)
    assert message == (f"revoke tok_3: the deadline would pass waiting for the rate limit ({BASE})")
    assert raised.value.exit_code == EXIT_ERROR
    sent = service.paths()
    assert "DELETE /api/v1/auth/api-tokens/tok_3" not in sent
    assert sent[-1] == LOGOUT  # the closing call still went, at once
    assert clock.now - start < deadline + RetryPolicy().grace
