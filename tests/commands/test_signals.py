"""Signals against the installed ``revoke-leaked``: a real process, real ``os.kill``, mid-run on
hundreds of ids against a rate-limited stand-in.

Each test synchronises on events, never on sleeps or elapsed time: the stand-in holds its
answers once 40 DELETEs arrived (:class:`Gate`), the test signals and reads the line the
command's handler writes, and only then lets the answers go. Then it checks what the issue asks:
no request after the signal but those in flight, every confirmed revocation recorded, no
session left alive (except after SIGKILL), exit 130 / 143.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hygiene.inventory import REVOKED, open_inventory
from hygiene.revoke.pool import WORKERS
from hygiene.testing import ControlPlane, RecordedRequest
from tests.helpers import SAFETY_TIMEOUT, SecretGuard, read_until
from tests.revoke.conftest import leak_pats

IDS = 200
RATE, WINDOW = 5, 0.1  # the stand-in allows 5 requests per 0.1 s: 50/s in small bursts
SCRIPT = Path(sys.executable).parent / "revoke-leaked"
# Requests the client may start between os.kill and the handler running (a few ms at RATE).
SLACK = 2
SAFETY = SAFETY_TIMEOUT


class Gate:
    """Holds the stand-in's answers (the service has acted; the client is not told yet) from
    the ``at``-th DELETE on, until released: the run cannot get further while a test signals."""

    def __init__(self, at: int = 40) -> None:
        self.at = at
        self.closed = threading.Event()
        self._open = threading.Event()
        self._open.set()
        self._deletes = 0
        self._released = False
        self._lock = threading.Lock()

    def pass_through(self, request: RecordedRequest) -> None:
        with self._lock:
            self._deletes += request.method == "DELETE"
            if self._deletes >= self.at and not (self.closed.is_set() or self._released):
                self.closed.set()
                self._open.clear()
        self._open.wait(SAFETY)

    def release(self) -> None:
        """Let every held answer go, and hold none from now on."""
        with self._lock:
            self._released = True
        self._open.set()


@dataclass
class Run:
    plane: ControlPlane
    inventory: Path
    ids: list[str]
    ids_file: Path
    arrivals: list[tuple[float, RecordedRequest]]
    gate: Gate

    def start(self) -> subprocess.Popen[bytes]:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("AIC_")},
            **self.plane.env(),
            "HYGIENE_INVENTORY": str(self.inventory),
        }
        args = [str(SCRIPT), "--ids-from", str(self.ids_file), "--yes", "--format", "json"]
        return subprocess.Popen(
            args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )

    def deletes(self, after: float = 0.0) -> list[RecordedRequest]:
        return [r for t, r in list(self.arrivals) if r.method == "DELETE" and t > after]

    def wait_for(self, condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + SAFETY  # a guard against a hang, not a verdict
        while not condition():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            assert time.monotonic() < deadline, "the run never got that far"
            time.sleep(0.005)

    def is_quiet(self, quiet: float = 0.05) -> bool:
        """Whether no request arrived for ``quiet`` s (the client waits for its next slot)."""
        return bool(self.arrivals) and time.monotonic() - self.arrivals[-1][0] > quiet

    def revoked_on_server(self) -> set[str]:
        return {t for t in self.ids if self.plane.state.pat(t).revoked}

    def marked(self) -> set[str]:
        with open_inventory(self.inventory) as inv:
            return {e.token_id for e in inv.entries() if e.state == REVOKED}


@pytest.fixture
def run(control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard) -> Iterator[Run]:
    inventory = tmp_path / "inventory.sqlite3"
    ids = [leak.token_id for leak in leak_pats(control_plane, inventory, guard, IDS)]
    ids_file = tmp_path / "ids.txt"
    ids_file.write_text("\n".join(ids) + "\n", encoding="utf-8")
    arrivals: list[tuple[float, RecordedRequest]] = []
    record = control_plane.record
    gate = Gate()

    def stamped(request: RecordedRequest) -> None:
        arrivals.append((time.monotonic(), request))
        record(request)
        gate.pass_through(request)

    control_plane.record = stamped  # type: ignore[method-assign]
    control_plane.switches.set_rate_limit(RATE, window=WINDOW)
    yield Run(control_plane, inventory, ids, ids_file, arrivals, gate)
    gate.release()  # no stand-in thread is left waiting


def finish(
    proc: subprocess.Popen[bytes], guard: SecretGuard, said: bytes = b""
) -> tuple[dict[str, object], str]:
    out, err = proc.communicate(timeout=SAFETY)
    guard.capture(out, said + err)
    return json.loads(out), (said + err).decode()


def check_stopped(run: Run, doc: dict[str, object], signalled_at: float) -> None:
    """Nothing started after the signal but what was in flight; the output, the service and
    the inventory agree; the session is gone."""
    late = run.deletes(after=signalled_at)
    assert len(late) <= WORKERS + SLACK, f"{len(late)} DELETEs answered after the signal"
    results = doc["results"]
    assert isinstance(results, list)
    assert len(results) == IDS
    said_revoked = {r["token_id"] for r in results if r["status"] == "revoked"}
    not_sent = [r for r in results if r["status"] == "failed" and r.get("error") == "CANCELLED"]
    unknown = {r["token_id"] for r in results if r.get("error") == "INTERRUPTED"}
    assert said_revoked == run.marked()
    # Revoked by the service but not said so: only requests given up on while in flight.
    assert said_revoked <= run.revoked_on_server() <= said_revoked | unknown
    assert len(not_sent) >= IDS - len(run.deletes()) - SLACK  # the rest was never tried
    assert all(r["token_id"] not in run.revoked_on_server() for r in not_sent)
    assert run.plane.state.invalidate_sessions() == 0, "a session was left alive"
    logout = [r for _, r in run.arrivals if r.path.endswith("/auth/logout")]
    assert [r.status for r in logout][-1:] == [204]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_sending_records_and_logs_out(
    run: Run, guard: SecretGuard, sig: signal.Signals, code: int
) -> None:
    proc = run.start()
    run.wait_for(run.gate.closed.is_set, proc)
    os.kill(proc.pid, sig)
    said = read_until(proc, b"stopping: no new requests")
    signalled_at = time.monotonic()  # the handler has run: nothing new may start from here
    run.gate.release()
    doc, err = finish(proc, guard, said)
    assert proc.returncode == code, err
    assert f"interrupted by {sig.name}" in err
    assert "Traceback" not in err
    check_stopped(run, doc, signalled_at)
    assert 40 <= len(run.revoked_on_server()) < IDS


def test_a_second_ctrl_c_still_logs_out(run: Run, guard: SecretGuard) -> None:
    proc = run.start()
    run.wait_for(run.gate.closed.is_set, proc)  # the answers in flight are held
    os.kill(proc.pid, signal.SIGINT)
    said = read_until(proc, b"stopping: no new requests")
    signalled_at = time.monotonic()
    assert proc.poll() is None  # still waiting for the held answers
    os.kill(proc.pid, signal.SIGINT)
    said += read_until(proc, b"still stopping")
    run.gate.release()
    doc, err = finish(proc, guard, said)
    assert proc.returncode == 130, err
    assert "still stopping" in err
    check_stopped(run, doc, signalled_at)


def test_sigkill_loses_at_most_what_was_in_flight_and_a_rerun_finishes(
    run: Run, guard: SecretGuard
) -> None:
    run.gate.release()  # this run is killed mid-way, held by nothing
    proc = run.start()
    run.wait_for(lambda: len(run.deletes()) >= 40, proc)
    # A quiet moment with every answer so far recorded (on a loaded machine the recording
    # thread may take longer than the gap between two bursts): what the kill loses is only
    # what is answered from here on.
    run.wait_for(lambda: run.is_quiet() and run.revoked_on_server() <= run.marked(), proc)
    proc.kill()
    _, err = proc.communicate(timeout=SAFETY)
    guard.capture(err)
    unrecorded = run.revoked_on_server() - run.marked()
    assert len(unrecorded) <= WORKERS  # answered but not yet committed: at most those in flight
    assert run.marked() <= run.revoked_on_server()
    rerun = run.start()
    doc, err = finish(rerun, guard)
    assert rerun.returncode == 0, err
    summary = doc["summary"]
    assert isinstance(summary, dict)
    assert summary["revoked"] + summary["not_found"] == IDS
    assert run.revoked_on_server() == run.marked() == set(run.ids)
