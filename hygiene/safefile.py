"""Reading a file the user names as an input (a report, a baseline, a list of token ids, a
state file) without letting what sits at that path hang or exhaust the command.

Whatever the path leads to is checked on the open descriptor, not on the name (a file swapped
between a check and the open changes nothing): it must be a regular file, not a pseudo-file of
``/proc`` or ``/sys`` (whose size says nothing and whose reads may never end or fail), and it is
read with its size cap enforced while reading, not only by what ``fstat`` says. The open never
blocks: ``O_NONBLOCK`` makes a FIFO with no writer open at once, and it is then refused.

:func:`open_checked` is the one way the toolkit opens a regular file it did not make: these
inputs, the watcher's state file (read and appended) and the logs it follows, and the files a
scan walks. They differ only in flags (append, create), in whether a symbolic link at the path
is followed, in a cap or none, and in how they read the descriptor it returns.

Also the shared facts the scanner's sources judge paths by: what kind of file a mode is
(:func:`kind_of`), and whether a file lives on a pseudo-file system (:func:`is_pseudo`).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from collections.abc import Callable
from typing import NamedTuple

from hygiene.errors import InputError

# Reports, baselines, id lists and state files are read whole and parsed as JSON or lines.
# A scan report of 256 MiB holds about a million findings, far past any real incident, and
# parsing it stays within a few GiB; anything larger is refused before it is read.
INPUT_CAP = 256 << 20
_BLOCK = 1 << 20
_PSEUDO_ROOTS = ("/proc", "/sys")

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, for messages: ``a FIFO``, ``a regular file`` ..."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


@functools.cache
def _pseudo_devices() -> frozenset[int]:
    devices = set()
    for root in _PSEUDO_ROOTS:
        try:
            st = os.stat(root)
        except OSError:
            continue  # no /proc (macOS): nothing of it to guard against
        # Only a mount point of its own is a pseudo-file system; a plain folder is not.
        try:
            parent = os.stat(os.path.dirname(root))
        except OSError:
            continue
        if st.st_dev != parent.st_dev:
            devices.add(st.st_dev)
    return frozenset(devices)


def is_pseudo(st: os.stat_result) -> bool:
    """Whether ``st`` is a file of ``/proc`` or ``/sys`` (process memory, environments, kernel
    state): never data a user keeps, and read through a link only by mistake or by attack."""
    return st.st_dev in _pseudo_devices()


# How shells hand a pipe over as a path (`<(cmd)` is /dev/fd/63): the process's own open
# descriptors, whatever they are, are the user's to name (they pass through /proc's links).
_DESCRIPTOR = re.compile(r"/dev/(fd/\d+|std(in|out|err))|/proc/(self|thread-self|\d+)/fd/\d+")


def is_descriptor_path(path: str) -> bool:
    """Whether ``path`` names one of this process's open descriptors (``/dev/stdin``,
    ``/dev/fd/N``, ``/proc/self/fd/N``): what it leads to was opened by the user's shell."""
    found = _DESCRIPTOR.fullmatch(path)
    return found is not None and found.group(3) in (None, "self", "thread-self", str(os.getpid()))


def _shown(path: str) -> str:
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# Why open_checked refused a path (Refused.reason).
LINK = "link"
CHANGED = "changed"
NOT_REGULAR = "not-regular"
PSEUDO = "pseudo"
TOO_LARGE = "too-large"
Identity = tuple[int, int]


class Refused(OSError):
    """:func:`open_checked` did not open what is at the path: ``reason`` is :data:`LINK`,
    :data:`CHANGED`, :data:`NOT_REGULAR`, :data:`PSEUDO` or :data:`TOO_LARGE`, ``strerror``
    says it in words (``not a regular file (a FIFO)``). An OSError, so that callers that skip an
    unreadable file skip this one too."""

    def __init__(self, reason: str, words: str, code: int) -> None:
        super().__init__(code, words)
        self.reason = reason


class Checked(NamedTuple):
    """A regular file opened by :func:`open_checked`: its descriptor (the caller's to close) and
    what ``fstat`` said of it."""

    fd: int
    info: os.stat_result


