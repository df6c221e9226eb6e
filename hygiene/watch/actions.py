"""The watcher's actions: a thread pool behind a bounded queue, one action per leak at a time.

At most ``limit`` actions wait or run at once. A leak that finds the queue full is ``deferred``:
recorded so in the state, kept in memory (up to :data:`MAX_DEFERRED`, PATs ahead of session
tokens) and queued as soon as there is room; past that bound it is only recorded, and acted on
when it shows up again (or, for a PAT, at the next ``--revoke`` start). Nothing is dropped
silently: :attr:`Actions.deferred` and :attr:`Actions.overflow` count them for the report.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from hygiene.detection import AIC_PAT, Secret
from hygiene.watch.events import Event

ACTION_WORKERS = 4
ACTION_QUEUE = 64  # a real leak waits behind at most this many actions
MAX_DEFERRED = 10_000


@dataclass(frozen=True)
class Leak:
    """A leak to act on: its event so far, and its secret (None for a PAT known only by its
    fingerprint, from the state file: the inventory needs nothing more)."""

    event: Event
    secret: Secret | None
    read_at: float

    @property
    def fingerprint(self) -> str:
        return self.event.fingerprint


class Actions:
    """Runs ``handle`` for each leak on a thread pool; see the module docstring."""

    def __init__(self, handle: Callable[[Leak], None], limit: int = ACTION_QUEUE) -> None:
        self._handle = handle
        self._limit = limit
        self._pool = ThreadPoolExecutor(ACTION_WORKERS, "hygiene-watch-act")
        self._pending: dict[str, Future[None]] = {}
        self._waiting: dict[bool, OrderedDict[str, Leak]] = {
            True: OrderedDict(),
            False: OrderedDict(),
        }
        self._lock = threading.Lock()
        self.deferred = 0  # leaks that found the queue full
        self.overflow = 0  # of those, the ones past MAX_DEFERRED: in the state only

    def busy_with(self, fingerprint: str) -> bool:
        """Whether this leak is queued, running or waiting for room."""
        with self._lock:
            return fingerprint in self._pending or any(
                fingerprint in w for w in self._waiting.values()
            )

    def offer(self, leak: Leak) -> bool:
        """Queue ``leak``; False when the queue is full and it was deferred instead."""
        with self._lock:
            if len(self._pending) < self._limit:
                self._submit(leak)
                return True
            self.deferred += 1
            waiting = self._waiting[leak.event.type == AIC_PAT]
            if sum(len(w) for w in self._waiting.values()) < MAX_DEFERRED:
                waiting[leak.fingerprint] = leak
            else:
                self.overflow += 1
            return False

    def refill(self) -> None:
        """Queue deferred leaks while there is room, PATs first."""
        with self._lock:
            for pats in (True, False):
                waiting = self._waiting[pats]
                while waiting and len(self._pending) < self._limit:
                    _, leak = waiting.popitem(last=False)
                    self._submit(leak)

    def waiting(self) -> int:
        """Deferred leaks not queued yet."""
        with self._lock:
            return sum(len(w) for w in self._waiting.values())

    def _submit(self, leak: Leak) -> None:
        self._pending[leak.fingerprint] = self._pool.submit(self._run, leak)

    def _run(self, leak: Leak) -> None:
        try:
            self._handle(leak)
        finally:
            with self._lock:
                self._pending.pop(leak.fingerprint, None)

    def finish(self, timeout: float) -> None:
        """Let queued actions finish (bounded); what is left stays recorded as it was."""
        with self._lock:
            pending = list(self._pending.values())
        wait(pending, timeout=timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["ACTION_QUEUE", "ACTION_WORKERS", "MAX_DEFERRED", "Actions", "Leak"]
