"""Retries and rate limiting as an httpx transport wrapper (httpx has no retries of its own).

* 429: wait ``retry-after`` (seconds or an HTTP date), for every thread of the client.
* 500, 502, 503, 504 and connection errors: exponential backoff with jitter, bounded attempts.
* A request marked :data:`UNSAFE` (PAT creation) is retried only when it surely never reached
  the server: a refused connection or a 429. A 5xx or a connection lost after sending may mean
  the token exists, and a blind retry would create a second one.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from hygiene.api import logs
from hygiene.api.ratelimit import RateGate

Clock = Callable[[], float]
Sleep = Callable[[float], None]

# Request extension: this request must not be repeated once it may have reached the server.
UNSAFE = "hygiene.unsafe_to_retry"
RETRY_STATUSES = frozenset({500, 502, 503, 504})
# Errors raised before a byte of the request left: always safe to retry.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# Errors after the request may have been sent.
_MAYBE_SENT = (
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts for errors, 429s tolerated, backoff base and cap (seconds)."""

    attempts: int = 5
    throttled_attempts: int = 10
    backoff: float = 0.2
    backoff_cap: float = 8.0
    max_retry_after: float = 300.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Backoff before retry number ``attempt`` (1-based): half fixed, half jitter."""
        full = min(self.backoff_cap, self.backoff * 2.0 ** (attempt - 1))
        return full / 2 + rng.uniform(0, full / 2)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``retry-after`` value (delta seconds or HTTP date), or None.

    ``now`` is the wall-clock time (seconds since the epoch) an HTTP date is measured from.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def _discard(response: httpx.Response) -> None:
    # Read before closing so the connection goes back to the pool.
    try:
        response.read()
    finally:
        response.close()


class RetryTransport(httpx.BaseTransport):
    """Wraps a transport with the rate gate, 429 handling and bounded retries."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        *,
        policy: RetryPolicy | None = None,
        gate: RateGate | None = None,
        sleep: Sleep = time.sleep,
        wall_clock: Clock = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.inner = inner
        self.policy = policy or RetryPolicy()
        self.gate = gate or RateGate(sleep=sleep)
        self._sleep = sleep
        self._wall_clock = wall_clock
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        unsafe = bool(request.extensions.get(UNSAFE))
        failures = throttles = 0
        while True:
            generation = self.gate.acquire()
            try:
                response = self.inner.handle_request(request)
                self.gate.observe(generation, response.headers)
            except _NOT_SENT + _MAYBE_SENT as exc:
                failures += 1
                sent = not isinstance(exc, _NOT_SENT)
                if (unsafe and sent) or failures >= self.policy.attempts:
                    raise
                self._backoff(request, failures, type(exc).__name__)
                continue
            finally:
                self.gate.release()
            if response.status_code == 429:
                throttles += 1
                wait = self._retry_after(response)
                if wait is None or throttles >= self.policy.throttled_attempts:
                    return response
                _discard(response)
                logs.info("%s %s: 429, waiting %.2fs", request.method, request.url.path, wait)
                self.gate.throttled(wait)
                continue
            if response.status_code in RETRY_STATUSES and not unsafe:
                failures += 1
                if failures < self.policy.attempts:
                    _discard(response)
                    self._backoff(request, failures, str(response.status_code))
                    continue
            return response

    def _retry_after(self, response: httpx.Response) -> float | None:
        wait = parse_retry_after(response.headers.get("retry-after"), self._wall_clock())
        if wait is None:
            wait = 1.0
        return None if wait > self.policy.max_retry_after else wait

    def _backoff(self, request: httpx.Request, failures: int, what: str) -> None:
        delay = self.policy.delay(failures, self._rng)
        logs.info(
            "%s %s: %s, retry %d in %.2fs", request.method, request.url.path, what, failures, delay
        )
        self._sleep(delay)

    def close(self) -> None:
        self.inner.close()


__all__ = ["RETRY_STATUSES", "UNSAFE", "RetryPolicy", "RetryTransport", "parse_retry_after"]
