"""Files as a source: paths on disk (walked), streams read once (``--all-files``: tracked.py).

A :class:`FileTarget` names one file to scan: the path shown to the user and the path opened.
Walking follows the rules users know from ripgrep and gitleaks: ``.git/`` is skipped, and no
symlink met inside the tree is followed, to a file or to a folder (so nothing outside the tree
is read through one, and a symlink loop cannot hang the walk); only regular files are read.
``--all-files`` reads only what git tracks as a regular file at a path free of symlinks (a
tracked symlink is skipped, as gitleaks' and trufflehog's file-system scans skip them; the
index and history scans read what git stores for it, the link text). A path named on the
command line is followed, but what a symlink on it leads to is read only when it is a regular
file or a folder: never a device, FIFO or socket, never a file of ``/proc`` or ``/sys``.
Every file is opened without blocking and checked on its descriptor to be the very file the
walk saw (:func:`open_file`), so a file swapped for a symlink or a FIFO mid-scan is not read.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from hygiene.errors import InputError, UsageError
from hygiene.safefile import Refused, is_descriptor_path, is_pseudo, kind_of, open_checked
from hygiene.scan.scancontext import Notice


@dataclass(frozen=True)
class FileTarget:
    """One file to scan: ``display`` is what reports show, ``fspath`` what is opened.

    ``stream``: a pipe, FIFO (``<(cmd)``, ``/dev/fd/N``) or character device, whose bytes
    can be read once only: opened once, read to its end, never reopened or split.
    ``identity``: the ``(st_dev, st_ino)`` the file had when it was listed; opening checks it
    (:func:`open_file`). ``nofollow``: the path's last part must not be a symlink when opened
    (files found by a walk or listed by git)."""

    display: str
    fspath: str
    size: int
    stream: bool = False
    fifo: bool = False
    identity: tuple[int, int] | None = None
    nofollow: bool = False


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


def walk(root: str, excluder: Excluder) -> Iterator[FileTarget | str]:
    """Regular files under folder ``root``, sorted, ``.git`` and excluded paths skipped; a
    folder that cannot be read is a line (a ``str``) among them, for the scan's errors."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield f"{_display(root, rel_dir)}: cannot read folder: {exc.strerror}"
            continue
        subdirs: list[str] = []
        prefix = rel_dir + os.sep if rel_dir else ""
        for entry in entries:
            rel = prefix + entry.name
            if excluder.excludes(rel):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):  # the folder's listing says: no stat
                    if entry.name != ".git":
                        subdirs.append(rel)
                    continue
                # Never followed: a symlink to a file outside the tree (or to /proc/self/environ)
                # would hand its bytes to the scan, one to a file inside is scanned under its
                # own name anyway.
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the folder was listed
            if stat.S_ISREG(st.st_mode):
                # entry.path is root joined with rel, as _display would build it.
                display = rel if root == "." else entry.path
                yield FileTarget(
                    display, entry.path, st.st_size, identity=identity_of(st), nofollow=True
                )
        stack.extend(reversed(subdirs))


def collect_paths(paths: Sequence[str], excluder: Excluder) -> tuple[list[FileTarget], list[str]]:
    """The files named by ``paths`` (files as given, folders walked), and the error lines of
    what is not read; a missing path is a usage error (exit 2) before anything is scanned.
    A path whose symlink leads to anything but a regular file or a folder outside ``/proc``
    and ``/sys`` is not read: one error line says so."""
    targets: list[FileTarget] = []
    errors: list[str] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as exc:
            if os.path.islink(path):
                continue  # a dangling symlink (pre-commit passes those): nothing to read
            raise InputError(f"{path}: {exc.strerror or 'cannot access'}") from None
        refused = _refused(path, st)
        if refused:
            errors.append(f"{path}: {refused}")
        elif stat.S_ISDIR(st.st_mode):
            for found in walk(path, excluder):
                if isinstance(found, str):
                    errors.append(found)
                else:
                    targets.append(found)
        elif not excluder.excludes(path):
            # A path named on the command line is read whatever it is: a pipe or FIFO
            # (process substitution), a character device, a regular file.
            fifo = stat.S_ISFIFO(st.st_mode)
            stream = fifo or stat.S_ISCHR(st.st_mode) or stat.S_ISSOCK(st.st_mode)
            identity = None if stream or is_pseudo(st) else identity_of(st)
            targets.append(FileTarget(path, path, st.st_size, stream, fifo, identity))
    return targets, errors


_PSEUDO_PREFIXES = ("/proc/", "/sys/")


def _refused(path: str, st: os.stat_result) -> str | None:
    """Why the explicit ``path`` (whose target has ``st``) is not read; None: it is read."""
    plain = stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)
    if plain and not is_pseudo(st):
        return None
    if is_descriptor_path(path):
        return None  # `<(cmd)`, /dev/stdin: the user's shell opened it
    if is_pseudo(st) and os.path.abspath(path).startswith(_PSEUDO_PREFIXES):
        return None  # `hygiene scan /proc/self/environ` means it (/proc/self is a link)
    if not _through_link(path):
        return None  # named as it is: `hygiene scan /dev/zero` means it
    what = "a file of /proc or /sys" if is_pseudo(st) else kind_of(st.st_mode)
    return f"a symlink to {what}, not followed"


def _through_link(path: str) -> bool:
    """Whether any part of ``path``, as written, is a symlink."""
    current = os.sep if os.path.isabs(path) else ""
    for part in path.split(os.sep):
        if part in ("", "."):
            continue
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:
            return True  # vanished under us: treat it as the worst case
    return False


def identity_of(st: os.stat_result) -> tuple[int, int]:
    """The ``(st_dev, st_ino)`` a listed file is checked against when opened."""
    return (st.st_dev, st.st_ino)


def open_file(target: FileTarget) -> BinaryIO:
    """Open the regular file ``target`` names, never blocking, and check on the descriptor
    that it is still the file that was listed: a regular file, the same inode (so a file or a
    folder swapped for a symlink, a FIFO or a device since is not read). OSError otherwise."""
    try:
        checked = open_checked(
            target.fspath,
            cap=None,
            follow=not target.nofollow,
            # A file of /proc named on the command line is read (the walk never meets one).
            pseudo=True,
            identity=target.identity,
        )
    except Refused as exc:
        raise OSError(exc.errno, _CHANGED) from None
    return os.fdopen(checked.fd, "rb", buffering=0)


_CHANGED = "changed since it was listed (now a symlink, a special or another file); not read"


# How long opening a FIFO may block before the user is told why the scan waits.
FIFO_NOTICE_SECONDS = 0.2


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
