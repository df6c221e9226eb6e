"""`hygiene mask`: a real process, files and pipes, bytes in = bytes out except secrets."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import SAFETY_TIMEOUT, SecretGuard, run_hygiene


def test_stdin_to_stdout_masked_rest_byte_for_byte(guard: SecretGuard) -> None:
    pat, session = guard.pat(), guard.session_token()
    raw = (
        b"plain line \xff\xfe not utf-8\n"
        + f"\x1b[33m{pat}\x1b[0m coloured\n".encode()
        + f"Authorization: \x1b[1mBearer\x1b[0m {session}\r\n".encode()
        + b"\xc3\x28 password=hunter2 tail"
    )
    proc = run_hygiene(guard, "mask", input=raw)
    assert proc.returncode == 0
    out = proc.stdout
    assert out.startswith(b"plain line \xff\xfe not utf-8\n\x1b[33mpat_AIC_\xe2\x80\xa6")
    assert b"\x1b[0m coloured\nAuthorization: \x1b[1mBearer\x1b[0m \xe2\x80\xa6" in out
    assert out.endswith(b"\r\n\xc3\x28 password=\xe2\x80\xa6 tail")
    assert proc.stderr == b""


def test_files_in_order_and_dash_for_stdin(tmp_path: Path, guard: SecretGuard) -> None:
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text(f"one {guard.pat()}\n")
    second.write_text("two clean\n")
    proc = run_hygiene(guard, "mask", str(first), "-", str(second), input=b"from stdin\n")
    assert proc.returncode == 0
    lines = proc.stdout.decode().splitlines()
    assert lines[0].startswith("one pat_AIC_…")
    assert lines[1:] == ["from stdin", "two clean"]


def test_missing_file_is_a_one_line_error(tmp_path: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "mask", str(tmp_path / "nope.log"))
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1
    assert "nope.log" in proc.stderr.decode()
    assert b"Traceback" not in proc.stderr


def test_a_folder_is_refused(tmp_path: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "mask", str(tmp_path))
    assert proc.returncode == 2
    assert b"directory" in proc.stderr


def _read_line(fd: int, deadline: float) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, "no line came back before EOF: the pipe is not flushed per line"
        chunk = os.read(fd, 4096)
        assert chunk, "hygiene mask exited early"
        data += chunk
    return data


def test_each_line_comes_back_before_eof_like_tail_f(guard: SecretGuard) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "mask"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    outputs: list[bytes] = []
    try:
        for _ in range(3):
            pat = guard.pat()
            proc.stdin.write(f"GET /x?token={pat} 200\n".encode())
            proc.stdin.flush()
            line = _read_line(proc.stdout.fileno(), time.monotonic() + SAFETY_TIMEOUT)
            outputs.append(line)
            assert line.startswith(b"GET /x?token=pat_AIC_\xe2\x80\xa6")
            assert line.endswith(b" 200\n")
    finally:
        proc.stdin.close()
        proc.wait(timeout=SAFETY_TIMEOUT)
        outputs.append(proc.stdout.read())
        outputs.append(proc.stderr.read())
        proc.stdout.close()
        proc.stderr.close()
    guard.capture(*outputs)
    assert proc.returncode == 0


def test_reader_going_away_is_not_an_error(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(b"clean line of a log\n" * 400_000)
    shell = f"{sys.executable} -m hygiene mask {big} | head -n 1"
    proc = subprocess.run(["sh", "-c", shell], capture_output=True, timeout=60, check=False)
    assert proc.stdout == b"clean line of a log\n"
    assert b"Error" not in proc.stderr
    assert b"Traceback" not in proc.stderr
