"""Switches of the stand-in: the API document's open points and the faults a client must survive.

Each switch can be flipped while the server runs (tests turn faults on mid-run); counters such
as "the next N calls" are consumed under a lock, so concurrent requests see each fault once.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class Fault(Enum):
    """What the server does instead of answering normally."""

    NONE = "none"
    ERROR_500 = "500"
    RESET = "reset"
    UNAUTHORIZED = "401"
    RATE_LIMITED = "429"


@dataclass
class RateLimit:
    """A fixed window: ``limit`` requests per ``window`` seconds, from the window's first call."""

    limit: int
    window: float = 1.0
    clock: Callable[[], float] = time.monotonic
    _start: float = field(default=-math.inf, init=False)
    _count: int = field(default=0, init=False)

    def take(self) -> tuple[bool, int, float]:
        """Count one call: (allowed, remaining, seconds until the window resets)."""
        now = self.clock()
        if now - self._start >= self.window:
            self._start, self._count = now, 0
        reset = max(0.0, self._start + self.window - now)
        if self._count >= self.limit:
            return False, 0, reset
        self._count += 1
        return True, self.limit - self._count, reset


@dataclass
class Switches:
    """The stand-in's knobs. Change them at any time; reads and counters are locked."""

    refresh_enabled: bool = True
    rate_limit: RateLimit | None = None
    rate_headers: bool = True  # False: a 429 carries retry-after only, no x-ratelimit-* anywhere
    fail_next: int = 0  # the next N calls answer 500
    fail_probability: float = 0.0  # then each call answers 500 with this probability
    reset_next: int = 0  # the next N calls have their connection reset
    unauthorized_next: int = 0  # the next N authenticated calls get 401 (sessions invalidated)
    unauthorized_at: int = 0  # the authenticated call with this number (1-based) gets 401
    throttle_next: int = 0  # the next N calls get 429 with ``throttle_retry_after``
    throttle_retry_after: str = "1"
    delay: float = 0.0  # seconds every answer waits
    seed: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _authenticated_calls: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)  # noqa: S311 - fault injection, not crypto

    def set_rate_limit(self, per_second: int | None, window: float = 1.0) -> None:
        """Limit every call to ``per_second`` per ``window`` (None: no limit)."""
        with self._lock:
            self.rate_limit = RateLimit(per_second, window) if per_second else None

    def set_fail_probability(self, probability: float, seed: int = 0) -> None:
        with self._lock:
            self.fail_probability = probability
            self._rng = random.Random(seed)  # noqa: S311 - fault injection, not crypto

    def take_rate(self) -> tuple[bool, int, float, int] | None:
        """(allowed, remaining, reset, limit) under the rate limit, None without one."""
        with self._lock:
            if self.rate_limit is None:
                return None
            allowed, remaining, reset = self.rate_limit.take()
            return allowed, remaining, reset, self.rate_limit.limit

    def take_fault(self, authenticated: bool) -> Fault:
        """The fault this call gets, consuming one unit of the matching counter."""
        with self._lock:
            if self.reset_next > 0:
                self.reset_next -= 1
                return Fault.RESET
            if self.throttle_next > 0:
                self.throttle_next -= 1
                return Fault.RATE_LIMITED
            if self.fail_next > 0:
                self.fail_next -= 1
                return Fault.ERROR_500
            if self.fail_probability and self._rng.random() < self.fail_probability:
                return Fault.ERROR_500
            if authenticated:
                self._authenticated_calls += 1
                if self._authenticated_calls == self.unauthorized_at:
                    return Fault.UNAUTHORIZED
            if authenticated and self.unauthorized_next > 0:
                self.unauthorized_next -= 1
                return Fault.UNAUTHORIZED
            return Fault.NONE


__all__ = ["Fault", "RateLimit", "Switches"]
