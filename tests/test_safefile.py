"""``safefile.open_checked``: the one opener of a regular file the toolkit did not make.

Its users (input files, the watch state read and appended, followed logs, walked files, the
SQLite inventory's stamp) differ only in flags, link following, cap and identity; every refusal
is judged on the open descriptor, never blocks, and leaves no descriptor open.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hygiene import safefile
from hygiene.safefile import Checked, Refused, open_checked
from tests.helpers import REPO_ROOT

READ = os.O_RDONLY
APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT
FLAGS = {"read": READ, "append": APPEND, "read-write": os.O_RDWR}
# A refusal must come at once: a FIFO with no writer, /dev/zero, a growing file never hold it.
SAFETY_TIMEOUT = 60.0


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_fd_leak() -> Iterator[None]:
    before = _fds()
    yield
    assert _fds() == before  # (the listing's own descriptor is in both)


def _opened(path: Path | str, flags: int = READ, **kwargs: object) -> Checked | BaseException:
    """open_checked in a thread, so that a regression that blocks fails instead of hanging."""
    out: list[Checked | BaseException] = []

    def run() -> None:
        try:
            out.append(open_checked(path, flags, **kwargs))  # type: ignore[arg-type]
        except BaseException as exc:  # handed to the test
            out.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(SAFETY_TIMEOUT)
    assert out, f"open_checked({path!s}) blocked"
    return out[0]


def _refusal(path: Path | str, flags: int = READ, **kwargs: object) -> Refused:
    got = _opened(path, flags, **kwargs)
    if isinstance(got, Checked):
        os.close(got.fd)
        raise AssertionError(f"{path!s} was opened")
    assert isinstance(got, Refused), repr(got)
    assert isinstance(got, OSError)  # callers that skip an unreadable file skip this one
    return got


def _special(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return str(tmp_path / "fifo")
    if kind == "folder":
        (tmp_path / "folder").mkdir()
        return str(tmp_path / "folder")
    if kind == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(tmp_path / "sock"))
        sock.close()
        return str(tmp_path / "sock")
    return {"dev-zero": "/dev/zero", "dev-null": "/dev/null"}[kind]


@pytest.mark.parametrize("kind", ["fifo", "folder", "dev-zero", "dev-null"])
@pytest.mark.parametrize("follow", [False, True])
def test_anything_but_a_regular_file_is_refused_without_blocking(
    kind: str, follow: bool, tmp_path: Path, no_fd_leak: None
) -> None:
    path = _special(kind, tmp_path)
    refused = _refusal(path, follow=follow)
    assert refused.reason == safefile.NOT_REGULAR
    assert str(refused.strerror).startswith("not a regular file (a ")


@pytest.mark.parametrize("kind", ["fifo", "folder", "dev-zero", "socket"])
@pytest.mark.parametrize("flags", ["append", "read-write"])
def test_a_special_file_is_never_opened_for_writing(
    kind: str, flags: str, tmp_path: Path, no_fd_leak: None
) -> None:
    """A FIFO with no reader, a folder, a socket: an OSError (refused, or the open's own)."""
    got = _opened(_special(kind, tmp_path), FLAGS[flags])
    if isinstance(got, Checked):
        os.close(got.fd)
        raise AssertionError("opened")
    assert isinstance(got, OSError), repr(got)


@pytest.mark.parametrize("target", ["fifo", "dev-zero", "folder", "proc-environ", "file"])
@pytest.mark.parametrize("flags", sorted(FLAGS))
def test_a_link_is_never_followed_unless_asked(
    target: str, flags: str, tmp_path: Path, no_fd_leak: None
) -> None:
    if target == "proc-environ":
        pointed = "/proc/self/environ"
    elif target == "file":
        (tmp_path / "file").write_text("data\n")
        pointed = str(tmp_path / "file")
    else:
        pointed = _special(target, tmp_path)
    (tmp_path / "link").symlink_to(pointed)
    refused = _refusal(tmp_path / "link", FLAGS[flags])
    assert refused.reason == safefile.LINK
    assert refused.strerror == "a symbolic link, not followed"
    if target == "file":
        assert (tmp_path / "file").read_text() == "data\n"  # not written through


def test_a_dangling_link_is_not_created_through(tmp_path: Path, no_fd_leak: None) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "created-through-the-link")
    assert _refusal(tmp_path / "link", APPEND).reason == safefile.LINK
    assert not (tmp_path / "created-through-the-link").exists()


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("/dev/zero", safefile.NOT_REGULAR),
        ("/proc/self/environ", safefile.PSEUDO),
        ("/proc/self/cmdline", safefile.PSEUDO),
        ("/sys/kernel/mm/transparent_hugepage/enabled", safefile.PSEUDO),
    ],
)
def test_a_followed_link_is_judged_by_what_it_leads_to(
    target: str, reason: str, tmp_path: Path, no_fd_leak: None
) -> None:
    if not os.path.exists(target):
        pytest.skip(f"no {target} here")
    (tmp_path / "link").symlink_to(target)
    assert _refusal(tmp_path / "link", follow=True).reason == reason


