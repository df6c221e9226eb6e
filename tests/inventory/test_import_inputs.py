"""What ``hygiene tokens import FILE`` reads: a regular file of bounded size or standard input
(``-``), never a FIFO that would hold it, a device, a folder or a file of /proc, also not when
a symbolic link leads there. Each refusal is one line, exit 2, and nothing is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene.inventory import open_inventory
from tests.helpers import SecretGuard, run_hygiene

# A safety limit against a hang, not a verdict on speed.
SAFETY_TIMEOUT = 120


def _exported(tmp_path: Path, guard: SecretGuard) -> bytes:
    source = tmp_path / "source.sqlite3"
    with open_inventory(source) as inventory:
        inventory.add("tok_1", guard.pat(), name="ci", scopes=[], expires_at=None)
    proc = run_hygiene(guard, "tokens", "export", env={"HYGIENE_INVENTORY": str(source)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _import(
    guard: SecretGuard, tmp_path: Path, source: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HYGIENE_INVENTORY": str(tmp_path / "dest.sqlite3")}
    proc = subprocess.run(
        [sys.executable, "-m", "hygiene", "tokens", "import", source],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=SAFETY_TIMEOUT,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


def _imported(tmp_path: Path) -> list[str]:
    dest = tmp_path / "dest.sqlite3"
    if not dest.exists():
        return []
    with open_inventory(dest, create=False) as inventory:
        return [e.token_id for e in inventory.entries()]


def test_a_regular_file_and_standard_input_are_imported(tmp_path: Path, guard: SecretGuard) -> None:
    lines = _exported(tmp_path, guard)
    (tmp_path / "dump.jsonl").write_bytes(lines)
    from_file = _import(guard, tmp_path, "dump.jsonl")
    assert from_file.returncode == 0, from_file.stderr
    assert _imported(tmp_path) == ["tok_1"]
    (tmp_path / "dest.sqlite3").unlink()
    piped = _import(guard, tmp_path, "-", stdin=lines)
    assert piped.returncode == 0, piped.stderr
    assert _imported(tmp_path) == ["tok_1"]


def _hostile(kind: str, tmp_path: Path) -> tuple[str, str]:
    """A path, and what the error line says of it."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")  # no writer: opening it to read would wait for ever
        return "fifo", "not a regular file (a FIFO)"
    if kind == "dev-zero":
        return "/dev/zero", "not a regular file (a character device)"
    if kind == "folder":
        (tmp_path / "folder").mkdir()
        return "folder", "not a regular file (a directory)"
    if kind == "link-to-environ":
        (tmp_path / "environ.jsonl").symlink_to("/proc/self/environ")
        return "environ.jsonl", "a pseudo-file of /proc or /sys, not read"
    if kind == "link-to-fifo":
        os.mkfifo(tmp_path / "fifo")
        (tmp_path / "dump.jsonl").symlink_to(tmp_path / "fifo")
        return "dump.jsonl", "not a regular file (a FIFO)"
    assert kind == "sparse"
    with (tmp_path / "huge.jsonl").open("wb") as f:
        f.truncate((256 << 20) + 1)  # costs no disk
    return "huge.jsonl", "larger than 256 MiB, not read"


@pytest.mark.parametrize(
    "kind", ["fifo", "dev-zero", "folder", "link-to-environ", "link-to-fifo", "sparse"]
)
def test_anything_but_a_bounded_regular_file_is_one_line(
    kind: str, tmp_path: Path, guard: SecretGuard
) -> None:
    path, why = _hostile(kind, tmp_path)
    proc = _import(guard, tmp_path, path)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.decode().splitlines()
    assert line == f"hygiene: error: import file {path}: {why}"
    assert _imported(tmp_path) == []
    assert not (tmp_path / "dest.sqlite3").exists()  # nothing half-made either


def test_a_closed_standard_input_is_one_line(tmp_path: Path, guard: SecretGuard) -> None:
    env = {**os.environ, "HYGIENE_INVENTORY": str(tmp_path / "dest.sqlite3")}
    # Descriptor 0 closed (`<&-`), as a daemon may start it.
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" -m hygiene tokens import - <&-', sys.executable],
        capture_output=True,
        env=env,
        timeout=SAFETY_TIMEOUT,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith("hygiene: error: standard input")