def open_checked(
    path: str | os.PathLike[str],
    flags: int = os.O_RDONLY,
    cap: int | None = INPUT_CAP,
    *,
    follow: bool = False,
    pseudo: bool = False,
    identity: Identity | None = None,
    mode: int = 0o600,
) -> Checked:
    """Open ``path`` with ``flags`` (``O_APPEND | O_CREAT`` and the like; ``mode`` for a file
    created) only if what it leads to is a regular file; :class:`Refused` otherwise.

    Never blocking (``O_NONBLOCK``: a FIFO with no writer opens at once, and is refused), never
    through a symbolic link at ``path`` unless ``follow``, never a file of ``/proc`` or ``/sys``
    unless ``pseudo``, never one that is not ``identity`` (``(st_dev, st_ino)``: the file as it
    was listed) when one is given, never one past ``cap`` bytes (None: any size; a reader whose
    file may grow checks the cap again as it reads). All judged on the open descriptor, so a file
    swapped between a look and the open is what is judged. The open's own OSError (a missing
    file, a permission) propagates as it is.
    """
    extra = os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        extra |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        # O_NOFOLLOW meeting a link: ELOOP (EMLINK on FreeBSD).
        if not follow and exc.errno in (errno.ELOOP, errno.EMLINK):
            raise Refused(LINK, "a symbolic link, not followed", exc.errno) from None
        raise
    try:
        info = os.fstat(fd)
        _judge(info, cap, pseudo, identity)
    except BaseException:
        os.close(fd)
        raise
    return Checked(fd, info)


def _judge(info: os.stat_result, cap: int | None, pseudo: bool, identity: Identity | None) -> None:
    if identity is not None and (info.st_dev, info.st_ino) != identity:
        raise Refused(CHANGED, "not the file it was (replaced since)", errno.ESTALE)
    if not stat.S_ISREG(info.st_mode):
        words = f"not a regular file ({kind_of(info.st_mode)})"
        raise Refused(NOT_REGULAR, words, errno.EINVAL)
    if not pseudo and is_pseudo(info):
        raise Refused(PSEUDO, "a pseudo-file of /proc or /sys, not read", errno.EINVAL)
    if cap is not None and info.st_size > cap:
        raise Refused(TOO_LARGE, _too_large(cap), errno.EFBIG)


def _too_large(cap: int) -> str:
    return f"larger than {cap >> 20} MiB, not read"


def read_input(path: str, role: str, cap: int = INPUT_CAP, *, follow: bool = True) -> bytes:
    """The bytes of the regular file at ``path``, at most ``cap`` of them.

    ``role`` names the file in every error (``report``, ``baseline``, ``token id list``);
    ``follow``: whether a symlink at ``path`` itself is followed (what it leads to is checked
    either way). Raises :class:`InputError` (exit 2) for anything else: a missing file, a
    directory, a FIFO, a device, a socket, a pseudo-file, a file over ``cap``.
    """
    shown = f"{role} {_shown(path)}"
    try:
        fd = open_checked(path, cap=cap, follow=follow).fd
    except OSError as exc:
        raise InputError(f"{shown}: {exc.strerror or exc}") from None
    try:
        return _read_capped(functools.partial(os.read, fd), shown, cap)
    finally:
        os.close(fd)


def _read_capped(read: Callable[[int], bytes], shown: str, cap: int) -> bytes:
    """Read to the end, refusing the file once it passes ``cap`` (it may grow after fstat)."""
    pieces: list[bytes] = []
    total = 0
    while True:
        try:
            piece = read(min(_BLOCK, cap + 1 - total))
        except OSError as exc:
            raise InputError(f"{shown}: {exc.strerror or exc}") from None
        if not piece:
            return b"".join(pieces)
        total += len(piece)
        if total > cap:
            raise InputError(f"{shown}: {_too_large(cap)}")
        pieces.append(piece)


def read_input_text(path: str, role: str, cap: int = INPUT_CAP, *, follow: bool = True) -> str:
    """:func:`read_input`, decoded as UTF-8 (an undecodable file is an :class:`InputError`)."""
    data = read_input(path, role, cap, follow=follow)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{role} {_shown(path)}: not UTF-8 text ({exc.reason})") from None


__all__ = [
    "CHANGED",
    "INPUT_CAP",
    "LINK",
    "NOT_REGULAR",
    "PSEUDO",
    "TOO_LARGE",
    "Checked",
    "Identity",
    "Refused",
    "is_descriptor_path",
    "is_pseudo",
    "kind_of",
    "open_checked",
    "read_input",
    "read_input_text",
]
