"""The stoppable pool: nothing new after a stop, waits end at once, a bounded grace, errors."""

from __future__ import annotations

import signal
import threading

import pytest

from hygiene.errors import AuthFailed
from hygiene.revoke.pool import Pool, run_stoppable
from hygiene.stopping import StopRequest


def _pool(call, items, stop, **kw):  # type: ignore[no-untyped-def]
    return Pool(call, items, lambda i: ("not_sent", i), lambda i: ("cut_short", i), stop=stop, **kw)


def test_nothing_starts_after_the_stop() -> None:
    stop, calls, lock = StopRequest(), [], threading.Lock()

    def call(item: int) -> tuple[str, int]:
        with lock:
            calls.append(item)
            if len(calls) == 5:
                stop.request(signal.SIGINT)
        return ("done", item)

    answers = _pool(call, list(range(100)), stop, workers=3).run()
    assert len(answers) == 100
    assert len(calls) <= 5 + 2  # the other workers had at most one item each in hand
    assert {i for kind, i in answers if kind == "done"} == set(calls)
    assert all(kind == "not_sent" for kind, i in answers if i not in calls)


def test_a_wait_in_a_worker_ends_at_the_stop_and_is_not_sent() -> None:
    stop, waiting = StopRequest(), threading.Semaphore(0)

    def call(item: int) -> tuple[str, int]:
        waiting.release()
        # A rate-limit slot or a retry backoff: the request is not sent yet. Were the wait
        # deaf to the stop, it would end after these 60 s and the item would be "done".
        stop.sleep(60)
        return ("done", item)

    def stop_when_both_wait() -> None:
        for _ in range(2):
            waiting.acquire(timeout=120)  # a guard against a hang, not a verdict
        stop.request(signal.SIGTERM)

    threading.Thread(target=stop_when_both_wait, daemon=True).start()
    answers = _pool(call, [1, 2], stop, workers=2).run()
    assert answers == [("not_sent", 1), ("not_sent", 2)]


def test_in_flight_past_the_grace_is_cut_short_and_drains_are_reported() -> None:
    stop, release, drained = StopRequest(), threading.Event(), []

    def call(item: int) -> tuple[str, int]:
        if item == 0:
            stop.request(signal.SIGINT)
            # A request in flight that does not answer: one the grace did not cut would end
            # after these 60 s as "done".
            release.wait(60)
        return ("done", item)

    pool = _pool(call, [0], stop, workers=1, grace=0.2, on_drained=lambda: drained.append(1))
    assert pool.run() == [("cut_short", 0)]
    release.set()
    assert drained  # the caller was told to record what it had


def test_an_error_stops_the_run_after_the_answers_in_hand() -> None:
    seen: list[tuple[str, int]] = []

    def call(item: int) -> tuple[str, int]:
        if item == 3:
            raise AuthFailed("login refused")
        return ("done", item)

    with pytest.raises(AuthFailed):
        run_stoppable(
            call,
            list(range(50)),
            not_sent=lambda i: ("not_sent", i),
            cut_short=lambda i: ("cut_short", i),
            workers=1,
            on_done=seen.append,
        )
    assert seen == [("done", 0), ("done", 1), ("done", 2)]
