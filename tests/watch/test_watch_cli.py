"""``hygiene watch`` as users run it: a real process following real files, the stand-in control
plane on loopback, real signals. Every byte it prints is checked for secrets."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from hygiene.detection import fingerprint
from hygiene.inventory import REVOKED, open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SAFETY_TIMEOUT, SecretGuard, append

API = "/api/v1"


def _leak_pat(plane: ControlPlane, inventory: Path, guard: SecretGuard, name: str) -> str:
    pat, value = plane.state.create_pat(plane.email, "org_main", name, ["safes:read"], 30)
    guard.remember(value)
    with open_inventory(inventory) as inv:
        inv.add(pat.token_id, value, name=name, scopes=pat.scopes, expires_at=None)
    return value


def _live_sessions(plane: ControlPlane) -> int:
    return plane.state.invalidate_sessions()


def test_a_pat_appended_is_revoked_and_the_watcher_logs_out_on_sigterm(
    control_plane: ControlPlane, inventory: Path, guard: SecretGuard, tmp_path: Path, start_watch
) -> None:
    log = tmp_path / "app.log"
    log.write_text("2026-11-22 INFO start\n")
    value = _leak_pat(control_plane, inventory, guard, "leaked")
    watch = start_watch("app.log", "--revoke")
    append(log, f"2026-11-22 DEBUG retry url=https://pam/x?token={value}\n")
    event = watch.next_event()
    assert (event["status"], event["action"], event["line"]) == ("revoked", "revoke", 2)
    assert event["fingerprint"] == fingerprint(value)
    assert isinstance(event["latency"], float)
    assert event["latency"] < 5
    token_id = event["token_id"]
    assert control_plane.state.pat(str(token_id)).revoked
    with open_inventory(inventory) as inv:
        assert inv.get(str(token_id)).state == REVOKED  # type: ignore[union-attr]
    assert watch.stop() == 0
    assert _live_sessions(control_plane) == 0  # the watcher's own session is logged out


def test_a_session_token_appended_is_logged_out_with_itself(
    control_plane: ControlPlane, guard: SecretGuard, tmp_path: Path, start_watch
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    leaked, _ = control_plane.state.login(control_plane.email, control_plane.password)  # type: ignore[misc]
    guard.remember(leaked)
    watch = start_watch("app.log", "--revoke")
    append(log, f"DEBUG headers={{'Authorization': 'Bearer {leaked}'}}\n")
    event = watch.next_event()
    assert (event["action"], event["status"]) == ("logout", "logged_out")
    assert control_plane.state.authenticate(leaked) is None
    assert watch.stop(signal.SIGINT) == 0


def test_rotation_truncation_and_late_files_are_followed(
    control_plane: ControlPlane, inventory: Path, guard: SecretGuard, tmp_path: Path, start_watch
) -> None:
    log, late = tmp_path / "app.log", tmp_path / "late.log"
    log.write_text("")
    values = [_leak_pat(control_plane, inventory, guard, f"t{n}") for n in range(4)]
    watch = start_watch("app.log", "late.log", "--revoke")
    append(log, f"a {values[0]}\n")
    assert watch.next_event()["status"] == "revoked"
    os.rename(log, tmp_path / "app.log.1")  # rotation by rename
    log.write_text(f"b {values[1]}\n")
    assert (watch.next_event()["status"], "app.log") == ("revoked", "app.log")
    with log.open("r+b") as f:  # copytruncate
        f.truncate(0)
    append(log, f"c {values[2]}\n")
    event = watch.next_event()
    assert (event["status"], event["line"]) == ("revoked", 1)
    late.write_text(f"d {values[3]}\n")  # created after start
    event = watch.next_event()
    assert (event["path"], event["status"]) == ("late.log", "revoked")
    assert watch.stop() == 0
    assert all(control_plane.state.pat(p.token_id).revoked for p in control_plane.state.pats())


def test_standard_input_is_watched_until_it_ends(
    control_plane: ControlPlane, inventory: Path, guard: SecretGuard, start_watch
) -> None:
    value = _leak_pat(control_plane, inventory, guard, "piped")
    read_fd, write_fd = os.pipe()
    watch = start_watch("-", "--revoke", stdin=read_fd)
    os.close(read_fd)
    os.write(write_fd, f"pod log {value}\n".encode())
    event = watch.next_event()
    assert (event["path"], event["status"]) == ("<stdin>", "revoked")
    os.close(write_fd)
    assert watch.proc.wait(timeout=SAFETY_TIMEOUT) == 0


def test_placeholders_and_unknown_pats_cause_no_action_and_no_crash(
    control_plane: ControlPlane, guard: SecretGuard, tmp_path: Path, start_watch
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    unknown = guard.pat()
    watch = start_watch("app.log", "--revoke")
    control_plane.clear_requests()
    append(log, "token=pat_AIC_xxxxxxxxxxxx Authorization: Bearer ${TOKEN}\n")
    append(log, f"x {unknown}\n")
    event = watch.next_event()  # the first event: the placeholders before it made none
    assert event["fingerprint"] == fingerprint(unknown)
    assert (event["status"], event["token_id"]) == ("unresolved", None)
    assert not [r for r in control_plane.requests if r.method == "DELETE"]
    assert watch.proc.poll() is None
    assert watch.stop() == 0


def test_a_restart_with_state_does_nothing_twice(
    control_plane: ControlPlane, inventory: Path, guard: SecretGuard, tmp_path: Path, start_watch
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    value = _leak_pat(control_plane, inventory, guard, "once")
    watch = start_watch("app.log", "--revoke", "--state", "watch.state")
    append(log, f"a {value}\n")
    assert watch.next_event()["status"] == "revoked"
    assert watch.stop() == 0
    state = (tmp_path / "watch.state").read_text()
    guard.capture(state)
    assert fingerprint(value) in state
    control_plane.clear_requests()
    again = start_watch("app.log", "--revoke", "--state", "watch.state", "--from-start")
    append(log, f"b {value}\n")
    again.nothing_until(log)
    assert not [r for r in control_plane.requests if r.method == "DELETE"]
    assert again.stop() == 0


def test_it_cannot_start_without_a_service_for_revoke(tmp_path: Path, guard: SecretGuard) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIC_")}
    proc = subprocess.run(
        [sys.executable, "-m", "hygiene", "watch", "x.log", "--revoke"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1
    assert "AIC_BASE_URL" in proc.stderr.decode()
