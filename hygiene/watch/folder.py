"""Following a folder: every regular file under it, recursively, new files included.

The folder is listed again at each :meth:`Folder.discover` (the watcher asks once a second):
polling, like the files themselves, so it works on every filesystem and never misses a file
an event queue would drop. The listing never follows a symbolic link (to a file or a folder),
takes regular files only, and stops at :data:`MAX_FILES` (said once). Each file found is
followed by a :class:`~hygiene.watch.follow.FileFollower`, with its open rules: a file present
at the first listing starts at its end (``from_start``: its beginning), one that appears later
is read from its beginning, and a file a run with the same ``--state`` followed resumes where
that run stopped.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hygiene.watch.follow import FileFollower
from hygiene.watch.seen import Position

MAX_FILES = 10_000
LISTED = 4  # times MAX_FILES: the entries a listing looks at, at most


def _quiet(_message: str) -> None:
    """No notices."""


@dataclass
class Folder:
    """One followed folder: hands out a follower for each file not seen in it before."""

    root: str
    from_start: bool = False
    # A run with the same state followed this folder: a file it did not know appeared while
    # the watcher was down, and is read whole.
    known: bool = False
    resume: Callable[[str], Position | None] = field(default=lambda _path: None, repr=False)
    on_refused: Callable[[str, str], None] | None = field(default=None, repr=False)
    notice: Callable[[str], None] = field(default=_quiet, repr=False)
    max_files: int = MAX_FILES
    _followed: dict[str, FileFollower] = field(default_factory=dict, repr=False)
    _listed: bool = False
    _full: bool = False
    gone: list[FileFollower] = field(default_factory=list)

    def discover(self) -> list[tuple[str, FileFollower]]:
        """(path, follower) for each regular file under the folder not followed yet; the files
        followed but no longer listed (deleted) are left in :attr:`gone`."""
        # A listing is bounded too (memory, and time each second): past it, nothing is
        # taken as deleted, since the rest was not looked at.
        listed = list(itertools.islice(self._files(), LISTED * self.max_files))
        present = set(listed) if len(listed) < LISTED * self.max_files else set(self._followed)
        # Deleted files stop counting against the bound (rotation with dated names).
        self.gone = [self._followed.pop(p) for p in sorted(set(self._followed) - present)]
        found: list[tuple[str, FileFollower]] = []
        for path in listed:
            if path in self._followed:
                continue
            if len(self._followed) >= self.max_files:
                self._said_full()
                break
            follower = self._follower(path)
            self._followed[path] = follower
            found.append((path, follower))
        self._listed = True
        return found

    def _follower(self, path: str) -> FileFollower:
        resume = self.resume(path)
        from_start = self._listed or self.known or self.from_start
        return FileFollower(
            path, from_start=from_start, resume=resume, on_refused=self.on_refused, links=False
        )

    def _said_full(self) -> None:
        if not self._full:
            self._full = True
            self.notice(
                f"{self.root}: more than {self.max_files} files; the others are not followed"
            )

    def _files(self) -> Iterator[str]:
        """Regular files under the folder, depth first; unreadable folders are passed over."""
        pending = [self.root]
        while pending:
            folder = pending.pop()
            for name, mode in _listing(folder, nofollow=folder != self.root):
                path = os.path.join(folder, name)
                if stat.S_ISDIR(mode):
                    pending.append(path)
                elif stat.S_ISREG(mode):
                    yield path


def _listing(folder: str, *, nofollow: bool) -> list[tuple[str, int]]:
    """(name, mode) of each entry of ``folder``, links not followed, sorted. A subfolder is
    opened with ``O_NOFOLLOW``: one swapped for a link since it was listed is not entered."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder, flags | (os.O_NOFOLLOW if nofollow else 0))
    except OSError:
        return []
    listed = []
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    listed.append((entry.name, entry.stat(follow_symlinks=False).st_mode))
                except OSError:
                    continue
    except OSError:
        return []
    finally:
        os.close(fd)
    return sorted(listed)


def is_folder(path: str) -> bool:
    """Whether ``path`` names a folder (a link to one, named by the user, counts)."""
    return os.path.isdir(path)


__all__ = ["MAX_FILES", "Folder", "is_folder"]
