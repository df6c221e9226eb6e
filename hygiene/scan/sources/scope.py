"""What ``--history`` covers: the revisions whose reachable objects are scanned.

Every ref (branches, tags, ``refs/stash``, ``refs/notes/*``; HEAD), or the revisions ``--ref``
names; minus what is reachable from any ``--since`` revision; plus the reflogs' entries with
``--reflog``. ``--since A..B`` keeps its old meaning (``--ref B --since A``), so pre-push hooks
written for it keep working.

Every revision is resolved to a commit id before any streaming git starts: a bad one is a
one-line exit 2 with no git left running, and what reaches the walking gits is ids only (a
name starting with ``-`` could never be read as an option).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hygiene.errors import InputError, UsageError
from hygiene.gitcmd import git_output

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class HistoryScope:
    """The revisions to scan, as given (names, ``A..B`` ranges) or resolved (commit ids)."""

    refs: tuple[str, ...] = ()
    since: tuple[str, ...] = ()
    reflog: bool = False

    def revisions(self) -> list[str]:
        """The arguments that select this scope for ``git rev-list`` and ``git log``."""
        args = list(self.refs) if self.refs else ["--all"]
        if self.reflog:
            args.append("--reflog")
        if self.since:
            args += ["--not", *self.since]
        return args


def split_ranges(refs: Sequence[str], since: Sequence[str]) -> tuple[list[str], list[str]]:
    """``--since A..B`` as ``--ref B --since A`` (``A..`` is ``A..HEAD``); other values as
    they are. A symmetric ``A...B`` has no meaning here: a usage error."""
    out_refs, out_since = list(refs), []
    for value in since:
        _check_name(value, "since")
        if "..." in value:
            raise UsageError(
                f"{{since}}: a range A...B is not supported: {value!r}", options=("since",)
            )
        if ".." in value:
            start, _, end = value.partition("..")
            out_since.append(start or "HEAD")
            out_refs.append(end or "HEAD")
        else:
            out_since.append(value)
    for value in refs:
        _check_name(value, "ref")
    return out_refs, out_since


def _check_name(value: str, option: str) -> None:
    if not value or value.startswith("-"):
        raise UsageError(f"{{{option}}}: not a revision: {value!r}", options=(option,))


def _resolve(rev: str, option: str) -> str:
    """The object ``rev`` names, which must be or lead to a commit (an annotated tag stays
    a tag: ``--since v1`` then leaves out the tag object too)."""
    try:
        out = git_output(
            ["rev-parse", "--end-of-options", rev, f"{rev}^{{commit}}"],
            f"{{{option}}}",
            options=(option,),
        )
    except InputError:
        raise InputError(
            f"{{{option}}}: not a revision of this repository: {rev!r}", options=(option,)
        ) from None
    # rev-parse echoes the options it was given: the first object id is the answer.
    ids = [word for word in out.decode("ascii", "replace").split() if _OBJECT_ID.fullmatch(word)]
    if len(ids) != 2:
        raise InputError(f"{{{option}}}: not a single revision: {rev!r}", options=(option,))
    return ids[0]


def resolve(refs: Sequence[str], since: Sequence[str], reflog: bool = False) -> HistoryScope:
    """The scope the flags name, every revision resolved to a commit id (see the module's
    docstring); not in a repository, or a revision that names no commit: one-line errors."""
    # The repository first: outside one, that is the reason, whatever the revisions.
    git_output(["rev-parse", "--git-dir"], "{history}", options=("history",))
    out_refs, out_since = split_ranges(refs, since)
    return HistoryScope(
        tuple(_resolve(rev, "ref") for rev in out_refs),
        tuple(_resolve(rev, "since") for rev in out_since),
        reflog,
    )


__all__ = ["HistoryScope", "resolve", "split_ranges"]
