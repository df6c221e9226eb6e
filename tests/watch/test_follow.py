"""Following real files as tail -F does: end or start, rotation, truncation, late files."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hygiene.watch.follow import FileFollower, Piece, StreamFollower


def _text(pieces: list[Piece]) -> list[tuple[bytes, bool]]:
    return [(p.data, p.ended) for p in pieces if p.data or p.ended]


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def test_starts_at_the_end_and_hands_out_what_is_appended(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"old line\n")
    follower = FileFollower(str(log))
    assert [p.first_line for p in follower.poll()] == [2]  # reports name the file's lines
    assert _text(follower.poll()) == []
    _append(log, b"new\n")
    assert _text(follower.poll()) == [(b"new\n", False)]


def test_from_start_reads_what_is_there(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"old line\n")
    follower = FileFollower(str(log), from_start=True)
    follower.poll()
    assert _text(follower.poll()) == [(b"old line\n", False)]


def test_rename_rotation_finishes_the_old_file_then_reads_the_new(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"")
    follower = FileFollower(str(log))
    follower.poll()
    _append(log, b"last of old\n")
    os.rename(log, tmp_path / "app.log.1")
    log.write_bytes(b"first of new\n")
    assert _text(follower.poll()) == [(b"last of old\n", True), (b"first of new\n", False)]


def test_a_big_rest_of_a_rotated_file_is_read_whole_over_several_polls(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"")
    follower = FileFollower(str(log), max_read=10)
    follower.poll()
    _append(log, b"0123456789" * 3 + b"tail\n")
    os.rename(log, tmp_path / "app.log.1")
    log.write_bytes(b"new\n")
    seen: list[tuple[bytes, bool]] = []
    for _ in range(10):
        seen += _text(follower.poll())
    assert b"".join(d for d, _ in seen) == b"0123456789" * 3 + b"tail\nnew\n"
    assert [d for d, ended in seen if ended] == [b"tail\n"]


def test_copytruncate_starts_again_at_the_beginning(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"")
    follower = FileFollower(str(log))
    follower.poll()
    _append(log, b"before the copy\n")
    assert _text(follower.poll()) == [(b"before the copy\n", False)]
    with log.open("r+b") as f:
        f.truncate(0)
    _append(log, b"after\n")
    assert _text(follower.poll()) == [(b"", True), (b"after\n", False)]


def test_a_file_created_after_start_is_read_from_its_beginning(tmp_path: Path) -> None:
    log = tmp_path / "later.log"
    follower = FileFollower(str(log))
    assert follower.poll() == []
    assert follower.poll() == []
    log.write_bytes(b"hello\n")
    assert _text(follower.poll()) == [(b"hello\n", False)]


def test_a_stream_is_read_by_a_thread_until_it_ends() -> None:
    read_fd, write_fd = os.pipe()
    follower = StreamFollower(lambda n: os.read(read_fd, n))
    os.write(write_fd, b"line\n")
    os.close(write_fd)
    pieces: list[Piece] = []
    deadline = time.monotonic() + 120  # a guard against a hang, not a verdict
    while not follower.ended and time.monotonic() < deadline:
        pieces += follower.poll()
        time.sleep(0.01)
    os.close(read_fd)
    assert _text(pieces) == [(b"line\n", False), (b"", True)]
