"""What the issuer tests share: third-party credentials built at run time, and a relay that
keeps every byte a client sends to the stand-in (headers and bodies alike).

No value here is written as a literal: every prefix is split, every body random, so the repo
passes its own scanner and other scanners' rules.
"""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
import socket
import string
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from hygiene.shapes import is_reportable_credential

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def rnd(n: int, alphabet: str = ALNUM) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def b64url(doc: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")


def jwt(claims: dict[str, object]) -> str:
    """A JWT-shaped value (RS256 header, ``claims``, a random signature)."""
    header = b64url({"alg": "RS256", "typ": "JWT"})
    return f"{header}.{b64url(claims)}.{secrets.token_urlsafe(32)}"


def basic(user: str) -> tuple[str, str]:
    """A Basic credential for ``user`` with a random password: (credential, password)."""
    password = rnd(18)
    return base64.b64encode(f"{user}:{password}".encode()).decode(), password


def reportable(make: Callable[[], str]) -> str:
    """A value from ``make`` that the scanner reports (a random run may read as a word)."""
    while not is_reportable_credential(value := make()):
        pass
    return value


@dataclass(frozen=True)
class Foreign:
    """A third-party credential and the issuer it must be reported with."""

    label: str
    value: str = field(repr=False)
    issuer: str
    scheme: str = "Bearer"
    hidden: tuple[str, ...] = field(default=(), repr=False)  # also never sent (a password)


def third_party() -> list[Foreign]:
    """One credential of every format the rule names, fresh for each test."""
    items = [
        Foreign("github-classic", "gh" + "p_" + rnd(36), "GitHub"),
        Foreign("github-oauth", "gh" + "o_" + rnd(36), "GitHub"),
        Foreign("github-app", "gh" + "s_" + rnd(36), "GitHub"),
        Foreign("github-fine", "github" + "_pat_" + rnd(22) + "_" + rnd(59), "GitHub"),
        Foreign("gitlab", "gl" + "pat-" + rnd(20), "GitLab"),
        Foreign("slack", "xo" + "xb-" + rnd(12, string.digits) + "-" + rnd(24), "Slack"),
        Foreign("stripe-live", "sk" + "_live_" + rnd(24), "Stripe"),
        Foreign("stripe-restricted", "rk" + "_live_" + rnd(24), "Stripe"),
        Foreign("stripe-test", "sk" + "_test_" + rnd(24), "Stripe"),
        Foreign("google-oauth", "ya" + "29." + secrets.token_urlsafe(60), "Google"),
        Foreign("google-key", "AI" + "za" + rnd(35), "Google"),
        Foreign("aws-key", reportable(lambda: "AK" + "IA" + rnd(16, UPPER)), "AWS"),
        Foreign("aws-sts", reportable(lambda: "AS" + "IA" + rnd(16, UPPER)), "AWS"),
        Foreign("npm", "np" + "m_" + rnd(36), "npm"),
        Foreign("openai", "sk" + "-proj-" + rnd(48), "OpenAI"),
        Foreign("anthropic", "sk" + "-ant-api03-" + rnd(80), "Anthropic"),
        Foreign("sendgrid", "S" + "G." + rnd(22) + "." + rnd(43), "SendGrid"),
        Foreign("atlassian", "ATA" + "TT3" + rnd(60), "Atlassian"),
        Foreign("twilio", "S" + "K" + rnd(32, HEX), "Twilio"),
        Foreign("jwt-google", jwt({"iss": "https://accounts.google.com", "sub": rnd(8)}), "Google"),
        Foreign(
            "jwt-other-host",
            jwt({"iss": "https://login.other-idp.example", "sub": rnd(8)}),
            "login.other-idp.example",
        ),
    ]
    for user in ("deploy", "ci-bot@other.example"):
        value, password = basic(user)
        items.append(Foreign(f"basic-{user}", value, "Basic", "Basic", (password,)))
    return items


def strangers() -> list[Foreign]:
    """Opaque values of no known format, unlike the stand-in's sessions in shape."""
    return [
        Foreign("opaque-hex", rnd(40, HEX), "unknown issuer"),
        Foreign("opaque-long", rnd(120), "unknown issuer"),
        Foreign("opaque-dotted", f"{rnd(20)}.{rnd(20)}.{rnd(20)}", "unknown issuer"),
        Foreign("opaque-prefixed", "tok_" + rnd(40), "unknown issuer"),
    ]


def log_lines(items: list[Foreign]) -> list[str]:
    """Each credential as a log line the scanner reads (header lines, JSON, dict reprs)."""
    lines = []
    for n, item in enumerate(items):
        if item.scheme == "Basic" or n % 3 == 0:
            lines.append(
                f"DEBUG GET https://api.example/x Authorization: {item.scheme} {item.value}"
            )
        elif n % 3 == 1:
            lines.append(f'DEBUG token answer {{"access_token": "{item.value}", "expires_in": 60}}')
        else:
            lines.append(f"DEBUG headers={{'Authorization': 'Bearer {item.value}'}}")
    return lines


def forms(item: Foreign) -> list[bytes]:
    """Every spelling of a credential that must never reach the service."""
    out = []
    for text in (item.value, *item.hidden):
        out += [text.encode(), quote(text, safe="").encode()]
    return out


class RecordingRelay:
    """A TCP relay on 127.0.0.1 in front of a server: keeps every byte clients send (all
    headers and bodies of every request), passes the answers back unchanged."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._server = socket.create_server(("127.0.0.1", 0))
        self._lock = threading.Lock()
        self._sent = bytearray()
        self._socks: list[socket.socket] = []
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    @property
    def sent(self) -> bytes:
        with self._lock:
            return bytes(self._sent)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._socks.append(client)
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self._upstream))
        except OSError:  # the server is gone: the client sees the connection close
            client.close()
            return
        with self._lock:
            self._socks.append(upstream)
        threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()
        self._pump(client, upstream, True)

    def _pump(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        try:
            while data := src.recv(65536):
                if record:
                    with self._lock:
                        self._sent += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._server.close()
        with self._lock:
            socks, self._socks = self._socks, []
        for sock in socks:
            sock.close()

    def __enter__(self) -> RecordingRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def assert_never_sent(sent: bytes, items: list[Foreign]) -> None:
    for item in items:
        for form in forms(item):
            assert form not in sent, f"{item.label} reached the service"
