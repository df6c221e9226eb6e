"""Which commit and path first introduced a blob, who made that commit, and what HEAD holds.

The rule, deterministic whatever order git walks in: a commit *introduces* blob B at path P
when its tree holds B at P and none of its parents' trees does (a root commit introduces all
it holds; a merge introduces what it resolved or added by itself, an octopus too: git's
combined diff, ``-c``, lists exactly those paths). A secret is reported once per path it
ever lived at (in any blob, any archive member there): of the introductions of blobs holding
it at that path, within the scanned scope, the first is found so: take the one with the
earliest committer date, then the smallest commit id; while another one's commit is an
ancestor of it, take the earliest such ancestor instead (dates can lie: an ancestor always
comes first). A file edited around a token is one finding, at the commit that added the
token; a rename is a second one, at the commit that renamed it (both paths need cleaning).

Only blobs with findings are attributed: one ``git log --raw -c`` pass over the scope, run
only when there is something to attribute.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import IO

from hygiene.errors import InputError
from hygiene.gitcmd import GitStream, git_output, git_succeeds
from hygiene.scan.sources.blobs import Signature, signature
from hygiene.scan.sources.files import Excluder
from hygiene.scan.sources.scope import HistoryScope
from hygiene.scan.sources.staged import feed_lines

_NO_BLOB = "0" * 40
_SUBMODULE = b"160000"
_COMMIT_MARK = b"\x01"


@dataclass(frozen=True, order=True)
class Introduction:
    """A commit that introduced a blob at a path, ordered by the rule above."""

    time: int
    commit: str
    path: str


def _tokens(stream: IO[bytes]) -> Iterator[bytes]:
    """The NUL-separated tokens of ``stream``, read in blocks (memory flat in its length)."""
    rest = b""
    while block := stream.read(1 << 20):
        parts = (rest + block).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


def _log_args(scope: HistoryScope) -> list[str]:
    return [
        "log", "--raw", "-c", "--no-abbrev", "--no-renames", "-z", "--no-textconv",
        "--no-ext-diff", "--no-relative", "--format=%x01%H %ct", *scope.revisions(), "--",
    ]  # fmt: skip


def introductions(
    scope: HistoryScope, wanted: Collection[str], excluder: Excluder
) -> tuple[dict[str, list[Introduction]], set[str]]:
    """Every introduction (see the module's docstring) of each blob of ``wanted`` at a path
    not excluded, and the blobs introduced only at excluded paths."""
    every, excluded = _all_introductions(scope, wanted, excluder)
    return every, excluded - every.keys()


def first_of(found: Collection[Introduction]) -> Introduction:
    """The first of several introductions (see the module's docstring): the earliest,
    unless another's commit is its ancestor."""
    ordered = sorted(found)
    best = ordered[0]
    while True:
        others = {i.commit for i in ordered} - {best.commit, ""}
        older = _ancestors_among(others, best.commit) if others and best.commit else set()
        if not older:
            return best
        best = next(i for i in ordered if i.commit in older)


# Up to this many commits are asked about one by one; more, with one walk of the ancestors.
_ONE_BY_ONE = 8


def _ancestors_among(commits: set[str], of: str) -> set[str]:
    """Which of ``commits`` are ancestors of the commit ``of``."""
    if len(commits) <= _ONE_BY_ONE:
        return {c for c in sorted(commits) if git_succeeds(["merge-base", "--is-ancestor", c, of])}
    # A file edited around a token in hundreds of commits: one walk, not hundreds of gits.
    seen: set[str] = set()
    with GitStream(["rev-list", of, "--"], "{history}", options=("history",)) as walk:
        for line in walk.stdout:
            commit = line.strip().decode("ascii", "replace")
            if commit in commits:
                seen.add(commit)
                if len(seen) == len(commits):
                    break  # every one is: nothing left to learn
    return seen


def _all_introductions(
    scope: HistoryScope, wanted: Collection[str], excluder: Excluder
) -> tuple[dict[str, list[Introduction]], set[str]]:
    first: dict[str, list[Introduction]] = {}
    excluded: set[str] = set()
    if not wanted:
        return first, excluded
    commit, when, meta = "", 0, b""
    with GitStream(_log_args(scope), "{history}", options=("history",)) as log:
        for token in _tokens(log.stdout):
            token = token.lstrip(b"\n")
            if token.startswith(_COMMIT_MARK):
                sha, _, stamp = token[1:].strip().partition(b" ")
                commit, when, meta = sha.decode("ascii"), int(stamp or b"0"), b""
            elif token.startswith(b":"):
                meta = token
            elif meta:
                _consider(first, excluded, meta, token, (commit, when), wanted, excluder)
                meta = b""
        log.finish()
    return first, excluded


def _consider(
    first: dict[str, list[Introduction]],
    excluded: set[str],
    meta: bytes,
    raw_path: bytes,
    made: tuple[str, int],
    wanted: Collection[str],
    excluder: Excluder,
) -> None:
    """One raw diff line: its blob introduced at its path by the commit ``made`` names (id,
    committer time), if wanted."""
    fields = meta.split()
    parents = len(fields[0]) - len(fields[0].lstrip(b":"))
    blob = fields[-2].decode("ascii", "replace")
    if blob == _NO_BLOB or blob not in wanted or fields[parents] == _SUBMODULE:
        return
    path = os.fsdecode(raw_path)
    if excluder.excludes(path):
        excluded.add(blob)
        return
    first.setdefault(blob, []).append(Introduction(made[1], made[0], path))


def signatures(commits: Collection[str]) -> dict[str, Signature]:
    """The author and date of each commit of ``commits`` (one ``git cat-file --batch``)."""
    found: dict[str, Signature] = {}
    names = sorted(commits)
    if not names:
        return found
    with GitStream(["cat-file", "--batch"], "{history}", options=("history",), stdin=True) as git:
        feeder = threading.Thread(target=feed_lines, args=(git.stdin, names), daemon=True)
        feeder.start()
        try:
            for name in names:
                fields = git.stdout.readline().split()
                if len(fields) != 3:
                    continue  # read a moment ago: only a repository changing under us
                data = git.stdout.read(int(fields[2]) + 1)
                header = data.partition(b"\n\n")[0]
                found[name] = signature(header)
        finally:
            git.kill()
            feeder.join()
    return found


def head_blobs() -> frozenset[str]:
    """The blobs of HEAD's tree (none when HEAD names no commit: an empty repository)."""
    try:
        out = git_output(["ls-tree", "-r", "-z", "--full-tree", "HEAD", "--"], "{history}")
    except InputError:
        return frozenset()
    blobs = set()
    for entry in out.split(b"\0"):
        fields = entry.partition(b"\t")[0].split()
        if len(fields) == 3 and fields[1] == b"blob":
            blobs.add(fields[2].decode("ascii"))
    return frozenset(blobs)


__all__ = ["Introduction", "first_of", "head_blobs", "introductions", "signatures"]
