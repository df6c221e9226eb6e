"""``--history``: every line any commit added, streamed from ``git log -p``.

git itself selects the commits and files worth reading (``-G`` with the rules' needles), so
Python parses only diffs that can hold a finding; added lines are scanned with the same engine
and carry the commit id and their line number in that commit's version of the file. Commit
messages and ``.gz`` blobs, which the diffs do not show, are read by
:mod:`~hygiene.scan.sources.commits`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from hygiene.errors import UsageError
from hygiene.gitcmd import DIFF_FLAGS, GitStream
from hygiene.progress import ScanProgress
from hygiene.scan.decoders import b64, finder_for, refine
from hygiene.scan.findings import ScanResult, detection_for
from hygiene.scan.limits import AllowLines
from hygiene.scan.matcher.engine import scan_bytes
from hygiene.scan.matcher.needles import NEEDLES
from hygiene.scan.sources.commits import MessageScan, list_gz_blobs, scan_gz_blobs
from hygiene.scan.sources.files import Excluder


def history_args(since: str | None) -> list[str]:
    """The revisions ``history`` (``since`` REV) covers: all refs, or ``REV..HEAD`` (a range
    ``A..B`` given as REV is used as it is)."""
    if since is None:
        return ["--all"]
    if not since or since.startswith("-"):
        raise UsageError(f"{{since}}: not a revision: {since!r}", options=("since",))
    return [since] if ".." in since else [f"{since}..HEAD"]


def _ere(needle: bytes, caseless: bool) -> str:
    """``needle`` as a POSIX extended regex for ``git log -G`` (needles are made of letters,
    digits, ``_``, ``-`` and ``%``, all literal outside brackets)."""
    text = needle.decode("ascii")
    if not caseless:
        return text
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in text)


def _ere_literal(needle: bytes) -> str:
    """A base64 needle as an ERE: letters and digits as they are, `+`, `/`, `-`, `_` in
    brackets (`+` is an operator outside them)."""
    return "".join(c if c.isalnum() else f"[{c}]" for c in needle.decode("ascii"))


# Base64 carries PATs too (the decoders find them): their needles are lines worth reading.
_B64_NEEDLES = tuple(n.text for n in (*b64.NEEDLES, *b64.NESTED_NEEDLES))

# What git's -G looks for: a line that holds any rule's needle, or a base64 PAT's.
PICKAXE = "|".join(
    [_ere(needle, rule.caseless) for rule, needle in NEEDLES]
    + [_ere_literal(needle) for needle in _B64_NEEDLES]
)


def _holds_needle(line: bytes) -> bool:
    low = line.lower()
    return any(needle in (low if rule.caseless else line) for rule, needle in NEEDLES) or any(
        needle in line for needle in _B64_NEEDLES
    )


_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_COMMIT_MARK = b"\0"


@dataclass
class _DiffState:
    commit: str = ""
    path: str | None = None
    in_header: bool = False
    line: int = 0


def _git_log(since: str | None) -> list[str]:
    return [
        "log",
        "-p",
        "-U0",
        *DIFF_FLAGS,
        "--no-show-signature",
        "--no-renames",
        "--format=%x00%H",
        f"-G{PICKAXE}",
        *history_args(since),
        "--",
    ]


# git's C quoting: a backslash and a letter for these bytes (others as three octal digits).
_C_ESCAPES = dict(zip(b'abtnvfr"\\', b'\a\b\t\n\v\f\r"\\', strict=True))


def _c_unquote(quoted: bytes) -> bytes:
    """The bytes of a C-quoted git path (``"a\\tb\\303\\251"``, quotes removed)."""
    out = bytearray()
    i = 0
    while i < len(quoted):
        byte = quoted[i]
        if byte == 92 and i + 1 < len(quoted):  # a backslash
            nxt = quoted[i + 1]
            if 48 <= nxt <= 55:  # octal: exactly three digits
                out.append(int(quoted[i + 1 : i + 4], 8))
                i += 4
                continue
            out.append(_C_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(byte)
        i += 1
    return bytes(out)


def diff_path(raw: bytes) -> str:
    """The path of a ``+++ b/PATH`` line's ``b/PATH`` part, exact: git appends a tab to a
    name holding a space and C-quotes names with control characters, quotes or backslashes;
    other bytes (non-UTF-8 ones too) are the name's own, kept as ``os.fsdecode`` keeps them
    when files are walked."""
    raw = raw.removesuffix(b"\n").removesuffix(b"\t")
    if raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2:
        raw = _c_unquote(raw[1:-1])
    return os.fsdecode(raw.removeprefix(b"b/"))


def _added_lines(
    stream: IO[bytes], state: _DiffState, on_commit: Callable[[], None] = lambda: None
) -> Iterator[bytes]:
    """Each added line's bytes, with ``state`` telling its commit, path and line number;
    ``on_commit`` is called as each commit's diff starts."""
    for raw in stream:
        if raw.startswith(_COMMIT_MARK):
            on_commit()
            state.commit, state.path, state.in_header = raw[1:].strip().decode("ascii"), None, False
        elif raw.startswith(b"diff --git "):
            state.in_header, state.path = True, None
        elif state.in_header:
            if raw.startswith(b"+++ "):
                target = raw[4:].rstrip(b"\n")
                state.path = None if target == b"/dev/null" else diff_path(target)
            elif m := _HUNK.match(raw):
                state.in_header, state.line = False, int(m.group(1))
        elif m := _HUNK.match(raw):
            state.line = int(m.group(1))
        elif raw.startswith(b"+") and state.path is not None:
            yield raw[1:]
            state.line += 1


