"""A scripted service for ``httpx.MockTransport``, and a clock whose sleep only moves time."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.api.transport import RetryPolicy
from tests.helpers import new_pat, new_session_token

BASE = "https://pam.example.test"
PASSWORD = "correct horse battery staple 42"


class FakeClock:
    """Monotonic and wall clock in one; ``sleep`` advances it and records the delay."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def reply(
    status: int, body: object = None, headers: dict[str, str] | None = None
) -> httpx.Response:
    content = b"" if body is None else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers=headers)


@dataclass
class FakeService:
    """Answers like the control plane; ``script`` overrides the next answers per path."""

    lifetime: int = 3600
    refresh: bool = True
    tokens: list[str] = field(default_factory=list)  # every session token issued
    requests: list[httpx.Request] = field(default_factory=list)
    script: dict[str, list[httpx.Response | Exception]] = field(default_factory=dict)
    handlers: dict[str, Callable[[httpx.Request], httpx.Response]] = field(default_factory=dict)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        queued = self.script.get(path)
        if queued:
            item = queued.pop(0)
            if isinstance(item, Exception):
                raise item
            return item
        if path in self.handlers:
            return self.handlers[path](request)
        return self.default(request, path)

    def issue(self) -> httpx.Response:
        token = new_session_token()
        self.tokens.append(token)
        return reply(200, {"access_token": token, "expires_in": self.lifetime})

    def default(self, request: httpx.Request, path: str) -> httpx.Response:
        if path == "/api/v1/auth/login":
            body = json.loads(request.content)
            ok = body.get("password") == PASSWORD
            return self.issue() if ok else reply(401, {"error": "AUTH_FAILED"})
        if request.headers.get("authorization") != f"Bearer {self.tokens[-1]}":
            return reply(401, {"error": "UNAUTHORIZED"})
        if path == "/api/v1/auth/refresh":
            return self.issue() if self.refresh else reply(404, {"error": "NOT_FOUND"})
        if path == "/api/v1/org/memberships":
            return reply(
                200,
                {
                    "active_org_id": "org_a",
                    "memberships": [
                        {"org_id": "org_a", "role": "admin"},
                        {"org_id": "org_b", "role": "member"},
                    ],
                },
            )
        if path == "/api/v1/auth/api-tokens":
            return reply(201, {"id": "tok_1", "data": {"secret": new_pat()}})
        if request.method == "DELETE":
            return httpx.Response(204)
        if path == "/api/v1/auth/logout":
            return httpx.Response(204)
        return reply(200, [])

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.requests]


def make_client(
    service: FakeService,
    clock: FakeClock,
    *,
    org_id: str | None = None,
    token: str | None = None,
    deadline: float | None = None,
) -> ControlPlaneClient:
    config = Config(
        BASE,
        email=None if token else "demo@example.test",
        password=None if token else PASSWORD,
        token=token,
        org_id=org_id,
        deadline=deadline,
    )
    return ControlPlaneClient(
        config,
        transport=httpx.MockTransport(service),
        clock=clock,
        sleep=clock.sleep,
        wall_clock=clock,
        policy=RetryPolicy(attempts=4, backoff=0.5, backoff_cap=4.0),
    )
