"""Retries, rate limiting and bounds as an httpx transport wrapper (httpx has no retries).

* 429: wait ``retry-after`` (seconds or an HTTP date; 0, negative or absent back off
  exponentially instead of hammering), for every thread of the client; a ``retry-after`` or an
  ``x-ratelimit-reset`` longer than ``max_retry_after`` and the 429 is the answer (no wait of
  hours), the same for either header.
* 500, 502, 503, 504 and connection errors: exponential backoff with jitter, bounded attempts.
* A request marked :data:`UNSAFE` (PAT creation) is retried only when it surely never reached
  the server: a refused connection or a 429. A 5xx or a connection lost after sending may mean
  the token exists, and a blind retry would create a second one.
* Bounds: every exchange ends within ``request_deadline`` seconds of wall clock (see
  :mod:`hygiene.api.deadline`), the client within its command deadline; retries stop once no
  request of the client has got through for ``stall`` seconds (429 forever) or the deadline
  would pass during the wait; answer bodies are read up to ``max_body`` bytes, the rest dropped.
* Right before each send (the first, and every retry, once its rate-limit slot is granted) and
  before each wait, ``stale(request, wait)`` is asked: a request whose bearer token is (or will
  be by then) due for renewal is handed back unsent, marked :data:`STALE`, for the auth flow to
  renew the token and send it again (a token due for renewal never leaves).
* Every request asks ``Accept-Encoding: identity``; a compressed answer is refused unread
  (:class:`~hygiene.api.answers.CompressedAnswer`, not retried), so the body cap counts the
  bytes the server sent. An ``X-Active-Org-Id`` that is not an organization id is never sent.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from hygiene.api import deadline, logs
from hygiene.api.answers import IDENTITY, parse_retry_after, read_capped
from hygiene.api.ids import check_org_header
from hygiene.api.ratelimit import RateGate, reset_seconds

Clock = Callable[[], float]
Sleep = Callable[[float], None]

# Request extension: this request must not be repeated once it may have reached the server.
UNSAFE = "hygiene.unsafe_to_retry"
# Request extension: a closing call (logout) that may run past the command's deadline, within
# ``RetryPolicy.grace`` seconds: a session is never left alive because time ran out.
GRACE = "hygiene.grace"
# Response extension: the request's token must be renewed before it is sent again.
STALE = "hygiene.stale_token"
# Request extension set here: the client's clock when the request last went out (a session's
# lifetime counts from there, not from the answer).
SENT_AT = "hygiene.sent_at"
RETRY_STATUSES = frozenset({500, 502, 503, 504})
DEFAULT_TIMEOUT = httpx.Timeout(15.0, connect=5.0, pool=5.0)
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


class DeadlineExceeded(httpx.TimeoutException):
    """The client's overall (command) deadline passed before the request could be answered."""


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try, and every bound on it (seconds unless said otherwise).

    ``attempts``: tries per request for errors and 5xx, ``timeout_attempts`` of which may be
    timeouts (a server that stalls once mostly stalls again); ``throttled_attempts``: 429s per
    request; ``max_retry_after``: the longest wait a header can ask for (a 429 asking more is
    given up at once, and so is one whose reset header asks more); ``stall``: give
    up retrying once nothing got through for this long; ``request_deadline``: one exchange, wall
    clock; ``grace``: the bound of a closing call once the command's deadline has passed;
    ``max_body``: bytes of an answer kept.
    """

    attempts: int = 5
    timeout_attempts: int = 2
    throttled_attempts: int = 10_000
    backoff: float = 0.2
    backoff_cap: float = 8.0
    max_retry_after: float = 120.0
    stall: float = 300.0
    request_deadline: float = 30.0
    grace: float = 5.0
    max_body: int = 1 << 20

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Backoff before retry number ``attempt`` (1-based): half fixed, half jitter."""
        full = min(self.backoff_cap, self.backoff * 2.0 ** (min(attempt, 60) - 1))
        return full / 2 + rng.uniform(0, full / 2)


