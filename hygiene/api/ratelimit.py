"""Client-side pacing: never send faster than the service allows, whatever its headers say.

The gate is shared by every thread of one client. It counts down the quota the last answer
announced (minus requests still in flight, which the server may not have counted yet), waits
for the window to reset when the quota is spent, and after a 429 waits ``retry-after``.
Answers to requests sent before the gate last refilled are ignored: they describe an old window.

Headers come from a server we do not control: every number is parsed defensively (``nan``,
``inf``, negative, garbage) and clamped to sane bounds, so no header can crash the client or
make it wait for days: a reset beyond the longest wait is not waited for (see ``observe``).

When a server answers 429 with ``retry-after`` only (no ``x-ratelimit-*``), bursting until the
next 429 loses most of a window each time. The gate learns the rate instead: N answers went
through before a 429 asking for R seconds, so it spaces requests R/N apart (plus a margin), and
slows down by 2% on each further 429.
"""

from __future__ import annotations

import math
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
# The longest a reset header can make the gate wait (x-ratelimit-reset: 999999 is 11.6 days:
# a reset beyond it is not waited for at all).
MAX_RESET = 120.0
MAX_QUOTA = 1_000_000
# Learned pacing: 1% slower than the rate observed, 2% slower again after each further 429
# (a 429 costs a whole retry-after: the margin only absorbs jitter).
PACE_MARGIN = 1.01
PACE_BACKOFF = 1.02
MAX_INTERVAL = 10.0


def finite(text: str | None, low: float, high: float) -> float | None:
    """``text`` as a number clamped to [low, high]; None for garbage, ``nan`` or absent."""
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    if math.isnan(value):
        return None
    return min(high, max(low, value))


def reset_seconds(text: str | None, wall_now: float) -> float | None:
    """Seconds until an ``x-ratelimit-reset`` value (a delay, or a Unix time as GitHub sends),
    not bounded above; None for garbage or absent, 0 for a time already past."""
    reset = finite(text, 0.0, math.inf)
    if reset is None:
        return None
    if reset > EPOCH_THRESHOLD:
        reset = reset - wall_now
    return max(0.0, reset) if math.isfinite(reset) else math.inf


class RateGate:
    """A thread-safe gate in front of every request of one client."""

    def __init__(
        self,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        wall_clock: Clock = time.time,
        max_wait: float = MAX_RESET,
    ) -> None:
        self._clock = clock
        self._max_wait = max_wait
        self._sleep = sleep
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self.limit: int | None = None
        self.remaining: int | None = None  # None: no limit known
        self.reset_at: float | None = None
        self.interval: float | None = None  # learned spacing between requests, seconds
        self._next_slot = 0.0
        self._in_flight = 0
        self._generation = 0
        self._answered = 0  # answers (not 429) since the gate last refilled
        self._learned_in: int | None = None  # generation whose 429 already adjusted the pace

    def acquire(self, give_up_at: float | None = None, *, closing: bool = False) -> int:
        """Wait for a slot; return the generation to hand back to :meth:`observe`.

        Raises TimeoutError when the slot would come after ``give_up_at`` (clock time): the
        window's reset and the learned pace's reserved slot alike (nothing is taken then).
        ``closing`` (a logout): a paced slot past ``give_up_at`` is not waited for, the call
        goes at once instead (the pace is this client's margin, not the server's word).
        """
        while True:
            with self._lock:
                now = self._clock()
                if self.reset_at is not None and now >= self.reset_at:
                    self._refill()
                if self.remaining is None or self.remaining > 0:
                    return self._take(now, give_up_at, closing)
                if self.reset_at is None and self._in_flight == 0:
                    self.reset_at = now + DEFAULT_WINDOW  # nobody will tell us: assume
                # With answers on their way, poll: they carry the real reset time.
                wait = POLL if self.reset_at is None else self.reset_at - now
            if give_up_at is not None and now + wait >= give_up_at:
                raise TimeoutError("the rate limit's wait would pass the deadline")
            self._sleep(max(wait, 0.001))

    def _take(self, now: float, give_up_at: float | None, closing: bool) -> int:
        slot = now if self.interval is None else max(now, self._next_slot)
        late = slot > now and give_up_at is not None and slot >= give_up_at
        if late and not closing:
            # Slots queue up one interval apart (up to MAX_INTERVAL each, one per thread): the
            # one free now may lie past the deadline, and the request would leave after it.
            raise TimeoutError("the rate limit's pace would pass the deadline")
        if self.remaining is not None:
            self.remaining -= 1
        self._in_flight += 1
        generation = self._generation
        if self.interval is not None and not late:
            self._next_slot = slot + self.interval
            if slot > now:
                # The slot is reserved; waiting for it outside the lock lets others reserve.
                self._lock.release()
                try:
                    self._sleep(slot - now)
                finally:
                    self._lock.acquire()
        return generation

    def _refill(self) -> None:
        self.remaining = self.limit
        self.reset_at = None
        self._generation += 1
        self._answered = 0

    def release(self, generation: int | None = None) -> None:
        """The request is answered (or failed): it no longer counts as in flight.

        With its ``generation``: it was never sent (its token fell due while it waited), so
        its slot of the quota is handed back for the request that renews the token.
        """
        with self._lock:
            self._in_flight -= 1
            if generation == self._generation and self.remaining is not None:
                self.remaining = min(self.remaining + 1, self.limit or MAX_QUOTA)

    def observe(self, generation: int, headers: Mapping[str, str], status: int = 200) -> None:
        """Learn the quota from an answer's ``x-ratelimit-*`` headers (call before release)."""
        limit = finite(headers.get("x-ratelimit-limit"), 1, MAX_QUOTA)
        remaining = finite(headers.get("x-ratelimit-remaining"), 0, MAX_QUOTA)
        reset = self._reset_delay(headers.get("x-ratelimit-reset"))
        if reset is not None and reset > self._max_wait:
            # A window we would never wait for (x-ratelimit-reset: 999999): this answer's quota
            # says nothing to act on. The next request goes, and its 429 (if any) is given up
            # at once, as an over-long retry-after is; no header buys a wait past the bound.
            remaining = None
        with self._lock:
            if status != 429 and generation == self._generation:
                self._answered += 1
            if remaining is None or generation != self._generation:
                return
            now = self._clock()
            if limit is not None:
                self.limit = int(limit)
            left = max(0, int(remaining) - (self._in_flight - 1))
            self.remaining = left if self.remaining is None else min(self.remaining, left)
            if reset is not None and self.reset_at is None:
                self.reset_at = now + reset

    def _reset_delay(self, text: str | None) -> float | None:
        return reset_seconds(text, self._wall_clock())

    def throttled(self, retry_after: float, generation: int | None = None) -> None:
        """A 429: nobody sends before ``retry_after`` seconds have passed; learn the pace."""
        with self._lock:
            if generation is not None and self.limit is None:
                self._learn(retry_after, generation)
            until = self._clock() + min(retry_after, self._max_wait)
            self.remaining = 0
            self.reset_at = until if self.reset_at is None else max(self.reset_at, until)

    def _learn(self, retry_after: float, generation: int) -> None:
        if generation != self._generation or self._learned_in == generation:
            return  # the other answers of a burst that one 429 already accounted for
        self._learned_in = generation
        if self.interval is None:
            if self._answered >= 1 and retry_after > 0:
                self.interval = min(MAX_INTERVAL, PACE_MARGIN * retry_after / self._answered)
        else:
            self.interval = min(MAX_INTERVAL, self.interval * PACE_BACKOFF)


__all__ = ["MAX_RESET", "RateGate", "finite", "reset_seconds"]
