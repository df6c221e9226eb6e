"""Progress on a real terminal: ``hygiene scan`` and ``revoke-leaked`` run as processes on a
pseudo-terminal (``pty``) over work that takes more than a couple of seconds (a FIFO fed slowly,
a rate-limited stand-in). The line shows counts and rates, never a path or a token, and is
erased before anything else is printed; off a terminal nothing of it is written."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import pty
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hygiene.commands.progress import Line, drawing, say, wanted
from hygiene.progress import ItemFrames, ItemProgress
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, console_script
from tests.revoke.conftest import leak_pats
from tests.terminal import Screen

ERASE = "\r\x1b[K"
# A scan's frame: counts, sizes, rates and time only (no path, no value).
SCAN_FRAME = re.compile(
    r"scanning: [\d,]+(/[\d,]+)? files?, [\d.]+ k?B(/[\d.]+ [kMG]?B)?, [\d.]+ [kMG]?B/s, "
    r"[\d,]+ findings?, \d+ s"
)
REVOKE_FRAME = re.compile(r"revoking: [\d,]+/30(, [\d,]+ failed)?, [\d.]+/s, \d+ s")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _kb(text: str) -> float:
    number, unit = text.split(" ")
    return float(number) * {"B": 0.001, "kB": 1, "MB": 1000}[unit]


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIC_", "HYGIENE_"))}
    return {**env, "TERM": "xterm", **(extra or {})}


@contextlib.contextmanager
def slow_fifo(path: Path, lines: list[bytes], every: float) -> Iterator[threading.Event]:
    """A FIFO at ``path`` that a thread fills with ``lines``, one each ``every`` seconds, once
    a reader opens it (then repeats the last line until told to stop, if it is set)."""
    os.mkfifo(path)
    stop = threading.Event()

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), path.open("wb", buffering=0) as fifo:
            for line in lines:
                if stop.is_set():
                    return
                fifo.write(line)
                time.sleep(every)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join(10)


def _tree(root: Path, guard: SecretGuard) -> None:
    root.mkdir()
    for i in range(30):
        token = f"T = '{guard.pat()}'\n" if i % 10 == 0 else ""
        (root / f"mod{i}.py").write_text(f"x = {i}\n{token}" + "# filler\n" * 200)


def _lines(guard: SecretGuard, count: int) -> list[bytes]:
    return [
        (
            f"{i} token={guard.pat()}\n" if i == count // 2 else f"{i} log line {'.' * 2000}\n"
        ).encode()
        for i in range(count)
    ]


def test_scan_on_a_terminal_shows_counts_then_erases_the_line(
    tmp_path: Path, guard: SecretGuard
) -> None:
    _tree(tmp_path / "src", guard)
    with slow_fifo(tmp_path / "feed", _lines(guard, 40), every=0.08):  # about 3.2 s
        screen = Screen([console_script("hygiene"), "scan", "src", "feed"], _env(), tmp_path)
        status = screen.finish()
    text = screen.text
    guard.capture(text)
    assert status == 1, text
    frames = re.findall(r"scanning: [^\r\n\x1b]*", text)
    assert frames, text
    assert all(SCAN_FRAME.fullmatch(frame) for frame in frames), frames
    sizes = [_kb(frame.split(", ")[1]) for frame in frames]
    assert sizes == sorted(sizes)
    assert sizes[0] < sizes[-1]  # the FIFO's bytes, as they come
    assert "31 files" in frames[-1] or "30 files" in frames[-1]  # the tree, then the FIFO
    assert "4 findings" in frames[-1] or "3 findings" in frames[-1]
    assert not any("mod" in frame or "feed" in frame for frame in frames)  # no path
    drawn, after = text.rsplit(ERASE, 1)
    assert "scanning:" in drawn
    assert "scanning:" not in after  # erased before the report and the summary
    assert "hygiene scan: 4 findings in 31 files" in after
    assert "src/mod0.py:2" in after


def test_ctrl_c_erases_the_line(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "src").mkdir()
    with slow_fifo(tmp_path / "feed", _lines(guard, 600), every=0.05):
        screen = Screen([console_script("hygiene"), "scan", "feed"], _env(), tmp_path)
        screen.wait_for(lambda text: "scanning: " in text)
        screen.type(b"\x03")  # Ctrl-C: SIGINT from the terminal to its foreground group
        status = screen.finish()
    text = screen.text
    guard.capture(text)
    assert status == 130, text
    drawn, after = text.rsplit(ERASE, 1)
    assert "scanning: " in drawn
    assert "scanning" not in after
    assert "hygiene: interrupted" in after
    assert "Traceback" not in text


def test_verify_on_a_terminal(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    state = control_plane.state
    values = [
        guard.remember(state.create_pat(control_plane.email, "org_main", f"t{n}", ["x"], 30)[1])
        for n in range(3)
    ]
    (tmp_path / "leaks.env").write_text("".join(f"T{n}={v}\n" for n, v in enumerate(values)))
    control_plane.switches.delay = 3.0  # every answer: the verification takes 3 s
    args = [console_script("hygiene"), "scan", "--verify", "leaks.env"]
    screen = Screen(args, _env(control_plane.env()), tmp_path)
    status = screen.finish(timeout=60)
    text = screen.text
    guard.capture(text)
    assert status == 1, text
    frames = re.findall(r"verifying: [^\r\n\x1b]*", text)
    assert frames, text
    assert all(re.fullmatch(r"verifying: [0-3]/3 tokens, [\d.]+/s, \d+ s", f) for f in frames)
    after = text.rsplit(ERASE, 1)[1]
    assert "verifying:" not in after
    assert after.count("live") >= 3  # the report, after the erase
    assert "hygiene scan: 3 findings" in after


def test_off_a_terminal_nothing_of_progress_is_written(tmp_path: Path, guard: SecretGuard) -> None:
    _tree(tmp_path / "src", guard)
    with slow_fifo(tmp_path / "feed", _lines(guard, 40), every=0.08):
        proc = subprocess.run(
            [console_script("hygiene"), "scan", "src", "feed"],
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr.decode()
    assert err.startswith("hygiene scan: 4 findings in 31 files"), err
    for mark in ("\r", "\x1b", "scanning"):
        assert mark not in err


def test_revoke_leaked_on_a_terminal(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inventory.sqlite3"
    ids = [leak.token_id for leak in leak_pats(control_plane, inventory, guard, 30)]
    ids_file = tmp_path / "ids.txt"
    ids_file.write_text("\n".join(ids) + "\n", encoding="utf-8")
    control_plane.switches.set_rate_limit(10, window=1.0)  # 30 ids: about 3 s
    env = _env({**control_plane.env(), "HYGIENE_INVENTORY": str(inventory)})
    args = [console_script("revoke-leaked"), "--ids-from", str(ids_file), "--yes"]
    started = time.monotonic()
    screen = Screen(args, env, tmp_path)
    status = screen.finish(timeout=60)
    text = screen.text
    guard.capture(text)
    assert status == 0, text
    assert time.monotonic() - started > 2.5  # long enough for the line to show
    frames = re.findall(r"revoking: [^\r\n\x1b]*", text)
    assert frames, text
    assert all(REVOKE_FRAME.fullmatch(frame) for frame in frames), frames
    counts = [int(f.split(" ")[1].split("/")[0]) for f in frames]
    assert counts == sorted(counts)
    assert counts[-1] > 0  # answers were counted as they came
    drawn, after = text.rsplit(ERASE, 1)
    assert "revoking:" in drawn
    assert "revoking:" not in after
    assert "revoke-leaked: 30 revoked" in after
    assert all(token_id in after for token_id in ids)  # the results come after the erase


def test_a_line_is_cut_to_the_terminal_and_redrawn_only_on_news() -> None:
    screen = Terminal()
    line = Line(screen)
    line.draw("x" * 500)
    line.draw("x" * 500)
    assert screen.getvalue() == ERASE + "x" * 79  # not a terminal's fd: 80 columns
    line.above("hygiene: note")
    assert screen.getvalue().endswith(ERASE + "hygiene: note\n")
    line.clear()  # nothing shown any more: nothing written
    assert screen.getvalue().endswith("hygiene: note\n")


def test_say_goes_above_an_active_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hygiene.progress.DELAY", 0.0)
    monkeypatch.setenv("TERM", "xterm")
    screen = Terminal()
    progress = ItemProgress(3)
    # The frames' clock moves 0.05 s a reading, however slow the machine: the first frame
    # says "0 s" even when the drawing thread gets the processor late.
    ticks = itertools.count()
    frames = ItemFrames("verifying", progress, "tokens", clock=lambda: next(ticks) * 0.05)
    with drawing(screen, frames):
        deadline = time.monotonic() + 60  # a guard against a hang, not a verdict
        while "verifying" not in screen.getvalue():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        say("hygiene: a note")
        while "verifying" not in screen.getvalue().split("a note\n")[-1]:  # back below it
            assert time.monotonic() < deadline
            time.sleep(0.01)
    out = screen.getvalue()
    assert out.startswith(ERASE + "verifying: 0/3 tokens, 0.0/s, 0 s")
    assert ERASE + "hygiene: a note\n" + ERASE + "verifying: " in out
    assert out.endswith(ERASE)


def test_only_a_terminal_that_can_rewrite_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    assert wanted(Terminal())
    assert not wanted(io.StringIO())
    assert not wanted(None)
    monkeypatch.setenv("TERM", "dumb")
    assert not wanted(Terminal())
    with drawing(Terminal(), ItemFrames("x", ItemProgress())) as line:
        assert line is None


def test_a_terminal_of_unknown_width_is_taken_as_80_columns() -> None:
    master, slave = pty.openpty()  # no size set: the terminal says 0 columns
    try:
        with os.fdopen(os.dup(slave), "w") as stream:
            line = Line(stream)
            line.draw("x" * 500)
            assert line.shown == "x" * 79
    finally:
        os.close(slave)
        os.close(master)
