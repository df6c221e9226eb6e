"""``hygiene watch`` without blind windows, as users run it: a real process following a folder
(files created after start, nested folders, links not followed) and a restart with ``--state``
that reads what was appended while it was down. Every byte it prints is checked for secrets."""

from __future__ import annotations

import json
import os
import queue
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.watch.folder import Folder
from hygiene.watch.seen import path_key
from tests.helpers import SAFETY_TIMEOUT, SecretGuard, Watch, append

Start = Callable[..., Watch]


@pytest.fixture
def start(watch_processes: Start) -> Start:
    """Start a report-only `hygiene watch --format json ARGS` in tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIC_")}
    return lambda *args: watch_processes(*args, env=env)  # type: ignore[no-any-return]


def _events(watch: Watch, count: int) -> dict[str, dict[str, object]]:
    """The next ``count`` events, by fingerprint."""
    found = {}
    for _ in range(count):
        try:
            event = watch.next_event()
        except queue.Empty:
            raise AssertionError(b"".join(watch.stderr).decode()) from None
        found[str(event["fingerprint"])] = event
    return found


def _positions_written(state: Path, files: list[Path], timeout: float = SAFETY_TIMEOUT) -> None:
    """Wait until the state holds each file's position at its end (written once a second)."""
    want = {path_key(str(p)): p.stat().st_size for p in files}
    deadline = time.monotonic() + timeout
    while True:
        docs = [json.loads(line) for line in state.read_text().splitlines()[1:] if line]
        have = {d["path"]: d["offset"] for d in docs if "path" in d}
        if all(have.get(k) == size for k, size in want.items()):
            return
        assert time.monotonic() < deadline, have
        time.sleep(0.05)


def _stderr(watch: Watch) -> str:
    return b"".join(watch.stderr).decode()


def test_a_folder_reports_what_is_appended_to_files_old_new_and_nested(
    tmp_path: Path, guard: SecretGuard, start: Start
) -> None:
    logs = tmp_path / "logs"
    (logs / "app").mkdir(parents=True)
    old = logs / "app" / "old.log"
    old.write_text(f"before the start {guard.pat()}\n")  # there at start: not reported
    watch = start("logs")
    assert "(1 file(s))" in _stderr(watch)
    leaks = [guard.pat() for _ in range(4)]
    append(old, f"appended {leaks[0]}\n")
    (logs / "new.log").write_text(f"created after start {leaks[1]}\n")
    (logs / "deep" / "er").mkdir(parents=True)  # folders made after start, nested
    (logs / "deep" / "er" / "x.log").write_text(f"line one\nnested {leaks[2]}\n")
    append(logs / "new.log", f"then appended {leaks[3]}\n")
    events = _events(watch, 4)
    assert set(events) == {fingerprint(v) for v in leaks}
    where = {(e["path"], e["line"]) for e in events.values()}
    assert where == {
        (os.path.join("logs", "app", "old.log"), 2),
        (os.path.join("logs", "new.log"), 1),
        (os.path.join("logs", "new.log"), 2),
        (os.path.join("logs", "deep", "er", "x.log"), 2),
    }
    watch.nothing_until(old)  # the line there before the start stays unreported
    assert watch.stop() == 0
    guard.check()


def test_a_folder_never_follows_links_nor_reads_fifos(
    tmp_path: Path, guard: SecretGuard, start: Start
) -> None:
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    logs.mkdir()
    outside.mkdir()
    secret_file = outside / "secret.txt"
    secret_file.write_text("")
    watch = start("logs", "--from-start")
    (logs / "link.log").symlink_to(secret_file)  # a link to a file: not followed
    (logs / "dir").symlink_to(outside, target_is_directory=True)  # nor to a folder
    os.mkfifo(logs / "pipe.log")  # a FIFO with no writer: never opened (never a hang)
    append(secret_file, f"not ours {guard.pat()}\n")
    (outside / "later.log").write_text(f"not ours either {guard.pat()}\n")
    leak = guard.pat()
    (logs / "real.log").write_text(f"ours {leak}\n")
    events = _events(watch, 1)
    assert set(events) == {fingerprint(leak)}
    # two listings later, still nothing through the links
    watch.nothing_until(logs / "marker1.log")
    watch.nothing_until(logs / "marker2.log")
    assert watch.stop() == 0
    guard.check()


