"""A small worker pool that can stop: the one every concurrent step of ``revoke-leaked`` uses.

Unlike ``ThreadPoolExecutor``, nothing queued is sent once a stop is requested: workers take
the next item only while no stop is set, and their client's waits (rate-limit slot, retry
backoff) end at once (:meth:`~hygiene.stopping.StopRequest.sleep`). Answers reach ``on_done``
in the calling thread as they arrive, and ``on_drained`` each time no further answer is
waiting, so the caller records them right away, in one transaction per burst. Requests in
flight when the stop comes get ``grace`` seconds to finish (less after a second signal).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from hygiene.errors import Interrupted
from hygiene.stopping import StopRequest

T = TypeVar("T")
R = TypeVar("R")

WORKERS = 8
GRACE = 10.0  # seconds requests in flight may take to finish after a stop
HURRY = 1.0  # ... after a second stop request
POLL = 0.1


@dataclass
class Pool(Generic[T, R]):
    """One run over ``items``; :meth:`run` returns answers in the items' order."""

    call: Callable[[T], R]
    items: Sequence[T]
    not_sent: Callable[[T], R]  # the answer for an item the stop kept from being sent
    cut_short: Callable[[T], R]  # ... for one in flight that did not finish within the grace
    stop: StopRequest = field(default_factory=StopRequest)
    workers: int = WORKERS
    grace: float = GRACE
    on_done: Callable[[R], None] | None = None
    on_drained: Callable[[], None] | None = None  # no answer waiting: record the batch now
    _todo: queue.SimpleQueue[int] = field(default_factory=queue.SimpleQueue)
    _done: queue.SimpleQueue[tuple[int, R | None, BaseException | None]] = field(
        default_factory=queue.SimpleQueue
    )
    _taken: set[int] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _halt: threading.Event = field(default_factory=threading.Event)

    def _work(self) -> None:
        with self.stop.worker():
            while not (self.stop.is_set() or self._halt.is_set()):
                with self._lock:  # take an item and mark it taken at once
                    try:
                        index = self._todo.get_nowait()
                    except queue.Empty:
                        return
                    self._taken.add(index)
                try:
                    self._done.put((index, self.call(self.items[index]), None))
                except Interrupted:
                    # The client was waiting (a rate-limit slot, a retry) when the stop came:
                    # that request was not sent.
                    self._done.put((index, self.not_sent(self.items[index]), None))
                except BaseException as exc:  # handed to the calling thread
                    self._halt.set()  # no worker takes another item
                    self._done.put((index, None, exc))

    def _deadline(self, stopped_at: float | None) -> float | None:
        if stopped_at is None:
            return None
        return stopped_at + (HURRY if self.stop.count > 1 else self.grace)

    def run(self) -> list[R]:
        """Answers in order; an error raised by ``call`` stops the run and is raised after the
        answers already on their way have reached ``on_done``."""
        answers: dict[int, R] = {}
        for index in range(len(self.items)):
            self._todo.put(index)
        threads = [
            threading.Thread(target=self._work, name=f"hygiene-worker-{n}", daemon=True)
            for n in range(max(1, min(self.workers, len(self.items))))
        ]
        for thread in threads:
            thread.start()
        error = self._collect(answers, threads)
        if error is not None:
            raise error
        return self._fill(answers)

    def _collect(
        self, answers: dict[int, R], threads: list[threading.Thread]
    ) -> BaseException | None:
        error: BaseException | None = None
        stopped_at: float | None = None
        while len(answers) < len(self.items):
            if stopped_at is None and (self.stop.is_set() or self._halt.is_set()):
                stopped_at = time.monotonic()
            deadline = self._deadline(stopped_at)
            if deadline is not None and time.monotonic() >= deadline:
                break
            try:
                index, answer, exc = self._done.get(timeout=POLL)
            except queue.Empty:
                if not any(t.is_alive() for t in threads) and self._done.empty():
                    break
                continue
            if exc is not None:
                error = error or exc
                self._halt.set()
                continue
            answers[index] = answer  # type: ignore[assignment]
            if self.on_done is not None:
                self.on_done(answer)  # type: ignore[arg-type]
            if self.on_drained is not None and self._done.empty():
                self.on_drained()
        if self.on_drained is not None:
            self.on_drained()
        return error

    def _fill(self, answers: dict[int, R]) -> list[R]:
        with self._lock:
            taken = set(self._taken)
        out = []
        for index, item in enumerate(self.items):
            if index not in answers:
                missing = self.cut_short(item) if index in taken else self.not_sent(item)
                if self.on_done is not None:
                    self.on_done(missing)
                answers[index] = missing
            out.append(answers[index])
        return out


def run_stoppable(
    call: Callable[[T], R],
    items: Sequence[T],
    *,
    not_sent: Callable[[T], R],
    cut_short: Callable[[T], R],
    stop: StopRequest | None = None,
    workers: int = WORKERS,
    on_done: Callable[[R], None] | None = None,
    on_drained: Callable[[], None] | None = None,
) -> list[R]:
    """``call`` on every item on up to ``workers`` threads, stoppable; see :class:`Pool`."""
    if not items:
        return []
    pool: Pool[T, R] = Pool(
        call,
        items,
        not_sent,
        cut_short,
        stop=stop if stop is not None else StopRequest(),
        workers=workers,
        on_done=on_done,
        on_drained=on_drained,
    )
    return pool.run()


__all__ = ["GRACE", "WORKERS", "Pool", "run_stoppable"]
