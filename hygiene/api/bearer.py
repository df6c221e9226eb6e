"""One client for a bearer token that is not the user's own session: a PAT found by a scan
(``--verify``) or a leaked session token (logged out with itself).

Such a token goes to the user's ``AIC_BASE_URL`` and nowhere else: redirects are never
followed, so it cannot travel to another host. And only a token that may be the service's own
goes there at all: callers ask :mod:`hygiene.issuers` first (verification sends ``pat_AIC_``
tokens only; a leaked session is sorted by :func:`hygiene.revoke.sessions.split_foreign`). Requests go through the retrying transport
(429, 5xx, connection errors), carry the toolkit's User-Agent and bounded timeouts, and run
concurrently on a small thread pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import httpx

from hygiene.api.deadline import BoundedTransport
from hygiene.api.endpoints import TIMEOUT, USER_AGENT
from hygiene.api.transport import RetryPolicy, RetryTransport

WORKERS = 8

T = TypeVar("T")
R = TypeVar("R")


def bearer_headers(token: str, **extra: str) -> dict[str, str]:
    """``Authorization: Bearer <token>`` plus ``extra`` headers."""
    return {"Authorization": f"Bearer {token}", **extra}


@contextmanager
def bearer_client(
    base_url: str,
    *,
    transport: httpx.BaseTransport | None = None,
    policy: RetryPolicy | None = None,
    timeout: httpx.Timeout | float = TIMEOUT,
    deadline: float | None = None,
) -> Iterator[httpx.Client]:
    """A redirect-free, retrying client for ``base_url`` (already checked: https, or loopback
    http); closed on leaving the ``with`` block. Every exchange ends within the policy's
    request deadline of wall clock (a trickling server cannot hold it), and no request starts
    once ``deadline`` seconds have passed."""
    inner = transport or BoundedTransport()
    client = httpx.Client(
        base_url=base_url,
        transport=RetryTransport(inner, policy=policy, deadline=deadline),
        timeout=timeout,
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
    )
    with client:
        yield client


def each_concurrently(
    call: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int = WORKERS,
    on_done: Callable[[R], None] | None = None,
) -> list[R]:
    """``call`` on every item on up to ``workers`` threads; answers in the items' order.

    ``on_done`` sees each answer in this thread, in order, as it becomes available.
    """
    todo = list(items)
    if not todo:
        return []
    answers: list[R] = []
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
        for answer in pool.map(call, todo):
            if on_done is not None:
                on_done(answer)
            answers.append(answer)
    return answers


__all__ = ["WORKERS", "bearer_client", "bearer_headers", "each_concurrently"]