@dataclass
class _Tries:
    """What one request has been through so far."""

    unsafe: bool
    failures: int = 0
    throttles: int = 0
    timeouts: int = 0


class RetryTransport(httpx.BaseTransport):
    """Wraps a transport with the rate gate, 429 handling, bounded retries and deadlines."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        *,
        policy: RetryPolicy | None = None,
        gate: RateGate | None = None,
        sleep: Sleep = time.sleep,
        wall_clock: Clock = time.time,
        clock: Clock = time.monotonic,
        rng: random.Random | None = None,
        deadline: float | None = None,
        stale: Callable[[httpx.Request, float], bool] | None = None,
    ) -> None:
        self.inner = inner
        self.policy = policy or RetryPolicy()
        self.gate = gate or RateGate(
            clock=clock, sleep=sleep, wall_clock=wall_clock, max_wait=self.policy.max_retry_after
        )
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography
        self.deadline_at = None if deadline is None else clock() + deadline
        self.stale = stale
        self._progress_at = clock()
        self._stopped = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions.setdefault("timeout", DEFAULT_TIMEOUT.as_dict())
        # Whatever the caller (or httpx's defaults) asked: a compressed answer is refused unread.
        request.headers["Accept-Encoding"] = IDENTITY
        check_org_header(request)
        grace = bool(request.extensions.get(GRACE))
        tries = _Tries(unsafe=bool(request.extensions.get(UNSAFE)))
        while True:
            generation = self._acquire(grace)
            if self._stale(request, 0.0):
                # The slot came after the token fell due (a rate-limit or pacing wait): the
                # last moment before sending is where renewal is checked, not only before.
                self.gate.release(generation)  # its slot goes to the renewal
                return _stale_answer(request)
            request.extensions[SENT_AT] = float(self._clock())
            try:
                response = self._exchange(request, grace)
                self.gate.observe(generation, response.headers, response.status_code)
            except _NOT_SENT + _MAYBE_SENT as exc:
                self.gate.release()
                if self._retry_error(request, exc, tries):
                    continue
                return _stale_answer(request)
            except BaseException:
                self.gate.release()  # a refused (compressed) answer, an interrupt: not in flight
                raise
            self.gate.release()
            final = self._retry_answer(request, response, generation, tries)
            if final is not None:
                return final

    def _retry_error(self, request: httpx.Request, exc: httpx.HTTPError, tries: _Tries) -> bool:
        """Wait before retrying after ``exc`` (True), or raise it; False: renew the token first."""
        tries.failures += 1
        tries.timeouts += isinstance(exc, httpx.TimeoutException)
        sent = not isinstance(exc, _NOT_SENT)
        wait = self.policy.delay(tries.failures, self._rng)
        spent = (
            tries.failures >= self.policy.attempts or tries.timeouts >= self.policy.timeout_attempts
        )
        if (tries.unsafe and sent) or spent or not self._may(wait):
            raise exc
        self._wait(request, wait, f"{type(exc).__name__}, retry {tries.failures}")
        return not self._stale(request, 0.0)

    def _retry_answer(
        self, request: httpx.Request, response: httpx.Response, generation: int, tries: _Tries
    ) -> httpx.Response | None:
        """The answer to hand back (final, or marked STALE), or None after waiting to retry."""
        status = response.status_code
        if status == 429:
            tries.throttles += 1
            wait = self._throttle_wait(response, tries.throttles)
            # Asked to wait longer than we ever would (retry-after or x-ratelimit-reset: 999999):
            # the 429 is the answer, now.
            too_long = max(wait, self._reset_wait(response)) > self.policy.max_retry_after
            if too_long or tries.throttles >= self.policy.throttled_attempts or not self._may(wait):
                return response
            self.gate.throttled(wait, generation)  # every thread waits, in acquire
            self._wait(request, 0.0, f"429, waiting {wait:.2f}s")
        elif status in RETRY_STATUSES and not tries.unsafe:
            tries.failures += 1
            wait = self.policy.delay(tries.failures, self._rng)
            if tries.failures >= self.policy.attempts or not self._may(wait):
                return response
            self._wait(request, wait, f"{status}, retry {tries.failures}")
            wait = 0.0
        else:
            self._progress_at = self._clock()
            return response
        return _marked_stale(response) if self._stale(request, wait) else None

    def stop(self) -> None:
        """No new request or retry starts from now on (each raises DeadlineExceeded).

        For a signal handler: requests in flight end within their own deadline, and a closing
        call marked :data:`GRACE` (logout) still goes out, within ``policy.grace`` seconds.
        """
        self._stopped = True
        self.deadline_at = self._clock()

    def _deadline(self, grace: bool) -> float | None:
        if self.deadline_at is None or not grace:
            return self.deadline_at
        return max(self.deadline_at, self._clock() + self.policy.grace)

    def _acquire(self, grace: bool = False) -> int:
        deadline_at = self._deadline(grace)
        if deadline_at is not None and self._clock() >= deadline_at:
            if self._stopped:
                raise DeadlineExceeded("stopped: no new request after an interrupt")
            raise DeadlineExceeded("the command's deadline passed")
        try:
            return self.gate.acquire(deadline_at, closing=grace)
        except TimeoutError:
            raise DeadlineExceeded("the deadline would pass waiting for the rate limit") from None

    def _exchange(self, request: httpx.Request, grace: bool = False) -> httpx.Response:
        """One request and its (capped) answer, all within the request's wall-clock deadline."""
        budget = self.policy.request_deadline
        deadline_at = self._deadline(grace)
        if grace:
            budget = min(budget, self.policy.grace)
        if deadline_at is not None:
            budget = min(budget, deadline_at - self._clock())
        with deadline.until(time.monotonic() + max(budget, 0.0)):
            response = self.inner.handle_request(request)
            return read_capped(response, request, self.policy.max_body)

    def _may(self, wait: float) -> bool:
        """A retry after ``wait`` seconds stays within the stall budget and the deadline."""
        then = self._clock() + wait
        if then - self._progress_at > self.policy.stall:
            logs.info("no request got through for %.0fs: giving up retrying", self.policy.stall)
            return False
        return self.deadline_at is None or then < self.deadline_at

    def _stale(self, request: httpx.Request, ahead: float) -> bool:
        return self.stale is not None and self.stale(request, ahead)

    def _throttle_wait(self, response: httpx.Response, throttles: int) -> float:
        wait = parse_retry_after(response.headers.get("retry-after"), self._wall_clock())
        if wait is None or wait <= 0:
            # No usable advice: back off rather than retry at once (0 or negative is a hammer).
            return self.policy.delay(throttles, self._rng)
        return wait

    def _reset_wait(self, response: httpx.Response) -> float:
        reset = reset_seconds(response.headers.get("x-ratelimit-reset"), self._wall_clock())
        return 0.0 if reset is None else reset

    def _wait(self, request: httpx.Request, delay: float, what: str) -> None:
        logs.info("%s %s: %s", request.method, request.url.path, what)
        if delay > 0:
            self._sleep(delay)

    def close(self) -> None:
        self.inner.close()


def _stale_answer(request: httpx.Request) -> httpx.Response:
    """Not sent: the auth flow renews the token and sends the request again."""
    return httpx.Response(503, extensions={STALE: True}, request=request)


def _marked_stale(response: httpx.Response) -> httpx.Response:
    response.extensions = {**response.extensions, STALE: True}
    return response


__all__ = [
    "DEFAULT_TIMEOUT",
    "GRACE",
    "RETRY_STATUSES",
    "SENT_AT",
    "STALE",
    "UNSAFE",
    "DeadlineExceeded",
    "RetryPolicy",
    "RetryTransport",
    "parse_retry_after",
]
