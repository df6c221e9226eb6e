"""Attacks on ``hygiene watch``: nothing in a watched log, in its path or in the state file can
silence it, steer it into revoking its own token, or stop it from acting.

Real ``hygiene watch`` processes, the stand-in control plane on loopback, the real inventory.
Every byte the watcher prints and every state file it writes is checked for secrets. No
verdict depends on wall-clock time: progress is proven by events (a line appended to a second
watched file answers only after a further poll), and timeouts only bound a hung process.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, Watch, append, new_pat, run_hygiene
from tests.watch.test_watch_cli import _leak_pat

FLOOD = 20_000
FLOOD_WAIT = 600  # seconds: only bounds a hung watcher, never a verdict


@pytest.fixture
def launch(start_watch: Callable[..., Watch]) -> Callable[..., Watch]:
    """Start ``hygiene watch --format json ARGS`` in tmp_path; ``env`` adds to the environment."""
    return start_watch


class Flood:
    """Many PATs, checked against outputs in linear time (the guard compares every secret it
    remembers with every output: 20,000 by 20,000). A secret's hidden part is 28 characters of a PAT's body:
    any output holding one holds a run of at least 28 such characters, each window of which is
    looked up."""

    WINDOW = 28
    _RUN = re.compile(rb"[A-Za-z0-9_-]{28,}")

    def __init__(self, count: int) -> None:
        self.values = [new_pat() for _ in range(count)]
        self._hidden = {v.removeprefix("pat_AIC_")[: self.WINDOW].encode() for v in self.values}
        assert all(len(v) - len("pat_AIC_") - 4 >= self.WINDOW for v in self.values)

    def check(self, *outputs: bytes) -> None:
        for output in outputs:
            for run in self._RUN.finditer(output):
                text = run.group()
                windows = {text[i : i + self.WINDOW] for i in range(len(text) - self.WINDOW + 1)}
                assert not windows & self._hidden, "a secret reached the output"


def _deletes(plane: ControlPlane) -> list[str]:
    return [r.path.rsplit("/", 1)[-1] for r in plane.requests if r.method == "DELETE"]


def _state_records(path: Path, guard: SecretGuard) -> list[dict[str, object]]:
    data = path.read_bytes()
    guard.capture(data)
    lines = data.decode().splitlines()
    assert json.loads(lines[0]) == {"version": 2, "watch_state": True}
    # Leak records only: each followed file's position is kept beside them ("path" records).
    return [doc for line in lines[1:] if "path" not in (doc := json.loads(line))]


def _last(records: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {r["fp"]: r for r in records}


def _events_until(watch: Watch, done: Callable[[dict[str, object]], bool]) -> list[dict]:
    events = []
    while True:
        event = watch.next_event(timeout=FLOOD_WAIT)
        events.append(event)
        if done(event):
            return events


def _stderr(watch: Watch) -> str:
    return b"".join(watch.stderr).decode()


# --- what an earlier run left open is finished by a --revoke run ---------------------------


@pytest.mark.parametrize("shows_again", [False, True], ids=["only-in-state", "in-log-again"])
def test_a_leak_only_reported_is_revoked_by_the_next_revoke_run(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    shows_again: bool,
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    value = _leak_pat(control_plane, inventory, guard, "reported")
    report = launch("app.log", "--state", "watch.state")
    append(log, f"a {value}\n")
    event = report.next_event()
    assert (event["action"], event["status"]) == ("none", "found")
    assert report.stop() == 0
    revoke = launch("app.log", "--revoke", "--state", "watch.state")
    if shows_again:
        append(log, f"b {value}\n")
    event = revoke.next_event()
    assert (event["status"], event["fingerprint"]) == ("revoked", fingerprint(value))
    assert control_plane.state.pat(str(event["token_id"])).revoked
    revoke.nothing_until(log)  # said once
    assert revoke.stop() == 0
    records = _state_records(tmp_path / "watch.state", guard)
    assert _last(records)[fingerprint(value)]["status"] == "revoked"
    assert _last(records)[fingerprint(value)]["mode"] == "revoke"


def test_an_unresolved_leak_is_revoked_once_registered_in_a_later_run(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    pat, value = control_plane.state.create_pat(control_plane.email, "org_main", "late", ["a"], 30)
    guard.remember(value)
    first = launch("app.log", "--revoke", "--state", "watch.state")
    append(log, f"a {value}\n")
    assert first.next_event()["status"] == "unresolved"
    assert first.stop() == 0
    with open_inventory(inventory) as inv:
        inv.add(pat.token_id, value, name="late", scopes=pat.scopes, expires_at=None)
    second = launch("app.log", "--revoke", "--state", "watch.state")
    event = second.next_event()
    assert (event["status"], event["token_id"]) == ("revoked", pat.token_id)
    assert event["path"] == "watch.state"
    assert second.stop() == 0
    assert control_plane.state.pat(pat.token_id).revoked


def test_an_unresolved_leak_is_revoked_when_the_inventory_learns_it_mid_run(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    pat, value = control_plane.state.create_pat(control_plane.email, "org_main", "late", ["a"], 30)
    guard.remember(value)
    watch = launch("app.log", "--revoke")
    append(log, f"a {value}\n")
    assert watch.next_event()["status"] == "unresolved"
    append(log, f"b {value}\n")  # still unknown: not said again
    with open_inventory(inventory) as inv:
        inv.add(pat.token_id, value, name="late", scopes=pat.scopes, expires_at=None)
    event = watch.next_event()
    assert (event["status"], event["token_id"]) == ("revoked", pat.token_id)
    watch.nothing_until(log)  # said once
    assert watch.stop() == 0


def test_a_version_1_state_is_migrated_and_its_reported_leak_revoked(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
) -> None:
    (tmp_path / "app.log").write_text("")
    reported = _leak_pat(control_plane, inventory, guard, "reported")
    done = _leak_pat(control_plane, inventory, guard, "done")
    seen = {fingerprint(reported): "found", fingerprint(done): "revoked"}
    state = tmp_path / "watch.state"
    state.write_text(json.dumps({"version": 1, "seen": seen}, indent=1))
    control_plane.clear_requests()
    watch = launch("app.log", "--revoke", "--state", "watch.state")
    event = watch.next_event()
    assert (event["fingerprint"], event["status"]) == (fingerprint(reported), "revoked")
    watch.nothing_until(tmp_path / "app.log")
    assert watch.stop() == 0
    assert _deletes(control_plane) == [event["token_id"]]  # never the one already revoked
    last = _last(_state_records(state, guard))
    assert (last[fingerprint(done)]["status"], last[fingerprint(reported)]["status"]) == (
        "revoked",
        "revoked",
    )


# --- a flood of unknown token-shaped strings hides nothing ------------------------------------


def _written_bytes(pid: int) -> int:
    """Bytes the process handed to write(2) so far (its state file and its stdout)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise AssertionError("no wchar")