def test_more_files_than_the_bound_are_said_once_and_the_first_followed(tmp_path: Path) -> None:
    notices: list[str] = []
    folder = Folder(str(tmp_path), max_files=3, notice=notices.append)
    for n in range(5):
        (tmp_path / f"{n}.log").write_text("")
    assert [Path(p).name for p, _ in folder.discover()] == ["0.log", "1.log", "2.log"]
    (tmp_path / "5.log").write_text("")
    assert folder.discover() == []
    assert len(notices) == 1
    assert "more than 3 files" in notices[0]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_a_restart_with_state_reads_what_was_appended_while_down(
    tmp_path: Path, guard: SecretGuard, start: Start, stop: int
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    named, inside = tmp_path / "app.log", logs / "in.log"
    named.write_text("start\n")
    inside.write_text("start\n")
    first = start("app.log", "logs", "--state", "watch.state")
    seen_before = [guard.pat(), guard.pat()]
    append(named, f"seen {seen_before[0]}\n")
    append(inside, f"seen {seen_before[1]}\n")
    assert set(_events(first, 2)) == {fingerprint(v) for v in seen_before}
    if stop == signal.SIGKILL:
        _positions_written(tmp_path / "watch.state", [named, inside])
    first.proc.send_signal(stop)
    first.proc.wait(timeout=SAFETY_TIMEOUT)
    down = [guard.pat() for _ in range(3)]
    append(named, f"while down {down[0]}\n")
    append(inside, f"while down {down[1]}\n")
    (logs / "sub").mkdir()
    (logs / "sub" / "born.log").write_text(f"created while down {down[2]}\n")
    again = start("app.log", "logs", "--state", "watch.state")
    events = _events(again, 3)
    assert set(events) == {fingerprint(v) for v in down}
    lines = {e["path"]: e["line"] for e in events.values()}
    assert lines["app.log"] == 3
    assert lines[os.path.join("logs", "in.log")] == 3
    again.nothing_until(tmp_path / "app.log")  # nothing seen before is reported twice
    again.nothing_until(logs / "in.log")
    assert again.stop() == 0
    state = (tmp_path / "watch.state").read_text()
    guard.capture(state)
    assert "logs" not in state  # paths are kept as hashes only
    guard.check()


@pytest.mark.parametrize("change", ["rotated", "truncated"])
def test_a_file_replaced_or_shrunk_while_down_is_read_from_its_start(
    tmp_path: Path, guard: SecretGuard, start: Start, change: str
) -> None:
    log = tmp_path / "app.log"
    log.write_text("one\n")
    first = start("app.log", "--state", "watch.state")
    seen = guard.pat()
    append(log, f"a fairly long line so that the file is longer afterwards {seen}\n")
    _events(first, 1)
    assert first.stop() == 0
    leak = guard.pat()
    if change == "rotated":
        os.rename(log, tmp_path / "app.log.1")
        log.write_text(f"x\n{'y' * 300}\n{leak}\n")  # longer than the old offset: the inode says
    else:
        log.write_text(f"{leak}\n")  # shorter than the old offset
    again = start("app.log", "--state", "watch.state")
    event = next(iter(_events(again, 1).values()))
    assert event["fingerprint"] == fingerprint(leak)
    assert event["line"] == (3 if change == "rotated" else 1)
    assert again.stop() == 0
    guard.check()


def test_a_partial_line_at_stop_is_read_whole_after_a_restart(
    tmp_path: Path, guard: SecretGuard, start: Start
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    other = tmp_path / "other.log"
    other.write_text("")
    first = start("app.log", "other.log", "--state", "watch.state")
    leak = guard.pat()
    half = len(leak) // 2
    append(log, f"token={leak[:half]}")  # no newline yet: held, not scanned
    first.nothing_until(other)  # two polls later, the half line still held
    first.nothing_until(other)
    assert first.stop() == 0
    append(log, f"{leak[half:]} done\n")
    again = start("app.log", "--state", "watch.state")
    event = next(iter(_events(again, 1).values()))
    assert (event["fingerprint"], event["line"]) == (fingerprint(leak), 1)
    assert again.stop() == 0
    guard.check()


def test_a_deleted_files_last_partial_line_is_scanned(
    tmp_path: Path, guard: SecretGuard, start: Start
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app.log"
    log.write_text("")
    watch = start("logs")
    leak = guard.pat()
    append(log, f"last words {leak}")  # no newline: held until the file ends
    watch.nothing_until(logs / "marker1.log")  # two listings later, still held
    watch.nothing_until(logs / "marker2.log")
    log.unlink()
    event = next(iter(_events(watch, 1).values()))
    assert (event["fingerprint"], event["line"]) == (fingerprint(leak), 1)
    assert watch.stop() == 0
    guard.check()
