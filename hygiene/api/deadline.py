"""Wall-clock deadlines below httpx: no server can hold a call past its deadline.

httpx's timeouts bound each socket operation, not a whole exchange: a server that trickles its
headers one byte a second never trips a 15 s read timeout. :class:`BoundedTransport` runs every
connect, read and write through a network backend that clamps the operation's timeout to the
deadline of the request in progress on this thread (set with :func:`until`), and fails it once
the deadline has passed. Requests run on the calling thread in httpx's sync API, so a
thread-local deadline reaches exactly the operations of the current request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

_local = threading.local()


def remaining() -> float | None:
    """Seconds left before this thread's deadline (None: no deadline set)."""
    deadline: float | None = getattr(_local, "deadline", None)
    return None if deadline is None else deadline - time.monotonic()


@contextmanager
def until(deadline: float | None) -> Iterator[None]:
    """Every network operation of this thread in the block ends by ``deadline`` (monotonic)."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = deadline if previous is None or deadline is None else min(previous, deadline)
    try:
        yield
    finally:
        _local.deadline = previous


def _clamp(timeout: float | None, error: type[Exception]) -> float | None:
    left = remaining()
    if left is None:
        return timeout
    if left <= 0:
        raise error("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """A network stream whose every read and write ends by the thread's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        clamped = _clamp(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, clamped))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's sync backend with every operation clamped to the thread's deadline."""

    def __init__(self, inner: httpcore.NetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        clamped = _clamp(timeout, httpcore.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, clamped, local_address, socket_options)
        return _Stream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:  # pragma: no cover - the client speaks TCP only
        clamped = _clamp(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, clamped, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class BoundedTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` (TLS verified, no proxy) on the :class:`DeadlineBackend`."""

    def __init__(self, *, max_connections: int = 32) -> None:
        super().__init__(verify=True)
        # httpx does not take a network backend; its pool does. Replacing the pool built above
        # keeps httpx's request and error mapping while every socket wait honours the deadline.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(verify=True),
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            network_backend=DeadlineBackend(),
        )


__all__ = ["BoundedTransport", "DeadlineBackend", "remaining", "until"]