def _telling(progress: ScanProgress, result: ScanResult) -> Callable[[], None]:
    """A hook that tells ``progress`` what ``result`` gained since the last call (per commit,
    not per line)."""
    told = [0, 0]

    def tell() -> None:
        nbytes, found = result.bytes, len(result.detections)
        progress.add(nbytes=nbytes - told[0], findings=found - told[1])
        told[:] = nbytes, found

    return tell


def _scan_diffs(
    since: str | None,
    excluder: Excluder,
    result: ScanResult,
    allow_lines: AllowLines,
    progress: ScanProgress,
) -> None:
    """Findings in the added lines of ``git log -p`` (see the module's docstring)."""
    with GitStream(_git_log(since), "{history}", options=("history",)) as git:
        state = _DiffState()
        seen: set[tuple[str, str]] = set()
        tell = _telling(progress, result)
        for content in _added_lines(git.stdout, state, tell):
            result.bytes += len(content)
            if state.path is None or excluder.excludes(state.path):
                continue
            seen.add((state.commit, state.path))
            if not _holds_needle(content):
                continue
            finder = finder_for(len(content))
            hits = scan_bytes(
                content,
                finder=finder,
                allow_lines=allow_lines.patterns,
                refine=refine,
                markers=allow_lines.markers,
                suppressed=result.suppressed,
            )
            for hit in hits:
                found = detection_for(hit, state.path, line=state.line, commit=state.commit)
                result.detections.append(found)
        tell()
        git.finish()
    result.files = len(seen)


def scan_history(
    excluder: Excluder,
    since: str | None = None,
    allow_lines: AllowLines = AllowLines(),
    progress: ScanProgress | None = None,
) -> ScanResult:
    """Findings in every line added by the commits of all refs (or of ``--since REV``), in
    their messages and in the ``.gz`` blobs they added; ``progress`` hears of each commit's
    diff and message and of each blob."""
    started = time.perf_counter()
    result = ScanResult()
    revisions = history_args(since)
    progress = progress if progress is not None else ScanProgress()
    # The listing of .gz blobs and the messages run beside the diff pass.
    listing = list_gz_blobs(revisions)
    messages = MessageScan(revisions, allow_lines, progress)
    try:
        _scan_diffs(since, excluder, result, allow_lines, progress)
        messages.join(result)
        scan_gz_blobs(listing, excluder, result, allow_lines, progress)
    finally:
        # On any way out (a git failure, a signal) none of the three gits outlives the scan.
        messages.stop()
        listing.stop()
    result.seconds = time.perf_counter() - started
    return result
