"""A credential goes only to its issuer: ``revoke-leaked --scan`` and ``watch --revoke`` never
send another service's credential (GitHub, Stripe, Slack, Google, AWS, JWTs of other hosts,
Basic passwords ...) to ``AIC_BASE_URL``; they report it ``foreign`` with its issuer, exit 1,
and still log out this service's own leaked session.

Real processes against the stand-in on loopback, behind a relay that keeps every byte the
command sends (all headers and bodies): no form of a foreign value may be among them, and no
output of the command may hold any secret.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene, start_watch_process
from tests.security.issuer_kit import (
    Foreign,
    RecordingRelay,
    assert_never_sent,
    jwt,
    log_lines,
    rnd,
    strangers,
    third_party,
)

API = "/api/v1"


@pytest.fixture
def relay(control_plane: ControlPlane) -> Iterator[RecordingRelay]:
    port = int(control_plane.base_url.rsplit(":", 1)[1])
    with RecordingRelay(port) as relay:
        yield relay


def own_session(plane: ControlPlane, guard: SecretGuard) -> str:
    """A session of the stand-in, by a real login over loopback."""
    answer = httpx.post(
        plane.base_url + API + "/auth/login",
        json={"email": plane.email, "password": plane.password},
    )
    assert answer.status_code == 200
    return guard.remember(answer.json()["access_token"])


def is_live(plane: ControlPlane, token: str) -> bool:
    return plane.state.authenticate(token) is not None


def remember_all(guard: SecretGuard, items: list[Foreign]) -> None:
    for item in items:
        guard.remember(item.value)
        for hidden in item.hidden:
            guard.remember(hidden)


def env_for(
    plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, **extra: str
) -> dict[str, str]:
    inventory = tmp_path / "inventory.sqlite3"
    with open_inventory(inventory):
        pass
    return {
        **plane.env(),
        "AIC_BASE_URL": relay.url,
        "HYGIENE_INVENTORY": str(inventory),
        "HYGIENE_DEADLINE": "20",
        **extra,
    }


def incident(tmp_path: Path, items: list[Foreign], *own: str) -> Path:
    lines = log_lines(items)
    for n, token in enumerate(own):
        lines.insert(n * 3, f"DEBUG headers={{'Authorization': 'Bearer {token}'}}")
    log = tmp_path / "app.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def by_fingerprint(doc: dict[str, object]) -> dict[str, dict[str, object]]:
    results = doc["results"]
    assert isinstance(results, list)
    return {r["fingerprint"]: r for r in results}


def check_foreign(found: dict[str, dict[str, object]], items: list[Foreign]) -> None:
    for item in items:
        result = found[fingerprint(item.value)]
        assert result["status"] == "foreign", item.label
        assert item.issuer in str(result["issuer"]), item.label
        assert "revoke" in str(result["next_step"]) or "password" in str(result["next_step"])


def test_revoke_scan_sends_no_foreign_credential_and_logs_out_its_own_json(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    items = third_party()
    remember_all(guard, items)
    guard.remember(control_plane.password)
    ours = own_session(control_plane, guard)
    control_plane.clear_requests()
    log = incident(tmp_path, items, ours)
    env = env_for(control_plane, relay, tmp_path)
    proc = run_hygiene(guard, "--scan", str(log), "--format", "json", env=env, prog="revoke-leaked")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    found = by_fingerprint(doc)
    check_foreign(found, items)
    assert found[fingerprint(ours)]["status"] == "logged_out"
    assert not is_live(control_plane, ours)
    assert doc["summary"]["foreign"] == len(items)
    assert doc["summary"]["not_live"] == 0
    assert_never_sent(relay.sent, items)
    # The stand-in saw our session's memberships and logout, nothing else.
    # The stand-in saw our leaked session and the command's own login (to learn the shape of
    # the service's sessions), both logged out: nothing else.
    auths = {r.headers.get("authorization") for r in control_plane.requests} - {None}
    tokens = [str(a).removeprefix("Bearer ") for a in auths]
    assert fingerprint(ours) in {fingerprint(t) for t in tokens}
    assert len(tokens) == 2
    assert not [fingerprint(t) for t in tokens if is_live(control_plane, t)]


def test_revoke_scan_text_names_issuer_and_next_step(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    items = third_party()
    remember_all(guard, items)
    log = incident(tmp_path, items)
    env = env_for(control_plane, relay, tmp_path)
    proc = run_hygiene(guard, "--scan", str(log), env=env, prog="revoke-leaked")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == len(items)
    for item in items:
        digest = fingerprint(item.value)[:19]
        (line,) = [x for x in lines if digest in x]
        assert line.startswith("foreign"), item.label
        assert f"issuer: {item.issuer}" in line or item.issuer in line
        assert "not sent" in line
    assert "GitHub: https://github.com/settings/tokens" in proc.stdout.decode()
    # Nothing of ours to log out: not one connection to the service.
    assert relay.connections == 0
    assert f"{len(items)} foreign" in proc.stderr.decode()


def test_dry_run_shows_foreign_and_sends_nothing(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    items = third_party()
    remember_all(guard, items)
    ours = own_session(control_plane, guard)
    log = incident(tmp_path, items, ours)
    env = env_for(control_plane, relay, tmp_path)
    proc = run_hygiene(
        guard, "--scan", str(log), "--dry-run", "--format", "json", env=env, prog="revoke-leaked"
    )
    assert proc.returncode == 1, proc.stderr
    found = by_fingerprint(json.loads(proc.stdout))
    check_foreign(found, items)
    assert found[fingerprint(ours)]["status"] == "would_log_out"
    assert relay.connections == 0
    assert is_live(control_plane, ours)


def test_jwt_of_this_service_is_sent_and_one_of_another_port_is_not(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    """The rule does not refuse everything: a JWT naming this service may be its session."""
    mine = guard.remember(jwt({"iss": relay.url + "/", "sub": rnd(8)}))
    port = int(relay.url.rsplit(":", 1)[1])
    other_url = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}"
    other = Foreign("jwt-other-port", jwt({"iss": other_url, "sub": rnd(8)}), "127.0.0.1")
    remember_all(guard, [other])
    log = incident(tmp_path, [other], mine)
    # No credentials: nothing teaches the service's session shape, the static rules decide.
    env = env_for(control_plane, relay, tmp_path, AIC_EMAIL="", AIC_PASSWORD="")
    proc = run_hygiene(guard, "--scan", str(log), "--format", "json", env=env, prog="revoke-leaked")
    assert proc.returncode == 1, proc.stderr
    found = by_fingerprint(json.loads(proc.stdout))
    assert found[fingerprint(mine)]["status"] == "not_live"  # asked: the stand-in knows it not
    check_foreign(found, [other])
    assert mine.encode() in relay.sent
    assert_never_sent(relay.sent, [other])


@pytest.mark.parametrize("learned_from", ["AIC_TOKEN", "login"])
def test_unknown_issuer_is_not_sent_once_the_session_shape_is_known(
    learned_from: str,
    control_plane: ControlPlane,
    relay: RecordingRelay,
    tmp_path: Path,
    guard: SecretGuard,
) -> None:
    """The service's session shape is known from the user's own session (AIC_TOKEN) or from
    a login of the command's own: an opaque value of another shape has an unknown issuer and
    is never sent."""
    guard.remember(control_plane.password)
    mine = own_session(control_plane, guard)
    ours = own_session(control_plane, guard)
    unknown = strangers()
    remember_all(guard, unknown)
    log = incident(tmp_path, unknown, ours)
    extra = {"AIC_TOKEN": mine} if learned_from == "AIC_TOKEN" else {}
    env = env_for(control_plane, relay, tmp_path, **extra)
    proc = run_hygiene(guard, "--scan", str(log), "--format", "json", env=env, prog="revoke-leaked")
    assert proc.returncode == 1, proc.stderr
    found = by_fingerprint(json.loads(proc.stdout))
    check_foreign(found, unknown)
    assert found[fingerprint(ours)]["status"] == "logged_out"
    assert_never_sent(relay.sent, unknown)
    assert is_live(control_plane, mine)  # the user's own session is not a leak
    # The command's own login, if any, is logged out: only `mine` is left.
    assert control_plane.state.invalidate_sessions() == 1


# -- hygiene watch --revoke ---------------------------------------------------------------


def test_watch_revoke_sends_no_foreign_credential_and_logs_out_its_own(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    """Known formats, Basic, JWTs of other hosts, and (the watcher logged in, so it knows its
    service's session shape) opaque values of another shape."""
    items = third_party() + strangers()
    remember_all(guard, items)
    guard.remember(control_plane.password)
    ours = own_session(control_plane, guard)
    log = tmp_path / "app.log"
    log.write_text("")
    env = {**os.environ, **env_for(control_plane, relay, tmp_path)}
    watch = start_watch_process(["app.log", "--revoke"], cwd=tmp_path, env=env, guard=guard)
    try:
        with log.open("a", encoding="utf-8") as f:
            f.write("\n".join(log_lines(items)) + "\n")
            f.write(f"DEBUG headers={{'Authorization': 'Bearer {ours}'}}\n")
        events = {}
        while len(events) < len(items) + 1:
            event = watch.next_event()
            events[event["fingerprint"]] = event
    finally:
        assert watch.stop() == 0
    for item in items:
        event = events[fingerprint(item.value)]
        assert event["status"] == "foreign", item.label
        assert f"issuer: {item.issuer}" in str(event["error"]) or item.issuer in str(event["error"])
    assert events[fingerprint(ours)]["status"] == "logged_out"
    assert not is_live(control_plane, ours)
    assert_never_sent(relay.sent, items)


def test_without_the_session_shape_a_401_is_not_called_dead_silently(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    """No credentials: an opaque value may be the service's, so it is asked; its 401 says only
    that it is no live session here, and the result says so (it may be live elsewhere)."""
    ours = own_session(control_plane, guard)
    (opaque,) = [guard.remember(item.value) for item in strangers()[:1]]
    log = tmp_path / "app.log"
    log.write_text(
        f"Authorization: Bearer {opaque}\nAuthorization: Bearer {ours}\n", encoding="utf-8"
    )
    env = env_for(control_plane, relay, tmp_path, AIC_EMAIL="", AIC_PASSWORD="")
    proc = run_hygiene(guard, "--scan", str(log), "--format", "json", env=env, prog="revoke-leaked")
    found = by_fingerprint(json.loads(proc.stdout))
    assert found[fingerprint(ours)]["status"] == "logged_out"
    stranger = found[fingerprint(opaque)]
    assert stranger["status"] == "not_live"
    assert "issuer is unknown" in str(stranger["error"])
    assert "revoke it there" in str(stranger["error"])
    assert "error" not in found[fingerprint(ours)]


def test_watch_without_the_session_shape_says_the_issuer_is_unknown(
    control_plane: ControlPlane, relay: RecordingRelay, tmp_path: Path, guard: SecretGuard
) -> None:
    """Watching with a PAT as AIC_TOKEN (no session to learn from): an opaque value is asked
    about, and its 401 is reported with the unknown-issuer hint, not as plainly dead."""
    _, pat = control_plane.state.create_pat(
        control_plane.email, "org_main", "watcher", ["safes:read", "tokens:write"], 30
    )
    guard.remember(pat)
    (opaque,) = [guard.remember(item.value) for item in strangers()[:1]]
    log = tmp_path / "app.log"
    log.write_text("")
    env = {
        **os.environ,
        **env_for(control_plane, relay, tmp_path, AIC_TOKEN=pat, AIC_EMAIL="", AIC_PASSWORD=""),
    }
    watch = start_watch_process(["app.log", "--revoke"], cwd=tmp_path, env=env, guard=guard)
    try:
        with log.open("a", encoding="utf-8") as f:
            f.write(f"DEBUG Authorization: Bearer {opaque}\n")
        event = watch.next_event()
    finally:
        assert watch.stop() == 0
    assert event["fingerprint"] == fingerprint(opaque)
    assert event["status"] == "not_live"
    assert "issuer is unknown" in str(event["error"])
