"""The hostile server itself: each fault does what it says, ends in bounded time, stops at once."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from hygiene.testing.hostile import HostileServer, step_of
from hygiene.testing.misbehaviours import (
    HugeBody,
    Raw,
    Stall,
    Trickle,
    html,
    not_found,
    odd_headers,
    proxy_404,
    redirect,
    throttle,
)

LOGIN = "/api/v1/auth/login"
# Only stops a hang: a recv the server never ends fails the test here, whatever the load.
SAFETY = 60.0


def login(server: HostileServer, **kwargs: object) -> httpx.Response:
    body = {"email": server.email, "password": server.password}
    with httpx.Client(base_url=server.base_url, timeout=SAFETY, **kwargs) as client:  # type: ignore[arg-type]
        return client.post(LOGIN, json=body)


def raw_request(server: HostileServer, timeout: float = SAFETY) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", int(server.base_url.rsplit(":", 1)[1])))
    sock.settimeout(timeout)
    sock.sendall(b"GET /api/v1/safes HTTP/1.1\r\nHost: x\r\n\r\n")
    return sock


def test_without_faults_it_is_the_stand_in() -> None:
    with HostileServer() as server:
        answer = login(server)
        assert answer.status_code == 200
        assert "access_token" in answer.json()
        with httpx.Client(base_url=server.base_url, timeout=SAFETY) as client:
            assert client.get("/api/v1/safes").status_code == 401
    assert server.steps() == ["login", "safes"]
    assert [s.status for s in server.seen] == [200, 401]


@pytest.mark.parametrize(
    ("method", "path", "step"),
    [
        ("POST", LOGIN, "login"),
        ("POST", "/api/v1/auth/refresh", "refresh"),
        ("POST", "/api/v1/auth/logout", "logout"),
        ("GET", "/api/v1/org/memberships?x=1", "memberships"),
        ("POST", "/api/v1/auth/api-tokens", "create"),
        ("DELETE", "/api/v1/auth/api-tokens/tok_1", "revoke"),
        ("GET", "/api/v1/safes", "safes"),
        ("GET", "/elsewhere", "other"),
    ],
)
def test_steps(method: str, path: str, step: str) -> None:
    assert step_of(method, path) == step


def test_unknown_step_is_refused() -> None:
    with HostileServer() as server, pytest.raises(ValueError, match="unknown step"):
        server.set_fault("logn", Stall())


def wait_until_seen(server: HostileServer, count: int) -> None:
    """Until the server has read ``count`` requests (each fault starts after its request)."""
    deadline = time.monotonic() + SAFETY  # a guard against a hang, not a verdict
    while len(server.seen) < count:
        assert time.monotonic() < deadline, server.steps()
        time.sleep(0.01)


def test_stall_says_nothing_until_its_hold_ends() -> None:
    with HostileServer(hold=0.6) as server:
        server.set_fault("safes", Stall())
        sock = raw_request(server)
        start = time.monotonic()
        assert sock.recv(100) == b""  # closed by the server, not answered
        # a lower bound only: a loaded machine makes the hold longer, never shorter
        assert time.monotonic() - start > 0.4
        sock.close()


def test_stop_ends_every_fault_at_once() -> None:
    # The hold outlasts the sockets' safety timeout: only the stop can end the stalls in time.
    server = HostileServer(hold=10 * SAFETY).start()
    server.set_fault("safes", Stall())
    socks = [raw_request(server) for _ in range(3)]
    wait_until_seen(server, 3)
    server.stop()
    for sock in socks:
        assert sock.recv(100) == b""
        sock.close()


def test_trickle_sends_headers_byte_by_byte() -> None:
    with HostileServer() as server:
        server.set_fault("safes", Trickle(rate=20.0))
        sock = raw_request(server)
        start = time.monotonic()
        got = b""
        while len(got) < 8:
            got += sock.recv(100)
        assert got.startswith(b"HTTP/1.1")
        assert time.monotonic() - start >= 0.25  # 8 bytes at 20/s
        sock.close()


def test_trickle_body_sends_headers_at_once() -> None:
    with HostileServer() as server:
        server.set_fault("login", Trickle(part="body", rate=50.0))
        answer = login(server)
    assert answer.status_code == 200
    assert "access_token" in answer.json()


@pytest.mark.parametrize(
    ("fault", "status", "kind"),
    [
        (proxy_404(), 404, "text/html"),
        (html(200), 200, "text/html"),
        (not_found(), 404, "application/json"),
        (throttle("nan", x_ratelimit_reset="999999"), 429, "application/json"),
    ],
)
def test_answers(fault: object, status: int, kind: str) -> None:
    with HostileServer() as server:
        server.set_fault("login", fault, times=1)  # type: ignore[arg-type]
        first, second = login(server), login(server)
    assert (first.status_code, first.headers["content-type"]) == (status, kind)
    assert second.status_code == 200  # only once
    assert [s.fault for s in server.seen] == [fault.name, None]  # type: ignore[attr-defined]


def test_throttle_and_odd_headers_carry_their_headers() -> None:
    with HostileServer() as server:
        server.set_fault("login", throttle("-5", x_ratelimit_remaining="nan"), times=1)
        assert login(server).headers["retry-after"] == "-5"
        server.set_fault("login", odd_headers(x_ratelimit_remaining="nan"))
        answer = login(server)
    assert answer.status_code == 200
    assert answer.headers["x-ratelimit-remaining"] == "nan"


def test_garbage_is_not_http() -> None:
    with HostileServer() as server:
        server.set_fault("login", Raw())
        with pytest.raises(httpx.RemoteProtocolError):
            login(server)


def test_redirect_target_records_what_reaches_it() -> None:
    with HostileServer() as server:
        server.set_fault("login", redirect(server.trap_url + "/stolen"))
        assert login(server).status_code == 307
        assert server.trapped == []
        login(server, follow_redirects=True)
    assert len(server.trapped) == 1
    assert server.trapped[0].startswith(b"POST /stolen")


def test_huge_body_is_streamed_and_stops_when_the_client_goes() -> None:
    fault = HugeBody(size=1 << 30)
    with HostileServer() as server:
        server.set_fault("login", fault)
        body = {"email": server.email, "password": server.password}
        with (
            httpx.Client(base_url=server.base_url, timeout=SAFETY) as client,
            client.stream("POST", LOGIN, json=body) as answer,
        ):
            assert answer.headers["content-length"] == str(1 << 30)
            read = 0
            for chunk in answer.iter_raw():
                read += len(chunk)
                if read > 1 << 20:
                    break
        time.sleep(0.3)
    assert fault.sent < 64 << 20  # the server stopped long before a GiB


def test_the_pytest_fixture_serves_and_faults(hostile_server: HostileServer) -> None:
    hostile_server.set_fault("login", proxy_404(), times=1)
    assert login(hostile_server).status_code == 404
    assert login(hostile_server).status_code == 200
