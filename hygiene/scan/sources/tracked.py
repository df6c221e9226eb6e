"""``--all-files``: what git tracks, in the repository and in its checked-out submodules.

Only regular files at paths free of symlinks are read: a tracked symlink (or a file under a
folder that is now a symlink in the work tree) is skipped, never followed out of the
repository. A submodule (a gitlink in the index) is entered when its folder is a real folder
of the work tree (no symlink on the way) holding a ``.git`` folder or ``gitdir:`` file; its
files are shown as ``SUB/path``, recursively. ``.gitmodules`` is never read: the index says
where submodules are, and git refuses index paths that leave the work tree. Whatever
repository a submodule's ``.git`` names (it may be anywhere), only its list of names is
used: each file read is the one at ``SUB/path`` under the work tree, checked like any other.
Each repository is listed once (a ``gitdir:`` naming an enclosing repository is no loop), at
most :data:`MAX_DEPTH` deep. What was not entered is listed in ``skipped`` (``SUB (why)``).
"""

from __future__ import annotations

import os
import stat

from hygiene.errors import InputError
from hygiene.gitcmd import git_output
from hygiene.safefile import open_checked
from hygiene.scan.sources.files import Excluder, FileTarget, identity_of

MAX_DEPTH = 16
GITLINK = "160000"
# A `.git` file holds one `gitdir:` line; anything longer is not one.
_GITFILE_CAP = 4096
# What names the scanned repository's own parts in a hook's environment (git's
# `rev-parse --local-env-vars`): a submodule is listed from its own, as git's own
# submodule commands do. --git-dir and --work-tree cover GIT_DIR and GIT_WORK_TREE.
_LOCAL_ENV = (
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
    "GIT_PREFIX",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INTERNAL_SUPER_PREFIX",
)


def tracked_files(excluder: Excluder) -> tuple[list[FileTarget], list[str]]:
    """The files ``git ls-files`` lists here and in checked-out submodules (files deleted
    from the work tree skipped), and each submodule not entered, with why."""
    lister = _Lister(excluder)
    out = git_output(
        ["ls-files", "-z", "--stage"],
        "{all_files} needs a git repository",
        options=("all_files",),
    )
    lister.add(out, "", 0)
    return lister.targets, lister.skipped


class _Lister:
    def __init__(self, excluder: Excluder) -> None:
        self.excluder = excluder
        self.skipped: list[str] = []
        self.targets: list[FileTarget] = []
        self.folders: dict[str, bool] = {}
        self.seen: set[str] = set()
        self.own: str | None = None

    def add(self, listing: bytes, prefix: str, depth: int) -> None:
        """Add the files of one ``ls-files --stage`` listing of the repository at ``prefix``."""
        done: set[str] = set()
        for mode, path in _entries(listing):
            path = prefix + path
            if path in done or not _inside(path) or self.excluder.excludes(path):
                continue  # a conflicted path is listed once per stage
            done.add(path)
            if mode == GITLINK:
                self.submodule(path, depth + 1)
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and self.link_free(os.path.dirname(path)):
                self.targets.append(
                    FileTarget(path, path, st.st_size, identity=identity_of(st), nofollow=True)
                )

    def submodule(self, path: str, depth: int) -> None:
        """Enter the submodule at ``path`` or say in ``skipped`` why not."""
        why, gitdir = self.judge(path, depth)
        if gitdir is None:
            self.skipped.append(f"{path} ({why})")
            return
        try:
            listing = git_output(
                ["-C", path, f"--git-dir={gitdir}", "--work-tree=.", "ls-files", "-z", "--stage"],
                "git ls-files",
                unset=_LOCAL_ENV,
            )
        except InputError as exc:
            self.skipped.append(f"{path} (cannot be listed: {exc})")
            return
        self.add(listing, path + "/", depth)

    def judge(self, path: str, depth: int) -> tuple[str, str | None]:
        """(why not, None), or ("", the absolute git directory of the submodule at ``path``)."""
        if not self.link_free(os.path.dirname(path)):
            return "under a symlink, not followed", None
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return "not checked out", None
        if stat.S_ISLNK(mode):
            return "a symlink, not followed", None
        if not stat.S_ISDIR(mode):
            return "not checked out", None
        gitdir, why = _gitdir(path)
        if gitdir is None:
            return why, None
        real = os.path.realpath(gitdir)
        if self.own is None:
            self.own = os.path.realpath(_own_gitdir())
        if real in self.seen or real == self.own:
            return "its repository is listed already", None
        if depth > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} deep", None
        self.seen.add(real)
        return "", os.path.abspath(gitdir)

    def link_free(self, folder: str) -> bool:
        """Whether no part of the relative ``folder`` is a symlink (or missing)."""
        if folder in ("", "."):
            return True
        known = self.folders
        if folder not in known:
            try:
                link = not stat.S_ISDIR(os.lstat(folder).st_mode)
            except OSError:
                link = True
            known[folder] = not link and self.link_free(os.path.dirname(folder))
        return known[folder]


def _entries(listing: bytes) -> list[tuple[str, str]]:
    """(mode, path) of each ``<mode> <sha> <stage>\\t<path>`` record."""
    entries = []
    for record in listing.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if tab:
            entries.append((meta.split(b" ", 1)[0].decode("ascii", "replace"), os.fsdecode(raw)))
    return entries


def _inside(path: str) -> bool:
    """git never lists a path leaving the work tree; a hostile listing is not trusted to."""
    return bool(path) and not os.path.isabs(path) and ".." not in path.split("/")


def _gitdir(path: str) -> tuple[str | None, str]:
    """The git directory a checked-out submodule's ``.git`` names, or (None, why not)."""
    dotgit = os.path.join(path, ".git")
    try:
        mode = os.lstat(dotgit).st_mode
    except OSError:
        return None, "not checked out"
    if stat.S_ISDIR(mode):
        return dotgit, ""
    if not stat.S_ISREG(mode):
        return None, "its .git is not a file or folder, not followed"
    try:
        fd = open_checked(dotgit, cap=None).fd
        try:
            text = os.read(fd, _GITFILE_CAP)
        finally:
            os.close(fd)
    except OSError as exc:
        return None, f"its .git is not readable: {exc.strerror or exc}"
    line = text.split(b"\n", 1)[0].strip()
    if not line.startswith(b"gitdir:") or len(text) >= _GITFILE_CAP:
        return None, "its .git file names no git directory"
    return os.path.join(path, os.fsdecode(line.removeprefix(b"gitdir:").strip())), ""


def _own_gitdir() -> str:
    """The scanned repository's own git directory (a submodule naming it is no new one)."""
    try:
        out = git_output(["rev-parse", "--absolute-git-dir"], "git directory")
    except InputError:
        return ""
    return os.fsdecode(out.rstrip(b"\n"))


def skipped_note(skipped: list[str], shown: int = 10) -> str:
    """One line naming the submodules ``--all-files`` did not enter (the first ``shown``)."""
    more = len(skipped) - shown
    names = ", ".join(skipped[:shown]) + (f" and {more} more" if more > 0 else "")
    noun = "submodule" if len(skipped) == 1 else "submodules"
    return f"--all-files: {len(skipped)} {noun} not scanned: {names}"


__all__ = ["MAX_DEPTH", "skipped_note", "tracked_files"]