def test_a_pseudo_file_is_opened_only_when_allowed(no_fd_leak: None) -> None:
    assert _refusal("/proc/self/environ").reason == safefile.PSEUDO
    got = _opened("/proc/self/environ", pseudo=True)
    assert isinstance(got, Checked)
    os.close(got.fd)


@pytest.mark.parametrize("flags", ["read", "append"])
def test_the_cap_is_what_fstat_says_and_none_is_any_size(
    flags: str, tmp_path: Path, no_fd_leak: None
) -> None:
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate((1 << 20) + 1)  # sparse: costs no disk
    refused = _refusal(big, FLAGS[flags], cap=1 << 20)
    assert refused.reason == safefile.TOO_LARGE
    assert refused.strerror == "larger than 1 MiB, not read"
    exact = _opened(big, FLAGS[flags], cap=(1 << 20) + 1)
    unbounded = _opened(big, FLAGS[flags], cap=None)
    for got in (exact, unbounded):
        assert isinstance(got, Checked)
        assert got.info.st_size == (1 << 20) + 1
        os.close(got.fd)


def test_a_file_replaced_since_it_was_listed_is_refused(tmp_path: Path, no_fd_leak: None) -> None:
    listed = tmp_path / "a.log"
    listed.write_text("listed\n")
    seen = os.stat(listed)
    (tmp_path / "other").write_text("swapped in\n")
    os.replace(tmp_path / "other", listed)
    refused = _refusal(listed, identity=(seen.st_dev, seen.st_ino))
    assert refused.reason == safefile.CHANGED
    now = os.stat(listed)
    got = _opened(listed, identity=(now.st_dev, now.st_ino))
    assert isinstance(got, Checked)
    assert os.read(got.fd, 100) == b"swapped in\n"
    os.close(got.fd)


def test_a_created_file_is_the_owner_s_only(tmp_path: Path, no_fd_leak: None) -> None:
    got = _opened(tmp_path / "state", APPEND)
    assert isinstance(got, Checked)
    os.close(got.fd)
    assert stat.S_IMODE(os.stat(tmp_path / "state").st_mode) == 0o600
    assert got.info.st_size == 0


def test_the_open_s_own_error_is_the_os_error_it_is(tmp_path: Path, no_fd_leak: None) -> None:
    got = _opened(tmp_path / "missing")
    assert isinstance(got, FileNotFoundError), repr(got)
    assert not isinstance(got, Refused)


def test_the_descriptor_is_not_inherited(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    got = _opened(tmp_path / "f")
    assert isinstance(got, Checked)
    try:
        assert not os.get_inheritable(got.fd)
    finally:
        os.close(got.fd)


# Folders are opened by watch/folder.py (O_DIRECTORY | O_NOFOLLOW): the one other open of a
# path the toolkit did not make.
_OPENS_BY_FLAGS = re.compile(r"O_NONBLOCK|O_NOFOLLOW")
_ALLOWED = {"hygiene/safefile.py", "hygiene/watch/folder.py"}


def test_no_other_module_opens_a_path_its_own_way() -> None:
    """Every regular file is opened through open_checked: no module but it (and the folder
    opener) spells out the flags that make an open safe."""
    offenders = []
    for path in sorted((REPO_ROOT / "hygiene").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        code = "\n".join(
            line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
        )
        # Docstrings may name the flags; calls spell them os.O_...
        if rel not in _ALLOWED and re.search(r"os\.(" + _OPENS_BY_FLAGS.pattern + ")", code):
            offenders.append(rel)
    assert offenders == []
