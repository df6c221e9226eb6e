"""Reading requests off a raw socket: a connection closed under the reader ends it quietly."""

from __future__ import annotations

import socket
import threading
import time

from hygiene.testing.misbehaviours import Conn
from hygiene.testing.wire import read_head, read_request


def _conn(sock: socket.socket) -> Conn:
    return Conn(sock, threading.Event(), time.monotonic() + 5)


def test_a_socket_closed_between_two_requests_ends_the_connection() -> None:
    # The hostile server closes a kept-alive connection as it stops, while its thread is
    # about to read the next request: that read found a closed descriptor and raised.
    ours, theirs = socket.socketpair()
    theirs.close()
    ours.close()
    assert read_head(_conn(ours)) is None
    assert read_request(_conn(ours)) is None


def test_a_request_is_read_whole() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"POST /x HTTP/1.1\r\nContent-Length: 2\r\nHost: a\r\n\r\nhi")
        assert read_request(_conn(ours)) == (
            "POST",
            "/x",
            {"content-length": "2", "host": "a"},
            b"hi",
        )
