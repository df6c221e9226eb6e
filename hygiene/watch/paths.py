"""What a followed path may be opened as: a regular file, never through a symbolic link swapped
in, never a device, a FIFO, or a file of ``/proc`` or ``/sys``.

A path that is a symbolic link when the watch starts is followed, since the user named it, but
only to the regular file it points at then (its inode is pinned): pointed elsewhere later, it
is not followed. Any other path is opened with ``O_NOFOLLOW``: a link swapped in for it (to a
file holding the watcher's own token, to ``/proc/self/environ``, to ``/dev/zero``) is refused,
and the path is followed again only once it is a regular file again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from hygiene import safefile
from hygiene.safefile import Identity

LINK = "is a symbolic link (not followed)"
RETARGETED = "is a symbolic link pointing elsewhere than at start (not followed)"
NOT_REGULAR = "is not a regular file (not followed)"
PSEUDO = "is a file of /proc or /sys (not followed)"
# What each refusal of safefile.open_checked is, in the words of a followed path.
_REASONS = {
    safefile.LINK: LINK,
    safefile.CHANGED: RETARGETED,
    safefile.NOT_REGULAR: NOT_REGULAR,
    safefile.PSEUDO: PSEUDO,
}


@dataclass(frozen=True)
class Opened:
    """A followed file, open: its descriptor, identity and size."""

    fd: int
    identity: Identity
    size: int
    mtime: int


def current(path: str) -> Identity | None:
    """The identity of what ``path`` names itself (a link's own, not its target's)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def target(path: str) -> Identity | None:
    """The identity of the file a link at ``path`` points at."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def is_link(path: str) -> bool:
    return os.path.islink(path)


def open_followed(path: str, linked: bool, pinned: Identity | None) -> Opened | str | None:
    """Open ``path`` for reading: an :class:`Opened`, a reason it is refused, or None if it is
    not there. ``linked``: the path was a symbolic link at start, which may be followed to
    ``pinned`` only (to any regular file while nothing is pinned yet)."""
    try:
        try:
            checked = safefile.open_checked(path, cap=None)
        except safefile.Refused as exc:
            if exc.reason != safefile.LINK or not linked:
                raise
            checked = safefile.open_checked(path, cap=None, follow=True, identity=pinned)
    except safefile.Refused as exc:
        return _REASONS[exc.reason]
    except OSError:
        return None  # gone (or unreadable) for now: looked for again on the next poll
    info = checked.info
    return Opened(checked.fd, (info.st_dev, info.st_ino), info.st_size, info.st_mtime_ns)


def identity_now(path: str, linked: bool) -> Identity | None:
    """What ``path`` names now: a link's target if links at ``path`` are followed, else the
    link itself (which is never the file being read, so a swap reads as a replacement)."""
    if linked and is_link(path):
        return target(path)
    return current(path)


def count_newlines(fd: int, stop: int, block: int = 1 << 20) -> int:
    """The newlines in the first ``stop`` bytes of the open file (bounded memory)."""
    newlines, start = 0, 0
    while start < stop:
        piece = os.pread(fd, min(block, stop - start), start)
        if not piece:
            break
        newlines += piece.count(b"\n")
        start += len(piece)
    return newlines


__all__ = [
    "LINK",
    "NOT_REGULAR",
    "PSEUDO",
    "RETARGETED",
    "Identity",
    "Opened",
    "count_newlines",
    "current",
    "identity_now",
    "is_link",
    "open_followed",
    "target",
]
