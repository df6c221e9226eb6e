"""Streams named as paths are read once: pipes, FIFOs, process substitution, devices."""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.runner import scan_targets
from tests.helpers import SecretGuard, run_hygiene

HYGIENE = shlex.join([sys.executable, "-m", "hygiene"])
# FIFOs, /dev/fd and bash's process substitution are POSIX things.
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX streams")


def test_process_substitution_is_read_once(guard: SecretGuard, tmp_path: Path) -> None:
    pat = guard.pat()
    script = f'{HYGIENE} scan <(printf "a\\nk = %s\\n" "$TOKEN")'
    proc = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env={**os.environ, "TOKEN": pat},
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1, proc.stderr
    where, _, rest = proc.stdout.decode().partition(": ")
    assert where.startswith("/dev/fd/")
    assert where.endswith(":2:5")
    assert rest.startswith("aic-pat ")


def test_a_dev_fd_path_of_a_pipe(guard: SecretGuard) -> None:
    pat = guard.pat()
    read_end, write_end = os.pipe()
    data = f"{'x' * 100}\n{pat}\n".encode()
    os.write(write_end, data)
    os.close(write_end)
    proc = subprocess.run(
        [sys.executable, "-m", "hygiene", "scan", "--format", "json", f"/dev/fd/{read_end}"],
        capture_output=True,
        pass_fds=(read_end,),
        timeout=60,
        check=False,
    )
    os.close(read_end)
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1, proc.stderr
    assert b'"line": 2' in proc.stdout
    assert f"{len(data)} bytes".encode() in proc.stderr  # every byte, read once


def _start_on_fifo(fifo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "hygiene", "scan", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _stderr_line(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> bytes:
    assert proc.stderr is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stderr, selectors.EVENT_READ)
        assert sel.select(timeout), "no word on stderr"
    return proc.stderr.readline()


def test_fifo_waits_for_its_writer_with_a_word(guard: SecretGuard, tmp_path: Path) -> None:
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    pat = guard.pat()
    proc = _start_on_fifo(fifo)
    try:
        note = _stderr_line(proc)
        assert b"waiting for a writer on FIFO" in note
        assert str(fifo).encode() in note
        with open(fifo, "w") as writer:
            writer.write(f"token={pat}\n")
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    guard.capture(out, err)
    assert proc.returncode == 1, err
    assert out.decode().startswith(f"{fifo}:1:7: aic-pat ")


def test_fifo_without_writer_never_ends_silently(tmp_path: Path) -> None:
    fifo = tmp_path / "nobody"
    os.mkfifo(fifo)
    proc = _start_on_fifo(fifo)
    try:
        assert b"waiting for a writer" in _stderr_line(proc)
        assert proc.poll() is None  # still waiting: no "0 findings, exit 0"
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode != 0


def test_character_device_is_a_stream(guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "scan", "/dev/null")
    assert proc.returncode == 0, proc.stderr
    assert "0 findings in 1 file, 0 bytes" in proc.stderr.decode()


def test_streams_stay_in_process_when_files_go_to_workers(
    guard: SecretGuard, tmp_path: Path
) -> None:
    pat, other = guard.pat(), guard.pat()
    big = tmp_path / "big.log"
    big.write_bytes(b"quiet line\n" * 50_000 + f"k={other}\n".encode())
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(f"{pat}\n".encode())

    writer = threading.Thread(target=write)
    writer.start()
    targets = [
        FileTarget("big.log", str(big), big.stat().st_size),
        FileTarget("fifo", str(fifo), 0, stream=True, fifo=True),
    ]
    result = scan_targets(targets, ScanContext(jobs=2, keep_secrets=False), parallel_threshold=0)
    writer.join(timeout=30)
    assert sorted(f.path for f in result.findings) == ["big.log", "fifo"]
    assert result.files == 2