@pytest.mark.parametrize("state", [True, False], ids=["state", "no-state"])
def test_a_flood_of_unknown_pats_does_not_hide_a_real_leak(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    state: bool,
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    value = _leak_pat(control_plane, inventory, guard, "real")
    watch = launch("app.log", "--revoke", *(["--state", "watch.state"] if state else []))
    control_plane.clear_requests()
    flood = Flood(FLOOD)
    with log.open("a") as f:
        f.writelines(f"WARN token={u} rejected\n" for u in flood.values)
        f.write(f"DEBUG retry token={value}\n")
    events = _events_until(watch, lambda e: e["fingerprint"] == fingerprint(value))
    real = events[-1]
    assert real["status"] == "revoked"
    assert control_plane.state.pat(str(real["token_id"])).revoked
    events += [watch.next_event(timeout=FLOOD_WAIT) for _ in range(FLOOD + 1 - len(events))]
    assert sorted(e["status"] for e in events).count("unresolved") == FLOOD
    assert _deletes(control_plane) == [real["token_id"]]
    # Linear: each event costs the watcher a bounded number of bytes written (a state file
    # rewritten whole per event wrote gigabytes here).
    assert _written_bytes(watch.proc.pid) < 1024 * (FLOOD + 1)
    assert watch.stop() == 0
    flood.check(*(json.dumps(e).encode() for e in events), *watch.stderr)
    if state:
        flood.check((tmp_path / "watch.state").read_bytes())
        records = _state_records(tmp_path / "watch.state", guard)
        assert len(records) <= FLOOD + 3  # one per unknown; queued and revoked for the leak
        assert (tmp_path / "watch.state").stat().st_size < 256 * (FLOOD + 1)
        assert len(_last(records)) == FLOOD + 1


def test_a_flood_of_session_tokens_defers_and_reports_but_drops_nothing(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    value = _leak_pat(control_plane, inventory, guard, "real")
    sessions = [guard.session_token() for _ in range(400)]
    watch = launch("app.log", "--revoke", "--state", "watch.state")
    with log.open("a") as f:
        f.writelines(f"DEBUG Authorization: Bearer {s}\n" for s in sessions)
        f.write(f"DEBUG retry token={value}\n")
    wanted = {fingerprint(s) for s in sessions} | {fingerprint(value)}
    events: dict[object, dict[str, object]] = {}
    while set(events) != wanted:
        event = watch.next_event(timeout=FLOOD_WAIT)
        assert event["fingerprint"] not in events  # each leak answered once
        events[event["fingerprint"]] = event
    assert events[fingerprint(value)]["status"] == "revoked"
    assert {events[fingerprint(s)]["action"] for s in sessions} == {"logout"}
    assert "action queue is full" in _stderr(watch)
    assert watch.stop() == 0
    assert "deferred" in _stderr(watch).splitlines()[-2]
    records = _state_records(tmp_path / "watch.state", guard)
    assert "deferred" in {r["status"] for r in records}
    assert not {"deferred", "queued"} & {r["status"] for r in _last(records).values()}


@pytest.mark.parametrize("kill", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_stop_during_a_flood_leaves_a_state_that_loads(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    kill: int,
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    watch = launch("app.log", "--revoke", "--state", "watch.state")
    flood = Flood(FLOOD)
    with log.open("a") as f:
        f.writelines(f"WARN token={u} rejected\n" for u in flood.values)
    said = [watch.next_event(timeout=FLOOD_WAIT) for _ in range(100)]
    code = watch.stop(kill)
    assert code == (0 if kill == signal.SIGTERM else -signal.SIGKILL)
    state = tmp_path / "watch.state"
    flood.check(state.read_bytes(), *(json.dumps(e).encode() for e in said))
    again = launch("app.log", "--revoke", "--state", "watch.state")
    assert again.proc.poll() is None
    assert again.stop() == 0
    flood.check(state.read_bytes(), *again.stderr)
    records = _last(_state_records(state, guard))  # compacted: every line whole
    if kill == signal.SIGTERM:
        assert {e["fingerprint"] for e in said} <= set(records)


# --- never through a symbolic link swapped in -------------------------------------------------


def _own_token(control_plane: ControlPlane, inventory: Path, guard: SecretGuard) -> tuple[str, str]:
    """The watcher's own PAT (AIC_TOKEN), recorded in the inventory as users record theirs."""
    pat, value = control_plane.state.create_pat(
        control_plane.email, "org_main", "watcher", ["tokens:write", "safes:read"], 30
    )
    guard.remember(value)
    with open_inventory(inventory) as inv:
        inv.add(pat.token_id, value, name="watcher", scopes=pat.scopes, expires_at=None)
    return pat.token_id, value


def _prove_polls(watch: Watch, tick: Path, guard: SecretGuard, count: int = 2) -> None:
    """Each unknown PAT appended to the tick file is answered only after one more poll."""
    for _ in range(count):
        append(tick, f"tick {guard.pat()}\n")
        event = watch.next_event(timeout=60)
        assert (event["path"], event["status"]) == ("tick.log", "unresolved")


def _swap_target(kind: str, tmp_path: Path, own: str) -> str:
    if kind == "own-token":
        (tmp_path / "secrets.env").write_text(f"AIC_TOKEN={own}\n")
        return str(tmp_path / "secrets.env")
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return str(tmp_path / "fifo")
    return {"proc-environ": "/proc/self/environ", "dev-zero": "/dev/zero"}[kind]


@pytest.mark.parametrize("kind", ["own-token", "proc-environ", "dev-zero", "fifo", "fifo-itself"])
def test_a_log_swapped_for_a_link_or_special_file_is_not_followed(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    kind: str,
) -> None:
    own_id, own = _own_token(control_plane, inventory, guard)
    log, tick = tmp_path / "app.log", tmp_path / "tick.log"
    log.write_text("INFO start\n")
    tick.write_text("")
    watch = launch("app.log", "tick.log", "--revoke", env={"AIC_TOKEN": own})
    log.unlink()
    if kind == "fifo-itself":
        os.mkfifo(log)
    else:
        log.symlink_to(_swap_target(kind, tmp_path, own))
    _prove_polls(watch, tick, guard, 3)
    assert _stderr(watch).count("app.log: ") == 1  # said once, however many polls
    assert "not followed" in _stderr(watch)
    log.unlink()
    leaked = _leak_pat(control_plane, inventory, guard, "leaked")
    log.write_text(f"again a regular file {leaked}\n")
    event = watch.next_event(timeout=60)
    assert (event["path"], event["status"], event["line"]) == ("app.log", "revoked", 1)
    assert watch.stop() == 0
    assert not control_plane.state.pat(own_id).revoked
    assert own_id not in _deletes(control_plane)


@pytest.mark.parametrize("later", ["own-token", "proc-environ", "dev-zero"])
def test_a_path_that_is_a_link_at_start_is_followed_to_its_target_only(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    later: str,
) -> None:
    own_id, own = _own_token(control_plane, inventory, guard)
    real, link, tick = tmp_path / "real.log", tmp_path / "app.log", tmp_path / "tick.log"
    real.write_text("")
    tick.write_text("")
    link.symlink_to(real)
    watch = launch("app.log", "tick.log", "--revoke", env={"AIC_TOKEN": own})
    first = _leak_pat(control_plane, inventory, guard, "first")
    append(real, f"through the link {first}\n")
    assert (watch.next_event()["status"], "followed") == ("revoked", "followed")
    link.unlink()
    link.symlink_to(_swap_target(later, tmp_path, own))
    _prove_polls(watch, tick, guard)
    assert "pointing elsewhere than at start (not followed)" in _stderr(watch)
    assert watch.stop() == 0
    assert not control_plane.state.pat(own_id).revoked
    assert own_id not in _deletes(control_plane)


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero"])
def test_a_path_linked_to_a_pseudo_file_at_start_is_refused(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    launch: Callable[..., Watch],
    target: str,
) -> None:
    own_id, own = _own_token(control_plane, inventory, guard)
    (tmp_path / "tick.log").write_text("")
    (tmp_path / "app.log").symlink_to(target)
    watch = launch("app.log", "tick.log", "--revoke", "--from-start", env={"AIC_TOKEN": own})
    _prove_polls(watch, tmp_path / "tick.log", guard)
    assert "app.log: " in _stderr(watch)
    assert watch.stop() == 0
    assert not control_plane.state.pat(own_id).revoked


# --- the state file opened as a regular file of bounded size only -----------------------------


def _bad_state(kind: str, tmp_path: Path) -> str:
    state = tmp_path / "watch.state"
    if kind == "link-to-state":
        # A state any version would load: refused only for being reached through a link.
        (tmp_path / "elsewhere.state").write_text('{"version": 1, "seen": {}}\n')
        state.symlink_to(tmp_path / "elsewhere.state")
    elif kind == "dangling-link":
        state.symlink_to(tmp_path / "nowhere" / "x")
    elif kind == "link-to-dev-zero":
        state.symlink_to("/dev/zero")
    elif kind == "dev-zero":
        return "/dev/zero"
    elif kind == "fifo":
        os.mkfifo(state)
    elif kind == "huge":
        with state.open("wb") as f:
            f.write(b'{"version": 2, "watch_state": true}\n')
            f.truncate(300 << 20)  # sparse: costs no disk
    elif kind == "long-line":
        state.write_bytes(b'{"version": 2, "watch_state": true}\n' + b"x" * (1 << 20) + b"\n")
    elif kind == "garbage":
        state.write_bytes(b'{"version": 2, "watch_state": true}\n{"fp": 1, "status": []}\n')
    return "watch.state"


@pytest.mark.parametrize(
    "kind",
    [
        "link-to-state",
        "dangling-link",
        "link-to-dev-zero",
        "dev-zero",
        "fifo",
        "huge",
        "long-line",
        "garbage",
    ],
)
def test_a_state_file_that_is_not_a_bounded_regular_file_is_refused(
    guard: SecretGuard, tmp_path: Path, kind: str
) -> None:
    (tmp_path / "app.log").write_text("")
    state = _bad_state(kind, tmp_path)
    proc = run_hygiene(guard, "watch", "app.log", "--state", state, cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1
    assert "state file" in err
    assert "Traceback" not in err
    if kind == "link-to-state":
        assert (tmp_path / "watch.state").is_symlink()  # left as it was


def test_a_state_grown_long_or_torn_is_compacted_at_start(
    guard: SecretGuard, tmp_path: Path
) -> None:
    (tmp_path / "app.log").write_text("")
    value = guard.pat()
    record = {"fp": fingerprint(value), "mode": "report", "status": "found", "type": "aic-pat"}
    line = json.dumps(record).encode() + b"\n"
    header = b'{"version": 2, "watch_state": true}\n'
    state = tmp_path / "watch.state"
    state.write_bytes(header + line * 10_000 + line[:20])  # killed mid-write
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "watch", "app.log", "--state", "watch.state"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    guard.capture(proc.stderr.readline())  # "following": the state is loaded (and compacted)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    guard.capture(out, err)
    assert proc.returncode == 0
    assert _state_records(state, guard) == [record]
