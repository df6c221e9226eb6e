"""Files as a source: paths on disk (walked), ``git ls-files``, streams read once.

A :class:`FileTarget` names one file to scan: the path shown to the user and the path opened.
Walking follows the rules users know from ripgrep: ``.git/`` is skipped, symlinked folders are
not entered (so a symlink loop cannot hang the walk), only regular files are read.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from hygiene.errors import InputError, UsageError
from hygiene.gitcmd import git_output


@dataclass(frozen=True)
class FileTarget:
    """One file to scan: ``display`` is what reports show, ``fspath`` what is opened.

    ``stream``: a pipe, FIFO (``<(cmd)``, ``/dev/fd/N``) or character device, whose bytes
    can be read once only: opened once, read to its end, never reopened or split."""

    display: str
    fspath: str
    size: int
    stream: bool = False
    fifo: bool = False


class Excluder:
    """``--exclude GLOB`` rules, matched gitignore-style on the relative path and the basename.

    ``*`` also crosses ``/`` (as in ``fnmatch``); a glob naming a folder (``vendor``,
    ``build/``) excludes everything below it.
    """

    def __init__(self, globs: Sequence[str]) -> None:
        self.globs = tuple(g.rstrip("/") for g in globs if g.strip("/"))

    def excludes(self, rel: str) -> bool:
        if not self.globs:
            return False
        rel = rel.replace(os.sep, "/").removeprefix("./")
        base = rel.rsplit("/", 1)[-1]
        for glob in self.globs:
            glob = glob.removeprefix("./").removeprefix("/")
            if fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(base, glob):
                return True
            if rel.startswith(glob + "/"):
                return True
        return False


def _display(root: str, rel: str) -> str:
    return rel if root == "." else os.path.join(root, rel)


def walk(root: str, excluder: Excluder, errors: list[str]) -> Iterator[FileTarget]:
    """Regular files under folder ``root``, sorted, ``.git`` and excluded paths skipped."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            errors.append(f"{_display(root, rel_dir)}: cannot read folder: {exc.strerror}")
            continue
        subdirs: list[str] = []
        prefix = rel_dir + os.sep if rel_dir else ""
        for entry in entries:
            rel = prefix + entry.name
            if excluder.excludes(rel):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git":
                        subdirs.append(rel)
                    continue
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue  # a dangling symlink: nothing to read
            if stat.S_ISREG(st.st_mode):
                # entry.path is root joined with rel, as _display would build it.
                yield FileTarget(rel if root == "." else entry.path, entry.path, st.st_size)
        stack.extend(reversed(subdirs))


def collect_paths(paths: Sequence[str], excluder: Excluder, errors: list[str]) -> list[FileTarget]:
    """The files named by ``paths`` (files as given, folders walked); a missing path is a
    usage error (exit 2) before anything is scanned."""
    targets: list[FileTarget] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as exc:
            if os.path.islink(path):
                continue  # a dangling symlink (pre-commit passes those): nothing to read
            raise InputError(f"{path}: {exc.strerror or 'cannot access'}") from None
        if stat.S_ISDIR(st.st_mode):
            targets.extend(walk(path, excluder, errors))
        elif not excluder.excludes(path):
            # A path named on the command line is read whatever it is: a pipe or FIFO
            # (process substitution), a character device, a regular file.
            fifo = stat.S_ISFIFO(st.st_mode)
            stream = fifo or stat.S_ISCHR(st.st_mode) or stat.S_ISSOCK(st.st_mode)
            targets.append(FileTarget(path, path, st.st_size, stream, fifo))
    return targets


def tracked_files(excluder: Excluder) -> list[FileTarget]:
    """``--all-files``: what ``git ls-files`` lists (files deleted from the work tree skipped)."""
    out = git_output(
        ["ls-files", "-z", "--cached"], "{all_files} needs a git repository", options=("all_files",)
    )
    targets = []
    for raw in out.split(b"\0"):
        path = os.fsdecode(raw)
        if not path or excluder.excludes(path):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            targets.append(FileTarget(path, path, st.st_size))
    return targets


# How long opening a FIFO may block before the user is told why the scan waits.
FIFO_NOTICE_SECONDS = 0.2
Notice = Callable[[str], None]


def _open_raw(target: FileTarget, on_wait: Notice | None) -> BinaryIO:
    """Open ``target`` once. Opening a FIFO blocks until a writer opens it; past
    FIFO_NOTICE_SECONDS, ``on_wait`` hears that the scan is waiting (and for what)."""
    if not (target.fifo and on_wait):
        return open(target.fspath, "rb", buffering=0)
    import threading  # here: only a FIFO needs a timer, and the import costs every scan

    note = f"{target.display}: waiting for a writer on FIFO (open it for writing, or Ctrl-C)"
    timer = threading.Timer(FIFO_NOTICE_SECONDS, on_wait, args=(note,))
    timer.daemon = True
    timer.start()
    try:
        return open(target.fspath, "rb", buffering=0)
    finally:
        timer.cancel()


@contextmanager
def open_target(target: FileTarget, on_wait: Notice | None = None) -> Iterator[BinaryIO]:
    """The file's bytes as they are (the decoders recognise compression by its magic bytes),
    opened once (a stream cannot be opened twice); OSError propagates to the caller."""
    with _open_raw(target, on_wait) as raw:
        yield raw


def check_usage(paths: Sequence[str], staged: bool, all_files: bool, history: bool) -> None:
    """The sources exclude each other and paths (errors name the fields, see HygieneError)."""
    options = (("staged", staged), ("all_files", all_files), ("history", history))
    chosen = [name for name, on in options if on]
    if len(chosen) > 1:
        message = " and ".join("{" + name + "}" for name in chosen) + " cannot be combined"
        raise UsageError(message, options=chosen)
    if chosen and paths:
        raise UsageError(
            f"{{{chosen[0]}}} takes no {{paths}} arguments", options=(chosen[0], "paths")
        )
