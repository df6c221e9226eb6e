"""Client-side pacing: never send faster than the service's ``x-ratelimit-*`` headers allow.

The gate is shared by every thread of one client. It counts down the quota the last answer
announced (minus requests still in flight, which the server may not have counted yet), waits
for the window to reset when the quota is spent, and after a 429 waits ``retry-after``.
Answers to requests sent before the gate last refilled are ignored: they describe an old window.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

Clock = Callable[[], float]
Sleep = Callable[[float], None]

# Without a reset header, how long a spent quota is assumed to last.
DEFAULT_WINDOW = 1.0
POLL = 0.01
# A reset value this large is a Unix timestamp (2001-09-09 onwards), not seconds to wait.
EPOCH_THRESHOLD = 1e9


def _number(headers: Mapping[str, str], name: str) -> float | None:
    try:
        return float(headers[name])
    except (KeyError, ValueError):
        return None


class RateGate:
    """A thread-safe gate in front of every request of one client."""

    def __init__(
        self,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        wall_clock: Clock = time.time,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self.limit: int | None = None
        self.remaining: int | None = None  # None: no limit known
        self.reset_at: float | None = None
        self._in_flight = 0
        self._generation = 0

    def acquire(self) -> int:
        """Wait for a slot; return the generation to hand back to :meth:`observe`."""
        while True:
            with self._lock:
                now = self._clock()
                if self.reset_at is not None and now >= self.reset_at:
                    self._refill()
                if self.remaining is None or self.remaining > 0:
                    if self.remaining is not None:
                        self.remaining -= 1
                    self._in_flight += 1
                    return self._generation
                if self.reset_at is None and self._in_flight == 0:
                    self.reset_at = now + DEFAULT_WINDOW  # nobody will tell us: assume
                # With answers on their way, poll: they carry the real reset time.
                wait = POLL if self.reset_at is None else self.reset_at - now
            self._sleep(max(wait, 0.001))

    def _refill(self) -> None:
        self.remaining = self.limit
        self.reset_at = None
        self._generation += 1

    def release(self) -> None:
        """The request is answered (or failed): it no longer counts as in flight."""
        with self._lock:
            self._in_flight -= 1

    def observe(self, generation: int, headers: Mapping[str, str]) -> None:
        """Learn the quota from an answer's ``x-ratelimit-*`` headers (call before release)."""
        limit = _number(headers, "x-ratelimit-limit")
        remaining = _number(headers, "x-ratelimit-remaining")
        if remaining is None:
            return
        reset = _number(headers, "x-ratelimit-reset")
        if reset is not None and reset > EPOCH_THRESHOLD:
            # Some services (GitHub) send the reset as a Unix time, not a delay.
            reset = max(0.0, reset - self._wall_clock())
        with self._lock:
            if generation != self._generation:
                return
            now = self._clock()
            if limit is not None:
                self.limit = int(limit)
            left = max(0, int(remaining) - (self._in_flight - 1))
            self.remaining = left if self.remaining is None else min(self.remaining, left)
            if reset is not None and self.reset_at is None:
                self.reset_at = now + reset

    def throttled(self, retry_after: float) -> None:
        """A 429: nobody sends before ``retry_after`` seconds have passed."""
        with self._lock:
            until = self._clock() + retry_after
            self.remaining = 0
            self.reset_at = until if self.reset_at is None else max(self.reset_at, until)


__all__ = ["RateGate"]
