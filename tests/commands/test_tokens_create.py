"""``hygiene tokens create``: the value first, whatever happens after; the organization recorded."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hygiene.detection import PAT_PREFIX, fingerprint
from hygiene.inventory import ACTIVE, open_inventory
from hygiene.testing import ControlPlane, RecordedRequest
from tests.helpers import SAFETY_TIMEOUT, SecretGuard, read_until, run_hygiene

ARGS = ("tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "5")


def _create(plane: ControlPlane, inventory: Path, guard: SecretGuard) -> tuple[int, str, str]:
    guard.remember(plane.password)
    env = {**plane.env(), "HYGIENE_INVENTORY": str(inventory)}
    proc = run_hygiene(None, *ARGS, env=env)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    for line in out.splitlines():
        guard.remember(line)  # the value belongs on stdout, and nowhere else
    guard.capture(err)
    return proc.returncode, out, err


def test_the_value_and_its_organization_are_recorded(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    status, out, err = _create(control_plane, tmp_path / "inv.sqlite3", guard)
    assert status == 0, err
    (value,) = out.splitlines()
    with open_inventory(tmp_path / "inv.sqlite3") as inv:
        (entry,) = inv.entries()
    assert entry.fingerprint == fingerprint(value)
    assert (entry.org_id, entry.state) == ("org_main", ACTIVE)
    assert control_plane.state.invalidate_sessions() == 0


def test_the_value_is_printed_when_the_logout_fails(
    control_plane: ControlPlane,
    tmp_path: Path,
    guard: SecretGuard,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(control_plane.state, "logout", lambda _token: False)
    status, out, err = _create(control_plane, tmp_path / "inv.sqlite3", guard)
    assert status == 2
    (value,) = out.splitlines()
    assert value.startswith(PAT_PREFIX)
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1
    assert "logout" in errors[0]
    assert "Traceback" not in err
    with open_inventory(tmp_path / "inv.sqlite3") as inv:
        (entry,) = inv.entries()
    assert entry.fingerprint == fingerprint(value)


def _start(plane: ControlPlane, inventory: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIC_")}
    env.update(plane.env(), HYGIENE_INVENTORY=str(inventory))
    return subprocess.Popen(
        [sys.executable, "-m", "hygiene", *ARGS],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@contextlib.contextmanager
def held_answer(plane: ControlPlane, path: str) -> Iterator[threading.Event]:
    """Hold the stand-in's answer to the first request to ``path`` (the service has acted on
    it) until the block ends; the event is set once it is held: the request is in flight."""
    held, release = threading.Event(), threading.Event()
    record = plane.record

    def holding(request: RecordedRequest) -> None:
        record(request)
        if request.path.endswith(path) and not held.is_set():
            held.set()
            release.wait(SAFETY_TIMEOUT)

    plane.record = holding  # type: ignore[method-assign]
    try:
        yield held
    finally:
        release.set()


def _signal_in_flight(
    plane: ControlPlane, path: str, proc: subprocess.Popen[bytes], sig: signal.Signals
) -> bytes:
    """Signal ``proc`` while its request to ``path`` is in flight, and let the answer go once
    the handler has said it is stopping; what it wrote to stderr so far."""
    with held_answer(plane, path) as held:
        while not held.wait(1.0):
            assert proc.poll() is None, "the run ended before the request"
        proc.send_signal(sig)
        return read_until(proc, b"stopping")


def test_ctrl_c_while_creating_still_prints_records_and_logs_out(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    proc = _start(control_plane, tmp_path / "inv.sqlite3")
    said = _signal_in_flight(control_plane, "/api-tokens", proc, signal.SIGINT)
    out, err = proc.communicate(timeout=SAFETY_TIMEOUT)
    err = said + err
    for line in out.decode().splitlines():
        guard.remember(line)
    guard.capture(err)
    assert proc.returncode == 130, err
    (value,) = out.decode().splitlines()
    with open_inventory(tmp_path / "inv.sqlite3") as inv:
        (entry,) = inv.entries()
    assert entry.fingerprint == fingerprint(value)
    assert control_plane.state.invalidate_sessions() == 0
    assert [r.status for r in control_plane.requests if r.path.endswith("/logout")] == [204]


def test_ctrl_c_before_creating_creates_nothing(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    proc = _start(control_plane, tmp_path / "inv.sqlite3")
    said = _signal_in_flight(control_plane, "/org/memberships", proc, signal.SIGTERM)
    out, err = proc.communicate(timeout=SAFETY_TIMEOUT)
    err = said + err
    guard.capture(out, err)
    assert proc.returncode == 143, err
    assert out == b""
    assert not any(r.path.endswith("/api-tokens") for r in control_plane.requests)
    assert control_plane.state.invalidate_sessions() == 0
    assert len(err.decode().splitlines()) <= 2  # the notice, then the one-line error
