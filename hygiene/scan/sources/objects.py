"""The objects a history scan reads: every blob, commit and annotated tag reachable from its
scope, each once, listed by two gits piped into each other (``git rev-list --objects`` into
``git cat-file --batch-check``, no Python in between), with their kinds and sizes.

Trees are walked by git, never read here. An object git cannot find (a partial clone's blob
never fetched, a pack that lost it) is listed as missing, not a failure: the rest is scanned.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from hygiene.gitcmd import GitStream
from hygiene.scan.sources.scope import HistoryScope

# What is read of history: file contents, commit messages, annotated tags' messages.
KINDS = frozenset({"blob", "commit", "tag"})


@dataclass(frozen=True)
class GitObject:
    """One object to read: its id, kind (``blob``, ``commit``, ``tag``) and size in bytes."""

    sha: str
    kind: str
    size: int


@dataclass
class Listing:
    """What :func:`list_objects` found missing while it listed (ids, in listing order)."""

    missing: list[str] = field(default_factory=list)


def list_objects(scope: HistoryScope, listing: Listing) -> Generator[GitObject, None, None]:
    """Every blob, commit and tag of ``scope``, one at a time; missing ones go to
    ``listing.missing``. Both gits are reaped however the caller stops reading."""
    # Ids only: a path is the repository's to name, and one holding a newline would split
    # its line in two.
    walk_args = ["rev-list", "--objects", "--no-object-names", "--missing=print"]
    walk_args += [*scope.revisions(), "--"]
    check_args = ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"]
    with (
        GitStream(walk_args, "{history}", options=("history",)) as walk,
        GitStream(check_args, "{history}", options=("history",), stdin_from=walk.stdout) as check,
    ):
        # Only cat-file reads the walk: should it die, rev-list then meets a closed pipe.
        walk.stdout.close()
        for line in check.stdout:
            fields = line.split()
            if len(fields) == 2 and fields[1] == b"missing":
                listing.missing.append(fields[0].lstrip(b"?").decode("ascii", "replace"))
            elif len(fields) == 3 and fields[1].decode("ascii", "replace") in KINDS:
                kind = fields[1].decode("ascii")
                yield GitObject(fields[0].decode("ascii"), kind, int(fields[2]))
        # cat-file first: it ended, so rev-list closed its output (or cat-file failed, and
        # leaving the block kills rev-list, which may be blocked writing).
        check.finish()
        walk.finish()


def batches(
    objects: Iterator[GitObject], max_bytes: int, max_count: int
) -> Iterator[list[GitObject]]:
    """``objects`` in listing order (which keeps git's delta chains close), grouped into
    batches of about ``max_bytes`` bytes or ``max_count`` objects."""
    batch: list[GitObject] = []
    size = 0
    for obj in objects:
        batch.append(obj)
        size += obj.size
        if size >= max_bytes or len(batch) >= max_count:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


__all__ = ["KINDS", "GitObject", "Listing", "batches", "list_objects"]
