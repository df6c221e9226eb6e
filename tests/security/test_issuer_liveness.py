"""Liveness never turns unknown into clean: ``hygiene scan --verify`` keeps every finding it
could not judge (service down, 429 or 500 forever, a wrong or bad ``AIC_BASE_URL``), marked
``unknown`` in text, json and SARIF, with a one-line warning and exit 1; ``--only-live``
leaves out only what the service itself called dead.

Real processes; the hostile server on loopback; the guard checks every output for secrets.
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import Misbehaviour, fail, proxy_404, throttle
from tests.helpers import SecretGuard, run_hygiene

FORMATS = ("json", "sarif", "text")


def marks(proc: subprocess.CompletedProcess[bytes], fmt: str) -> dict[str, str | None]:
    """``{fingerprint or its first 12 hex digits: liveness}`` from a report of ``fmt``."""
    out = proc.stdout.decode()
    if fmt == "json":
        return {f["fingerprint"]: f.get("live") for f in json.loads(out)["findings"]}
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        return {
            r["partialFingerprints"]["secretFingerprint/v1"]: r["properties"].get("live")
            for r in results
        }
    found: dict[str, str | None] = {}
    for line in out.splitlines():
        words = line.split()
        found[words[3]] = words[4] if len(words) > 4 else None
    return found


def key(value: str, fmt: str) -> str:
    digest = fingerprint(value)
    return digest.removeprefix("sha256:")[:12] if fmt == "text" else digest


def check_kept(
    proc: subprocess.CompletedProcess[bytes], fmt: str, pats: list[str], session: str
) -> None:
    assert proc.returncode == 1, proc.stderr
    stderr = proc.stderr.decode()
    assert "Traceback" not in stderr
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, stderr
    assert "unknown" in warnings[0]
    found = marks(proc, fmt)
    for pat in pats:
        assert found[key(pat, fmt)] == "unknown"
    assert found[key(session, fmt)] is None  # not a PAT: never sent, never judged
    assert len(found) == len(pats) + 1


def leak_log(tmp_path: Path, guard: SecretGuard, pats: list[str]) -> str:
    session = guard.session_token()
    lines = [f"key={pat}" for pat in pats] + [f"Authorization: Bearer {session}"]
    (tmp_path / "app.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return session


def scan(guard: SecretGuard, tmp_path: Path, env: dict[str, str], fmt: str, only: bool):
    flags = ["--only-live"] if only else []
    return run_hygiene(
        guard,
        "scan",
        "app.log",
        "--verify",
        *flags,
        "--format",
        fmt,
        cwd=tmp_path,
        env={"HYGIENE_DEADLINE": "6", "AIC_ALLOW_HTTP": "", **env},
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


SERVER_FAULTS: dict[str, Callable[[], Misbehaviour]] = {
    "429-forever": lambda: throttle("0"),
    "429-forever-long-wait": lambda: throttle("3600"),
    "500-forever": lambda: fail(500),
    "503-forever": lambda: fail(503, "UNAVAILABLE"),
    "wrong-url-404": proxy_404,
}


@contextmanager
def faulted(name: str) -> Iterator[HostileServer]:
    with HostileServer(hold=10) as server:
        server.set_fault("memberships", SERVER_FAULTS[name]())
        yield server


@pytest.mark.parametrize("only_live", [False, True], ids=["all", "only-live"])
@pytest.mark.parametrize("fault", list(SERVER_FAULTS))
def test_verify_against_a_failing_service_keeps_every_finding_unknown(
    fault: str, only_live: bool, tmp_path: Path, guard: SecretGuard
) -> None:
    fmt = FORMATS[(list(SERVER_FAULTS).index(fault) + only_live) % len(FORMATS)]
    with faulted(fault) as server:
        pats = []
        for name in ("a", "b"):
            _, value = server.state.create_pat(server.email, "org_main", name, ["safes:read"], 30)
            pats.append(guard.remember(value))
        session = leak_log(tmp_path, guard, pats)
        proc = scan(guard, tmp_path, {"AIC_BASE_URL": server.base_url}, fmt, only_live)
        assert server.trapped == []
    check_kept(proc, fmt, pats, session)


BAD_URLS: dict[str, Callable[[], str]] = {
    "down": lambda: f"http://127.0.0.1:{closed_port()}",
    "unset": lambda: "",
    "not-a-url": lambda: "pam example com",
    "bad-port": lambda: "https://pam.example.test:99999999",
    "plain-http-elsewhere": lambda: "http://pam.example.test",
    "ftp": lambda: "ftp://pam.example.test",
    "credentials-in-url": lambda: "https://user:hunter2@pam.example.test",
}


@pytest.mark.parametrize("only_live", [False, True], ids=["all", "only-live"])
@pytest.mark.parametrize("bad", list(BAD_URLS))
def test_verify_with_an_unusable_base_url_keeps_every_finding_unknown(
    bad: str, only_live: bool, tmp_path: Path, guard: SecretGuard
) -> None:
    fmt = FORMATS[(list(BAD_URLS).index(bad) + only_live) % len(FORMATS)]
    pats = [guard.pat(), guard.pat()]
    session = leak_log(tmp_path, guard, pats)
    proc = scan(guard, tmp_path, {"AIC_BASE_URL": BAD_URLS[bad]()}, fmt, only_live)
    check_kept(proc, fmt, pats, session)
    assert "hunter2" not in proc.stderr.decode()


def test_only_live_drops_exactly_the_dead(tmp_path: Path, guard: SecretGuard) -> None:
    """A service that answers: the dead PAT is left out, the live one and the session (never
    judged) stay."""
    with HostileServer(hold=10) as server:
        state = server.state
        _, live = state.create_pat(server.email, "org_main", "live", ["safes:read"], 30)
        gone, dead = state.create_pat(server.email, "org_main", "dead", ["safes:read"], 30)
        state.revoke_pat("org_main", gone.token_id)
        pats = [guard.remember(live), guard.remember(dead)]
        session = leak_log(tmp_path, guard, pats)
        proc = scan(guard, tmp_path, {"AIC_BASE_URL": server.base_url}, "json", True)
    assert proc.returncode == 1, proc.stderr
    assert "warning" not in proc.stderr.decode()
    assert marks(proc, "json") == {fingerprint(live): "live", fingerprint(session): None}
