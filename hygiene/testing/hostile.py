"""A hostile control plane on 127.0.0.1: the stand-in's answers, with faults below HTTP.

``HostileServer`` speaks HTTP/1.1 on raw sockets (one thread per connection), so it can do what
no well-behaved server framework lets it: stall after accepting, trickle headers a byte a second,
send garbage or a proxy's HTML page, redirect to another port, stream a 1 GiB body, answer 429
forever or with absurd rate-limit headers. Requests without a fault get the stand-in's normal
answer (same routes, same :class:`~hygiene.testing.state.State`), so a client can be faulted at
one step (login, memberships, refresh, logout, create, revoke, safes) and work at the others::

    with HostileServer() as server:
        server.set_fault("login", Stall())
        env = server.env()  # AIC_BASE_URL, AIC_EMAIL, AIC_PASSWORD

Every fault is bounded (``hold`` seconds per connection) and :meth:`HostileServer.stop` ends
all of them at once. ``trap`` is a second listener, the target of redirects: it records what
reaches it and answers nothing useful, so a test can check no credential was sent there.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from hygiene.detection import mask_secrets
from hygiene.testing.faults import Switches
from hygiene.testing.misbehaviours import Answer, Conn, Misbehaviour
from hygiene.testing.routes import PREFIX, route
from hygiene.testing.server import DEMO_EMAIL, DEMO_ORGS
from hygiene.testing.state import State
from hygiene.testing.wire import read_head, read_request

STEPS = ("login", "refresh", "logout", "memberships", "create", "revoke", "safes", "other")


def step_of(method: str, path: str) -> str:
    """Which step of the API a request is (the names :meth:`HostileServer.set_fault` takes)."""
    path = path.split("?", 1)[0]
    named = {
        ("POST", PREFIX + "/auth/login"): "login",
        ("POST", PREFIX + "/auth/refresh"): "refresh",
        ("POST", PREFIX + "/auth/logout"): "logout",
        ("GET", PREFIX + "/org/memberships"): "memberships",
        ("POST", PREFIX + "/auth/api-tokens"): "create",
        ("GET", PREFIX + "/safes"): "safes",
    }
    if method == "DELETE" and path.startswith(PREFIX + "/auth/api-tokens/"):
        return "revoke"
    return named.get((method, path), "other")


@dataclass(frozen=True)
class Seen:
    """A request as the hostile server saw it; ``repr`` masks credentials."""

    step: str
    method: str
    path: str
    headers: dict[str, str] = field(repr=False)
    fault: str | None  # the misbehaviour it got, None for a normal answer
    status: int | None  # the normal answer's status

    def __repr__(self) -> str:
        return mask_secrets(f"Seen({self.method} {self.path} {self.step} fault={self.fault})")


@dataclass
class _Plan:
    misbehaviour: Misbehaviour
    times: int | None  # None: every request of the step


class _Listener:
    """An accept loop on 127.0.0.1 that hands each connection to ``serve`` in a thread."""

    def __init__(self, server: HostileServer, port: int = 0) -> None:
        self.sock = socket.create_server(("127.0.0.1", port))
        self.sock.settimeout(0.1)
        self.port: int = self.sock.getsockname()[1]
        self._server = server
        self.thread = threading.Thread(target=self._accept, daemon=True, name="hostile-accept")

    def _accept(self) -> None:
        while not self._server.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._server.adopt(conn)


class HostileServer:
    """A control plane that misbehaves on request; see the module's docstring."""

    def __init__(self, *, hold: float = 30.0, state: State | None = None, port: int = 0) -> None:
        self.hold = hold
        self.state = state if state is not None else State()
        self.switches = Switches()
        self.email = DEMO_EMAIL
        self.password = secrets.token_urlsafe(18)
        self.state.add_account(self.email, self.password, DEMO_ORGS)
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._plans: dict[str, _Plan] = {}
        self._seen: list[Seen] = []
        self.trapped: list[bytes] = []  # raw request heads that reached the redirect trap
        self._conns: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._main = _Listener(self, port)
        self._trap = _Listener(self)

    # set-up -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._main.port}"

    @property
    def trap_url(self) -> str:
        """Where redirects point: another port of 127.0.0.1 that records what reaches it."""
        return f"http://127.0.0.1:{self._trap.port}"

    def env(self) -> dict[str, str]:
        """The environment a client needs to talk to this server as the demo account."""
        return {
            "AIC_BASE_URL": self.base_url,
            "AIC_EMAIL": self.email,
            "AIC_PASSWORD": self.password,
        }

    def set_fault(self, step: str, misbehaviour: Misbehaviour, times: int | None = None) -> None:
        """Requests of ``step`` get ``misbehaviour`` (the next ``times`` ones, or all)."""
        if step not in STEPS:
            raise ValueError(f"unknown step {step!r}; one of {', '.join(STEPS)}")
        with self._lock:
            self._plans[step] = _Plan(misbehaviour, times)

    def clear_faults(self) -> None:
        with self._lock:
            self._plans.clear()

    @property
    def seen(self) -> list[Seen]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._seen)

    def steps(self) -> list[str]:
        return [s.step for s in self.seen]

    # running ------------------------------------------------------------------------------
    def start(self) -> HostileServer:
        self._main.thread.start()
        self._trap.thread.start()
        return self

    def stop(self) -> None:
        """End every fault and connection now; threads are joined (bounded)."""
        self.stopping.set()
        for listener in (self._main, self._trap):
            listener.sock.close()
        with self._lock:
            conns, threads = list(self._conns), list(self._threads)
        for conn in conns:
            _close(conn)
        for thread in [self._main.thread, self._trap.thread, *threads]:
            if thread.is_alive():
                thread.join(timeout=2.0)

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def adopt(self, conn: socket.socket) -> None:
        """Serve an accepted connection in its own thread."""
        trap = conn.getsockname()[1] == self._trap.port
        target = self._serve_trap if trap else self._serve
        thread = threading.Thread(target=target, args=(conn,), daemon=True, name="hostile-conn")
        with self._lock:
            self._conns.add(conn)
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    # serving ------------------------------------------------------------------------------
    def _serve(self, sock: socket.socket) -> None:
        conn = Conn(sock, self.stopping, time.monotonic() + self.hold)
        try:
            while conn.live():
                request = read_request(conn)
                if request is None:
                    return
                if not self._answer(conn, *request):
                    return
                conn.until = time.monotonic() + self.hold  # a kept-alive connection: new clock
        finally:
            self._forget(sock)

    def _answer(
        self, conn: Conn, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> bool:
        """Answer one request; False when the connection must close (after a fault)."""
        step = step_of(method, path)
        fault = self._take(step)
        answer = None
        if fault is None or fault.needs_answer:
            reply = route(self.state, self.switches, method, path, headers, body)
            answer = Answer.json(reply.status, reply.body)
        with self._lock:
            name = None if fault is None else fault.name
            status = None if answer is None else answer.status
            self._seen.append(Seen(step, method, path, headers, name, status))
        if fault is None:
            return answer is not None and conn.send(answer.bytes())
        fault.serve(conn, answer)
        return False

    def _take(self, step: str) -> Misbehaviour | None:
        with self._lock:
            plan = self._plans.get(step)
            if plan is None:
                return None
            if plan.times is not None:
                plan.times -= 1
                if plan.times <= 0:
                    del self._plans[step]
            return plan.misbehaviour

    def _serve_trap(self, sock: socket.socket) -> None:
        conn = Conn(sock, self.stopping, time.monotonic() + self.hold)
        try:
            request = read_head(conn)
            if request:
                with self._lock:
                    self.trapped.append(request)
                conn.send(Answer.json(200, {"trap": True}).bytes())
        finally:
            self._forget(sock)

    def _forget(self, sock: socket.socket) -> None:
        _close(sock)
        with self._lock:
            self._conns.discard(sock)


def _close(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.close()


@contextmanager
def running_hostile_server(**kwargs: float) -> Iterator[HostileServer]:
    """Start a hostile server; stop it (and every fault) on exit."""
    with HostileServer(**kwargs) as server:  # type: ignore[arg-type]
        yield server


__all__ = ["STEPS", "HostileServer", "Seen", "running_hostile_server", "step_of"]
