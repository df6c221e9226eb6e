"""What a hostile server does instead of answering: each fault writes raw bytes to a socket.

Every fault is bounded: it ends when the client hangs up, when the server stops, or after the
connection's hold time (``Conn.until``), whichever comes first. Nothing large is held in
memory: a 1 GiB body is generated chunk by chunk as the client reads it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hygiene.testing.bombs import bomb

PROXY_404 = (
    b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
    b"<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
GARBAGE = bytes(range(256)) * 4
REASONS = {200: "OK", 204: "No Content", 302: "Found", 307: "Temporary Redirect", 404: "Not Found"}


@dataclass
class Conn:
    """One accepted connection: the socket, the server's stop event, the time it must end by."""

    sock: socket.socket
    stop: threading.Event
    until: float  # time.monotonic() deadline of this connection's misbehaviour
    pending: bytes = b""  # bytes read past the request's head (the start of its body)

    def live(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.until

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds`` (or until stopped or out of time); True if still live after it."""
        end = min(time.monotonic() + seconds, self.until)
        while self.live() and time.monotonic() < end:
            self.stop.wait(min(0.05, max(0.0, end - time.monotonic())))
        return self.live()

    def send(self, data: bytes) -> bool:
        """Send ``data``; False once the client has gone or the connection is out of time."""
        if not self.live():
            return False
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        return True


def head(status: int, headers: Mapping[str, str], length: int | None) -> bytes:
    """A status line and headers (``Content-Length`` when ``length`` is given)."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class Misbehaviour:
    """Base: ``serve`` writes the fault on ``conn`` for a request it has read (and may drop)."""

    name = "fault"
    # Whether the request reaches the service behind (for the answer to deliver): otherwise it
    # changes nothing there, as when a proxy answers or the connection fails on the way.
    needs_answer = False

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


@dataclass(repr=False)
class Answer(Misbehaviour):
    """A complete HTTP answer: any status, headers and body (HTML, 429 with odd headers...)."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    name: str = "answer"

    @classmethod
    def json(cls, status: int, body: Any, name: str = "answer", **headers: str) -> Answer:
        payload = b"" if body is None else json.dumps(body).encode()
        content = {"Content-Type": "application/json"} if payload else {}
        return cls(status, payload, {**content, **headers}, name)

    def bytes(self) -> bytes:
        return head(self.status, self.headers, len(self.body)) + self.body

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        conn.send(self.bytes())


class Stall(Misbehaviour):
    """Accept, read the request, then say nothing until the client gives up."""

    name = "stall"

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        conn.pause(float("inf"))


@dataclass(repr=False)
class Trickle(Misbehaviour):
    """The normal answer, its headers (or body) sent ``rate`` bytes per second."""

    part: str = "headers"
    rate: float = 1.0
    name: str = "trickle"
    needs_answer = True

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        reply = answer or Answer.json(200, {})
        start = head(reply.status, reply.headers, len(reply.body))
        slow, fast = (start + reply.body, b"") if self.part == "headers" else (reply.body, start)
        if fast and not conn.send(fast):
            return
        for index in range(len(slow)):
            if not conn.send(slow[index : index + 1]) or not conn.pause(1.0 / self.rate):
                return


@dataclass(repr=False)
class Raw(Misbehaviour):
    """Bytes that are not HTTP at all, then the connection closes."""

    data: bytes = GARBAGE
    name: str = "garbage"

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        conn.send(self.data)


@dataclass(repr=False)
class HugeBody(Misbehaviour):
    """A ``status`` answer announcing ``size`` bytes and streaming them (never all in memory)."""

    status: int = 200
    size: int = 1 << 30
    name: str = "huge-body"
    sent: int = 0  # bytes of body written, over every connection (for tests to check)

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        chunk = b"<!-- padding -->" * 4096  # 64 KiB
        if not conn.send(head(self.status, {"Content-Type": "text/html"}, self.size)):
            return
        left = self.size
        while left > 0:
            piece = chunk[: min(left, len(chunk))]
            if not conn.send(piece):
                return
            left -= len(piece)
            self.sent += len(piece)


@dataclass(repr=False)
class Compressed(Misbehaviour):
    """A ``status`` answer whose body is a bomb (:func:`hygiene.testing.bombs.bomb`): ``body``
    followed by ``size`` bytes of spaces once decoded, sent with ``Content-Encoding: coding``
    whatever the client asked for."""

    coding: str = "gzip"
    status: int = 200
    size: int = 64 << 20
    body: Any = None
    name: str = "compressed"

    def __post_init__(self) -> None:
        self.name = f"{self.coding}-bomb-{self.status}"

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        prefix = json.dumps(self.body if self.body is not None else {}).encode()
        payload = bomb(self.coding, self.size, prefix)
        if payload is None:
            raise RuntimeError(f"cannot make a {self.coding} bomb here (package missing)")
        headers = {"Content-Type": "application/json", "Content-Encoding": self.coding}
        conn.send(head(self.status, headers, len(payload)) + payload)


@dataclass(repr=False)
class EndlessChunks(Misbehaviour):
    """A ``status`` answer in chunked transfer coding that never ends (until the client hangs
    up, the server stops or the hold time passes); ``sent`` counts the body's bytes."""

    status: int = 200
    pause: float = 0.0  # seconds between chunks (a trickle that never ends)
    name: str = "endless-chunks"
    sent: int = 0

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        piece = b"{" + b" " * 16383
        chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
        headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
        if not conn.send(head(self.status, headers, None)):
            return
        while conn.send(chunk) and (not self.pause or conn.pause(self.pause)):
            self.sent += len(piece)


@dataclass(repr=False)
class HugeHeaders(Misbehaviour):
    """The normal answer after ``count`` headers of ``size`` bytes each (or endless ones)."""

    count: int | None = 1000
    size: int = 1000
    name: str = "huge-headers"
    needs_answer = True
    sent: int = 0

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        reply = answer or Answer.json(200, {})
        status = f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Status')}\r\n"
        if not conn.send(status.encode("latin-1")):
            return
        n = 0
        while self.count is None or n < self.count:
            line = b"X-Padding-%d: %s\r\n" % (n, b"p" * self.size)
            if not conn.send(line):
                return
            self.sent += len(line)
            n += 1
        conn.send(reply.bytes().split(b"\r\n", 1)[1])


@dataclass(repr=False)
class OddHeaders(Misbehaviour):
    """The normal answer with extra headers (``x-ratelimit-remaining: nan``, say)."""

    headers: dict[str, str] = field(default_factory=dict)
    name: str = "odd-headers"
    needs_answer = True

    def serve(self, conn: Conn, answer: Answer | None) -> None:
        reply = answer or Answer.json(200, {})
        conn.send(Answer(reply.status, reply.body, {**reply.headers, **self.headers}).bytes())


def odd_headers(**headers: str) -> OddHeaders:
    """The normal answer plus ``headers`` (underscores in names become dashes)."""
    return OddHeaders({k.replace("_", "-"): v for k, v in headers.items()})


def proxy_404() -> Answer:
    """A reverse proxy's HTML 404 page (not the service's JSON ``NOT_FOUND``)."""
    return Answer(404, PROXY_404, {"Content-Type": "text/html", "Server": "nginx"}, "html-404")


def html(status: int = 200) -> Answer:
    """An HTML page with ``status`` (a captive portal, a login page of a proxy)."""
    page = b"<!doctype html><html><body><h1>Welcome</h1></body></html>"
    return Answer(status, page, {"Content-Type": "text/html"}, f"html-{status}")


def redirect(location: str, status: int = 307) -> Answer:
    """A redirect to ``location`` (another port: a client must not follow it with a token)."""
    return Answer(status, b"", {"Location": location}, "redirect")


def throttle(retry_after: str | None = "1", **headers: str) -> Answer:
    """429 with ``retry-after`` (any text: ``0``, ``-5``, ``nan``, an HTTP date...) and more."""
    extra = {k.replace("_", "-"): v for k, v in headers.items()}
    if retry_after is not None:
        extra["retry-after"] = retry_after
    body = {"error": "RATE_LIMITED", "message": "Too many requests."}
    return Answer.json(429, body, "throttle", **extra)


def not_found() -> Answer:
    """The service's own JSON ``NOT_FOUND`` 404 (what another organization's token gets)."""
    return Answer.json(404, {"error": "NOT_FOUND", "message": "Not found."}, "not-found")


def fail(status: int = 500, code: str = "INTERNAL") -> Answer:
    """A JSON error answer with ``status``."""
    return Answer.json(status, {"error": code, "message": "Failure."}, f"fail-{status}")


__all__ = [
    "Answer",
    "Compressed",
    "Conn",
    "EndlessChunks",
    "HugeBody",
    "HugeHeaders",
    "Misbehaviour",
    "OddHeaders",
    "Raw",
    "Stall",
    "Trickle",
    "fail",
    "head",
    "html",
    "not_found",
    "odd_headers",
    "proxy_404",
    "redirect",
    "throttle",
]
